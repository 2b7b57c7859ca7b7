//===- LinalgKernels.cpp - matmul, gemm, conv, pooling --------------------===//

#include "KernelSupport.h"
#include "Kernels.h"
#include "nunc/Dialect/Nunc/OneStepRequantization.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace mlir::nunc::kernels {

namespace {

/// Tensor data as a contiguous float vector (copy for other float types).
std::vector<float> toFloats(const Tensor &t) {
  std::vector<float> v(t.numElements());
  dispatchDType(t.dtype(), [&]<typename T>() {
    const T *p = t.as<T>();
    for (int64_t i = 0, n = t.numElements(); i < n; ++i)
      v[i] = static_cast<float>(static_cast<ComputeType<T>>(p[i]));
  });
  return v;
}

/// Writes floats into a tensor of a float dtype.
void fromFloats(const std::vector<float> &v, Tensor &t) {
  dispatchDType(t.dtype(), [&]<typename T>() {
    if constexpr (isFloatType<T>()) {
      T *p = t.mutableAs<T>();
      for (size_t i = 0; i < v.size(); ++i)
        p[i] = T(v[i]);
    }
  });
}

/// C[m, n] = sum_k A[m, k] * B[k, n] for any numeric type; integers wrap.
template <typename T>
void gemmGeneric(int64_t m, int64_t n, int64_t k, const T *a, const T *b, T *c) {
  using C = ComputeType<T>;
  using Acc = Accumulator<C>;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      Acc acc = 0;
      for (int64_t kk = 0; kk < k; ++kk)
        acc += static_cast<Acc>(static_cast<C>(a[i * k + kk])) *
               static_cast<Acc>(static_cast<C>(b[kk * n + j]));
      c[i * n + j] = T(static_cast<C>(acc));
    }
}

} // namespace

Expected<Tensor> matmul(const Tensor &a, const Tensor &b) {
  if (a.dtype() != b.dtype())
    return kernelError("MatMul operands have different types");
  if (a.dtype() == DType::Bool)
    return kernelError("MatMul does not take bool tensors");
  NUNC_ASSIGN_OR_RETURN(outShape, shape::matmul(a.shape(), b.shape()));
  // Promote 1-D operands, as numpy does.
  shape::Dims pa(a.shape()), pb(b.shape());
  if (pa.size() == 1)
    pa.insert(pa.begin(), 1);
  if (pb.size() == 1)
    pb.push_back(1);
  int64_t m = pa[pa.size() - 2], k = pa.back(), n = pb.back();
  NUNC_ASSIGN_OR_RETURN(batch, shape::broadcast(llvm::ArrayRef(pa).drop_back(2),
                                                llvm::ArrayRef(pb).drop_back(2)));
  shape::Dims full(batch);
  full.append({m, n});
  NUNC_ASSIGN_OR_RETURN(out, Tensor::create(a.dtype(), full));
  std::array<llvm::SmallVector<int64_t, 6>, 2> strides = {
      broadcastStrides(llvm::ArrayRef(pa).drop_back(2), batch),
      broadcastStrides(llvm::ArrayRef(pb).drop_back(2), batch)};
  int64_t aMat = m * k, bMat = k * n, oMat = m * n;

  if (a.dtype() == DType::F32) {
    const float *pA = a.as<float>(), *pB = b.as<float>();
    float *pO = out.mutableAs<float>();
    forEachIndex<2>(batch, strides, [&](int64_t i, const std::array<int64_t, 2> &off) {
      gemmF32(m, n, k, pA + off[0] * aMat, k, pB + off[1] * bMat, n, pO + i * oMat, n);
    });
  } else {
    dispatchDType(a.dtype(), [&]<typename T>() {
      if constexpr (!std::is_same_v<T, bool>) {
        const T *pA = a.as<T>(), *pB = b.as<T>();
        T *pO = out.mutableAs<T>();
        forEachIndex<2>(batch, strides, [&](int64_t i, const std::array<int64_t, 2> &off) {
          gemmGeneric<T>(m, n, k, pA + off[0] * aMat, pB + off[1] * bMat, pO + i * oMat);
        });
      }
    });
  }
  return out.reshaped(outShape);
}

