//===- ConstantFolding.cpp - evaluate ops with constant operands ----------===//

#include "nunc/Transforms/Passes.h"

#include "nunc/Dialect/Nunc/NuncUtils.h"
#include "nunc/Interpreter/Evaluator.h"

#include "PatternUtils.h"

#include "mlir/Dialect/Quant/IR/QuantTypes.h"

#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/RegionUtils.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

namespace mlir::nunc {
#define GEN_PASS_DEF_CONSTANTFOLDING
#include "nunc/Transforms/Passes.h.inc"
} // namespace mlir::nunc

using namespace mlir;
using namespace mlir::nunc;

namespace {

bool hasStaticResults(Operation *op, int64_t maxElements) {
  for (Type t : op->getResultTypes()) {
    auto shaped = dyn_cast<RankedTensorType>(t);
    if (!shaped || !shaped.hasStaticShape() || shaped.getNumElements() > maxElements)
      return false;
  }
  return true;
}

/// Bytes of a static tensor of integers or floats, else nullopt.
std::optional<int64_t> staticBytes(Type t) {
  auto shaped = dyn_cast<RankedTensorType>(t);
  if (!shaped || !shaped.hasStaticShape() || !shaped.getElementType().isIntOrFloat())
    return std::nullopt;
  return shaped.getNumElements() * ((shaped.getElementType().getIntOrFloatBitWidth() + 7) / 8);
}

/// Whether `op` folds past max-elements: an op whose work is one step per
/// result element (no contraction: a constant MatMul of any size would
/// make the evaluator's loops the compile time), whose results take no
/// more bytes than an operand that only it uses, so folding never grows
/// what the constants hold: a weight's QuantizeLinear (an f32 weight behind
/// QuantizeLinear -> DequantizeLinear, as TensorRT-style QDQ models and
/// onnxruntime's AddQDQPairToWeight keep it, thus gets its integer form),
/// a weight's Transpose, a narrowing Cast. Also Slices that are all the
/// uses of a constant and together take no more bytes than it: onnxruntime's
/// Attention keeps Q's, K's and V's weights side by side in one.
bool foldsPastMaxElements(Operation *op) {
  if (!isa<QuantizeLinearOp, FakeQuantizeOp, CastOp, TransposeOp, ReshapeOp, FlattenOp,
           SqueezeOp, UnsqueezeOp, SliceOp, GatherOp, IdentityOp, AddOp, SubOp, MulOp, DivOp,
           SqrtOp, ReluOp, ClipOp>(op))
    return false;
  // Parts of a constant (Slices, Gathers of it: one direction's weights of
  // a bidirectional LSTM) whose sizes add up to at most its own.
  if (isa<SliceOp, GatherOp>(op)) {
    Value whole = op->getOperand(0);
    std::optional<int64_t> wholeBytes = staticBytes(whole.getType());
    int64_t partBytes = 0;
    // (Parts that fold: their other operands are constants, else the whole
    // stays too.)
    auto constantPart = [&](Operation *user) {
      return isa<SliceOp, GatherOp>(user) && user->getOperand(0) == whole &&
             llvm::all_of(user->getOperands().drop_front(),
                           [](Value v) { return matchPattern(v, m_Constant()); });
    };
    if (wholeBytes && llvm::all_of(whole.getUsers(), [&](Operation *user) {
          std::optional<int64_t> bytes =
              constantPart(user) ? staticBytes(user->getResult(0).getType()) : std::nullopt;
          partBytes += bytes.value_or(0);
          return bytes.has_value();
        }) &&
        partBytes <= *wholeBytes)
      return true;
  }
  int64_t freed = 0;
  for (Value v : op->getOperands())
    if (std::optional<int64_t> bytes = staticBytes(v.getType()); bytes && v.hasOneUse())
      freed = std::max(freed, *bytes);
  return llvm::all_of(op->getResultTypes(), [&](Type t) {
    std::optional<int64_t> bytes = staticBytes(t);
    return bytes && *bytes <= freed;
  });
}

/// Folds `op` through its own folder. Returns true when the op was replaced.
bool foldWithHook(Operation *op, OpBuilder &builder) {
  SmallVector<OpFoldResult> folded;
  if (failed(op->fold(folded)) || folded.empty())
    return false;
  SmallVector<Value> replacements;
  builder.setInsertionPoint(op);
  for (auto [result, f] : llvm::zip(op->getResults(), folded)) {
    if (auto v = dyn_cast<Value>(f)) {
      if (v.getType() != result.getType())
        return false;
      replacements.push_back(v);
      continue;
    }
    auto attr = dyn_cast<ElementsAttr>(cast<Attribute>(f));
    if (!attr || attr.getType() != result.getType())
      return false;
    replacements.push_back(ConstantOp::create(builder, op->getLoc(), attr.getType(), attr));
  }
  op->replaceAllUsesWith(replacements);
  op->erase();
  return true;
}

constexpr int64_t kKeepQuantizedAbove = 4096;

struct ConstantFoldingPass
    : public mlir::nunc::impl::ConstantFoldingBase<ConstantFoldingPass> {
  using ConstantFoldingBase::ConstantFoldingBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    OpBuilder builder(&getContext());
    bool changed = false;
    SmallVector<Operation *> ops;
    for (Operation &op : func.getBody().front())
      ops.push_back(&op);
    for (Operation *op : ops) {
      if (isa<ConstantOp>(op) || !isa<InferShapesOpInterface>(op))
        continue;
      if (failed(refineResultTypes(op, changed)))
        return signalPassFailure();
      if (foldWithHook(op, builder)) {
        changed = true;
        continue;
      }
      if (failed(foldByEvaluation(op, builder, changed)))
        return signalPassFailure();
    }
    // Erase what folding left unused, users before producers.
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(func.getBody().front())))
      if (isOpTriviallyDead(&op)) {
        op.erase();
        changed = true;
      }
    updateFunctionResultTypes(func);
    if (!changed)
      markAllAnalysesPreserved();
  }

  /// A DequantizeLinear whose users all take it as a weight the int8
  /// patterns read: large ones feeding MatMuls or Gathers or that are a
  /// Gemm's B, any that is the B of a MatMul or Gemm whose A is itself
  /// dequantized (a QDQ model's: onnxruntime runs even a classifier's
  /// 200 x 2 one as a QGemm, on the codes), and (with
  /// keep-conv-weights) any feeding the weight of a Conv of groups the int8
  /// convolution takes (int8ConvGroups) whose input is itself dequantized, a
  /// QDQ conv nunc-fuse-conv makes int8.
  /// Others fold, so FoldBatchNorm sees constant conv weights.
  bool keepsQuantizedWeight(Operation *dq) {
    Value w = dq->getResult(0);
    bool large = cast<ShapedType>(w.getType()).getNumElements() > kKeepQuantizedAbove;
    auto dequantized = [](Value v) {
      return static_cast<bool>(v.getDefiningOp<DequantizeLinearOp>());
    };
    return llvm::all_of(dq->getUsers(), [&](Operation *u) {
      if (auto conv = dyn_cast<ConvOp>(u))
        return keepConvWeights && conv.getWeight() == w && conv.getInput() != w &&
               int8ConvGroups(conv.getGroup(), w) && dequantized(conv.getInput());
      if (auto gemm = dyn_cast<GemmOp>(u))
        return (large || dequantized(gemm.getA())) && gemm.getB() == w && gemm.getA() != w &&
               gemm.getC() != w;
      if (auto matmul = dyn_cast<MatMulOp>(u))
        return (large || dequantized(matmul.getA())) && matmul.getB() == w &&
               matmul.getA() != w;
      return large && isa<GatherOp>(u);
    });
  }

  /// The grid of a constant weight's DequantizeLinear (8-bit codes, one
  /// scale or one per index of dim 0) from its evaluated operands, for the
  /// convs it feeds (their weight_quantization), else null.
  static TypeAttr convWeightGrid(DequantizeLinearOp dq, ArrayRef<Tensor> operands) {
    auto codes = cast<ShapedType>(dq.getInput().getType());
    auto storage = dyn_cast<IntegerType>(codes.getElementType());
    // (4-bit codes: onnxruntime runs the conv in f32, and so does nunc.)
    if (!storage || storage.getWidth() != 8 || !codes.hasRank() || codes.getRank() < 1 ||
        holdsFourBitCodes(dq.getInput()))
      return {};
    const bool isSigned = !storage.isUnsigned();
    const Tensor &scale = operands[1];
    const int64_t n = scale.numElements(), channels = codes.getDimSize(0);
    // (I64Attr reads back unsigned.)
    int64_t axis = static_cast<int64_t>(dq.getAxis());
    if (axis < 0)
      axis += codes.getRank();
    if (n != 1 && (n != channels || axis != 0))
      return {};
    const int64_t lo = isSigned ? -128 : 0, hi = isSigned ? 127 : 255;
    SmallVector<double> scales;
    SmallVector<int64_t> zeroPoints;
    for (int64_t i = 0; i < n; ++i) {
      scales.push_back(static_cast<float>(scale.getDouble(i)));
      const int64_t zpCount = operands.size() > 2 ? operands[2].numElements() : 0;
      zeroPoints.push_back(zpCount ? operands[2].getInt(i % zpCount) : 0);
      // (The quant types assert what they hold.)
      if (!(scales.back() > 0) || !std::isfinite(scales.back()) || zeroPoints.back() < lo ||
          zeroPoints.back() > hi)
        return {};
    }
    MLIRContext *ctx = dq.getContext();
    Type i8 = IntegerType::get(ctx, 8), f32 = Float32Type::get(ctx);
    const unsigned flags = isSigned ? quant::QuantizationFlags::Signed : 0;
    Type grid = n == 1 ? Type(quant::UniformQuantizedType::get(flags, i8, f32, scales[0],
                                                               zeroPoints[0], lo, hi))
                       : Type(quant::UniformQuantizedPerAxisType::get(flags, i8, f32, scales,
                                                                      zeroPoints, 0, lo, hi));
    return isConvWeightGrid(grid, channels) ? TypeAttr::get(grid) : TypeAttr();
  }

  /// The per-tensor grid of a DequantizeLinear of constant u8 or s8 codes
  /// (u8 or s8 storage) from its evaluated operands, else null.
  static TypeAttr codesTensorGrid(DequantizeLinearOp dq, ArrayRef<Tensor> operands) {
    auto codes = cast<ShapedType>(dq.getInput().getType());
    const bool u8 = codes.getElementType().isUnsignedInteger(8),
               s8 = codes.getElementType().isSignlessInteger(8) ||
                    codes.getElementType().isSignedInteger(8);
    if (!(u8 || s8) || operands[1].numElements() != 1 ||
        (operands.size() > 2 && operands[2].numElements() != 1))
      return {};
    const double scale = static_cast<float>(operands[1].getDouble(0));
    const int64_t zp = operands.size() > 2 ? operands[2].getInt(0) : 0;
    const int64_t lo = u8 ? 0 : -128, hi = u8 ? 255 : 127;
    if (!(scale > 0) || !std::isfinite(scale) || zp < lo || zp > hi)
      return {};
    MLIRContext *ctx = dq.getContext();
    return TypeAttr::get(quant::UniformQuantizedType::get(
        u8 ? 0 : quant::QuantizationFlags::Signed, IntegerType::get(ctx, 8),
        Float32Type::get(ctx), scale, zp, lo, hi));
  }

  LogicalResult foldByEvaluation(Operation *op, OpBuilder &builder, bool &changed) {
    // A dequantized weight folds whatever its size: kernels need constant
    // weights (a Conv's in a QDQ model, say), and it is at most 4x the
    // integer constant already held.
    bool dequantize = isa<DequantizeLinearOp>(op);
    if (!hasStaticResults(op, dequantize || foldsPastMaxElements(op)
                                  ? std::numeric_limits<int64_t>::max()
                                  : maxElements))
      return success();
    // Before fusion, quantized weights of MatMuls, Convs and embedding
    // tables stay quantized: the int8 kernels read them as they are
    // (nunc-fuse-linear and nunc-fuse-conv match the DequantizeLinear) and a
    // Gather takes integer rows (nunc-fuse-quantize-dequantize). Scales,
    // biases and the weights of other ops fold.
    if (dequantize && keepQuantizedWeights && keepsQuantizedWeight(op))
      return success();
    SmallVector<Tensor> operands;
    for (Value v : op->getOperands()) {
      ElementsAttr attr;
      if (!matchPattern(v, m_Constant(&attr)))
        return success();
      llvm::Expected<Tensor> t = tensorFromAttr(attr);
      if (!t) {
        llvm::consumeError(t.takeError());
        return success();
      }
      operands.push_back(std::move(*t));
    }
    llvm::Expected<SmallVector<Tensor>> results = evaluateOp(op, [&](Value v) -> const Tensor & {
      return operands[llvm::find(op->getOperands(), v) - op->operand_begin()];
    });
    if (!results) {
      // Constant data that makes the op fail (an out-of-range index, a
      // division by zero) would fail every run: report it now.
      return op->emitError() << llvm::toString(results.takeError());
    }
    if (dequantize) {
      // A scale times a code past the f32 range (quantize_static's
      // symmetric int8 grid of a -3.4e38 attention mask, say) is the
      // model's own overflow: say so, since it turns results into NaN.
      const Tensor &t = (*results)[0];
      int64_t bad = 0;
      for (int64_t i = 0, n = t.numElements(); i < n; ++i)
        bad += !std::isfinite(t.getDouble(i));
      if (bad)
        op->emitWarning() << "dequantizing this constant gives " << bad
                          << " infinite or NaN value" << (bad == 1 ? "" : "s")
                          << " (scale times code past the float range); results that "
                             "depend on them may be inf or NaN, as in onnxruntime";
    }
    if (dequantize) {
      // A conv's weight keeps the model's grid (weight_quantization).
      TypeAttr grid;
      for (OpOperand &use : op->getResult(0).getUses())
        if (auto conv = dyn_cast<ConvOp>(use.getOwner()); conv && use.getOperandNumber() == 1) {
          if (!grid)
            grid = convWeightGrid(cast<DequantizeLinearOp>(op), operands);
          if (grid)
            conv.setWeightQuantizationAttr(grid);
        }
    }
    // A bias an Add reads (or a scale a Mul reads) keeps its codes' grid
    // (onnxruntime adds or multiplies the codes); so does a Q/DQ pair's
    // rounding of a constant (a QDQ model's position embeddings: a Gather
    // of constant rows between pairs), whose values are that grid's. The
    // readers record it (kLhsCodesGrid / kRhsCodesGrid).
    TypeAttr codesGrid;
    if (llvm::any_of(op->getResult(0).getUsers(),
                     [](Operation *user) { return isa<AddOp, MulOp>(user); })) {
      if (dequantize)
        codesGrid = codesTensorGrid(cast<DequantizeLinearOp>(op), operands);
      else if (auto fq = dyn_cast<FakeQuantizeOp>(op);
               fq && isa<quant::UniformQuantizedType>(fq.getQuantization()))
        codesGrid = TypeAttr::get(fq.getQuantization());
    }
    builder.setInsertionPoint(op);
    for (auto [result, t] : llvm::zip(op->getResults(), *results)) {
      ElementsAttr attr = attrFromTensor(t, &getContext());
      if (attr.getType() != result.getType())
        return op->emitError() << "evaluated to " << attr.getType()
                               << " where the IR says " << result.getType();
      auto constant = ConstantOp::create(builder, op->getLoc(), attr.getType(), attr);
      if (codesGrid)
        for (OpOperand &use : result.getUses())
          setCodesGrid(use, codesGrid);
      result.replaceAllUsesWith(constant.getResult());
    }
    op->erase();
    changed = true;
    return success();
  }
};
} // namespace
