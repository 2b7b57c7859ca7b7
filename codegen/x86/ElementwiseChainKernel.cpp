//===- ElementwiseChainKernel.cpp - a chain of f32 elementwise steps ------===//

#include "ElementwiseChainKernel.h"
#include "PaddedPlane.h"

#include <algorithm>
#include <optional>
#include <set>
#include <type_traits>

namespace mlir::nunc::x86 {

namespace {

/// Each value's register slot (inputs first, then the steps' results) and
/// the number of slots: a slot is free again after its value's last read,
/// so a step's result may take its operand's register.
std::vector<int> assignSlots(const ElementwiseChainConfig &c, int &count) {
  const int n = c.inputs, values = n + static_cast<int>(c.steps.size());
  std::vector<int> lastUse(values, -1);
  for (int s = 0; s < static_cast<int>(c.steps.size()); ++s) {
    const ElementwiseChainConfig::Step &step = c.steps[s];
    if (step.a >= 0)
      lastUse[step.a] = s;
    if (step.op != ElementwiseChainConfig::Step::Activate && step.b >= 0)
      lastUse[step.b] = s;
  }
  std::vector<int> slots(values, -1);
  std::set<int> free;
  count = 0;
  auto take = [&] {
    if (free.empty())
      return count++;
    int slot = *free.begin();
    free.erase(free.begin());
    return slot;
  };
  for (int i = 0; i < n; ++i)
    slots[i] = take();
  for (int s = 0; s < static_cast<int>(c.steps.size()); ++s) {
    const ElementwiseChainConfig::Step &step = c.steps[s];
    const bool binary = step.op != ElementwiseChainConfig::Step::Activate;
    for (int v : {step.a, binary ? step.b : -1})
      if (v >= 0 && lastUse[v] == s && !free.count(slots[v]))
        free.insert(slots[v]);
    slots[n + s] = take();
  }
  return slots;
}

bool valid(const ElementwiseChainConfig &c) {
  if (c.inputs < 1 || c.inputs > ElementwiseChainKernel::kMaxInputs || c.steps.empty() ||
      c.elements <= 0)
    return false;
  for (int s = 0; s < static_cast<int>(c.steps.size()); ++s) {
    const ElementwiseChainConfig::Step &step = c.steps[s];
    const bool binary = step.op != ElementwiseChainConfig::Step::Activate;
    for (int v : {step.a, binary ? step.b : 0})
      if (v < -1 || v >= c.inputs + s)
        return false;
    if (!binary && step.a < 0)
      return false;
    if (binary && step.a < 0 && step.b < 0)
      return false;
  }
  return true;
}

using namespace Xbyak;

template <typename Vmm> class ElementwiseChainGenerator : public PlaneGenerator {
public:
  static constexpr bool kZmm = std::is_same_v<Vmm, Zmm>;
  static constexpr int kLanes = kZmm ? 16 : 8;
  static constexpr int kVecBytes = kLanes * 4;
  /// Value registers: zmm0-27 (temporaries zmm28-31); ymm0-10 (ymm11 the
  /// tail mask, temporaries ymm12-15).
  static constexpr int kSlots = kZmm ? 28 : 11;
  /// Vectors through each step together. A QDQ chain's steps each end in a
  /// ~30-cycle rounding, so a vector's chain is a few hundred cycles long:
  /// four in flight left the pipes mostly idle (slower than a pass per op).
  static constexpr int kMaxUnroll = 8;
  static_assert(ElementwiseChainKernel::kMaxTableCodes == kTableEntries);

  explicit ElementwiseChainGenerator(const ElementwiseChainConfig &config) : c(config) {
    replicate = kZmm ? 1 : 8;
    slots = assignSlots(c, perVector);
    unroll = std::min(kMaxUnroll, kSlots / std::max(1, perVector));
    if (!c.table.empty()) {
      tableOffset = tableData(c.table);
      unroll = kZmm ? 4 : 3; // (ymm11 is the tail mask)
    }
  }

  void generate() {
    const int64_t per = ElementwiseChainKernel::elementsPerTask(c);
    const int64_t tasks = ElementwiseChainKernel::numTasks(c);
    const int64_t last = c.elements - (tasks - 1) * per;
    prologue();
    for (int i = 0; i < c.inputs; ++i)
      mov(input(i), ptr[rdi + 8 * i]);
    mov(rbx, ptr[rdi + 8 * c.inputs]);
    imul(rax, rsi, per * 4);
    for (int i = 0; i < c.inputs; ++i)
      add(input(i), rax);
    add(rbx, rax);
    if (!kZmm && tableOffset)
      lea(r9, ptr[rip + dataLabel + *tableOffset]); // the gathers' base
    if (tasks > 1 && last != per) {
      Label lastTask, done;
      cmp(rsi, tasks - 1);
      je(lastTask, T_NEAR);
      emitRange(per);
      jmp(done, T_NEAR);
      L(lastTask);
      emitRange(last);
      L(done);
    } else {
      emitRange(last);
    }
    epilogueReturn(0);
    emitConstants();
  }

private:
  ElementwiseChainConfig c;
  int perVector = 0; // registers of one vector's values
  std::vector<int> slots;
  int unroll = 1;

  Reg64 input(int i) { return Reg64(Operand::R12 + i); }
  Vmm value(int v, int u) { return Vmm(slots[v] + u * perVector); }
  Vmm temp(int i) { return Vmm((kZmm ? 28 : 12) + i); }
  Vmm mask() { return Vmm(11); } // AVX2 only

  template <typename At> void run(int count, At at, bool masked) {
    if (tableOffset)
      lookups(count, at, masked);
    else
      vectors(count, at, masked);
  }

  /// `count` vectors (unroll copies) at byte offset `at(u)` from each base.
  template <typename At> void vectors(int count, At at, bool masked) {
    for (int i = 0; i < c.inputs; ++i)
      for (int u = 0; u < count; ++u) {
        if (masked)
          loadMasked(value(i, u), at(input(i), u), mask());
        else
          vmovups(value(i, u), at(input(i), u));
      }
    for (int s = 0; s < static_cast<int>(c.steps.size()); ++s) {
      const ElementwiseChainConfig::Step &step = c.steps[s];
      const int result = c.inputs + s;
      for (int u = 0; u < count; ++u) {
        const Vmm y = value(result, u);
        if (step.op == ElementwiseChainConfig::Step::Activate) {
          if (y.getIdx() != value(step.a, u).getIdx())
            vmovaps(y, value(step.a, u));
          emitActivation(y, step.activation, temp(0), temp(1), temp(2), temp(3));
          continue;
        }
        Vmm a = temp(0);
        if (step.a < 0)
          vbroadcastss(a, constScalar(step.constant));
        else
          a = value(step.a, u);
        auto apply = [&](const Operand &b) {
          switch (step.op) {
          case ElementwiseChainConfig::Step::Add: vaddps(y, a, b); break;
          case ElementwiseChainConfig::Step::Sub: vsubps(y, a, b); break;
          case ElementwiseChainConfig::Step::Mul: vmulps(y, a, b); break;
          default: vdivps(y, a, b); break;
          }
        };
        if (step.b < 0)
          apply(constAddr(step.constant));
        else
          apply(value(step.b, u));
      }
      // The roundings of the copies together, four at a time (a temporary
      // each): each is a ~30-cycle chain.
      if (step.grid.kind == Activation::FakeQuant)
        for (int first = 0; first < count; first += 4)
          emitFakeQuants<Vmm>(
              std::min(4, count - first), [&](int u) { return value(result, first + u); },
              [&](int u) { return temp(u); }, step.grid);
    }
    const int y = c.inputs + static_cast<int>(c.steps.size()) - 1;
    for (int u = 0; u < count; ++u) {
      if (masked)
        storeMasked(at(rbx, u), value(y, u), mask());
      else
        vmovups(at(rbx, u), value(y, u));
    }
  }

  /// The table form: y = table[code index of x], for `count` vectors, each
  /// with its own registers: x, y and, on zmm, three temporaries of the
  /// `vpermt2ps` lookup (5 u .. 5 u + 4); on ymm the gather's lane mask
  /// (3 u .. 3 u + 2; the table's address in r9). A masked tail's lanes
  /// load 0, whose index is in range.
  template <typename At> void lookups(int count, At at, bool masked) {
    auto reg = [](int u, int i) { return Vmm((kZmm ? 5 : 3) * u + i); };
    for (int u = 0; u < count; ++u) {
      if (masked)
        loadMasked(reg(u, 0), at(input(0), u), mask());
      else
        vmovups(reg(u, 0), at(input(0), u));
    }
    for (int u = 0; u < count; ++u)
      emitGridIndex(reg(u, 0), reg(u, 1), c.tableGrid);
    for (int u = 0; u < count; ++u) {
      if constexpr (kZmm) {
        emitTableLookup(reg(u, 1), reg(u, 0), reg(u, 2), reg(u, 3), reg(u, 4), *tableOffset);
      } else {
        vpcmpeqd(reg(u, 2), reg(u, 2), reg(u, 2));
        vgatherdps(reg(u, 1), ptr[r9 + reg(u, 0) * 4], reg(u, 2));
      }
    }
    for (int u = 0; u < count; ++u) {
      if (masked)
        storeMasked(at(rbx, u), reg(u, 1), mask());
      else
        vmovups(at(rbx, u), reg(u, 1));
    }
  }
  std::optional<int64_t> tableOffset;

  /// `len` elements from the task's bases.
  void emitRange(int64_t len) {
    const int64_t full = len / kLanes;
    const int tail = static_cast<int>(len % kLanes);
    const int64_t groups = full / unroll;
    if (groups) {
      Label loop;
      mov(r8, groups);
      xor_(edx, edx);
      L(loop);
      run(
          unroll, [&](const Reg64 &base, int u) { return ptr[base + rdx + u * kVecBytes]; },
          false);
      add(rdx, unroll * kVecBytes);
      dec(r8);
      jnz(loop, T_NEAR);
    }
    for (int64_t j = groups * unroll; j < full; ++j)
      run(
          1, [&](const Reg64 &base, int) { return ptr[base + j * kVecBytes]; }, false);
    if (tail) {
      setTailMask(tail, mask());
      run(
          1, [&](const Reg64 &base, int) { return ptr[base + full * kVecBytes]; }, true);
    }
  }
};

} // namespace

int64_t ElementwiseChainKernel::elementsPerTask(const ElementwiseChainConfig &c) {
  // At least ~16K elements a task, at most 32 tasks; a multiple of 64
  // elements (whole 16-lane vectors).
  int64_t per = std::max<int64_t>(16384, (c.elements + 31) / 32);
  return (per + 63) / 64 * 64;
}

int64_t ElementwiseChainKernel::numTasks(const ElementwiseChainConfig &c) {
  const int64_t per = elementsPerTask(c);
  return std::max<int64_t>(1, (c.elements + per - 1) / per);
}

int ElementwiseChainKernel::registersPerVector(const ElementwiseChainConfig &c) {
  int count = 0;
  assignSlots(c, count);
  return count;
}

std::unique_ptr<JitKernel> ElementwiseChainKernel::generate(const ElementwiseChainConfig &c,
                                                            Isa isa) {
  if (!valid(c))
    return nullptr;
  const int slots = isa == Isa::Avx512 ? ElementwiseChainGenerator<Zmm>::kSlots
                                       : ElementwiseChainGenerator<Ymm>::kSlots;
  if (registersPerVector(c) > slots)
    return nullptr;
  if (!c.table.empty() &&
      (c.inputs != 1 || c.tableGrid.kind != Activation::FakeQuant ||
       c.table.size() != static_cast<size_t>(c.tableGrid.max - c.tableGrid.min + 1) ||
       c.table.size() > static_cast<size_t>(kMaxTableCodes)))
    return nullptr;
  return generatedFor<ElementwiseChainGenerator>(isa, c);
}

} // namespace mlir::nunc::x86
