//===- Int8DepthwiseKernel.cpp - depthwise conv on u8 codes (VNNI) --------===//

#include "Int8DepthwiseKernel.h"
#include "PaddedPlane.h"
#include "nunc/Dialect/Nunc/OneStepRequantization.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <optional>

namespace mlir::nunc::x86 {

namespace {

using namespace Xbyak;

constexpr int kLanes = 16;
constexpr int kRows = 4;    // output rows of a block
constexpr int kGroup = 4;   // output vectors of a group
constexpr int kMaxKernelH = 7;

/// Bytes loaded per input row and output vector: what the 16 outputs'
/// taps span (at most 15 s + 8).
int64_t loadBytes(const WindowConfig &c) { return c.strideW == 1 ? 32 : 64; }

/// The loaded bytes of output vector `chunk` that lie inside the input row
/// (bit b: byte b); the others take the zero point.
uint64_t rowBytes(const WindowConfig &c, int64_t chunk) {
  uint64_t bits = 0;
  for (int64_t b = 0; b < loadBytes(c); ++b) {
    int64_t column = chunk * kLanes * c.strideW - c.padLeft + b;
    if (column >= 0 && column < c.width)
      bits |= uint64_t(1) << b;
  }
  return bits;
}

/// u8 codes out with every result bounded (WindowConfig::outputBounded)
/// and no activation but Relu or Clip: the epilogue works in code units,
/// sum * (sx sw / sy) + (bias' / sy + zy), the activation as bounds on
/// that, then one rounding conversion and the saturating pack: 4.5 uops a
/// vector where the exact quotient of the f32 kernel's epilogue takes 9.
/// (A code can differ from that by one at a rounding tie.)
bool inCodeUnits(const WindowConfig &c) {
  return !c.oneStep && c.outputU8 && c.outputBounded && c.outputTable.empty() &&
         !c.activation.hasPostAffine() &&
         (c.activation.kind == Activation::None || c.activation.kind == Activation::Relu ||
          c.activation.kind == Activation::Clip);
}

/// Whether the activation is one the codes' bounds express (oneStep).
bool boundsExpress(const Activation &a) {
  return !a.hasPostAffine() && (a.kind == Activation::None || a.kind == Activation::Relu ||
                                a.kind == Activation::Clip);
}

/// oneStep: the grid its codes are on, (scale, zero point): the output's,
/// or with a table the grid whose codes index it (`output`, a FakeQuant).
std::pair<float, int32_t> oneStepGrid(const WindowConfig &c) {
  if (c.outputTable.empty())
    return {c.outputScale, c.outputZeroPoint};
  return {c.output.scale, static_cast<int32_t>(-c.output.min)};
}

/// oneStep: the activation's code bounds [lo, hi] on its grid.
std::pair<int32_t, int32_t> oneStepBounds(const WindowConfig &c) {
  const Activation &a = c.activation;
  const auto [scale, zeroPoint] = oneStepGrid(c);
  return oneStepCodeBounds(a.kind == Activation::Relu   ? "relu"
                           : a.kind == Activation::Clip ? "clip"
                                                        : "none",
                           a.min, a.max, scale, zeroPoint);
}

/// What both generators share: the task's planes, each plane's channel
/// constants, and its blocks of output rows, the longest run of identical
/// ones a loop.
class DepthwiseGeneratorBase : public PlaneGenerator {
protected:
  explicit DepthwiseGeneratorBase(const WindowConfig &config) : c(config) {}
  WindowConfig c;

  int64_t yBytes() const { return c.outputU8 ? 1 : 4; }
  int64_t inPlane() const { return c.height * c.width; }
  int64_t outPlane() const { return c.outH * c.outW * yBytes(); }

  /// r9 = this task's planes, r10 the first's index, rax / rbx its input
  /// codes and output.
  void taskPlanes() {
    taskShare(WindowKernel::planesPerTask(c), c.batch * c.channels, r9, rax);
    mov(rax, ptr[rdi + 0]);
    imul(rdx, r10, inPlane());
    add(rax, rdx);
    mov(rbx, ptr[rdi + 8]);
    imul(rdx, r10, outPlane());
    add(rbx, rdx);
  }
  /// Each plane in turn (`plane`), then the return and the constants.
  template <typename Plane> void planeLoop(Plane plane) {
    Label loop;
    L(loop);
    plane();
    add(rax, inPlane());
    add(rbx, outPlane());
    inc(r10);
    dec(r9);
    jnz(loop, T_NEAR);
    epilogueReturn(0);
    emitConstants();
  }
  /// inCodeUnits: y (in code units, the zero point in its folded bias) as
  /// s32 codes, the activation's bounds in code units first (rounding is
  /// monotonic: clamping before it is clamping the codes).
  template <typename Vmm> void emitCodeUnits(const Vmm &y) {
    const Activation &a = c.activation;
    const float zy = static_cast<float>(c.outputZeroPoint), sy = c.outputScale;
    if (a.kind != Activation::None)
      vmaxps(y, y, constAddr(zy + (a.kind == Activation::Relu ? 0.f : a.min / sy)));
    if (a.kind == Activation::Clip)
      vminps(y, y, constAddr(zy + a.max / sy));
    vcvtps2dq(y, y);
  }
  /// oneStep: the s32 sums y (which started at the channel's offset, the
  /// bias code less zx sum(k)) times the channel's multiplier, within the
  /// code bounds less zy (where they bind), as s32 (rounded half to even);
  /// zy is added when the codes are stored. With a table: the codes
  /// themselves, its index.
  template <typename Vmm> void emitOneStep(const Vmm &y, const Vmm &multiplier) {
    vcvtdq2ps(y, y);
    vmulps(y, y, multiplier);
    const auto [lo, hi] = oneStepBounds(c);
    const int32_t zeroPoint = oneStepGrid(c).second;
    // (f32 values out or a table's index: no pack saturates the codes,
    // every bound clamps.)
    emitOneStepCodes(y, lo, hi, zeroPoint,
                     c.outputBounded && c.outputU8 && c.outputTable.empty());
    if (!c.outputTable.empty()) {
      constexpr size_t lanes = std::is_same_v<Vmm, Zmm> ? 16 : 8;
      vpaddd(y, y, dataAddr(std::vector<uint32_t>(lanes, static_cast<uint32_t>(zeroPoint))));
      return;
    }
    if (!c.outputU8) { // their values (q - zp_y) s_y
      vcvtdq2ps(y, y);
      vmulps(y, y, constAddr(c.outputScale));
    }
  }
  /// r11 = plane r10's filter rows, r12 = its scale (its bias C floats on).
  void channelPointers() {
    planeChannel(c.channels);
    mov(r11, ptr[rdi + 24]);
    imul(rcx, rdx, Int8DepthwiseKernel::filterRows(c) * Int8DepthwiseKernel::filterWords(c) * 4);
    add(r11, rcx);
    mov(r12, ptr[rdi + 32]);
    lea(r12, ptr[r12 + rdx * 4]);
  }

