//===- RemoveDoubleQuantizeDequantize.cpp - Q/DQ pairs in a row as one ---===//
//
// A tensor rounded to one grid and then straight to another (Q1 -> DQ1 ->
// Q2 -> DQ2: a requantization some quantizers and converters write, or a
// pair left behind an op they removed) is rounded once by onnxruntime's
// default session, to a grid over the two grids' common range: its
// DoubleQDQPairsRemover runs before every other graph transformation when
// it loads a model. Rewritten here the same way, before anything folds,
// such a model computes what onnxruntime computes.
//
//===----------------------------------------------------------------------===//

#include "PatternUtils.h"
#include "nunc/Transforms/Passes.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>

namespace mlir::nunc {
#define GEN_PASS_DEF_REMOVEDOUBLEQUANTIZEDEQUANTIZE
#include "nunc/Transforms/Passes.h.inc"
} // namespace mlir::nunc

using namespace mlir;
using namespace mlir::nunc;

namespace {

/// The one op that reads `v`, where no graph output does either.
Operation *soleReader(Value v) {
  if (!v.hasOneUse())
    return nullptr;
  Operation *user = *v.getUsers().begin();
  return isa<func::ReturnOp>(user) ? nullptr : user;
}

/// A per-tensor pair's constant scale (f32) and explicit 8-bit zero point,
/// the same on its QuantizeLinear and DequantizeLinear (onnxruntime's
/// IsQDQPairSupported).
struct Grid {
  float scale;
  int64_t zeroPoint;
  Type storage; // ui8 or i8
};
std::optional<Grid> pairGrid(QuantizeLinearOp q, DequantizeLinearOp dq) {
  if (!q.getZeroPoint() || !dq.getZeroPoint())
    return std::nullopt;
  auto scaleType = dyn_cast<ShapedType>(q.getScale().getType());
  auto zpType = dyn_cast<ShapedType>(q.getZeroPoint().getType());
  if (!scaleType || !scaleType.getElementType().isF32() || !zpType ||
      zpType != dq.getZeroPoint().getType() || !zpType.getElementType().isInteger(8))
    return std::nullopt;
  std::optional<double> s = scalarConstant(q.getScale()), z = scalarConstant(q.getZeroPoint());
  if (!s || !z || scalarConstant(dq.getScale()) != s || scalarConstant(dq.getZeroPoint()) != z)
    return std::nullopt;
  // (scalarConstant reads i8 as signed, ui8 as unsigned.)
  return Grid{static_cast<float>(*s), static_cast<int64_t>(*z), zpType.getElementType()};
}

/// Q1 -> DQ1 -> Q2 -> DQ2, each but DQ2 read by the next alone -> Q -> DQ on
/// one grid: Q1 -> DQ2 where the pairs' grids are equal, else onnxruntime's grid
/// over the intersection of their ranges: lo = max(fl((qmin - z_i) s_i)),
/// hi = min(fl((qmax - z_i) s_i)), scale fl((hi - lo) / (qmax - qmin)),
/// zero point round(qmin - lo / scale) (half away from zero), in f32.
struct MergePairs : OpRewritePattern<DequantizeLinearOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DequantizeLinearOp dq1, PatternRewriter &rewriter) const override {
    auto q1 = dq1.getInput().getDefiningOp<QuantizeLinearOp>();
    auto q2 = dyn_cast_or_null<QuantizeLinearOp>(soleReader(dq1.getResult()));
    if (!q1 || !q2 || soleReader(q1.getResult()) != dq1.getOperation())
      return failure();
    auto dq2 = dyn_cast_or_null<DequantizeLinearOp>(soleReader(q2.getResult()));
    if (!dq2)
      return failure();
    std::optional<Grid> first = pairGrid(q1, dq1), second = pairGrid(q2, dq2);
    if (!first || !second || first->storage != second->storage)
      return failure();
    // The same grid twice (onnxruntime: within 1e-20): DQ2 reads Q1.
    if (first->zeroPoint == second->zeroPoint && std::fabs(first->scale - second->scale) < 1e-20f) {
      rewriter.modifyOpInPlace(dq2, [&] { dq2.getInputMutable().assign(q1.getResult()); });
      rewriter.eraseOp(q2);
      rewriter.eraseOp(dq1);
      return success();
    }
    const bool u8 = first->storage.isUnsignedInteger();
    const int64_t qmin = u8 ? 0 : -128, qmax = u8 ? 255 : 127;
    auto lo = [&](const Grid &g) { return static_cast<float>(qmin - g.zeroPoint) * g.scale; };
    auto hi = [&](const Grid &g) { return static_cast<float>(qmax - g.zeroPoint) * g.scale; };
    const float low = std::max(lo(*first), lo(*second));
    const float high = std::min(hi(*first), hi(*second));
    const float scale = (high - low) / static_cast<float>(qmax - qmin);
    const float zero = std::round(static_cast<float>(qmin) - low / scale);
    // (Ranges that do not meet have no grid: left as written.)
    if (!(scale > 0) || !std::isfinite(scale) || !(zero >= qmin && zero <= qmax))
      return failure();
    const auto zeroPoint = static_cast<int64_t>(zero);
    Location loc = dq2.getLoc();
    rewriter.setInsertionPoint(q1);
    Value s = createF32Constant(rewriter, loc, {}, {scale}, "scale");
    Value z = createIntScalar(rewriter, loc, cast<IntegerType>(first->storage), zeroPoint);
    auto merged = QuantizeLinearOp::create(rewriter, q1.getLoc(), q1.getType(), q1.getInput(), s,
                                           z, q1.getAxisAttr(), q1.getOutputElementTypeAttr());
    rewriter.setInsertionPoint(dq2);
    rewriter.replaceOpWithNewOp<DequantizeLinearOp>(dq2, dq2.getType(), merged.getResult(), s, z,
                                                    dq2.getAxisAttr());
    rewriter.eraseOp(q2);
    rewriter.eraseOp(dq1);
    rewriter.eraseOp(q1);
    return success();
  }
};

struct RemoveDoubleQuantizeDequantizePass
    : public mlir::nunc::impl::RemoveDoubleQuantizeDequantizeBase<
          RemoveDoubleQuantizeDequantizePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<MergePairs>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
