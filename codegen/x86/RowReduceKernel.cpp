//===- RowReduceKernel.cpp - sums and means of rows (xbyak) ---------------===//

#include "RowReduceKernel.h"

#include <type_traits>

namespace mlir::nunc::x86 {

namespace {

using namespace Xbyak;

template <typename Vmm> class RowReduceGenerator : public JitKernel {
public:
  static constexpr bool kAvx512 = std::is_same_v<Vmm, Zmm>;
  static constexpr int kLanes = kAvx512 ? 16 : 8;
  static constexpr int kVecBytes = kLanes * 4;
  static constexpr int kChains = 4;

  explicit RowReduceGenerator(const RowReduceConfig &config) : c(config) {
    replicate = kAvx512 ? 1 : 8;
    full = c.n / kLanes;
    tail = c.n % kLanes;
  }

  void generate() {
    int64_t per = RowReduceKernel::rowsPerTask(c);
    prologue();
    mov(rax, ptr[rdi + 0]); // x
    mov(rcx, ptr[rdi + 8]); // y
    taskShare(per, c.rows, r11, r12); // r11 = rows of this task
    lea(rcx, ptr[rcx + r10 * 4]);
    imul(r10, r10, c.n * 4);
    add(rax, r10);
    if (tail)
      tailMask(tail, maskReg(), r12d);
    Label rowLoop;
    L(rowLoop);
    row();
    add(rax, c.n * 4);
    add(rcx, 4);
    dec(r11);
    jnz(rowLoop, T_NEAR);
    epilogueReturn(0);
    emitConstants();
  }

private:
  RowReduceConfig c;
  int64_t full = 0;
  int tail = 0;

  Vmm acc(int i) { return Vmm(i); } // 0-3
  Vmm val() { return Vmm(4); }
  Vmm spare() { return Vmm(5); }
  Vmm maskReg() { return Vmm(kAvx512 ? 31 : 15); }

  /// onnxruntimeRowSum's order: ymm0 = x[0:8], += each whole 8 (lanes
  /// 0-3 and 4-7 Eigen's two packets), low + high, + the last packet, then
  /// (l0 + l2) + (l1 + l3).
  void orderedRow() {
    const Ymm chain(0), t(1);
    const Xmm low(0), x(1);
    vmovups(chain, ptr[rax]);
    const int64_t pairs = c.n / 8 * 8;
    for (int64_t i = 8; i < pairs; i += 8)
      vaddps(chain, chain, ptr[rax + i * 4]);
    vextractf128(x, chain, 1);
    vaddps(low, low, x);
    if (pairs < c.n)
      vaddps(low, low, ptr[rax + pairs * 4]);
    vmovhlps(x, x, low);          // (l2, l3, ...)
    vaddps(low, low, x);          // (l0 + l2, l1 + l3, ...)
    vmovshdup(x, low);            // l1 + l3 in lane 0
    vaddss(low, low, x);
    if (c.mean)
      vdivss(low, low, constScalar(static_cast<float>(c.n)));
    vmovss(ptr[rcx], low);
  }

  void row() {
    if (c.onnxruntimeOrder) {
      orderedRow();
      return;
    }
    for (int j = 0; j < kChains; ++j)
      vxorps(acc(j), acc(j), acc(j));
    // Unrolled for short rows, else a loop of kChains vectors per trip (r8
    // counts trips, r9 the byte offset).
    xor_(r9, r9);
    if (full <= 4 * kChains) {
      for (int64_t i = 0; i < full; ++i)
        vaddps(acc(i % kChains), acc(i % kChains), ptr[rax + i * kVecBytes]);
      if (full)
        mov(r9, full * kVecBytes);
    } else {
      Label loop;
      mov(r8, full / kChains);
      L(loop);
      for (int u = 0; u < kChains; ++u)
        vaddps(acc(u), acc(u), ptr[rax + r9 + u * kVecBytes]);
      add(r9, kChains * kVecBytes);
      dec(r8);
      jnz(loop, T_NEAR);
      for (int64_t u = 0; u < full % kChains; ++u)
        vaddps(acc(u), acc(u), ptr[rax + r9 + u * kVecBytes]);
      if (full % kChains)
        add(r9, (full % kChains) * kVecBytes);
    }
    if (tail) {
      if constexpr (kAvx512)
        vmovups(val() | k1 | T_z, ptr[rax + r9]);
      else
        vmaskmovps(val(), maskReg(), ptr[rax + r9]);
      vaddps(acc(0), acc(0), val());
    }
    vaddps(acc(0), acc(0), acc(1));
    vaddps(acc(2), acc(2), acc(3));
    vaddps(acc(0), acc(0), acc(2));
    emitHorizontal(acc(0), spare(), Reduction::Add);
    if (c.mean)
      vdivss(Xmm(acc(0).getIdx()), Xmm(acc(0).getIdx()), constScalar(static_cast<float>(c.n)));
    vmovss(ptr[rcx], Xmm(acc(0).getIdx()));
  }
};

} // namespace

std::unique_ptr<JitKernel> RowReduceKernel::generate(const RowReduceConfig &config, Isa isa) {
  if (config.onnxruntimeOrder && (config.n % 4 != 0 || config.n < 8))
    return nullptr;
  return generatedFor<RowReduceGenerator>(isa, config);
}

} // namespace mlir::nunc::x86
