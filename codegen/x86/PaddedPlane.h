//===- PaddedPlane.h - input planes with materialized padding ---*- C++ -*-===//
//
// im2col copies each NCHW input plane into scratch surrounded by its
// padding, and the stride-1 window kernels (pooling, depthwise conv) copy
// input rows into the same layout block by block, so that every tap of
// every output vector is one plain load (im2col's stride 2: two
// deinterleaved loads), with no border checks in the inner loops.
//
//===----------------------------------------------------------------------===//

#ifndef NUNC_CODEGEN_X86_PADDEDPLANE_H
#define NUNC_CODEGEN_X86_PADDEDPLANE_H

#include "JitSupport.h"

#include <algorithm>
#include <type_traits>

namespace mlir::nunc::x86 {

/// Where an input plane lies in its padded copy, and how big the copy is.
struct PaddedPlane {
  int64_t height = 1, width = 1, padTop = 0, padLeft = 0;
  int64_t rows = 1, cols = 1; // padded geometry
  int64_t floats = 0;         // rows * cols + slack for the last vectors, rounded to 16

  /// The padded plane a window of the given geometry reads, with output rows
  /// of outW columns computed `lanes` at a time.
  static PaddedPlane forWindow(int64_t height, int64_t width, int64_t kernelH, int64_t kernelW,
                               int64_t strideH, int64_t strideW, int64_t dilationH,
                               int64_t dilationW, int64_t padTop, int64_t padLeft,
                               int64_t outH, int64_t outW, int64_t lanes) {
    PaddedPlane p;
    p.height = height;
    p.width = width;
    p.padTop = padTop;
    p.padLeft = padLeft;
    p.rows = std::max(padTop + height, (outH - 1) * strideH + (kernelH - 1) * dilationH + 1);
    p.cols = std::max(padLeft + width, (outW - 1) * strideW + (kernelW - 1) * dilationW + 1);
    int64_t chunks = (outW + lanes - 1) / lanes;
    int64_t slack = (chunks - 1) * lanes * strideW + (kernelW - 1) * dilationW + lanes * strideW;
    p.floats = (p.rows * p.cols + slack + 15) / 16 * 16;
    return p;
  }
};

/// Shared code of the generators that read padded planes; each helper works
/// on zmm (AVX-512) or ymm (AVX2) registers, as its arguments say.
class PlaneGenerator : public JitKernel {
protected:
  /// rdx = the channel of plane r10 (r10 mod `channels`); rax kept, rcx
  /// clobbered.
  void planeChannel(int64_t channels) {
    push(rax);
    mov(rax, r10);
    xor_(edx, edx);
    mov(rcx, channels);
    div(rcx);
    pop(rax);
  }
  /// emit(item) for each of `items` in order, the longest run of equal
  /// ones (blocks of rows whose code is the same) as a loop on r13.
  template <typename T, typename Emit> void emitRuns(const std::vector<T> &items, Emit emit) {
    size_t runBegin = 0, runEnd = 0;
    for (size_t i = 0; i < items.size();) {
      size_t j = i;
      while (j < items.size() && items[j] == items[i])
        ++j;
      if (j - i > runEnd - runBegin) {
        runBegin = i;
        runEnd = j;
      }
      i = j;
    }
    for (size_t i = 0; i < runBegin; ++i)
      emit(items[i]);
    if (runEnd - runBegin >= 2) {
      mov(r13, runEnd - runBegin);
      Xbyak::Label loop;
      L(loop);
      emit(items[runBegin]);
      dec(r13);
      jnz(loop, T_NEAR);
    } else if (runEnd > runBegin) {
      emit(items[runBegin]);
    }
    for (size_t i = runEnd; i < items.size(); ++i)
      emit(items[i]);
  }
  template <typename Vmm> static constexpr bool isZmm() {
    return std::is_same_v<Vmm, Xbyak::Zmm>;
  }
  template <typename Vmm> static constexpr int lanes() { return isZmm<Vmm>() ? 16 : 8; }

