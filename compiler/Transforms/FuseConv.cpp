//===- FuseConv.cpp - Conv + residual Add + activation --------------------===//

#include "PatternUtils.h"
#include "nunc/Transforms/Passes.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>

namespace mlir::nunc {
#define GEN_PASS_DEF_FUSECONV
#include "nunc/Transforms/Passes.h.inc"
} // namespace mlir::nunc

using namespace mlir;
using namespace mlir::nunc;

namespace {

/// The parts of a conv or fused_conv.
struct ConvParts {
  Operation *op = nullptr;
  Value input, weight, bias, residual;
  StringRef activation = "none";
  float min = 0, max = 0;
};

std::optional<ConvParts> convParts(Value v) {
  ConvParts p;
  if (auto conv = singleUseDef<ConvOp>(v)) {
    p = {conv, conv.getInput(), conv.getWeight(), conv.getBias()};
  } else if (auto fused = singleUseDef<FusedConvOp>(v)) {
    p = {fused, fused.getInput(), fused.getWeight(), fused.getBias(), fused.getResidual(),
         fused.getActivation(), fused.getActivationMin().convertToFloat(),
         fused.getActivationMax().convertToFloat()};
  } else {
    return std::nullopt;
  }
  return p;
}

FailureOr<Operation *> buildFusedConv(PatternRewriter &rewriter, Location loc,
                                      const ConvParts &p) {
  Operation *src = p.op;
  SmallVector<Value> operands{p.input, p.weight};
  if (p.bias)
    operands.push_back(p.bias);
  if (p.residual)
    operands.push_back(p.residual);
  SmallVector<NamedAttribute> attrs;
  for (StringRef name : {"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"})
    if (Attribute a = src->getAttr(name))
      attrs.push_back(rewriter.getNamedAttr(name, a));
  attrs.push_back(rewriter.getNamedAttr(
      "operandSegmentSizes",
      rewriter.getDenseI32ArrayAttr({1, 1, p.bias ? 1 : 0, p.residual ? 1 : 0})));
  attrs.push_back(rewriter.getNamedAttr("activation", rewriter.getStringAttr(p.activation)));
  attrs.push_back(rewriter.getNamedAttr("activation_min", rewriter.getF32FloatAttr(p.min)));
  attrs.push_back(rewriter.getNamedAttr("activation_max", rewriter.getF32FloatAttr(p.max)));
  return createInferred(rewriter, loc, FusedConvOp::getOperationName(), operands, attrs, 1,
                        /*reportErrors=*/false);
}

struct AddIntoConv : OpRewritePattern<AddOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AddOp add, PatternRewriter &rewriter) const override {
    for (auto [a, b] : {std::pair(add.getLhs(), add.getRhs()),
                        std::pair(add.getRhs(), add.getLhs())}) {
      std::optional<ConvParts> p = convParts(a);
      if (!p || p->residual || p->activation != "none" || b.getType() != add.getType() ||
          a.getType() != add.getType())
        continue;
      p->residual = b;
      rewriter.setInsertionPoint(add);
      FailureOr<Operation *> fused = buildFusedConv(rewriter, fusedLoc({p->op, add}), *p);
      if (failed(fused))
        return failure();
      keepResultTypes(*fused, add);
    rewriter.replaceOp(add, (*fused)->getResults());
      return success();
    }
    return failure();
  }
};

template <typename ActOp> struct ActivationIntoConv : OpRewritePattern<ActOp> {
  using OpRewritePattern<ActOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(ActOp act, PatternRewriter &rewriter) const override {
    std::optional<ConvParts> p = convParts(act->getOperand(0));
    if (!p || p->activation != "none" || act->getOperand(0).getType() != act.getType())
      return failure();
    if constexpr (std::is_same_v<ActOp, ReluOp>) {
      p->activation = "relu";
    } else if constexpr (std::is_same_v<ActOp, SigmoidOp>) {
      p->activation = "sigmoid";
    } else if constexpr (std::is_same_v<ActOp, TanhOp>) {
      p->activation = "tanh";
    } else if constexpr (std::is_same_v<ActOp, GeluOp>) {
      p->activation = act.getApproximate() == "tanh" ? "gelu_tanh" : "gelu";
    } else {
      std::optional<double> lo = act.getMin() ? getUniformFloat(act.getMin()) : -INFINITY;
      std::optional<double> hi = act.getMax() ? getUniformFloat(act.getMax()) : INFINITY;
      if (!lo || !hi)
        return failure();
      p->activation = "clip";
      p->min = *lo;
      p->max = *hi;
    }
    rewriter.setInsertionPoint(act);
    FailureOr<Operation *> fused = buildFusedConv(rewriter, fusedLoc({p->op, act}), *p);
    if (failed(fused))
      return failure();
    keepResultTypes(*fused, act);
    rewriter.replaceOp(act, (*fused)->getResults());
    return success();
  }
};

struct FuseConvPass : public mlir::nunc::impl::FuseConvBase<FuseConvPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<AddIntoConv, ActivationIntoConv<ReluOp>, ActivationIntoConv<ClipOp>,
                 ActivationIntoConv<SigmoidOp>, ActivationIntoConv<TanhOp>,
                 ActivationIntoConv<GeluOp>>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
