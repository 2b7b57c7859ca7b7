//===- KernelCall.h - what the glue calls for each step ---------*- C++ -*-===//

#ifndef NUNC_CODEGEN_KERNELCALL_H
#define NUNC_CODEGEN_KERNELCALL_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/xxhash.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace mlir::nunc {

/// A pointer the glue passes to a kernel: a planned storage, or a byte
/// offset into the weights blob (constants a kernel re-laid out).
struct KernelArg {
  enum Kind { Storage, Blob } kind = Storage;
  int64_t value = 0;
  /// Bytes into the storage (a kernel's scratch split in parts).
  int64_t offset = 0;
  static KernelArg storage(int s, int64_t offset = 0) { return {Storage, s, offset}; }
  static KernelArg blob(int64_t offset) { return {Blob, offset, 0}; }
};

/// One step of the run function:
///   int32_t symbol(const void *const *args, int64_t task)
/// called for every task in [0, tasks), in parallel when tasks > 1.
struct KernelCall {
  std::string symbol;
  int64_t tasks = 1;
  std::vector<KernelArg> args;
  std::string description;  // for the manifest and --explain
  bool generic = false;      // took the generic (MLIR loops) path
  std::string errorMessage;  // what a nonzero task result means
  /// Calls made before this one for the same step (e.g. im2col packing).
  std::vector<KernelCall> prelude;
};

/// The weights blob: constants (as is, or re-laid out by a kernel), each at
/// a 64-byte aligned offset. Its buffer starts with room for an ELF header,
/// so that it becomes the weights' object file in place (weightsObject)
/// instead of through a copy of the largest thing the compiler holds.
/// Bytes added twice are stored once: the steps of an unrolled LSTM share
/// one packed recurrent weight (80 steps made 80 copies, 21 MB for 256 KB,
/// each step reading its own from memory).
class WeightBlob {
public:
  static constexpr int64_t kHeaderBytes = 64;
  int64_t add(const char *data, int64_t size) {
    llvm::ArrayRef<uint8_t> content(reinterpret_cast<const uint8_t *>(data), size);
    std::vector<std::pair<int64_t, int64_t>> &same = added[llvm::xxh3_64bits(content)];
    for (auto [offset, bytesThere] : same)
      if (bytesThere == size && std::memcmp(this->data().data() + offset, data, size) == 0)
        return offset;
    int64_t offset = (this->size() + 63) / 64 * 64;
    bytes.resize(kHeaderBytes + offset);
    bytes.append(data, size);
    same.push_back({offset, size});
    return offset;
  }
  /// Zero-fills to a multiple of `align` bytes.
  void padTo(int64_t align) {
    bytes.resize(kHeaderBytes + (size() + align - 1) / align * align);
  }
  llvm::StringRef data() const { return llvm::StringRef(bytes).drop_front(kHeaderBytes); }
  int64_t size() const { return static_cast<int64_t>(bytes.size()) - kHeaderBytes; }
  /// The buffer: kHeaderBytes of room, then the data. The blob is empty after.
  std::string take() {
    std::string out = std::move(bytes);
    bytes.assign(kHeaderBytes, '\0');
    added.clear();
    return out;
  }

private:
  std::string bytes = std::string(kHeaderBytes, '\0');
  /// Content hash -> (offset, size) of what was added with it.
  llvm::DenseMap<uint64_t, std::vector<std::pair<int64_t, int64_t>>> added;
};

} // namespace mlir::nunc

#endif // NUNC_CODEGEN_KERNELCALL_H
