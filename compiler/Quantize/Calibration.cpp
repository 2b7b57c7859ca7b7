//===- Calibration.cpp - activation ranges for static int8 ----------------===//

#include "nunc/Quantize/Calibration.h"

#include "nunc/Dialect/Nunc/NuncOps.h"
#include "nunc/Dialect/Nunc/NuncUtils.h"
#include "nunc/Interpreter/Evaluator.h"
#include "nunc/Support/OrderedParallel.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/GlobPattern.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

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
  std::vector<double> channelSum;
  int64_t perChannel = 0; // values summed into each channel
  double sumSquares = 0;
  int64_t count = 0;
  ValueHistogram histogram; // kBins over [min(min, 0), max(max, 0)]
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

double binCenter(const ValueHistogram &h, int64_t b) {
  return h.lo + (b + 0.5) * (h.hi - h.lo) / h.counts.size();
}

/// The range holding the central `percent` of the observed values.
std::pair<double, double> percentileRange(const ValueHistogram &h, double percent) {
  int64_t bins = h.counts.size();
  double width = (h.hi - h.lo) / bins, total = 0;
  for (double c : h.counts)
    total += c;
  double tail = total * (100.0 - percent) / 200.0;
  double lo = h.lo, hi = h.hi, cum = 0;
  for (int64_t b = 0; b < bins; ++b) {
    cum += h.counts[b];
    if (cum > tail) {
      lo = h.lo + b * width;
      break;
    }
  }
  cum = 0;
  for (int64_t b = bins - 1; b >= 0; --b) {
    cum += h.counts[b];
    if (cum > tail) {
      hi = h.lo + (b + 1) * width;
      break;
    }
  }
  return {lo, hi};
}

/// Adds x's values to the per-channel sums of `s`, channels along `axis`.
void accumulateChannels(Stats &s, const Tensor &x, size_t axis) {
  ArrayRef<int64_t> shape = x.shape();
  if (axis >= shape.size())
    return;
  int64_t channels = shape[axis], inner = 1;
  for (int64_t d : shape.drop_front(axis + 1))
    inner *= d;
  if (s.channelSum.empty())
    s.channelSum.assign(channels, 0.0);
  if (static_cast<int64_t>(s.channelSum.size()) != channels)
    return;
  const float *v = x.as<float>();
  int64_t outer = x.numElements() / std::max<int64_t>(channels * inner, 1);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t c = 0; c < channels; ++c) {
      const float *row = v + (o * channels + c) * inner;
      double sum = 0;
      for (int64_t i = 0; i < inner; ++i)
        sum += row[i];
      s.channelSum[c] += sum;
    }
  s.perChannel += outer * inner;
}

/// `h` without its exact zeros: any range's grid holds 0 exactly, so they
/// carry neither quantization error nor shape for a level to blur.
ValueHistogram withoutExactZeros(const ValueHistogram &h) {
  ValueHistogram nonzero = h;
  int64_t bins = h.counts.size();
  if (h.zeros > 0 && bins > 0 && h.hi > h.lo) {
    int64_t b = std::clamp<int64_t>((0.0 - h.lo) / ((h.hi - h.lo) / bins), 0, bins - 1);
    nonzero.counts[b] = std::max(0.0, nonzero.counts[b] - h.zeros);
  }
  nonzero.zeros = 0;
  return nonzero;
}

/// The u8 level of value v in range r (unclamped).
double level(const ActivationRange &r, double v) {
  return std::nearbyint(v / r.scale) + r.zeroPoint;
}

/// The range, shrunk from the observed one toward 0, whose quantization
/// error over the histogram is smallest.
std::pair<double, double> mseRange(const ValueHistogram &all) {
  ValueHistogram h = withoutExactZeros(all);
  double bestErr = INFINITY, bestLo = h.lo, bestHi = h.hi;
  for (int step = 100; step >= 5; --step) {
    double a = step / 100.0;
    ActivationRange r;
    setParameters(r, h.lo * a, h.hi * a);
    double err = 0;
    for (int64_t b = 0, bins = h.counts.size(); b < bins; ++b) {
      if (!h.counts[b])
        continue;
      double v = binCenter(h, b);
      double q = std::clamp(level(r, v), 0.0, 255.0);
      double d = v - (q - r.zeroPoint) * r.scale;
      err += h.counts[b] * d * d;
    }
    if (err < bestErr) {
      bestErr = err;
      bestLo = r.lo;
      bestHi = r.hi;
    }
  }
  return {bestLo, bestHi};
}

