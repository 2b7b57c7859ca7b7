//===- Int8GemmKernel.cpp - u8 x s8 GEMMs (xbyak) -------------------------===//

#include "Int8GemmKernel.h"
#include "nunc/Dialect/Nunc/OneStepRequantization.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>

namespace mlir::nunc::x86 {

std::vector<int8_t> Int8GemmKernel::packWeights(const int8_t *w, int64_t k, int64_t n,
                                                Int8Isa isa) {
  int64_t g = kGroup(isa), nr = panelWidth(isa);
  int64_t kp = paddedK(k, isa), panels = numPanels(n, isa);
  std::vector<int8_t> out(panels * kp * nr, 0);
  for (int64_t p = 0; p < panels; ++p)
    for (int64_t kk = 0; kk < k; ++kk)
      for (int64_t j = 0; j < nr && p * nr + j < n; ++j)
        out[((p * kp / g + kk / g) * nr + j) * g + kk % g] = w[kk * n + p * nr + j];
  return out;
}

std::vector<uint32_t> Int8GemmKernel::packColumns(const int32_t *sums, const float *scales,
                                                  const float *bias, int64_t n, Int8Isa isa,
                                                  bool wordPairs,
                                                  const int32_t *weightZeroPoints,
                                                  const int32_t *highSums,
                                                  const Int8GemmConfig::U8Output *outputGrid) {
  int64_t nr = panelWidth(isa);
  const int64_t sumRows = columnBlockRows(weightZeroPoints != nullptr, highSums != nullptr);
  const int64_t rowsPerPanel = sumRows + (outputGrid ? outputGridRows(isa) : 0);
  std::vector<uint32_t> out(numPanels(n, isa) * rowsPerPanel * nr, 0);
  if (outputGrid) {
    const std::vector<uint32_t> grid =
        OutputGridBlock::pack(outputGrid->scale, outputGrid->zeroPoint, zmm(isa) ? 1 : 8);
    for (int64_t p = 0; p < numPanels(n, isa); ++p)
      std::copy(grid.begin(), grid.end(), out.begin() + (p * rowsPerPanel + sumRows) * nr);
  }
  for (int64_t j = 0; j < n; ++j) {
    int64_t base = j / nr * rowsPerPanel * nr + j % nr;
    if (highSums)
      std::memcpy(&out[base + 3 * nr], &highSums[j], 4);
    if (weightZeroPoints) {
      int32_t shift = 128 - weightZeroPoints[j];
      out[base + 3 * nr] = static_cast<uint16_t>(static_cast<int16_t>(shift)) |
                           static_cast<uint32_t>(static_cast<uint16_t>(
                               static_cast<int16_t>(128 * shift)))
                               << 16;
    }
    if (wordPairs) {
      // -sum = lo + 128 hi with lo in [-64, 63] (floor division).
      int64_t minus = -static_cast<int64_t>(sums[j]);
      int64_t hi = (minus + 64) >> 7, lo = minus - hi * 128;
      uint32_t word = static_cast<uint16_t>(static_cast<int16_t>(lo)) |
                      static_cast<uint32_t>(static_cast<uint16_t>(static_cast<int16_t>(hi))) << 16;
      out[base] = word;
    } else {
      std::memcpy(&out[base], &sums[j], 4);
    }
    std::memcpy(&out[base + nr], &scales[j], 4);
    if (bias)
      std::memcpy(&out[base + 2 * nr], &bias[j], 4);
  }
  return out;
}

std::vector<int8_t> Int8ConvGemm::packWeights(const int8_t *w, int64_t m, int64_t channels,
                                              int64_t kh, int64_t kw, bool u8Codes) {
  int64_t depth = Int8ConvGemm::depth(channels, kh, kw), taps = kh * kw;
  std::vector<int8_t> out(m * depth, 0);
  for (int64_t o = 0; o < m; ++o)
    for (int64_t ch = 0; ch < channels; ++ch)
      for (int64_t t = 0; t < taps; ++t) {
        int8_t v = w[(o * channels + ch) * taps + t];
        // code - 128 in s8: the code's top bit flipped.
        out[o * depth + ((ch / 4) * taps + t) * 4 + ch % 4] =
            u8Codes ? static_cast<int8_t>(static_cast<uint8_t>(v) ^ 0x80) : v;
      }
  return out;
}

std::vector<int16_t> Int8ConvGemm::widenWeights(const std::vector<int8_t> &packed) {
  std::vector<int16_t> out(packed.size());
  static constexpr int order[4] = {0, 2, 1, 3};
  for (size_t i = 0; i < packed.size(); ++i)
    out[i] = packed[i / 4 * 4 + order[i % 4]];
  return out;
}

std::vector<uint32_t> Int8ConvGemm::packRows(const std::vector<int8_t> &packed, int64_t m,
                                             const float *scales, bool perRow,
                                             const float *bias, const float *normScale,
                                             const float *normShift,
                                             const int32_t *weightZeroPoints) {
  int64_t depth = static_cast<int64_t>(packed.size()) / m;
  const int64_t words = normScale ? 8 : 4;
  std::vector<uint32_t> out(m * words, 0);
  for (int64_t o = 0; o < m; ++o) {
    int32_t sum = 0;
    for (int64_t i = 0; i < depth; ++i)
      sum += packed[o * depth + i];
    float scale = scales[perRow ? o : 0], b = bias ? bias[o] : 0.f;
    if (weightZeroPoints) {
      // (128 - zw) depth: the zp depth the positions' code sums P carry on
      // top of sum (a - zp) (see the header); the pair for (128 - zw) P.
      int32_t d = 128 - weightZeroPoints[o];
      sum += d * static_cast<int32_t>(depth);
      out[words * o + 3] = static_cast<uint16_t>(d) | static_cast<uint32_t>(128 * d) << 16;
    }
    std::memcpy(&out[words * o], &sum, 4);
    std::memcpy(&out[words * o + 1], &scale, 4);
    std::memcpy(&out[words * o + 2], &b, 4);
    if (normScale) {
      std::memcpy(&out[words * o + 4], &normScale[o], 4);
      std::memcpy(&out[words * o + 5], &normShift[o], 4);
    }
  }
  return out;
}

std::vector<uint32_t> Int8ConvGemm::packOneStepRows(const std::vector<uint32_t> &rows,
                                                    int64_t m, const float *scales,
                                                    bool perRow, const float *bias,
                                                    int32_t zeroPoint, float scale,
                                                    float outputScale) {
  std::vector<uint32_t> out(rows);
  const int64_t words = static_cast<int64_t>(rows.size()) / m; // 8 with a normalization
  for (int64_t o = 0; o < m; ++o) {
    int32_t sum;
    std::memcpy(&sum, &rows[words * o], 4);
    const float s = scale * scales[perRow ? o : 0];
    const int32_t bq = bias ? oneStepBiasCode(bias[o], s) : 0;
    out[words * o] = static_cast<uint32_t>(sum) * static_cast<uint32_t>(zeroPoint) -
                     static_cast<uint32_t>(bq);
    const float multiplier = s / outputScale;
    std::memcpy(&out[words * o + 1], &multiplier, 4);
    out[words * o + 2] = 0;
  }
  return out;
}

std::vector<uint32_t> Int8ConvGemm::broadcastRows(const std::vector<uint32_t> &rows, int64_t m,
                                                  int32_t zeroPoint, float scale) {
  std::vector<uint32_t> out(m * 24);
  for (int64_t o = 0; o < m; ++o) {
    int32_t sum;
    float weightScale;
    std::memcpy(&sum, &rows[4 * o], 4);
    std::memcpy(&weightScale, &rows[4 * o + 1], 4);
    // What the epilogue computed per vector: vpmulld (mod 2^32) and one
    // f32 product.
    const uint32_t compensation = static_cast<uint32_t>(sum) * static_cast<uint32_t>(zeroPoint);
    const float product = scale * weightScale;
    uint32_t productBits;
    std::memcpy(&productBits, &product, 4);
    for (int l = 0; l < 8; ++l) {
      out[24 * o + l] = compensation;
      out[24 * o + 8 + l] = productBits;
      out[24 * o + 16 + l] = rows[4 * o + 2];
    }
  }
  return out;
}

namespace {

using namespace Xbyak;

/// Int8ConvGemm::generateRowBroadcast: per row, the compensation (vpmulld
/// semantics: mod 2^32), fl(input scale x weight scale) and the bias, each
/// in all 8 words.
class RowBroadcastGenerator : public JitKernel {
public:
  explicit RowBroadcastGenerator(int64_t m) : m(m) {}
  void generate() {
    prologue();
    mov(rax, ptr[rdi + 0]);  // (zero point, scale)
    mov(rcx, ptr[rdi + 8]);  // row block [M][4]
    mov(rdx, ptr[rdi + 16]); // broadcast block [M][24]
    vpbroadcastd(ymm0, ptr[rax]);
    vbroadcastss(ymm1, ptr[rax + 4]);
    mov(r8, m);
    Label row;
    L(row);
    vpbroadcastd(ymm2, ptr[rcx]);
    vpmulld(ymm2, ymm2, ymm0);
    vbroadcastss(ymm3, ptr[rcx + 4]);
    vmulps(ymm3, ymm1, ymm3); // the epilogue's order: input scale x weight scale
    vbroadcastss(ymm4, ptr[rcx + 8]);
    vmovdqu(ptr[rdx], ymm2);
    vmovdqu(ptr[rdx + 32], ymm3);
    vmovdqu(ptr[rdx + 64], ymm4);
    add(rcx, 16);
    add(rdx, 96);
    dec(r8);
    jnz(row, T_NEAR);
    epilogueReturn(0);
    emitConstants();
  }

private:
  int64_t m;
};

/// One generator for every form. Zmm: AVX-512 VNNI (tile 8 x 48, 24
/// accumulators) or AMX (tiles, below). Ymm: AVX-VNNI or the AVX2 16-bit
/// form (tile 6 x 16: 12 accumulators, 2 weight vectors, the A broadcast
/// and, on AVX2, one product register). Either way a k group of one A row
/// is 4 bytes.
template <typename Vmm> class Int8GemmGenerator : public PanelGemmKernel {
public:
  static constexpr bool kZmm = std::is_same_v<Vmm, Zmm>;
  static constexpr int kLanes = kZmm ? 16 : 8, kRows = kZmm ? 8 : 6, kUnroll = 4;

  explicit Int8GemmGenerator(const Int8GemmConfig &config)
      : c(config), amx(config.isa == Int8Isa::Amx),
        splitQuads(config.convolution && config.isa == Int8Isa::Avx2),
        group(splitQuads ? 4 : Int8GemmKernel::kGroup(config.isa)),
        aGroupBytes(splitQuads ? 8 : 4),
        vecs(Int8GemmKernel::panelWidth(config.isa) / kLanes), rowsPerTile(amx ? 32 : kRows),
        groupBytes(config.convolution && config.blockPlane ? config.blockPlane * 4
                                                           : vecs * kLanes * group),
        wordPairs(kZmm && !config.convolution &&
                  Int8GemmKernel::compensatesWithWordPairs(config.isa, config.perRowA,
                                                           config.k)) {
    replicate = kZmm ? 1 : 8;
    geluCodeTable = buildGeluCodeTable();
    geluU8Codes = geluCodeTable && c.u8Output && !c.normalize;
  }

  void generate() {
    const int64_t nr = vecs * kLanes;
    const int64_t kp = Int8GemmKernel::paddedK(c.k, c.isa);

    prologue();
    if (amx) {
      // The C tiles' stack block (64-byte aligned) and the full tile shape.
      frameBytes = kTileBlockBytes + 64;
      releaseTiles = true;
      sub(rsp, frameBytes);
      ldtilecfg(tileConfig(rowsPerTile));
    }
    const int64_t tail = Int8ConvGemm::tailColumns(c);
    if (!amx && c.convolution && (c.im2col || tail)) {
      // The scratch slot (nunc_rt_task) at [rsp]: the panel and tail buffers
      // are the slot's, so a thread refills one warm buffer (ResNet int8 b1
      // ~7 % faster than with a fresh buffer per task).
      frameBytes = 8;
      sub(rsp, frameBytes);
      mov(ptr[rsp], rdx);
    }
    if (c.convolution && c.im2col)
      packTaskPanel();
    if (tail)
      transposeTail();
    if constexpr (kZmm)
      if (c.ranges)
        beginPartialRange(6, rangeMax(), rangeMin());
    if (c.convolution) {
      // Task -> (image, panel, chunk); the panels, C and residual of that
      // image (r15 = the chunk until the micro-kernels take it).
      const int64_t panels = Int8GemmKernel::numPanels(c.n, c.isa);
      const int64_t chunks = Int8ConvGemm::rowChunks(c);
      decodeImageAndPanel(&r15);
      mov(r13, rdx);                    // panel
      // The image's panels (or blocks: kp / 4 groups of blockPlane words).
      imul(rbx, rax, c.blockPlane ? kp * c.blockPlane : panels * kp * nr);
      add(rbx, ptr[rdi + 8]);
      imul(r12, rax, c.m * c.n * 4);    // the image's residual
      add(r12, ptr[rdi + 32]);
      imul(rcx, rax, c.m * c.n * cBytes()); // and C
      add(rcx, ptr[rdi + 40]);
      imul(r14, r13, c.blockPlane ? nr * 4 : kp * nr);
      add(rbx, r14);
      if (c.im2col) { // the slot's panel buffer
        imul(rbx, slotAddress(bodyPushed()), kp * nr);
        add(rbx, ptr[rdi + 8]);
      }
      imul(r14, r13, nr * 4);
      add(r12, r14);
      imul(r14, r13, nr * cBytes());
      add(rcx, r14);
      if (tail) { // the slot's transposed tail columns
        imul(r14, slotAddress(bodyPushed()), Int8ConvGemm::tailBytes(c));
        add(r14, ptr[rdi + 56]);
      }
      mov(rax, ptr[rdi + 0]);  // weights (the rows)
      mov(rsi, ptr[rdi + 16]); // row block
      mov(rdx, ptr[rdi + 24]); // the input's (zero point, scale)
      if (tail)
        mov(rdi, r14); // (the arguments are not needed after this)
      if (chunks > 1) {
        // The chunk's first row in the weights, C, residual and row block.
        const int64_t rows = c.m / chunks;
        imul(r14, r15, rows * c.lda);
        add(rax, r14);
        imul(r14, r15, rows * c.ldc * cBytes());
        add(rcx, r14);
        imul(r14, r15, rows * c.ldr * 4);
        add(r12, r14);
        imul(r14, r15, rows * Int8ConvGemm::rowBlockBytes(c));
        add(rsi, r14);
      }
    } else {
      mov(rax, ptr[rdi + 0]);  // A
      if (c.f32Products) {     // the panel's columns of the products
        imul(r14, rsi, nr * 4);
        add(rax, r14);
      }
      mov(rbx, ptr[rdi + 8]);  // packed W
      mov(rdx, ptr[rdi + 16]); // column block
      mov(r12, ptr[rdi + 32]); // residual
      mov(rcx, ptr[rdi + 40]); // C
      mov(r13, rsi);           // panel
      mov(rsi, ptr[rdi + 24]); // row block
      imul(r14, r13, kp * nr); // W panel: kp/g groups of nr x g bytes
      add(rbx, r14);
      imul(r14, r13, columnBlockBytes());
      add(rdx, r14);
      imul(r14, r13, nr * 4);
      add(r12, r14);
      imul(r14, r13, nr * cBytes());
      add(rcx, r14);
      if (!amx)
        lea(rdi, ptr[rbx + kp * nr]); // the prefetch cursor: the next panel
    }
    if (amx) {
      // rdi: the tile block; r8: A row stride; r9: the tile block's and the
      // packed W's row stride (nr s32 / nr x 4 bytes).
      lea(rdi, ptr[rsp + 63]);
      and_(rdi, -64);
      mov(r8, c.lda);
      mov(r9, nr * 4);
    } else {
      setRowStrides(c.lda);
      if constexpr (!kZmm) {
        if (c.activation.qlinearGelu) {
          // onnxruntime's GELU steps: a table of each input code's result,
          // gathered by the grid index (r11 as below; a GEMM has no
          // outputTable).
          static_assert(kRows < 8, "r11 holds aRow's row-7 stride");
          std::vector<float> values;
          for (float q = c.activationInput.min; q <= c.activationInput.max; ++q)
            values.push_back(c.activation.geluOnGrids(q * c.activationInput.scale));
          lea(r11, ptr[rip + dataLabel + tableData(values)]);
        }
        if (!c.outputTable.empty()) {
          // The gathers' table (VSIB takes a base register): r11, aRow's
          // stride of row 7, which ymm tiles never reach.
          static_assert(kRows < 8, "r11 holds aRow's row-7 stride");
          outputTableOffset = c.u8Output ? codeDwordTableData(c.outputTable, c.u8Output->scale,
                                                              c.u8Output->zeroPoint)
                                         : tableData(c.outputTable);
          lea(r11, ptr[rip + dataLabel + *outputTableOffset]);
        }
      }
    }

    panelBody(r13, tail ? Int8ConvGemm::itemPanels(c) * nr : c.n, vecs, kLanes,
              [&](int v, int lanes) {
                if (!tail) {
                  rowLoop(v, lanes);
                  return;
                }
                Label last, done;
                cmp(r13, Int8ConvGemm::itemPanels(c) - 1);
                je(last, T_NEAR);
                rowLoop(v, lanes);
                jmp(done, T_NEAR);
                L(last);
                rowLoop(v, lanes, tail);
                L(done);
              },
              [&](int rows, int v, int lanes) {
                if (amx)
                  amxMicroKernel(rows, v, lanes);
                else
                  microKernel(rows, v, lanes);
              },
              [&] {
                if constexpr (kZmm)
                  if (c.ranges)
                    storePartialRange(rangeMax(), rangeMin(), temp(0));
              });
    for (auto &[key, label] : deferredLabels) {
      L(*label);
      auto [d, rows, vecsHere, lastLanes] = key;
      deferredMicroKernel(static_cast<Deferral>(d), rows, vecsHere, lastLanes);
      ret();
    }
    for (auto &[key, label] : dotLabels) {
      L(*label);
      if constexpr (kZmm)
        dotKernel(std::get<0>(key), std::get<1>(key), std::get<2>(key));
      else
        ymmDotKernel(std::get<0>(key), std::get<1>(key), std::get<2>(key));
      ret();
    }
    emitConstants();
  }

private:
  /// The scratch slot, saved at the frame's base, with `pushed` bytes on
  /// the stack above it.
  Xbyak::Address slotAddress(int pushed) { return ptr[rsp + pushed]; }
  /// What the task body has pushed above the slot: the partial range's
  /// pointer (beginPartialRange).
  int bodyPushed() const { return c.ranges ? 8 : 0; }

  /// rax = the image, rdx = the panel of task rsi (task = (image x
  /// itemPanels + panel) x rowChunks + chunk), *chunk = the chunk when
  /// asked; uses rcx.
  void decodeImageAndPanel(const Reg64 *chunk = nullptr) {
    const int64_t chunks = Int8ConvGemm::rowChunks(c);
    mov(rax, rsi);
    if (chunks > 1) {
      xor_(edx, edx);
      mov(rcx, chunks);
      div(rcx);
      if (chunk)
        mov(*chunk, rdx);
    }
    xor_(edx, edx);
    mov(rcx, Int8ConvGemm::itemPanels(c));
    div(rcx);
  }

  /// The task's panel of u8 blocks into its buffer (argument [1] + task x
  /// panel bytes), from the image's padded planes (argument [7]).
  void packTaskPanel() {
    const Im2colConfig &ic = *c.im2col;
    const int64_t nr = vecs * kLanes, kp = Int8GemmKernel::paddedK(c.k, c.isa);
    push(rdi);
    push(rsi);
    decodeImageAndPanel();
    mov(r13, rdx);
    imul(rax, rax, ic.channels * PanelIm2col::plane(ic).floats * 4);
    add(rax, ptr[rdi + 56]);
    add(rax, PanelIm2col::guardElements(ic) * 4);
    imul(rbx, slotAddress(16), kp * nr); // (under rdi, rsi)
    add(rbx, ptr[rdi + 8]);
    emitPanelIm2col(ic, rax, r13, rbx);
    pop(rsi);
    pop(rdi);
  }

  /// A task of the last item panel: the joined tail columns' u8 groups,
  /// transposed into the slot's buffer ([tail][K rounded up to 64] bytes,
  /// argument [7]) from the packed panel after the task's (or the blocks,
  /// for a direct conv): zmm gathers 16 groups at a time; ymm copies them
  /// one by one, the AVX2 form's rows then holding each group's bytes as
  /// (x0, x2, x1, x3), the order of its widened weights' pairs.
  void transposeTail() {
    const int64_t nr = vecs * kLanes, kp = Int8GemmKernel::paddedK(c.k, c.isa);
    const int64_t panels = Int8GemmKernel::numPanels(c.n, c.isa);
    const int64_t itemPanels = Int8ConvGemm::itemPanels(c);
    const int64_t tail = Int8ConvGemm::tailColumns(c);
    const int64_t groups = kp / 4, rowBytes = Int8ConvGemm::tailBytes(c) / tail;
    // A group's words lie `stride` words apart.
    const int64_t stride = c.blockPlane ? c.blockPlane : nr;
    Label skip;
    push(rdi);
    push(rsi);
    decodeImageAndPanel();
    cmp(rdx, itemPanels - 1);
    jne(skip, T_NEAR);
    // rax: the first tail column's group 0; r8: the slot's buffer.
    if (c.blockPlane) {
      imul(rax, rax, kp * c.blockPlane);
      add(rax, itemPanels * nr * 4);
    } else {
      imul(rax, rax, panels * kp * nr);
      add(rax, itemPanels * kp * nr);
    }
    add(rax, ptr[rdi + 8]);
    imul(r8, slotAddress(16), Int8ConvGemm::tailBytes(c)); // (under rdi, rsi)
    add(r8, ptr[rdi + 56]);
    if constexpr (kZmm) {
      // The table: each group's offset.
      std::vector<uint32_t> offsets(rowBytes / 4, 0);
      for (int64_t g = 0; g < groups; ++g)
        offsets[g] = static_cast<uint32_t>(g * stride);
      lea(rcx, dataAddr(offsets));
      for (int64_t j = 0; j < tail; ++j) {
        xor_(r9, r9);
        mov(r10, rowBytes / 64);
        Label block;
        L(block);
        vmovdqu32(Zmm(1), ptr[rcx + r9]);
        kxnorw(k1, k1, k1);
        vpgatherdd(Zmm(0) | k1, ptr[rax + j * 4 + Zmm(1) * 4]);
        vmovdqu32(ptr[r8 + r9 + j * rowBytes], Zmm(0));
        add(r9, 64);
        dec(r10);
        jnz(block, T_NEAR);
      }
    } else {
      for (int64_t j = 0; j < tail; ++j) {
        lea(rcx, ptr[rax + j * 4]);
        xor_(r9, r9);
        Label group;
        L(group);
        mov(r10d, ptr[rcx]);
        if (splitQuads) {
          // (x0, x1, x2, x3) -> (x0, x2, x1, x3): bytes 1 and 2 swapped.
          mov(r11d, r10d);
          and_(r10d, 0xff0000ff);
          and_(r11d, 0x00ffff00);
          ror(r11d, 8); // x1 at byte 0, x2 at 1
          rol(r11w, 8); // x2 at 0, x1 at 1
          shl(r11d, 8); // x2 at 1, x1 at 2
          or_(r10d, r11d);
        }
        mov(ptr[r8 + r9 + j * rowBytes], r10d);
        add(rcx, stride * 4);
        add(r9, 4);
        cmp(r9, groups * 4);
        jb(group, T_NEAR);
      }
    }
    L(skip);
    pop(rsi);
    pop(rdi);
  }

  /// Rows a ymm dot-kernel call takes for `cols` tail columns: their
  /// accumulators, the columns' vectors, the row's and a product in 16.
  static int ymmDotRows(int cols) { return std::min(kRows, (16 - 2 - cols) / cols); }

  /// ymmDotKernel: rows [first, first + rows) of the tile by the `cols`
  /// joined tail columns (rdi: their transposed groups), as dotKernel on
  /// zmm: exact dot products over K (VNNI: 32 u8 x s8 at a time; AVX2: 16
  /// u8 widened to words against the row's 16 s16 weights), the lanes
  /// summed by vphaddd into lane j of one vector per row, then the
  /// panel's epilogue for a last vector of `cols` lanes at column 16.
  void ymmDotKernel(int rows, int first, int cols) {
    const int64_t rowBytes = Int8ConvGemm::tailBytes(c) / cols;
    auto dacc = [&](int i, int j) { return Ymm(i * cols + j); };
    auto b = [&](int j) { return Ymm(16 - 2 - cols + j); };
    const Ymm a(14), t(15);
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < cols; ++j)
        vpxor(dacc(i, j), dacc(i, j), dacc(i, j));
    mov(r14, rax);
    mov(r15, rdi);
    // k per step: 32 bytes of the u8 rows (VNNI), 16 (AVX2: their words
    // against 32 bytes of s16 weights).
    const int64_t kStep = splitQuads ? 16 : 32, wStep = kStep * (splitQuads ? 2 : 1);
    auto step = [&](int64_t kBytes) {
      // The weights' rest masked (4-byte lanes): nothing past the row is
      // read, and the tail's bytes past K meet zeros.
      const bool masked = kBytes < kStep;
      Address maskAddr = masked ? laneMask(kBytes * wStep / kStep / 4, 8) : ptr[rip];
      for (int j = 0; j < cols; ++j) {
        if (splitQuads)
          vpmovzxbw(b(j), ptr[r15 + j * rowBytes]);
        else
          vmovdqu(b(j), ptr[r15 + j * rowBytes]);
      }
      for (int i = 0; i < rows; ++i) {
        if (masked) {
          vmovdqu(t, maskAddr);
          vpmaskmovd(a, t, ptr[aRow(r14, first + i)]);
        } else {
          vmovdqu(a, ptr[aRow(r14, first + i)]);
        }
        for (int j = 0; j < cols; ++j) {
          if (splitQuads) {
            vpmaddwd(t, a, b(j));
            vpaddd(dacc(i, j), dacc(i, j), t);
          } else {
            vpdpbusd(dacc(i, j), b(j), a, c.evexVnni ? EvexEncoding : VexEncoding);
          }
        }
      }
    };
    const int64_t blocks = c.k / kStep, rest = c.k % kStep; // K: whole groups of 4
    if (blocks) {
      Label loop;
      mov(r13, blocks);
      L(loop);
      step(kStep);
      add(r14, wStep);
      add(r15, kStep);
      dec(r13);
      jnz(loop, T_NEAR);
    }
    if (rest)
      step(rest);
    // Row i's column sums into lane j of ymm i (lanes past cols: sums of
    // zero vectors), rows in order: ymm i is no later row's accumulator.
    for (int i = 0; i < rows; ++i) {
      Ymm s[4];
      for (int j = 0; j < 4; ++j)
        s[j] = j < cols ? dacc(i, j) : dacc(i, cols - 1);
      vphaddd(t, s[0], s[1]);
      vphaddd(a, s[2], s[3]);
      vphaddd(t, t, a);
      vextracti128(Xmm(a.getIdx()), t, 1);
      vpaddd(Xmm(i), Xmm(t.getIdx()), Xmm(a.getIdx())); // (VEX: the upper half zeroed)
    }
    Address maskAddr = tailMask(cols);
    for (int i = 0; i < rows; ++i)
      epilogue(Ymm(i), first + i, vecs, cols, maskAddr);
  }

