//===- WindowKernel.h - pooling and depthwise conv (xbyak) ------*- C++ -*-===//
//
// Sliding-window ops on NCHW f32 planes: MaxPool, AveragePool, depthwise
// convolution (one filter per channel, + bias, + residual, + activation) and
// GlobalAveragePool. Each task takes a block of planes. The inner loops read
// the input through scratch rows with the padding materialized (-inf for
// max, 0 otherwise), so that every tap of a vector of output columns is one
// plain load: stride 1 copies input rows into a padded plane block by block
// of output rows (just before the block reads them); stride 2 splits each
// block's rows straight from the input into their even and odd padded
// columns. A block's output rows share every input vector they read.
//
// Task arguments: [0] x (f32, or u8 codes with `inputU8`), [1] y, [2] scratch (a padded plane per task; a
// call uses its scratch slot's, nunc_rt_task), [3] per-channel filters
// [C][kh*kw] (depthwise) or the reciprocal divisors [outH][outW rounded up to
// vectors] (average with border-dependent divisors), [4] bias [C],
// [5] residual (shaped like y), [6] (`ranges`) the partial ranges. y is f32,
// or u8 codes with `outputU8`.
//
//===----------------------------------------------------------------------===//

#ifndef NUNC_CODEGEN_X86_WINDOWKERNEL_H
#define NUNC_CODEGEN_X86_WINDOWKERNEL_H

#include "JitSupport.h"
#include "nunc/Codegen/Target.h"
#include "nunc/Dialect/Nunc/ShapeHelpers.h"

#include <memory>
#include <vector>

