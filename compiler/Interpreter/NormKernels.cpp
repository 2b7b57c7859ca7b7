//===- NormKernels.cpp - reductions, softmax, layer and batch norm --------===//

#include "KernelSupport.h"
#include "Kernels.h"
#include "nunc/Dialect/Nunc/OneStepRequantization.h"

#include <array>
#include <cmath>
#include <limits>
#include <tuple>
#include <utility>
#include <vector>

namespace mlir::nunc::kernels {

Expected<Tensor> reduce(ReduceKind kind, const Tensor &x, llvm::ArrayRef<int64_t> axes,
                        bool keepDims, bool noopWithEmptyAxes) {
  if (x.dtype() == DType::Bool && kind != ReduceKind::Max && kind != ReduceKind::Min)
    return kernelError("sums and means do not take bool tensors");
  NUNC_ASSIGN_OR_RETURN(reduced,
                        shape::reducedAxes(x.rank(), axes, noopWithEmptyAxes));
  if (reduced.empty())
    return x;
  shape::Dims kept(x.shape());
  int64_t count = 1;
  for (int64_t a : reduced) {
    count *= kept[a];
    kept[a] = 1;
  }
  NUNC_ASSIGN_OR_RETURN(finalShape,
                        shape::reduce(x.shape(), axes, keepDims, noopWithEmptyAxes));
  NUNC_ASSIGN_OR_RETURN(out, Tensor::create(x.dtype(), kept));
  std::array<llvm::SmallVector<int64_t, 6>, 2> strides = {
      rowMajorStrides(x.shape()), broadcastStrides(kept, x.shape())};
  dispatchDType(x.dtype(), [&]<typename T>() {
    using C = ComputeType<T>;
    if (kind == ReduceKind::Max || kind == ReduceKind::Min) {
      // NaN wins (numpy's maximum.reduce); an empty reduction gives the
      // identity: -inf / +inf, or the type's lowest / highest.
      bool max = kind == ReduceKind::Max;
      C init = std::numeric_limits<C>::has_infinity
                   ? (max ? -std::numeric_limits<C>::infinity()
                          : std::numeric_limits<C>::infinity())
                   : (max ? std::numeric_limits<C>::lowest() : std::numeric_limits<C>::max());
      llvm::SmallVector<C, 0> acc(out.numElements(), init);
      const T *in = x.as<T>();
      forEachIndex<2>(x.shape(), strides, [&](int64_t, const std::array<int64_t, 2> &off) {
        C v = static_cast<C>(in[off[0]]), &a = acc[off[1]];
        if constexpr (std::is_floating_point_v<C>) {
          if (std::isnan(v) || std::isnan(a)) {
            a = std::numeric_limits<C>::quiet_NaN();
            return;
          }
        }
        a = max ? std::max(a, v) : std::min(a, v);
      });
      T *o = out.mutableAs<T>();
      for (size_t i = 0; i < acc.size(); ++i)
        o[i] = T(acc[i]);
      return;
    }
    if constexpr (!std::is_same_v<T, bool>) {
      // Floats accumulate in double; integers wrap in their unsigned type.
      using Acc = Accumulator<C>;
      const bool prod = kind == ReduceKind::Prod;
      std::vector<Acc> acc(out.numElements(), prod ? 1 : 0);
      const T *in = x.as<T>();
      forEachIndex<2>(x.shape(), strides, [&](int64_t, const std::array<int64_t, 2> &off) {
        Acc v = static_cast<Acc>(static_cast<C>(in[off[0]]));
        if constexpr (std::is_integral_v<Acc>)
          // (In 64 bits: a 16-bit product would promote to int and overflow.)
          acc[off[1]] = static_cast<Acc>(prod ? uint64_t(acc[off[1]]) * uint64_t(v)
                                              : uint64_t(acc[off[1]]) + uint64_t(v));
        else
          acc[off[1]] = prod ? acc[off[1]] * v : acc[off[1]] + v;
      });
      T *o = out.mutableAs<T>();
      for (size_t i = 0; i < acc.size(); ++i) {
        if (kind == ReduceKind::Sum || prod) {
          o[i] = T(static_cast<C>(acc[i]));
        } else if constexpr (std::is_integral_v<C>) {
          // Mean of integers: the exact mean, truncated (numpy then astype).
          o[i] = count ? T(static_cast<C>(static_cast<C>(acc[i]) / static_cast<C>(count)))
                       : T(0);
        } else {
          o[i] = T(static_cast<C>(acc[i] / count));
        }
      }
    }
  });
  return out.reshaped(finalShape);
}

Expected<Tensor> argExtreme(const Tensor &x, int64_t axis, bool keepDims, bool max,
                            bool lastIndex) {
  NUNC_ASSIGN_OR_RETURN(a, shape::normalizeAxis(axis, x.rank(), "ArgMax/ArgMin axis"));
  NUNC_ASSIGN_OR_RETURN(finalShape, shape::reduce(x.shape(), {axis}, keepDims, false));
  int64_t outer = 1, inner = 1, n = x.shape()[a];
  for (int64_t d = 0; d < a; ++d)
    outer *= x.shape()[d];
  for (int64_t d = a + 1; d < x.rank(); ++d)
    inner *= x.shape()[d];
  if (n == 0 && outer * inner > 0)
    return kernelError("ArgMax/ArgMin over an empty axis");
  NUNC_ASSIGN_OR_RETURN(out, Tensor::create(DType::I64, finalShape));
  int64_t *o = out.mutableAs<int64_t>();
  llvm::Error err = llvm::Error::success();
  dispatchDType(x.dtype(), [&]<typename T>() {
    using C = ComputeType<T>;
    const T *in = x.as<T>();
    for (int64_t p = 0; p < outer; ++p)
      for (int64_t q = 0; q < inner; ++q) {
        int64_t best = 0;
        C bv = static_cast<C>(in[p * n * inner + q]);
        for (int64_t i = 1; i < n; ++i) {
          C v = static_cast<C>(in[(p * n + i) * inner + q]);
          bool vNan = false, bNan = false;
          if constexpr (std::is_floating_point_v<C>) {
            vNan = std::isnan(v);
            bNan = std::isnan(bv);
          }
          bool better = (max ? v > bv : v < bv) || (vNan && !bNan);
          bool tie = v == bv || (vNan && bNan);
          if (better || (lastIndex && tie)) {
            best = i;
            bv = v;
          }
        }
        o[p * inner + q] = best;
      }
  });
  if (err)
    return std::move(err);
  return out;
}

namespace {
/// A softmax's rows: (outer, n, inner), element (p, i, q) at (p n + i) inner + q.
Expected<std::tuple<int64_t, int64_t, int64_t>> softmaxRows(const Tensor &x, int64_t axis) {
  NUNC_ASSIGN_OR_RETURN(a, shape::normalizeAxis(axis, x.rank(), "Softmax axis"));
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < a; ++i)
    outer *= x.dim(i);
  for (int64_t i = a + 1; i < x.rank(); ++i)
    inner *= x.dim(i);
  return std::tuple<int64_t, int64_t, int64_t>{outer, x.dim(a), inner};
}
} // namespace

