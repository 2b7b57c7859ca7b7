//===- QuantizeRowsKernel.cpp - dynamic u8 quantization per row -----------===//

#include "QuantizeRowsKernel.h"

namespace mlir::nunc::x86 {

namespace {

using namespace Xbyak;

class QuantizeRowsGenerator : public JitKernel {
public:
  static constexpr int kLanes = 16;

  explicit QuantizeRowsGenerator(const QuantizeRowsConfig &config) : c(config) {
    replicate = 1;
  }

  void generate() {
    const int64_t per = QuantizeRowsKernel::rowsPerTask(c);
    full = c.k / kLanes;
    tail = static_cast<int>(c.k % kLanes);
    prologue();
    imul(r10, rsi, per);
    mov(r9, c.rows);
    sub(r9, r10);
    mov(rax, per);
    cmp(r9, rax);
    cmovg(r9, rax);
    mov(rax, ptr[rdi + 0]); // x row
    imul(rdx, r10, c.k * 4);
    add(rax, rdx);
    mov(rbx, ptr[rdi + 8]); // q row
    imul(rdx, r10, c.lda);
    add(rbx, rdx);
    mov(rcx, ptr[rdi + 16]); // row block
    lea(rcx, ptr[rcx + r10 * 8]);
    if (tail) {
      mov(edx, (1u << tail) - 1);
      kmovw(k1, edx);
    }
    auto advance = [&](Label &loop) {
      add(rax, c.k * 4);
      add(rbx, c.lda);
      add(rcx, 8);
      dec(r9);
      jnz(loop, T_NEAR);
    };
    if (c.fixed) {
      // Static: the calibrated parameters, set once.
      mov(r8d, c.zeroPoint);
      vpbroadcastd(zp, r8d);
      vbroadcastss(scale, constScalar(c.scale));
      vpxord(zero, zero, zero);
      mov(edx, 255);
      vpbroadcastd(top, edx);
      Label rowLoop;
      L(rowLoop);
      quantizeRow();
      advance(rowLoop);
    } else if (c.perTensor) {
      // One task: the range of every row, then every row with it.
      Label rangeLoop, rowLoop;
      push(rax);
      push(r9);
      resetRange();
      L(rangeLoop);
      accumulateRange();
      add(rax, c.k * 4);
      dec(r9);
      jnz(rangeLoop, T_NEAR);
      pop(r9);
      pop(rax);
      computeParameters();
      L(rowLoop);
      quantizeRow();
      advance(rowLoop);
    } else {
      Label rowLoop;
      L(rowLoop);
      resetRange();
      accumulateRange();
      computeParameters();
      quantizeRow();
      advance(rowLoop);
    }
    epilogueReturn(0);
    emitConstants();
  }

private:
  QuantizeRowsConfig c;
  int64_t full = 0;
  int tail = 0;

  /// Reduces the lanes of v into lane 0 (max or min).
  void reduce(const Zmm &v, const Zmm &t, bool max) {
    auto op = [&](const Zmm &a, const Zmm &b) { max ? vmaxps(a, a, b) : vminps(a, a, b); };
    vshuff32x4(t, v, v, 0x4e);
    op(v, t);
    vshuff32x4(t, v, v, 0xb1);
    op(v, t);
    vpermilps(t, v, 0x4e);
    op(v, t);
    vpermilps(t, v, 0xb1);
    op(v, t);
  }

  Zmm mx = zmm0, mn = zmm1, x = zmm2, t = zmm3, scale = zmm4, zp = zmm5, zero = zmm6,
      top = zmm7;

