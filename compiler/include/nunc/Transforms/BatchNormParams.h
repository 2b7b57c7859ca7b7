//===- BatchNormParams.h - an inference BN's constants ----------*- C++ -*-===//
//
// The folds of BatchNormalization (into a conv's weights, an int8 conv's
// scales or epilogue) and the code generator's per-channel affine kernel all
// read the same constants and form the same y = x * a + b.
//
//===----------------------------------------------------------------------===//

#ifndef NUNC_TRANSFORMS_BATCHNORMPARAMS_H
#define NUNC_TRANSFORMS_BATCHNORMPARAMS_H

#include "nunc/Dialect/Nunc/NuncOps.h"

#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace mlir::nunc {

/// The constant parameters of an inference BatchNormalization over
/// `channels` channels: scale = gamma / sqrt(var + eps) in double, beta and
/// mean.
struct BatchNormParams {
  SmallVector<double> scale, beta, mean;
  /// y = x * a + b with a = scale and b = beta - mean * scale, each rounded
  /// to f32 once (the per-channel affine the kernels compute).
  void affineF32(SmallVectorImpl<float> &a, SmallVectorImpl<float> &b) const;
};

/// None when a parameter is not a floating-point constant of `channels`
/// values.
std::optional<BatchNormParams> batchNormParams(BatchNormOp bn, int64_t channels);

} // namespace mlir::nunc

#endif // NUNC_TRANSFORMS_BATCHNORMPARAMS_H
