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
    taskShare(per, c.rows, r11, r12); // r11 = rows of this task
    imul(r13, r10, c.n * 4);
    add(rax, r13);
    add(rcx, r13);
    lea(r8, ptr[r8 + r10 * 4]);
    lea(r9, ptr[r9 + r10 * 4]);
    if (tail)
      tailMask(tail, maskReg(), r13d);
    // Rows two at a time: each row's passes are chains of dependent adds
    // and reductions, so one row alone left the vector ports idle (LayerNorm
    // was latency-bound, ~2x its uop count).
    Label pairs, single, done;
    cmp(r11, 2);
    jb(single, T_NEAR);
    L(pairs);
    rows(2);
    add(rax, 2 * c.n * 4);
    add(rcx, 2 * c.n * 4);
    add(r8, 2 * 4);
    add(r9, 2 * 4);
    sub(r11, 2);
    cmp(r11, 2);
    jae(pairs, T_NEAR);
    L(single);
    test(r11, r11);
    jz(done, T_NEAR);
    rows(1);
    L(done);
    epilogueReturn(0);
    emitConstants();
  }

private:
  LayerNormConfig c;
  int64_t full = 0;
  int tail = 0;

  Vmm maskReg() { return Vmm(kAvx512 ? 31 : 15); }

  /// Loads vector i of row r at `base` into v (zero beyond the tail).
  void load(const Vmm &v, const Reg64 &base, int64_t i, int r = 0) {
    Address a = ptr[base + r * c.n * 4 + i * kLanes * 4];
    if (i < full) {
      vmovups(v, a);
    } else if constexpr (kAvx512) {
      vmovups(v | k1 | T_z, a);
    } else {
      vmaskmovps(v, maskReg(), a);
    }
  }
  void store(const Reg64 &base, int64_t i, int r, const Vmm &v) {
    Address a = ptr[base + r * c.n * 4 + i * kLanes * 4];
    if (i < full)
      vmovups(a, v);
    else if constexpr (kAvx512)
      vmovups(a | k1, v);
    else
      vmaskmovps(a, maskReg(), v);
  }
  void horizontalSum(const Vmm &v, const Vmm &t) { emitHorizontal(v, t, Reduction::Add); }

  /// The moments' sums run as kChains interleaved chains per row.
  static constexpr int kChains = kAvx512 ? 4 : 2;
  Vmm chain(int r, int j) { return Vmm(r * kChains + j); }
  Vmm xReg(int r) { return Vmm(2 * kChains + r); }
  Vmm meanReg(int r) { return Vmm(2 * kChains + 2 + r); }
  Vmm invReg(int r) { return Vmm(2 * kChains + 4 + r); }
  Vmm tReg() { return Vmm(2 * kChains + 6); }
  Vmm scaleReg() { return Vmm(2 * kChains + 7); }
  Vmm biasReg() { return Vmm(2 * kChains + 8); } // ymm: 12, below the mask (15)

  /// The chains of row r summed into chain(r, 0), then across its lanes.
  void reduceChains(int r) {
    for (int j = 1; j < kChains; ++j)
      vaddps(chain(r, 0), chain(r, 0), chain(r, j));
    horizontalSum(chain(r, 0), tReg());
  }
  void clearChains(int count) {
    for (int r = 0; r < count; ++r)
      for (int j = 0; j < kChains; ++j)
        vxorps(chain(r, j), chain(r, j), chain(r, j));
  }

  /// `count` (1 or 2) rows at rax (n floats apart), their passes
  /// interleaved vector by vector.
  void rows(int count) {
    const int64_t vecs = full + (tail ? 1 : 0);
    // mean
    clearChains(count);
    for (int64_t i = 0; i < vecs; ++i)
      for (int r = 0; r < count; ++r) {
        load(xReg(r), rax, i, r);
        vaddps(chain(r, i % kChains), chain(r, i % kChains), xReg(r));
      }
    for (int r = 0; r < count; ++r) {
      reduceChains(r);
      vmulps(meanReg(r), chain(r, 0), constAddr(1.f / c.n));
    }
    // variance of the centered row (padding lanes are masked out)
    clearChains(count);
    for (int64_t i = 0; i < vecs; ++i)
      for (int r = 0; r < count; ++r) {
        Vmm x = xReg(r);
        load(x, rax, i, r);
        vsubps(x, x, meanReg(r));
        if (i >= full) {
          if constexpr (kAvx512)
            vmovaps(x | k1 | T_z, x);
          else
            vandps(x, x, maskReg());
        }
        vfmadd231ps(chain(r, i % kChains), x, x);
      }
    for (int r = 0; r < count; ++r) {
      reduceChains(r);
      Vmm v = chain(r, 0);
      vmulps(v, v, constAddr(1.f / c.n));
      vaddps(v, v, constAddr(c.epsilon));
      vsqrtps(v, v);
      loadConstant(invReg(r), 1.f);
      vdivps(invReg(r), invReg(r), v);
      vmovss(ptr[r8 + r * 4], Xmm(meanReg(r).getIdx()));
      vmovss(ptr[r9 + r * 4], Xmm(invReg(r).getIdx()));
    }
    // y
    for (int64_t i = 0; i < vecs; ++i) {
      load(scaleReg(), rbx, i);
      if (c.bias)
        load(biasReg(), rdx, i);
      for (int r = 0; r < count; ++r) {
        Vmm x = xReg(r);
        load(x, rax, i, r);
        vsubps(x, x, meanReg(r));
        vmulps(x, x, invReg(r));
        if (c.bias)
          vfmadd213ps(x, scaleReg(), biasReg());
        else
          vmulps(x, x, scaleReg());
        store(rcx, i, r, x);
      }
    }
  }
};

} // namespace

std::unique_ptr<JitKernel> LayerNormKernel::generate(const LayerNormConfig &config, Isa isa) {
  return generatedFor<LayerNormGenerator>(isa, config);
}

} // namespace mlir::nunc::x86