Expected<Tensor> softmax(const Tensor &x, int64_t axis) {
  if (!isFloat(x.dtype()))
    return kernelError("Softmax needs a floating-point input");
  NUNC_ASSIGN_OR_RETURN(rows, softmaxRows(x, axis));
  auto [outer, n, inner] = rows;
  NUNC_ASSIGN_OR_RETURN(out, Tensor::create(x.dtype(), x.shape()));
  dispatchDType(x.dtype(), [&]<typename T>() {
    using C = ComputeType<T>;
    if constexpr (std::is_floating_point_v<C>) {
      const T *in = x.as<T>();
      T *o = out.mutableAs<T>();
      std::vector<double> e(n);
      for (int64_t p = 0; p < outer; ++p)
        for (int64_t q = 0; q < inner; ++q) {
          const T *src = in + p * n * inner + q;
          T *dst = o + p * n * inner + q;
          C maxV = -std::numeric_limits<C>::infinity();
          for (int64_t i = 0; i < n; ++i)
            maxV = std::max<C>(maxV, src[i * inner]);
          double sum = 0;
          for (int64_t i = 0; i < n; ++i) {
            e[i] = std::exp(static_cast<double>(static_cast<C>(src[i * inner])) - maxV);
            sum += e[i];
          }
          for (int64_t i = 0; i < n; ++i)
            dst[i * inner] = T(static_cast<C>(e[i] / sum));
        }
    }
  });
  return out;
}

