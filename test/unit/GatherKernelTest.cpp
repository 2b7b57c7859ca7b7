//===- GatherKernelTest.cpp - xbyak gather against a plain reference ------===//

#include "GatherKernel.h"
#include "TestSupport.h"

#include "gtest/gtest.h"

#include <cstring>
#include <random>

using namespace mlir::nunc;
using namespace mlir::nunc::x86;

namespace {

using nunc_test::hostHas;

class GatherKernelTest : public ::testing::TestWithParam<Isa> {};

/// Runs every task; returns the first nonzero status (or 0).
template <typename Index>
int32_t run(Isa isa, const GatherConfig &c, const std::vector<uint32_t> &data,
            const std::vector<Index> &indices, std::vector<uint32_t> &y) {
  std::unique_ptr<JitKernel> kernel = GatherKernel::generate(c, isa);
  EXPECT_TRUE(kernel);
  const void *args[] = {data.data(), indices.data(), y.data()};
  int32_t status = 0;
  for (int64_t t = 0; t < GatherKernel::numTasks(c); ++t)
    if (int32_t s = kernel->function()(args, t, t))
      status = s;
  return status;
}

template <typename Index> void checkGather(Isa isa) {
  std::mt19937 rng(31);
  for (int64_t dim : {1, 7, 1000})
    for (int64_t rowWords : {1, 3, 16, 17, 384, 1025})
      for (int64_t count : {1, 7, 129}) {
        GatherConfig c{count, dim, rowWords * 4, static_cast<int64_t>(sizeof(Index))};
        std::vector<uint32_t> data(dim * rowWords);
        for (uint32_t &v : data)
          v = rng();
        std::vector<Index> idx(count);
        for (Index &i : idx)
          i = static_cast<Index>(int64_t(rng() % (2 * dim)) - dim); // [-dim, dim)
        std::vector<uint32_t> y(count * rowWords + 1, 0xdeadbeef);
        ASSERT_EQ(run(isa, c, data, idx, y), 0);
        for (int64_t r = 0; r < count; ++r) {
          int64_t row = idx[r] < 0 ? idx[r] + dim : idx[r];
          ASSERT_EQ(0, std::memcmp(&y[r * rowWords], &data[row * rowWords], rowWords * 4))
              << "dim " << dim << " row words " << rowWords << " index " << r;
        }
        EXPECT_EQ(y.back(), 0xdeadbeef) << "wrote past the output";
      }
}

TEST_P(GatherKernelTest, CopiesRowsWithInt64AndInt32Indices) {
  Isa isa = GetParam();
  if (!hostHas(isa))
    GTEST_SKIP() << "the host lacks this ISA";
  checkGather<int64_t>(isa);
  checkGather<int32_t>(isa);
}

TEST_P(GatherKernelTest, OutOfRangeIndicesAreAnErrorNotARead) {
  Isa isa = GetParam();
  if (!hostHas(isa))
    GTEST_SKIP() << "the host lacks this ISA";
  GatherConfig c{3, 10, 64, 8};
  std::vector<uint32_t> data(10 * 16, 1), y(3 * 16);
  for (int64_t bad : {int64_t(10), int64_t(-11), int64_t(1) << 40, INT64_MIN}) {
    std::vector<int64_t> idx = {0, bad, 2};
    EXPECT_EQ(run(isa, c, data, idx, y), 1) << bad;
  }
  std::vector<int64_t> edges = {9, -10, -1};
  EXPECT_EQ(run(isa, c, data, edges, y), 0);
}

INSTANTIATE_TEST_SUITE_P(Isas, GatherKernelTest, ::testing::Values(Isa::Avx512, Isa::Avx2),
                         [](const auto &info) {
                           return info.param == Isa::Avx512 ? std::string("avx512")
                                                            : std::string("avx2");
                         });

} // namespace
