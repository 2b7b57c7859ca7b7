//===- CompileModel.cpp - nunc IR to a static library ---------------------===//

#include "nunc/Codegen/CompileModel.h"

#include "Archive.h"
#include "AttentionKernel.h"
#include "ElementwiseChainKernel.h"
#include "DequantizeKernel.h"
#include "ElementwiseKernel.h"
#include "GatherKernel.h"
#include "GemmKernel.h"
#include "Im2colKernel.h"
#include "Int8DepthwiseKernel.h"
#include "Int8GemmKernel.h"
#include "QuantizeRowsKernel.h"
#include "LayerNormKernel.h"
#include "RowReduceKernel.h"
#include "SoftmaxKernel.h"
#include "WindowKernel.h"
#include "WinogradKernel.h"
#include "GenericKernels.h"
#include "Header.h"
#include "KernelCall.h"
#include "nunc/Dialect/Nunc/NuncOps.h"
#include "nunc/Dialect/Nunc/NuncUtils.h"
#include "nunc/Dialect/Nunc/ShapeHelpers.h"
#include "nunc/Dialect/Nunc/OneStepRequantization.h"
#include "nunc/Interpreter/Evaluator.h"
#include "nunc/Pipeline/Pipeline.h"
#include "nunc/Plan/MemoryPlan.h"
#include "nunc/Transforms/BatchNormParams.h"
#include "nunc/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"

#include <limits>
#include <map>

using namespace mlir;
using namespace mlir::nunc;

namespace {

constexpr uint64_t kContextMagic = 0x6e756e63636f6e74ull; // runtime_internal.h
constexpr int kStatusInvalidInput = 2, kStatusNotInitialized = 5;

/// A temporary file removed when this goes out of scope.
struct TempFile {
  std::string path;
  ~TempFile() {
    if (!path.empty())
      llvm::sys::fs::remove(path);
  }
  LogicalResult write(llvm::StringRef bytes, llvm::StringRef suffix) {
    llvm::SmallString<128> p;
    int fd;
    if (llvm::sys::fs::createTemporaryFile("nunc", suffix, fd, p))
      return failure();
    path = std::string(p);
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << bytes;
    return success(!os.has_error());
  }
};

/// The graph input a Gather's indices come from, looking through casts and
/// views, for error messages users can act on.
std::string indexSource(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (!isa<CastOp, ReshapeOp, FlattenOp, SqueezeOp, UnsqueezeOp, IdentityOp>(def))
      return "";
    v = def->getOperand(0);
  }
  auto arg = cast<BlockArgument>(v);
  auto func = cast<func::FuncOp>(arg.getOwner()->getParentOp());
  if (auto name = func.getArgAttrOfType<StringAttr>(arg.getArgNumber(), "nunc.name"))
    return name.str();
  return "";
}

x86::Activation roundToGrid(Type grid);
x86::Activation::Grid geluGrid(std::optional<Type> grid);

/// The kernels' grid of a tensor of u8 codes typed `grid`: bytes 0-255
/// read as (code - zp) * scale (min = -zp), whatever storage range the
/// type names.
x86::Activation u8CodesGrid(Type grid) {
  auto q = cast<quant::UniformQuantizedType>(grid);
  return x86::Activation::fakeQuant(static_cast<float>(q.getScale()),
                                    static_cast<float>(-q.getZeroPoint()),
                                    static_cast<float>(255 - q.getZeroPoint()));
}

/// Whether the attention kernels of targets with this int8 family read u8
/// query, key and value (vpdpbusd: AVX-512 VNNI, or AVX-VNNI on ymm).
bool readsU8AttentionInputs(Int8Isa int8) {
  return int8 == Int8Isa::Avx512Vnni || int8 == Int8Isa::Amx || int8 == Int8Isa::AvxVnni;
}

/// Per query row, how many leading keys a constant f32 mask leaves it for
/// every (b, h) (x86::AttentionConfig::rowKeys): past its last value above
/// -1e30 (-inf, the lowest float) a key's probability is at most 2^-126,
/// the kernel's exponential's floor. Empty where the mask is not constant
/// or leaves every row all T keys; a row it masks whole for some (b, h)
/// keeps all T (the kernel averages such a row's keys).
std::vector<int64_t> keysLeftByMask(Value mask, const x86::AttentionConfig &c) {
  ElementsAttr attr;
  SmallVector<char> raw;
  auto type = cast<RankedTensorType>(mask.getType());
  if (!type.getElementType().isF32() || !matchPattern(mask, m_Constant(&attr)) ||
      !readRawElements(attr, raw) ||
      raw.size() != static_cast<size_t>(type.getNumElements()) * 4)
    return {};
  SmallVector<float> values(type.getNumElements());
  std::memcpy(values.data(), raw.data(), raw.size());
  std::vector<int64_t> keys(c.seq, 0);
  for (int64_t b = 0; b < (c.maskStrides[0] ? c.batch : 1); ++b)
    for (int64_t h = 0; h < (c.maskStrides[1] ? c.heads : 1); ++h)
      for (int64_t i = 0; i < c.seq; ++i) {
        int64_t j = c.keys - 1;
        while (j >= 0 && values[b * c.maskStrides[0] + h * c.maskStrides[1] +
                                i * c.maskStrides[2] + j * c.maskStrides[3]] <= -1e30f)
          --j;
        // Masked whole for this (b, h): the row averages all T keys.
        keys[i] = j < 0 ? c.keys : std::max(keys[i], j + 1);
      }
  if (llvm::all_of(keys, [&](int64_t k) { return k == c.keys; }))
    return {};
  return keys;
}

/// `c` writing the u8 codes of `grid` (u8_output) in place of rounding to
/// it (qlinear's P V is those codes already).
void setAttentionU8Output(x86::AttentionConfig &c, Type grid) {
  auto q = cast<quant::UniformQuantizedType>(grid);
  c.u8Output = {static_cast<float>(q.getScale()), static_cast<int32_t>(q.getZeroPoint())};
  if (!c.qlinear)
    c.output = {};
}

/// The x86 attention kernel's view of an attention op, if it can run it.
std::optional<x86::AttentionConfig> attentionConfig(AttentionOp op, Isa isa) {
  auto q = cast<RankedTensorType>(op.getQuery().getType());
  x86::AttentionConfig c;
  if (llvm::isa<quant::QuantizedType>(q.getElementType())) {
    // u8 codes (the verifier checked all three), whatever storage range
    // the type names: bytes 0-255 read as (code - zp) * scale.
    c.u8Inputs = true;
    for (unsigned i = 0; i < 3; ++i)
      c.inputGrids[i] = u8CodesGrid(getElementTypeOrSelf(op->getOperand(i)));
  } else if (!q.getElementType().isF32()) {
    return std::nullopt;
  }
  c.batch = q.getDimSize(0);
  c.seq = op.queryLength();
  c.keys = op.keyLength();
  c.heads = op.getNumHeads();
  c.headDim = op.headDim();
  c.kvHeads = op.numKvHeads();
  for (unsigned i = 0; i < 4; ++i)
    c.headsMajor[i] = op.isHeadsMajor(i);
  if (op.getInputOffsets())
    for (unsigned i = 0; i < 3; ++i) {
      c.inputStrides[i] = cast<ShapedType>(op->getOperand(i).getType()).getDimSize(2);
      c.inputOffsets[i] = op.inputOffset(i);
    }
  c.scale = op.getScale().convertToFloat();
  for (auto [grid, dst] : {std::pair(op.getScoresQuantization(), &c.scores),
                           std::pair(op.getScaledQuantization(), &c.scaled),
                           std::pair(op.getLogitsQuantization(), &c.logits),
                           std::pair(op.getProbsQuantization(), &c.probs),
                           std::pair(op.getOutputQuantization(), &c.output)})
    if (grid)
      *dst = roundToGrid(*grid);
  c.qlinear = op.getQlinearArithmetic();
  c.int8Products = op.getInt8Products();
  if (op.getU8Output())
    setAttentionU8Output(c, *op.getOutputQuantization());
  c.signedCodes = op.getSignedCodes();
  c.scaleDivisor = op.divisorOrZero();
  if (std::optional<Type> m = op.getMaskQuantization())
    c.maskGrid = u8CodesGrid(*m);
  if (op.getMask()) {
    c.mask = true;
    auto m = cast<RankedTensorType>(op.getMask().getType());
    SmallVector<int64_t> shape4(4 - m.getRank(), 1);
    shape4.append(m.getShape().begin(), m.getShape().end());
    int64_t stride = 1;
    for (int i = 3; i >= 0; --i) {
      c.maskStrides[i] = shape4[i] == 1 ? 0 : stride;
      stride *= shape4[i];
    }
    c.rowKeys = keysLeftByMask(op.getMask(), c);
  }
  if (std::optional<x86::AttentionConfig> g = x86::AttentionKernel::groupedRows(c))
    c = *g;
  if (!x86::AttentionKernel::supports(c, isa))
    return std::nullopt;
  return c;
}

} // namespace

bool mlir::nunc::takesInt8Attention(AttentionOp op, const TargetInfo &target) {
  if (!readsU8AttentionInputs(target.int8)) // vpdpbusd
    return false;
  // (Asked with the attribute set.)
  std::optional<x86::AttentionConfig> c = attentionConfig(op, target.isa);
  return c && c->int8Products;
}

