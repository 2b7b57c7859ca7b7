//===- OnnxMatMulNBits.cpp - onnxruntime's block-quantized MatMul ---------===//
//
// com.microsoft MatMulNBits is what onnxruntime's weight-only quantizers
// (MatMulNBitsQuantizer: RTN, GPTQ, HQQ; bits 2, 4 or 8) and its EXTENDED
// graph optimizer (an A16W8 QDQ model's weights) write for a MatMul with a
// constant weight: Y = A x dequant(B)^T (+ bias), B [N][K] in blocks of
// block_size along K, each block with its scale and zero point, the codes
// packed low bits first. nunc dequantizes the weight at import, as the spec
// says ((code - zero point) x scale, rounded once to f32; onnxruntime's
// code x scale - zero point x scale differs by an ulp or so), and the node
// becomes the f32 MatMul (+ Add) it stands for: with `--quantize int8` that
// weight is quantized again, per output channel, like any other. 8-bit
// codes with one scale and zero point per column (a per-channel weight)
// stay codes behind a DequantizeLinear, as a QDQ model's int8 weight.
//
//===----------------------------------------------------------------------===//

#include "ImporterImpl.h"

#include "nunc/Dialect/Nunc/NuncUtils.h"

#include "mlir/IR/Matchers.h"

#include <cstring>

using namespace mlir;
using namespace mlir::nunc;
using namespace mlir::nunc::import_detail;

