//===- AttentionKernel.cpp - fused multi-head attention (xbyak) -----------===//

#include "AttentionKernel.h"

#include "nunc/Dialect/Nunc/OneStepRequantization.h"

#include <cassert>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

namespace mlir::nunc::x86 {

namespace {
int64_t lanesOf(Isa isa) { return isa == Isa::Avx512 ? 16 : 8; }
/// One task's scratch: KT [D][Tp], P [S][Tp], inv [S], V [T][D], the
/// mask row [Tp]; with u8 inputs or int8 products, V's column terms [D]
/// after that; with int8 products then the head's codes (Q [S][D], K and V
/// [T][D] bytes), its steps and each row's scores factor (int8CodesFloats).
int64_t int8CodesFloats(const AttentionConfig &c, int64_t tp) {
  return c.headDim * tp + c.seq * tp + c.seq + c.keys * c.headDim + tp + c.headDim;
}
int64_t taskScratchFloats(const AttentionConfig &c, int64_t tp) {
  if (c.int8Products)
    return int8CodesFloats(c, tp) + (c.seq + 2 * c.keys) * c.headDim / 4 + 16 + c.seq;
  return c.headDim * tp + c.seq * tp + c.seq + c.keys * c.headDim + tp +
         (c.u8Inputs ? c.headDim : 0);
}
int64_t paddedKeys(const AttentionConfig &c, Isa isa) {
  int64_t l = lanesOf(isa);
  return (c.keys + l - 1) / l * l;
}
} // namespace

bool AttentionKernel::supports(const AttentionConfig &c, Isa isa) {
  auto codes = [](const Activation &g) {
    return g.kind == Activation::FakeQuant && g.min <= 0 && g.max >= 0 && g.max - g.min <= 255;
  };
  const bool layouts = c.headsMajor[0] || c.headsMajor[1] || c.headsMajor[2] ||
                       c.headsMajor[3] || (c.kvHeads && c.kvHeads != c.heads);
  if (c.kvHeads < 0 || (c.kvHeads && c.heads % c.kvHeads != 0) || (layouts && c.u8Inputs))
    return false;
  const bool anyGrid =
      llvm::any_of(std::array{&c.scores, &c.scaled, &c.logits, &c.probs, &c.output},
                   [](const Activation *g) { return g->kind != Activation::None; });
  // (P V sums up to 255 x 127 per key in s32.)
  // (Heads first or grouped: each task quantizes its own heads' rows.)
  if (c.int8Products && ((isa != Isa::Avx512 && c.headDim % 16 != 0) || c.u8Inputs ||
                         c.qlinear || anyGrid || c.keys > 65536))
    return false;
  if (c.queryStepRows &&
      (!c.int8Products || c.queryStepRows < 0 || c.seq % c.queryStepRows != 0))
    return false;
  if (c.u8Inputs && ((isa != Isa::Avx512 && c.headDim % 16 != 0) || !codes(c.probs) ||
                     !llvm::all_of(c.inputGrids, codes)))
    return false;
  // onnxruntime's u8 steps: each grid all of [0, 255] (min = -zero point).
  auto fullU8 = [](const Activation &g) {
    return g.kind == Activation::FakeQuant && g.min <= 0 && g.max - g.min == 255;
  };
  if (c.qlinear &&
      (isa != Isa::Avx512 || !c.u8Inputs || !fullU8(c.scores) || !fullU8(c.scaled) ||
       !fullU8(c.probs) || !fullU8(c.output) || !llvm::all_of(c.inputGrids, fullU8) ||
       (c.mask ? !fullU8(c.logits) || !fullU8(c.maskGrid) : c.logits.kind != Activation::None)))
    return false;
  // With qlinear the codes are those of the output grid it computes.
  // (Heads first too: a decoder step's grouped rows write the result
  // heads first, the same bytes as merged with one query row.)
  if (c.u8Output &&
      (!(c.u8Output->scale > 0) ||
       c.u8Output->zeroPoint < 0 || c.u8Output->zeroPoint > 255 ||
       (c.qlinear ? c.output.scale != c.u8Output->scale ||
                        c.output.min != static_cast<float>(-c.u8Output->zeroPoint)
                  : c.output.kind != Activation::None)))
    return false;
  return c.headDim % lanesOf(isa) == 0 && c.headDim <= 256 &&
         (!c.mask || c.maskStrides[3] == 0 || c.maskStrides[3] == 1);
}

bool AttentionKernel::scaledGridFollows(const AttentionConfig &c) {
  const Activation &a = c.scores, &b = c.scaled;
  if (a.kind != Activation::FakeQuant || b.kind != Activation::FakeQuant || a.max - a.min > 65535)
    return false;
  // Each integer of the scores' grid through the kernel's float steps:
  // its value, times the scale, clamped, correctly rounded quotient,
  // rounded half to even.
  const float lo = b.min * b.scale, hi = b.max * b.scale;
  for (float k = a.min; k <= a.max; ++k) {
    float scaled = std::min(std::max(k * a.scale * c.scale, lo), hi);
    if (std::nearbyint(scaled / b.scale) != k)
      return false;
  }
  return true;
}

std::optional<AttentionConfig> AttentionKernel::groupedRows(const AttentionConfig &c) {
  if (!c.kvHeads || c.kvHeads == c.heads || c.heads % c.kvHeads != 0 || c.u8Inputs ||
      c.queryStepRows || c.qlinear || c.inputStrides[0] != 0 || c.inputOffsets[0] != 0)
    return std::nullopt;
  const int64_t group = c.heads / c.kvHeads;
  const int64_t *m = c.maskStrides;
  // Row r of key head k is query head k * group + r / S, row r % S: at
  // query row k * group * S + r where the query and result are heads first
  // (and with S = 1 either way).
  const bool evenMask = !c.mask || c.seq == 1 || (m[1] == 0 && m[2] == 0);
  if (!evenMask || (c.seq != 1 && !(c.headsMajor[0] && c.headsMajor[3])))
    return std::nullopt;
  AttentionConfig g = c;
  g.heads = c.kvHeads;
  g.kvHeads = 0;
  g.seq = group * c.seq;
  g.headsMajor[0] = g.headsMajor[3] = true;
  // (Each query head's rows keep a Q step of their own, as its task had.)
  if (c.int8Products)
    g.queryStepRows = c.seq;
  if (c.mask && c.seq == 1) {
    g.maskStrides[1] = group * m[1];
    g.maskStrides[2] = m[1];
  }
  g.rowKeys.clear();
  for (int64_t r = 0; r < g.seq && !c.rowKeys.empty(); ++r)
    g.rowKeys.push_back(c.rowKeys[r % c.seq]);
  return g;
}

bool AttentionKernel::skipsMaskedKeys(const AttentionConfig &c) {
  return !c.rowKeys.empty() && static_cast<int64_t>(c.rowKeys.size()) == c.seq &&
         !c.u8Inputs && !c.qlinear &&
         llvm::all_of(std::array{&c.scores, &c.scaled, &c.logits, &c.probs, &c.output},
                      [](const Activation *g) { return g->kind == Activation::None; });
}

int64_t AttentionKernel::scratchBytes(const AttentionConfig &c, Isa isa) {
  int64_t tp = paddedKeys(c, isa);
  return numTasks(c) * taskScratchFloats(c, tp) * 4;
}

namespace {

using namespace Xbyak;

template <typename Vmm> class AttentionGenerator : public JitKernel {
public:
  static constexpr bool kAvx512 = std::is_same_v<Vmm, Zmm>;
  static constexpr int kLanes = kAvx512 ? 16 : 8;
  static constexpr int kRegs = kAvx512 ? 32 : 16;

  explicit AttentionGenerator(const AttentionConfig &config) : c(config) {
    replicate = kAvx512 ? 1 : 8;
    tp = (c.keys + kLanes - 1) / kLanes * kLanes;
    u8 = c.u8Inputs || c.int8Products;
    eb = c.u8Inputs ? 1 : 4;
    if (c.int8Products) {
      // The codes' algebra of u8 inputs: Q, K and V codes with zero point
      // 128 (so that every term but Q's zero point's is 0), probability
      // codes from 0 (their float steps are run-time values instead).
      for (Activation &g : c.inputGrids)
        g = Activation::fakeQuant(1, -128, 127);
      c.probs = Activation::fakeQuant(1.f / 255, 0, 255);
    }
    ob = c.u8Output ? 1 : 4;
    kvHeads = c.kvHeads ? c.kvHeads : c.heads;
    auto rowStride = [&](int i) {
      if (c.headsMajor[i])
        return c.headDim;
      if (i < 3 && c.inputStrides[i])
        return c.inputStrides[i];
      return (i == 1 || i == 2 ? kvHeads : c.heads) * c.headDim;
    };
    qs = rowStride(0);
    ks = rowStride(1);
    vs = rowStride(2);
    os = rowStride(3);
    // Without grids on the scores, they are stored times log2(e), and the
    // softmax takes 2^x: one multiplication instead of two, and a cheaper
    // exponential. A QDQ model rounds the scaled and masked scores on
    // their own grids, so those stay in base e.
    base2 = c.scores.kind == Activation::None && c.scaled.kind == Activation::None &&
            c.logits.kind == Activation::None;
    // Without grids (AVX-512), the scale times log2(e) is applied to K as it
    // is transposed, and a mask that is the same for every query row,
    // times log2(e), is where the score tiles start: the scores need no
    // multiplication and no mask addition of their own (2 of ~17 vector
    // uops per score vector besides the dot products).
    scaledKeys = kAvx512 && base2 && !u8;
    maskRow = scaledKeys && c.mask && c.maskStrides[2] == 0;
    scaledGridFollows = AttentionKernel::scaledGridFollows(c);
    limited = AttentionKernel::skipsMaskedKeys(config); // (before int8's grids above)
    if (c.qlinear)
      qlinearConstants();
  }

  void generate() {
    prologue();
    if (c.u8Output) {
      // The output grid's block (argument [6]) at [rsp], for weightedValues.
      frameBytes = 8;
      sub(rsp, frameBytes);
      mov(rax, ptr[rdi + 48]);
      mov(ptr[rsp], rax);
    }
    mov(r14, rdx); // the scratch slot (nunc_rt_task), until the scratch below
    // b = task / H, h = task % H
    mov(rax, rsi);
    xor_(edx, edx);
    mov(rcx, c.heads);
    div(rcx);
    mov(rbx, rax); // b
    mov(rbp, rdx); // h
    // The key and value head, h / (H / kvHeads): rcx for grouped heads.
    const int64_t group = c.heads / kvHeads;
    if (group > 1) {
      mov(rax, rbp);
      xor_(edx, edx);
      mov(rcx, group);
      div(rcx);
      mov(rcx, rax);
    }
    // q, k, v, out bases of this head; mask row base at i = 0. A row is
    // `stride` elements; heads first, a batch item holds `heads` blocks of
    // rows x D, else rows of every head side by side.
    auto base = [&](const Reg64 &dst, int arg, int i, int64_t rows, int64_t stride,
                    int64_t offset, int64_t bytes) {
      const bool kv = i == 1 || i == 2;
      const int64_t heads = kv ? kvHeads : c.heads;
      const bool major = c.headsMajor[i];
      mov(dst, ptr[rdi + arg * 8]);
      imul(rax, rbx, (major ? heads * rows * c.headDim : rows * stride) * bytes);
      add(dst, rax);
      imul(rax, kv && group > 1 ? rcx : rbp, (major ? rows * c.headDim : c.headDim) * bytes);
      add(dst, rax);
      if (offset)
        add(dst, offset * bytes);
    };
    base(r8, 0, 0, c.seq, qs, c.inputOffsets[0], eb);   // q head
    base(r9, 1, 1, c.keys, ks, c.inputOffsets[1], eb);  // k head
    base(r12, 2, 2, c.keys, vs, c.inputOffsets[2], eb); // v head
    base(r13, 4, 3, c.seq, os, 0, ob);                  // out head
    if (c.mask) {
      mov(r11, ptr[rdi + 24]);
      imul(rax, rbx, c.maskStrides[0] * 4);
      add(r11, rax);
      imul(rax, rbp, c.maskStrides[1] * 4);
      add(r11, rax);
    }
    // The slot's block of scratch (taskScratchFloats): one thread runs its
    // heads in the same block, which stays in its caches, where a block per
    // head (~100 KB each) streamed ~1 MB of fresh lines through L2.
    mov(r10, ptr[rdi + 40]);
    imul(rax, r14, taskScratchFloats(c, tp) * 4);
    add(r10, rax); // KT
    lea(r14, ptr[r10 + c.headDim * tp * 4]); // P
    lea(r15, ptr[r14 + c.seq * tp * 4]);     // inv

    if (c.int8Products)
      quantizeHead();
    if (u8) {
      valuesCopied = true;
      transposeKeyCodes();
      packValueCodes();
      // int8Products: K's zero point is 0, and with it the row terms.
      if (!c.int8Products)
        queryRowTerms();
    } else {
      transposeKeys();
      valuesCopied = vs != c.headDim;
      if (valuesCopied)
        packValues();
    }
    if (maskRow)
      writeMaskRow();
    if (c.qlinear && c.mask && c.maskStrides[2] == 0)
      writeMaskTermRow();
    scoresAndSoftmax();
    weightedValues();
    epilogueReturn(0);
    emitConstants();
  }

private:
  static constexpr float kLog2e = 1.44269504088896341f;
  static constexpr float kLowest = std::numeric_limits<float>::lowest();
  AttentionConfig c;
  int64_t tp = 0;
  int64_t qs = 0, ks = 0, vs = 0, os = 0; // row strides of q, k, v and out (elements)
  int64_t kvHeads = 1;
  bool base2 = false;
  bool scaledKeys = false; // KT holds k * scale * log2(e)
  bool maskRow = false;    // the score tiles start from the scaled mask row
  bool scaledGridFollows = false;
  bool u8 = false;    // products on codes (u8Inputs or int8Products)
  bool limited = false; // blocks of rows skip their masked keys (rowKeys)
  bool valuesCopied = false; // r12 points at V's copy in scratch (packValues)

  /// Rows per block of P V (weightedValues: as many as its register tiles
  /// of accumulators leave room for).
  int valueRowsPerBlock() const {
    const int dv = static_cast<int>(c.headDim / kLanes);
    const int chunk = std::min(dv, kAvx512 ? 8 : 4);
    return std::max(1, std::min<int>(kAvx512 ? 6 : 3, (kRegs - chunk - 1) / chunk));
  }

  /// The most of `keys` over rows [first, first + rows) (at least 1, at
  /// most T).
  int64_t mostOf(const std::vector<int64_t> &keys, int64_t first, int64_t rows) const {
    int64_t most = 1;
    for (int64_t i = first; i < std::min(first + rows, c.seq); ++i)
      most = std::max(most, std::min(keys[i], c.keys));
    return most;
  }

  /// Per row, the keys P V reads for it: the most that a row of its block
  /// of P V keeps (rowKeys). The score blocks compute at least these, so
  /// that P V never reads a probability the scores skipped.
  std::vector<int64_t> valueKeys() const {
    const int64_t rows = valueRowsPerBlock();
    std::vector<int64_t> keys(c.seq);
    for (int64_t i = 0; i < c.seq; ++i)
      keys[i] = mostOf(c.rowKeys, i / rows * rows, rows);
    return keys;
  }

  /// Per row, the groups of 4 keys (u8 P V steps) that hold its `keys`.
  std::vector<int64_t> keyGroups(const std::vector<int64_t> &keys) const {
    std::vector<int64_t> groups;
    for (int64_t k : keys)
      groups.push_back((std::min(k, c.keys) + 3) / 4);
    return groups;
  }

  /// edi = the most of `keys` over the block of `rowsPerBlock` rows that the
  /// counter rbp (fullBlocks down to 1) stands at, or (past the loop) over
  /// the rest.
  void loadBlockKeys(const std::vector<int64_t> &keys, int rowsPerBlock, bool inLoop) {
    const int64_t fullBlocks = c.seq / rowsPerBlock;
    if (!inLoop) {
      mov(edi, static_cast<uint32_t>(mostOf(keys, fullBlocks * rowsPerBlock, rowsPerBlock)));
      return;
    }
    // Entry rbp - 1: block fullBlocks - rbp.
    std::vector<uint32_t> table;
    for (int64_t j = 0; j < fullBlocks; ++j)
      table.push_back(static_cast<uint32_t>(
          mostOf(keys, (fullBlocks - 1 - j) * rowsPerBlock, rowsPerBlock)));
    lea(rdi, dataAddr(table));
    mov(edi, dword[rdi + rbp * 4 - 4]);
  }
  int64_t eb = 4;     // bytes of an input element
  int64_t ob = 4;     // bytes of a result element (u8Output: 1)

  // qlinear_arithmetic's compile-time constants (qlinearConstants).
  float qkMultiplier = 0, pvMultiplier = 0, softmaxMultiplier = 0; // c of qlinearSoftmaxFactor
  int32_t scoresZp = 0, probsZp = 0, outputZp = 0;
  std::array<uint8_t, 256> scaledCodes{};
  bool scaledShifts = false; // scaledCodes[k] = clamp(k + shift, lo, hi)
  int32_t scaledShift = 0, scaledLo = 0, scaledHi = 255;
  CodeSumConstants maskSum{};
  int32_t codeOffset = 0; // the mask's QLinearAdd on s8 codes: 128
  std::array<float, 256> expTable{};

  static int32_t zeroPointOf(const Activation &g) { return static_cast<int32_t>(-g.min); }
  void qlinearConstants() {
    const Activation &q = c.inputGrids[0], &k = c.inputGrids[1], &v = c.inputGrids[2];
    scoresZp = zeroPointOf(c.scores);
    probsZp = zeroPointOf(c.probs);
    outputZp = zeroPointOf(c.output);
    qkMultiplier = qlinearMatMulMultiplier(q.scale, k.scale, c.scores.scale);
    pvMultiplier = qlinearMatMulMultiplier(c.probs.scale, v.scale, c.output.scale);
    scaledCodes = qlinearScaledCodes(c.scores.scale, scoresZp, c.scaleDivisor, c.scale,
                                     c.scaled.scale, zeroPointOf(c.scaled));
    // Most models' scaled grid is the scores' grid times the scale: each
    // code then moves by a constant (often 0), in place of a lookup.
    scaledShift = scaledCodes[128] - 128;
    scaledLo = scaledCodes[0];
    scaledHi = scaledCodes[255];
    scaledShifts = true;
    for (int32_t i = 0; i < 256; ++i)
      scaledShifts &= scaledCodes[i] == std::clamp(i + scaledShift, scaledLo, scaledHi);
    codeOffset = c.signedCodes ? 128 : 0;
    if (c.mask)
      maskSum = codeSumConstants(
          c.scaled.scale, static_cast<float>(zeroPointOf(c.scaled) - codeOffset),
          c.maskGrid.scale, static_cast<float>(zeroPointOf(c.maskGrid) - codeOffset),
          c.logits.scale, static_cast<float>(zeroPointOf(c.logits) - codeOffset));
    expTable = qlinearSoftmaxTable(c.mask ? c.logits.scale : c.scaled.scale, c.keys);
    softmaxMultiplier = std::floor(1.0f / c.probs.scale);
  }

  /// dst = fma(the mask's code, rB, F) of the f32 mask values in dst
  /// (QLinearAdd's term of the mask operand; t: a temporary): the code
  /// round(m / s_b) + z_b (less codeOffset), an exact quotient of a value
  /// on the grid.
  void emitMaskTerm(const Vmm &dst, const Vmm &t) {
    emitValueCode(t, dst, c.maskGrid.scale,
                  static_cast<float>(zeroPointOf(c.maskGrid) - codeOffset),
                  static_cast<float>(-codeOffset), static_cast<float>(255 - codeOffset));
    vbroadcastss(dst, constScalar(maskSum.fixed));
    vfmadd231ps(dst, t, constAddr(maskSum.ratioB));
  }

  /// The mask terms (emitMaskTerm) of this (batch, head)'s one mask row
  /// into maskRowAddress (qlinear, a mask the same for every query row).
  void writeMaskTermRow() {
    for (int64_t col = 0; col < tp; col += kLanes) {
      loadMask(Vmm(0), ptr[r11 + (c.maskStrides[3] ? col * 4 : 0)],
               std::min<int64_t>(kLanes, c.keys - col), Vmm(1));
      emitMaskTerm(Vmm(0), Vmm(1));
      vmovups(maskRowAddress(col), Vmm(0));
    }
  }

  /// With u8 inputs, each integer n = code + min of Q, K, V (min = -zero
  /// point) and P (code index + min) is a vpdpbusd operand a (u8: Q's code,
  /// P's index) or b (s8: K's or V's code - 128), n = a + m or b + beta
  /// with beta = 128 + min, so that sum (a + m)(b + beta) = sum ab +
  /// beta sum a + m sum b + count m beta: the s32 dot product plus a row
  /// term and a column term.
  int32_t minOf(const Activation &g) const { return static_cast<int32_t>(g.min); }
  int32_t betaOf(const Activation &g) const { return 128 + minOf(g); }

  /// int8Products: the head's codes (bytes from r10) and steps in scratch.
  int64_t queryCodes() const { return int8CodesFloats(c, tp) * 4; }
  int64_t keyCodes() const { return queryCodes() + c.seq * c.headDim; }
  int64_t valueCodes() const { return keyCodes() + c.keys * c.headDim; }
  int64_t stepsAt() const { return valueCodes() + c.keys * c.headDim; }
  /// V's step; K's (while Q's are quantized); from rowFactorsAt, each
  /// row's scores factor: its Q step times K's times the scale times
  /// log2(e).
  Address valueStep() { return ptr[r10 + stepsAt() + 4]; }
  Address keyStep() { return ptr[r10 + stepsAt() + 8]; }
  int64_t rowFactorsAt() const { return stepsAt() + 64; }
  /// Row r's factor from the scores' row pointer rsi (the row's 1/sum in
  /// inv, r15 = r10 + (D + S) Tp floats).
  Address rowFactor(int r) {
    return ptr[rsi + rowFactorsAt() - (c.headDim + c.seq) * tp * 4 + r * 4];
  }

  /// int8Products: Q, K and V of this head as codes in scratch (the steps
  /// after them), then read from there as u8 inputs are. Q's step is one
  /// per block of queryStepRows rows (one query head's). The magnitudes of
  /// K and V (and Q, where its one block has their rows: self-attention)
  /// are found in one pass: their rows lie a page or more apart, and three
  /// streams of loads in one loop overlap their misses where one pass each
  /// waited on them (the passes were ~15 % of MiniLM's int8 attention).
  void quantizeHead() {
    const int64_t blockRows = c.queryStepRows ? c.queryStepRows : c.seq;
    const RowSource query{r8, 0, qs}, key{r9, 0, ks}, value{r12, 0, vs};
    const bool withQuery = blockRows == c.seq && c.seq == c.keys;
    std::vector<RowSource> joint = {key, value};
    if (withQuery)
      joint.push_back(query);
    scanMagnitudes(joint, c.keys);
    for (size_t i = 0; i < joint.size(); ++i)
      vmovss(scannedMagnitude(static_cast<int>(i)), Xmm(2 * static_cast<int>(i)));
    quantizeRows(key, c.keys, keyCodes(), scannedMagnitude(0));
    vmovss(keyStep(), xmm0);
    for (int64_t b = 0; b < c.seq / blockRows; ++b) {
      const int64_t first = b * blockRows;
      const RowSource block{r8, first * qs * 4, qs};
      if (withQuery)
        quantizeRows(block, blockRows, queryCodes(), scannedMagnitude(2));
      else
        quantizeRows(block, blockRows, queryCodes() + first * c.headDim);
      vmulss(xmm0, xmm0, keyStep());
      vmulss(xmm0, xmm0, constScalar(c.scale * kLog2e));
      Label rows;
      lea(rax, ptr[r10 + rowFactorsAt() + first * 4]);
      mov(rdx, blockRows);
      L(rows);
      vmovss(ptr[rax], xmm0);
      add(rax, 4);
      dec(rdx);
      jnz(rows);
    }
    quantizeRows(value, c.keys, valueCodes(), scannedMagnitude(1));
    vmovss(valueStep(), xmm0);
    lea(r8, ptr[r10 + queryCodes()]);
    lea(r9, ptr[r10 + keyCodes()]);
    lea(r12, ptr[r10 + valueCodes()]);
    qs = ks = vs = c.headDim;
    eb = 1;
  }

  /// f32 rows of D to quantize: from `src` + `srcBytes`, `stride` floats
  /// apart.
  struct RowSource {
    Reg64 src;
    int64_t srcBytes, stride;
  };
  /// quantizeHead's jointly scanned magnitudes (K, V, Q) in scratch.
  Address scannedMagnitude(int i) { return ptr[r10 + stepsAt() + 16 + 4 * i]; }

  /// The largest magnitude over `rows` rows of each source (at most 3),
  /// all in one loop: source i's in every lane of Vmm(2 i). Uses vector
  /// registers 0-7, rax, rcx, rdx.
  void scanMagnitudes(const std::vector<RowSource> &sources, int64_t rows) {
    const int dv = static_cast<int>(c.headDim / kLanes), accs = std::min(dv, 2);
    const int n = static_cast<int>(sources.size());
    const Reg64 pointers[3] = {rax, rcx, rdx};
    auto acc = [](int i, int a) { return Vmm(2 * i + a); };
    for (int i = 0; i < n; ++i) {
      for (int a = 0; a < accs; ++a)
        pxor(acc(i, a), acc(i, a), acc(i, a));
      lea(pointers[i], ptr[sources[i].src + sources[i].srcBytes]);
    }
    if constexpr (!kAvx512)
      vmovups(Vmm(7), constAddrBits(0x7fffffffu));
    push(rbx);
    mov(rbx, rows);
    Label loop;
    L(loop);
    for (int v = 0; v < dv; ++v)
      for (int i = 0; i < n; ++i) {
        const Vmm a = acc(i, v % accs);
        const Address x = ptr[pointers[i] + v * kLanes * 4];
        if constexpr (kAvx512) {
          vrangeps(a, a, x, 0x0b); // the larger magnitude, sign cleared
        } else {
          vandps(Vmm(6), Vmm(7), x); // |x|
          vmaxps(a, a, Vmm(6));
        }
      }
    for (int i = 0; i < n; ++i)
      add(pointers[i], sources[i].stride * 4);
    dec(rbx);
    jnz(loop, T_NEAR);
    pop(rbx);
    for (int i = 0; i < n; ++i) {
      if (accs > 1)
        vmaxps(acc(i, 0), acc(i, 0), acc(i, 1));
      emitHorizontal(acc(i, 0), Vmm(6), Reduction::Max);
    }
  }

  /// `rows` f32 rows of D of `s` as the u8 codes round(x * (127 / m)) +
  /// 128 (half to even), m = max |x| over them (at least 2^-100; from
  /// `scanned` where scanMagnitudes found it), at r10 + `dst` (D bytes a
  /// row); xmm0 = m / 127, their step. Uses vector registers 0-7, rax, rcx,
  /// rdx.
  void quantizeRows(const RowSource &s, int64_t rows, int64_t dst,
                    std::optional<Address> scanned = std::nullopt) {
    const int dv = static_cast<int>(c.headDim / kLanes);
    if (scanned)
      vbroadcastss(Vmm(0), *scanned);
    else
      scanMagnitudes({s}, rows);
    vmaxps(Vmm(0), Vmm(0), constAddr(0x1p-100f));
    loadConstant(Vmm(1), 127.f);
    vdivps(Vmm(1), Vmm(1), Vmm(0)); // codes per unit
    vdivps(Vmm(0), Vmm(0), constAddr(127.f));
    lea(rax, ptr[s.src + s.srcBytes]);
    lea(rcx, ptr[r10 + dst]);
    mov(rdx, rows);
    Label codeLoop;
    L(codeLoop);
    for (int v = 0; v < dv; ++v) {
      const Vmm x(2 + v % 2);
      vmulps(x, Vmm(1), ptr[rax + v * kLanes * 4]);
      if constexpr (kAvx512) {
        vcvtps2dq(x, x | T_rn_sae);
        vpaddd(x, x, constAddrBits(128));
        vpmovusdb(ptr[rcx + v * kLanes], x);
      } else {
        vcvtps2dq(x, x); // half to even, as the runtime keeps MXCSR
        vpaddd(x, x, constAddrBits(128));
        emitDwordsToBytes(x);
        vmovq(ptr[rcx + v * kLanes], Xmm(x.getIdx()));
      }
    }
    add(rax, s.stride * 4);
    add(rcx, c.headDim);
    dec(rdx);
    jnz(codeLoop, T_NEAR);
  }

  /// Whole-vector integer moves and xor: EVEX on AVX-512, VEX on AVX2.
  void movdqu(const Vmm &dst, const Address &src) {
    if constexpr (kAvx512)
      vmovdqu32(dst, src);
    else
      vmovdqu(dst, src);
  }
  void movdqu(const Address &dst, const Vmm &src) {
    if constexpr (kAvx512)
      vmovdqu32(dst, src);
    else
      vmovdqu(dst, src);
  }
  void pxor(const Vmm &dst, const Vmm &a, const Operand &b) {
    if constexpr (kAvx512)
      vpxord(dst, a, b);
    else
      vpxor(dst, a, b);
  }
  /// The first `valid` lanes as a mask: in k (AVX-512, through tmp), or in
  /// reg (AVX2).
  void loadLaneMask(int64_t valid, const Opmask &k, const Vmm &reg, const Reg32 &tmp) {
    if constexpr (kAvx512) {
      mov(tmp, (1u << valid) - 1);
      kmovw(k, tmp);
    } else {
      vmovdqu(reg, laneMask(valid, kLanes));
    }
  }
  /// vpdpbusd (u8 a, s8 b): EVEX on AVX-512 and where asked (evexVnni),
  /// else VEX (AVX-VNNI).
  void dpbusd(const Vmm &acc, const Vmm &a, const Operand &b) {
    vpdpbusd(acc, a, b, kAvx512 || c.evexVnni ? EvexEncoding : VexEncoding);
  }
  /// Every byte of dst = 1 (the u8 operand that sums s8 bytes), via esi.
  void loadOnes(const Vmm &dst) {
    mov(esi, 0x01010101);
    if constexpr (kAvx512) {
      vpbroadcastd(dst, esi);
    } else {
      vmovd(Xmm(dst.getIdx()), esi);
      vpbroadcastd(dst, Xmm(dst.getIdx()));
    }
  }

  /// K's codes - 128 (s8) as KB[D/4][Tp] dwords (4 dims of one key: the
  /// s8 operand of vpdpbusd against 4 broadcast bytes of a Q row), keys
  /// [T, Tp) zero, in KT's place; then the scores' column terms
  /// m_q (sum_d b + D beta_k) as Tp s32 after it (kColumnTerms). Blocks of
  /// lanes x lanes dwords transposed in registers (transpose16x16, or
  /// transpose8x8 into the upper 8 registers on AVX2).
  void transposeKeyCodes() {
    const int64_t dwords = c.headDim / 4;
    const int32_t mq = minOf(c.inputGrids[0]), bk = betaOf(c.inputGrids[1]);
    auto column = [](int64_t g) { return Vmm(kAvx512 ? g : 8 + g); };
    auto block = [&](int64_t keys) {
      for (int64_t g0 = 0; g0 < dwords; g0 += kLanes) {
        const int64_t n = std::min<int64_t>(kLanes, dwords - g0);
        // AVX2: the row mask in a register the transpose only writes later.
        if (n < kLanes)
          loadLaneMask(n, k1, Vmm(15), esi);
        for (int l = 0; l < kLanes; ++l) {
          if (l >= keys) {
            pxor(Vmm(l), Vmm(l), Vmm(l));
            continue;
          }
          Address row = ptr[rax + l * ks + g0 * 4];
          if constexpr (kAvx512) {
            if (n < kLanes)
              vmovdqu32(Zmm(l) | k1 | T_z, row);
            else
              vmovdqu32(Zmm(l), row);
            vpxord(Zmm(l), Zmm(l), constAddrBits(0x80808080u));
          } else {
            if (n < kLanes)
              vpmaskmovd(Vmm(l), Vmm(15), row);
            else
              vmovdqu(Vmm(l), row);
            vpxor(Vmm(l), Vmm(l), constAddrBits(0x80808080u));
          }
        }
        if constexpr (kAvx512)
          transpose16x16();
        else
          transpose8x8();
        for (int64_t g = 0; g < n; ++g)
          movdqu(ptr[rcx + (g0 + g) * tp * 4], column(g));
      }
      // The column terms of these keys from the stored groups.
      pxor(Vmm(0), Vmm(0), Vmm(0));
      loadOnes(Vmm(1));
      for (int64_t g = 0; g < dwords; ++g)
        dpbusd(Vmm(0), Vmm(1), ptr[rcx + g * tp * 4]);
      vpaddd(Vmm(0), Vmm(0), constAddrBits(static_cast<uint32_t>(c.headDim * bk)));
      vpmulld(Vmm(0), Vmm(0), constAddrBits(static_cast<uint32_t>(mq)));
      movdqu(ptr[rcx + c.headDim * tp], Vmm(0));
    };
    keyBlocks(kLanes, ks, block);
  }
  /// block(keys) for each block of `n` keys of the head (a loop over the
  /// full blocks, then the rest), rax at the block's first K row (rows
  /// `rowBytes` apart), rcx at its column of the transposed keys (r10).
  template <typename F> void keyBlocks(int64_t n, int64_t rowBytes, F block) {
    mov(rax, r9);
    mov(rcx, r10);
    if (int64_t full = c.keys / n) {
      Label loop;
      mov(rdx, full);
      L(loop);
      block(n);
      add(rax, n * rowBytes);
      add(rcx, n * 4);
      dec(rdx);
      jnz(loop, T_NEAR);
    }
    if (int64_t rest = c.keys % n)
      block(rest);
  }
  /// The scores' column terms (transposeKeyCodes), after KB.
  Address kColumnTerms(int64_t col) { return ptr[r10 + c.headDim * tp + col * 4]; }

  /// ymm0..7 (rows) transposed (columns) into ymm8..15: pairs of rows
  /// interleaved, pairs of those (each 128-bit lane a transposed 4 x 4
  /// block), then the lanes of rows 0-3 and 4-7 joined.
  void transpose8x8() {
    auto r = [](int i) { return Ymm(i); };
    auto t = [](int i) { return Ymm(8 + i); };
    transpose4x4Blocks(8, r, t);
    for (int j = 0; j < 4; ++j) {
      vperm2f128(t(j), r(j), r(j + 4), 0x20);
      vperm2f128(t(j + 4), r(j), r(j + 4), 0x31);
    }
  }

  /// V's codes - 128 (s8) as VB[ceil(T/4)][D] dwords (the same dim of 4
  /// consecutive keys: the s8 operand of vpdpbusd against 4 broadcast
  /// probability codes), keys past T zero, in V's place (r12 then points
  /// at it); then P V's column terms m_p (sum_t b + T beta_v) as D s32
  /// after the mask row (vColumnTerms).
  void packValueCodes() {
    const int64_t groups = (c.keys + 3) / 4;
    lea(rcx, ptr[r15 + c.seq * 4]);
    mov(rax, r12);
    mov(r12, rcx);
    // 4 rows x 16 dims of bytes interleaved: bytes of rows 0/1 and 2/3,
    // then words of those, 4 dims a register.
    auto group = [&](int64_t keys) {
      for (int64_t d0 = 0; d0 < c.headDim; d0 += 16) {
        for (int l = 0; l < 4; ++l) {
          if (l >= keys) {
            vpxor(Xmm(l), Xmm(l), Xmm(l));
          } else if constexpr (kAvx512) {
            vmovdqu8(Xmm(l), ptr[rax + l * vs + d0]);
            vpxord(Xmm(l), Xmm(l), constAddrBits(0x80808080u));
          } else {
            vmovdqu(Xmm(l), ptr[rax + l * vs + d0]);
            vpxor(Xmm(l), Xmm(l), constAddrBits(0x80808080u));
          }
        }
        vpunpcklbw(xmm4, xmm0, xmm1);
        vpunpckhbw(xmm5, xmm0, xmm1);
        vpunpcklbw(xmm6, xmm2, xmm3);
        vpunpckhbw(xmm7, xmm2, xmm3);
        vpunpcklwd(xmm0, xmm4, xmm6);
        vpunpckhwd(xmm1, xmm4, xmm6);
        vpunpcklwd(xmm2, xmm5, xmm7);
        vpunpckhwd(xmm3, xmm5, xmm7);
        for (int i = 0; i < 4; ++i)
          vmovdqu(ptr[rcx + (d0 + 4 * i) * 4], Xmm(i));
      }
    };
    if (int64_t full = c.keys / 4) {
      Label loop;
      mov(rdx, full);
      L(loop);
      group(4);
      add(rax, 4 * vs);
      add(rcx, c.headDim * 4);
      dec(rdx);
      jnz(loop, T_NEAR);
    }
    if (int64_t rest = c.keys % 4)
      group(rest);
    // int8Products: the probabilities' zero point is 0, and with it the
    // column terms (weightedValues does not read them).
    if (c.int8Products)
      return;
    // Column sums of the stored groups, a vector of dims at a time (a loop
    // over the groups: code size independent of T).
    const int32_t mp = minOf(c.probs), bv = betaOf(c.inputGrids[2]);
    loadOnes(Vmm(1));
    for (int64_t d0 = 0; d0 < c.headDim; d0 += kLanes) {
      pxor(Vmm(0), Vmm(0), Vmm(0));
      Label loop;
      mov(rax, r12);
      mov(rdx, groups);
      L(loop);
      dpbusd(Vmm(0), Vmm(1), ptr[rax + d0 * 4]);
      add(rax, c.headDim * 4);
      dec(rdx);
      jnz(loop, T_NEAR);
      vpaddd(Vmm(0), Vmm(0), constAddrBits(static_cast<uint32_t>(c.keys * bv)));
      vpmulld(Vmm(0), Vmm(0), constAddrBits(static_cast<uint32_t>(mp)));
      movdqu(vColumnTerms(d0), Vmm(0));
    }
  }
  /// P V's column terms (packValueCodes), after the mask row.
  Address vColumnTerms(int64_t d) { return afterValues(c.keys * c.headDim + tp + d); }

  /// eax = the sum of v's s32 lanes (v is clobbered; t: a temporary).
  void horizontalSumToEax(const Vmm &v, const Vmm &t) { horizontalToEax(v, t, /*max=*/false); }
  /// eax = the s32 sum (or, `max`, the signed maximum) of v's lanes (v and
  /// t clobbered).
  void horizontalToEax(const Vmm &v, const Vmm &t, bool max) {
    const Xmm xv(v.getIdx()), xt(t.getIdx());
    auto combine = [&](const auto &a, const auto &b) {
      if (max)
        vpmaxsd(a, a, b);
      else
        vpaddd(a, a, b);
    };
    if constexpr (kAvx512) {
      vextracti64x4(Ymm(t.getIdx()), v, 1);
      combine(Ymm(v.getIdx()), Ymm(t.getIdx()));
      vextracti32x4(xt, Ymm(v.getIdx()), 1);
    } else {
      vextracti128(xt, v, 1);
    }
    combine(xv, xt);
    vpshufd(xt, xv, 0x4e);
    combine(xv, xt);
    vpshufd(xt, xv, 0xb1);
    combine(xv, xt);
    vmovd(eax, xv);
  }

  /// The scores' row terms beta_k sum_d a (+ D m_q beta_k is in the column
  /// terms) of every Q row, as s32 in inv (which the softmax overwrites
  /// row by row after the scores have read them): byte sums by vpsadbw.
  void queryRowTerms() {
    const int32_t bk = betaOf(c.inputGrids[1]);
    const int64_t chunk = kLanes * 4, tail = c.headDim % chunk; // bytes
    pxor(Vmm(2), Vmm(2), Vmm(2));
    if constexpr (kAvx512) {
      if (tail) {
        mov(rsi, (uint64_t(1) << tail) - 1);
        kmovq(k1, rsi);
      }
    }
    mov(rbx, r8);  // q row
    mov(rcx, r15); // inv
    mov(rdx, c.seq);
    Label loop;
    L(loop);
    pxor(Vmm(0), Vmm(0), Vmm(0));
    for (int64_t d0 = 0; d0 < c.headDim; d0 += chunk) {
      if (c.headDim - d0 >= chunk)
        movdqu(Vmm(1), ptr[rbx + d0]);
      else if constexpr (kAvx512)
        vmovdqu8(Zmm(1) | k1 | T_z, ptr[rbx + d0]);
      else // a 16-byte tail (D is a multiple of 16), the upper lane zero
        vmovdqu(xmm1, ptr[rbx + d0]);
      vpsadbw(Vmm(1), Vmm(1), Vmm(2));
      vpaddq(Vmm(0), Vmm(0), Vmm(1));
    }
    // The qword sums are below 2^32: the dword sum is theirs.
    horizontalSumToEax(Vmm(0), Vmm(1));
    imul(eax, eax, bk);
    mov(ptr[rcx], eax);
    add(rbx, qs);
    add(rcx, 4);
    dec(rdx);
    jnz(loop, T_NEAR);
  }

  /// KT[d][t] = k[t][d]; columns [T, Tp) are zero.
  void transposeKeys() {
    if constexpr (kAvx512) {
      transposeKeyBlocks();
      return;
    }
    Label loop;
    mov(rax, r9);  // k row t
    mov(rcx, r10); // KT column t
    mov(rdx, c.keys);
    L(loop);
    for (int64_t d = 0; d < c.headDim; ++d) {
      mov(esi, ptr[rax + d * 4]);
      mov(ptr[rcx + d * tp * 4], esi);
    }
    add(rax, ks * 4);
    add(rcx, 4);
    dec(rdx);
    jnz(loop, T_NEAR);
    for (int64_t t = c.keys; t < tp; ++t)
      for (int64_t d = 0; d < c.headDim; ++d)
        mov(dword[r10 + (d * tp + t) * 4], 0);
  }

  /// transposeKeys on AVX-512: blocks of 16 keys x 16 dims transposed in
  /// registers (the scalar copy was ~15 % of the kernel in MiniLM). The
  /// last block's missing keys are zero rows, which write the zero columns
  /// [T, Tp). Uses every zmm register; D is a multiple of 16 (supports).
  void transposeKeyBlocks() {
    const int64_t rowBytes = ks * 4;
    auto block = [&](int64_t keys) {
      for (int64_t d0 = 0; d0 < c.headDim; d0 += 16) {
        for (int l = 0; l < 16; ++l) {
          if (l < keys)
            vmovups(Zmm(l), ptr[rax + l * rowBytes + d0 * 4]);
          else
            vpxord(Zmm(l), Zmm(l), Zmm(l));
        }
        transpose16x16();
        for (int j = 0; j < 16; ++j) {
          if (scaledKeys)
            vmulps(Zmm(j), Zmm(j), constAddr(c.scale * kLog2e));
          vmovups(ptr[rcx + (d0 + j) * tp * 4], Zmm(j));
        }
      }
    };
    keyBlocks(16, rowBytes, block);
  }

  /// The first two steps of a transpose of rows r(0..n-1) (t: temporaries):
  /// pairs of rows interleaved, then pairs of those, so that each 128-bit
  /// lane of r(i) holds one transposed 4 x 4 block.
  template <typename R, typename T> void transpose4x4Blocks(int n, R r, T t) {
    for (int i = 0; i < n; i += 2) {
      vunpcklps(t(i), r(i), r(i + 1));
      vunpckhps(t(i + 1), r(i), r(i + 1));
    }
    for (int i = 0; i < n; i += 4) {
      vshufps(r(i), t(i), t(i + 2), 0x44);
      vshufps(r(i + 1), t(i), t(i + 2), 0xee);
      vshufps(r(i + 2), t(i + 1), t(i + 3), 0x44);
      vshufps(r(i + 3), t(i + 1), t(i + 3), 0xee);
    }
  }

  /// zmm0..15 (rows) transposed in place (columns), zmm16..31 temporaries:
  /// pairs of rows interleaved, then pairs of those (each 128-bit lane a
  /// transposed 4 x 4 block), then the 4 x 4 arrangement of lanes across
  /// each group of four registers and across the two halves.
  void transpose16x16() {
    auto r = [](int i) { return Zmm(i); };
    auto t = [](int i) { return Zmm(16 + i); };
    transpose4x4Blocks(16, r, t);
    for (int h = 0; h < 16; h += 8)
      for (int i = 0; i < 4; ++i) {
        vshuff32x4(t(h + i), r(h + i), r(h + i + 4), 0x88);
        vshuff32x4(t(h + i + 4), r(h + i), r(h + i + 4), 0xdd);
      }
    for (int i = 0; i < 8; ++i) {
      vshuff32x4(r(i), t(i), t(i + 8), 0x88);
      vshuff32x4(r(i + 8), t(i), t(i + 8), 0xdd);
    }
  }

  /// V's rows of this head copied into one contiguous block after inv, so
  /// that P V reads them from consecutive lines: in place they lie vs floats
  /// apart, a stride that maps the head's rows onto a few L1 sets (MiniLM:
  /// 16 of 64), and every pass over them missed L1. r12 then points at the
  /// copy. (Heads-first V is contiguous already.)
  void packValues() {
    const int64_t dv = c.headDim / kLanes;
    const int unroll = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(8 / dv, c.keys)));
    lea(rcx, ptr[r15 + c.seq * 4]);
    mov(rax, r12);
    mov(r12, rcx);
    auto rows = [&](int n) {
      for (int t = 0; t < n; ++t)
        for (int64_t v = 0; v < dv; ++v) {
          Vmm x((t * dv + v) % 8);
          vmovups(x, ptr[rax + t * vs * 4 + v * kLanes * 4]);
          vmovups(ptr[rcx + (t * c.headDim + v * kLanes) * 4], x);
        }
      add(rax, n * vs * 4);
      add(rcx, n * c.headDim * 4);
    };
    if (int64_t blocks = c.keys / unroll) {
      Label loop;
      mov(rdx, blocks);
      L(loop);
      rows(unroll);
      dec(rdx);
      jnz(loop, T_NEAR);
    }
    if (int rest = static_cast<int>(c.keys % unroll))
      rows(rest);
  }

