//===- Conv1dAs2d.cpp - 1-D convolutions as 2-D ones of height 1 ----------===//
//
// A 1-D Conv over [N, C, L] is the 2-D Conv over [N, C, 1, L] with a
// [M, C/g, 1, k] weight: the same bytes in the same order, so the reshapes
// around it are views. Lifted, it runs on the convolution kernels (f32 and
// int8) instead of the generic loops (~40x onnxruntime's time for 256
// channels of 500); 1-D MaxPool and AveragePool likewise on the window
// kernel. The ops after it that the conv fusions take (a
// BatchNormalization, a bias or residual Add, an activation) move inside
// the reshape, so that they still follow the conv directly.
//
//===----------------------------------------------------------------------===//

#include "PatternUtils.h"
#include "nunc/Dialect/Nunc/NuncUtils.h"
#include "nunc/Interpreter/Evaluator.h"
#include "nunc/Transforms/Passes.h"

#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::nunc {
#define GEN_PASS_DEF_CONV1DAS2D
#include "nunc/Transforms/Passes.h.inc"
} // namespace mlir::nunc

using namespace mlir;
using namespace mlir::nunc;

namespace {

FailureOr<Value> reshape(PatternRewriter &rewriter, Location loc, Value v,
                         ArrayRef<int64_t> shape) {
  return createInferredValue(rewriter, loc, ReshapeOp::getOperationName(),
                             {v, createI64Constant(rewriter, loc, shape)});
}

/// Replaces `op` by the op `name` made from `operands` and `attrs` (op's
/// lifted form), reshaped back to op's result type.
LogicalResult replaceByLifted(PatternRewriter &rewriter, Operation *op, StringRef name,
                              ValueRange operands, ArrayRef<NamedAttribute> attrs) {
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  FailureOr<Value> y = createInferredValue(rewriter, op->getLoc(), name, operands, attrs);
  if (succeeded(y))
    y = reshape(rewriter, op->getLoc(), *y, type.getShape());
  if (failed(y) || y->getType() != type)
    return failure();
  rewriter.replaceOp(op, *y);
  return success();
}

/// The ops a pattern creates before `op` from here on. A pattern that fails
/// must leave the IR as it was: ops it created and left behind make the
/// rewrite loop until it gives up (a conv weight of run-time shape did,
/// without a word), so its failures go through undo().
class CreatedBefore {
public:
  explicit CreatedBefore(Operation *op) : op(op), before(op->getPrevNode()) {}
  LogicalResult undo(PatternRewriter &rewriter) const {
    while (Operation *created = op->getPrevNode()) {
      if (created == before)
        break;
      rewriter.eraseOp(created);
    }
    return failure();
  }

private:
  Operation *op, *before;
};

/// `shape` with a 1 before its last dim.
SmallVector<int64_t> lifted(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> s(shape);
  s.insert(s.end() - 1, 1);
  return s;
}

/// `v` (static shape) with a 1 before its last dim: a constant stays a
/// constant (the conv kernels and the QDQ conv fusion take only those, and
/// no folding may follow), anything else gets a reshape.
FailureOr<Value> liftValue(PatternRewriter &rewriter, Location loc, Value v) {
  auto type = cast<RankedTensorType>(v.getType());
  ElementsAttr values;
  if (!matchPattern(v, m_Constant(&values)))
    return reshape(rewriter, loc, v, lifted(type.getShape()));
  llvm::Expected<Tensor> t = tensorFromAttr(values);
  if (!t) {
    llvm::consumeError(t.takeError());
    return failure();
  }
  Tensor t4 = cantFail(Tensor::copyOf(t->dtype(), lifted(type.getShape()), t->raw()));
  ElementsAttr attr = attrFromTensor(t4, rewriter.getContext(), "weight");
  return ConstantOp::create(rewriter, loc, attr.getType(), attr).getResult();
}

/// The attributes of a 1-D window op (conv, pool) for its 2-D form:
/// kernel_shape, strides and dilations with a leading 1, pads [0, b, 0, e];
/// failure for other ranks.
FailureOr<SmallVector<NamedAttribute>> liftedWindowAttrs(Operation *op,
                                                         PatternRewriter &rewriter) {
  SmallVector<NamedAttribute> attrs;
  for (NamedAttribute a : op->getAttrs()) {
    StringRef name = a.getName().getValue();
    auto values = dyn_cast<DenseI64ArrayAttr>(a.getValue());
    if (!values ||
        !(name == "kernel_shape" || name == "strides" || name == "dilations" || name == "pads")) {
      attrs.push_back(a);
      continue;
    }
    ArrayRef<int64_t> v = values.asArrayRef();
    if (v.size() != (name == "pads" ? 2u : 1u))
      return failure();
    SmallVector<int64_t> lifted =
        name == "pads" ? SmallVector<int64_t>{0, v[0], 0, v[1]} : SmallVector<int64_t>{1, v[0]};
    attrs.push_back(rewriter.getNamedAttr(name, rewriter.getDenseI64ArrayAttr(lifted)));
  }
  return attrs;
}

/// A conv or pool over [N, C, L] as its 2-D form over [N, C, 1, L].
template <typename OpTy> struct LiftWindowOp : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op, PatternRewriter &rewriter) const override {
    auto in = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
    auto out = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!in || !out || in.getRank() != 3 || !in.hasStaticShape() || !out.hasStaticShape() ||
        op->getNumResults() != 1)
      return failure();
    if constexpr (std::is_same_v<OpTy, ConvOp>) {
      auto w = dyn_cast<RankedTensorType>(op.getWeight().getType());
      if (!w || w.getRank() != 3 || !w.hasStaticShape())
        return failure();
    }
    FailureOr<SmallVector<NamedAttribute>> attrs = liftedWindowAttrs(op, rewriter);
    if (failed(attrs))
      return failure();
    Location loc = op.getLoc();
    rewriter.setInsertionPoint(op);
    CreatedBefore created(op);
    FailureOr<Value> x = reshape(rewriter, loc, op->getOperand(0), lifted(in.getShape()));
    if (failed(x))
      return created.undo(rewriter);
    SmallVector<Value> operands{*x};
    if constexpr (std::is_same_v<OpTy, ConvOp>) {
      FailureOr<Value> weight = liftValue(rewriter, loc, op.getWeight());
      if (failed(weight))
        return created.undo(rewriter);
      operands.push_back(*weight);
      if (op.getBias())
        operands.push_back(op.getBias());
    }
    if (failed(replaceByLifted(rewriter, op, op->getName().getStringRef(), operands, *attrs)))
      return created.undo(rewriter);
    return success();
  }
};