  struct Block {
    int rows;
    int64_t validBegin, validEnd; // its input rows inside the plane
    int64_t top;                  // the plane row of its input row 0
    bool shifted;                 // code that depends on `top` (a shifted load)
    bool operator==(const Block &o) const {
      return rows == o.rows && validBegin == o.validBegin && validEnd == o.validEnd &&
             shifted == o.shifted && (!shifted || top == o.top);
    }
  };
  /// The plane's blocks of up to kRows output rows, `shifted(block)` set.
  template <typename Shifted> std::vector<Block> blocks(Shifted shifted) const {
    std::vector<Block> list;
    for (int64_t first = 0; first < c.outH; first += kRows) {
      Block b;
      b.rows = static_cast<int>(std::min<int64_t>(kRows, c.outH - first));
      int64_t inRows = (b.rows - 1) * c.strideH + c.kernelH;
      b.top = first * c.strideH - c.padTop;
      b.validBegin = std::clamp<int64_t>(-b.top, 0, inRows);
      b.validEnd = std::clamp<int64_t>(c.height - b.top, 0, inRows);
      b.shifted = shifted(b);
      list.push_back(b);
    }
    return list;
  }
  /// Every block (`block`) with r14 at its input row 0 and r15 at its
  /// output; the longest run of identical ones (the same input rows inside
  /// the plane) is a loop (r13).
  template <typename BlockFn> void emitBlocks(const std::vector<Block> &list, BlockFn block) {
    lea(r14, ptr[rax - c.padTop * c.width]);
    mov(r15, rbx);
    emitRuns(list, [&](const Block &b) {
      block(b);
      add(r14, b.rows * c.strideH * c.width);
      add(r15, b.rows * c.outW * yBytes());
    });
  }
  /// fn(r, uses, inside) for each input row r of a block of `rows` output
  /// rows that some of them read: `uses` its (output row, filter row)
  /// pairs, `inside` whether it lies in the plane (else padding).
  template <typename Fn>
  void forInputRows(int rows, int64_t validBegin, int64_t validEnd, Fn fn) const {
    const int64_t inRows = (rows - 1) * c.strideH + c.kernelH;
    for (int64_t r = 0; r < inRows; ++r) {
      std::vector<std::pair<int, int64_t>> uses;
      for (int i = 0; i < rows; ++i) {
        int64_t kh = r - i * c.strideH;
        if (kh >= 0 && kh < c.kernelH)
          uses.push_back({i, kh});
      }
      if (!uses.empty())
        fn(r, uses, r >= validBegin && r < validEnd);
    }
  }
};

class Int8DepthwiseGenerator : public DepthwiseGeneratorBase {
public:
  explicit Int8DepthwiseGenerator(const WindowConfig &config) : DepthwiseGeneratorBase(config) {}

  void generate() {
    prologue();
    taskPlanes();
    // The rearrangement: 128-bit lane L takes dwords L s .. L s + 3, and
    // its output i the bytes i s .. i s + 3 of them.
    std::vector<uint32_t> dwords(kLanes), bytes(kLanes);
    for (int l = 0; l < kLanes; ++l)
      dwords[l] = static_cast<uint32_t>(l / 4 * c.strideW + l % 4);
    for (int i = 0; i < 4; ++i) {
      uint32_t word = 0;
      for (int t = 0; t < 4; ++t)
        word |= static_cast<uint32_t>(i * c.strideW + t) << (8 * t);
      for (int lane = 0; lane < 4; ++lane)
        bytes[lane * 4 + i] = word;
    }
    vmovdqu32(dwordOrder(), dataAddr(dwords));
    vmovdqu32(byteOrder(), dataAddr(bytes));
    // Taps 4-7 (filters 5-8 wide): the same lanes' bytes 4 further on.
    for (uint32_t &word : bytes)
      word += 0x04040404u;
    if (Int8DepthwiseKernel::filterWords(c) == 2)
      highByteOrder = dataAddr(bytes);
    mov(edx, static_cast<uint32_t>(c.inputZeroPoint) * 0x01010101u);
    vpbroadcastd(zeroPoints(), edx);
    if (int tail = static_cast<int>(c.outW % kLanes))
      setTailMask(tail, Zmm(0)); // k1
    planeLoop([&] { plane(); });
  }

private:
  std::optional<Address> zpWords;
  std::optional<Address> highByteOrder;