  Label &dotLabel(int rows, int first, int cols) {
    auto &l = dotLabels[{rows, first, cols}];
    if (!l)
      l = std::make_unique<Label>();
    return *l;
  }
  std::map<std::tuple<int, int, int>, std::unique_ptr<Label>> dotLabels;

  /// Rows [first, first + rows) of the tile by the `cols` joined tail
  /// columns (rdi: their transposed groups): u8 x s8 dot products over K,
  /// 64 k at a time, summed across the lanes into one vector per row (lane
  /// j: column 48 + j), then the panel's epilogue as for a last vector of
  /// `cols` lanes at column 48. Exact in s32, as the panel's sums are.
  void dotKernel(int rows, int first, int cols) {
    const int64_t rowBytes = Int8ConvGemm::tailBytes(c) / cols;
    auto dacc = [&](int i, int j) { return Zmm(i * cols + j); };
    auto b = [&](int j) { return Zmm(24 + j); };
    const Zmm a(28), t(29);
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < cols; ++j)
        vpxord(dacc(i, j), dacc(i, j), dacc(i, j));
    mov(r14, rax);
    mov(r15, rdi);
    auto step = [&](bool masked) {
      for (int j = 0; j < cols; ++j) {
        if (masked)
          vmovdqu32(b(j) | k1 | T_z, ptr[r15 + j * rowBytes]);
        else
          vmovdqu32(b(j), ptr[r15 + j * rowBytes]);
      }
      for (int i = 0; i < rows; ++i) {
        if (masked)
          vmovdqu32(a | k1 | T_z, ptr[aRow(r14, first + i)]);
        else
          vmovdqu32(a, ptr[aRow(r14, first + i)]);
        for (int j = 0; j < cols; ++j)
          vpdpbusd(dacc(i, j), b(j), a, EvexEncoding);
      }
    };
    const int64_t blocks = c.k / 64, rest = c.k % 64; // K: whole groups of 4
    if (blocks) {
      Label loop;
      mov(r13, blocks);
      L(loop);
      step(false);
      add(r14, 64);
      add(r15, 64);
      dec(r13);
      jnz(loop, T_NEAR);
    }
    if (rest) {
      mov(r13d, (1u << (rest / 4)) - 1);
      kmovw(k1, r13d);
      step(true);
    }
    for (int i = 0; i < rows; ++i) {
      Zmm x(16 + i);
      vpxord(x, x, x);
      for (int j = 0; j < cols; ++j)
        sumLanesInto(x, dacc(i, j), t, j);
    }
    Address maskAddr = tailMask(cols);
    for (int i = 0; i < rows; ++i) {
      rowConstants(first + i);
      epilogue(Zmm(16 + i), first + i, vecs, cols, maskAddr);
    }
  }