Expected<Tensor> gemm(const Tensor &a, const Tensor &b, const Tensor *c, float alpha,
                      float beta, bool transA, bool transB) {
  if (a.rank() != 2 || b.rank() != 2)
    return kernelError("Gemm operands must be 2-D");
  NUNC_ASSIGN_OR_RETURN(at, transA ? transpose(a, {1, 0}) : Expected<Tensor>(a));
  NUNC_ASSIGN_OR_RETURN(bt, transB ? transpose(b, {1, 0}) : Expected<Tensor>(b));
  if (at.dim(1) != bt.dim(0))
    return kernelError("Gemm inner dims differ: " + a.describe() + " x " + b.describe());
  NUNC_ASSIGN_OR_RETURN(product, matmul(at, bt));
  int64_t m = product.dim(0), n = product.dim(1);
  NUNC_ASSIGN_OR_RETURN(out, Tensor::create(a.dtype(), product.shape()));
  shape::Dims mn{m, n};
  std::array<llvm::SmallVector<int64_t, 6>, 1> cStrides;
  if (c) {
    NUNC_ASSIGN_OR_RETURN(bshape, shape::broadcast(mn, c->shape()));
    if (llvm::ArrayRef<int64_t>(bshape) != llvm::ArrayRef<int64_t>(mn))
      return kernelError("Gemm's C " + c->describe() + " does not broadcast to [" +
                         llvm::Twine(m) + ", " + llvm::Twine(n) + "]");
    cStrides[0] = broadcastStrides(c->shape(), mn);
  }
  dispatchDType(a.dtype(), [&]<typename T>() {
    using C = ComputeType<T>;
    if constexpr (!std::is_same_v<T, bool>) {
      const T *p = product.as<T>();
      T *o = out.mutableAs<T>();
      for (int64_t i = 0; i < m * n; ++i)
        o[i] = T(static_cast<C>(alpha * static_cast<C>(p[i])));
      if (c) {
        const T *pc = c->as<T>();
        forEachIndex<1>(mn, cStrides, [&](int64_t i, const std::array<int64_t, 1> &off) {
          o[i] = T(static_cast<C>(static_cast<C>(o[i]) + beta * static_cast<C>(pc[off[0]])));
        });
      }
    }
  });
  return out;
}

//===----------------------------------------------------------------------===//
// Convolution and pooling
//===----------------------------------------------------------------------===//

namespace {

struct Window {
  int64_t batch, channels;
  shape::Dims in, out;        // spatial dims
  shape::WindowGeometry geom;
};

Expected<Window> resolveWindow(const Tensor &x, const WindowAttrs &attrs) {
  if (x.rank() < 3)
    return kernelError("expected an NCHW input of rank >= 3, got " + x.describe());
  Window w;
  w.batch = x.dim(0);
  w.channels = x.dim(1);
  w.in.assign(x.shape().begin() + 2, x.shape().end());
  NUNC_ASSIGN_OR_RETURN(g, shape::window(w.in, attrs.kernel, attrs.strides,
                                         attrs.dilations, attrs.pads, attrs.autoPad,
                                         attrs.ceilMode));
  w.geom = g;
  w.out = g.output;
  // (shape::window bounds the tables of kernel x output coordinates.)
  return w;
}

/// For each spatial dim, each kernel tap and each output position: the input
/// coordinate read, or -1 in padding.
std::vector<std::vector<int64_t>> tapCoordinates(const Window &w, size_t d) {
  const auto &g = w.geom;
  std::vector<std::vector<int64_t>> table(g.kernel[d]);
  for (int64_t k = 0; k < g.kernel[d]; ++k) {
    table[k].resize(w.out[d]);
    for (int64_t o = 0; o < w.out[d]; ++o) {
      int64_t x = o * g.strides[d] - g.padsBegin[d] + k * g.dilations[d];
      table[k][o] = (x >= 0 && x < w.in[d]) ? x : -1;
    }
  }
  return table;
}

/// Advances a multi-index over `extent`; false after the last one.
bool nextIndex(llvm::MutableArrayRef<int64_t> idx, llvm::ArrayRef<int64_t> extent) {
  for (int64_t d = (int64_t)idx.size() - 1; d >= 0; --d) {
    if (++idx[d] < extent[d])
      return true;
    idx[d] = 0;
  }
  return false;
}

/// The im2col rows of `channels` consecutive planes starting at `planes`:
/// rows (channel, tap), columns output pixels; taps in the padding read
/// `outside`.
template <typename T> class Im2col {
public:
  explicit Im2col(const Window &win) : win(win), inStrides(rowMajorStrides(win.in)) {
    for (size_t d = 0; d < win.in.size(); ++d) {
      coords.push_back(tapCoordinates(win, d));
      taps *= win.geom.kernel[d];
      outPixels *= win.out[d];
      inPixels *= win.in[d];
    }
  }
  int64_t taps = 1, outPixels = 1, inPixels = 1;

  void fill(const T *planes, int64_t channels, T outside, std::vector<T> &col) {
    size_t nd = win.in.size();
    col.resize(channels * taps * outPixels);
    llvm::SmallVector<int64_t, 6> tap(nd), pix(nd);
    for (int64_t c = 0; c < channels; ++c) {
      const T *plane = planes + c * inPixels;
      std::fill(tap.begin(), tap.end(), 0);
      int64_t row = c * taps;
      do {
        T *dst = col.data() + row * outPixels;
        std::fill(pix.begin(), pix.end(), 0);
        int64_t p = 0;
        do {
          int64_t offset = 0;
          bool inside = true;
          for (size_t d = 0; d < nd && inside; ++d) {
            int64_t coord = coords[d][tap[d]][pix[d]];
            inside = coord >= 0;
            offset += coord * inStrides[d];
          }
          dst[p++] = inside ? plane[offset] : outside;
        } while (nextIndex(pix, win.out));
        ++row;
      } while (nextIndex(tap, win.geom.kernel));
    }
  }

private:
  const Window &win;
  llvm::SmallVector<int64_t, 6> inStrides;
  std::vector<std::vector<std::vector<int64_t>>> coords;
};

} // namespace