  // zmm0..15 the block's sums (row i, vector j), 16..22 the filter rows
  // (their taps 0-3; taps 4-7 are broadcast from memory), 23..24 the
  // rearranged taps 0-3, 30..31 taps 4-7, 25..27 the rearrangement and the
  // zero point's codes, 28..29 the channel's scale and bias; 30..31 and
  // 23..24 are the epilogue's temporaries after the taps.
  Zmm acc(int i, int j) const { return Zmm(i * kGroup + j); }
  Zmm filterRow(int64_t kh) const { return Zmm(16 + static_cast<int>(kh)); }
  Zmm taps(int j) const { return Zmm(23 + (j & 1)); }
  Zmm highTaps(int j) const { return Zmm(30 + (j & 1)); }
  Zmm dwordOrder() const { return Zmm(25); }
  Zmm byteOrder() const { return Zmm(26); }
  Zmm zeroPoints() const { return Zmm(27); }
  Zmm scale() const { return Zmm(28); }
  Zmm bias() const { return Zmm(29); }
  const Opmask &byteMask(int j) const {
    const Opmask *regs[kGroup] = {&k2, &k3, &k4, &k5};
    return *regs[j];
  }

  /// One plane (rax: its codes, rbx: its output, r10: its index).
  void plane() {
    channelPointers();
    const int64_t words = Int8DepthwiseKernel::filterWords(c);
    for (int64_t kh = 0; kh < c.kernelH; ++kh)
      vpbroadcastd(filterRow(kh), ptr[r11 + kh * words * 4]);
    vbroadcastss(scale(), ptr[r12]);
    vbroadcastss(bias(), ptr[r12 + c.channels * 4]);
    emitBlocks(blocks([](const Block &) { return false; }),
               [&](const Block &b) { block(b.rows, b.validBegin, b.validEnd); });
  }

  /// Output rows [0, rows) at r15 from the input rows at r14 (those before
  /// validBegin or from validEnd on outside the plane).
  void block(int rows, int64_t validBegin, int64_t validEnd) {
    const int64_t chunks = (c.outW + kLanes - 1) / kLanes;
    const uint64_t all = loadBytes(c) == 64 ? ~uint64_t(0) : (uint64_t(1) << loadBytes(c)) - 1;
    for (int64_t g0 = 0; g0 < chunks; g0 += kGroup) {
      const int n = static_cast<int>(std::min<int64_t>(kGroup, chunks - g0));
      for (int j = 0; j < n; ++j)
        if (uint64_t bits = rowBytes(c, g0 + j); bits != all) {
          mov(rdx, bits);
          kmovq(byteMask(j), rdx);
        }
      // The sums start at 0, or (one step) at the channel's offset.
      for (int i = 0; i < rows; ++i)
        for (int j = 0; j < n; ++j)
          if (c.oneStep)
            vmovdqa32(acc(i, j), bias());
          else
            vpxord(acc(i, j), acc(i, j), acc(i, j));
      forInputRows(rows, validBegin, validEnd, [&](int64_t r, const auto &uses, bool inside) {
        for (int j = 0; j < n; ++j) {
          Zmm t = taps(j);
          if (inside) {
            int64_t at = r * c.width + (g0 + j) * kLanes * c.strideW - c.padLeft;
            uint64_t bits = rowBytes(c, g0 + j);
            if (bits == all) {
              if (loadBytes(c) == 32)
                vmovdqu8(Ymm(t.getIdx()), ptr[r14 + at]);
              else
                vmovdqu8(t, ptr[r14 + at]);
            } else {
              // Masked-off bytes keep the zero point's code (and do not
              // fault past the row's ends).
              vmovdqa64(t, zeroPoints());
              if (loadBytes(c) == 32)
                vmovdqu8(Ymm(t.getIdx()) | byteMask(j), ptr[r14 + at]);
              else
                vmovdqu8(t | byteMask(j), ptr[r14 + at]);
            }
            vpermd(t, dwordOrder(), t);
            if (highByteOrder)
              vpshufb(highTaps(j), t, *highByteOrder);
            vpshufb(t, t, byteOrder());
          }
          // A row of padding: the zero point's code in every tap.
          const Zmm &a = inside ? t : zeroPoints();
          const Zmm &high = inside ? highTaps(j) : zeroPoints();
          const int64_t words = Int8DepthwiseKernel::filterWords(c);
          for (auto [i, kh] : uses) {
            vpdpbusd(acc(i, j), a, filterRow(kh));
            if (highByteOrder)
              vpdpbusd(acc(i, j), high, ptr_b[r11 + (kh * 2 + 1) * 4]);
            // The filter's offset d times these taps (int8FilterOffsets).
            if (c.int8FilterOffsets) {
              vpdpbusd(acc(i, j), a, ptr_b[r11 + c.kernelH * words * 4]);
              if (highByteOrder)
                vpdpbusd(acc(i, j), high, ptr_b[r11 + (c.kernelH * words + 1) * 4]);
            }
          }
        }
      });
      epilogue(rows, g0, n, chunks);
    }
  }