  /// The range always includes 0 (so 0 is exact).
  void resetRange() {
    vpxord(mx, mx, mx);
    vpxord(mn, mn, mn);
  }
  /// Widens the range by the row at rax.
  void accumulateRange() {
    for (int64_t i = 0; i < full; ++i) {
      vmaxps(mx, mx, ptr[rax + i * 64]);
      vminps(mn, mn, ptr[rax + i * 64]);
    }
    if (tail) {
      vmovups(x | k1 | T_z, ptr[rax + full * 64]);
      vmaxps(mx, mx, x);
      vminps(mn, mn, x);
    }
  }
  /// scale (every lane) and zero point (every lane of zp, and r8d) of the
  /// range: scale = (max - min) / 255 (1 when all zeros), zp = round(clamp(
  /// -min / scale, 0, 255)).
  void computeParameters() {
    reduce(mx, t, true);
    reduce(mn, t, false);
    Xmm s = Xmm(scale.getIdx());
    vsubss(s, Xmm(mx.getIdx()), Xmm(mn.getIdx()));
    vdivss(s, s, constScalar(255.f));
    Label nonzero;
    vxorps(Xmm(t.getIdx()), Xmm(t.getIdx()), Xmm(t.getIdx()));
    vucomiss(s, Xmm(t.getIdx()));
    jne(nonzero, T_NEAR);
    vmovss(s, constScalar(1.f));
    L(nonzero);
    Xmm z = Xmm(zp.getIdx());
    vxorps(z, z, z);
    vsubss(z, z, Xmm(mn.getIdx()));
    vdivss(z, z, s);
    vminss(z, z, constScalar(255.f));
    vmaxss(z, z, constScalar(0.f));
    vcvtss2si(r8d, z); // round half to even (MXCSR default)
    vpbroadcastd(zp, r8d);
    vbroadcastss(scale, s);
    vpxord(zero, zero, zero);
    mov(edx, 255);
    vpbroadcastd(top, edx);
  }
  /// The row at rax into u8 at rbx (zero padded to lda), and its (zero
  /// point, scale) at rcx.
  void quantizeRow() {
    mov(ptr[rcx], r8d);
    vmovss(ptr[rcx + 4], Xmm(scale.getIdx()));
    auto quantize = [&](const Zmm &v) {
      vdivps(v, v, scale);
      vcvtps2dq(v, v);
      vpaddd(v, v, zp);
      vpmaxsd(v, v, zero);
      vpminsd(v, v, top);
    };
    for (int64_t i = 0; i < full; ++i) {
      vmovups(x, ptr[rax + i * 64]);
      quantize(x);
      vpmovusdb(ptr[rbx + i * 16], x);
    }
    if (tail) {
      vmovups(x | k1 | T_z, ptr[rax + full * 64]);
      quantize(x);
      vpmovusdb(ptr[rbx + full * 16] | k1, x);
    }
    for (int64_t b = c.k; b < c.lda; ++b)
      mov(byte[rbx + b], 0);
  }
};

/// The AVX2 form: ymm, masked loads for the row tail, 16-bit stores of
/// whole vectors of 8.
class QuantizeRowsAvx2Generator : public JitKernel {
public:
  static constexpr int kLanes = 8;

  explicit QuantizeRowsAvx2Generator(const QuantizeRowsConfig &config) : c(config) {
    replicate = 8;
  }

  void generate() {
    const int64_t per = QuantizeRowsKernel::rowsPerTask(c);
    full = c.k / kLanes;
    tail = static_cast<int>(c.k % kLanes);
    prologue();
    imul(r10, rsi, per);
    mov(r9, c.rows);
    sub(r9, r10);
    mov(rax, per);
    cmp(r9, rax);
    cmovg(r9, rax);
    mov(rax, ptr[rdi + 0]); // x row
    imul(rdx, r10, c.k * 4);
    add(rax, rdx);
    mov(rbx, ptr[rdi + 8]); // q row
    imul(rdx, r10, c.lda);
    add(rbx, rdx);
    mov(rcx, ptr[rdi + 16]); // row block
    lea(rcx, ptr[rcx + r10 * 8]);
    if (tail) {
      std::vector<uint32_t> laneMask(kLanes, 0);
      for (int i = 0; i < tail; ++i)
        laneMask[i] = 0xffffffffu;
      vmovups(mask, dataAddr(laneMask));
    }
    auto advance = [&](Label &loop) {
      add(rax, c.k * 4);
      add(rbx, c.lda);
      add(rcx, 8);
      dec(r9);
      jnz(loop, T_NEAR);
    };
    if (c.fixed) {
      mov(r8d, c.zeroPoint);
      broadcastParameters();
      vbroadcastss(scale, constScalar(c.scale));
      Label rowLoop;
      L(rowLoop);
      quantizeRow();
      advance(rowLoop);
    } else if (c.perTensor) {
      Label rangeLoop, rowLoop;
      push(rax);
      push(r9);
      resetRange();
      L(rangeLoop);
      accumulateRange();
      add(rax, c.k * 4);
      dec(r9);
      jnz(rangeLoop, T_NEAR);
      pop(r9);
      pop(rax);
      computeParameters();
      L(rowLoop);
      quantizeRow();
      advance(rowLoop);
    } else {
      Label rowLoop;
      L(rowLoop);
      resetRange();
      accumulateRange();
      computeParameters();
      quantizeRow();
      advance(rowLoop);
    }
    epilogueReturn(0);
    emitConstants();
  }

private:
  QuantizeRowsConfig c;
  int64_t full = 0;
  int tail = 0;
  Ymm mx = ymm0, mn = ymm1, x = ymm2, t = ymm3, scale = ymm4, zp = ymm5, zero = ymm6,
      top = ymm7, mask = ymm8;