/// The range, shrunk from the observed one toward 0, that loses the least
/// information (TensorRT's entropy calibration, for an asymmetric u8 grid):
/// P is the histogram with the mass outside the range moved onto its edge
/// bins; Q takes each u8 level's in-range mass (without the moved outliers)
/// and spreads it evenly over the level's non-empty bins. The range with the
/// smallest KL(P || Q) wins: too wide and the levels blur the shape, too
/// narrow and P's edge spikes are missing from Q.
std::pair<double, double> entropyRange(const ValueHistogram &all) {
  ValueHistogram h = withoutExactZeros(all);
  int64_t bins = h.counts.size();
  double width = (h.hi - h.lo) / bins;
  double bestKl = INFINITY, bestLo = h.lo, bestHi = h.hi;
  std::vector<double> p(bins), levelMass(256), levelBins(256);
  for (int step = 100; step >= 5; --step) {
    double a = step / 100.0;
    ActivationRange r;
    setParameters(r, h.lo * a, h.hi * a);
    // Bins [first, last] lie inside the range; outliers join the edge bins.
    int64_t first = std::clamp<int64_t>(std::ceil((r.lo - h.lo) / width - 1e-9), 0, bins - 1);
    int64_t last =
        std::clamp<int64_t>(std::floor((r.hi - h.lo) / width + 1e-9) - 1, first, bins - 1);
    std::fill(p.begin(), p.end(), 0.0);
    double pTotal = 0, qTotal = 0;
    for (int64_t b = 0; b < bins; ++b) {
      p[std::clamp(b, first, last)] += h.counts[b];
      pTotal += h.counts[b];
    }
    if (!(pTotal > 0))
      return {h.lo, h.hi};
    std::fill(levelMass.begin(), levelMass.end(), 0.0);
    std::fill(levelBins.begin(), levelBins.end(), 0.0);
    auto levelOf = [&](int64_t b) {
      return static_cast<int>(std::clamp(level(r, binCenter(h, b)), 0.0, 255.0));
    };
    for (int64_t b = first; b <= last; ++b) {
      int l = levelOf(b);
      levelMass[l] += h.counts[b];
      qTotal += h.counts[b];
      if (p[b] > 0)
        levelBins[l] += 1;
    }
    if (!(qTotal > 0))
      continue;
    double kl = 0;
    for (int64_t b = first; b <= last; ++b)
      if (p[b] > 0) {
        int l = levelOf(b);
        double q = std::max(levelMass[l] / levelBins[l] / qTotal, 1e-12);
        kl += p[b] / pTotal * std::log(p[b] / pTotal / q);
      }
    if (kl < bestKl - 1e-12) {
      bestKl = kl;
      bestLo = r.lo;
      bestHi = r.hi;
    }
  }
  return {bestLo, bestHi};
}

} // namespace

std::pair<double, double> mlir::nunc::chooseRange(llvm::StringRef method,
                                                  const ValueHistogram &h) {
  if (method.consume_front("percentile=")) {
    double p = 99.99;
    (void)method.getAsDouble(p);
    return percentileRange(h, p);
  }
  if (method == "mse")
    return mseRange(h);
  if (method == "entropy")
    return entropyRange(h);
  return {h.lo, h.hi};
}

bool mlir::nunc::isQuantizable(Operation *op) { return isa<LinearOp, ConvOp, FusedConvOp>(op); }

Operation *mlir::nunc::int8ProducerOfDepthwise(Operation *op) {
  if (!isa<ConvOp, FusedConvOp>(op))
    return nullptr;
  auto producer = op->getOperand(0).getDefiningOp<QuantizedConvOp>();
  auto w = dyn_cast<RankedTensorType>(op->getOperand(1).getType());
  int64_t group = cast<IntegerAttr>(op->getAttr("group")).getInt();
  bool depthwise = w && w.getRank() == 4 && group > 1 && w.getDimSize(0) == group &&
                   w.getDimSize(1) == 1;
  return depthwise ? producer : nullptr;
}

bool mlir::nunc::isInt8Depthwise(Operation *op) {
  auto producer = dyn_cast_or_null<QuantizedConvOp>(int8ProducerOfDepthwise(op));
  return producer && producer.getOutputQuantization();
}

