//===- Int8ConvKernelTest.cpp - the int8 convolution vs an exact reference -===//
//
// The three kernels of an int8 convolution in sequence, as CompileModel
// wires them: the channel-blocked quantizer (static or dynamic per tensor),
// im2col of the u8 blocks padded with the zero point, and the int8 GEMM with
// the weights as rows. Checked against integer convolution loops: the
// quantizer's parameters and bytes exactly, the output bit for bit (same f32
// operations in the same order), also with the epilogue's output grid and
// normalization (a BatchNormalization between Q/DQ pairs).
//
//===----------------------------------------------------------------------===//

#include "Im2colKernel.h"
#include "Int8GemmKernel.h"
#include "Kernels.h"
#include "QuantizeRowsKernel.h"
#include "TestSupport.h"
#include "nunc/Dialect/Nunc/OneStepRequantization.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <tuple>

#include <sys/mman.h>
#include <unistd.h>

using namespace mlir::nunc;
using namespace mlir::nunc::x86;

// Every kernel here runs its tasks one after another in scratch slot 0
// (nunc_rt_task), as one thread does: a task must initialize whatever it
// reads of its scratch, finding the previous task's data there.

namespace {

bool hostRuns() {
  return __builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vl");
}

/// The kernels' family: AVX-512 VNNI (zmm), AVX-VNNI (ymm; `evex`: its
/// `vpdpbusd` EVEX-encoded, on hosts with AVX-512 VNNI but no AVX-VNNI) or
/// AVX2 (ymm).
struct Form {
  Int8Isa isa = Int8Isa::Avx512Vnni;
  bool evex = false;
  Isa vectors() const { return isa == Int8Isa::Avx512Vnni ? Isa::Avx512 : Isa::Avx2; }
};

/// The AVX-VNNI form this host runs, if any.
std::optional<Form> hostAvxVnni() {
  if (__builtin_cpu_supports("avxvnni"))
    return Form{Int8Isa::AvxVnni, false};
  if (hostRuns())
    return Form{Int8Isa::AvxVnni, true};
  return std::nullopt;
}

/// The channel-block quantizer as CompileModel runs it: the range pass
/// (dynamic), then the quantizer's tasks, here in reverse order (they must
/// not depend on one another).
void runChannelQuantizer(const QuantizeRowsConfig &qc, const float *x, uint8_t *blocks,
                         uint32_t *params) {
  std::vector<float> partials(QuantizeRowsKernel::rangeTasks(qc) * 2, -12345.f);
  if (QuantizeRowsKernel::needsRangePass(qc)) {
    std::unique_ptr<JitKernel> range = QuantizeRowsKernel::generateRange(qc);
    ASSERT_TRUE(range);
    const void *args[] = {x, partials.data()};
    for (int64_t t = 0; t < QuantizeRowsKernel::rangeTasks(qc); ++t)
      ASSERT_EQ(range->function()(args, t, 0), 0);
  }
  std::unique_ptr<JitKernel> quantizer = QuantizeRowsKernel::generate(qc);
  ASSERT_TRUE(quantizer);
  const void *args[] = {x, blocks, params, partials.data()};
  for (int64_t t = QuantizeRowsKernel::numTasks(qc) - 1; t >= 0; --t)
    ASSERT_EQ(quantizer->function()(args, t, 0), 0);
}

struct Conv {
  int64_t batch, channels, height, width, m, kh, kw, stride, pad;
  bool fixed, bias, residual;
  /// Output grid, then y * a[m] + b[m], then a second grid.
  bool normalize = false;
  /// u8 weights with zero points (quantize_dynamic's QUInt8), one per
  /// output channel: 0, 255 and others; the first row all 255 (the
  /// largest positive products with u8 inputs of 0).
  bool u8Weights = false;
  int64_t outH() const { return (height + 2 * pad - kh) / stride + 1; }
  int64_t outW() const { return (width + 2 * pad - kw) / stride + 1; }
};

int panelIm2colCases = 0, tailCases = 0, broadcastCases = 0, oneStepCases = 0, oneStepOnCases = 0,
    ymmChunkCases = 0;
/// Codes of table entries at the ends of their grid (saturated).
int64_t tableCodeEnds = 0;

void check(const Conv &p, std::mt19937 &rng, Form form = {}) {
  SCOPED_TRACE("N " + std::to_string(p.batch) + " C " + std::to_string(p.channels) + " " +
               std::to_string(p.height) + "x" + std::to_string(p.width) + " M " +
               std::to_string(p.m) + " kernel " + std::to_string(p.kh) + "x" +
               std::to_string(p.kw) + " stride " + std::to_string(p.stride) + " pad " +
               std::to_string(p.pad) + (p.fixed ? " static" : " dynamic") +
               (p.normalize ? " normalized" : "") + (p.u8Weights ? " u8 weights" : ""));
  const int64_t plane = p.height * p.width, groups = (p.channels + 3) / 4;
  const int64_t oh = p.outH(), ow = p.outW(), positions = oh * ow;
  std::uniform_real_distribution<float> dist(-2.f, 3.f), unit(0.001f, 0.02f), sym(-1.f, 1.f);
  std::vector<float> x(p.batch * p.channels * plane);
  for (float &v : x)
    v = dist(rng);
  // w: the bytes (s8, or u8 codes); wv: the values the products take
  // (the codes minus their zero points).
  const int64_t perRow = p.channels * p.kh * p.kw;
  std::vector<int8_t> w(p.m * perRow);
  std::vector<int32_t> wv(w.size()), zeroPoints(p.m, 0);
  for (size_t i = 0; i < w.size(); ++i) {
    if (p.u8Weights)
      w[i] = static_cast<int8_t>(i < static_cast<size_t>(perRow) ? 255 : rng() % 256);
    else
      w[i] = static_cast<int8_t>(rng() % 255 - 127);
  }
  if (p.u8Weights)
    for (int64_t o = 0; o < p.m; ++o)
      zeroPoints[o] = o % 4 == 1 ? 255 : o % 4 == 2 ? 0 : static_cast<int32_t>(rng() % 256);
  for (size_t i = 0; i < w.size(); ++i)
    wv[i] = p.u8Weights ? static_cast<uint8_t>(w[i]) - zeroPoints[i / perRow] : w[i];
  std::vector<float> scales(p.m), bias(p.m), residual(p.batch * p.m * positions);
  for (float &v : scales)
    v = unit(rng);
  for (float &v : bias)
    v = sym(rng);
  for (float &v : residual)
    v = sym(rng);

  // 1. Quantize into channel blocks.
  QuantizeRowsConfig qc;
  qc.rows = p.batch * p.channels;
  qc.k = plane;
  qc.channels = p.channels;
  qc.isa = form.isa;
  qc.fixed = p.fixed;
  qc.scale = 0.021f;
  qc.zeroPoint = 93; // with [-2, 3] inputs: saturates on both sides
  std::vector<uint8_t> blocks(p.batch * groups * plane * 4 + 1, 0xcd);
  uint32_t params[2] = {0, 0};
  ASSERT_NO_FATAL_FAILURE(runChannelQuantizer(qc, x.data(), blocks.data(), params));
  ASSERT_EQ(blocks.back(), 0xcd) << "wrote past the blocks";
  int32_t zp;
  float scale;
  std::memcpy(&zp, &params[0], 4);
  std::memcpy(&scale, &params[1], 4);
  if (p.fixed) {
    ASSERT_EQ(zp, 93);
    ASSERT_EQ(scale, 0.021f);
  } else {
    float lo = 0.f, hi = 0.f;
    for (float v : x) {
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    ASSERT_EQ(scale, (hi - lo) / 255.f);
    ASSERT_EQ(zp, static_cast<int32_t>(std::nearbyint(std::clamp(0.f - lo / scale, 0.f, 255.f))));
  }
  std::vector<int32_t> q(x.size());
  for (size_t i = 0; i < x.size(); ++i)
    q[i] = static_cast<int32_t>(
        std::clamp(std::nearbyint(x[i] / scale) + static_cast<float>(zp), 0.f, 255.f));
  for (int64_t n = 0; n < p.batch; ++n)
    for (int64_t ch = 0; ch < groups * 4; ++ch)
      for (int64_t i = 0; i < plane; ++i) {
        int want = ch < p.channels ? q[(n * p.channels + ch) * plane + i] : zp;
        ASSERT_EQ(blocks[((n * groups + ch / 4) * plane + i) * 4 + ch % 4], want)
            << "image " << n << " channel " << ch << " at " << i;
      }

  // 2. im2col of the blocks, padded with the zero point.
  Im2colConfig ic{p.batch, groups,   p.height, p.width, p.kh,  p.kw, p.stride, p.stride,
                  1,       1,        p.pad,    p.pad,   oh,    ow,   Int8GemmKernel::panelWidth(form.isa)};
  ic.padWithZeroPoint = true;
  ASSERT_TRUE(Im2colKernel::supports(ic, form.vectors()));
  std::unique_ptr<JitKernel> im2col = Im2colKernel::generate(ic, form.vectors());
  ASSERT_TRUE(im2col);
  int64_t depth = Int8ConvGemm::depth(p.channels, p.kh, p.kw);
  int64_t panels = Int8GemmKernel::numPanels(positions, form.isa);
  std::vector<uint8_t> packed(p.batch * panels * depth * ic.panelWidth);
  std::vector<uint8_t> scratch(Im2colKernel::scratchBytes(ic, form.vectors()));
  const void *iArgs[] = {blocks.data(), packed.data(), scratch.data(), params};
  for (int64_t t = 0; t < Im2colKernel::numTasks(ic); ++t)
    ASSERT_EQ(im2col->function()(iArgs, t, 0), 0);

  // 3. The GEMM with the weights as rows.
  std::vector<int8_t> pw =
      Int8ConvGemm::packWeights(w.data(), p.m, p.channels, p.kh, p.kw, p.u8Weights);
  // The AVX2 form's rows are the same weights widened to s16 pairs.
  std::vector<int16_t> wide16 = Int8ConvGemm::widenWeights(pw);
  const void *weights = form.isa == Int8Isa::Avx2 ? (const void *)wide16.data() : pw.data();
  std::vector<float> normScale(p.m), normShift(p.m);
  for (float &v : normScale)
    v = dist(rng);
  for (float &v : normShift)
    v = sym(rng);
  std::vector<uint32_t> rows = Int8ConvGemm::packRows(
      pw, p.m, scales.data(), true, p.bias ? bias.data() : nullptr,
      p.normalize ? normScale.data() : nullptr, p.normalize ? normShift.data() : nullptr,
      p.u8Weights ? zeroPoints.data() : nullptr);
  // Grids: {scale, zero point, qmin, qmax}; the second one saturates often.
  const float gridA[4] = {0.03125f, 120, 0, 255}, gridB[4] = {0.0234375f, 10, 0, 255};
  Int8GemmConfig cfg;
  cfg.m = p.m;
  cfg.n = positions;
  cfg.k = depth;
  cfg.lda = depth * Int8ConvGemm::weightBytes(form.isa);
  cfg.ldc = cfg.ldr = positions;
  cfg.bias = p.bias;
  cfg.residual = p.residual;
  cfg.convolution = true;
  cfg.batch = p.batch;
  cfg.isa = form.isa;
  cfg.evexVnni = form.evex;
  cfg.u8Weights = p.u8Weights;
  if (p.normalize) {
    cfg.output = Activation::fakeQuant(gridA[0], gridA[2] - gridA[1], gridA[3] - gridA[1]);
    cfg.normalize = true;
    cfg.normalized = Activation::fakeQuant(gridB[0], gridB[2] - gridB[1], gridB[3] - gridB[1]);
  }
  std::unique_ptr<JitKernel> gemm = Int8GemmKernel::generate(cfg);
  ASSERT_TRUE(gemm);
  std::vector<float> out(p.batch * p.m * positions + 1, -777.f);
  // The joined tail columns' transposed groups (garbage before).
  const int64_t tail = Int8ConvGemm::tailColumns(cfg);
  tailCases += tail > 0;
  ymmChunkCases += !Int8GemmKernel::zmm(form.isa) && Int8ConvGemm::rowChunks(cfg) > 1;
  std::vector<uint8_t> tails(Int8ConvGemm::numTasks(cfg) * Int8ConvGemm::tailBytes(cfg) + 1,
                             0xcd);
  const void *gArgs[] = {weights,  packed.data(), rows.data(), params, residual.data(),
                         out.data(), nullptr,       tails.data()};
  for (int64_t t = 0; t < Int8ConvGemm::numTasks(cfg); ++t)
    ASSERT_EQ(gemm->function()(gArgs, t, 0), 0);
  EXPECT_EQ(out.back(), -777.f) << "wrote past C";
  // u8 codes of the last grid instead (u8_output, a depthwise conv's
  // input): gridA of C, or with the normalization gridB (whose values C
  // holds, each exactly (q - zp) * scale), from every form of the GEMM.
  const float *u8Grid = p.normalize ? gridB : gridA;
  std::vector<uint8_t> u8Want(out.size() - 1);
  for (size_t i = 0; i < u8Want.size(); ++i)
    u8Want[i] = static_cast<uint8_t>(
        std::clamp(std::nearbyint(out[i] / u8Grid[0]) + u8Grid[1], 0.f, 255.f));
  auto checkU8 = [&](Int8GemmConfig c, const void *panels, const void *extra, const char *what) {
    (p.normalize ? c.normalized : c.output) = Activation();
    c.u8Output = Int8GemmConfig::U8Output{u8Grid[0], static_cast<int32_t>(u8Grid[1])};
    std::unique_ptr<JitKernel> k = Int8GemmKernel::generate(c);
    ASSERT_TRUE(k) << what;
    std::vector<uint8_t> got(u8Want.size() + 64, 0xa5);
    const void *args[] = {weights, panels,     rows.data(), params,
                          residual.data(), got.data(), nullptr, extra};
    for (int64_t t = 0; t < Int8ConvGemm::numTasks(c); ++t)
      ASSERT_EQ(k->function()(args, t, 0), 0);
    for (size_t i = u8Want.size(); i < got.size(); ++i)
      ASSERT_EQ(got[i], 0xa5) << what << ": wrote past C";
    for (size_t i = 0; i < u8Want.size(); ++i)
      ASSERT_EQ(got[i], u8Want[i]) << what << " at " << i << " (C " << out[i] << ")";
    // These results are bounded (u8Bounded): the same codes unclamped.
    c.u8Bounded = true;
    std::unique_ptr<JitKernel> unclamped = Int8GemmKernel::generate(c);
    ASSERT_TRUE(unclamped) << what;
    std::vector<uint8_t> got2(got.size(), 0xa5);
    args[5] = got2.data();
    for (int64_t t = 0; t < Int8ConvGemm::numTasks(c); ++t)
      ASSERT_EQ(unclamped->function()(args, t, 0), 0);
    ASSERT_EQ(got2, got) << what << ": codes without the clamp";
  };
  ASSERT_NO_FATAL_FAILURE(checkU8(cfg, packed.data(), tails.data(), "u8 output"));
  if (p.normalize) {
    // A sigmoid before the output grid, then y * 1 + 0: the normalized
    // values are gridA's values, the evaluator's bits, so their u8 codes
    // are correctly rounded quotients (the reciprocal's product is for
    // an approximated value quantized as it is). On a grid of step 0.015
    // the reciprocal's product rounds two of gridA's values (6 and 30
    // steps) to other codes than the division does.
    std::vector<float> ones(p.m, 1.f), zeros(p.m, 0.f);
    std::vector<uint32_t> unitRows = Int8ConvGemm::packRows(
        pw, p.m, scales.data(), true, p.bias ? bias.data() : nullptr, ones.data(), zeros.data(),
        p.u8Weights ? zeroPoints.data() : nullptr);
    Int8GemmConfig act = cfg;
    act.activation = Activation::fromName("sigmoid", 0, 0);
    act.normalized = Activation();
    std::unique_ptr<JitKernel> f32 = Int8GemmKernel::generate(act);
    ASSERT_TRUE(f32);
    std::vector<float> actOut(out.size(), -777.f);
    const void *aArgs[] = {weights,         packed.data(),  unitRows.data(), params,
                           residual.data(), actOut.data(), nullptr,         tails.data()};
    for (int64_t t = 0; t < Int8ConvGemm::numTasks(act); ++t)
      ASSERT_EQ(f32->function()(aArgs, t, 0), 0);
    const float step = 0.015f;
    act.u8Output = Int8GemmConfig::U8Output{step, 10};
    std::unique_ptr<JitKernel> u8 = Int8GemmKernel::generate(act);
    ASSERT_TRUE(u8);
    std::vector<uint8_t> got(actOut.size() - 1);
    aArgs[5] = got.data();
    for (int64_t t = 0; t < Int8ConvGemm::numTasks(act); ++t)
      ASSERT_EQ(u8->function()(aArgs, t, 0), 0);
    for (size_t i = 0; i < got.size(); ++i)
      ASSERT_EQ(got[i], static_cast<uint8_t>(
                            std::clamp(std::nearbyint(actOut[i] / step) + 10.f, 0.f, 255.f)))
          << "sigmoid, then the grids: at " << i << " (C " << actOut[i] << ")";
  }
  if (form.isa != Int8Isa::Avx512Vnni && !p.normalize && !p.u8Weights) {
    // The row constants broadcast (at compile time for a static input, by
    // the row-broadcast kernel for a dynamic one: the same words): the same
    // C and u8 codes, bit for bit.
    Int8GemmConfig broadcast = cfg;
    broadcast.broadcastRows = true;
    std::vector<uint32_t> wide = Int8ConvGemm::broadcastRows(rows, p.m, zp, scale);
    ASSERT_EQ(wide.size(), static_cast<size_t>(p.m * 24));
    std::unique_ptr<JitKernel> rowKernel = Int8ConvGemm::generateRowBroadcast(p.m);
    ASSERT_TRUE(rowKernel);
    std::vector<uint32_t> atRunTime(wide.size() + 8, 0xcdcdcdcd);
    const void *rbArgs[] = {params, rows.data(), atRunTime.data()};
    ASSERT_EQ(rowKernel->function()(rbArgs, 0, 0), 0);
    ASSERT_EQ(atRunTime.back(), 0xcdcdcdcdu) << "wrote past the broadcast rows";
    atRunTime.resize(wide.size());
    ASSERT_EQ(atRunTime, wide) << "the row-broadcast kernel";
    for (bool u8 : {false, true}) {
      if (u8)
        broadcast.u8Output = Int8GemmConfig::U8Output{gridA[0], static_cast<int32_t>(gridA[1])};
      std::unique_ptr<JitKernel> k = Int8GemmKernel::generate(broadcast);
      ASSERT_TRUE(k);
      std::vector<uint8_t> got((out.size() - 1) * (u8 ? 1 : 4) + 64, 0xa5);
      const void *args[] = {weights,       packed.data(), wide.data(), params,
                            residual.data(), got.data(),    nullptr,     tails.data()};
      for (int64_t t = 0; t < Int8ConvGemm::numTasks(broadcast); ++t)
        ASSERT_EQ(k->function()(args, t, 0), 0);
      for (size_t i = got.size() - 64; i < got.size(); ++i)
        ASSERT_EQ(got[i], 0xa5) << "broadcast rows wrote past C";
      if (u8)
        ASSERT_EQ(std::memcmp(got.data(), u8Want.data(), u8Want.size()), 0)
            << "broadcast rows, u8 codes";
      else
        ASSERT_EQ(std::memcmp(got.data(), out.data(), (out.size() - 1) * 4), 0)
            << "broadcast rows, C";
    }
    broadcastCases++;
  }
  {
    // A table of the last grid's codes (output_table): each result is the
    // entry of the code the grid gives it. Without the normalization the
    // grid is gridA on C; the rounded C is then checked against it too.
    Int8GemmConfig gridded = cfg, tabled = cfg;
    if (!p.normalize)
      gridded.output = tabled.output =
          Activation::fakeQuant(gridA[0], gridA[2] - gridA[1], gridA[3] - gridA[1]);
    const float *grid = p.normalize ? gridB : gridA;
    tabled.outputTable.resize(256);
    for (float &v : tabled.outputTable)
      v = sym(rng) * 100.f;
    std::unique_ptr<JitKernel> g = Int8GemmKernel::generate(gridded),
                               t = Int8GemmKernel::generate(tabled);
    ASSERT_TRUE(g && t);
    std::vector<float> rounded(out.size(), -777.f), looked(out.size(), -777.f);
    const void *gArgs2[] = {weights,       packed.data(),  rows.data(), params,
                            residual.data(), rounded.data(), nullptr,     tails.data()};
    const void *tArgs[] = {weights,       packed.data(), rows.data(), params,
                           residual.data(), looked.data(), nullptr,     tails.data()};
    for (int64_t task = 0; task < Int8ConvGemm::numTasks(cfg); ++task) {
      ASSERT_EQ(g->function()(gArgs2, task, 0), 0);
      ASSERT_EQ(t->function()(tArgs, task, 0), 0);
    }
    ASSERT_EQ(looked.back(), -777.f) << "wrote past C";
    for (size_t i = 0; i + 1 < out.size(); ++i) {
      if (!p.normalize)
        ASSERT_EQ(rounded[i], kernels::fakeQuantizeValue(out[i], grid[0], grid[1], grid[2],
                                                         grid[3]))
            << "at " << i;
      int code = static_cast<int>(std::nearbyint(rounded[i] / grid[0]) + grid[1]);
      ASSERT_EQ(looked[i], tabled.outputTable[code - static_cast<int>(grid[2])])
          << "at " << i << " (code " << code << ")";
    }
    // The entries rounded to a grid of their own (table_quantization), or
    // stored as its u8 codes (looked up as words from the index: rows of
    // vectors packed, or one vector at a time), which saturate both ways.
    const float scale2 = 0.75f;
    const int32_t zp2 = 120;
    Int8GemmConfig tabledRounded = tabled, tabledCodes = tabled;
    tabledRounded.tableOutput = Activation::fakeQuant(scale2, -zp2, 255 - zp2);
    tabledCodes.u8Output = Int8GemmConfig::U8Output{scale2, zp2};
    std::unique_ptr<JitKernel> tr = Int8GemmKernel::generate(tabledRounded),
                               tq = Int8GemmKernel::generate(tabledCodes);
    ASSERT_TRUE(tr && tq);
    std::vector<float> lookedRounded(out.size(), -777.f);
    std::vector<uint8_t> lookedCodes(out.size() - 1 + 64, 0xa5);
    const void *trArgs[] = {weights,       packed.data(),        rows.data(), params,
                            residual.data(), lookedRounded.data(), nullptr,     tails.data()};
    const void *tqArgs[] = {weights,       packed.data(),      rows.data(), params,
                            residual.data(), lookedCodes.data(), nullptr,     tails.data()};
    for (int64_t task = 0; task < Int8ConvGemm::numTasks(cfg); ++task) {
      ASSERT_EQ(tr->function()(trArgs, task, 0), 0);
      ASSERT_EQ(tq->function()(tqArgs, task, 0), 0);
    }
    ASSERT_EQ(lookedRounded.back(), -777.f) << "wrote past C";
    for (size_t i = out.size() - 1; i < lookedCodes.size(); ++i)
      ASSERT_EQ(lookedCodes[i], 0xa5) << "wrote past the codes at " << i;
    for (size_t i = 0; i + 1 < out.size(); ++i) {
      const float q2 = std::clamp(std::nearbyint(looked[i] / scale2) + zp2, 0.f, 255.f);
      tableCodeEnds += q2 == 0.f || q2 == 255.f;
      ASSERT_EQ(nunc_test::bits(lookedRounded[i]), nunc_test::bits((q2 - zp2) * scale2 + 0.f))
          << "rounded entry at " << i;
      ASSERT_EQ(lookedCodes[i], static_cast<uint8_t>(q2)) << "entry's code at " << i;
    }
    Int8GemmConfig both = tabledCodes;
    both.tableOutput = tabledRounded.tableOutput;
    EXPECT_FALSE(Int8GemmKernel::generate(both)) << "a table grid both rounded to and coded";
    Int8GemmConfig gridAlone = cfg;
    gridAlone.tableOutput = tabledRounded.tableOutput;
    EXPECT_FALSE(Int8GemmKernel::generate(gridAlone)) << "a table grid without a table";
    Int8GemmConfig ranged = tabled;
    ranged.ranges = true;
    EXPECT_FALSE(Int8GemmKernel::generate(ranged)) << "a table leaves no range registers";
  }
  {
    Int8GemmConfig rangedU8 = cfg;
    rangedU8.ranges = true;
    rangedU8.u8Output = Int8GemmConfig::U8Output{u8Grid[0], 0};
    (p.normalize ? rangedU8.normalized : rangedU8.output) = Activation();
    EXPECT_FALSE(Int8GemmKernel::generate(rangedU8)) << "ranges of u8 codes";
  }
  if (PanelIm2col::supports(ic, form.vectors())) {
    // The GEMM building each task's panel from the blocks padded with the
    // zero point (PanelIm2col), its scratch full of garbage: the same output.
    // Unpadded at stride 1, the tasks copy from the blocks themselves.
    const bool direct = PanelIm2col::readsInput(ic);
    std::unique_ptr<JitKernel> padding = PanelIm2col::generatePadding(ic);
    Int8GemmConfig own = cfg;
    own.im2col = ic;
    std::unique_ptr<JitKernel> ownGemm = Int8GemmKernel::generate(own);
    ASSERT_TRUE(ownGemm);
    ASSERT_EQ(!padding, direct);
    std::vector<uint8_t> planes(PanelIm2col::planesBytes(ic), 0xcd);
    std::vector<uint8_t> buffers(Int8ConvGemm::numTasks(own) * depth * ic.panelWidth, 0xcd);
    const void *pArgs[] = {blocks.data(), planes.data(), params};
    for (int64_t t = 0; padding && t < PanelIm2col::paddingTasks(ic); ++t)
      ASSERT_EQ(padding->function()(pArgs, t, 0), 0);
    std::vector<float> ownOut(out.size(), -777.f);
    const void *oArgs[] = {weights,     buffers.data(), rows.data(),
                           params,        residual.data(), ownOut.data(),
                           nullptr,       direct ? (const void *)blocks.data() : planes.data()};
    for (int64_t t = 0; t < Int8ConvGemm::numTasks(own); ++t)
      ASSERT_EQ(ownGemm->function()(oArgs, t, 0), 0);
    ASSERT_EQ(std::memcmp(ownOut.data(), out.data(), out.size() * 4), 0)
        << "building its own panels changed C";
    ASSERT_NO_FATAL_FAILURE(checkU8(own, buffers.data(),
                                    direct ? (const void *)blocks.data() : planes.data(),
                                    "u8 output, own panels"));
    // The copies read nothing outside the planes (or the blocks): they end
    // against an inaccessible page, then start right after one.
    const std::vector<uint8_t> &source = direct ? blocks : planes;
    for (bool atEnd : {true, false}) {
      nunc_test::GuardedBytes guarded(source.size(), atEnd);
      std::memcpy(guarded.data(), source.data(), source.size());
      std::vector<float> guardedOut(out.size(), -777.f);
      const void *gArgs[] = {weights,         buffers.data(),    rows.data(), params,
                             residual.data(), guardedOut.data(), nullptr,     guarded.data()};
      for (int64_t t = 0; t < Int8ConvGemm::numTasks(own); ++t)
        ASSERT_EQ(ownGemm->function()(gArgs, t, 0), 0);
      ASSERT_EQ(std::memcmp(guardedOut.data(), out.data(), out.size() * 4), 0)
          << "own panels from guarded planes, " << (atEnd ? "at the end" : "at the start");
    }
    ++panelIm2colCases;
  }
  if (p.kh == 1 && p.kw == 1 && p.stride == 1 && p.pad == 0) {
    // A 1x1 conv's GEMM also reads the blocks as they are (no im2col), with
    // a panel's width of slack after them: the same output.
    Int8GemmConfig direct = cfg;
    direct.blockPlane = plane;
    std::unique_ptr<JitKernel> directGemm = Int8GemmKernel::generate(direct);
    ASSERT_TRUE(directGemm);
    std::vector<uint8_t> slack(blocks.begin(), blocks.end() - 1);
    slack.resize(slack.size() + ic.panelWidth * 4, 0xcd);
    std::vector<float> directOut(out.size(), -777.f);
    const void *dArgs[] = {weights,        slack.data(), rows.data(),  params,
                           residual.data(), directOut.data(), nullptr, tails.data()};
    for (int64_t t = 0; t < Int8ConvGemm::numTasks(direct); ++t)
      ASSERT_EQ(directGemm->function()(dArgs, t, 0), 0);
    for (size_t i = 0; i < out.size(); ++i)
      ASSERT_EQ(directOut[i], out[i]) << "reading the blocks directly, at " << i;
    ASSERT_NO_FATAL_FAILURE(
        checkU8(direct, slack.data(), tails.data(), "u8 output, reading the blocks"));
  }

  // With the partial ranges of C (the next int8 convolution's input): the
  // same C bit for bit, every task's (max, min) written; the next conv's
  // quantizer reading them gives what its own range pass over C gives.
  // (ymm: no ranges; the next conv makes its own range pass.)
  if (form.isa != Int8Isa::Avx512Vnni) {
    Int8GemmConfig ranged = cfg;
    ranged.ranges = true;
    EXPECT_FALSE(Int8GemmKernel::generate(ranged)) << "ranges on ymm";
  } else {
    Int8GemmConfig ranged = cfg;
    ranged.ranges = true;
    std::unique_ptr<JitKernel> rangedGemm = Int8GemmKernel::generate(ranged);
    ASSERT_TRUE(rangedGemm);
    int64_t tasks = Int8ConvGemm::numTasks(ranged);
    std::vector<float> rangedOut(out.size(), -777.f), parts(tasks * 2, std::nanf(""));
    const void *rArgs[] = {weights,       packed.data(), rows.data(),  params,
                           residual.data(), rangedOut.data(), parts.data(), tails.data()};
    for (int64_t t = 0; t < tasks; ++t)
      ASSERT_EQ(rangedGemm->function()(rArgs, t, 0), 0);
    ASSERT_EQ(std::memcmp(rangedOut.data(), out.data(), out.size() * 4), 0)
        << "ranges changed C";
    float hi = 0, lo = 0;
    for (size_t i = 0; i + 1 < out.size(); ++i) {
      hi = std::max(hi, out[i]);
      lo = std::min(lo, out[i]);
    }
    float partHi = -INFINITY, partLo = INFINITY;
    for (int64_t t = 0; t < tasks; ++t) {
      ASSERT_FALSE(std::isnan(parts[2 * t]) || std::isnan(parts[2 * t + 1])) << "task " << t;
      partHi = std::max(partHi, parts[2 * t]);
      partLo = std::min(partLo, parts[2 * t + 1]);
    }
    EXPECT_EQ(partHi, hi);
    EXPECT_EQ(partLo, lo);

    QuantizeRowsConfig next;
    next.rows = p.batch * p.m;
    next.k = positions;
    next.channels = p.m;
    next.isa = Int8Isa::Avx512Vnni;
    const int64_t nextBytes = p.batch * ((p.m + 3) / 4) * positions * 4;
    std::vector<uint8_t> own(nextBytes), produced(nextBytes);
    uint32_t ownParams[2], producedParams[2];
    ASSERT_NO_FATAL_FAILURE(runChannelQuantizer(next, out.data(), own.data(), ownParams));
    next.producedRanges = tasks;
    ASSERT_FALSE(QuantizeRowsKernel::needsRangePass(next));
    std::unique_ptr<JitKernel> quantizer = QuantizeRowsKernel::generate(next);
    ASSERT_TRUE(quantizer);
    const void *qArgs[] = {out.data(), produced.data(), producedParams, parts.data()};
    for (int64_t t = 0; t < QuantizeRowsKernel::numTasks(next); ++t)
      ASSERT_EQ(quantizer->function()(qArgs, t, 0), 0);
    ASSERT_EQ(std::memcmp(ownParams, producedParams, 8), 0);
    ASSERT_EQ(own, produced);

    // The activations such an epilogue may have (they leave the range
    // registers alone): the same C with and without ranges, and ranges of
    // what was stored after the activation.
    Activation hardSwish = Activation::fromName("hard_swish", 0, 0);
    hardSwish.alpha = 1.f / 6.f;
    hardSwish.beta = 0.5f;
    hardSwish.postMul = 1.5f;
    hardSwish.postAdd = 0.25f;
    for (Activation act : {Activation::fromName("relu", 0, 0),
                           Activation::fromName("clip", -0.25f, 0.75f), hardSwish}) {
      Int8GemmConfig plain = cfg;
      plain.activation = act;
      Int8GemmConfig ranged = plain;
      ranged.ranges = true;
      ASSERT_TRUE(Int8ConvGemm::epilogueLeavesRangeRegisters(ranged));
      std::unique_ptr<JitKernel> a = Int8GemmKernel::generate(plain),
                                 b = Int8GemmKernel::generate(ranged);
      ASSERT_TRUE(a && b);
      std::vector<float> outA(out.size(), -777.f), outB(out.size(), -777.f);
      std::vector<float> actParts(tasks * 2, std::nanf(""));
      const void *aArgs[] = {weights,       packed.data(), rows.data(), params,
                             residual.data(), outA.data(),   nullptr,     tails.data()};
      const void *bArgs[] = {weights,       packed.data(), rows.data(),     params,
                             residual.data(), outB.data(),   actParts.data(), tails.data()};
      for (int64_t t = 0; t < tasks; ++t) {
        ASSERT_EQ(a->function()(aArgs, t, 0), 0);
        ASSERT_EQ(b->function()(bArgs, t, 0), 0);
      }
      ASSERT_EQ(std::memcmp(outA.data(), outB.data(), out.size() * 4), 0);
      float aHi = 0, aLo = 0, pHi = -INFINITY, pLo = INFINITY;
      for (size_t i = 0; i + 1 < outA.size(); ++i) {
        aHi = std::max(aHi, outA[i]);
        aLo = std::min(aLo, outA[i]);
      }
      for (int64_t t = 0; t < tasks; ++t) {
        pHi = std::max(pHi, actParts[2 * t]);
        pLo = std::min(pLo, actParts[2 * t + 1]);
      }
      EXPECT_EQ(pHi, aHi);
      EXPECT_EQ(pLo, aLo);
    }
    // Activations that need more temporaries keep their own range pass.
    Int8GemmConfig gelu = cfg;
    gelu.activation = Activation::fromName("gelu", 0, 0);
    gelu.ranges = true;
    EXPECT_FALSE(Int8ConvGemm::epilogueLeavesRangeRegisters(gelu));
    EXPECT_FALSE(Int8GemmKernel::generate(gelu)) << "a range the epilogue would clobber";
  }

  std::vector<int64_t> sums(out.size() - 1);
  for (int64_t n = 0; n < p.batch; ++n)
    for (int64_t o = 0; o < p.m; ++o)
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t xx = 0; xx < ow; ++xx) {
          int64_t acc = 0;
          for (int64_t ch = 0; ch < p.channels; ++ch)
            for (int64_t ky = 0; ky < p.kh; ++ky)
              for (int64_t kx = 0; kx < p.kw; ++kx) {
                int64_t iy = y * p.stride - p.pad + ky, ix = xx * p.stride - p.pad + kx;
                bool inside = iy >= 0 && iy < p.height && ix >= 0 && ix < p.width;
                int32_t v = inside ? q[((n * p.channels + ch) * p.height + iy) * p.width + ix] : zp;
                acc += int64_t(v - zp) * wv[((o * p.channels + ch) * p.kh + ky) * p.kw + kx];
              }
          float want = static_cast<float>(acc) * (scale * scales[o]);
          if (p.bias)
            want += bias[o];
          int64_t at = (n * p.m + o) * positions + y * ow + xx;
          if (p.residual)
            want += residual[at];
          if (p.normalize) {
            want = kernels::fakeQuantizeValue(want, gridA[0], gridA[1], gridA[2], gridA[3]);
            want = want * normScale[o] + normShift[o]; // a product, then the sum
            want = kernels::fakeQuantizeValue(want, gridB[0], gridB[1], gridB[2], gridB[3]);
          }
          ASSERT_EQ(out[at], want) << "image " << n << " channel " << o << " at " << y << ", "
                                   << xx << " (sum " << acc << ")";
          sums[at] = acc;
        }

  // One-step requantization (quantized_conv's one_step_requantization): the
  // bias and scales folded into the rows, the codes of gridA round(float(sum
  // + bq) x fl(s / s_y)) + zp within an activation's bounds, from every
  // form; with the rows broadcast where the codegen broadcasts them (ymm,
  // s8 weights).
  const float outScale = gridA[0];
  const int32_t outZp = static_cast<int32_t>(gridA[1]);
  auto oneStepCode = [&](size_t i, int32_t lo, int32_t hi) {
    const int64_t o = static_cast<int64_t>(i) / positions % p.m;
    const float s = scale * scales[o];
    const int32_t bq = p.bias ? oneStepBiasCode(bias[o], s) : 0;
    const auto acc =
        static_cast<int32_t>(static_cast<uint32_t>(sums[i]) + static_cast<uint32_t>(bq));
    const float t = static_cast<float>(acc) * (s / outScale);
    return static_cast<int32_t>(std::clamp<double>(std::nearbyint(t) + outZp, lo, hi));
  };
  if (!p.residual) {
    // The codes' values (q - zp) s_y go on: f32 out, or normalized and
    // rounded to gridB (f32 values or u8 codes).
    std::vector<uint32_t> oneRows = Int8ConvGemm::packOneStepRows(
        rows, p.m, scales.data(), true, p.bias ? bias.data() : nullptr, zp, scale, outScale);
    for (bool u8 : {false, true}) {
      if (u8 && !p.normalize)
        continue; // (the codes themselves: below)
      SCOPED_TRACE(std::string("one step, then ") + (p.normalize ? "normalized" : "f32") +
                   (u8 ? " u8 codes" : ""));
      Int8GemmConfig one = cfg;
      one.bias = false;
      one.output = Activation();
      one.oneStep = Int8GemmConfig::OneStep{outZp, 250, outScale, outZp};
      if (u8) {
        one.normalized = Activation();
        one.u8Output = Int8GemmConfig::U8Output{gridB[0], static_cast<int32_t>(gridB[1])};
      }
      std::unique_ptr<JitKernel> k = Int8GemmKernel::generate(one);
      ASSERT_TRUE(k);
      std::vector<uint8_t> got(sums.size() * (u8 ? 1 : 4) + 64, 0xa5);
      const void *oArgs[] = {weights,         packed.data(), oneRows.data(), params,
                             residual.data(), got.data(),    nullptr,        tails.data()};
      for (int64_t t = 0; t < Int8ConvGemm::numTasks(one); ++t)
        ASSERT_EQ(k->function()(oArgs, t, 0), 0);
      for (size_t i = got.size() - 64; i < got.size(); ++i)
        ASSERT_EQ(got[i], 0xa5) << "wrote past C";
      for (size_t i = 0; i < sums.size(); ++i) {
        const int64_t o = static_cast<int64_t>(i) / positions % p.m;
        float want = static_cast<float>(oneStepCode(i, outZp, 250) - outZp) * outScale;
        if (p.normalize) {
          want = want * normScale[o] + normShift[o];
          want = kernels::fakeQuantizeValue(want, gridB[0], gridB[1], gridB[2], gridB[3]);
        }
        if (u8) {
          const auto code = static_cast<uint8_t>(
              std::clamp(std::nearbyint(want / gridB[0]) + gridB[1], 0.f, 255.f));
          ASSERT_EQ(got[i], code) << "at " << i << " (sum " << sums[i] << ")";
        } else {
          float v;
          std::memcpy(&v, &got[4 * i], 4);
          ASSERT_EQ(v, want) << "at " << i << " (sum " << sums[i] << ")";
        }
      }
      ++oneStepOnCases;
    }
  }
  if (!p.residual && !p.normalize) {
    std::vector<uint32_t> oneRows = Int8ConvGemm::packOneStepRows(
        rows, p.m, scales.data(), true, p.bias ? bias.data() : nullptr, zp, scale, outScale);
    Int8GemmConfig one = cfg;
    one.bias = false;
    one.u8Output = Int8GemmConfig::U8Output{outScale, outZp};
    if (!Int8GemmKernel::zmm(form.isa) && !p.u8Weights) {
      one.broadcastRows = true;
      oneRows = Int8ConvGemm::broadcastRows(oneRows, p.m, 1, 1.f);
    }
    for (auto [lo, hi, bounded] : {std::tuple{0, 255, false}, std::tuple{0, 255, true},
                                   std::tuple{outZp, 255, false}, std::tuple{30, 200, true}}) {
      SCOPED_TRACE("one step [" + std::to_string(lo) + ", " + std::to_string(hi) + "]" +
                   (bounded ? " bounded" : ""));
      one.oneStep = Int8GemmConfig::OneStep{lo, hi, outScale, outZp};
      one.u8Bounded = bounded;
      std::unique_ptr<JitKernel> k = Int8GemmKernel::generate(one);
      ASSERT_TRUE(k);
      std::vector<uint8_t> codes(sums.size() + 64, 0xa5);
      const void *oArgs[] = {weights,         packed.data(), oneRows.data(), params,
                             residual.data(), codes.data(),  nullptr,        tails.data()};
      for (int64_t t = 0; t < Int8ConvGemm::numTasks(one); ++t)
        ASSERT_EQ(k->function()(oArgs, t, 0), 0);
      for (size_t i = sums.size(); i < codes.size(); ++i)
        ASSERT_EQ(codes[i], 0xa5) << "wrote past the codes";
      for (size_t i = 0; i < sums.size(); ++i)
        ASSERT_EQ(codes[i], oneStepCode(i, lo, hi)) << "at " << i << " (sum " << sums[i] << ")";
    }
    ++oneStepCases;
  }
}

/// The channel-block quantizer's bytes against x / scale with division
/// (round half to even, + zero point, saturated to [0, 255]).
void checkQuantizer(const std::vector<float> &x, int64_t channels, int64_t plane, bool fixed,
                    float fixedScale, int32_t fixedZp, Int8Isa isa) {
  const int64_t batch = static_cast<int64_t>(x.size()) / (channels * plane);
  const int64_t groups = (channels + 3) / 4;
  QuantizeRowsConfig qc;
  qc.rows = batch * channels;
  qc.k = plane;
  qc.channels = channels;
  qc.isa = isa;
  qc.fixed = fixed;
  qc.scale = fixedScale;
  qc.zeroPoint = fixedZp;
  std::vector<uint8_t> blocks(batch * groups * plane * 4 + 64, 0xcd);
  uint32_t params[2] = {0, 0};
  ASSERT_NO_FATAL_FAILURE(runChannelQuantizer(qc, x.data(), blocks.data(), params));
  for (size_t i = batch * groups * plane * 4; i < blocks.size(); ++i)
    ASSERT_EQ(blocks[i], 0xcd) << "wrote past the blocks";
  float scale = fixedScale;
  int32_t zp = fixedZp;
  if (!fixed) {
    float lo = 0.f, hi = 0.f;
    for (float v : x) {
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    scale = (hi - lo) / 255.f;
    if (scale == 0.f)
      scale = 1.f;
    zp = static_cast<int32_t>(std::nearbyint(std::clamp(0.f - lo / scale, 0.f, 255.f)));
  }
  int32_t gotZp;
  float gotScale;
  std::memcpy(&gotZp, &params[0], 4);
  std::memcpy(&gotScale, &params[1], 4);
  ASSERT_EQ(gotScale, scale);
  ASSERT_EQ(gotZp, zp);
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t ch = 0; ch < channels; ++ch)
      for (int64_t i = 0; i < plane; ++i) {
        float v = x[(n * channels + ch) * plane + i];
        float q = std::nearbyint(v / scale) + static_cast<float>(zp);
        int want = q <= 0.f ? 0 : q >= 255.f ? 255 : static_cast<int>(q);
        ASSERT_EQ(blocks[((n * groups + ch / 4) * plane + i) * 4 + ch % 4], want)
            << "x " << v << " scale " << scale << " zp " << zp << " (image " << n
            << ", channel " << ch << ", at " << i << ")";
      }
}

/// The channel-block quantizer of `isa`: zmm (AVX-512 VNNI) or ymm code
/// (AVX-VNNI, AVX2 hosts), the same bytes.
void checkChannelQuantizer(Int8Isa isa) {
  SCOPED_TRACE(int8IsaName(isa));
  std::mt19937 rng(62);
  {
    QuantizeRowsConfig c;
    c.rows = 2 * 64;
    c.k = 1024;
    c.channels = 64;
    ASSERT_GT(QuantizeRowsKernel::rangeTasks(c), 1) << "the test covers several range tasks";
    c.rows = 2 * 61;
    c.k = 1000;
    c.channels = 61;
    ASSERT_NE(c.rows % QuantizeRowsKernel::planesPerRangeTask(c), 0)
        << "and a shorter last range task";
  }
  for (auto [channels, plane] :
       std::vector<std::pair<int64_t, int64_t>>{
           {1, 1}, {5, 17}, {4, 129}, {7, 40}, {3, 13}, {6, 63}, {64, 1024}, {61, 1000}}) {
    SCOPED_TRACE("C " + std::to_string(channels) + " plane " + std::to_string(plane));
    std::vector<float> x(2 * channels * plane);
    // Dynamic: quotients on and next to the rounding ties of the scale the
    // data gives (its range is fixed by two entries).
    for (float range : {5.f, 3.7e-3f, 1.9e30f}) {
      SCOPED_TRACE("range " + std::to_string(range));
      float scale = (range - (-range * 0.4f)) / 255.f;
      std::uniform_int_distribution<int> step(-100, 150);
      for (float &v : x) {
        float tie = (static_cast<float>(step(rng)) + 0.5f) * scale;
        int side = static_cast<int>(rng() % 3);
        v = side == 0 ? tie : std::nextafter(tie, side == 1 ? 1e38f : -1e38f);
        v = std::clamp(v, -range * 0.4f, range);
      }
      // In different range-pass tasks where there are several.
      x[x.size() - 1] = range;
      x[x.size() / 2] = -range * 0.4f;
      checkQuantizer(x, channels, plane, false, 1.f, 0, isa);
    }
    // Dynamic, a range so small that the scale is subnormal (the division
    // path), and all zeros (scale 1).
    std::uniform_real_distribution<float> tiny(-1e-38f, 2e-38f);
    for (float &v : x)
      v = tiny(rng);
    checkQuantizer(x, channels, plane, false, 1.f, 0, isa);
    std::fill(x.begin(), x.end(), 0.f);
    checkQuantizer(x, channels, plane, false, 1.f, 0, isa);
    // u8 codes of a static grid (a depthwise conv's u8 output) block as
    // the quantizer blocks their values.
    {
      std::uniform_int_distribution<int> byte(0, 255);
      std::vector<uint8_t> codes(x.size());
      std::vector<float> values(x.size());
      for (size_t i = 0; i < x.size(); ++i) {
        codes[i] = static_cast<uint8_t>(byte(rng));
        values[i] = static_cast<float>(codes[i] - 61) * 0.0375f;
      }
      const int64_t batch = static_cast<int64_t>(x.size()) / (channels * plane);
      const int64_t bytes = batch * ((channels + 3) / 4) * plane * 4;
      QuantizeRowsConfig qc;
      qc.rows = batch * channels;
      qc.k = plane;
      qc.channels = channels;
      qc.isa = isa;
      qc.fixed = true;
      qc.scale = 0.0375f;
      qc.zeroPoint = 61;
      std::vector<uint8_t> want(bytes + 64, 0xcd), got(bytes + 64, 0xcd);
      uint32_t wantParams[2], gotParams[2];
      ASSERT_NO_FATAL_FAILURE(
          runChannelQuantizer(qc, values.data(), want.data(), wantParams));
      qc.codes = true;
      // The codes end against an inaccessible page: a read past them faults.
      const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
      const size_t mapped = (codes.size() + page - 1) / page * page;
      char *mem = static_cast<char *>(mmap(nullptr, mapped + page, PROT_READ | PROT_WRITE,
                                           MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
      ASSERT_NE(mem, MAP_FAILED);
      ASSERT_EQ(mprotect(mem + mapped, page, PROT_NONE), 0);
      uint8_t *atEnd = reinterpret_cast<uint8_t *>(mem + mapped - codes.size());
      std::memcpy(atEnd, codes.data(), codes.size());
      ASSERT_NO_FATAL_FAILURE(runChannelQuantizer(
          qc, reinterpret_cast<const float *>(atEnd), got.data(), gotParams));
      munmap(mem, mapped + page);
      ASSERT_EQ(std::memcmp(wantParams, gotParams, 8), 0);
      ASSERT_EQ(want, got) << "C " << channels << " plane " << plane;
    }
    // Static: inputs far outside the calibrated range saturate (quotients
    // past 2^31 once converted to INT_MIN, so 0, even for large positive x).
    const float outliers[] = {1e30f, -1e30f, 3e38f, -3e38f, INFINITY, -INFINITY, 5e9f, -5e9f};
    std::uniform_real_distribution<float> normal(-3.f, 4.f);
    for (size_t i = 0; i < x.size(); ++i)
      x[i] = i % 3 == 0 ? outliers[(i / 3) % 8] : normal(rng);
    checkQuantizer(x, channels, plane, true, 0.021f, 93, isa);
    // Static with a scale outside the reciprocal path's range.
    checkQuantizer(x, channels, plane, true, 0x1p-110f, 7, isa);
  }
}

TEST(Int8ConvKernelTest, ChannelQuantizerRoundsAsDivision) {
  if (!hostRuns())
    GTEST_SKIP() << "the host lacks AVX-512 VNNI";
  checkChannelQuantizer(Int8Isa::Avx512Vnni);
}

TEST(Int8ConvKernelTest, YmmChannelQuantizerRoundsAsDivision) {
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma"))
    GTEST_SKIP() << "the host lacks AVX2";
  checkChannelQuantizer(Int8Isa::AvxVnni);
}

const std::vector<Conv> &convCases();

TEST(Int8ConvKernelTest, MatchesTheIntegerConvolution) {
  if (!hostRuns())
    GTEST_SKIP() << "the host lacks AVX-512 VNNI";
  {
    Int8GemmConfig small;
    small.convolution = true;
    small.m = 64;
    small.n = 49;
    ASSERT_EQ(Int8ConvGemm::tailColumns(small), 1) << "49 = 48 + 1 joined column";
    ASSERT_EQ(Int8ConvGemm::rowChunks(small), 8) << "the row-chunk cases below test chunks";
  }
  std::mt19937 rng(61);
  for (const Conv &p : convCases())
    check(p, rng);
  EXPECT_GE(panelIm2colCases, 14);
  EXPECT_GE(tailCases, 10);
  EXPECT_GE(oneStepCases, 6);
  EXPECT_GE(oneStepOnCases, 12) << "one step, then f32 values or a normalization";
  EXPECT_GT(tableCodeEnds, 100) << "the table's u8 grid hardly saturates";
}

/// The AVX-VNNI form (ymm: panels of 16, tiles of 6 rows, each task's
/// panel built by the ymm PanelIm2col where it can) on the same cases, its
/// quantizer and im2col the ymm code.
TEST(Int8ConvKernelTest, AvxVnniMatchesTheIntegerConvolution) {
  std::optional<Form> form = hostAvxVnni();
  if (!form)
    GTEST_SKIP() << "the host has neither AVX-VNNI nor AVX-512 VNNI";
  const int before = broadcastCases, panelsBefore = panelIm2colCases,
            oneStepBefore = oneStepCases, tailsBefore = tailCases,
            chunksBefore = ymmChunkCases, oneStepOnBefore = oneStepOnCases;
  std::mt19937 rng(63);
  for (const Conv &p : convCases())
    check(p, rng, *form);
  EXPECT_GE(broadcastCases - before, 5);
  EXPECT_GE(panelIm2colCases - panelsBefore, 14);
  EXPECT_GE(oneStepCases - oneStepBefore, 6);
  EXPECT_GE(oneStepOnCases - oneStepOnBefore, 12);
  EXPECT_GE(tailCases - tailsBefore, 8) << "joined tail columns (panels of 16)";
  EXPECT_GE(ymmChunkCases - chunksBefore, 2) << "row chunks with joined tails";
}

/// The AVX2 form (no VNNI: the AVX-VNNI form's panels and tiles, s16
/// weights against the panels' even and odd bytes as words) on the same
/// cases.
TEST(Int8ConvKernelTest, Avx2MatchesTheIntegerConvolution) {
  if (!__builtin_cpu_supports("avx2"))
    GTEST_SKIP() << "the host lacks AVX2";
  {
    const std::vector<int8_t> packed = {1, -2, 3, -4, 127, -128, 0, 5};
    const std::vector<int16_t> want = {1, 3, -2, -4, 127, 0, -128, 5};
    EXPECT_EQ(Int8ConvGemm::widenWeights(packed), want) << "each group as (w0, w2, w1, w3)";
  }
  const int before = broadcastCases, panelsBefore = panelIm2colCases,
            oneStepBefore = oneStepCases, tailsBefore = tailCases,
            chunksBefore = ymmChunkCases, oneStepOnBefore = oneStepOnCases;
  std::mt19937 rng(65);
  for (const Conv &p : convCases())
    check(p, rng, Form{Int8Isa::Avx2, false});
  EXPECT_GE(broadcastCases - before, 5);
  EXPECT_GE(panelIm2colCases - panelsBefore, 14);
  EXPECT_GE(oneStepCases - oneStepBefore, 6);
  EXPECT_GE(oneStepOnCases - oneStepOnBefore, 12);
  EXPECT_GE(tailCases - tailsBefore, 8) << "joined tail columns (panels of 16)";
  EXPECT_GE(ymmChunkCases - chunksBefore, 2) << "row chunks with joined tails";
}

const std::vector<Conv> &convCases() {
  // N, C, H, W, M, kh, kw, stride, pad, static, bias, residual
  static const std::vector<Conv> cases = {Conv{1, 1, 1, 1, 1, 1, 1, 1, 0, false, false, false},
                 Conv{1, 3, 9, 13, 7, 3, 3, 1, 1, true, true, false},
                 Conv{2, 5, 7, 7, 17, 3, 3, 1, 1, false, true, true},
                 Conv{1, 4, 16, 16, 64, 1, 1, 1, 0, true, true, true},
                 Conv{1, 3, 15, 17, 9, 7, 7, 2, 3, false, true, false},
                 Conv{2, 17, 10, 11, 33, 3, 3, 2, 1, true, false, true},
                 Conv{1, 64, 8, 8, 129, 3, 3, 1, 1, false, true, true},
                 Conv{1, 3, 9, 13, 7, 3, 3, 1, 1, true, false, false, true},
                 Conv{2, 9, 7, 9, 20, 1, 1, 1, 0, false, true, true},
                 Conv{1, 16, 50, 3, 24, 1, 1, 1, 0, true, false, false, true},
                 Conv{2, 17, 10, 11, 33, 3, 3, 2, 1, true, true, true, true},
                 // 49 positions (48 + 1 joined column): output channels split
                 // in 8 and 3 row chunks (Int8ConvGemm::rowChunks).
                 Conv{1, 32, 7, 7, 64, 1, 1, 1, 0, false, true, true},
                 Conv{2, 12, 7, 7, 48, 3, 3, 1, 1, true, true, true, true},
                 // 52 and 50 positions: 4 and 2 joined columns; 129 rows
                 // (no chunks, a last tile of 1 row); a 1x1 conv reading
                 // the blocks directly.
                 Conv{1, 5, 4, 13, 129, 1, 1, 1, 0, false, true, true},
                 Conv{2, 7, 10, 5, 24, 3, 3, 1, 1, true, true, true},
                 Conv{1, 6, 13, 4, 17, 3, 3, 1, 1, false, false, false, true},
                 // 51 positions: 3 joined columns (rows 4 at a time), 5 row
                 // chunks; a direct 1x1 conv of 2 images with 4 joined.
                 Conv{1, 9, 3, 17, 40, 3, 3, 1, 1, true, true, true},
                 Conv{2, 5, 4, 13, 24, 1, 1, 1, 0, false, true, true},
                 // A 1x1 conv at stride 2 (a residual block's downsampling)
                 // and an unpadded 3x3 one: the panel copies' loads of rows
                 // past the plane's last reach into the planes' guard.
                 Conv{2, 8, 13, 11, 10, 1, 1, 2, 0, false, true, false},
                 Conv{1, 6, 9, 21, 12, 3, 3, 1, 0, true, true, true},
                 // K = 2304, 320 rows (zmm: 4 row chunks of 80 and a joined
                 // column) over 2 images.
                 Conv{2, 256, 7, 7, 320, 3, 3, 1, 1, false, true, true},
                 // u8 weights: C not a multiple of 4 (channels past the last
                 // hold the zero point too), padding, stride 2, 49 and 51
                 // positions (joined columns, row chunks), direct 1x1
                 // convs, the normalization, K = 4, a last tile of 1 row.
                 Conv{1, 1, 1, 1, 1, 1, 1, 1, 0, false, false, false, false, true},
                 Conv{1, 3, 9, 13, 7, 3, 3, 1, 1, true, true, false, false, true},
                 Conv{2, 17, 10, 11, 33, 3, 3, 2, 1, false, true, true, false, true},
                 Conv{1, 64, 8, 8, 129, 3, 3, 1, 1, false, true, true, false, true},
                 Conv{1, 32, 7, 7, 64, 1, 1, 1, 0, false, true, true, false, true},
                 Conv{1, 9, 3, 17, 40, 3, 3, 1, 1, false, true, true, false, true},
                 Conv{2, 9, 7, 9, 20, 1, 1, 1, 0, false, true, true, false, true},
                 Conv{2, 12, 7, 7, 48, 3, 3, 1, 1, false, true, true, true, true},
                 Conv{1, 3, 15, 17, 9, 7, 7, 2, 3, false, true, false, false, true}};
  return cases;
}

} // namespace