namespace {

/// The bytes of a constant operand (its kernel's geometry checked that it
/// is one).
SmallVector<char> constantBytes(Value v) {
  ElementsAttr attr;
  SmallVector<char> raw;
  matchPattern(v, m_Constant(&attr));
  readRawElements(attr, raw);
  return raw;
}

/// " <activation>" (and " +post" for a post Mul/Add) for --explain, or "".
std::string describeActivation(Operation *op) {
  EpilogueActivation e = EpilogueActivation::of(op);
  if (e.isIdentity())
    return "";
  return (e.kind == "none" ? "" : " " + e.kind) + (e.hasPostAffine() ? " +post" : "");
}

/// The epilogue activation of a fused op, as the x86 kernels take it.
x86::Activation epilogueActivation(Operation *op) {
  EpilogueActivation e = EpilogueActivation::of(op);
  x86::Activation a = x86::Activation::fromName(e.kind, e.min, e.max, e.alpha);
  a.beta = e.beta;
  a.postMul = e.postMul;
  a.postAdd = e.postAdd;
  return a;
}

/// What the implicit-GEMM convolution needs to know about a conv.
struct ConvGeometry {
  ConvPackConfig pack; // channels: a group's
  int64_t outChannels = 0; // a group's
  /// A grouped conv runs its packing step and GEMM once per (image, group)
  /// on the group's input planes, weight rows and output rows, pack.batch 1.
  int64_t groups = 1, images = 1;
  Value input, weight, bias, residual;
  x86::Activation activation;
  /// > 0: the GEMM sums K in MLAS's blocks (x86::GemmConfig::kBlock; an
  /// int8 conv's f32 products).
  int64_t kBlock = 0;
  int64_t ck() const { return pack.channels * pack.kernelH * pack.kernelW; }
  int64_t positions() const { return pack.outH * pack.outW; }
  int64_t panels() const { return (positions() + pack.panelWidth - 1) / pack.panelWidth; }
  int64_t packedBytes() const { return pack.batch * panels() * ck() * pack.panelWidth * 4; }
  /// The xbyak im2col, when it takes this geometry.
  std::optional<x86::Im2colConfig> im2col(Isa isa) const {
    const ConvPackConfig &p = pack;
    x86::Im2colConfig c{p.batch,     p.channels,  p.height,    p.width,  p.kernelH,
                        p.kernelW,   p.strideH,   p.strideW,   p.dilationH, p.dilationW,
                        p.padTop,    p.padLeft,   p.outH,      p.outW,   p.panelWidth};
    if (!x86::Im2colKernel::supports(c, isa))
      return std::nullopt;
    return c;
  }
  /// The GEMM building its own panels from padded planes, where it can.
  std::optional<x86::Im2colConfig> panelIm2col(Isa isa) const {
    std::optional<x86::Im2colConfig> c = im2col(isa);
    if (!c || !x86::PanelIm2col::supports(*c, isa))
      return std::nullopt;
    return c;
  }
  /// With the panel im2col: what precedes the GEMM tasks' buffers, the
  /// padded planes, or (row chunks sharing panels, see
  /// x86::GemmKernel::Im2colSplit) the packed panels and the im2col
  /// kernel's planes.
  int64_t sharedPanelsBytes(Isa isa) const {
    std::optional<x86::Im2colConfig> c = panelIm2col(isa);
    if (x86::GemmKernel::im2colSplit(gemmConfig(isa)).packPerItem)
      return x86::PanelIm2col::planesBytes(*c);
    return packedBytes() + x86::Im2colKernel::scratchBytes(*c, isa);
  }
  /// The GEMM tasks copy their panels straight from the input (no padding,
  /// stride 1: x86::PanelIm2col::readsInput), so no step runs before them.
  bool gemmReadsInput(Isa isa) const {
    std::optional<x86::Im2colConfig> c = panelIm2col(isa);
    return c && x86::PanelIm2col::readsInput(*c) &&
           x86::GemmKernel::im2colSplit(gemmConfig(isa)).packPerItem;
  }
  /// The GEMM: the weights as A ([M][C*kh*kw] as stored), one bias per
  /// row, W the im2col (packed before, or built by the GEMM's tasks).
  x86::GemmConfig gemmConfig(Isa isa) const {
    x86::GemmConfig cfg;
    cfg.m = outChannels;
    cfg.n = positions();
    cfg.k = ck();
    cfg.lda = cfg.k;
    cfg.ldc = cfg.n;
    cfg.ldr = cfg.n;
    cfg.bias = static_cast<bool>(bias);
    cfg.rowBias = true;
    cfg.residual = static_cast<bool>(residual);
    cfg.batch = pack.batch;
    cfg.wBatchStride = panels() * pack.panelWidth * cfg.k;
    cfg.cBatchStride = cfg.m * cfg.n;
    cfg.rBatchStride = cfg.m * cfg.n;
    cfg.activation = activation;
    cfg.im2col = panelIm2col(isa);
    cfg.kBlock = kBlock;
    return cfg;
  }
  /// Set where the conv runs as Winograd F(2x2, 3x3) instead (see
  /// convGeometry).
  std::optional<x86::WinogradConfig> winograd;
  /// The Winograd kernel's padded planes, before its tasks' buffers (which
  /// start on a cache line).
  int64_t winogradPlanesBytes() const {
    int64_t bytes = x86::PanelIm2col::planesBytes(x86::WinogradKernel::paddingConfig(*winograd));
    return (bytes + 63) / 64 * 64;
  }
  /// Scratch: the padded planes, then the GEMM tasks' panel buffers; or the
  /// packed panels, then the im2col kernel's padded planes; or Winograd's
  /// padded planes and task buffers.
  int64_t scratchBytes(Isa isa) const {
    if (winograd)
      return winogradPlanesBytes() +
             x86::WinogradKernel::numTasks(*winograd) * x86::WinogradKernel::bufferBytes(*winograd);
    if (std::optional<x86::Im2colConfig> c = panelIm2col(isa))
      return sharedPanelsBytes(isa) + x86::GemmKernel::panelBufferBytes(gemmConfig(isa), isa);
    std::optional<x86::Im2colConfig> c = im2col(isa);
    return packedBytes() + (c ? x86::Im2colKernel::scratchBytes(*c, isa) : 0);
  }
};

/// The Winograd kernel's view of a conv, where it takes it (3x3, stride 1,
/// padding 1 on every side, no dilation) and pays: its products run on
/// vectors of 16 tiles of a tile row (or two rows of 8), so tile rows that
/// fill less than 60 % of their lanes (planes narrower than 9, 17-18 or
/// 33-38 wide) waste too many, a few input channels leave the input transform
/// most of the work, and past ~320 a panel's V (3 KB per input channel)
/// no longer stays in L2 (nunc-bench-gemm avx512+winograd against
/// avx512+conv, Zen 5: 64 channels of 56x56 1.9x, 128 of 28x28 2x, 256 of
/// 28x28 1.8x, 20x20 1.3x, 256 of 14x14 1.5x, 64 of 16x16 1.8x, 10x10
/// 1.2x, 9x9 even, 3 channels slower, 512 of 14x14 even).
std::optional<x86::WinogradConfig> winogradConfig(const ConvGeometry &g, Isa isa) {
  const ConvPackConfig &p = g.pack;
  if (p.kernelH != 3 || p.kernelW != 3 || p.strideH != 1 || p.strideW != 1 ||
      p.dilationH != 1 || p.dilationW != 1 || p.padTop != 1 || p.padLeft != 1 ||
      p.outH != p.height || p.outW != p.width || p.channels < 8 || p.channels > 320)
    return std::nullopt;
  x86::WinogradConfig c;
  c.batch = p.batch;
  c.channels = p.channels;
  c.outChannels = g.outChannels;
  c.height = p.height;
  c.width = p.width;
  c.bias = static_cast<bool>(g.bias);
  c.residual = static_cast<bool>(g.residual);
  c.activation = g.activation;
  if (!x86::WinogradKernel::supports(c, isa) || x86::WinogradKernel::laneUse(c) < 0.6)
    return std::nullopt;
  return c;
}

/// The conv (or fused_conv) as an implicit GEMM, if it is a 2-D f32 conv with
/// constant weights and one group or groups of several channels (one
/// channel a group: the window kernel's depthwise conv); with `winograd`, as
/// Winograd F(2x2, 3x3) where that takes it (one group).
std::optional<ConvGeometry> convGeometry(Operation *op, Isa isa, bool winograd) {
  if (!isa_and_nonnull<ConvOp, FusedConvOp>(op))
    return std::nullopt;
  ConvGeometry g;
  g.input = op->getOperand(0);
  g.weight = op->getOperand(1);
  if (auto c = dyn_cast<ConvOp>(op)) {
    g.bias = c.getBias();
  } else {
    auto f = cast<FusedConvOp>(op);
    if (f.getOutputQuantization())
      return std::nullopt; // a depthwise conv's (the verifier says so)
    g.bias = f.getBias();
    g.residual = f.getResidual();
    g.activation = epilogueActivation(f);
  }
  auto in = cast<RankedTensorType>(g.input.getType());
  auto w = cast<RankedTensorType>(g.weight.getType());
  g.groups = cast<IntegerAttr>(op->getAttr("group")).getInt();
  if (!in.getElementType().isF32() || in.getRank() != 4 || !w.hasStaticShape() ||
      g.groups < 1 || (g.groups > 1 && w.getDimSize(1) == 1) ||
      !matchPattern(g.weight, m_Constant()) || (g.bias && !matchPattern(g.bias, m_Constant())))
    return std::nullopt;
  auto ints = [&](StringRef n) { return cast<DenseI64ArrayAttr>(op->getAttr(n)).asArrayRef(); };
  auto geom = shape::window(in.getShape().drop_front(2), ints("kernel_shape"), ints("strides"),
                            ints("dilations"), ints("pads"),
                            cast<StringAttr>(op->getAttr("auto_pad")).getValue(), false);
  if (!geom) {
    llvm::consumeError(geom.takeError());
    return std::nullopt;
  }
  g.images = in.getDimSize(0);
  g.outChannels = w.getDimSize(0) / g.groups;
  g.pack = {g.groups > 1 ? 1 : g.images, w.getDimSize(1), in.getDimSize(2), in.getDimSize(3),
            geom->kernel[0], geom->kernel[1], geom->strides[0], geom->strides[1],
            geom->dilations[0], geom->dilations[1], geom->padsBegin[0], geom->padsBegin[1],
            geom->output[0], geom->output[1], x86::GemmKernel::panelWidth(isa)};
  if (winograd && g.groups == 1)
    g.winograd = winogradConfig(g, isa);
  return g;
}

/// A quantized_conv as the int8 convolution kernels see it: the input
/// quantized into channel blocks, their im2col panels, the GEMM with the
/// weights as rows (x86::Int8ConvGemm).
struct Int8Conv {
  /// The kernels' family: AVX-512 VNNI, AVX-VNNI or AVX2 (int8ConvolutionIsa).
  Int8Isa isa = Int8Isa::Avx512Vnni;
  Isa vectors() const { return isa == Int8Isa::Avx512Vnni ? Isa::Avx512 : Isa::Avx2; }
  ConvPackConfig pack; // channels: blocks of four input channels of a group
  /// Per group (quantized_conv's `group`): input and output channels, K.
  int64_t channels = 0, outChannels = 0, depth = 0;
  /// A grouped conv runs a call of the packing step and the GEMM per
  /// (image, group), on the group's blocks (each group's channels fill
  /// whole blocks: int8ConvGroups) and rows, with pack.batch 1.
  int64_t groups = 1, images = 1;
  int64_t calls() const { return groups > 1 ? images * groups : 1; }
  int64_t allOutChannels() const { return groups * outChannels; }
  ElementsAttr weights; // s8 (or u8 codes) [M, C, kh, kw]
  SmallVector<float> scales;
  /// u8 weights: their zero points, one per output channel (empty for s8).
  SmallVector<int32_t> weightZeroPoints;
  /// A ymm GEMM (s8 weights, no normalization) takes its row constants
  /// broadcast (Int8GemmConfig::broadcastRows), where it would build them
  /// per vector: folded at compile time for a static input; for a dynamic
  /// one (`rowBroadcast`) written per call into scratch after the tails by
  /// Int8ConvGemm::generateRowBroadcast.
  bool broadcastRows = false, rowBroadcast = false;
  /// quantized_conv's f32_product_k_block (0: none): the conv runs in f32
  /// as onnxruntime's MLAS runs it (f32Products) and the int8 GEMM's
  /// epilogue takes its products (Int8GemmConfig::f32Products).
  int64_t f32ProductKBlock = 0;
  static int64_t round64(int64_t v) { return (v + 63) / 64 * 64; }
  /// The f32 conv of the dequantized input: the f32 im2col and GEMM (with
  /// MLAS's k blocks) write its products [batch][M][N], where those
  /// kernels take it.
  std::optional<ConvGeometry> f32Products() const {
    if (!f32ProductKBlock || groups > 1)
      return std::nullopt;
    ConvGeometry f;
    f.pack = pack;
    f.pack.channels = channels;
    f.pack.panelWidth = x86::GemmKernel::panelWidth(vectors());
    f.pack.zeroPointPadding = false;
    f.outChannels = outChannels;
    f.kBlock = f32ProductKBlock;
    if (!f.im2col(vectors()))
      return std::nullopt;
    return f;
  }
  /// Its scratch: the dequantized input [batch][C][H][W] at 0, the f32
  /// conv's (padded planes and the GEMM tasks' panels; or the packed im2col
  /// and the im2col kernel's planes), then the products.
  int64_t f32PanelsOffset() const { return round64(pack.batch * channels * plane() * 4); }
  int64_t productsOffset() const {
    return round64(f32PanelsOffset() + f32Products()->scratchBytes(vectors()));
  }
  int64_t plane() const { return pack.height * pack.width; }
  int64_t positions() const { return pack.outH * pack.outW; }
  int64_t panels() const { return (positions() + pack.panelWidth - 1) / pack.panelWidth; }
  /// Scratch: the u8 blocks, the input's (zero point, scale), the dynamic
  /// range pass's partial ranges (at most 32 tasks), the panels, the im2col
  /// kernel's padded planes.
  int64_t groupBlockBytes() const { return pack.channels * plane() * 4; }
  int64_t paramsOffset() const { return round64(images * groups * groupBlockBytes()); }
  int64_t rangesOffset() const { return paramsOffset() + 64; }
  int64_t panelsOffset() const {
    return rangesOffset() + x86::QuantizeRowsKernel::kMaxRangeTasks * 8;
  }
  /// Bytes of one u8 panel: depth bytes of each of its columns.
  int64_t panelBytes() const { return depth * pack.panelWidth; }
  /// The GEMM's shape as x86::Int8ConvGemm splits it into tasks, building
  /// its panels itself (`im2col`) or not.
  x86::Int8GemmConfig gemmShape(std::optional<x86::Im2colConfig> im2col) const {
    x86::Int8GemmConfig c;
    c.m = outChannels;
    c.n = positions();
    c.k = depth;
    c.batch = pack.batch;
    c.convolution = true;
    c.isa = isa;
    c.im2col = im2col;
    c.u8Weights = !weightZeroPoints.empty(); // (decides the joined tails on ymm)
    return c;
  }
  int64_t gemmTasks() const { return x86::Int8ConvGemm::numTasks(gemmShape(panelIm2col())); }
  /// The panels: all of them, or each GEMM task's own when it builds it.
  int64_t planesOffset() const {
    return round64(panelsOffset() +
                   (panelIm2col() ? gemmTasks() : pack.batch * panels()) * panelBytes());
  }
  std::optional<x86::Im2colConfig> im2col() const {
    const ConvPackConfig &p = pack;
    x86::Im2colConfig c{p.batch,     p.channels,  p.height,    p.width,  p.kernelH,
                        p.kernelW,   p.strideH,   p.strideW,   p.dilationH, p.dilationW,
                        p.padTop,    p.padLeft,   p.outH,      p.outW,   p.panelWidth};
    c.padWithZeroPoint = true;
    if (!x86::Im2colKernel::supports(c, vectors()))
      return std::nullopt;
    return c;
  }
  /// A 1x1, stride-1, unpadded conv: its im2col is the identity, so the
  /// GEMM reads the u8 blocks as its panels (no pack step); the last panel
  /// reads up to a panel's width past the blocks (lanes it does not store).
  bool direct() const {
    const ConvPackConfig &p = pack;
    return !f32ProductKBlock && p.kernelH == 1 && p.kernelW == 1 && p.strideH == 1 &&
           p.strideW == 1 && p.padTop == 0 && p.padLeft == 0 && p.outH == p.height &&
           p.outW == p.width;
  }
  /// The GEMM building each task's panel from padded planes, where it can
  /// and where no two tasks share a panel (with row chunks each would copy
  /// it again: slower than one im2col pass, measured on ResNet's 7x7 and
  /// 14x14 convs).
  std::optional<x86::Im2colConfig> panelIm2col() const {
    std::optional<x86::Im2colConfig> c = im2col();
    // (Nor, on ymm, where a last panel of a few positions joins the one
    // before: its columns come out of the packed panels. zmm keeps the
    // panel im2col there and joins nothing.)
    if (f32ProductKBlock || direct() || !c || !x86::PanelIm2col::supports(*c, vectors()) ||
        x86::Int8ConvGemm::rowChunks(gemmShape(std::nullopt)) > 1 ||
        (!x86::Int8GemmKernel::zmm(isa) &&
         x86::Int8ConvGemm::tailColumns(gemmShape(std::nullopt)) > 0))
      return std::nullopt;
    return c;
  }
  /// The end of the blocks, panels and planes.
  int64_t packingEnd() const {
    if (direct())
      return panelsOffset() + pack.panelWidth * 4;
    if (std::optional<x86::Im2colConfig> c = panelIm2col())
      return planesOffset() + x86::PanelIm2col::planesBytes(*c);
    std::optional<x86::Im2colConfig> c = im2col();
    return planesOffset() + (c ? x86::Im2colKernel::scratchBytes(*c, vectors()) : 0);
  }
  /// Then the GEMM tasks' transposed tail columns, if it joins any
  /// (x86::Int8ConvGemm::tailColumns).
  int64_t tailOffset() const { return round64(packingEnd()); }
  int64_t rowsOffset() const {
    x86::Int8GemmConfig c = gemmShape(panelIm2col());
    return round64(tailOffset() +
                   x86::Int8ConvGemm::numTasks(c) * x86::Int8ConvGemm::tailBytes(c));
  }
  int64_t scratchBytes() const {
    if (f32ProductKBlock)
      return productsOffset() + pack.batch * outChannels * positions() * 4;
    return rowsOffset() + (rowBroadcast ? allOutChannels() * 96 : 0);
  }
};

/// The operand index of a quantized_conv's residual (norm_scale and
/// norm_shift may follow it).
unsigned residualOperand(QuantizedConvOp op) {
  return op.getODSOperandIndexAndLength(3).first;
}

/// The quantized_conv as the int8 convolution kernels of the target's int8
/// family `target` run it, if they can.
std::optional<Int8Conv> int8Conv(QuantizedConvOp op, Int8Isa target) {
  auto in = cast<RankedTensorType>(op.getInput().getType());
  auto wt = cast<RankedTensorType>(op.getWeight().getType());
  auto cast = op.getWeight().getDefiningOp<quant::StorageCastOp>();
  Int8Conv g;
  if (!cast || !matchPattern(cast.getInput(), m_Constant(&g.weights)) || in.getRank() != 4 ||
      !in.hasStaticShape() || (op.getBias() && !matchPattern(op.getBias(), m_Constant())))
    return std::nullopt;
  auto geom = shape::window(in.getShape().drop_front(2), op.getKernelShape(), op.getStrides(),
                            op.getDilations(), op.getPads(), op.getAutoPad(), false);
  if (!geom) {
    llvm::consumeError(geom.takeError());
    return std::nullopt;
  }
  Type element = wt.getElementType();
  g.isa = int8ConvolutionIsa(target);
  g.groups = op.getGroup();
  g.images = in.getDimSize(0);
  g.channels = in.getDimSize(1) / g.groups;
  g.outChannels = wt.getDimSize(0) / g.groups;
  if (g.groups > 1 && (g.channels % 4 || op.getF32ProductKBlock()))
    return std::nullopt;
  g.depth = x86::Int8ConvGemm::depth(g.channels, geom->kernel[0], geom->kernel[1]);
  if (auto axis = dyn_cast<quant::UniformQuantizedPerAxisType>(element)) {
    for (double s : axis.getScales())
      g.scales.push_back(static_cast<float>(s));
    if (!axis.isSigned())
      for (int64_t z : axis.getZeroPoints())
        g.weightZeroPoints.push_back(static_cast<int32_t>(z));
  } else if (auto tensor = dyn_cast<quant::UniformQuantizedType>(element)) {
    g.scales.push_back(static_cast<float>(tensor.getScale()));
    if (!tensor.isSigned())
      g.weightZeroPoints.assign(g.allOutChannels(), static_cast<int32_t>(tensor.getZeroPoint()));
  } else {
    return std::nullopt;
  }
  if (!g.weightZeroPoints.empty() && !x86::Int8ConvGemm::takesU8Weights(g.depth))
    return std::nullopt;
  g.pack = {g.groups > 1 ? 1 : g.images, (g.channels + 3) / 4, in.getDimSize(2),
            in.getDimSize(3),
            geom->kernel[0], geom->kernel[1], geom->strides[0], geom->strides[1],
            geom->dilations[0], geom->dilations[1], geom->padsBegin[0], geom->padsBegin[1],
            geom->output[0], geom->output[1], x86::Int8GemmKernel::panelWidth(g.isa)};
  g.pack.zeroPointPadding = true;
  g.broadcastRows =
      !x86::Int8GemmKernel::zmm(g.isa) && g.weightZeroPoints.empty() && !op.getNormScale();
  g.rowBroadcast = g.broadcastRows && !op.getInputQuantization() &&
                   !isa<quant::UniformQuantizedType>(in.getElementType());
  // f32 products: no residual (its argument carries them) and an im2col
  // the f32 kernels take.
  g.f32ProductKBlock = static_cast<int64_t>(op.getF32ProductKBlock().value_or(0));
  if (g.f32ProductKBlock && (op.getResidual() || !g.f32Products()))
    return std::nullopt;
  return g;
}

/// Whether the GEMM kernel takes this linear op.
bool nativeLinear(LinearOp lin) {
  auto in = cast<RankedTensorType>(lin.getInput().getType());
  return in.getElementType().isF32() && in.getRank() >= 1 &&
         matchPattern(lin.getWeight(), m_Constant()) &&
         (!lin.getBias() || matchPattern(lin.getBias(), m_Constant()));
}

/// A MatMul of run-time f32 matrices on the GEMM kernel: B packed into the
/// kernel's panels at run time (in scratch; at compile time where B is a
/// constant, one matrix per item), then one GEMM per batch item.
/// Batch dims are A's and B's alike, or all 1 on one side (shared); a B
/// shared by every item makes one GEMM of all of A's rows.
struct RuntimeMatMul {
  x86::GemmConfig gemm;
  PanelPackConfig pack;
  bool constantB = false;
  int64_t panels(Isa isa) const { return x86::GemmKernel::numPanels(pack.n, isa); }
  /// The scratch the run-time packing takes.
  int64_t packedBytes(Isa isa) const {
    return constantB ? 0 : pack.batch * panels(isa) * pack.k * pack.panelWidth * 4;
  }
};

std::optional<RuntimeMatMul> runtimeMatMul(MatMulOp op, Isa isa) {
  auto a = dyn_cast<RankedTensorType>(op.getA().getType());
  auto b = dyn_cast<RankedTensorType>(op.getB().getType());
  auto c = dyn_cast<RankedTensorType>(op.getType());
  if (!a || !b || !c || !a.hasStaticShape() || !b.hasStaticShape() || !c.hasStaticShape() ||
      !a.getElementType().isF32() || !b.getElementType().isF32() || a.getRank() < 1 ||
      b.getRank() < 2 || c.getNumElements() == 0 || a.getNumElements() == 0)
    return std::nullopt;
  const int64_t k = b.getDimSize(b.getRank() - 2), n = b.getDimSize(b.getRank() - 1);
  const int64_t m = a.getRank() == 1 ? 1 : a.getDimSize(a.getRank() - 2);
  const int64_t aItems = a.getNumElements() / (m * k), bItems = b.getNumElements() / (k * n),
                items = c.getNumElements() / (m * n);
  if ((aItems != items && aItems != 1) || (bItems != items && bItems != 1))
    return std::nullopt;
  // The kernel moves between items and panels by 32-bit immediates (bytes).
  const int64_t panelFloats = k * x86::GemmKernel::panelWidth(isa);
  if (std::max({m * k, m * n * items, panelFloats * x86::GemmKernel::numPanels(n, isa)}) * 4 >
      std::numeric_limits<int32_t>::max())
    return std::nullopt;
  RuntimeMatMul r;
  r.pack = {bItems, k, n, x86::GemmKernel::panelWidth(isa)};
  r.constantB = matchPattern(op.getB(), m_Constant());
  x86::GemmConfig &g = r.gemm;
  g.m = m;
  g.n = n;
  g.k = k;
  g.lda = k;
  g.ldc = n;
  g.ldr = n;
  if (bItems == 1 && aItems == items) {
    g.m = m * items; // one GEMM of every item's rows
  } else {
    g.batch = items;
    g.aBatchStride = aItems == 1 ? 0 : m * k;
    g.wBatchStride = bItems == 1 ? 0 : r.panels(isa) * k * r.pack.panelWidth;
    g.cBatchStride = m * n;
  }
  return r;
}

/// Whether the LayerNorm kernel takes this op.
bool nativeLayerNorm(LayerNormOp ln) {
  auto in = cast<RankedTensorType>(ln.getInput().getType());
  int64_t axis = shape::wrapAxis(ln.getAxis(), in.getRank());
  std::optional<int64_t> n = ln.rowSize();
  auto fullParam = [&](Value v) {
    auto t = cast<RankedTensorType>(v.getType());
    return t.getNumElements() == *n && t.getRank() <= in.getRank() - axis;
  };
  if (!n)
    return false;
  return in.getElementType().isF32() && ln.getStashType() == 1 && fullParam(ln.getScale()) &&
         (!ln.getBias() || fullParam(ln.getBias()));
}

/// The kernel activation that rounds to a per-tensor `!quant.uniform` grid
/// (verified by the ops that carry it).
x86::Activation roundToGrid(Type grid) {
  auto q = cast<quant::UniformQuantizedType>(grid);
  return x86::Activation::fakeQuant(static_cast<float>(q.getScale()),
                                    q.getStorageTypeMin() - q.getZeroPoint(),
                                    q.getStorageTypeMax() - q.getZeroPoint());
}

/// The rounding of an output table's entries to its table_quantization,
/// None where every entry lies on that grid already (a chain that ends on
/// it): rounding them again changes no bit.
x86::Activation roundTableToGrid(ArrayRef<float> table, Type grid) {
  auto q = cast<quant::UniformQuantizedType>(grid);
  const float scale = static_cast<float>(q.getScale());
  for (float v : table) {
    float code = std::nearbyint(v / scale) + static_cast<float>(q.getZeroPoint());
    if (!(code >= q.getStorageTypeMin() && code <= q.getStorageTypeMax()) ||
        llvm::bit_cast<uint32_t>((code - q.getZeroPoint()) * scale + 0.f) !=
            llvm::bit_cast<uint32_t>(v))
      return roundToGrid(grid);
  }
  return {};
}

/// A GELU grid of the kernels (scale 0: none) from a gelu's optional
/// `!quant.uniform`.
x86::Activation::Grid geluGrid(std::optional<Type> grid) {
  if (!grid)
    return {};
  x86::Activation a = roundToGrid(*grid);
  return {a.scale, a.min, a.max};
}

/// The f32 values of a constant f32 operand.
/// Whether an int8 GEMM's results all lie within 2^30 scales of its u8
/// output grid, whatever its static u8 input holds (no residual): output j
/// is |sum (q - zp) w| <= max(zp, 255 - zp) absWeights[j], times
/// scales[j] (input scale x weight scale), + |bias[j]|; through the
/// activation; with a normalization, rounded to `grid` first (its range),
/// then times |a[j]| + |b[j]|. Then the codes need no clamp.
bool u8OutputBounded(ArrayRef<double> absWeights, ArrayRef<float> scales, const float *bias,
                     int32_t zeroPoint, const x86::Activation &act, const float *normA,
                     const float *normB, const x86::Activation &grid, float outScale) {
  double maxQ = std::max(zeroPoint, 255 - zeroPoint), bound = 0;
  for (size_t j = 0; j < absWeights.size(); ++j) {
    double y = maxQ * absWeights[j] * scales[j] + (bias ? std::fabs(bias[j]) : 0.0);
    // Relu, GELU keep |y|; LeakyRelu scales it by at most |alpha|; Clip,
    // sigmoid, tanh bound it.
    if (act.kind == x86::Activation::LeakyRelu)
      y *= std::max(1.0, std::fabs(double(act.alpha)));
    else if (act.kind == x86::Activation::Clip)
      y = std::max({y, std::fabs(double(act.min)), std::fabs(double(act.max))});
    else if (act.kind == x86::Activation::Sigmoid || act.kind == x86::Activation::Tanh ||
             act.kind == x86::Activation::HardSigmoid)
      y = std::max(y, 1.0); // (HardSwish and SiLU keep |y| too)
    y = y * std::fabs(double(act.postMul)) + std::fabs(double(act.postAdd));
    if (normA) {
      if (grid.kind == x86::Activation::FakeQuant)
        y = std::min(y + grid.scale, std::max(std::fabs(double(grid.min)),
                                              std::fabs(double(grid.max))) * grid.scale);
      y = y * std::fabs(normA[j]) + std::fabs(normB[j]);
    }
    bound = std::max(bound, y);
  }
  return std::isfinite(bound) && bound < 0x1p30 * outScale;
}

std::optional<SmallVector<float>> constantF32(Value v) {
  ElementsAttr attr;
  SmallVector<char> raw;
  if (!matchPattern(v, m_Constant(&attr)) || !attr.getElementType().isF32() ||
      !readRawElements(attr, raw))
    return std::nullopt;
  return SmallVector<float>((const float *)raw.data(), (const float *)raw.data() + raw.size() / 4);
}

/// An elementwise kernel step: configuration, row table and, for Affine,
/// the per-channel scales then shifts (constants in the blob).
struct ElementwiseStep {
  x86::ElementwiseConfig config;
  std::vector<int32_t> table;
  SmallVector<float> affine;
};

/// BatchNormalization with constant parameters as y = x * a[c] + b[c]
/// (BatchNormParams::affineF32, as the int8 conv epilogue folds it), with
/// its grids.
std::optional<ElementwiseStep> batchNormStep(BatchNormOp bn) {
  auto in = dyn_cast<RankedTensorType>(bn.getInput().getType());
  if (!in || !in.hasStaticShape() || !in.getElementType().isF32() || in.getRank() < 2)
    return std::nullopt;
  int64_t channels = in.getDimSize(1);
  std::optional<BatchNormParams> params = batchNormParams(bn, channels);
  if (!params)
    return std::nullopt;
  ElementwiseStep step;
  x86::ElementwiseConfig &c = step.config;
  c.op = x86::ElementwiseConfig::Affine;
  c.inputs = 2;
  c.affineShift = channels;
  if (std::optional<Type> grid = bn.getInputQuantization())
    c.before = roundToGrid(*grid);
  if (std::optional<Type> grid = bn.getOutputQuantization())
    c.after = roundToGrid(*grid);
  // The scales, then the shifts.
  SmallVector<float> shifts;
  params->affineF32(step.affine, shifts);
  step.affine.append(shifts.begin(), shifts.end());
  // The scales broadcast like a [C, 1, ..., 1] operand.
  SmallVector<int64_t> perChannel(in.getRank() - 1, 1);
  perChannel[0] = channels;
  step.table = x86::ElementwiseKernel::layout(c, in.getShape(), in.getShape(), perChannel);
  return step;
}

/// The elementwise kernel's configuration and row table, when it takes this
/// op (f32 throughout).
std::optional<ElementwiseStep> elementwiseStep(Operation *op) {
  using Config = x86::ElementwiseConfig;
  if (op->getNumResults() != 1 || op->getNumOperands() < 1)
    return std::nullopt;
  auto out = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!out || !out.getElementType().isF32() || out.getNumElements() == 0 ||
      out.getNumElements() >= (int64_t(1) << 31))
    return std::nullopt;
  if (auto bn = dyn_cast<BatchNormOp>(op))
    return batchNormStep(bn);
  Config c;
  if (llvm::isa<AddOp, SubOp, MulOp, DivOp>(op)) {
    c.inputs = 2;
    c.op = llvm::isa<AddOp>(op)   ? Config::Add
           : llvm::isa<SubOp>(op) ? Config::Sub
           : llvm::isa<MulOp>(op) ? Config::Mul
                                  : Config::Div;
    // An Add's or Mul's codes (lhs_quantization and rhs_quantization).
    auto codeGrids = [&]() -> std::optional<std::pair<std::array<Type, 3>, bool>> {
      if (auto add = dyn_cast<AddOp>(op); add && add.addsCodes())
        return std::pair(std::array<Type, 3>{*add.getLhsQuantization(),
                                             *add.getRhsQuantization(),
                                             *add.getOutputQuantization()},
                         add.getSignedCodes());
      if (auto mul = dyn_cast<MulOp>(op); mul && mul.multipliesCodes())
        return std::pair(std::array<Type, 3>{*mul.getLhsQuantization(),
                                             *mul.getRhsQuantization(),
                                             *mul.getOutputQuantization()},
                         mul.getSignedCodes());
      return std::nullopt;
    }();
    if (codeGrids) {
      auto [grids, signedCodes] = *codeGrids;
      auto a = cast<quant::UniformQuantizedType>(grids[0]),
           b = cast<quant::UniformQuantizedType>(grids[1]),
           y = cast<quant::UniformQuantizedType>(grids[2]);
      // signed_codes: the s8 codes of the same grids.
      const float shift = signedCodes ? 128.f : 0.f;
      Config::Codes q;
      q.scaleA = static_cast<float>(a.getScale());
      q.zpA = static_cast<float>(a.getZeroPoint()) - shift;
      q.scaleB = static_cast<float>(b.getScale());
      q.zpB = static_cast<float>(b.getZeroPoint()) - shift;
      q.scaleC = static_cast<float>(y.getScale());
      q.zpC = static_cast<float>(y.getZeroPoint()) - shift;
      q.qmin = static_cast<float>(y.getStorageTypeMin()) - shift;
      q.qmax = static_cast<float>(y.getStorageTypeMax()) - shift;
      q.qminA = static_cast<float>(a.getStorageTypeMin()) - shift;
      q.qmaxA = static_cast<float>(a.getStorageTypeMax()) - shift;
      q.qminB = static_cast<float>(b.getStorageTypeMin()) - shift;
      q.qmaxB = static_cast<float>(b.getStorageTypeMax()) - shift;
      if (c.op == Config::Add) {
        const CodeSumConstants k =
            codeSumConstants(q.scaleA, q.zpA, q.scaleB, q.zpB, q.scaleC, q.zpC);
        q.ratioA = k.ratioA;
        q.ratioB = k.ratioB;
        q.fixed = k.fixed;
      } else {
        q.ratioA = qlinearMulRatio(q.scaleA, q.scaleB, q.scaleC);
        q.ratioB = q.fixed = 0.f;
      }
      c.codes = q;
    } else if (auto grid = op->getAttrOfType<TypeAttr>("output_quantization")) {
      c.after = roundToGrid(grid.getValue());
    }
  } else if (llvm::isa<SqrtOp>(op)) {
    c.inputs = 1;
    c.op = Config::Sqrt;
  } else if (llvm::isa<ErfOp>(op)) {
    c.inputs = 1;
    c.op = Config::Erf;
  } else if (llvm::isa<ReluOp, SigmoidOp, TanhOp, GeluOp, ClipOp>(op)) {
    c.inputs = 1;
    c.op = Config::Activate;
    float lo = -std::numeric_limits<float>::infinity(), hi = -lo;
    std::string name = llvm::isa<ReluOp>(op)      ? "relu"
                       : llvm::isa<SigmoidOp>(op) ? "sigmoid"
                       : llvm::isa<TanhOp>(op)    ? "tanh"
                       : llvm::isa<ClipOp>(op)    ? "clip"
                       : cast<GeluOp>(op).getApproximate() == "tanh" ? "gelu_tanh"
                                                                      : "gelu";
    if (auto clip = dyn_cast<ClipOp>(op)) {
      // Bounds must be compile-time scalars.
      auto bound = [](Value v, float &dst) {
        if (!v)
          return true;
        ElementsAttr attr;
        if (!matchPattern(v, m_Constant(&attr)) || attr.getNumElements() != 1 ||
            !attr.getElementType().isF32())
          return false;
        dst = *attr.getValues<float>().begin();
        return true;
      };
      if (!bound(clip.getMin(), lo) || !bound(clip.getMax(), hi))
        return std::nullopt;
    }
    c.activation = x86::Activation::fromName(name, lo, hi);
    if (auto gelu = dyn_cast<GeluOp>(op)) {
      c.activation.erfGrid = geluGrid(gelu.getErfQuantization());
      c.activation.sumGrid = geluGrid(gelu.getSumQuantization());
      c.activation.productGrid = geluGrid(gelu.getProductQuantization());
      c.activation.geluOne = gelu.getOne().convertToFloat();
      c.activation.geluHalf = gelu.getHalf().convertToFloat();
    }
  } else if (auto leaky = dyn_cast<LeakyReluOp>(op)) {
    c.inputs = 1;
    c.op = Config::Activate;
    c.activation.kind = x86::Activation::LeakyRelu;
    c.activation.alpha = leaky.getAlpha().convertToFloat();
  } else if (isa<SiluOp>(op)) {
    c.inputs = 1;
    c.op = Config::Activate;
    c.activation.kind = x86::Activation::Silu;
  } else if (isa<HardSigmoidOp, HardSwishOp>(op)) {
    c.inputs = 1;
    c.op = Config::Activate;
    c.activation.kind =
        isa<HardSigmoidOp>(op) ? x86::Activation::HardSigmoid : x86::Activation::HardSwish;
    c.activation.alpha = cast<FloatAttr>(op->getAttr("alpha")).getValue().convertToFloat();
    c.activation.beta = cast<FloatAttr>(op->getAttr("beta")).getValue().convertToFloat();
  } else if (auto fq = dyn_cast<FakeQuantizeOp>(op)) {
    c.inputs = 1;
    c.op = Config::Activate;
    c.activation = roundToGrid(fq.getQuantization());
  } else {
    return std::nullopt;
  }
  SmallVector<ArrayRef<int64_t>, 2> shapes;
  for (int i = 0; i < c.inputs; ++i) {
    auto t = dyn_cast<RankedTensorType>(op->getOperand(i).getType());
    if (!t || !t.getElementType().isF32() || t.getRank() > out.getRank())
      return std::nullopt;
    shapes.push_back(t.getShape());
  }
  std::vector<int32_t> table = x86::ElementwiseKernel::layout(
      c, out.getShape(), shapes[0], c.inputs == 2 ? shapes[1] : shapes[0]);
  return ElementwiseStep{c, std::move(table), {}};
}