Expected<Tensor> convTranspose(const Tensor &x, const Tensor &w, const Tensor *b, int64_t group,
                               const shape::WindowGeometry &g) {
  if (!isFloat(x.dtype()) || x.dtype() != w.dtype() || (b && b->dtype() != x.dtype()))
    return kernelError("ConvTranspose needs floating-point operands of one type");
  int64_t nd = g.output.size();
  if (x.rank() != nd + 2 || w.rank() != nd + 2 || group <= 0 || x.dim(1) != w.dim(0) ||
      w.dim(0) % group != 0)
    return kernelError("ConvTranspose weight " + w.describe() + " does not fit input " +
                       x.describe() + " with " + llvm::Twine(group) + " groups");
  int64_t cg = w.dim(0) / group, mg = w.dim(1), m = mg * group;
  if (b && (b->rank() != 1 || b->dim(0) != m))
    return kernelError("ConvTranspose bias must have " + llvm::Twine(m) + " entries");
  shape::Dims outShape{x.dim(0), m};
  outShape.append(g.output.begin(), g.output.end());
  NUNC_ASSIGN_OR_RETURN(out, Tensor::create(x.dtype(), outShape));
  int64_t inPixels = 1, outPixels = 1, taps = 1;
  for (int64_t d = 0; d < nd; ++d) {
    inPixels *= x.dim(d + 2);
    outPixels *= g.output[d];
    taps *= g.kernel[d];
  }
  std::vector<double> acc(out.numElements(), 0.0);
  llvm::SmallVector<int64_t, 6> in(nd), tap(nd);
  for (int64_t n = 0; n < x.dim(0); ++n)
    for (int64_t c = 0; c < x.dim(1); ++c) {
      int64_t grp = c / cg;
      for (int64_t p = 0; p < inPixels; ++p) {
        for (int64_t d = nd - 1, r = p; d >= 0; --d) {
          in[d] = r % x.dim(d + 2);
          r /= x.dim(d + 2);
        }
        double v = x.getDouble((n * x.dim(1) + c) * inPixels + p);
        for (int64_t k = 0; k < taps; ++k) {
          int64_t pos = 0;
          bool inside = true;
          for (int64_t d = nd - 1, r = k; d >= 0; --d) {
            tap[d] = r % g.kernel[d];
            r /= g.kernel[d];
          }
          for (int64_t d = 0; d < nd && inside; ++d) {
            int64_t q = in[d] * g.strides[d] - g.padsBegin[d] + tap[d] * g.dilations[d];
            inside = q >= 0 && q < g.output[d];
            pos = pos * g.output[d] + q;
          }
          if (!inside)
            continue;
          for (int64_t j = 0; j < mg; ++j)
            acc[(n * m + grp * mg + j) * outPixels + pos] +=
                v * w.getDouble((c * mg + j) * taps + k);
        }
      }
    }
  if (b)
    for (int64_t n = 0; n < x.dim(0); ++n)
      for (int64_t oc = 0; oc < m; ++oc)
        for (int64_t p = 0; p < outPixels; ++p)
          acc[(n * m + oc) * outPixels + p] += b->getDouble(oc);
  dispatchDType(out.dtype(), [&]<typename T>() {
    if constexpr (isFloatType<T>())
      for (size_t i = 0; i < acc.size(); ++i)
        out.mutableAs<T>()[i] = static_cast<T>(static_cast<ComputeType<T>>(acc[i]));
  });
  return out;
}

Expected<Tensor> conv(const Tensor &x, const Tensor &w, const Tensor *b,
                      const WindowAttrs &attrs) {
  if (!isFloat(x.dtype()) || x.dtype() != w.dtype() || (b && b->dtype() != x.dtype()))
    return kernelError("Conv needs floating-point operands of one type");
  NUNC_ASSIGN_OR_RETURN(win, resolveWindow(x, attrs));
  int64_t group = attrs.group, m = w.dim(0);
  if (w.rank() != x.rank() || group <= 0 || m % group != 0 ||
      x.dim(1) != w.dim(1) * group)
    return kernelError("Conv weight " + w.describe() + " does not fit input " +
                       x.describe() + " with " + llvm::Twine(group) + " groups");
  if (b && (b->rank() != 1 || b->dim(0) != m))
    return kernelError("Conv bias must have " + llvm::Twine(m) + " entries");
  int64_t cg = w.dim(1), mg = m / group;
  Im2col<float> im2col(win);
  int64_t taps = im2col.taps, outPixels = im2col.outPixels, inPixels = im2col.inPixels;
  shape::Dims outShape{win.batch, m};
  outShape.append(win.out.begin(), win.out.end());
  NUNC_ASSIGN_OR_RETURN(out, Tensor::create(x.dtype(), outShape));

  if (x.dtype() == DType::F64) {
    // f64 keeps f64 precision (the f32 GEMM below would round every value).
    Im2col<double> im2colF64(win);
    std::vector<double> col;
    double *o = out.mutableAs<double>();
    for (int64_t n = 0; n < win.batch; ++n)
      for (int64_t g = 0; g < group; ++g) {
        im2colF64.fill(x.as<double>() + (n * x.dim(1) + g * cg) * inPixels, cg, 0.0, col);
        gemmGeneric<double>(mg, outPixels, cg * taps, w.as<double>() + g * mg * cg * taps,
                            col.data(), o + (n * m + g * mg) * outPixels);
      }
    if (b)
      for (int64_t n = 0; n < win.batch; ++n)
        for (int64_t oc = 0; oc < m; ++oc)
          for (int64_t p = 0; p < outPixels; ++p)
            o[(n * m + oc) * outPixels + p] += b->as<double>()[oc];
    return out;
  }
  std::vector<float> xf = toFloats(x), wf = toFloats(w), of(out.numElements(), 0.f);
  // im2col per (image, group), then the GEMM.
  std::vector<float> col;
  for (int64_t n = 0; n < win.batch; ++n)
    for (int64_t g = 0; g < group; ++g) {
      im2col.fill(xf.data() + (n * x.dim(1) + g * cg) * inPixels, cg, 0.f, col);
      gemmF32(mg, outPixels, cg * taps, wf.data() + g * mg * cg * taps, cg * taps,
              col.data(), outPixels,
              of.data() + (n * m + g * mg) * outPixels, outPixels);
    }
  if (b) {
    std::vector<float> bf = toFloats(*b);
    for (int64_t n = 0; n < win.batch; ++n)
      for (int64_t oc = 0; oc < m; ++oc) {
        float *dst = of.data() + (n * m + oc) * outPixels;
        for (int64_t p = 0; p < outPixels; ++p)
          dst[p] += bf[oc];
      }
  }
  fromFloats(of, out);
  return out;
}