Expected<Tensor> qlinearSoftmax(const Tensor &x, int64_t axis, InputQuantization input,
                                InputQuantization output) {
  if (x.dtype() != DType::F32)
    return kernelError("a softmax on grids needs an f32 input, got " + x.describe());
  NUNC_ASSIGN_OR_RETURN(rows, softmaxRows(x, axis));
  auto [outer, n, inner] = rows;
  NUNC_ASSIGN_OR_RETURN(out, Tensor::create(DType::F32, x.shape()));
  const std::array<float, 256> table = qlinearSoftmaxTable(input.scale, n);
  const float *in = x.as<float>();
  float *o = out.mutableAs<float>();
  std::vector<int32_t> steps(n);
  std::vector<float> e(n);
  for (int64_t p = 0; p < outer; ++p)
    for (int64_t q = 0; q < inner; ++q) {
      const float *src = in + p * n * inner + q;
      float *dst = o + p * n * inner + q;
      int32_t top = std::numeric_limits<int32_t>::min();
      for (int64_t i = 0; i < n; ++i) {
        steps[i] = static_cast<int32_t>(std::nearbyint(double(src[i * inner]) / input.scale));
        top = std::max(top, steps[i]);
      }
      float sum = 0;
      for (int64_t i = 0; i < n; ++i) {
        e[i] = table[std::clamp(255 - top + steps[i], 0, 255)];
        sum += e[i];
      }
      const float factor = qlinearSoftmaxFactor(output.scale, sum);
      for (int64_t i = 0; i < n; ++i)
        dst[i * inner] = static_cast<float>(qlinearSoftmaxCode(e[i], factor, output.zeroPoint) -
                                            output.zeroPoint) *
                         output.scale;
    }
  return out;
}

namespace {

/// Sums 8 lanes as a tree: (l_k + l_k+4), then (k, k+2), then 0 + 1.
template <typename T> T laneTreeSum(std::array<T, 8> l) {
  for (int k = 0; k < 4; ++k)
    l[k] = l[k] + l[k + 4];
  for (int k = 0; k < 2; ++k)
    l[k] = l[k] + l[k + 2];
  return l[0] + l[1];
}

/// One row of nunc.layer_norm's ordered_f32_arithmetic (n a multiple of 8);
/// writes y and returns {mean, 1 / stddev}.
std::pair<float, float> orderedLayerNormRow(const float *x, int64_t n, const float *scale,
                                            const float *bias, float epsilon, float *y) {
  std::array<double, 8> sums{};
  for (int64_t i = 0; i < n; ++i)
    sums[i % 8] += static_cast<double>(x[i]);
  const auto mean = static_cast<float>(laneTreeSum(sums) / static_cast<double>(n));
  std::array<float, 8> squares{};
  for (int64_t i = 0; i < n; ++i) {
    const float d = x[i] - mean;
    squares[i % 8] = std::fma(d, d, squares[i % 8]);
  }
  const float var = laneTreeSum(squares) / static_cast<float>(n);
  const float inv = 1.f / std::sqrt(var + epsilon);
  for (int64_t i = 0; i < n; ++i) {
    const float normalized = (x[i] - mean) * inv;
    y[i] = bias ? std::fma(normalized, scale[i], bias[i]) : normalized * scale[i];
  }
  return {mean, inv};
}

} // namespace

