//===- QOperatorToQdq.cpp - QOperator-format graphs in the QDQ form -------===//
//
// onnxruntime's quantize_static writes a model in one of two forms. QDQ:
// f32 ops between DequantizeLinear and QuantizeLinear pairs, which the
// fusions (nunc-fuse-linear, nunc-fuse-quantize-dequantize, nunc-fuse-conv,
// nunc-fuse-attention) turn into int8 kernels. QOperator: integer ops
// (QLinearConv, QLinearMatMul, the com.microsoft ops the importer already
// expands), with the data movement between them (MaxPool, Reshape,
// Transpose, Flatten) run on the 8-bit tensors. This pass rewrites the
// second form into the first, before the fusions, so both reach the same
// kernels.
//
//===----------------------------------------------------------------------===//

#include "PatternUtils.h"
#include "nunc/Interpreter/Evaluator.h"
#include "nunc/Transforms/Passes.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::nunc {
#define GEN_PASS_DEF_QOPERATORTOQDQ
#include "nunc/Transforms/Passes.h.inc"
} // namespace mlir::nunc

using namespace mlir;
using namespace mlir::nunc;

namespace {

/// True for a one-element scale and (when present) zero point: per-tensor
/// quantization, which data movement keeps.
bool perTensor(Value scale, Value zeroPoint) {
  return scalarConstant(scale) && (!zeroPoint || scalarConstant(zeroPoint));
}

/// ONNX QLinearConv(x, sx, zx, w, sw, zw, sy, zy, B) with a constant weight
/// and constant quantization parameters -> the QDQ form onnxruntime's
/// quantize_static writes:
///   QuantizeLinear(Conv(DequantizeLinear(x), DequantizeLinear(w), b), sy, zy)
/// with the f32 bias b[m] = B[m] fl(sx sw[m]). The pairs then fuse as any
/// QDQ model's do (an s8 weight of zero point 0, groups the int8
/// convolution takes: an int8 convolution; otherwise an f32 one on the
/// dequantized values). The integer
/// sums are QLinearConv's; the result rounds once in f32 (sum fl(sx sw) + b)
/// and once to y's grid, where QLinearConv scales (sum + B) by
/// fl(sx sw / sy) in one step: they can differ by one unit of y on a tie.
struct QLinearConvToQdq : OpRewritePattern<QLinearConvOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(QLinearConvOp op, PatternRewriter &rewriter) const override {
    auto inType = dyn_cast<RankedTensorType>(op.getInput().getType());
    auto wType = dyn_cast<RankedTensorType>(op.getWeight().getType());
    auto outType = dyn_cast<RankedTensorType>(op.getType());
    if (!inType || !wType || !outType || !inType.hasStaticShape() || !wType.hasStaticShape() ||
        !outType.hasStaticShape() || !matchPattern(op.getWeight(), m_Constant()))
      return failure();
    for (Value scale : {op.getInputScale(), op.getWeightScale(), op.getOutputScale()})
      if (!cast<ShapedType>(scale.getType()).getElementType().isF32())
        return failure();
    std::optional<double> sx = scalarConstant(op.getInputScale());
    std::optional<SmallVector<float>> sw = getConstantFloats(op.getWeightScale());
    if (!sx || !sw || !scalarConstant(op.getOutputScale()) ||
        !scalarConstant(op.getInputZeroPoint()) || !scalarConstant(op.getOutputZeroPoint()) ||
        !matchPattern(op.getWeightZeroPoint(), m_Constant()))
      return failure();
    int64_t m = wType.getDimSize(0);
    ElementsAttr biasAttr;
    if (op.getBias() && !matchPattern(op.getBias(), m_Constant(&biasAttr)))
      return failure();
    std::optional<Tensor> biasValues;
    if (biasAttr) {
      llvm::Expected<Tensor> t = tensorFromAttr(biasAttr);
      if (!t) {
        llvm::consumeError(t.takeError());
        return failure();
      }
      if (t->numElements() != m)
        return failure();
      biasValues = std::move(*t);
    }
    Location loc = op.getLoc();
    Type f32 = rewriter.getF32Type();
    Value x = DequantizeLinearOp::create(rewriter, loc, inType.clone(f32), op.getInput(),
                                         op.getInputScale(), op.getInputZeroPoint(),
                                         rewriter.getI64IntegerAttr(1));
    Value w = DequantizeLinearOp::create(rewriter, loc, wType.clone(f32), op.getWeight(),
                                         op.getWeightScale(), op.getWeightZeroPoint(),
                                         rewriter.getI64IntegerAttr(0));
    Value bias;
    if (biasValues) {
      // The bias's scale is fl(sx sw[m]), as quantize_static writes it.
      SmallVector<float> b;
      for (int64_t i = 0; i < m; ++i) {
        float scale = static_cast<float>(*sx) * (*sw)[sw->size() == 1 ? 0 : i];
        b.push_back(static_cast<float>(static_cast<double>(biasValues->getInt(i)) * scale));
      }
      bias = createF32Constant(rewriter, loc, {m}, b, "bias");
    }
    auto conv = ConvOp::create(rewriter, loc, outType.clone(f32), x, w, bias,
                               op.getAutoPadAttr(), op.getDilationsAttr(), op.getGroupAttr(),
                               op.getKernelShapeAttr(), op.getPadsAttr(), op.getStridesAttr(),
                               /*weight_quantization=*/TypeAttr());
    rewriter.replaceOpWithNewOp<QuantizeLinearOp>(
        op, outType, conv.getResult(), op.getOutputScale(), op.getOutputZeroPoint(),
        rewriter.getI64IntegerAttr(1), TypeAttr::get(outType.getElementType()));
    return success();
  }
};

