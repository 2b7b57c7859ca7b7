//===- PatternUtils.h - matching helpers shared by the fusion passes ------===//

#ifndef NUNC_TRANSFORMS_PATTERNUTILS_H
#define NUNC_TRANSFORMS_PATTERNUTILS_H

#include "nunc/Dialect/Nunc/NuncOps.h"
#include "nunc/Dialect/Nunc/NuncUtils.h"
#include "nunc/Transforms/BatchNormParams.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

#include <optional>

namespace mlir::nunc {

/// The value of a numeric constant whose elements are all equal (a scalar or
/// a splat; integers convert), or std::nullopt.
std::optional<double> getUniformFloat(Value v);

/// The value of an f32 constant whose elements are all equal.
std::optional<float> getUniformF32(Value v);

/// The value of a one-element constant of any numeric type (unsigned ones
/// read as unsigned), or std::nullopt.
std::optional<double> scalarConstant(Value v);

/// True when `v` is a constant float within `tolerance` (relative) of `want`.
bool isFloatConstant(Value v, double want, double tolerance = 1e-4);

/// For a commutative binary op, the operand that is not `known` (or null).
Value otherOperand(Operation *op, Value known);

/// The defining op of `v` if it is an OpTy with exactly one use of `v`.
template <typename OpTy> OpTy singleUseDef(Value v) {
  if (!v || !v.hasOneUse())
    return nullptr;
  return v.getDefiningOp<OpTy>();
}

/// A depthwise nunc.conv or fused_conv: one single-channel filter per
/// input channel (group = channels > 1), 4-D.
bool isDepthwiseConv(Operation *op);

/// Whether the int8 convolution takes a conv of `group` groups with this
/// [M, C / group, kh, kw] weight: one group, or groups whose input channels
/// fill whole blocks of four (each group's channels start a block of the
/// quantized input; a depthwise conv, one channel a group, has its own
/// kernel).
bool int8ConvGroups(int64_t group, Value weight);

/// Replaces `conv` by the fused_conv that computes the same (no epilogue
/// yet), for a pass to give it one, and returns it.
FusedConvOp replaceWithFusedConv(ConvOp conv);

/// The elements of a constant as floats (a copy), when `v` is a constant.
std::optional<SmallVector<float>> getConstantFloats(Value v);

/// A float32 constant of the given shape and values.
Value createF32Constant(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                        ArrayRef<float> values, StringRef name);

/// The single result of the op `name` made from `operands` and `attrs`,
/// its type inferred; failure (nothing left behind, nothing reported) where
/// inference refuses them, as a pattern that merely declines wants.
FailureOr<Value> createInferredValue(OpBuilder &b, Location loc, StringRef name,
                                     ValueRange operands, ArrayRef<NamedAttribute> attrs = {});

/// A 1-D int64 constant (a shape operand).
Value createI64Constant(OpBuilder &b, Location loc, ArrayRef<int64_t> values);

/// A scalar constant of an integer type (a zero point: i8, ui8, i16, ui16).
Value createIntScalar(OpBuilder &b, Location loc, IntegerType type, int64_t value);

/// Gives `fused` the result types of `replaced` where those are the more
/// precise (declared types may know dims the operands do not).
void keepResultTypes(Operation *fused, Operation *replaced);

/// The location of a fused op: the fused locations of all the ops it replaces,
/// so diagnostics name every ONNX node involved.
Location fusedLoc(ArrayRef<Operation *> ops);

/// True when `v` has a static shape that broadcasts to `target` without
/// changing it (numpy rules, one way) and the element type `element`.
bool broadcastsTo(Value v, ArrayRef<int64_t> target, Type element);

/// True when the type is a ranked tensor with static shape.
inline bool isStatic(Type t) {
  auto r = dyn_cast<RankedTensorType>(t);
  return r && r.hasStaticShape();
}

/// The static input grid of an int8 op (quantized_linear, quantized_conv)
/// for activations quantized per tensor with (scale, zero point) to u8 or
/// s8: an s8 activation becomes the u8 one 128 higher, which rounds and
/// saturates identically. With `u16`, 16-bit activations (quantized_linear
/// only) likewise give a u16 grid (s16: 32768 higher).
std::optional<TypeAttr> staticInputGrid(MLIRContext *ctx, Value scale, Value zeroPoint,
                                        Type storage, bool u16 = false);

/// The weight layouts the int8 ops take: rank and the dim of per-axis
/// scales (quantized_linear: [K, N] per column; quantized_conv: [M, C, kh,
/// kw] per output channel).
struct Int8WeightLayout {
  int64_t rank, axis;
};
inline constexpr Int8WeightLayout kLinearWeight{2, 1}, kConvWeight{4, 0};

/// The int8 kernels take u8 weights with zero points for K (the GEMM's
/// depth; a convolution's input channels rounded up to 4, times its taps)
/// below this: they add (128 - zw) times the rows' (positions') code sums
/// S as the word pair (S mod 128, S / 128), and S / 128 < 2^15 needs
/// 255 K / 128 < 2^15 (x86::Int8GemmKernel::takesU8Weights).
inline constexpr int64_t kU8WeightMaxDepth = 16383;

/// quant.scast of a constant s8 weight `wq` of the `layout` with zero
/// point(s) 0 and one scale, or one per index of the layout's axis when the
/// scales apply along `scaleAxis` (a DequantizeLinear's axis) and that is
/// the same dim; with `u8Weights`, also a u8 weight with any zero points
/// (one, or one per index of that axis), and an s8 one with zero points
/// other than 0 as the u8 one 128 higher (the same values: onnxruntime's
/// quantized f32 weights, asymmetric s8). Fails, creating nothing, for
/// anything else.
FailureOr<Value> quantizedWeight(PatternRewriter &rewriter, Location loc, Value wq, Value scale,
                                 Value zeroPoint, Int8WeightLayout layout, int64_t scaleAxis,
                                 bool u8Weights = false);
/// Whether quantizedWeight would take these (creates nothing): for patterns
/// that must check before they rewrite anything.
bool isQuantizedWeight(Value wq, Value scale, Value zeroPoint, Int8WeightLayout layout,
                       int64_t scaleAxis, bool u8Weights = false);

/// Whether `v` is a constant quantization parameter that DequantizeLinear
/// takes for an axis of `n` indices: one element, or [n].
inline bool perTensorOrAxis(Value v, int64_t n) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t && t.hasStaticShape() && matchPattern(v, m_Constant()) &&
         (t.getNumElements() == 1 || (t.getRank() == 1 && t.getDimSize(0) == n));
}

