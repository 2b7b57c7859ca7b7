//===- SoftmaxKernel.h - row-wise softmax (xbyak) ---------------*- C++ -*-===//
//
// y = exp(x - max(x)) / sum(exp(x - max(x))) over contiguous rows of n
// floats: one pass for the max, one that writes exp and sums it, one that
// scales. Rows longer than a few vectors run in a loop, so a vocabulary-sized
// row does not unroll. Works in place (y may be x). Tasks are blocks of rows.
//
// Task arguments: [0] x, [1] y.
//
//===----------------------------------------------------------------------===//

#ifndef NUNC_CODEGEN_X86_SOFTMAXKERNEL_H
#define NUNC_CODEGEN_X86_SOFTMAXKERNEL_H

#include "JitSupport.h"
#include "nunc/Codegen/Target.h"

#include <algorithm>
#include <memory>

namespace mlir::nunc::x86 {

struct SoftmaxConfig {
  int64_t rows = 1, n = 1;
};

struct SoftmaxKernel {
  /// At most 64 tasks, each with at least ~8K elements when rows allow.
  static int64_t rowsPerTask(const SoftmaxConfig &c) {
    int64_t byWork = std::max<int64_t>(1, 8192 / std::max<int64_t>(c.n, 1));
    return std::max<int64_t>(byWork, (c.rows + 63) / 64);
  }
  static int64_t numTasks(const SoftmaxConfig &c) {
    return (c.rows + rowsPerTask(c) - 1) / rowsPerTask(c);
  }
  static std::unique_ptr<JitKernel> generate(const SoftmaxConfig &c, Isa isa);
};

} // namespace mlir::nunc::x86

#endif // NUNC_CODEGEN_X86_SOFTMAXKERNEL_H