  void epilogue(int rows, int64_t g0, int n, int64_t chunks) {
    const bool tail = c.outW % kLanes != 0;
    const int64_t rowBytesOut = c.outW * yBytes();
    Zmm t0 = Zmm(30), t1 = Zmm(31), t2 = Zmm(23), t3 = Zmm(24);
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < n; ++j) {
        Zmm y = acc(i, j);
        int64_t chunk = g0 + j;
        bool isTail = tail && chunk == chunks - 1;
        int64_t at = i * rowBytesOut + chunk * kLanes * yBytes();
        if (c.oneStep) {
          emitOneStep(y, scale());
          if (c.outputTable.empty() && !c.outputU8) {
            storeValues(y, at, isTail);
            continue;
          }
          if (c.outputTable.empty()) {
            storeCodes(i, j, g0, n, chunks, c.outputZeroPoint);
            continue;
          }
        } else {
          vcvtdq2ps(y, y);
          vfmadd213ps(y, scale(), bias());
          if (inCodeUnits(c)) {
            emitCodeUnits(y);
            storeCodes(i, j, g0, n, chunks, /*zeroPoint=*/0);
            continue;
          }
          emitActivation(y, c.activation, t0, t1, t2, t3);
        }
        if (!c.outputTable.empty()) {
          // The output grid's index (one step: y already), its entry
          // (k5-k7 or k6-k7; k2-k5, the byte masks, are reloaded per
          // group) or its entry's code.
          if (!c.oneStep)
            emitGridIndex(y, t0, c.output);
          if (c.outputU8) {
            storeTableCodes(i, j, g0, n, chunks);
            continue;
          }
          if (!tableOffset)
            tableOffset = tableData(c.outputTable);
          emitTableLookup(t0, y, t1, t2, t3, *tableOffset, /*firstMask=*/5);
          vmovaps(y, t0);
          emitActivation(y, c.tableOutput, t0, t1, t2, t3);
        }
        if (!c.outputU8) {
          storeValues(y, at, isTail);
          continue;
        }
        emitCodeQuotient(y, t0, c.outputScale, c.outputBounded);
        storeCodes(i, j, g0, n, chunks, c.outputZeroPoint);
      }
  }

  /// f32 values y at r15 + at (the row's tail masked by k1).
  void storeValues(const Zmm &y, int64_t at, bool isTail) {
    if (isTail)
      vmovups(ptr[r15 + at] | k1, y);
    else
      vmovups(ptr[r15 + at], y);
  }

  /// The codes of acc(i, j)'s grid indices (outputTable with outputU8),
  /// looked up as words: a row's four whole vectors packed together (once
  /// the fourth is ready), others one by one.
  void storeTableCodes(int i, int j, int64_t g0, int n, int64_t chunks) {
    const bool tail = c.outW % kLanes != 0;
    const int64_t rowBytesOut = c.outW;
    const Zmm t0 = Zmm(30), t1 = Zmm(31), t2 = Zmm(23), t3 = Zmm(24);
    if (!codeTableOffset)
      codeTableOffset = codeWordTableData(c.outputTable, c.outputScale, c.outputZeroPoint);
    if (n == 4 && !(tail && g0 + 3 == chunks - 1)) {
      if (j == 3) {
        emitPackTableCodes(acc(i, 0), acc(i, 1), acc(i, 2), acc(i, 3), /*pairs=*/2,
                           *codeTableOffset, packCodeOrder(), t0, t1, t2, t3,
                           /*firstMask=*/6);
        vmovdqu32(ptr[r15 + i * rowBytesOut + g0 * kLanes], acc(i, 0));
      }
      return;
    }
    const int64_t chunk = g0 + j, at = i * rowBytesOut + chunk * kLanes;
    emitTableCodes(acc(i, j), t0, t1, t2, t3, *codeTableOffset, /*firstMask=*/6);
    if (tail && chunk == chunks - 1)
      vpmovwb(ptr[r15 + at] | k1, Ymm(t0.getIdx()));
    else
      vpmovwb(ptr[r15 + at], Ymm(t0.getIdx()));
  }
  std::optional<int64_t> tableOffset, codeTableOffset; // at first use

  /// The s32 code quotients of acc(i, j) plus `zeroPoint` as u8 codes: a
  /// row's four whole vectors packed together (once the fourth is ready),
  /// others one by one.
  void storeCodes(int i, int j, int64_t g0, int n, int64_t chunks, int32_t zeroPoint) {
    const bool tail = c.outW % kLanes != 0;
    const int64_t rowBytesOut = c.outW;
    Zmm y = acc(i, j), t = Zmm(30);
    bool packed = n == 4 && !(tail && g0 + 3 == chunks - 1);
    if (packed) {
      if (j == 3) {
        if (!zpWords)
          zpWords = zeroPointWords(zeroPoint);
        emitPackCodes(acc(i, 0), acc(i, 1), acc(i, 2), acc(i, 3), *zpWords, packCodeOrder(), t);
        vmovdqu32(ptr[r15 + i * rowBytesOut + g0 * kLanes], acc(i, 0));
      }
      return;
    }
    const int64_t chunk = g0 + j, at = i * rowBytesOut + chunk * kLanes;
    if (zeroPoint)
      vpaddd(y, y, constAddrBits(static_cast<uint32_t>(zeroPoint)));
    vpmaxsd(y, y, constAddrBits(0));
    if (tail && chunk == chunks - 1)
      vpmovusdb(ptr[r15 + at] | k1, y); // saturates at 255
    else
      vpmovusdb(ptr[r15 + at], y);
  }
};


/// The same on ymm with VEX vpdpbusd (AVX-VNNI; EVEX-encoded where asked,
/// WindowConfig::evexVnni): 8 outputs a vector. Each 128-bit lane loads
/// its four outputs' bytes itself (16 bytes, lane 1's 4 s bytes after lane
/// 0's), so that one vpshufb per filter dword arranges both lanes. AVX2
/// has no byte masks: bytes outside the input row get shuffle index 0x80
/// (zero) and the zero point's code ORed in, and a lane whose 16 bytes
/// would leave the plane loads from inside it, its indices shifted by as
/// much (planes of at least 16 bytes). Filter rows are broadcast to the
/// stack once per plane (16 ymm registers hold the sums, taps and orders).
constexpr int kYmmLanes = 8;
constexpr int kYmmGroup = 2;
constexpr int kLaneBytes = 16;

class Int8DepthwiseYmmGenerator : public DepthwiseGeneratorBase {
public:
  explicit Int8DepthwiseYmmGenerator(const WindowConfig &config)
      : DepthwiseGeneratorBase(config) {
    replicate = 8;
  }

