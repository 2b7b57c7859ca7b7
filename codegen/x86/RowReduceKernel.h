//===- RowReduceKernel.h - sums and means of rows (xbyak) -------*- C++ -*-===//
//
// y[r] = sum of the n floats of row r (times 1/n, as a division, for a
// mean): ReduceSum / ReduceMean over the trailing axes of an f32 tensor,
// the form decomposed normalizations (LayerNorm and RMSNorm exports below
// opset 17, QDQ LayerNorms whose Q/DQ pairs keep them from fusing) and
// mean pooling take. Four interleaved chains per row, so the adds do not
// wait on each other; long rows run in a loop. Tasks are blocks of rows.
//
// `onnxruntimeOrder` (n a multiple of 4, at least 8) sums as onnxruntime's
// CPU kernel does instead (onnxruntimeRowSum, a reduce op's
// ordered_f32_arithmetic): one ymm chain whose low and high halves are
// Eigen's two SSE packet accumulators, then its tail and lane tree.
//
// Task arguments: [0] x, [1] y.
//
//===----------------------------------------------------------------------===//

#ifndef NUNC_CODEGEN_X86_ROWREDUCEKERNEL_H
#define NUNC_CODEGEN_X86_ROWREDUCEKERNEL_H

#include "JitSupport.h"
#include "nunc/Codegen/Target.h"

#include <algorithm>
#include <memory>

namespace mlir::nunc::x86 {

struct RowReduceConfig {
  int64_t rows = 1, n = 1;
  bool mean = false;
  bool onnxruntimeOrder = false;
};

struct RowReduceKernel {
  /// At most 64 tasks, each with at least ~8K elements when rows allow.
  static int64_t rowsPerTask(const RowReduceConfig &c) {
    int64_t byWork = std::max<int64_t>(1, 8192 / std::max<int64_t>(c.n, 1));
    return std::max<int64_t>(byWork, (c.rows + 63) / 64);
  }
  static int64_t numTasks(const RowReduceConfig &c) {
    return (c.rows + rowsPerTask(c) - 1) / rowsPerTask(c);
  }
  static std::unique_ptr<JitKernel> generate(const RowReduceConfig &c, Isa isa);
};

} // namespace mlir::nunc::x86

#endif // NUNC_CODEGEN_X86_ROWREDUCEKERNEL_H
