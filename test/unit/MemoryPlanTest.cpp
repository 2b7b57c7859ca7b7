//===- MemoryPlanTest.cpp - arena offsets from liveness -------------------===//

#include "nunc/Plan/MemoryPlan.h"

#include "gtest/gtest.h"

#include <random>

using namespace mlir::nunc;

namespace {

int64_t aligned(int64_t v) { return (std::max<int64_t>(v, 1) + 63) / 64 * 64; }

/// No two storages that are live at the same step may overlap; every one
/// lies inside the arena and is aligned.
void checkPlan(llvm::ArrayRef<int64_t> sizes, llvm::ArrayRef<std::pair<int, int>> lives,
               llvm::ArrayRef<int64_t> offsets, int64_t arena) {
  for (size_t i = 0; i < sizes.size(); ++i) {
    ASSERT_EQ(offsets[i] % 64, 0);
    ASSERT_LE(offsets[i] + aligned(sizes[i]), arena);
    for (size_t j = i + 1; j < sizes.size(); ++j) {
      bool liveTogether = lives[i].first <= lives[j].second && lives[j].first <= lives[i].second;
      bool overlap = offsets[i] < offsets[j] + aligned(sizes[j]) &&
                     offsets[j] < offsets[i] + aligned(sizes[i]);
      ASSERT_FALSE(liveTogether && overlap) << "storages " << i << " and " << j;
    }
  }
}

TEST(MemoryPlan, RandomLifetimesNeverOverlap) {
  std::mt19937 rng(42);
  for (int trial = 0; trial < 300; ++trial) {
    int n = 1 + rng() % 60, steps = 1 + rng() % 40;
    std::vector<int64_t> sizes;
    std::vector<std::pair<int, int>> lives;
    int64_t peakLive = 0;
    for (int i = 0; i < n; ++i) {
      sizes.push_back(1 + rng() % 100000);
      int a = rng() % steps, b = a + rng() % (steps - a);
      lives.push_back({a, b});
    }
    for (int s = 0; s < steps; ++s) {
      int64_t live = 0;
      for (int i = 0; i < n; ++i)
        if (lives[i].first <= s && s <= lives[i].second)
          live += aligned(sizes[i]);
      peakLive = std::max(peakLive, live);
    }
    llvm::SmallVector<int64_t> offsets;
    int64_t arena = assignOffsets(sizes, lives, offsets);
    checkPlan(sizes, lives, offsets, arena);
    // No plan can be smaller than the most memory live at one step.
    EXPECT_GE(arena, peakLive);
    // Sharing must actually happen: never worse than no reuse at all.
    int64_t total = 0;
    for (int64_t s : sizes)
      total += aligned(s);
    EXPECT_LE(arena, total);
  }
}

TEST(MemoryPlan, AChainReusesTwoBuffers) {
  // v0 -> v1 -> v2 -> v3: each lives from its step to the next one.
  std::vector<int64_t> sizes = {1024, 1024, 1024, 1024};
  std::vector<std::pair<int, int>> lives = {{0, 1}, {1, 2}, {2, 3}, {3, 4}};
  llvm::SmallVector<int64_t> offsets;
  int64_t arena = assignOffsets(sizes, lives, offsets);
  EXPECT_EQ(arena, 2048);
  checkPlan(sizes, lives, offsets, arena);
}

TEST(MemoryPlan, SmallBuffersFillGaps) {
  // A big buffer dies at step 1; two small ones born later share its space.
  std::vector<int64_t> sizes = {4096, 4096, 1024, 1024};
  std::vector<std::pair<int, int>> lives = {{0, 1}, {0, 3}, {2, 3}, {2, 3}};
  llvm::SmallVector<int64_t> offsets;
  int64_t arena = assignOffsets(sizes, lives, offsets);
  EXPECT_EQ(arena, 8192);
  checkPlan(sizes, lives, offsets, arena);
}

} // namespace
