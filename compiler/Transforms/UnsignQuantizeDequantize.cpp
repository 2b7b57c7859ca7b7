//===- UnsignQuantizeDequantize.cpp - signed activation codes as unsigned -===//
//
// A QuantizeLinear to s8 (or s16) codes whose every user is a
// DequantizeLinear holds a grid the u8 (u16) codes with the zero point
// moved by 128 (32768) hold too: the same rounding, the same saturation,
// the same dequantized values. The int8 kernels (vpdpbusd, tdpbusd) take
// u8 activations, and the handovers between them (GEMM to GEMM, conv to
// depthwise conv, Q, K and V to attention) take u8 grids; rewritten here,
// before the fusions, models quantized with signed activations
// (quantize_static's activation_type=QInt8) reach the same kernels as
// those with unsigned ones.
//
//===----------------------------------------------------------------------===//

#include "PatternUtils.h"
#include "nunc/Transforms/Passes.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::nunc {
#define GEN_PASS_DEF_UNSIGNQUANTIZEDEQUANTIZE
#include "nunc/Transforms/Passes.h.inc"
} // namespace mlir::nunc

using namespace mlir;
using namespace mlir::nunc;

namespace {

/// The zero point of a per-tensor Quantize/DequantizeLinear (none: 0), if
/// it is a constant.
std::optional<int64_t> zeroPointOf(Value zeroPoint) {
  if (!zeroPoint)
    return 0;
  std::optional<double> z = scalarConstant(zeroPoint);
  if (!z)
    return std::nullopt;
  return static_cast<int64_t>(*z);
}

struct UnsignedCodes : OpRewritePattern<QuantizeLinearOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(QuantizeLinearOp q, PatternRewriter &rewriter) const override {
    auto outType = dyn_cast<RankedTensorType>(q.getType());
    auto storage = outType ? dyn_cast<IntegerType>(outType.getElementType()) : IntegerType();
    if (!storage || storage.isUnsigned() || (storage.getWidth() != 8 && storage.getWidth() != 16))
      return failure();
    std::optional<int64_t> zq = zeroPointOf(q.getZeroPoint());
    if (!zq || !scalarConstant(q.getScale()) || q->use_empty())
      return failure();
    SmallVector<DequantizeLinearOp> readers;
    for (Operation *user : q->getUsers()) {
      auto dq = dyn_cast<DequantizeLinearOp>(user);
      if (!dq || !scalarConstant(dq.getScale()) || !zeroPointOf(dq.getZeroPoint()))
        return failure();
      readers.push_back(dq);
    }
    const unsigned width = storage.getWidth();
    const int64_t shift = int64_t(1) << (width - 1);
    auto unsignedType = IntegerType::get(rewriter.getContext(), width, IntegerType::Unsigned);
    auto zeroPoint = [&](Location loc, int64_t z) {
      return createIntScalar(rewriter, loc, unsignedType, z + shift);
    };
    rewriter.setInsertionPoint(q);
    Value codes = QuantizeLinearOp::create(
        rewriter, q.getLoc(), outType.clone(unsignedType), q.getInput(), q.getScale(),
        zeroPoint(q.getLoc(), *zq), q.getAxisAttr(), TypeAttr::get(unsignedType));
    for (DequantizeLinearOp dq : readers) {
      rewriter.setInsertionPoint(dq);
      rewriter.replaceOpWithNewOp<DequantizeLinearOp>(
          dq, dq.getType(), codes, dq.getScale(),
          zeroPoint(dq.getLoc(), *zeroPointOf(dq.getZeroPoint())), dq.getAxisAttr());
    }
    rewriter.eraseOp(q);
    return success();
  }
};

struct UnsignQuantizeDequantizePass
    : public mlir::nunc::impl::UnsignQuantizeDequantizeBase<UnsignQuantizeDequantizePass> {
  void runOnOperation() override {
    bool signedCodes = false;
    getOperation().walk([&](QuantizeLinearOp q) {
      auto type = dyn_cast<RankedTensorType>(q.getType());
      auto storage = type ? dyn_cast<IntegerType>(type.getElementType()) : IntegerType();
      signedCodes |= storage && storage.getWidth() == 8 && !storage.isUnsigned() &&
                     !matchPattern(q.getInput(), m_Constant()); // (not a weight's pair)
    });
    RewritePatternSet patterns(&getContext());
    patterns.add<UnsignedCodes>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
    // The model computed in s8 codes: kernels that follow its integer
    // arithmetic step by step take them (nunc.add's signed_codes).
    if (signedCodes)
      getOperation()->setAttr(kSignedActivationCodes, UnitAttr::get(&getContext()));
  }
};

} // namespace
