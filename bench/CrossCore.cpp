//===- CrossCore.cpp - what moving data between two cores costs -----------===//
//
// Two threads on CPUs 0 and 1 (or the first two this process may use):
// the round trip of one cache line bounced between them, and the rate at
// which one core reads 4 MB the other has just written. On a VM both can
// change while it runs (the host moving the vCPUs apart: ~60 ns and ~95
// GB/s became ~330 ns and ~30 GB/s on the CI machine kind), and with them
// every 2-thread latency; bench/run.py records them beside its 2-thread rows.
// Prints "rtt_ns <n>" and "read_gbs <n>".
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <thread>
#include <vector>

#include <sched.h>

namespace {

void pinTo(int nth) {
  cpu_set_t allowed, one;
  sched_getaffinity(0, sizeof allowed, &allowed);
  CPU_ZERO(&one);
  for (int cpu = 0, seen = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &allowed) && seen++ == nth) {
      CPU_SET(cpu, &one);
      break;
    }
  sched_setaffinity(0, sizeof one, &one);
}

double seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

} // namespace

int main() {
  constexpr int64_t kBounces = 200000, kWords = 1 << 19, kRounds = 20;
  alignas(64) static std::atomic<int64_t> line{0};
  alignas(64) static std::atomic<int64_t> phase{0};
  std::vector<uint64_t> data(kWords);
  uint64_t sink = 0;
  std::thread other([&] {
    pinTo(1);
    for (int64_t i = 1; i < 2 * kBounces; i += 2) {
      while (line.load(std::memory_order_acquire) != i) {
      }
      line.store(i + 1, std::memory_order_release);
    }
    uint64_t acc[4] = {};
    for (int64_t r = 0; r < kRounds; ++r) {
      while (phase.load(std::memory_order_acquire) != 2 * r + 1) {
      }
      for (int64_t i = 0; i < kWords; i += 4)
        for (int j = 0; j < 4; ++j)
          acc[j] ^= data[i + j];
      phase.store(2 * r + 2, std::memory_order_release);
    }
    sink = acc[0] ^ acc[1] ^ acc[2] ^ acc[3];
  });
  pinTo(0);
  double t0 = seconds();
  for (int64_t i = 0; i < 2 * kBounces; i += 2) {
    line.store(i + 1, std::memory_order_release);
    while (line.load(std::memory_order_acquire) != i + 2) {
    }
  }
  double rtt = (seconds() - t0) / kBounces;
  double best = 1e9;
  for (int64_t r = 0; r < kRounds; ++r) {
    for (int64_t i = 0; i < kWords; ++i)
      data[i] = i * 2654435761u + r;
    double a = seconds();
    phase.store(2 * r + 1, std::memory_order_release);
    while (phase.load(std::memory_order_acquire) != 2 * r + 2) {
    }
    best = std::min(best, seconds() - a);
  }
  other.join();
  std::printf("rtt_ns %.0f\nread_gbs %.1f\n", rtt * 1e9, kWords * 8 / best / 1e9 + 0 * sink);
  return 0;
}