namespace {

/// Exact sums of an integer convolution: x holds the input with its zero
/// point subtracted (so padding, the zero point, is 0), w the weight [M,
/// C/group, k...] with its zero point subtracted. Returns [N][M][pixels].
std::vector<int64_t> integerConvSums(const Window &win, const std::vector<int32_t> &x,
                                     int64_t cin, const std::vector<int32_t> &w, int64_t m,
                                     int64_t group) {
  Im2col<int32_t> im2col(win);
  int64_t outPixels = im2col.outPixels;
  int64_t cg = cin / group, mg = m / group, ck = cg * im2col.taps;
  std::vector<int64_t> sums(win.batch * m * outPixels, 0);
  std::vector<int32_t> col, partial;
  const int64_t maxW = largestMagnitude(w.data(), static_cast<int64_t>(w.size()));
  for (int64_t n = 0; n < win.batch; ++n)
    for (int64_t g = 0; g < group; ++g) {
      im2col.fill(x.data() + (n * cin + g * cg) * im2col.inPixels, cg, 0, col);
      // The group's filters (rows of ck) times its columns ([ck, pixels]).
      exactProductSums(mg, ck, outPixels, w.data() + g * mg * ck, ck, maxW, col.data(),
                       largestMagnitude(col.data(), static_cast<int64_t>(col.size())), partial,
                       sums.data() + (n * m + g * mg) * outPixels);
    }
  return sums;
}

/// The values of an integer tensor minus its zero point: one (scalar), or
/// one per index of dim 0 (`perChannel`, a weight's output channels).
Expected<std::vector<int32_t>> shifted(const Tensor &t, const Tensor *zero, const char *what) {
  std::vector<int32_t> out(t.numElements());
  int64_t perIndex = t.rank() ? t.numElements() / std::max<int64_t>(1, t.dim(0)) : 1;
  if (zero && zero->numElements() != 1 && (t.rank() == 0 || zero->numElements() != t.dim(0)))
    return kernelError(llvm::Twine(what) + " zero point " + zero->describe() +
                       " must be a scalar or have one value per output channel");
  for (int64_t i = 0; i < t.numElements(); ++i) {
    int64_t z = zero ? zero->getInt(zero->numElements() == 1 ? 0 : i / perIndex) : 0;
    out[i] = static_cast<int32_t>(t.getInt(i) - z);
  }
  return out;
}

} // namespace

Expected<Tensor> convInteger(const Tensor &x, const Tensor &w, const Tensor *xZero,
                             const Tensor *wZero, const WindowAttrs &attrs) {
  auto integer8 = [](DType d) { return d == DType::U8 || d == DType::I8; };
  if (!integer8(x.dtype()) || !integer8(w.dtype()) || (xZero && xZero->dtype() != x.dtype()) ||
      (wZero && wZero->dtype() != w.dtype()))
    return kernelError("ConvInteger needs 8-bit integer operands with zero points of the "
                       "same types");
  if (xZero && xZero->numElements() != 1)
    return kernelError("ConvInteger's x_zero_point must be a scalar");
  NUNC_ASSIGN_OR_RETURN(win, resolveWindow(x, attrs));
  int64_t group = attrs.group, m = w.dim(0);
  if (w.rank() != x.rank() || group <= 0 || m % group != 0 || x.dim(1) != w.dim(1) * group)
    return kernelError("ConvInteger weight " + w.describe() + " does not fit input " +
                       x.describe() + " with " + llvm::Twine(group) + " groups");
  NUNC_ASSIGN_OR_RETURN(xs, shifted(x, xZero, "x"));
  NUNC_ASSIGN_OR_RETURN(ws, shifted(w, wZero, "w"));
  std::vector<int64_t> sums = integerConvSums(win, xs, x.dim(1), ws, m, group);
  shape::Dims outShape{win.batch, m};
  outShape.append(win.out.begin(), win.out.end());
  NUNC_ASSIGN_OR_RETURN(out, Tensor::create(DType::I32, outShape));
  int32_t *o = out.mutableAs<int32_t>();
  for (size_t i = 0; i < sums.size(); ++i)
    o[i] = static_cast<int32_t>(sums[i]);
  return out;
}