  /// The mask vector of `valid` (1..lanes) keys at m into dst: the one
  /// value of a mask that broadcasts along keys, else a (masked) load, the
  /// lanes past the keys 0 (or, broadcast, the value: the softmax sets
  /// those lanes to -inf either way). AVX2 builds its lane mask in tmp.
  void loadMask(const Vmm &dst, const Address &m, int64_t valid, const Vmm &tmp) {
    if (c.maskStrides[3] == 0) {
      vbroadcastss(dst, m);
    } else if (valid == kLanes) {
      vmovups(dst, m);
    } else if constexpr (kAvx512) {
      mov(eax, (1u << valid) - 1);
      kmovw(k1, eax);
      vmovups(dst | k1 | T_z, m);
    } else {
      vmovups(tmp, laneMask(valid, kLanes));
      vmaskmovps(dst, tmp, m);
    }
  }

  /// The mask row of this (batch, head) times log2(e) into the scratch
  /// after V (maskRowAddress).
  void writeMaskRow() {
    for (int64_t col = 0; col < tp; col += kLanes) {
      loadMask(Vmm(0), ptr[r11 + (c.maskStrides[3] ? col * 4 : 0)],
               std::min<int64_t>(kLanes, c.keys - col), Vmm(1));
      vmulps(Vmm(0), Vmm(0), constAddr(kLog2e));
      // A mask of about the lowest float (what exporters and onnxruntime's
      // optimizer use) overflows to -inf times log2(e): keep it finite, so
      // a row masked throughout averages its keys, as onnxruntime's does.
      // (The bound first: a NaN in the mask stays NaN.)
      loadConstant(Vmm(1), kLowest);
      vmaxps(Vmm(0), Vmm(1), Vmm(0));
      vmovups(maskRowAddress(col), Vmm(0));
    }
  }
  /// After V's copy (packValues).
  Address maskRowAddress(int64_t col) { return afterValues(c.keys * c.headDim + col); }
  /// `floats` into V's copy in scratch: from r12 once V is copied there,
  /// else from inv (r15), as a heads-first V is read in place.
  Address afterValues(int64_t floats) {
    return valuesCopied ? ptr[r12 + floats * 4] : ptr[r15 + (c.seq + floats) * 4];
  }