  Int8GemmConfig c;
  bool amx;
  /// The AVX2 convolution form: each 4-byte group of the u8 panels is read
  /// as two vectors of words, its bytes (0, 2) and (1, 3), against the
  /// row's s16 pairs (w0, w2) and (w1, w3) (Int8ConvGemm::widenWeights).
  bool splitQuads;
  int group;        // k per weight group
  int64_t aGroupBytes; // A bytes per k group: 4, or the AVX2 convolution's 4 words
  int vecs;         // vectors per panel
  int rowsPerTile;  // rows per micro-kernel call
  int64_t groupBytes; // W bytes per k group of a panel
  bool wordPairs;     // per-row compensation by vpdpwssd (packColumns)
  std::optional<int64_t> geluCodeTable;   // buildGeluCodeTable()
  bool geluU8Codes = false; // rows of 2-3 vectors look their codes up
  std::optional<int64_t> geluU8CodeTable; // buildGeluU8CodeTable(), at first use
  static constexpr int64_t kTileBlockBytes = 32 * 32 * 4;

  /// Bytes of one C element: f32, or u8 (U8Output).
  int cBytes() const { return c.u8Output ? 1 : 4; }
  /// Bytes of a panel's column block (the linear form).
  int64_t columnBlockBytes() const {
    return (Int8GemmKernel::columnBlockRows(c.u8Weights, c.u16Input) +
            (Int8GemmKernel::gridInColumns(c) ? Int8GemmKernel::outputGridRows(c.isa) : 0)) *
           vecs * kLanes * 4;
  }
  /// u8Output's grid: in the panel's column block (rdx) in the linear form,
  /// in the pool in the convolution form.
  GridConstants outputGrid() const {
    GridConstants g{c.u8Output->scale, c.u8Output->zeroPoint, std::nullopt};
    if (Int8GemmKernel::gridInColumns(c))
      g.block = {{rdx, Int8GemmKernel::columnBlockRows(c.u8Weights, c.u16Input) * vecs *
                           kLanes * 4}};
    return g;
  }
  int kFree() const { return kRows * vecs; } // first register after the accumulators
  Vmm acc(int r, int v) { return Vmm(r * vecs + v); }
  Vmm bReg(int v) { return Vmm(kFree() + v); }
  Vmm aReg() { return Vmm(kFree() + vecs); }
  Vmm product() { return Vmm(kFree() + vecs + 1); } // AVX2 only
  /// Epilogue temporaries: past the k-loop registers on zmm; the k-loop
  /// registers themselves on ymm (16 registers in all).
  Vmm temp(int i) { return Vmm(kZmm ? 28 + i : kFree() + i); }
  /// The partial range (`ranges`, zmm only): the last two temporaries,
  /// which such an epilogue leaves alone.
  Vmm rangeMax() { return temp(2); }
  Vmm rangeMin() { return temp(3); }

  /// All row tiles of the current panel (pointers restored after), each
  /// followed by the dot products of `tail` joined columns.
  void rowLoop(int vecsHere, int lastLanes, int64_t tail = 0) {
    const int64_t rowsHere = c.m / Int8ConvGemm::rowChunks(c); // the task's chunk
    int64_t fullTiles = rowsHere / rowsPerTile, rest = rowsHere % rowsPerTile;
    if (positionPairs()) {
      sub(rsp, kPairBlockBytes);
      emitPositionPairs(vecsHere, tail);
    }
    auto tile = [&](int rows) {
      call(microLabel(rows, vecsHere, lastLanes));
      // At most 16 dot accumulators (zmm: rows x tail), or what 16 ymm
      // registers leave besides the tail's and the row's.
      int step = kZmm ? (tail <= 2 ? rows : 4) : tail ? ymmDotRows(static_cast<int>(tail)) : 1;
      for (int first = 0; tail && first < rows; first += step)
        call(dotLabel(std::min(step, rows - first), first, static_cast<int>(tail)));
    };
    auto nextTile = [&] {
      add(rax, rowsPerTile * c.lda);
      add(rcx, rowsPerTile * c.ldc * cBytes());
      add(r12, rowsPerTile * c.ldr * 4);
      add(rsi, rowsPerTile * (c.convolution ? Int8ConvGemm::rowBlockBytes(c) : rowBytes()));
    };
    push(rax);
    push(rcx);
    push(r12);
    push(rsi);
    if (deferredGelu() && !tail && fullTiles >= 2) {
      // The stash (64-byte aligned, the caller's rsp above it).
      const int64_t bytes = stashBytes(vecsHere);
      mov(rbp, rsp);
      sub(rsp, bytes + 8);
      and_(rsp, -64);
      mov(ptr[rsp + bytes], rbp);
      auto call = [&](Deferral d, int rows) {
        this->call(deferredLabel(d, rows, vecsHere, lastLanes));
      };
      call(Deferral::First, rowsPerTile);
      nextTile();
      Label rows;
      mov(rbp, fullTiles - 1);
      L(rows);
      call(Deferral::Middle, rowsPerTile);
      nextTile();
      dec(rbp);
      jnz(rows, T_NEAR);
      call(rest ? Deferral::Rest : Deferral::Drain, rest ? static_cast<int>(rest) : 0);
      mov(rsp, ptr[rsp + bytes]);
    } else {
      if (fullTiles) {
        Label rows;
        mov(rbp, fullTiles);
        L(rows);
        tile(rowsPerTile);
        nextTile();
        dec(rbp);
        jnz(rows, T_NEAR);
      }
      if (rest)
        tile(static_cast<int>(rest));
    }
    pop(rsi);
    pop(r12);
    pop(rcx);
    pop(rax);
    if (positionPairs())
      add(rsp, kPairBlockBytes);
  }

  /// u8 weights in the convolution form: the panel's columns' code sums P
  /// as word pairs (P mod 128, P / 128), one vector per panel vector and
  /// one for the joined tail columns, in a block under rowLoop's pushes.
  bool positionPairs() const { return !amx && c.convolution && c.u8Weights; }
  static constexpr int64_t kPairBlockBytes = 4 * 64;
  /// Vector v of the pairs, as the micro-kernels and dot kernels (called
  /// from rowLoop: a return address above its four pushes) address it.
  Address positionPair(int v) { return ptr[rsp + 8 + 4 * 8 + v * 64]; }