Expected<llvm::SmallVector<Tensor, 3>> layerNorm(const Tensor &x, const Tensor &scale,
                                                 const Tensor *bias, int64_t axis,
                                                 float epsilon, DType statsType,
                                                 bool ordered, bool rms) {
  if (!isFloat(x.dtype()) || scale.dtype() != x.dtype() ||
      (bias && bias->dtype() != x.dtype()))
    return kernelError("LayerNormalization needs floating-point operands of one type");
  NUNC_ASSIGN_OR_RETURN(a, shape::normalizeAxis(axis, x.rank(), "LayerNormalization axis"));
  llvm::ArrayRef<int64_t> normShape = x.shape().drop_front(a);
  int64_t outer = 1, n = 1;
  for (int64_t i = 0; i < a; ++i)
    outer *= x.dim(i);
  for (int64_t d : normShape)
    n *= d;
  // Scale and bias broadcast over the normalized dims.
  auto broadcastParam = [&](const Tensor &p) -> Expected<std::vector<double>> {
    NUNC_ASSIGN_OR_RETURN(s, shape::broadcast(normShape, p.shape()));
    if (llvm::ArrayRef<int64_t>(s) != normShape)
      return kernelError("LayerNormalization parameter " + p.describe() +
                         " does not broadcast to the normalized dims");
    std::vector<double> v(n);
    std::array<llvm::SmallVector<int64_t, 6>, 1> st = {broadcastStrides(p.shape(), normShape)};
    forEachIndex<1>(normShape, st, [&](int64_t i, const std::array<int64_t, 1> &off) {
      v[i] = p.getDouble(off[0]);
    });
    return v;
  };
  NUNC_ASSIGN_OR_RETURN(sv, broadcastParam(scale));
  std::vector<double> bv(n, 0.0);
  if (bias) {
    NUNC_ASSIGN_OR_RETURN(b, broadcastParam(*bias));
    bv = b;
  }
  shape::Dims statShape(x.shape().take_front(a));
  statShape.append(x.rank() - a, 1);
  NUNC_ASSIGN_OR_RETURN(y, Tensor::create(x.dtype(), x.shape()));
  NUNC_ASSIGN_OR_RETURN(mean, Tensor::create(statsType, statShape));
  NUNC_ASSIGN_OR_RETURN(invStd, Tensor::create(statsType, statShape));
  std::vector<double> means(outer), invs(outer);
  if (ordered && rms)
    return kernelError("LayerNormalization takes rms or ordered f32 arithmetic, not both");
  if (ordered) {
    if (x.dtype() != DType::F32 || n % 8 != 0)
      return kernelError("LayerNormalization in ordered f32 arithmetic needs f32 rows of a "
                         "multiple of 8 elements");
    std::vector<float> s32(sv.begin(), sv.end()), b32(bv.begin(), bv.end());
    for (int64_t r = 0; r < outer; ++r)
      std::tie(means[r], invs[r]) =
          orderedLayerNormRow(x.as<float>() + r * n, n, s32.data(), bias ? b32.data() : nullptr,
                              epsilon, y.mutableAs<float>() + r * n);
  } else {
    // Sums in f64; each square and the variance in the stash type (f32
    // unless the model asks for f64; f64 rows keep f64), so that a row whose
    // squares pass FLT_MAX has an infinite variance, as in ONNX's reference
    // and onnxruntime.
    auto normalize = [&]<typename T, typename A>() {
      const T *in = x.as<T>();
      T *o = y.mutableAs<T>();
      for (int64_t r = 0; r < outer; ++r) {
        const T *row = in + r * n;
        double sum = 0;
        for (int64_t i = 0; !rms && i < n; ++i)
          sum += static_cast<ComputeType<T>>(row[i]);
        const double mu = sum / n;
        double squares = 0;
        for (int64_t i = 0; i < n; ++i) {
          const auto d = static_cast<A>(static_cast<ComputeType<T>>(row[i]) - mu);
          squares += d * d;
        }
        // (A sum past FLT_MAX is infinite in f32 too, before the division.)
        const A sumOfSquares = static_cast<A>(squares);
        const double var = std::isinf(sumOfSquares) ? sumOfSquares : static_cast<A>(squares / n);
        const double inv = 1.0 / std::sqrt(var + static_cast<double>(epsilon));
        for (int64_t i = 0; i < n; ++i)
          o[r * n + i] = T(static_cast<ComputeType<T>>(
              (static_cast<ComputeType<T>>(row[i]) - mu) * inv * sv[i] + bv[i]));
        means[r] = mu;
        invs[r] = inv;
      }
    };
    dispatchDType(x.dtype(), [&]<typename T>() {
      using C = ComputeType<T>;
      if constexpr (std::is_same_v<C, double>)
        normalize.template operator()<T, double>();
      else if constexpr (std::is_floating_point_v<C>)
        statsType == DType::F64 ? normalize.template operator()<T, double>()
                                : normalize.template operator()<T, float>();
    });
  }
  dispatchDType(statsType, [&]<typename S>() {
    if constexpr (isFloatType<S>()) {
      for (int64_t r = 0; r < outer; ++r) {
        mean.mutableAs<S>()[r] = S(static_cast<ComputeType<S>>(means[r]));
        invStd.mutableAs<S>()[r] = S(static_cast<ComputeType<S>>(invs[r]));
      }
    }
  });
  return llvm::SmallVector<Tensor, 3>{y, mean, invStd};
}