Expected<Tensor> qlinearConv(const Tensor &x, const Tensor &xScale, const Tensor &xZero,
                             const Tensor &w, const Tensor &wScale, const Tensor &wZero,
                             const Tensor &yScale, const Tensor &yZero, const Tensor *b,
                             const WindowAttrs &attrs) {
  if (xScale.numElements() != 1 || yScale.numElements() != 1 || yZero.numElements() != 1)
    return kernelError("QLinearConv's x_scale, y_scale and y_zero_point must be scalars");
  if (yZero.dtype() != DType::U8 && yZero.dtype() != DType::I8)
    return kernelError("QLinearConv's y_zero_point must be uint8 or int8");
  NUNC_ASSIGN_OR_RETURN(acc, convInteger(x, w, &xZero, &wZero, attrs));
  int64_t m = acc.dim(1);
  if (wScale.numElements() != 1 && (wScale.rank() != 1 || wScale.dim(0) != m))
    return kernelError("QLinearConv's w_scale must be a scalar or have one value per output "
                       "channel");
  if (b && (b->dtype() != DType::I32 || b->rank() != 1 || b->dim(0) != m))
    return kernelError("QLinearConv's bias must be int32 with one value per output channel");
  int64_t pixels = acc.numElements() / std::max<int64_t>(1, acc.dim(0) * m);
  NUNC_ASSIGN_OR_RETURN(out, Tensor::create(yZero.dtype(), acc.shape()));
  // As ONNX's reference: (sum + B) * fl(fl(x_scale w_scale) / y_scale)
  // exactly, plus y_zero_point, rounded half to even, saturated.
  float xs = static_cast<float>(xScale.getDouble(0)), ys = static_cast<float>(yScale.getDouble(0));
  double yz = static_cast<double>(yZero.getInt(0));
  bool u8 = yZero.dtype() == DType::U8;
  const int32_t *c = acc.as<int32_t>();
  for (int64_t i = 0, total = acc.numElements(); i < total; ++i) {
    int64_t oc = (i / pixels) % m;
    float multiplier =
        xs * static_cast<float>(wScale.getDouble(wScale.numElements() == 1 ? 0 : oc)) / ys;
    double sum = static_cast<double>(c[i]) + (b ? b->as<int32_t>()[oc] : 0);
    // (NaN where a zero y scale meets a zero sum: the lowest code)
    double v = sum * multiplier + yz;
    if (u8)
      out.mutableAs<uint8_t>()[i] = saturateRound<uint8_t>(v);
    else
      out.mutableAs<int8_t>()[i] = saturateRound<int8_t>(v);
  }
  return out;
}

namespace {
struct OneStep {
  float scale;
  int32_t zeroPoint;
};

Expected<Tensor> quantizedConvImpl(const Tensor &x, const Tensor &w, llvm::ArrayRef<float> scales,
                                   std::optional<InputQuantization> fixed, const Tensor *b,
                                   const Tensor *residual, const WindowAttrs &attrs,
                                   const FusedActivation &act,
                                   llvm::ArrayRef<int32_t> weightZeroPoints,
                                   std::optional<OneStep> oneStep, int64_t f32ProductKBlock);
} // namespace

Expected<Tensor> quantizedConv(const Tensor &x, const Tensor &w, llvm::ArrayRef<float> scales,
                               std::optional<InputQuantization> fixed, const Tensor *b,
                               const Tensor *residual, const WindowAttrs &attrs,
                               const FusedActivation &act,
                               llvm::ArrayRef<int32_t> weightZeroPoints,
                               int64_t f32ProductKBlock) {
  if (f32ProductKBlock && !fixed)
    return kernelError("quantized_conv's f32_product_k_block needs a static input");
  return quantizedConvImpl(x, w, scales, fixed, b, residual, attrs, act, weightZeroPoints,
                           std::nullopt, f32ProductKBlock);
}

Expected<Tensor> quantizedConvOneStep(const Tensor &x, const Tensor &w,
                                      llvm::ArrayRef<float> scales, InputQuantization input,
                                      const Tensor *b, const WindowAttrs &attrs,
                                      const FusedActivation &act, InputQuantization output,
                                      llvm::ArrayRef<int32_t> weightZeroPoints) {
  return quantizedConvImpl(x, w, scales, input, b, nullptr, attrs, act, weightZeroPoints,
                           OneStep{output.scale, output.zeroPoint}, 0);
}

