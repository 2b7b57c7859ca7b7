//===- WindowKernel.cpp - pooling and depthwise conv (xbyak) --------------===//

#include "WindowKernel.h"
#include "Int8DepthwiseKernel.h"
#include "PaddedPlane.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
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

/// A block of output rows x a group of output vectors is computed together
/// (WindowGenerator::rowBlock): 4 x 4 on AVX-512, 8 x 2 at stride 2 in W,
/// where each split input row then serves more outputs (+20-25 % on
/// MobileNet's stride-2 depthwise convs); 2 x 2 on AVX2.
int64_t rowsPerBlock(const WindowConfig &c, Isa isa) {
  return isa == Isa::Avx512 ? (c.strideW == 2 ? 8 : 4) : 2;
}
int64_t vectorsPerGroup(const WindowConfig &c, Isa isa) {
  return isa == Isa::Avx512 ? (c.strideW == 2 ? 2 : 4) : 2;
}

/// Stride 2 in W: the rows a block of output rows reads are split straight
/// from the input into their even and odd padded columns (`half` floats
/// each, even first; the padding written with them) in a small buffer that
/// stays in L1, so that every tap of an output vector is one plain load.
/// (A padded copy of the plane split per block measured 1.4x slower, a
/// per-tap permute 1.2x.)
struct SplitRows {
  int64_t half = 0;     // floats per half row (a multiple of the vector width)
  int64_t rows = 0;     // rows of one block
  int64_t pairs = 0;    // input vector pairs per row
  int64_t evenAt = 0;   // half index of the first even input column
  int64_t oddAt = 0;    // half index of the first odd input column
  int64_t taskFloats = 0;
};
/// Lanes of output vector `chunk` whose tap column kw lies inside the input
/// row (bit i: lane i), for a stride-1 window reading the input directly.
uint32_t directLanes(const WindowConfig &c, int64_t chunk, int64_t kw, int64_t lanes) {
  uint32_t bits = 0;
  for (int64_t i = 0; i < lanes; ++i) {
    int64_t column = chunk * lanes + i + kw * c.dilationW - c.padLeft;
    bits |= (column >= 0 && column < c.width ? 1u : 0u) << i;
  }
  return bits;
}

/// Maximum masks one group of output vectors needs at once (k2..k7).
constexpr int kDirectMasks = 6;

/// The distinct partial lane masks of the group of output vectors from
/// `g0` (direct reads).
std::vector<uint32_t> groupMasks(const WindowConfig &c, int64_t g0, int64_t lanes) {
  std::vector<uint32_t> masks;
  int64_t chunks = (c.outW + lanes - 1) / lanes;
  uint32_t full = lanes == 32 ? ~0u : (1u << lanes) - 1;
  for (int64_t chunk = g0; chunk < std::min(chunks, g0 + vectorsPerGroup(c, Isa::Avx512));
       ++chunk)
    for (int64_t kw = 0; kw < c.kernelW; ++kw) {
      uint32_t bits = directLanes(c, chunk, kw, lanes);
      if (bits && bits != full && std::find(masks.begin(), masks.end(), bits) == masks.end())
        masks.push_back(bits);
    }
  return masks;
}

SplitRows splitRows(const WindowConfig &c, Isa isa) {
  int64_t lanes = lanesOf(isa);
  SplitRows s;
  if (WindowKernel::readsDirectly(c, isa))
    return s;
  if (c.strideW != 2) {
    s.taskFloats = paddedPlane(c, isa).floats;
    return s;
  }
  // Input column x is padded column x + padLeft: half (x + padLeft) & 1,
  // index (x + padLeft) >> 1.
  s.evenAt = c.padLeft >> 1;
  s.oddAt = (c.padLeft + 1) >> 1;
  s.pairs = (c.width + 2 * lanes - 1) / (2 * lanes);
  int64_t read = chunksOf(c, lanes) * lanes + (c.kernelW - 1) * c.dilationW / 2;
  int64_t written = std::max(s.evenAt, s.oddAt) + s.pairs * lanes;
  s.half = (std::max(read, written) + lanes - 1) / lanes * lanes;
  // (A plane of fewer output rows than a block reads fewer rows: a stride
  // far past the plane must not size the buffer.)
  s.rows = (std::min(rowsPerBlock(c, isa), c.outH) - 1) * c.strideH +
           (c.kernelH - 1) * c.dilationH + 1;
  s.taskFloats = s.rows * 2 * s.half;
  return s;
}
} // namespace

bool WindowKernel::supports(const WindowConfig &c) {
  if (c.kind == WindowConfig::GlobalAverage)
    // The sum of steps stays exact in f32.
    return !c.averageOfCodes || c.height * c.width * 255 < (int64_t(1) << 24);
  return !c.averageOfCodes && (c.strideW == 1 || c.strideW == 2) && c.kernelH * c.kernelW <= 64 && c.outH > 0 &&
         c.outW > 0 && c.padTop >= 0 && c.padLeft >= 0;
}

