//===- FuseLayerNorm.cpp - decomposed LayerNorm to nunc.layer_norm --------===//

#include "PatternUtils.h"
#include "nunc/Transforms/Passes.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::nunc {
#define GEN_PASS_DEF_FUSELAYERNORM
#include "nunc/Transforms/Passes.h.inc"
} // namespace mlir::nunc

using namespace mlir;
using namespace mlir::nunc;

namespace {

/// The first reduced axis when `mean` is a keepdims ReduceMean of `x` over
/// the trailing axes of x; std::nullopt otherwise.
std::optional<int64_t> trailingMeanAxis(ReduceMeanOp mean, Value x) {
  auto type = dyn_cast<RankedTensorType>(x.getType());
  if (!mean || mean.getData() != x || !mean.getKeepdims() || !mean.getAxes() || !type)
    return std::nullopt;
  std::optional<SmallVector<int64_t>> axes = getConstantInts(mean.getAxes());
  if (!axes || axes->empty())
    return std::nullopt;
  int64_t rank = type.getRank();
  SmallVector<int64_t> norm;
  for (int64_t a : *axes)
    norm.push_back(a < 0 ? a + rank : a);
  llvm::sort(norm);
  for (size_t i = 0; i < norm.size(); ++i)
    if (norm[i] != rank - (int64_t)norm.size() + (int64_t)i)
      return std::nullopt;
  return norm.front();
}

/// Whether an op rounds its result to a grid (output_quantization, or an
/// Add's or Mul's codes): a QDQ model's step between pairs, which a fused
/// LayerNorm would not round.
bool roundsToAGrid(Operation *op) {
  return op->hasAttr("output_quantization") || op->hasAttr("lhs_quantization");
}

struct LayerNormPattern : OpRewritePattern<DivOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(DivOp div, PatternRewriter &rewriter) const override {
    SmallVector<Operation *> ops{div};
    // d = x - mean(x)
    auto sub = div.getLhs().getDefiningOp<SubOp>();
    if (!sub)
      return failure();
    Value x = sub.getLhs();
    if (!isa<FloatType>(getElementTypeOrSelf(x.getType())) || x.getType() != div.getType())
      return failure();
    auto mean = singleUseDef<ReduceMeanOp>(sub.getRhs());
    std::optional<int64_t> axis = trailingMeanAxis(mean, x);
    if (!axis)
      return failure();
    ops.append({sub, mean});
    // sqrt(mean(d^2) + eps)
    auto sqrt = singleUseDef<SqrtOp>(div.getRhs());
    auto add = sqrt ? singleUseDef<AddOp>(sqrt.getInput()) : nullptr;
    if (!add)
      return failure();
    ops.append({sqrt, add});
    std::optional<double> eps;
    ReduceMeanOp var;
    for (auto [a, b] : {std::pair(add.getLhs(), add.getRhs()),
                        std::pair(add.getRhs(), add.getLhs())}) {
      if ((eps = getUniformFloat(b)) && (var = singleUseDef<ReduceMeanOp>(a)))
        break;
      var = nullptr;
    }
    Value d = sub.getResult();
    if (!var || trailingMeanAxis(var, var.getData()) != axis)
      return failure();
    ops.push_back(var);
    Operation *square = var.getData().getDefiningOp();
    if (auto pow = dyn_cast_or_null<PowOp>(square)) {
      if (pow.getLhs() != d || !isFloatConstant(pow.getRhs(), 2.0))
        return failure();
    } else if (auto mul = dyn_cast_or_null<MulOp>(square)) {
      if (mul.getLhs() != d || mul.getRhs() != d)
        return failure();
    } else {
      return failure();
    }
    if (!var.getData().hasOneUse())
      return failure();
    ops.push_back(square);
    // d feeds only the square and the division.
    for (Operation *user : d.getUsers())
      if (user != square && user != div.getOperation())
        return failure();

    // Optional affine part: * gamma, + beta, each taken only when it
    // broadcasts to the normalized dims (otherwise it stays a separate op).
    auto xType = dyn_cast<RankedTensorType>(x.getType());
    if (!xType)
      return failure();
    ArrayRef<int64_t> normalizedDims = xType.getShape().drop_front(*axis);
    auto affine = [&](Operation *op, Value from) -> Value {
      Value other = otherOperand(op, from);
      if (!other || roundsToAGrid(op) || op->getResult(0).getType() != x.getType() ||
          !broadcastsTo(other, normalizedDims, xType.getElementType()))
        return nullptr;
      return other;
    };
    Operation *last = div;
    Value gamma, beta;
    if (div.getResult().hasOneUse())
      if (auto mul = dyn_cast<MulOp>(*div->user_begin()))
        if ((gamma = affine(mul, div.getResult()))) {
          last = mul;
          if (mul.getResult().hasOneUse())
            if (auto addBeta = dyn_cast<AddOp>(*mul->user_begin()))
              if ((beta = affine(addBeta, mul.getResult())))
                last = addBeta;
        }
    if (last != div.getOperation())
      ops.push_back(last);
    if (last->getResult(0).getType() != x.getType() || llvm::any_of(ops, roundsToAGrid))
      return failure();

    rewriter.setInsertionPoint(last);
    Location loc = fusedLoc(ops);
    if (!gamma) {
      auto type = cast<RankedTensorType>(x.getType());
      ArrayRef<int64_t> normalized = type.getShape().drop_front(*axis);
      if (!type.hasStaticShape() || !type.getElementType().isF32())
        return failure();
      int64_t n = 1;
      for (int64_t dim : normalized)
        n *= dim;
      gamma = createF32Constant(rewriter, loc, normalized, SmallVector<float>(n, 1.f),
                                "layer_norm_scale");
    }
    SmallVector<Value> operands{x, gamma};
    if (beta)
      operands.push_back(beta);
    FailureOr<Operation *> ln = createInferred(
        rewriter, loc, LayerNormOp::getOperationName(), operands,
        {rewriter.getNamedAttr("axis", rewriter.getI64IntegerAttr(*axis)),
         rewriter.getNamedAttr("epsilon", rewriter.getF32FloatAttr(*eps)),
         rewriter.getNamedAttr("stash_type", rewriter.getI64IntegerAttr(1))},
        3, /*reportErrors=*/false);
    if (failed(ln))
      return failure();
    keepResultTypes(*ln, last);
    rewriter.replaceOp(last, (*ln)->getResult(0));
    return success();
  }
};

struct FuseLayerNormPass : public mlir::nunc::impl::FuseLayerNormBase<FuseLayerNormPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<LayerNormPattern>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
