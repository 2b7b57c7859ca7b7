//===- QuantizeAttention.cpp - attention's products on int8 codes ---------===//

#include "PatternUtils.h"
#include "nunc/Quantize/Calibration.h"
#include "nunc/Transforms/Passes.h"

namespace mlir::nunc {
#define GEN_PASS_DEF_QUANTIZEATTENTION
#include "nunc/Transforms/Passes.h.inc"
} // namespace mlir::nunc

using namespace mlir;
using namespace mlir::nunc;

namespace {

struct QuantizeAttentionPass
    : public mlir::nunc::impl::QuantizeAttentionBase<QuantizeAttentionPass> {
  using QuantizeAttentionBase::QuantizeAttentionBase;
  std::function<bool(AttentionOp)> kernelTakes;

  void runOnOperation() override {
    getOperation().walk([&](AttentionOp op) {
      if (!eligible(op) || (!keepF32.empty() && llvm::is_contained(keepF32, quantizationKey(op))))
        return;
      op.setInt8Products(true);
      if (kernelTakes && !kernelTakes(op))
        op.setInt8Products(false);
    });
  }

  /// f32 operands of static shapes, no grids, D a multiple of 16 (the
  /// codes' dword groups and vectors) up to 256, P V's s32 sums in range.
  static bool eligible(AttentionOp op) {
    for (Value x : {op.getQuery(), op.getKey(), op.getValue()}) {
      auto t = dyn_cast<RankedTensorType>(x.getType());
      if (!t || !t.hasStaticShape() || !t.getElementType().isF32())
        return false;
    }
    auto out = dyn_cast<RankedTensorType>(op.getType());
    return out && out.getElementType().isF32() && !op.getInt8Products() &&
           !op.getQlinearArithmetic() && !op.getU8Output() && !op.getScoresQuantization() &&
           !op.getScaledQuantization() && !op.getLogitsQuantization() &&
           !op.getProbsQuantization() && !op.getOutputQuantization() &&
           op.headDim() % 16 == 0 && op.headDim() <= 256 &&
           op.keyLength() <= 65536;
  }
};

} // namespace

std::unique_ptr<Pass>
mlir::nunc::createQuantizeAttention(std::function<bool(AttentionOp)> kernelTakes,
                                    llvm::ArrayRef<std::string> keepF32) {
  QuantizeAttentionOptions options;
  options.keepF32.assign(keepF32.begin(), keepF32.end());
  auto pass = std::make_unique<QuantizeAttentionPass>(options);
  pass->kernelTakes = std::move(kernelTakes);
  return pass;
}
