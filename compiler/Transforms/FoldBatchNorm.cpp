//===- FoldBatchNorm.cpp - BatchNormalization, scales, shifts into Conv ---===//

#include "PatternUtils.h"
#include "nunc/Interpreter/Evaluator.h"
#include "nunc/Transforms/Passes.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::nunc {
#define GEN_PASS_DEF_FOLDBATCHNORM
#include "nunc/Transforms/Passes.h.inc"
} // namespace mlir::nunc

using namespace mlir;
using namespace mlir::nunc;

namespace {

/// Replaces `replaced` (an op after conv) by conv with the bias `bias` and
/// the weight `weight` (none: conv's own).
void replaceByFoldedConv(PatternRewriter &rewriter, ConvOp conv, Operation *replaced,
                         std::optional<ArrayRef<float>> weight, ArrayRef<float> bias) {
  rewriter.setInsertionPoint(replaced);
  Location loc = fusedLoc({conv, replaced});
  auto wType = cast<RankedTensorType>(conv.getWeight().getType());
  Value w = weight ? createF32Constant(rewriter, loc, wType.getShape(), *weight, "conv_weight")
                   : conv.getWeight();
  Value b = createF32Constant(rewriter, loc, {static_cast<int64_t>(bias.size())}, bias,
                              "conv_bias");
  auto folded = ConvOp::create(rewriter, loc, conv.getType(), conv.getInput(), w, b,
                               conv.getAutoPadAttr(), conv.getDilationsAttr(),
                               conv.getGroupAttr(), conv.getKernelShapeAttr(),
                               conv.getPadsAttr(), conv.getStridesAttr());
  rewriter.replaceOp(replaced, folded->getResults());
}

/// BN(conv(x, W, b)) = conv(x, W * s, (b - mean) * s + beta) with
/// s = gamma / sqrt(var + eps), per output channel. Folded in double.
struct BatchNormIntoConv : OpRewritePattern<BatchNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BatchNormOp bn, PatternRewriter &rewriter) const override {
    auto conv = singleUseDef<ConvOp>(bn.getInput());
    // Grids around the BN (a QDQ model's) round the conv's output: no fold.
    if (!conv || bn.getType() != conv.getType() || bn.getInputQuantization() ||
        bn.getOutputQuantization())
      return failure();
    std::optional<SmallVector<float>> w = getConstantFloats(conv.getWeight());
    std::optional<SmallVector<float>> b;
    if (conv.getBias()) {
      b = getConstantFloats(conv.getBias());
      if (!b)
        return failure();
    }
    auto wType = dyn_cast<RankedTensorType>(conv.getWeight().getType());
    if (!w || !wType || !wType.hasStaticShape() || !wType.getElementType().isF32())
      return failure();
    int64_t m = wType.getDimSize(0);
    std::optional<BatchNormParams> p = batchNormParams(bn, m);
    if (!p)
      return failure();
    int64_t perChannel = wType.getNumElements() / m;
    SmallVector<float> newW(*w), newB(m);
    for (int64_t c = 0; c < m; ++c) {
      double s = p->scale[c];
      for (int64_t i = 0; i < perChannel; ++i)
        newW[c * perChannel + i] = static_cast<float>((*w)[c * perChannel + i] * s);
      newB[c] = static_cast<float>(((b ? (*b)[c] : 0.0) - p->mean[c]) * s + p->beta[c]);
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
/// scale and shift after a conv (paddle's learnable affine blocks).
template <typename BinOp> struct ConstantIntoConv : OpRewritePattern<BinOp> {
  using OpRewritePattern<BinOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(BinOp op, PatternRewriter &rewriter) const override {
    for (auto [a, k] : {std::pair(op.getLhs(), op.getRhs()), std::pair(op.getRhs(), op.getLhs())}) {
      auto conv = singleUseDef<ConvOp>(a);
      auto out = dyn_cast<RankedTensorType>(op.getType());
      if (!conv || !out || conv.getType() != out)
        continue;
      std::optional<SmallVector<float>> c = perChannel(k, out);
      std::optional<SmallVector<float>> w = getConstantFloats(conv.getWeight());
      auto wType = dyn_cast<RankedTensorType>(conv.getWeight().getType());
      if (!c || !w || !wType || !wType.hasStaticShape() || !wType.getElementType().isF32())
        continue;
      int64_t m = wType.getDimSize(0);
      SmallVector<float> b(m, 0.f);
      if (conv.getBias()) {
        std::optional<SmallVector<float>> given = getConstantFloats(conv.getBias());
        if (!given || static_cast<int64_t>(given->size()) != m)
          continue;
        b = *given;
      }
      int64_t perChannel = wType.getNumElements() / m;
      for (int64_t ch = 0; ch < m; ++ch) {
        if constexpr (std::is_same_v<BinOp, MulOp>) {
          for (int64_t i = 0; i < perChannel; ++i)
            (*w)[ch * perChannel + i] *= (*c)[ch];
          b[ch] *= (*c)[ch];
        } else {
          b[ch] += (*c)[ch];
        }
      }
      replaceByFoldedConv(rewriter, conv, op,
                          std::is_same_v<BinOp, MulOp> ? std::optional<ArrayRef<float>>(*w)
                                                       : std::nullopt,
                          b);
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
