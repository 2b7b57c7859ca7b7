//===- RuntimeTest.cpp - generated libraries and their runtime ------------===//

#include "MallocCounter.h"
#include "rt_minilm.h"
#include "rt_mlp.h"
#include "runtime_internal.h"

#include "gtest/gtest.h"

#include <atomic>
#include <sched.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

// The thread pool of the runtime copy inside the MLP library (the nunc_rt_
// prefix renamed to the model's).
extern "C" {
nunc_status rt_mlp_rt_init(nunc_rt_ctx *ctx, void *workspace, size_t workspace_size,
                           const void *weights, const nunc_options *options,
                           uint32_t required_features);
int32_t rt_mlp_rt_parallel(nunc_rt_ctx *ctx, int64_t n, nunc_rt_task task,
                           const void *const *args);
void rt_mlp_rt_destroy(nunc_rt_ctx *ctx);
}

namespace {

struct Workspace {
  explicit Workspace(size_t bytes) : p(std::aligned_alloc(64, (bytes + 63) / 64 * 64 + 64)) {}
  ~Workspace() { std::free(p); }
  void *p;
};

std::vector<float> mlpInput(int seed) {
  std::vector<float> x(4 * 64);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = ((i * 7 + seed * 13) % 19) / 19.f - 0.5f;
  return x;
}

struct Tokens {
  int64_t ids[2 * 16], mask[2 * 16], types[2 * 16];
  explicit Tokens(int seed) {
    for (int i = 0; i < 32; ++i) {
      ids[i] = (i * 131 + seed * 7919) % 30522;
      mask[i] = (i % 16) < 12 + seed % 4;
      types[i] = (i % 16) >= 8;
    }
  }
};

std::vector<float> runMinilm(rt_minilm_ctx *ctx, const Tokens &t) {
  std::vector<float> out(2 * 16 * 384);
  EXPECT_EQ(rt_minilm_run(ctx, t.ids, t.mask, t.types, out.data()), NUNC_OK)
      << rt_minilm_error_detail(ctx);
  return out;
}

TEST(Runtime, DescriptorsDescribeTheModel) {
  size_t n = 0;
  const nunc_io_desc *in = rt_minilm_inputs(&n);
  ASSERT_EQ(n, 3u);
  EXPECT_STREQ(in[0].name, "input_ids");
  EXPECT_EQ(in[0].dtype, NUNC_INT64);
  EXPECT_EQ(in[0].rank, 2);
  EXPECT_EQ(in[0].shape[0], 2);
  EXPECT_EQ(in[0].shape[1], 16);
  EXPECT_EQ(in[0].bytes, 2u * 16 * 8);
  const nunc_io_desc *out = rt_minilm_outputs(&n);
  ASSERT_EQ(n, 1u);
  EXPECT_STREQ(out[0].name, "last_hidden_state");
  EXPECT_EQ(out[0].bytes, 2u * 16 * 384 * 4);
  EXPECT_EQ(rt_minilm_workspace_size(), RT_MINILM_WORKSPACE_SIZE);
}

TEST(Runtime, MallocCounterSeesAllocations) {
  mallocCounterArm();
  void *volatile p = std::malloc(16);
  std::free(p);
  EXPECT_EQ(mallocCounterDisarm(), 1);
}

TEST(Runtime, RunDoesNotAllocate) {
  for (int threads : {1, 2}) {
    Workspace ws(rt_minilm_workspace_size());
    static rt_minilm_ctx ctx;
    nunc_options opt = {};
    opt.num_threads = threads;
    ASSERT_EQ(rt_minilm_init(&ctx, ws.p, &opt), NUNC_OK);
    Tokens t(1);
    std::vector<float> out(2 * 16 * 384);
    ASSERT_EQ(rt_minilm_run(&ctx, t.ids, t.mask, t.types, out.data()), NUNC_OK);
    mallocCounterArm();
    for (int i = 0; i < 5; ++i)
      rt_minilm_run(&ctx, t.ids, t.mask, t.types, out.data());
    long allocations = mallocCounterDisarm();
    EXPECT_EQ(allocations, 0) << "threads " << threads;
    rt_minilm_destroy(&ctx);
  }
}

TEST(Runtime, TwoContextsOnTwoThreadsGiveTheSingleThreadedResults) {
  Tokens a(1), b(2);
  Workspace ws0(rt_minilm_workspace_size());
  static rt_minilm_ctx ref;
  ASSERT_EQ(rt_minilm_init(&ref, ws0.p, nullptr), NUNC_OK);
  std::vector<float> wantA = runMinilm(&ref, a), wantB = runMinilm(&ref, b);
  rt_minilm_destroy(&ref);
  ASSERT_NE(wantA, wantB);

  std::atomic<int> mismatches{0};
  auto worker = [&](const Tokens &t, const std::vector<float> &want, int threads) {
    Workspace ws(rt_minilm_workspace_size());
    rt_minilm_ctx *ctx = new rt_minilm_ctx;
    nunc_options opt = {};
    opt.num_threads = threads;
    if (rt_minilm_init(ctx, ws.p, &opt) != NUNC_OK) {
      ++mismatches;
      return;
    }
    for (int i = 0; i < 20; ++i)
      if (runMinilm(ctx, t) != want)
        ++mismatches;
    rt_minilm_destroy(ctx);
    delete ctx;
  };
  // Contexts with their own pools, running at the same time.
  std::thread t1(worker, std::cref(a), std::cref(wantA), 2);
  std::thread t2(worker, std::cref(b), std::cref(wantB), 1);
  t1.join();
  t2.join();
  EXPECT_EQ(mismatches.load(), 0);
}

// The MiniLM library runs its batch of 2 one item at a time. With room for
// two items in the workspace and two threads, the items run side by side,
// each on one thread in its own half of the workspace: same results, no
// allocation. A workspace_bytes of less than two items, or one thread, keeps
// them in turn.
TEST(Runtime, SplitBatchItemsSideBySide) {
  static_assert(RT_MINILM_BATCH_ITEMS == 2, "the library should split its batch of 2");
  Tokens t(3);
  Workspace ws0(rt_minilm_workspace_size());
  static rt_minilm_ctx ref;
  ASSERT_EQ(rt_minilm_init(&ref, ws0.p, nullptr), NUNC_OK);
  std::vector<float> want = runMinilm(&ref, t);
  rt_minilm_destroy(&ref);
  // The second slot is written only when the items run side by side; a
  // guard past the two slots is never written.
  size_t slot = rt_minilm_workspace_size();
  struct Case {
    int threads;
    size_t bytes;
    bool sideBySide;
  } cases[] = {{2, 2 * slot, true}, {2, 2 * slot - 64, false}, {1, 2 * slot, false},
               {2, 0, false}};
  for (Case c : cases) {
    Workspace ws(2 * slot + 64);
    auto *bytes = static_cast<unsigned char *>(ws.p);
    std::memset(bytes + slot, 0x5a, slot + 64);
    static rt_minilm_ctx ctx;
    nunc_options opt = {};
    opt.num_threads = c.threads;
    opt.workspace_bytes = c.bytes;
    ASSERT_EQ(rt_minilm_init(&ctx, ws.p, &opt), NUNC_OK);
    EXPECT_EQ(runMinilm(&ctx, t), want) << c.threads << " threads, " << c.bytes << " B";
    std::vector<float> out(want.size());
    mallocCounterArm();
    for (int i = 0; i < 3; ++i)
      rt_minilm_run(&ctx, t.ids, t.mask, t.types, out.data());
    EXPECT_EQ(mallocCounterDisarm(), 0);
    rt_minilm_destroy(&ctx);
    for (int i = 0; i < 64; ++i)
      ASSERT_EQ(bytes[2 * slot + i], 0x5a) << "guard byte " << i;
    size_t written = 0;
    for (size_t i = slot; i < 2 * slot; ++i)
      written += bytes[i] != 0x5a;
    EXPECT_EQ(written > 0, c.sideBySide) << c.threads << " threads, " << c.bytes << " B";
  }
}

TEST(Runtime, UserParallelForIsUsed) {
  struct Pool {
    std::atomic<long> tasks{0};
  } pool;
  nunc_options opt = {};
  opt.parallel_for = [](void *user, int64_t n, nunc_task_fn fn, void *arg) {
    // Run the tasks backwards on two std::threads: any order must work.
    auto *p = static_cast<Pool *>(user);
    std::thread other([&] {
      for (int64_t i = n - 1; i >= 0; i -= 2)
        fn(arg, i);
    });
    for (int64_t i = n - 2; i >= 0; i -= 2)
      fn(arg, i);
    other.join();
    p->tasks += n;
  };
  opt.parallel_for_user = &pool;
  Workspace ws(rt_minilm_workspace_size());
  static rt_minilm_ctx ctx, ref;
  ASSERT_EQ(rt_minilm_init(&ctx, ws.p, &opt), NUNC_OK);
  Tokens t(3);
  std::vector<float> got = runMinilm(&ctx, t);
  EXPECT_GT(pool.tasks.load(), 0);
  Workspace ws2(rt_minilm_workspace_size());
  ASSERT_EQ(rt_minilm_init(&ref, ws2.p, nullptr), NUNC_OK);
  EXPECT_EQ(got, runMinilm(&ref, t));
  rt_minilm_destroy(&ctx);
  rt_minilm_destroy(&ref);
}

TEST(Runtime, BadArgumentsAndStates) {
  static rt_mlp_ctx ctx;
  std::vector<float> x = mlpInput(0), y(4 * 10);
  // Run before init.
  std::memset(&ctx, 0, sizeof ctx);
  EXPECT_EQ(rt_mlp_run(&ctx, x.data(), y.data()), NUNC_ERR_NOT_INITIALIZED);
  // Misaligned workspace.
  Workspace ws(rt_mlp_workspace_size());
  EXPECT_EQ(rt_mlp_init(&ctx, static_cast<char *>(ws.p) + 4, nullptr),
            NUNC_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(rt_mlp_error_detail(&ctx)).find("64-byte aligned"), std::string::npos);
  EXPECT_EQ(rt_mlp_init(nullptr, ws.p, nullptr), NUNC_ERR_INVALID_ARGUMENT);
  nunc_options negative = {};
  negative.num_threads = -1;
  EXPECT_EQ(rt_mlp_init(&ctx, ws.p, &negative), NUNC_ERR_INVALID_ARGUMENT);
  // After destroy, run is refused again.
  ASSERT_EQ(rt_mlp_init(&ctx, ws.p, nullptr), NUNC_OK);
  EXPECT_EQ(rt_mlp_run(&ctx, x.data(), y.data()), NUNC_OK);
  rt_mlp_destroy(&ctx);
  EXPECT_EQ(rt_mlp_run(&ctx, x.data(), y.data()), NUNC_ERR_NOT_INITIALIZED);
}

TEST(Runtime, UnsupportedCpuNamesTheMissingFeatures) {
  setenv("NUNC_CPU_FEATURES_OVERRIDE", "0", 1);
  static rt_mlp_ctx ctx;
  Workspace ws(rt_mlp_workspace_size());
  nunc_status status = rt_mlp_init(&ctx, ws.p, nullptr);
  unsetenv("NUNC_CPU_FEATURES_OVERRIDE");
  EXPECT_EQ(status, NUNC_ERR_UNSUPPORTED_CPU);
  std::string detail = rt_mlp_error_detail(&ctx) ? rt_mlp_error_detail(&ctx) : "";
  EXPECT_NE(detail.find("the CPU lacks: avx2 fma"), std::string::npos) << detail;
  EXPECT_STREQ(nunc_status_str(status), "the CPU lacks features the model was compiled for");
  // With the real CPU it works.
  EXPECT_EQ(rt_mlp_init(&ctx, ws.p, nullptr), NUNC_OK);
  rt_mlp_destroy(&ctx);
}

struct Region {
  std::atomic<int> runs[16] = {};
};

int32_t countRun(const void *const *args, int64_t i, int64_t) {
  static_cast<Region *>(const_cast<void *>(args[0]))->runs[i].fetch_add(1);
  return 0;
}

// Regions in quick succession, small then large: a worker that wakes late for
// a region the caller already finished alone must not enter it (it would
// take the next region's task indices with the old region's task and count,
// leaving tasks unrun and the caller waiting for ever). Every task of every
// region runs exactly once; a watchdog turns a hang into a failure. The
// pinned run puts all three threads on one CPU (workers inherit the caller's
// affinity): every wait then has to give the core away (sched_yield, the
// condition variable) for the thread it waits on to run.
class ThreadPool : public testing::TestWithParam<bool> {};

TEST_P(ThreadPool, RunsEveryTaskOfEveryRegionOnce) {
  bool pinned = GetParam();
  cpu_set_t before;
  ASSERT_EQ(sched_getaffinity(0, sizeof before, &before), 0);
  if (pinned) {
    cpu_set_t one;
    CPU_ZERO(&one);
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
      if (CPU_ISSET(cpu, &before)) {
        CPU_SET(cpu, &one);
        break;
      }
    ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);
  }
  alignas(64) static unsigned char weights[64];
  static nunc_rt_ctx ctx;
  nunc_options opt = {};
  opt.num_threads = 3;
  ASSERT_EQ(rt_mlp_rt_init(&ctx, nullptr, 0, weights, &opt, 0), NUNC_OK);
  struct Watchdog {
    std::atomic<bool> done{false};
    std::thread thread{[this] {
      for (int i = 0; i < 300 && !done; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      if (!done) {
        std::fprintf(stderr, "the thread pool hung\n");
        std::abort();
      }
    }};
    ~Watchdog() {
      done = true;
      thread.join();
    }
  } watchdog;
  for (int region = 0; region < (pinned ? 20000 : 100000); ++region) {
    int n = region % 2 ? 2 : 16;
    Region r;
    const void *args[] = {&r};
    ASSERT_EQ(rt_mlp_rt_parallel(&ctx, n, countRun, args), 0);
    for (int i = 0; i < 16; ++i)
      ASSERT_EQ(r.runs[i].load(), i < n ? 1 : 0) << "region " << region << ", task " << i;
  }
  rt_mlp_rt_destroy(&ctx);
  ASSERT_EQ(sched_setaffinity(0, sizeof before, &before), 0);
}

INSTANTIATE_TEST_SUITE_P(Runtime, ThreadPool, testing::Values(false, true),
                         [](const testing::TestParamInfo<bool> &info) {
                           return info.param ? "OnOneCpu" : "Free";
                         });

} // namespace
