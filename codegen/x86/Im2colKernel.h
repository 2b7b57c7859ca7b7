//===- Im2colKernel.h - im2col into GEMM panels (xbyak) ---------*- C++ -*-===//
//
// Writes the im2col matrix of a 2-D convolution, [C*kh*kw][OH*OW] per image,
// straight into the GEMM kernel's B-panel layout [image][panel][C*kh*kw][NR]
// (columns past the last output position are zero). Each task takes a block
// of (image, channel) planes: it copies the plane into a zero-padded scratch
// plane, then for every tap copies each output row's inputs as vectors (one
// load at stride 1, two deinterleaved at stride 2), splitting a vector where
// it crosses a panel. The output-row code is unrolled (its panel splits are
// compile-time constants); taps are a loop.
//
// Task arguments: [0] input NCHW, [1] packed panels, [2] scratch planes,
// [3] (padWithZeroPoint) the s32 zero point.
//
//===----------------------------------------------------------------------===//

#ifndef NUNC_CODEGEN_X86_IM2COLKERNEL_H
#define NUNC_CODEGEN_X86_IM2COLKERNEL_H

#include "JitSupport.h"
#include "nunc/Codegen/Target.h"

#include <memory>

namespace mlir::nunc::x86 {

struct Im2colConfig {
  int64_t batch = 1, channels = 1, height = 1, width = 1;
  int64_t kernelH = 1, kernelW = 1, strideH = 1, strideW = 1, dilationH = 1, dilationW = 1;
  int64_t padTop = 0, padLeft = 0, outH = 1, outW = 1;
  int64_t panelWidth = 16; // the GEMM kernel's NR
  /// The int8 convolution: elements are 32-bit groups of four u8 channels
  /// (`channels` counts the groups) and padding is the quantized zero, the
  /// zero point in every byte, read at run time from task argument [3] (an
  /// s32). Otherwise padding is 0.
  bool padWithZeroPoint = false;
};

struct Im2colKernel {
  /// Strides 1 and 2 in W, and output rows few enough to unroll.
  static bool supports(const Im2colConfig &c, Isa isa);
  static int64_t planesPerTask(const Im2colConfig &c);
  static int64_t numTasks(const Im2colConfig &c);
  /// Scratch for the padded planes of all tasks.
  static int64_t scratchBytes(const Im2colConfig &c, Isa isa);
  static std::unique_ptr<JitKernel> generate(const Im2colConfig &c, Isa isa);
};

} // namespace mlir::nunc::x86

#endif // NUNC_CODEGEN_X86_IM2COLKERNEL_H
