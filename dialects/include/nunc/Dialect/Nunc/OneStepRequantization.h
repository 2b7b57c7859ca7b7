//===- OneStepRequantization.h - quantized_conv's one-step codes -*- C++ -*-===//
//
// The compile-time constants of quantized_conv's one_step_requantization
// and of nunc.add's sum of codes (see NuncOps.td), shared by the evaluator
// and the kernels so that both compute the same codes.
//
//===----------------------------------------------------------------------===//

#ifndef NUNC_DIALECT_NUNC_ONESTEPREQUANTIZATION_H
#define NUNC_DIALECT_NUNC_ONESTEPREQUANTIZATION_H

#include "llvm/ADT/StringRef.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>

namespace mlir::nunc {

/// The K block MLAS's sgemm sums a GEMM of N columns over K in (its
/// MlasSgemmOperation's strides, one thread's columns): 128, with N < K
/// the N stride halved (down to 16) while half of it still covers N and
/// the K block doubled with it. Each output is then a chain of FMAs over a
/// block from zero, the blocks' sums added in order (read off onnxruntime
/// 1.32's MatMul on this machine kind: every output of 17-128 rows of K
/// 384-1536 equal). quantized_linear's f32_product_k_block.
inline int64_t mlasSgemmKBlock(int64_t n, int64_t k) {
  int64_t strideN = 128, strideK = 128;
  if (n >= k) {
    while (strideK / 2 >= k) {
      strideN *= 2;
      strideK /= 2;
    }
  } else {
    while (strideN > 16 && strideN / 2 >= n) {
      strideK *= 2;
      strideN /= 2;
    }
  }
  return strideK;
}

/// A reduce op's ordered_f32_arithmetic: the row's sum as onnxruntime's
/// CPU ReduceSum / ReduceMean takes it (Eigen's vectorized sum of 4-float
/// SSE packets; see NuncOps.td), for n a multiple of 4, at least 8.
inline float onnxruntimeRowSum(const float *x, int64_t n) {
  float r0[4], r1[4];
  for (int l = 0; l < 4; ++l) {
    r0[l] = x[l];
    r1[l] = x[4 + l];
  }
  const int64_t pairs = n / 8 * 8;
  for (int64_t i = 8; i < pairs; i += 8)
    for (int l = 0; l < 4; ++l) {
      r0[l] += x[i + l];
      r1[l] += x[i + 4 + l];
    }
  for (int l = 0; l < 4; ++l) {
    r0[l] += r1[l];
    if (pairs < n)
      r0[l] += x[pairs + l];
  }
  return (r0[0] + r0[2]) + (r0[1] + r0[3]);
}

/// The bias on its sums' grid s = fl(input scale x weight scale):
/// round_half_even(bias / s) in double, clamped to +-2^30.
inline int32_t oneStepBiasCode(float bias, float s) {
  const double q = std::nearbyint(static_cast<double>(bias) / static_cast<double>(s));
  return static_cast<int32_t>(std::clamp(q, -1073741824.0, 1073741824.0));
}

/// The codes an activation (none, relu, or clip from `min` to `max`) leaves
/// on a u8 grid: [0, 255], [zp, 255], or [zp + round(min / scale), zp +
/// round(max / scale)] within [0, 255] (correctly rounded f32 quotients,
/// rounded half to even).
inline std::pair<int32_t, int32_t> oneStepCodeBounds(llvm::StringRef activation, float min,
                                                     float max, float scale, int32_t zeroPoint) {
  auto code = [&](float v) {
    const double q = std::nearbyint(static_cast<double>(v / scale)) + zeroPoint;
    return static_cast<int32_t>(std::clamp(q, 0.0, 255.0));
  };
  if (activation == "relu")
    return {std::clamp(zeroPoint, 0, 255), 255};
  if (activation == "clip")
    return {code(min), code(max)};
  return {0, 255};
}

/// nunc.add's sum of codes (lhs_quantization, rhs_quantization): the
/// constants of onnxruntime's QLinearAdd for operand grids (sa, za), (sb,
/// zb) and the sum's (sc, zc), zero points those of the codes the sum runs
/// in: rA = fl(sa / sc), rB = fl(sb / sc), F = fl(zc - fma(rA, za, fl(rB
/// zb))) (its kernel's zc - (rA za + rB zb) as its compiler contracts it;
/// read off onnxruntime 1.32: no code apart in 4.9 x 10^6 random pairs,
/// where fl(zc - fl(fl(rA za) + fl(rB zb))) put 7 a code apart). The other
/// steps are rounded one by one (nunc builds for baseline x86-64: no FMA
/// to contract them into). The sum's code is round(fma(qa, rA, fma(qb, rB,
/// F))).
struct CodeSumConstants {
  float ratioA, ratioB, fixed;
};
inline CodeSumConstants codeSumConstants(float sa, float za, float sb, float zb, float sc,
                                         float zc) {
  const float ratioA = sa / sc, ratioB = sb / sc;
  const float pb = ratioB * zb;
  return {ratioA, ratioB, zc - std::fma(ratioA, za, pb)};
}

/// onnxruntime's QLinearMul (nunc.mul's codes): the ratio fl(fl(sa sb) /
/// sc) and the product's code round_half_even(fl(fl(fl(va vb) r) + zc))
/// within [qmin, qmax] for the operands' codes less their zero points va,
/// vb (|va vb| < 2^24: exact in f32).
inline float qlinearMulRatio(float sa, float sb, float sc) { return sa * sb / sc; }
inline float qlinearMulCode(float va, float vb, float ratio, float zc, float qmin, float qmax) {
  const float t = va * vb * ratio + zc;
  return std::clamp(std::nearbyint(t), qmin, qmax);
}

/// The u8 code of a value on the grid (scale, zp): round_half_even(v /
/// scale) + zp within [0, 255] (the correctly rounded quotient of a value
/// on the grid is within an ulp of its integer).
inline int32_t u8CodeOf(float value, float scale, int32_t zp) {
  const float q = std::nearbyint(value / scale) + static_cast<float>(zp);
  return static_cast<int32_t>(std::clamp(q, 0.f, 255.f));
}

/// quantized_linear's gelu_qlinear_arithmetic: a GELU between a QDQ (or
/// QOperator) model's u8 pairs as onnxruntime 1.32 runs it (read off its
/// optimized graph and a QDQ BERT's layer-11 GELU: 24576 of 24576 codes
/// equal, where rounding f32 steps to the same grids put 86 apart at the
/// sum): Div by sqrt 2 and Erf in f32 on the input code's value,
/// QuantizeLinear onto the erf grid, QLinearAdd(erf, 1) onto the sum grid,
/// QLinearMul(x, sum) onto the product grid, QLinearMul(product, 0.5) onto
/// the output grid (the constants as their codes). A QOperator model with
/// s8 activations runs the QLinearAdd and QLinearMuls on s8 codes
/// (`offset` 128: the u8 codes here less 128, zero points likewise), whose
/// float steps round apart from the u8 ones'.
struct QLinearGelu {
  float inScale = 1;
  int32_t inZero = 0;
  float erfScale = 1;
  int32_t erfZero = 0;
  CodeSumConstants sum{};
  float oneTerm = 0; // QLinearAdd's term of the constant 1's code
  int32_t sumZero = 0;
  float productRatio = 1;
  int32_t productZero = 0;
  float halfSteps = 0; // the constant 0.5's code less its zero point
  float outRatio = 1, outScale = 1;
  int32_t outZero = 0;
  int32_t offset = 0; // 128: the steps on s8 codes
};
/// Grids as (scale, zero point), codes u8 (signedCodes: the steps take
/// them less 128).
inline QLinearGelu qlinearGelu(float sx, int32_t zx, float se, int32_t ze, float s1,
                               int32_t z1, int32_t c1, float ss, int32_t zs, float sp,
                               int32_t zp, float sh, int32_t zh, int32_t ch, float sy,
                               int32_t zy, bool signedCodes = false) {
  QLinearGelu k;
  const int32_t off = k.offset = signedCodes ? 128 : 0;
  k.inScale = sx;
  k.inZero = zx;
  k.erfScale = se;
  k.erfZero = ze;
  k.sum = codeSumConstants(se, static_cast<float>(ze - off), s1, static_cast<float>(z1 - off),
                           ss, static_cast<float>(zs - off));
  k.oneTerm = std::fma(static_cast<float>(c1 - off), k.sum.ratioB, k.sum.fixed);
  k.sumZero = zs;
  k.productRatio = qlinearMulRatio(sx, ss, sp);
  k.productZero = zp;
  k.halfSteps = static_cast<float>(ch - zh);
  k.outRatio = qlinearMulRatio(sp, sh, sy);
  k.outScale = sy;
  k.outZero = zy;
  return k;
}
/// The output code of input code `x`.
inline int32_t qlinearGeluCode(int32_t x, const QLinearGelu &k) {
  // (Codes as the steps take them: less the offset, within [lo, hi].)
  const float off = static_cast<float>(k.offset), lo = -off, hi = 255.f - off;
  const float v = static_cast<float>(x - k.inZero) * k.inScale;
  const int32_t e = u8CodeOf(std::erf(v / 1.41421354f), k.erfScale, k.erfZero);
  const float s = std::clamp(
      std::nearbyint(std::fma(static_cast<float>(e) - off, k.sum.ratioA, k.oneTerm)), lo, hi);
  const float p = qlinearMulCode(static_cast<float>(x - k.inZero),
                                 s - static_cast<float>(k.sumZero - k.offset), k.productRatio,
                                 static_cast<float>(k.productZero - k.offset), lo, hi);
  return static_cast<int32_t>(
             qlinearMulCode(p - static_cast<float>(k.productZero - k.offset), k.halfSteps,
                            k.outRatio, static_cast<float>(k.outZero - k.offset), lo, hi)) +
         k.offset;
}

/// onnxruntime's QLinearMatMul: the multiplier fl(fl(sa sb) / sy) of an
/// exact s32 sum of (a - za)(b - zb), and the code it requantizes the sum
/// to: fl(acc m) within [-zy, 255 - zy], rounded half to even, + zy.
inline float qlinearMatMulMultiplier(float sa, float sb, float sy) { return sa * sb / sy; }
inline int32_t qlinearMatMulCode(int32_t acc, float multiplier, int32_t zy) {
  const float t = std::clamp(static_cast<float>(acc) * multiplier, static_cast<float>(-zy),
                             static_cast<float>(255 - zy));
  return static_cast<int32_t>(std::nearbyint(t)) + zy;
}

/// nunc.attention's qlinear_arithmetic: the code of the scaled scores'
/// grid (s2, z2) for each code k of the scores' grid (ss, zs), as
/// onnxruntime runs the QDQ model's f32 step between the pairs:
/// DequantizeLinear, Div by `divisor` (or, where it is 0, Mul by
/// `scale`), QuantizeLinear.
inline std::array<uint8_t, 256> qlinearScaledCodes(float ss, int32_t zs, float divisor,
                                                   float scale, float s2, int32_t z2) {
  std::array<uint8_t, 256> codes;
  for (int32_t k = 0; k < 256; ++k) {
    const float v = static_cast<float>(k - zs) * ss;
    const float x = divisor != 0 ? v / divisor : v * scale;
    const float q = std::nearbyint(x / s2) + static_cast<float>(z2);
    codes[k] = static_cast<uint8_t>(std::clamp(q, 0.f, 255.f));
  }
  return codes;
}

/// onnxruntime's QLinearSoftmax on u8 codes (contrib op; its QDQ form of
/// DequantizeLinear, Softmax, QuantizeLinear): the table of
/// fl(exp((i - 255 + shift) s_x)) (double exponential) with shift = max(0,
/// logf(fl(FLT_MAX / D)) - 5) / s_x for rows of D entries. A row with
/// maximum code m takes e_j = table[255 - m + x_j], sums them in f32 in row
/// order (from 0) and writes min(255, round_half_even(fl(e_j f)) + zy) with
/// the row's factor f = fl(c / sum), c = floor(fl(1 / s_y)), not 1 / s_y
/// (qlinearSoftmaxFactor). Its source reads fl(fl(e_j c) / sum), but
/// onnxruntime 1.32's outputs fit this form and the f32 logarithm better
/// (fewer codes apart on rounding ties, measured on 4 x 10^5 rows of 17 to
/// 128 codes: none at 128) and, like them, do not overflow for D = 1.
inline std::array<float, 256> qlinearSoftmaxTable(float xScale, int64_t reduceLength) {
  const float ratio = std::numeric_limits<float>::max() / static_cast<float>(reduceLength);
  const double shift = std::max(0.0, static_cast<double>(std::log(ratio)) - 5.0) /
                       static_cast<double>(xScale);
  std::array<float, 256> table;
  for (int i = 0; i < 256; ++i)
    table[i] = static_cast<float>(
        std::exp((static_cast<double>(i) - 255 + shift) * static_cast<double>(xScale)));
  return table;
}
inline float qlinearSoftmaxFactor(float yScale, float sum) {
  return std::floor(1.0f / yScale) / sum;
}
inline int32_t qlinearSoftmaxCode(float e, float factor, int32_t zy) {
  return std::min(static_cast<int32_t>(std::nearbyint(e * factor)) + zy, 255);
}

/// onnxruntime's QLinearAdd of codes qa and qb (codeSumConstants, zero
/// points those of the codes it adds): the term fma(qb, rB, F) of the
/// second operand's code (a mask's, nunc.attention's qlinear_arithmetic; a
/// bias's, quantized_linear's one_step_requantization), then round(fma(qa,
/// rA, term)) within the codes' range. `offset` 128: the model's codes
/// are s8 (signed_codes; the u8 codes here minus 128), as onnxruntime's s8
/// kernel adds them; 0: u8.
inline float qlinearAddTerm(int32_t maskCode, const CodeSumConstants &k, int32_t offset) {
  return std::fma(static_cast<float>(maskCode - offset), k.ratioB, k.fixed);
}
inline int32_t qlinearAddCode(int32_t scaledCode, float maskTerm, const CodeSumConstants &k,
                                 int32_t offset) {
  const float q =
      std::nearbyint(std::fma(static_cast<float>(scaledCode - offset), k.ratioA, maskTerm));
  return static_cast<int32_t>(std::clamp(q, static_cast<float>(-offset),
                                         static_cast<float>(255 - offset))) +
         offset;
}

} // namespace mlir::nunc

#endif // NUNC_DIALECT_NUNC_ONESTEPREQUANTIZATION_H