/// An op that only moves or selects elements (MaxPool too: dequantizing is
/// increasing, so the max commutes with it; a nearest Resize without
/// extrapolation copies elements), on an 8-bit tensor.
bool movesIntegers(Operation *op) {
  if (auto resize = dyn_cast_or_null<ResizeOp>(op))
    if (resize.getMode() != "nearest" ||
        resize.getCoordinateTransformationMode() == "tf_crop_and_resize")
      return false;
  if (!isa_and_nonnull<ReshapeOp, TransposeOp, FlattenOp, SqueezeOp, UnsqueezeOp, MaxPoolOp,
                       ResizeOp>(op) ||
      op->getNumResults() != 1)
    return false;
  auto in = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  auto out = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  return in && out && in.getElementType().isInteger(8) && out.getElementType().isInteger(8);
}

/// QuantizeLinear(T'(DequantizeLinear(q, s, z)), s, z) for T = `move` on
/// q, T' the same op on f32: the same integers, as the QDQ form has them.
Value moveOnDequantized(PatternRewriter &rewriter, Operation *move, Value scale, Value zeroPoint) {
  auto inType = cast<RankedTensorType>(move->getOperand(0).getType());
  auto outType = cast<RankedTensorType>(move->getResult(0).getType());
  Type f32 = rewriter.getF32Type();
  auto one = rewriter.getI64IntegerAttr(1);
  Location loc = move->getLoc();
  Value values = DequantizeLinearOp::create(rewriter, loc, inType.clone(f32),
                                            move->getOperand(0), scale, zeroPoint, one);
  Operation *moved = rewriter.clone(*move);
  moved->setOperand(0, values);
  moved->getResult(0).setType(outType.clone(f32));
  return QuantizeLinearOp::create(rewriter, loc, outType, moved->getResult(0), scale, zeroPoint,
                                  one, TypeAttr::get(outType.getElementType()));
}

/// T(q) with T an op that moves the elements of an 8-bit q and q's grid
/// known, per tensor, from its producer (QuantizeLinear, QLinearConv,
/// QLinearMatMul) -> QuantizeLinear(T(DequantizeLinear(q))) on that grid:
/// T runs on the f32 values between Q/DQ pairs, as in the QDQ form. The
/// values are the same (grid values requantize exactly); the pairs then
/// fuse into the producer's epilogue and the consumer's input quantization
/// (and attention's head splits and merge are f32 ops nunc-fuse-attention
/// recognizes).
struct MoveQuantizedOnDequantized : RewritePattern {
  explicit MoveQuantizedOnDequantized(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}
  LogicalResult matchAndRewrite(Operation *move, PatternRewriter &rewriter) const override {
    if (!movesIntegers(move))
      return failure();
    Operation *def = move->getOperand(0).getDefiningOp();
    Value scale, zeroPoint;
    if (auto q = dyn_cast_or_null<QuantizeLinearOp>(def)) {
      scale = q.getScale();
      zeroPoint = q.getZeroPoint();
    } else if (auto mm = dyn_cast_or_null<QLinearMatMulOp>(def)) {
      scale = mm.getYScale();
      zeroPoint = mm.getYZeroPoint();
    } else if (auto conv = dyn_cast_or_null<QLinearConvOp>(def)) {
      scale = conv.getOutputScale();
      zeroPoint = conv.getOutputZeroPoint();
    }
    if (!scale || !perTensor(scale, zeroPoint) ||
        !cast<ShapedType>(scale.getType()).getElementType().isF32())
      return failure();
    rewriter.replaceOp(move, moveOnDequantized(rewriter, move, scale, zeroPoint));
    return success();
  }
};

