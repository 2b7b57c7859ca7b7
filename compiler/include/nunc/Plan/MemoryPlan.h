//===- MemoryPlan.h - bufferization and the static memory plan --*- C++ -*-===//
//
// After fusion, @main is a straight-line sequence of ops on static tensors.
// The plan gives every tensor a place: a graph input, a graph output buffer,
// the weights blob (constants), or a slice of one arena whose offsets come
// from liveness (greedy by size, best fit). View ops (Reshape, Flatten,
// Squeeze, Unsqueeze, Identity) alias their operand; a Slice whose part is
// one 64-byte aligned run of its arena operand's bytes (the gates of a
// batch-1 LSTM step) is a view at an offset. Kernels may ask for
// scratch memory that lives for their step only. The arena size is known at
// compile time; nothing is allocated when the model runs.
//
//===----------------------------------------------------------------------===//

#ifndef NUNC_PLAN_MEMORYPLAN_H
#define NUNC_PLAN_MEMORYPLAN_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/raw_ostream.h"

#include <vector>

namespace mlir::nunc {

/// Byte alignment of every arena slice and weight.
constexpr int64_t kPlanAlignment = 64;

enum class StorageKind { Arena, Weight, Input, Output };

/// One piece of memory: several values (a tensor and its views) may share it.
struct Storage {
  StorageKind kind = StorageKind::Arena;
  int64_t bytes = 0;
  /// Arena: byte offset from the plan; Input/Output: argument index;
  /// Weight: index into MemoryPlan::constants.
  int64_t index = 0;
  /// Steps during which the storage must hold its data (inclusive).
  int firstStep = 0, lastStep = 0;
  /// A contiguous Slice's view: the arena storage it lies in (or -1) and
  /// its byte offset there; its `index` is the parent's plus that offset.
  int parent = -1;
  int64_t parentOffset = 0;
};

/// A computation: one op of @main (not a constant or a view).
struct Step {
  Operation *op = nullptr;
  /// Storage of each operand and result, in order.
  llvm::SmallVector<int, 4> operands, results;
  /// Scratch storage the kernel asked for (or -1).
  int scratch = -1;
  /// The result overwrites operand `inPlaceOperand` (or -1).
  int inPlaceOperand = -1;
  /// Storage the kernel writes beside its first result, live as long as
  /// that result (or -1): the partial ranges an int8 convolution reading
  /// the result takes instead of measuring them itself.
  int resultSidecar = -1;
};

/// Copies appended after the last step, for graph outputs that are not
/// computed into their buffer (an input, a constant, or a value returned
/// twice).
struct OutputCopy {
  int from = 0;       // storage
  int64_t output = 0; // output index
  int64_t bytes = 0;
};

struct MemoryPlan {
  func::FuncOp func;
  std::vector<Storage> storages;
  std::vector<Step> steps;
  std::vector<OutputCopy> copies;
  /// The constant ops behind Weight storages.
  std::vector<Operation *> constants;
  llvm::DenseMap<Value, int> storageOf;
  int64_t arenaBytes = 0;

  /// Prints the plan: every step with where its operands and results live.
  void print(llvm::raw_ostream &os) const;
};

/// Asks how much scratch memory a step's kernel needs (0 for none).
using ScratchQuery = llvm::function_ref<int64_t(Operation *)>;
/// Asks how many bytes a step's kernel writes beside its first result, to
/// be read with it (0 for none).
using SidecarQuery = llvm::function_ref<int64_t(Operation *)>;
/// Asks which operands a step's kernel may overwrite with its first
/// result: it reads each element of that operand before writing the result
/// element at the same place.
using InPlaceQuery = llvm::function_ref<llvm::SmallVector<unsigned>(Operation *)>;

/// Emits one error at `func` that names every graph input whose shape is
/// not static, with its dims (symbolic ones by name).
LogicalResult requireStaticInputs(func::FuncOp func);

/// Builds the plan for `func`, whose tensors must all be static. Emits an
/// error at the first tensor that is not. A result takes over the storage of
/// an operand the kernel may overwrite when that operand dies at this step
/// and has the same size (in place).
FailureOr<MemoryPlan> planMemory(func::FuncOp func, ScratchQuery scratch,
                                 InPlaceQuery inPlace = {}, SidecarQuery sidecar = {});

/// Lays out `sizes` with lifetimes [first, last] (inclusive step indices) in
/// one arena: no two storages that are live at the same step overlap.
/// Greedy by size, each at the lowest offset that fits. Returns the arena
/// size; offsets are written to `offsets`.
int64_t assignOffsets(llvm::ArrayRef<int64_t> sizes, llvm::ArrayRef<std::pair<int, int>> lives,
                      llvm::SmallVectorImpl<int64_t> &offsets);

} // namespace mlir::nunc

#endif // NUNC_PLAN_MEMORYPLAN_H
