//===- FuseConv.cpp - Conv + residual Add + activation --------------------===//

#include "PatternUtils.h"
#include "nunc/Transforms/Passes.h"

#include "mlir/Dialect/Quant/IR/Quant.h"
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
  EpilogueActivation act;
};

std::optional<ConvParts> convParts(Value v) {
  ConvParts p;
  if (auto conv = singleUseDef<ConvOp>(v)) {
    p = {conv, conv.getInput(), conv.getWeight(), conv.getBias()};
  } else if (auto fused = singleUseDef<FusedConvOp>(v)) {
    p = {fused, fused.getInput(), fused.getWeight(), fused.getBias(), fused.getResidual(),
         EpilogueActivation::of(fused)};
  } else if (auto q = singleUseDef<QuantizedConvOp>(v)) {
    // Nothing folds after the rounding to an output grid or a normalization.
    if (q.getOutputQuantization() || q.getNormScale())
      return std::nullopt;
    p = {q, q.getInput(), q.getWeight(), q.getBias(), q.getResidual(),
         EpilogueActivation::of(q)};
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
  SmallVector<int32_t> segments{1, 1, p.bias ? 1 : 0, p.residual ? 1 : 0};
  if (quantized)
    segments.append({0, 0}); // norm_scale, norm_shift: convParts takes no normalized conv
  attrs.push_back(
      rewriter.getNamedAttr("operandSegmentSizes", rewriter.getDenseI32ArrayAttr(segments)));
  p.act.appendTo(rewriter, attrs);
  return createInferred(rewriter, loc,
                        quantized ? QuantizedConvOp::getOperationName()
                                  : FusedConvOp::getOperationName(),
                        operands, attrs, 1, /*reportErrors=*/false);
}

/// The per-tensor u8/s8 grid x was rounded to, and x: a QuantizeLinear /
/// DequantizeLinear pair, a DequantizeLinear of other integers (then x is
/// its result), the fake_quantize a pair became, or a batch_norm or
/// quantized_conv that took the pair as its output_quantization (then x is
/// that result, already on the grid, which the conv's quantizer maps back
/// exactly).
std::optional<std::pair<Value, TypeAttr>> quantizedInput(Value v) {
  MLIRContext *ctx = v.getContext();
  auto u8Grid = [&](Value x, Type grid) -> std::optional<std::pair<Value, TypeAttr>> {
    auto t = dyn_cast<quant::UniformQuantizedType>(grid);
    if (!t || t.getStorageTypeIntegralWidth() != 8)
      return std::nullopt;
    // s8 grids become the u8 one 128 higher (same rounding and saturation).
    int64_t shift = t.isSigned() ? 128 : 0;
    if (t.getStorageTypeMin() + shift != 0 || t.getStorageTypeMax() + shift != 255)
      return std::nullopt;
    return std::pair(x, TypeAttr::get(quant::UniformQuantizedType::get(
                            0, IntegerType::get(ctx, 8), Float32Type::get(ctx), t.getScale(),
                            t.getZeroPoint() + shift, 0, 255)));
  };
  if (auto dq = v.getDefiningOp<DequantizeLinearOp>()) {
    Type storage = cast<ShapedType>(dq.getInput().getType()).getElementType();
    auto q = dq.getInput().getDefiningOp<QuantizeLinearOp>();
    if (!q) {
      // Integers from elsewhere (a u8 graph input): their dequantized values
      // lie on the grid, which quantizes them back exactly.
      if (!cast<ShapedType>(dq.getType()).getElementType().isF32())
        return std::nullopt;
      if (std::optional<TypeAttr> grid =
              staticInputGrid(ctx, dq.getScale(), dq.getZeroPoint(), storage))
        return std::pair(v, *grid);
      return std::nullopt;
    }
    if (!cast<ShapedType>(q.getInput().getType()).getElementType().isF32())
      return std::nullopt;
    std::optional<TypeAttr> grid = staticInputGrid(ctx, q.getScale(), q.getZeroPoint(), storage);
    if (!grid || grid != staticInputGrid(ctx, dq.getScale(), dq.getZeroPoint(), storage))
      return std::nullopt;
    return std::pair(q.getInput(), *grid);
  }
  if (auto fq = v.getDefiningOp<FakeQuantizeOp>())
    return u8Grid(fq.getInput(), fq.getQuantization());
  if (auto bn = v.getDefiningOp<BatchNormOp>())
    if (std::optional<Type> grid = bn.getOutputQuantization())
      return u8Grid(bn.getResult(), *grid);
  if (auto conv = v.getDefiningOp<QuantizedConvOp>())
    if (std::optional<Type> grid = conv.getLastGrid())
      return u8Grid(conv.getResult(), *grid);
  return std::nullopt;
}

/// Whether the int8 convolution takes u8 weights with zero points of this
/// [M, C, kh, kw] shape (K = C rounded up to 4, times the taps, within
/// kU8WeightMaxDepth).
bool takesU8ConvWeight(Value weight) {
  auto w = dyn_cast<RankedTensorType>(weight.getType());
  if (!w || w.getRank() != 4 || !w.hasStaticShape())
    return false;
  return (w.getDimSize(1) + 3) / 4 * 4 * w.getDimSize(2) * w.getDimSize(3) <= kU8WeightMaxDepth;
}

/// Conv(Q/DQ(x), DequantizeLinear(Wq, sW, zW), bias) of a QDQ model (or the
/// fused_conv it became; zW 0 for s8, any for u8 where takesU8ConvWeight;
/// groups where int8ConvGroups) -> quantized_conv(x, Wq) with static
/// activations (see the pass).
template <typename ConvTy> struct QdqConvToQuantizedConv : OpRewritePattern<ConvTy> {
  using OpRewritePattern<ConvTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(ConvTy conv, PatternRewriter &rewriter) const override {
    auto in = dyn_cast<RankedTensorType>(conv.getInput().getType());
    auto dqW = conv.getWeight().template getDefiningOp<DequantizeLinearOp>();
    if (!in || in.getRank() != 4 || !in.hasStaticShape() || !in.getElementType().isF32() ||
        !dqW || !int8ConvGroups(conv.getGroup(), dqW.getInput()) ||
        (conv.getBias() && !matchPattern(conv.getBias(), m_Constant())))
      return failure();
    std::optional<std::pair<Value, TypeAttr>> x = quantizedInput(conv.getInput());
    if (!x)
      return failure();
    Location loc = fusedLoc({conv.getInput().getDefiningOp(), dqW, conv});
    rewriter.setInsertionPoint(conv);
    FailureOr<Value> weight =
        quantizedWeight(rewriter, loc, dqW.getInput(), dqW.getScale(), dqW.getZeroPoint(),
                        kConvWeight, dqW.getAxis(), takesU8ConvWeight(dqW.getInput()));
    if (failed(weight))
      return failure();
    Value residual;
    if constexpr (std::is_same_v<ConvTy, FusedConvOp>)
      residual = conv.getResidual();
    auto q = QuantizedConvOp::create(
        rewriter, loc, conv.getType(), x->first, *weight, conv.getBias(), residual, Value(),
        Value(), rewriter.getStringAttr("static"), x->second, TypeAttr(), TypeAttr(),
        conv.getAutoPadAttr(), conv.getDilationsAttr(), conv.getKernelShapeAttr(),
        conv.getPadsAttr(), conv.getStridesAttr(), StringAttr(), FloatAttr(), FloatAttr(),
        FloatAttr(), FloatAttr(), FloatAttr(), FloatAttr(), UnitAttr(), DenseF32ArrayAttr(),
        TypeAttr(), UnitAttr(), IntegerAttr(), conv.getGroupAttr());
    EpilogueActivation::of(conv).setOn(q);
    rewriter.replaceOp(conv, q.getResult());
    return success();
  }
};

/// The convolution of an onnxruntime `quantize_dynamic` model:
///   (q, s, zp) = DynamicQuantizeLinear(x)
///   y = Cast<f32>(ConvInteger(q, W, zp, zW)) * (s * sW)
/// with W a constant [M, C / group, kh, kw] (s8 of zero point 0, or u8 with
/// zero points, one or one per output channel, where takesU8ConvWeight;
/// groups where int8ConvGroups), and sW a constant scale (one, or one per output channel shaped to
/// broadcast along dim 1) -> quantized_conv(x, W) with activations
/// quantized per tensor at run time: DynamicQuantizeLinear's arithmetic, the
/// same integer sums, the same rounding of the scale product.
struct DynamicQuantizedConvToQuantizedConv : OpRewritePattern<MulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MulOp mul, PatternRewriter &rewriter) const override {
    std::optional<DynamicQuantizedProduct<ConvIntegerOp>> m =
        matchDynamicQuantizedProduct<ConvIntegerOp>(mul);
    if (!m || !int8ConvGroups(m->op.getGroup(), m->op.getWeight()))
      return failure();
    auto in = dyn_cast<RankedTensorType>(m->dq.getInput().getType());
    auto wsType = dyn_cast<RankedTensorType>(m->weightScale.getType());
    int64_t channels = cast<ShapedType>(m->op.getWeight().getType()).getDimSize(0);
    // One scale, or one per output channel along dim 1 of the result
    // ([M, 1, 1] or [1, M, 1, 1]).
    if (!in || in.getRank() != 4 || !in.hasStaticShape() || !wsType ||
        !wsType.hasStaticShape() ||
        (wsType.getNumElements() != 1 &&
         !(wsType.getNumElements() == channels && wsType.getRank() >= 3 &&
           wsType.getDimSize(wsType.getRank() - 3) == channels)))
      return failure();
    Location loc = fusedLoc({m->dq, m->op, m->castOp, mul});
    rewriter.setInsertionPoint(mul);
    FailureOr<Value> weight =
        quantizedWeight(rewriter, loc, m->op.getWeight(), m->weightScale,
                        m->op.getWeightZeroPoint(), kConvWeight, /*scaleAxis=*/0,
                        takesU8ConvWeight(m->op.getWeight()));
    if (failed(weight))
      return failure();
    ConvIntegerOp ci = m->op;
    auto q = QuantizedConvOp::create(
        rewriter, loc, mul.getType(), m->dq.getInput(), *weight, Value(), Value(),
        Value(), Value(), rewriter.getStringAttr("dynamic_per_tensor"), TypeAttr(), TypeAttr(),
        TypeAttr(), ci.getAutoPadAttr(), ci.getDilationsAttr(), ci.getKernelShapeAttr(), ci.getPadsAttr(),
        ci.getStridesAttr(), StringAttr(), FloatAttr(), FloatAttr(), FloatAttr(), FloatAttr(),
        FloatAttr(), FloatAttr(), UnitAttr(), DenseF32ArrayAttr(), TypeAttr(), UnitAttr(),
        IntegerAttr(), ci.getGroupAttr());
    rewriter.replaceOp(mul, q.getResult());
    return success();
  }
};