/// The chain's result at each code of a grid its one input holds, when it
/// depends on the input only through that grid: the input's producer
/// rounds to it last (lastGridOf), or the first step does and no other
/// reads the input (a QDQ model's scale, shift and hard-swish after a
/// conv). The values are the evaluator's own, so the lookup gives its bits.
std::optional<std::vector<float>> chainTable(ElementwiseChainOp op,
                                             ArrayRef<ElementwiseChainOp::Step> steps,
                                             x86::Activation &grid) {
  if (op.getInputs().size() != 1)
    return std::nullopt;
  std::optional<quant::UniformQuantizedType> held = lastGridOf(op.getInputs()[0]);
  if (!held) {
    if (steps[0].kind != ElementwiseChainOp::Step::FakeQuantize)
      return std::nullopt;
    for (const ElementwiseChainOp::Step &step : steps.drop_front())
      if (llvm::is_contained(step.args, 0))
        return std::nullopt;
    held = steps[0].grid;
  }
  grid = roundToGrid(*held);
  const int64_t codes = static_cast<int64_t>(grid.max - grid.min) + 1;
  if (codes > x86::ElementwiseChainKernel::kMaxTableCodes)
    return std::nullopt;
  return tabulateOnGrid(op, *held);
}

/// The chain kernel's configuration of an elementwise_chain (verified: f32
/// inputs of the result's shape, well-formed steps), given its steps.
x86::ElementwiseChainConfig chainConfig(ElementwiseChainOp op,
                                        ArrayRef<ElementwiseChainOp::Step> steps) {
  using Step = ElementwiseChainOp::Step;
  using KernelStep = x86::ElementwiseChainConfig::Step;
  x86::ElementwiseChainConfig c;
  c.elements = cast<RankedTensorType>(op.getType()).getNumElements();
  c.inputs = static_cast<int>(op.getInputs().size());
  for (const Step &step : steps) {
    KernelStep k;
    k.a = static_cast<int>(step.args[0]);
    if (step.binary()) {
      k.op = static_cast<KernelStep::Op>(step.kind - Step::Add + KernelStep::Add);
      k.b = static_cast<int>(step.args[1]);
      k.constant = step.constant;
    } else {
      k.op = KernelStep::Activate;
      const float inf = std::numeric_limits<float>::infinity();
      switch (step.kind) {
      case Step::Relu: k.activation.kind = x86::Activation::Relu; break;
      case Step::Clip:
        k.activation = x86::Activation::fromName("clip", step.min.value_or(-inf),
                                                 step.max.value_or(inf));
        break;
      case Step::HardSigmoid:
      case Step::HardSwish:
        k.activation.kind = step.kind == Step::HardSigmoid ? x86::Activation::HardSigmoid
                                                           : x86::Activation::HardSwish;
        k.activation.alpha = step.alpha;
        k.activation.beta = step.beta;
        break;
      default: break; // fake_quantize: the grid alone
      }
    }
    if (step.grid)
      k.grid = roundToGrid(*step.grid);
    c.steps.push_back(k);
  }
  if (std::optional<std::vector<float>> table = chainTable(op, steps, c.tableGrid))
    c.table = std::move(*table);
  return c;
}

/// Rows of a tensor as the row-wise kernels see it: all dims but the last.
int64_t rowsOf(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  if (!t || !t.hasStaticShape() || t.getRank() == 0 || t.getShape().back() == 0)
    return 0;
  return t.getNumElements() / t.getShape().back();
}

/// The rounding kernel of a dynamic_fake_quantize (AVX-512): the tensor as
/// rows of its last dim, or of its last two where the last is short (a 7 x
/// 7 plane), for vectors with few masked lanes. Its range comes from the
/// kernel that wrote the input, or from a range pass of its own.
std::optional<x86::QuantizeRowsConfig> dynamicFakeQuantizeRows(DynamicFakeQuantizeOp op,
                                                              Isa isa) {
  auto t = dyn_cast<RankedTensorType>(op.getInput().getType());
  if (!t || !t.hasStaticShape() || t.getRank() == 0 || t.getNumElements() == 0)
    return std::nullopt;
  int64_t k = t.getShape().back();
  if (k < 64 && t.getRank() >= 2)
    k *= t.getShape()[t.getRank() - 2];
  x86::QuantizeRowsConfig c;
  c.rows = t.getNumElements() / k;
  c.k = c.lda = k;
  c.perTensor = true;
  c.dequantized = true;
  c.isa = isa == Isa::Avx512 ? Int8Isa::Avx512Vnni : Int8Isa::Avx2; // zmm or ymm code
  return c;
}

/// The row quantizer with the fixed (scale, zero point) of static
/// activations.
void setStaticQuantization(x86::QuantizeRowsConfig &c, quant::UniformQuantizedType q) {
  c.fixed = true;
  c.scale = static_cast<float>(q.getScale());
  c.zeroPoint = static_cast<int32_t>(q.getZeroPoint());
}

/// Whether this family's row quantizer sums u8 rows it did not write (the
/// code sums a u8-weight GEMM reading handed-over rows needs).
bool sumsU8Rows(Int8Isa isa) { return isa == Int8Isa::Avx512Vnni || isa == Int8Isa::Amx; }

/// A quantized_linear as the row quantizer + int8 GEMM see it.
struct Int8Linear {
  int64_t m = 0, n = 0, k = 0, lda = 0;
  ElementsAttr weights; // s8 (or u8, with weightZeroPoints) [K, N]
  SmallVector<float> scales;
  /// u8 weights: their zero points, one per column (empty for s8).
  SmallVector<int32_t> weightZeroPoints;
  /// The input arrives as dense u8 rows (lda = K): no quantizer; u8
  /// weights then take the rows' code sums from a row-sum step.
  bool u8Input = false;
  /// A static u16 input grid: the quantizer writes each row's codes as two
  /// byte planes (lda = twice a u8 row), the GEMM runs once per plane.
  bool u16Input = false;
  /// The kernels' family: the target's, except that AMX targets run u16
  /// inputs, and the epilogues of f32 products, on their AVX-512 VNNI
  /// kernel.
  Int8Isa isa = Int8Isa::Avx512Vnni;
  /// f32_product_k_block: the u8 input dequantized, the f32 GEMM's products,
  /// then the int8 GEMM's epilogue on them (u8 input; no quantizer).
  int64_t f32ProductKBlock = 0;
  /// Scratch: the u8 rows (lda bytes each; none with a u8 input), then the
  /// row block (with a u8 input, only for u8 weights). f32 products: the
  /// dequantized input [M][K], then the products [M][N].
  int64_t rowBlockOffset() const { return u8Input ? 0 : (m * lda + 63) / 64 * 64; }
  int64_t productsOffset() const { return (m * k * 4 + 63) / 64 * 64; }
  int64_t scratchBytes() const {
    if (f32ProductKBlock)
      return productsOffset() + m * n * 4;
    if (u8Input && weightZeroPoints.empty())
      return 0;
    return rowBlockOffset() +
           m * 4 * x86::Int8GemmKernel::rowBlockWords(!weightZeroPoints.empty());
  }
};

std::optional<Int8Linear> int8Linear(QuantizedLinearOp op, Int8Isa isa) {
  auto in = cast<RankedTensorType>(op.getInput().getType());
  auto wt = cast<RankedTensorType>(op.getWeight().getType());
  auto cast = op.getWeight().getDefiningOp<quant::StorageCastOp>();
  Int8Linear l;
  if (!cast || !matchPattern(cast.getInput(), m_Constant(&l.weights)))
    return std::nullopt;
  l.k = wt.getDimSize(0);
  l.n = wt.getDimSize(1);
  l.m = in.getNumElements() / l.k;
  if (std::optional<quant::UniformQuantizedType> q = op.staticInputQuantization();
      q && q.value().getStorageTypeIntegralWidth() == 16) {
    if (!readsU16Inputs(isa))
      return std::nullopt;
    l.u16Input = true;
    isa = Int8Isa::Avx512Vnni;
  }
  l.isa = isa;
  l.lda = x86::Int8GemmKernel::rowBytes(l.k, isa) * (l.u16Input ? 2 : 1);
  if (llvm::isa<quant::QuantizedType>(in.getElementType())) {
    // Only where this family reads the dense rows as they are.
    if (l.lda != l.k)
      return std::nullopt;
    l.u8Input = true;
  }
  Type element = wt.getElementType();
  if (auto axis = dyn_cast<quant::UniformQuantizedPerAxisType>(element)) {
    for (double s : axis.getScales())
      l.scales.push_back(static_cast<float>(s));
    if (!axis.isSigned())
      for (int64_t z : axis.getZeroPoints())
        l.weightZeroPoints.push_back(static_cast<int32_t>(z));
  } else if (auto tensor = dyn_cast<quant::UniformQuantizedType>(element)) {
    l.scales.assign(l.n, static_cast<float>(tensor.getScale()));
    if (!tensor.isSigned())
      l.weightZeroPoints.assign(l.n, static_cast<int32_t>(tensor.getZeroPoint()));
  } else {
    return std::nullopt;
  }
  if (std::optional<uint64_t> block = op.getF32ProductKBlock()) {
    // (The pass marks u8 inputs only.)
    if (!l.u8Input)
      return std::nullopt;
    l.f32ProductKBlock = static_cast<int64_t>(*block);
    if (l.isa == Int8Isa::Amx)
      l.isa = Int8Isa::Avx512Vnni;
    return l;
  }
  // u8 weights: the row quantizer sums each row's codes (for a u8 input, an
  // AVX-512 row-sum step: sumsU8Rows).
  if (!l.weightZeroPoints.empty() && (!x86::Int8GemmKernel::takesU8Weights(l.k) ||
                                      (l.u8Input && !sumsU8Rows(isa))))
    return std::nullopt;
  return l;
}

/// What a Gather's or GatherElements' nonzero task status means, for the
/// run's error detail.
template <typename GatherOpT> std::string gatherErrorMessage(GatherOpT gather) {
  std::string input = indexSource(gather.getIndices());
  auto dataType = cast<RankedTensorType>(gather.getData().getType());
  int64_t dim = dataType.getDimSize(shape::wrapAxis(gather.getAxis(), dataType.getRank()));
  return (input.empty() ? std::string("an index") : "input '" + input + "' holds an index") +
         " out of range [" + std::to_string(-dim) + ", " + std::to_string(dim) + ") at " +
         describeLocation(gather.getLoc());
}

/// What a GatherND's or ScatterND's nonzero task status means.
std::string indexTupleErrorMessage(Operation *op) {
  Value indices = op->getOperand(1);
  std::string input = indexSource(indices);
  auto dataType = cast<RankedTensorType>(op->getOperand(0).getType());
  auto indexType = cast<RankedTensorType>(indices.getType());
  const int64_t first = isa<GatherNDOp>(op) ? cast<GatherNDOp>(op).getBatchDims() : 0;
  ArrayRef<int64_t> dims =
      dataType.getShape().slice(first, indexType.getShape().back());
  std::string ranges;
  for (int64_t d : dims)
    ranges += (ranges.empty() ? "" : ", ") + ("[" + std::to_string(-d) + ", " +
                                              std::to_string(d) + ")");
  return (input.empty() ? std::string("an index tuple") : "input '" + input +
                                                              "' holds an index tuple") +
         " out of range (" + ranges + ") at " + describeLocation(op->getLoc());
}

/// The gather kernel's configuration, when it takes this op (axis 0, rows
/// of whole 4-byte words, int32/int64 indices).
std::optional<x86::GatherConfig> gatherConfig(GatherOp op) {
  auto data = cast<RankedTensorType>(op.getData().getType());
  auto indices = cast<RankedTensorType>(op.getIndices().getType());
  if (data.getRank() < 1 || shape::wrapAxis(op.getAxis(), data.getRank()) != 0)
    return std::nullopt;
  int64_t width = getElementByteWidth(data.getElementType());
  int64_t indexWidth = getElementByteWidth(indices.getElementType());
  x86::GatherConfig c;
  c.indices = indices.getNumElements();
  c.dim = data.getDimSize(0);
  c.rowBytes = c.dim ? data.getNumElements() / c.dim * width : 0;
  c.indexBytes = indexWidth;
  if (!x86::GatherKernel::supports(c))
    return std::nullopt;
  return c;
}

/// The softmax kernel's rows, when it takes this op (f32, over the last
/// axis; on grids, onnxruntime's QLinearSoftmax steps, the generic kernel).
std::optional<x86::SoftmaxConfig> softmaxConfig(SoftmaxOp op) {
  auto in = cast<RankedTensorType>(op.getInput().getType());
  if (op.getInputQuantization() || !in.getElementType().isF32() || in.getRank() < 1 ||
      shape::wrapAxis(op.getAxis(), in.getRank()) != in.getRank() - 1 ||
      in.getNumElements() == 0)
    return std::nullopt;
  int64_t n = in.getShape().back();
  return x86::SoftmaxConfig{in.getNumElements() / n, n};
}

/// A ReduceMean / ReduceSum of an f32 tensor over its trailing axes (all
/// of them when none are given), for the row-reduction kernel.
std::optional<x86::RowReduceConfig> rowReduceConfig(Operation *op) {
  auto mean = dyn_cast<ReduceMeanOp>(op);
  auto sum = dyn_cast<ReduceSumOp>(op);
  if (!mean && !sum)
    return std::nullopt;
  auto in = cast<RankedTensorType>(op->getOperand(0).getType());
  std::optional<int64_t> n = mean ? mean.trailingRowSize() : sum.trailingRowSize();
  if (!in.getElementType().isF32() || !n || in.getNumElements() == 0 ||
      !cast<ShapedType>(op->getResult(0).getType()).getElementType().isF32())
    return std::nullopt;
  const bool ordered = mean ? mean.getOrderedF32Arithmetic() : sum.getOrderedF32Arithmetic();
  return x86::RowReduceConfig{in.getNumElements() / *n, *n, static_cast<bool>(mean), ordered};
}

/// A pooling op or depthwise conv for the window kernel (2-D, f32), with the
/// reciprocal divisor map of an average pool whose divisor varies (else
/// empty).
struct WindowStep {
  x86::WindowConfig config;
  Value weight, bias, residual;
  std::vector<float> reciprocals;
  /// A depthwise conv's weight_quantization scales, one per channel (else
  /// empty).
  std::vector<float> weightScales;
};

/// The integer depthwise kernel's filters and epilogue constants, where
/// its filter lies on an s8 grid.
std::optional<x86::Int8DepthwiseKernel::Tables> int8DepthwiseTables(const x86::WindowConfig &c,
                                                                    const WindowStep &w) {
  std::optional<SmallVector<float>> weights = constantF32(w.weight), biases;
  if (w.bias && !(biases = constantF32(w.bias)))
    return std::nullopt;
  if (!weights)
    return std::nullopt;
  std::vector<float> b;
  if (biases)
    b.assign(biases->begin(), biases->end());
  return x86::Int8DepthwiseKernel::tables(c, {weights->begin(), weights->end()}, b,
                                          w.weightScales);
}

/// The window kernel's step for `op`; with `inputCodes`, for `op` reading
/// the u8 codes of that grid instead of its input (whether the target's
/// kernel would take them).
std::optional<WindowStep> windowStep(Operation *op, Isa isa, Int8Isa int8,
                                     Type inputCodes = nullptr) {
  WindowStep w;
  x86::WindowConfig &c = w.config;
  auto in = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  if (!in || op->getNumResults() != 1)
    return std::nullopt;
  if (auto q = dyn_cast<quant::UniformQuantizedType>(inputCodes ? inputCodes
                                                                : in.getElementType())) {
    // A fused_conv reading an int8 convolution's u8 codes (depthwise only,
    // checked below with the rest).
    if (!inputCodes && !llvm::isa<FusedConvOp>(op))
      return std::nullopt;
    c.inputU8 = true;
    c.inputScale = static_cast<float>(q.getScale());
    c.inputZeroPoint = static_cast<int32_t>(q.getZeroPoint());
  } else if (!in.getElementType().isF32()) {
    return std::nullopt;
  }
  if (llvm::isa_and_nonnull<GlobalAveragePoolOp>(op)) {
    if (in.getRank() < 3)
      return std::nullopt;
    c.kind = x86::WindowConfig::GlobalAverage;
    c.batch = in.getDimSize(0);
    c.channels = in.getDimSize(1);
    c.height = in.getNumElements() / std::max<int64_t>(1, c.batch * c.channels);
    c.width = 1;
    if (c.height == 0)
      return std::nullopt;
    auto pool = cast<GlobalAveragePoolOp>(op);
    if (std::optional<Type> grid = pool.getInputQuantization()) {
      auto input = cast<quant::UniformQuantizedType>(*grid);
      auto output = cast<quant::UniformQuantizedType>(*pool.getOutputQuantization());
      c.averageOfCodes = true;
      c.inputScale = static_cast<float>(input.getScale());
      c.outputScale = static_cast<float>(output.getScale());
      c.outputZeroPoint = static_cast<int32_t>(output.getZeroPoint());
      if (!x86::WindowKernel::supports(c))
        return std::nullopt;
    }
    return w;
  }
  if (in.getRank() != 4)
    return std::nullopt;
  auto ints = [&](StringRef n) { return cast<DenseI64ArrayAttr>(op->getAttr(n)).asArrayRef(); };
  bool ceil = false;
  if (llvm::isa<MaxPoolOp>(op)) {
    c.kind = x86::WindowConfig::Max;
    ceil = cast<MaxPoolOp>(op).getCeilMode() != 0;
  } else if (llvm::isa<AveragePoolOp>(op)) {
    // (MLAS's f32 order: the generic kernel.)
    if (cast<AveragePoolOp>(op).getOrderedF32Arithmetic())
      return std::nullopt;
    c.kind = x86::WindowConfig::Average;
    ceil = cast<AveragePoolOp>(op).getCeilMode() != 0;
  } else if (llvm::isa<ConvOp, FusedConvOp>(op)) {
    // Depthwise: one single-channel filter per channel.
    c.kind = x86::WindowConfig::Depthwise;
    w.weight = op->getOperand(1);
    auto wt = cast<RankedTensorType>(w.weight.getType());
    int64_t group = cast<IntegerAttr>(op->getAttr("group")).getInt();
    if (group == 1 || group != in.getDimSize(1) || wt.getDimSize(0) != group ||
        wt.getDimSize(1) != 1 || !matchPattern(w.weight, m_Constant()))
      return std::nullopt;
    if (auto conv = dyn_cast<ConvOp>(op)) {
      w.bias = conv.getBias();
    } else {
      auto f = cast<FusedConvOp>(op);
      w.bias = f.getBias();
      w.residual = f.getResidual();
      c.activation = epilogueActivation(f);
      c.oneStep = f.getOneStepRequantization();
      if (std::optional<Type> grid = f.getWeightQuantization()) {
        SmallVector<float> scales = channelScales(*grid, wt.getDimSize(0));
        w.weightScales.assign(scales.begin(), scales.end());
      }
      // With a table: its index grid, then the table's grid (or codes).
      std::optional<Type> grid = f.getOutputQuantization();
      if (std::optional<ArrayRef<float>> table = f.getOutputTable()) {
        c.outputTable.assign(table->begin(), table->end());
        c.output = roundToGrid(*grid);
        grid = f.getTableQuantization();
      }
      if (grid) {
        if (f.getU8Output()) {
          auto q = cast<quant::UniformQuantizedType>(*grid);
          c.outputU8 = true;
          c.outputScale = static_cast<float>(q.getScale());
          c.outputZeroPoint = static_cast<int32_t>(q.getZeroPoint());
        } else if (!c.outputTable.empty()) {
          c.tableOutput = roundTableToGrid(c.outputTable, *grid);
        } else if (c.oneStep) {
          // The one-step codes' values.
          auto q = cast<quant::UniformQuantizedType>(*grid);
          c.outputScale = static_cast<float>(q.getScale());
          c.outputZeroPoint = static_cast<int32_t>(q.getZeroPoint());
        } else {
          c.output = roundToGrid(*grid);
        }
      }
    }
    if (w.bias && !matchPattern(w.bias, m_Constant()))
      return std::nullopt;
    c.bias = static_cast<bool>(w.bias);
    c.residual = static_cast<bool>(w.residual);
  } else {
    return std::nullopt;
  }
  ArrayRef<int64_t> kernel = llvm::isa<ConvOp, FusedConvOp>(op)
                                 ? cast<RankedTensorType>(w.weight.getType()).getShape().drop_front(2)
                                 : ints("kernel_shape");
  auto geom = shape::window(in.getShape().drop_front(2), kernel, ints("strides"),
                            ints("dilations"), ints("pads"),
                            cast<StringAttr>(op->getAttr("auto_pad")).getValue(), ceil);
  if (!geom) {
    llvm::consumeError(geom.takeError());
    return std::nullopt;
  }
  c.batch = in.getDimSize(0);
  c.channels = in.getDimSize(1);
  c.height = in.getDimSize(2);
  c.width = in.getDimSize(3);
  c.setGeometry(*geom);
  if (!x86::WindowKernel::supports(c))
    return std::nullopt;
  // u8 codes in, on a target with vpdpbusd (zmm, or ymm on AVX-VNNI), and
  // filters on an s8 grid (a QDQ model's): the integer taps.
  if (c.inputU8 &&
      (int8 == Int8Isa::Avx512Vnni || int8 == Int8Isa::Amx || int8 == Int8Isa::AvxVnni)) {
    x86::WindowConfig integer = c;
    integer.int8 = true;
    if (x86::Int8DepthwiseKernel::supports(integer, isa)) {
      if (int8DepthwiseTables(integer, w)) {
        c.int8 = true;
      } else if (!w.weightScales.empty()) {
        // Steps past s8 (u8 weights, a per-tensor zero point): k1 + d.
        integer.int8FilterOffsets = true;
        if (int8DepthwiseTables(integer, w))
          c.int8 = c.int8FilterOffsets = true;
      }
    }
  }
  if ((c.inputU8 || c.outputU8 || c.output.kind != x86::Activation::None) &&
      !x86::WindowKernel::readsU8(c, isa))
    return std::nullopt;
  if (c.inputU8 && c.outputU8 && c.outputTable.empty()) {
    // |y| <= sum |w| max |x| + |b| per channel (x from the input grid; the
    // activations keep a bound or make one): no clamp before the codes'
    // conversion where that stays below 2^30 output scales.
    std::optional<SmallVector<float>> wv = constantF32(w.weight), bv;
    if (w.bias)
      bv = constantF32(w.bias);
    if (wv && (!w.bias || bv)) {
      double maxX = std::max(c.inputZeroPoint, 255 - c.inputZeroPoint) *
                    static_cast<double>(c.inputScale);
      int64_t taps = c.kernelH * c.kernelW;
      double bound = 0;
      for (int64_t ch = 0; ch < c.channels; ++ch) {
        double sum = bv ? std::fabs((*bv)[ch]) : 0;
        for (int64_t t = 0; t < taps; ++t)
          sum += std::fabs((*wv)[ch * taps + t]) * maxX;
        bound = std::max(bound, sum);
      }
      if (c.activation.kind == x86::Activation::LeakyRelu)
        bound *= std::max(1.0, std::fabs(double(c.activation.alpha)));
      else if (c.activation.kind == x86::Activation::Clip)
        bound = std::max({bound, std::fabs(double(c.activation.min)),
                          std::fabs(double(c.activation.max))});
      else if (c.activation.kind == x86::Activation::Sigmoid ||
               c.activation.kind == x86::Activation::Tanh)
        bound = std::max(bound, 1.0);
      c.outputBounded = std::isfinite(bound) && bound < 0x1p30 * c.outputScale;
    }
  }
  if (auto avg = dyn_cast<AveragePoolOp>(op)) {
    c.countIncludePad = avg.getCountIncludePad() != 0;
    if (std::optional<Type> grid = avg.getOutputQuantization()) {
      c.divide = true;
      c.output = roundToGrid(*grid);
      c.output.zeroPoint = static_cast<float>(avg.roundingZeroPoint());
    }
    w.reciprocals = x86::WindowKernel::prepareDivisors(c, isa);
  }
  return w;
}

/// What a generic kernel's code depends on: the op, its attributes, its
/// operand and result types (buffers are arguments), the small integer
/// constants it bakes in (Slice's starts, ends, axes and steps, reduction
/// axes), and whether it runs in place (no `noalias`).
std::string genericKernelKey(Operation *op, bool inPlace) {
  std::string key;
  llvm::raw_string_ostream os(key);
  os << op->getName() << (inPlace ? " inplace " : " ") << op->getAttrDictionary() << " (";
  for (Value v : op->getOperands()) {
    os << v.getType();
    // Small constants that generic kernels bake in (Slice bounds, Resize's
    // scales and roi) tell kernels of the same types apart.
    auto type = dyn_cast<RankedTensorType>(v.getType());
    if (type && type.hasStaticShape() && type.getNumElements() <= 64) {
      if (std::optional<SmallVector<int64_t>> values = getConstantInts(v)) {
        os << " = [";
        llvm::interleaveComma(*values, os);
        os << "]";
      } else if (std::optional<SmallVector<double>> floats =
                     isa<ResizeOp>(op) ? getConstantDoubles(v) : std::nullopt) {
        os << " = [";
        llvm::interleaveComma(*floats, os, [&](double f) { os << llvm::format("%a", f); });
        os << "]";
      }
    }
    os << ", ";
  }
  os << ") -> (";
  for (Type t : op->getResultTypes())
    os << t << ", ";
  os << ")";
  return key;
}

