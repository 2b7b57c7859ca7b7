//===- MemoryPlan.cpp - bufferization and the static memory plan ----------===//

#include "nunc/Plan/MemoryPlan.h"

#include "nunc/Dialect/Nunc/NuncOps.h"
#include "nunc/Dialect/Nunc/NuncUtils.h"
#include "nunc/Dialect/Nunc/ShapeHelpers.h"
#include "nunc/Interpreter/Tensor.h"

#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <climits>
#include <numeric>

using namespace mlir;
using namespace mlir::nunc;

static int64_t alignUp(int64_t v) {
  return (v + kPlanAlignment - 1) / kPlanAlignment * kPlanAlignment;
}

/// Ops whose result is their operand's bytes under another shape.
static bool isView(Operation *op) {
  // quant.scast reinterprets storage as a quantized type: same bytes.
  return isa<ReshapeOp, FlattenOp, SqueezeOp, UnsqueezeOp, IdentityOp, quant::StorageCastOp>(op);
}

/// The byte offset of a Slice's part in its operand when the part is one
/// contiguous, 64-byte aligned run of the operand's bytes (constant bounds,
/// unit steps; dims before the first cut one of size 1 in the part, dims
/// after it whole), else none.
static std::optional<int64_t> contiguousSliceOffset(SliceOp slice) {
  auto in = dyn_cast<RankedTensorType>(slice.getData().getType());
  auto out = dyn_cast<RankedTensorType>(slice.getType());
  if (!in || !out || !in.hasStaticShape() || !out.hasStaticShape() || out.getNumElements() == 0)
    return std::nullopt;
  std::optional<SmallVector<int64_t>> starts = getConstantInts(slice.getStarts());
  std::optional<SmallVector<int64_t>> axes =
      slice.getAxes() ? getConstantInts(slice.getAxes()) : std::nullopt;
  std::optional<SmallVector<int64_t>> steps =
      slice.getSteps() ? getConstantInts(slice.getSteps()) : std::nullopt;
  const int64_t rank = in.getRank();
  if (!starts || (slice.getAxes() && !axes) || (slice.getSteps() && !steps) ||
      (steps && llvm::any_of(*steps, [](int64_t s) { return s != 1; })))
    return std::nullopt;
  // Where each dim's part begins (clamped as Slice clamps it).
  SmallVector<int64_t> begin(rank, 0);
  for (auto [i, start] : llvm::enumerate(*starts)) {
    int64_t axis = axes ? (*axes)[i] : static_cast<int64_t>(i);
    if (axis < 0)
      axis += rank;
    if (axis < 0 || axis >= rank)
      return std::nullopt;
    int64_t dim = in.getDimSize(axis);
    begin[axis] = std::clamp<int64_t>(start < 0 ? start + dim : start, 0, dim);
  }
  int64_t firstCut = rank;
  for (int64_t d = 0; d < rank; ++d)
    if (out.getDimSize(d) != in.getDimSize(d)) {
      firstCut = d;
      break;
    }
  for (int64_t d = 0; d < rank; ++d) {
    if (d < firstCut && out.getDimSize(d) != 1 && in.getDimSize(d) != 1)
      return std::nullopt;
    if (d > firstCut && out.getDimSize(d) != in.getDimSize(d))
      return std::nullopt;
  }
  int64_t offset = 0, stride = getElementByteWidth(in.getElementType());
  for (int64_t d = rank - 1; d >= 0; --d) {
    offset += begin[d] * stride;
    stride *= in.getDimSize(d);
  }
  if (offset % kPlanAlignment != 0)
    return std::nullopt;
  return offset;
}

