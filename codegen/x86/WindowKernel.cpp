//===- WindowKernel.cpp - pooling and depthwise conv (xbyak) --------------===//

#include "WindowKernel.h"
#include "PaddedPlane.h"

#include <algorithm>
#include <limits>
#include <type_traits>

namespace mlir::nunc::x86 {

namespace {
int64_t lanesOf(Isa isa) { return isa == Isa::Avx512 ? 16 : 8; }
int64_t chunksOf(const WindowConfig &c, int64_t lanes) { return (c.outW + lanes - 1) / lanes; }
PaddedPlane paddedPlane(const WindowConfig &c, Isa isa) {
  return PaddedPlane::forWindow(c.height, c.width, c.kernelH, c.kernelW, c.strideH, c.strideW,
                                c.dilationH, c.dilationW, c.padTop, c.padLeft, c.outH, c.outW,
                                lanesOf(isa));
}

/// Output rows computed together (see WindowGenerator::kRows).
int64_t rowsPerBlock(Isa isa) { return isa == Isa::Avx512 ? 4 : 2; }

/// Stride 2 in W: the padded rows a block of output rows reads are split
/// into their even and odd columns (`half` floats each, even first) in a
/// small buffer that stays in L1, so that every tap of an output vector is
/// one plain load instead of a two-vector permute per tap. (Splitting the
/// whole plane at once measured 2x slower: its stores miss L1.)
struct SplitRows {
  int64_t half = 0;   // floats per half row (a multiple of the vector width)
  int64_t rows = 0;   // padded rows of one block
  int64_t offset = 0; // floats from the padded plane to the split rows
  int64_t taskFloats = 0;
};
SplitRows splitRows(const WindowConfig &c, Isa isa) {
  int64_t lanes = lanesOf(isa);
  PaddedPlane p = paddedPlane(c, isa);
  SplitRows s;
  s.taskFloats = p.floats;
  if (c.strideW != 2)
    return s;
  s.half = (chunksOf(c, lanes) * lanes + (c.kernelW - 1) * c.dilationW / 2 + lanes - 1) / lanes *
           lanes;
  s.rows = (rowsPerBlock(isa) - 1) * c.strideH + (c.kernelH - 1) * c.dilationH + 1;
  // Splitting the last row reads 2 * half floats from its start: slack
  // after the padded plane (never read by a valid output).
  s.offset = p.floats + 2 * s.half;
  s.taskFloats = s.offset + s.rows * 2 * s.half;
  return s;
}
} // namespace

bool WindowKernel::supports(const WindowConfig &c) {
  if (c.kind == WindowConfig::GlobalAverage)
    return true;
  return (c.strideW == 1 || c.strideW == 2) && c.kernelH * c.kernelW <= 64 && c.outH > 0 &&
         c.outW > 0 && c.padTop >= 0 && c.padLeft >= 0;
}

int64_t WindowKernel::planesPerTask(const WindowConfig &c) {
  int64_t planes = c.batch * c.channels;
  // Tasks of at least ~16K input floats, at most 32 of them.
  int64_t byWork = std::max<int64_t>(1, 16384 / std::max<int64_t>(1, c.height * c.width));
  return std::max<int64_t>(byWork, (planes + 31) / 32);
}

int64_t WindowKernel::numTasks(const WindowConfig &c) {
  int64_t planes = c.batch * c.channels;
  return (planes + planesPerTask(c) - 1) / planesPerTask(c);
}

int64_t WindowKernel::scratchBytes(const WindowConfig &c, Isa isa) {
  if (c.kind == WindowConfig::GlobalAverage)
    return 0;
  return numTasks(c) * splitRows(c, isa).taskFloats * 4;
}

int64_t WindowKernel::mapRowFloats(const WindowConfig &c, Isa isa) {
  return chunksOf(c, lanesOf(isa)) * lanesOf(isa);
}

std::vector<float> WindowKernel::prepareDivisors(WindowConfig &c, Isa isa) {
  auto taps = [&](int64_t o, int64_t stride, int64_t padBegin, int64_t padEnd, int64_t k,
                  int64_t dilation, int64_t n) {
    int64_t count = 0;
    for (int64_t t = 0; t < k; ++t) {
      int64_t x = o * stride - padBegin + t * dilation;
      count += c.countIncludePad ? (x >= -padBegin && x < n + padEnd) : (x >= 0 && x < n);
    }
    return count;
  };
  int64_t row = mapRowFloats(c, isa);
  std::vector<float> map(c.outH * row, 0.f);
  bool uniform = true;
  for (int64_t oh = 0; oh < c.outH; ++oh)
    for (int64_t ow = 0; ow < c.outW; ++ow) {
      int64_t divisor =
          taps(oh, c.strideH, c.padTop, c.padBottom, c.kernelH, c.dilationH, c.height) *
          taps(ow, c.strideW, c.padLeft, c.padRight, c.kernelW, c.dilationW, c.width);
      float r = divisor ? 1.f / divisor : 0.f;
      map[oh * row + ow] = r;
      uniform &= r == map[0];
    }
  c.uniformDivisor = uniform;
  c.reciprocal = map.empty() ? 1.f : map[0];
  if (uniform)
    map.clear();
  return map;
}

namespace {

using namespace Xbyak;

template <typename Vmm> class WindowGenerator : public PlaneGenerator {
public:
  static constexpr bool kAvx512 = std::is_same_v<Vmm, Zmm>;
  static constexpr int kLanes = kAvx512 ? 16 : 8;
  static constexpr int kVecBytes = kLanes * 4;
  /// A block of kRows output rows x kGroup output vectors is computed
  /// together: each input vector loaded serves every output row whose
  /// window covers it (up to 3 for a 3x3 stride-1 window).
  static constexpr int kRows = kAvx512 ? 4 : 2; // = rowsPerBlock
  static constexpr int kGroup = kAvx512 ? 4 : 2;
  /// Depthwise filters of at most this many taps stay in registers.
  static constexpr int kWeightRegs = 9;

  explicit WindowGenerator(const WindowConfig &config)
      : c(config), plane(paddedPlane(config, kAvx512 ? Isa::Avx512 : Isa::Avx2)),
        split(splitRows(config, kAvx512 ? Isa::Avx512 : Isa::Avx2)) {
    replicate = kAvx512 ? 1 : 8;
  }

  void generate() {
    prologue();
    int64_t per = WindowKernel::planesPerTask(c);
    int64_t planes = c.batch * c.channels;
    // r10 = first plane; r9 = planes of this task.
    imul(r10, rsi, per);
    mov(r9, planes);
    sub(r9, r10);
    mov(rax, per);
    cmp(r9, rax);
    cmovg(r9, rax);
    int64_t inPlane = c.height * c.width * 4;
    int64_t outPlane = c.kind == WindowConfig::GlobalAverage ? 4 : c.outH * c.outW * 4;
    mov(rax, ptr[rdi + 0]);
    imul(rdx, r10, inPlane);
    add(rax, rdx); // x plane
    mov(rbx, ptr[rdi + 8]);
    imul(rdx, r10, outPlane);
    add(rbx, rdx); // y plane
    if (c.kind == WindowConfig::GlobalAverage) {
      globalAverage();
    } else {
      mov(r8, ptr[rdi + 16]);
      imul(rdx, rsi, split.taskFloats * 4);
      add(r8, rdx); // this task's padded plane
      // The padding (-inf for max, else 0) is written once per task.
      loadConstant(padReg(), padValue());
      fillPlane(r8, plane.floats, padReg());
      Label planeLoop;
      L(planeLoop);
      copyIntoPlane(plane, rax, r8, r13, tap(0), tailMask());
      windowPlane();
      add(rax, inPlane);
      add(rbx, outPlane);
      inc(r10);
      dec(r9);
      jnz(planeLoop, T_NEAR);
    }
    epilogueReturn(0);
    emitConstants();
  }

private:
  WindowConfig c;
  PaddedPlane plane;
  SplitRows split;

  // AVX-512: accumulators 0..15, loaded taps 16..17, weights 18..26, the
  // pad value 28. AVX2: accumulators 0..3, taps 4..5, weights 6..14 (the
  // pad value of max pooling, which has none, in 6), the tail mask 15.
  Vmm acc(int i, int j) { return Vmm(i * kGroup + j); }
  Vmm tap(int t) { return Vmm((kAvx512 ? 16 : 4) + t); }
  Vmm weight(int t) { return Vmm((kAvx512 ? 18 : 6) + t); }
  Vmm padReg() { return Vmm(kAvx512 ? 28 : 6); }
  Vmm tailMask() { return Vmm(15); } // AVX2 masked tails

  bool depthwise() const { return c.kind == WindowConfig::Depthwise; }
  bool mapped() const { return c.kind == WindowConfig::Average && !c.uniformDivisor; }
  int64_t taps() const { return c.kernelH * c.kernelW; }
  bool weightsInRegisters() const { return depthwise() && taps() <= kWeightRegs; }

  float padValue() const {
    return c.kind == WindowConfig::Max ? -std::numeric_limits<float>::infinity() : 0.f;
  }

  /// Padded rows [0, rows) at r14 into their even/odd halves at rsi;
  /// clobbers the taps and the accumulators.
  void splitBlockRows(int64_t rows) {
    int64_t vectors = split.half / kLanes;
    Vmm evenIndex = acc(0, 0), oddIndex = acc(0, 1), hiReg = acc(0, 2);
    if constexpr (kAvx512) {
      std::vector<uint32_t> even(kLanes), odd(kLanes);
      for (int i = 0; i < kLanes; ++i) {
        even[i] = 2 * i;
        odd[i] = 2 * i + 1;
      }
      vmovups(evenIndex, dataAddr(even));
      vmovups(oddIndex, dataAddr(odd));
    }
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t v = 0; v < vectors; ++v) {
        int64_t from = (r * plane.cols + 2 * v * kLanes) * 4;
        Address lo = ptr[r14 + from], hi = ptr[r14 + from + kVecBytes];
        if constexpr (kAvx512) {
          vmovups(tap(0), lo);
          vmovups(hiReg, hi);
          vmovaps(tap(1), tap(0));
          vpermt2ps(tap(0), evenIndex, hiReg);
          vpermt2ps(tap(1), oddIndex, hiReg);
        } else {
          vmovups(hiReg, lo);
          vshufps(tap(0), hiReg, hi, 0x88); // a0 a2 b0 b2 | a4 a6 b4 b6
          vshufps(tap(1), hiReg, hi, 0xdd); // a1 a3 b1 b3 | a5 a7 b5 b7
          vpermpd(tap(0), tap(0), 0xd8);
          vpermpd(tap(1), tap(1), 0xd8);
        }
        int64_t to = (r * 2 * split.half + v * kLanes) * 4;
        vmovups(ptr[rsi + to], tap(0));
        vmovups(ptr[rsi + to + split.half * 4], tap(1));
      }
  }

