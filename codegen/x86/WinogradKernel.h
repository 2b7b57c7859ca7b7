//===- WinogradKernel.h - 3x3 convolution as Winograd F(2x2, 3x3) -*- C++ -*-===//
//
//   out[b, m] = activation(conv3x3(in[b], w[m]) + bias[m] + residual[b, m])
//
// for a 3x3 convolution of stride 1 and padding 1 (output H x W as the
// input's), AVX-512, f32. Each 2x2 output tile takes 16 products per input
// channel where the direct convolution takes 36: with d the tile's 4x4
// input patch and g a 3x3 filter, Y = A^T [(G g G^T) . (B^T d B)] A. The
// weights' transforms U = G g G^T are computed at compile time, as
// [16][M][C] floats (position xi = 4 row + column of the 4x4 transform).
//
// The tiles of a tile row are cut into segments of at most 16 (one vector
// of tiles), or two rows of at most 8 tiles share one (pairsRows); a panel
// is at most three segments (48 columns, the GEMM tile's width), the
// segments shared evenly.
// A task takes every 32nd (image, panel) item: it transforms the panel's
// input patches, from the padded planes (PanelIm2col's padding pass, see
// paddingConfig) into its buffer's V [16][C][48], then for each row tile of
// 8 output channels runs the 16 products U[xi] (8 x C) x V[xi] (C x 48)
// into M [16][8][48] and transforms those back into the 2x2 tiles, with
// the bias, residual and activation, stored under the segment's masks.
// The transforms' arithmetic is adds only (the 1/2s of G are in U), so
// the outputs differ from the direct convolution's by a few roundings of
// the input patches' sums.
//
// Task arguments: [0] U, [1] the padded planes (PanelIm2col::planesBytes),
// [2] bias [M], [3] residual NCHW, [4] out NCHW, [5] the tasks' buffers
// (bufferBytes each; a call uses its scratch slot's, nunc_rt_task).
//
//===----------------------------------------------------------------------===//

#ifndef NUNC_CODEGEN_X86_WINOGRADKERNEL_H
#define NUNC_CODEGEN_X86_WINOGRADKERNEL_H

#include "Im2colKernel.h"
#include "JitSupport.h"

#include <memory>
#include <vector>

namespace mlir::nunc::x86 {

struct WinogradConfig {
  int64_t batch = 1, channels = 1, outChannels = 1, height = 1, width = 1;
  bool bias = false, residual = false;
  Activation activation;
};

struct WinogradKernel {
  static constexpr int64_t kTileLanes = 16, kSegmentsPerPanel = 3, kRowsPerTile = 8;
  static constexpr int64_t kMaxTasks = 32;
  static int64_t tileRows(const WinogradConfig &c) { return (c.height + 1) / 2; }
  static int64_t tileCols(const WinogradConfig &c) { return (c.width + 1) / 2; }
  /// Tile rows of at most 8 tiles pair up: a segment's lanes 0-7 hold one
  /// row's tiles, lanes 8-15 the next row's (14x14 planes: 7 of 8 lanes
  /// used where one row a vector used 7 of 16).
  static bool pairsRows(const WinogradConfig &c) { return tileCols(c) <= kTileLanes / 2; }
  static int64_t segmentsPerRow(const WinogradConfig &c) {
    return (tileCols(c) + kTileLanes - 1) / kTileLanes;
  }
  static int64_t segments(const WinogradConfig &c) {
    return pairsRows(c) ? (tileRows(c) + 1) / 2 : tileRows(c) * segmentsPerRow(c);
  }
  static int64_t panels(const WinogradConfig &c) {
    return (segments(c) + kSegmentsPerPanel - 1) / kSegmentsPerPanel;
  }
  /// Segments of the wider panels: the panels share the segments evenly
  /// (4 as 2 + 2, not 3 + 1, whose one-vector panel is load-bound and, on
  /// two threads, idles the other task's thread), the first widePanels of
  /// them one more than the rest.
  static int64_t widePanelSegments(const WinogradConfig &c) {
    return (segments(c) + panels(c) - 1) / panels(c);
  }
  static int64_t widePanels(const WinogradConfig &c) {
    return segments(c) - panels(c) * (widePanelSegments(c) - 1);
  }
  static int64_t items(const WinogradConfig &c) { return c.batch * panels(c); }
  static int64_t numTasks(const WinogradConfig &c) { return std::min(items(c), kMaxTasks); }
  /// Tiles over the lanes the segments give them: the share of the
  /// products that are not wasted on lanes past a tile row's end.
  static double laneUse(const WinogradConfig &c) {
    return static_cast<double>(tileCols(c)) /
           static_cast<double>(pairsRows(c) ? kTileLanes / 2 : segmentsPerRow(c) * kTileLanes);
  }
  /// The padding pass that writes the planes the kernel reads (input
  /// padded by 1 on every side, and to an even size).
  static Im2colConfig paddingConfig(const WinogradConfig &c);
  /// Bytes from one position's V [C][48] to the next: an odd number of
  /// cache lines, so that the 16 stores of a patch's transform fall in 16
  /// different L1 sets (C x 192 bytes is a multiple of 4 KB for C of 64 or
  /// 128, where they all fell in one: the input transform ran 2x slower).
  static int64_t positionBytes(const WinogradConfig &c) {
    const int64_t lines = 3 * c.channels;
    return (lines % 2 ? lines : lines + 1) * 64;
  }
  /// One task's buffer: V [16][C][48] (positions positionBytes apart), then
  /// M [16][8][48].
  static int64_t bufferBytes(const WinogradConfig &c) {
    return 16 * (positionBytes(c) + 48 * kRowsPerTile * 4);
  }
  /// Geometry the kernel takes (a 3x3, stride 1, padding 1 convolution on
  /// AVX-512). Whether it pays is the caller's choice (see laneUse).
  static bool supports(const WinogradConfig &c, Isa isa);
  /// w [M][C][3][3] into U [16][M][C] (computed in double).
  static std::vector<float> transformWeights(const float *w, int64_t m, int64_t c);
  /// Generates the task function; null when xbyak reports an error.
  static std::unique_ptr<JitKernel> generate(const WinogradConfig &c, Isa isa);
};

} // namespace mlir::nunc::x86

#endif // NUNC_CODEGEN_X86_WINOGRADKERNEL_H
