//===- SmoothActivations.cpp - SmoothQuant-style smoothing for static int8 ===//
//
// A transformer's LayerNorm outputs carry a few outlier channels (all-MiniLM-
// L6-v2: one channel ~17x the median). One u8 range per tensor then spends
// most of its 255 steps on them. Dividing channel j by s_j and multiplying
// row j of every consuming weight by s_j leaves the f32 product unchanged and
// moves the outliers into the weights, which are quantized per output column.
// The division folds into the LayerNorm's scale and bias; the LayerNorm is
// computed a second time for the linears because its output has other uses
// (the residual) that must stay unscaled.
//
//===----------------------------------------------------------------------===//

#include "PatternUtils.h"
#include "nunc/Quantize/Calibration.h"
#include "nunc/Transforms/Passes.h"
#include "nunc/Dialect/Nunc/ShapeHelpers.h"

#include <algorithm>
#include <cmath>

namespace mlir::nunc {
#define GEN_PASS_DEF_SMOOTHACTIVATIONS
#include "nunc/Transforms/Passes.h.inc"
} // namespace mlir::nunc

using namespace mlir;
using namespace mlir::nunc;

namespace {

/// A LayerNorm over the last axis with constant scale (and bias), and the
/// linear ops with constant f32 [C, N] weights that read its output.
struct SmoothableNorm {
  LayerNormOp norm;
  int64_t channels = 0;
  SmallVector<float> scale, bias; // bias empty when the op has none
  SmallVector<LinearOp> linears;
};

std::optional<SmoothableNorm> smoothable(LayerNormOp norm) {
  auto type = dyn_cast<RankedTensorType>(norm.getOutput().getType());
  if (!type || !type.hasStaticShape() || type.getRank() < 1 ||
      shape::wrapAxis(norm.getAxis(), type.getRank()) != type.getRank() - 1)
    return std::nullopt;
  SmoothableNorm s;
  s.norm = norm;
  s.channels = type.getShape().back();
  std::optional<SmallVector<float>> scale = getConstantFloats(norm.getScale());
  if (!scale || (int64_t)scale->size() != s.channels)
    return std::nullopt;
  s.scale = std::move(*scale);
  if (norm.getBias()) {
    std::optional<SmallVector<float>> bias = getConstantFloats(norm.getBias());
    if (!bias || (int64_t)bias->size() != s.channels)
      return std::nullopt;
    s.bias = std::move(*bias);
  }
  for (Operation *user : norm.getOutput().getUsers()) {
    auto linear = dyn_cast<LinearOp>(user);
    if (!linear || linear.getInput() != norm.getOutput() || llvm::is_contained(s.linears, linear))
      continue;
    auto w = dyn_cast<RankedTensorType>(linear.getWeight().getType());
    if (w && w.hasStaticShape() && w.getRank() == 2 && w.getDimSize(0) == s.channels &&
        w.getElementType().isF32() && getConstantFloats(linear.getWeight()))
      s.linears.push_back(linear);
  }
  if (s.linears.empty())
    return std::nullopt;
  return s;
}

/// Every smoothable LayerNorm of `func` by layerNormKey().
std::map<std::string, SmoothableNorm> smoothableNorms(func::FuncOp func) {
  std::map<std::string, SmoothableNorm> norms;
  func.walk([&](LayerNormOp op) {
    if (std::optional<SmoothableNorm> s = smoothable(op))
      norms.emplace(layerNormKey(op), std::move(*s));
  });
  return norms;
}

} // namespace