  /// Where tap column kw of input row r (relative to the block's first
  /// input row at r14) lies for output vector `chunk`.
  Address tapAddress(int64_t r, int64_t kw, int64_t chunk) {
    int64_t column = kw * c.dilationW;
    if (c.strideW == 1)
      return ptr[r14 + (r * plane.cols + column) * 4 + chunk * kVecBytes];
    int64_t inRow = (column & 1) * split.half + (column >> 1);
    return ptr[rsi + (r * 2 * split.half + inRow) * 4 + chunk * kVecBytes];
  }

  /// acc (op)= the tap `t` (filter index) read from `src`.
  void accumulate(const Vmm &a, const Operand &src, int64_t t) {
    switch (c.kind) {
    case WindowConfig::Max:
      vmaxps(a, a, src);
      break;
    case WindowConfig::Average:
      vaddps(a, a, src);
      break;
    default:
      if (weightsInRegisters()) {
        vfmadd231ps(a, weight(static_cast<int>(t)), src);
      } else if constexpr (kAvx512) {
        // src is a register here (see rowBlock).
        vfmadd231ps(a, static_cast<const Vmm &>(src), ptr_b[r11 + t * 4]);
      } else {
        vbroadcastss(weight(0), ptr[r11 + t * 4]);
        vfmadd231ps(a, weight(0), src);
      }
      break;
    }
  }

