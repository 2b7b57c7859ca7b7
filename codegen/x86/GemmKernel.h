//===- GemmKernel.h - fp32 GEMM with fused epilogues (xbyak) ----*- C++ -*-===//
//
//   C[M, N] = activation(A[M, K] x W[K, N] + bias[N] + residual[M, N])
//
// W is a constant packed at compile time into panels of NR columns
// ([panel][K][NR], zero padded), so the inner loop streams it. A register
// tile of MR x NR accumulators (AVX-512: 8 x 48; AVX2: 6 x 16) runs the
// whole K with A broadcast from memory; bias initializes the accumulators and
// residual, activation and the masked tail store happen before C is written.
// One task per column panel.
//
// `kBlock` (no bias) sums K as MLAS's sgemm does: each output a chain of
// FMAs over each block of kBlock k from zero, the blocks' sums added in
// order (the partial sums wait in C; see mlasSgemmKBlock). With `im2col` it
// joins no tail columns (their dot products would sum in another order).
//
// Task arguments: [0] A, [1] packed W, [2] packed bias, [3] residual, [4] C.
//
// A convolution can instead have the kernel build W's panels itself
// (`im2col`, see PanelIm2col): [1] is then the padded input planes and [5]
// the tasks' buffers; each of at most 32 tasks takes every 32nd (image,
// panel) item, copies its im2col columns into the buffer of its scratch
// slot (nunc_rt_task) and runs the panel from there (but see Im2colSplit:
// with row chunks [1] stays the packed im2col).
//
//===----------------------------------------------------------------------===//

#ifndef NUNC_CODEGEN_X86_GEMMKERNEL_H
#define NUNC_CODEGEN_X86_GEMMKERNEL_H

#include "Im2colKernel.h"
#include "JitSupport.h"
#include "nunc/Codegen/Target.h"

#include <algorithm>
#include <memory>
#include <optional>

namespace mlir::nunc::x86 {

struct GemmConfig {
  int64_t m = 0, n = 0, k = 0;
  int64_t lda = 0, ldc = 0, ldr = 0; // row strides in elements
  bool bias = false, residual = false;
  /// bias has one value per row (M) instead of per column (N).
  bool rowBias = false;
  /// Independent problems sharing the bias: A, W, C and residual advance by
  /// these strides (elements) from one to the next (0: shared); tasks =
  /// batch x panels. (A moves only without im2col.)
  int64_t batch = 1, aBatchStride = 0, wBatchStride = 0, cBatchStride = 0, rBatchStride = 0;
  Activation activation;
  /// W is the im2col of this convolution, built panel by panel (batch as
  /// in the config above).
  std::optional<Im2colConfig> im2col;
  /// > 0: K summed in blocks of this many k, MLAS's order (see above).
  int64_t kBlock = 0;
};

struct GemmKernel {
  /// Register tile: MR rows by NR = NV vectors of columns.
  static int64_t rowsPerTile(Isa isa) { return isa == Isa::Avx512 ? 8 : 6; }
  static int64_t vectorsPerTile(Isa isa) { return isa == Isa::Avx512 ? 3 : 2; }
  static int64_t lanes(Isa isa) { return isa == Isa::Avx512 ? 16 : 8; }
  static int64_t panelWidth(Isa isa) { return vectorsPerTile(isa) * lanes(isa); }
  static int64_t numPanels(int64_t n, Isa isa) {
    return (n + panelWidth(isa) - 1) / panelWidth(isa);
  }

  /// How the convolution form (`im2col`, AVX-512) splits its work into
  /// (image, panel, row chunk) items. A last panel of at most 4 columns
  /// (49 = 48 + 1 positions) joins the one before it: its columns run as
  /// dot products over K (their im2col transposed after the panel in the
  /// buffer), in the same pass over A's rows as the panel, instead of a
  /// panel task of its own that reads all of A again for 1/48 of the work.
  /// Few panels also split the rows (whole 8-row tiles) for ~8 items; the
  /// chunks of a panel then share it, packed before the GEMM by the
  /// im2col kernel (packing it again for every chunk costs more than one
  /// im2col pass, measured), and each item only transposes its tail.
  struct Im2colSplit {
    int64_t panels = 1;       // item panels (the small last one joined)
    int64_t tail = 0;         // columns joined to the last item panel
    int64_t chunks = 1;       // row chunks per panel
    int64_t rowsPerChunk = 0;
    int64_t paddedK = 0;      // K rounded up to 16 (the tail's rows)
    /// Each item packs its panel from the padded planes (one chunk); else
    /// argument [1] is the packed im2col as without `im2col`.
    bool packPerItem = true;
    int64_t bufferFloats = 0; // a task's buffer: [K][48] (packPerItem), then [tail][paddedK]
    int64_t items(int64_t batch) const { return batch * panels * chunks; }
  };
  static Im2colSplit im2colSplit(const GemmConfig &c);
  static constexpr int64_t kMaxIm2colTasks = 32;

  static int64_t numTasks(const GemmConfig &c, Isa isa) {
    if (c.im2col)
      return std::min<int64_t>(im2colSplit(c).items(c.batch), kMaxIm2colTasks);
    return c.batch * numPanels(c.n, isa);
  }
  /// With `im2col`: the tasks' panel buffers (argument [5]).
  static int64_t panelBufferBytes(const GemmConfig &c, Isa isa) {
    return numTasks(c, isa) * im2colSplit(c).bufferFloats * 4;
  }

  /// W [K, N] row-major into [panel][K][NR], zero padded.
  static std::vector<float> packWeights(const float *w, int64_t k, int64_t n, Isa isa);
  /// bias [N] into [panel][NR], zero padded.
  static std::vector<float> packBias(const float *b, int64_t n, Isa isa);

  /// Generates the task function; null when xbyak reports an error.
  static std::unique_ptr<JitKernel> generate(const GemmConfig &config, Isa isa);
};

} // namespace mlir::nunc::x86

#endif // NUNC_CODEGEN_X86_GEMMKERNEL_H