/// DequantizeLinear(T(q), s, z), T as above on an 8-bit q of unknown grid
/// (a graph input) and a per-tensor (s, z) -> DequantizeLinear(
/// QuantizeLinear(T(DequantizeLinear(q)))), all on (s, z).
struct DequantizeOfMovedQuantized : OpRewritePattern<DequantizeLinearOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DequantizeLinearOp dq, PatternRewriter &rewriter) const override {
    Operation *move = dq.getInput().getDefiningOp();
    if (!movesIntegers(move) || !perTensor(dq.getScale(), dq.getZeroPoint()) ||
        !cast<ShapedType>(dq.getScale().getType()).getElementType().isF32())
      return failure();
    Value requantized = moveOnDequantized(rewriter, move, dq.getScale(), dq.getZeroPoint());
    rewriter.replaceOpWithNewOp<DequantizeLinearOp>(dq, dq.getType(), requantized, dq.getScale(),
                                                    dq.getZeroPoint(), dq.getAxisAttr());
    return success();
  }
};

/// QLinearMatMul(a, sa, za, b, sb, zb, sy, zy) with per-tensor parameters
/// and a b computed at run time (attention's Q K^T and P V), or a constant
/// b other than s8 of zero point 0 (u8, or s8 with zero points; b's
/// parameters may then be per column) -> QuantizeLinear(MatMul(
/// DequantizeLinear(a), DequantizeLinear(b)), sy, zy), the QDQ form:
/// nunc-fuse-attention takes the first; nunc-fuse-linear makes the second
/// an int8 GEMM with u8 weights with zero points (s8 ones as the u8 ones
/// 128 higher) where K allows, else an f32 GEMM on the dequantized weight
/// (instead of generic integer loops). A constant s8 b of zero point 0
/// becomes an int8 GEMM in nunc-fuse-linear directly.
struct QLinearMatMulToQdq : OpRewritePattern<QLinearMatMulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(QLinearMatMulOp op, PatternRewriter &rewriter) const override {
    auto aType = dyn_cast<RankedTensorType>(op.getA().getType());
    auto bType = dyn_cast<RankedTensorType>(op.getB().getType());
    auto outType = dyn_cast<RankedTensorType>(op.getType());
    if (!aType || !bType || !outType || !perTensor(op.getAScale(), op.getAZeroPoint()) ||
        !perTensor(op.getYScale(), op.getYZeroPoint()))
      return failure();
    if (matchPattern(op.getB(), m_Constant())) {
      if (bType.getRank() != 2 || !bType.hasStaticShape() ||
          !perTensorOrAxis(op.getBScale(), bType.getDimSize(1)) ||
          !perTensorOrAxis(op.getBZeroPoint(), bType.getDimSize(1)) ||
          isQuantizedWeight(op.getB(), op.getBScale(), op.getBZeroPoint(), kLinearWeight, 1))
        return failure();
    } else if (!perTensor(op.getBScale(), op.getBZeroPoint())) {
      return failure();
    }
    for (Value scale : {op.getAScale(), op.getBScale(), op.getYScale()})
      if (!cast<ShapedType>(scale.getType()).getElementType().isF32())
        return failure();
    Location loc = op.getLoc();
    Type f32 = rewriter.getF32Type();
    auto one = rewriter.getI64IntegerAttr(1);
    Value a = DequantizeLinearOp::create(rewriter, loc, aType.clone(f32), op.getA(),
                                         op.getAScale(), op.getAZeroPoint(), one);
    Value b = DequantizeLinearOp::create(rewriter, loc, bType.clone(f32), op.getB(),
                                         op.getBScale(), op.getBZeroPoint(), one);
    Value product = MatMulOp::create(rewriter, loc, outType.clone(f32), a, b);
    rewriter.replaceOpWithNewOp<QuantizeLinearOp>(op, outType, product, op.getYScale(),
                                                  op.getYZeroPoint(), one,
                                                  TypeAttr::get(outType.getElementType()));
    return success();
  }
};

struct QOperatorToQdqPass : public mlir::nunc::impl::QOperatorToQdqBase<QOperatorToQdqPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<QLinearConvToQdq, QLinearMatMulToQdq, MoveQuantizedOnDequantized,
                 DequantizeOfMovedQuantized>(
        &getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
