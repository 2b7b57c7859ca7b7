//===- PatternUtils.h - matching helpers shared by the fusion passes ------===//

#ifndef NUNC_TRANSFORMS_PATTERNUTILS_H
#define NUNC_TRANSFORMS_PATTERNUTILS_H

#include "nunc/Dialect/Nunc/NuncOps.h"
#include "nunc/Dialect/Nunc/NuncUtils.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

#include <optional>

namespace mlir::nunc {

/// The value of a numeric constant whose elements are all equal (a scalar or
/// a splat; integers convert), or std::nullopt.
std::optional<double> getUniformFloat(Value v);

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

/// The elements of a constant as floats (a copy), when `v` is a constant.
std::optional<SmallVector<float>> getConstantFloats(Value v);

/// A float32 constant of the given shape and values.
Value createF32Constant(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                        ArrayRef<float> values, StringRef name);

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
/// saturates identically.
std::optional<TypeAttr> staticInputGrid(MLIRContext *ctx, Value scale, Value zeroPoint,
                                        Type storage);

/// quant.scast of a constant s8 weight with zero point(s) 0 and one scale,
/// or one per index of dim `axis`, as the int8 ops take it (quantized_linear:
/// [K, N] per column, axis 1; quantized_conv: [M, C, kh, kw] per output
/// channel, axis 0).
FailureOr<Value> quantizedWeight(PatternRewriter &rewriter, Location loc, Value wq, Value scale,
                                 Value zeroPoint, int64_t axis);

} // namespace mlir::nunc

#endif // NUNC_TRANSFORMS_PATTERNUTILS_H
