//===- AccuracyReport.cpp - how far int8 is from f32 ----------------------===//

#include "nunc/Quantize/AccuracyReport.h"

#include "nunc/Dialect/Nunc/NuncOps.h"
#include "nunc/Interpreter/Evaluator.h"
#include "nunc/Quantize/Calibration.h"
#include "nunc/Support/OrderedParallel.h"

#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <tuple>

using namespace mlir;
using namespace mlir::nunc;

namespace {

/// Running sums for SNR and cosine of `got` against `want`.
struct Agreement {
  double dot = 0, wantSq = 0, gotSq = 0, errSq = 0, maxAbs = 0;
  int64_t rows = 0, sameTop1 = 0;

  void add(const Tensor &want, const Tensor &got) {
    const float *w = want.as<float>(), *g = got.as<float>();
    for (int64_t i = 0, n = want.numElements(); i < n; ++i) {
      double d = double(g[i]) - w[i];
      dot += double(w[i]) * g[i];
      wantSq += double(w[i]) * w[i];
      gotSq += double(g[i]) * g[i];
      errSq += d * d;
      maxAbs = std::max(maxAbs, std::fabs(d));
    }
    if (want.rank() == 2 && want.dim(1) > 1)
      for (int64_t r = 0; r < want.dim(0); ++r) {
        int64_t c = want.dim(1);
        const float *wr = w + r * c, *gr = g + r * c;
        ++rows;
        sameTop1 += std::max_element(wr, wr + c) - wr == std::max_element(gr, gr + c) - gr;
      }
  }
  double cosine() const {
    return wantSq > 0 && gotSq > 0 ? dot / std::sqrt(wantSq * gotSq) : (errSq == 0 ? 1 : 0);
  }
  double snrDb() const { return errSq > 0 ? 10 * std::log10(wantSq / errSq) : INFINITY; }
};

/// x rounded to the u8 grid that the int8 conv producing `depthwise`'s
/// input writes (round half to even, clamped to the grid's codes).
Tensor roundedToProducerGrid(Operation *depthwise, const Tensor &x) {
  auto producer = depthwise->getOperand(0).getDefiningOp<QuantizedConvOp>();
  auto grid = cast<quant::UniformQuantizedType>(*producer.getOutputQuantization());
  float scale = static_cast<float>(grid.getScale());
  float zp = static_cast<float>(grid.getZeroPoint());
  float lo = static_cast<float>(grid.getStorageTypeMin());
  float hi = static_cast<float>(grid.getStorageTypeMax());
  Tensor r = cantFail(Tensor::create(DType::F32, x.shape()));
  const float *in = x.as<float>();
  float *out = r.mutableAs<float>();
  for (int64_t i = 0, n = x.numElements(); i < n; ++i)
    out[i] = (std::clamp(std::nearbyint(in[i] / scale) + zp, lo, hi) - zp) * scale;
  return r;
}

} // namespace

