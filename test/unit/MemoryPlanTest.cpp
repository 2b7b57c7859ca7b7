//===- MemoryPlanTest.cpp - arena offsets from liveness -------------------===//

#include "nunc/Dialect/Nunc/NuncOps.h"
#include "nunc/Pipeline/Pipeline.h"
#include "nunc/Plan/MemoryPlan.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

#include <map>
#include <random>

using namespace mlir;
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

/// A random graph of elementwise ops, views and a few returned values, on
/// tensors of 4x8 (viewed as 32) floats.
std::string randomGraph(std::mt19937 &rng) {
  struct Val {
    std::string name;
    bool flat;
  };
  std::vector<Val> vals = {{"%a", false}, {"%b", false}};
  std::string body = "  %s32 = nunc.constant dense<[32]> : tensor<1xi64>\n"
                     "  %s48 = nunc.constant dense<[4, 8]> : tensor<2xi64>\n";
  auto type = [](bool flat) { return flat ? "tensor<32xf32>" : "tensor<4x8xf32>"; };
  auto pick = [&](std::optional<bool> flat) {
    for (;;) {
      const Val &v = vals[rng() % vals.size()];
      if (!flat || v.flat == *flat)
        return v;
    }
  };
  int n = 2 + rng() % 25;
  for (int i = 0; i < n; ++i) {
    std::string r = "%v" + std::to_string(i);
    int kind = rng() % 5;
    if (kind == 0) {
      Val x = pick(std::nullopt);
      const char *op[] = {"nunc.relu", "nunc.sigmoid", "nunc.tanh"};
      body += "  " + r + " = " + op[rng() % 3] + " " + x.name + " : " + type(x.flat) + " -> " +
              type(x.flat) + "\n";
      vals.push_back({r, x.flat});
    } else if (kind <= 2) {
      Val x = pick(std::nullopt);
      Val y = pick(x.flat);
      const char *op[] = {"nunc.add", "nunc.mul", "nunc.sub"};
      std::string t = type(x.flat);
      body += "  " + r + " = " + op[rng() % 3] + " " + x.name + ", " + y.name + " : (" + t +
              ", " + t + ") -> " + t + "\n";
      vals.push_back({r, x.flat});
    } else {
      Val x = pick(std::nullopt);
      body += "  " + r + " = nunc.reshape " + x.name + ", " + (x.flat ? "%s48" : "%s32") +
              " : (" + type(x.flat) + (x.flat ? ", tensor<2xi64>) -> " : ", tensor<1xi64>) -> ") +
              type(!x.flat) + "\n";
      vals.push_back({r, !x.flat});
    }
  }
  std::vector<Val> results = {vals.back()};
  if (rng() % 2)
    results.push_back(vals[rng() % vals.size()]);
  std::string names, types;
  for (size_t i = 0; i < results.size(); ++i) {
    names += (i ? ", " : "") + results[i].name;
    types += std::string(i ? ", " : "") + type(results[i].flat);
  }
  return "func.func @main(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> (" + types + ") {\n" +
         body + "  return " + names + " : " + types + "\n}\n";
}