/// --explain's name of an f32 GEMM summing in MLAS's k blocks (an int8
/// op's f32 products).
std::string kBlockGemmDescription(StringRef kind, const x86::GemmConfig &gc, Isa isa) {
  return llvm::formatv("{0}.{1}[{2}x{3}x{4}] k blocks of {5}", kind,
                       isa == Isa::Avx512 ? "avx512" : "avx2", gc.m, gc.n, gc.k, gc.kBlock)
      .str();
}

/// The int8 GEMM that runs a quantized_conv (convolution form), without
/// the partial ranges.
x86::Int8GemmConfig convGemmConfig(QuantizedConvOp qc, const Int8Conv &g) {
  x86::Int8GemmConfig cfg;
  cfg.m = g.outChannels;
  cfg.n = g.positions();
  cfg.k = g.depth;
  cfg.lda = g.depth * x86::Int8ConvGemm::weightBytes(g.isa);
  cfg.ldc = cfg.ldr = cfg.n;
  cfg.bias = static_cast<bool>(qc.getBias());
  cfg.residual = static_cast<bool>(qc.getResidual());
  cfg.convolution = true;
  cfg.batch = g.pack.batch;
  cfg.isa = g.isa;
  cfg.u8Weights = !g.weightZeroPoints.empty();
  cfg.broadcastRows = g.broadcastRows;
  if (g.direct())
    cfg.blockPlane = g.plane();
  // Decides the tasks (and so the partial ranges' sidecar): set everywhere.
  cfg.im2col = g.panelIm2col();
  cfg.activation = epilogueActivation(qc);
  // u8_output: the u8 codes of the last grid instead of its values (with a
  // table: the last grid indexes it, the codes are of the table's grid).
  std::optional<ArrayRef<float>> table = qc.getOutputTable();
  auto u8Output = [](Type t) {
    auto q = cast<quant::UniformQuantizedType>(t);
    return x86::Int8GemmConfig::U8Output{static_cast<float>(q.getScale()),
                                         static_cast<int32_t>(q.getZeroPoint())};
  };
  auto lastGrid = [&](std::optional<Type> t, x86::Activation &grid) {
    if (!t)
      return;
    if (qc.getU8Output() && !table) {
      cfg.u8Output = u8Output(*t);
    } else {
      grid = roundToGrid(*t);
    }
  };
  if (qc.getNormScale()) {
    if (std::optional<Type> t = qc.getOutputQuantization())
      cfg.output = roundToGrid(*t);
    cfg.normalize = true;
    lastGrid(qc.getNormQuantization(), cfg.normalized);
  } else {
    lastGrid(qc.getOutputQuantization(), cfg.output);
  }
  if (table) {
    cfg.outputTable.assign(table->begin(), table->end());
    if (std::optional<Type> t = qc.getTableQuantization()) {
      if (qc.getU8Output())
        cfg.u8Output = u8Output(*t);
      else
        cfg.tableOutput = roundTableToGrid(*table, *t);
    }
  }
  if (qc.getOneStepRequantization()) {
    // The bias and scales fold into the rows (packOneStepRows), the
    // activation into the codes' bounds.
    EpilogueActivation e = EpilogueActivation::of(qc);
    auto grid = cast<quant::UniformQuantizedType>(*qc.getOutputQuantization());
    const auto scale = static_cast<float>(grid.getScale());
    const auto zeroPoint = static_cast<int32_t>(grid.getZeroPoint());
    auto [lo, hi] = oneStepCodeBounds(e.kind, e.min, e.max, scale, zeroPoint);
    cfg.oneStep = x86::Int8GemmConfig::OneStep{lo, hi, scale, zeroPoint};
    cfg.bias = false;
    cfg.activation = x86::Activation();
  }
  return cfg;
}

/// A grouped convolution's calls: `call` holds the GEMM of image 0's group
/// 0 (its prelude: the steps before, run once); `pack`, where one precedes
/// the GEMM, packs that group. Both repeat for every (image, group) of
/// `images` x `groups`, `offsets` moving their arguments onto that image's
/// group (the pack's, where there is one, then the GEMM's); the last GEMM
/// stays the step's call, the others join its prelude in order.
void repeatPerGroup(
    KernelCall &call, std::optional<KernelCall> pack, int64_t images, int64_t groups,
    llvm::function_ref<void(KernelCall *pack, KernelCall &gemm, int64_t image, int64_t group)>
        offsets) {
  KernelCall gemm = call;
  gemm.prelude.clear();
  std::vector<KernelCall> steps = std::move(call.prelude);
  for (int64_t image = 0; image < images; ++image)
    for (int64_t group = 0; group < groups; ++group) {
      std::optional<KernelCall> p = pack;
      KernelCall c = gemm;
      c.description += llvm::formatv(", group {0} of {1}", group + 1, groups).str();
      offsets(p ? &*p : nullptr, c, image, group);
      if (p)
        steps.push_back(std::move(*p));
      if (image + 1 < images || group + 1 < groups)
        steps.push_back(std::move(c));
      else
        call = std::move(c);
    }
  call.prelude = std::move(steps);
}

class ModelCompiler {
public:
  ModelCompiler(ModuleOp module, const CompileOptions &options)
      : module(module), options(options) {}

  FailureOr<CompiledModel> run();

private:
  LogicalResult selectKernels();
  /// A fast x86 kernel for the step, or false when none fits (generic path).
  FailureOr<bool> selectNativeKernel(const Step &step, KernelCall &call);
  /// The conv as Winograd F(2x2, 3x3): the padding pass, then the kernel.
  FailureOr<bool> selectWinogradConv(const Step &step, KernelCall &call, const ConvGeometry &g);
  /// An int8 GEMM's f32 products (f32_product_k_block): the preludes that
  /// dequantize its u8 input and sum the products into its scratch.
  LogicalResult f32ProductPrelude(QuantizedLinearOp op, const Int8Linear &l,
                                  ArrayRef<char> weightCodes, const Step &step, KernelCall &call);
  /// An int8 convolution's f32 products (f32_product_k_block): the preludes
  /// that dequantize its input, im2col it and run the f32 GEMM in MLAS's
  /// blocks into its scratch.
  LogicalResult f32ConvPrelude(QuantizedConvOp op, const Int8Conv &g,
                               const x86::QuantizeRowsConfig &input, const Step &step,
                               KernelCall &call);
  int64_t constantOffset(int storage);
  /// Words a kernel reads per call (a grid its code does not hold), in the
  /// weights blob.
  KernelArg wordsArg(ArrayRef<uint32_t> words) {
    return KernelArg::blob(
        blob.add(reinterpret_cast<const char *>(words.data()), words.size() * 4));
  }
  /// A static row quantizer's grid (QuantizeRowsKernel::staticParameters).
  KernelArg staticQuantizationArg(const x86::QuantizeRowsConfig &c) {
    return wordsArg(x86::QuantizeRowsKernel::staticParameters(c));
  }
  FailureOr<std::unique_ptr<llvm::Module>> translate(llvm::LLVMContext &llvmContext);
  void emitGlue(llvm::Module &m);
  void emitKernelWrappers(llvm::Module &m);
  FailureOr<std::string> emitObject(llvm::Module &m, llvm::StringRef codePath);
  std::string nativeCodeAsm(llvm::StringRef codePath);

  ModuleOp module;
  const CompileOptions &options;
  func::FuncOp func;
  MemoryPlan plan;
  std::vector<KernelCall> calls;
  /// Generic kernels: task symbol -> the MLIR function it wraps.
  struct GenericImpl {
    std::string impl;
    unsigned arity = 0;
    bool takesTask = false;
  };
  std::map<std::string, GenericImpl> genericImpls;
  /// Generic functions built so far, by what determines their code.
  llvm::StringMap<std::string> genericKernelByKey;
  OwningOpRef<ModuleOp> kernelModule;
  /// Machine code of the x86 kernels, by symbol, in step order.
  std::vector<std::pair<std::string, std::vector<uint8_t>>> nativeCode;
  /// Per nativeCode entry, the earlier entry with the same bytes whose code
  /// it shares (the layers of a transformer generate the same kernels), or
  /// itself. Position-independent code that reads everything through its
  /// arguments behaves the same at either copy.
  std::vector<size_t> nativeCodeOwners() const;
  WeightBlob blob;
  llvm::DenseMap<int, int64_t> constantOffsets;
  /// Results whose kernel wrote their partial ranges (for the int8
  /// convolutions that read them): the sidecar storage and the count.
  struct PartialRanges {
    int storage = -1;
    int64_t parts = 0;
  };
  llvm::DenseMap<Value, PartialRanges> producedRanges;
};

/// Whether an operand or result of `op` has no elements: the x86 kernels
/// split rows and channels into tasks, so such an op takes the generic
/// kernel (or, for the int8 ops, which have none, a located error).
static bool hasEmptyTensor(Operation *op) {
  return llvm::any_of(llvm::concat<Value>(op->getOperands(), op->getResults()), [](Value v) {
    return cast<RankedTensorType>(v.getType()).getNumElements() == 0;
  });
}

LogicalResult ModelCompiler::selectKernels() {
  // Scratch memory per op, known before the plan (none where a tensor is
  // empty: no native kernel sizes it, selectNativeKernel says why).
  Isa isa = options.target.isa;
  auto scratch = [&](Operation *op) -> int64_t {
    if (hasEmptyTensor(op))
      return 0;
    if (std::optional<ConvGeometry> g = convGeometry(op, isa, options.winograd))
      return g->scratchBytes(isa);
    if (std::optional<WindowStep> w = windowStep(op, isa, options.target.int8))
      return x86::WindowKernel::scratchBytes(w->config, isa);
    if (auto ql = dyn_cast<QuantizedLinearOp>(op))
      if (std::optional<Int8Linear> l = int8Linear(ql, options.target.int8))
        return l->scratchBytes();
    if (auto q = dyn_cast<QuantizeOp>(op)) // the row quantizer's row block
      return rowsOf(q.getInput()) * 8;
    if (auto f = dyn_cast<DynamicFakeQuantizeOp>(op)) // its range pass's partial ranges
      if (std::optional<x86::QuantizeRowsConfig> c = dynamicFakeQuantizeRows(f, isa))
        return x86::QuantizeRowsKernel::rangeTasks(*c) * 8;
    if (auto qc = dyn_cast<QuantizedConvOp>(op))
      if (std::optional<Int8Conv> g = int8Conv(qc, options.target.int8))
        return g->scratchBytes();
    if (auto mm = dyn_cast<MatMulOp>(op))
      if (std::optional<RuntimeMatMul> r = runtimeMatMul(mm, isa))
        return r->packedBytes(isa);
    if (auto at = dyn_cast<AttentionOp>(op)) {
      if (std::optional<x86::AttentionConfig> c = attentionConfig(at, isa))
        return x86::AttentionKernel::scratchBytes(*c, isa);
      // The generic kernel keeps one row of probabilities.
      return at.keyLength() * 4;
    }
    return 0;
  };
  auto inPlace = [&](Operation *op) {
    SmallVector<unsigned> candidates;
    if (hasEmptyTensor(op))
      return candidates;
    // GEMM epilogues read the residual element just before writing it.
    if (auto lin = dyn_cast<LinearOp>(op)) {
      if (lin.getResidual() && nativeLinear(lin))
        candidates.push_back(op->getNumOperands() - 1);
      return candidates;
    }
    if (std::optional<ConvGeometry> g = convGeometry(op, isa, options.winograd)) {
      // (A residual that is also the input shares its storage: the plan
      // never writes over it, so GEMM tasks reading the input directly
      // still see it.)
      if (g->residual)
        candidates.push_back(op->getNumOperands() - 1);
      return candidates;
    }
    // The window kernel reads the residual just before writing the same
    // element (never in place over its input: stride 1 reads input rows
    // after earlier output rows are stored).
    if (std::optional<WindowStep> w = windowStep(op, isa, options.target.int8)) {
      if (w->residual)
        candidates.push_back(op->getNumOperands() - 1);
      return candidates;
    }
    // The int8 GEMM epilogue reads the residual just before writing (its
    // input is quantized into scratch first).
    if (auto ql = dyn_cast<QuantizedLinearOp>(op)) {
      if (ql.getResidual() && int8Linear(ql, options.target.int8))
        candidates.push_back(op->getNumOperands() - 1);
      return candidates;
    }
    if (auto qc = dyn_cast<QuantizedConvOp>(op)) {
      if (qc.getResidual() && int8Conv(qc, options.target.int8))
        candidates.push_back(residualOperand(qc));
      return candidates;
    }
    // The chain kernel reads element i of every input before writing y's.
    if (llvm::isa<ElementwiseChainOp>(op)) {
      for (unsigned i = 0; i < op->getNumOperands(); ++i)
        candidates.push_back(i);
      return candidates;
    }
    // The softmax kernel reads each element before writing it (pass 2).
    if (auto sm = dyn_cast<SoftmaxOp>(op)) {
      if (softmaxConfig(sm))
        candidates.push_back(0);
      return candidates;
    }
    // The LayerNorm kernel reads a row fully (moments) before writing it.
    if (auto ln = dyn_cast<LayerNormOp>(op)) {
      if (nativeLayerNorm(ln))
        candidates.push_back(0);
      return candidates;
    }
    for (unsigned i = 0; i < op->getNumOperands(); ++i)
      if (genericKernelWorksInPlace(op, i))
        candidates.push_back(i);
    return candidates;
  };
  // Kernels that measure the range of what they store, for an int8
  // convolution that quantizes their result per tensor at run time, or a
  // dynamic_fake_quantize of it: the partial ranges, one (max, min) per
  // task, replace that step's range pass over the tensor.
  auto rangesOf = [&](Operation *op) -> int64_t {
    if (hasEmptyTensor(op))
      return 0;
    bool read = llvm::any_of(op->getResult(0).getUsers(), [&](Operation *user) {
      if (auto f = dyn_cast<DynamicFakeQuantizeOp>(user))
        return dynamicFakeQuantizeRows(f, isa).has_value();
      auto qc = dyn_cast<QuantizedConvOp>(user);
      return qc && qc.getInput() == op->getResult(0) &&
             qc.getActivationQuantization() == "dynamic_per_tensor" &&
             int8Conv(qc, options.target.int8);
    });
    if (!read)
      return 0;
    if (std::optional<WindowStep> w = windowStep(op, isa, options.target.int8))
      return x86::WindowKernel::canWriteRanges(w->config, isa)
                 ? x86::WindowKernel::numTasks(w->config) * 8
                 : 0;
    if (auto qc = dyn_cast<QuantizedConvOp>(op))
      if (std::optional<Int8Conv> g = int8Conv(qc, options.target.int8)) {
        x86::Int8GemmConfig cfg = convGemmConfig(qc, *g);
        return x86::Int8ConvGemm::writesRanges(cfg)
                   ? g->calls() * x86::Int8ConvGemm::numTasks(cfg) * 8
                   : 0;
      }
    return 0;
  };
  FailureOr<MemoryPlan> p = planMemory(func, scratch, inPlace, rangesOf);
  if (failed(p))
    return failure();
  plan = std::move(*p);

  kernelModule = ModuleOp::create(func.getLoc());
  for (auto [i, step] : llvm::enumerate(plan.steps)) {
    KernelCall call;
    call.symbol = options.name + "_k" + std::to_string(i);
    FailureOr<bool> native = selectNativeKernel(step, call);
    if (failed(native))
      return failure();
    if (*native) {
      calls.push_back(std::move(call));
      continue;
    }
    // Steps that differ only in their buffers share one generic function:
    // QDQ models repeat the same Quantize/DequantizeLinear hundreds of times.
    bool inPlace = step.inPlaceOperand >= 0;
    std::string key = genericKernelKey(step.op, inPlace);
    auto [known, isNew] = genericKernelByKey.try_emplace(key, call.symbol + "_impl");
    std::string impl = known->second;
    if (isNew && failed(buildGenericKernel(*kernelModule, step.op, impl, inPlace)))
      return failure();
    call.generic = true;
    call.description = "generic";
    for (int s : step.operands)
      call.args.push_back(KernelArg::storage(s));
    for (int s : step.results)
      call.args.push_back(KernelArg::storage(s));
    if (step.scratch >= 0)
      call.args.push_back(KernelArg::storage(step.scratch));
    if (auto gather = dyn_cast<GatherOp>(step.op))
      call.errorMessage = gatherErrorMessage(gather);
    if (auto gather = dyn_cast<GatherElementsOp>(step.op))
      call.errorMessage = gatherErrorMessage(gather);
    if (auto scatter = dyn_cast<ScatterElementsOp>(step.op))
      call.errorMessage = gatherErrorMessage(scatter);
    if (llvm::isa<GatherNDOp, ScatterNDOp>(step.op))
      call.errorMessage = indexTupleErrorMessage(step.op);
    genericImpls[call.symbol] = {impl, (unsigned)call.args.size(), false};
    calls.push_back(std::move(call));
  }
  return success();
}

FailureOr<bool> ModelCompiler::selectWinogradConv(const Step &step, KernelCall &call,
                                                  const ConvGeometry &g) {
  const x86::WinogradConfig &c = *g.winograd;
  const x86::Im2colConfig planes = x86::WinogradKernel::paddingConfig(c);
  std::unique_ptr<x86::JitKernel> padding = x86::PanelIm2col::generatePadding(planes);
  std::unique_ptr<x86::JitKernel> kernel = x86::WinogradKernel::generate(c, Isa::Avx512);
  if (!padding || !kernel)
    return step.op->emitError("generating the Winograd convolution failed (xbyak error ")
           << Xbyak::GetError() << ")";
  KernelCall pad;
  pad.symbol = call.symbol + "_pad";
  pad.tasks = x86::PanelIm2col::paddingTasks(planes);
  pad.args = {KernelArg::storage(step.operands[0]), KernelArg::storage(step.scratch)};
  pad.description = "padded planes";
  nativeCode.push_back({pad.symbol, padding->bytes()});
  call.prelude.push_back(std::move(pad));

  SmallVector<char> raw = constantBytes(g.weight);
  std::vector<float> u = x86::WinogradKernel::transformWeights(
      reinterpret_cast<const float *>(raw.data()), c.outChannels, c.channels);
  int64_t uOffset = blob.add(reinterpret_cast<const char *>(u.data()), u.size() * 4);
  int64_t bOffset = uOffset;
  if (g.bias) {
    SmallVector<char> bias = constantBytes(g.bias);
    bOffset = blob.add(bias.data(), bias.size());
  }
  int residual = g.residual ? step.operands.back() : step.operands[0];
  call.args = {KernelArg::blob(uOffset),         KernelArg::storage(step.scratch),
               KernelArg::blob(bOffset),         KernelArg::storage(residual),
               KernelArg::storage(step.results[0]),
               KernelArg::storage(step.scratch, g.winogradPlanesBytes())};
  call.tasks = x86::WinogradKernel::numTasks(c);
  call.description =
      llvm::formatv("conv.winograd.avx512[{0}x{1}x{2}, 3x3 kernel, F(2x2,3x3)]{3}{4}{5}",
                    c.outChannels, g.positions(), g.ck(), c.bias ? " +bias" : "",
                    c.residual ? " +residual" : "", describeActivation(step.op))
          .str();
  nativeCode.push_back({call.symbol, kernel->bytes()});
  return true;
}

LogicalResult ModelCompiler::f32ProductPrelude(QuantizedLinearOp op, const Int8Linear &l,
                                               ArrayRef<char> weightCodes, const Step &step,
                                               KernelCall &call) {
  const Isa isa = options.target.isa;
  auto grid = *op.staticInputQuantization();
  x86::DequantizeConfig dc{l.m * l.k, static_cast<float>(grid.getScale()),
                           static_cast<int32_t>(grid.getZeroPoint())};
  std::unique_ptr<x86::JitKernel> dequantize = x86::DequantizeKernel::generate(dc, isa);
  // The weights as their DequantizeLinear gives them: fl((w - zw) s[n]).
  std::vector<float> weights(l.k * l.n);
  for (int64_t i = 0; i < l.k; ++i)
    for (int64_t j = 0; j < l.n; ++j) {
      const char w = weightCodes[i * l.n + j];
      const int32_t v = l.weightZeroPoints.empty()
                            ? static_cast<int8_t>(w)
                            : static_cast<uint8_t>(w) - l.weightZeroPoints[j];
      weights[i * l.n + j] = static_cast<float>(v) * l.scales[j];
    }
  x86::GemmConfig gc;
  gc.m = l.m;
  gc.n = l.n;
  gc.k = l.k;
  gc.lda = l.k;
  gc.ldc = gc.ldr = l.n;
  gc.kBlock = l.f32ProductKBlock;
  std::unique_ptr<x86::JitKernel> gemm = x86::GemmKernel::generate(gc, isa);
  if (!dequantize || !gemm)
    return op.emitError("generating the f32 product kernels failed (xbyak error ")
           << Xbyak::GetError() << ")";
  std::vector<float> packed = x86::GemmKernel::packWeights(weights.data(), l.k, l.n, isa);
  const int64_t wOffset = blob.add((const char *)packed.data(), packed.size() * 4);
  const KernelArg input = KernelArg::storage(step.scratch),
                  products = KernelArg::storage(step.scratch, l.productsOffset());
  KernelCall dq;
  dq.symbol = call.symbol + "_dequantize";
  dq.tasks = x86::DequantizeKernel::numTasks(dc);
  dq.args = {KernelArg::storage(step.operands[0]), input};
  dq.description = "dequantize (u8)";
  nativeCode.push_back({dq.symbol, dequantize->bytes()});
  call.prelude.push_back(std::move(dq));
  KernelCall sum;
  sum.symbol = call.symbol + "_products";
  sum.tasks = x86::GemmKernel::numPanels(gc.n, isa);
  sum.args = {input, KernelArg::blob(wOffset), KernelArg::blob(wOffset), input, products};
  sum.description = kBlockGemmDescription("gemm", gc, isa);
  nativeCode.push_back({sum.symbol, gemm->bytes()});
  call.prelude.push_back(std::move(sum));
  return success();
}

LogicalResult ModelCompiler::f32ConvPrelude(QuantizedConvOp op, const Int8Conv &g,
                                            const x86::QuantizeRowsConfig &input,
                                            const Step &step, KernelCall &call) {
  const Isa isa = g.vectors();
  const ConvGeometry f = *g.f32Products();
  const x86::Im2colConfig ic = *f.im2col(isa);
  x86::DequantizeConfig dc{g.pack.batch * g.channels * g.plane(), input.scale, input.zeroPoint};
  dc.fromF32 = !input.codes;
  // As an f32 conv runs (the f32 conv step above): the GEMM tasks build
  // their panels from the dequantized input or its padded planes, or, with
  // row chunks, from one im2col pass; the GEMM in MLAS's k blocks.
  const x86::GemmConfig gc = f.gemmConfig(isa);
  const bool readsInput = f.gemmReadsInput(isa);
  const bool padOnly = gc.im2col && x86::GemmKernel::im2colSplit(gc).packPerItem;
  std::unique_ptr<x86::JitKernel> dequantize = x86::DequantizeKernel::generate(dc, isa);
  std::unique_ptr<x86::JitKernel> packer =
      readsInput ? nullptr
      : padOnly  ? x86::PanelIm2col::generatePadding(*gc.im2col)
                 : x86::Im2colKernel::generate(ic, isa);
  std::unique_ptr<x86::JitKernel> gemm = x86::GemmKernel::generate(gc, isa);
  if (!dequantize || (!readsInput && !packer) || !gemm)
    return op.emitError("generating the f32 convolution kernels failed (xbyak error ")
           << Xbyak::GetError() << ")";
  // The weights as their DequantizeLinear gives them, fl((w - zw) s[m]),
  // [M][C kh kw] as stored: the GEMM's A.
  SmallVector<char> raw;
  readRawElements(g.weights, raw);
  const int64_t perRow = static_cast<int64_t>(raw.size()) / g.outChannels;
  std::vector<float> weights(raw.size());
  for (int64_t m = 0; m < g.outChannels; ++m)
    for (int64_t i = 0; i < perRow; ++i) {
      const char w = raw[m * perRow + i];
      const int32_t v = g.weightZeroPoints.empty()
                            ? static_cast<int8_t>(w)
                            : static_cast<uint8_t>(w) - g.weightZeroPoints[m];
      weights[m * perRow + i] =
          static_cast<float>(v) * g.scales[g.scales.size() > 1 ? m : 0];
    }
  const int64_t wOffset = blob.add((const char *)weights.data(), weights.size() * 4);
  const KernelArg values = KernelArg::storage(step.scratch),
                  panels = KernelArg::storage(step.scratch, g.f32PanelsOffset()),
                  products = KernelArg::storage(step.scratch, g.productsOffset());
  KernelCall dq;
  dq.symbol = call.symbol + "_dequantize";
  dq.tasks = x86::DequantizeKernel::numTasks(dc);
  dq.args = {KernelArg::storage(step.operands[0]), values};
  dq.description = dc.fromF32 ? "quantize and dequantize (static)" : "dequantize (u8)";
  nativeCode.push_back({dq.symbol, dequantize->bytes()});
  call.prelude.push_back(std::move(dq));
  if (!readsInput) {
    KernelCall pack;
    pack.symbol = call.symbol + (padOnly ? "_pad" : "_pack");
    pack.tasks = padOnly ? x86::PanelIm2col::paddingTasks(*gc.im2col)
                         : x86::Im2colKernel::numTasks(ic);
    pack.args = {values, panels};
    if (!padOnly)
      pack.args.push_back(
          KernelArg::storage(step.scratch, g.f32PanelsOffset() + f.packedBytes()));
    pack.description = padOnly ? "padded planes (f32)" : "im2col (f32)";
    nativeCode.push_back({pack.symbol, packer->bytes()});
    call.prelude.push_back(std::move(pack));
  }
  KernelCall sum;
  sum.symbol = call.symbol + "_products";
  sum.tasks = x86::GemmKernel::numTasks(gc, isa);
  sum.args = {KernelArg::blob(wOffset), readsInput ? values : panels, KernelArg::blob(wOffset),
              values, products};
  if (gc.im2col)
    sum.args.push_back(
        KernelArg::storage(step.scratch, g.f32PanelsOffset() + f.sharedPanelsBytes(isa)));
  sum.description = kBlockGemmDescription(
      padOnly ? "conv.panel-im2col+gemm" : "conv.im2col+gemm", gc, isa);
  nativeCode.push_back({sum.symbol, gemm->bytes()});
  call.prelude.push_back(std::move(sum));
  return success();
}

