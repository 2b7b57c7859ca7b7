//===- QuantizeRowsKernel.cpp - dynamic u8 quantization per row -----------===//

#include "QuantizeRowsKernel.h"

#include <type_traits>

namespace mlir::nunc::x86 {

namespace {

using namespace Xbyak;

/// AVX-512 (zmm, k-masked tails, u8 stores) or AVX2 (ymm, vmaskmovps tails;
/// the row form stores whole vectors of 8: u8 for AVX-VNNI, 16-bit for the
/// AVX2 GEMM). The channel-block, range-pass and dequantized forms are the
/// same on both.
template <typename Vmm> class QuantizeRowsGenerator : public JitKernel {
public:
  static constexpr bool kAvx512 = std::is_same_v<Vmm, Zmm>;
  static constexpr int kLanes = kAvx512 ? 16 : 8;

  explicit QuantizeRowsGenerator(const QuantizeRowsConfig &config) : c(config) {
    replicate = kAvx512 ? 1 : 8;
  }

  void generate() {
    const int64_t per = QuantizeRowsKernel::rowsPerTask(c);
    full = c.k / kLanes;
    tail = static_cast<int>(c.k % kLanes);
    prologue();
    loadConstant(t300, 300.f);
    loadConstant(t300n, -300.f);
    if (c.rangePass || c.dequantized) {
      if (tail)
        tailMask(tail, mask, edx);
      if (c.rangePass)
        generateRangePass();
      else
        generateDequantized();
      return;
    }
    if (c.channels) {
      generateBlocks();
      return;
    }
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
    if (c.rowSums) // 16-byte rows
      lea(rcx, ptr[rcx + r10 * 8]);
    if (tail) {
      if constexpr (kAvx512) {
        mov(edx, (1u << tail) - 1);
        kmovw(k1, edx);
      } else {
        vmovups(mask, laneMask(tail, kLanes));
      }
    }
    auto advance = [&](Label &loop) {
      add(rax, c.k * 4);
      add(rbx, c.lda);
      add(rcx, c.rowSums ? 16 : 8);
      dec(r9);
      jnz(loop, T_NEAR);
    };
    // Every remaining row with the current parameters.
    auto allRows = [&](bool reciprocal) {
      Label rowLoop;
      L(rowLoop);
      quantizeRow(reciprocal);
      advance(rowLoop);
    };
    if (c.sumsOnly) {
      // The rows at [1] are already the grid's codes: only the row block.
      loadStaticParameters();
      if constexpr (kAvx512)
        vpxord(zero, zero, zero);
      Label rowLoop;
      L(rowLoop);
      mov(ptr[rcx], r8d);
      vmovss(ptr[rcx + 4], Xmm(scale.getIdx()));
      storeRowSum();
      add(rbx, c.lda);
      add(rcx, 16);
      dec(r9);
      jnz(rowLoop, T_NEAR);
      epilogueReturn(0);
      emitConstants();
      return;
    }
    if (c.u16Planes) {
      loadStaticParameters();
      broadcastParameters();
      mov(edx, 65535);
      vpbroadcastd(top, edx);
      vbroadcastss(hi, constScalar(kU16Bound));
      vbroadcastss(lo, constScalar(-kU16Bound));
      allRows(false);
    } else if (c.fixed) {
      // Static: the calibrated parameters, set once.
      loadStaticParameters();
      broadcastParameters();
      bool reciprocal = reciprocalDivides(c.scale);
      if (reciprocal)
        setReciprocal();
      allRows(reciprocal);
    } else if (c.perTensor) {
      // One task: the range of every row, then every row with it.
      Label rangeLoop, byDivision;
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
      finishRange();
      computeParameters();
      jumpUnlessReciprocalWorks(byDivision);
      setReciprocal();
      allRows(true);
      epilogueReturn(0);
      L(byDivision);
      allRows(false);
    } else {
      // Each row's own scale picks the reciprocal or the division code.
      // Pipelined: a row's parameters are a chain of reductions and
      // divisions (~100 cycles of latency, as long as the quantization of
      // a 384-wide row), so the next row's range, which does not depend on
      // them, is taken while they finish, before the row is quantized.
      Label rowLoop, byDivision, next, lastRow;
      resetRange();
      accumulateRange();
      L(rowLoop);
      finishRange();
      computeParameters();
      cmp(r9, 1);
      je(lastRow, T_NEAR);
      resetRange();
      accumulateRange(c.k * 4);
      L(lastRow);
      jumpUnlessReciprocalWorks(byDivision);
      setReciprocal();
      quantizeRow(true);
      jmp(next, T_NEAR);
      L(byDivision);
      quantizeRow(false);
      L(next);
      advance(rowLoop);
    }
    epilogueReturn(0);
    emitConstants();
  }

private:
  /// The convolution-input form (QuantizeRowsConfig::channels): a task
  /// per (image, group of 4 channels).
  void generateBlocks() {
    const int64_t groups = QuantizeRowsKernel::channelGroups(c);
    const int64_t planeBytes = c.k * 4;
    if (tail)
      tailMask(tail, mask, edx);
    bool reciprocal = true;
    Label byDivision;
    if (c.fixed) {
      mov(r8d, c.zeroPoint);
      broadcastParameters();
      vbroadcastss(scale, constScalar(c.scale));
      reciprocal = reciprocalDivides(c.scale);
    } else {
      combinePartialRanges(24);
      computeParameters();
    }
    // vpshufb within each 128-bit lane: byte 4 p + ch = byte 4 ch + p
    // (loaded after the parameters: on ymm its register is the range's).
    std::vector<uint32_t> order(kLanes);
    for (int i = 0; i < kLanes; ++i) {
      int p = i % 4; // dword within the lane = position
      order[i] = p | (4 + p) << 8 | (8 + p) << 16 | (12 + p) << 24;
    }
    if constexpr (kAvx512)
      vmovdqu32(interleave, dataAddr(order));
    else
      vmovdqu(interleave, dataAddr(order));
    // Task 0 publishes the (zero point, scale) pair.
    Label notFirst;
    test(rsi, rsi);
    jnz(notFirst, T_NEAR);
    mov(rcx, ptr[rdi + 16]);
    mov(ptr[rcx], r8d);
    vmovss(ptr[rcx + 4], Xmm(scale.getIdx()));
    L(notFirst);
    // x at plane image * C + 4 * group, the blocks at task * plane.
    mov(rax, rsi);
    xor_(edx, edx);
    mov(r9, groups);
    div(r9); // rax = image, rdx = group
    const int64_t inPlaneBytes = c.codes ? c.k : planeBytes;
    imul(rax, rax, c.channels * inPlaneBytes);
    imul(r9, rdx, 4 * inPlaneBytes);
    add(rax, r9);
    add(rax, ptr[rdi + 0]);
    imul(rbx, rsi, planeBytes);
    add(rbx, ptr[rdi + 8]);
    if (!c.fixed) // a dynamic scale is known only now
      jumpUnlessReciprocalWorks(byDivision);
    if (reciprocal) {
      setReciprocal();
      quantizeThisGroup(true);
      epilogueReturn(0);
    }
    if (!c.fixed || !reciprocal) {
      L(byDivision);
      quantizeThisGroup(false);
      epilogueReturn(0);
    }
    emitConstants();
  }

  /// The range: the partial ranges at task argument `argOffset` combined
  /// into mx and mn (every task alike, so the tasks need not wait for one
  /// another).
  void combinePartialRanges(int argOffset) {
    mov(rax, ptr[rdi + argOffset]);
    Xmm high = Xmm(mx.getIdx()), low = Xmm(mn.getIdx());
    vmovss(high, ptr[rax]);
    vmovss(low, ptr[rax + 4]);
    if (int64_t parts = QuantizeRowsKernel::partialRanges(c); parts > 1) {
      Label partLoop;
      mov(rcx, parts - 1);
      L(partLoop);
      add(rax, 8);
      vmaxss(high, high, ptr[rax]);
      vminss(low, low, ptr[rax + 4]);
      dec(rcx);
      jnz(partLoop, T_NEAR);
    }
    vbroadcastss(mx, high);
    vbroadcastss(mn, low);
  }

  /// The dequantized form: this task's rows of x rounded to the grid of the
  /// combined range, (q - zp) * scale, into y. In f32 throughout: the
  /// quotient rounded by adding and subtracting 1.5 * 2^23 (round half to
  /// even; +0 where round-then-add-zp-then-subtract gives +0, where
  /// vrndscaleps would keep -0), clamped to [-zp, 255 - zp] (NaN to -zp, as
  /// its code 0) and scaled. Past +-2^22 the rounding is off, but those
  /// quotients clamp anyway.
  void generateDequantized() {
    const int64_t per = QuantizeRowsKernel::rowsPerTask(c);
    combinePartialRanges(16);
    computeParameters();
    Xmm z = Xmm(qlo.getIdx());
    vcvtsi2ss(z, z, r8d);
    vbroadcastss(qlo, z);
    vbroadcastss(qhi, constScalar(255.f));
    vsubps(qhi, qhi, qlo); // 255 - zp
    clear(t);
    vsubps(qlo, t, qlo); // -zp
    vbroadcastss(magic, constScalar(12582912.f));
    // rax = x, rbx = y at the task's first row; r9 = its rows.
    taskShare(per, c.rows, r9, rdx);
    imul(rax, r10, c.k * 4);
    mov(rbx, rax);
    add(rax, ptr[rdi + 0]);
    add(rbx, ptr[rdi + 8]);
    Label byDivision;
    jumpUnlessReciprocalWorks(byDivision);
    setReciprocal();
    roundRows(true);
    epilogueReturn(0);
    L(byDivision);
    roundRows(false);
    epilogueReturn(0);
    emitConstants();
  }

  /// r9 rows of k floats from rax to rbx (see generateDequantized).
  void roundRows(bool reciprocal) {
    auto chunk = [&](bool masked) {
      Address in = ptr[rax + r10], out = ptr[rbx + r10];
      if (!masked)
        vmovups(x, in);
      else if constexpr (kAvx512)
        vmovups(x | k1 | T_z, in);
      else
        vmaskmovps(x, mask, in);
      if (reciprocal) {
        // A producer's partial ranges may miss values next to a NaN: past
        // +-300 scale the quotient could overflow (and FMA inf - inf).
        if (c.producedRanges) {
          vmaxps(x, lo, x);
          vminps(x, hi, x);
        }
        vmulps(t, x, recip);
        vfnmadd231ps(x, t, scale);
        vfmadd231ps(t, x, recip);
      } else {
        vdivps(t, x, scale);
      }
      vaddps(t, t, magic);
      vsubps(t, t, magic);
      vmaxps(t, t, qlo); // NaN: the second operand
      vminps(t, t, qhi);
      vmulps(t, t, scale);
      if (!masked)
        vmovups(out, t);
      else if constexpr (kAvx512)
        vmovups(out | k1, t);
      else
        vmaskmovps(out, mask, t);
    };
    Label rowLoop;
    L(rowLoop);
    forEachChunk(chunk, /*byteOffsets=*/false);
    add(rax, c.k * 4);
    add(rbx, c.k * 4);
    dec(r9);
    jnz(rowLoop, T_NEAR);
  }

  /// The group at rax (rdx = its index) into the blocks at rbx.
  void quantizeThisGroup(bool reciprocal) {
    const int64_t groups = QuantizeRowsKernel::channelGroups(c);
    if (c.channels % 4) {
      Label partial, done;
      cmp(rdx, groups - 1);
      je(partial, T_NEAR);
      quantizeGroup(4, reciprocal);
      jmp(done, T_NEAR);
      L(partial);
      quantizeGroup(static_cast<int>(c.channels % 4), reciprocal);
      L(done);
    } else {
      quantizeGroup(4, reciprocal);
    }
  }

  /// The dynamic form's range pass: each task's planes' (max, min), with 0
  /// in the range, into the partial ranges [task][2].
  void generateRangePass() {
    const int64_t per = QuantizeRowsKernel::planesPerRangeTask(c);
    imul(r10, rsi, per);
    mov(r9, c.rows);
    sub(r9, r10);
    mov(rax, per);
    cmp(r9, rax);
    cmovg(r9, rax);
    imul(rax, r10, c.k * 4);
    add(rax, ptr[rdi + 0]);
    resetRange();
    Label rangeLoop;
    L(rangeLoop);
    accumulateRange();
    add(rax, c.k * 4);
    dec(r9);
    jnz(rangeLoop, T_NEAR);
    finishRange();
    emitHorizontal(mx, t, Reduction::Max);
    emitHorizontal(mn, t, Reduction::Min);
    mov(rcx, ptr[rdi + 8]);
    vmovss(ptr[rcx + rsi * 8], Xmm(mx.getIdx()));
    vmovss(ptr[rcx + rsi * 8 + 4], Xmm(mn.getIdx()));
    epilogueReturn(0);
    emitConstants();
  }

  /// x (a quotient) clamped to [-300, 300], where u8 results saturate
  /// anyway: the conversion would turn any above 2^31 into INT_MIN, and so
  /// 0, not 255 (static scales and inputs far past their calibration).
  /// NaN stays NaN (vmaxps/vminps return the second operand then).
  void saturateQuotient() {
    vmaxps(x, t300n, x);
    vminps(x, t300, x);
  }

  /// To `byDivision` where the run-time scale is outside reciprocalDivides
  /// (or NaN).
  void jumpUnlessReciprocalWorks(Label &byDivision) {
    Xmm s = Xmm(scale.getIdx());
    vucomiss(s, constScalar(kSmallestReciprocalScale));
    jb(byDivision, T_NEAR); // also NaN
    vucomiss(s, constScalar(kLargestReciprocalScale));
    ja(byDivision, T_NEAR);
  }
  /// r8d and every lane of `scale`: the static grid's zero point and
  /// scale, from argument [3] (staticParameters). rdx is clobbered.
  void loadStaticParameters() {
    mov(rdx, ptr[rdi + 24]);
    mov(r8d, ptr[rdx]);
    vbroadcastss(scale, ptr[rdx + 4]);
  }

  /// recip = fl(1 / scale), hi = fl(300 scale), lo = -hi (every lane).
  void setReciprocal() {
    Xmm s = Xmm(scale.getIdx()), r = Xmm(recip.getIdx()), h = Xmm(hi.getIdx());
    vmovss(r, constScalar(1.f));
    vdivss(r, r, s);
    vbroadcastss(recip, r);
    vmulss(h, s, constScalar(300.f));
    vbroadcastss(hi, h);
    clear(lo);
    vsubps(lo, lo, hi);
  }

  /// `count` (1-4) channel planes at rax, plane by plane quantized and
  /// interleaved into 32-bit elements at rbx (missing channels: the zero
  /// point), dividing by the scale or (`reciprocal`, after setReciprocal)
  /// without vdivps. r10 walks the chunks, r11 counts them.
  void quantizeGroup(int count, bool reciprocal) {
    // u8 codes (`codes`): each channel's 16 (ymm: 8) bytes widened to dwords, r12
    // walking the planes' bytes.
    const int64_t planeBytes = c.codes ? c.k : c.k * 4;
    // Each channel's quotients + zero point as dwords; the packs saturate
    // them to [0, 255] (every value is within +-600 here, or INT_MIN + zp
    // for NaN: no wrap), and a byte shuffle puts each position's 4
    // channels together.
    auto chunk = [&](bool masked) {
      for (int j = 0; j < 4; ++j) {
        Vmm q = channel(j);
        if (j >= count) {
          if constexpr (kAvx512)
            vmovdqa32(q, zp);
          else
            vmovdqa(q, zp);
          continue;
        }
        if constexpr (!kAvx512) {
          if (c.codes) {
            // The tail's bytes one by one: 8-byte loads would read past x.
            const int64_t at = j * planeBytes;
            if (!masked) {
              vpmovzxbd(q, ptr[rax + r12 + at]);
            } else {
              Xmm b(q.getIdx());
              vpxor(b, b, b);
              for (int i = 0; i < tail; ++i)
                vpinsrb(b, b, byte[rax + r12 + at + i], i);
              vpmovzxbd(q, b);
            }
            continue;
          }
          if (masked)
            vmaskmovps(x, mask, ptr[rax + r10 + j * planeBytes]);
          else
            vmovups(x, ptr[rax + r10 + j * planeBytes]);
          quotientToInt(q, reciprocal);
          vpaddd(q, q, zp);
          continue;
        }
        if (c.codes) {
          Address a = ptr[rax + r12 + j * planeBytes];
          if (masked)
            vpmovzxbd(q | k1 | T_z, a);
          else
            vpmovzxbd(q, a);
          continue;
        }
        Address a = ptr[rax + r10 + j * planeBytes];
        if (masked)
          vmovups(x | k1 | T_z, a);
        else
          vmovups(x, a);
        quotientToInt(q, reciprocal);
        vpaddd(q, q, zp);
      }
      // Per 128-bit lane: words c0[0..3] c1[0..3] | c2 c3, then bytes c0..c3.
      vpackusdw(channel(0), channel(0), channel(1));
      vpackusdw(channel(2), channel(2), channel(3));
      vpackuswb(channel(0), channel(0), channel(2));
      vpshufb(channel(0), channel(0), interleave);
      if constexpr (kAvx512) {
        if (masked)
          vmovdqu32(ptr[rbx + r10] | k1, channel(0));
        else
          vmovdqu32(ptr[rbx + r10], channel(0));
      } else {
        if (masked)
          vmaskmovps(ptr[rbx + r10], mask, channel(0));
        else
          vmovdqu(ptr[rbx + r10], channel(0));
      }
    };
    forEachChunk(chunk, /*byteOffsets=*/true);
  }

  /// chunk(masked) for each whole vector of a row, then (masked) for its
  /// tail: r10 walks the row's floats in bytes, r12 (with `byteOffsets`)
  /// one byte per element; r11 counts.
  template <typename Chunk> void forEachChunk(Chunk chunk, bool byteOffsets) {
    xor_(r10d, r10d);
    if (byteOffsets)
      xor_(r12d, r12d);
    if (full) {
      Label loop;
      mov(r11, full);
      L(loop);
      chunk(false);
      add(r10, kLanes * 4);
      if (byteOffsets)
        add(r12, kLanes);
      dec(r11);
      jnz(loop, T_NEAR);
    }
    if (tail)
      chunk(true);
  }

  /// q = round_half_even(x / scale) as s32, saturating where the u8 result
  /// does; clobbers x and t. `reciprocal` (after setReciprocal): without
  /// vdivps (several times an FMA's cost per vector: ~7 % of MobileNet's
  /// int8 run, ~12 % of MiniLM's), as emitQuotient does but with the
  /// run-time scale and reciprocal in registers (checked against division
  /// exhaustively for |x| in [scale / 4, 300 scale]; below scale / 4 both
  /// round to 0). Unless `inRange` (the scale comes from a range holding
  /// every value), x is first clamped to +-fl(300 scale), where every
  /// quotient saturates anyway, so q cannot overflow: static inputs may lie
  /// far outside the calibrated range, and a producer's partial ranges may
  /// miss values next to a NaN.
  void quotientToInt(const Vmm &q, bool reciprocal, bool inRange = false) {
    if (reciprocal) {
      if (!inRange) {
        vmaxps(x, lo, x); // NaN stays NaN (the second operand)
        vminps(x, hi, x);
      }
      vmulps(t, x, recip);
      vfnmadd231ps(x, t, scale); // x - q * scale, exact
      vfmadd231ps(t, x, recip);
      vcvtps2dq(q, t);
    } else {
      vdivps(x, x, scale);
      saturateQuotient();
      vcvtps2dq(q, x);
    }
  }

  QuantizeRowsConfig c;
  /// Channel blocks: zmm15-18 and 19; on ymm the range's registers (mx,
  /// mn, its second chain) and top, free once the parameters are set.
  static constexpr int kYmmChannels[4] = {0, 1, 9, 15};
  Vmm channel(int j) { return Vmm(kAvx512 ? 15 + j : kYmmChannels[j]); }
  Vmm interleave = Vmm(kAvx512 ? 19 : 7);
  int64_t full = 0;
  int tail = 0;
  Vmm mx = Vmm(0), mn = Vmm(1), x = Vmm(2), t = Vmm(3), scale = Vmm(4), zp = Vmm(5),
      zero = Vmm(6), top = Vmm(7), mask = Vmm(8); // mask: AVX2 tails
  // 1 / scale and +-fl(300 scale) (channel blocks); +-300.
  Vmm recip = Vmm(10), hi = Vmm(11), lo = Vmm(12), t300 = Vmm(13), t300n = Vmm(14);
  // The row form's four-vector packs (AVX-512): the quotients (the channel
  // registers, unused there), zp in every word.
  Vmm quad(int j) { return Vmm(15 + j); }
  Vmm zpWords = Vmm(26);
  // The dequantized form: -zp and 255 - zp; 1.5 * 2^23 (on ymm the range's
  // registers, free once the parameters are set).
  Vmm qlo = Vmm(kAvx512 ? 27 : 0), qhi = Vmm(kAvx512 ? 28 : 1), magic = Vmm(kAvx512 ? 29 : 9);

  /// The row's x[i * kLanes ...] into x; masked-off tail lanes read as 0.
  void loadChunk(int64_t i, int64_t offset = 0) {
    Address a = ptr[rax + offset + i * kLanes * 4];
    if (i < full)
      vmovups(x, a);
    else if constexpr (kAvx512)
      vmovups(x | k1 | T_z, a);
    else
      vmaskmovps(x, mask, a);
  }

  /// v = 0 (vpxord: AVX-512F alone has no EVEX vxorps).
  void clear(const Vmm &v) {
    if constexpr (kAvx512)
      vpxord(v, v, v);
    else
      vpxor(v, v, v);
  }
  /// The range is kept in kChains (max, min) pairs, vector i of a row
  /// going to pair i % kChains: one pair made every vector wait on the
  /// previous max's latency (a 1536-wide row took ~4x the loads' time).
  static constexpr int kChains = kAvx512 ? 4 : 2;
  Vmm chainMax(int j) { return j ? Vmm(kAvx512 ? 18 + 2 * j : 9) : mx; }
  Vmm chainMin(int j) { return j ? Vmm(kAvx512 ? 19 + 2 * j : 15) : mn; }
  /// The range always includes 0 (so 0 is exact).
  void resetRange() {
    for (int j = 0; j < kChains; ++j) {
      clear(chainMax(j));
      clear(chainMin(j));
    }
  }
  /// Widens the range by the row at rax + offset (0 in masked-off lanes
  /// changes nothing). The chains are the second operands: vmaxps/vminps return it
  /// when either is NaN, so NaN is skipped and every other value of the row
  /// lies in the range (quantizeRow relies on it).
  void accumulateRange(int64_t offset = 0) {
    for (int64_t i = 0; i < full + (tail ? 1 : 0); ++i) {
      loadChunk(i, offset);
      vmaxps(chainMax(i % kChains), x, chainMax(i % kChains));
      vminps(chainMin(i % kChains), x, chainMin(i % kChains));
    }
  }
  /// The pairs combined into mx and mn.
  void finishRange() {
    for (int j = 1; j < kChains; ++j) {
      vmaxps(mx, mx, chainMax(j));
      vminps(mn, mn, chainMin(j));
    }
  }
  /// zp (from r8d), 0 and 255 in every lane.
  void broadcastParameters() {
    mov(edx, 255);
    if constexpr (kAvx512) {
      vpbroadcastd(zp, r8d);
      vpbroadcastw(zpWords, r8w);
      vpbroadcastd(top, edx);
    } else {
      vmovd(Xmm(zp.getIdx()), r8d);
      vpbroadcastd(zp, Xmm(zp.getIdx()));
      vmovd(Xmm(top.getIdx()), edx);
      vpbroadcastd(top, Xmm(top.getIdx()));
    }
    clear(zero);
  }
  /// scale (every lane) and zero point (every lane of zp, and r8d) of the
  /// range: scale = (max - min) / 255 (1 when all zeros), zp = round(clamp(
  /// -min / scale, 0, 255)).
  void computeParameters() {
    emitHorizontal(mx, t, Reduction::Max);
    emitHorizontal(mn, t, Reduction::Min);
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
  /// The row at rax into rbx (u8 zero padded to lda, or 16-bit elements in
  /// whole vectors), and its (zero point, scale) at rcx; `reciprocal`: the
  /// quotients without vdivps (after setReciprocal), which cost ~12 % of
  /// MiniLM's int8 run.
  void quantizeRow(bool reciprocal) {
    mov(ptr[rcx], r8d);
    vmovss(ptr[rcx + 4], Xmm(scale.getIdx()));
    if (c.u16Planes) {
      quantizeRowU16();
      return;
    }
    // A dynamic range holds every value but NaN (accumulateRange), so the
    // quotients lie within +-255 without the clamp.
    const bool inRange = !c.fixed;
    int64_t i = 0;
    if constexpr (kAvx512) {
      // Four vectors at a time (emitPackCodes). NaN's INT_MIN saturates to
      // -32768 and still gives 0.
      for (; i + 4 <= full; i += 4) {
        for (int j = 0; j < 4; ++j) {
          loadChunk(i + j);
          quotientToInt(quad(j), reciprocal, inRange);
        }
        emitPackCodes(quad(0), quad(1), quad(2), quad(3), zpWords, packCodeOrder(), t);
        vmovdqu32(ptr[rbx + i * 16], quad(0));
      }
    }
    for (; i < full + (tail ? 1 : 0); ++i) {
      loadChunk(i);
      quotientToInt(x, reciprocal, inRange);
      vpaddd(x, x, zp);
      vpmaxsd(x, x, zero);
      if constexpr (!kAvx512) // vpmovusdb saturates at 255 itself
        vpminsd(x, x, top);
      if constexpr (kAvx512) {
        if (i < full)
          vpmovusdb(ptr[rbx + i * 16], x);
        else
          vpmovusdb(ptr[rbx + i * 16] | k1, x);
      } else {
        vpackusdw(x, x, x); // words 0-3 | 4-7 in the low half of each lane
        vpermq(x, x, 0x08); // both halves into the low 128 bits
        if (c.isa == Int8Isa::AvxVnni) {
          vpackuswb(x, x, x); // bytes 0-7 in the low 64 bits
          vmovq(ptr[rbx + i * 8], Xmm(x.getIdx()));
        } else {
          vmovdqu(ptr[rbx + i * 16], Xmm(x.getIdx()));
        }
      }
    }
    if constexpr (kAvx512) {
      for (int64_t b = c.k; b < c.lda;) {
        if (c.lda - b >= 16) { // AMX rows pad K to 64
          vmovdqu(ptr[rbx + b], Xmm(zero.getIdx()));
          b += 16;
        } else {
          mov(byte[rbx + b], 0);
          ++b;
        }
      }
    }
    if (c.rowSums)
      storeRowSum();
  }

  /// Quotients beyond this many scales saturate a u16 code whatever the
  /// zero point; clamped to it first, they cannot overflow the conversion.
  static constexpr float kU16Bound = 70000.f;

  /// u16Planes: the row at rax as u16 codes, the high bytes at rbx and the
  /// low bytes at rbx + lda / 2 (hi, lo: +-kU16Bound; top: 65535). NaN
  /// converts to INT_MIN and ends at code 0, as in the u8 rows.
  void quantizeRowU16() {
    if constexpr (kAvx512) {
      const int64_t plane = c.lda / 2;
      for (int64_t i = 0; i < full + (tail ? 1 : 0); ++i) {
        loadChunk(i);
        vdivps(x, x, scale);
        vmaxps(x, lo, x); // NaN stays NaN (the second operand)
        vminps(x, hi, x);
        vcvtps2dq(x, x);
        vpaddd(x, x, zp);
        vpmaxsd(x, x, zero);
        vpminsd(x, x, top);
        auto store = [&](int64_t at) {
          if (i < full)
            vpmovdb(ptr[rbx + at + i * 16], x); // the low byte of each code
          else
            vpmovdb(ptr[rbx + at + i * 16] | k1, x);
        };
        store(plane);
        vpsrld(x, x, 8);
        store(0);
      }
      for (int64_t b = c.k; b < plane; ++b) {
        mov(byte[rbx + b], 0);
        mov(byte[rbx + plane + b], 0);
      }
    }
  }

  /// The sum S of the u8 row just written at rbx (rowSumToRdx) into the row
  /// block at rcx as the word pair (S mod 128, S / 128) and a 0.
  void storeRowSum() {
    rowSumToRdx();
    mov(r11, rdx);
    and_(edx, 127);
    shr(r11, 7);
    shl(r11, 16);
    or_(rdx, r11);
    mov(dword[rcx + 8], edx);
    mov(dword[rcx + 12], 0);
  }

  /// rdx = the sum of the row at rbx, read back by `vpsadbw` against 0
  /// (8-byte sums): 64 bytes at a time on zmm (the padding to lda is 0);
  /// on ymm 32 (the AVX-VNNI bytes, or the AVX2 16-bit elements, whose high
  /// bytes are 0), in whole groups of 8 values whose padding holds the zero
  /// point (r8d), taken off.
  void rowSumToRdx() {
    if constexpr (kAvx512) {
      Zmm sum = Zmm(30), bytes = Zmm(31);
      vpxord(sum, sum, sum);
      const int64_t full64 = c.lda / 64, rest = c.lda % 64;
      for (int64_t i = 0; i < full64; ++i) {
        vpsadbw(bytes, Zmm(zero.getIdx()), ptr[rbx + i * 64]);
        vpaddq(sum, sum, bytes);
      }
      if (rest) {
        mov(rdx, (uint64_t(1) << rest) - 1);
        kmovq(k2, rdx);
        vmovdqu8(bytes | k2 | T_z, ptr[rbx + full64 * 64]);
        vpsadbw(bytes, bytes, Zmm(zero.getIdx()));
        vpaddq(sum, sum, bytes);
      }
      vextracti64x4(Ymm(bytes.getIdx()), sum, 1);
      vpaddq(Ymm(sum.getIdx()), Ymm(sum.getIdx()), Ymm(bytes.getIdx()));
      vextracti32x4(Xmm(bytes.getIdx()), Ymm(sum.getIdx()), 1);
      vpaddq(Xmm(sum.getIdx()), Xmm(sum.getIdx()), Xmm(bytes.getIdx()));
      vpshufd(Xmm(bytes.getIdx()), Xmm(sum.getIdx()), 0x4e);
      vpaddq(Xmm(sum.getIdx()), Xmm(sum.getIdx()), Xmm(bytes.getIdx()));
      vmovq(rdx, Xmm(sum.getIdx()));
    } else {
      Ymm sum = Ymm(9), bytes = Ymm(15); // free in the row form
      const int64_t values = (c.k + 7) / 8 * 8;
      const int64_t written = values * (c.isa == Int8Isa::Avx2 ? 2 : 1);
      vpxor(sum, sum, sum);
      int64_t at = 0;
      for (; at + 32 <= written; at += 32) {
        vpsadbw(bytes, Ymm(zero.getIdx()), ptr[rbx + at]);
        vpaddq(sum, sum, bytes);
      }
      for (; at < written; at += 8) {
        vmovq(Xmm(bytes.getIdx()), ptr[rbx + at]);
        vpsadbw(Xmm(bytes.getIdx()), Xmm(bytes.getIdx()), Xmm(zero.getIdx()));
        vpaddq(sum, sum, bytes);
      }
      vextracti128(Xmm(bytes.getIdx()), sum, 1);
      vpaddq(Xmm(sum.getIdx()), Xmm(sum.getIdx()), Xmm(bytes.getIdx()));
      vpshufd(Xmm(bytes.getIdx()), Xmm(sum.getIdx()), 0x4e);
      vpaddq(Xmm(sum.getIdx()), Xmm(sum.getIdx()), Xmm(bytes.getIdx()));
      vmovq(rdx, Xmm(sum.getIdx()));
      if (values > c.k) {
        imul(r11d, r8d, static_cast<uint32_t>(values - c.k));
        sub(rdx, r11);
      }
    }
  }
};

} // namespace

std::unique_ptr<JitKernel> QuantizeRowsKernel::generate(const QuantizeRowsConfig &config) {
  bool zmm = config.isa == Int8Isa::Avx512Vnni || config.isa == Int8Isa::Amx;
  if (config.codes && (!config.channels || !config.fixed))
    return nullptr; // u8 codes are a static grid's, blocked for a convolution
  if (config.dequantized && (config.fixed || config.channels))
    return nullptr; // a run-time grid, rows
  if (config.rowSums && (config.channels || config.dequantized))
    return nullptr; // the row form's u8 rows
  if (config.sumsOnly && (!config.rowSums || !config.fixed || !zmm || config.channels))
    return nullptr; // a static grid's u8 rows, AVX-512
  if (config.u16Planes && (!config.fixed || !zmm || config.channels || config.dequantized ||
                           config.rowSums || config.perTensor || config.lda % 2 ||
                           config.lda / 2 < config.k))
    return nullptr; // a static grid's rows in two planes, AVX-512
  return generatedFor<QuantizeRowsGenerator>(zmm ? Isa::Avx512 : Isa::Avx2, config);
}

} // namespace mlir::nunc::x86
