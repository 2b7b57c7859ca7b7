//===- GatherKernel.h - row gather with bounds checks (xbyak) ---*- C++ -*-===//
//
// Gather along axis 0 (embedding lookups): y[i] = data[index[i]] for rows of
// rowBytes, a multiple of 4. Negative indices count from the end, as in
// ONNX; an index outside [-dim, dim) makes the task return 1 (the run then
// reports which input and node) instead of reading out of bounds. Tasks are
// blocks of indices.
//
// Task arguments: [0] data, [1] indices (int32 or int64), [2] y.
//
//===----------------------------------------------------------------------===//

#ifndef NUNC_CODEGEN_X86_GATHERKERNEL_H
#define NUNC_CODEGEN_X86_GATHERKERNEL_H

#include "JitSupport.h"
#include "nunc/Codegen/Target.h"

#include <memory>

namespace mlir::nunc::x86 {

struct GatherConfig {
  int64_t indices = 1;  // number of rows gathered
  int64_t dim = 1;      // rows in data
  int64_t rowBytes = 4; // a multiple of 4
  int64_t indexBytes = 8;
};

struct GatherKernel {
  static bool supports(const GatherConfig &c) {
    return c.rowBytes > 0 && c.rowBytes % 4 == 0 && (c.indexBytes == 4 || c.indexBytes == 8) &&
           c.indices > 0 && c.dim > 0;
  }
  static int64_t rowsPerTask(const GatherConfig &c);
  static int64_t numTasks(const GatherConfig &c) {
    return (c.indices + rowsPerTask(c) - 1) / rowsPerTask(c);
  }
  static std::unique_ptr<JitKernel> generate(const GatherConfig &c, Isa isa);
};

} // namespace mlir::nunc::x86

#endif // NUNC_CODEGEN_X86_GATHERKERNEL_H