namespace {
Expected<Tensor> quantizedConvImpl(const Tensor &x, const Tensor &w, llvm::ArrayRef<float> scales,
                                   std::optional<InputQuantization> fixed, const Tensor *b,
                                   const Tensor *residual, const WindowAttrs &attrs,
                                   const FusedActivation &act,
                                   llvm::ArrayRef<int32_t> weightZeroPoints,
                                   std::optional<OneStep> oneStep, int64_t f32ProductKBlock) {
  if (x.dtype() != DType::F32 || !(w.dtype() == DType::I8 || w.dtype() == DType::U8) ||
      (b && b->dtype() != DType::F32))
    return kernelError("quantized_conv needs an f32 input and bias and an s8 or u8 weight");
  NUNC_ASSIGN_OR_RETURN(win, resolveWindow(x, attrs));
  int64_t m = w.dim(0), cin = x.dim(1), group = std::max<int64_t>(attrs.group, 1);
  if (w.rank() != x.rank() || w.dim(1) * group != cin || m % group)
    return kernelError("quantized_conv weight " + w.describe() + " does not fit input " +
                       x.describe());
  if (scales.size() != 1 && static_cast<int64_t>(scales.size()) != m)
    return kernelError("quantized_conv has " + llvm::Twine(scales.size()) +
                       " weight scales for " + llvm::Twine(m) + " output channels");
  if (b && (b->rank() != 1 || b->dim(0) != m))
    return kernelError("quantized_conv bias must have " + llvm::Twine(m) + " entries");
  if (weightZeroPoints.size() > 1 && static_cast<int64_t>(weightZeroPoints.size()) != m)
    return kernelError("quantized_conv has " + llvm::Twine(weightZeroPoints.size()) +
                       " weight zero points for " + llvm::Twine(m) + " output channels");
  int64_t outPixels = 1;
  for (int64_t d : win.out)
    outPixels *= d;
  shape::Dims outShape{win.batch, m};
  outShape.append(win.out.begin(), win.out.end());
  NUNC_ASSIGN_OR_RETURN(out, Tensor::create(DType::F32, outShape));

  // One (scale, zero point) for the whole input: fixed, or its range (with
  // 0) as DynamicQuantizeLinear computes it; then q - zp (padding, the
  // quantized zero, is 0).
  InputQuantization iq = fixed ? *fixed : u8RangeQuantization(x.as<float>(), x.numElements());
  float scale = iq.scale;
  std::vector<int32_t> q(x.numElements());
  quantizeMinusZeroPoint(x.as<float>(), x.numElements(), iq, q.data());
  // The weights minus their zero points (exact in s32).
  std::vector<int32_t> wq(w.numElements());
  int64_t perChannel = w.numElements() / std::max<int64_t>(m, 1);
  for (int64_t i = 0; i < w.numElements(); ++i) {
    int64_t oc = i / perChannel;
    int32_t zw = weightZeroPoints.empty()       ? 0
                 : weightZeroPoints.size() == 1 ? weightZeroPoints[0]
                                                : weightZeroPoints[oc];
    wq[i] = static_cast<int32_t>(w.getInt(i)) - zw;
  }
  if (f32ProductKBlock) {
    // onnxruntime's f32 Conv on the dequantized values (MLAS's im2col and
    // sgemm): per output a chain of FMAs over each block of k from zero,
    // the blocks' sums added in order, then the bias.
    std::vector<float> xf(q.size()), wf(wq.size());
    for (size_t i = 0; i < q.size(); ++i)
      xf[i] = static_cast<float>(q[i]) * scale;
    for (int64_t i = 0; i < w.numElements(); ++i)
      wf[i] = static_cast<float>(wq[i]) * scales[scales.size() == 1 ? 0 : i / perChannel];
    Im2col<float> im2col(win);
    const int64_t cg = cin / group, mg = m / group, ck = cg * im2col.taps;
    float *of = out.mutableAs<float>();
    std::vector<float> col;
    for (int64_t n = 0; n < win.batch; ++n)
      for (int64_t g = 0; g < group; ++g) {
        im2col.fill(xf.data() + (n * cin + g * cg) * im2col.inPixels, cg, 0.f, col);
        for (int64_t oc = g * mg; oc < (g + 1) * mg; ++oc) {
          const float *wr = wf.data() + oc * ck;
          float *dst = of + (n * m + oc) * outPixels;
          for (int64_t p = 0; p < outPixels; ++p) {
            const float total =
                mlasBlockedSum(wr, 1, col.data() + p, outPixels, ck, f32ProductKBlock);
            dst[p] = b ? total + b->as<float>()[oc] : total;
          }
        }
      }
    return residualAndActivation(std::move(out), residual, act);
  }
  std::vector<int64_t> sums = integerConvSums(win, q, cin, wq, m, group);
  if (oneStep) {
    // The codes of the output grid in one multiply (one_step_requantization).
    NUNC_ASSIGN_OR_RETURN(codes, Tensor::create(DType::U8, outShape));
    const auto [lo, hi] =
        oneStepCodeBounds(act.kind, act.min, act.max, oneStep->scale, oneStep->zeroPoint);
    uint8_t *oc8 = codes.mutableAs<uint8_t>();
    for (int64_t n = 0; n < win.batch; ++n)
      for (int64_t oc = 0; oc < m; ++oc) {
        const float s = scale * scales[scales.size() == 1 ? 0 : oc];
        const float multiplier = s / oneStep->scale;
        const int32_t bq = b ? oneStepBiasCode(b->as<float>()[oc], s) : 0;
        const int64_t at = (n * m + oc) * outPixels;
        for (int64_t p = 0; p < outPixels; ++p) {
          // s32 arithmetic as the kernels' (wrapping; the sums fit).
          const auto acc = static_cast<int32_t>(
              static_cast<uint32_t>(sums[at + p]) + static_cast<uint32_t>(bq));
          const float t = static_cast<float>(acc) * multiplier;
          const double code = std::nearbyint(static_cast<double>(t)) + oneStep->zeroPoint;
          oc8[at + p] = static_cast<uint8_t>(std::clamp<double>(code, lo, hi));
        }
      }
    return codes;
  }
  float *of = out.mutableAs<float>();
  for (int64_t n = 0; n < win.batch; ++n)
    for (int64_t oc = 0; oc < m; ++oc) {
      // One rounding of the scale product, then one of the product, as the
      // kernels do.
      float s = scale * scales[scales.size() == 1 ? 0 : oc];
      float bias = b ? b->as<float>()[oc] : 0.f;
      int64_t at = (n * m + oc) * outPixels;
      for (int64_t p = 0; p < outPixels; ++p) {
        float v = static_cast<float>(sums[at + p]) * s;
        of[at + p] = b ? v + bias : v;
      }
    }
  return residualAndActivation(std::move(out), residual, act);
}
} // namespace

