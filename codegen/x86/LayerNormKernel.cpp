//===- LayerNormKernel.cpp - row-wise LayerNorm (xbyak) -------------------===//

#include "LayerNormKernel.h"

#include <type_traits>

namespace mlir::nunc::x86 {

namespace {

using namespace Xbyak;

template <typename Vmm> class LayerNormGenerator : public JitKernel {
public:
  static constexpr bool kAvx512 = std::is_same_v<Vmm, Zmm>;
  static constexpr int kLanes = kAvx512 ? 16 : 8;

  explicit LayerNormGenerator(const LayerNormConfig &config) : c(config) {
    replicate = kAvx512 ? 1 : 8;
  }

  void generate() {
    int64_t per = LayerNormKernel::rowsPerTask(c);
    full = c.n / kLanes;
    tail = c.n % kLanes;
    prologue();
    mov(rax, ptr[rdi + 0]);  // x
    mov(rbx, ptr[rdi + 8]);  // scale
    mov(rdx, ptr[rdi + 16]); // bias
    mov(rcx, ptr[rdi + 24]); // y
    mov(r8, ptr[rdi + 32]);  // mean
    mov(r9, ptr[rdi + 40]);  // inv_std_dev
    // first row = task * per; count = min(per, rows - first)
    imul(r10, rsi, per);
    mov(r11, c.rows);
    sub(r11, r10);
    mov(r12, per);
    cmp(r11, r12);
    cmovg(r11, r12); // r11 = rows of this task
    imul(r13, r10, c.n * 4);
    add(rax, r13);
    add(rcx, r13);
    lea(r8, ptr[r8 + r10 * 4]);
    lea(r9, ptr[r9 + r10 * 4]);
    if (tail) {
      if constexpr (kAvx512) {
        mov(r13d, (1u << tail) - 1);
        kmovw(k1, r13d);
      } else {
        std::vector<uint32_t> bits(kLanes, 0);
        for (int i = 0; i < tail; ++i)
          bits[i] = 0xffffffffu;
        vmovups(maskReg(), dataAddr(bits));
      }
    }
    Label loop;
    L(loop);
    row();
    add(rax, c.n * 4);
    add(rcx, c.n * 4);
    add(r8, 4);
    add(r9, 4);
    dec(r11);
    jnz(loop, T_NEAR);
    epilogueReturn(0);
    emitConstants();
  }

private:
  LayerNormConfig c;
  int64_t full = 0;
  int tail = 0;

  Vmm maskReg() { return Vmm(kAvx512 ? 31 : 15); }

  /// Loads vector i of the row at `base` into v (zero beyond the tail).
  void load(const Vmm &v, const Reg64 &base, int64_t i) {
    Address a = ptr[base + i * kLanes * 4];
    if (i < full) {
      vmovups(v, a);
    } else if constexpr (kAvx512) {
      vmovups(v | k1 | T_z, a);
    } else {
      vmaskmovps(v, maskReg(), a);
    }
  }
  void store(const Reg64 &base, int64_t i, const Vmm &v) {
    Address a = ptr[base + i * kLanes * 4];
    if (i < full)
      vmovups(a, v);
    else if constexpr (kAvx512)
      vmovups(a | k1, v);
    else
      vmaskmovps(a, maskReg(), v);
  }
  void horizontalSum(const Vmm &v, const Vmm &t) { emitHorizontal(v, t, Reduction::Add); }

  void row() {
    int64_t vecs = full + (tail ? 1 : 0);
    Vmm sum0 = Vmm(0), sum1 = Vmm(1), x = Vmm(2), t = Vmm(3), mean = Vmm(4), inv = Vmm(5);
    // mean
    vxorps(sum0, sum0, sum0);
    vxorps(sum1, sum1, sum1);
    for (int64_t i = 0; i < vecs; ++i) {
      load(x, rax, i);
      vaddps(i % 2 ? sum1 : sum0, i % 2 ? sum1 : sum0, x);
    }
    vaddps(sum0, sum0, sum1);
    horizontalSum(sum0, t);
    vmulps(mean, sum0, constAddr(1.f / c.n));
    // variance of the centered row (padding lanes are masked out)
    vxorps(sum0, sum0, sum0);
    vxorps(sum1, sum1, sum1);
    for (int64_t i = 0; i < vecs; ++i) {
      load(x, rax, i);
      vsubps(x, x, mean);
      if (i >= full) {
        if constexpr (kAvx512)
          vmovaps(x | k1 | T_z, x);
        else
          vandps(x, x, maskReg());
      }
      vfmadd231ps(i % 2 ? sum1 : sum0, x, x);
    }
    vaddps(sum0, sum0, sum1);
    horizontalSum(sum0, t);
    vmulps(sum0, sum0, constAddr(1.f / c.n));
    vaddps(sum0, sum0, constAddr(c.epsilon));
    vsqrtps(sum0, sum0);
    loadConstant(inv, 1.f);
    vdivps(inv, inv, sum0);
    vmovss(ptr[r8], Xmm(mean.getIdx()));
    vmovss(ptr[r9], Xmm(inv.getIdx()));
    // y
    for (int64_t i = 0; i < vecs; ++i) {
      load(x, rax, i);
      vsubps(x, x, mean);
      vmulps(x, x, inv);
      load(t, rbx, i);
      if (c.bias) {
        load(sum1, rdx, i);
        vfmadd213ps(x, t, sum1);
      } else {
        vmulps(x, x, t);
      }
      store(rcx, i, x);
    }
  }
};

} // namespace

std::unique_ptr<JitKernel> LayerNormKernel::generate(const LayerNormConfig &config, Isa isa) {
  return generatedFor<LayerNormGenerator>(isa, config);
}

} // namespace mlir::nunc::x86