  /// Score rows into P (scaled, masked, padded with -inf), then softmax in
  /// place with 1/sum kept in inv.
  void scoresAndSoftmax() {
    const int rowsPerBlock = kAvx512 ? 3 : 2;
    const int chunkVecs = kAvx512 ? 8 : 6;
    int64_t fullBlocks = c.seq / rowsPerBlock, rest = c.seq % rowsPerBlock;
    // rbx: q row pointer; rcx: P row pointer; rdx: mask row pointer; rbp: row index.
    mov(rbx, r8);
    mov(rcx, r14);
    mov(rdx, r11);
    mov(rsi, r15); // inv row pointer
    // A whole score row fits in the tile's registers: the softmax runs on
    // them before P is stored (the rows' dependency chains interleave,
    // where row by row through memory each row waited on its own maximum,
    // exponentials and sum).
    const bool inRegisters = kAvx512 && tp <= chunkVecs * kLanes && !c.qlinear;
    if (c.qlinear && !scaledShifts)
      lea(rdi, dataAddr(std::vector<uint32_t>(scaledCodes.begin(), scaledCodes.end())));
    // With rowKeys, edi holds the block's keys: chunks past them are
    // skipped, and so are their vectors in the softmax.
    const bool skips = limited && !inRegisters && tp > chunkVecs * kLanes;
    auto block = [&](int rows, bool inLoop) {
      if (inRegisters) {
        scoreTile(rows, static_cast<int>(tp / kLanes), 0, /*softmax=*/true);
        return;
      }
      if (skips)
        loadBlockKeys(valueKeys(), rowsPerBlock, inLoop);
      Label skipped;
      for (int64_t c0 = 0; c0 < tp; c0 += chunkVecs * kLanes) {
        int vecs = std::min<int64_t>(chunkVecs, (tp - c0) / kLanes);
        if (skips && c0 > 0) {
          cmp(edi, static_cast<uint32_t>(c0));
          jbe(skipped, T_NEAR);
        }
        scoreTile(rows, vecs, c0);
      }
      L(skipped);
      if (c.qlinear) {
        qlinearSoftmaxRows(rows);
        return;
      }
      for (int r = 0; r < rows; ++r)
        softmaxRow(r, skips ? chunkVecs : 0);
    };
    // Each block of rows computes only the key vectors its rows' P V blocks
    // read: consecutive blocks that take as many are one loop (a tile's
    // code each). Masks whose counts go up and down more often than a
    // causal one's (at most one loop per vector) keep whole rows.
    std::vector<std::pair<int, int64_t>> runs; // (vectors, blocks)
    const std::vector<int64_t> keys =
        limited && inRegisters ? valueKeys() : std::vector<int64_t>{};
    auto vectorsOf = [&](int64_t first, int rows) {
      return static_cast<int>((mostOf(keys, first, rows) + kLanes - 1) / kLanes);
    };
    for (int64_t b = 0; !keys.empty() && b < fullBlocks; ++b) {
      const int vecs = vectorsOf(b * rowsPerBlock, rowsPerBlock);
      if (runs.empty() || runs.back().first != vecs)
        runs.push_back({vecs, 0});
      ++runs.back().second;
    }
    if (!keys.empty() && runs.size() <= static_cast<size_t>(chunkVecs)) {
      for (auto [vecs, blocks] : runs) {
        Label loop;
        mov(rbp, blocks);
        L(loop);
        scoreTile(rowsPerBlock, vecs, 0, /*softmax=*/true);
        advanceRows(rowsPerBlock);
        dec(rbp);
        jnz(loop, T_NEAR);
      }
      if (rest) {
        scoreTile(static_cast<int>(rest), vectorsOf(fullBlocks * rowsPerBlock, rowsPerBlock), 0,
                  /*softmax=*/true);
        advanceRows(static_cast<int>(rest));
      }
      return;
    }
    if (fullBlocks) {
      Label loop;
      mov(rbp, fullBlocks);
      L(loop);
      block(rowsPerBlock, true);
      advanceRows(rowsPerBlock);
      dec(rbp);
      jnz(loop, T_NEAR);
    }
    if (rest) {
      block(rest, false);
      advanceRows(rest);
    }
  }