namespace {
/// `target`'s first ONNX node name, or "<prefix>#<index>" with its index in
/// program order among the ops `sameKind` accepts.
std::string nodeKey(Operation *target, llvm::StringRef prefix,
                    llvm::function_ref<bool(Operation *)> sameKind) {
  SmallVector<std::string> names = onnxNodeNames(target->getLoc());
  if (!names.empty())
    return names.front();
  int index = 0;
  bool found = false;
  target->getParentOp()->walk([&](Operation *op) {
    if (found || !sameKind(op))
      return;
    if (op == target)
      found = true;
    else
      ++index;
  });
  return (prefix + "#" + llvm::Twine(index)).str();
}
} // namespace

std::string mlir::nunc::quantizationKey(Operation *target) {
  if (isa<AttentionOp>(target)) {
    // The node that names the attention best: its Softmax.
    std::string softmax;
    target->getLoc()->walk([&](Location l) {
      auto fused = dyn_cast<FusedLoc>(l);
      auto node = fused ? dyn_cast_or_null<OnnxNodeAttr>(fused.getMetadata()) : OnnxNodeAttr();
      if (!node)
        return WalkResult::advance();
      if ((softmax.empty() && node.getOpType().contains("Softmax")) ||
          node.getOpType().ends_with("Attention"))
        for (Location part : fused.getLocations())
          if (auto n = dyn_cast<NameLoc>(part))
            softmax = n.getName().str();
      return WalkResult::skip();
    });
    if (!softmax.empty())
      return softmax;
    return nodeKey(target, "attention", [](Operation *op) { return isa<AttentionOp>(op); });
  }
  auto isConv = [](Operation *op) { return isa<ConvOp, FusedConvOp, QuantizedConvOp>(op); };
  if (isConv(target))
    return nodeKey(target, "conv", isConv);
  if (isa<GatherOp>(target))
    return nodeKey(target, "gather", [](Operation *op) { return isa<GatherOp>(op); });
  return nodeKey(target, "linear", [](Operation *op) {
    return isa<LinearOp, QuantizedLinearOp>(op);
  });
}

std::string mlir::nunc::layerNormKey(Operation *target) {
  return nodeKey(target, "layer_norm", [](Operation *op) { return isa<LayerNormOp>(op); });
}

llvm::Expected<std::map<std::string, std::vector<float>>>
mlir::nunc::layerNormChannelAbsMax(func::FuncOp func, llvm::ArrayRef<std::vector<Tensor>> samples) {
  llvm::DenseMap<Value, std::string> keys;
  func.walk([&](LinearOp op) {
    if (auto norm = op.getInput().getDefiningOp<LayerNormOp>();
        norm && op.getInput() == norm.getOutput())
      keys.try_emplace(norm.getOutput(), layerNormKey(norm));
  });
  std::map<std::string, std::vector<float>> absMax;
  for (auto [i, sample] : llvm::enumerate(samples)) {
    llvm::DenseSet<Value> seen; // Q, K and V read one output: measure it once
    auto observe = [&](Operation *op, llvm::function_ref<const Tensor &(Value)> operand) {
      auto linear = dyn_cast<LinearOp>(op);
      if (!linear || !keys.count(linear.getInput()) || !seen.insert(linear.getInput()).second)
        return;
      const Tensor &x = operand(linear.getInput());
      if (x.dtype() != DType::F32 || x.shape().empty())
        return;
      int64_t channels = x.shape().back(), n = x.numElements();
      std::vector<float> &m = absMax[keys.lookup(linear.getInput())];
      m.resize(channels, 0.f);
      const float *v = x.as<float>();
      for (int64_t j = 0; j < n; ++j)
        m[j % channels] = std::max(m[j % channels], std::fabs(v[j]));
    };
    llvm::Expected<SmallVector<Tensor>> out = evaluateFunction(func, sample, observe);
    if (!out)
      return llvm::createStringError("calibration sample " + std::to_string(i) + ": " +
                                     llvm::toString(out.takeError()));
  }
  return absMax;
}