  /// The pairs of the panel at rbx (vecsHere vectors) and of the `tail`
  /// joined columns (transposed at rdi) into the block at rsp: sums with
  /// ones by `vpdpbusd` (the panel's bytes as the u8 operand), two k groups
  /// at a time in separate accumulators. zmm0-13 (ymm0-9); r13, r14.
  void emitPositionPairs(int vecsHere, int64_t tail) {
    const int64_t groups = Int8GemmKernel::paddedK(c.k, c.isa) / 4;
    const Vmm ones(4 * vecs), t(4 * vecs + 1);
    auto sum = [&](int u, int v) { return Vmm(u * vecs + v); };
    auto load = [&](int u, int v) { return Vmm((2 + u) * vecs + v); };
    if constexpr (kZmm) // s8 ones: |-1|
      vpternlogd(ones, ones, ones, 0xff);
    else
      vpcmpeqd(ones, ones, ones);
    vpabsb(ones, ones);
    // (A VEX xor of the ymm clears the whole zmm too.)
    for (int u = 0; u < 2; ++u)
      for (int v = 0; v < vecsHere; ++v)
        vpxor(Ymm(sum(u, v).getIdx()), Ymm(sum(u, v).getIdx()), Ymm(sum(u, v).getIdx()));
    auto step = [&](int unroll) {
      for (int u = 0; u < unroll; ++u)
        for (int v = 0; v < vecsHere; ++v)
          vmovups(load(u, v), ptr[r14 + u * groupBytes + v * kLanes * 4]);
      for (int u = 0; u < unroll; ++u)
        for (int v = 0; v < vecsHere; ++v) {
          if (splitQuads) {
            // Byte pairs to words (at most 510: no saturation), word pairs
            // to dwords.
            vpmaddubsw(load(u, v), load(u, v), ones);
            vpmaddwd(load(u, v), load(u, v), constAddrBits(0x00010001));
            vpaddd(sum(u, v), sum(u, v), load(u, v));
          } else {
            vpdpbusd(sum(u, v), load(u, v), ones,
                     kZmm || c.evexVnni ? EvexEncoding : VexEncoding);
          }
        }
    };
    mov(r14, rbx);
    if (groups / 2) {
      Label loop;
      mov(r13, groups / 2);
      L(loop);
      step(2);
      add(r14, 2 * groupBytes);
      dec(r13);
      jnz(loop, T_NEAR);
    }
    if (groups % 2)
      step(1);
    for (int v = 0; v < vecsHere; ++v) {
      vpaddd(sum(0, v), sum(0, v), sum(1, v));
      storePair(sum(0, v), t, ptr[rsp + v * 64]);
    }
    if constexpr (kZmm) {
      if (tail) {
        // Lane j: the sum of tail column j's K codes (its row of the
        // transposed buffer; the bytes past K are not its own).
        const int64_t rowBytes = Int8ConvGemm::tailBytes(c) / tail;
        const Zmm x(0), acc(1), part(2);
        vpxord(x, x, x);
        for (int64_t j = 0; j < tail; ++j) {
          vpxord(acc, acc, acc);
          for (int64_t b = 0; b * 64 < c.k; ++b) {
            int64_t bytes = std::min<int64_t>(64, c.k - b * 64);
            if (bytes == 64) {
              vmovdqu32(part, ptr[rdi + j * rowBytes + b * 64]);
            } else {
              mov(r13d, (1u << (bytes / 4)) - 1);
              kmovw(k1, r13d);
              vmovdqu32(part | k1 | T_z, ptr[rdi + j * rowBytes + b * 64]);
            }
            vpdpbusd(acc, part, ones, EvexEncoding);
          }
          sumLanesInto(x, acc, t, static_cast<int>(j));
        }
        storePair(x, t, ptr[rsp + vecs * 64]);
      }
    }
  }

  /// x's s32 lanes (P >= 0) as word pairs (P mod 128, P / 128), stored.
  void storePair(const Vmm &x, const Vmm &t, const Address &to) {
    vpsrld(t, x, 7);
    vpslld(t, t, 16);
    if constexpr (kZmm) {
      vpandd(x, x, constAddrBits(127));
      vpord(x, x, t);
    } else {
      vpand(x, x, constAddrBits(127));
      vpor(x, x, t);
    }
    vmovups(to, x);
  }

  /// Lane `lane` of x = the sum of v's 16 s32 lanes (v, t clobbered; k2).
  void sumLanesInto(const Zmm &x, const Zmm &v, const Zmm &t, int lane) {
    vshufi32x4(t, v, v, 0x4e);
    vpaddd(v, v, t);
    vshufi32x4(t, v, v, 0xb1);
    vpaddd(v, v, t);
    vpshufd(t, v, 0x4e);
    vpaddd(v, v, t);
    vpshufd(t, v, 0xb1);
    vpaddd(v, v, t);
    mov(r13d, 1u << lane);
    kmovw(k2, r13d);
    vmovdqa32(x | k2, v);
  }

  void dotProduct(const Vmm &accumulator, const Vmm &a, const Vmm &b) {
    if constexpr (kZmm) {
      // u8 x s8: the u8 operand is A, or the panel in a convolution.
      if (c.convolution)
        vpdpbusd(accumulator, b, a, EvexEncoding);
      else
        vpdpbusd(accumulator, a, b, EvexEncoding);
    } else if (c.isa == Int8Isa::AvxVnni) {
      const PreferredEncoding encoding = c.evexVnni ? EvexEncoding : VexEncoding;
      if (c.convolution)
        vpdpbusd(accumulator, b, a, encoding);
      else
        vpdpbusd(accumulator, a, b, encoding);
    } else {
      vpmaddwd(product(), a, b);
      vpaddd(accumulator, accumulator, product());
    }
  }

  /// One group of k (aGroupBytes of each A row) at byte offsets aOff, bOff.
  void kStep(int rows, int vecsHere, int64_t aOff, int64_t bOff) {
    if (splitQuads) {
      // u8 x s8 as exact word products (vpmaddwd): the panel's even bytes,
      // then its odd ones, each zero-extended within its word.
      for (int odd = 0; odd < 2; ++odd) {
        for (int v = 0; v < vecsHere; ++v) {
          vmovdqu(bReg(v), ptr[r15 + bOff + v * kLanes * 4]);
          if (odd)
            vpsrlw(bReg(v), bReg(v), 8);
          else
            vpand(bReg(v), bReg(v), constAddrBits(0x00ff00ff));
        }
        for (int r = 0; r < rows; ++r) {
          vpbroadcastd(aReg(), ptr[aRow(r14, r) + aOff + 4 * odd]);
          for (int v = 0; v < vecsHere; ++v)
            dotProduct(acc(r, v), aReg(), bReg(v));
        }
      }
      return;
    }
    for (int v = 0; v < vecsHere; ++v) {
      if (c.isa == Int8Isa::Avx2)
        vpmovsxbw(bReg(v), ptr[r15 + bOff + v * kLanes * 2]);
      else if constexpr (kZmm)
        vmovdqu32(bReg(v), ptr[r15 + bOff + v * kLanes * 4]);
      else
        vmovdqu(bReg(v), ptr[r15 + bOff + v * kLanes * 4]);
    }
    for (int r = 0; r < rows; ++r) {
      vpbroadcastd(aReg(), ptr[aRow(r14, r) + aOff]);
      for (int v = 0; v < vecsHere; ++v)
        dotProduct(acc(r, v), aReg(), bReg(v));
    }
  }

  void microKernel(int rows, int vecsHere, int lastLanes) {
    if (c.f32Products) {
      // The products' rows: A's (linear form) or, in the convolution form,
      // those of argument [4], laid out as the residual [M][N].
      const Address maskAddr = tailMask(lastLanes);
      mov(r14, rax);
      for (int r = 0; r < rows; ++r)
        for (int v = 0; v < vecsHere; ++v) {
          Address p = c.convolution ? ptr[r12 + r * c.ldr * 4 + v * kLanes * 4]
                                    : ptr[aRow(r14, r) + v * kLanes * 4];
          if (v < vecsHere - 1 || lastLanes == kLanes) {
            vmovups(acc(r, v), p);
          } else if constexpr (kZmm) {
            vmovups(acc(r, v) | k1 | T_z, p);
          } else {
            vmovups(temp(0), maskAddr);
            vmaskmovps(acc(r, v), temp(0), p);
          }
        }
      tileEpilogue(rows, vecsHere, lastLanes, maskAddr);
      return;
    }
    clearAccumulators(rows, vecsHere);
    mov(r14, rax);
    accumulate(rows, vecsHere, /*prefetch=*/true);
    if (c.u16Input)
      addLowPlane(rows, vecsHere);
    tileEpilogue(rows, vecsHere, lastLanes, tailMask(lastLanes));
  }

  /// The tile's epilogues, after its dot products.
  void tileEpilogue(int rows, int vecsHere, int lastLanes, const Address &maskAddr) {
    // u8 codes of a row's 2 or 3 vectors are packed and stored together
    // (storeU8Row); the epilogue leaves each vector's quotient in place.
    packU8Rows = c.u8Output && vecsHere >= 2;
    lastRowLanes = lastLanes;
    if (kZmm && packU8Rows) {
      const int64_t bytes = (vecsHere - 1) * kLanes + lastLanes;
      mov(r13, bytes == 64 ? ~uint64_t(0) : (uint64_t(1) << bytes) - 1);
      kmovq(k7, r13);
    }
    if (stashedGelu()) {
      stashedGeluEpilogues(rows, vecsHere, lastLanes, maskAddr);
    } else {
      for (int r = 0; r < rows; ++r) {
        rowConstants(r);
        rowEpilogues(r, vecsHere, lastLanes, maskAddr);
        if (packU8Rows)
          storeU8Row(r, vecsHere);
      }
    }
    packU8Rows = false;
  }

  /// Whether the epilogue leaves u8 quotients for storeU8Row, and the
  /// lanes of the tile's last vector.
  bool packU8Rows = false;
  int lastRowLanes = 0;

  void clearAccumulators(int rows, int vecsHere) {
    for (int r = 0; r < rows; ++r)
      for (int v = 0; v < vecsHere; ++v)
        if constexpr (kZmm)
          vpxord(acc(r, v), acc(r, v), acc(r, v));
        else
          vpxor(acc(r, v), acc(r, v), acc(r, v));
  }

  /// The dot products of the tile's A rows from r14 with the panel's
  /// weights (from rbx) over all of K, into the accumulators; `prefetch`:
  /// with the next panel's share of prefetches.
  /// `pending`: the deferred GELU of that many stashed vectors (r12 the
  /// first), woven into the k loop's iterations, the rest after it.
  void accumulate(int rows, int vecsHere, bool prefetch, int pending = 0) {
    mov(r15, rbx);
    int64_t groups = Int8GemmKernel::paddedK(c.k, c.isa) / group;
    int64_t blocks = groups / kUnroll, rest = groups % kUnroll;
    const int lines = prefetch ? prefetchLines(blocks) : 0;
    // Vectors per woven iteration: as few as spread them over the loop.
    const int per = blocks ? static_cast<int>(std::min<int64_t>(
                                 kUnroll, (pending + blocks - 1) / blocks))
                           : 0;
    const int64_t woven = per ? std::min<int64_t>(blocks, pending / per) : 0;
    auto loop = [&](int64_t iterations, int weave) {
      if (!iterations)
        return;
      Label loop;
      mov(r13, iterations);
      L(loop);
      for (int u = 0; u < kUnroll; ++u) {
        kStep(rows, vecsHere, u * aGroupBytes, u * groupBytes);
        prefetchNextPanel(rdi, lines, u, kUnroll);
        if (u < weave)
          deferredGeluVector();
      }
      if (lines)
        add(rdi, lines * 64);
      add(r14, kUnroll * aGroupBytes);
      add(r15, kUnroll * groupBytes);
      dec(r13);
      jnz(loop, T_NEAR);
    };
    loop(woven, per);
    loop(blocks - woven, 0);
    for (int64_t i = woven * per; i < pending; ++i)
      deferredGeluVector();
    for (int u = 0; u < rest; ++u)
      kStep(rows, vecsHere, u * aGroupBytes, u * groupBytes);
  }

  /// A panel's full tiles of FFN1's form leave their GELU (and u8 codes)
  /// to the next tile's k loop, which has two of the four vector pipes
  /// idle (vpdpbusd takes the other two) but only four registers free: the
  /// GELU's ~20 uops a vector cost MiniLM's FFN1 13-15 % when they ran
  /// after the k loop. The last tile's wait for the rest tile's k loop, or
  /// a drain.
  bool deferredGelu() const {
    return geluInPairs() && !amx && !c.residual && !c.normalize && !c.f32Products &&
           c.output.kind == Activation::None;
  }
  enum class Deferral {
    First,  // the panel's first full tile: stashes its epilogue inputs
    Middle, // the previous tile's GELU in its k loop, its own stashed
    Rest,   // the previous tile's GELU in its k loop, its own epilogue
    Drain,  // no tile: the previous one's GELU
  };
  Label &deferredLabel(Deferral d, int rows, int vecsHere, int lastLanes) {
    auto &l = deferredLabels[{static_cast<int>(d), rows, vecsHere, lastLanes}];
    if (!l)
      l = std::make_unique<Label>();
    return *l;
  }
  std::map<std::tuple<int, int, int, int>, std::unique_ptr<Label>> deferredLabels;
  /// A full tile's stash: one 64-byte slot per vector, row by row.
  int64_t stashBytes(int vecsHere) const { return kRows * vecsHere * 64; }
  /// Slot i of the stash, as a deferred micro-kernel (called from rowLoop,
  /// the stash at its rsp) addresses it.
  Address stashSlot(int64_t i) { return ptr[rsp + 8 + i * 64]; }