int64_t mlir::nunc::assignOffsets(ArrayRef<int64_t> sizes, ArrayRef<std::pair<int, int>> lives,
                                  SmallVectorImpl<int64_t> &offsets) {
  size_t n = sizes.size();
  offsets.assign(n, 0);
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  // Largest first; ties by earlier start, then index, so plans are stable.
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (sizes[a] != sizes[b])
      return sizes[a] > sizes[b];
    return lives[a].first < lives[b].first;
  });
  std::vector<size_t> placed;
  int64_t total = 0;
  for (size_t i : order) {
    int64_t size = alignUp(std::max<int64_t>(sizes[i], 1));
    // Intervals taken by placed storages that are alive at the same time.
    SmallVector<std::pair<int64_t, int64_t>> taken;
    for (size_t j : placed)
      if (lives[j].first <= lives[i].second && lives[i].first <= lives[j].second)
        taken.push_back({offsets[j], offsets[j] + alignUp(std::max<int64_t>(sizes[j], 1))});
    llvm::sort(taken);
    // Best fit: the smallest gap that holds it, else after the last.
    int64_t best = -1, bestGap = INT64_MAX, cursor = 0;
    for (auto [start, end] : taken) {
      if (start - cursor >= size && start - cursor < bestGap) {
        best = cursor;
        bestGap = start - cursor;
      }
      cursor = std::max(cursor, end);
    }
    if (best < 0)
      best = cursor;
    offsets[i] = best;
    total = std::max(total, best + size);
    placed.push_back(i);
  }
  return total;
}

/// Says where the dynamic result shape of an operation with static operands
/// comes from: an integer operand (axes, pads, a shape, a count) that is no
/// constant, or the values of a lone operand (NonZero's data, a shape).
static void describeRunTimeShape(InFlightDiagnostic &d, Operation *producer) {
  bool lone = producer->getNumOperands() == 1;
  for (auto [i, operand] : llvm::enumerate(producer->getOperands())) {
    auto type = cast<RankedTensorType>(operand.getType());
    if ((!lone && (i == 0 || !type.getElementType().isInteger())) ||
        matchPattern(operand, m_Constant()))
      continue;
    d << " (its shape follows from the values of ";
    if (auto arg = dyn_cast<BlockArgument>(operand)) {
      auto func = cast<func::FuncOp>(arg.getOwner()->getParentOp());
      auto name = func.getArgAttrOfType<StringAttr>(arg.getArgNumber(), "nunc.name");
      d << "graph input '" << (name ? name.getValue() : "?") << "'";
    } else if (SmallVector<std::string> nodes = onnxNodeNames(operand.getLoc());
               !nodes.empty()) {
      d << "the output of node \"" << nodes.front() << "\"";
    } else {
      d << "a computed tensor";
    }
    d << ", which are known only at run time: they must be constants when compiling, or "
         "follow from the pinned dims)";
    return;
  }
}

LogicalResult mlir::nunc::requireStaticInputs(func::FuncOp func) {
  Block &body = func.getBody().front();
  SmallVector<std::string> dynamicInputs;
  for (auto [i, arg] : llvm::enumerate(body.getArguments())) {
    auto t = dyn_cast<RankedTensorType>(arg.getType());
    if (t && t.hasStaticShape())
      continue;
    auto name = func.getArgAttrOfType<StringAttr>(i, "nunc.name");
    auto dimNames = func.getArgAttrOfType<ArrayAttr>(i, "nunc.dim_names");
    std::string text = name ? name.str() : llvm::formatv("#{0}", i).str();
    if (t) {
      SmallVector<std::string> dims;
      for (auto [d, size] : llvm::enumerate(t.getShape())) {
        StringAttr dn = dimNames && d < dimNames.size()
                            ? dyn_cast<StringAttr>(dimNames[d]) : StringAttr();
        dims.push_back(!ShapedType::isDynamic(size) ? std::to_string(size)
                       : dn && !dn.getValue().empty() ? dn.str()
                                                      : "?");
      }
      text += " [" + llvm::join(dims, ", ") + "]";
    }
    dynamicInputs.push_back(text);
  }
  if (!dynamicInputs.empty())
    return func.emitError() << "every graph input needs a static shape to compile; pin "
                            << (dynamicInputs.size() == 1 ? "this one" : "these")
                            << " with --shape NAME=DIMS (e.g. 1x128): "
                            << llvm::join(dynamicInputs, ", ");
  return success();
}