  void generate() {
    prologue();
    frameBytes = (kMaxKernelH + 1) * 2 * 32; // (+1: the offsets' row)
    sub(rsp, frameBytes);
    taskPlanes();
    vmovdqu(byteOrder(), dataAddr(order(/*chunk=*/-1, /*high=*/false, {0, 0})));
    mov(edx, static_cast<uint32_t>(c.inputZeroPoint) * 0x01010101u);
    vmovd(Xmm(zeroPoints().getIdx()), edx);
    vpbroadcastd(zeroPoints(), Xmm(zeroPoints().getIdx()));
    planeLoop([&] { plane(); });
  }

private:

  // ymm0..7 the block's sums (row i, vector j), 8..9 the taps 0-3 of the
  // group's vectors, 10..11 their taps 4-7, 12 the usual order of taps
  // 0-3, 14 the zero point's codes; 8-11, 13 and 15 are the epilogue's
  // scale, bias and temporaries.
  Ymm acc(int i, int j) const { return Ymm(i * kYmmGroup + j); }
  Ymm taps(int j) const { return Ymm(8 + j); }
  Ymm highTaps(int j) const { return Ymm(10 + j); }
  Ymm byteOrder() const { return Ymm(12); }
  Ymm zeroPoints() const { return Ymm(14); }
  bool high() const { return Int8DepthwiseKernel::filterWords(c) == 2; }
  int64_t filterSlot(int64_t kh, int64_t word) const {
    return (kh * Int8DepthwiseKernel::filterWords(c) + word) * 32;
  }
  void vnni(const Ymm &acc, const Ymm &a, const Operand &b) {
    vpdpbusd(acc, a, b, c.evexVnni ? EvexEncoding : VexEncoding);
  }

  /// The first input column lane `lane` of vector `chunk` loads, before any
  /// shift.
  int64_t laneColumn(int64_t chunk, int lane) const {
    return (chunk * kYmmLanes + 4 * lane) * c.strideW - c.padLeft;
  }
  /// How far lane `lane` of vector `chunk` loads after laneColumn on input
  /// row `ih` of the plane: its 16 bytes stay inside the plane.
  int64_t laneShift(int64_t chunk, int lane, int64_t ih) const {
    int64_t begin = laneColumn(chunk, lane);
    int64_t lo = -ih * c.width, hi = (c.height - ih) * c.width;
    return std::clamp(begin, lo, hi - kLaneBytes) - begin;
  }
  /// The vpshufb order of taps 0-3 (or 4-7, `high`) of vector `chunk`
  /// whose lanes load `shifts` bytes further on (chunk -1: a vector inside
  /// the row, unshifted), or the zero point's codes where that order has
  /// 0x80 for a tap outside the row (`fill`). Taps past the filter take 0.
  std::vector<uint32_t> order(int64_t chunk, bool highTaps, std::array<int64_t, 2> shifts,
                              bool fill = false) const {
    std::vector<uint32_t> words(kYmmLanes, 0);
    for (int lane = 0; lane < 2; ++lane)
      for (int i = 0; i < 4; ++i)
        for (int t = 0; t < 4; ++t) {
          int64_t tap = t + (highTaps ? 4 : 0);
          int64_t index = i * c.strideW + tap;
          int64_t column = laneColumn(chunk, lane) + index;
          bool outside = chunk >= 0 && (column < 0 || column >= c.width);
          uint32_t byte;
          if (fill)
            byte = tap < c.kernelW && outside ? static_cast<uint32_t>(c.inputZeroPoint) : 0;
          else
            byte = tap >= c.kernelW || outside ? 0x80 : static_cast<uint32_t>(index - shifts[lane]);
          words[lane * 4 + i] |= byte << (8 * t);
        }
    return words;
  }
  /// Whether a tap of vector `chunk` lies outside the row.
  bool reachesOut(int64_t chunk) const {
    int64_t first = chunk * kYmmLanes * c.strideW - c.padLeft;
    int64_t last = (chunk * kYmmLanes + kYmmLanes - 1) * c.strideW - c.padLeft + c.kernelW - 1;
    return first < 0 || last >= c.width;
  }