/// Whether a Quantize/DequantizeLinear's (or a fake_quantize's) grid stays
/// the same with a 1 inserted before the last dim: per tensor, or per axis
/// 0 or 1 (the channels of a lifted conv's tensors).
bool gridSurvivesLift(Operation *op) {
  if (auto fq = dyn_cast<FakeQuantizeOp>(op)) {
    auto axis = dyn_cast<quant::UniformQuantizedPerAxisType>(fq.getQuantization());
    return !axis || axis.getQuantizedDimension() == 0 || axis.getQuantizedDimension() == 1;
  }
  auto scale = dyn_cast<RankedTensorType>(op->getOperand(1).getType());
  if (!scale || !scale.hasStaticShape())
    return false;
  if (scale.getNumElements() == 1)
    return true;
  int64_t rank = cast<ShapedType>(op->getOperand(0).getType()).getRank();
  int64_t axis = cast<IntegerAttr>(op->getAttr("axis")).getInt();
  if (axis < 0)
    axis += rank;
  return axis == 0 || axis == 1;
}

/// The [N, M, 1, L] tensor that `v` reshapes to [N, M, L], if it does.
Value liftedSource(Value v) {
  auto r = v.getDefiningOp<ReshapeOp>();
  if (!r)
    return {};
  auto src = dyn_cast<RankedTensorType>(r.getData().getType());
  auto dst = dyn_cast<RankedTensorType>(r.getType());
  if (!src || !dst || !src.hasStaticShape() || !dst.hasStaticShape() || dst.getRank() < 1 ||
      src.getShape() != ArrayRef<int64_t>(lifted(dst.getShape())))
    return {};
  return r.getData();
}

