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
// The AVX2 variant (no VNNI) is an exact 16-bit form of the same: 6 x 16
// tiles, pairs of k per `vpmaddwd`.
//
// Task arguments: [0] A, [1] packed W, [2] column block [panel][3][NR]:
// s32 column sums (dynamic) or zpA * column sums (static), f32 column scales
// (scaleW, or scaleA * scaleW when static), f32 bias; [3] row block [M][2]:
// s32 zero point and f32 scale of each A row (dynamic); [4] residual, [5] C.
//
//===----------------------------------------------------------------------===//

#ifndef NUNC_CODEGEN_X86_INT8GEMMKERNEL_H
#define NUNC_CODEGEN_X86_INT8GEMMKERNEL_H

#include "JitSupport.h"
#include "nunc/Codegen/Target.h"

#include <memory>
#include <vector>

namespace mlir::nunc::x86 {

struct Int8GemmConfig {
  int64_t m = 0, n = 0, k = 0;
  int64_t lda = 0;         // bytes per A row, >= rowBytes(k, isa)
  int64_t ldc = 0, ldr = 0; // elements per C / residual row
  bool perRowA = false;     // dynamic activations: per-row zero points and scales
  bool bias = false, residual = false;
  Activation activation;
  /// Applied after the activation: FakeQuant rounds C to a grid (a
  /// Quantize/DequantizeLinear pair fused into the GEMM), or None.
  Activation output;
  /// Avx512: VNNI (`vpdpbusd`, u8 A). Avx2: A holds the u8 values widened
  /// to 16 bits, W is widened at load (`vpmovsxbw`) and `vpmaddwd` sums
  /// pairs of 16-bit products into s32: exact, no `vpmaddubsw` saturation
  /// (255 x -128 x 2 does not fit in 16 bits).
  Isa isa = Isa::Avx512;
};

struct Int8GemmKernel {
  static int64_t panelWidth(Isa isa) { return isa == Isa::Avx512 ? 48 : 16; }
  /// k consumed by one multiply-add step: 4 (vpdpbusd) or 2 (vpmaddwd).
  static int64_t kGroup(Isa isa) { return isa == Isa::Avx512 ? 4 : 2; }
  static int64_t paddedK(int64_t k, Isa isa = Isa::Avx512) {
    return (k + kGroup(isa) - 1) / kGroup(isa) * kGroup(isa);
  }
  /// Bytes of one quantized A row the row quantizer writes: u8 padded to 4
  /// (AVX-512), or 16-bit elements padded to 8 (AVX2: whole vector stores).
  static int64_t rowBytes(int64_t k, Isa isa) {
    return isa == Isa::Avx512 ? paddedK(k, isa) : (k + 7) / 8 * 8 * 2;
  }
  static int64_t numPanels(int64_t n, Isa isa = Isa::Avx512) {
    return (n + panelWidth(isa) - 1) / panelWidth(isa);
  }
  static int64_t numTasks(const Int8GemmConfig &c) { return numPanels(c.n, c.isa); }

  /// W [K][N] s8 into [panel][K/g][NR][g] (g = kGroup, NR = panelWidth),
  /// zero padded.
  static std::vector<int8_t> packWeights(const int8_t *w, int64_t k, int64_t n,
                                         Isa isa = Isa::Avx512);
  /// The column block [panel][3][NR] from per-column sums (or
  /// compensations), scales and bias (null: zero), as 32-bit words.
  static std::vector<uint32_t> packColumns(const int32_t *sums, const float *scales,
                                           const float *bias, int64_t n,
                                           Isa isa = Isa::Avx512);

  /// Generates the task function; null on an xbyak error.
  static std::unique_ptr<JitKernel> generate(const Int8GemmConfig &config);
};

} // namespace mlir::nunc::x86

#endif // NUNC_CODEGEN_X86_INT8GEMMKERNEL_H
