//===- FuseConv.cpp - Conv + residual Add + activation --------------------===//

#include "PatternUtils.h"
#include "nunc/Transforms/Passes.h"

#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>

namespace mlir::nunc {
#define GEN_PASS_DEF_FUSECONV
#include "nunc/Transforms/Passes.h.inc"
} // namespace mlir::nunc

using namespace mlir;
using namespace mlir::nunc;

namespace {

/// The parts of a conv, fused_conv or quantized_conv.
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
  } else if (auto q = singleUseDef<QuantizedConvOp>(v)) {
    // Nothing folds after the rounding to an output grid.
    if (q.getOutputQuantization())
      return std::nullopt;
    p = {q, q.getInput(), q.getWeight(), q.getBias(), q.getResidual(), q.getActivation(),
         q.getActivationMin().convertToFloat(), q.getActivationMax().convertToFloat()};
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
  bool quantized = isa<QuantizedConvOp>(src);
  for (StringRef name : {"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides",
                         "activation_quantization", "input_quantization"})
    if (Attribute a = src->getAttr(name))
      attrs.push_back(rewriter.getNamedAttr(name, a));
  attrs.push_back(rewriter.getNamedAttr(
      "operandSegmentSizes",
      rewriter.getDenseI32ArrayAttr({1, 1, p.bias ? 1 : 0, p.residual ? 1 : 0})));
  attrs.push_back(rewriter.getNamedAttr("activation", rewriter.getStringAttr(p.activation)));
  attrs.push_back(rewriter.getNamedAttr("activation_min", rewriter.getF32FloatAttr(p.min)));
  attrs.push_back(rewriter.getNamedAttr("activation_max", rewriter.getF32FloatAttr(p.max)));
  return createInferred(rewriter, loc,
                        quantized ? QuantizedConvOp::getOperationName()
                                  : FusedConvOp::getOperationName(),
                        operands, attrs, 1, /*reportErrors=*/false);
}

/// The per-tensor u8/s8 grid x was rounded to, and x: a QuantizeLinear /
/// DequantizeLinear pair, or the fake_quantize it became.
std::optional<std::pair<Value, TypeAttr>> quantizedInput(Value v) {
  MLIRContext *ctx = v.getContext();
  if (auto dq = v.getDefiningOp<DequantizeLinearOp>()) {
    auto q = dq.getInput().getDefiningOp<QuantizeLinearOp>();
    if (!q || !cast<ShapedType>(q.getInput().getType()).getElementType().isF32())
      return std::nullopt;
    Type storage = cast<ShapedType>(q.getType()).getElementType();
    std::optional<TypeAttr> grid = staticInputGrid(ctx, q.getScale(), q.getZeroPoint(), storage);
    if (!grid || grid != staticInputGrid(ctx, dq.getScale(), dq.getZeroPoint(), storage))
      return std::nullopt;
    return std::pair(q.getInput(), *grid);
  }
  if (auto fq = v.getDefiningOp<FakeQuantizeOp>()) {
    auto t = dyn_cast<quant::UniformQuantizedType>(fq.getQuantization());
    if (!t || t.getStorageTypeIntegralWidth() != 8)
      return std::nullopt;
    // s8 grids become the u8 one 128 higher (same rounding and saturation).
    int64_t shift = t.isSigned() ? 128 : 0;
    if (t.getStorageTypeMin() + shift != 0 || t.getStorageTypeMax() + shift != 255)
      return std::nullopt;
    return std::pair(fq.getInput(),
                     TypeAttr::get(quant::UniformQuantizedType::get(
                         0, IntegerType::get(ctx, 8), Float32Type::get(ctx), t.getScale(),
                         t.getZeroPoint() + shift, 0, 255)));
  }
  return std::nullopt;
}

/// Conv(Q/DQ(x), DequantizeLinear(Wq, sW, 0), bias) of a QDQ model (or the
/// fused_conv it became) -> quantized_conv(x, Wq) with static activations
/// (see the pass).
template <typename ConvTy> struct QdqConvToQuantizedConv : OpRewritePattern<ConvTy> {
  using OpRewritePattern<ConvTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(ConvTy conv, PatternRewriter &rewriter) const override {
    auto in = dyn_cast<RankedTensorType>(conv.getInput().getType());
    auto dqW = conv.getWeight().template getDefiningOp<DequantizeLinearOp>();
    if (!in || in.getRank() != 4 || !in.hasStaticShape() || !in.getElementType().isF32() ||
        conv.getGroup() != 1 || !dqW ||
        (conv.getBias() && !matchPattern(conv.getBias(), m_Constant())))
      return failure();
    std::optional<std::pair<Value, TypeAttr>> x = quantizedInput(conv.getInput());
    if (!x)
      return failure();
    Location loc = fusedLoc({conv.getInput().getDefiningOp(), dqW, conv});
    rewriter.setInsertionPoint(conv);
    FailureOr<Value> weight = quantizedWeight(rewriter, loc, dqW.getInput(), dqW.getScale(),
                                              dqW.getZeroPoint(), dqW.getAxis());
    if (failed(weight))
      return failure();
    Value residual;
    StringAttr activation = rewriter.getStringAttr("none");
    FloatAttr lo = rewriter.getF32FloatAttr(0), hi = rewriter.getF32FloatAttr(0);
    if constexpr (std::is_same_v<ConvTy, FusedConvOp>) {
      residual = conv.getResidual();
      activation = conv.getActivationAttr();
      lo = conv.getActivationMinAttr();
      hi = conv.getActivationMaxAttr();
    }
    auto q = QuantizedConvOp::create(
        rewriter, loc, conv.getType(), x->first, *weight, conv.getBias(), residual,
        rewriter.getStringAttr("static"), x->second, TypeAttr(), conv.getAutoPadAttr(),
        conv.getDilationsAttr(), conv.getKernelShapeAttr(), conv.getPadsAttr(),
        conv.getStridesAttr(), activation, lo, hi);
    rewriter.replaceOp(conv, q.getResult());
    return success();
  }
};

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
  using FuseConvBase::FuseConvBase;
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    if (int8)
      patterns.add<QdqConvToQuantizedConv<ConvOp>, QdqConvToQuantizedConv<FusedConvOp>>(
          &getContext(), /*benefit=*/2);
    patterns.add<AddIntoConv, ActivationIntoConv<ReluOp>, ActivationIntoConv<ClipOp>,
                 ActivationIntoConv<SigmoidOp>, ActivationIntoConv<TanhOp>,
                 ActivationIntoConv<GeluOp>>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
