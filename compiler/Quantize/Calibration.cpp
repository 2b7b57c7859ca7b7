//===- Calibration.cpp - activation ranges for static int8 ----------------===//

#include "nunc/Quantize/Calibration.h"

#include "nunc/Dialect/Nunc/NuncOps.h"
#include "nunc/Dialect/Nunc/NuncUtils.h"
#include "nunc/Interpreter/Evaluator.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace mlir::nunc;

namespace {

constexpr int kBins = 2048;
constexpr const char *kFormat = "nunc-calibration-1";

struct Stats {
  double min = 0, max = 0;
  bool seen = false;
  std::vector<double> histogram; // kBins over [lo0, hi0]
  double lo0 = 0, hi0 = 0;
};

/// The u8 parameters of [lo, hi] (which contains 0), computed in float as
/// the kernels and the evaluator do.
void setParameters(ActivationRange &r, double lo, double hi) {
  r.lo = std::min(lo, 0.0);
  r.hi = std::max(hi, 0.0);
  float scale = static_cast<float>(r.hi - r.lo) / 255.f;
  if (!(scale > 0.f))
    scale = 1.f;
  r.scale = scale;
  r.zeroPoint = static_cast<int64_t>(
      std::nearbyint(std::clamp(0.f - static_cast<float>(r.lo) / scale, 0.f, 255.f)));
}

double binCenter(const Stats &s, int b) {
  return s.lo0 + (b + 0.5) * (s.hi0 - s.lo0) / kBins;
}

/// The range holding the central `percent` of the observed values.
std::pair<double, double> percentileRange(const Stats &s, double percent) {
  double total = 0;
  for (double c : s.histogram)
    total += c;
  double tail = total * (100.0 - percent) / 200.0;
  double lo = s.lo0, hi = s.hi0, cum = 0;
  for (int b = 0; b < kBins; ++b) {
    cum += s.histogram[b];
    if (cum > tail) {
      lo = s.lo0 + b * (s.hi0 - s.lo0) / kBins;
      break;
    }
  }
  cum = 0;
  for (int b = kBins - 1; b >= 0; --b) {
    cum += s.histogram[b];
    if (cum > tail) {
      hi = s.lo0 + (b + 1) * (s.hi0 - s.lo0) / kBins;
      break;
    }
  }
  return {lo, hi};
}

/// The range, shrunk from the observed one toward 0, whose quantization
/// error over the histogram is smallest.
std::pair<double, double> mseRange(const Stats &s) {
  double bestErr = INFINITY, bestLo = s.lo0, bestHi = s.hi0;
  for (int step = 100; step >= 5; --step) {
    double a = step / 100.0;
    ActivationRange r;
    setParameters(r, s.lo0 * a, s.hi0 * a);
    double err = 0;
    for (int b = 0; b < kBins; ++b) {
      if (!s.histogram[b])
        continue;
      double v = binCenter(s, b);
      double q = std::clamp(std::nearbyint(v / r.scale) + r.zeroPoint, 0.0, 255.0);
      double d = v - (q - r.zeroPoint) * r.scale;
      err += s.histogram[b] * d * d;
    }
    if (err < bestErr) {
      bestErr = err;
      bestLo = r.lo;
      bestHi = r.hi;
    }
  }
  return {bestLo, bestHi};
}

} // namespace

std::string mlir::nunc::linearKey(Operation *linear) {
  SmallVector<std::string> names = onnxNodeNames(linear->getLoc());
  if (!names.empty())
    return names.front();
  int index = 0;
  Operation *parent = linear->getParentOp();
  bool found = false;
  parent->walk([&](Operation *op) {
    if (found || !isa<LinearOp, QuantizedLinearOp>(op))
      return;
    if (op == linear)
      found = true;
    else
      ++index;
  });
  return "linear#" + std::to_string(index);
}

llvm::Expected<std::string> mlir::nunc::parseCalibrationMethod(llvm::StringRef method) {
  if (method == "minmax" || method == "mse")
    return method.str();
  if (method == "percentile")
    return std::string("percentile=99.99");
  if (method.consume_front("percentile=")) {
    double p;
    if (!method.getAsDouble(p) && p > 0 && p <= 100)
      return ("percentile=" + method).str();
  }
  if (method == "entropy")
    return llvm::createStringError("--calib-method entropy is not implemented yet (use "
                                   "minmax, percentile[=P] or mse)");
  return llvm::createStringError("unknown calibration method '" + method +
                                 "' (expected minmax, percentile[=P] or mse)");
}