FailureOr<bool> ModelCompiler::selectNativeKernel(const Step &step, KernelCall &call) {
  Isa isa = options.target.isa;
  if (hasEmptyTensor(step.op)) {
    if (!llvm::isa<QuantizedLinearOp, QuantizedConvOp, QuantizeOp>(step.op))
      return false;
    for (Value v : llvm::concat<Value>(step.op->getOperands(), step.op->getResults()))
      if (cast<RankedTensorType>(v.getType()).getNumElements() == 0)
        return step.op->emitError()
               << (v.getDefiningOp() == step.op ? "its result" : "an operand") << " of type "
               << v.getType() << " has no elements; this op's kernels need at least one";
  }
  if (auto lin = dyn_cast<LinearOp>(step.op)) {
    auto in = cast<RankedTensorType>(lin.getInput().getType());
    auto w = cast<RankedTensorType>(lin.getWeight().getType());
    if (!in.getElementType().isF32() || in.getRank() < 1)
      return false;
    std::optional<SmallVector<float>> weights, bias;
    ElementsAttr attr;
    if (!matchPattern(lin.getWeight(), m_Constant(&attr)))
      return false;
    SmallVector<char> raw;
    if (!readRawElements(attr, raw))
      return false;
    if (lin.getBias() && !(bias = constantF32(lin.getBias())))
      return false;
    x86::GemmConfig cfg;
    cfg.k = w.getDimSize(0);
    cfg.n = w.getDimSize(1);
    cfg.m = in.getNumElements() / cfg.k;
    cfg.lda = cfg.k;
    cfg.ldc = cfg.n;
    cfg.ldr = cfg.n;
    cfg.bias = static_cast<bool>(bias);
    cfg.residual = static_cast<bool>(lin.getResidual());
    cfg.activation = epilogueActivation(lin);
    std::unique_ptr<x86::JitKernel> kernel = x86::GemmKernel::generate(cfg, isa);
    if (!kernel)
      return lin.emitError("generating the GEMM kernel failed (xbyak error ")
             << Xbyak::GetError() << ")";
    std::vector<float> packed =
        x86::GemmKernel::packWeights((const float *)raw.data(), cfg.k, cfg.n, isa);
    int64_t wOffset = blob.add((const char *)packed.data(), packed.size() * 4);
    int64_t bOffset = wOffset;
    if (bias) {
      std::vector<float> pb = x86::GemmKernel::packBias(bias->data(), cfg.n, isa);
      bOffset = blob.add((const char *)pb.data(), pb.size() * 4);
    }
    int input = step.operands[0];
    int residual = lin.getResidual() ? step.operands.back() : input;
    call.args = {KernelArg::storage(input), KernelArg::blob(wOffset), KernelArg::blob(bOffset),
                 KernelArg::storage(residual), KernelArg::storage(step.results[0])};
    call.tasks = x86::GemmKernel::numPanels(cfg.n, isa);
    call.description = llvm::formatv("gemm.{0}[{1}x{2}x{3}]{4}{5}{6}",
                                     isa == Isa::Avx512 ? "avx512" : "avx2", cfg.m, cfg.n,
                                     cfg.k, cfg.bias ? " +bias" : "",
                                     cfg.residual ? " +residual" : "",
                                     describeActivation(lin))
                           .str();
    nativeCode.push_back({call.symbol, kernel->bytes()});
    return true;
  }
  if (auto mm = dyn_cast<MatMulOp>(step.op)) {
    std::optional<RuntimeMatMul> r = runtimeMatMul(mm, isa);
    if (!r)
      return false;
    KernelArg packed = KernelArg::storage(step.scratch);
    if (r->constantB) {
      ElementsAttr attr;
      SmallVector<char> raw;
      if (!matchPattern(mm.getB(), m_Constant(&attr)) || !readRawElements(attr, raw))
        return mm.emitError("reading the constant B of a MatMul failed");
      std::vector<float> panels;
      const int64_t matrix = r->pack.k * r->pack.n;
      for (int64_t item = 0; item < r->pack.batch; ++item) {
        std::vector<float> p = x86::GemmKernel::packWeights(
            reinterpret_cast<const float *>(raw.data()) + item * matrix, r->pack.k, r->pack.n,
            isa);
        panels.insert(panels.end(), p.begin(), p.end());
      }
      packed = KernelArg::blob(blob.add(reinterpret_cast<const char *>(panels.data()),
                                        panels.size() * 4));
    } else {
      KernelCall pack;
      pack.symbol = call.symbol + "_pack";
      buildPanelPackKernel(*kernelModule, r->pack, pack.symbol + "_impl");
      pack.generic = true;
      pack.tasks = r->pack.batch * r->panels(isa);
      pack.args = {KernelArg::storage(step.operands[1]), KernelArg::storage(step.scratch)};
      pack.description = "B into panels";
      genericImpls[pack.symbol] = {pack.symbol + "_impl", 2, true};
      call.prelude.push_back(std::move(pack));
    }
    std::unique_ptr<x86::JitKernel> kernel = x86::GemmKernel::generate(r->gemm, isa);
    if (!kernel)
      return mm.emitError("generating the GEMM kernel failed (xbyak error ")
             << Xbyak::GetError() << ")";
    // (No bias and no residual: their arguments are never read.)
    call.args = {KernelArg::storage(step.operands[0]), packed, packed,
                 KernelArg::storage(step.operands[0]), KernelArg::storage(step.results[0])};
    call.tasks = x86::GemmKernel::numTasks(r->gemm, isa);
    call.description = llvm::formatv("matmul.{0}[{1} x {2}x{3}x{4}], B packed at {5} time",
                                     isa == Isa::Avx512 ? "avx512" : "avx2", r->gemm.batch,
                                     r->gemm.m, r->gemm.n, r->gemm.k,
                                     r->constantB ? "compile" : "run")
                           .str();
    nativeCode.push_back({call.symbol, kernel->bytes()});
    return true;
  }
  if (std::optional<ConvGeometry> g = convGeometry(step.op, isa, options.winograd)) {
    if (g->winograd)
      return selectWinogradConv(step, call, *g);
    // im2col into the GEMM's panel layout, then the GEMM with the weights as
    // A ([M][C*kh*kw] as stored) and one bias per row.
    KernelCall pack;
    pack.symbol = call.symbol + "_pack";
    std::string packWhat = "generic im2col";
    std::optional<x86::Im2colConfig> panelIm2col = g->panelIm2col(isa);
    bool padOnly =
        panelIm2col && x86::GemmKernel::im2colSplit(g->gemmConfig(isa)).packPerItem;
    bool readsInput = g->gemmReadsInput(isa);
    if (readsInput) {
      packWhat = ""; // the GEMM tasks copy their panels from the input
    } else if (padOnly) {
      std::unique_ptr<x86::JitKernel> padding = x86::PanelIm2col::generatePadding(*panelIm2col);
      if (!padding)
        return step.op->emitError("generating the padding kernel failed (xbyak error ")
               << Xbyak::GetError() << ")";
      pack.symbol = call.symbol + "_pad";
      pack.tasks = x86::PanelIm2col::paddingTasks(*panelIm2col);
      pack.args = {KernelArg::storage(step.operands[0]), KernelArg::storage(step.scratch)};
      nativeCode.push_back({pack.symbol, padding->bytes()});
      packWhat = "padded planes";
    } else if (std::optional<x86::Im2colConfig> ic = g->im2col(isa)) {
      std::unique_ptr<x86::JitKernel> packer = x86::Im2colKernel::generate(*ic, isa);
      if (!packer)
        return step.op->emitError("generating the im2col kernel failed (xbyak error ")
               << Xbyak::GetError() << ")";
      pack.tasks = x86::Im2colKernel::numTasks(*ic);
      pack.args = {KernelArg::storage(step.operands[0]), KernelArg::storage(step.scratch),
                   KernelArg::storage(step.scratch, g->packedBytes())};
      nativeCode.push_back({pack.symbol, packer->bytes()});
      packWhat = "im2col";
    } else {
      buildConvPackKernel(*kernelModule, g->pack, pack.symbol + "_impl");
      pack.generic = true;
      pack.tasks = g->pack.batch * g->pack.channels;
      pack.args = {KernelArg::storage(step.operands[0]), KernelArg::storage(step.scratch)};
      genericImpls[pack.symbol] = {pack.symbol + "_impl", 2, true};
    }
    pack.description = packWhat;
    std::optional<KernelCall> groupPack;
    if (!readsInput && g->groups > 1)
      groupPack = std::move(pack);
    else if (!readsInput)
      call.prelude.push_back(std::move(pack));

    x86::GemmConfig cfg = g->gemmConfig(isa);
    std::string splitWhat = readsInput ? ", panels from the input" : "";
    if (cfg.im2col) {
      x86::GemmKernel::Im2colSplit split = x86::GemmKernel::im2colSplit(cfg);
      if (split.chunks > 1)
        splitWhat += llvm::formatv(", {0} row chunks", split.chunks).str();
      if (split.tail)
        splitWhat += llvm::formatv(", last {0} columns as dot products", split.tail).str();
    }
    std::unique_ptr<x86::JitKernel> kernel = x86::GemmKernel::generate(cfg, isa);
    if (!kernel)
      return step.op->emitError("generating the convolution GEMM failed (xbyak error ")
             << Xbyak::GetError() << ")";
    SmallVector<char> raw = constantBytes(g->weight);
    int64_t wOffset = blob.add(raw.data(), raw.size());
    int64_t bOffset = wOffset;
    if (g->bias) {
      SmallVector<char> bias = constantBytes(g->bias);
      bOffset = blob.add(bias.data(), bias.size());
    }
    int residual = g->residual ? step.operands.back() : step.operands[0];
    call.args = {KernelArg::blob(wOffset),
                 KernelArg::storage(readsInput ? step.operands[0] : step.scratch),
                 KernelArg::blob(bOffset), KernelArg::storage(residual),
                 KernelArg::storage(step.results[0])};
    if (panelIm2col)
      call.args.push_back(KernelArg::storage(step.scratch, g->sharedPanelsBytes(isa)));
    call.tasks = x86::GemmKernel::numTasks(cfg, isa);
    call.description =
        llvm::formatv("conv.{9}+gemm.{0}[{1}x{2}x{3}, {4}x{5} kernel{10}]{6}{7}{8}",
                      isa == Isa::Avx512 ? "avx512" : "avx2", cfg.m, cfg.n, cfg.k,
                      g->pack.kernelH, g->pack.kernelW, cfg.bias ? " +bias" : "",
                      cfg.residual ? " +residual" : "",
                      describeActivation(step.op),
                      padOnly ? "panel-im2col" : "im2col", splitWhat)
            .str();
    if (g->groups > 1) {
      // The group's input planes, weight rows, biases, residual and result
      // rows.
      const int64_t planes = g->pack.channels * g->pack.height * g->pack.width * 4;
      repeatPerGroup(call, std::move(groupPack), g->images, g->groups,
                     [&](KernelCall *pack, KernelCall &gemm, int64_t image, int64_t group) {
                       const int64_t index = image * g->groups + group;
                       const int64_t rows = index * cfg.m * cfg.n * 4;
                       if (pack)
                         pack->args[0].offset += index * planes;
                       gemm.args[0].value += group * cfg.m * cfg.k * 4;
                       if (readsInput)
                         gemm.args[1].offset += index * planes;
                       if (g->bias)
                         gemm.args[2].value += group * cfg.m * 4;
                       if (g->residual)
                         gemm.args[3].offset += rows;
                       gemm.args[4].offset += rows;
                     });
    }
    nativeCode.push_back({call.symbol, kernel->bytes()});
    return true;
  }
  if (auto ln = dyn_cast<LayerNormOp>(step.op)) {
    if (!nativeLayerNorm(ln))
      return false;
    auto in = cast<RankedTensorType>(ln.getInput().getType());
    const int64_t n = *ln.rowSize();
    x86::LayerNormConfig cfg{in.getNumElements() / n, n, ln.getEpsilon().convertToFloat(),
                             static_cast<bool>(ln.getBias()), ln.getOrderedF32Arithmetic(),
                             ln.getRms()};
    std::unique_ptr<x86::JitKernel> kernel = x86::LayerNormKernel::generate(cfg, isa);
    if (!kernel)
      return ln.emitError("generating the LayerNorm kernel failed (xbyak error ")
             << Xbyak::GetError() << ")";
    call.args = {KernelArg::storage(step.operands[0]), KernelArg::storage(step.operands[1]),
                 KernelArg::storage(ln.getBias() ? step.operands[2] : step.operands[1]),
                 KernelArg::storage(step.results[0]), KernelArg::storage(step.results[1]),
                 KernelArg::storage(step.results[2])};
    call.tasks = x86::LayerNormKernel::numTasks(cfg);
    call.description = llvm::formatv("layer_norm.{0}[{1}x{2}]{5}{3}{4}",
                                     isa == Isa::Avx512 ? "avx512" : "avx2", cfg.rows, cfg.n,
                                     cfg.bias ? " +bias" : "",
                                     cfg.ordered ? " +ordered f32 steps" : "",
                                     cfg.rms ? " rms" : "")
                           .str();
    nativeCode.push_back({call.symbol, kernel->bytes()});
    return true;
  }
  if (std::optional<WindowStep> w = windowStep(step.op, isa, options.target.int8)) {
    x86::WindowConfig &cfg = w->config;
    cfg.ranges = step.resultSidecar >= 0;
    cfg.evexVnni = options.target.evexVnni;
    std::unique_ptr<x86::JitKernel> kernel = x86::WindowKernel::generate(cfg, isa);
    if (!kernel)
      return step.op->emitError("generating the window kernel failed (xbyak error ")
             << Xbyak::GetError() << ")";
    KernelArg none = KernelArg::storage(step.operands[0]);
    KernelArg table = none, bias = none, residual = none;
    if (cfg.oneStep && !cfg.int8)
      return step.op->emitError("internal error: one_step_requantization without the target's "
                                "integer depthwise kernel");
    if (cfg.int8) {
      x86::Int8DepthwiseKernel::Tables t = *int8DepthwiseTables(cfg, *w);
      table = KernelArg::blob(blob.add((const char *)t.filters.data(), t.filters.size() * 4));
      bias = KernelArg::blob(blob.add((const char *)t.scaleBias.data(), t.scaleBias.size() * 4));
    } else if (w->weight) {
      SmallVector<char> raw = constantBytes(w->weight);
      table = KernelArg::blob(blob.add(raw.data(), raw.size()));
    } else if (!w->reciprocals.empty()) {
      table = KernelArg::blob(
          blob.add((const char *)w->reciprocals.data(), w->reciprocals.size() * 4));
    }
    if (w->bias && !cfg.int8) {
      SmallVector<char> raw = constantBytes(w->bias);
      bias = KernelArg::blob(blob.add(raw.data(), raw.size()));
    }
    if (w->residual)
      residual = KernelArg::storage(step.operands.back());
    KernelArg scratch = step.scratch >= 0 ? KernelArg::storage(step.scratch) : none;
    call.args = {KernelArg::storage(step.operands[0]), KernelArg::storage(step.results[0]),
                 scratch, table, bias, residual};
    call.tasks = x86::WindowKernel::numTasks(cfg);
    if (cfg.ranges) {
      if (plan.storages[step.resultSidecar].bytes < call.tasks * 8)
        return step.op->emitError("internal error: the partial ranges of ")
               << call.tasks << " tasks overflow their " << plan.storages[step.resultSidecar].bytes
               << "-byte sidecar";
      call.args.push_back(KernelArg::storage(step.resultSidecar));
      producedRanges[step.op->getResult(0)] = {step.resultSidecar, call.tasks};
    }
    const char *names[] = {"max_pool", "average_pool", "depthwise_conv", "global_average_pool"};
    std::string what = llvm::formatv("{0}.{1}[{2}x{3}x{4}x{5}", names[cfg.kind],
                                      cfg.int8 ? (isa == Isa::Avx512 ? "int8.avx512vnni"
                                                                     : "int8.avxvnni")
                                      : isa == Isa::Avx512 ? "avx512"
                                                           : "avx2",
                                      cfg.batch,
                                      cfg.channels, cfg.height, cfg.width)
                           .str();
    if (cfg.kind != x86::WindowConfig::GlobalAverage)
      what += llvm::formatv(", {0}x{1} window, stride {2}x{3}", cfg.kernelH, cfg.kernelW,
                            cfg.strideH, cfg.strideW)
                  .str();
    what += cfg.inputU8 ? ", u8 in]" : "]";
    if (cfg.divide)
      what += " +divide +requantize"; // onnxruntime's QLinearAveragePool steps
    else if (cfg.output.kind != x86::Activation::None && cfg.outputTable.empty())
      what += " +requantize";
    if (cfg.bias)
      what += " +bias";
    if (cfg.int8FilterOffsets)
      what += " +filter offsets";
    if (cfg.oneStep)
      what += " +requantize in one step";
    if (cfg.averageOfCodes)
      what += " +codes averaged in one step";
    if (cfg.residual)
      what += " +residual";
    if (cfg.kind == x86::WindowConfig::Depthwise)
      what += describeActivation(step.op);
    if (!cfg.outputTable.empty())
      what += llvm::formatv(" +lookup of {0} codes", cfg.outputTable.size()).str();
    if (cfg.tableOutput.kind != x86::Activation::None)
      what += " +requantize";
    if (cfg.ranges)
      what += " +range";
    if (cfg.outputU8)
      what += " -> u8";
    call.description = what;
    nativeCode.push_back({call.symbol, kernel->bytes()});
    return true;
  }
  if (auto qc = dyn_cast<QuantizedConvOp>(step.op)) {
    std::optional<Int8Conv> g = int8Conv(qc, options.target.int8);
    if (!g)
      return qc.emitError("quantized_conv needs a 4-D static input and a constant weight "
                          "(quant.scast of an i8 constant) and bias; u8 weights need fewer "
                          "than 16384 input channels x taps; groups need a multiple of 4 "
                          "input channels each; f32_product_k_block needs no residual, one "
                          "group and a geometry the f32 im2col kernel takes");
    // 1. The input into u8 channel blocks and its (zero point, scale).
    x86::QuantizeRowsConfig qcfg;
    qcfg.rows = g->images * g->groups * g->channels;
    qcfg.k = g->plane();
    qcfg.channels = g->groups * g->channels;
    qcfg.isa = g->isa;
    if (std::optional<Type> t = qc.getInputQuantization())
      setStaticQuantization(qcfg, cast<quant::UniformQuantizedType>(*t));
    // u8 codes (a depthwise conv's u8_output) are blocked as they are.
    if (auto t = dyn_cast<quant::UniformQuantizedType>(
            getElementTypeOrSelf(qc.getInput().getType()))) {
      setStaticQuantization(qcfg, t);
      qcfg.codes = true;
    }
    // The kernel that wrote the input measured its range as it stored it.
    auto produced = producedRanges.find(qc.getInput());
    if (!qcfg.fixed && produced != producedRanges.end())
      qcfg.producedRanges = produced->second.parts;
    std::optional<x86::Im2colConfig> panelIm2col = g->panelIm2col();
    // The GEMM tasks copy their panels out of the u8 blocks themselves.
    const bool panelsFromBlocks = panelIm2col && x86::PanelIm2col::readsInput(*panelIm2col);
    // A grouped conv's packing step, repeated for each group (below).
    std::optional<KernelCall> groupPack;
    if (g->f32ProductKBlock) {
      // 1-2. The conv in f32 as onnxruntime's MLAS runs it, its products
      // into scratch.
      if (failed(f32ConvPrelude(qc, *g, qcfg, step, call)))
        return failure();
    } else {
      std::unique_ptr<x86::JitKernel> quantizer = x86::QuantizeRowsKernel::generate(qcfg);
      if (!quantizer)
        return qc.emitError("generating the convolution's input quantizer failed (xbyak error ")
               << Xbyak::GetError() << ")";
      if (x86::QuantizeRowsKernel::needsRangePass(qcfg)) {
        std::unique_ptr<x86::JitKernel> ranger = x86::QuantizeRowsKernel::generateRange(qcfg);
        if (!ranger)
          return qc.emitError("generating the convolution's range pass failed (xbyak error ")
                 << Xbyak::GetError() << ")";
        KernelCall range;
        range.symbol = call.symbol + "_range";
        range.tasks = x86::QuantizeRowsKernel::rangeTasks(qcfg);
        range.args = {KernelArg::storage(step.operands[0]),
                      KernelArg::storage(step.scratch, g->rangesOffset())};
        range.description = "input range (dynamic tensor, partial per task)";
        nativeCode.push_back({range.symbol, ranger->bytes()});
        call.prelude.push_back(std::move(range));
      }
      KernelCall quantize;
      quantize.symbol = call.symbol + "_quantize";
      quantize.tasks = x86::QuantizeRowsKernel::numTasks(qcfg);
      quantize.args = {KernelArg::storage(step.operands[0]), KernelArg::storage(step.scratch),
                       KernelArg::storage(step.scratch, g->paramsOffset()),
                       qcfg.producedRanges ? KernelArg::storage(produced->second.storage)
                                           : KernelArg::storage(step.scratch, g->rangesOffset())};
      quantize.description = qcfg.codes   ? "u8 codes into channel blocks"
                             : qcfg.fixed ? "quantize channel blocks (u8, static)"
                             : qcfg.producedRanges ? "quantize channel blocks (u8, dynamic "
                                                     "tensor, range from its producer)"
                                                   : "quantize channel blocks (u8, dynamic tensor)";
      nativeCode.push_back({quantize.symbol, quantizer->bytes()});
      call.prelude.push_back(std::move(quantize));

      // 2. im2col of the blocks, padded with the zero point (none for a
      // direct conv).
      KernelCall pack;
      pack.symbol = call.symbol + "_pack";
      if (g->direct()) {
        // The GEMM reads the blocks.
      } else if (panelsFromBlocks) {
        // The GEMM tasks copy their panels out of the blocks as they are.
      } else if (panelIm2col) {
        // The GEMM tasks copy their panels out of the padded blocks.
        std::unique_ptr<x86::JitKernel> padding = x86::PanelIm2col::generatePadding(*panelIm2col);
        if (!padding)
          return qc.emitError("generating the padding kernel failed (xbyak error ")
                 << Xbyak::GetError() << ")";
        pack.symbol = call.symbol + "_pad";
        pack.tasks = x86::PanelIm2col::paddingTasks(*panelIm2col);
        pack.args = {KernelArg::storage(step.scratch),
                     KernelArg::storage(step.scratch, g->planesOffset()),
                     KernelArg::storage(step.scratch, g->paramsOffset())};
        nativeCode.push_back({pack.symbol, padding->bytes()});
        pack.description = "padded planes (u8 blocks)";
      } else if (std::optional<x86::Im2colConfig> ic = g->im2col()) {
        std::unique_ptr<x86::JitKernel> packer = x86::Im2colKernel::generate(*ic, g->vectors());
        if (!packer)
          return qc.emitError("generating the im2col kernel failed (xbyak error ")
                 << Xbyak::GetError() << ")";
        pack.tasks = x86::Im2colKernel::numTasks(*ic);
        pack.args = {KernelArg::storage(step.scratch),
                     KernelArg::storage(step.scratch, g->panelsOffset()),
                     KernelArg::storage(step.scratch, g->planesOffset()),
                     KernelArg::storage(step.scratch, g->paramsOffset())};
        nativeCode.push_back({pack.symbol, packer->bytes()});
        pack.description = "im2col (u8 blocks)";
      } else {
        buildConvPackKernel(*kernelModule, g->pack, pack.symbol + "_impl");
        pack.generic = true;
        pack.tasks = g->pack.batch * g->pack.channels;
        pack.args = {KernelArg::storage(step.scratch),
                     KernelArg::storage(step.scratch, g->panelsOffset()),
                     KernelArg::storage(step.scratch, g->paramsOffset())};
        genericImpls[pack.symbol] = {pack.symbol + "_impl", 3, true};
        pack.description = "generic im2col (u8 blocks)";
      }
      if (!g->direct() && !panelsFromBlocks) {
        if (g->groups > 1)
          groupPack = std::move(pack);
        else
          call.prelude.push_back(std::move(pack));
      }
    }

    // 3. The int8 GEMM with the weights as rows (and the partial ranges of
    // its result, when an int8 convolution reads it).
    x86::Int8GemmConfig cfg = convGemmConfig(qc, *g);
    if (g->f32ProductKBlock) {
      // The epilogue on the f32 products (no dot products: the weights'
      // zero points are in the f32 weights).
      cfg.f32Products = true;
      cfg.u8Weights = false;
    }
    std::optional<SmallVector<float>> normScale, normShift;
    if (qc.getNormScale()) {
      normScale = constantF32(qc.getNormScale());
      normShift = constantF32(qc.getNormShift());
      if (!normScale || !normShift)
        return qc.emitError("quantized_conv needs a constant norm_scale and norm_shift");
    }
    cfg.ranges = step.resultSidecar >= 0;
    SmallVector<char> raw;
    readRawElements(g->weights, raw);
    // (Groups: each group's rows after the one before, each [M / G][K].)
    const int64_t outChannels = g->allOutChannels();
    std::vector<int8_t> packed = x86::Int8ConvGemm::packWeights(
        reinterpret_cast<const int8_t *>(raw.data()), outChannels, g->channels,
        g->pack.kernelH, g->pack.kernelW, cfg.u8Weights);
    std::optional<SmallVector<float>> bias;
    if (qc.getBias() && !(bias = constantF32(qc.getBias())))
      return qc.emitError("quantized_conv needs a constant bias");
    if (cfg.oneStep && cfg.u8Output && !cfg.normalize && cfg.outputTable.empty()) {
      // Every scaled sum within 2^30 (|sum| <= 255 sum |w| plus the bias
      // code, times the row's scale): the conversion needs no clamp.
      const int64_t perRow = static_cast<int64_t>(raw.size()) / outChannels;
      double worst = 0;
      for (int64_t m = 0; m < outChannels; ++m) {
        double absSum = 0;
        for (int64_t i = 0; i < perRow; ++i)
          absSum += std::abs(cfg.u8Weights ? static_cast<uint8_t>(raw[m * perRow + i]) -
                                                 g->weightZeroPoints[m]
                                           : static_cast<int8_t>(raw[m * perRow + i]));
        const float s = qcfg.scale * g->scales[g->scales.size() > 1 ? m : 0];
        const double bq = bias ? std::abs(oneStepBiasCode((*bias)[m], s)) : 0;
        worst = std::max(worst, (255 * absSum + bq) * (s / cfg.oneStep->scale));
      }
      cfg.u8Bounded = worst < 1073741824.0;
    } else if (cfg.u8Output && qcfg.fixed && !cfg.residual && cfg.outputTable.empty()) {
      const int64_t perRow = static_cast<int64_t>(raw.size()) / outChannels;
      std::vector<double> absSums(outChannels, 0);
      SmallVector<float> scales(outChannels);
      for (int64_t m = 0; m < outChannels; ++m) {
        for (int64_t i = 0; i < perRow; ++i) {
          int32_t v = cfg.u8Weights ? static_cast<uint8_t>(raw[m * perRow + i]) -
                                          g->weightZeroPoints[m]
                                    : static_cast<int8_t>(raw[m * perRow + i]);
          absSums[m] += std::abs(v);
        }
        scales[m] = qcfg.scale * g->scales[g->scales.size() > 1 ? m : 0];
      }
      cfg.u8Bounded = u8OutputBounded(
          absSums, scales, bias ? bias->data() : nullptr, qcfg.zeroPoint, cfg.activation,
          normScale ? normScale->data() : nullptr, normShift ? normShift->data() : nullptr,
          cfg.output, cfg.u8Output->scale);
    }
    cfg.evexVnni = options.target.evexVnni;
    std::unique_ptr<x86::JitKernel> kernel = x86::Int8GemmKernel::generate(cfg);
    if (!kernel)
      return qc.emitError("generating the int8 convolution GEMM failed (xbyak error ")
             << Xbyak::GetError() << ")";
    std::vector<uint32_t> rows = x86::Int8ConvGemm::packRows(
        packed, outChannels, g->scales.data(), g->scales.size() > 1,
        bias ? bias->data() : nullptr, normScale ? normScale->data() : nullptr,
        normShift ? normShift->data() : nullptr,
        cfg.u8Weights ? g->weightZeroPoints.data() : nullptr);
    if (cfg.oneStep) {
      rows = x86::Int8ConvGemm::packOneStepRows(
          rows, outChannels, g->scales.data(), g->scales.size() > 1,
          bias ? bias->data() : nullptr, qcfg.zeroPoint, qcfg.scale, cfg.oneStep->scale);
      if (cfg.broadcastRows)
        rows = x86::Int8ConvGemm::broadcastRows(rows, outChannels, 1, 1.f);
    } else if (cfg.broadcastRows && !g->rowBroadcast) {
      rows = x86::Int8ConvGemm::broadcastRows(rows, outChannels, qcfg.zeroPoint, qcfg.scale);
    }
    // (The AVX2 form's rows are s16.)
    std::vector<int16_t> wide;
    if (x86::Int8ConvGemm::weightBytes(cfg.isa) == 2 && !cfg.f32Products)
      wide = x86::Int8ConvGemm::widenWeights(packed);
    int64_t rOffset = blob.add((const char *)rows.data(), rows.size() * 4);
    // (f32 products: the f32 GEMM's weights only.)
    int64_t wOffset = cfg.f32Products ? rOffset
                      : wide.empty()  ? blob.add((const char *)packed.data(), packed.size())
                                      : blob.add((const char *)wide.data(), wide.size() * 2);
    KernelArg rowArg = KernelArg::blob(rOffset);
    if (g->rowBroadcast) {
      std::unique_ptr<x86::JitKernel> broadcaster =
          x86::Int8ConvGemm::generateRowBroadcast(outChannels);
      if (!broadcaster)
        return qc.emitError("generating the convolution's row-broadcast step failed (xbyak "
                            "error ")
               << Xbyak::GetError() << ")";
      KernelCall broadcast;
      broadcast.symbol = call.symbol + "_rows";
      broadcast.tasks = 1;
      broadcast.args = {KernelArg::storage(step.scratch, g->paramsOffset()),
                        KernelArg::blob(rOffset),
                        KernelArg::storage(step.scratch, g->rowsOffset())};
      broadcast.description = "row constants of the dynamic input, broadcast";
      nativeCode.push_back({broadcast.symbol, broadcaster->bytes()});
      call.prelude.push_back(std::move(broadcast));
      rowArg = KernelArg::storage(step.scratch, g->rowsOffset());
    }
    // The residual is not the last operand when norm_scale / norm_shift follow.
    int residual = qc.getResidual() ? step.operands[residualOperand(qc)] : step.operands[0];
    // (f32 products: the products in the residual's place.)
    KernelArg residualArg = cfg.f32Products
                                ? KernelArg::storage(step.scratch, g->productsOffset())
                                : KernelArg::storage(residual);
    call.args = {KernelArg::blob(wOffset),
                 KernelArg::storage(step.scratch,
                                    g->direct() || cfg.f32Products ? 0 : g->panelsOffset()),
                 rowArg,
                 KernelArg::storage(step.scratch, cfg.f32Products ? 0 : g->paramsOffset()),
                 residualArg, KernelArg::storage(step.results[0])};
    call.tasks = x86::Int8ConvGemm::numTasks(cfg);
    if (cfg.ranges) {
      if (plan.storages[step.resultSidecar].bytes < g->calls() * call.tasks * 8)
        return step.op->emitError("internal error: the partial ranges of ")
               << g->calls() * call.tasks << " tasks overflow their "
               << plan.storages[step.resultSidecar].bytes << "-byte sidecar";
      call.args.push_back(KernelArg::storage(step.resultSidecar));
      producedRanges[step.op->getResult(0)] = {step.resultSidecar, g->calls() * call.tasks};
    }
    int64_t tail = x86::Int8ConvGemm::tailColumns(cfg);
    if (panelIm2col || tail) {
      if (!cfg.ranges) // argument [6] unused
        call.args.push_back(KernelArg::storage(step.scratch));
      // The padded planes, the blocks themselves, or the tails' buffers.
      int64_t at = !panelIm2col                                  ? g->tailOffset()
                   : x86::PanelIm2col::readsInput(*panelIm2col) ? 0
                                                                 : g->planesOffset();
      call.args.push_back(KernelArg::storage(step.scratch, at));
    }
    call.description =
        llvm::formatv("conv.int8.{11}[{0}x{1}x{2}, {3}x{4} kernel{10}, {5}]{6}{7}{8}{9}", cfg.m,
                      cfg.n, cfg.k, g->pack.kernelH, g->pack.kernelW,
                      std::string(qcfg.codes            ? "static, u8 in"
                                  : qcfg.fixed          ? "static"
                                  : qcfg.producedRanges ? "dynamic tensor, producer's range"
                                                        : "dynamic tensor") +
                          (cfg.f32Products ? llvm::formatv(", f32 products (k blocks of {0})",
                                                           g->f32ProductKBlock)
                                                 .str()
                                           : std::string()),
                      qc.getBias() ? " +bias" : "",
                      cfg.residual ? " +residual" : "",
                      describeActivation(qc),
                      std::string(!qc.getOutputQuantization() ? ""
                                  : cfg.oneStep               ? " +requantize in one step"
                                                              : " +requantize") +
                          (qc.getNormScale() ? " +normalize" : "") +
                          (qc.getNormQuantization() ? " +requantize" : "") +
                          (cfg.outputTable.empty()
                               ? std::string()
                               : llvm::formatv(" +lookup of {0} codes", cfg.outputTable.size())
                                     .str()) +
                          (cfg.tableOutput.kind != x86::Activation::None ? " +requantize" : "") +
                          (cfg.ranges ? " +range" : "") + (cfg.u8Output ? " -> u8" : ""),
                      std::string(panelIm2col ? ", panel im2col" : "") +
                          (cfg.u8Weights ? ", u8 weights" : "") +
                          (g->rowBroadcast ? ", row constants per call" : "") +
                          (x86::Int8ConvGemm::rowChunks(cfg) > 1
                               ? llvm::formatv(", {0} row chunks", x86::Int8ConvGemm::rowChunks(cfg)).str()
                               : std::string()) +
                          (x86::Int8ConvGemm::tailColumns(cfg)
                               ? llvm::formatv(", last {0} columns as dot products", x86::Int8ConvGemm::tailColumns(cfg)).str()
                               : std::string()),
                      int8IsaName(g->isa))
            .str();
    if (g->groups > 1) {
      // The group's blocks, weight rows, row constants, residual, result
      // rows (f32 or u8 codes) and partial ranges.
      const int64_t rows = g->outChannels, resultBytes = cfg.u8Output ? 1 : 4;
      repeatPerGroup(
          call, std::move(groupPack), g->images, g->groups,
          [&](KernelCall *pack, KernelCall &gemm, int64_t image, int64_t group) {
            const int64_t index = image * g->groups + group;
            const int64_t blocks = index * g->groupBlockBytes();
            const int64_t firstRow = image * g->allOutChannels() + group * rows;
            if (pack)
              pack->args[0].offset += blocks;
            gemm.args[0].value += group * rows * cfg.lda;
            if (g->direct())
              gemm.args[1].offset += blocks;
            KernelArg &rowArg = gemm.args[2];
            (rowArg.kind == KernelArg::Blob ? rowArg.value : rowArg.offset) +=
                group * rows * x86::Int8ConvGemm::rowBlockBytes(cfg);
            if (cfg.residual)
              gemm.args[4].offset += firstRow * g->positions() * 4;
            gemm.args[5].offset += firstRow * g->positions() * resultBytes;
            if (cfg.ranges)
              gemm.args[6].offset += index * gemm.tasks * 8;
            // (Argument [7]: the padded planes or tails' buffers, shared;
            // or the blocks themselves.)
            if (panelsFromBlocks)
              gemm.args[7].offset += blocks;
          });
    }
    nativeCode.push_back({call.symbol, kernel->bytes()});
    return true;
  }
  if (auto f = dyn_cast<DynamicFakeQuantizeOp>(step.op)) {
    std::optional<x86::QuantizeRowsConfig> qcfg = dynamicFakeQuantizeRows(f, isa);
    if (!qcfg)
      return false;
    auto produced = producedRanges.find(f.getInput());
    if (produced != producedRanges.end())
      qcfg->producedRanges = produced->second.parts;
    if (x86::QuantizeRowsKernel::needsRangePass(*qcfg)) {
      std::unique_ptr<x86::JitKernel> ranger = x86::QuantizeRowsKernel::generateRange(*qcfg);
      if (!ranger)
        return f.emitError("generating the range pass failed (xbyak error ")
               << Xbyak::GetError() << ")";
      KernelCall range;
      range.symbol = call.symbol + "_range";
      range.tasks = x86::QuantizeRowsKernel::rangeTasks(*qcfg);
      range.args = {KernelArg::storage(step.operands[0]), KernelArg::storage(step.scratch)};
      range.description = "range (partial per task)";
      nativeCode.push_back({range.symbol, ranger->bytes()});
      call.prelude.push_back(std::move(range));
    }
    std::unique_ptr<x86::JitKernel> kernel = x86::QuantizeRowsKernel::generate(*qcfg);
    if (!kernel)
      return f.emitError("generating the dynamic fake-quantize kernel failed (xbyak error ")
             << Xbyak::GetError() << ")";
    call.args = {KernelArg::storage(step.operands[0]), KernelArg::storage(step.results[0]),
                 qcfg->producedRanges ? KernelArg::storage(produced->second.storage)
                                      : KernelArg::storage(step.scratch)};
    call.tasks = x86::QuantizeRowsKernel::numTasks(*qcfg);
    call.description =
        llvm::formatv("dynamic_fake_quantize.{3}[{0}x{1}]{2}", qcfg->rows, qcfg->k,
                      qcfg->producedRanges ? ", producer's range" : "",
                      isa == Isa::Avx512 ? "avx512" : "avx2")
            .str();
    nativeCode.push_back({call.symbol, kernel->bytes()});
    return true;
  }
  if (auto q = dyn_cast<QuantizeOp>(step.op)) {
    // The static row quantizer writing dense rows (lda = K) for the GEMMs
    // that read them.
    Int8Isa qisa = options.target.int8;
    auto grid = cast<quant::UniformQuantizedType>(q.getQuantization());
    if (!rowsOf(q.getInput()))
      return q.emitError("quantize needs a static input of rank >= 1 with rows");
    int64_t k = cast<RankedTensorType>(q.getInput().getType()).getShape().back();
    if (x86::Int8GemmKernel::rowBytes(k, qisa) != k)
      return q.emitError("the ") << int8IsaName(qisa) << " int8 kernels of target '"
                                 << options.target.name << "' cannot read dense u8 rows of "
                                 << k << " bytes";
    x86::QuantizeRowsConfig qc{rowsOf(q.getInput()), k, k};
    qc.isa = qisa;
    setStaticQuantization(qc, grid);
    std::unique_ptr<x86::JitKernel> kernel = x86::QuantizeRowsKernel::generate(qc);
    if (!kernel)
      return q.emitError("generating the row quantizer failed (xbyak error ")
             << Xbyak::GetError() << ")";
    call.args = {KernelArg::storage(step.operands[0]), KernelArg::storage(step.results[0]),
                 KernelArg::storage(step.scratch), staticQuantizationArg(qc)};
    call.tasks = x86::QuantizeRowsKernel::numTasks(qc);
    call.description =
        llvm::formatv("quantize.{0}[{1}x{2}, static] -> u8", int8IsaName(qisa), qc.rows, k).str();
    nativeCode.push_back({call.symbol, kernel->bytes()});
    return true;
  }
  if (auto ql = dyn_cast<QuantizedLinearOp>(step.op)) {
    Int8Isa qisa = options.target.int8;
    std::optional<Int8Linear> l = int8Linear(ql, qisa);
    if (!l)
      return ql.emitError("quantized_linear needs a constant weight (quant.scast of an i8 "
                          "constant; u8 weights with zero points need K < 16384, and with "
                          "a u8 input an x86_64-avx512vnni or x86_64-amx target; a u16 "
                          "input grid needs x86_64-avx512vnni or x86_64-amx)")
             << (llvm::isa<quant::QuantizedType>(
                     cast<ShapedType>(ql.getInput().getType()).getElementType())
                     ? std::string(" and, for a u8 input, a K the target's kernels read as "
                                   "dense rows")
                     : std::string());
    qisa = l->isa;
    x86::QuantizeRowsConfig qc{l->m, l->k, l->lda,
                               ql.getActivationQuantization() == "dynamic_per_tensor"};
    qc.isa = qisa;
    qc.rowSums = !l->weightZeroPoints.empty() && !l->f32ProductKBlock;
    qc.u16Planes = l->u16Input;
    if (std::optional<quant::UniformQuantizedType> q = ql.staticInputQuantization())
      setStaticQuantization(qc, *q);
    if (!l->u8Input || qc.rowSums) {
      // The input rows quantized into scratch (or, handed-over u8 rows and
      // u8 weights, only their code sums into the row block), then the
      // int8 GEMM.
      qc.sumsOnly = l->u8Input;
      std::unique_ptr<x86::JitKernel> quantizer = x86::QuantizeRowsKernel::generate(qc);
      if (!quantizer)
        return ql.emitError("generating the row quantizer failed (xbyak error ")
               << Xbyak::GetError() << ")";
      KernelCall quantize;
      quantize.symbol = call.symbol + (qc.sumsOnly ? "_sums" : "_quantize");
      quantize.tasks = x86::QuantizeRowsKernel::numTasks(qc);
      quantize.args = {KernelArg::storage(step.operands[0]),
                       KernelArg::storage(qc.sumsOnly ? step.operands[0] : step.scratch),
                       KernelArg::storage(step.scratch, l->rowBlockOffset())};
      if (x86::QuantizeRowsKernel::readsStaticParameters(qc))
        quantize.args.push_back(staticQuantizationArg(qc));
      quantize.description = qc.sumsOnly    ? "row sums (u8)"
                             : qc.u16Planes ? "quantize (u16 planes, static)"
                             : qc.fixed     ? "quantize (u8, static)"
                             : qc.perTensor ? "quantize tensor (u8, dynamic)"
                                            : "quantize rows (u8, dynamic)";
      nativeCode.push_back({quantize.symbol, quantizer->bytes()});
      call.prelude.push_back(std::move(quantize));
    }

    x86::Int8GemmConfig cfg;
    cfg.m = l->m;
    cfg.n = l->n;
    cfg.k = l->k;
    cfg.lda = l->lda;
    cfg.ldc = cfg.ldr = l->n;
    // Dynamic rows carry their (zero point, scale) in the row block; static
    // activations have one pair, folded into the column block at compile
    // time (the same integers and products).
    cfg.perRowA = !qc.fixed;
    cfg.u8Weights = qc.rowSums;
    cfg.u16Input = l->u16Input;
    cfg.isa = qisa;
    cfg.bias = static_cast<bool>(ql.getBias());
    cfg.residual = static_cast<bool>(ql.getResidual());
    cfg.activation = epilogueActivation(ql);
    if (ql.getU8Output()) {
      auto out = cast<quant::UniformQuantizedType>(*ql.getOutputQuantization());
      cfg.u8Output = x86::Int8GemmConfig::U8Output{static_cast<float>(out.getScale()),
                                                    static_cast<int32_t>(out.getZeroPoint())};
    } else if (std::optional<Type> t = ql.getOutputQuantization()) {
      cfg.output = roundToGrid(*t);
    }
    if (std::optional<Type> t = ql.getProductQuantization())
      cfg.product = roundToGrid(*t);
    if (std::optional<Type> t = ql.getBiasQuantization())
      cfg.sum = roundToGrid(*t);
    if (std::optional<Type> t = ql.getActivationInputQuantization())
      cfg.activationInput = roundToGrid(*t);
    cfg.activation.erfGrid = geluGrid(ql.getGeluErfQuantization());
    cfg.activation.sumGrid = geluGrid(ql.getGeluSumQuantization());
    cfg.activation.productGrid = geluGrid(ql.getGeluProductQuantization());
    cfg.activation.geluOne = ql.getGeluOne().convertToFloat();
    cfg.activation.geluHalf = ql.getGeluHalf().convertToFloat();
    cfg.activation.qlinearGelu = ql.qlinearGeluSteps();
    SmallVector<char> raw;
    readRawElements(l->weights, raw);
    if (l->f32ProductKBlock) {
      // The products in f32 as onnxruntime's MatMul on the dequantized
      // values sums them (quantized_linear's f32_product_k_block): the
      // codes dequantized, the f32 GEMM in MLAS's blocks; then this
      // kernel's epilogue on them.
      if (failed(f32ProductPrelude(ql, *l, raw, step, call)))
        return failure();
      cfg.f32Products = true;
      cfg.lda = l->n * 4;
    }
    // u8 weights: the kernel multiplies by the codes minus 128 (s8); the
    // compensation takes the column sums of the codes minus their zero
    // points (Int8GemmConfig::u8Weights).
    std::vector<int32_t> sums(l->n, 0);
    std::vector<double> absSums(l->n, 0);
    for (int64_t i = 0; i < l->k; ++i)
      for (int64_t j = 0; j < l->n; ++j) {
        char &w = raw[i * l->n + j];
        int32_t v = static_cast<int8_t>(w);
        if (cfg.u8Weights) {
          v = static_cast<uint8_t>(w) - l->weightZeroPoints[j];
          w = static_cast<char>(static_cast<int8_t>(static_cast<uint8_t>(w) - 128));
        }
        sums[j] += v;
        absSums[j] += std::abs(v);
      }
    // (f32 products: the f32 GEMM's weights only.)
    std::vector<int8_t> packed =
        cfg.f32Products ? std::vector<int8_t>()
                        : x86::Int8GemmKernel::packWeights(
                              reinterpret_cast<const int8_t *>(raw.data()), l->k, l->n, qisa);
    std::optional<SmallVector<float>> bias;
    if (ql.getBias() && !(bias = constantF32(ql.getBias())))
      return ql.emitError("quantized_linear needs a constant bias");
    SmallVector<float> scales = l->scales;
    // A u16 input's zero point 256 zh + zl compensates plane by plane.
    std::vector<int32_t> highSums;
    if (cfg.u16Input)
      for (int64_t j = 0; j < l->n; ++j)
        highSums.push_back(sums[j] * (qc.zeroPoint >> 8));
    if (!cfg.perRowA)
      for (int64_t j = 0; j < l->n; ++j) {
        sums[j] *= cfg.u16Input ? qc.zeroPoint & 255 : qc.zeroPoint;
        scales[j] = qc.scale * scales[j];
      }
    if (ql.getQlinearProduct()) {
      // onnxruntime's QLinearMatMul multipliers in the column block
      // (Int8GemmConfig::qlinearProduct); the bias added in f32 after.
      quant::UniformQuantizedType p = *asU8Grid(ql.getProductQuantization());
      const float sp = static_cast<float>(p.getScale());
      for (int64_t j = 0; j < l->n; ++j)
        scales[j] = scales[j] / sp;
      cfg.product = x86::Activation();
      cfg.qlinearProduct =
          x86::Int8GemmConfig::QLinearProduct{static_cast<int32_t>(p.getZeroPoint()), sp};
    }
    if (ql.getOneStepRequantization()) {
      // onnxruntime's QLinearMatMul multipliers and QLinearAdd's terms of the
      // bias codes in the column block (Int8GemmConfig::qlinearBias).
      quant::UniformQuantizedType p = *asU8Grid(ql.getProductQuantization()),
                                  b = *asU8Grid(ql.getBiasCodesQuantization());
      auto g = cast<quant::UniformQuantizedType>(*ql.gridAfterBias());
      const float sp = static_cast<float>(p.getScale()), sb = static_cast<float>(b.getScale());
      const bool first = ql.getBiasFirst();
      // The zero points of the codes QLinearAdd adds: s8 ones with
      // signed_codes (the u8 codes minus `offset`).
      const int32_t offset = ql.getSignedCodes() ? 128 : 0;
      auto z = [&](quant::UniformQuantizedType t) {
        return static_cast<float>(t.getZeroPoint() - offset);
      };
      const float zp = z(p), zb = z(b), sg = static_cast<float>(g.getScale()), zg = z(g);
      const CodeSumConstants add = first ? codeSumConstants(sb, zb, sp, zp, sg, zg)
                                         : codeSumConstants(sp, zp, sb, zb, sg, zg);
      for (int64_t j = 0; j < l->n; ++j) {
        scales[j] = scales[j] / sp;
        const int32_t code = u8CodeOf((*bias)[j], sb, static_cast<int32_t>(b.getZeroPoint()));
        (*bias)[j] = first ? static_cast<float>(code - offset) : qlinearAddTerm(code, add, offset);
      }
      cfg.product = x86::Activation();
      cfg.qlinearBias = x86::Int8GemmConfig::QLinearBias{
          static_cast<int32_t>(p.getZeroPoint()), add.ratioA, sg,
          static_cast<int32_t>(g.getZeroPoint()), first, add.ratioB, add.fixed};
      cfg.qlinearBias->offset = offset;
      if (cfg.f32Products)
        cfg.qlinearBias->productScale = sp;
      if (std::optional<Type> rt = ql.getResidualQuantization()) {
        auto rg = cast<quant::UniformQuantizedType>(*rt);
        auto g2 = cast<quant::UniformQuantizedType>(*ql.gridAfterResidual());
        const float sr = static_cast<float>(rg.getScale()), zr = z(rg),
                    s2 = static_cast<float>(g2.getScale()), z2 = z(g2);
        const bool rFirst = ql.getResidualFirst();
        const CodeSumConstants radd = rFirst ? codeSumConstants(sr, zr, sg, zg, s2, z2)
                                             : codeSumConstants(sg, zg, sr, zr, s2, z2);
        cfg.sum = x86::Activation(); // (the sum stays a code until the residual's is added)
        cfg.qlinearBias->residual = x86::Int8GemmConfig::QLinearBias::Residual{
            sr, static_cast<int32_t>(rg.getZeroPoint()), rFirst, radd.ratioA, radd.ratioB,
            radd.fixed, s2, static_cast<int32_t>(g2.getZeroPoint())};
      }
    }
    // (The bound assumes u8 codes.)
    if (cfg.u8Output && !cfg.perRowA && !cfg.residual && !cfg.u16Input && !cfg.qlinearBias &&
        !cfg.qlinearProduct && cfg.product.kind == x86::Activation::None &&
        cfg.sum.kind == x86::Activation::None &&
        cfg.activationInput.kind == x86::Activation::None && !cfg.activation.hasGrids())
      cfg.u8Bounded = u8OutputBounded(absSums, scales, bias ? bias->data() : nullptr,
                                      qc.zeroPoint, cfg.activation, nullptr, nullptr,
                                      x86::Activation(), cfg.u8Output->scale);
    cfg.evexVnni = options.target.evexVnni;
    std::unique_ptr<x86::JitKernel> kernel = x86::Int8GemmKernel::generate(cfg);
    if (!kernel)
      return ql.emitError("generating the int8 GEMM failed (xbyak error ")
             << Xbyak::GetError() << ")";
    std::vector<uint32_t> columns = x86::Int8GemmKernel::packColumns(
        sums.data(), scales.data(), bias ? bias->data() : nullptr, l->n, qisa,
        x86::Int8GemmKernel::compensatesWithWordPairs(qisa, cfg.perRowA, l->k),
        cfg.u8Weights ? l->weightZeroPoints.data() : nullptr,
        cfg.u16Input ? highSums.data() : nullptr,
        x86::Int8GemmKernel::gridInColumns(cfg) ? &*cfg.u8Output : nullptr);
    int64_t cOffset = blob.add((const char *)columns.data(), columns.size() * 4);
    int64_t wOffset =
        packed.empty() ? cOffset : blob.add((const char *)packed.data(), packed.size());
    int residual = ql.getResidual() ? step.operands.back() : step.operands[0];
    KernelArg rowsA = l->f32ProductKBlock
                          ? KernelArg::storage(step.scratch, l->productsOffset())
                      : l->u8Input ? KernelArg::storage(step.operands[0])
                                   : KernelArg::storage(step.scratch);
    KernelArg rowBlock = l->u8Input && !cfg.u8Weights
                             ? rowsA
                             : KernelArg::storage(step.scratch, l->rowBlockOffset());
    call.args = {rowsA,
                 KernelArg::blob(wOffset),
                 KernelArg::blob(cOffset),
                 rowBlock,
                 KernelArg::storage(residual),
                 KernelArg::storage(step.results[0])};
    call.tasks = x86::Int8GemmKernel::numTasks(cfg);
    call.description =
        llvm::formatv("gemm.int8.{9}[{0}x{1}x{2}, {3}]{7}{4}{10}{5}{6}{8}", cfg.m, cfg.n, cfg.k,
                      std::string(l->u8Input     ? "static, u8 in"
                                  : l->u16Input  ? "static, u16 in"
                                  : qc.fixed     ? "static"
                                  : qc.perTensor ? "dynamic tensor"
                                                 : "dynamic rows") +
                          (cfg.u8Weights ? ", u8 weights" : ""),
                      !cfg.bias          ? ""
                      : cfg.qlinearBias ? (cfg.qlinearBias->offset ? " +s8 bias codes"
                                                                   : " +bias codes")
                                        : " +bias",
                      !cfg.residual ? ""
                      : cfg.qlinearBias && cfg.qlinearBias->residual ? " +residual codes"
                                                                     : " +residual",
                      (ql.getActivationInputQuantization() ? " +requantize" : "") +
                          describeActivation(ql) +
                          (ql.getGeluQlinearArithmetic() ? " in qlinear steps"
                           : ql.hasGeluGrids()           ? " on grids"
                                                         : ""),
                      cfg.qlinearBias && cfg.f32Products
                          ? llvm::formatv(" +f32 product codes (k blocks of {0})",
                                          l->f32ProductKBlock)
                                .str()
                      : cfg.qlinearBias || cfg.qlinearProduct ? " +product codes"
                      : cfg.f32Products
                          ? llvm::formatv(" +rounded f32 product (k blocks of {0})",
                                          l->f32ProductKBlock)
                                .str()
                      : cfg.product.kind != x86::Activation::None ? " +rounded product"
                                                                  : "",
                      cfg.u8Output                 ? " -> u8"
                      : ql.getOutputQuantization() ? " +requantize"
                                                   : "",
                      int8IsaName(qisa),
                      cfg.sum.kind != x86::Activation::None ? " +rounded sum" : "")
            .str();
    nativeCode.push_back({call.symbol, kernel->bytes()});
    return true;
  }
  if (auto chain = dyn_cast<ElementwiseChainOp>(step.op)) {
    SmallVector<ElementwiseChainOp::Step> steps = chain.getDecodedSteps();
    x86::ElementwiseChainConfig cfg = chainConfig(chain, steps);
    std::unique_ptr<x86::JitKernel> kernel = x86::ElementwiseChainKernel::generate(cfg, isa);
    if (!kernel)
      return chain.emitError("generating the elementwise chain kernel failed (")
             << (Xbyak::GetError() ? "xbyak error " + std::to_string(Xbyak::GetError())
                                   : "more inputs or live values than it has registers for")
             << ")";
    for (int operand : step.operands)
      call.args.push_back(KernelArg::storage(operand));
    call.args.push_back(KernelArg::storage(step.results[0]));
    call.tasks = x86::ElementwiseChainKernel::numTasks(cfg);
    std::string what;
    for (const ElementwiseChainOp::Step &s : steps)
      what += (what.empty() ? "" : " ") + ElementwiseChainOp::kindName(s.kind).str() +
              (s.grid && s.kind != ElementwiseChainOp::Step::FakeQuantize ? "+rq" : "");
    call.description = llvm::formatv("elementwise.chain.{0}[{1} x {2}: {3}]{4}",
                                     isa == Isa::Avx512 ? "avx512" : "avx2", cfg.elements,
                                     cfg.inputs, what,
                                     cfg.table.empty() ? "" : " lookup of " +
                                         std::to_string(cfg.table.size()) + " codes")
                           .str();
    nativeCode.push_back({call.symbol, kernel->bytes()});
    return true;
  }
  if (auto ew = elementwiseStep(step.op)) {
    const x86::ElementwiseConfig &cfg = ew->config;
    std::unique_ptr<x86::JitKernel> kernel = x86::ElementwiseKernel::generate(cfg, isa);
    if (!kernel)
      return step.op->emitError("generating the elementwise kernel failed (xbyak error ")
             << Xbyak::GetError() << ")";
    KernelArg a = KernelArg::storage(step.operands[0]);
    KernelArg table = a;
    if (cfg.table)
      table = KernelArg::blob(
          blob.add((const char *)ew->table.data(), ew->table.size() * sizeof(int32_t)));
    KernelArg b = cfg.inputs == 1 ? a : KernelArg::storage(step.operands[1]);
    if (cfg.op == x86::ElementwiseConfig::Affine)
      b = KernelArg::blob(blob.add((const char *)ew->affine.data(), ew->affine.size() * 4));
    call.args = {a, b, KernelArg::storage(step.results[0]), table};
    call.tasks = x86::ElementwiseKernel::numTasks(cfg);
    call.description =
        llvm::formatv("elementwise.{0}.{1}[{2} rows x {3}{4}]{5}",
                      step.op->getName().stripDialect(), isa == Isa::Avx512 ? "avx512" : "avx2",
                      cfg.rows, cfg.inner, cfg.tail ? " + " + std::to_string(cfg.tail) : "",
                      std::string(cfg.table ? " table" : "") +
                          (cfg.before.kind != x86::Activation::None ? " +rounded input" : "") +
                          (cfg.after.kind != x86::Activation::None ? " +requantize" : "") +
                          (!cfg.codes ? ""
                           : cfg.op == x86::ElementwiseConfig::Add
                               ? " +codes added in one step"
                               : " +codes multiplied in one step"))
            .str();
    nativeCode.push_back({call.symbol, kernel->bytes()});
    return true;
  }
  if (auto gather = dyn_cast<GatherOp>(step.op)) {
    std::optional<x86::GatherConfig> cfg = gatherConfig(gather);
    if (!cfg)
      return false;
    std::unique_ptr<x86::JitKernel> kernel = x86::GatherKernel::generate(*cfg, isa);
    if (!kernel)
      return gather.emitError("generating the gather kernel failed (xbyak error ")
             << Xbyak::GetError() << ")";
    call.args = {KernelArg::storage(step.operands[0]), KernelArg::storage(step.operands[1]),
                 KernelArg::storage(step.results[0])};
    call.tasks = x86::GatherKernel::numTasks(*cfg);
    call.errorMessage = gatherErrorMessage(gather);
    call.description = llvm::formatv("gather.{0}[{1} rows of {2} B from {3}]",
                                     isa == Isa::Avx512 ? "avx512" : "avx2", cfg->indices,
                                     cfg->rowBytes, cfg->dim)
                           .str();
    nativeCode.push_back({call.symbol, kernel->bytes()});
    return true;
  }
  if (std::optional<x86::RowReduceConfig> cfg = rowReduceConfig(step.op)) {
    std::unique_ptr<x86::JitKernel> kernel = x86::RowReduceKernel::generate(*cfg, isa);
    if (!kernel)
      return step.op->emitError("generating the row reduction kernel failed (xbyak error ")
             << Xbyak::GetError() << ")";
    call.args = {KernelArg::storage(step.operands[0]), KernelArg::storage(step.results[0])};
    call.tasks = x86::RowReduceKernel::numTasks(*cfg);
    call.description = llvm::formatv("{0}.{1}[{2} rows of {3}]{4}",
                                     cfg->mean ? "reduce_mean" : "reduce_sum",
                                     isa == Isa::Avx512 ? "avx512" : "avx2", cfg->rows, cfg->n,
                                     cfg->onnxruntimeOrder ? " +ordered f32 steps" : "")
                           .str();
    nativeCode.push_back({call.symbol, kernel->bytes()});
    return true;
  }
  if (auto sm = dyn_cast<SoftmaxOp>(step.op)) {
    std::optional<x86::SoftmaxConfig> cfg = softmaxConfig(sm);
    if (!cfg)
      return false;
    std::unique_ptr<x86::JitKernel> kernel = x86::SoftmaxKernel::generate(*cfg, isa);
    if (!kernel)
      return sm.emitError("generating the softmax kernel failed (xbyak error ")
             << Xbyak::GetError() << ")";
    call.args = {KernelArg::storage(step.operands[0]), KernelArg::storage(step.results[0])};
    call.tasks = x86::SoftmaxKernel::numTasks(*cfg);
    call.description = llvm::formatv("softmax.{0}[{1}x{2}]",
                                     isa == Isa::Avx512 ? "avx512" : "avx2", cfg->rows, cfg->n)
                           .str();
    nativeCode.push_back({call.symbol, kernel->bytes()});
    return true;
  }
  if (auto at = dyn_cast<AttentionOp>(step.op)) {
    std::optional<x86::AttentionConfig> cfg = attentionConfig(at, isa);
    const bool codes = llvm::isa<quant::QuantizedType>(getElementTypeOrSelf(at.getQuery()));
    if (codes && (!cfg || !readsU8AttentionInputs(options.target.int8)))
      return at.emitError("this target has no attention kernel for these u8 query, key and "
                          "value (they need an x86_64-avx512vnni, x86_64-amx or x86_64-avxvnni "
                          "target, a grid of at most 256 codes on the probabilities, a head "
                          "dim of a multiple of 16 and a mask that broadcasts or is "
                          "contiguous along the keys)");
    if (at.getInt8Products() && (!cfg || !readsU8AttentionInputs(options.target.int8)))
      return at.emitError("this target has no attention kernel for int8_products (it needs an "
                          "x86_64-avx512vnni, x86_64-amx or x86_64-avxvnni target, merged "
                          "heads, a head dim of a multiple of 16 up to 256, at most 65536 keys "
                          "and a mask that broadcasts or is contiguous along the keys)");
    if (!cfg && at.getU8Output())
      return at.emitError("this target has no attention kernel that writes these u8 codes "
                          "(u8_output needs a head dim of a multiple of the target's vector "
                          "(16 floats on AVX-512, 8 on AVX2), merged heads and a mask that "
                          "broadcasts or is contiguous along the keys)");
    if (!cfg)
      return false;
    cfg->evexVnni = options.target.evexVnni;
    std::unique_ptr<x86::JitKernel> kernel = x86::AttentionKernel::generate(*cfg, isa);
    if (!kernel)
      return at.emitError("generating the attention kernel failed (xbyak error ")
             << Xbyak::GetError() << ")";
    int q = step.operands[0];
    call.args = {KernelArg::storage(q), KernelArg::storage(step.operands[1]),
                 KernelArg::storage(step.operands[2]),
                 KernelArg::storage(at.getMask() ? step.operands[3] : q),
                 KernelArg::storage(step.results[0]), KernelArg::storage(step.scratch)};
    if (cfg->u8Output)
      call.args.push_back(wordsArg(x86::AttentionKernel::outputGridWords(*cfg, isa)));
    call.tasks = x86::AttentionKernel::numTasks(*cfg);
    // The op's shapes (the kernel's may hold grouped heads as rows): " KV=2"
    // for grouped query heads, " heads-first: q k" for such operands.
    std::string layout;
    const int64_t heads = at.getNumHeads();
    if (at.numKvHeads() != heads)
      layout += llvm::formatv(" KV={0}", at.numKvHeads()).str();
    if (llvm::any_of(llvm::seq(0u, 4u), [&](unsigned i) { return at.isHeadsMajor(i); })) {
      layout += " heads-first:";
      for (auto [i, name] : llvm::enumerate(std::array{"q", "k", "v", "out"}))
        if (at.isHeadsMajor(i))
          layout += std::string(" ") + name;
    }
    if (cfg->heads != heads)
      layout += ", query heads as rows of their key head's task";
    int grids = 0;
    for (const x86::Activation *g : {&cfg->scores, &cfg->scaled, &cfg->logits, &cfg->probs,
                                     &cfg->output})
      grids += g->kind == x86::Activation::FakeQuant;
    call.description =
        llvm::formatv("attention.{0}[B={1} S={2} T={3} H={4} D={5}{10}]{6}{7}{8}{9}{11}",
                      cfg->u8Inputs || cfg->int8Products
                          ? (isa == Isa::Avx512 ? "avx512vnni" : "avxvnni")
                      : isa == Isa::Avx512 ? "avx512"
                                           : "avx2",
                      cfg->batch, at.queryLength(), cfg->keys, heads, cfg->headDim,
                      cfg->u8Inputs       ? " u8 q k v"
                      : cfg->int8Products ? " int8 products"
                                          : "",
                      !cfg->mask              ? ""
                      : !x86::AttentionKernel::skipsMaskedKeys(*cfg)
                          ? " +mask"
                          : " +mask (rows skip the keys it masks)",
                      grids ? llvm::formatv(" +{0} grids", grids).str() : std::string(),
                      cfg->qlinear ? " +qlinear steps" : "", layout,
                      cfg->u8Output ? " -> u8" : "")
            .str();
    nativeCode.push_back({call.symbol, kernel->bytes()});
    return true;
  }
  return false;
}

