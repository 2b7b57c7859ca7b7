//===- QuantizeRowsKernel.h - dynamic u8 quantization per row ---*- C++ -*-===//
//
// ONNX DynamicQuantizeLinear, row by row (or over all rows at once): for each
// row of K floats,
//   scale = (max(0, max x) - min(0, min x)) / 255  (1 for an all-zero row)
//   zp    = round(clamp(-min(0, min x) / scale, 0, 255))
//   q     = clamp(round(x / scale) + zp, 0, 255)
// with round half to even. Writes q into rows of lda bytes (zero padded) and
// each row's (s32 zero point, f32 scale) pair, the row block the int8 GEMM
// reads: u8 rows (AVX-512 BW byte stores for the AVX-512 VNNI and AMX
// GEMMs, AVX2 packs for AVX-VNNI) or 16-bit elements (the AVX2 GEMM).
// Tasks are blocks of rows.
//
// Task arguments: [0] x f32 [M][K], [1] q u8 [M][lda], [2] row block [M][2],
// [3] with `fixed` (static): the grid's (s32 zero point, f32 scale),
// staticParameters, which the code does not hold, so that quantizers that
// differ only in their grids (a static transformer's layers) share code.
// The row-sum step (`sumsOnly`) reads [1] (u8 rows whose padding to lda is
// 0, or none: dense rows) and writes only [2]; [0] is unused.
//
// With `channels` set it quantizes a convolution's NCHW input instead, into
// the channel-blocked u8 layout the int8 convolution reads (see the config):
// a task per (image, group of 4 channels). Task arguments: [0] x, [1] the
// blocks, [2] the (zero point, scale) pair, [3] (dynamic) the partial ranges
// that its range pass (`generateRange`, run first; arguments [0] x, [1] the
// partial ranges [rangeTasks][2] f32) wrote, a block of planes per task.
//
// With `u16Planes` set it writes a static u16 grid's codes as two byte
// planes per row (see the config).
//
// With `dequantized` set (dynamic_fake_quantize) it writes the values of
// the codes, (q - zp) * scale in f32, instead of the codes, with one range
// for the whole tensor from partial ranges (its range pass's or those of
// the kernel that wrote x): tasks are blocks of rows. Task arguments: [0]
// x f32 [M][K], [1] y f32 [M][K] (x itself allowed), [2] the partial ranges.
//
//===----------------------------------------------------------------------===//

#ifndef NUNC_CODEGEN_X86_QUANTIZEROWSKERNEL_H
#define NUNC_CODEGEN_X86_QUANTIZEROWSKERNEL_H

#include "JitSupport.h"
#include "nunc/Codegen/Target.h"

#include <algorithm>
#include <memory>