llvm::Expected<std::string> mlir::nunc::parseCalibrationMethod(llvm::StringRef method) {
  if (method == "minmax" || method == "mse" || method == "entropy")
    return method.str();
  if (method == "percentile")
    return std::string("percentile=99.99");
  if (method.consume_front("percentile=")) {
    double p;
    if (!method.getAsDouble(p) && p > 0 && p <= 100)
      return ("percentile=" + method).str();
    return llvm::createStringError("calibration method percentile=P takes a percentile P with "
                                   "0 < P <= 100, got '" +
                                   method + "'");
  }
  return llvm::createStringError("unknown calibration method '" + method +
                                 "' (expected minmax, percentile[=P], mse or entropy)");
}

namespace {
/// One sample's evaluation: the input of each quantizable op in evaluation
/// order (the tensors share the evaluator's storage), and its error.
struct SampleRun {
  std::vector<std::pair<Operation *, Tensor>> inputs;
  std::string error;
};

/// Evaluates `func` on every sample, up to `threads` at a time, and hands
/// each run to `consume` in sample order (forEachInOrder).
llvm::Error forEachSampleRun(func::FuncOp func, llvm::ArrayRef<std::vector<Tensor>> samples,
                             unsigned threads,
                             llvm::function_ref<llvm::Error(size_t, SampleRun &)> consume) {
  auto evaluate = [&](size_t i) {
    SampleRun run;
    auto observe = [&](Operation *op, llvm::function_ref<const Tensor &(Value)> operand) {
      if (isQuantizable(op))
        run.inputs.push_back({op, operand(op->getOperand(0))});
    };
    llvm::Expected<SmallVector<Tensor>> out = evaluateFunction(func, samples[i], observe);
    if (!out)
      run.error = llvm::toString(out.takeError());
    return run;
  };
  return forEachInOrder<SampleRun>(samples.size(),
                                   concurrentEvaluations(func->getContext(), threads), evaluate,
                                   consume);
}
} // namespace