llvm::Expected<CalibrationProfile>
mlir::nunc::calibrate(func::FuncOp func, llvm::ArrayRef<std::vector<Tensor>> samples,
                      llvm::StringRef methodName) {
  llvm::Expected<std::string> method = parseCalibrationMethod(methodName);
  if (!method)
    return method.takeError();
  if (samples.empty())
    return llvm::createStringError("calibration needs at least one sample");
  std::map<std::string, Stats> stats;
  llvm::DenseMap<Operation *, std::string> keys;
  func.walk([&](LinearOp op) { keys[op] = linearKey(op); });

  auto run = [&](bool histogram) -> llvm::Error {
    for (auto [i, sample] : llvm::enumerate(samples)) {
      auto observe = [&](Operation *op, llvm::function_ref<const Tensor &(Value)> operand) {
        auto lin = dyn_cast<LinearOp>(op);
        if (!lin)
          return;
        const Tensor &x = operand(lin.getInput());
        if (x.dtype() != DType::F32)
          return;
        Stats &s = stats[keys[op]];
        const float *v = x.as<float>();
        int64_t n = x.numElements();
        if (!histogram) {
          for (int64_t j = 0; j < n; ++j) {
            s.min = s.seen ? std::min<double>(s.min, v[j]) : v[j];
            s.max = s.seen ? std::max<double>(s.max, v[j]) : v[j];
            s.seen = true;
          }
          return;
        }
        double width = (s.hi0 - s.lo0) / kBins;
        for (int64_t j = 0; j < n; ++j) {
          int b = width > 0 ? static_cast<int>((v[j] - s.lo0) / width) : 0;
          s.histogram[std::clamp(b, 0, kBins - 1)] += 1;
        }
      };
      llvm::Expected<SmallVector<Tensor>> out = evaluateFunction(func, sample, observe);
      if (!out)
        return llvm::createStringError("calibration sample " + std::to_string(i) + ": " +
                                       llvm::toString(out.takeError()));
    }
    return llvm::Error::success();
  };
  if (llvm::Error e = run(false))
    return std::move(e);
  bool needsHistogram = *method != "minmax";
  if (needsHistogram) {
    for (auto &[key, s] : stats) {
      s.lo0 = std::min(s.min, 0.0);
      s.hi0 = std::max(s.max, 0.0);
      s.histogram.assign(kBins, 0.0);
    }
    if (llvm::Error e = run(true))
      return std::move(e);
  }

  CalibrationProfile profile;
  profile.method = *method;
  profile.samples = samples.size();
  for (auto &[key, s] : stats) {
    ActivationRange r;
    r.min = s.min;
    r.max = s.max;
    double lo = s.min, hi = s.max;
    llvm::StringRef m(*method);
    if (m.consume_front("percentile=")) {
      double p = 99.99;
      (void)m.getAsDouble(p);
      std::tie(lo, hi) = percentileRange(s, p);
    } else if (m == "mse") {
      std::tie(lo, hi) = mseRange(s);
    }
    setParameters(r, lo, hi);
    profile.inputs[key] = r;
  }
  return profile;
}

std::string CalibrationProfile::toJson() const {
  llvm::json::Object tensors;
  for (const auto &[key, r] : inputs)
    tensors[key] = llvm::json::Object{{"min", r.min},     {"max", r.max},
                                      {"lo", r.lo},       {"hi", r.hi},
                                      {"scale", r.scale}, {"zero_point", r.zeroPoint}};
  llvm::json::Object root{{"format", kFormat},
                          {"method", method},
                          {"samples", samples},
                          {"inputs", std::move(tensors)}};
  std::string s;
  llvm::raw_string_ostream(s) << llvm::formatv("{0:2}", llvm::json::Value(std::move(root)))
                              << "\n";
  return s;
}

llvm::Expected<CalibrationProfile> CalibrationProfile::fromJson(llvm::StringRef text) {
  llvm::Expected<llvm::json::Value> value = llvm::json::parse(text);
  if (!value)
    return llvm::createStringError("not JSON: " + llvm::toString(value.takeError()));
  const llvm::json::Object *root = value->getAsObject();
  if (!root || root->getString("format") != std::optional<llvm::StringRef>(kFormat))
    return llvm::createStringError(llvm::Twine("not a calibration profile (expected \"format\": \"") +
                                   kFormat + "\")");
  CalibrationProfile p;
  p.method = root->getString("method").value_or("").str();
  p.samples = root->getInteger("samples").value_or(0);
  const llvm::json::Object *tensors = root->getObject("inputs");
  if (!tensors)
    return llvm::createStringError("calibration profile has no \"inputs\"");
  for (const auto &[key, v] : *tensors) {
    const llvm::json::Object *o = v.getAsObject();
    std::optional<double> scale = o ? o->getNumber("scale") : std::nullopt;
    std::optional<int64_t> zp = o ? o->getInteger("zero_point") : std::nullopt;
    if (!scale || !zp || !(*scale > 0) || *zp < 0 || *zp > 255)
      return llvm::createStringError("calibration profile entry '" + key.str() +
                                     "' needs a positive \"scale\" and a \"zero_point\" "
                                     "in [0, 255]");
    ActivationRange r;
    r.min = o->getNumber("min").value_or(0);
    r.max = o->getNumber("max").value_or(0);
    r.lo = o->getNumber("lo").value_or(0);
    r.hi = o->getNumber("hi").value_or(0);
    r.scale = *scale;
    r.zeroPoint = *zp;
    p.inputs[key.str()] = r;
  }
  return p;
}
