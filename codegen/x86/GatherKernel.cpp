//===- GatherKernel.cpp - row gather with bounds checks (xbyak) -----------===//

#include "GatherKernel.h"
#include "PaddedPlane.h"

#include <algorithm>
#include <type_traits>

namespace mlir::nunc::x86 {

int64_t GatherKernel::rowsPerTask(const GatherConfig &c) {
  // Tasks of at least ~32 KB copied, at most 32 of them.
  int64_t byWork = std::max<int64_t>(1, 32768 / c.rowBytes);
  return std::max<int64_t>(byWork, (c.indices + 31) / 32);
}

namespace {

using namespace Xbyak;

template <typename Vmm> class GatherGenerator : public PlaneGenerator {
public:
  static constexpr bool kAvx512 = std::is_same_v<Vmm, Zmm>;
  static constexpr int kLanes = kAvx512 ? 16 : 8;
  static constexpr int kVecBytes = kLanes * 4;

  explicit GatherGenerator(const GatherConfig &config) : c(config) {
    replicate = kAvx512 ? 1 : 8;
  }

  void generate() {
    const int64_t per = GatherKernel::rowsPerTask(c);
    const int64_t full = c.rowBytes / kVecBytes;
    const int tail = static_cast<int>(c.rowBytes % kVecBytes / 4);
    prologue();
    // r10 = first index, r9 = indices of this task.
    imul(r10, rsi, per);
    mov(r9, c.indices);
    sub(r9, r10);
    mov(rax, per);
    cmp(r9, rax);
    cmovg(r9, rax);
    mov(r8, ptr[rdi + 0]);                           // data
    mov(r11, ptr[rdi + 8]);                          // indices
    lea(r11, ptr[r11 + r10 * static_cast<int>(c.indexBytes)]);
    mov(rbx, ptr[rdi + 16]);                         // y row
    imul(rax, r10, c.rowBytes);
    add(rbx, rax);
    if (tail)
      setTailMask(tail, mask());

    Label rowLoop, bad, inRange;
    L(rowLoop);
    if (c.indexBytes == 8)
      mov(rax, ptr[r11]);
    else
      movsxd(rax, dword[r11]);
    // ONNX: negative indices count from the end.
    test(rax, rax);
    jns(inRange, T_NEAR);
    add(rax, c.dim);
    L(inRange);
    mov(rdx, c.dim);
    cmp(rax, rdx);
    jae(bad, T_NEAR); // unsigned: negative after wrapping, or >= dim
    imul(rax, rax, c.rowBytes);
    add(rax, r8); // source row
    if (full > 16) {
      Label copy;
      mov(rcx, full / 4);
      xor_(edx, edx);
      L(copy);
      for (int u = 0; u < 4; ++u) {
        vmovups(Vmm(u), ptr[rax + rdx + u * kVecBytes]);
        vmovups(ptr[rbx + rdx + u * kVecBytes], Vmm(u));
      }
      add(rdx, 4 * kVecBytes);
      dec(rcx);
      jnz(copy, T_NEAR);
      for (int64_t i = full / 4 * 4; i < full; ++i) {
        vmovups(Vmm(0), ptr[rax + i * kVecBytes]);
        vmovups(ptr[rbx + i * kVecBytes], Vmm(0));
      }
    } else {
      for (int64_t i = 0; i < full; ++i) {
        Vmm v = Vmm(i % 4);
        vmovups(v, ptr[rax + i * kVecBytes]);
        vmovups(ptr[rbx + i * kVecBytes], v);
      }
    }
    if (tail) {
      loadMasked(Vmm(4), ptr[rax + full * kVecBytes], mask());
      storeMasked(ptr[rbx + full * kVecBytes], Vmm(4), mask());
    }
    add(r11, static_cast<uint32_t>(c.indexBytes));
    add(rbx, c.rowBytes);
    dec(r9);
    jnz(rowLoop, T_NEAR);
    epilogueReturn(0);
    L(bad);
    epilogueReturn(1);
    emitConstants();
  }

private:
  GatherConfig c;
  Vmm mask() { return Vmm(15); }
};

} // namespace

std::unique_ptr<JitKernel> GatherKernel::generate(const GatherConfig &config, Isa isa) {
  if (!supports(config))
    return nullptr;
  return generatedFor<GatherGenerator>(isa, config);
}

} // namespace mlir::nunc::x86