FailureOr<MemoryPlan> mlir::nunc::planMemory(func::FuncOp func, ScratchQuery scratch,
                                             InPlaceQuery inPlace, SidecarQuery sidecar) {
  MemoryPlan plan;
  plan.func = func;
  Block &body = func.getBody().front();

  // The last step that reads each value (views count for the value they
  // view; returned values live to the end). A contiguous Slice of a
  // computed value (one in the arena: not a graph input or constant) is a
  // view at an offset, decided here once for both passes.
  llvm::DenseSet<Operation *> sliceViews;
  auto rootOf = [&](Value v) {
    while (Operation *def = v.getDefiningOp()) {
      if (!isView(def) && !sliceViews.contains(def))
        break;
      v = def->getOperand(0);
    }
    return v;
  };
  for (Operation &op : body.without_terminator())
    if (auto slice = dyn_cast<SliceOp>(op))
      if (contiguousSliceOffset(slice)) {
        Value root = rootOf(slice.getData());
        if (root.getDefiningOp() && !isa<ConstantOp>(root.getDefiningOp()))
          sliceViews.insert(&op);
      }
  llvm::DenseMap<Value, int> lastUse;
  {
    int index = 0;
    for (Operation &op : body.without_terminator()) {
      if (isa<ConstantOp>(op) || isView(&op) || sliceViews.contains(&op))
        continue;
      for (Value v : op.getOperands())
        lastUse[rootOf(v)] = index;
      ++index;
    }
    for (Value v : body.getTerminator()->getOperands())
      lastUse[rootOf(v)] = INT_MAX;
  }

  auto bytesOf = [](Value v) -> int64_t {
    auto t = cast<RankedTensorType>(v.getType());
    return t.getNumElements() * getElementByteWidth(t.getElementType());
  };
  // Static, and small enough that the arena (int64 byte offsets) can be
  // allocated: the largest tensor the evaluator accepts.
  auto requireStatic = [&](Value v, Operation *where) -> LogicalResult {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    const char *why = "every dim must be static";
    if (t && t.hasStaticShape()) {
      std::optional<int64_t> n = shape::numElements(t.getShape());
      int64_t bytes;
      if (n && !__builtin_mul_overflow(*n, getElementByteWidth(t.getElementType()), &bytes) &&
          bytes <= kMaxTensorBytes)
        return success();
      why = "it exceeds 8 GiB";
    }
    InFlightDiagnostic d = where ? where->emitError() : func.emitError();
    d << "cannot compile a tensor of type " << v.getType() << ": " << why;
    // Sizes that come from run-time values, not from the pinned dims.
    Operation *producer = v.getDefiningOp();
    if (isa_and_nonnull<RangeOp>(producer))
      d << " (Range's length follows from its start, limit and delta, which must be "
           "constants when compiling, or follow from the pinned dims)";
    else if (auto slice = dyn_cast_or_null<SliceOp>(producer);
             slice && (!matchPattern(slice.getStarts(), m_Constant()) ||
                       !matchPattern(slice.getEnds(), m_Constant())))
      d << " (its Slice's bounds, e.g. a Split's sizes, are run-time values; they must be "
           "constants when compiling, or follow from the pinned dims)";
    else if (isa_and_nonnull<ResizeOp>(producer))
      d << " (Resize's scales, sizes and roi must be constants when compiling, or follow "
           "from the pinned dims)";
    else if (isa_and_nonnull<Col2ImOp>(producer))
      d << " (Col2Im's image_shape and block_shape must be constants when compiling)";
    else if (producer && !(t && t.hasStaticShape()) &&
             llvm::all_of(producer->getOperandTypes(), [](Type ot) {
               auto rt = dyn_cast<RankedTensorType>(ot);
               return rt && rt.hasStaticShape();
             }))
      describeRunTimeShape(d, producer);
    return failure();
  };
  llvm::DenseSet<int> aliased; // Slice views and the storages they lie in
  auto newStorage = [&](StorageKind kind, int64_t bytes, int64_t index, int step) {
    plan.storages.push_back({kind, bytes, index, step, step});
    return (int)plan.storages.size() - 1;
  };

  if (failed(requireStaticInputs(func)))
    return failure();
  for (auto [i, arg] : llvm::enumerate(body.getArguments())) {
    if (failed(requireStatic(arg, nullptr)))
      return failure();
    plan.storageOf[arg] = newStorage(StorageKind::Input, bytesOf(arg), i, 0);
  }

  auto returnOp = cast<func::ReturnOp>(body.getTerminator());
  for (Operation &op : body.without_terminator()) {
    for (Value r : op.getResults())
      if (failed(requireStatic(r, &op)))
        return failure();
    if (isa<ConstantOp>(op)) {
      plan.constants.push_back(&op);
      plan.storageOf[op.getResult(0)] =
          newStorage(StorageKind::Weight, bytesOf(op.getResult(0)),
                     plan.constants.size() - 1, 0);
      continue;
    }
    if (isView(&op)) {
      plan.storageOf[op.getResult(0)] = plan.storageOf.lookup(op.getOperand(0));
      continue;
    }
    int stepIndex = plan.steps.size();
    if (sliceViews.contains(&op)) {
      auto slice = cast<SliceOp>(op);
      int whole = plan.storageOf.lookup(slice.getData());
      int root = plan.storages[whole].parent >= 0 ? plan.storages[whole].parent : whole;
      int64_t at = plan.storages[whole].parentOffset + *contiguousSliceOffset(slice);
      int part = newStorage(StorageKind::Arena, bytesOf(slice.getResult()), 0, stepIndex);
      plan.storages[part].parent = root;
      plan.storages[part].parentOffset = at;
      plan.storageOf[slice.getResult()] = part;
      aliased.insert(root);
      aliased.insert(part);
      continue;
    }
    Step step;
    step.op = &op;
    for (Value v : op.getOperands()) {
      int s = plan.storageOf.lookup(v);
      step.operands.push_back(s);
      plan.storages[s].lastStep = std::max(plan.storages[s].lastStep, stepIndex);
    }
    // In place: the result takes over a dying operand's arena storage.
    if (inPlace && op.getNumResults() >= 1)
      for (unsigned k : inPlace(&op)) {
        Value operand = op.getOperand(k);
        int s = plan.storageOf.lookup(operand);
        Storage &st = plan.storages[s];
        // (A kernel reads each element before writing the one at its place,
        // not before writing others: a storage that overlaps another, a
        // Slice view or one with views in it, is not overwritten in place.)
        if (st.kind != StorageKind::Arena || st.bytes != bytesOf(op.getResult(0)) ||
            lastUse.lookup(rootOf(operand)) != stepIndex || aliased.contains(s))
          continue;
        // Another operand in the same storage would be read after it is
        // overwritten (a GEMM reads its input rows for every column tile).
        bool shared = false;
        for (unsigned j = 0; j < op.getNumOperands(); ++j)
          shared |= j != k && plan.storageOf.lookup(op.getOperand(j)) == s;
        if (shared)
          continue;
        step.inPlaceOperand = k;
        plan.storageOf[op.getResult(0)] = s;
        step.results.push_back(s);
        break;
      }
    for (Value r : op.getResults().drop_front(step.results.size())) {
      int s = newStorage(StorageKind::Arena, bytesOf(r), 0, stepIndex);
      plan.storageOf[r] = s;
      step.results.push_back(s);
    }
    if (int64_t bytes = scratch(&op)) {
      // A deliberate limit, the largest tensor's: scratch past it has so
      // far only come from a size computed from something other than the
      // data (a stride past the plane once asked for 3.8 TB, which the
      // library then could not allocate).
      if (bytes < 0 || bytes > kMaxTensorBytes)
        return op.emitError() << "its kernel asks for " << bytes
                              << " bytes of scratch, more than the 8 GiB of the largest "
                                 "tensor nunc compiles";
      step.scratch = newStorage(StorageKind::Arena, bytes, 0, stepIndex);
    }
    if (int64_t bytes = sidecar && op.getNumResults() ? sidecar(&op) : 0)
      step.resultSidecar = newStorage(StorageKind::Arena, bytes, 0, stepIndex);
    plan.steps.push_back(step);
  }

  // Graph outputs: computed storages are written straight into the caller's
  // buffer; anything else (an input, a constant, a second return of the same
  // storage) is copied there at the end.
  int last = plan.steps.size();
  llvm::DenseSet<int> claimed;
  for (auto [j, v] : llvm::enumerate(returnOp.getOperands())) {
    if (failed(requireStatic(v, returnOp)))
      return failure();
    int s = plan.storageOf.lookup(v);
    Storage &st = plan.storages[s];
    // (A view at an offset, or a storage with such views, stays in the arena.)
    if (st.kind == StorageKind::Arena && !aliased.contains(s) && claimed.insert(s).second) {
      st.kind = StorageKind::Output;
      st.index = j;
      continue;
    }
    st.lastStep = std::max(st.lastStep, last);
    plan.copies.push_back({s, (int64_t)j, bytesOf(v)});
  }

  // A sidecar lives as long as its result (whose last reader is known now).
  for (const Step &step : plan.steps)
    if (step.resultSidecar >= 0)
      plan.storages[step.resultSidecar].lastStep =
          std::max(plan.storages[step.resultSidecar].lastStep,
                   plan.storages[step.results[0]].lastStep);

  // A view at an offset keeps the storage it lies in alive.
  for (const Storage &st : plan.storages)
    if (st.parent >= 0)
      plan.storages[st.parent].lastStep =
          std::max(plan.storages[st.parent].lastStep, st.lastStep);

  // Arena offsets from liveness.
  SmallVector<int64_t> sizes, offsets;
  SmallVector<std::pair<int, int>> lives;
  SmallVector<int> arena;
  for (auto [i, st] : llvm::enumerate(plan.storages))
    if (st.kind == StorageKind::Arena && st.parent < 0) {
      arena.push_back(i);
      sizes.push_back(st.bytes);
      lives.push_back({st.firstStep, st.lastStep});
    }
  plan.arenaBytes = assignOffsets(sizes, lives, offsets);
  for (auto [k, i] : llvm::enumerate(arena))
    plan.storages[i].index = offsets[k];
  for (Storage &st : plan.storages)
    if (st.parent >= 0)
      st.index = plan.storages[st.parent].index + st.parentOffset;
  return plan;
}

