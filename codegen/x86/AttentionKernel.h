//===- AttentionKernel.h - fused multi-head attention (xbyak) ---*- C++ -*-===//
//
//   out[b, i, h*D:(h+1)*D] = softmax_j(scale * q_i . k_j + mask[b,h,i,j]) v_j
//
// (q, k, v and out each [B, length, heads*D] or heads first, [B, heads,
// length, D]; grouped query heads read key and value head h / group.)
// One task per (batch, head). Each task transposes its K head into scratch
// (so score rows are vectors over j), computes score rows in register tiles
// with the scale and mask applied as they are stored (in base 2: times
// log2 e, unless a QDQ grid rounds them), runs the softmax (vector 2^x) on
// the tile's registers where whole rows fit it, else row by row through
// memory, and accumulates P V in register tiles, dividing by the
// row sums as it stores; P V reads V from a contiguous copy of the head's
// rows. Without grids on AVX-512, K is scaled (times log2 e) as it is
// transposed and a mask shared by every query row starts the score tiles,
// so the scores take no multiplication or mask addition of their own.
// Scratch per task: D*Tp + S*Tp + S + T*D + Tp floats, Tp = T rounded up
// to the vector width. A QDQ model's grids round the scores as
// they are stored, the probabilities in a second pass over each row
// (normalized there, so P V is not divided again), and the output as it is
// stored.
//
// With u8 inputs (a QDQ model's Q, K and V codes, see AttentionConfig), K's
// codes (minus 128, as s8) are transposed in 4-byte groups of dims, V's in
// 4-key groups, and the rounded probabilities are kept as their u8 codes:
// Q K^T and P V are vpdpbusd sums of codes, whose zero points come back
// through row and column terms (a K column sum, a Q row sum and a V
// column sum computed per task before the products, a P row sum as the
// probabilities' codes are stored); the scores and P V are then
// scaled to f32 and go through the grids as above. Scratch: D more floats.
//
// With int8Products (AttentionConfig), each task first quantizes its f32
// head rows to codes in scratch and then computes as with u8 inputs, the
// probabilities' codes relative to their row's largest (see there).
// Scratch: as with u8 inputs, then S*D + 2*T*D bytes and 16 + S floats
// more (the steps, each row's scores factor).
//
// With qlinear (AttentionConfig), the grids are computed as onnxruntime
// computes a QDQ model's attention (see there).
//
// Task arguments: [0] q, [1] k, [2] v, [3] mask, [4] out, [5] scratch (a
// block per task; a call works in the block of its scratch slot), [6] with
// u8Output: its grid's OutputGridBlock (outputGridWords), which the code
// does not hold, so that attentions differing only in it share code.
//
//===----------------------------------------------------------------------===//

#ifndef NUNC_CODEGEN_X86_ATTENTIONKERNEL_H
#define NUNC_CODEGEN_X86_ATTENTIONKERNEL_H

#include "JitSupport.h"
#include "nunc/Codegen/Target.h"

#include <memory>
#include <optional>
#include <vector>