namespace mlir::nunc::x86 {

struct WindowConfig {
  enum Kind { Max, Average, Depthwise, GlobalAverage } kind = Max;
  int64_t batch = 1, channels = 1, height = 1, width = 1;
  int64_t kernelH = 1, kernelW = 1, strideH = 1, strideW = 1, dilationH = 1, dilationW = 1;
  int64_t padTop = 0, padLeft = 0, padBottom = 0, padRight = 0, outH = 1, outW = 1;
  /// The 2-D window as shape::window resolved it (kernel, strides,
  /// dilations, pads, output size).
  void setGeometry(const shape::WindowGeometry &g) {
    kernelH = g.kernel[0];
    kernelW = g.kernel[1];
    strideH = g.strides[0];
    strideW = g.strides[1];
    dilationH = g.dilations[0];
    dilationW = g.dilations[1];
    padTop = g.padsBegin[0];
    padLeft = g.padsBegin[1];
    padBottom = g.padsEnd[0];
    padRight = g.padsEnd[1];
    outH = g.output[0];
    outW = g.output[1];
  }
  /// Average: whether padding counts in the divisor; 1/divisor when it is
  /// the same everywhere, else the kernel reads the reciprocal map
  /// (argument 3). Set by WindowKernel::prepareDivisors.
  bool countIncludePad = false;
  bool uniformDivisor = true;
  float reciprocal = 1;
  /// Average: divide the sum by the count (a map of counts, `reciprocal`
  /// the count) instead of multiplying by its reciprocal, then round to
  /// `output` (a FakeQuant whose zeroPoint is added before the rounding):
  /// onnxruntime's QLinearAveragePool (average_pool's output_quantization).
  bool divide = false;
  /// Depthwise epilogue.
  bool bias = false, residual = false;
  Activation activation;
  /// AVX-512, not GlobalAverage: each task also writes the (max, min) of
  /// what it stored, with 0 in the range, to [task][2] f32 (argument 6): the
  /// partial ranges an int8 convolution's dynamic input quantizer reads
  /// instead of a range pass of its own over y.
  bool ranges = false;
  /// Depthwise on AVX-512: x holds the u8 codes of a per-tensor grid (an
  /// int8 convolution's static u8 output), read as float(q - zp) * scale
  /// as the rows are copied or split into the padded scratch.
  bool inputU8 = false;
  float inputScale = 1;
  int32_t inputZeroPoint = 0;
  /// Depthwise on AVX-512 (or Average with `divide`), last: y rounded to a
  /// grid (FakeQuant), or (depthwise) with
  /// `outputU8` (no residual, no ranges) stored as that grid's u8 codes,
  /// clamp(round_half_even(y / scale) + zp, 0, 255): an int8
  /// convolution's static input.
  Activation output;
  bool outputU8 = false;
  float outputScale = 1;
  int32_t outputZeroPoint = 0;
  /// Depthwise with inputU8 (Int8DepthwiseKernel::supports: AVX-512 VNNI,
  /// or AVX-VNNI on Isa::Avx2): integer taps, s8 filters per channel;
  /// arguments [3] and [4] are Int8DepthwiseKernel::tables'. evexVnni: the
  /// ymm kernel's vpdpbusd EVEX-encoded (the x86_64-avxvnni-evex target).
  bool int8 = false;
  bool evexVnni = false;
  /// int8 (activation none, Relu or Clip): the codes in one multiply, as
  /// onnxruntime's QLinearConv (fused_conv's one_step_requantization):
  /// round(float(sum + bias code - zx sum k[c]) x fl(s[c] / sy)) + zy
  /// within the activation's code bounds, s[c] = fl(inputScale x the
  /// model's filter scale), (sy, zy) outputScale and outputZeroPoint, or
  /// with an outputTable (AVX-512) `output`'s grid, the code then the
  /// table's index.
  bool oneStep = false;
  /// int8 with the model's filter grid: steps k of up to +-255 (u8 weights'
  /// q - zp where a per-tensor zero point leaves s8) as k1 + d[c], both s8,
  /// d[c] times each window's inputs added by one more vpdpbusd per filter
  /// row (Int8DepthwiseKernel::tables).
  bool int8FilterOffsets = false;
  /// Depthwise with `output` (its FakeQuant grid, AVX-512, not int8): y
  /// replaced by outputTable[q - min], q its code on that grid (an
  /// elementwise chain tabulated at compile time; at most
  /// JitKernel::kTableEntries entries), then rounded to `tableOutput` (a
  /// FakeQuant, or None) or, with outputU8, stored as the codes of
  /// (outputScale, outputZeroPoint).
  std::vector<float> outputTable;
  Activation tableOutput;
  /// GlobalAverage of a grid's values (global_average_pool's grids), as
  /// onnxruntime's QLinearGlobalAveragePool: each value's step on
  /// inputScale, summed exactly (at most 65793 values), times
  /// fl(inputScale / fl(outputScale x N)), rounded half to even within
  /// [-outputZeroPoint, 255 - outputZeroPoint], times outputScale (f32 in
  /// and out).
  bool averageOfCodes = false;
  /// outputU8: every y lies within 2^30 output scales (known at compile
  /// time, e.g. u8 input and constant filters), so the codes need no clamp
  /// before the conversion.
  bool outputBounded = false;
};

struct WindowKernel {
  /// Strides 1 and 2 (in W) have vector paths; others take the generic path.
  static bool supports(const WindowConfig &c);
  /// Whether the kernel can write the partial ranges of its output.
  static bool canWriteRanges(const WindowConfig &c, Isa isa) {
    return isa == Isa::Avx512 && c.kind != WindowConfig::GlobalAverage && !c.int8;
  }
  /// Whether the kernel can read and write u8 codes (WindowConfig's
  /// inputU8, output, outputU8): depthwise, f32 taps or the integer kernel
  /// (int8, whose `supports` says which); output tables only on AVX-512
  /// (looksUpTables).
  static bool readsU8(const WindowConfig &c, Isa isa) {
    return c.kind == WindowConfig::Depthwise &&
           (c.outputTable.empty() || looksUpTables(c, isa) || c.int8);
  }
  /// Whether the f32 depthwise kernel looks output tables up: AVX-512.
  static bool looksUpTables(const WindowConfig &c, Isa isa) {
    return c.kind == WindowConfig::Depthwise && isa == Isa::Avx512;
  }
  /// Stride-1 depthwise on AVX-512 with f32 input: the taps read the input
  /// itself (border lanes masked, padding rows skipped) and no scratch.
  static bool readsDirectly(const WindowConfig &c, Isa isa);
  static int64_t planesPerTask(const WindowConfig &c);
  static int64_t numTasks(const WindowConfig &c);
  /// The padded planes of all tasks.
  static int64_t scratchBytes(const WindowConfig &c, Isa isa);
  /// Average: the divisor of each output is its number of taps inside the
  /// input (or, with countIncludePad, inside the padded input; ceil_mode's
  /// overhang never counts). Sets uniformDivisor and reciprocal; returns the
  /// reciprocal map [outH][mapRowFloats] when the divisor varies, else {}.
  static std::vector<float> prepareDivisors(WindowConfig &c, Isa isa);
  static int64_t mapRowFloats(const WindowConfig &c, Isa isa);
  static std::unique_ptr<JitKernel> generate(const WindowConfig &c, Isa isa);
};

} // namespace mlir::nunc::x86

#endif // NUNC_CODEGEN_X86_WINDOWKERNEL_H