/// DynamicQuantizedConvToQuantizedConv's product with a constant weight the
/// int8 convolution cannot take (s8 zero points; u8 weights past
/// takesU8ConvWeight; groups past int8ConvGroups; any, where the target has no int8
/// convolution) -> Conv(DequantizeLinear(q, s, zp),
/// DequantizeLinear(W, sW, zW)): the same products (padding contributes
/// nothing either way), summed in f32. The weight's DequantizeLinear folds
/// after fusion and the conv runs on the f32 kernels, where ConvInteger
/// would run as generic integer loops.
struct DynamicQuantizedConvToDequantized : OpRewritePattern<MulOp> {
  DynamicQuantizedConvToDequantized(MLIRContext *ctx, bool int8Convs)
      : OpRewritePattern(ctx), int8Convs(int8Convs) {}
  bool int8Convs;
  LogicalResult matchAndRewrite(MulOp mul, PatternRewriter &rewriter) const override {
    std::optional<DynamicQuantizedProduct<ConvIntegerOp>> m =
        matchDynamicQuantizedProduct<ConvIntegerOp>(mul);
    if (!m)
      return failure();
    ConvIntegerOp ci = m->op;
    Value w = ci.getWeight(), wZero = ci.getWeightZeroPoint();
    auto wType = dyn_cast<RankedTensorType>(w.getType());
    std::optional<SmallVector<float>> scales = getConstantFloats(m->weightScale);
    if (!wType || !wType.hasStaticShape() || !isa<RankedTensorType>(m->dq.getOutput().getType()) ||
        !scales ||
        !matchPattern(w, m_Constant()) ||
        (int8Convs && int8ConvGroups(ci.getGroup(), w) &&
         isQuantizedWeight(w, m->weightScale, wZero, kConvWeight, 0, takesU8ConvWeight(w))))
      return failure();
    int64_t channels = wType.getDimSize(0);
    // One scale, or one per output channel along dim 1 of the result ([M,
    // 1, 1] or [1, M, 1, 1]): DequantizeLinear takes them along the
    // weight's dim 0 as a scalar or [M].
    auto wsType = cast<RankedTensorType>(m->weightScale.getType());
    bool perChannel = scales->size() != 1;
    if (perChannel && !((int64_t)scales->size() == channels && wsType.getRank() >= 3 &&
                        wsType.getDimSize(wsType.getRank() - 3) == channels))
      return failure();
    if (wZero && !perTensorOrAxis(wZero, channels))
      return failure();
    Location loc = fusedLoc({m->dq, ci, m->castOp, mul});
    rewriter.setInsertionPoint(mul);
    Value scale = createF32Constant(rewriter, loc,
                                    perChannel ? ArrayRef<int64_t>{channels}
                                               : ArrayRef<int64_t>{},
                                    *scales, "weight_scale");
    Value weight = DequantizeLinearOp::create(rewriter, loc, wType.clone(rewriter.getF32Type()),
                                              w, scale, wZero, rewriter.getI64IntegerAttr(0));
    auto conv = ConvOp::create(rewriter, loc, mul.getType(), dequantizedInput(rewriter, loc, m->dq),
                               weight, Value(), ci.getAutoPadAttr(), ci.getDilationsAttr(),
                               ci.getGroupAttr(), ci.getKernelShapeAttr(), ci.getPadsAttr(),
                               ci.getStridesAttr(), /*weight_quantization=*/TypeAttr());
    rewriter.replaceOp(mul, conv.getResult());
    return success();
  }
};

