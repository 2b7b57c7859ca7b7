//===- DequantizeKernel.cpp - u8 codes to f32 values (xbyak) --------------===//

#include "DequantizeKernel.h"

#include <type_traits>

namespace mlir::nunc::x86 {

namespace {

using namespace Xbyak;

template <typename Vmm> class DequantizeGenerator : public JitKernel {
public:
  static constexpr int kLanes = std::is_same_v<Vmm, Zmm> ? 16 : 8;
  static constexpr int kUnroll = 4;

  explicit DequantizeGenerator(const DequantizeConfig &config) : c(config) {}

  void generate() {
    prologue();
    // r10 = the task's first element, r9 = its count.
    taskShare(DequantizeKernel::elementsPerTask(c), c.elements, r9, rax);
    const int inBytes = c.fromF32 ? 4 : 1;
    mov(r8, ptr[rdi + 0]);
    lea(r8, ptr[r8 + r10 * inBytes]);
    mov(rbx, ptr[rdi + 8]);
    lea(rbx, ptr[rbx + r10 * 4]);
    const Vmm zp(kUnroll), scale(kUnroll + 1), lo(kUnroll + 2), hi(kUnroll + 3);
    vbroadcastss(zp, constScalar(static_cast<float>(c.zeroPoint)));
    vbroadcastss(scale, constScalar(c.scale));
    // fromF32: q - zp = clamp(round(x / scale), -zp, 255 - zp), clamped in
    // f32 first (NaN to -zp; no conversion overflows), then rounded half
    // to even by the conversion (so -0 becomes 0, as from integer codes).
    vbroadcastss(lo, constScalar(static_cast<float>(-c.zeroPoint)));
    vbroadcastss(hi, constScalar(static_cast<float>(255 - c.zeroPoint)));
    auto fromValues = [&](const auto &v) {
      using V = std::decay_t<decltype(v)>;
      vdivps(v, v, V(scale.getIdx()));
      vmaxps(v, v, V(lo.getIdx()));
      vminps(v, v, V(hi.getIdx()));
      vcvtps2dq(v, v);
      vcvtdq2ps(v, v);
    };
    auto vector = [&](const Vmm &v, int64_t offset) {
      if (c.fromF32) {
        vmovups(v, ptr[r8 + offset * 4]);
        fromValues(v);
      } else {
        vpmovzxbd(v, ptr[r8 + offset]);
        vcvtdq2ps(v, v);
        vsubps(v, v, zp);
      }
      vmulps(v, v, scale);
      vmovups(ptr[rbx + offset * 4], v);
    };
    // Whole groups of kUnroll vectors, then single vectors, then elements.
    Label groups, vectors, elements, done;
    L(groups);
    cmp(r9, kUnroll * kLanes);
    jl(vectors, T_NEAR);
    for (int u = 0; u < kUnroll; ++u)
      vector(Vmm(u), u * kLanes);
    add(r8, kUnroll * kLanes * inBytes);
    add(rbx, kUnroll * kLanes * 4);
    sub(r9, kUnroll * kLanes);
    jmp(groups, T_NEAR);
    L(vectors);
    cmp(r9, kLanes);
    jl(elements, T_NEAR);
    vector(Vmm(0), 0);
    add(r8, kLanes * inBytes);
    add(rbx, kLanes * 4);
    sub(r9, kLanes);
    jmp(vectors, T_NEAR);
    L(elements);
    test(r9, r9);
    jz(done, T_NEAR);
    if (c.fromF32) {
      vmovss(Xmm(0), ptr[r8]);
      fromValues(Xmm(0));
    } else {
      movzx(eax, byte[r8]);
      vcvtsi2ss(Xmm(0), Xmm(0), eax);
      vsubss(Xmm(0), Xmm(0), Xmm(zp.getIdx()));
    }
    vmulss(Xmm(0), Xmm(0), Xmm(scale.getIdx()));
    vmovss(ptr[rbx], Xmm(0));
    add(r8, inBytes);
    add(rbx, 4);
    dec(r9);
    jmp(elements, T_NEAR);
    L(done);
    epilogueReturn(0);
    emitConstants();
  }

private:
  DequantizeConfig c;
};

} // namespace

std::unique_ptr<JitKernel> DequantizeKernel::generate(const DequantizeConfig &config, Isa isa) {
  if (config.elements <= 0 || !(config.scale > 0) || config.zeroPoint < 0 ||
      config.zeroPoint > 255)
    return nullptr;
  return generatedFor<DequantizeGenerator>(isa, config);
}

} // namespace mlir::nunc::x86