  /// Output rows [0, rows) at r15 from the input rows at r14.
  void rowBlock(int rows) {
    int64_t chunks = chunksOf(c, kLanes);
    int tail = c.outW % kLanes;
    int64_t inRows = (rows - 1) * c.strideH + (c.kernelH - 1) * c.dilationH + 1;
    int64_t rowBytes = c.outW * 4;
    if (c.strideW == 2)
      splitBlockRows(inRows);
    for (int64_t g0 = 0; g0 < chunks; g0 += kGroup) {
      int n = static_cast<int>(std::min<int64_t>(kGroup, chunks - g0));
      if (weightsInRegisters())
        for (int64_t t = 0; t < taps(); ++t)
          vbroadcastss(weight(static_cast<int>(t)), ptr[r11 + t * 4]);
      for (int i = 0; i < rows; ++i)
        for (int j = 0; j < n; ++j) {
          if (c.kind == WindowConfig::Max)
            vmovaps(acc(i, j), padReg());
          else if (depthwise() && c.bias)
            vbroadcastss(acc(i, j), ptr[r12]);
          else
            vxorps(acc(i, j), acc(i, j), acc(i, j));
        }
      for (int64_t r = 0; r < inRows; ++r) {
        // The (output row, filter row) pairs that read input row r.
        std::vector<std::pair<int, int64_t>> uses;
        for (int i = 0; i < rows; ++i) {
          int64_t d = r - i * c.strideH;
          if (d >= 0 && d % c.dilationH == 0 && d / c.dilationH < c.kernelH)
            uses.push_back({i, d / c.dilationH});
        }
        if (uses.empty())
          continue;
        for (int64_t kw = 0; kw < c.kernelW; ++kw)
          for (int j = 0; j < n; ++j) {
            Address a = tapAddress(r, kw, g0 + j);
            // One use reads memory directly (unless the filter is a memory
            // broadcast, which needs the tap in a register).
            bool direct = uses.size() == 1 && (!depthwise() || weightsInRegisters() || !kAvx512);
            if (!direct)
              vmovups(tap(j & 1), a);
            for (auto [i, kh] : uses) {
              if (direct)
                accumulate(acc(i, j), a, kh * c.kernelW + kw);
              else
                accumulate(acc(i, j), tap(j & 1), kh * c.kernelW + kw);
            }
          }
      }
      // Epilogue and store.
      for (int i = 0; i < rows; ++i)
        for (int j = 0; j < n; ++j) {
          int64_t chunk = g0 + j;
          bool isTail = tail && chunk == chunks - 1;
          int64_t outDisp = i * rowBytes + chunk * kVecBytes;
          Vmm y = acc(i, j);
          if (c.kind == WindowConfig::Average) {
            if (mapped())
              vmulps(y, y, ptr[r11 + (i * chunks + chunk) * kVecBytes]);
            else
              vmulps(y, y, constAddr(c.reciprocal));
          }
          if (depthwise() && c.residual) {
            if (!isTail) {
              vaddps(y, y, ptr[rbp + outDisp]);
            } else {
              loadMasked(tap(0), ptr[rbp + outDisp], tailMask());
              vaddps(y, y, tap(0));
            }
          }
          // The filter is no longer needed: its registers are the temporaries.
          if (depthwise())
            emitActivation(y, c.activation, weight(0), weight(1), weight(2), weight(3));
          if (isTail)
            storeMasked(ptr[r15 + outDisp], y, tailMask());
          else
            vmovups(ptr[r15 + outDisp], y);
        }
    }
  }