/// The f32 values an integer op on a DynamicQuantizeLinear's codes
/// multiplies (their DequantizeLinear with its own scale and zero point),
/// as one dynamic_fake_quantize of its input.
inline Value dequantizedInput(PatternRewriter &rewriter, Location loc,
                              DynamicQuantizeLinearOp dq) {
  return DynamicFakeQuantizeOp::create(rewriter, loc, dq.getInput().getType(), dq.getInput());
}

/// onnxruntime's `quantize_dynamic` product around an integer op `IntOp`
/// (MatMulInteger, ConvInteger):
///   (q, s, zp) = DynamicQuantizeLinear(x)
///   y = Cast<f32>(IntOp(q, W, zp, ...)) * (s * sW)
/// matched at the Mul y: the integer op (used once, through the Cast), the
/// DynamicQuantizeLinear and sW.
template <typename IntOp> struct DynamicQuantizedProduct {
  IntOp op;
  CastOp castOp;
  DynamicQuantizeLinearOp dq;
  Value weightScale;
};
template <typename IntOp>
std::optional<DynamicQuantizedProduct<IntOp>> matchDynamicQuantizedProduct(MulOp mul) {
  for (auto [product, scales] :
       {std::pair(mul.getLhs(), mul.getRhs()), std::pair(mul.getRhs(), mul.getLhs())}) {
    auto castOp = singleUseDef<CastOp>(product);
    if (!castOp || !cast<ShapedType>(castOp.getType()).getElementType().isF32() ||
        !isStatic(mul.getType()) || mul.getType() != castOp.getType())
      continue;
    auto op = singleUseDef<IntOp>(castOp.getInput());
    Value zeroPoint;
    if constexpr (std::is_same_v<IntOp, MatMulIntegerOp>)
      zeroPoint = op ? op.getAZeroPoint() : Value();
    else
      zeroPoint = op ? op.getInputZeroPoint() : Value();
    if (!op || !zeroPoint)
      continue;
    auto dq = op->getOperand(0).template getDefiningOp<DynamicQuantizeLinearOp>();
    auto scaleMul = scales.template getDefiningOp<MulOp>();
    if (!dq || op->getOperand(0) != dq.getOutput() || zeroPoint != dq.getZeroPoint() ||
        !scaleMul)
      continue;
    Value wScale = scaleMul.getLhs() == dq.getScale()   ? scaleMul.getRhs()
                   : scaleMul.getRhs() == dq.getScale() ? scaleMul.getLhs()
                                                        : Value();
    if (wScale)
      return DynamicQuantizedProduct<IntOp>{op, castOp, dq, wScale};
  }
  return std::nullopt;
}

} // namespace mlir::nunc

#endif // NUNC_TRANSFORMS_PATTERNUTILS_H