int64_t ModelCompiler::constantOffset(int storage) {
  auto it = constantOffsets.find(storage);
  if (it != constantOffsets.end())
    return it->second;
  auto c = cast<ConstantOp>(plan.constants[plan.storages[storage].index]);
  SmallVector<char> raw;
  readRawElements(c.getValue(), raw);
  int64_t offset = blob.add(raw.data(), raw.size());
  constantOffsets[storage] = offset;
  return offset;
}

FailureOr<std::unique_ptr<llvm::Module>>
ModelCompiler::translate(llvm::LLVMContext &llvmContext) {
  if (failed(lowerGenericKernelsToLLVM(*kernelModule)))
    return failure();
  DialectRegistry registry;
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  kernelModule->getContext()->appendDialectRegistry(registry);
  std::unique_ptr<llvm::Module> m =
      translateModuleToLLVMIR(*kernelModule, llvmContext, options.name);
  if (!m)
    return module.emitError("translating the kernels to LLVM IR failed");
  return m;
}

void ModelCompiler::emitKernelWrappers(llvm::Module &m) {
  llvm::LLVMContext &c = m.getContext();
  llvm::Type *ptr = llvm::PointerType::getUnqual(c);
  llvm::Type *i32 = llvm::Type::getInt32Ty(c), *i64 = llvm::Type::getInt64Ty(c);
  // nunc_rt_task: (args, task, scratch slot); generic kernels have no
  // scratch and ignore the slot.
  llvm::FunctionType *taskType = llvm::FunctionType::get(i32, {ptr, i64, i64}, false);
  for (auto &[symbol, impl] : genericImpls) {
    llvm::Function *f =
        llvm::Function::Create(taskType, llvm::GlobalValue::InternalLinkage, symbol, m);
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(c, "entry", f));
    llvm::Function *target = m.getFunction(impl.impl);
    target->setLinkage(llvm::GlobalValue::InternalLinkage);
    SmallVector<llvm::Value *> args;
    for (unsigned i = 0; i < impl.arity; ++i)
      args.push_back(b.CreateLoad(ptr, b.CreateConstGEP1_64(ptr, f->getArg(0), i)));
    if (impl.takesTask)
      args.push_back(f->getArg(1));
    b.CreateRet(b.CreateCall(target, args));
  }
}