bool WindowKernel::readsDirectly(const WindowConfig &c, Isa isa) {
  if (isa != Isa::Avx512 || c.kind != WindowConfig::Depthwise || c.strideW != 1 || c.inputU8)
    return false;
  int64_t lanes = lanesOf(isa);
  for (int64_t g0 = 0; g0 < chunksOf(c, lanes); g0 += vectorsPerGroup(c, isa))
    if (groupMasks(c, g0, lanes).size() > static_cast<size_t>(kDirectMasks))
      return false;
  return true;
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
  if (c.kind == WindowConfig::GlobalAverage || c.int8 || readsDirectly(c, isa))
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
      float r = c.divide ? static_cast<float>(divisor ? divisor : 1)
                         : divisor ? 1.f / divisor
                                   : 0.f;
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
  static constexpr Isa kIsa = kAvx512 ? Isa::Avx512 : Isa::Avx2;
  /// Depthwise filters of at most this many taps stay in registers.
  static constexpr int kWeightRegs = 9;

  explicit WindowGenerator(const WindowConfig &config)
      : c(config), plane(paddedPlane(config, kIsa)), split(splitRows(config, kIsa)),
        direct(WindowKernel::readsDirectly(config, kIsa)),
        blockRows(static_cast<int>(rowsPerBlock(config, kIsa))),
        groupVectors(static_cast<int>(vectorsPerGroup(config, kIsa))) {
    replicate = kAvx512 ? 1 : 8;
  }

  void generate() {
    prologue();
    if (c.kind != WindowConfig::GlobalAverage && !direct) {
      // The padded plane of the call's scratch slot (nunc_rt_task): a thread
      // refills one warm plane instead of a fresh one per task.
      mov(r8, ptr[rdi + 16]);
      imul(rdx, rdx, split.taskFloats * 4);
      add(r8, rdx);
    }
    int64_t per = WindowKernel::planesPerTask(c);
    int64_t planes = c.batch * c.channels;
    taskShare(per, planes, r9, rax); // r9 = planes of this task
    int64_t inPlane = c.height * c.width * xBytes();
    int64_t outPlane = c.kind == WindowConfig::GlobalAverage ? 4 : c.outH * c.outW * yBytes();
    mov(rax, ptr[rdi + 0]);
    imul(rdx, r10, inPlane);
    add(rax, rdx); // x plane
    mov(rbx, ptr[rdi + 8]);
    imul(rdx, r10, outPlane);
    add(rbx, rdx); // y plane
    if (c.kind == WindowConfig::GlobalAverage) {
      globalAverage();
    } else {
      if constexpr (kAvx512)
        if (c.ranges)
          beginPartialRange(6, rangeMax(), rangeMin());
      // The padding (-inf for max, else 0) of the padded plane is written
      // once per task; split rows write theirs with the data.
      loadConstant(padReg(), padValue());
      if (c.strideW != 2 && !direct)
        fillPadding();
      Label planeLoop;
      L(planeLoop);
      windowPlane();
      add(rax, inPlane);
      add(rbx, outPlane);
      inc(r10);
      dec(r9);
      jnz(planeLoop, T_NEAR);
      if constexpr (kAvx512)
        if (c.ranges)
          storePartialRange(rangeMax(), rangeMin(), tap(0));
    }
    epilogueReturn(0);
    emitConstants();
  }

private:
  WindowConfig c;
  PaddedPlane plane;
  SplitRows split;
  /// Stride 1, f32 input: taps read the input rows themselves, the border
  /// lanes masked and the padding rows skipped, instead of a padded copy
  /// (whose stores the taps read back at once, ~20-40 % of the kernel's
  /// time at 112x112 to 28x28 planes).
  bool direct;
  /// A block of blockRows output rows x groupVectors output vectors is
  /// computed together: each input vector loaded serves every output row
  /// whose window covers it (up to 3 for a 3x3 stride-1 window).
  const int blockRows, groupVectors;
  /// Direct reads: the partial lane masks of the current group, in k2..k7.
  std::vector<uint32_t> masks;

  // AVX-512: accumulators 0..15, loaded taps 16..17, weights 18..26, the
  // pad value 28, the partial range 29..30. AVX2: accumulators 0..3, taps
  // 4..5, weights 6..14 (the pad value of max pooling, which has none, in
  // 6), the tail mask 15.
  Vmm acc(int i, int j) { return Vmm(i * groupVectors + j); }
  Vmm tap(int t) { return Vmm((kAvx512 ? 16 : 4) + t); }
  Vmm weight(int t) { return Vmm((kAvx512 ? 18 : 6) + t); }
  Vmm padReg() { return Vmm(kAvx512 ? 28 : 6); }
  Vmm tailMask() { return Vmm(15); } // AVX2 masked tails
  Vmm rangeMax() { return Vmm(29); }  // AVX-512 only
  Vmm rangeMin() { return Vmm(30); }

  bool depthwise() const { return c.kind == WindowConfig::Depthwise; }
  /// Bytes of one input / output element: 4, or 1 for u8 codes.
  int64_t xBytes() const { return c.inputU8 ? 1 : 4; }
  int64_t yBytes() const { return c.outputU8 ? 1 : 4; }

  std::optional<Address> zpWords; // the output zero point in every word
  std::optional<int64_t> tableOffset; // tableData(c.outputTable), at first use
  std::optional<int64_t> codeTableOffset; // codeTable(), at first use

  /// outputU8 with a table: the u8 codes of its entries, as words.
  int64_t codeTable() {
    if (!codeTableOffset)
      codeTableOffset = codeWordTableData(c.outputTable, c.outputScale, c.outputZeroPoint);
    return *codeTableOffset;
  }
  /// The codes of y's grid indices at `a` (k1: the tail's lanes). Masks
  /// k4-k5: k2 and k3 may hold the plane's input masks for the next block.
  void storeTableCodes(const Address &a, const Vmm &y, bool tail) {
    if constexpr (kAvx512) {
      const Xbyak::Ymm words(weight(0).getIdx());
      emitTableCodes(y, weight(0), weight(1), weight(2), weight(3), codeTable(),
                     /*firstMask=*/4);
      if (tail)
        vpmovwb(a | k1, words);
      else
        vpmovwb(a, words);
    }
  }
  /// y (clobbered) as the u8 codes of the output grid at `at` (AVX-512
  /// k1: the tail's lanes; AVX2: the tail's bytes one by one): the
  /// quotient + zp, saturated. t: a temporary.
  void storeCodes(const Xbyak::RegExp &at, const Vmm &y, const Vmm &t, bool tail) {
    if constexpr (!kAvx512) {
      emitCodeQuotient(y, t, c.outputScale, c.outputBounded);
      vpaddd(y, y, constAddrBits(static_cast<uint32_t>(c.outputZeroPoint)));
      emitDwordsToBytes(y); // saturates at both ends
      const Xbyak::Xmm x(y.getIdx());
      if (!tail)
        vmovq(ptr[at], x);
      else
        for (int i = 0; i < c.outW % kLanes; ++i)
          vpextrb(ptr[at + i], x, i);
    } else {
      const Address a = ptr[at];
      emitCodeQuotient(y, t, c.outputScale, c.outputBounded);
      vpaddd(y, y, constAddrBits(static_cast<uint32_t>(c.outputZeroPoint)));
      vpmaxsd(y, y, constAddrBits(0));
      if (tail)
        vpmovusdb(a | k1, y); // saturates at 255
      else
        vpmovusdb(a, y);
    }
  }

  /// One vector of input at `a` into v; with `mask` (AVX-512: k2 or k3)
  /// only those lanes, the others 0. u8 codes (inputU8) are widened and
  /// dequantized exactly, float(q - zp) * scale, the masked-off lanes
  /// zeroed after (they may be stored as padding).
  void loadInput(const Vmm &v, const Address &a, const Xbyak::Opmask *mask = nullptr) {
    if constexpr (!kAvx512) {
      if (c.inputU8) {
        vpmovzxbd(v, a);
        dequantizeCodes(v);
        return;
      }
    }
    if constexpr (kAvx512) {
      if (c.inputU8) {
        if (mask)
          vpmovzxbd(v | *mask | T_z, a);
        else
          vpmovzxbd(v, a);
        vpsubd(v, v, constAddrBits(static_cast<uint32_t>(c.inputZeroPoint)));
        vcvtdq2ps(v, v);
        if (mask)
          vmulps(v | *mask | T_z, v, constAddr(c.inputScale));
        else
          vmulps(v, v, constAddr(c.inputScale));
        return;
      }
      if (mask) {
        vmovups(v | *mask | T_z, a);
        return;
      }
    }
    vmovups(v, a);
  }
  /// AVX2, u8 codes: the first `lanes` codes at `at` (byte by byte: none
  /// past them is read) into v, dequantized, the other lanes 0 (`mask`:
  /// those lanes set).
  void loadCodeLanes(const Vmm &v, const Xbyak::RegExp &at, int64_t lanes, const Vmm &mask) {
    const Xbyak::Xmm x(v.getIdx());
    vpxor(x, x, x);
    for (int64_t i = 0; i < lanes; ++i)
      vpinsrb(x, x, byte[at + i], static_cast<uint8_t>(i));
    vpmovzxbd(v, x);
    dequantizeCodes(v);
    vandps(v, v, mask);
  }
  void dequantizeCodes(const Vmm &v) {
    vpsubd(v, v, constAddrBits(static_cast<uint32_t>(c.inputZeroPoint)));
    vcvtdq2ps(v, v);
    vmulps(v, v, constAddr(c.inputScale));
  }
  bool mapped() const { return c.kind == WindowConfig::Average && !c.uniformDivisor; }
  int64_t taps() const { return c.kernelH * c.kernelW; }
  bool weightsInRegisters() const { return depthwise() && taps() <= kWeightRegs; }

  float padValue() const {
    return c.kind == WindowConfig::Max ? -std::numeric_limits<float>::infinity() : 0.f;
  }

  /// The padding of the padded plane at r8 (stride 1): the rows above and
  /// below the input's, whole (with the slack after them), and the columns
  /// left and right of each input row, one vector each, whose overlap with
  /// the row's own columns the row copies overwrite; the whole plane where
  /// that is fewer stores (small planes) or the padding is wider than a
  /// vector. (The whole plane of 112 x 112 inputs is ~60 KB a task.)
  /// Clobbers rcx and rdx.
  void fillPadding() {
    const int64_t right = plane.padLeft + plane.width; // first right padding column
    const int64_t below = (plane.padTop + plane.height) * plane.cols;
    const int64_t borderStores = (plane.padTop * plane.cols + kLanes) / kLanes + 1 +
                                 (plane.floats - below) / kLanes + 1 + 2 * plane.height;
    if (plane.padLeft > kLanes || plane.cols - right > kLanes ||
        borderStores >= plane.floats / kLanes) {
      fillPlane(r8, plane.floats, padReg());
      return;
    }
    auto fillRange = [&](int64_t from, int64_t to) { // floats [from, to)
      for (int64_t at = from; at < to; at += kLanes)
        vmovups(ptr[r8 + std::min(at, to - kLanes) * 4], padReg());
    };
    fillRange(0, plane.padTop * plane.cols + kLanes);
    fillRange(below, plane.floats);
    lea(rcx, ptr[r8 + plane.padTop * plane.cols * 4]);
    mov(rdx, plane.height);
    Label rows;
    L(rows);
    vmovups(ptr[rcx], padReg());
    vmovups(ptr[rcx + right * 4], padReg());
    add(rcx, plane.cols * 4);
    dec(rdx);
    jnz(rows, T_NEAR);
  }

  /// Rows [valid.first, valid.second) of the block (input rows at rcx)
  /// into their even/odd halves at r8, the other rows all padding; clobbers
  /// the taps and the accumulators (and on AVX2 weight(7..8)).
  void splitBlockRows(int64_t rows, std::pair<int64_t, int64_t> valid) {
    int64_t half = split.half;
    int64_t rest = c.width % (2 * kLanes); // columns of the last pair
    Vmm evenIndex = acc(0, 0), oddIndex = acc(0, 1), hi = acc(0, 2);
    Vmm loMask = weight(7), hiMask = weight(8); // AVX2
    // Max pooling keeps -inf in padReg; the zero padding of the others
    // (whose filter may have taken padReg on AVX2) is made here.
    Vmm pad = c.kind == WindowConfig::Max ? padReg() : acc(1, 1);
    if (c.kind != WindowConfig::Max)
      vxorps(pad, pad, pad);
    if constexpr (kAvx512) {
      std::vector<uint32_t> even(kLanes), odd(kLanes);
      for (int i = 0; i < kLanes; ++i) {
        even[i] = 2 * i;
        odd[i] = 2 * i + 1;
      }
      vmovups(evenIndex, dataAddr(even));
      vmovups(oddIndex, dataAddr(odd));
    } else if (rest) {
      std::vector<uint32_t> bits(2 * kLanes, 0);
      for (int64_t i = 0; i < rest; ++i)
        bits[i] = 0xffffffffu;
      vmovups(loMask, dataAddr({bits.begin(), bits.begin() + kLanes}));
      vmovups(hiMask, dataAddr({bits.begin() + kLanes, bits.end()}));
    }
    // Loads one input vector; in the last pair the lanes past the row are
    // the padding.
    auto load = [&](const Vmm &v, const Xbyak::RegExp &at, bool last, bool upper) {
      const Address a = ptr[at];
      int64_t lanes = !last ? kLanes : upper ? std::max<int64_t>(0, rest - kLanes)
                                             : std::min<int64_t>(kLanes, rest);
      if (lanes == kLanes) {
        loadInput(v, a);
      } else if (lanes == 0) {
        vmovaps(v, pad);
      } else if constexpr (kAvx512) {
        if (c.kind == WindowConfig::Max) {
          vmovaps(v, pad);
          vmovups(v | (upper ? k3 : k2), a);
        } else {
          loadInput(v, a, upper ? &k3 : &k2);
        }
      } else if (c.inputU8) { // (depthwise: zero padding)
        loadCodeLanes(v, at, lanes, upper ? hiMask : loMask);
      } else {
        const Vmm &mask = upper ? hiMask : loMask;
        vmaskmovps(v, mask, a);
        if (c.kind == WindowConfig::Max)
          vblendvps(v, pad, v, mask);
      }
    };
    for (int64_t r = 0; r < rows; ++r) {
      int64_t row = r * 2 * half;
      if (r < valid.first || r >= valid.second) {
        for (int64_t i = 0; i < 2 * half; i += kLanes)
          vmovups(ptr[r8 + (row + i) * 4], pad);
        continue;
      }
      // Each half: the padding after its columns (aligned vectors), before
      // them, then the columns (overwriting padding they overlap).
      for (int h = 0; h < 2; ++h) {
        int64_t at = (h == (c.padLeft & 1) ? split.evenAt : split.oddAt);
        for (int64_t i = (at + split.pairs * kLanes) / kLanes * kLanes; i < half; i += kLanes)
          vmovups(ptr[r8 + (row + h * half + i) * 4], pad);
        for (int64_t i = 0; i < at; i += kLanes)
          vmovups(ptr[r8 + (row + h * half + i) * 4], pad);
      }
      for (int64_t v = 0; v < split.pairs; ++v) {
        bool last = v == split.pairs - 1 && rest;
        int64_t from = (r * c.width + 2 * v * kLanes) * xBytes();
        load(tap(0), rcx + from, last, false);
        load(hi, rcx + from + kLanes * xBytes(), last, true);
        if constexpr (kAvx512) {
          vmovaps(tap(1), tap(0));
          vpermt2ps(tap(0), evenIndex, hi);
          vpermt2ps(tap(1), oddIndex, hi);
        } else {
          vshufps(weight(6), tap(0), hi, 0x88); // a0 a2 b0 b2 | a4 a6 b4 b6
          vshufps(tap(1), tap(0), hi, 0xdd);    // a1 a3 b1 b3 | a5 a7 b5 b7
          vpermpd(tap(0), weight(6), 0xd8);
          vpermpd(tap(1), tap(1), 0xd8);
        }
        // Even input columns are padded column parity padLeft & 1.
        int64_t evenHalf = c.padLeft & 1, oddHalf = 1 - evenHalf;
        vmovups(ptr[r8 + (row + evenHalf * half + split.evenAt + v * kLanes) * 4], tap(0));
        vmovups(ptr[r8 + (row + oddHalf * half + split.oddAt + v * kLanes) * 4], tap(1));
      }
    }
  }

  /// Where tap column kw of input row r (relative to the block's first
  /// input row at r14) lies for output vector `chunk`.
  Address tapAddress(int64_t r, int64_t kw, int64_t chunk) {
    int64_t column = kw * c.dilationW;
    if (direct)
      return ptr[r14 + (r * c.width + column - c.padLeft) * 4 + chunk * kVecBytes];
    if (c.strideW == 1)
      return ptr[r14 + (r * plane.cols + column) * 4 + chunk * kVecBytes];
    int64_t inRow = (column & 1) * split.half + (column >> 1);
    return ptr[r8 + (r * 2 * split.half + inRow) * 4 + chunk * kVecBytes];
  }

  const Xbyak::Opmask &maskReg(size_t m) const {
    const Xbyak::Opmask *regs[kDirectMasks] = {&k2, &k3, &k4, &k5, &k6, &k7};
    return *regs[m];
  }

  /// Direct reads: the mask of output vector `chunk`'s lanes whose tap
  /// column kw lies in the input (nullptr: all of them), or none to read.
  std::optional<const Xbyak::Opmask *> directMask(int64_t chunk, int64_t kw) {
    uint32_t bits = directLanes(c, chunk, kw, kLanes);
    if (!bits)
      return std::nullopt;
    auto at = std::find(masks.begin(), masks.end(), bits);
    return at == masks.end() ? nullptr : &maskReg(at - masks.begin());
  }

  /// acc (op)= the tap `t` (filter index) read from `src`; `mask` (direct
  /// reads, filter in registers, src in memory) the lanes to accumulate.
  void accumulate(const Vmm &a, const Operand &src, int64_t t,
                  const Xbyak::Opmask *mask = nullptr) {
    if constexpr (kAvx512)
      if (mask) {
        vfmadd231ps(a | *mask, weight(static_cast<int>(t)), src);
        return;
      }
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

  /// Output rows [0, rows) at r15 from the padded rows at r14 (stride 1)
  /// or the input rows at rcx (stride 2).
  void rowBlock(int rows, std::pair<int64_t, int64_t> validRows, bool lastBlock) {
    int64_t chunks = chunksOf(c, kLanes);
    int tail = c.outW % kLanes;
    int64_t inRows = (rows - 1) * c.strideH + (c.kernelH - 1) * c.dilationH + 1;
    int64_t rowBytes = c.outW * yBytes();
    if (c.strideW == 2)
      splitBlockRows(inRows, validRows);
    for (int64_t g0 = 0; g0 < chunks; g0 += groupVectors) {
      int n = static_cast<int>(std::min<int64_t>(groupVectors, chunks - g0));
      if (direct) {
        masks = groupMasks(c, g0, kLanes);
        for (size_t m = 0; m < masks.size(); ++m) {
          mov(edx, masks[m]);
          kmovw(maskReg(m), edx);
        }
      }
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
        if (direct && (r < validRows.first || r >= validRows.second))
          continue; // a padding row
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
            const Xbyak::Opmask *mask = nullptr;
            if (direct) {
              auto m = directMask(g0 + j, kw);
              if (!m)
                continue; // every lane's tap is padding
              mask = *m;
            }
            // One use reads memory in the FMA (unless the filter is a
            // memory broadcast, which needs the tap in a register).
            bool once = uses.size() == 1 && (!depthwise() || weightsInRegisters() || !kAvx512);
            if (!once) {
              if (!mask)
                vmovups(tap(j & 1), a);
              else if constexpr (kAvx512)
                vmovups(tap(j & 1) | *mask | T_z, a);
            }
            for (auto [i, kh] : uses) {
              if (once)
                accumulate(acc(i, j), a, kh * c.kernelW + kw, mask);
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
          int64_t outDisp = i * rowBytes + chunk * kLanes * yBytes();
          Vmm y = acc(i, j);
          if (c.kind == WindowConfig::Average && c.divide) {
            if (mapped())
              vdivps(y, y, ptr[r11 + (i * chunks + chunk) * kVecBytes]);
            else
              vdivps(y, y, constAddr(c.reciprocal));
            // The taps are free here (as for the residual below).
            emitActivation(y, c.output, tap(0), tap(1), tap(1), tap(1));
          } else if (c.kind == WindowConfig::Average) {
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
          if (depthwise()) {
            emitActivation(y, c.activation, weight(0), weight(1), weight(2), weight(3));
            if (c.outputTable.empty()) {
              emitActivation(y, c.output, weight(0), weight(1), weight(2), weight(3));
            } else if (c.outputU8) {
              // The index; its code is looked up as a word below.
              if constexpr (kAvx512)
                emitGridIndex(y, weight(0), c.output);
            } else if constexpr (kAvx512) {
              // k4-k6: k2 and k3 may hold the plane's input masks for the
              // next block; the direct reads reload theirs per group.
              if (!tableOffset)
                tableOffset = tableData(c.outputTable);
              emitGridIndex(y, weight(0), c.output);
              emitTableLookup(weight(0), y, weight(1), weight(2), weight(3), *tableOffset,
                              /*firstMask=*/4);
              vmovaps(y, weight(0));
              emitActivation(y, c.tableOutput, weight(0), weight(1), weight(2), weight(3));
            }
          }
          if (c.outputU8) {
            // A row's four whole vectors (two on AVX2) pack together; others
            // one by one.
            bool packed = n == (kAvx512 ? 4 : 2) && !(tail && g0 + n - 1 == chunks - 1);
            if (!c.outputTable.empty()) {
              if constexpr (kAvx512) {
                if (!packed) {
                  storeTableCodes(ptr[r15 + outDisp], y, isTail);
                } else if (j == 3) {
                  emitPackTableCodes(acc(i, 0), acc(i, 1), acc(i, 2), acc(i, 3), /*pairs=*/2,
                                     codeTable(), packCodeOrder(), weight(0), weight(1),
                                     weight(2), weight(3), /*firstMask=*/4);
                  vmovdqu32(ptr[r15 + i * rowBytes + g0 * kLanes], acc(i, 0));
                }
              }
              continue;
            }
            if (!packed) {
              storeCodes(r15 + outDisp, y, weight(0), isTail && !spillsTail(i, rows, lastBlock));
            } else {
              emitCodeQuotient(y, weight(0), c.outputScale, c.outputBounded);
              if (j == n - 1) {
                if (!zpWords)
                  zpWords = zeroPointWords(c.outputZeroPoint);
                if constexpr (kAvx512) {
                  emitPackCodes(acc(i, 0), acc(i, 1), acc(i, 2), acc(i, 3), *zpWords,
                                packCodeOrder(), weight(0));
                  vmovdqu32(ptr[r15 + i * rowBytes + g0 * kLanes], acc(i, 0));
                } else {
                  emitPackCodePair(acc(i, 0), acc(i, 1), zpWords);
                  vmovdqu(ptr[r15 + i * rowBytes + g0 * kLanes], Xbyak::Xmm(acc(i, 0).getIdx()));
                }
              }
            }
            continue;
          }
          if (isTail && !spillsTail(i, rows, lastBlock))
            storeMasked(ptr[r15 + outDisp], y, tailMask());
          else
            vmovups(ptr[r15 + outDisp], y);
          if constexpr (kAvx512)
            if (c.ranges) {
              // Only the stored lanes (k1: the tail's).
              if (isTail) {
                vmaxps(rangeMax() | k1, rangeMax(), y);
                vminps(rangeMin() | k1, rangeMin(), y);
              } else {
                vmaxps(rangeMax(), rangeMax(), y);
                vminps(rangeMin(), rangeMin(), y);
              }
            }
        }
    }
  }

  /// AVX2: whether output row i of a block of `rows` stores its tail
  /// vector whole, past the row's end into the next row's first columns,
  /// which that row's own stores overwrite later: the plane's rows take one
  /// group of vectors (so no vector of the next row is stored before), the
  /// next row is at least as long as the spill, this is not the plane's
  /// last row (the next plane may be another task's), and no residual is
  /// read (it may be the output's buffer). Masked stores cost ~10x more on
  /// AMD.
  bool spillsTail(int i, int rows, bool lastBlock) const {
    const int64_t chunks = chunksOf(c, kLanes);
    return !kAvx512 && !c.residual && chunks <= groupVectors &&
           chunks * kLanes - c.outW <= c.outW && !(lastBlock && i == rows - 1);
  }

  /// Input row copies scheduled with the blocks: a block first copies the
  /// source rows that it or the next block is the first to read, so that
  /// they are still in L1 when read (copying the whole plane first
  /// measured 1.3-2x slower: the plane does not fit L1 and was read back
  /// from L2).
  struct Block {
    int rows;              // output rows
    bool last = false;     // the plane's last block
    int64_t copyRows = 0;  // stride 1: source rows copied before it
    int64_t copyTo = 0;    // their first padded row, relative to the block's
    std::pair<int64_t, int64_t> valid; // stride 2: its rows inside the input
    bool operator==(const Block &o) const {
      return rows == o.rows && last == o.last && copyRows == o.copyRows &&
             copyTo == o.copyTo && valid == o.valid;
    }
  };
  std::vector<Block> blockSchedule() const {
    std::vector<Block> blocks;
    int64_t copied = 0; // source rows [0, copied) are in the padded plane
    for (int64_t first = 0; first < c.outH; first += blockRows) {
      Block b;
      b.rows = static_cast<int>(std::min<int64_t>(blockRows, c.outH - first));
      b.last = first + b.rows == c.outH;
      int64_t base = first * c.strideH; // the block's first padded row
      int64_t end = base + (b.rows - 1) * c.strideH + (c.kernelH - 1) * c.dilationH + 1;
      if (c.strideW == 2 || direct) {
        int64_t first = base - c.padTop; // input row of the block's row 0
        b.valid = {std::clamp<int64_t>(-first, 0, end - base),
                   std::clamp<int64_t>(c.height - first, 0, end - base)};
      } else {
        // Also the rows the next block reads first: by the time it reads
        // them, their stores have left the store queue (a load straddling
        // two stores still in it waits for them; 7x7 to 28x28 planes
        // measured 20-40 % faster).
        if (int64_t next = first + blockRows; next < c.outH)
          end = next * c.strideH +
                (std::min<int64_t>(blockRows, c.outH - next) - 1) * c.strideH +
                (c.kernelH - 1) * c.dilationH + 1;
        int64_t need = std::clamp<int64_t>(end - c.padTop, copied, c.height);
        b.copyRows = need - copied;
        b.copyTo = copied + c.padTop - base;
        copied = need;
      }
      blocks.push_back(b);
    }
    return blocks;
  }

  /// `b.copyRows` source rows at rcx into their padded rows (r14-relative);
  /// advances rcx.
  void copyBlockRows(const Block &b) {
    int64_t full = c.width / kLanes, tail = c.width % kLanes;
    Vmm copyMask = weight(8); // AVX2; free until the filter is loaded
    if (tail && !kAvx512) {
      std::vector<uint32_t> bits(kLanes, 0);
      for (int64_t i = 0; i < tail; ++i)
        bits[i] = 0xffffffffu;
      vmovups(copyMask, dataAddr(bits));
    }
    for (int64_t r = 0; r < b.copyRows; ++r) {
      int64_t from = r * c.width * xBytes();
      int64_t to = ((b.copyTo + r) * plane.cols + c.padLeft) * 4;
      for (int64_t v = 0; v < full; ++v) {
        loadInput(tap(r & 1), ptr[rcx + from + v * kLanes * xBytes()]);
        vmovups(ptr[r14 + to + v * kVecBytes], tap(r & 1));
      }
      if (tail) {
        if constexpr (kAvx512) {
          loadInput(tap(0), ptr[rcx + from + full * kLanes * xBytes()], &k2);
          vmovups(ptr[r14 + to + full * kVecBytes] | k2, tap(0));
        } else {
          if (c.inputU8)
            loadCodeLanes(tap(0), rcx + from + full * kLanes, tail, copyMask);
          else
            vmaskmovps(tap(0), copyMask, ptr[rcx + from + full * kVecBytes]);
          // A whole vector: its lanes past the row hold the padding value
          // (0; max pooling's -inf from padReg), as what follows it does
          // (the right padding, the next row's left padding, and whatever
          // the next row's copy overwrites; the plane's slack after the
          // last row). Masked stores cost ~10x more on AMD.
          if (c.kind == WindowConfig::Max)
            vblendvps(tap(0), padReg(), tap(0), copyMask);
          vmovups(ptr[r14 + to + full * kVecBytes], tap(0));
        }
      }
    }
    if (b.copyRows)
      add(rcx, b.copyRows * c.width * xBytes());
  }

  void windowPlane() {
    int tail = c.outW % kLanes;
    if (tail)
      setTailMask(tail, tailMask());
    if (kAvx512 && c.strideW == 1 && c.width % kLanes && !direct) {
      mov(edx, (1u << (c.width % kLanes)) - 1);
      kmovw(k2, edx);
    }
    if (kAvx512 && c.strideW == 2 && c.width % (2 * kLanes)) {
      // Lanes of the last input vector pair: k2 the lower, k3 the upper.
      int64_t rest = c.width % (2 * kLanes);
      mov(edx, (1u << std::min<int64_t>(kLanes, rest)) - 1);
      kmovw(k2, edx);
      mov(edx, (1u << std::max<int64_t>(0, rest - kLanes)) - 1);
      kmovw(k3, edx);
    }
    if (depthwise()) {
      // r11 = this channel's filter, r12 = its bias: channel = plane % C.
      planeChannel(c.channels);
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
    if (direct)
      lea(r14, ptr[rax - c.padTop * c.width * 4]); // the first block's row 0
    else
      mov(r14, r8);
    mov(r15, rbx);
    if (c.strideW == 2)
      lea(rcx, ptr[rax - c.padTop * c.width * xBytes()]);
    else
      mov(rcx, rax);
    int64_t inRowBytes = plane.cols * 4;
    auto advance = [&](int rows) {
      if (c.strideW == 2)
        add(rcx, rows * c.strideH * c.width * xBytes());
      else
        add(r14, rows * c.strideH * (direct ? c.width * 4 : inRowBytes));
      add(r15, rows * c.outW * yBytes());
      if (depthwise() && c.residual)
        add(rbp, rows * c.outW * 4);
      if (mapped())
        add(r11, rows * chunksOf(c, kLanes) * kVecBytes);
    };
    // The longest run of identical blocks is a loop; the others (where the
    // padding or the last rows change the copies) are emitted one by one.
    std::vector<Block> blocks = blockSchedule();
    emitRuns(blocks, [&](const Block &b) {
      copyBlockRows(b);
      rowBlock(b.rows, b.valid, b.last);
      advance(b.rows);
    });
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
    if (c.averageOfCodes)
      loadConstant(weight(0), 1.f / c.inputScale);
    L(planeLoop);
    for (int j = 0; j < sums; ++j)
      vxorps(sum(j), sum(j), sum(j));
    mov(rcx, rax);
    // Adds a vector of values, or of their steps on the input grid
    // (averageOfCodes: x / s_x within an ulp or three of an integer below
    // 256, rounded to it).
    auto accumulate = [&](const Vmm &acc, const Xbyak::Operand &x) {
      if (!c.averageOfCodes) {
        vaddps(acc, acc, x);
        return;
      }
      vmulps(tap(1), weight(0), x);
      if constexpr (kAvx512)
        vrndscaleps(tap(1), tap(1), 0);
      else
        vroundps(tap(1), tap(1), 0);
      vaddps(acc, acc, tap(1));
    };
    if (full >= sums) {
      Label loop;
      mov(r13, full / sums);
      L(loop);
      for (int j = 0; j < sums; ++j)
        accumulate(sum(j), ptr[rcx + j * kVecBytes]);
      add(rcx, sums * kVecBytes);
      dec(r13);
      jnz(loop, T_NEAR);
    }
    for (int64_t j = 0; j < full % sums; ++j)
      accumulate(sum(j), ptr[rcx + j * kVecBytes]);
    if (tail) {
      loadMasked(tap(0), ptr[rcx + (full % sums) * kVecBytes], tailMask());
      accumulate(sum(0), tap(0));
    }
    vaddps(sum(0), sum(0), sum(1));
    vaddps(sum(2), sum(2), sum(3));
    vaddps(sum(0), sum(0), sum(2));
    emitHorizontal(sum(0), tap(1), Reduction::Add);
    if (c.averageOfCodes) {
      // onnxruntime's requantization of the sum of steps, as a value.
      const float multiplier = c.inputScale / (c.outputScale * static_cast<float>(n));
      vmulss(Xmm(0), Xmm(0), constScalar(multiplier));
      vroundss(Xmm(0), Xmm(0), Xmm(0), 0);
      vmaxss(Xmm(0), Xmm(0), constScalar(static_cast<float>(-c.outputZeroPoint)));
      vminss(Xmm(0), Xmm(0), constScalar(static_cast<float>(255 - c.outputZeroPoint)));
      vmulss(Xmm(0), Xmm(0), constScalar(c.outputScale));
    } else {
      vmulss(Xmm(0), Xmm(0), constScalar(1.f / n));
    }
    vmovss(ptr[rbx], Xmm(0));
    add(rax, n * 4);
    add(rbx, 4);
    dec(r9);
    jnz(planeLoop, T_NEAR);
  }
};

} // namespace

std::unique_ptr<JitKernel> WindowKernel::generate(const WindowConfig &config, Isa isa) {
  const bool table = !config.outputTable.empty();
  const Activation &grid = config.output;
  // (Any ISA's average pool rounds its division to a grid.)
  const bool averageOnGrid = config.kind == WindowConfig::Average && config.divide;
  if (!supports(config) || (config.ranges && !canWriteRanges(config, isa)) ||
      ((config.inputU8 || config.outputU8 || (grid.kind != Activation::None && !averageOnGrid) ||
        table) &&
       !readsU8(config, isa)) ||
      (config.outputU8 && (config.residual || config.ranges ||
                           (!table && grid.kind != Activation::None) ||
                           config.tableOutput.kind != Activation::None)) ||
      (!table && config.tableOutput.kind != Activation::None))
    return nullptr;
  if (table && !JitKernel::tableFits(config.outputTable, grid))
    return nullptr;
  if (config.int8)
    return Int8DepthwiseKernel::generate(config, isa);
  return generatedFor<WindowGenerator>(isa, config);
}

} // namespace mlir::nunc::x86