  void windowPlane() {
    int tail = c.outW % kLanes;
    if (tail)
      setTailMask(tail, tailMask());
    if (depthwise()) {
      // r11 = this channel's filter, r12 = its bias: channel = plane % C.
      push(rax);
      mov(rax, r10);
      xor_(edx, edx);
      mov(rcx, c.channels);
      div(rcx);
      pop(rax);
      mov(r11, ptr[rdi + 24]);
      imul(rcx, rdx, taps() * 4);
      add(r11, rcx);
      if (c.bias) {
        mov(r12, ptr[rdi + 32]);
        lea(r12, ptr[r12 + rdx * 4]);
      }
      if (c.residual) {
        mov(rbp, ptr[rdi + 40]);
        mov(rcx, rbx);
        sub(rcx, ptr[rdi + 8]);
        add(rbp, rcx); // residual plane at y's offset
      }
    }
    if (mapped())
      mov(r11, ptr[rdi + 24]);
    mov(r14, r8);
    if (c.strideW == 2)
      lea(rsi, ptr[r8 + split.offset * 4]);
    mov(r15, rbx);
    int64_t inRowBytes = plane.cols * 4;
    auto advance = [&](int rows) {
      add(r14, rows * c.strideH * inRowBytes);
      add(r15, rows * c.outW * 4);
      if (depthwise() && c.residual)
        add(rbp, rows * c.outW * 4);
      if (mapped())
        add(r11, rows * chunksOf(c, kLanes) * kVecBytes);
    };
    if (int64_t blocks = c.outH / kRows) {
      mov(r13, blocks);
      Label blockLoop;
      L(blockLoop);
      rowBlock(kRows);
      advance(kRows);
      dec(r13);
      jnz(blockLoop, T_NEAR);
    }
    if (int rest = static_cast<int>(c.outH % kRows))
      rowBlock(rest);
  }

