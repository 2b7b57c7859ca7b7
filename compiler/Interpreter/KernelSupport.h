//===- KernelSupport.h - iteration helpers for the reference kernels -----===//

#ifndef NUNC_INTERPRETER_KERNELSUPPORT_H
#define NUNC_INTERPRETER_KERNELSUPPORT_H

#include "nunc/Dialect/Nunc/ShapeHelpers.h"
#include "nunc/Interpreter/Tensor.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

namespace mlir::nunc::kernels {

/// Propagates an llvm::Error or unwraps an Expected into `var`.
#define NUNC_ASSIGN_OR_RETURN(var, expr)                                       \
  auto var##OrErr = (expr);                                                    \
  if (!var##OrErr)                                                             \
    return var##OrErr.takeError();                                             \
  auto &var = *var##OrErr;

inline llvm::Error kernelError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// v rounded half to even (the default rounding mode) and saturated to the
/// integer code type Q; NaN gives the lowest code, as onnxruntime gives
/// (its clamp takes the bound) and the compiled kernels do (code 0 of their
/// u8 form; an s8 grid is that u8 one 128 higher). F: float, or double
/// where the caller's sum is.
template <typename Q, typename F> Q saturateRound(F v) {
  if (std::isnan(v))
    return std::numeric_limits<Q>::min();
  F r = std::nearbyint(v);
  r = std::clamp(r, static_cast<F>(std::numeric_limits<Q>::min()),
                 static_cast<F>(std::numeric_limits<Q>::max()));
  return static_cast<Q>(r);
}

/// The type arithmetic happens in: float for the 16-bit float formats.
template <typename T>
using ComputeType =
    std::conditional_t<std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>, float, T>;

/// Accumulator for sums: double for floats, the unsigned type (wrapping) for
/// integers.
template <typename C> struct AccumulatorFor { using type = double; };
template <typename C>
  requires(std::is_integral_v<C> && !std::is_same_v<C, bool>)
struct AccumulatorFor<C> { using type = std::make_unsigned_t<C>; };
template <typename C> using Accumulator = typename AccumulatorFor<C>::type;

template <typename T> constexpr bool isFloatType() {
  return std::is_floating_point_v<ComputeType<T>>;
}

/// Row-major strides of `shape`.
inline llvm::SmallVector<int64_t, 6> rowMajorStrides(llvm::ArrayRef<int64_t> shape) {
  llvm::SmallVector<int64_t, 6> s(shape.size(), 1);
  for (int64_t i = (int64_t)shape.size() - 2; i >= 0; --i)
    s[i] = s[i + 1] * shape[i + 1];
  return s;
}

/// Strides to read `shape` broadcast to `out` (0 along broadcast dims).
inline llvm::SmallVector<int64_t, 6> broadcastStrides(llvm::ArrayRef<int64_t> shape,
                                                      llvm::ArrayRef<int64_t> out) {
  llvm::SmallVector<int64_t, 6> s(out.size(), 0);
  llvm::SmallVector<int64_t, 6> own = rowMajorStrides(shape);
  size_t offset = out.size() - shape.size();
  for (size_t i = 0; i < shape.size(); ++i)
    s[offset + i] = shape[i] == 1 ? 0 : own[i];
  return s;
}

/// Visits every element of `out` in row-major order with the offsets of the
/// corresponding elements of N inputs (given by their strides over `out`).
template <size_t N, typename Fn>
void forEachIndex(llvm::ArrayRef<int64_t> out,
                  const std::array<llvm::SmallVector<int64_t, 6>, N> &strides, Fn &&fn) {
  int64_t rank = out.size();
  int64_t total = 1;
  for (int64_t d : out)
    total *= d;
  if (total == 0)
    return;
  std::array<int64_t, N> base{};
  if (rank == 0) {
    fn(int64_t(0), base);
    return;
  }
  int64_t inner = out[rank - 1];
  std::array<int64_t, N> innerStride;
  for (size_t k = 0; k < N; ++k)
    innerStride[k] = strides[k][rank - 1];
  llvm::SmallVector<int64_t, 6> idx(rank, 0);
  for (int64_t o = 0; o < total; o += inner) {
    std::array<int64_t, N> off = base;
    for (int64_t j = 0; j < inner; ++j) {
      fn(o + j, off);
      for (size_t k = 0; k < N; ++k)
        off[k] += innerStride[k];
    }
    for (int64_t d = rank - 2; d >= 0; --d) {
      for (size_t k = 0; k < N; ++k)
        base[k] += strides[k][d];
      if (++idx[d] < out[d])
        break;
      for (size_t k = 0; k < N; ++k)
        base[k] -= strides[k][d] * out[d];
      idx[d] = 0;
    }
  }
}

/// Reads a tensor that holds a list of integers (axes, shape values).
inline llvm::SmallVector<int64_t, 6> readInts(const Tensor &t) {
  llvm::SmallVector<int64_t, 6> v;
  for (int64_t i = 0; i < t.numElements(); ++i)
    v.push_back(t.getInt(i));
  return v;
}

/// sum_i a[i aStride] b[i bStride] over k terms as MLAS's sgemm sums an
/// output: a chain of FMAs over each block of `block` terms from zero, the
/// blocks' sums added in order (quantized_linear's and quantized_conv's
/// f32_product_k_block).
inline float mlasBlockedSum(const float *a, int64_t aStride, const float *b, int64_t bStride,
                            int64_t k, int64_t block) {
  float total = 0.f;
  for (int64_t k0 = 0; k0 < k; k0 += block) {
    float chain = 0.f;
    for (int64_t i = k0; i < std::min(k, k0 + block); ++i)
      chain = std::fma(a[i * aStride], b[i * bStride], chain);
    total = k0 ? total + chain : chain;
  }
  return total;
}

/// The largest |code| of n (in s64: a NaN's code is INT32_MIN).
int64_t largestMagnitude(const int32_t *codes, int64_t n);

/// out[r, :] = sum_i q[r, i] W[i, :] exactly (W [k, n], q's rows `ldq`
/// apart), for |q| <= maxQ and |W| <= maxW: in s32 over blocks of k whose
/// sums cannot pass 2^31 (vectors of AVX-512 where the host has it), in s64
/// across them. `partial` is scratch. The int8 GEMMs, convolutions and
/// attention products of the evaluator.
void exactProductSums(int64_t rows, int64_t k, int64_t n, const int32_t *q, int64_t ldq,
                      int64_t maxQ, const int32_t *w, int64_t maxW, std::vector<int32_t> &partial,
                      int64_t *out);

} // namespace mlir::nunc::kernels

#endif // NUNC_INTERPRETER_KERNELSUPPORT_H