namespace {

enum class PoolKind { Max, Average };

/// The grid average_pool rounds its means to (averagePoolOnGrid).
struct PoolGrid {
  InputQuantization output;
  int32_t roundingZeroPoint;
};

/// MLAS's f32 average (average_pool's ordered_f32_arithmetic): f32 sums in
/// window order, or per last-dim column first, then a division.
struct MlasAverage {
  bool columnsFirst;
};

Expected<Tensor> pool(PoolKind kind, const Tensor &x, const WindowAttrs &attrs,
                      const PoolGrid *grid = nullptr, const MlasAverage *mlas = nullptr) {
  NUNC_ASSIGN_OR_RETURN(win, resolveWindow(x, attrs));
  size_t nd = win.in.size();
  shape::Dims outShape{win.batch, win.channels};
  outShape.append(win.out.begin(), win.out.end());
  NUNC_ASSIGN_OR_RETURN(out, Tensor::create(x.dtype(), outShape));
  int64_t inPixels = 1, outPixels = 1;
  for (size_t d = 0; d < nd; ++d) {
    inPixels *= win.in[d];
    outPixels *= win.out[d];
  }
  llvm::SmallVector<int64_t, 6> inStrides = rowMajorStrides(win.in);
  const auto &g = win.geom;
  llvm::Error err = llvm::Error::success();
  dispatchDType(x.dtype(), [&]<typename T>() {
    using C = ComputeType<T>;
    if constexpr (std::is_same_v<T, bool>) {
      err = kernelError("pooling does not take bool tensors");
    } else if constexpr (!std::is_floating_point_v<C>) {
      if (kind == PoolKind::Average) {
        err = kernelError("AveragePool needs a floating-point input");
        return;
      }
    }
    if constexpr (!std::is_same_v<T, bool>) {
      const T *in = x.as<T>();
      T *o = out.mutableAs<T>();
      llvm::SmallVector<int64_t, 6> pix(nd), tap(nd);
      for (int64_t plane = 0; plane < win.batch * win.channels; ++plane) {
        const T *src = in + plane * inPixels;
        T *dst = o + plane * outPixels;
        std::fill(pix.begin(), pix.end(), 0);
        int64_t p = 0;
        do {
          double sum = 0;
          float sum32 = 0; // onnxruntime's (with a grid or MLAS's order)
          std::vector<float> columns(mlas && mlas->columnsFirst ? g.kernel.back() : 0, 0.f);
          C best = std::numeric_limits<C>::lowest();
          if constexpr (std::is_floating_point_v<C>)
            best = -std::numeric_limits<C>::infinity();
          int64_t inside = 0, padded = 0;
          std::fill(tap.begin(), tap.end(), 0);
          do {
            int64_t offset = 0;
            bool isInside = true, isInPadded = true;
            for (size_t d = 0; d < nd; ++d) {
              int64_t coord = pix[d] * g.strides[d] - g.padsBegin[d] + tap[d] * g.dilations[d];
              if (coord < 0 || coord >= win.in[d])
                isInside = false;
              if (coord < -g.padsBegin[d] || coord >= win.in[d] + g.padsEnd[d])
                isInPadded = false;
              offset += coord * inStrides[d];
            }
            if (isInPadded)
              ++padded;
            if (!isInside)
              continue;
            ++inside;
            C v = src[offset];
            if (kind == PoolKind::Max) {
              if (v > best || (std::is_floating_point_v<C> && v != v))
                best = v;
            } else {
              sum += v;
              if (columns.empty())
                sum32 += static_cast<float>(v);
              else
                columns[tap.back()] += static_cast<float>(v);
            }
          } while (nextIndex(tap, g.kernel));
          if (kind == PoolKind::Max) {
            dst[p] = T(best);
          } else {
            int64_t divisor = attrs.countIncludePad ? padded : inside;
            for (float column : columns)
              sum32 += column;
            if (mlas) {
              dst[p] = T(static_cast<C>(sum32 / static_cast<float>(divisor ? divisor : 1)));
            } else if (grid) {
              const float mean = sum32 / static_cast<float>(divisor ? divisor : 1);
              const float z = static_cast<float>(grid->roundingZeroPoint);
              const InputQuantization &q = grid->output;
              // The clamp in code units of the grid's own zero point; NaN:
              // the lowest code, as saturateRound.
              const float r = std::nearbyint(mean / q.scale + z) - z;
              const float code = std::isnan(r) ? float(-q.zeroPoint)
                                               : std::clamp(r, float(-q.zeroPoint),
                                                            float(q.qmax - q.zeroPoint));
              dst[p] = T(static_cast<C>(code * q.scale + 0.f)); // -0: +0, as (q - zp) s
            } else {
              dst[p] = T(static_cast<C>(divisor ? sum / divisor : 0.0));
            }
          }
          ++p;
        } while (nextIndex(pix, win.out));
      }
    }
  });
  if (err)
    return std::move(err);
  return out;
}

} // namespace