/// An elementwise op (or a BatchNormalization) reading a lifted conv's
/// [N, M, L] result: the op on the [N, M, 1, L] tensor, then the reshape.
/// Its other operands broadcast the same way once they have the extra 1
/// (those of rank 2 or more; a [L] vector or a scalar as they are).
struct SinkReshape : RewritePattern {
  SinkReshape(MLIRContext *ctx) : RewritePattern(MatchAnyOpTypeTag(), 1, ctx) {}
  LogicalResult matchAndRewrite(Operation *op, PatternRewriter &rewriter) const override {
    if (!isa<ReluOp, LeakyReluOp, SigmoidOp, TanhOp, GeluOp, SiluOp, HardSigmoidOp,
             HardSwishOp, ClipOp, AddOp, SubOp, MulOp, DivOp, BatchNormOp, QuantizeLinearOp,
             DequantizeLinearOp, FakeQuantizeOp>(op) ||
        op->getNumResults() != 1)
      return failure();
    // A Q/DQ pair after a lifted conv (a QDQ model's): its grid must stay
    // the same on the 4-D tensor; its scale and zero point stay as they are.
    bool qdq = isa<QuantizeLinearOp, DequantizeLinearOp, FakeQuantizeOp>(op);
    if (qdq && !gridSurvivesLift(op))
      return failure();
    auto outType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!outType || !outType.hasStaticShape() || outType.getRank() < 2)
      return failure();
    // BatchNormalization's parameters are per channel and a Q/DQ's per
    // tensor or channel: only the input moves.
    unsigned movable = isa<BatchNormOp>(op) || qdq ? 1 : op->getNumOperands();
    bool any = false;
    for (unsigned i = 0; i < movable; ++i) {
      Value src = liftedSource(op->getOperand(i));
      if (src && cast<ShapedType>(op->getOperand(i).getType()).getShape() ==
                     outType.getShape())
        any = true;
    }
    if (!any)
      return failure();
    Location loc = op->getLoc();
    rewriter.setInsertionPoint(op);
    CreatedBefore created(op);
    SmallVector<Value> operands;
    for (auto [i, v] : llvm::enumerate(op->getOperands())) {
      auto type = dyn_cast<RankedTensorType>(v.getType());
      if (i >= movable || !type || type.getRank() < 2) {
        operands.push_back(v);
        continue;
      }
      if (!type.hasStaticShape())
        return created.undo(rewriter);
      if (Value src = liftedSource(v)) {
        operands.push_back(src);
        continue;
      }
      FailureOr<Value> l = reshape(rewriter, loc, v, lifted(type.getShape()));
      if (failed(l))
        return created.undo(rewriter);
      operands.push_back(*l);
    }
    if (failed(replaceByLifted(rewriter, op, op->getName().getStringRef(), operands,
                               llvm::to_vector(op->getAttrs()))))
      return created.undo(rewriter);
    return success();
  }
};

/// A lifting reshape of a QDQ model's Quantize- or DequantizeLinear (or the
/// fake_quantize a pair became) moves above it (a constant's codes
/// reshaped at compile time), so that a lifted conv reads the pair and
/// DequantizeLinear(W) as the QDQ conv fusion wants them.
struct HoistLiftAboveQdq : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op, PatternRewriter &rewriter) const override {
    Operation *q = op.getData().getDefiningOp();
    auto dst = dyn_cast<RankedTensorType>(op.getType());
    if (!q || !isa<QuantizeLinearOp, DequantizeLinearOp, FakeQuantizeOp>(q) || !dst ||
        !dst.hasStaticShape() || !gridSurvivesLift(q))
      return failure();
    Value in = q->getOperand(0);
    auto inType = dyn_cast<RankedTensorType>(in.getType());
    if (!inType || !inType.hasStaticShape() || inType.getRank() < 1 ||
        dst.getShape() != ArrayRef<int64_t>(lifted(inType.getShape())))
      return failure();
    Location loc = op.getLoc();
    rewriter.setInsertionPoint(op);
    CreatedBefore created(op);
    FailureOr<Value> lifted4 = liftValue(rewriter, loc, in);
    if (failed(lifted4))
      return created.undo(rewriter);
    SmallVector<Value> operands(q->getOperands());
    operands[0] = *lifted4;
    FailureOr<Value> moved =
        createInferredValue(rewriter, q->getLoc(), q->getName().getStringRef(), operands,
                            llvm::to_vector(q->getAttrs()));
    if (failed(moved) || moved->getType() != op.getType())
      return created.undo(rewriter);
    // (With other readers, such as a residual Add, the original stays for
    // them: the lifted copy ends in the int8 conv's own quantizer.)
    rewriter.replaceOp(op, *moved);
    if (q->use_empty())
      rewriter.eraseOp(q);
    return success();
  }
};

/// Reshape(Reshape(x)) is one reshape of x, and none where it gives x's
/// shape back (a lifted conv feeding the next one).
struct FoldReshapePair : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op, PatternRewriter &rewriter) const override {
    auto inner = op.getData().getDefiningOp<ReshapeOp>();
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (!inner || !type || !type.hasStaticShape())
      return failure();
    if (inner.getData().getType() == op.getType()) {
      rewriter.replaceOp(op, inner.getData());
      return success();
    }
    rewriter.setInsertionPoint(op);
    CreatedBefore created(op);
    FailureOr<Value> y = reshape(rewriter, op.getLoc(), inner.getData(), type.getShape());
    if (failed(y) || y->getType() != op.getType())
      return created.undo(rewriter);
    rewriter.replaceOp(op, *y);
    return success();
  }
};

struct Conv1dAs2dPass : public mlir::nunc::impl::Conv1dAs2dBase<Conv1dAs2dPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<LiftWindowOp<ConvOp>, LiftWindowOp<MaxPoolOp>, LiftWindowOp<AveragePoolOp>,
                 FoldReshapePair>(&getContext());
    patterns.add<SinkReshape, HoistLiftAboveQdq>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