  void reduce(const Ymm &v, bool max) {
    auto op = [&](const Ymm &a, const Ymm &b) { max ? vmaxps(a, a, b) : vminps(a, a, b); };
    vperm2f128(t, v, v, 0x01);
    op(v, t);
    vpermilps(t, v, 0x4e);
    op(v, t);
    vpermilps(t, v, 0xb1);
    op(v, t);
  }
  void resetRange() {
    vxorps(mx, mx, mx);
    vxorps(mn, mn, mn);
  }
  /// Masked-off lanes read as 0, which the range holds anyway.
  void accumulateRange() {
    for (int64_t i = 0; i < full; ++i) {
      vmaxps(mx, mx, ptr[rax + i * 32]);
      vminps(mn, mn, ptr[rax + i * 32]);
    }
    if (tail) {
      vmaskmovps(x, mask, ptr[rax + full * 32]);
      vmaxps(mx, mx, x);
      vminps(mn, mn, x);
    }
  }
  /// zp (from r8d), 0 and 255 in every lane.
  void broadcastParameters() {
    vmovd(Xmm(zp.getIdx()), r8d);
    vpbroadcastd(zp, Xmm(zp.getIdx()));
    vpxor(zero, zero, zero);
    mov(edx, 255);
    vmovd(Xmm(top.getIdx()), edx);
    vpbroadcastd(top, Xmm(top.getIdx()));
  }
  /// As the AVX-512 generator: scale = (max - min) / 255 (1 when all
  /// zeros), zp = round(clamp(-min / scale, 0, 255)).
  void computeParameters() {
    reduce(mx, true);
    reduce(mn, false);
    Xmm s = Xmm(scale.getIdx()), tx = Xmm(t.getIdx());
    vsubss(s, Xmm(mx.getIdx()), Xmm(mn.getIdx()));
    vdivss(s, s, constScalar(255.f));
    Label nonzero;
    vxorps(tx, tx, tx);
    vucomiss(s, tx);
    jne(nonzero, T_NEAR);
    vmovss(s, constScalar(1.f));
    L(nonzero);
    Xmm z = Xmm(zp.getIdx());
    vxorps(z, z, z);
    vsubss(z, z, Xmm(mn.getIdx()));
    vdivss(z, z, s);
    vminss(z, z, constScalar(255.f));
    vmaxss(z, z, constScalar(0.f));
    vcvtss2si(r8d, z); // round half to even (MXCSR default)
    vbroadcastss(scale, s);
    broadcastParameters();
  }
  void quantizeRow() {
    mov(ptr[rcx], r8d);
    vmovss(ptr[rcx + 4], Xmm(scale.getIdx()));
    auto quantizeAndStore = [&](int64_t i) {
      vdivps(x, x, scale);
      vcvtps2dq(x, x);
      vpaddd(x, x, zp);
      vpmaxsd(x, x, zero);
      vpminsd(x, x, top);
      vpackusdw(x, x, x);    // words 0-3 | 4-7 in the low half of each lane
      vpermq(x, x, 0x08);    // both halves into the low 128 bits
      vmovdqu(ptr[rbx + i * 16], Xmm(x.getIdx()));
    };
    for (int64_t i = 0; i < full; ++i) {
      vmovups(x, ptr[rax + i * 32]);
      quantizeAndStore(i);
    }
    if (tail) {
      vmaskmovps(x, mask, ptr[rax + full * 32]);
      quantizeAndStore(full);
    }
  }
};

} // namespace

std::unique_ptr<JitKernel> QuantizeRowsKernel::generate(const QuantizeRowsConfig &config) {
  std::unique_ptr<JitKernel> g;
  if (config.isa == Isa::Avx512) {
    auto v = std::make_unique<QuantizeRowsGenerator>(config);
    v->generate();
    g = std::move(v);
  } else {
    auto v = std::make_unique<QuantizeRowsAvx2Generator>(config);
    v->generate();
    g = std::move(v);
  }
  if (!g->finish())
    return nullptr;
  return g;
}

} // namespace mlir::nunc::x86