/// BatchNormalization after a quantized_conv (a quantize_dynamic model keeps
/// the BN the f32 model had) -> the conv's normalization (norm_scale,
/// norm_shift): onnxruntime runs the BN on the conv's f32 result, y * a + b
/// with a and b formed in f32 steps as its kernel forms them
/// (BatchNormParams::affineF32), and the next DynamicQuantizeLinear's range
/// depends on every ulp of that (folding the BN into the scales and bias in
/// double moved the range and every later code). An activation or residual
/// after the BN then stays an op of its own.
struct BatchNormIntoQuantizedConv : OpRewritePattern<BatchNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BatchNormOp bn, PatternRewriter &rewriter) const override {
    auto conv = singleUseDef<QuantizedConvOp>(bn.getInput());
    if (!conv || bn.getType() != conv.getType() || conv.getResidual() ||
        !EpilogueActivation::of(conv).isIdentity() || conv.getOutputQuantization() ||
        conv.getNormScale() || bn.getInputQuantization() || bn.getOutputQuantization())
      return failure();
    int64_t m = cast<ShapedType>(conv.getWeight().getType()).getDimSize(0);
    std::optional<BatchNormParams> p = batchNormParams(bn, m);
    if (!p)
      return failure();
    SmallVector<float> a, b;
    p->affineF32(a, b);
    rewriter.setInsertionPoint(conv);
    Location loc = fusedLoc({conv, bn});
    Value normScale = createF32Constant(rewriter, loc, {m}, a, "norm_scale");
    Value normShift = createF32Constant(rewriter, loc, {m}, b, "norm_shift");
    rewriter.modifyOpInPlace(conv, [&] {
      conv.getNormScaleMutable().assign(normScale);
      conv.getNormShiftMutable().assign(normShift);
      conv->setLoc(loc);
    });
    rewriter.replaceOp(bn, conv.getResult());
    return success();
  }
};

