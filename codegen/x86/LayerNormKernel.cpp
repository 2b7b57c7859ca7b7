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
    c.ordered ? orderedRows(2) : rows(2);
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
    c.ordered ? orderedRows(1) : rows(1);
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
    // mean (rms: 0)
    clearChains(count);
    for (int64_t i = 0; i < vecs && !c.rms; ++i)
      for (int r = 0; r < count; ++r) {
        load(xReg(r), rax, i, r);
        vaddps(chain(r, i % kChains), chain(r, i % kChains), xReg(r));
      }
    for (int r = 0; r < count; ++r) {
      if (c.rms) {
        vxorps(meanReg(r), meanReg(r), meanReg(r));
        continue;
      }
      reduceChains(r);
      vmulps(meanReg(r), chain(r, 0), constAddr(1.f / c.n));
    }
    // variance of the centered row (padding lanes are masked out; rms: the
    // mean square)
    clearChains(count);
    for (int64_t i = 0; i < vecs; ++i)
      for (int r = 0; r < count; ++r) {
        Vmm x = xReg(r);
        load(x, rax, i, r);
        if (!c.rms)
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
        if (!c.rms)
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

  /// `count` (1 or 2) rows at rax in ordered_f32_arithmetic (n a multiple
  /// of 8). Registers: f64 mean sums 0-3, f32 square sums 4-5, broadcast
  /// mean 6-7 and 1/stddev 8-9, temporaries 10-11, scale 12, bias 13.
  void orderedRows(int count) {
    const int64_t blocks = c.n / 8;
    auto rowAt = [&](int r, int64_t offset) { return ptr[rax + r * c.n * 4 + offset]; };
    Vmm t[2] = {Vmm(10), Vmm(11)};
    // The mean: 8 f64 lanes (a zmm, or two ymm halves), one chain each.
    for (int r = 0; r < count; ++r)
      for (int h = 0; h < 2; ++h)
        vxorpd(Ymm(2 * r + h), Ymm(2 * r + h), Ymm(2 * r + h));
    for (int64_t i = 0; i < blocks; ++i)
      for (int r = 0; r < count; ++r) {
        if constexpr (kAvx512) {
          vcvtps2pd(Zmm(t[r].getIdx()), rowAt(r, i * 32));
          vaddpd(Zmm(2 * r), Zmm(2 * r), Zmm(t[r].getIdx()));
        } else {
          for (int h = 0; h < 2; ++h) {
            vcvtps2pd(Ymm(t[r].getIdx()), rowAt(r, i * 32 + h * 16));
            vaddpd(Ymm(2 * r + h), Ymm(2 * r + h), Ymm(t[r].getIdx()));
          }
        }
      }
    mov(r13, c.n);
    for (int r = 0; r < count; ++r) {
      Xmm sum(2 * r), tmp(t[r].getIdx()), mean(6 + r);
      if constexpr (kAvx512) {
        vextractf64x4(Ymm(tmp.getIdx()), Zmm(2 * r), 1);
        vaddpd(Ymm(2 * r), Ymm(2 * r), Ymm(tmp.getIdx())); // lanes k + k+4
      } else {
        vaddpd(Ymm(2 * r), Ymm(2 * r), Ymm(2 * r + 1));
      }
      vextractf128(tmp, Ymm(2 * r), 1);
      vaddpd(sum, sum, tmp); // k + k+2
      vunpckhpd(tmp, sum, sum);
      vaddsd(sum, sum, tmp); // 0 + 1
      vcvtsi2sd(tmp, tmp, r13);
      vdivsd(sum, sum, tmp);
      vcvtsd2ss(mean, mean, sum);
      vbroadcastss(Vmm(6 + r), mean);
    }
    // The variance: 8 f32 lanes, one FMA chain.
    for (int r = 0; r < count; ++r)
      vxorps(Ymm(4 + r), Ymm(4 + r), Ymm(4 + r));
    for (int64_t i = 0; i < blocks; ++i)
      for (int r = 0; r < count; ++r) {
        Ymm d(t[r].getIdx());
        vmovups(d, rowAt(r, i * 32));
        vsubps(d, d, Ymm(6 + r));
        vfmadd231ps(Ymm(4 + r), d, d);
      }
    for (int r = 0; r < count; ++r) {
      Xmm sum(4 + r), tmp(t[r].getIdx()), inv(8 + r);
      vextractf128(tmp, Ymm(4 + r), 1);
      vaddps(sum, sum, tmp); // k + k+4
      vmovhlps(tmp, tmp, sum);
      vaddps(sum, sum, tmp); // k + k+2
      vmovshdup(tmp, sum);
      vaddss(sum, sum, tmp); // 0 + 1
      vdivss(sum, sum, constScalar(static_cast<float>(c.n)));
      vaddss(sum, sum, constScalar(c.epsilon));
      vsqrtss(sum, sum, sum);
      vmovss(inv, constScalar(1.f));
      vdivss(inv, inv, sum);
      vbroadcastss(Vmm(8 + r), inv);
      vmovss(ptr[r8 + r * 4], Xmm(6 + r));
      vmovss(ptr[r9 + r * 4], inv);
    }
    // y = fma(fl((x - mean) x 1/stddev), scale, bias)
    const int64_t vecs = full + (tail ? 1 : 0);
    for (int64_t i = 0; i < vecs; ++i) {
      load(Vmm(12), rbx, i);
      if (c.bias)
        load(Vmm(13), rdx, i);
      for (int r = 0; r < count; ++r) {
        load(t[r], rax, i, r);
        vsubps(t[r], t[r], Vmm(6 + r));
        vmulps(t[r], t[r], Vmm(8 + r));
        if (c.bias)
          vfmadd213ps(t[r], Vmm(12), Vmm(13));
        else
          vmulps(t[r], t[r], Vmm(12));
        store(rcx, i, r, t[r]);
      }
    }
  }
};

} // namespace

std::unique_ptr<JitKernel> LayerNormKernel::generate(const LayerNormConfig &config, Isa isa) {
  if (!supports(config))
    return nullptr;
  return generatedFor<LayerNormGenerator>(isa, config);
}

} // namespace mlir::nunc::x86