  /// A micro-kernel of a panel whose full tiles defer their GELU.
  void deferredMicroKernel(Deferral d, int rows, int vecsHere, int lastLanes) {
    if constexpr (kZmm) {
      const int pending = d == Deferral::First ? 0 : kRows * vecsHere;
      if (pending)
        lea(r12, stashSlot(0));
      if (d == Deferral::Drain) {
        for (int i = 0; i < pending; ++i)
          deferredGeluVector();
      } else {
        clearAccumulators(rows, vecsHere);
        mov(r14, rax);
        accumulate(rows, vecsHere, /*prefetch=*/true, pending);
        if (c.u16Input)
          addLowPlane(rows, vecsHere);
      }
      Address maskAddr = tailMask(lastLanes);
      if (pending)
        copyDeferredOut(vecsHere, lastLanes);
      if (d == Deferral::Rest)
        tileEpilogue(rows, vecsHere, lastLanes, maskAddr);
      if (d != Deferral::First && d != Deferral::Middle)
        return;
      for (int r = 0; r < rows; ++r) {
        rowConstants(r);
        for (int v = 0; v < vecsHere; ++v) {
          const int lanes = v == vecsHere - 1 ? lastLanes : kLanes;
          epilogueFront(acc(r, v), r, v, lanes, maskAddr);
          emitActivation(acc(r, v), c.activationInput, temp(0), temp(1), temp(2), temp(3));
          vmovups(stashSlot(r * vecsHere + v), acc(r, v));
        }
      }
    }
  }

  /// The GELU of the stashed vector at r12, in place: f32, or its u8 codes
  /// in the slot's first 16 bytes; r12 to the next slot. temp(0..3) only.
  void deferredGeluVector() {
    if constexpr (kZmm) {
      // The GELU in temp(1): storeU8 takes temp(0) for its quotient.
      const Vmm y = temp(1);
      emitGeluOfStored(ptr[r12], {temp(1), temp(0), temp(2), temp(3)});
      if (c.u8Output)
        storeU8(y, r12, 0, kLanes); // (packU8Rows is off outside tileEpilogue)
      else
        vmovups(ptr[r12], y);
      add(r12, 64);
    }
  }

  /// The previous full tile's results from the stash into its C rows (rcx
  /// has moved on by a tile); k1: the last vector's lanes.
  void copyDeferredOut(int vecsHere, int lastLanes) {
    if constexpr (kZmm) {
      for (int r = 0; r < kRows; ++r)
        for (int v = 0; v < vecsHere; ++v) {
          const int i = r * vecsHere + v;
          const bool partial = v == vecsHere - 1 && lastLanes != kLanes;
          const Vmm t = temp(i % 4);
          const int64_t at = ((r - kRows) * c.ldc + v * kLanes) * cBytes();
          if (c.u8Output) {
            const Xmm x(t.getIdx());
            vmovdqu8(x, stashSlot(i));
            if (partial)
              vmovdqu8(ptr[rcx + at] | k1, x);
            else
              vmovdqu8(ptr[rcx + at], x);
          } else {
            vmovups(t, stashSlot(i));
            if (partial)
              vmovups(ptr[rcx + at] | k1, t);
            else
              vmovups(ptr[rcx + at], t);
          }
        }
    }
  }

  /// u16 input: the accumulators hold the high bytes' sums. They become
  /// 256 (sum - zh colSum) in f32 and wait on the stack while the low
  /// bytes' sums accumulate, which then become (sum - zl colSum) + that:
  /// the products in f32, as epilogueFront takes them.
  void addLowPlane(int rows, int vecsHere) {
    if constexpr (kZmm) {
      const int64_t nr = vecs * kLanes;
      const int n = rows * vecsHere;
      auto slot = [&](int r, int v) { return ptr[rsp + (r * vecsHere + v) * 64]; };
      sub(rsp, n * 64);
      for (int r = 0; r < rows; ++r)
        for (int v = 0; v < vecsHere; ++v) {
          vpsubd(acc(r, v), acc(r, v), ptr[rdx + 3 * nr * 4 + v * kLanes * 4]);
          vcvtdq2ps(acc(r, v), acc(r, v));
          vmulps(acc(r, v), acc(r, v), constAddr(256.f)); // exact
          vmovups(slot(r, v), acc(r, v));
        }
      clearAccumulators(rows, vecsHere);
      lea(r14, ptr[rax + c.lda / 2]);
      accumulate(rows, vecsHere, /*prefetch=*/false);
      for (int r = 0; r < rows; ++r)
        for (int v = 0; v < vecsHere; ++v) {
          vpsubd(acc(r, v), acc(r, v), ptr[rdx + v * kLanes * 4]);
          vcvtdq2ps(acc(r, v), acc(r, v));
          vaddps(acc(r, v), acc(r, v), slot(r, v));
        }
      add(rsp, n * 64);
    }
  }

  /// Row r's quotients in acc(r, 0..vecsHere) as u8 codes at rcx + r ldc
  /// (k7: the row's bytes): packed with saturation to words, the zero point
  /// added to 32 words at once (saturating), packed to bytes and put back
  /// in order by one vpermd, one store: ~2 uops a vector where
  /// vpaddd + vpmaxsd + vpmovusdb take 4.
  void storeU8Row(int r, int vecsHere) {
    if (!u8ZeroPointWords && !geluU8Codes && !tableCodes())
      u8ZeroPointWords = gridWord(outputGrid(), OutputGridBlock::ZeroPointWords);
    if constexpr (!kZmm) {
      // ymm: the row's two vectors packed together.
      const Vmm a = acc(r, 0);
      emitPackCodePair(a, acc(r, 1), u8ZeroPointWords);
      const Xmm x(a.getIdx());
      const int64_t at = r * c.ldc;
      if (lastRowLanes == kLanes) {
        vmovdqu(ptr[rcx + at], x);
      } else {
        vmovq(ptr[rcx + at], x);
        for (int i = 0; i < lastRowLanes; ++i)
          vpextrb(ptr[rcx + at + kLanes + i], x, kLanes + i);
      }
    }
    if constexpr (kZmm) {
      Vmm a1 = acc(r, 1), a2 = vecsHere == 3 ? acc(r, 2) : a1;
      if (geluU8Codes || tableCodes()) {
        std::optional<int64_t> &table = geluU8Codes ? geluU8CodeTable : outputU8CodeTable;
        if (!table)
          table = geluU8Codes ? buildGeluU8CodeTable() : buildOutputU8CodeTable();
        // The grid indices (0-255): their codes looked up as words.
        emitPackTableCodes(acc(r, 0), a1, a2, a2, vecsHere == 3 ? 2 : 1, *table, packCodeOrder(),
                           temp(0), temp(1), temp(2), temp(3), /*firstMask=*/3);
      } else {
        emitPackCodes(acc(r, 0), a1, a2, a2, *u8ZeroPointWords, packCodeOrder(), temp(0));
      }
      vmovdqu8(ptr[rcx + r * c.ldc] | k7, acc(r, 0));
    }
  }
  std::optional<Address> u8ZeroPointWords; // the output zero point in every word
  /// zmm: tableData(c.outputTable), at first use; ymm: the gathers' table.
  std::optional<int64_t> outputTableOffset;
  std::optional<int64_t> outputU8CodeTable; // buildOutputU8CodeTable(), at first use

  /// The linear form's next-panel prefetch (rdi the cursor); none in the
  /// convolution form, whose weights are the rows.
  int prefetchLines(int64_t blocksPerTile) const {
    if (c.convolution || amx)
      return 0;
    const int64_t tiles = (c.m + rowsPerTile - 1) / rowsPerTile;
    return nextPanelPrefetchLines(Int8GemmKernel::paddedK(c.k, c.isa) * vecs * kLanes, tiles,
                                  blocksPerTile, kUnroll * groupBytes / 64);
  }

  /// The 64-byte tile configuration (palette 1) for a tile of `rows` rows:
  /// tmm0..3 C (rows 0-15 x columns 0-15, 0-15 x 16-31, 16-31 x 0-15,
  /// 16-31 x 16-31), tmm4/5 the A rows of each half, tmm6/7 the two W
  /// column blocks (16 groups of 4 k x 16 columns).
  Address tileConfig(int rows) {
    auto known = tileConfigs.find(rows);
    if (known != tileConfigs.end())
      return known->second;
    uint8_t config[64] = {};
    config[0] = 1;
    int top = std::min(rows, 16), bottom = rows - top;
    auto set = [&](int tile, int tileRows) {
      if (!tileRows)
        return;
      config[16 + 2 * tile] = 64; // bytes per row
      config[48 + tile] = static_cast<uint8_t>(tileRows);
    };
    set(0, top);
    set(1, top);
    set(2, bottom);
    set(3, bottom);
    set(4, top);
    set(5, bottom);
    set(6, 16);
    set(7, 16);
    std::vector<uint32_t> words(16);
    std::memcpy(words.data(), config, 64);
    while (extraData.size() % 16) // 64-byte aligned, as the data block is
      extraData.push_back(0);
    return tileConfigs.emplace(rows, dataAddr(words)).first->second;
  }
  std::map<int, Address> tileConfigs;

  /// Up to 32 rows x 32 columns of C on AMX. rax: A rows, rbx: the panel's
  /// W, r8: A row stride, r9: 128 (W and tile-block row stride), rdi: the
  /// tile block.
  void amxMicroKernel(int rows, int vecsHere, int lastLanes) {
    bool tall = rows > 16, wide = vecsHere > 1;
    if (rows != rowsPerTile)
      ldtilecfg(tileConfig(rows));
    tilezero(tmm0);
    if (wide)
      tilezero(tmm1);
    if (tall) {
      tilezero(tmm2);
      if (wide)
        tilezero(tmm3);
    }
    mov(r14, rax);
    lea(r10, ptr[rax + 16 * c.lda]);
    mov(r15, rbx);
    Label loop;
    mov(r13, Int8GemmKernel::paddedK(c.k, c.isa) / 64);
    L(loop);
    tileloadd(tmm4, ptr[r14 + r8]);
    tileloadd(tmm6, ptr[r15 + r9]);
    if (wide)
      tileloadd(tmm7, ptr[r15 + r9 + 64]);
    tdpbusd(tmm0, tmm4, tmm6);
    if (wide)
      tdpbusd(tmm1, tmm4, tmm7);
    if (tall) {
      tileloadd(tmm5, ptr[r10 + r8]);
      tdpbusd(tmm2, tmm5, tmm6);
      if (wide)
        tdpbusd(tmm3, tmm5, tmm7);
    }
    add(r14, 64);
    add(r10, 64);
    add(r15, 16 * vecs * kLanes * 4); // 16 groups of the panel
    dec(r13);
    jnz(loop, T_NEAR);
    tilestored(ptr[rdi + r9], tmm0);
    if (wide)
      tilestored(ptr[rdi + r9 + 64], tmm1);
    if (tall) {
      tilestored(ptr[rdi + r9 + 16 * 128], tmm2);
      if (wide)
        tilestored(ptr[rdi + r9 + 16 * 128 + 64], tmm3);
    }
    if (rows != rowsPerTile)
      ldtilecfg(tileConfig(rowsPerTile));

    Address maskAddr = tailMask(lastLanes);
    for (int r = 0; r < rows; ++r)
      for (int v = 0; v < vecsHere; ++v) {
        if (v == 0 && (wordPairs || c.u8Weights))
          rowConstants(r);
        // Rotate registers so consecutive vectors' epilogues overlap.
        Vmm x = Vmm((r * vecsHere + v) % 24);
        vmovdqu32(x, ptr[rdi + r * 128 + v * 64]);
        epilogue(x, r, v, v == vecsHere - 1 ? lastLanes : kLanes, maskAddr);
      }
  }

