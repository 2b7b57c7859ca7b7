//===- FoldBatchNorm.cpp - BatchNormalization, scales, shifts into Conv ---===//

#include "PatternUtils.h"
#include "nunc/Interpreter/Evaluator.h"
#include "nunc/Transforms/Passes.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <functional>

namespace mlir::nunc {
#define GEN_PASS_DEF_FOLDBATCHNORM
#include "nunc/Transforms/Passes.h.inc"
} // namespace mlir::nunc

using namespace mlir;
using namespace mlir::nunc;

namespace {

/// Replaces `replaced` (an op after conv) by conv with the bias `bias` and
/// the weight `weight` (none: conv's own).
void replaceByFoldedConv(PatternRewriter &rewriter, Operation *conv, Operation *replaced,
                         std::optional<ArrayRef<float>> weight, ArrayRef<float> bias) {
  rewriter.setInsertionPoint(replaced);
  Location loc = fusedLoc({conv, replaced});
  Value w = conv->getOperand(1);
  if (weight)
    w = createF32Constant(rewriter, loc, cast<RankedTensorType>(w.getType()).getShape(), *weight,
                          "conv_weight");
  Value b = createF32Constant(rewriter, loc, {static_cast<int64_t>(bias.size())}, bias,
                              "conv_bias");
  Operation *folded = rewriter.clone(*conv);
  folded->setLoc(loc);
  folded->setOperand(1, w);
  // A new weight leaves the model's grid.
  if (weight)
    folded->removeAttr("weight_quantization");
  if (folded->getNumOperands() > 2)
    folded->setOperand(2, b);
  else
    folded->insertOperands(2, b);
  rewriter.replaceOp(replaced, folded->getResults());
}

/// A Conv's or ConvTranspose's constant f32 weight and bias (zeros when it
/// has none), and how its weight elements map to output channels.
struct FoldableConv {
  SmallVector<float> weight, bias;
  int64_t outputs = 0;
  /// Calls fn(i) for the index of every weight element of output channel ch.
  std::function<void(int64_t ch, llvm::function_ref<void(int64_t)> fn)> forChannel;

  static std::optional<FoldableConv> of(Operation *op) {
    if (!isa<ConvOp, ConvTransposeOp>(op))
      return std::nullopt;
    auto wType = dyn_cast<RankedTensorType>(op->getOperand(1).getType());
    std::optional<SmallVector<float>> w = getConstantFloats(op->getOperand(1));
    if (!w || !wType || !wType.hasStaticShape() || !wType.getElementType().isF32())
      return std::nullopt;
    FoldableConv f;
    f.weight = *w;
    int64_t perRow = wType.getNumElements() / wType.getDimSize(0);
    if (isa<ConvOp>(op)) {
      // W [M, C/group, k...]: channel ch is row ch.
      f.outputs = wType.getDimSize(0);
      f.forChannel = [perRow](int64_t ch, llvm::function_ref<void(int64_t)> fn) {
        for (int64_t i = 0; i < perRow; ++i)
          fn(ch * perRow + i);
      };
    } else {
      // W [C, M/group, k...]: channel ch = g * M/group + j is column j of
      // group g's C/group rows.
      int64_t group = cast<ConvTransposeOp>(op).getGroup(), mg = wType.getDimSize(1);
      int64_t cg = wType.getDimSize(0) / group, taps = perRow / mg;
      f.outputs = mg * group;
      f.forChannel = [=](int64_t ch, llvm::function_ref<void(int64_t)> fn) {
        int64_t g = ch / mg, j = ch % mg;
        for (int64_t c = g * cg; c < (g + 1) * cg; ++c)
          for (int64_t t = 0; t < taps; ++t)
            fn((c * mg + j) * taps + t);
      };
    }
    f.bias.assign(f.outputs, 0.f);
    if (op->getNumOperands() > 2) {
      std::optional<SmallVector<float>> b = getConstantFloats(op->getOperand(2));
      if (!b || static_cast<int64_t>(b->size()) != f.outputs)
        return std::nullopt;
      f.bias = *b;
    }
    return f;
  }
};

/// The Conv or ConvTranspose defining `v`, used only there.
Operation *singleUseConv(Value v) {
  if (auto conv = singleUseDef<ConvOp>(v))
    return conv;
  return singleUseDef<ConvTransposeOp>(v);
}

/// BN(conv(x, W, b)) = conv(x, W * s, (b - mean) * s + beta) with
/// s = gamma / sqrt(var + eps), per output channel. Folded in double.
struct BatchNormIntoConv : OpRewritePattern<BatchNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BatchNormOp bn, PatternRewriter &rewriter) const override {
    Operation *conv = singleUseConv(bn.getInput());
    // Grids around the BN (a QDQ model's) round the conv's output: no fold.
    if (!conv || bn.getType() != conv->getResult(0).getType() || bn.getInputQuantization() ||
        bn.getOutputQuantization())
      return failure();
    std::optional<FoldableConv> f = FoldableConv::of(conv);
    if (!f)
      return failure();
    std::optional<BatchNormParams> p = batchNormParams(bn, f->outputs);
    if (!p)
      return failure();
    SmallVector<float> newW(f->weight), newB(f->outputs);
    for (int64_t c = 0; c < f->outputs; ++c) {
      double s = p->scale[c];
      f->forChannel(c, [&](int64_t i) { newW[i] = static_cast<float>(f->weight[i] * s); });
      newB[c] = static_cast<float>((f->bias[c] - p->mean[c]) * s + p->beta[c]);
    }
    replaceByFoldedConv(rewriter, conv, bn, ArrayRef<float>(newW), newB);
    return success();
  }
};