/// Runs the plan symbolically: memory holds, per byte of each region, the
/// value last written there. Every step must find each operand intact, and
/// the returned values must be intact at the end. Every other step also
/// writes a sidecar beside its result (an int8 conv's partial ranges), which
/// every reader of that result must find intact too.
TEST(MemoryPlan, RandomGraphsReadEveryValueIntact) {
  DialectRegistry registry;
  registerNuncDialects(registry);
  MLIRContext ctx(registry);
  std::mt19937 rng(7);
  int inPlaceSteps = 0, sidecarReads = 0;
  for (int trial = 0; trial < 300; ++trial) {
    std::string text = randomGraph(rng);
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &ctx);
    ASSERT_TRUE(module) << text;
    auto func = module->lookupSymbol<func::FuncOp>("main");
    // Elementwise ops may overwrite any operand of their own shape.
    auto inPlace = [](Operation *op) {
      llvm::SmallVector<unsigned> all;
      for (unsigned i = 0; i < op->getNumOperands(); ++i)
        if (op->getOperand(i).getType() == op->getResult(0).getType())
          all.push_back(i);
      return all;
    };
    // Every other step gets a sidecar of 8 to 40 bytes; its contents are
    // named by a distinct address.
    std::map<Operation *, const void *> sidecarTag;
    std::vector<char> tags(1024);
    int queried = 0;
    auto sidecar = [&](Operation *op) -> int64_t {
      int n = queried++;
      if (n % 2)
        return 0;
      sidecarTag[op] = &tags[n % tags.size()];
      return 8 * (1 + n % 5);
    };
    FailureOr<MemoryPlan> plan =
        planMemory(func, [](Operation *) { return 0; }, inPlace, sidecar);
    ASSERT_TRUE(succeeded(plan)) << text;

    // Region key: (kind, index) of a storage; values are named by their
    // opaque pointer. Views share the storage of what they view.
    std::map<std::pair<int, int64_t>, std::vector<const void *>> memory;
    auto region = [&](int s) -> std::vector<const void *> & {
      const Storage &st = plan->storages[s];
      return memory[{static_cast<int>(st.kind), st.kind == StorageKind::Arena ? 0 : st.index}];
    };
    auto write = [&](int s, const void *value) {
      const Storage &st = plan->storages[s];
      std::vector<const void *> &m = region(s);
      int64_t base = st.kind == StorageKind::Arena ? st.index : 0;
      if ((int64_t)m.size() < base + st.bytes)
        m.resize(base + st.bytes, nullptr);
      std::fill(m.begin() + base, m.begin() + base + st.bytes, value);
    };
    auto intact = [&](int s, const void *value) {
      const Storage &st = plan->storages[s];
      std::vector<const void *> &m = region(s);
      int64_t base = st.kind == StorageKind::Arena ? st.index : 0;
      if ((int64_t)m.size() < base + st.bytes)
        return false;
      return std::all_of(m.begin() + base, m.begin() + base + st.bytes,
                         [&](const void *v) { return v == value; });
    };
    // The value a (possibly viewed) SSA value stands for.
    auto root = [](Value v) {
      while (Operation *def = v.getDefiningOp()) {
        if (!isa<ReshapeOp>(def))
          break;
        v = def->getOperand(0);
      }
      return v.getAsOpaquePointer();
    };
    for (BlockArgument arg : func.getArguments())
      write(plan->storageOf.lookup(arg), arg.getAsOpaquePointer());
    for (const Step &step : plan->steps) {
      for (auto [i, v] : llvm::enumerate(step.op->getOperands())) {
        if (plan->storages[step.operands[i]].kind == StorageKind::Weight)
          continue;
        ASSERT_TRUE(intact(step.operands[i], root(v)))
            << "step " << step.op->getName().getStringRef().str()
            << " reads a clobbered operand " << i << "\n"
            << text;
        // The sidecar of the step that computed it, if any.
        Operation *def = v.getDefiningOp();
        while (def && isa<ReshapeOp>(def))
          def = def->getOperand(0).getDefiningOp();
        for (const Step &producer : plan->steps)
          if (producer.op == def && producer.resultSidecar >= 0) {
            ASSERT_TRUE(intact(producer.resultSidecar, sidecarTag[def]))
                << "step " << step.op->getName().getStringRef().str()
                << " finds the sidecar of operand " << i << " clobbered\n"
                << text;
            ++sidecarReads;
          }
      }
      write(step.results[0], step.op->getResult(0).getAsOpaquePointer());
      if (step.resultSidecar >= 0)
        write(step.resultSidecar, sidecarTag[step.op]);
      inPlaceSteps += step.inPlaceOperand >= 0;
    }
    // Outputs computed in place and the sources of the final copies alike.
    Operation *ret = func.getBody().front().getTerminator();
    for (auto [j, v] : llvm::enumerate(ret->getOperands()))
      ASSERT_TRUE(intact(plan->storageOf.lookup(v), root(v)))
          << "output " << j << " clobbered\n"
          << text;
  }
  // The property is only interesting if in-place steps and sidecars happen.
  EXPECT_GT(inPlaceSteps, 100);
  EXPECT_GT(sidecarReads, 100);
}

/// A kernel that asks for more scratch than the largest tensor (8 GiB), or
/// for a size that overflowed, is refused at its op, not planned into an
/// arena no process can allocate.
TEST(MemoryPlan, ScratchPastTheLargestTensorIsAnError) {
  DialectRegistry registry;
  registerNuncDialects(registry);
  MLIRContext ctx(registry);
  const char *text = "func.func @main(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {\n"
                     "  %r = nunc.relu %a : tensor<4x8xf32> -> tensor<4x8xf32>\n"
                     "  return %r : tensor<4x8xf32>\n}\n";
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &ctx);
  ASSERT_TRUE(module);
  auto func = module->lookupSymbol<func::FuncOp>("main");
  auto none = [](Operation *) { return llvm::SmallVector<unsigned>(); };
  for (int64_t bytes : {int64_t(8) << 30, (int64_t(8) << 30) + 1, int64_t(-64)}) {
    std::string message;
    ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
      message = d.str();
      return success();
    });
    FailureOr<MemoryPlan> plan = planMemory(
        func, [&](Operation *) { return bytes; }, none, {});
    if (bytes == int64_t(8) << 30) {
      ASSERT_TRUE(succeeded(plan));
      EXPECT_GE(plan->arenaBytes, bytes);
    } else {
      EXPECT_TRUE(failed(plan)) << bytes;
      EXPECT_NE(message.find("bytes of scratch, more than the 8 GiB"), std::string::npos)
          << message;
    }
  }
}

} // namespace