Expected<Tensor> maxPool(const Tensor &x, const WindowAttrs &attrs) {
  return pool(PoolKind::Max, x, attrs);
}

Expected<Tensor> averagePool(const Tensor &x, const WindowAttrs &attrs) {
  return pool(PoolKind::Average, x, attrs);
}

Expected<Tensor> averagePoolAsMlas(const Tensor &x, const WindowAttrs &attrs,
                                   bool columnsFirst) {
  if (x.dtype() != DType::F32)
    return kernelError("average_pool with ordered_f32_arithmetic needs an f32 input, got " +
                       x.describe());
  MlasAverage mlas{columnsFirst};
  return pool(PoolKind::Average, x, attrs, nullptr, &mlas);
}

Expected<Tensor> averagePoolOnGrid(const Tensor &x, const WindowAttrs &attrs,
                                   InputQuantization output, int32_t roundingZeroPoint) {
  if (x.dtype() != DType::F32)
    return kernelError("average_pool with output_quantization needs an f32 input, got " +
                       x.describe());
  PoolGrid grid{output, roundingZeroPoint};
  return pool(PoolKind::Average, x, attrs, &grid);
}

Expected<Tensor> globalAveragePool(const Tensor &x) {
  if (x.rank() < 3)
    return kernelError("expected an NCHW input of rank >= 3, got " + x.describe());
  shape::Dims outShape{x.dim(0), x.dim(1)};
  outShape.append(x.rank() - 2, 1);
  NUNC_ASSIGN_OR_RETURN(out, Tensor::create(x.dtype(), outShape));
  int64_t planes = x.dim(0) * x.dim(1);
  int64_t pixels = planes ? x.numElements() / planes : 0;
  dispatchDType(x.dtype(), [&]<typename T>() {
    using C = ComputeType<T>;
    if constexpr (std::is_floating_point_v<C>) {
      const T *in = x.as<T>();
      T *o = out.mutableAs<T>();
      for (int64_t p = 0; p < planes; ++p) {
        double sum = 0;
        for (int64_t i = 0; i < pixels; ++i)
          sum += static_cast<C>(in[p * pixels + i]);
        o[p] = T(static_cast<C>(sum / pixels));
      }
    }
  });
  return out;
}

Expected<Tensor> globalAveragePoolOfCodes(const Tensor &x, InputQuantization input,
                                          InputQuantization output) {
  if (x.rank() < 3 || x.dtype() != DType::F32)
    return kernelError("expected an f32 NCHW input of rank >= 3, got " + x.describe());
  shape::Dims outShape{x.dim(0), x.dim(1)};
  outShape.append(x.rank() - 2, 1);
  NUNC_ASSIGN_OR_RETURN(out, Tensor::create(DType::F32, outShape));
  const int64_t planes = x.dim(0) * x.dim(1);
  const int64_t pixels = planes ? x.numElements() / planes : 0;
  // onnxruntime's multiplier: s_x / (s_y x N), each f32 step rounded.
  const float multiplier = input.scale / (output.scale * static_cast<float>(pixels));
  const float *in = x.as<float>();
  float *o = out.mutableAs<float>();
  for (int64_t p = 0; p < planes; ++p) {
    int64_t acc = 0; // q - zp_x, each the value's step on its grid
    for (int64_t i = 0; i < pixels; ++i)
      acc += static_cast<int64_t>(std::nearbyint(double(in[p * pixels + i]) / input.scale));
    const float scaled = static_cast<float>(acc) * multiplier;
    const double q = std::clamp(std::nearbyint(double(scaled)), double(-output.zeroPoint),
                                double(output.qmax - output.zeroPoint));
    o[p] = static_cast<float>(q) * output.scale;
  }
  return out;
}

} // namespace mlir::nunc::kernels
