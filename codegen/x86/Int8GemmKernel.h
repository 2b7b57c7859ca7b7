//===- Int8GemmKernel.h - u8 x s8 GEMMs (xbyak) -----------------*- C++ -*-===//
//
//   C[M, N] = act(((A - zpA) x W) * scaleA * scaleW[N] + bias[N] + residual)
//
// A is u8 [M][lda bytes] (lda >= rowBytes(K), or two such planes with a
// u16 input; the padding bytes may hold anything), W is s8 [K][N]
// quantized per output column (symmetric) and packed at compile time into
// panels of NR columns, g k at a time
// ([panel][Kp/g][NR][g], zero padded). Accumulation is exact in s32; the
// zero point of A is compensated in the epilogue with the column sums of W
// computed at compile time: per tensor (static activations: zpA * colSum
// folded into one vector per column) or per row (dynamic: zpA[m] *
// colSum[n]). Then scale to f32, bias, residual, activation, masked tail
// store. One task per column panel. The forms (Int8Isa):
//   Avx512Vnni  EVEX `vpdpbusd` on zmm, tile 8 x 48, g = 4.
//   AvxVnni     VEX `vpdpbusd` on ymm, tile 6 x 16, g = 4.
//   Avx2        A holds the u8 values in 16 bits, W pairs are widened at
//               load, `vpmaddwd` + `vpaddd`: exact (no `vpmaddubsw`
//               saturation), tile 6 x 16, g = 2.
//   Amx         `tdpbusd`: 2 x 2 tiles of 16 x 16 s32 (32 rows x 32
//               columns) over k blocks of 64 (Kp = K rounded up to 64), the
//               tiles stored to a stack block and the AVX-512 epilogue run
//               over it.
//
// Task arguments: [0] A, [1] packed W, [2] column block [panel][3 or 4 sum
// rows][NR]: s32 column sums (dynamic) or zpA * column sums (static), f32 column scales
// (scaleW, or scaleA * scaleW when static), f32 bias; [3] row block [M][2]:
// s32 zero point and f32 scale of each A row (dynamic; [M][4] with the code
// sums of u8Weights, static too); [4] residual, [5] C (f32, or u8 with
// `u8Output`). In the linear form, u8Output's grid is not in the code but in
// the column block: each panel's block ends with outputGridRows rows that
// hold its OutputGridBlock, so that GEMMs that differ only in their output
// grids (a static transformer's layers) share one copy of code.
//
// u8 weights with zero points (`u8Weights`; S from the row quantizer, or,
// for rows it did not write, its row-sum step: QuantizeRowsConfig::sumsOnly):
// W holds the codes minus 128 (s8), so sum (a - zpA)(w - zw) = sum a (w -
// 128) + (128 - zw) S - zpA sum (w - zw), S the row's sum of u8 codes. The
// column sums are those of w - zw, the column block gains a fourth row of
// word pairs (128 - zw, 128 (128 - zw)), and the row block is [M][4]
// words: zero point, scale, the word pair (S mod 128, S / 128), 0. One
// more `vpdpwssd` a vector adds (128 - zw) S (AVX2: `vpmaddwd` + `vpaddd`).
//
// A static u16 input (`u16Input`, an A16W8 QDQ model's 16-bit activations;
// AVX-512 VNNI, s8 weights): each A row holds the codes' high bytes, then,
// from byte lda / 2, their low bytes (QuantizeRowsConfig::u16Planes). With
// zp = 256 zh + zl, sum (a - zp) w = 256 (sum hi w - zh colSum) + (sum lo
// w - zl colSum): the k loop runs once per plane on the same weights, each
// part exact in s32 (the whole would not be: 65535 x 128 x K), the two
// converted to f32 and added (each conversion exact below 2^24, so one
// rounding for K < 514; above, up to three, ~1 ulp). The column block
// gains a fourth row, zh colSum (the first holds zl colSum, as for u8
// inputs).
//
//===----------------------------------------------------------------------===//

#ifndef NUNC_CODEGEN_X86_INT8GEMMKERNEL_H
#define NUNC_CODEGEN_X86_INT8GEMMKERNEL_H

#include "Im2colKernel.h"
#include "JitSupport.h"
#include "nunc/Codegen/Target.h"

