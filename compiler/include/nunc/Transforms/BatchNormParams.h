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
/// mean (what the folds into weights take), and the f32 constants as given.
struct BatchNormParams {
  SmallVector<double> scale, beta, mean;
  SmallVector<float> gammaF32, varF32, betaF32, meanF32;
  float epsilonF32 = 0.f;
  /// y = x * a + b, a and b as onnxruntime's BatchNormalization forms them
  /// in f32 (a = 1 / sqrt(var + eps) * gamma, b = beta - mean * a, each
  /// step rounded): the per-channel affine the kernels compute, a product
  /// then a sum, where the BN stays an op of its own (a QDQ model's pairs
  /// around it).
  void affineF32(SmallVectorImpl<float> &a, SmallVectorImpl<float> &b) const;
};

/// None when a parameter is not a floating-point constant of `channels`
/// values.
std::optional<BatchNormParams> batchNormParams(BatchNormOp bn, int64_t channels);

} // namespace mlir::nunc

#endif // NUNC_TRANSFORMS_BATCHNORMPARAMS_H