  void advanceRows(int rows) {
    add(rbx, rows * qs * eb);
    add(rcx, rows * tp * 4);
    add(rsi, rows * 4);
    if (c.mask)
      add(rdx, rows * c.maskStrides[2] * 4);
  }

  Vmm acc(int r, int v, int vecs) { return Vmm(r * vecs + v); }

  /// rows x vecs tile of scores at key columns [c0, c0 + vecs*lanes); with
  /// `softmax`, the tile is whole rows and is stored as probabilities
  /// (softmaxInRegisters).
  void scoreTile(int rows, int vecs, int64_t c0, bool softmax = false) {
    Vmm kv = Vmm(rows * vecs), q0 = Vmm(rows * vecs + 1);
    auto qReg = [&](int r) { return Vmm(q0.getIdx() + r); };
    for (int r = 0; r < rows; ++r)
      for (int v = 0; v < vecs; ++v) {
        if (u8) {
          // The column terms plus the row's term (in inv; AVX2 broadcasts
          // it into q0 first).
          movdqu(acc(r, v, vecs), kColumnTerms(c0 + v * kLanes));
          if (c.int8Products)
            continue;
          if constexpr (kAvx512) {
            vpaddd(acc(r, v, vecs), acc(r, v, vecs), ptr_b[rsi + r * 4]);
          } else {
            vpbroadcastd(q0, ptr[rsi + r * 4]);
            vpaddd(acc(r, v, vecs), acc(r, v, vecs), q0);
          }
        } else if (maskRow) {
          vmovups(acc(r, v, vecs), maskRowAddress(c0 + v * kLanes));
        } else {
          vxorps(acc(r, v, vecs), acc(r, v, vecs), acc(r, v, vecs));
        }
      }
    for (int64_t g = 0; u8 && g < c.headDim / 4; ++g) {
      for (int r = 0; r < rows; ++r)
        vpbroadcastd(qReg(r), ptr[rbx + r * qs + g * 4]);
      for (int v = 0; v < vecs; ++v) {
        movdqu(kv, ptr[r10 + (g * tp + c0 + v * kLanes) * 4]);
        for (int r = 0; r < rows; ++r)
          dpbusd(acc(r, v, vecs), qReg(r), kv);
      }
    }
    for (int64_t d = 0; !u8 && d < c.headDim; ++d) {
      for (int r = 0; r < rows; ++r)
        vbroadcastss(qReg(r), ptr[rbx + r * qs * 4 + d * 4]);
      for (int v = 0; v < vecs; ++v) {
        vmovups(kv, ptr[r10 + (d * tp + c0 + v * kLanes) * 4]);
        for (int r = 0; r < rows; ++r)
          vfmadd231ps(acc(r, v, vecs), kv, qReg(r));
      }
    }
    // (grid,) scale, (grid,) mask, (grid,) store, in groups of as many
    // vectors as there are free registers, each step for the whole group
    // before the next: one vector's steps form a dependency chain (~110
    // cycles through three grids) too long for the scheduler to overlap
    // enough of them when emitted vector after vector.
    const int firstTemp = q0.getIdx();
    const int group = kRegs - firstTemp;
    for (int g0 = 0; g0 < rows * vecs; g0 += group) {
      const int n = std::min(group, rows * vecs - g0);
      auto row = [&](int i) { return (g0 + i) / vecs; };
      auto col = [&](int i) { return c0 + (g0 + i) % vecs * kLanes; };
      auto x = [&](int i) { return acc(row(i), (g0 + i) % vecs, vecs); };
      auto temp = [&](int i) { return Vmm(firstTemp + i); };
      if (c.qlinear) {
        if constexpr (kAvx512) {
          qlinearLogitCodes(n, x, temp, row, col, kv);
          for (int i = 0; i < n; ++i)
            vmovdqu32(ptr[rcx + row(i) * tp * 4 + col(i) * 4], x(i));
        }
        continue;
      }
      if (u8)
        for (int i = 0; i < n; ++i) {
          vcvtdq2ps(x(i), x(i));
          if (c.int8Products) {
            if (i == 0 || row(i) != row(i - 1))
              vbroadcastss(kv, rowFactor(row(i))); // (kv free until the mask)
            vmulps(x(i), x(i), kv);
          } else {
            vmulps(x(i), x(i), constAddr(c.inputGrids[0].scale * c.inputGrids[1].scale));
          }
        }
      if (scaledGridFollows) {
        // Scores rounded on their grid, then scaled and rounded again,
        // land on the same integer: its value on the second grid.
        emitGrid(n, x, temp, c.scores, c.scaled.scale);
      } else {
        emitGrid(n, x, temp, c.scores);
        if (!scaledKeys && !c.int8Products)
          for (int i = 0; i < n; ++i)
            vmulps(x(i), x(i), constAddr(base2 ? c.scale * kLog2e : c.scale));
        emitGrid(n, x, temp, c.scaled);
      }
      if (c.mask && !maskRow)
        for (int i = 0; i < n; ++i) {
          int64_t valid = std::min<int64_t>(kLanes, c.keys - col(i));
          if (valid <= 0)
            continue;
          // x += mask (kv holds it), times log2(e) in base 2.
          loadMask(kv,
                   ptr[rdx + row(i) * c.maskStrides[2] * 4 +
                       (c.maskStrides[3] ? col(i) * 4 : 0)],
                   valid, temp(0));
          if (base2) {
            vfmadd231ps(x(i), kv, constAddr(kLog2e));
            // Finite, as in writeMaskRow; a NaN score stays NaN.
            loadConstant(kv, kLowest);
            vmaxps(x(i), kv, x(i));
          } else {
            vaddps(x(i), x(i), kv);
          }
        }
      emitGrid(n, x, temp, c.logits);
      if (!softmax)
        for (int i = 0; i < n; ++i)
          vmovups(ptr[rcx + row(i) * tp * 4 + col(i) * 4], x(i));
    }
    if (softmax)
      softmaxInRegisters(rows, vecs);
  }