Expected<Tensor> batchNorm(const Tensor &x, const Tensor &scale, const Tensor &bias,
                           const Tensor &mean, const Tensor &var, float epsilon) {
  if (!isFloat(x.dtype()) || x.rank() < 2)
    return kernelError("BatchNormalization needs a floating-point input of rank >= 2");
  int64_t c = x.dim(1);
  for (const Tensor *p : {&scale, &bias, &mean, &var})
    if (p->rank() != 1 || p->dim(0) != c || !isFloat(p->dtype()))
      return kernelError("BatchNormalization parameters must be 1-D with " +
                         llvm::Twine(c) + " entries");
  int64_t inner = 1;
  for (int64_t i = 2; i < x.rank(); ++i)
    inner *= x.dim(i);
  NUNC_ASSIGN_OR_RETURN(out, Tensor::create(x.dtype(), x.shape()));
  dispatchDType(x.dtype(), [&]<typename T>() {
    using C = ComputeType<T>;
    if constexpr (std::is_floating_point_v<C>) {
      // As onnxruntime computes it, each step rounded in the compute type:
      // a = 1 / sqrt(var + eps) * scale, b = bias - mean * a, y = x a + b.
      std::vector<C> mul(c), add(c);
      for (int64_t i = 0; i < c; ++i) {
        const C invStd = C(1) / std::sqrt(static_cast<C>(var.getDouble(i)) + C(epsilon));
        mul[i] = invStd * static_cast<C>(scale.getDouble(i));
        const C shifted = static_cast<C>(mean.getDouble(i)) * mul[i];
        add[i] = static_cast<C>(bias.getDouble(i)) - shifted;
      }
      const T *in = x.as<T>();
      T *o = out.mutableAs<T>();
      for (int64_t i = 0, n = x.numElements(); i < n; ++i) {
        int64_t ch = (i / inner) % c;
        const C product = static_cast<C>(in[i]) * mul[ch];
        o[i] = T(static_cast<C>(product + add[ch]));
      }
    }
  });
  return out;
}

Expected<Tensor> channelAffine(const Tensor &x, const Tensor &scale, const Tensor &shift) {
  if (x.dtype() != DType::F32 || x.rank() < 2)
    return kernelError("a channel affine needs an f32 input of rank >= 2");
  int64_t c = x.dim(1);
  for (const Tensor *p : {&scale, &shift})
    if (p->rank() != 1 || p->dim(0) != c || p->dtype() != DType::F32)
      return kernelError("channel scale and shift must be f32 [" + llvm::Twine(c) + "]");
  int64_t inner = 1;
  for (int64_t i = 2; i < x.rank(); ++i)
    inner *= x.dim(i);
  NUNC_ASSIGN_OR_RETURN(out, Tensor::create(DType::F32, x.shape()));
  const float *in = x.as<float>(), *a = scale.as<float>(), *b = shift.as<float>();
  float *o = out.mutableAs<float>();
  for (int64_t i = 0, n = x.numElements(); i < n; ++i) {
    int64_t ch = (i / inner) % c;
    const float product = in[i] * a[ch]; // rounded, then the sum (no FMA)
    o[i] = product + b[ch];
  }
  return out;
}

} // namespace mlir::nunc::kernels
