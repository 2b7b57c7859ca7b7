//===- Npy.h - NumPy .npy and .npz files ------------------------*- C++ -*-===//
//
// Inputs and outputs of `nunc run` (and calibration data later) are NumPy
// files: .npy for one array, .npz (a zip of .npy members, stored or deflated)
// for named arrays.
//
//===----------------------------------------------------------------------===//

#ifndef NUNC_INTERPRETER_NPY_H
#define NUNC_INTERPRETER_NPY_H

#include "nunc/Interpreter/Tensor.h"

#include <string>
#include <utility>
#include <vector>

namespace mlir::nunc {

using NamedTensors = std::vector<std::pair<std::string, Tensor>>;

llvm::Expected<Tensor> parseNpy(llvm::ArrayRef<char> bytes);
std::string serializeNpy(const Tensor &t);
llvm::Expected<Tensor> readNpy(llvm::StringRef path);
llvm::Error writeNpy(llvm::StringRef path, const Tensor &t);

/// Members in archive order, named without the ".npy" suffix.
llvm::Expected<NamedTensors> readNpz(llvm::StringRef path);
/// Writes an uncompressed archive (what numpy.savez writes).
llvm::Error writeNpz(llvm::StringRef path, const NamedTensors &tensors);

} // namespace mlir::nunc

#endif // NUNC_INTERPRETER_NPY_H