  /// One plane (rax: its codes, rbx: its output, r10: its index).
  void plane() {
    channelPointers();
    const int64_t words = Int8DepthwiseKernel::filterWords(c);
    for (int64_t kh = 0; kh < Int8DepthwiseKernel::filterRows(c); ++kh)
      for (int64_t w = 0; w < words; ++w) {
        vpbroadcastd(Ymm(15), ptr[r11 + (kh * words + w) * 4]);
        vmovdqu(ptr[rsp + filterSlot(kh, w)], Ymm(15));
      }
    // A block whose loads shift (at the plane's ends) is emitted for its
    // own rows, never in the loop.
    const int64_t chunks = (c.outW + kYmmLanes - 1) / kYmmLanes;
    auto shifted = [&](const Block &b) {
      for (int64_t r = b.validBegin; r < b.validEnd; ++r)
        for (int64_t chunk = 0; chunk < chunks; ++chunk)
          for (int lane = 0; lane < 2; ++lane)
            if (laneShift(chunk, lane, b.top + r) != 0)
              return true;
      return false;
    };
    emitBlocks(blocks(shifted), [&](const Block &b) {
      block(b.rows, b.validBegin, b.validEnd, b.top);
    });
  }

  /// Output rows [0, rows) at r15 from the input rows at r14 (those before
  /// validBegin or from validEnd on outside the plane; row 0 is plane row
  /// `top`).
  void block(int rows, int64_t validBegin, int64_t validEnd, int64_t top) {
    const int64_t chunks = (c.outW + kYmmLanes - 1) / kYmmLanes;
    for (int64_t g0 = 0; g0 < chunks; g0 += kYmmGroup) {
      const int n = static_cast<int>(std::min<int64_t>(kYmmGroup, chunks - g0));
      // The sums start at 0, or (one step) at the channel's offset.
      for (int i = 0; i < rows; ++i)
        for (int j = 0; j < n; ++j)
          if (c.oneStep)
            vpbroadcastd(acc(i, j), ptr[r12 + c.channels * 4]);
          else
            vpxor(acc(i, j), acc(i, j), acc(i, j));
      forInputRows(rows, validBegin, validEnd, [&](int64_t r, const auto &uses, bool inside) {
        for (int j = 0; j < n; ++j) {
          const int64_t chunk = g0 + j;
          Ymm t = taps(j), h = highTaps(j);
          if (inside) {
            std::array<int64_t, 2> shifts = {laneShift(chunk, 0, top + r),
                                             laneShift(chunk, 1, top + r)};
            int64_t row = r * c.width;
            vmovdqu(Xmm(t.getIdx()), ptr[r14 + row + laneColumn(chunk, 0) + shifts[0]]);
            vinserti128(t, t, ptr[r14 + row + laneColumn(chunk, 1) + shifts[1]], 1);
            const bool out = reachesOut(chunk);
            const bool plain = !out && shifts[0] == 0 && shifts[1] == 0;
            std::array<int64_t, 2> noShift = {0, 0};
            if (high()) {
              vpshufb(h, t,
                      dataAddr(order(plain ? -1 : chunk, true, plain ? noShift : shifts)));
              if (out)
                vpor(h, h, dataAddr(order(chunk, true, shifts, /*fill=*/true)));
            }
            if (plain) {
              vpshufb(t, t, byteOrder());
            } else {
              vpshufb(t, t, dataAddr(order(chunk, false, shifts)));
              if (out)
                vpor(t, t, dataAddr(order(chunk, false, shifts, /*fill=*/true)));
            }
          }
          // A row of padding: the zero point's code in every tap.
          const Ymm &a = inside ? t : zeroPoints();
          const Ymm &b = inside ? h : zeroPoints();
          for (auto [i, kh] : uses) {
            vnni(acc(i, j), a, ptr[rsp + filterSlot(kh, 0)]);
            if (high())
              vnni(acc(i, j), b, ptr[rsp + filterSlot(kh, 1)]);
            // The filter's offset d times these taps (int8FilterOffsets).
            if (c.int8FilterOffsets) {
              vnni(acc(i, j), a, ptr[rsp + filterSlot(c.kernelH, 0)]);
              if (high())
                vnni(acc(i, j), b, ptr[rsp + filterSlot(c.kernelH, 1)]);
            }
          }
        }
      });
      epilogue(rows, g0, n, chunks);
    }
  }

  void epilogue(int rows, int64_t g0, int n, int64_t chunks) {
    const bool tail = c.outW % kYmmLanes != 0;
    const int64_t rowBytesOut = c.outW * yBytes();
    const Ymm scale = Ymm(8), bias = Ymm(9);
    const Ymm t0 = Ymm(10), t1 = Ymm(11), t2 = Ymm(13), t3 = Ymm(15);
    vbroadcastss(scale, ptr[r12]);
    if (!c.oneStep) // (one step: the sums started at the offset)
      vbroadcastss(bias, ptr[r12 + c.channels * 4]);
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < n; ++j) {
        Ymm y = acc(i, j);
        int64_t chunk = g0 + j;
        bool isTail = tail && chunk == chunks - 1;
        int64_t at = i * rowBytesOut + chunk * kYmmLanes * yBytes();
        if (c.oneStep) {
          emitOneStep(y, scale);
          if (!c.outputU8) {
            storeValues(y, at, isTail, t0);
            continue;
          }
          storeCodes(i, j, g0, n, chunks, c.outputZeroPoint);
          continue;
        }
        vcvtdq2ps(y, y);
        vfmadd213ps(y, scale, bias);
        if (inCodeUnits(c)) {
          emitCodeUnits(y);
          storeCodes(i, j, g0, n, chunks, /*zeroPoint=*/0);
          continue;
        }
        emitActivation(y, c.activation, t0, t1, t2, t3);
        if (!c.outputU8) {
          storeValues(y, at, isTail, t0);
          continue;
        }
        emitCodeQuotient(y, t0, c.outputScale, c.outputBounded);
        storeCodes(i, j, g0, n, chunks, c.outputZeroPoint);
      }
  }