/// The per-output-channel values of a constant `k` that an elementwise op
/// applies to the conv result of type `out` [N, M, ...] without changing its
/// shape: a scalar, or ones in every dim but M's (right-aligned).
std::optional<SmallVector<float>> perChannel(Value k, RankedTensorType out) {
  auto kt = dyn_cast<RankedTensorType>(k.getType());
  std::optional<SmallVector<float>> values = getConstantFloats(k);
  if (!kt || !values || !kt.getElementType().isF32() || out.getRank() < 2 ||
      kt.getRank() > out.getRank() || !out.hasStaticShape())
    return std::nullopt;
  int64_t m = out.getDimSize(1);
  if (values->size() == 1)
    return SmallVector<float>(m, values->front());
  int64_t channelDim = 1 - (out.getRank() - kt.getRank()); // k's dim that meets M
  for (int64_t d = 0; d < kt.getRank(); ++d)
    if (kt.getDimSize(d) != (d == channelDim ? m : 1))
      return std::nullopt;
  return values;
}

/// conv(x, W, b) * k and conv(x, W, b) + k with k per output channel (or a
/// scalar): conv(x, W k, b k) and conv(x, W, b + k), as exporters write a
/// scale and shift after a conv (paddle's learnable affine blocks), or a
/// ConvTranspose's bias apart (paddle2onnx).
template <typename BinOp> struct ConstantIntoConv : OpRewritePattern<BinOp> {
  using OpRewritePattern<BinOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(BinOp op, PatternRewriter &rewriter) const override {
    for (auto [a, k] : {std::pair(op.getLhs(), op.getRhs()), std::pair(op.getRhs(), op.getLhs())}) {
      Operation *conv = singleUseConv(a);
      auto out = dyn_cast<RankedTensorType>(op.getType());
      if (!conv || conv->getResult(0).getType() != out)
        continue;
      std::optional<SmallVector<float>> c = perChannel(k, out);
      std::optional<FoldableConv> f = FoldableConv::of(conv);
      if (!c || !f || static_cast<int64_t>(c->size()) != f->outputs)
        continue;
      for (int64_t ch = 0; ch < f->outputs; ++ch) {
        if constexpr (std::is_same_v<BinOp, MulOp>) {
          f->forChannel(ch, [&](int64_t i) { f->weight[i] *= (*c)[ch]; });
          f->bias[ch] *= (*c)[ch];
        } else {
          f->bias[ch] += (*c)[ch];
        }
      }
      replaceByFoldedConv(rewriter, conv, op,
                          std::is_same_v<BinOp, MulOp> ? std::optional<ArrayRef<float>>(f->weight)
                                                       : std::nullopt,
                          f->bias);
      return success();
    }
    return failure();
  }
};

struct FoldBatchNormPass : public mlir::nunc::impl::FoldBatchNormBase<FoldBatchNormPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<BatchNormIntoConv, ConstantIntoConv<MulOp>, ConstantIntoConv<AddOp>>(
        &getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
