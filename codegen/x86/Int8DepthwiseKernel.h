//===- Int8DepthwiseKernel.h - depthwise conv on u8 codes (VNNI) -*- C++ -*-===//
//
// The window kernel's depthwise conv in integers (WindowConfig::int8): u8
// input codes (a per-tensor grid, zero point zx), s8 filters with a scale
// sw[c] per channel (a QDQ model's own, recovered from its f32 filters at
// compile time), s32 sums by vpdpbusd, then y = float(sum) * sx sw[c] +
// bias'[c] with bias' = bias - sx sw[c] zx sum(w[c]) (the padding is the
// zero point's code, so that term is the same at every output), the
// activation, and u8 codes of the output grid or f32. The sums are exact
// where the f32 kernel rounds each of its products and additions.
//
// Each input row's part that a vector of 16 outputs reads (15 s + kw
// bytes: up to 23 at stride 1, 38 at stride 2) is loaded once (the bytes outside the row
// masked, taking the zero point), and rearranged by one vpermd (dwords to
// 128-bit lanes) and one vpshufb into 16 dwords of that output's taps
// (x[o s], x[o s + 1], x[o s + 2], x[o s + 3]); one vpdpbusd against a
// filter row (w0, w1, w2, 0 for 3 taps) adds that row's taps for all 16
// outputs, and each such vector serves every output row of the block that
// reads the input row. Filters 5-8 wide (MobileNetV3's and PP-LCNet's 5x5)
// take a second vpshufb of the same vpermd result for taps 4-7 and a
// second vpdpbusd against the row's second dword. Stride 2 costs what
// stride 1 does. Rows outside the input are the zero point's codes in
// every byte.
//
// AVX-VNNI (ymm, Isa::Avx2 with WindowConfig::int8): 8 outputs a vector,
// each 128-bit lane's taps from a 16-byte load of its own; bytes outside
// the row are zeroed by the shuffle and given the zero point's code, and
// loads that would leave the plane are shifted inside it (no byte masks).
// No output tables there.
//
// With WindowConfig::oneStep the epilogue is onnxruntime's QLinearConv
// requantization instead: the sums start at the s32 bias code minus zx
// sum(w[c]) (an integer, exact), then one multiply by fl(fl(sx sw[c]) /
// sy), the activation's code bounds, the rounding conversion, + zy as an
// integer.
//
// Filters whose steps leave s8 (u8 weights' q - zp of a per-tensor zero
// point, WindowConfig::int8FilterOffsets) are steps k1 + d with both in s8:
// one more vpdpbusd per filter row adds d times the same taps.
//
// Task arguments (those of WindowKernel): [0] x (u8 codes), [1] y (u8 codes
// or f32), [2] unused, [3] filters [C][filterRows][filterWords] (dwords of
// four s8 taps, zero past kw; the offsets' row last), [4] [2][C] f32: sx sw[c], then bias'[c] (oneStep:
// the multipliers, then the s32 offsets).
//
//===----------------------------------------------------------------------===//

#ifndef NUNC_CODEGEN_X86_INT8DEPTHWISEKERNEL_H
#define NUNC_CODEGEN_X86_INT8DEPTHWISEKERNEL_H

#include "JitSupport.h"
#include "WindowKernel.h"

#include <memory>
#include <optional>
#include <vector>

namespace mlir::nunc::x86 {

struct Int8DepthwiseKernel {
  /// Depthwise on u8 codes: filters up to 7 x 8, stride 1 or 2 along W, no
  /// dilation, no residual, ranges or output rounding (codes or f32 out);
  /// on ymm (`isa` Avx2: AVX-VNNI) no output table and planes of at least
  /// 16 codes.
  static bool supports(const WindowConfig &c, Isa isa);
  /// Dwords of s8 taps per filter row: 1 (kw <= 4) or 2.
  static int64_t filterWords(const WindowConfig &c) { return c.kernelW > 4 ? 2 : 1; }
  /// Rows of filterWords per channel: the filter's kh, and with
  /// int8FilterOffsets one more of its offset d in every tap.
  static int64_t filterRows(const WindowConfig &c) {
    return c.kernelH + (c.int8FilterOffsets ? 1 : 0);
  }
  struct Tables {
    std::vector<int32_t> filters; // [C][kh][filterWords] packed s8 taps
    std::vector<float> scaleBias; // [2][C]
  };
  /// The filters as s8 steps of a per-channel scale and the epilogue's
  /// scales and biases (`bias` may be empty), where every channel's f32
  /// filter lies exactly on an s8 grid (a QDQ model's dequantized weights:
  /// symmetric or asymmetric, per channel or per tensor), else none: the
  /// integer kernel then gives the f32 kernel's results up to roundings.
  /// `weightScales` (one per channel) are the model's own grid; without
  /// them the scale is recovered from the filter (not for oneStep, which
  /// needs them: its multipliers are onnxruntime's, from the model's
  /// scales).
  static std::optional<Tables> tables(const WindowConfig &c, const std::vector<float> &weights,
                                      const std::vector<float> &bias,
                                      const std::vector<float> &weightScales = {});
  static std::unique_ptr<JitKernel> generate(const WindowConfig &c, Isa isa);
};

} // namespace mlir::nunc::x86

#endif // NUNC_CODEGEN_X86_INT8DEPTHWISEKERNEL_H
