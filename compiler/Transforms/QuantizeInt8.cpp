//===- QuantizeInt8.cpp - linear ops to int8 (W8A8, dynamic activations) --===//

#include "PatternUtils.h"
#include "nunc/Interpreter/Evaluator.h"
#include "nunc/Transforms/Passes.h"

#include "mlir/Dialect/Quant/IR/QuantTypes.h"

#include <algorithm>
#include <cmath>

namespace mlir::nunc {
#define GEN_PASS_DEF_QUANTIZEINT8
#include "nunc/Transforms/Passes.h.inc"
} // namespace mlir::nunc

using namespace mlir;
using namespace mlir::nunc;

namespace {

struct QuantizeInt8Pass : public mlir::nunc::impl::QuantizeInt8Base<QuantizeInt8Pass> {
  using QuantizeInt8Base::QuantizeInt8Base;

  void runOnOperation() override {
    SmallVector<LinearOp> linears;
    getOperation().walk([&](LinearOp op) { linears.push_back(op); });
    for (LinearOp op : linears)
      quantize(op);
  }

  void quantize(LinearOp op) {
    auto in = dyn_cast<RankedTensorType>(op.getInput().getType());
    auto wType = dyn_cast<RankedTensorType>(op.getWeight().getType());
    if (!in || !in.getElementType().isF32() || !wType || !wType.hasStaticShape() ||
        wType.getRank() != 2 || !wType.getElementType().isF32())
      return;
    int64_t k = wType.getDimSize(0), n = wType.getDimSize(1);
    if (k * n < minMacs)
      return;
    std::optional<SmallVector<float>> w = getConstantFloats(op.getWeight());
    if (!w)
      return;
    // Symmetric per output column: the largest magnitude maps to 127.
    SmallVector<double> scales(n);
    for (int64_t j = 0; j < n; ++j) {
      float top = 0.f;
      for (int64_t i = 0; i < k; ++i)
        top = std::max(top, std::fabs((*w)[i * n + j]));
      scales[j] = top > 0.f ? static_cast<double>(top / 127.f) : 1.0;
    }
    SmallVector<int8_t> q(k * n);
    for (int64_t i = 0; i < k; ++i)
      for (int64_t j = 0; j < n; ++j) {
        float v = std::nearbyint((*w)[i * n + j] / static_cast<float>(scales[j]));
        q[i * n + j] = static_cast<int8_t>(std::clamp(v, -127.f, 127.f));
      }

    OpBuilder b(op);
    MLIRContext *ctx = &getContext();
    Type i8 = IntegerType::get(ctx, 8);
    llvm::Expected<Tensor> t = Tensor::fromValues<int8_t>(DType::I8, {k, n}, q);
    ElementsAttr attr = attrFromTensor(cantFail(std::move(t)), ctx, "int8_weight");
    Value storage = ConstantOp::create(b, op.getLoc(), attr.getType(), attr);
    auto element = quant::UniformQuantizedPerAxisType::get(
        quant::QuantizationFlags::Signed, i8, b.getF32Type(), scales,
        SmallVector<int64_t>(n, 0), /*quantizedDimension=*/1, -127, 127);
    Value weight = quant::StorageCastOp::create(
        b, op.getLoc(), RankedTensorType::get({k, n}, element), storage);
    auto quantized = QuantizedLinearOp::create(
        b, op.getLoc(), op.getType(), op.getInput(), weight, op.getBias(), op.getResidual(),
        b.getStringAttr("dynamic_per_row"), op.getActivationAttr(), op.getActivationMinAttr(),
        op.getActivationMaxAttr());
    Operation *oldWeight = op.getWeight().getDefiningOp();
    op.replaceAllUsesWith(quantized.getResult());
    op.erase();
    if (oldWeight && oldWeight->use_empty())
      oldWeight->erase();
  }
};

} // namespace