LogicalResult Importer::convertMatMulNBits(NodeContext &n, SmallVectorImpl<Value> &outputs) {
  FailureOr<int64_t> kAttr = n.getInt("K", std::nullopt), nAttr = n.getInt("N", std::nullopt);
  FailureOr<int64_t> bitsAttr = n.getInt("bits", 4);
  FailureOr<int64_t> blockAttr = n.getInt("block_size", std::nullopt);
  // A compute-precision hint (4: onnxruntime may quantize A to int8); the
  // weight's values do not depend on it.
  n.ignore("accuracy_level");
  // 1: B in the layout onnxruntime packed it into for its own kernels.
  FailureOr<int64_t> prepacked = n.getInt("weight_prepacked", 0);
  if (failed(kAttr) || failed(nAttr) || failed(bitsAttr) || failed(blockAttr) ||
      failed(prepacked))
    return failure();
  if (*prepacked)
    return n.error() << "MatMulNBits with weight_prepacked = " << *prepacked
                     << " (onnxruntime's own packed layout of B) is not supported";
  const int64_t K = *kAttr, N = *nAttr, bits = *bitsAttr, blockSize = *blockAttr;
  if (n.inputs.size() > 6)
    return n.error() << "MatMulNBits takes at most 6 inputs (A, B, scales, zero_points, g_idx, "
                        "bias), got "
                     << n.inputs.size();
  for (unsigned i : {0u, 1u, 2u})
    if (!n.input(i))
      return n.error() << "MatMulNBits needs input #" << i;
  // Bounds that keep every size below in int64 (the weight is K x N f32).
  constexpr int64_t kMaxDim = int64_t(1) << 24;
  if (K < 1 || N < 1 || K > kMaxDim || N > kMaxDim || K * N > (int64_t(1) << 32))
    return n.error() << "MatMulNBits needs 1 <= K, N <= 2^24 and K x N <= 2^32, got K = " << K
                     << ", N = " << N;
  if (bits != 2 && bits != 4 && bits != 8)
    return n.error() << "MatMulNBits with bits = " << bits << " is not supported (2, 4 or 8)";
  if (blockSize < 16 || blockSize > kMaxDim || (blockSize & (blockSize - 1)))
    return n.error() << "MatMulNBits block_size must be a power of 2 from 16 to 2^24, got "
                     << blockSize;

  Value a = n.input(0);
  auto aType = cast<ShapedType>(a.getType());
  Type element = aType.getElementType();
  if (!isa<FloatType>(element))
    return n.error() << "MatMulNBits takes a float A, got " << a.getType();
  if (aType.hasRank() && (aType.getRank() < 1 || (!aType.isDynamicDim(aType.getRank() - 1) &&
                                                  aType.getShape().back() != K)))
    return n.error() << "MatMulNBits: A " << a.getType() << " must have K = " << K
                     << " as its last dim";

  const int64_t blocks = (K + blockSize - 1) / blockSize;
  const int64_t blobBytes = blockSize * bits / 8;
  auto count = [](Value v) -> int64_t {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    return t && t.hasStaticShape() ? t.getNumElements() : -1;
  };
  auto isU8 = [](Value v) {
    return cast<ShapedType>(v.getType()).getElementType().isUnsignedInteger(8);
  };
  // The weight's parts must be constants: they are dequantized here.
  auto constant = [&](unsigned i, llvm::StringRef what) -> LogicalResult {
    if (!matchPattern(n.input(i), m_Constant()))
      return n.error() << "MatMulNBits needs " << what
                       << " as an initializer (a constant), to dequantize the weight when "
                          "compiling";
    return success();
  };
  Value b = n.input(1), scales = n.input(2), zeroPoints = n.input(3), gIdx = n.input(4),
        bias = n.input(5);
  if (failed(constant(1, "B")) || failed(constant(2, "scales")) ||
      (zeroPoints && failed(constant(3, "zero_points"))) || (gIdx && failed(constant(4, "g_idx"))))
    return failure();
  if (!isU8(b) || count(b) != N * blocks * blobBytes)
    return n.error() << "MatMulNBits B must be uint8 [N, ceil(K / block_size), block_size x bits "
                        "/ 8] = ["
                     << N << ", " << blocks << ", " << blobBytes << "], got " << b.getType();
  if (!isa<FloatType>(cast<ShapedType>(scales.getType()).getElementType()) ||
      count(scales) != N * blocks)
    return n.error() << "MatMulNBits scales must be " << N * blocks
                     << " floats (N x ceil(K / block_size)), got " << scales.getType();
  // Zero points: packed like B (uint8, each row of N starting on a byte),
  // or one float per block; absent, the middle code 2^(bits - 1).
  const int64_t zpRowBytes = (blocks * bits + 7) / 8;
  const bool floatZeroPoints =
      zeroPoints && isa<FloatType>(cast<ShapedType>(zeroPoints.getType()).getElementType());
  if (zeroPoints && !floatZeroPoints &&
      (!isU8(zeroPoints) || count(zeroPoints) != N * zpRowBytes))
    return n.error() << "MatMulNBits zero_points must be uint8 packed as B (" << N * zpRowBytes
                     << " bytes) or one float per block (" << N * blocks << "), got "
                     << zeroPoints.getType();
  if (floatZeroPoints && count(zeroPoints) != N * blocks)
    return n.error() << "MatMulNBits float zero_points must be " << N * blocks
                     << " values (one per block), got " << zeroPoints.getType();
  // g_idx: one block index per k (K of them, or K padded to whole blocks,
  // as onnxruntime also takes; the padding's are not read).
  if (gIdx && (!cast<ShapedType>(gIdx.getType()).getElementType().isInteger(32) ||
               (count(gIdx) != K && count(gIdx) != blocks * blockSize)))
    return n.error() << "MatMulNBits g_idx must be " << K << " (or " << blocks * blockSize
                     << ") int32 block indices, got " << gIdx.getType();
  auto biasType = bias ? dyn_cast<RankedTensorType>(bias.getType()) : RankedTensorType();
  if (bias && (!biasType || biasType.getShape() != ArrayRef<int64_t>{N}))
    return n.error() << "MatMulNBits bias must be [" << N << "], got " << bias.getType();

  // The packed bytes where they are stored (B is most of a model's bytes),
  // else (a splat) a copy.
  SmallVector<char> codeCopy, zpCopy;
  auto bytesOf = [](Value v, SmallVector<char> &copy) -> std::optional<ArrayRef<char>> {
    ElementsAttr attr;
    if (!matchPattern(v, m_Constant(&attr)))
      return std::nullopt;
    if (std::optional<ArrayRef<char>> raw = tryGetRawElements(attr))
      return raw;
    if (!readRawElements(attr, copy))
      return std::nullopt;
    return ArrayRef<char>(copy);
  };
  std::optional<ArrayRef<char>> codes = bytesOf(b, codeCopy);
  std::optional<SmallVector<double>> scaleValues = getConstantDoubles(scales);
  std::optional<ArrayRef<char>> zpCodes =
      zeroPoints && !floatZeroPoints ? bytesOf(zeroPoints, zpCopy) : std::nullopt;
  std::optional<SmallVector<double>> zpValues =
      floatZeroPoints ? getConstantDoubles(zeroPoints) : std::nullopt;
  std::optional<SmallVector<int64_t>> blockOf = gIdx ? getConstantInts(gIdx) : std::nullopt;
  if (!codes || !scaleValues || (zeroPoints && !zpCodes && !zpValues) || (gIdx && !blockOf))
    return n.error() << "MatMulNBits: cannot read its constant inputs";
  if (blockOf)
    for (int64_t k = 0; k < K; ++k)
      if ((*blockOf)[k] < 0 || (*blockOf)[k] >= blocks)
        return n.error() << "MatMulNBits g_idx[" << k << "] = " << (*blockOf)[k]
                         << " is not a block index (0 to " << blocks - 1 << ")";

  // The packed field of `bits` bits at bit offset `at` of a byte array.
  const int64_t mask = (int64_t(1) << bits) - 1;
  auto field = [&](ArrayRef<char> bytes, int64_t base, int64_t index) {
    int64_t at = index * bits;
    return (static_cast<uint8_t>(bytes[base + at / 8]) >> (at % 8)) & mask;
  };
  // A constant of `type` holding `bytes` (inline or a blob, as initializers).
  auto constantOf = [&](RankedTensorType type, std::string bytes) -> Value {
    std::string key =
        (n.node.name().empty() ? std::string("matmul_nbits") : n.node.name()) + "_weight";
    return ConstantOp::create(
        builder, n.loc, type,
        rawElementsAttr(type, std::make_unique<std::string>(std::move(bytes)), 4, key));
  };
  auto scaleAt = [&](int64_t col, int64_t block) {
    return static_cast<float>((*scaleValues)[col * blocks + block]);
  };
  auto zeroAt = [&](int64_t col, int64_t block) {
    return zpValues  ? static_cast<float>((*zpValues)[col * blocks + block])
           : zpCodes ? static_cast<float>(field(*zpCodes, col * zpRowBytes, block))
                     : static_cast<float>(int64_t(1) << (bits - 1));
  };
  auto codeAt = [&](int64_t k, int64_t col) {
    return field(*codes, (col * blocks + k / blockSize) * blobBytes, k % blockSize);
  };

  // 8-bit codes whose blocks share their column's scale and zero point (a
  // per-channel or per-tensor weight: onnxruntime's optimizer writes an
  // A16W8 QDQ model's so) stay codes, behind a per-column DequantizeLinear:
  // the Q/DQ fusions take them as a QDQ model's int8 weight, and where
  // nothing else is quantized constant folding makes the same f32 weight.
  bool perColumn = bits == 8 && !blockOf && !zpValues && element.isF32();
  bool allMiddle = true; // every zero point 128: s8 codes, no zero point
  for (int64_t col = 0; perColumn && col < N; ++col) {
    allMiddle = allMiddle && zeroAt(col, 0) == 128.f;
    for (int64_t block = 1; perColumn && block < blocks; ++block)
      perColumn = scaleAt(col, block) == scaleAt(col, 0) && zeroAt(col, block) == zeroAt(col, 0);
  }
  Value w;
  if (perColumn) {
    Type code = IntegerType::get(ctx, 8, allMiddle ? IntegerType::Signless
                                                   : IntegerType::Unsigned);
    std::string bytes(K * N, 0), scaleBytes(N * 4, 0), zeroBytes(N, 0);
    for (int64_t k = 0; k < K; ++k)
      for (int64_t col = 0; col < N; ++col)
        bytes[k * N + col] = static_cast<char>(codeAt(k, col) - (allMiddle ? 128 : 0));
    for (int64_t col = 0; col < N; ++col) {
      float scale = scaleAt(col, 0);
      std::memcpy(&scaleBytes[col * 4], &scale, 4);
      zeroBytes[col] = static_cast<char>(zeroAt(col, 0));
    }
    SmallVector<Value> operands{
        constantOf(RankedTensorType::get({K, N}, code), std::move(bytes)),
        constantOf(RankedTensorType::get({N}, builder.getF32Type()), std::move(scaleBytes))};
    if (!allMiddle)
      operands.push_back(constantOf(RankedTensorType::get({N}, code), std::move(zeroBytes)));
    FailureOr<Value> dq = firstResult(
        create<DequantizeLinearOp>(n, operands, {attr("axis", builder.getI64IntegerAttr(1))}));
    if (failed(dq))
      return failure();
    w = *dq;
  } else {
    // W [K][N], the MatMul's layout: (code - zero point) x scale, rounded
    // once to f32. Row by row of W, so that the writes are sequential.
    std::string bytes(K * N * 4, 0);
    for (int64_t k = 0; k < K; ++k)
      for (int64_t col = 0; col < N; ++col) {
        int64_t block = blockOf ? (*blockOf)[k] : k / blockSize;
        float value = (static_cast<float>(codeAt(k, col)) - zeroAt(col, block)) *
                      scaleAt(col, block);
        std::memcpy(&bytes[(k * N + col) * 4], &value, 4);
      }
    w = constantOf(RankedTensorType::get({K, N}, builder.getF32Type()), std::move(bytes));
    if (element != builder.getF32Type()) {
      FailureOr<Value> cast = firstResult(create<CastOp>(
          n, w,
          {attr("to", TypeAttr::get(element)), attr("saturate", builder.getI64IntegerAttr(1))}));
      if (failed(cast))
        return failure();
      w = *cast;
    }
  }
  FailureOr<Value> y = firstResult(create<MatMulOp>(n, {a, w}));
  if (succeeded(y) && bias)
    y = firstResult(create<AddOp>(n, {*y, bias}));
  if (failed(y))
    return failure();
  outputs.push_back(*y);
  return success();
}
