//===- QuantKernels.cpp - ONNX quantization ops ---------------------------===//

#include "KernelSupport.h"
#include "Kernels.h"

#include <cmath>
#include <limits>

namespace mlir::nunc::kernels {

namespace {

/// Index of the quantization parameter that element i uses: 0 for a
/// per-tensor parameter, else its coordinate along `axis`.
struct ParamIndexer {
  int64_t inner = 1, dim = 1;
  bool perAxis = false;
  int64_t operator()(int64_t i) const { return perAxis ? (i / inner) % dim : 0; }
};

Expected<ParamIndexer> paramIndexer(const Tensor &x, const Tensor &param, int64_t axis) {
  ParamIndexer p;
  if (param.numElements() == 1)
    return p;
  if (param.rank() != 1)
    return kernelError("quantization parameters must be scalars or 1-D "
                       "(blocked quantization is not supported), got " +
                       param.describe());
  NUNC_ASSIGN_OR_RETURN(a, shape::normalizeAxis(axis, x.rank(), "quantization axis"));
  if (x.dim(a) != param.dim(0))
    return kernelError("quantization parameter " + param.describe() +
                       " does not match axis " + llvm::Twine(a) + " of " + x.describe());
  p.perAxis = true;
  p.dim = x.dim(a);
  for (int64_t i = a + 1; i < x.rank(); ++i)
    p.inner *= x.dim(i);
  return p;
}

/// a - zero_point as int32, with a per-tensor or per-index zero point.
Expected<Tensor> subtractZeroPoint(const Tensor &a, const Tensor *zero,
                                   bool perRow /* else per column */) {
  NUNC_ASSIGN_OR_RETURN(out, Tensor::create(DType::I32, a.shape()));
  int64_t cols = a.rank() ? a.dim(a.rank() - 1) : 1;
  int64_t rows = a.rank() >= 2 ? a.dim(a.rank() - 2) : 1;
  if (zero && zero->numElements() != 1 &&
      (zero->rank() != 1 || zero->dim(0) != (perRow ? rows : cols)))
    return kernelError("zero point " + zero->describe() + " does not match " +
                       a.describe());
  int32_t *o = out.mutableAs<int32_t>();
  for (int64_t i = 0, n = a.numElements(); i < n; ++i) {
    int64_t zi = 0;
    if (zero && zero->numElements() != 1)
      zi = perRow ? (i / cols) % rows : i % cols;
    o[i] = static_cast<int32_t>(a.getInt(i) - (zero ? zero->getInt(zi) : 0));
  }
  return out;
}

} // namespace

Expected<Tensor> quantizeLinear(const Tensor &x, const Tensor &scale,
                                const Tensor *zeroPoint, int64_t axis, DType outType) {
  if (!isFloat(x.dtype()))
    return kernelError("QuantizeLinear needs a floating-point input");
  if (outType != DType::U8 && outType != DType::I8 && outType != DType::U16 &&
      outType != DType::I16)
    return kernelError("QuantizeLinear supports 8- and 16-bit integer outputs");
  NUNC_ASSIGN_OR_RETURN(index, paramIndexer(x, scale, axis));
  if (zeroPoint && zeroPoint->numElements() != scale.numElements())
    return kernelError("zero point and scale differ in size");
  NUNC_ASSIGN_OR_RETURN(out, Tensor::create(outType, x.shape()));
  for (int64_t i = 0, n = x.numElements(); i < n; ++i) {
    int64_t p = index(i);
    float v = static_cast<float>(x.getDouble(i)) / static_cast<float>(scale.getDouble(p));
    float zp = zeroPoint ? static_cast<float>(zeroPoint->getInt(p)) : 0.f;
    float r = std::nearbyint(v) + zp;
    switch (outType) {
    case DType::U8: out.mutableAs<uint8_t>()[i] = saturateRound<uint8_t>(r); break;
    case DType::I8: out.mutableAs<int8_t>()[i] = saturateRound<int8_t>(r); break;
    case DType::U16: out.mutableAs<uint16_t>()[i] = saturateRound<uint16_t>(r); break;
    default: out.mutableAs<int16_t>()[i] = saturateRound<int16_t>(r); break;
    }
  }
  return out;
}

Expected<Tensor> dequantizeLinear(const Tensor &x, const Tensor &scale,
                                  const Tensor *zeroPoint, int64_t axis) {
  if (!isFloat(scale.dtype()))
    return kernelError("DequantizeLinear's scale must be floating point");
  NUNC_ASSIGN_OR_RETURN(index, paramIndexer(x, scale, axis));
  if (zeroPoint && zeroPoint->numElements() != scale.numElements())
    return kernelError("zero point and scale differ in size");
  NUNC_ASSIGN_OR_RETURN(out, Tensor::create(scale.dtype(), x.shape()));
  dispatchDType(scale.dtype(), [&]<typename T>() {
    if constexpr (isFloatType<T>()) {
      T *o = out.mutableAs<T>();
      for (int64_t i = 0, n = x.numElements(); i < n; ++i) {
        int64_t p = index(i);
        float zp = zeroPoint ? static_cast<float>(zeroPoint->getInt(p)) : 0.f;
        o[i] = T((static_cast<float>(x.getInt(i)) - zp) *
                 static_cast<float>(scale.getDouble(p)));
      }
    }
  });
  return out;
}

Expected<Tensor> fakeQuantize(const Tensor &x, float scale, int64_t zeroPoint, int64_t qmin,
                              int64_t qmax) {
  if (x.dtype() != DType::F32)
    return kernelError("fake_quantize needs a float32 input");
  NUNC_ASSIGN_OR_RETURN(out, Tensor::create(DType::F32, x.shape()));
  const float *in = x.as<float>();
  float *o = out.mutableAs<float>();
  for (int64_t i = 0, n = x.numElements(); i < n; ++i)
    o[i] = fakeQuantizeValue(in[i], scale, zeroPoint, qmin, qmax);
  return out;
}

Expected<Tensor> geluOnGrids(const Tensor &x, const GeluGrids &grids) {
  if (x.dtype() != DType::F32)
    return kernelError("gelu with quantization grids needs a float32 input");
  NUNC_ASSIGN_OR_RETURN(out, Tensor::create(DType::F32, x.shape()));
  auto round = [](float v, const std::optional<Grid> &g) { return g ? g->round(v) : v; };
  const float *in = x.as<float>();
  float *o = out.mutableAs<float>();
  for (int64_t i = 0, n = x.numElements(); i < n; ++i) {
    float v = in[i];
    float e = round(std::erf(v * static_cast<float>(M_SQRT1_2)), grids.erf);
    float s = round(e + grids.one, grids.sum);
    o[i] = round(v * s, grids.product) * grids.half;
  }
  return out;
}

float fakeQuantizeValue(float x, float scale, int64_t zeroPoint, int64_t qmin, int64_t qmax) {
  // The two ONNX ops' steps, in their order.
  float zp = static_cast<float>(zeroPoint);
  float q = std::nearbyint(x / scale) + zp;
  q = std::isnan(q) ? static_cast<float>(qmin) // as saturateRound
                    : std::clamp(q, static_cast<float>(qmin), static_cast<float>(qmax));
  return (q - zp) * scale;
}

Expected<llvm::SmallVector<Tensor, 3>> dynamicQuantizeLinear(const Tensor &x) {
  if (x.dtype() != DType::F32)
    return kernelError("DynamicQuantizeLinear needs a float32 input");
  const float *in = x.as<float>();
  float lo = 0.f, hi = 0.f;
  for (int64_t i = 0, n = x.numElements(); i < n; ++i) {
    lo = std::min(lo, in[i]);
    hi = std::max(hi, in[i]);
  }
  float scale = (hi - lo) / 255.f;
  // An all-zero input: the spec's formula gives scale 0 (and y = 0 / 0);
  // onnxruntime gives scale 1, zero point 0 and y = 0, and so does nunc.
  if (scale == 0.f)
    scale = 1.f;
  uint8_t zp = saturateRound<uint8_t>(std::clamp(0.f - lo / scale, 0.f, 255.f));
  NUNC_ASSIGN_OR_RETURN(y, Tensor::create(DType::U8, x.shape()));
  uint8_t *o = y.mutableAs<uint8_t>();
  for (int64_t i = 0, n = x.numElements(); i < n; ++i)
    o[i] = saturateRound<uint8_t>(std::nearbyint(in[i] / scale) + zp);
  NUNC_ASSIGN_OR_RETURN(s, Tensor::fromValues<float>(DType::F32, {}, {scale}));
  NUNC_ASSIGN_OR_RETURN(z, Tensor::fromValues<uint8_t>(DType::U8, {}, {zp}));
  return llvm::SmallVector<Tensor, 3>{y, s, z};
}

Expected<Tensor> matmulInteger(const Tensor &a, const Tensor &b, const Tensor *aZero,
                               const Tensor *bZero) {
  NUNC_ASSIGN_OR_RETURN(a32, subtractZeroPoint(a, aZero, /*perRow=*/true));
  NUNC_ASSIGN_OR_RETURN(b32, subtractZeroPoint(b, bZero, /*perRow=*/false));
  return matmul(a32, b32);
}

Expected<Tensor> qlinearMatmul(const Tensor &a, const Tensor &aScale, const Tensor &aZero,
                               const Tensor &b, const Tensor &bScale,
                               const Tensor &bZero, const Tensor &yScale,
                               const Tensor &yZero) {
  if (yScale.numElements() != 1 || yZero.numElements() != 1)
    return kernelError("QLinearMatMul's y_scale and y_zero_point must be scalars");
  NUNC_ASSIGN_OR_RETURN(acc, matmulInteger(a, b, &aZero, &bZero));
  int64_t n = acc.rank() ? acc.dim(acc.rank() - 1) : 1;
  int64_t m = acc.rank() >= 2 ? acc.dim(acc.rank() - 2) : 1;
  for (const Tensor *s : {&aScale, &bScale})
    if (s->numElements() != 1 && s->rank() != 1)
      return kernelError("QLinearMatMul scales must be scalars or 1-D");
  if (aScale.numElements() != 1 && aScale.numElements() != m)
    return kernelError("a_scale does not match the rows of A");
  if (bScale.numElements() != 1 && bScale.numElements() != n)
    return kernelError("b_scale does not match the columns of B");
  DType outType = yZero.dtype();
  NUNC_ASSIGN_OR_RETURN(out, Tensor::create(outType, acc.shape()));
  float ys = static_cast<float>(yScale.getDouble(0));
  double yz = static_cast<double>(yZero.getInt(0));
  const int32_t *c = acc.as<int32_t>();
  for (int64_t i = 0, total = acc.numElements(); i < total; ++i) {
    int64_t row = (i / n) % m, col = i % n;
    float as = static_cast<float>(aScale.getDouble(aScale.numElements() == 1 ? 0 : row));
    float bs = static_cast<float>(bScale.getDouble(bScale.numElements() == 1 ? 0 : col));
    float multiplier = as * bs / ys;
    // (NaN where a zero y scale meets a zero sum: the lowest code)
    double v = static_cast<double>(c[i]) * multiplier + yz;
    if (outType == DType::U8)
      out.mutableAs<uint8_t>()[i] = saturateRound<uint8_t>(v);
    else
      out.mutableAs<int8_t>()[i] = saturateRound<int8_t>(v);
  }
  return out;
}

} // namespace mlir::nunc::kernels
