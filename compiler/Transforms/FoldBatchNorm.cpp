//===- FoldBatchNorm.cpp - BatchNormalization into Conv constants ---------===//

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
    rewriter.setInsertionPoint(bn);
    Location loc = fusedLoc({conv, bn});
    Value weight = createF32Constant(rewriter, loc, wType.getShape(), newW, "conv_weight");
    Value bias = createF32Constant(rewriter, loc, {m}, newB, "conv_bias");
    auto folded = ConvOp::create(rewriter, loc, conv.getType(), conv.getInput(), weight, bias,
                                 conv.getAutoPadAttr(), conv.getDilationsAttr(),
                                 conv.getGroupAttr(), conv.getKernelShapeAttr(),
                                 conv.getPadsAttr(), conv.getStridesAttr());
    rewriter.replaceOp(bn, folded->getResults());
    return success();
  }
};

struct FoldBatchNormPass : public mlir::nunc::impl::FoldBatchNormBase<FoldBatchNormPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<BatchNormIntoConv>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