#include <memory>
#include <optional>
#include <vector>

namespace mlir::nunc::x86 {

struct Int8GemmConfig {
  int64_t m = 0, n = 0, k = 0;
  int64_t lda = 0;         // bytes per A row, >= rowBytes(k, isa)
  int64_t ldc = 0, ldr = 0; // elements per C / residual row
  bool perRowA = false;     // dynamic activations: per-row zero points and scales
  bool bias = false, residual = false;
  Activation activation;
  /// Applied after the activation: FakeQuant rounds C to a grid (a
  /// Quantize/DequantizeLinear pair fused into the GEMM), or None.
  Activation output;
  /// Applied to the scaled product before the bias: FakeQuant (a QDQ
  /// model's Q/DQ pair between the MatMul and its bias Add), or None.
  /// Linear form only.
  Activation product;
  /// Applied after the bias, before the residual: FakeQuant (the Q/DQ pair
  /// between a bias Add and a residual Add), or None. Linear form only.
  Activation sum;
  /// Linear form, static input (quantized_linear's one_step_requantization,
  /// in place of `product` and the bias add): the column block's scales
  /// are the product's multipliers fl(fl(s_x s_w[n]) / s_p) and its biases
  /// QLinearAdd's terms of the bias codes, fma(q_b[n], r_B, F): the
  /// product's code q = round(clamp(x m[n], -zp_p, 255 - zp_p)) + zp_p
  /// (onnxruntime's QLinearMatMul), then the sum's c = round(fma(q, r_A,
  /// term[n])) within [0, 255] (its QLinearAdd), as its value (c - zp) s
  /// on the grid right after the bias, which the rest of the epilogue
  /// takes (its rounding there gives it back).
  /// With `biasFirst` (the bias was the Add's first operand, QLinearAdd's
  /// A) the biases are the bias codes q_b[n] and c = round(fma(q_b[n],
  /// ratio, fma(q, ratioB, fixed))), QLinearAdd's constants in that order.
  struct QLinearBias {
    int32_t productZeroPoint = 0;
    float ratioA = 1;
    float scale = 1;
    int32_t zeroPoint = 0;
    bool biasFirst = false;
    float ratioB = 1, fixed = 0;
    /// quantized_linear's residual_quantization: the residual's code
    /// round(r / residualScale) + residualZeroPoint added to the sum's code
    /// as QLinearAdd does (`residualFirst`: the residual is its A) with
    /// these constants, as its value (c - zp) s on the grid after the
    /// residual (`after`), in place of the f32 residual add.
    struct Residual {
      float scale = 1;
      int32_t zeroPoint = 0;
      bool residualFirst = false;
      float ratioA = 1, ratioB = 1, fixed = 0;
      float afterScale = 1;
      int32_t afterZeroPoint = 0;
    };
    std::optional<Residual> residual;
    /// 128: quantized_linear's signed_codes: the QLinearAdds add s8 codes
    /// (the u8 ones minus 128; the constants, the bias codes with
    /// `biasFirst`, are the s8 ones), as onnxruntime's s8 kernel does; the
    /// zero points above stay u8.
    int32_t offset = 0;
    /// With f32Products (quantized_linear's f32_product_k_block too): the
    /// product's code is QuantizeLinear's of the f32 product, its quotient
    /// by this s_p in place of the multiply by m[n].
    float productScale = 0;
  };
  std::optional<QLinearBias> qlinearBias;
  /// Linear form, static input (quantized_linear's qlinear_product, in
  /// place of `product`): the column block's scales are the multipliers
  /// fl(fl(s_x s_w[n]) / s_p) and the product's value is (q - zp_p) s_p of
  /// its code q = round(clamp(x m[n], -zp_p, 255 - zp_p)) + zp_p
  /// (onnxruntime's QLinearMatMul); the bias and the rest follow in f32.
  struct QLinearProduct {
    int32_t zeroPoint = 0;
    float scale = 1;
  };
  std::optional<QLinearProduct> qlinearProduct;
  /// Applied after the residual, before the activation: FakeQuant (the Q/DQ
  /// pair between a QDQ model's GEMM and its GELU, which then carries its
  /// own grids), or None. Linear form only.
  Activation activationInput;
  /// C as u8 on this grid instead of f32 (quantized_linear's u8_output, the
  /// next GEMM's static input; quantized_conv's, a depthwise conv's input):
  /// clamp(round_half_even(y / scale) + zp, 0, 255), computed as the row
  /// quantizer does (after an approximated activation, y / scale as y
  /// times the reciprocal: a code apart at most, at rounding ties); ldc
  /// then counts bytes. It replaces the last grid
  /// (`output`, or `normalized` with `normalize`), which must be None.
  struct U8Output {
    float scale = 1;
    int32_t zeroPoint = 0;
  };
  std::optional<U8Output> u8Output;
  /// u8Output: every result lies within 2^30 output scales (known at
  /// compile time from the static input grid, the weights and the bias:
  /// u8OutputBound), so the codes need no clamp before their conversion.
  bool u8Bounded = false;
  Int8Isa isa = Int8Isa::Avx512Vnni;
  /// AvxVnni only: encode `vpdpbusd` and `vpdpwssd` with EVEX (AVX512-VNNI
  /// + VL) instead of VEX. Same instructions and results; lets hosts with
  /// AVX-512 VNNI but no AVX-VNNI (AMD Zen 4) run the AVX-VNNI kernel in
  /// tests.
  bool evexVnni = false;
  /// A convolution (Avx512Vnni, or the ymm AvxVnni and Avx2 without ranges;
  /// see Int8ConvGemm below).
  bool convolution = false;
  int64_t batch = 1;
  /// Convolution form: after the output grid, y = fma(y, a[m], b[m]) with
  /// a, b from the row block (quantized_conv's norm_scale / norm_shift),
  /// then the `normalized` grid (FakeQuant or None).
  bool normalize = false;
  Activation normalized;
  /// A u16 input in two byte planes (see above): linear form, static,
  /// AVX-512 VNNI, s8 weights.
  bool u16Input = false;
  /// Static, no AMX, s8 weights: no dot products; the f32 products
  /// x[M][N] (summed by the f32 GEMM before: quantized_linear's and
  /// quantized_conv's f32_product_k_block) take the scaled sums' place in
  /// the epilogue. Linear form: they are A (lda = 4 N bytes), from the
  /// product's grid on; W and the column block's sums and scales are not
  /// read. Convolution form: they are argument [4] per image, laid out as
  /// the residual (ldr = N; so no residual), the bias and the rest follow;
  /// the weights, panels and the input's (zero point, scale) are not read,
  /// and no tail columns join.
  bool f32Products = false;
  /// Convolution form: 0 reads the im2col panels; > 0 reads the quantizer's
  /// u8 channel blocks [batch][K/4][blockPlane words] as they are (a 1x1,
  /// stride-1, unpadded conv, whose im2col is the identity): panel p at
  /// word NR p of each k group (NR = panelWidth), which may read up to NR
  /// words past the end.
  int64_t blockPlane = 0;
  /// Convolution form: each task also writes the (max, min) of what it
  /// stored, with 0 in the range, to [task][2] f32 (argument 6), the partial
  /// ranges the next int8 convolution's dynamic input quantizer reads
  /// instead of a range pass over C. Needs an epilogue whose activations
  /// use at most two temporaries (`epilogueLeavesRangeRegisters`).
  bool ranges = false;
  /// Convolution form (AVX-512 VNNI: vpermt2ps / vpermt2w lookups;
  /// ymm: one vpgatherdd a vector): instead of the last grid's value
  /// (`normalized` with `normalize`, else `output`, a FakeQuant), entry
  /// q - qmin of this table for its code q (quantized_conv's
  /// output_table; at most 256 entries), then rounded to `tableOutput` (a
  /// FakeQuant, or None) or, with u8Output, stored as that grid's codes
  /// (looked up as words from the index).
  std::vector<float> outputTable;
  Activation tableOutput;
  /// u8 weights with zero points (see above and Int8ConvGemm): K < 2^14;
  /// the linear form reads the rows' code sums from the row block.
  bool u8Weights = false;
  /// Convolution form on ymm (AVX-VNNI, AVX2): the row block holds each
  /// row's epilogue constants broadcast, [M][3][8] words (Int8ConvGemm::
  /// broadcastRows for a static input, generateRowBroadcast's run-time
  /// block for a dynamic one): the compensation sum x zp, fl(sx x sw)
  /// and the bias, which the epilogue takes as memory operands where it
  /// would broadcast and multiply them per vector (VEX has no embedded
  /// broadcast, and 12 accumulators leave 4 registers). The same results,
  /// bit for bit; no normalization or u8 weights.
  bool broadcastRows = false;
  /// Convolution form (quantized_conv's one_step_requantization: a
  /// static input, no bias, residual, activation or ranges here, nor a
  /// table without the normalization):
  /// each row's words 0 and 1 are the s32 compensation minus the bias code
  /// and the f32 scale fl(s[m] / s_y) (Int8ConvGemm::packOneStepRows; ymm:
  /// broadcast), and the output grid (s_y = scale, zp_y = zeroPoint) holds
  /// q = clamp(round(float(sum - word 0) x word 1) + zp_y, lo, hi): no
  /// bias, quotient or activation. With u8Output and no normalization the
  /// epilogue stores q (u8Bounded: no clamp before the conversion where
  /// [lo, hi] is [0, 255]; the packs saturate); otherwise it goes on with
  /// the value (q - zp_y) s_y in place of `output`'s rounding.
  struct OneStep {
    int32_t lo = 0, hi = 255;
    float scale = 1.f;
    int32_t zeroPoint = 0;
  };
  std::optional<OneStep> oneStep;
  /// Convolution form: the kernel builds each task's panel itself from the
  /// input's padded u8 blocks (PanelIm2col, panels of panelWidth): argument
  /// [1] is then the panel buffers ([task][Kp/4][NR][4] bytes; a call fills
  /// the one of its scratch slot, nunc_rt_task) and [7] the padded planes.
  std::optional<Im2colConfig> im2col;
};

struct Int8GemmKernel {
  /// zmm kernels (AVX-512 epilogue) or ymm ones.
  static bool zmm(Int8Isa isa) { return isa == Int8Isa::Avx512Vnni || isa == Int8Isa::Amx; }
  static int64_t panelWidth(Int8Isa isa) {
    return isa == Int8Isa::Avx512Vnni ? 48 : isa == Int8Isa::Amx ? 32 : 16;
  }
  /// k of one packed weight group: 4 (vpdpbusd, tdpbusd) or 2 (vpmaddwd).
  static int64_t kGroup(Int8Isa isa) { return isa == Int8Isa::Avx2 ? 2 : 4; }
  /// K as the kernel runs it: whole groups, whole 64-byte tile rows on AMX.
  static int64_t paddedK(int64_t k, Int8Isa isa) {
    int64_t step = isa == Int8Isa::Amx ? 64 : kGroup(isa);
    return (k + step - 1) / step * step;
  }
  /// Bytes of one quantized A row the row quantizer writes: u8 padded to
  /// the kernel's K (AVX-512 VNNI, AMX) or to 8 (AVX-VNNI: whole 8-byte
  /// stores), or 16-bit elements padded to 8 (AVX2).
  static int64_t rowBytes(int64_t k, Int8Isa isa) {
    switch (isa) {
    case Int8Isa::Avx2: return (k + 7) / 8 * 8 * 2;
    case Int8Isa::AvxVnni: return (k + 7) / 8 * 8;
    default: return paddedK(k, isa);
    }
  }
  /// The K multiple at which rowBytes(K) == K, so the GEMM reads dense u8
  /// rows [M][K] as they are (a u8 tensor another epilogue or a shared
  /// quantize wrote); 0 where never (the 16-bit AVX2 form).
  static int64_t denseRowAlignment(Int8Isa isa) {
    switch (isa) {
    case Int8Isa::Avx2: return 0;
    case Int8Isa::AvxVnni: return 8;
    case Int8Isa::Amx: return 64;
    default: return 4;
    }
  }
  static int64_t numPanels(int64_t n, Int8Isa isa) {
    return (n + panelWidth(isa) - 1) / panelWidth(isa);
  }
  static int64_t numTasks(const Int8GemmConfig &c) { return numPanels(c.n, c.isa); }