  /// y[plane] = mean of the plane's H*W floats.
  void globalAverage() {
    int64_t n = c.height * c.width;
    int64_t full = n / kLanes, tail = n % kLanes;
    constexpr int sums = 4;
    auto sum = [](int j) { return Vmm(j); };
    if (tail)
      setTailMask(static_cast<int>(tail), tailMask());
    Label planeLoop;
    L(planeLoop);
    for (int j = 0; j < sums; ++j)
      vxorps(sum(j), sum(j), sum(j));
    mov(rcx, rax);
    if (full >= sums) {
      Label loop;
      mov(r13, full / sums);
      L(loop);
      for (int j = 0; j < sums; ++j)
        vaddps(sum(j), sum(j), ptr[rcx + j * kVecBytes]);
      add(rcx, sums * kVecBytes);
      dec(r13);
      jnz(loop, T_NEAR);
    }
    for (int64_t j = 0; j < full % sums; ++j)
      vaddps(sum(j), sum(j), ptr[rcx + j * kVecBytes]);
    if (tail) {
      loadMasked(tap(0), ptr[rcx + (full % sums) * kVecBytes], tailMask());
      vaddps(sum(0), sum(0), tap(0));
    }
    vaddps(sum(0), sum(0), sum(1));
    vaddps(sum(2), sum(2), sum(3));
    vaddps(sum(0), sum(0), sum(2));
    emitHorizontal(sum(0), tap(1), Reduction::Add);
    vmulss(Xmm(0), Xmm(0), constScalar(1.f / n));
    vmovss(ptr[rbx], Xmm(0));
    add(rax, n * 4);
    add(rbx, 4);
    dec(r9);
    jnz(planeLoop, T_NEAR);
  }
};

} // namespace

std::unique_ptr<JitKernel> WindowKernel::generate(const WindowConfig &config, Isa isa) {
  if (!supports(config))
    return nullptr;
  return generatedFor<WindowGenerator>(isa, config);
}

} // namespace mlir::nunc::x86