llvm::Expected<CalibrationProfile>
mlir::nunc::calibrate(func::FuncOp func, llvm::ArrayRef<std::vector<Tensor>> samples,
                      llvm::StringRef methodName, llvm::ArrayRef<std::string> sampleNames,
                      unsigned threads) {
  llvm::Expected<std::string> method = parseCalibrationMethod(methodName);
  if (!method)
    return method.takeError();
  if (samples.empty())
    return llvm::createStringError("calibration needs at least one sample");
  std::map<std::string, Stats> stats;
  llvm::DenseMap<Operation *, std::string> keys;
  func.walk([&](Operation *op) {
    if (isQuantizable(op))
      keys[op] = quantizationKey(op);
  });

  auto run = [&](bool histogram) -> llvm::Error {
    auto consume = [&](size_t i, SampleRun &r) -> llvm::Error {
      std::string name = "calibration sample " + std::to_string(i);
      if (i < sampleNames.size())
        name += " (" + sampleNames[i] + ")";
      for (const auto &[op, x] : r.inputs) {
        if (x.dtype() != DType::F32)
          continue;
        const float *v = x.as<float>();
        int64_t n = x.numElements();
        if (!histogram && r.error.empty()) {
          // The first quantizable op whose input holds NaN or inf: its
          // range (and the JSON profile) cannot hold them, so calibration
          // stops there.
          int64_t nonFinite = 0, first = 0;
          for (int64_t j = 0; j < n; ++j)
            if (!std::isfinite(v[j]) && nonFinite++ == 0)
              first = j;
          if (nonFinite) {
            const char *what = std::isnan(v[first]) ? "NaN" : v[first] < 0 ? "-inf" : "inf";
            return llvm::createStringError(
                describeLocation(op->getLoc()) + ": " + name + ": its input holds " +
                std::to_string(nonFinite) + " non-finite of " + std::to_string(n) +
                " values (the first, " + what + ", at flat index " + std::to_string(first) +
                "); int8 ranges need finite activations");
          }
        }
        Stats &s = stats[keys[op]];
        if (!histogram) {
          for (int64_t j = 0; j < n; ++j) {
            s.min = s.seen ? std::min<double>(s.min, v[j]) : v[j];
            s.max = s.seen ? std::max<double>(s.max, v[j]) : v[j];
            s.seen = true;
            s.sumSquares += double(v[j]) * v[j];
          }
          s.count += n;
          accumulateChannels(s, x, isa<LinearOp>(op) ? x.shape().size() - 1 : 1);
          continue;
        }
        ValueHistogram &h = s.histogram;
        double width = (h.hi - h.lo) / kBins;
        for (int64_t j = 0; j < n; ++j) {
          int b = width > 0 ? static_cast<int>((v[j] - h.lo) / width) : 0;
          h.counts[std::clamp(b, 0, kBins - 1)] += 1;
          h.zeros += v[j] == 0.f;
        }
      }
      if (!r.error.empty())
        return llvm::createStringError(name + ": " + r.error);
      return llvm::Error::success();
    };
    return forEachSampleRun(func, samples, threads, consume);
  };
  if (llvm::Error e = run(false))
    return std::move(e);
  bool needsHistogram = *method != "minmax";
  if (needsHistogram) {
    for (auto &[key, s] : stats) {
      s.histogram.lo = std::min(s.min, 0.0);
      s.histogram.hi = std::max(s.max, 0.0);
      s.histogram.counts.assign(kBins, 0.0);
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
    auto [lo, hi] = *method == "minmax" ? std::pair(s.min, s.max) : chooseRange(*method, s.histogram);
    setParameters(r, lo, hi);
    for (double sum : s.channelSum)
      r.channelMean.push_back(static_cast<float>(sum / std::max<int64_t>(s.perChannel, 1)));
    if (s.count > 0)
      r.meanSquare = s.sumSquares / s.count;
    if (needsHistogram)
      r.clipSquare = clippingMeanSquare(s.histogram, r.lo, r.hi);
    profile.inputs[key] = r;
  }
  return profile;
}

double ActivationRange::gridSnrDb() const {
  if (!std::isfinite(meanSquare) || !(scale > 0))
    return std::numeric_limits<double>::quiet_NaN();
  return 10 * std::log10(meanSquare / (scale * scale / 12 + clipSquare));
}

double mlir::nunc::clippingMeanSquare(const ValueHistogram &h, double lo, double hi) {
  const int bins = static_cast<int>(h.counts.size());
  double width = bins ? (h.hi - h.lo) / bins : 0, sum = 0, total = 0;
  for (int b = 0; b < bins; ++b) {
    double center = h.lo + (b + 0.5) * width;
    double e = center < lo ? lo - center : center > hi ? center - hi : 0;
    sum += h.counts[b] * e * e;
    total += h.counts[b];
  }
  return total > 0 ? sum / total : 0;
}

std::string CalibrationProfile::toJson() const {
  llvm::json::Object tensors;
  for (const auto &[key, r] : inputs) {
    llvm::json::Object o{{"min", r.min}, {"max", r.max},     {"lo", r.lo},
                         {"hi", r.hi},   {"scale", r.scale}, {"zero_point", r.zeroPoint}};
    if (!r.channelMean.empty())
      o["channel_mean"] = llvm::json::Array(r.channelMean);
    if (std::isfinite(r.meanSquare))
      o["mean_square"] = r.meanSquare;
    if (r.clipSquare > 0)
      o["clip_square"] = r.clipSquare;
    tensors[key] = std::move(o);
  }
  llvm::json::Object root{{"format", kFormat},
                          {"method", method},
                          {"samples", samples},
                          {"inputs", std::move(tensors)}};
  if (smoothing) {
    llvm::json::Object norms;
    for (const auto &[key, f] : smoothing->factors)
      norms[key] = llvm::json::Array(f);
    root["smoothing"] = llvm::json::Object{{"alpha", smoothing->alpha},
                                           {"layer_norms", std::move(norms)}};
  }
  std::string s;
  llvm::raw_string_ostream(s) << llvm::formatv("{0:2}", llvm::json::Value(std::move(root)))
                              << "\n";
  return s;
}

llvm::Expected<CalibrationProfile> CalibrationProfile::read(llvm::StringRef path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file = llvm::MemoryBuffer::getFile(path);
  if (!file)
    return llvm::createStringError("cannot read the calibration profile '" + path +
                                   "': " + file.getError().message());
  llvm::Expected<CalibrationProfile> p = fromJson((*file)->getBuffer());
  if (!p)
    return llvm::createStringError(path + ": " + llvm::toString(p.takeError()));
  return p;
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
    // Optional non-negative statistics: absent keeps the default.
    for (auto [field, dst] : {std::pair<const char *, double *>{"mean_square", &r.meanSquare},
                              {"clip_square", &r.clipSquare}}) {
      const llvm::json::Value *fv = o->get(field);
      if (!fv)
        continue;
      std::optional<double> d = fv->getAsNumber();
      if (!d || !std::isfinite(*d) || *d < 0)
        return llvm::createStringError("calibration profile entry '" + key.str() + "' has a \"" +
                                       field + "\" that is not a finite number >= 0");
      *dst = *d;
    }
    if (const llvm::json::Value *mv = o->get("channel_mean")) {
      const llvm::json::Array *a = mv->getAsArray();
      for (size_t i = 0; a && i < a->size(); ++i) {
        std::optional<double> m = (*a)[i].getAsNumber();
        if (!m || !std::isfinite(*m))
          break;
        r.channelMean.push_back(static_cast<float>(*m));
      }
      if (!a || r.channelMean.size() != a->size())
        return llvm::createStringError("calibration profile entry '" + key.str() +
                                       "' has a \"channel_mean\" that is not an array of "
                                       "finite numbers");
    }
    p.inputs[key.str()] = r;
  }
  if (const llvm::json::Value *sv = root->get("smoothing")) {
    const llvm::json::Object *so = sv->getAsObject();
    const llvm::json::Object *norms = so ? so->getObject("layer_norms") : nullptr;
    std::optional<double> alpha = so ? so->getNumber("alpha") : std::nullopt;
    if (!norms || !alpha)
      return llvm::createStringError("calibration profile \"smoothing\" needs \"alpha\" and "
                                     "\"layer_norms\"");
    Smoothing sm;
    sm.alpha = *alpha;
    for (const auto &[key, v] : *norms) {
      const llvm::json::Array *a = v.getAsArray();
      std::vector<float> f;
      for (size_t i = 0; a && i < a->size(); ++i) {
        std::optional<double> x = (*a)[i].getAsNumber();
        if (!x || !(*x > 0) || !std::isfinite(*x))
          break;
        f.push_back(static_cast<float>(*x));
      }
      if (!a || a->empty() || f.size() != a->size())
        return llvm::createStringError("calibration profile smoothing entry '" + key.str() +
                                       "' needs an array of positive factors");
      sm.factors[key.str()] = std::move(f);
    }
    p.smoothing = std::move(sm);
  }
  return p;
}