Smoothing mlir::nunc::smoothingFactors(func::FuncOp func,
                                       const std::map<std::string, std::vector<float>> &absMax,
                                       double alpha) {
  Smoothing result;
  result.alpha = alpha;
  for (auto &[key, s] : smoothableNorms(func)) {
    auto it = absMax.find(key);
    if (it == absMax.end() || (int64_t)it->second.size() != s.channels)
      continue;
    std::vector<double> weightMax(s.channels, 0.0);
    for (LinearOp linear : s.linears) {
      SmallVector<float> w = *getConstantFloats(linear.getWeight());
      int64_t n = w.size() / s.channels;
      for (int64_t j = 0; j < s.channels; ++j)
        for (int64_t c = 0; c < n; ++c)
          weightMax[j] = std::max<double>(weightMax[j], std::fabs(w[j * n + c]));
    }
    std::vector<float> f(s.channels, 1.f);
    for (int64_t j = 0; j < s.channels; ++j) {
      double a = it->second[j], w = weightMax[j];
      // A channel never seen nonzero, or whose weights are all zero, keeps 1.
      if (a > 0 && w > 0)
        f[j] = static_cast<float>(
            std::clamp(std::pow(a, alpha) / std::pow(w, 1 - alpha), 1e-4, 1e4));
    }
    result.factors[key] = std::move(f);
  }
  return result;
}

LogicalResult mlir::nunc::applySmoothing(func::FuncOp func, const Smoothing &smoothing) {
  std::map<std::string, SmoothableNorm> norms = smoothableNorms(func);
  for (const auto &[key, f] : smoothing.factors) {
    auto it = norms.find(key);
    if (it == norms.end())
      return func.emitError() << "smoothing: no LayerNorm '" << key
                              << "' feeding linear ops with constant weights "
                                 "(recalibrate for this model)";
    SmoothableNorm &s = it->second;
    if ((int64_t)f.size() != s.channels)
      return s.norm.emitError() << "smoothing: " << f.size() << " factors for LayerNorm '"
                                << key << "' of " << s.channels
                                << " channels (recalibrate for this model)";
    OpBuilder b(s.norm->getContext());
    b.setInsertionPointAfter(s.norm);
    Location loc = s.norm.getLoc();
    SmallVector<float> scale(s.channels), bias(s.bias.size());
    for (int64_t j = 0; j < s.channels; ++j) {
      scale[j] = s.scale[j] / f[j];
      if (!s.bias.empty())
        bias[j] = s.bias[j] / f[j];
    }
    Value scaleValue = createF32Constant(b, loc, {s.channels}, scale, "smoothed_scale");
    Value biasValue =
        s.bias.empty() ? Value()
                       : createF32Constant(b, loc, {s.channels}, bias, "smoothed_bias");
    auto smoothed = LayerNormOp::create(b, loc, s.norm->getResultTypes(), s.norm.getInput(),
                                        scaleValue, biasValue, s.norm.getAxisAttr(),
                                        s.norm.getEpsilonAttr(), s.norm.getStashTypeAttr());
    smoothed.setRms(s.norm.getRms());
    for (LinearOp linear : s.linears) {
      Value oldWeight = linear.getWeight();
      auto type = cast<RankedTensorType>(oldWeight.getType());
      SmallVector<float> w = *getConstantFloats(oldWeight);
      int64_t n = type.getDimSize(1);
      for (int64_t j = 0; j < s.channels; ++j)
        for (int64_t c = 0; c < n; ++c)
          w[j * n + c] *= f[j];
      OpBuilder wb(linear);
      linear.getInputMutable().assign(smoothed.getOutput());
      linear.getWeightMutable().assign(
          createF32Constant(wb, oldWeight.getLoc(), type.getShape(), w, "smoothed_weight"));
      if (Operation *def = oldWeight.getDefiningOp(); def && def->use_empty())
        def->erase();
    }
    if (s.norm->use_empty())
      s.norm->erase();
  }
  return success();
}

namespace {

struct SmoothActivationsPass
    : public mlir::nunc::impl::SmoothActivationsBase<SmoothActivationsPass> {
  using SmoothActivationsBase::SmoothActivationsBase;

  void runOnOperation() override {
    llvm::Expected<CalibrationProfile> p = CalibrationProfile::read(profile);
    if (!p) {
      getOperation().emitError() << llvm::toString(p.takeError());
      return signalPassFailure();
    }
    if (p->smoothing && failed(applySmoothing(getOperation(), *p->smoothing)))
      return signalPassFailure();
  }
};

} // namespace
