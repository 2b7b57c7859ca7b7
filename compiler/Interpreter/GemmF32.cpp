//===- GemmF32.cpp - the evaluator's f32 matrix product --------------------===//
//
// Every element of C is summed in the same order whatever the host: C's
// value, then a[i, 0] * b[0, j], a[i, 1] * b[1, j], ... each product and
// each sum rounded to float (this file is compiled with -ffp-contract=off,
// so no FMA fuses them). Vector width and tiling change only which
// elements are summed side by side, so the evaluator gives the same bits on
// every x86-64 host; the AVX-512 path is only faster (calibration and
// --report run the evaluator over every sample).
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"

#include <algorithm>
#include <cstring>

namespace mlir::nunc::kernels {
namespace {

/// kRows x (kVecs vectors of W floats) tiles of C kept in registers across
/// a block of k; the rest of C (fewer rows or columns) a row at a time.
template <int W, int kRows, int kVecs> struct Tiles {
  // (Loaded and stored by memcpy: no vector crosses a call, so the
  // default-target code has no AVX-512 ABI.)
  typedef float Vec __attribute__((vector_size(W * 4)));
  static constexpr int64_t kCols = W * kVecs;

  /// C[rows, kCols] += A[rows, k0:k1] B[k0:k1, kCols] for rows <= kRows.
  template <int R>
  [[gnu::always_inline]] static inline void tile(int64_t k0, int64_t k1, const float *a,
                                                 int64_t lda, const float *b, int64_t ldb,
                                                 float *c, int64_t ldc) {
    Vec acc[R][kVecs];
    for (int r = 0; r < R; ++r)
      for (int v = 0; v < kVecs; ++v)
        std::memcpy(&acc[r][v], c + r * ldc + v * W, sizeof(Vec));
    for (int64_t kk = k0; kk < k1; ++kk) {
      const float *brow = b + kk * ldb;
      Vec bv[kVecs];
      for (int v = 0; v < kVecs; ++v)
        std::memcpy(&bv[v], brow + v * W, sizeof(Vec));
      for (int r = 0; r < R; ++r) {
        float av = a[r * lda + kk];
        for (int v = 0; v < kVecs; ++v)
          acc[r][v] += av * bv[v];
      }
    }
    for (int r = 0; r < R; ++r)
      for (int v = 0; v < kVecs; ++v)
        std::memcpy(c + r * ldc + v * W, &acc[r][v], sizeof(Vec));
  }

  template <int R>
  [[gnu::always_inline]] static inline void rowsOf(int64_t rows, int64_t k0, int64_t k1,
                                                   const float *a, int64_t lda, const float *b,
                                                   int64_t ldb, float *c, int64_t ldc) {
    if constexpr (R > 0) {
      if (rows == R)
        return tile<R>(k0, k1, a, lda, b, ldb, c, ldc);
      rowsOf<R - 1>(rows, k0, k1, a, lda, b, ldb, c, ldc);
    }
  }

  [[gnu::always_inline]] static inline void gemm(int64_t m, int64_t n, int64_t k,
                                                 const float *a, int64_t lda, const float *b,
                                                 int64_t ldb, float *c, int64_t ldc) {
    // A block of k keeps a kCols-wide panel of B in L1 while the rows of A
    // go by; the blocks follow each other in k, so each sum keeps its order.
    constexpr int64_t kBlockK = 256;
    const int64_t fullCols = n / kCols * kCols;
    for (int64_t k0 = 0; k0 < k; k0 += kBlockK) {
      const int64_t k1 = std::min(k, k0 + kBlockK);
      for (int64_t j = 0; j < fullCols; j += kCols)
        for (int64_t i = 0; i < m; i += kRows)
          rowsOf<kRows>(std::min<int64_t>(kRows, m - i), k0, k1, a + i * lda, lda, b + j, ldb,
                        c + i * ldc + j, ldc);
      if (fullCols == n)
        continue;
      for (int64_t i = 0; i < m; ++i) {
        float *__restrict crow = c + i * ldc;
        for (int64_t kk = k0; kk < k1; ++kk) {
          const float av = a[i * lda + kk];
          const float *__restrict brow = b + kk * ldb;
          for (int64_t j = fullCols; j < n; ++j)
            crow[j] += av * brow[j];
        }
      }
    }
  }
};

#if defined(__x86_64__)
// 12 accumulators of 16 floats (6 rows x 2 vectors); the baseline below
// keeps 8 of 4 (4 rows x 2 vectors) in SSE2's 16 registers.
[[gnu::target("avx512f")]] void gemmAvx512(int64_t m, int64_t n, int64_t k, const float *a,
                                           int64_t lda, const float *b, int64_t ldb, float *c,
                                           int64_t ldc) {
  Tiles<16, 6, 2>::gemm(m, n, k, a, lda, b, ldb, c, ldc);
}
#endif

} // namespace

void gemmF32Baseline(int64_t m, int64_t n, int64_t k, const float *a, int64_t lda,
                     const float *b, int64_t ldb, float *c, int64_t ldc) {
  Tiles<4, 4, 2>::gemm(m, n, k, a, lda, b, ldb, c, ldc);
}

void gemmF32(int64_t m, int64_t n, int64_t k, const float *a, int64_t lda, const float *b,
             int64_t ldb, float *c, int64_t ldc) {
#if defined(__x86_64__)
  static const bool avx512 = __builtin_cpu_supports("avx512f");
  if (avx512)
    return gemmAvx512(m, n, k, a, lda, b, ldb, c, ldc);
#endif
  gemmF32Baseline(m, n, k, a, lda, b, ldb, c, ldc);
}

} // namespace mlir::nunc::kernels