  /// x(i) = grid(x(i)) for i < n (none, or a FakeQuant: emitFakeQuants,
  /// its integer's value at `valueScale`, 0: its own step).
  template <typename X, typename T>
  void emitGrid(int n, X x, T temp, const Activation &grid, float valueScale = 0) {
    if (grid.kind == Activation::FakeQuant)
      emitFakeQuants<Vmm>(n, x, temp, grid, valueScale);
    else
      for (int i = 0; i < n; ++i)
        emitActivation(x(i), grid, temp(i), temp(i), temp(i), temp(i));
  }

  /// The softmax of whole score rows held in acc(r, v) (zmm), stored to P
  /// with 1/sum in inv, as softmaxRow computes it. Each row's maximum and
  /// sum run as two interleaved chains. With a grid on the probabilities
  /// they stay in registers until the sum is known, and are stored
  /// normalized and rounded (inv 1). Uses zmm24..31, free after the score
  /// tile.
  void softmaxInRegisters(int rows, int vecs) {
    if constexpr (!kAvx512) {
      assert(false && "the softmax in registers is AVX-512 only (scoresAndSoftmax)");
      return;
    }
    auto a = [&](int r, int v) { return acc(r, v, vecs); };
    auto rowReg = [](int r) { return Vmm(24 + r); }; // max, then sum
    auto auxReg = [](int r) { return Vmm(27 + r); };
    Vmm t0 = Vmm(30), t1 = Vmm(31);
    if (int64_t valid = c.keys - (vecs - 1) * kLanes; valid < kLanes) {
      // The last vector's lanes past T: -inf, as softmaxRow pads them
      // (none where a causal row skips the row's last vectors).
      mov(eax, 0xffffu & ~((1u << valid) - 1));
      kmovw(k2, eax);
      for (int r = 0; r < rows; ++r)
        vbroadcastss(a(r, vecs - 1) | k2, constScalar(-INFINITY));
    }
    // Two partial chains (even and odd vectors) per row, then combined.
    auto reduce = [&](bool max) {
      for (int r = 0; r < rows; ++r) {
        vmovaps(rowReg(r), a(r, 0));
        if (vecs > 1)
          vmovaps(auxReg(r), a(r, 1));
      }
      for (int v = 2; v < vecs; ++v)
        for (int r = 0; r < rows; ++r) {
          Vmm d = v % 2 ? auxReg(r) : rowReg(r);
          if (max)
            vmaxps(d, d, a(r, v));
          else
            vaddps(d, d, a(r, v));
        }
      for (int r = 0; r < rows; ++r) {
        if (vecs > 1) {
          if (max)
            vmaxps(rowReg(r), rowReg(r), auxReg(r));
          else
            vaddps(rowReg(r), rowReg(r), auxReg(r));
        }
        horizontal(rowReg(r), t0, max);
      }
    };
    const bool probsGrid = c.probs.kind != Activation::None;
    reduce(/*max=*/true);
    for (int v = 0; v < vecs; ++v)
      for (int r = 0; r < rows; ++r) {
        vsubps(a(r, v), a(r, v), rowReg(r));
        emitSoftmaxExp(a(r, v), t0, t1);
        if (!probsGrid)
          vmovups(ptr[rcx + r * tp * 4 + v * kLanes * 4], a(r, v));
      }
    reduce(/*max=*/false);
    loadConstant(t1, 1.f);
    for (int r = 0; r < rows; ++r) {
      vdivps(rowReg(r), t1, rowReg(r));
      vmovss(ptr[rsi + r * 4], Xmm(probsGrid ? t1.getIdx() : rowReg(r).getIdx()));
    }
    if (!probsGrid)
      return;
    // Normalized and rounded in groups (as in scoreTile), with auxReg and
    // t0, t1 (zmm27..31) as temporaries. With u8 inputs they are stored as
    // their code indices (u8) in the first Tp bytes of their P rows, keys
    // past T 0, and each row's term beta_v sum_t a goes into inv (with
    // int8Products 1 / sum_t a, storeRowTerm): the sums gather in each
    // row's first vector once it is stored.
    const int64_t valid = c.keys - (tp - kLanes);
    if (u8 && valid < kLanes)
      loadLaneMask(valid, k6, t0, eax);
    const int group = 5;
    for (int g0 = 0; g0 < rows * vecs; g0 += group) {
      const int n = std::min(group, rows * vecs - g0);
      auto row = [&](int i) { return (g0 + i) % rows; };
      auto vec = [&](int i) { return (g0 + i) / rows; };
      auto x = [&](int i) { return a(row(i), vec(i)); };
      for (int i = 0; i < n; ++i) {
        if (c.int8Products)
          vmulps(x(i), x(i), constAddr(255.f));
        else
          vmulps(x(i), rowReg(row(i)), x(i));
      }
      if (!u8) {
        emitGrid(n, x, [](int i) { return Vmm(27 + i); }, c.probs);
        for (int i = 0; i < n; ++i)
          vmovups(ptr[rcx + row(i) * tp * 4 + vec(i) * kLanes * 4], x(i));
        continue;
      }
      if constexpr (kAvx512) {
        for (int i = 0; i < n; ++i) {
          if (c.int8Products)
            vcvtps2dq(x(i), x(i) | T_rn_sae);
          else
            emitProbabilityIndex(x(i), Vmm(27 + i));
        }
        for (int i = 0; i < n; ++i) {
          // (The keys past T; a block of rows that skips its masked keys
          // stops before them.)
          if (vec(i) == vecs - 1 && vecs * kLanes == tp && valid < kLanes)
            vmovdqa32(x(i) | k6 | T_z, x(i));
          vpmovdb(ptr[rcx + row(i) * tp * 4 + vec(i) * kLanes], x(i));
          if (vec(i) > 0)
            vpaddd(a(row(i), 0), a(row(i), 0), x(i));
        }
      }
    }
    for (int r = 0; u8 && r < rows; ++r) {
      horizontalSumToEax(a(r, 0), Vmm(27));
      storeRowTerm(r, Xmm(27), Xmm(28));
    }
  }

