//===- Int8GemmKernel.h - u8 x s8 GEMM with VNNI (xbyak) --------*- C++ -*-===//
//
//   C[M, N] = act(((A - zpA) x W) * scaleA * scaleW[N] + bias[N] + residual)
//
// A is u8 [M][lda bytes] (lda >= K rounded up to 4; the padding bytes may
// hold anything), W is s8 [K][N] quantized per output column (symmetric) and
// packed at compile time into panels of 48 columns, four k at a time
// ([panel][K/4][48][4], zero padded), which `vpdpbusd` consumes directly.
// Accumulation is exact in s32; the zero point of A is compensated in the
// epilogue with the column sums of W computed at compile time: per tensor
// (static activations: zpA * colSum folded into one vector per column) or
// per row (dynamic: zpA[m] * colSum[n]). Then scale to f32, bias, residual,
// activation, masked tail store. Register tile 8 x 48 s32; one task per
// column panel.
//
// Task arguments: [0] A, [1] packed W, [2] column block [panel][3][48]:
// s32 column sums (dynamic) or zpA * column sums (static), f32 column scales
// (scaleW, or scaleA * scaleW when static), f32 bias; [3] row block [M][2]:
// s32 zero point and f32 scale of each A row (dynamic); [4] residual, [5] C.
//
//===----------------------------------------------------------------------===//

#ifndef NUNC_CODEGEN_X86_INT8GEMMKERNEL_H
#define NUNC_CODEGEN_X86_INT8GEMMKERNEL_H

#include "JitSupport.h"

#include <memory>
#include <vector>

namespace mlir::nunc::x86 {

struct Int8GemmConfig {
  int64_t m = 0, n = 0, k = 0;
  int64_t lda = 0;         // bytes per A row, >= paddedK(k)
  int64_t ldc = 0, ldr = 0; // elements per C / residual row
  bool perRowA = false;     // dynamic activations: per-row zero points and scales
  bool bias = false, residual = false;
  Activation activation;
  /// Applied after the activation: FakeQuant rounds C to a grid (a
  /// Quantize/DequantizeLinear pair fused into the GEMM), or None.
  Activation output;
};

struct Int8GemmKernel {
  static constexpr int64_t kRows = 8, kPanel = 48;
  static int64_t paddedK(int64_t k) { return (k + 3) / 4 * 4; }
  static int64_t numPanels(int64_t n) { return (n + kPanel - 1) / kPanel; }
  static int64_t numTasks(const Int8GemmConfig &c) { return numPanels(c.n); }

  /// W [K][N] s8 into [panel][K/4][48][4], zero padded.
  static std::vector<int8_t> packWeights(const int8_t *w, int64_t k, int64_t n);
  /// The column block from per-column sums (or compensations), scales and
  /// bias (null: zero), as 32-bit words.
  static std::vector<uint32_t> packColumns(const int32_t *sums, const float *scales,
                                           const float *bias, int64_t n);

  /// Generates the task function (AVX-512 VNNI); null on an xbyak error.
  static std::unique_ptr<JitKernel> generate(const Int8GemmConfig &config);
};

} // namespace mlir::nunc::x86

#endif // NUNC_CODEGEN_X86_INT8GEMMKERNEL_H