  /// k1 (zmm) or the returned lane mask (ymm) for a last vector of
  /// `lastLanes` columns.
  Address tailMask(int lastLanes) {
    if (lastLanes == kLanes)
      return ptr[rip];
    if constexpr (kZmm) {
      mov(r13d, (1u << lastLanes) - 1);
      kmovw(k1, r13d);
      return ptr[rip];
    } else {
      return laneMask(lastLanes, kLanes);
    }
  }

  /// s32 sums x of row r, vector v (`lanes` columns of it) -> zero-point
  /// Convolution form, once per row of a tile (the k loop's B and A
  /// registers are free by then): bReg(0) = zero point x the row's weight
  /// sum, bReg(1) = fl(input scale x the row's weight scale). rsi: row
  /// block [M][4 or 8]; rdx: the input's (zero point, scale).
  void convRowConstants(int r) {
    if (c.f32Products)
      return; // (the bias only, from memory)
    if constexpr (kZmm) {
      const int64_t row = r * Int8ConvGemm::rowBlockBytes(c);
      vpbroadcastd(bReg(0), ptr[rsi + row]);
      if (c.oneStep) { // both folded at compile time
        vbroadcastss(bReg(1), ptr[rsi + row + 4]);
      } else {
        vpmulld(bReg(0), bReg(0), ptr_b[rdx]);
        vbroadcastss(bReg(1), ptr[rdx + 4]);
        vmulps(bReg(1), bReg(1), ptr_b[rsi + row + 4]);
      }
      if (positionPairs())
        vpbroadcastd(bReg(2), ptr[rsi + row + 12]);
    }
  }

  /// The linear form's per-row constants with word-pair compensation, once
  /// per row of a tile in zmm24/25 (free after the k loop in every form
  /// that reaches the epilogue): the (zp, 128 zp) pair and the row's scale.
  Vmm rowPair() { return Vmm(24); }
  Vmm rowScale() { return Vmm(25); }
  /// u8 weights: the row's (S mod 128, S / 128) pair (zmm26, free as 24/25).
  Vmm rowSumPair() { return Vmm(26); }
  /// Bytes of a row of the linear form's row block.
  int64_t rowBytes() const { return Int8GemmKernel::rowBlockWords(c.u8Weights) * 4; }

  /// What the epilogue of row r needs once per row: convRowConstants in the
  /// convolution form, the word pair and scale with wordPairs.
  void rowConstants(int r) {
    if (c.convolution) {
      convRowConstants(r);
    } else if (wordPairs) {
      vpbroadcastd(rowPair(), ptr[rsi + r * rowBytes()]);
      vpslld(rowScale(), rowPair(), 23); // (128 zp) << 16
      vpaddd(rowPair(), rowPair(), rowScale());
      vbroadcastss(rowScale(), ptr[rsi + r * rowBytes() + 4]);
    }
    if (kZmm && !c.convolution && c.u8Weights)
      vpbroadcastd(rowSumPair(), ptr[rsi + r * rowBytes() + 8]);
  }

  /// u8 weights, linear form: x += (128 - zw) S, the row's (S mod 128,
  /// S / 128) pair (rowSumPair on zmm) by the column's pair (the column
  /// block's fourth row).
  void addU8WeightTerm(const Vmm &x, int r, int64_t col) {
    const int64_t pairs = 3 * vecs * kLanes * 4 + col;
    if constexpr (kZmm) {
      vpdpwssd(x, rowSumPair(), ptr[rdx + pairs], EvexEncoding);
    } else {
      vpbroadcastd(temp(0), ptr[rsi + r * rowBytes() + 8]);
      if (c.isa == Int8Isa::AvxVnni) {
        vpdpwssd(x, temp(0), ptr[rdx + pairs], c.evexVnni ? EvexEncoding : VexEncoding);
      } else {
        vpmaddwd(temp(0), temp(0), ptr[rdx + pairs]);
        vpaddd(x, x, temp(0));
      }
    }
  }

  /// compensation, scale, bias, residual, activation, store.
  void epilogue(const Vmm &x, int r, int v, int lanes, const Address &maskAddr) {
    epilogueFront(x, r, v, lanes, maskAddr);
    if (!kZmm && c.activation.qlinearGelu) {
      // The GELU's table (at r11) by the input grid's index.
      emitGridIndex(x, temp(0), c.activationInput);
      vpcmpeqd(temp(1), temp(1), temp(1));
      vpgatherdd(temp(0), ptr[r11 + x * 4], temp(1));
      vmovdqa(x, temp(0));
      epilogueBack(x, r, v, lanes, maskAddr);
      return;
    }
    emitActivation(x, c.activationInput, temp(0), temp(1), temp(2), temp(3));
    emitActivation(x, c.activation, temp(0), temp(1), temp(2), temp(3));
    epilogueBack(x, r, v, lanes, maskAddr);
  }

  /// Whether a row's vectors take the activation (a plain GELU) two at a
  /// time, step by step (zmm24-27 free after the fronts).
  bool geluInPairs() const {
    return kZmm && !c.convolution && c.activation.kind == Activation::Gelu &&
           !c.activation.hasGrids() && !c.ranges && !c.activation.hasPostAffine();
  }
  /// Whether the tile's GELU with a QDQ model's grids runs four vectors at
  /// a time through a stack block (stashedGeluEpilogues).
  bool stashedGelu() const {
    return kZmm && !amx && !c.convolution && c.activation.kind == Activation::Gelu &&
           c.activation.hasGrids() && !geluCodeTable && !c.activation.hasPostAffine();
  }
  /// With a grid before a QDQ GELU (at most kTableEntries codes), the
  /// GELU's values on that grid, computed at compile time: a row's
  /// epilogues then take each value's code index and look its GELU up
  /// (rowEpilogues) instead of its erf and three roundings (stashed). The
  /// table's byte offset in the kernel's data.
  std::optional<int64_t> buildGeluCodeTable() {
    const Activation &in = c.activationInput;
    if (!kZmm || amx || c.convolution || c.ranges || c.activation.kind != Activation::Gelu ||
        c.activation.hasPostAffine() ||
        !c.activation.hasGrids() || in.kind != Activation::FakeQuant || in.max < in.min ||
        in.max - in.min + 1 > kTableEntries)
      return std::nullopt;
    std::vector<float> values;
    for (float q = in.min; q <= in.max; ++q)
      values.push_back(c.activation.geluOnGrids(q * in.scale));
    return tableData(values);
  }
  /// With that table and u8 output (nothing between the GELU and its
  /// codes): the u8 code of each table entry, as storeU8 and storeU8Row
  /// compute it (clamp unless bounded, correctly rounded quotient, round
  /// half to even, zero point, saturation). Rows packed by storeU8Row then
  /// look their codes up from the grid indices in one word lookup per 32
  /// values, instead of a float lookup and a quotient per 16.
  int64_t buildGeluU8CodeTable() {
    const Activation &in = c.activationInput;
    const float s = c.u8Output->scale;
    std::vector<uint16_t> codes;
    for (float q = in.min; q <= in.max; ++q) {
      float x = c.activation.geluOnGrids(q * in.scale);
      if (!c.u8Bounded)
        x = std::min(std::max(x, -300.f * s), 300.f * s);
      const auto n = static_cast<int64_t>(std::nearbyint(x / s));
      codes.push_back(static_cast<uint16_t>(
          std::clamp<int64_t>(n + c.u8Output->zeroPoint, 0, 255)));
    }
    return wordTableData(codes);
  }
  /// The tile's epilogues with a QDQ GELU: the rows' fronts (and the grid
  /// before the activation) into a 64-byte aligned stack block, the GELU
  /// on the block four vectors at a time, then the rows' backs. Its chains
  /// are ~200 cycles (the erf table and three roundings); the two at a time
  /// that a row's epilogue leaves registers for stalled the scheduler, and
  /// the GEMM ran it slower than the elementwise kernel's loop of four.
  /// r14 (free after the dot products) holds rsp meanwhile.
  void stashedGeluEpilogues(int rows, int vecsHere, int lastLanes, const Address &maskAddr) {
    if constexpr (kZmm) {
      auto lanesOf = [&](int v) { return v == vecsHere - 1 ? lastLanes : kLanes; };
      const int n = rows * vecsHere;
      auto slot = [&](int i) { return ptr[rsp + i * 64]; };
      mov(r14, rsp);
      sub(rsp, n * 64);
      and_(rsp, -64);
      for (int r = 0; r < rows; ++r) {
        rowConstants(r);
        for (int v = 0; v < vecsHere; ++v) {
          epilogueFront(acc(r, v), r, v, lanesOf(v), maskAddr);
          emitActivation(acc(r, v), c.activationInput, temp(0), temp(1), temp(2), temp(3));
          vmovups(slot(r * vecsHere + v), acc(r, v));
        }
      }
      for (int i = 0; i < n; i += 4) {
        std::vector<GeluLane> lanes;
        for (int j = 0; j < 4 && i + j < n; ++j) {
          vmovups(Zmm(j), slot(i + j));
          lanes.push_back({Zmm(j), {Zmm(4 + 4 * j), Zmm(5 + 4 * j), Zmm(6 + 4 * j),
                                    Zmm(7 + 4 * j)}});
        }
        emitGeluOnGrids(lanes, c.activation);
        for (size_t j = 0; j < lanes.size(); ++j)
          vmovups(slot(i + j), Zmm(j));
      }
      for (int r = 0; r < rows; ++r) {
        for (int v = 0; v < vecsHere; ++v) {
          vmovups(acc(r, v), slot(r * vecsHere + v));
          epilogueBack(acc(r, v), r, v, lanesOf(v), maskAddr);
        }
        if (packU8Rows)
          storeU8Row(r, vecsHere);
      }
      mov(rsp, r14);
    }
  }
  /// Row r's epilogues. On zmm each phase runs for all of the row's vectors
  /// before the next (fronts, activations, backs): a vector's epilogue is
  /// one long dependency chain (~50-150 cycles with grids and GELU), and one
  /// vector at a time its waiting uops filled the scheduler.
  void rowEpilogues(int r, int vecsHere, int lastLanes, const Address &maskAddr) {
    auto lanesOf = [&](int v) { return v == vecsHere - 1 ? lastLanes : kLanes; };
    if (!kZmm) {
      for (int v = 0; v < vecsHere; ++v)
        epilogue(acc(r, v), r, v, lanesOf(v), maskAddr);
      return;
    }
    if constexpr (kZmm) {
      for (int v = 0; v < vecsHere; ++v)
        epilogueFront(acc(r, v), r, v, lanesOf(v), maskAddr);
      if (geluCodeTable) {
        for (int v = 0; v < vecsHere; ++v)
          emitGridIndex(acc(r, v), temp(0), c.activationInput);
        if (packU8Rows && geluU8Codes)
          return; // storeU8Row looks the codes up
        for (int v = 0; v < vecsHere; ++v) {
          emitTableLookup(temp(0), acc(r, v), temp(1), temp(2), temp(3), *geluCodeTable);
          vmovaps(acc(r, v), temp(0));
        }
        for (int v = 0; v < vecsHere; ++v)
          epilogueBack(acc(r, v), r, v, lanesOf(v), maskAddr);
        return;
      }
      for (int v = 0; v < vecsHere; ++v)
        emitActivation(acc(r, v), c.activationInput, temp(0), temp(1), temp(2), temp(3));
      if (geluInPairs()) {
        std::vector<Vmm> row;
        for (int v = 0; v < vecsHere; ++v)
          row.push_back(acc(r, v));
        emitGeluInPairs(row, {Vmm(24), Vmm(25), Vmm(26), Vmm(27)},
                        {temp(0), temp(1), temp(2), temp(3)});
      } else {
        for (int v = 0; v < vecsHere; ++v)
          emitActivation(acc(r, v), c.activation, temp(0), temp(1), temp(2), temp(3));
      }
      for (int v = 0; v < vecsHere; ++v)
        epilogueBack(acc(r, v), r, v, lanesOf(v), maskAddr);
    }
  }

