//===- RowReduceKernelTest.cpp - xbyak row sums and means vs a reference --===//

#include "RowReduceKernel.h"
#include "TestSupport.h"

#include "gtest/gtest.h"

#include <cmath>
#include <random>

using namespace mlir::nunc;
using namespace mlir::nunc::x86;

namespace {

using nunc_test::hostHas;

class RowReduceKernelTest : public ::testing::TestWithParam<Isa> {};

TEST_P(RowReduceKernelTest, MatchesADoubleReference) {
  Isa isa = GetParam();
  if (!hostHas(isa))
    GTEST_SKIP() << "the host lacks this ISA";
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> dist(-3.f, 5.f);
  // Rows shorter than a vector, with a tail, unrolled and looped (more than
  // 16 vectors); tasks of one and of many rows.
  for (int64_t rows : {1, 7, 17, 129})
    for (int64_t n : {1, 3, 7, 16, 17, 64, 129, 387, 1000, 4099})
      for (bool mean : {false, true}) {
        std::vector<float> x(rows * n);
        for (float &v : x)
          v = dist(rng);
        RowReduceConfig cfg{rows, n, mean};
        std::unique_ptr<JitKernel> kernel = RowReduceKernel::generate(cfg, isa);
        ASSERT_TRUE(kernel);
        // One guard element past the end: the kernel writes rows floats only.
        std::vector<float> y(rows + 1, -777.f);
        const void *args[] = {x.data(), y.data()};
        for (int64_t t = 0; t < RowReduceKernel::numTasks(cfg); ++t)
          ASSERT_EQ(kernel->function()(args, t, t), 0);
        ASSERT_EQ(y[rows], -777.f) << "wrote past the last row";
        for (int64_t r = 0; r < rows; ++r) {
          double want = 0, magnitude = 0;
          for (int64_t i = 0; i < n; ++i) {
            want += x[r * n + i];
            magnitude += std::fabs(x[r * n + i]);
          }
          if (mean) {
            want /= n;
            magnitude /= n;
          }
          // f32 sums of n terms in four chains: a few ulps of the magnitude.
          ASSERT_NEAR(y[r], want, 4e-7 * magnitude * std::sqrt(double(n)) + 1e-30)
              << "rows " << rows << " n " << n << (mean ? " mean" : " sum") << " row " << r;
        }
      }
}

INSTANTIATE_TEST_SUITE_P(Isas, RowReduceKernelTest, ::testing::Values(Isa::Avx512, Isa::Avx2),
                         [](const auto &info) {
                           return info.param == Isa::Avx512 ? "Avx512" : "Avx2";
                         });

} // namespace