  /// W [K][N] s8 into [panel][Kp/g][NR][g] (g = kGroup, NR = panelWidth,
  /// Kp = paddedK), zero padded.
  static std::vector<int8_t> packWeights(const int8_t *w, int64_t k, int64_t n, Int8Isa isa);
  /// The column block [panel][3][NR] from per-column sums (or
  /// compensations), scales and bias (null: zero), as 32-bit words. With
  /// `wordPairs` (compensatesWithWordPairs), each sum is stored as the
  /// 16-bit pair (lo, hi) with -sum = lo + 128 hi. With the zero points of
  /// u8 weights (one per column), [panel][4][NR]: the fourth row holds the
  /// pairs (128 - zw, 128 (128 - zw)). With `highSums` (a u16 input: zh
  /// colSum), [panel][4][NR] with those in the fourth row.
  /// With `outputGrid` (the linear form's u8Output: gridInColumns), each
  /// panel's block ends with outputGridRows rows holding its words.
  static std::vector<uint32_t> packColumns(const int32_t *sums, const float *scales,
                                           const float *bias, int64_t n, Int8Isa isa,
                                           bool wordPairs,
                                           const int32_t *weightZeroPoints = nullptr,
                                           const int32_t *highSums = nullptr,
                                           const Int8GemmConfig::U8Output *outputGrid = nullptr);
  /// Words of a row of the row block: 2, or 4 with u8 weights.
  static int64_t rowBlockWords(bool u8Weights) { return u8Weights ? 4 : 2; }
  /// Sum rows (sums, scales, bias, ...) of NR words of a panel's column
  /// block: 3, or 4 with u8 weights or a u16 input (outputGridRows follow).
  static int64_t columnBlockRows(bool u8Weights, bool u16Input = false) {
    return u8Weights || u16Input ? 4 : 3;
  }
  /// Whether the column block holds the output grid: the linear form's u8
  /// codes (packColumns' outputGrid).
  static bool gridInColumns(const Int8GemmConfig &c) {
    return c.u8Output && !c.convolution;
  }
  /// Rows of NR words the output grid's OutputGridBlock takes.
  static int64_t outputGridRows(Int8Isa isa) {
    return (OutputGridBlock::words(zmm(isa) ? 1 : 8) + panelWidth(isa) - 1) / panelWidth(isa);
  }
  /// Whether the GEMM takes u8 weights with zero points (u8Weights, every
  /// form): K < 2^14, so that the word pair's S / 128 fits.
  static constexpr int64_t kMaxU8WeightK = 16383;
  static bool takesU8Weights(int64_t k) { return k <= kMaxU8WeightK; }
  /// Whether the per-row zero-point compensation is one `vpdpwssd` of the
  /// row's (zp, 128 zp) word pair with the column's pair (the zmm epilogue
  /// of AVX-512 VNNI and AMX, per-row activations): -zp sum exactly, as
  /// |hi| <= K < 2^15 and 128 zp < 2^15, in 1 vector uop where vpmulld +
  /// vpsubd take 3.
  static bool compensatesWithWordPairs(Int8Isa isa, bool perRowA, int64_t k) {
    return perRowA && (isa == Int8Isa::Avx512Vnni || isa == Int8Isa::Amx) && k < 32768;
  }

