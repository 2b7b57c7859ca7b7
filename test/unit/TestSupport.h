//===- TestSupport.h - helpers for nunc's unit tests ------------*- C++ -*-===//

#ifndef NUNC_TEST_UNIT_TESTSUPPORT_H
#define NUNC_TEST_UNIT_TESTSUPPORT_H

#include "nunc/Codegen/Target.h"
#include "nunc/Interpreter/Tensor.h"

#include "mlir/IR/MLIRContext.h"

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace nunc_test {

using mlir::nunc::DType;
using mlir::nunc::Tensor;

/// A tensor from values (converted to the dtype's C++ type).
Tensor makeTensor(DType dtype, std::vector<int64_t> shape, std::vector<double> values);

/// An f32 tensor of values uniform in [lo, hi).
Tensor randomTensor(std::mt19937 &rng, std::vector<int64_t> shape, float lo, float hi);

/// The elements as doubles, for EXPECT_THAT(..., ElementsAre(...)).
std::vector<double> values(const Tensor &t);

/// Parses `mlir` (one func @main of nunc ops), evaluates it on `inputs` and
/// returns the outputs. On any error, `error` is set and the result is empty.
std::vector<Tensor> evaluate(const std::string &mlir, const std::vector<Tensor> &inputs,
                             std::string *error = nullptr);

/// Whether this host runs the kernels generated for `isa` (kernel tests
/// skip the others).
inline bool hostHas(mlir::nunc::Isa isa) {
  return isa == mlir::nunc::Isa::Avx512 ? __builtin_cpu_supports("avx512f")
                                        : __builtin_cpu_supports("avx2");
}

/// The bits of an f32 (tells -0 from +0 and keeps NaN's payload).
inline uint32_t bits(float v) {
  uint32_t b;
  std::memcpy(&b, &v, 4);
  return b;
}

/// `size` bytes between two inaccessible pages, flush against the one after
/// them (`atEnd`) or the one before: a kernel that reads past that end
/// faults instead of reading a neighbour's bytes.
class GuardedBytes {
public:
  GuardedBytes(size_t size, bool atEnd);
  ~GuardedBytes();
  GuardedBytes(const GuardedBytes &) = delete;
  GuardedBytes &operator=(const GuardedBytes &) = delete;
  uint8_t *data() const { return bytes; }

private:
  char *map = nullptr;
  size_t mapped = 0;
  uint8_t *bytes = nullptr;
};

/// Diagnostics of a failed evaluation, e.g. for EXPECT_THAT(..., HasSubstr(..)).
std::string evaluationError(const std::string &mlir, const std::vector<Tensor> &inputs);

} // namespace nunc_test

#endif // NUNC_TEST_UNIT_TESTSUPPORT_H