void MemoryPlan::print(llvm::raw_ostream &os) const {
  auto where = [&](int s) {
    const Storage &st = storages[s];
    switch (st.kind) {
    case StorageKind::Arena:
      return llvm::formatv("arena[{0}, +{1})", st.index, st.bytes).str();
    case StorageKind::Weight:
      return llvm::formatv("weight#{0}({1} B)", st.index, st.bytes).str();
    case StorageKind::Input:
      return llvm::formatv("input#{0}", st.index).str();
    case StorageKind::Output:
      return llvm::formatv("output#{0}", st.index).str();
    }
    return std::string("?");
  };
  os << "memory plan: arena " << arenaBytes << " bytes, " << steps.size() << " steps, "
     << constants.size() << " constants\n";
  for (auto [i, step] : llvm::enumerate(steps)) {
    os << llvm::formatv("  step {0,3}: {1}", i, step.op->getName().getStringRef());
    os << " (";
    for (auto [k, s] : llvm::enumerate(step.operands))
      os << (k ? ", " : "") << where(s);
    os << ") -> (";
    for (auto [k, s] : llvm::enumerate(step.results))
      os << (k ? ", " : "") << where(s);
    os << ")";
    if (step.inPlaceOperand >= 0)
      os << " in place of operand " << step.inPlaceOperand;
    if (step.scratch >= 0)
      os << " scratch " << where(step.scratch);
    if (step.resultSidecar >= 0)
      os << " sidecar " << where(step.resultSidecar);
    os << "  ; " << describeLocation(step.op->getLoc()) << "\n";
  }
  for (const OutputCopy &c : copies)
    os << "  copy " << where(c.from) << " -> output#" << c.output << " (" << c.bytes
       << " B)\n";
}
