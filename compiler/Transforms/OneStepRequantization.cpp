//===- OneStepRequantization.cpp - u8 codes in one multiply ---------------===//

#include "nunc/Transforms/Passes.h"

#include "mlir/Dialect/Quant/IR/QuantTypes.h"

namespace mlir::nunc {
#define GEN_PASS_DEF_ONESTEPREQUANTIZATION
#include "nunc/Transforms/Passes.h.inc"
} // namespace mlir::nunc

using namespace mlir;
using namespace mlir::nunc;

namespace {

/// Whether the conv's u8 codes can come from one multiply (see the op's
/// one_step_requantization): static input, its last grid its output grid,
/// and an activation the codes' bounds express.
bool takesOneStep(QuantizedConvOp op) {
  const bool staticInput =
      isa<quant::QuantizedType>(getElementTypeOrSelf(op.getInput().getType())) ||
      (op.getActivationQuantization() == "static" && op.getInputQuantization());
  const StringRef act = op.getActivation();
  return op.getU8Output() && staticInput && !op.getResidual() && !op.getNormScale() &&
         !op.getOutputTable() && (act == "none" || act == "relu" || act == "clip") &&
         op.getActivationPostMul().convertToFloat() == 1.f &&
         op.getActivationPostAdd().convertToFloat() == 0.f;
}

struct OneStepRequantizationPass
    : public mlir::nunc::impl::OneStepRequantizationBase<OneStepRequantizationPass> {
  void runOnOperation() override {
    getOperation().walk([](QuantizedConvOp op) {
      if (!op.getOneStepRequantization() && takesOneStep(op))
        op.setOneStepRequantization(true);
    });
  }
};

} // namespace