  /// qlinear: the tile's exact s32 sums of Q K^T in x(i) as the masked
  /// scores' codes (s32): the scores' codes in one multiply
  /// (qlinearMatMulCode), the scaled scores' (a shift and bounds, or the
  /// scaledCodes table through rdi), the mask's code added as QLinearAdd
  /// does (qlinearAddCode; kv a temporary).
  template <typename X, typename T, typename R, typename C>
  void qlinearLogitCodes(int n, X x, T temp, R row, C col, const Vmm &kv) {
    for (int i = 0; i < n; ++i) {
      vcvtdq2ps(x(i), x(i));
      vmulps(x(i), x(i), constAddr(qkMultiplier));
    }
    for (int i = 0; i < n; ++i) {
      emitOneStepCodes(x(i), 0, 255, scoresZp, /*bounded=*/false);
      if (scoresZp + (scaledShifts ? scaledShift : 0))
        vpaddd(x(i), x(i), constAddrBits(scoresZp + (scaledShifts ? scaledShift : 0)));
    }
    if (scaledShifts) {
      for (int i = 0; i < n; ++i) {
        if (scaledLo > 0 || scaledShift < 0)
          vpmaxsd(x(i), x(i), constAddrBits(scaledLo));
        if (scaledHi < 255 || scaledShift > 0)
          vpminsd(x(i), x(i), constAddrBits(scaledHi));
      }
    } else {
      for (int i = 0; i < n; ++i) {
        kxnorw(k1, k1, k1);
        vpgatherdd(temp(i) | k1, ptr[rdi + x(i) * 4]);
        vmovdqa32(x(i), temp(i));
      }
    }
    if (!c.mask)
      return;
    for (int i = 0; i < n; ++i) {
      if (codeOffset)
        vpsubd(x(i), x(i), constAddrBits(codeOffset));
      vcvtdq2ps(x(i), x(i));
      if (c.maskStrides[2] == 0) {
        vmovups(temp(i), maskRowAddress(col(i)));
      } else {
        const int64_t valid = std::max<int64_t>(1, std::min<int64_t>(kLanes, c.keys - col(i)));
        loadMask(temp(i),
                 ptr[rdx + row(i) * c.maskStrides[2] * 4 + (c.maskStrides[3] ? col(i) * 4 : 0)],
                 valid, kv);
        emitMaskTerm(temp(i), kv);
      }
      vfmadd132ps(x(i), temp(i), constAddr(maskSum.ratioA));
      vcvtps2dq(x(i), x(i));
      vpmaxsd(x(i), x(i), constAddrBits(static_cast<uint32_t>(-codeOffset)));
      vpminsd(x(i), x(i), constAddrBits(255 - codeOffset));
      if (codeOffset)
        vpaddd(x(i), x(i), constAddrBits(codeOffset));
    }
  }

