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
// Task arguments: [0] input NCHW, [1] packed panels, [2] scratch planes (one
// per task; a call uses its scratch slot's, nunc_rt_task), [3]
// (padWithZeroPoint) the s32 zero point.
//
//===----------------------------------------------------------------------===//

#ifndef NUNC_CODEGEN_X86_IM2COLKERNEL_H
#define NUNC_CODEGEN_X86_IM2COLKERNEL_H

#include "JitSupport.h"
#include "PaddedPlane.h"
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

/// The convolution GEMM that builds its own panels (see GemmConfig::im2col
/// and Int8GemmConfig::im2col): a padding pass copies every input plane once
/// into padded planes, [guard][image][channel][PaddedPlane][guard]; each GEMM
/// task then copies its panel's columns out of them into a buffer of its
/// own, which stays in L2, instead of the whole im2col matrix going out to
/// memory and back. Panels of 48 positions on AVX-512 (three 16-lane
/// vectors) or 16 on AVX2 (two 8-lane ones: the ymm int8 convolutions). A
/// vector of a panel spans a few output rows; its lanes in row r are one
/// load (stride 2: two loads, deinterleaved) at a constant distance from
/// the vector's base, merged under that row's lane mask.
struct PanelIm2col {
  /// Lanes of a vector: 16 for panels of 48, 8 for panels of 16.
  static int64_t lanes(const Im2colConfig &c) { return c.panelWidth == 48 ? 16 : 8; }
  /// Per (panel, vector): the padded-plane offset (elements) of lane 0 in
  /// the vector's first row, then `rows` lane masks, one per output row
  /// (empty past the vector's last row and past the last position).
  struct Table {
    int rows = 0;
    std::vector<uint32_t> words;
    int64_t wordsPerVector() const { return 1 + rows; }
  };
  /// Lanes of row r of a vector lie `rowDelta` elements further on than
  /// lane 0 of the first row would put them.
  static int64_t rowDelta(const Im2colConfig &c);
  /// No padding and stride 1 in W: the panels are copied straight from
  /// the input (its planes as they are, every load masked to valid lanes),
  /// with no padding pass and no planes in scratch.
  static bool readsInput(const Im2colConfig &c);
  static PaddedPlane plane(const Im2colConfig &c);
  static Table table(const Im2colConfig &c);
  /// Elements before the first plane and after the last one that the
  /// stride-2 loads may touch (never used).
  static int64_t guardElements(const Im2colConfig &c);
  static int64_t planesBytes(const Im2colConfig &c);
  /// AVX-512 with NR of 48 or AVX2 with NR of 16, strides 1 and 2 in W,
  /// vectors over at most 7 rows.
  static bool supports(const Im2colConfig &c, Isa isa);

  /// The padding pass (the GEMM's vectors: zmm for NR 48, ymm for 16): task
  /// arguments [0] input NCHW, [1] the planes (their guard first), [2]
  /// (padWithZeroPoint) the s32 zero point.
  static int64_t paddingTasks(const Im2colConfig &c);
  static std::unique_ptr<JitKernel> generatePadding(const Im2colConfig &c);
};

} // namespace mlir::nunc::x86

#endif // NUNC_CODEGEN_X86_IM2COLKERNEL_H