void ModelCompiler::emitGlue(llvm::Module &m) {
  llvm::LLVMContext &c = m.getContext();
  llvm::Type *ptr = llvm::PointerType::getUnqual(c);
  llvm::Type *i8 = llvm::Type::getInt8Ty(c), *i32 = llvm::Type::getInt32Ty(c),
             *i64 = llvm::Type::getInt64Ty(c);
  const std::string &name = options.name;
  std::string rt = name + "_rt_";
  auto declare = [&](llvm::StringRef fn, llvm::Type *ret, ArrayRef<llvm::Type *> params) {
    return m.getOrInsertFunction(fn, llvm::FunctionType::get(ret, params, false));
  };
  llvm::FunctionCallee rtParallel = declare(rt + "parallel", i32, {ptr, i64, ptr, ptr});
  llvm::FunctionCallee rtInit = declare(rt + "init", i32, {ptr, ptr, i64, ptr, ptr, i32});
  llvm::FunctionCallee rtDestroy = declare(rt + "destroy", llvm::Type::getVoidTy(c), {ptr});
  auto exported = [&](llvm::StringRef fn, llvm::Type *ret, ArrayRef<llvm::Type *> params) {
    return llvm::Function::Create(llvm::FunctionType::get(ret, params, false),
                                  llvm::GlobalValue::ExternalLinkage, fn, m);
  };

  // <name>_workspace_size
  {
    llvm::Function *f = exported(name + "_workspace_size", i64, {});
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(c, "entry", f));
    b.CreateRet(b.getInt64(plan.arenaBytes));
  }
  // <name>_init(ctx, workspace, [weights,] options)
  {
    SmallVector<llvm::Type *> params{ptr, ptr};
    if (options.externalWeights)
      params.push_back(ptr);
    params.push_back(ptr);
    llvm::Function *f = exported(name + "_init", i32, params);
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(c, "entry", f));
    llvm::Value *weights;
    if (options.externalWeights) {
      weights = f->getArg(2);
    } else {
      weights = m.getOrInsertGlobal(name + "_weights", llvm::ArrayType::get(i8, 0));
      cast<llvm::GlobalVariable>(weights)->setVisibility(llvm::GlobalValue::HiddenVisibility);
    }
    b.CreateRet(b.CreateCall(rtInit, {f->getArg(0), f->getArg(1), b.getInt64(plan.arenaBytes),
                                      weights, f->getArg(f->arg_size() - 1),
                                      b.getInt32(options.target.runtimeFeatures)}));
  }
  // <name>_destroy(ctx)
  {
    llvm::Function *f = exported(name + "_destroy", llvm::Type::getVoidTy(c), {ptr});
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(c, "entry", f));
    b.CreateCall(rtDestroy, {f->getArg(0)});
    b.CreateRetVoid();
  }
  // <name>_error_detail(ctx)
  {
    llvm::Function *f = exported(name + "_error_detail", ptr, {ptr});
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(c, "entry", f));
    llvm::BasicBlock *null = llvm::BasicBlock::Create(c, "null", f);
    llvm::BasicBlock *read = llvm::BasicBlock::Create(c, "read", f);
    b.CreateCondBr(b.CreateIsNull(f->getArg(0)), null, read);
    b.SetInsertPoint(null);
    b.CreateRet(llvm::ConstantPointerNull::get(cast<llvm::PointerType>(ptr)));
    b.SetInsertPoint(read);
    b.CreateRet(b.CreateLoad(ptr, b.CreateConstGEP1_64(i8, f->getArg(0), 24)));
  }
  // <name>_run(ctx, inputs..., outputs...). The steps live in an internal
  // function that runs one item: the whole batch, or with a split batch
  // (nunc-split-batch) item `image`, on the image-th slice of every input
  // and output. Its steps open their regions through `parallel`: the pool,
  // or, for items that run side by side on their own threads (each in its
  // own workspace slot), the calling thread alone.
  unsigned numInputs = func.getNumArguments(), numOutputs = func.getNumResults();
  unsigned numIo = numInputs + numOutputs;
  int64_t images = batchSplit(func);
  llvm::Function *item = llvm::Function::Create(
      llvm::FunctionType::get(i32, {ptr, ptr, ptr, ptr, i64, ptr}, false),
      llvm::GlobalValue::PrivateLinkage, name + "_item", m);
  {
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(c, "entry", item));
    llvm::Value *ctx = item->getArg(0), *workspace = item->getArg(1),
                *weights = item->getArg(2), *parallel = item->getArg(3),
                *image = item->getArg(4), *ioArray = item->getArg(5);
    size_t maxArgs = 1;
    for (const KernelCall &call : calls) {
      maxArgs = std::max(maxArgs, call.args.size());
      for (const KernelCall &before : call.prelude)
        maxArgs = std::max(maxArgs, before.args.size());
    }
    llvm::Value *argArray = b.CreateAlloca(llvm::ArrayType::get(ptr, maxArgs));
    SmallVector<llvm::Value *> ioBase;
    for (unsigned i = 0; i < numIo; ++i) {
      auto type = cast<RankedTensorType>(i < numInputs ? func.getArgumentTypes()[i]
                                                       : func.getResultTypes()[i - numInputs]);
      int64_t bytes = type.getNumElements() * getElementByteWidth(type.getElementType());
      llvm::Value *base = b.CreateLoad(ptr, b.CreateConstGEP1_64(ptr, ioArray, i));
      ioBase.push_back(images > 1 ? b.CreateGEP(i8, base, b.CreateMul(image, b.getInt64(bytes)))
                                  : base);
    }
    auto storagePointer = [&](int s) -> llvm::Value * {
      const Storage &st = plan.storages[s];
      switch (st.kind) {
      case StorageKind::Arena:
        return b.CreateConstGEP1_64(i8, workspace, st.index);
      case StorageKind::Weight:
        return b.CreateConstGEP1_64(i8, weights, constantOffset(s));
      case StorageKind::Input:
        return ioBase[st.index];
      case StorageKind::Output:
        return ioBase[numInputs + st.index];
      }
      return nullptr;
    };
    llvm::FunctionType *taskType = llvm::FunctionType::get(i32, {ptr, i64, i64}, false);
    llvm::FunctionType *parallelType = llvm::FunctionType::get(i32, {ptr, i64, ptr, ptr}, false);
    std::vector<const KernelCall *> sequence;
    for (const KernelCall &call : calls) {
      for (const KernelCall &before : call.prelude)
        sequence.push_back(&before);
      sequence.push_back(&call);
    }
    for (const KernelCall *callPtr : sequence) {
      const KernelCall &call = *callPtr;
      for (auto [i, arg] : llvm::enumerate(call.args)) {
        llvm::Value *p = arg.kind == KernelArg::Blob
                             ? b.CreateConstGEP1_64(i8, weights, arg.value)
                             : storagePointer(arg.value);
        if (arg.offset)
          p = b.CreateConstGEP1_64(i8, p, arg.offset);
        b.CreateStore(p, b.CreateConstGEP1_64(ptr, argArray, i));
      }
      llvm::FunctionCallee task = m.getOrInsertFunction(call.symbol, taskType);
      llvm::Value *status =
          call.tasks == 1
              ? b.CreateCall(task, {argArray, b.getInt64(0), b.getInt64(0)})
              : b.CreateCall(parallelType, parallel,
                             {ctx, b.getInt64(call.tasks), task.getCallee(), argArray});
      if (call.errorMessage.empty())
        continue;
      llvm::BasicBlock *bad = llvm::BasicBlock::Create(c, "bad_input", item);
      llvm::BasicBlock *next = llvm::BasicBlock::Create(c, "next", item);
      b.CreateCondBr(b.CreateICmpNE(status, b.getInt32(0)), bad, next);
      b.SetInsertPoint(bad);
      // Items running side by side may fail together: an atomic store.
      llvm::Value *message = b.CreateGlobalString(call.errorMessage, name + "_error");
      llvm::StoreInst *store = b.CreateStore(message, b.CreateConstGEP1_64(i8, ctx, 24));
      store->setAlignment(llvm::Align(8));
      store->setAtomic(llvm::AtomicOrdering::Monotonic);
      b.CreateRet(b.getInt32(kStatusInvalidInput));
      b.SetInsertPoint(next);
    }
    for (const OutputCopy &copy : plan.copies)
      b.CreateMemCpy(ioBase[numInputs + copy.output], llvm::MaybeAlign(1),
                     storagePointer(copy.from), llvm::MaybeAlign(1), copy.bytes);
    b.CreateRet(b.getInt32(0));
  }

  // Items first, first + step, ... below `images`, each through `item`;
  // returns the first failure's status, else 0.
  auto emitItemLoop = [&](llvm::IRBuilder<> &b, llvm::Value *first, llvm::Value *step,
                          ArrayRef<llvm::Value *> itemArgs) {
    llvm::Function *f = b.GetInsertBlock()->getParent();
    llvm::BasicBlock *entry = b.GetInsertBlock();
    llvm::BasicBlock *loop = llvm::BasicBlock::Create(c, "item", f);
    llvm::BasicBlock *next = llvm::BasicBlock::Create(c, "next", f);
    llvm::BasicBlock *fail = llvm::BasicBlock::Create(c, "fail", f);
    llvm::BasicBlock *done = llvm::BasicBlock::Create(c, "done", f);
    b.CreateBr(loop);
    b.SetInsertPoint(loop);
    llvm::PHINode *image = b.CreatePHI(i64, 2, "image");
    image->addIncoming(first, entry);
    SmallVector<llvm::Value *> args(itemArgs);
    args.insert(args.begin() + 4, image); // (ctx, workspace, weights, parallel, image, io)
    llvm::Value *status = b.CreateCall(item, args);
    b.CreateCondBr(b.CreateICmpNE(status, b.getInt32(0)), fail, next);
    b.SetInsertPoint(fail);
    b.CreateRet(status);
    b.SetInsertPoint(next);
    llvm::Value *following = b.CreateAdd(image, step);
    image->addIncoming(following, next);
    b.CreateCondBr(b.CreateICmpULT(following, b.getInt64(images)), loop, done);
    b.SetInsertPoint(done);
    b.CreateRet(b.getInt32(0));
  };

  // The task of one workspace slot: items slot, slot + slots, ... on the
  // calling thread. args: ctx, workspace, weights, io array, &slots.
  llvm::Function *slotTask = nullptr;
  if (images > 1) {
    slotTask = llvm::Function::Create(llvm::FunctionType::get(i32, {ptr, i64, i64}, false),
                                      llvm::GlobalValue::PrivateLinkage, name + "_slot", m);
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(c, "entry", slotTask));
    llvm::Value *args = slotTask->getArg(0), *slot = slotTask->getArg(1);
    auto arg = [&](int i) { return b.CreateLoad(ptr, b.CreateConstGEP1_64(ptr, args, i)); };
    llvm::Value *ctx = arg(0), *workspace = arg(1), *weights = arg(2), *ioArray = arg(3);
    llvm::Value *slots = b.CreateLoad(i64, arg(4));
    llvm::Value *mine = b.CreateGEP(i8, workspace, b.CreateMul(slot, b.getInt64(plan.arenaBytes)));
    llvm::Value *serial = declare(rt + "serial", i32, {ptr, i64, ptr, ptr}).getCallee();
    emitItemLoop(b, slot, slots, {ctx, mine, weights, serial, ioArray});
  }

  SmallVector<llvm::Type *> params(1 + numIo, ptr);
  llvm::Function *run = exported(name + "_run", i32, params);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(c, "entry", run));
  llvm::Value *ctx = run->getArg(0);
  llvm::BasicBlock *notInit = llvm::BasicBlock::Create(c, "not_initialized", run);
  llvm::BasicBlock *body = llvm::BasicBlock::Create(c, "body", run);
  llvm::Value *magic = b.CreateLoad(i64, ctx);
  b.CreateCondBr(b.CreateICmpNE(magic, b.getInt64(kContextMagic)), notInit, body);
  b.SetInsertPoint(notInit);
  b.CreateRet(b.getInt32(kStatusNotInitialized));
  b.SetInsertPoint(body);
  b.CreateStore(llvm::ConstantPointerNull::get(cast<llvm::PointerType>(ptr)),
                b.CreateConstGEP1_64(i8, ctx, 24));
  llvm::Value *workspace = b.CreateLoad(ptr, b.CreateConstGEP1_64(i8, ctx, 8));
  llvm::Value *weights = b.CreateLoad(ptr, b.CreateConstGEP1_64(i8, ctx, 16));
  llvm::Value *ioArray = b.CreateAlloca(llvm::ArrayType::get(ptr, std::max(numIo, 1u)));
  for (unsigned i = 0; i < numIo; ++i)
    b.CreateStore(run->getArg(1 + i), b.CreateConstGEP1_64(ptr, ioArray, i));
  if (images == 1) {
    b.CreateRet(b.CreateCall(item, {ctx, workspace, weights, rtParallel.getCallee(),
                                    b.getInt64(0), ioArray}));
  } else {
    // Items side by side when the workspace has room for more than one
    // (nunc_options.workspace_bytes), else one after another on the pool.
    llvm::Value *slots = b.CreateCall(declare(rt + "item_slots", i64, {ptr}), {ctx});
    slots = b.CreateSelect(b.CreateICmpULT(slots, b.getInt64(images)), slots,
                           b.getInt64(images));
    llvm::BasicBlock *sideBySide = llvm::BasicBlock::Create(c, "side_by_side", run);
    llvm::BasicBlock *inTurn = llvm::BasicBlock::Create(c, "in_turn", run);
    b.CreateCondBr(b.CreateICmpUGT(slots, b.getInt64(1)), sideBySide, inTurn);

    b.SetInsertPoint(sideBySide);
    llvm::Value *slotsSlot = b.CreateAlloca(i64);
    b.CreateStore(slots, slotsSlot);
    llvm::Value *taskArgs = b.CreateAlloca(llvm::ArrayType::get(ptr, 5));
    llvm::Value *slotArgs[] = {ctx, workspace, weights, ioArray, slotsSlot};
    for (auto [i, v] : llvm::enumerate(slotArgs))
      b.CreateStore(v, b.CreateConstGEP1_64(ptr, taskArgs, i));
    b.CreateRet(b.CreateCall(rtParallel, {ctx, slots, slotTask, taskArgs}));

    b.SetInsertPoint(inTurn);
    emitItemLoop(b, b.getInt64(0), b.getInt64(1),
                 {ctx, workspace, weights, rtParallel.getCallee(), ioArray});
  }

  // <name>_run_io(ctx, io): inputs then outputs in one array, for tools.
  {
    llvm::Function *f = exported(name + "_run_io", i32, {ptr, ptr});
    llvm::IRBuilder<> fb(llvm::BasicBlock::Create(c, "entry", f));
    SmallVector<llvm::Value *> args{f->getArg(0)};
    for (unsigned i = 0; i < numInputs + numOutputs; ++i)
      args.push_back(fb.CreateLoad(ptr, fb.CreateConstGEP1_64(ptr, f->getArg(1), i)));
    fb.CreateRet(fb.CreateCall(run, args));
  }

  // <name>_inputs / <name>_outputs descriptors.
  llvm::StructType *descType = llvm::StructType::get(c, {ptr, i32, i32, ptr, i64});
  auto descriptors = [&](bool inputs) {
    SmallVector<llvm::Constant *> entries;
    unsigned count = inputs ? numInputs : numOutputs;
    for (unsigned i = 0; i < count; ++i) {
      RankedTensorType type = ioType(func, i, inputs);
      StringAttr nameAttr = inputs ? func.getArgAttrOfType<StringAttr>(i, "nunc.name")
                                   : func.getResultAttrOfType<StringAttr>(i, "nunc.name");
      std::string ioName = nameAttr ? nameAttr.str() : "io" + std::to_string(i);
      SmallVector<llvm::Constant *> dims;
      for (int64_t d : type.getShape())
        dims.push_back(b.getInt64(d));
      auto *shapeArray = llvm::ConstantArray::get(llvm::ArrayType::get(i64, dims.size()), dims);
      auto *shapeGlobal = new llvm::GlobalVariable(
          m, shapeArray->getType(), true, llvm::GlobalValue::PrivateLinkage, shapeArray,
          name + (inputs ? "_in_shape" : "_out_shape"));
      int64_t bytes = type.getNumElements() * getElementByteWidth(type.getElementType());
      entries.push_back(llvm::ConstantStruct::get(
          descType, {b.CreateGlobalString(ioName, name + "_io_name"),
                     b.getInt32(onnxDataType(type.getElementType())),
                     b.getInt32(type.getRank()), shapeGlobal, b.getInt64(bytes)}));
    }
    auto *array = llvm::ConstantArray::get(llvm::ArrayType::get(descType, count), entries);
    auto *global = new llvm::GlobalVariable(m, array->getType(), true,
                                            llvm::GlobalValue::PrivateLinkage, array,
                                            name + (inputs ? "_input_descs" : "_output_descs"));
    llvm::Function *f = exported(name + (inputs ? "_inputs" : "_outputs"), ptr, {ptr});
    llvm::IRBuilder<> fb(llvm::BasicBlock::Create(c, "entry", f));
    llvm::BasicBlock *store = llvm::BasicBlock::Create(c, "store", f);
    llvm::BasicBlock *done = llvm::BasicBlock::Create(c, "done", f);
    fb.CreateCondBr(fb.CreateIsNull(f->getArg(0)), done, store);
    fb.SetInsertPoint(store);
    fb.CreateStore(fb.getInt64(count), f->getArg(0));
    fb.CreateBr(done);
    fb.SetInsertPoint(done);
    fb.CreateRet(global);
  };
  descriptors(true);
  descriptors(false);
}