  /// f32 values y at r15 + at (the row's tail masked; mask: a temporary).
  void storeValues(const Ymm &y, int64_t at, bool isTail, const Ymm &mask) {
    if (isTail) {
      vmovdqu(mask, laneMask(c.outW % kYmmLanes, kYmmLanes));
      vmaskmovps(ptr[r15 + at], mask, y);
    } else {
      vmovups(ptr[r15 + at], y);
    }
  }

  /// The s32 code quotients of acc(i, j) plus `zeroPoint` as u8 codes: a
  /// row's two whole vectors packed together (once the second is ready),
  /// others one by one.
  void storeCodes(int i, int j, int64_t g0, int n, int64_t chunks, int32_t zeroPoint) {
    const int64_t tailLanes = c.outW % kYmmLanes;
    const int64_t rowBytesOut = c.outW;
    Ymm y = acc(i, j);
    if (n == 2 && !(tailLanes && g0 + 1 == chunks - 1)) {
      if (j == 1) {
        Ymm a = acc(i, 0);
        emitPackCodePair(a, y, zeroPoint ? std::optional<Address>(zeroPointWords(zeroPoint))
                                         : std::nullopt);
        vmovdqu(ptr[r15 + i * rowBytesOut + g0 * kYmmLanes], Xmm(a.getIdx()));
      }
      return;
    }
    const int64_t chunk = g0 + j, at = i * rowBytesOut + chunk * kYmmLanes;
    if (zeroPoint)
      vpaddd(y, y, constAddrBits(static_cast<uint32_t>(zeroPoint)));
    emitDwordsToBytes(y); // saturates at 0 and 255
    if (!(tailLanes && chunk == chunks - 1)) {
      vmovq(ptr[r15 + at], Xmm(y.getIdx()));
      return;
    }
    // The tail's bytes, from a general register (no byte masks on AVX2).
    vmovq(rdx, Xmm(y.getIdx()));
    int64_t done = 0, left = tailLanes;
    if (left >= 4) {
      mov(dword[r15 + at], edx);
      shr(rdx, 32);
      done += 4;
      left -= 4;
    }
    if (left >= 2) {
      mov(word[r15 + at + done], dx);
      shr(rdx, 16);
      done += 2;
      left -= 2;
    }
    if (left)
      mov(byte[r15 + at + done], dl);
  }
};
} // namespace

bool Int8DepthwiseKernel::supports(const WindowConfig &c, Isa isa) {
  const bool common =
      c.kind == WindowConfig::Depthwise && c.inputU8 && c.kernelW <= 8 &&
         c.kernelH <= kMaxKernelH && c.dilationH == 1 && c.dilationW == 1 &&
         (c.strideW == 1 || c.strideW == 2) && !c.residual && !c.ranges &&
         (c.outputTable.empty() ? c.output.kind == Activation::None
                                : JitKernel::tableFits(c.outputTable, c.output)) &&
         (!c.outputU8 || c.tableOutput.kind == Activation::None) && c.outH > 0 &&
         c.outW > 0 && c.padTop >= 0 && c.padLeft >= 0 &&
         (!c.oneStep || (boundsExpress(c.activation) && oneStepGrid(c).second >= 0 &&
                         oneStepGrid(c).second <= 255 &&
                         (c.outputTable.empty() || c.output.max - c.output.min == 255)));
  if (isa == Isa::Avx512)
    return common;
  // ymm: no output tables; planes of at least one lane's load.
  return common && c.outputTable.empty() && c.height * c.width >= kLaneBytes;
}