  /// Generates the task function; null on an xbyak error.
  static std::unique_ptr<JitKernel> generate(const Int8GemmConfig &config);
};

/// The int8 convolution as the same kernel with the roles turned
/// (`Int8GemmConfig::convolution`): C[M = output channels][N = positions] =
/// W[M][K] x im2col[K][N], so the output is NCHW and bias is per row. The
/// rows are the s8 weights, K ordered as the im2col panels of the
/// channel-blocked u8 input are: groups of four input channels x taps,
/// (group, ky, kx), four channels in each 4-byte step; the packed operand is
/// those u8 panels [batch][panel][K/4][48][4]. `vpdpbusd` takes the u8
/// panel vector and the broadcast s8 weights. Epilogue per row m:
/// (sum - zp * rowSum[m]) * fl(scale_input * scale_weight[m]) + bias[m],
/// residual, activation, grid. AVX-VNNI (ymm): panels of 16 columns, tiles
/// of 6 rows, the row's constants loaded per vector (no registers are left
/// to keep them); it takes no row chunks or joined tails (rowChunks and
/// tailColumns give 1 and 0 for it), and Int8GemmKernel::generate refuses
/// ranges for it. AVX2 (no VNNI, `x86_64-avx2` and
/// `x86_64-avx512`): the AVX-VNNI form's panels, tiles and epilogue; the
/// weights widened to s16 (widenWeights), each 4-byte group of the panel
/// read as two vectors of words, its even and its odd bytes, multiplied
/// exactly by `vpmaddwd` + `vpaddd` (no `vpmaddubsw` saturation).
//
// u8 weights with zero points (`u8Weights`, quantize_dynamic's QUInt8):
// the rows hold the codes minus 128 (s8) and sum (a - zp)(w - zw) =
// sum (a - zp)(w - 128) + (128 - zw) sum (a - zp). Every byte of a panel
// that is not input data holds zp (padding, channels past the last), so the
// last sum is P - K zp with P the column's sum of all K codes. The row's
// weight sum folds in (128 - zw) K; each task first sums its panel's columns
// (one `vpdpbusd` with ones per vector and k group, ~1/M of the GEMM; AVX2:
// `vpmaddubsw` + `vpmaddwd` with ones) into
// word pairs (P mod 128, P / 128) on its stack, and the epilogue adds
// (128 - zw) P with one `vpdpwssd` against the row's pair (128 - zw,
// 128 (128 - zw)) (word 3 of its row block).
//
// Task arguments: [0] packed weights [M][K], [1] panels, [2] row block
// [M][4] words (s32 weight sum, f32 weight scale, f32 bias, 0 or the u8
// weights' pair), [3] the input's (s32 zero point, f32 scale), [4]
// residual (`f32Products`: the products), [5] C, [6] (`ranges`) the
// partial ranges, [7] (`im2col`) the
// padded planes or the tasks' transposed tail columns (tailColumns); task =
// (image x itemPanels + panel) x rowChunks + chunk of output channels.
struct Int8ConvGemm {
  /// K of a convolution with `channels` inputs and kh x kw taps.
  static int64_t depth(int64_t channels, int64_t kh, int64_t kw) {
    return (channels + 3) / 4 * kh * kw * 4;
  }
  /// w [M][C][kh][kw] s8 into [M][depth], zero for channels past C. With
  /// `u8Codes`, w holds u8 codes, packed as the codes minus 128.
  static std::vector<int8_t> packWeights(const int8_t *w, int64_t m, int64_t channels,
                                         int64_t kh, int64_t kw, bool u8Codes = false);
  /// Bytes of one packed weight: 1, or 2 in the AVX2 form (widenWeights).
  /// The rows' stride (Int8GemmConfig::lda) is depth x that.
  static int64_t weightBytes(Int8Isa isa) { return isa == Int8Isa::Avx2 ? 2 : 1; }
  /// The AVX2 form's rows from packWeights' [M][depth] s8: s16, each group
  /// of four (w0, w1, w2, w3) as (w0, w2, w1, w3), the word pairs that
  /// multiply the panel group's even and odd bytes.
  static std::vector<int16_t> widenWeights(const std::vector<int8_t> &packed);
  /// The row block from the packed weights' row sums, scales (one, or one
  /// per row) and bias (null: zero): [M][4] words (sum, scale, bias, 0),
  /// or with the normalization (non-null normScale, normShift) [M][8]:
  /// (sum, scale, bias, 0, a, b, 0, 0). With u8 weights' zero points (one
  /// per row), the sum gains (128 - zw) depth and word 3 holds the pair
  /// (128 - zw, 128 (128 - zw)).
  static std::vector<uint32_t> packRows(const std::vector<int8_t> &packed, int64_t m,
                                        const float *scales, bool perRow, const float *bias,
                                        const float *normScale = nullptr,
                                        const float *normShift = nullptr,
                                        const int32_t *weightZeroPoints = nullptr);
  /// Whether the convolution takes u8 weights with zero points: the
  /// positions' code sums as word pairs need K < 2^14.
  static bool takesU8Weights(int64_t k) { return k < 16384; }
  /// Bytes of one row's entry in the row block.
  static int64_t rowBlockBytes(const Int8GemmConfig &c) {
    return c.broadcastRows ? 96 : c.normalize ? 32 : 16;
  }
  /// The rows of a one-step requantization (Int8GemmConfig::oneStep) for a
  /// static input (zero point, scale) and output scale: packRows' block
  /// with words 0-2 of each row (sum x zeroPoint - bq[m] mod 2^32,
  /// fl(fl(scale x weight scale[m]) / outputScale), 0), bq =
  /// oneStepBiasCode. On ymm, broadcastRows(rows, m, 1, 1.f) broadcasts
  /// them (no normalization there).
  static std::vector<uint32_t> packOneStepRows(const std::vector<uint32_t> &rows, int64_t m,
                                               const float *scales, bool perRow,
                                               const float *bias, int32_t zeroPoint,
                                               float scale, float outputScale);
  /// packRows' block (no normalization, s8 weights) for a static input of
  /// zero point `zeroPoint` and scale `scale`, as Int8GemmConfig::
  /// broadcastRows reads it: per row 8 x (sum x zeroPoint), 8 x fl(scale x
  /// weight scale), 8 x bias.
  static std::vector<uint32_t> broadcastRows(const std::vector<uint32_t> &rows, int64_t m,
                                             int32_t zeroPoint, float scale);
  /// The same block at run time, for a dynamic input: one task reads the
  /// input's (zero point, scale) (argument [0], as the channel quantizer
  /// writes them) and packRows' block [M][4] ([1]) and writes the broadcast
  /// block [M][24] words ([2]), bit for bit broadcastRows'. A ymm
  /// convolution then takes its row constants from memory with a dynamic
  /// input too (6-22 % faster on MobileNet's pointwise shapes).
  static std::unique_ptr<JitKernel> generateRowBroadcast(int64_t m);
  /// Output-channel chunks per (image, panel): a conv with few panels
  /// (small planes: 49 positions are 2 panels, one of them a single column)
  /// also splits its rows, for ~8 tasks to share among threads. A chunk is
  /// a whole number of the 8-row tiles, all chunks alike; on ymm (panels
  /// of 16, where only convs with joined tails split) chunks of rows
  /// ending in a tile of 0 or 4-5 of the 6 rows.
  static int64_t rowChunks(const Int8GemmConfig &c);
  static int64_t numTasks(const Int8GemmConfig &c) {
    return c.batch * itemPanels(c) * rowChunks(c);
  }
  /// A last panel of at most 4 positions (49 = 48 + 1; ymm: 49 = 3 x 16 + 1,
  /// at most 8 panels, s8 weights) joins the one before it (not with
  /// `im2col`): its columns run as dot products over K in the
  /// same pass over the weight rows as that panel, instead of tasks of
  /// their own that read all the weights again for 1/48 of the work. Each
  /// task of the last panel first transposes those columns ([tail][K
  /// rounded up to 64] bytes) into its slot's buffer (argument [7], tailBytes()
  /// per task).
  static int64_t tailColumns(const Int8GemmConfig &c);
  /// Panels as the tasks take them (the small last one joined).
  static int64_t itemPanels(const Int8GemmConfig &c) {
    return Int8GemmKernel::numPanels(c.n, c.isa) - (tailColumns(c) ? 1 : 0);
  }
  static int64_t tailBytes(const Int8GemmConfig &c) {
    return tailColumns(c) * ((c.k + 63) / 64 * 64);
  }
  /// Whether the GEMM writes the partial ranges of C (`ranges`): the
  /// AVX-512 VNNI form, where the epilogue leaves their two registers.
  static bool writesRanges(const Int8GemmConfig &c) {
    return c.convolution && c.isa == Int8Isa::Avx512Vnni && epilogueLeavesRangeRegisters(c);
  }
  /// Whether the epilogue leaves two vector registers for the partial range
  /// (its activations and grids need at most two temporaries).
  static bool epilogueLeavesRangeRegisters(const Int8GemmConfig &c) {
    auto few = [](const Activation &a) {
      return a.kind == Activation::None || a.kind == Activation::Relu ||
             a.kind == Activation::Clip || a.kind == Activation::FakeQuant ||
             a.kind == Activation::HardSigmoid || a.kind == Activation::HardSwish;
    };
    return few(c.activation) && few(c.output) && few(c.normalized) && c.outputTable.empty();
  }
};

} // namespace mlir::nunc::x86

#endif // NUNC_CODEGEN_X86_INT8GEMMKERNEL_H