  /// qlinear: P rows [0, rows) (relative to rcx) hold the masked scores'
  /// codes (s32); each becomes its probabilities' codes (u8, in the first
  /// Tp bytes, keys past T 0) as onnxruntime's QLinearSoftmax computes
  /// them, with the row's term beta_v sum(codes) in inv: the table index
  /// code + 255 - max, onnxruntime's exponential there, the row's f32 sum
  /// in key order (scalar adds, the rows' chains interleaved: r9 the key's
  /// offset, r8 the table), then min(255, round(e fl(c / sum)) + zp).
  void qlinearSoftmaxRows(int rows) {
    if constexpr (kAvx512) {
      const int64_t n = tp / kLanes;
      auto at = [&](int r, int64_t bytes) { return rcx + r * tp * 4 + bytes; };
      const Zmm mx = Zmm(0), t = Zmm(1), y = Zmm(2), sums = Zmm(3);
      for (int r = 0; r < rows; ++r) {
        for (int64_t k = c.keys; k < tp; ++k)
          mov(dword[at(r, k * 4)], 0); // below every maximum, not summed
        vmovdqu32(mx, ptr[at(r, 0)]);
        for (int64_t i = 1; i < n; ++i)
          vpmaxsd(mx, mx, ptr[at(r, i * kLanes * 4)]);
        horizontalToEax(mx, t, /*max=*/true);
        neg(eax);
        add(eax, 255);
        vpbroadcastd(mx, eax); // 255 - max
        for (int64_t i = 0; i < n; ++i) {
          vpaddd(y, mx, ptr[at(r, i * kLanes * 4)]);
          vmovdqu32(ptr[at(r, i * kLanes * 4)], y);
        }
      }
      lea(r8, dataAddr(expWords())); // (the q head's base, no longer read)
      for (int r = 0; r < rows; ++r)
        vxorps(Xmm(4 + r), Xmm(4 + r), Xmm(4 + r));
      Label key;
      xor_(r9d, r9d);
      L(key);
      for (int r = 0; r < rows; ++r) {
        mov(eax, ptr[rcx + r * tp * 4 + r9]);
        vmovss(Xmm(8 + r), ptr[r8 + rax * 4]);
        vaddss(Xmm(4 + r), Xmm(4 + r), Xmm(8 + r));
        vmovss(ptr[rcx + r * tp * 4 + r9], Xmm(8 + r));
      }
      add(r9, 4);
      cmp(r9, c.keys * 4);
      jne(key, T_NEAR);
      const int64_t valid = c.keys - (tp - kLanes);
      if (valid < kLanes)
        loadLaneMask(valid, k6, t, eax);
      for (int r = 0; r < rows; ++r) {
        // The row's factor c / sum (qlinearSoftmaxFactor).
        vmovss(Xmm(mx.getIdx()), constScalar(softmaxMultiplier));
        vdivss(Xmm(mx.getIdx()), Xmm(mx.getIdx()), Xmm(4 + r));
        vbroadcastss(mx, Xmm(mx.getIdx()));
        vpxord(sums, sums, sums);
        for (int64_t i = 0; i < n; ++i) {
          vmulps(y, mx, ptr[at(r, i * kLanes * 4)]);
          vcvtps2dq(y, y);
          if (probsZp)
            vpaddd(y, y, constAddrBits(probsZp));
          vpminsd(y, y, constAddrBits(255));
          if (i == n - 1 && valid < kLanes)
            vmovdqa32(y | k6 | T_z, y);
          vpmovdb(ptr[rcx + r * tp * 4 + i * kLanes], y);
          vpaddd(sums, sums, y);
        }
        horizontalSumToEax(sums, t);
        imul(eax, eax, betaOf(c.inputGrids[2]));
        mov(ptr[rsi + r * 4], eax);
      }
    }
  }
  std::vector<uint32_t> expWords() const {
    std::vector<uint32_t> words(256);
    std::memcpy(words.data(), expTable.data(), 256 * 4);
    return words;
  }

  /// Softmax of P row r (relative to rcx) over Tp, padding set to -inf first.
  /// chunkVecs > 0: the row's keys end at edi; the chunks of that many
  /// vectors from there on were not computed and are passed over.
  void softmaxRow(int r, int64_t chunkVecs = 0) {
    for (int64_t t = c.keys; t < tp; ++t)
      mov(dword[rcx + r * tp * 4 + t * 4], 0xff800000u); // -inf
    Vmm mx = Vmm(0), x = Vmm(1), t0 = Vmm(2), t1 = Vmm(3), sum = Vmm(4);
    int64_t n = tp / kLanes;
    Label maxDone, sumDone, codesDone;
    auto passOver = [&](int64_t i, Label &done) {
      if (chunkVecs && i > 0 && i % chunkVecs == 0) {
        cmp(edi, static_cast<uint32_t>(i * kLanes));
        jbe(done, T_NEAR);
      }
    };
    vmovups(mx, ptr[rcx + r * tp * 4]);
    for (int64_t i = 1; i < n; ++i) {
      passOver(i, maxDone);
      vmaxps(mx, mx, ptr[rcx + r * tp * 4 + i * kLanes * 4]);
    }
    L(maxDone);
    horizontal(mx, t0, /*max=*/true);
    vxorps(sum, sum, sum);
    for (int64_t i = 0; i < n; ++i) {
      passOver(i, sumDone);
      Address a = ptr[rcx + r * tp * 4 + i * kLanes * 4];
      vmovups(x, a);
      vsubps(x, x, mx);
      emitSoftmaxExp(x, t0, t1);
      vmovups(a, x);
      vaddps(sum, sum, x);
    }
    L(sumDone);
    horizontal(sum, t0, /*max=*/false);
    // inv[row] = 1 / sum
    loadConstant(t0, 1.f);
    vdivps(t0, t0, sum);
    if (c.probs.kind == Activation::None) {
      vmovss(ptr[rsi + r * 4], Xmm(t0.getIdx()));
      return;
    }
    if (u8) {
      // Their code indices, as softmaxInRegisters stores them: each
      // vector's bytes overwrite floats already read. Keys past T are 0
      // (k6, or AVX2's lane mask in the register after sum).
      const int64_t valid = c.keys - (tp - kLanes);
      if (valid < kLanes)
        loadLaneMask(valid, k6, Vmm(5), eax);
      pxor(sum, sum, sum);
      for (int64_t i = 0; i < n; ++i) {
        passOver(i, codesDone); // (their codes 0: P V does not read them)
        if (c.int8Products) {
          // The exponentials as they are, relative to the row's largest.
          vmovups(x, ptr[rcx + r * tp * 4 + i * kLanes * 4]);
          vmulps(x, x, constAddr(255.f));
          if constexpr (kAvx512)
            vcvtps2dq(x, x | T_rn_sae);
          else
            vcvtps2dq(x, x);
        } else {
          vmulps(x, t0, ptr[rcx + r * tp * 4 + i * kLanes * 4]);
          emitProbabilityIndex(x, t1);
        }
        const Address codes = ptr[rcx + r * tp * 4 + i * kLanes];
        if constexpr (kAvx512) {
          if (i == n - 1 && valid < kLanes)
            vmovdqa32(x | k6 | T_z, x);
          vpmovdb(codes, x);
          vpaddd(sum, sum, x);
        } else {
          if (i == n - 1 && valid < kLanes)
            vpand(x, x, Vmm(5));
          vpaddd(sum, sum, x);
          emitDwordsToBytes(Ymm(x.getIdx()));
          vmovq(codes, Xmm(x.getIdx()));
        }
      }
      L(codesDone);
      horizontalSumToEax(sum, t1);
      storeRowTerm(r, Xmm(t0.getIdx()), Xmm(t1.getIdx()));
      return;
    }
    // The probabilities themselves are rounded: normalize them now, and
    // P V is not divided again.
    for (int64_t i = 0; i < n; ++i) {
      Address a = ptr[rcx + r * tp * 4 + i * kLanes * 4];
      vmulps(x, t0, a);
      emitActivation(x, c.probs, t1, t1, t1, t1);
      vmovups(a, x);
    }
    loadConstant(t1, 1.f);
    vmovss(ptr[rsi + r * 4], Xmm(t1.getIdx()));
  }

