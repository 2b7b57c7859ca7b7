//===- SoftmaxKernel.cpp - row-wise softmax (xbyak) -----------------------===//

#include "SoftmaxKernel.h"

#include <limits>
#include <type_traits>

namespace mlir::nunc::x86 {

namespace {

using namespace Xbyak;

template <typename Vmm> class SoftmaxGenerator : public JitKernel {
public:
  static constexpr bool kAvx512 = std::is_same_v<Vmm, Zmm>;
  static constexpr int kLanes = kAvx512 ? 16 : 8;
  static constexpr int kVecBytes = kLanes * 4;

  explicit SoftmaxGenerator(const SoftmaxConfig &config) : c(config) {
    replicate = kAvx512 ? 1 : 8;
    full = c.n / kLanes;
    tail = c.n % kLanes;
  }

  void generate() {
    int64_t per = SoftmaxKernel::rowsPerTask(c);
    prologue();
    mov(rax, ptr[rdi + 0]); // x
    mov(rcx, ptr[rdi + 8]); // y
    taskShare(per, c.rows, r11, r12); // r11 = rows of this task
    imul(r10, r10, c.n * 4);
    add(rax, r10);
    add(rcx, r10);
    if (tail)
      tailMask(tail, maskReg(), r12d);
    Label rowLoop;
    L(rowLoop);
    row();
    add(rax, c.n * 4);
    add(rcx, c.n * 4);
    dec(r11);
    jnz(rowLoop, T_NEAR);
    epilogueReturn(0);
    emitConstants();
  }

private:
  SoftmaxConfig c;
  int64_t full = 0;
  int tail = 0;

  Vmm acc(int i) { return Vmm(i); }           // 0, 1
  Vmm val(int i) { return Vmm(2 + 3 * i); }   // 2, 5 (with temps 3-4, 6-7)
  Vmm tmp(int i, int j) { return Vmm(3 + 3 * i + j); }
  Vmm maxReg() { return Vmm(8); }
  Vmm invReg() { return Vmm(9); }
  Vmm spare() { return Vmm(10); }
  Vmm flushMask(int u) { return Vmm(11 + u); } // AVX2: 11, 12
  Vmm maskReg() { return Vmm(kAvx512 ? 31 : 15); }

  /// Emits body(disp, i) for every full vector of the row, addressed as
  /// [base + r9 + disp]: unrolled for short rows, else a loop of `unroll`
  /// vectors per trip over r9 (r8 counts trips). Leaves r9 at the tail.
  template <typename Body> void forVectors(int unroll, Body body) {
    xor_(r9, r9);
    if (full <= 4 * unroll) {
      for (int64_t i = 0; i < full; ++i)
        body(i * kVecBytes, static_cast<int>(i % unroll));
      if (full)
        mov(r9, full * kVecBytes);
      return;
    }
    Label loop;
    mov(r8, full / unroll);
    L(loop);
    for (int u = 0; u < unroll; ++u)
      body(u * kVecBytes, u);
    add(r9, unroll * kVecBytes);
    dec(r8);
    jnz(loop, T_NEAR);
    for (int64_t u = 0; u < full % unroll; ++u)
      body(u * kVecBytes, static_cast<int>(u));
    if (full % unroll)
      add(r9, (full % unroll) * kVecBytes);
  }

  /// Reduces the lanes of v into every lane (max or sum).
  void horizontal(const Vmm &v, const Vmm &t, bool max) {
    emitHorizontal(v, t, max ? Reduction::Max : Reduction::Add);
  }

  /// v = lanes of the tail at [base + r9] (masked lanes zero).
  void loadTail(const Vmm &v, const Reg64 &base) {
    if constexpr (kAvx512)
      vmovups(v | k1 | T_z, ptr[base + r9]);
    else
      vmaskmovps(v, maskReg(), ptr[base + r9]);
  }
  void storeTail(const Reg64 &base, const Vmm &v) {
    if constexpr (kAvx512)
      vmovups(ptr[base + r9] | k1, v);
    else
      vmaskmovps(ptr[base + r9], maskReg(), v);
  }

  /// val(u) = exp(val(u)), exactly 0 where the argument is below the
  /// smallest normal result (emitExp's lower bound: so -inf logits get
  /// probability 0, as in ONNX).
  void expFlushed(int u) {
    const float lowest = kAvx512 ? -87.3f : -86.64f;
    if constexpr (kAvx512) {
      vcmpps(Opmask(2 + u), val(u), constAddr(lowest), 1 /*LT_OS*/);
      emitExp(val(u), tmp(u, 0), tmp(u, 1));
      vpxord(val(u) | Opmask(2 + u), val(u), val(u));
    } else {
      vcmpps(flushMask(u), val(u), constAddr(lowest), 1 /*LT_OS*/);
      emitExp(val(u), tmp(u, 0), tmp(u, 1));
      vandnps(val(u), flushMask(u), val(u));
    }
  }

  void row() {
    const float negInf = -std::numeric_limits<float>::infinity();
    // Pass 1: the row's max.
    loadConstant(acc(0), negInf);
    vmovaps(acc(1), acc(0));
    forVectors(2, [&](int64_t disp, int u) { vmaxps(acc(u), acc(u), ptr[rax + r9 + disp]); });
    if (tail) {
      if constexpr (kAvx512) {
        vmaxps(acc(0) | k1, acc(0), ptr[rax + r9]);
      } else {
        loadTail(val(0), rax);
        loadConstant(spare(), negInf);
        vblendvps(val(0), spare(), val(0), maskReg()); // -inf beyond the tail
        vmaxps(acc(0), acc(0), val(0));
      }
    }
    vmaxps(acc(0), acc(0), acc(1));
    horizontal(acc(0), spare(), /*max=*/true);
    vmovaps(maxReg(), acc(0));

    // Pass 2: y = exp(x - max), summed.
    vxorps(acc(0), acc(0), acc(0));
    vxorps(acc(1), acc(1), acc(1));
    forVectors(2, [&](int64_t disp, int u) {
      vmovups(val(u), ptr[rax + r9 + disp]);
      vsubps(val(u), val(u), maxReg());
      expFlushed(u);
      vmovups(ptr[rcx + r9 + disp], val(u));
      vaddps(acc(u), acc(u), val(u));
    });
    if (tail) {
      loadTail(val(0), rax);
      vsubps(val(0), val(0), maxReg());
      expFlushed(0);
      if constexpr (kAvx512)
        vmovaps(val(0) | k1 | T_z, val(0));
      else
        vandps(val(0), val(0), maskReg());
      storeTail(rcx, val(0));
      vaddps(acc(0), acc(0), val(0));
    }
    vaddps(acc(0), acc(0), acc(1));
    horizontal(acc(0), spare(), /*max=*/false);
    loadConstant(invReg(), 1.f);
    vdivps(invReg(), invReg(), acc(0));

    // Pass 3: y *= 1 / sum.
    forVectors(4, [&](int64_t disp, int u) {
      Vmm v = Vmm(2 + u);
      vmulps(v, invReg(), ptr[rcx + r9 + disp]);
      vmovups(ptr[rcx + r9 + disp], v);
    });
    if (tail) {
      loadTail(val(0), rcx);
      vmulps(val(0), val(0), invReg());
      storeTail(rcx, val(0));
    }
  }
};

} // namespace

std::unique_ptr<JitKernel> SoftmaxKernel::generate(const SoftmaxConfig &config, Isa isa) {
  return generatedFor<SoftmaxGenerator>(isa, config);
}

} // namespace mlir::nunc::x86
