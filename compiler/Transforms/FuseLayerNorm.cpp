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

/// Replaces the normalization `ops` (of x over the dims from `axis` on,
/// ending in `normalized`), with its optional affine part (* gamma, + beta,
/// each taken only when it broadcasts to the normalized dims; otherwise it
/// stays a separate op), by one nunc.layer_norm.
LogicalResult replaceWithNorm(PatternRewriter &rewriter, SmallVector<Operation *> &ops, Value x,
                              int64_t axis, double eps, Operation *normalized, bool rms) {
  auto xType = dyn_cast<RankedTensorType>(x.getType());
  if (!xType)
    return failure();
  ArrayRef<int64_t> normalizedDims = xType.getShape().drop_front(axis);
  auto affine = [&](Operation *op, Value from) -> Value {
    Value other = otherOperand(op, from);
    if (!other || roundsToAGrid(op) || op->getResult(0).getType() != x.getType() ||
        !broadcastsTo(other, normalizedDims, xType.getElementType()))
      return nullptr;
    return other;
  };
  Operation *last = normalized;
  Value gamma, beta;
  Value y = normalized->getResult(0);
  if (y.hasOneUse())
    if (auto mul = dyn_cast<MulOp>(*y.user_begin()))
      if ((gamma = affine(mul, y))) {
        last = mul;
        if (mul.getResult().hasOneUse())
          if (auto addBeta = dyn_cast<AddOp>(*mul->user_begin()))
            if ((beta = affine(addBeta, mul.getResult())))
              last = addBeta;
      }
  if (last != normalized)
    ops.push_back(last);
  if (last->getResult(0).getType() != x.getType() || llvm::any_of(ops, roundsToAGrid))
    return failure();

  rewriter.setInsertionPoint(last);
  Location loc = fusedLoc(ops);
  if (!gamma) {
    if (!xType.hasStaticShape() || !xType.getElementType().isF32())
      return failure();
    int64_t n = 1;
    for (int64_t dim : normalizedDims)
      n *= dim;
    gamma = createF32Constant(rewriter, loc, normalizedDims, SmallVector<float>(n, 1.f),
                              "layer_norm_scale");
  }
  SmallVector<Value> operands{x, gamma};
  if (beta)
    operands.push_back(beta);
  SmallVector<NamedAttribute> attrs{
      rewriter.getNamedAttr("axis", rewriter.getI64IntegerAttr(axis)),
      rewriter.getNamedAttr("epsilon", rewriter.getF32FloatAttr(eps)),
      rewriter.getNamedAttr("stash_type", rewriter.getI64IntegerAttr(1))};
  if (rms)
    attrs.push_back(rewriter.getNamedAttr("rms", rewriter.getUnitAttr()));
  FailureOr<Operation *> ln = createInferred(rewriter, loc, LayerNormOp::getOperationName(),
                                             operands, attrs, 3, /*reportErrors=*/false);
  if (failed(ln))
    return failure();
  keepResultTypes(*ln, last);
  rewriter.replaceOp(last, (*ln)->getResult(0));
  return success();
}

/// eps and the mean of the squares when `add` is mean(sq) + eps (either
/// order) with a single-use keepdims ReduceMean.
std::optional<std::pair<double, ReduceMeanOp>> meanSquarePlusEps(AddOp add) {
  for (auto [a, b] :
       {std::pair(add.getLhs(), add.getRhs()), std::pair(add.getRhs(), add.getLhs())})
    if (std::optional<double> eps = getUniformFloat(b))
      if (auto var = singleUseDef<ReduceMeanOp>(a))
        return std::pair(*eps, var);
  return std::nullopt;
}

/// Whether a constant is exactly `want` (isFloatConstant allows a 16-bit
/// float's precision, too loose for a factor the fusion drops).
bool isExactly(Value v, double want) {
  std::optional<double> got = getUniformFloat(v);
  return got && *got == want;
}

/// Whether `square` is d * d or Pow(d, 2).
bool squares(Operation *square, Value d) {
  if (auto pow = dyn_cast_or_null<PowOp>(square))
    return pow.getLhs() == d && isExactly(pow.getRhs(), 2.0);
  if (auto mul = dyn_cast_or_null<MulOp>(square))
    return mul.getLhs() == d && mul.getRhs() == d;
  return false;
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
    std::optional<std::pair<double, ReduceMeanOp>> moments = meanSquarePlusEps(add);
    Value d = sub.getResult();
    if (!moments)
      return failure();
    auto [eps, var] = *moments;
    if (trailingMeanAxis(var, var.getData()) != axis)
      return failure();
    ops.push_back(var);
    Operation *square = var.getData().getDefiningOp();
    if (!squares(square, d) || !var.getData().hasOneUse())
      return failure();
    ops.push_back(square);
    // d feeds only the square and the division.
    for (Operation *user : d.getUsers())
      if (user != square && user != div.getOperation())
        return failure();

    return replaceWithNorm(rewriter, ops, x, *axis, eps, div, /*rms=*/false);
  }
};

/// RMSNorm as Llama-style exports and ONNX's RMSNormalization body write
/// it: x / sqrt(mean(x^2) + eps), or x * (1 / sqrt(...)) (Reciprocal,
/// torch's rsqrt), then the optional affine part: one nunc.layer_norm
/// {rms}.
struct RmsNormPattern : OpRewritePattern<SqrtOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(SqrtOp sqrt, PatternRewriter &rewriter) const override {
    auto add = singleUseDef<AddOp>(sqrt.getInput());
    std::optional<std::pair<double, ReduceMeanOp>> moments =
        add ? meanSquarePlusEps(add) : std::nullopt;
    if (!moments || !sqrt.getResult().hasOneUse())
      return failure();
    auto [eps, var] = *moments;
    Operation *square = var.getData().getDefiningOp();
    if (!square || !var.getData().hasOneUse())
      return failure();
    Value x = square->getOperand(0);
    std::optional<int64_t> axis = trailingMeanAxis(var, var.getData());
    if (!axis || !squares(square, x) || !isa<FloatType>(getElementTypeOrSelf(x.getType())))
      return failure();
    // x - mean(x) over the same axes: a LayerNorm's, LayerNormPattern's to
    // take (whichever root the driver visits first).
    if (auto sub = x.getDefiningOp<SubOp>())
      if (auto mean = sub.getRhs().getDefiningOp<ReduceMeanOp>())
        if (trailingMeanAxis(mean, sub.getLhs()) == axis)
          return failure();
    SmallVector<Operation *> ops{square, var, add, sqrt};
    // x / root, or x * (1 / root).
    Operation *user = *sqrt->user_begin();
    Operation *normalized = nullptr;
    if (auto div = dyn_cast<DivOp>(user); div && div.getLhs() == x) {
      normalized = div;
    } else if (auto inverse = dyn_cast<DivOp>(user);
               inverse && isExactly(inverse.getLhs(), 1.0) &&
               inverse.getResult().hasOneUse()) {
      auto mul = dyn_cast<MulOp>(*inverse->user_begin());
      if (mul && otherOperand(mul, inverse.getResult()) == x) {
        ops.push_back(inverse);
        normalized = mul;
      }
    }
    if (!normalized || normalized->getResult(0).getType() != x.getType())
      return failure();
    ops.push_back(normalized);
    // x feeds the square and the normalization (and anything else, which
    // keeps it: the residual stream).
    return replaceWithNorm(rewriter, ops, x, *axis, eps, normalized, /*rms=*/true);
  }
};

struct FuseLayerNormPass : public mlir::nunc::impl::FuseLayerNormBase<FuseLayerNormPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<LayerNormPattern, RmsNormPattern>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
