//===- LayerNormKernel.h - row-wise LayerNorm (xbyak) -----------*- C++ -*-===//
//
// y = (x - mean) / sqrt(var + eps) * scale + bias over rows of n floats, also
// writing each row's mean and 1/stddev. Two passes over the row for the
// moments (numerically like the reference), one to write; two rows at a
// time, their passes interleaved, each sum in several chains. Tasks are
// blocks of rows. `ordered`: nunc.layer_norm's ordered_f32_arithmetic
// (onnxruntime's roundings; n a multiple of 8): each sum one chain of 8
// lanes (f64 for the mean), no reassociation. `rms`: RMSNorm (no mean
// pass or subtraction; the mean written is 0).
//
// Task arguments: [0] x, [1] scale, [2] bias, [3] y, [4] mean, [5] inv_std_dev.
//
//===----------------------------------------------------------------------===//

#ifndef NUNC_CODEGEN_X86_LAYERNORMKERNEL_H
#define NUNC_CODEGEN_X86_LAYERNORMKERNEL_H

#include "JitSupport.h"
#include "nunc/Codegen/Target.h"

#include <memory>

namespace mlir::nunc::x86 {

struct LayerNormConfig {
  int64_t rows = 1, n = 1;
  float epsilon = 1e-5f;
  bool bias = false;
  bool ordered = false;
  bool rms = false;
};

struct LayerNormKernel {
  static int64_t rowsPerTask(const LayerNormConfig &c) {
    return std::max<int64_t>(1, (c.rows + 15) / 16);
  }
  static int64_t numTasks(const LayerNormConfig &c) {
    return (c.rows + rowsPerTask(c) - 1) / rowsPerTask(c);
  }
  static bool supports(const LayerNormConfig &c) {
    return !c.ordered || (c.n % 8 == 0 && !c.rms);
  }
  static std::unique_ptr<JitKernel> generate(const LayerNormConfig &c, Isa isa);
};

} // namespace mlir::nunc::x86

#endif // NUNC_CODEGEN_X86_LAYERNORMKERNEL_H