namespace mlir::nunc::x86 {

struct AttentionConfig {
  int64_t batch = 1, seq = 1, keys = 1, heads = 1, headDim = 1;
  float scale = 1;
  bool mask = false;
  /// Element strides of the mask along b, h, i, j (0 where it broadcasts);
  /// j must be 0 or 1.
  int64_t maskStrides[4] = {0, 0, 0, 0};
  /// Packed operands (nunc.attention's input_offsets): the row strides of
  /// q, k and v in floats (0: H*D) and the column each one's heads start at.
  int64_t inputStrides[3] = {0, 0, 0};
  int64_t inputOffsets[3] = {0, 0, 0};
  /// Heads-first q, k, v and out ([B, heads, length, D]: nunc.attention's
  /// heads_major), and the heads of k and v (0: `heads`; query head h
  /// reads key and value head h / (heads / kvHeads)).
  bool headsMajor[4] = {false, false, false, false};
  int64_t kvHeads = 0;
  /// Per query row, how many leading keys a constant mask leaves it (a
  /// causal or window edge; the most over (b, h); empty: all T). f32
  /// without grids, or int8 products (whose skipped probabilities' codes
  /// are 0, so the same bits): where a score row takes several chunks of
  /// keys, a block of rows skips the chunks past its keys (where it fits
  /// the registers, AVX-512 with T <= 128, the vectors past them), and P V
  /// sums over its keys only. A skipped probability (its mask at most
  /// -1e30) is at most 2^-126, the exponential's floor: the results move by
  /// at most that times |v| for each key skipped, below a float's
  /// resolution unless v is near the float range (onnxruntime's -inf keys
  /// count as exact 0). A NaN score in a skipped chunk does not reach its
  /// row (onnxruntime's row is NaN; in a computed chunk the kernel's too).
  std::vector<int64_t> rowKeys;
  /// A QDQ model's grids (FakeQuant, or None): Q K^T, scaled, masked, the
  /// softmax output (then normalized before P V instead of after), P V.
  Activation scores, scaled, logits, probs, output;
  /// q, k and v are the u8 codes of these per-tensor grids (FakeQuant:
  /// scale, min = -zero point), read as their values; with a probability
  /// grid of at most 256 codes (AVX-512 VNNI, or AVX2 with AVX-VNNI and a
  /// head dim of a multiple of 16): Q K^T and P V are vpdpbusd products of
  /// the codes, summed exactly in s32.
  bool u8Inputs = false;
  Activation inputGrids[3];
  /// nunc.attention's qlinear_arithmetic (u8 inputs, AVX-512, every grid
  /// the full u8 range): onnxruntime's steps (QLinearMatMul, the Div by
  /// `scaleDivisor` or Mul by `scale`, QLinearAdd of the mask's codes on
  /// `maskGrid`, QLinearSoftmax, QLinearMatMul). The scores of a tile are
  /// stored as the masked scores' codes (s32); each block of rows then
  /// looks up onnxruntime's exponentials, sums them in key order (scalar
  /// f32 adds, the rows' chains interleaved) and stores the probabilities'
  /// codes; P V is requantized in one multiply.
  bool qlinear = false;
  float scaleDivisor = 0;
  Activation maskGrid;
  /// qlinear: the mask's codes add as s8 (nunc.attention's signed_codes).
  bool signedCodes = false;
  /// The result as u8 codes (nunc.attention's u8_output): P V
  /// quantized as the row quantizer quantizes (divided by `scale`, rounded
  /// half to even, plus the zero point, within [0, 255]; outside qlinear
  /// the division is the row factor times the reciprocal, a code apart at
  /// most at rounding ties), bytes in the result's rows. `output` then
  /// stays None, except with qlinear, whose P V is the codes of that same
  /// grid already.
  struct U8Output {
    float scale = 1;
    int32_t zeroPoint = 0;
  };
  std::optional<U8Output> u8Output;
  /// f32 q, k and v multiplied as int8 codes (nunc.attention's
  /// int8_products; VNNI: AVX-512, or AVX2 with a head dim of a multiple of
  /// 16; no grids; any layout: packed, heads first, grouped heads, whose
  /// key and value head each task quantizes for itself, or once for its
  /// query heads as rows, see groupedRows): each task quantizes its head's
  /// Q, K and V rows to s8 on a symmetric grid of their own (step max |x| /
  /// 127 over the head's rows, codes round(x * (127 / max)), half to even)
  /// into scratch; Q K^T is the vpdpbusd sum of those codes (Q's plus 128
  /// as u8), times both steps; the softmax's exponentials e = 2^(x - max)
  /// in (0, 1] become u8 codes round(255 e); P V is the vpdpbusd sum of
  /// those codes and V's, divided by the row's sum of codes and times V's
  /// step.
  bool int8Products = false;
  /// int8Products: Q's rows share a step in blocks of this many (0: all S
  /// rows, one query head's): groupedRows' tasks hold several query heads.
  int64_t queryStepRows = 0;
  /// u8 inputs on AVX2 (AVX-VNNI hosts): encode vpdpbusd with EVEX
  /// (AVX512-VNNI + VL) instead of VEX; the same instruction, for hosts
  /// with AVX-512 VNNI but no AVX-VNNI (tests on AMD Zen 4).
  bool evexVnni = false;
};

struct AttentionKernel {
  /// Whether the kernel handles this configuration on `isa`.
  static bool supports(const AttentionConfig &c, Isa isa);
  static int64_t numTasks(const AttentionConfig &c) { return c.batch * c.heads; }
  static int64_t scratchBytes(const AttentionConfig &c, Isa isa);
  /// Argument [6] with u8Output: its grid's OutputGridBlock.
  static std::vector<uint32_t> outputGridWords(const AttentionConfig &c, Isa isa) {
    return OutputGridBlock::pack(c.u8Output->scale, c.u8Output->zeroPoint,
                                 isa == Isa::Avx512 ? 1 : 8);
  }
  /// Whether every score on its grid (c.scores), once scaled, rounds on
  /// c.scaled to the same integer (a QDQ model calibrates the scaled
  /// scores' range as the scores' range times the scale): the kernel then
  /// rounds once and takes the integer's value on the second grid.
  static bool scaledGridFollows(const AttentionConfig &c);
  static std::unique_ptr<JitKernel> generate(const AttentionConfig &c, Isa isa);
  /// The same attention with the query heads of each key head as the rows
  /// of one task, where those rows lie evenly spaced: one query row (a
  /// decoder's step), or a heads-first query and result and a mask the
  /// same for every head and row. Each key head's K is then transposed
  /// (with int8Products: K and V quantized) once instead of once per query
  /// head; int8 products keep a Q step per query head (queryStepRows).
  /// nullopt where that does not hold or there are no grouped heads.
  static std::optional<AttentionConfig> groupedRows(const AttentionConfig &c);
  /// Whether the kernel skips the keys rowKeys leaves no row (f32 or int8
  /// products, no grids).
  static bool skipsMaskedKeys(const AttentionConfig &c);
};

} // namespace mlir::nunc::x86

#endif // NUNC_CODEGEN_X86_ATTENTIONKERNEL_H
