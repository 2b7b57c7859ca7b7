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
#include <cmath>
#include <cstdint>
#include <utility>

namespace mlir::nunc {

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
/// in: rA = fl(sa / sc), rB = fl(sb / sc), F = fl(zc - fl(fl(rA za) + fl(rB
/// zb))), each f32 step rounded (nunc builds for baseline x86-64: no FMA
/// to contract them into). The sum's code is round(fma(qa, rA, fma(qb, rB,
/// F))).
struct CodeSumConstants {
  float ratioA, ratioB, fixed;
};
inline CodeSumConstants codeSumConstants(float sa, float za, float sb, float zb, float sc,
                                         float zc) {
  const float ratioA = sa / sc, ratioB = sb / sc;
  const float pa = ratioA * za, pb = ratioB * zb;
  return {ratioA, ratioB, zc - (pa + pb)};
}

} // namespace mlir::nunc

#endif // NUNC_DIALECT_NUNC_ONESTEPREQUANTIZATION_H