struct AddIntoConv : OpRewritePattern<AddOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AddOp add, PatternRewriter &rewriter) const override {
    for (auto [a, b] : {std::pair(add.getLhs(), add.getRhs()),
                        std::pair(add.getRhs(), add.getLhs())}) {
      std::optional<ConvParts> p = convParts(a);
      if (!p || p->residual || !p->act.isIdentity() || b.getType() != add.getType() ||
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
    if (!p || !p->act.isIdentity() || act->getOperand(0).getType() != act.getType())
      return failure();
    if constexpr (std::is_same_v<ActOp, ReluOp>) {
      p->act.kind = "relu";
    } else if constexpr (std::is_same_v<ActOp, LeakyReluOp>) {
      p->act.kind = "leaky_relu";
      p->act.alpha = act.getAlpha().convertToFloat();
    } else if constexpr (std::is_same_v<ActOp, SigmoidOp>) {
      p->act.kind = "sigmoid";
    } else if constexpr (std::is_same_v<ActOp, TanhOp>) {
      p->act.kind = "tanh";
    } else if constexpr (std::is_same_v<ActOp, SiluOp>) {
      p->act.kind = "silu";
    } else if constexpr (std::is_same_v<ActOp, HardSigmoidOp> ||
                         std::is_same_v<ActOp, HardSwishOp>) {
      p->act.kind = std::is_same_v<ActOp, HardSigmoidOp> ? "hard_sigmoid" : "hard_swish";
      p->act.alpha = act.getAlpha().convertToFloat();
      p->act.beta = act.getBeta().convertToFloat();
    } else if constexpr (std::is_same_v<ActOp, GeluOp>) {
      if (act.hasGrids()) // the epilogue has no grids inside its activation
        return failure();
      p->act.kind = act.getApproximate() == "tanh" ? "gelu_tanh" : "gelu";
    } else {
      std::optional<double> lo = act.getMin() ? getUniformFloat(act.getMin()) : -INFINITY;
      std::optional<double> hi = act.getMax() ? getUniformFloat(act.getMax()) : INFINITY;
      if (!lo || !hi)
        return failure();
      p->act.kind = "clip";
      p->act.min = *lo;
      p->act.max = *hi;
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

/// A Mul, then an Add, by one f32 scalar after a conv's activation: its
/// post_mul and post_add (a Mul or Add before any activation folds into the
/// weights instead: nunc-fold-batch-norm).
template <typename BinOp> struct PostAffineIntoConv : OpRewritePattern<BinOp> {
  using OpRewritePattern<BinOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(BinOp op, PatternRewriter &rewriter) const override {
    for (auto [a, b] : {std::pair(op.getLhs(), op.getRhs()), std::pair(op.getRhs(), op.getLhs())}) {
      std::optional<ConvParts> p = convParts(a);
      std::optional<float> c = getUniformF32(b);
      if (!p || !c || a.getType() != op.getType() ||
          !p->act.takePost(std::is_same_v<BinOp, MulOp>, *c))
        continue;
      rewriter.setInsertionPoint(op);
      FailureOr<Operation *> fused = buildFusedConv(rewriter, fusedLoc({p->op, op}), *p);
      if (failed(fused))
        return failure();
      keepResultTypes(*fused, op);
      rewriter.replaceOp(op, (*fused)->getResults());
      return success();
    }
    return failure();
  }
};

/// A Pad of zeros over the spatial dims before a Conv (as TensorFlow
/// exports explicit padding, or ZeroPad2d) is the conv's own padding: the
/// pads add to its pads, and the kernels skip the padded copy.
template <typename ConvTy> struct PadIntoConv : OpRewritePattern<ConvTy> {
  using OpRewritePattern<ConvTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(ConvTy conv, PatternRewriter &rewriter) const override {
    auto pad = conv.getInput().template getDefiningOp<PadOp>();
    if (!pad || pad.getMode() != "constant" || pad.getAxes() || conv.getAutoPad() != "NOTSET")
      return failure();
    if (Value v = pad.getConstantValue()) {
      std::optional<double> zero = scalarConstant(v);
      if (!zero || *zero != 0.0)
        return failure();
    }
    std::optional<SmallVector<int64_t>> pads = getConstantInts(pad.getPads());
    int64_t rank = cast<ShapedType>(pad.getInput().getType()).getRank();
    ArrayRef<int64_t> own = conv.getPads();
    int64_t spatial = rank - 2;
    if (!pads || static_cast<int64_t>(pads->size()) != 2 * rank ||
        static_cast<int64_t>(own.size()) != 2 * spatial)
      return failure();
    if ((*pads)[0] || (*pads)[1] || (*pads)[rank] || (*pads)[rank + 1] ||
        llvm::any_of(*pads, [](int64_t p) { return p < 0; }))
      return failure();
    SmallVector<int64_t> merged(own);
    for (int64_t i = 0; i < spatial; ++i) {
      merged[i] += (*pads)[2 + i];
      merged[spatial + i] += (*pads)[rank + 2 + i];
    }
    rewriter.modifyOpInPlace(conv, [&] {
      conv.getInputMutable().assign(pad.getInput());
      conv.setPads(merged);
    });
    return success();
  }
};

struct FuseConvPass : public mlir::nunc::impl::FuseConvBase<FuseConvPass> {
  using FuseConvBase::FuseConvBase;
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<PadIntoConv<ConvOp>, PadIntoConv<FusedConvOp>>(&getContext(), /*benefit=*/3);
    if (int8)
      patterns.add<QdqConvToQuantizedConv<ConvOp>, QdqConvToQuantizedConv<FusedConvOp>,
                   DynamicQuantizedConvToQuantizedConv>(&getContext(), /*benefit=*/2);
    patterns.add<BatchNormIntoQuantizedConv>(&getContext());
    patterns.add<DynamicQuantizedConvToDequantized>(&getContext(), int8);
    patterns.add<AddIntoConv, ActivationIntoConv<ReluOp>, ActivationIntoConv<LeakyReluOp>,
                 ActivationIntoConv<ClipOp>,
                 ActivationIntoConv<SigmoidOp>, ActivationIntoConv<TanhOp>,
                 ActivationIntoConv<GeluOp>, ActivationIntoConv<HardSigmoidOp>,
                 ActivationIntoConv<HardSwishOp>, ActivationIntoConv<SiluOp>,
                 PostAffineIntoConv<MulOp>,
                 PostAffineIntoConv<AddOp>>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
