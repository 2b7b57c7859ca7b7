//===- FuseElementwiseQuantization.cpp - grids into Add/Sub/Mul/Div ---------===//

#include "PatternUtils.h"
#include "nunc/Transforms/Passes.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::nunc {
#define GEN_PASS_DEF_FUSEELEMENTWISEQUANTIZATION
#include "nunc/Transforms/Passes.h.inc"
} // namespace mlir::nunc

using namespace mlir;
using namespace mlir::nunc;

namespace {

/// fake_quantize(a op b), the op's only use -> (a op b) with that grid as its
/// output_quantization: one pass over the tensor instead of two.
template <typename ArithOp> struct GridIntoArith : OpRewritePattern<FakeQuantizeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(FakeQuantizeOp fq, PatternRewriter &rewriter) const override {
    auto op = singleUseDef<ArithOp>(fq.getInput());
    if (!op || op.getOutputQuantization() || op.getType() != fq.getType())
      return failure();
    rewriter.modifyOpInPlace(op, [&] {
      op.setOutputQuantizationAttr(fq.getQuantizationAttr());
      op->setLoc(fusedLoc({op, fq}));
    });
    rewriter.replaceOp(fq, op.getResult());
    return success();
  }
};

struct FuseElementwiseQuantizationPass
    : public mlir::nunc::impl::FuseElementwiseQuantizationBase<
          FuseElementwiseQuantizationPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<GridIntoArith<AddOp>, GridIntoArith<SubOp>, GridIntoArith<MulOp>,
                 GridIntoArith<DivOp>>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
