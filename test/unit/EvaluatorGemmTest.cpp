//===- EvaluatorGemmTest.cpp - the evaluator's f32 product, bit for bit ----===//
//
// The evaluator's gemmF32 (register tiles, AVX-512 where the host has it)
// must give the bits of the plain loop it replaced: each element summed in
// k order, each product and sum rounded, on both paths and awkward shapes.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace {

using mlir::nunc::kernels::gemmF32;
using mlir::nunc::kernels::gemmF32Baseline;

/// C += A B element by element, k in order (this file is compiled with
/// -ffp-contract=off too).
void plainGemm(int64_t m, int64_t n, int64_t k, const float *a, int64_t lda, const float *b,
               int64_t ldb, float *c, int64_t ldc) {
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float sum = c[i * ldc + j];
      for (int64_t kk = 0; kk < k; ++kk) {
        const float product = a[i * lda + kk] * b[kk * ldb + j];
        sum = sum + product;
      }
      c[i * ldc + j] = sum;
    }
}

using Gemm = void (*)(int64_t, int64_t, int64_t, const float *, int64_t, const float *,
                      int64_t, float *, int64_t);

void expectPlainBits(Gemm gemm, int64_t m, int64_t n, int64_t k, uint32_t seed) {
  // Row strides past the widths, whose padding must stay as it is.
  const int64_t lda = k + 3, ldb = n + 5, ldc = n + 2;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> value(-2.f, 2.f);
  std::vector<float> a(m * lda + 1), b(k * ldb + 1), c(m * ldc + 1);
  for (std::vector<float> *v : {&a, &b, &c})
    for (float &x : *v)
      x = value(rng);
  // Values whose sums depend on their order: large and tiny, a subnormal
  // product (1e-20 * 1e-20), an infinity.
  if (m && k) {
    a[0] = 3e7f;
    if (n)
      b[(k - 1) * ldb] = 1e-3f;
  }
  if (k > 1 && n) {
    a[1] = 1e-20f;
    b[ldb] = 1e-20f;
  }
  if (k && n > 1)
    b[1] = std::numeric_limits<float>::infinity();
  std::vector<float> want = c, got = c;
  plainGemm(m, n, k, a.data(), lda, b.data(), ldb, want.data(), ldc);
  gemm(m, n, k, a.data(), lda, b.data(), ldb, got.data(), ldc);
  for (int64_t i = 0; i < static_cast<int64_t>(got.size()); ++i) {
    uint32_t w, g;
    std::memcpy(&w, &want[i], 4);
    std::memcpy(&g, &got[i], 4);
    if (w != g) {
      ADD_FAILURE() << "m=" << m << " n=" << n << " k=" << k << ": C[" << i / ldc << ", "
                    << i % ldc << "] is " << got[i] << ", the plain loop's " << want[i];
      return;
    }
  }
}

// (gemmF32 takes the AVX-512 path on hosts that have it, the baseline one
// elsewhere: both are held to the plain loop on AVX-512 hosts.)
TEST(EvaluatorGemmTest, EveryPathGivesThePlainLoopsBits) {
  uint32_t seed = 1;
  for (int64_t m : {0, 1, 4, 5, 6, 7, 13, 17})
    for (int64_t n : {0, 1, 7, 16, 17, 31, 32, 33, 64, 129})
      for (int64_t k : {0, 1, 2, 7, 255, 256, 257, 600}) {
        expectPlainBits(gemmF32, m, n, k, seed);
        expectPlainBits(gemmF32Baseline, m, n, k, seed++);
      }
}

} // namespace