llvm::Expected<std::vector<LayerError>>
mlir::nunc::layerErrors(func::FuncOp f32, func::FuncOp quantized,
                        llvm::ArrayRef<std::vector<Tensor>> samples, unsigned threads) {
  std::map<std::string, Operation *> byKey;
  std::vector<std::string> order;
  // Attentions on int8 products too (nunc-quantize-attention).
  auto int8Attention = [](Operation *op) {
    auto a = dyn_cast<AttentionOp>(op);
    return a && a.getInt8Products();
  };
  quantized.walk([&](Operation *op) {
    if (!isa<QuantizedLinearOp, QuantizedConvOp>(op) && !isInt8Depthwise(op) &&
        !int8Attention(op))
      return;
    std::string key = quantizationKey(op);
    byKey[key] = op;
    order.push_back(key);
  });
  llvm::DenseMap<Operation *, std::string> keys;
  f32.walk([&](Operation *op) {
    if (isQuantizable(op) || isa<AttentionOp>(op))
      keys[op] = quantizationKey(op);
  });
  // An int8 op's operand and the f32 op's operand in the same role (input,
  // weight, bias, residual).
  auto roles = [](Operation *op) -> std::array<Value, 4> {
    if (auto q = dyn_cast<QuantizedLinearOp>(op))
      return {q.getInput(), q.getWeight(), q.getBias(), q.getResidual()};
    if (auto q = dyn_cast<QuantizedConvOp>(op))
      return {q.getInput(), q.getWeight(), q.getBias(), q.getResidual()};
    if (auto l = dyn_cast<LinearOp>(op))
      return {l.getInput(), l.getWeight(), l.getBias(), l.getResidual()};
    if (auto c = dyn_cast<FusedConvOp>(op))
      return {c.getInput(), c.getWeight(), c.getBias(), c.getResidual()};
    auto c = cast<ConvOp>(op);
    return {c.getInput(), c.getWeight(), c.getBias(), Value()};
  };
  // Per sample, each layer's f32 and int8 results in evaluation order, or
  // the first error.
  struct SampleRun {
    std::vector<std::tuple<std::string, Tensor, Tensor>> results;
    std::string error;
  };
  auto evaluate = [&](size_t i) {
    SampleRun run;
    std::string &failure = run.error;
    // The f32 op and the int8 one on the same operands (quantOperand: the
    // int8 op's).
    auto compare = [&](Operation *op, Operation *q, const std::string &key,
                       llvm::function_ref<const Tensor &(Value)> operand,
                       llvm::function_ref<const Tensor &(Value)> quantOperand) {
      llvm::Expected<SmallVector<Tensor>> want = evaluateOp(op, operand);
      llvm::Expected<SmallVector<Tensor>> got = evaluateOp(q, quantOperand);
      if (!want) {
        failure = llvm::toString(want.takeError());
        if (!got)
          llvm::consumeError(got.takeError());
        return;
      }
      if (!got) {
        failure = llvm::toString(got.takeError());
        return;
      }
      run.results.emplace_back(key, (*want)[0], (*got)[0]);
    };
    auto observe = [&](Operation *op, llvm::function_ref<const Tensor &(Value)> operand) {
      if ((!isQuantizable(op) && !isa<AttentionOp>(op)) || !failure.empty())
        return;
      auto it = byKey.find(keys.lookup(op));
      if (it == byKey.end())
        return;
      Operation *q = it->second;
      if (isa<AttentionOp>(op)) {
        // The int8 attention on the f32 one's operands, operand by operand.
        auto same = [&](Value v) -> const Tensor & {
          for (unsigned i = 0; i < q->getNumOperands(); ++i)
            if (v == q->getOperand(i))
              return operand(op->getOperand(i));
          return operand(op->getOperand(0));
        };
        compare(op, q, it->first, operand, same);
        return;
      }
      std::array<Value, 4> qRoles = roles(q), fRoles = roles(op);
      // The quantized weight: the i8 constant under its quant.scast, or a
      // depthwise conv's f32 filter on its s8 grid.
      ElementsAttr attr;
      if (auto cast = qRoles[1].getDefiningOp<quant::StorageCastOp>()) {
        if (!matchPattern(cast.getInput(), m_Constant(&attr)))
          return;
      } else if (!matchPattern(qRoles[1], m_Constant(&attr))) {
        return;
      }
      llvm::Expected<Tensor> weight = tensorFromAttr(attr);
      if (!weight) {
        failure = llvm::toString(weight.takeError());
        return;
      }
      // A depthwise conv reads its f32 input rounded to the grid its
      // producer writes.
      std::optional<Tensor> input;
      if (isInt8Depthwise(q))
        input = roundedToProducerGrid(q, operand(fRoles[0]));
      // The int8 op's own bias when it is a constant: bias correction
      // changes it.
      std::optional<Tensor> bias;
      if (ElementsAttr b; qRoles[2] && matchPattern(qRoles[2], m_Constant(&b))) {
        llvm::Expected<Tensor> t = tensorFromAttr(b);
        if (!t) {
          failure = llvm::toString(t.takeError());
          return;
        }
        bias = std::move(*t);
      }
      auto quantOperand = [&](Value v) -> const Tensor & {
        if (input && v == qRoles[0])
          return *input;
        if (v == qRoles[1])
          return *weight;
        if (bias && v == qRoles[2])
          return *bias;
        for (int r : {2, 3})
          if (v && v == qRoles[r] && fRoles[r])
            return operand(fRoles[r]);
        return operand(fRoles[0]);
      };
      compare(op, q, it->first, operand, quantOperand);
    };
    llvm::Expected<SmallVector<Tensor>> out = evaluateFunction(f32, samples[i], observe);
    if (!out && failure.empty())
      failure = llvm::toString(out.takeError());
    else if (!out)
      llvm::consumeError(out.takeError());
    return run;
  };
  std::map<std::string, Agreement> sums;
  auto consume = [&](size_t, SampleRun &run) -> llvm::Error {
    if (!run.error.empty())
      return llvm::createStringError(run.error);
    for (auto &[key, want, got] : run.results)
      sums[key].add(want, got);
    return llvm::Error::success();
  };
  if (llvm::Error e = forEachInOrder<SampleRun>(
          samples.size(), concurrentEvaluations(f32->getContext(), threads), evaluate, consume))
    return std::move(e);
  std::vector<LayerError> errors;
  for (const std::string &key : order) {
    const Agreement &a = sums[key];
    errors.push_back({key, a.snrDb(), a.cosine()});
  }
  return errors;
}

