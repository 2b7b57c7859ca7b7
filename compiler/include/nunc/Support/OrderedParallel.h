//===- OrderedParallel.h - parallel work consumed in order ------*- C++ -*-===//
//
// Calibration and the accuracy report evaluate the model once per sample;
// the samples are independent, but what is summed over them (ranges,
// histograms, error sums in double) must come out the same whatever the
// thread count. forEachInOrder runs `produce` for several items at once and
// hands the results to `consume` one by one in item order, on the calling
// thread.
//
//===----------------------------------------------------------------------===//

#ifndef NUNC_SUPPORT_ORDEREDPARALLEL_H
#define NUNC_SUPPORT_ORDEREDPARALLEL_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace mlir::nunc {

/// produce(i) for i in [0, count) on up to `threads` threads (at most
/// threads + 1 results held at once: a result can be large, a sample's
/// observed tensors), consume(i, result) in order on this thread; stops
/// producing at the first error consume returns, and returns it. `produce`
/// must be safe to run concurrently with itself.
template <typename T>
llvm::Error forEachInOrder(size_t count, unsigned threads,
                           llvm::function_ref<T(size_t)> produce,
                           llvm::function_ref<llvm::Error(size_t, T &)> consume) {
  threads = static_cast<unsigned>(std::clamp<size_t>(threads, 1, std::max<size_t>(count, 1)));
  if (threads == 1) {
    for (size_t i = 0; i < count; ++i) {
      T result = produce(i);
      if (llvm::Error e = consume(i, result))
        return e;
    }
    return llvm::Error::success();
  }
  const size_t window = static_cast<size_t>(threads) + 1;
  std::vector<std::optional<T>> results(count);
  std::mutex mutex;
  std::condition_variable changed;
  size_t next = 0, consumed = 0;
  bool stop = false;
  auto work = [&] {
    std::unique_lock<std::mutex> lock(mutex);
    while (true) {
      changed.wait(lock, [&] { return stop || next >= count || next < consumed + window; });
      if (stop || next >= count)
        return;
      const size_t i = next++;
      lock.unlock();
      T result = produce(i);
      lock.lock();
      results[i] = std::move(result);
      changed.notify_all();
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back(work);
  auto finish = [&] {
    {
      std::lock_guard<std::mutex> lock(mutex);
      stop = true;
      changed.notify_all();
    }
    for (std::thread &t : pool)
      t.join();
  };
  for (size_t i = 0; i < count; ++i) {
    std::optional<T> result;
    {
      std::unique_lock<std::mutex> lock(mutex);
      changed.wait(lock, [&] { return results[i].has_value(); });
      result = std::move(results[i]);
      results[i].reset();
    }
    if (llvm::Error e = consume(i, *result)) {
      finish();
      return e;
    }
    std::lock_guard<std::mutex> lock(mutex);
    consumed = i + 1;
    changed.notify_all();
  }
  finish();
  return llvm::Error::success();
}

} // namespace mlir::nunc

#endif // NUNC_SUPPORT_ORDEREDPARALLEL_H