  /// The epilogue up to the activation: compensation, scale, bias,
  /// residual.
  void epilogueFront(const Vmm &x, int r, int v, int lanes, const Address &maskAddr) {
    const bool tailVec = lanes != kLanes;
    const int64_t nr = vecs * kLanes;
    const int64_t sums = 0, scales = nr * 4, biases = 2 * nr * 4;
    int64_t col = v * kLanes * 4;
    if (c.convolution && c.f32Products) {
      // The conv's f32 value already: + bias.
      const int64_t row = r * Int8ConvGemm::rowBlockBytes(c);
      if (c.bias) {
        if constexpr (kZmm) {
          vaddps(x, x, ptr_b[rsi + row + 8]);
        } else if (c.broadcastRows) {
          vaddps(x, x, ptr[rsi + row + 64]);
        } else {
          vbroadcastss(temp(0), ptr[rsi + row + 8]);
          vaddps(x, x, temp(0));
        }
      }
    } else if (c.convolution) {
      const int64_t row = r * Int8ConvGemm::rowBlockBytes(c);
      if constexpr (kZmm) {
        // The row's constants from convRowConstants.
        vpsubd(x, x, bReg(0));
        if (positionPairs()) // + (128 - zw) P
          vpdpwssd(x, bReg(2), positionPair(v), EvexEncoding);
        vcvtdq2ps(x, x);
        vmulps(x, x, bReg(1));
        if (c.bias)
          vaddps(x, x, ptr_b[rsi + row + 8]);
      } else if (c.broadcastRows) {
        // The row's constants, broadcast at compile time.
        vpsubd(x, x, ptr[rsi + row]);
        vcvtdq2ps(x, x);
        vmulps(x, x, ptr[rsi + row + 32]);
        if (c.bias)
          vaddps(x, x, ptr[rsi + row + 64]);
      } else {
        // No registers to keep them for the row: the same constants, per
        // vector (the k loop dominates: K >= 4 x 9 in a 3x3 conv).
        vpbroadcastd(temp(0), ptr[rsi + row]);
        if (!c.oneStep) {
          vpbroadcastd(temp(1), ptr[rdx]);
          vpmulld(temp(0), temp(0), temp(1));
        }
        vpsubd(x, x, temp(0));
        if (positionPairs()) { // + (128 - zw) P
          vpbroadcastd(temp(0), ptr[rsi + row + 12]);
          if (splitQuads) {
            vpmaddwd(temp(0), temp(0), positionPair(v));
            vpaddd(x, x, temp(0));
          } else {
            vpdpwssd(x, temp(0), positionPair(v), c.evexVnni ? EvexEncoding : VexEncoding);
          }
        }
        vcvtdq2ps(x, x);
        vbroadcastss(temp(0), ptr[rsi + row + 4]);
        if (!c.oneStep) {
          vbroadcastss(temp(1), ptr[rdx + 4]);
          vmulps(temp(0), temp(1), temp(0)); // input scale x weight scale
        }
        vmulps(x, x, temp(0));
        if (c.bias) {
          vbroadcastss(temp(0), ptr[rsi + row + 8]);
          vaddps(x, x, temp(0));
        }
      }
    } else if (c.f32Products && !c.qlinearBias) {
      // The product in f32 already: its grid, then the bias.
      emitActivation(x, c.product, temp(0), temp(1), temp(2), temp(3));
      if (c.bias)
        vaddps(x, x, ptr[rdx + biases + col]);
      emitActivation(x, c.sum, temp(0), temp(1), temp(2), temp(3));
    } else {
      if (c.f32Products) {
        // The f32 product's code as QuantizeLinear takes it: its quotient
        // by s_p, clamped and rounded below (QLinearBias::productScale).
        vdivps(x, x, constAddr(c.qlinearBias->productScale));
      } else {
        if (c.u16Input) {
          // Compensated and in f32 already (addLowPlane).
        } else if (wordPairs) {
          if constexpr (kZmm)
            vpdpwssd(x, rowPair(), ptr[rdx + sums + col], EvexEncoding);
        } else if (c.perRowA) {
          vpbroadcastd(temp(0), ptr[rsi + r * rowBytes()]);
          vpmulld(temp(0), temp(0), ptr[rdx + sums + col]);
          vpsubd(x, x, temp(0));
        } else {
          vpsubd(x, x, ptr[rdx + sums + col]);
        }
        if (c.u8Weights)
          addU8WeightTerm(x, r, col);
        if (!c.u16Input)
          vcvtdq2ps(x, x);
        if (c.perRowA) {
          // One rounding of scaleA * scaleW, then one of the product (as
          // onnxruntime's MatMulInteger -> Cast -> Mul does).
          if (wordPairs) {
            vmulps(temp(0), rowScale(), ptr[rdx + scales + col]);
          } else {
            vbroadcastss(temp(0), ptr[rsi + r * rowBytes() + 4]);
            vmulps(temp(0), temp(0), ptr[rdx + scales + col]);
          }
          vmulps(x, x, temp(0));
        } else {
          vmulps(x, x, ptr[rdx + scales + col]);
        }
      }
      if (c.qlinearBias) {
        // The product's code (QLinearMatMul), then the bias's code added
        // (QLinearAdd), as its value (Int8GemmConfig::qlinearBias).
        const Int8GemmConfig::QLinearBias &q = *c.qlinearBias;
        // (Codes from here on minus the offset: s8 ones with signed codes.)
        const int32_t o = q.offset;
        vmaxps(x, x, constAddr(static_cast<float>(-q.productZeroPoint)));
        vminps(x, x, constAddr(static_cast<float>(255 - q.productZeroPoint)));
        roundHalfEven(x, x);
        if (q.productZeroPoint != o)
          vaddps(x, x, constAddr(static_cast<float>(q.productZeroPoint - o)));
        if (q.biasFirst) {
          // fma(q_b, r_A, fma(q, r_B, F))
          loadConstant(temp(0), q.ratioB);
          vfmadd213ps(x, temp(0), constAddr(q.fixed));
          loadConstant(temp(0), q.ratioA);
          vfmadd231ps(x, temp(0), ptr[rdx + biases + col]);
        } else {
          loadConstant(temp(0), q.ratioA);
          vfmadd213ps(x, temp(0), ptr[rdx + biases + col]);
        }
        roundHalfEven(x, x);
        vmaxps(x, x, constAddr(static_cast<float>(-o)));
        vminps(x, x, constAddr(static_cast<float>(255 - o)));
        if (q.residual) {
          // The residual's code added to the sum's (x, still a code).
          const Int8GemmConfig::QLinearBias::Residual &rq = *q.residual;
          Address rAddr = ptr[r12 + r * c.ldr * 4 + col];
          if (!tailVec) {
            vmovups(temp(1), rAddr);
          } else if constexpr (kZmm) {
            vmovups(temp(1) | k1 | T_z, rAddr);
          } else {
            vmovups(temp(2), maskAddr);
            vmaskmovps(temp(1), temp(2), rAddr);
          }
          emitValueCode(temp(0), temp(1), rq.scale, static_cast<float>(rq.zeroPoint - o),
                        static_cast<float>(-o), static_cast<float>(255 - o));
          // fma(a, rA, fma(b, rB, F)), a the first operand's code.
          const Vmm &first = rq.residualFirst ? temp(0) : x,
                    &second = rq.residualFirst ? x : temp(0);
          loadConstant(temp(1), rq.ratioB);
          vfmadd213ps(second, temp(1), constAddr(rq.fixed));
          loadConstant(temp(1), rq.ratioA);
          vfmadd231ps(second, temp(1), first);
          if (second.getIdx() != x.getIdx())
            vmovaps(x, second);
          roundHalfEven(x, x);
          vmaxps(x, x, constAddr(static_cast<float>(-o)));
          vminps(x, x, constAddr(static_cast<float>(255 - o)));
          if (rq.afterZeroPoint != o)
            vsubps(x, x, constAddr(static_cast<float>(rq.afterZeroPoint - o)));
          vmulps(x, x, constAddr(rq.afterScale));
        } else {
          if (q.zeroPoint != o)
            vsubps(x, x, constAddr(static_cast<float>(q.zeroPoint - o)));
          vmulps(x, x, constAddr(q.scale));
        }
      } else {
        if (c.qlinearProduct) {
          // The product's code (QLinearMatMul) as its value.
          const Int8GemmConfig::QLinearProduct &q = *c.qlinearProduct;
          vmaxps(x, x, constAddr(static_cast<float>(-q.zeroPoint)));
          vminps(x, x, constAddr(static_cast<float>(255 - q.zeroPoint)));
          roundHalfEven(x, x);
          vmulps(x, x, constAddr(q.scale));
        }
        emitActivation(x, c.product, temp(0), temp(1), temp(2), temp(3));
        if (c.bias)
          vaddps(x, x, ptr[rdx + biases + col]);
      }
      emitActivation(x, c.sum, temp(0), temp(1), temp(2), temp(3));
    }
    if (c.residual && !(c.qlinearBias && c.qlinearBias->residual)) {
      addMasked(x, ptr[r12 + r * c.ldr * 4 + col], tailVec, maskAddr, temp(1), temp(0));
    }
  }

  /// The epilogue after the activation: output grid or u8 codes,
  /// normalization, ranges, store.
  void epilogueBack(const Vmm &x, int r, int v, int lanes, const Address &maskAddr) {
    const bool tailVec = lanes != kLanes;
    const int64_t col = v * kLanes * 4;
    // u8 codes replace the last grid: `output`, or `normalized` after the
    // normalization (with a table, the table's grid's codes follow it).
    if (c.u8Output && !c.normalize && c.outputTable.empty()) {
      storeU8(x, rcx, r * c.ldc + v * kLanes, lanes);
      return;
    }
    // The last grid: rounded to, or (outputTable) its code's entry: with
    // u8 codes, the code's index, their codes looked up as words at the
    // store (storeTableCodes, storeU8Row).
    auto lastGrid = [&](const Activation &grid) {
      if constexpr (!kZmm) {
        if (!c.outputTable.empty()) {
          // AVX2: one gather of the entries (f32, or with u8 codes out the
          // codes minus the zero point; the table at r11, set up with the
          // row strides) by the grid index.
          emitGridIndex(x, temp(0), grid);
          vpcmpeqd(temp(1), temp(1), temp(1));
          vpgatherdd(temp(0), ptr[r11 + x * 4], temp(1));
          vmovdqa(x, temp(0));
          if (!c.u8Output)
            emitActivation(x, c.tableOutput, temp(0), temp(1), temp(2), temp(3));
          return;
        }
      }
      if constexpr (kZmm) {
        if (!c.outputTable.empty()) {
          emitGridIndex(x, temp(0), grid);
          if (tableCodes())
            return;
          if (!outputTableOffset)
            outputTableOffset = tableData(c.outputTable);
          emitTableLookup(temp(0), x, temp(1), temp(2), temp(3), *outputTableOffset);
          vmovaps(x, temp(0));
          emitActivation(x, c.tableOutput, temp(0), temp(1), temp(2), temp(3));
          return;
        }
      }
      emitActivation(x, grid, temp(0), temp(1), temp(2), temp(3));
    };
    if (c.normalize) {
      if (c.oneStep)
        oneStepValue(x);
      else
        emitActivation(x, c.output, temp(0), temp(1), temp(2), temp(3));
      const int64_t row = r * Int8ConvGemm::rowBlockBytes(c);
      // A product then a sum (onnxruntime's BatchNormalization), no FMA.
      vbroadcastss(temp(0), ptr[rsi + row + 16]);
      vmulps(x, x, temp(0));
      if constexpr (kZmm) {
        vaddps(x, x, ptr_b[rsi + row + 20]);
      } else {
        vbroadcastss(temp(1), ptr[rsi + row + 20]);
        vaddps(x, x, temp(1));
      }
      lastGrid(c.normalized);
      if (c.u8Output) {
        if (tableCodes())
          storeTableCodes(x, r * c.ldc + v * kLanes, lanes);
        else
          storeU8(x, rcx, r * c.ldc + v * kLanes, lanes, /*quotient=*/c.outputTable.empty());
        return;
      }
    } else {
      if (c.oneStep) {
        oneStepValue(x);
        // (A value on the output grid: its index into the table exactly.)
        if (!c.outputTable.empty())
          lastGrid(c.output);
      } else {
        lastGrid(c.output);
      }
      if (tableCodes()) {
        storeTableCodes(x, r * c.ldc + v * kLanes, lanes);
        return;
      }
      if (c.u8Output) { // ymm: the looked-up codes minus the zero point
        storeU8(x, rcx, r * c.ldc + v * kLanes, lanes, /*quotient=*/false);
        return;
      }
    }
    Address cAddr = ptr[rcx + r * c.ldc * 4 + col];
    if constexpr (kZmm)
      if (c.ranges) {
        // Only the stored lanes (k1: the tail's).
        if (!tailVec) {
          vmaxps(rangeMax(), rangeMax(), x);
          vminps(rangeMin(), rangeMin(), x);
        } else {
          vmaxps(rangeMax() | k1, rangeMax(), x);
          vminps(rangeMin() | k1, rangeMin(), x);
        }
      }
    if (!tailVec) {
      vmovups(cAddr, x);
    } else if constexpr (kZmm) {
      vmovups(cAddr | k1, x);
    } else {
      vmovups(temp(0), maskAddr);
      vmaskmovps(cAddr, temp(0), x);
    }
  }