llvm::Expected<std::vector<OutputAgreement>>
mlir::nunc::compareOutputs(func::FuncOp f32, func::FuncOp quantized,
                           llvm::ArrayRef<std::vector<Tensor>> samples, unsigned threads,
                           std::vector<SmallVector<Tensor>> *f32Outputs) {
  std::vector<Agreement> sums(f32.getNumResults());
  // (Workers fill the cache's elements, each its own.)
  const bool cached = f32Outputs && f32Outputs->size() == samples.size();
  if (f32Outputs && !cached)
    f32Outputs->assign(samples.size(), {});
  struct SampleRun {
    SmallVector<Tensor> want, got;
    std::string error;
  };
  auto evaluate = [&](size_t i) {
    SampleRun run;
    if (cached) {
      run.want = (*f32Outputs)[i];
    } else {
      llvm::Expected<SmallVector<Tensor>> want = evaluateFunction(f32, samples[i]);
      if (!want) {
        run.error = llvm::toString(want.takeError());
        return run;
      }
      run.want = std::move(*want);
    }
    llvm::Expected<SmallVector<Tensor>> got = evaluateFunction(quantized, samples[i]);
    if (!got) {
      run.error = llvm::toString(got.takeError());
      return run;
    }
    run.got = std::move(*got);
    if (f32Outputs && !cached)
      (*f32Outputs)[i] = run.want;
    return run;
  };
  auto consume = [&](size_t, SampleRun &run) -> llvm::Error {
    if (!run.error.empty())
      return llvm::createStringError(run.error);
    for (size_t i = 0; i < sums.size(); ++i)
      if (run.want[i].dtype() == DType::F32)
        sums[i].add(run.want[i], run.got[i]);
    return llvm::Error::success();
  };
  if (llvm::Error e = forEachInOrder<SampleRun>(
          samples.size(), concurrentEvaluations(f32->getContext(), threads), evaluate, consume)) {
    if (f32Outputs && !cached)
      f32Outputs->clear(); // not all filled
    return std::move(e);
  }
  std::vector<OutputAgreement> out;
  for (auto [i, a] : llvm::enumerate(sums)) {
    OutputAgreement o;
    auto name = f32.getResultAttrOfType<StringAttr>(i, "nunc.name");
    o.name = name ? name.str() : "output #" + std::to_string(i);
    o.cosine = a.cosine();
    o.maxAbsError = a.maxAbs;
    o.top1 = a.rows ? double(a.sameTop1) / a.rows : -1;
    out.push_back(o);
  }
  return out;
}

std::string mlir::nunc::accuracyReportMarkdown(llvm::StringRef title, llvm::StringRef settings,
                                               int64_t samples,
                                               llvm::ArrayRef<LayerError> layers,
                                               llvm::ArrayRef<OutputAgreement> outputs,
                                               llvm::ArrayRef<std::string> keptF32) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "# int8 accuracy: " << title << "\n\n"
     << settings << "; measured on " << samples
     << " sample(s) with the reference evaluator, against the f32 model.\n\n"
     << "## Outputs\n\n| output | cosine | max abs error | top-1 agreement |\n"
     << "|---|---|---|---|\n";
  for (const OutputAgreement &o : outputs)
    os << llvm::formatv("| {0} | {1:f6} | {2:e3} | {3} |\n", o.name, o.cosine, o.maxAbsError,
                        o.top1 < 0 ? std::string("-")
                                   : llvm::formatv("{0:f2} %", o.top1 * 100).str());
  os << "\n## Layers kept in f32\n\n";
  if (keptF32.empty())
    os << "none\n";
  for (const std::string &k : keptF32)
    os << "- " << k << "\n";
  os << "\n## Quantized layers (each alone, on its f32 inputs; lowest SNR first is the most "
        "sensitive)\n\n| layer | SNR (dB) | cosine |\n|---|---|---|\n";
  std::vector<LayerError> sorted(layers.begin(), layers.end());
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const LayerError &a, const LayerError &b) { return a.snrDb < b.snrDb; });
  for (const LayerError &l : sorted)
    os << llvm::formatv("| {0} | {1:f1} | {2:f6} |\n", l.key, l.snrDb, l.cosine);
  return s;
}