llvm::Expected<std::vector<std::string>>
mlir::nunc::keysNamedBy(Operation *root, llvm::ArrayRef<std::string> patterns) {
  struct Layer {
    std::string key;
    SmallVector<std::string> names; // the key and its op's ONNX nodes
  };
  std::vector<Layer> layers;
  // Gathers from a constant f32 table (nunc-quantize-int8's embeddings),
  // not those of shapes or indices.
  auto table = [](Operation *op) {
    auto g = dyn_cast<GatherOp>(op);
    auto t = g ? dyn_cast<RankedTensorType>(g.getData().getType()) : RankedTensorType();
    return t && t.getRank() == 2 && t.getElementType().isF32() &&
           g.getData().getDefiningOp<ConstantOp>();
  };
  root->walk([&](Operation *op) {
    if (!isQuantizable(op) && !isa<AttentionOp>(op) && !table(op))
      return;
    Layer l{quantizationKey(op), onnxNodeNames(op->getLoc())};
    l.names.push_back(l.key);
    layers.push_back(std::move(l));
  });
  std::vector<std::string> keys, unmatched;
  for (const std::string &p : patterns) {
    llvm::Expected<llvm::GlobPattern> glob = llvm::GlobPattern::create(p);
    if (!glob)
      return llvm::createStringError("'" + p + "' is not a valid pattern: " +
                                     llvm::toString(glob.takeError()));
    bool found = false;
    for (const Layer &l : layers) {
      // (A name matches itself even where it holds glob characters.)
      if (!llvm::any_of(l.names,
                        [&](const std::string &n) { return n == p || glob->match(n); }))
        continue;
      found = true;
      if (!llvm::is_contained(keys, l.key))
        keys.push_back(l.key);
    }
    if (!found)
      unmatched.push_back("'" + p + "'");
  }
  if (!unmatched.empty())
    return llvm::createStringError(
        "no MatMul, Gemm, Conv, attention or embedding Gather layer is named " +
        llvm::join(unmatched, ", ") +
        " (a layer goes by the ONNX nodes fused into it, or by its key in the --report)");
  return keys;
}