  /// One-step requantization with more epilogue after it: x, the scaled
  /// sum (its code minus the zero point, unrounded) -> the value of its
  /// code on the output grid, (q - zp) s_y: round half to even, the codes'
  /// bounds, one product (onnxruntime's DequantizeLinear after its
  /// QLinearConv).
  void oneStepValue(const Vmm &x) {
    const Int8GemmConfig::OneStep &o = *c.oneStep;
    roundHalfEven(x, x);
    vmaxps(x, x, constAddr(static_cast<float>(o.lo - o.zeroPoint)));
    vminps(x, x, constAddr(static_cast<float>(o.hi - o.zeroPoint)));
    vmulps(x, x, constAddr(o.scale));
  }

  /// outputTable with u8Output (AVX-512 VNNI convolutions): the codes are
  /// looked up from the last grid's indices.
  bool tableCodes() const { return kZmm && !c.outputTable.empty() && c.u8Output.has_value(); }
  /// The u8 codes (u8Output's grid) of the outputTable entries, as words.
  int64_t buildOutputU8CodeTable() {
    return codeWordTableData(c.outputTable, c.u8Output->scale, c.u8Output->zeroPoint);
  }
  /// The codes of x's grid indices (clobbered) at rcx + offset, `lanes` of
  /// them (k1: the tail's); in rows that storeU8Row packs, left to it.
  void storeTableCodes(const Vmm &x, int64_t offset, int lanes) {
    if constexpr (kZmm) {
      if (packU8Rows)
        return;
      if (!outputU8CodeTable)
        outputU8CodeTable = buildOutputU8CodeTable();
      emitTableCodes(x, temp(0), temp(1), temp(2), temp(3), *outputU8CodeTable,
                     /*firstMask=*/3);
      if (lanes == kLanes)
        vpmovwb(ptr[rcx + offset], Ymm(temp(0).getIdx()));
      else
        vpmovwb(ptr[rcx + offset] | k1, Ymm(temp(0).getIdx()));
    }
  }

  /// Whether the value storeU8 quantizes is the kernel's approximation of
  /// a function (Activation::approximated): the activation's result, unless
  /// an output grid rounds it (with `normalize`: fl(fl(grid value a) + b),
  /// the evaluator's bits), which then takes the correctly rounded quotient.
  bool valueApproximated() const {
    return c.output.kind == Activation::None ? c.activation.approximated()
                                             : c.output.approximated();
  }

  /// x quantized to u8 (the row quantizer's arithmetic: divide, round half
  /// to even, add the zero point, clamp; where valueApproximated, one
  /// multiply by the reciprocal for the division; without `quotient`, x
  /// holds codes minus the zero point already) and its `lanes` bytes stored at
  /// base + offset (C at rcx, or a deferred GELU's stash slot). Unless
  /// bounded (u8Bounded), x is clamped to +-300 scale first, where u8
  /// results saturate anyway: the conversion would turn a quotient past
  /// 2^31 into INT_MIN, and so 0 (NaN ends at 0 either way).
  void storeU8(const Vmm &x, const Reg64 &base, int64_t offset, int lanes, bool quotient = true) {
    if (c.oneStep && !c.normalize && c.outputTable.empty()) {
      // x is the scaled sum already: its codes minus the zero point,
      // within the activation's bounds (and the conversion's range).
      emitOneStepCodes(x, c.oneStep->lo, c.oneStep->hi, c.u8Output->zeroPoint, c.u8Bounded);
    } else if (quotient) {
      emitCodeQuotient(x, temp(0), outputGrid(), c.u8Bounded,
                       /*correctlyRounded=*/!valueApproximated());
    }
    if (packU8Rows)
      return; // storeU8Row packs the row's quotients
    vpaddd(x, x, gridWord(outputGrid(), OutputGridBlock::ZeroPoint));
    if constexpr (kZmm) // vpmovusdb saturates at 255 itself (AVX2's packs at both ends)
      vpmaxsd(x, x, constAddrBits(0));
    if constexpr (kZmm) {
      if (lanes == kLanes)
        vpmovusdb(ptr[base + offset], x);
      else
        vpmovusdb(ptr[base + offset] | k1, x);
    } else {
      emitDwordsToBytes(x);
      if (lanes == kLanes)
        vmovq(ptr[base + offset], Xmm(x.getIdx()));
      else
        for (int i = 0; i < lanes; ++i)
          vpextrb(ptr[base + offset + i], Xmm(x.getIdx()), i);
    }
  }
};

} // namespace

std::unique_ptr<JitKernel> Int8ConvGemm::generateRowBroadcast(int64_t m) {
  if (m <= 0)
    return nullptr;
  return generated<RowBroadcastGenerator>(m);
}

int64_t Int8ConvGemm::rowChunks(const Int8GemmConfig &c) {
  constexpr int64_t wantTasks = 8;
  if (!c.convolution)
    return 1;
  if (!Int8GemmKernel::zmm(c.isa)) {
    // ymm: the small planes that join their last positions (7x7: 3 item
    // panels, which 2 threads split 2 + 1) split their rows too, chunks
    // ending in a tile of 0 or 4-5 of the 6 rows.
    constexpr int64_t tileRows = Int8GemmGenerator<Xbyak::Ymm>::kRows;
    if (!tailColumns(c))
      return 1;
    const int64_t tasks = c.batch * Int8ConvGemm::itemPanels(c);
    const int64_t want = (wantTasks + tasks - 1) / tasks;
    for (int64_t d = std::min(want, c.m / (2 * tileRows)); d > 1; --d) {
      const int64_t rows = c.m / d;
      if (c.m % d == 0 && (rows % tileRows == 0 || rows % tileRows >= 4))
        return d;
    }
    return 1;
  }
  // Chunks of whole tiles of the AVX-512 VNNI kernel that runs convolutions.
  constexpr int64_t tileRows = Int8GemmGenerator<Xbyak::Zmm>::kRows;
  if (c.isa != Int8Isa::Avx512Vnni || c.m % tileRows)
    return 1;
  int64_t tasks = c.batch * Int8ConvGemm::itemPanels(c);
  int64_t want = (wantTasks + tasks - 1) / tasks, tiles = c.m / tileRows;
  for (int64_t d = std::min(want, tiles); d > 1; --d)
    if (tiles % d == 0)
      return d;
  return 1;
}

int64_t Int8ConvGemm::tailColumns(const Int8GemmConfig &c) {
  const int64_t nr = Int8GemmKernel::panelWidth(c.isa);
  const int64_t panels = Int8GemmKernel::numPanels(c.n, c.isa);
  const int64_t last = c.n - (panels - 1) * nr;
  if (!c.convolution || c.isa == Int8Isa::Amx || c.im2col || c.f32Products || panels < 2 ||
      last > 4)
    return 0;
  // ymm: only small planes (7x7: 3 panels of 16 and 1 position, 12 % of
  // the lanes idle; at 14x14, 2 %, the packed panels they need cost more
  // than the lanes: ResNet's 256-channel convs measured 9 % slower joined),
  // and not with u8 weights (no code sums of the tail columns).
  if (!Int8GemmKernel::zmm(c.isa) && (panels > 8 || c.u8Weights))
    return 0;
  return last;
}

std::unique_ptr<JitKernel> Int8GemmKernel::generate(const Int8GemmConfig &config) {
  if (config.im2col && (!config.convolution || config.blockPlane ||
                        config.im2col->panelWidth != panelWidth(config.isa) ||
                        !PanelIm2col::supports(*config.im2col,
                                               zmm(config.isa) ? Isa::Avx512 : Isa::Avx2) ||
                        Int8GemmKernel::paddedK(config.k, config.isa) !=
                            config.im2col->channels * config.im2col->kernelH *
                                config.im2col->kernelW * 4))
    return nullptr;
  if (config.convolution && (config.isa == Int8Isa::Amx ||
                             config.product.kind != Activation::None ||
                             config.sum.kind != Activation::None ||
                             config.activationInput.kind != Activation::None))
    return nullptr; // the convolution form: AVX-512 VNNI, AVX-VNNI and AVX2
  if (config.broadcastRows && (!config.convolution || zmm(config.isa) ||
                               config.normalize || config.u8Weights))
    return nullptr; // broadcast row constants: the ymm convolutions' plain rows
  if (!config.outputTable.empty() &&
      (!config.convolution || config.isa == Int8Isa::Amx ||
       !JitKernel::tableFits(config.outputTable,
                             config.normalize ? config.normalized : config.output) ||
       (config.u8Output && config.tableOutput.kind != Activation::None)))
    return nullptr; // a table of the last grid's codes: the convolutions
  if (config.outputTable.empty() && config.tableOutput.kind != Activation::None)
    return nullptr; // the table's grid needs a table
  if (config.oneStep &&
      (!config.convolution || config.bias || config.residual || config.ranges ||
       config.activation.kind != Activation::None ||
       config.activationInput.kind != Activation::None || config.oneStep->lo < 0 ||
       config.oneStep->hi > 255 || config.oneStep->lo > config.oneStep->hi ||
       !(config.oneStep->scale > 0) ||
       (config.u8Output && !config.normalize && config.outputTable.empty() &&
        (config.u8Output->scale != config.oneStep->scale ||
         config.u8Output->zeroPoint != config.oneStep->zeroPoint))))
    return nullptr; // one step: scale and bias folded, the activation as code bounds
  if (config.u16Input && (config.isa != Int8Isa::Avx512Vnni || config.convolution ||
                          config.perRowA || config.u8Weights || config.lda % 2 ||
                          config.lda / 2 < Int8GemmKernel::paddedK(config.k, config.isa)))
    return nullptr; // a static u16 input in two planes: AVX-512 VNNI, linear, s8 weights
  if (config.u8Output &&
      (config.ranges ||
       (config.outputTable.empty() && (config.normalized.kind != Activation::None ||
                                       (!config.normalize &&
                                        config.output.kind != Activation::None)))))
    return nullptr; // u8 codes replace the last grid (or a table's); no ranges of them
  if (config.ranges && !Int8ConvGemm::writesRanges(config))
    return nullptr; // the partial ranges are the AVX-512 VNNI convolution form's
  if (config.qlinearProduct &&
      (config.convolution || config.perRowA || config.u16Input || config.qlinearBias ||
       config.f32Products || config.product.kind != Activation::None ||
       config.qlinearProduct->zeroPoint < 0 || config.qlinearProduct->zeroPoint > 255))
    return nullptr; // QLinearMatMul's code: the linear form, static, in place of `product`
  if (config.activation.qlinearGelu &&
      (config.isa == Int8Isa::Amx || config.convolution || config.ranges ||
       config.activation.kind != Activation::Gelu || !config.activation.hasGrids() ||
       config.activation.hasPostAffine() ||
       config.activationInput.kind != Activation::FakeQuant ||
       config.activationInput.max - config.activationInput.min + 1 > JitKernel::kTableEntries))
    return nullptr; // onnxruntime's GELU steps: a lookup table (zmm permutes, ymm gathers)
  if (config.f32Products &&
      (config.isa == Int8Isa::Amx || config.perRowA || config.u8Weights || config.u16Input ||
       (config.qlinearBias && (config.convolution || !(config.qlinearBias->productScale > 0))) ||
       (config.convolution ? config.residual || config.im2col || config.blockPlane ||
                                 config.oneStep || config.ldr != config.n
                           : config.lda != config.n * 4)))
    return nullptr; // f32 products: the epilogue on them alone (a conv's in the residual's place)
  if ((config.normalize || config.blockPlane) && !config.convolution)
    return nullptr; // the normalization and block reading are the convolution form's
  if (config.u8Weights &&
      (config.convolution ? !Int8ConvGemm::takesU8Weights(config.k)
                          : !Int8GemmKernel::takesU8Weights(config.k)))
    return nullptr; // u8 weights: the rows' code sums as word pairs
  return generatedFor<Int8GemmGenerator>(zmm(config.isa) ? Isa::Avx512 : Isa::Avx2, config);
}

} // namespace mlir::nunc::x86