  /// With u8 inputs P V's row term of row r from its sum of probability
  /// codes in eax (times V's beta, s32); with int8Products its factor,
  /// the sum's reciprocal (f32). t0, t1: temporaries.
  void storeRowTerm(int r, const Xmm &t0, const Xmm &t1) {
    if (c.int8Products) {
      vcvtsi2ss(t0, t0, eax);
      vmovss(t1, constScalar(1.f));
      vdivss(t1, t1, t0);
      vmovss(ptr[rsi + r * 4], t1);
      return;
    }
    imul(eax, eax, betaOf(c.inputGrids[2]));
    mov(ptr[rsi + r * 4], eax);
  }

  /// x = e^x for x = a logit minus its row's maximum (<= 0): 2^x for
  /// base-2 logits, else 2^(x log2 e), where the exponential's own
  /// range reduction and polynomial cost ~16 uops and the multiplication
  /// and 2^x ~10 (the relative error of the product, |x| 2^-24, stays far
  /// below a probability grid's step).
  void emitSoftmaxExp(const Vmm &x, const Vmm &t0, const Vmm &t1) {
    if (!base2)
      vmulps(x, x, constAddr(kLog2e));
    emitExp2(x, t0, t1);
  }

  /// x = the code index of the normalized probability x on c.probs (as
  /// emitGridIndex). Without the clamps where the grid holds every
  /// probability (p in [0, 1 + 2^-22]; supports() has the lowest code <= 0,
  /// and 1 + 2^-20 must lie below the top code's rounding bound), without
  /// the subtraction where the lowest code is 0. AVX2 rounds as MXCSR says
  /// (half to even, as the runtime keeps it).
  void emitProbabilityIndex(const Vmm &x, const Vmm &t) {
    const Activation &g = c.probs;
    const bool clamp = (g.max + 0.5) * g.scale <= 1 + 0x1p-20 || !reciprocalDivides(g.scale);
    if constexpr (kAvx512)
      if (clamp) {
        emitGridIndex(x, t, g);
        return;
      }
    if (clamp) {
      vmaxps(x, x, constAddr(g.min * g.scale));
      vminps(x, x, constAddr(g.max * g.scale));
    }
    emitQuotient(t, x, g.scale);
    if constexpr (kAvx512)
      vcvtps2dq(x, t | T_rn_sae);
    else
      vcvtps2dq(x, t);
    if (g.min != 0)
      vpsubd(x, x, constAddrBits(static_cast<uint32_t>(static_cast<int32_t>(g.min))));
  }

  /// Reduces the lanes of v (max or sum) into every lane.
  void horizontal(const Vmm &v, const Vmm &t, bool max) {
    emitHorizontal(v, t, max ? Reduction::Max : Reduction::Add);
  }

  /// u8Output's grid: the block the call passes, at r9 in weightedValues
  /// (so that attentions that differ only in it share their code).
  GridConstants outputGrid() const {
    return {c.u8Output->scale, c.u8Output->zeroPoint, {{r9, 0}}};
  }

  /// q (s32, a code minus the zero point) as u8 into result row r's
  /// vector v (u8Output).
  void storeCodes(const Vmm &q, int r, int v) {
    vpaddd(q, q, gridWord(outputGrid(), OutputGridBlock::ZeroPoint));
    if constexpr (kAvx512) {
      // vpmovusdb saturates at 255 itself.
      vpmaxsd(q, q, constAddrBits(0));
      vpmovusdb(ptr[rbx + r * os + v * kLanes], q);
    } else {
      // The packs saturate at both ends (a NaN's INT_MIN + zp ends at 0).
      emitDwordsToBytes(q);
      vmovq(ptr[rbx + r * os + v * kLanes], Xmm(q.getIdx()));
    }
  }

  /// out rows = (P rows x V) * inv, in tiles of rows x (a chunk of D)
  /// vectors.
  void weightedValues() {
    int dv = c.headDim / kLanes;
    int chunk = std::min(dv, kAvx512 ? 8 : 4);
    int rowsPerBlock = valueRowsPerBlock();
    int64_t fullBlocks = c.seq / rowsPerBlock, rest = c.seq % rowsPerBlock;
    mov(rcx, r14); // P row
    mov(rbx, r13); // out row
    mov(rdx, r15); // inv
    if (c.u8Output)
      mov(r9, ptr[rsp]); // the output grid (the k head's base, no longer read)
    bool inLoop = true; // the block is the loop's (rbp its counter), not the rest
    auto tile = [&](int rows, int v0, int nv) {
      Vmm b0 = Vmm(rows * nv), pr = Vmm(rows * nv + nv);
      for (int r = 0; r < rows; ++r)
        for (int v = 0; v < nv; ++v) {
          Vmm a = Vmm(r * nv + v);
          if (u8 && !c.int8Products) {
            // The column terms plus the row's term (in inv).
            movdqu(a, vColumnTerms((v0 + v) * kLanes));
            if constexpr (kAvx512) {
              vpaddd(a, a, ptr_b[rdx + r * 4]);
            } else {
              vpbroadcastd(pr, ptr[rdx + r * 4]);
              vpaddd(a, a, pr);
            }
          } else {
            vxorps(a, a, a);
          }
        }
      Label loop;
      mov(rax, r12); // V row t (u8: VB group t / 4)
      xor_(esi, esi); // t * 4 (u8: t)
      // The rest's probabilities ~0 (int8 products: codes 0, in groups of
      // 4 keys).
      if (limited)
        loadBlockKeys(u8 ? keyGroups(c.rowKeys) : c.rowKeys, rowsPerBlock, inLoop);
      else
        mov(rdi, u8 ? (c.keys + 3) / 4 : c.keys);
      L(loop);
      for (int v = 0; v < nv; ++v)
        vmovups(Vmm(b0.getIdx() + v), ptr[rax + (v0 + v) * kLanes * 4]);
      for (int r = 0; r < rows; ++r) {
        if (u8) {
          vpbroadcastd(pr, ptr[rcx + rsi + r * tp * 4]);
          for (int v = 0; v < nv; ++v)
            dpbusd(Vmm(r * nv + v), pr, Vmm(b0.getIdx() + v));
          continue;
        }
        vbroadcastss(pr, ptr[rcx + rsi + r * tp * 4]);
        for (int v = 0; v < nv; ++v)
          vfmadd231ps(Vmm(r * nv + v), Vmm(b0.getIdx() + v), pr);
      }
      add(rax, c.headDim * 4);
      add(rsi, 4);
      dec(rdi);
      jnz(loop, T_NEAR);
      for (int r = 0; r < rows && c.qlinear; ++r)
        for (int v = 0; v < nv; ++v) {
          // The output's code in one multiply (QLinearMatMul), as its value.
          const Vmm a = Vmm(r * nv + v);
          vcvtdq2ps(a, a);
          vmulps(a, a, constAddr(pvMultiplier));
          emitOneStepCodes(a, 0, 255, outputZp, /*bounded=*/false);
          if (c.u8Output) {
            storeCodes(a, r, v0 + v);
            continue;
          }
          vcvtdq2ps(a, a);
          vmulps(a, a, constAddr(c.output.scale));
          vmovups(ptr[rbx + r * os * 4 + (v0 + v) * kLanes * 4], a);
        }
      for (int r = 0; r < rows && !c.qlinear; ++r) {
        if (c.int8Products) {
          const Xmm factor(pr.getIdx());
          vmovss(factor, ptr[rdx + r * 4]);
          vmulss(factor, factor, valueStep());
          vbroadcastss(pr, factor);
        } else if (u8) {
          vbroadcastss(pr, constScalar(c.probs.scale * c.inputGrids[2].scale));
        } else {
          vbroadcastss(pr, ptr[rdx + r * 4]);
        }
        // u8Output: the row's factor times the output grid's reciprocal,
        // so that each vector's quotient is one multiply (a few ulps from
        // the division, below 1e-4 for codes up to 256; the sums in their
        // order are no more exact).
        const bool folded = c.u8Output && reciprocalDivides(c.u8Output->scale);
        if (folded)
          vmulps(pr, pr, gridWord(outputGrid(), OutputGridBlock::Reciprocal));
        for (int v = 0; v < nv; ++v) {
          if (u8)
            vcvtdq2ps(Vmm(r * nv + v), Vmm(r * nv + v));
          vmulps(Vmm(r * nv + v), Vmm(r * nv + v), pr);
          if (folded) {
            // Past +-300 the codes saturate; the clamp keeps the
            // conversion in range (NaN ends at code 0).
            vmaxps(Vmm(r * nv + v), Vmm(r * nv + v), constAddr(-300.f));
            vminps(Vmm(r * nv + v), Vmm(r * nv + v), constAddr(300.f));
            vcvtps2dq(Vmm(r * nv + v), Vmm(r * nv + v));
            storeCodes(Vmm(r * nv + v), r, v0 + v);
            continue;
          }
          if (c.u8Output) {
            emitCodeQuotient(Vmm(r * nv + v), b0, outputGrid(), /*bounded=*/false);
            storeCodes(Vmm(r * nv + v), r, v0 + v);
            continue;
          }
          if (c.output.kind != Activation::None)
            emitActivation(Vmm(r * nv + v), c.output, b0, b0, b0, b0);
          vmovups(ptr[rbx + r * os * 4 + (v0 + v) * kLanes * 4], Vmm(r * nv + v));
        }
      }
    };
    auto tiles = [&](int rows) {
      for (int v0 = 0; v0 < dv; v0 += chunk)
        tile(rows, v0, std::min(chunk, dv - v0));
    };
    auto advance = [&](int rows) {
      add(rcx, rows * tp * 4);
      add(rbx, rows * os * ob);
      add(rdx, rows * 4);
    };
    if (fullBlocks) {
      Label loop;
      mov(rbp, fullBlocks);
      L(loop);
      tiles(rowsPerBlock);
      advance(rowsPerBlock);
      dec(rbp);
      jnz(loop, T_NEAR);
    }
    if (rest) {
      inLoop = false;
      tiles(rest);
    }
  }
};

} // namespace

std::unique_ptr<JitKernel> AttentionKernel::generate(const AttentionConfig &config, Isa isa) {
  return generatedFor<AttentionGenerator>(isa, config);
}

} // namespace mlir::nunc::x86
