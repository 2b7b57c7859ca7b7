//===- OneStepRequantization.cpp - u8 codes in one multiply ---------------===//

#include "nunc/Dialect/Nunc/NuncUtils.h"
#include "nunc/Transforms/Passes.h"

#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/IR/Matchers.h"

#include <cmath>

namespace mlir::nunc {
#define GEN_PASS_DEF_ONESTEPREQUANTIZATION
#include "nunc/Transforms/Passes.h.inc"
} // namespace mlir::nunc

using namespace mlir;
using namespace mlir::nunc;

namespace {

/// Whether every bias lies within 2^24 steps of its sums' grid
/// s[m] = fl(input scale x weight scale[m]) (the bias code's range, far
/// inside the sums' s32; a bias that is not a constant: no).
bool biasFitsItsGrid(QuantizedConvOp op, quant::UniformQuantizedType input) {
  if (!op.getBias())
    return true;
  ElementsAttr attr;
  SmallVector<char> raw;
  if (!matchPattern(op.getBias(), m_Constant(&attr)) || !attr.getElementType().isF32() ||
      !readRawElements(attr, raw))
    return false;
  ArrayRef<float> bias(reinterpret_cast<const float *>(raw.data()), raw.size() / 4);
  SmallVector<double> scales;
  Type w = getElementTypeOrSelf(op.getWeight().getType());
  if (auto perAxis = dyn_cast<quant::UniformQuantizedPerAxisType>(w))
    scales.assign(perAxis.getScales().begin(), perAxis.getScales().end());
  else if (auto perTensor = dyn_cast<quant::UniformQuantizedType>(w))
    scales.push_back(perTensor.getScale());
  else
    return false;
  int64_t m = 0;
  for (float b : bias) {
    const float s = static_cast<float>(input.getScale()) *
                    static_cast<float>(scales[scales.size() == 1 ? 0 : m++]);
    if (!(std::fabs(static_cast<double>(b) / s) < 16777216.0))
      return false;
  }
  return true;
}

/// Whether the codes of the conv's output grid can come from one multiply
/// (see the op's one_step_requantization): a static input, a u8 output
/// grid right after the activation (whatever follows it: u8 codes, f32
/// values, a normalization and its grid), an activation the codes' bounds
/// express, and a bias that fits its grid.
bool takesOneStep(QuantizedConvOp op) {
  std::optional<Type> grid = op.getInputQuantization();
  Type element = getElementTypeOrSelf(op.getInput().getType());
  if (isa<quant::QuantizedType>(element))
    grid = element;
  else if (op.getActivationQuantization() != "static")
    grid.reset();
  auto input = dyn_cast_or_null<quant::UniformQuantizedType>(grid.value_or(Type()));
  const StringRef act = op.getActivation();
  auto output = dyn_cast_or_null<quant::UniformQuantizedType>(
      op.getOutputQuantization().value_or(Type()));
  return output && output.getStorageType().isInteger(8) && !output.isSigned() && input &&
         !op.getResidual() && !op.getOutputTable() &&
         (act == "none" || act == "relu" || act == "clip") &&
         op.getActivationPostMul().convertToFloat() == 1.f &&
         op.getActivationPostAdd().convertToFloat() == 0.f && biasFitsItsGrid(op, input);
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
