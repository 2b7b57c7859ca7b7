//===- FuseActivations.cpp - exported HardSigmoid/HardSwish/SiLU to nunc ops -===//

#include "PatternUtils.h"
#include "nunc/Transforms/Passes.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>

namespace mlir::nunc {
#define GEN_PASS_DEF_FUSEACTIVATIONS
#include "nunc/Transforms/Passes.h.inc"
} // namespace mlir::nunc

using namespace mlir;
using namespace mlir::nunc;

namespace {

/// The finite f32 scalar `c` of `x op c` or `c op x` (a commutative op);
/// returns x. (A NaN or infinite shift or scale stays as the model has it:
/// inside the fused op's clamp, its NaN would become a bound.)
template <typename BinOp> Value matchScalarOperand(Value v, float &c) {
  auto op = singleUseDef<BinOp>(v);
  if (!op)
    return nullptr;
  if (std::optional<float> r = getUniformF32(op.getRhs()); r && std::isfinite(*r)) {
    c = *r;
    return op.getLhs();
  }
  if (std::optional<float> l = getUniformF32(op.getLhs()); l && std::isfinite(*l)) {
    c = *l;
    return op.getRhs();
  }
  return nullptr;
}

/// clamp(x + c, 0, d) with d > 0: returns x, c and d.
std::optional<std::tuple<Value, float, float>> matchShiftedRelu6(Value v) {
  auto clip = singleUseDef<ClipOp>(v);
  if (!clip || !clip.getMin() || !clip.getMax())
    return std::nullopt;
  std::optional<float> lo = getUniformF32(clip.getMin()), hi = getUniformF32(clip.getMax());
  if (!lo || !hi || *lo != 0.f || !(*hi > 0.f))
    return std::nullopt;
  float c;
  Value x = matchScalarOperand<AddOp>(clip.getInput(), c);
  if (!x)
    return std::nullopt;
  return std::tuple(x, c, *hi);
}

/// Whether the root (a Div by f, or a Mul by f) divides by d.
template <typename RootOp> bool dividesBy(float f, float d) {
  return std::is_same_v<RootOp, DivOp> ? f == d : std::fabs(f * d - 1.f) <= 1e-6f;
}

/// (value, constant) operand pairs to try: a Div's dividend and divisor, a
/// Mul's operands in either order.
template <typename RootOp> SmallVector<std::pair<Value, Value>, 2> operandOrders(RootOp root) {
  SmallVector<std::pair<Value, Value>, 2> orders{{root.getLhs(), root.getRhs()}};
  if constexpr (std::is_same_v<RootOp, MulOp>)
    orders.push_back({root.getRhs(), root.getLhs()});
  return orders;
}

template <typename OpTy>
LogicalResult replaceWith(PatternRewriter &rewriter, Operation *root, Value x, float alpha,
                          float beta) {
  if (x.getType() != root->getResult(0).getType())
    return failure();
  rewriter.replaceOpWithNewOp<OpTy>(root, root->getResult(0).getType(), x,
                                    rewriter.getF32FloatAttr(alpha),
                                    rewriter.getF32FloatAttr(beta));
  return success();
}

/// clamp(x * a + b, 0, 1) at a Clip.
struct UnitClampToHardSigmoid : OpRewritePattern<ClipOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ClipOp clip, PatternRewriter &rewriter) const override {
    if (!getElementTypeOrSelf(clip.getType()).isF32())
      return failure();
    Value inner = clip.getInput();
    std::optional<float> lo = clip.getMin() ? getUniformF32(clip.getMin()) : std::nullopt;
    std::optional<float> hi = clip.getMax() ? getUniformF32(clip.getMax()) : std::nullopt;
    if (!lo || !hi || *lo != 0.f || *hi != 1.f)
      return failure();
    float a, b;
    Value scaled = matchScalarOperand<AddOp>(inner, b);
    Value x = scaled ? matchScalarOperand<MulOp>(scaled, a) : Value();
    if (!x)
      return failure();
    return replaceWith<HardSigmoidOp>(rewriter, clip, x, a, b);
  }
};

/// clamp(x + c, 0, d) / d at the Div (or the Mul by 1 / d).
template <typename RootOp> struct ScaledRelu6ToHardSigmoid : OpRewritePattern<RootOp> {
  using OpRewritePattern<RootOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(RootOp root, PatternRewriter &rewriter) const override {
    if (!getElementTypeOrSelf(root.getType()).isF32())
      return failure();
    for (auto [v, k] : operandOrders(root)) {
      std::optional<float> f = getUniformF32(k);
      std::optional<std::tuple<Value, float, float>> m = matchShiftedRelu6(v);
      if (!f || !m)
        continue;
      auto [x, c, d] = *m;
      if (dividesBy<RootOp>(*f, d))
        return replaceWith<HardSigmoidOp>(rewriter, root, x, 1.f / d, c / d);
    }
    return failure();
  }
};

/// x * hard_sigmoid(x) (hard swish) and x * sigmoid(x) (SiLU) at the Mul:
/// x read by both, the gate by the Mul only.
struct SelfGatedPattern : OpRewritePattern<MulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MulOp mul, PatternRewriter &rewriter) const override {
    if (!getElementTypeOrSelf(mul.getType()).isF32())
      return failure();
    for (auto [x, gate] : {std::pair(mul.getLhs(), mul.getRhs()),
                           std::pair(mul.getRhs(), mul.getLhs())}) {
      if (auto hs = singleUseDef<HardSigmoidOp>(gate); hs && hs.getInput() == x)
        return replaceWith<HardSwishOp>(rewriter, mul, x, hs.getAlpha().convertToFloat(),
                                        hs.getBeta().convertToFloat());
      if (auto s = singleUseDef<SigmoidOp>(gate);
          s && s.getInput() == x && x.getType() == mul.getType()) {
        rewriter.replaceOpWithNewOp<SiluOp>(mul, mul.getType(), x);
        return success();
      }
    }
    return failure();
  }
};

/// x * clamp(x + c, 0, d) / d at the Div (or the Mul by 1 / d).
template <typename RootOp> struct DividedProductToHardSwish : OpRewritePattern<RootOp> {
  using OpRewritePattern<RootOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(RootOp root, PatternRewriter &rewriter) const override {
    if (!getElementTypeOrSelf(root.getType()).isF32())
      return failure();
    for (auto [p, k] : operandOrders(root)) {
      std::optional<float> f = getUniformF32(k);
      auto product = singleUseDef<MulOp>(p);
      if (!f || !product)
        continue;
      for (auto [x, clipped] : {std::pair(product.getLhs(), product.getRhs()),
                                std::pair(product.getRhs(), product.getLhs())}) {
        std::optional<std::tuple<Value, float, float>> m = matchShiftedRelu6(clipped);
        if (!m || std::get<0>(*m) != x)
          continue;
        auto [_, c, d] = *m;
        if (dividesBy<RootOp>(*f, d))
          return replaceWith<HardSwishOp>(rewriter, root, x, 1.f / d, c / d);
      }
    }
    return failure();
  }
};

struct FuseActivationsPass
    : public mlir::nunc::impl::FuseActivationsBase<FuseActivationsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<UnitClampToHardSigmoid, ScaledRelu6ToHardSigmoid<DivOp>,
                 ScaledRelu6ToHardSigmoid<MulOp>, SelfGatedPattern,
                 DividedProductToHardSwish<DivOp>, DividedProductToHardSwish<MulOp>>(
        &getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