std::vector<size_t> ModelCompiler::nativeCodeOwners() const {
  std::map<llvm::ArrayRef<uint8_t>, size_t> first;
  std::vector<size_t> owners;
  for (auto [i, entry] : llvm::enumerate(nativeCode))
    owners.push_back(first.try_emplace(llvm::ArrayRef(entry.second), i).first->second);
  return owners;
}

std::string ModelCompiler::nativeCodeAsm(llvm::StringRef codePath) {
  std::string text = ".section .text." + options.name + "_kernels,\"ax\",@progbits\n";
  int64_t offset = 0;
  const std::vector<size_t> owners = nativeCodeOwners();
  for (auto [i, entry] : llvm::enumerate(nativeCode)) {
    const auto &[symbol, code] = entry;
    text += ".globl " + symbol + "\n.hidden " + symbol + "\n.type " + symbol + ",@function\n";
    if (owners[i] != i) {
      text += ".set " + symbol + ", " + nativeCode[owners[i]].first + "\n";
    } else {
      text += ".p2align 6\n" + symbol + ":\n.incbin \"" + codePath.str() + "\", " +
              std::to_string(offset) + ", " + std::to_string(code.size()) + "\n";
      offset += code.size();
    }
    text += ".size " + symbol + ", " + std::to_string(code.size()) + "\n";
  }
  return text;
}

FailureOr<std::string> ModelCompiler::emitObject(llvm::Module &m, llvm::StringRef codePath) {
  static bool initialized = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
    return true;
  }();
  (void)initialized;
  llvm::Triple triple("x86_64-unknown-linux-gnu");
  std::string error;
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return module.emitError("no x86 backend: ") << error;
  llvm::TargetOptions targetOptions;
  std::unique_ptr<llvm::TargetMachine> tm(target->createTargetMachine(
      triple, options.target.llvmCpu, options.target.llvmFeatures, targetOptions,
      llvm::Reloc::PIC_, llvm::CodeModel::Small, llvm::CodeGenOptLevel::Aggressive));
  m.setTargetTriple(triple);
  m.setDataLayout(tm->createDataLayout());
  for (llvm::Function &f : m) {
    if (f.isDeclaration())
      continue;
    f.addFnAttr("target-cpu", options.target.llvmCpu);
    f.addFnAttr("target-features", options.target.llvmFeatures);
    if (options.target.isa == Isa::Avx512)
      f.addFnAttr("prefer-vector-width", "512");
    f.addFnAttr(llvm::Attribute::NoUnwind);
  }

  // x86 kernels: machine code generated by xbyak, position independent.
  if (!nativeCode.empty())
    m.appendModuleInlineAsm(nativeCodeAsm(codePath));

  if (llvm::verifyModule(m, &llvm::errs()))
    return module.emitError("internal error: the generated LLVM IR does not verify");

  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb(tm.get());
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager mpm = pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  mpm.run(m, mam);

  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager codegen;
  if (tm->addPassesToEmitFile(codegen, os, nullptr, llvm::CodeGenFileType::ObjectFile))
    return module.emitError("the x86 backend cannot emit an object file");
  codegen.run(m);
  return std::string(buffer.data(), buffer.size());
}

FailureOr<CompiledModel> ModelCompiler::run() {
  func = module.lookupSymbol<func::FuncOp>("main");
  if (!func)
    return module.emitError("the module has no @main function");
  // Static u8 activations go from GEMM to GEMM in the rows this target's
  // int8 kernels read, and from int8 conv to depthwise conv (no-ops for
  // models without static int8 layers).
  {
    PassManager pm(module.getContext());
    pm.nest<func::FuncOp>().addPass(createFuseAttentionProjections());
    // A QDQ model's Q, K and V go to its attention as codes where the
    // target's kernel computes on them.
    pm.nest<func::FuncOp>().addPass(createFuseAttentionQuantization(
        [isa = options.target.isa, int8 = options.target.int8](AttentionOp op,
                                                               ArrayRef<Type> grids) {
          if (!readsU8AttentionInputs(int8))
            return false;
          std::optional<x86::AttentionConfig> c = attentionConfig(op, isa);
          if (!c)
            return false;
          c->u8Inputs = true;
          for (unsigned i = 0; i < 3; ++i)
            c->inputGrids[i] = u8CodesGrid(grids[i]);
          return x86::AttentionKernel::supports(*c, isa);
        }));
    FuseActivationQuantizationOptions handover;
    handover.rowAlignment = x86::Int8GemmKernel::denseRowAlignment(options.target.int8);
    handover.u8WeightMaxK =
        sumsU8Rows(options.target.int8) ? x86::Int8GemmKernel::kMaxU8WeightK : 0;
    pm.nest<func::FuncOp>().addPass(createFuseActivationQuantization(
        handover, [isa = options.target.isa](AttentionOp op, Type grid) {
          // (Asked before the attributes are set.)
          std::optional<x86::AttentionConfig> c = attentionConfig(op, isa);
          if (!c)
            return false;
          setAttentionU8Output(*c, grid);
          return x86::AttentionKernel::supports(*c, isa);
        }));
    // And from an int8 convolution to the depthwise conv after it, where
    // this target's depthwise kernel reads u8 codes.
    Isa isa = options.target.isa;
    Int8Isa int8 = options.target.int8;
    auto readsU8 = [isa, int8](Operation *op, Type inputCodes) {
      if (hasEmptyTensor(op))
        return false;
      std::optional<WindowStep> w = windowStep(op, isa, int8, inputCodes);
      return w && x86::WindowKernel::readsU8(w->config, isa);
    };
    pm.nest<func::FuncOp>().addPass(createFuseConvActivationQuantization(readsU8));
    // Last: the elementwise ops no epilogue took, in runs of one pass each;
    // those after an int8 conv's last grid or a depthwise conv's rounding,
    // looked up in its epilogue where the target's kernel has the lookup
    // (int8 convs: every target; depthwise: AVX-512).
    if (options.elementwiseChains) {
      // A QDQ model's Adds between pairs stay Adds of codes (before the
      // chains would take them).
      if (options.oneStepRequantization)
        pm.nest<func::FuncOp>().addPass(createOneStepRequantization({/*onlyElementwise=*/true}));
      pm.nest<func::FuncOp>().addPass(createFuseElementwiseChains());
      pm.nest<func::FuncOp>().addPass(createFuseChainIntoConv(
          [isa, int8](Operation *op) {
            if (llvm::isa<QuantizedConvOp>(op))
              return true;
            if (hasEmptyTensor(op))
              return false;
            // Depthwise tables: AVX-512 kernels only (not the ymm ones).
            std::optional<WindowStep> w = windowStep(op, isa, int8);
            return w && x86::WindowKernel::looksUpTables(w->config, isa);
          }));
      // Then a depthwise conv's table goes to the int8 conv after it as the
      // codes of that conv's input grid.
      pm.nest<func::FuncOp>().addPass(createFuseConvActivationQuantization(readsU8));
    }
    // Last: the codes handed over, in one multiply (depthwise convs where
    // the target's integer kernel would run them).
    if (options.oneStepRequantization)
      pm.nest<func::FuncOp>().addPass(createOneStepRequantization([isa, int8](FusedConvOp op) {
        if (hasEmptyTensor(op))
          return false;
        std::optional<WindowStep> w = windowStep(op, isa, int8);
        if (!w)
          return false;
        // (Asked with the attributes set.)
        x86::WindowConfig c = w->config;
        return c.int8 && x86::Int8DepthwiseKernel::supports(c, isa) &&
               int8DepthwiseTables(c, *w).has_value();
      }, [isa](AttentionOp op) {
        // (Asked with the attributes set.)
        return attentionConfig(op, isa).has_value();
      }, [int8](QuantizedLinearOp op) {
        // Every int8 GEMM's epilogue (one for all its ISAs); a GELU in
        // onnxruntime's steps as a lookup table (not AMX's epilogues).
        std::optional<Int8Linear> l = int8Linear(op, int8);
        return l && (!op.getGeluQlinearArithmetic() || l->isa != Int8Isa::Amx);
      }, [](LayerNormOp op) {
        // The LayerNorm kernel (both ISAs) on rows of a multiple of 8.
        return nativeLayerNorm(op) && x86::LayerNormKernel::supports(
            {1, *op.rowSize(), 0.f, false, /*ordered=*/true});
      }, [int8](QuantizedConvOp op) {
        // (Asked with the attribute set.)
        std::optional<Int8Conv> g = int8Conv(op, int8);
        return g && g->f32Products().has_value();
      }));
    if (failed(runPipeline(pm, module)))
      return failure();
  }
  if (options.loweredIrStream)
    module.print(*options.loweredIrStream, OpPrintingFlags().enableDebugInfo());
  if (failed(selectKernels()))
    return failure();
  if (options.printMemoryPlan && options.planStream)
    plan.print(*options.planStream);

  llvm::LLVMContext llvmContext;
  FailureOr<std::unique_ptr<llvm::Module>> m = translate(llvmContext);
  if (failed(m))
    return failure();
  emitKernelWrappers(**m);
  emitGlue(**m);
  // Constants copied to outputs go into the blob too (emitGlue asked).
  blob.padTo(64);
  TempFile codeFile;
  if (!nativeCode.empty()) {
    std::string code;
    const std::vector<size_t> owners = nativeCodeOwners();
    for (auto [i, entry] : llvm::enumerate(nativeCode))
      if (owners[i] == i)
        code.append((const char *)entry.second.data(), entry.second.size());
    if (failed(codeFile.write(code, "code")))
      return module.emitError("cannot write a temporary file for the kernels");
  }
  FailureOr<std::string> object = emitObject(**m, codeFile.path);
  if (failed(object))
    return failure();

  CompiledModel out;
  FailureOr<std::string> runtime = renamedRuntime(options.name, module.getLoc());
  if (failed(runtime))
    return failure();
  out.objects.push_back({options.name + ".o", std::move(*object)});
  out.objects.push_back({options.name + "_runtime.o", std::move(*runtime)});
  out.weightBytes = blob.size();
  if (options.externalWeights) {
    out.weights = blob.data().str();
  } else {
    // <name>_init takes the symbol's address: a model without constants
    // still gets one zero line.
    if (!blob.size())
      blob.add(std::string(64, '\0').data(), 64);
    out.objects.push_back(
        {options.name + "_weights.o", weightsObject(options.name + "_weights", blob.take())});
  }
  out.arenaBytes = plan.arenaBytes;
  for (auto [step, call] : llvm::zip(plan.steps, calls)) {
    KernelChoice k;
    k.op = step.op->getName().getStringRef().str();
    k.node = describeLocation(step.op->getLoc());
    k.kernel = call.description;
    k.generic = call.generic;
    k.tasks = call.tasks;
    out.kernels.push_back(k);
  }
  out.header = generateHeader(func, options, plan.arenaBytes);
  out.manifest = generateManifest(func, options, out);
  return out;
}

} // namespace

FailureOr<CompiledModel> mlir::nunc::compileModel(ModuleOp module,
                                                  const CompileOptions &options) {
  return ModelCompiler(module, options).run();
}