  /// k1 (AVX-512) or `avx2Mask` = the first `count` lanes; clobbers edx.
  template <typename Vmm> void setTailMask(int count, const Vmm &avx2Mask) {
    if constexpr (isZmm<Vmm>()) {
      mov(edx, (1u << count) - 1);
      kmovw(k1, edx);
    } else {
      std::vector<uint32_t> bits(lanes<Vmm>(), 0);
      for (int i = 0; i < count; ++i)
        bits[i] = 0xffffffffu;
      vmovups(avx2Mask, dataAddr(bits));
    }
  }
  template <typename Vmm>
  void storeMasked(const Xbyak::Address &a, const Vmm &v, const Vmm &avx2Mask) {
    if constexpr (isZmm<Vmm>())
      vmovups(a | k1, v);
    else
      vmaskmovps(a, avx2Mask, v);
  }
  template <typename Vmm>
  void loadMasked(const Vmm &v, const Xbyak::Address &a, const Vmm &avx2Mask) {
    if constexpr (isZmm<Vmm>())
      vmovups(v | k1 | T_z, a);
    else
      vmaskmovps(v, avx2Mask, a);
  }

  /// Every lane of `v` = the padding: 0, or the s32 zero point at task
  /// argument `zeroPointArg` in each byte (u8 channel blocks); clobbers rdx.
  template <typename Vmm> void setPadding(const Vmm &v, bool zeroPoint, int zeroPointArg) {
    if (!zeroPoint) {
      vxorps(v, v, v);
      return;
    }
    mov(rdx, ptr[rdi + zeroPointArg * 8]);
    imul(edx, ptr[rdx], 0x01010101);
    vmovd(Xbyak::Xmm(v.getIdx()), edx);
    vpbroadcastd(v, Xbyak::Xmm(v.getIdx()));
  }

  /// `floats` (a multiple of the vector width) at `base` = `value`;
  /// clobbers rcx and rdx.
  template <typename Vmm>
  void fillPlane(const Xbyak::Reg64 &base, int64_t floats, const Vmm &value) {
    mov(rcx, base);
    mov(rdx, floats / lanes<Vmm>());
    Xbyak::Label loop;
    L(loop);
    vmovups(ptr[rcx], value);
    add(rcx, lanes<Vmm>() * 4);
    dec(rdx);
    jnz(loop, T_NEAR);
  }

  /// The plane at `src` into its place in the padded plane at `dst`
  /// (padding untouched); clobbers rcx, rdx, `counter`, `tmp` and the tail
  /// mask.
  template <typename Vmm>
  void copyIntoPlane(const PaddedPlane &p, const Xbyak::Reg64 &src, const Xbyak::Reg64 &dst,
                     const Xbyak::Reg64 &counter, const Vmm &tmp, const Vmm &avx2Mask) {
    const int64_t vecBytes = lanes<Vmm>() * 4;
    int64_t full = p.width / lanes<Vmm>(), tail = p.width % lanes<Vmm>();
    if (tail)
      setTailMask(static_cast<int>(tail), avx2Mask);
    mov(rcx, src);
    lea(rdx, ptr[dst + (p.padTop * p.cols + p.padLeft) * 4]);
    mov(counter, p.height);
    Xbyak::Label loop;
    L(loop);
    for (int64_t i = 0; i < full; ++i) {
      vmovups(tmp, ptr[rcx + i * vecBytes]);
      vmovups(ptr[rdx + i * vecBytes], tmp);
    }
    if (tail) {
      loadMasked(tmp, ptr[rcx + full * vecBytes], avx2Mask);
      storeMasked(ptr[rdx + full * vecBytes], tmp, avx2Mask);
    }
    add(rcx, p.width * 4);
    add(rdx, p.cols * 4);
    dec(counter);
    jnz(loop, T_NEAR);
  }

  /// On AVX-512, `index` = 0, 2, 4, ... (for loadStride2).
  template <typename Vmm> void setEvenIndex(const Vmm &index) {
    if constexpr (isZmm<Vmm>()) {
      std::vector<uint32_t> idx(lanes<Vmm>());
      for (int i = 0; i < lanes<Vmm>(); ++i)
        idx[i] = 2 * i;
      vmovups(index, dataAddr(idx));
    }
  }
  /// v = the even elements of the 2 * lanes floats at `a`.
  template <typename Vmm>
  void loadStride2(const Vmm &v, const Xbyak::RegExp &a, const Vmm &evenIndex) {
    vmovups(v, ptr[a]);
    if constexpr (isZmm<Vmm>()) {
      vpermt2ps(v, evenIndex, ptr[a + lanes<Vmm>() * 4]);
    } else {
      vshufps(v, v, ptr[a + lanes<Vmm>() * 4], 0x88); // a0 a2 b0 b2 | a4 a6 b4 b6
      vpermpd(v, v, 0xd8);                            // a0 a2 a4 a6 b0 b2 b4 b6
    }
  }
};

} // namespace mlir::nunc::x86

#endif // NUNC_CODEGEN_X86_PADDEDPLANE_H
