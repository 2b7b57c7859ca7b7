//===- LowerConvTranspose.cpp - ConvTranspose as a 1x1 conv and col2im ----===//
//
// ConvTranspose(x, W) = Col2Im(W^T x): every input pixel's C channels times
// the weight give M * prod(kernel) values, which the col2im sums into the
// output image. The product is a grouped 1x1 convolution, so ConvTranspose
// runs on the conv kernels (f32 and int8) with no kernel of its own.
//
//===----------------------------------------------------------------------===//

#include "PatternUtils.h"
#include "nunc/Dialect/Nunc/NuncUtils.h"
#include "nunc/Transforms/Passes.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::nunc {
#define GEN_PASS_DEF_LOWERCONVTRANSPOSE
#include "nunc/Transforms/Passes.h.inc"
} // namespace mlir::nunc

using namespace mlir;
using namespace mlir::nunc;

namespace {

struct ConvTransposeToCol2Im : OpRewritePattern<ConvTransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConvTransposeOp op, PatternRewriter &rewriter) const override {
    auto xType = dyn_cast<RankedTensorType>(op.getInput().getType());
    auto wType = dyn_cast<RankedTensorType>(op.getWeight().getType());
    if (!xType || !wType || !wType.hasStaticShape() ||
        llvm::any_of(xType.getShape().drop_front(1), ShapedType::isDynamic))
      return rewriter.notifyMatchFailure(op, "needs static weight and input channels/dims");
    ArrayRef<int64_t> spatial = xType.getShape().drop_front(2);
    auto g = shape::convTranspose(spatial, op.getKernelShape(), op.getStrides(),
                                  op.getDilations(), op.getPads(), op.getOutputPadding(),
                                  op.getOutputShape(), op.getAutoPad());
    if (!g) {
      llvm::consumeError(g.takeError());
      return rewriter.notifyMatchFailure(op, "the geometry does not fit");
    }
    Location loc = op.getLoc();
    int64_t nd = spatial.size(), group = op.getGroup();
    int64_t c = wType.getDimSize(0), mg = wType.getDimSize(1);
    // What the verifier checks; here so that no op is made before a failure.
    if (group <= 0 || c % group != 0 || xType.getDimSize(1) != c)
      return rewriter.notifyMatchFailure(op, "the weight does not fit the input");
    int64_t cg = c / group, m = mg * group;
    int64_t taps = *shape::numElements(op.getKernelShape());
    auto i64s = [&](ArrayRef<int64_t> v) {
      return createI64Constant(rewriter, loc, v);
    };
    auto make = [&](StringRef name, ValueRange operands,
                    ArrayRef<NamedAttribute> attrs = {}) -> FailureOr<Value> {
      FailureOr<Operation *> made = createInferred(rewriter, loc, name, operands, attrs);
      if (failed(made))
        return failure();
      return (*made)->getResult(0);
    };
    // W [C, M/G, k...] -> [G * M/G * K, C/G, 1...]: row (g, j, tap) holds
    // W[g * C/G + i, j, tap] at column i.
    SmallVector<int64_t> ones(nd, 1), zeros(2 * nd, 0);
    SmallVector<int64_t> convShape{group * mg * taps, cg};
    convShape.append(ones);
    FailureOr<Value> w = make(ReshapeOp::getOperationName(),
                              {op.getWeight(), i64s({group, cg, mg * taps})});
    if (succeeded(w))
      w = make(TransposeOp::getOperationName(), {*w},
               {rewriter.getNamedAttr("perm", rewriter.getDenseI64ArrayAttr({0, 2, 1}))});
    if (succeeded(w))
      w = make(ReshapeOp::getOperationName(), {*w, i64s(convShape)});
    if (failed(w))
      return failure();
    FailureOr<Value> cols = make(
        ConvOp::getOperationName(), {op.getInput(), *w},
        {rewriter.getNamedAttr("dilations", rewriter.getDenseI64ArrayAttr(ones)),
         rewriter.getNamedAttr("group", rewriter.getI64IntegerAttr(group)),
         rewriter.getNamedAttr("kernel_shape", rewriter.getDenseI64ArrayAttr(ones)),
         rewriter.getNamedAttr("pads", rewriter.getDenseI64ArrayAttr(zeros)),
         rewriter.getNamedAttr("strides", rewriter.getDenseI64ArrayAttr(ones))});
    if (succeeded(cols))
      cols = make(ReshapeOp::getOperationName(), {*cols, i64s({0, m * taps, -1})});
    if (failed(cols))
      return failure();
    SmallVector<int64_t> pads(g->padsBegin);
    pads.append(g->padsEnd);
    FailureOr<Value> out = make(
        Col2ImOp::getOperationName(), {*cols, i64s(g->output), i64s(g->kernel)},
        {rewriter.getNamedAttr("dilations", rewriter.getDenseI64ArrayAttr(g->dilations)),
         rewriter.getNamedAttr("pads", rewriter.getDenseI64ArrayAttr(pads)),
         rewriter.getNamedAttr("strides", rewriter.getDenseI64ArrayAttr(g->strides))});
    // A zero bias (what folding a scale into a bias-free ConvTranspose
    // leaves) adds nothing.
    std::optional<SmallVector<float>> biasValues = getConstantFloats(op.getBias());
    bool zeroBias =
        biasValues && llvm::all_of(*biasValues, [](float v) { return v == 0.f; });
    if (succeeded(out) && op.getBias() && !zeroBias) {
      SmallVector<int64_t> biasShape{m};
      biasShape.append(ones);
      FailureOr<Value> bias =
          make(ReshapeOp::getOperationName(), {op.getBias(), i64s(biasShape)});
      out = succeeded(bias) ? make(AddOp::getOperationName(), {*out, *bias}) : bias;
    }
    if (failed(out))
      return failure();
    rewriter.replaceOp(op, *out);
    return success();
  }
};

struct LowerConvTransposePass
    : public mlir::nunc::impl::LowerConvTransposeBase<LowerConvTransposePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ConvTransposeToCol2Im>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