namespace mlir::nunc::x86 {

struct QuantizeRowsConfig {
  int64_t rows = 1, k = 1, lda = 4;
  /// One range for all rows (DynamicQuantizeLinear on the whole tensor):
  /// a single task; every row gets the same (zero point, scale).
  bool perTensor = false;
  /// Static activations: this (scale, zero point) for every row; no ranges.
  bool fixed = false;
  float scale = 1;
  int32_t zeroPoint = 0;
  /// The GEMM that reads the rows: Avx512Vnni / Amx: u8, zero padded to
  /// lda. AvxVnni: u8 in whole groups of 8 (lda >= K rounded up to 8; the
  /// padding holds the zero point). Avx2: the u8 values as 16-bit elements,
  /// in whole vectors of 8 (lda >= K rounded up to 8, times 2 bytes; the
  /// padding holds the zero point).
  Int8Isa isa = Int8Isa::Avx512Vnni;
  /// > 0: a convolution's input. The rows are the batch x `channels` planes
  /// of `k` floats (NCHW); the output is [batch][ceil(channels / 4)][k][4]
  /// u8, four channels in each 32-bit element (channels past the last hold
  /// the zero point), and one (zero point, scale) pair. Dynamic ranges are
  /// per tensor. Any isa: the blocks are the same bytes (zmm or ymm code).
  int64_t channels = 0;
  /// The dynamic channel form's range pass (set by generateRange).
  bool rangePass = false;
  /// Channel form with `fixed`: x holds the u8 codes of that grid already
  /// (a depthwise conv's u8 output, NCHW bytes), blocked as they are.
  bool codes = false;
  /// > 0: the partial ranges come from the kernel that wrote x (one per
  /// task of its, `ranges` in its config) instead of a range pass: their
  /// number.
  int64_t producedRanges = 0;
  /// Row form, dynamic per tensor from partial ranges: x rounded to the
  /// grid, in f32, instead of codes (see above).
  bool dequantized = false;
  /// Row form, u8 rows (AVX-512): the row block is [M][4] words, (zero
  /// point, scale, (S mod 128) | (S / 128) << 16, 0) with S the sum of the
  /// row's codes: the int8 GEMM's u8-weight term (Int8GemmConfig::u8Weights).
  bool rowSums = false;
  /// With rowSums and a static grid (fixed; AVX-512): the rows at [1] are
  /// already that grid's u8 codes (a producer's u8 output) and only the row
  /// block is written: a u8-weight GEMM reading handed-over rows.
  bool sumsOnly = false;
  /// Row form with a static u16 grid (fixed; AVX-512): the codes
  /// clamp(round_half_even(x / scale) + zp, 0, 65535) as two byte planes
  /// per row, the high bytes from byte 0 and the low bytes from lda / 2,
  /// each zero padded: the rows of an int8 GEMM with a u16 input
  /// (Int8GemmConfig::u16Input). Divides (the reciprocal form is checked
  /// only up to 300 scales).
  bool u16Planes = false;
};

struct QuantizeRowsKernel {
  static int64_t channelGroups(const QuantizeRowsConfig &c) { return (c.channels + 3) / 4; }
  static int64_t images(const QuantizeRowsConfig &c) {
    return c.channels ? c.rows / c.channels : 0;
  }
  static int64_t rowsPerTask(const QuantizeRowsConfig &c) {
    if (c.perTensor && !c.fixed && !c.dequantized)
      return c.rows;
    int64_t byWork = std::max<int64_t>(1, 8192 / std::max<int64_t>(1, c.k));
    return std::max<int64_t>(byWork, (c.rows + 31) / 32);
  }
  static int64_t numTasks(const QuantizeRowsConfig &c) {
    if (c.rangePass)
      return rangeTasks(c);
    if (c.channels)
      return images(c) * channelGroups(c);
    return (c.rows + rowsPerTask(c) - 1) / rowsPerTask(c);
  }
  /// The dynamic channel form's range pass: blocks of at least ~16K floats,
  /// at most 32 of them (the quantizer's tasks each combine every partial).
  static constexpr int64_t kMaxRangeTasks = 32;
  static int64_t planesPerRangeTask(const QuantizeRowsConfig &c) {
    int64_t byWork = std::max<int64_t>(1, 16384 / std::max<int64_t>(1, c.k));
    return std::max<int64_t>(byWork, (c.rows + kMaxRangeTasks - 1) / kMaxRangeTasks);
  }
  static int64_t rangeTasks(const QuantizeRowsConfig &c) {
    return (c.rows + planesPerRangeTask(c) - 1) / planesPerRangeTask(c);
  }
  static bool needsRangePass(const QuantizeRowsConfig &c) {
    return (c.channels || c.dequantized) && !c.fixed && !c.producedRanges;
  }
  /// The partial ranges the quantizer combines.
  static int64_t partialRanges(const QuantizeRowsConfig &c) {
    return c.producedRanges ? c.producedRanges : rangeTasks(c);
  }
  /// The row form's static grid as its argument [3] holds it.
  static bool readsStaticParameters(const QuantizeRowsConfig &c) {
    return c.fixed && !c.channels && !c.rangePass;
  }
  static std::array<uint32_t, 2> staticParameters(const QuantizeRowsConfig &c) {
    uint32_t scaleBits;
    std::memcpy(&scaleBits, &c.scale, 4);
    return {static_cast<uint32_t>(c.zeroPoint), scaleBits};
  }
  static std::unique_ptr<JitKernel> generate(const QuantizeRowsConfig &c);
  static std::unique_ptr<JitKernel> generateRange(QuantizeRowsConfig c) {
    c.rangePass = true;
    return generate(c);
  }
};

} // namespace mlir::nunc::x86

#endif // NUNC_CODEGEN_X86_QUANTIZEROWSKERNEL_H