std::optional<Int8DepthwiseKernel::Tables>
Int8DepthwiseKernel::tables(const WindowConfig &c, const std::vector<float> &weights,
                            const std::vector<float> &bias,
                            const std::vector<float> &weightScales) {
  const bool given = static_cast<int64_t>(weightScales.size()) == c.channels;
  if (c.oneStep && !given)
    return std::nullopt;
  Tables t;
  const int64_t taps = c.kernelH * c.kernelW;
  const int64_t words = filterWords(c);
  const int64_t rows = filterRows(c);
  t.filters.assign(c.channels * rows * words, 0);
  t.scaleBias.assign(2 * c.channels, 0.f);
  float largest = 0, lowest = 0, highest = 0;
  for (float w : weights) {
    largest = std::max(largest, std::fabs(w));
    lowest = std::min(lowest, w);
    highest = std::max(highest, w);
  }
  for (int64_t ch = 0; ch < c.channels; ++ch) {
    const float *w = weights.data() + ch * taps;
    float own = 0, ownLow = 0, ownHigh = 0;
    for (int64_t k = 0; k < taps; ++k) {
      own = std::max(own, std::fabs(w[k]));
      ownLow = std::min(ownLow, w[k]);
      ownHigh = std::max(ownHigh, w[k]);
    }
    // The grids onnxruntime puts weights on: symmetric s8 per channel or
    // per tensor (max |w| / 127), asymmetric likewise ((max - min) / 255,
    // 0 in the range; its steps fit s8 where the zero point is 128). The
    // first on which the filter lies, its steps within s8, is its scale.
    auto onGrid = [&](float candidate) {
      if (!(candidate > 0) || !std::isfinite(candidate))
        return false;
      for (int64_t k = 0; k < taps; ++k) {
        float q = w[k] / candidate;
        if (!(std::fabs(q - std::nearbyint(q)) <= 1e-3f) || std::nearbyint(q) < -128 ||
            std::nearbyint(q) > 127)
          return false;
      }
      return true;
    };
    std::optional<float> sw;
    if (given) {
      // The model's grid: each tap its DequantizeLinear's one rounding of
      // a step times the scale (else, not for oneStep, a recovered one).
      // (Steps past s8 with int8FilterOffsets: u8 weights' q - zp.)
      const float s = weightScales[ch];
      const float qLo = c.int8FilterOffsets ? -255.f : -128.f,
                  qHi = c.int8FilterOffsets ? 255.f : 127.f;
      bool onModelGrid = true;
      for (int64_t k = 0; k < taps && onModelGrid; ++k) {
        const float q = std::nearbyint(w[k] / s);
        onModelGrid = q >= qLo && q <= qHi && q * s == w[k];
      }
      if (onModelGrid)
        sw = s;
      else if (c.oneStep)
        return std::nullopt;
    }
    if (own == 0 && !sw)
      sw = 1.f;
    for (float candidate :
         {own / 127.f, largest / 127.f, (ownHigh - ownLow) / 255.f, (highest - lowest) / 255.f})
      if (!sw && onGrid(candidate))
        sw = candidate;
    // Other grids (reduce_range's 7-bit ones, max |w| / 64; a per-tensor
    // scale of another tensor): the smallest nonzero |w| is some k steps,
    // k <= 128, so one of its quotients is a step of the grid.
    if (!sw) {
      float smallest = own;
      for (int64_t k = 0; k < taps; ++k)
        if (w[k] != 0)
          smallest = std::min(smallest, std::fabs(w[k]));
      for (int steps = 1; steps <= 128 && !sw; ++steps)
        if (onGrid(smallest / static_cast<float>(steps)))
          sw = smallest / static_cast<float>(steps);
    }
    if (!sw)
      return std::nullopt;
    // The steps k = k1 + d: k1 in the filter rows, d (int8FilterOffsets;
    // else 0) times the window's inputs by the offsets' row, both in s8.
    int64_t sum = 0, lo = 0, hi = 0;
    for (int64_t k = 0; k < taps; ++k) {
      const int64_t v = static_cast<int64_t>(std::nearbyint(w[k] / *sw));
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    const int64_t d = hi > 127 ? hi - 127 : lo < -128 ? lo + 128 : 0;
    if (hi - d > 127 || lo - d < -128 || d < -128 || d > 127 || (d && !c.int8FilterOffsets))
      return std::nullopt;
    auto packRow = [&](int64_t row, auto step) {
      uint32_t word[2] = {0, 0};
      for (int64_t kw = 0; kw < c.kernelW; ++kw)
        word[kw / 4] |= (static_cast<uint32_t>(step(kw)) & 0xffu) << (8 * (kw % 4));
      for (int64_t i = 0; i < words; ++i)
        t.filters[(ch * rows + row) * words + i] = static_cast<int32_t>(word[i]);
    };
    for (int64_t kh = 0; kh < c.kernelH; ++kh)
      packRow(kh, [&](int64_t kw) {
        const int64_t v = static_cast<int64_t>(std::nearbyint(w[kh * c.kernelW + kw] / *sw));
        sum += v;
        return static_cast<int32_t>(v - d);
      });
    if (c.int8FilterOffsets)
      packRow(c.kernelH, [&](int64_t) { return static_cast<int32_t>(d); });
    if (c.oneStep) {
      // onnxruntime's constants: fl(sx sw), fl(s / sy), the bias's code.
      const float s = c.inputScale * *sw;
      const float multiplier = s / oneStepGrid(c).first;
      const int32_t bq = bias.empty() ? 0 : oneStepBiasCode(bias[ch], s);
      const uint32_t offset = static_cast<uint32_t>(bq) -
                              static_cast<uint32_t>(c.inputZeroPoint) * static_cast<uint32_t>(sum);
      t.scaleBias[ch] = multiplier;
      std::memcpy(&t.scaleBias[c.channels + ch], &offset, 4);
      continue;
    }
    const double scale = static_cast<double>(c.inputScale) * *sw;
    double shift = (bias.empty() ? 0.0 : static_cast<double>(bias[ch])) -
                   scale * c.inputZeroPoint * sum;
    if (inCodeUnits(c)) {
      t.scaleBias[ch] = static_cast<float>(scale / c.outputScale);
      t.scaleBias[c.channels + ch] =
          static_cast<float>(shift / c.outputScale + c.outputZeroPoint);
      continue;
    }
    t.scaleBias[ch] = static_cast<float>(scale);
    t.scaleBias[c.channels + ch] = static_cast<float>(shift);
  }
  return t;
}

std::unique_ptr<JitKernel> Int8DepthwiseKernel::generate(const WindowConfig &c, Isa isa) {
  if (!supports(c, isa))
    return nullptr;
  if (isa != Isa::Avx512)
    return generated<Int8DepthwiseYmmGenerator>(c);
  return generated<Int8DepthwiseGenerator>(c);
}

} // namespace mlir::nunc::x86
