//===- AttentionKernelTest.cpp - xbyak attention against the evaluator ----===//

#include "AttentionKernel.h"
#include "Kernels.h"
#include "TestSupport.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <tuple>

using namespace mlir::nunc;
using namespace mlir::nunc::x86;

namespace {

using nunc_test::hostHas;

struct Case {
  int64_t b, s, t, h, d;
  std::vector<int64_t> maskShape; // empty: no mask
};

/// Runs the kernel for `cfg` over all its tasks into `out`, task t in
/// scratch slot t % slots (0: its own), the scratch starting as NaN bytes:
/// one slot is what the runtime's serial path and a lone thread give, every
/// task finding the previous one's data there.
void runKernel(const AttentionConfig &cfg, Isa isa, const Tensor &q, const Tensor &k,
               const Tensor &v, const Tensor *mask, std::vector<float> &out,
               int64_t slots = 0) {
  std::unique_ptr<JitKernel> kernel = AttentionKernel::generate(cfg, isa);
  ASSERT_TRUE(kernel) << "xbyak: " << Xbyak::ConvertErrorToString(Xbyak::GetError());
  out.assign(cfg.batch * cfg.seq * cfg.heads * cfg.headDim, -777.f);
  std::vector<char> scratch(AttentionKernel::scratchBytes(cfg, isa) + 64, '\xff');
  const std::vector<uint32_t> grid =
      cfg.u8Output ? AttentionKernel::outputGridWords(cfg, isa) : std::vector<uint32_t>();
  const void *args[] = {q.raw(),    k.raw(),        v.raw(), mask ? mask->raw() : q.raw(),
                        out.data(), scratch.data(), grid.data()};
  for (int64_t t = 0; t < AttentionKernel::numTasks(cfg); ++t)
    ASSERT_EQ(kernel->function()(args, t, slots ? t % slots : t), 0);
}

/// The same attention writing the u8 codes of a grid (u8Output) gives the
/// codes of its f32 result `out` (values on that grid, or any) as the row
/// quantizer computes them: the quotient of the value clamped to +-300
/// steps, rounded half to even, plus the zero point, within [0, 255] (byte
/// for byte in QLinear steps, elsewhere but a code next to a rounding tie);
/// and writes no byte past them.
void expectCodesOf(AttentionConfig cfg, Isa isa, const Tensor &q, const Tensor &k,
                   const Tensor &v, const Tensor *mask, const std::vector<float> &out,
                   AttentionConfig::U8Output grid, const std::string &at) {
  if (!cfg.qlinear)
    cfg.output = {};
  cfg.u8Output = grid;
  ASSERT_TRUE(AttentionKernel::supports(cfg, isa)) << at;
  std::vector<float> buffer;
  ASSERT_NO_FATAL_FAILURE(runKernel(cfg, isa, q, k, v, mask, buffer));
  const auto *codes = reinterpret_cast<const uint8_t *>(buffer.data());
  const size_t n = out.size();
  int64_t differ = 0, firstAt = -1;
  for (size_t i = 0; i < n; ++i) {
    const float bound = 300.f * grid.scale;
    const float quotient = std::min(std::max(out[i], -bound), bound) / grid.scale;
    const int64_t want =
        std::clamp<int64_t>(static_cast<int64_t>(std::nearbyint(quotient)) + grid.zeroPoint, 0,
                            255);
    // Outside QLinear steps the row's factor is folded with the grid's
    // reciprocal: the quotient within an ulp of the division, so a code
    // one apart where it lies that close to a rounding tie.
    const bool nearTie =
        std::fabs(std::fabs(quotient - std::trunc(quotient)) - 0.5f) < 1e-4f;
    if (!cfg.qlinear && nearTie && std::abs(int64_t(codes[i]) - want) == 1)
      continue;
    if (codes[i] != want && differ++ == 0)
      firstAt = static_cast<int64_t>(i);
  }
  EXPECT_EQ(differ, 0) << "first at " << firstAt << ": " << int(codes[firstAt]) << " for "
                       << out[firstAt] << " on " << grid.scale << ":" << grid.zeroPoint << at;
  const float fill = -777.f;
  for (size_t i = n; i < std::min(4 * n, n + 64); ++i)
    ASSERT_EQ(codes[i], reinterpret_cast<const uint8_t *>(&fill)[i % 4])
        << "a byte written past the codes at " << i << at;
}

/// A random mask of the case's shape (none where it has no mask) with
/// every third entry -10000, as padding masks have, and its element strides
/// over [B, H, S, T] (the right-aligned shape) in cfg.
std::optional<Tensor> paddingMask(std::mt19937 &rng, const Case &c, AttentionConfig &cfg) {
  if (c.maskShape.empty())
    return std::nullopt;
  Tensor mask = nunc_test::randomTensor(rng, c.maskShape, -2.f, 2.f);
  for (int64_t i = 0; i < mask.numElements(); i += 3)
    mask.mutableAs<float>()[i] = -10000.f;
  std::vector<int64_t> shape4(4 - c.maskShape.size(), 1);
  shape4.insert(shape4.end(), c.maskShape.begin(), c.maskShape.end());
  int64_t stride = 1;
  for (int i = 3; i >= 0; --i) {
    cfg.maskStrides[i] = shape4[i] == 1 ? 0 : stride;
    stride *= shape4[i];
  }
  return mask;
}

class AttentionKernelTest : public ::testing::TestWithParam<Isa> {};

TEST_P(AttentionKernelTest, MatchesTheReferenceOnAwkwardShapesAndMasks) {
  Isa isa = GetParam();
  if (!hostHas(isa))
    GTEST_SKIP() << "the host lacks this ISA";
  std::vector<Case> cases = {
      {1, 1, 1, 1, 16, {}},          {1, 7, 7, 2, 16, {1, 1, 1, 7}},
      {2, 17, 17, 3, 32, {2, 1, 1, 17}}, {1, 128, 128, 12, 32, {1, 1, 1, 128}},
      {1, 5, 129, 1, 64, {1, 1, 5, 129}}, {2, 9, 3, 4, 16, {2, 4, 9, 3}},
      {1, 6, 33, 2, 48, {1, 1, 6, 1}},   {3, 16, 16, 2, 128, {}},
      {1, 3, 40, 1, 256, {1, 1, 1, 40}}, {1, 5, 129, 1, 64, {1, 1, 1, 129}}};
  std::mt19937 rng(7);
  auto random = [&](std::vector<int64_t> shape) {
    return nunc_test::randomTensor(rng, std::move(shape), -2.f, 2.f);
  };
  for (const Case &c : cases) {
    if (!AttentionKernel::supports({c.b, c.s, c.t, c.h, c.d}, isa))
      continue;
    int64_t e = c.h * c.d;
    Tensor q = random({c.b, c.s, e}), k = random({c.b, c.t, e}), v = random({c.b, c.t, e});
    AttentionConfig cfg{c.b, c.s, c.t, c.h, c.d, 0.37f, !c.maskShape.empty()};
    std::optional<Tensor> mask = paddingMask(rng, c, cfg);
    llvm::Expected<Tensor> want =
        kernels::attention(q, k, v, mask ? &*mask : nullptr, c.h, cfg.scale);
    ASSERT_TRUE(static_cast<bool>(want)) << llvm::toString(want.takeError());
    std::vector<float> out, oneSlot;
    ASSERT_NO_FATAL_FAILURE(runKernel(cfg, isa, q, k, v, mask ? &*mask : nullptr, out));
    // The tasks sharing one scratch slot, as on one thread: the same bits.
    ASSERT_NO_FATAL_FAILURE(
        runKernel(cfg, isa, q, k, v, mask ? &*mask : nullptr, oneSlot, /*slots=*/1));
    EXPECT_EQ(std::memcmp(out.data(), oneSlot.data(), out.size() * 4), 0)
        << "B=" << c.b << " S=" << c.s << " T=" << c.t << " H=" << c.h << " D=" << c.d;
    // As u8 codes: a grid the values overflow at both ends, one they
    // overflow below, and one that holds them.
    const std::string at = " B=" + std::to_string(c.b) + " S=" + std::to_string(c.s) +
                           " T=" + std::to_string(c.t) + " D=" + std::to_string(c.d);
    for (AttentionConfig::U8Output grid :
         {AttentionConfig::U8Output{0.005f, 128}, AttentionConfig::U8Output{0.01f, 30},
          AttentionConfig::U8Output{0.02f, 110}})
      ASSERT_NO_FATAL_FAILURE(
          expectCodesOf(cfg, isa, q, k, v, mask ? &*mask : nullptr, out, grid, at));
    // A row whose every key is masked by -10000 has logits rounded at that
    // magnitude (ulp 1e-3), in base 2 by the kernel and in base e by the
    // reference: there the two may differ by ~1e-3 x |v|. Every other row
    // must agree to float rounding.
    auto fullyMasked = [&](int64_t b, int64_t h, int64_t i) {
      if (!mask)
        return false;
      for (int64_t j = 0; j < c.t; ++j)
        if (mask->as<float>()[b * cfg.maskStrides[0] + h * cfg.maskStrides[1] +
                              i * cfg.maskStrides[2] + j * cfg.maskStrides[3]] > -1000.f)
          return false;
      return true;
    };
    double worst = 0, worstMasked = 0;
    for (int64_t b = 0; b < c.b; ++b)
      for (int64_t i = 0; i < c.s; ++i)
        for (int64_t h = 0; h < c.h; ++h)
          for (int64_t d = 0; d < c.d; ++d) {
            int64_t at = ((b * c.s + i) * c.h + h) * c.d + d;
            double &w = fullyMasked(b, h, i) ? worstMasked : worst;
            w = std::max<double>(w, std::fabs(out[at] - want->as<float>()[at]));
          }
    EXPECT_LT(worst, 2e-5) << "B=" << c.b << " S=" << c.s << " T=" << c.t << " H=" << c.h
                           << " D=" << c.d;
    EXPECT_LT(worstMasked, 2e-3) << "B=" << c.b << " S=" << c.s << " T=" << c.t
                                 << " H=" << c.h << " D=" << c.d;
  }
}

/// Masks holding the lowest float (exporters' and onnxruntime's optimizer's
/// mask value), times log2(e) past the float range: a row masked
/// throughout averages its keys, as the reference's (and onnxruntime's)
/// softmax of equal logits does; other rows ignore the masked keys. Both
/// the mask that broadcasts over query rows and the one per row.
TEST_P(AttentionKernelTest, MasksOfTheLowestFloatStayFinite) {
  Isa isa = GetParam();
  if (!hostHas(isa))
    GTEST_SKIP() << "the host lacks this ISA";
  const float lowest = std::numeric_limits<float>::lowest();
  std::mt19937 rng(11);
  for (auto [s, t, perRow] : {std::tuple<int64_t, int64_t, bool>{5, 7, false},
                              {5, 7, true}, {3, 17, true}, {4, 129, false}, {4, 129, true}}) {
    const int64_t h = 2, d = 16;
    AttentionConfig cfg{1, s, t, h, d, 0.37f, true};
    if (!AttentionKernel::supports(cfg, isa))
      continue;
    cfg.maskStrides[2] = perRow ? t : 0;
    cfg.maskStrides[3] = 1;
    Tensor q = nunc_test::randomTensor(rng, {1, s, h * d}, -2.f, 2.f);
    Tensor k = nunc_test::randomTensor(rng, {1, t, h * d}, -2.f, 2.f);
    Tensor v = nunc_test::randomTensor(rng, {1, t, h * d}, -2.f, 2.f);
    Tensor mask = cantFail(Tensor::create(DType::F32, {1, 1, perRow ? s : 1, t}));
    // Every other key masked; with a mask per row, row 0 masked throughout.
    for (int64_t i = 0; i < mask.numElements(); ++i)
      mask.mutableAs<float>()[i] = (i % 2 || (perRow && i < t)) ? lowest : 0.f;
    llvm::Expected<Tensor> want = kernels::attention(q, k, v, &mask, h, cfg.scale);
    ASSERT_TRUE(static_cast<bool>(want)) << llvm::toString(want.takeError());
    std::vector<float> out;
    ASSERT_NO_FATAL_FAILURE(runKernel(cfg, isa, q, k, v, &mask, out));
    double worst = 0;
    for (size_t i = 0; i < out.size(); ++i)
      worst = std::max<double>(worst, std::isfinite(out[i])
                                          ? std::fabs(out[i] - want->as<float>()[i])
                                          : INFINITY);
    EXPECT_LT(worst, 2e-5) << "S=" << s << " T=" << t << " per row " << perRow;
  }
}

/// Packed operands (nunc.attention's input_offsets): Q in a wider tensor at
/// one column offset, K and V side by side in another, as the fused Q/K/V
/// GEMM leaves them (with odd padding columns, so no stride is a multiple of
/// the vector width). The result equals the kernel's on separate operands.
TEST_P(AttentionKernelTest, ReadsPackedOperands) {
  Isa isa = GetParam();
  if (!hostHas(isa))
    GTEST_SKIP() << "the host lacks this ISA";
  std::vector<Case> cases = {{1, 7, 7, 2, 16, {1, 1, 1, 7}},
                             {2, 17, 17, 3, 32, {2, 1, 1, 17}},
                             {1, 5, 129, 1, 64, {}},
                             {1, 128, 128, 12, 32, {1, 1, 1, 128}}};
  std::mt19937 rng(5);
  for (const Case &c : cases) {
    AttentionConfig cfg{c.b, c.s, c.t, c.h, c.d, 0.37f, !c.maskShape.empty()};
    if (!AttentionKernel::supports(cfg, isa))
      continue;
    if (cfg.mask)
      cfg.maskStrides[0] = c.maskShape[0] == 1 ? 0 : c.t, cfg.maskStrides[3] = 1;
    const int64_t e = c.h * c.d, qWidth = e + 3, kvWidth = 2 * e + 5;
    Tensor qw = nunc_test::randomTensor(rng, {c.b, c.s, qWidth}, -2.f, 2.f);
    Tensor kvw = nunc_test::randomTensor(rng, {c.b, c.t, kvWidth}, -2.f, 2.f);
    std::optional<Tensor> mask;
    if (cfg.mask)
      mask = nunc_test::randomTensor(rng, c.maskShape, -2.f, 2.f);
    // The same operands unpacked.
    auto columns = [](const Tensor &w, int64_t offset, int64_t width) {
      Tensor t = cantFail(Tensor::create(DType::F32, {w.dim(0), w.dim(1), width}));
      for (int64_t r = 0; r < w.dim(0) * w.dim(1); ++r)
        for (int64_t j = 0; j < width; ++j)
          t.mutableAs<float>()[r * width + j] = w.as<float>()[r * w.dim(2) + offset + j];
      return t;
    };
    Tensor q = columns(qw, 1, e), k = columns(kvw, 2, e), v = columns(kvw, e + 4, e);
    std::vector<float> want, got;
    ASSERT_NO_FATAL_FAILURE(runKernel(cfg, isa, q, k, v, mask ? &*mask : nullptr, want));
    AttentionConfig packed = cfg;
    packed.inputStrides[0] = qWidth;
    packed.inputStrides[1] = packed.inputStrides[2] = kvWidth;
    packed.inputOffsets[0] = 1;
    packed.inputOffsets[1] = 2;
    packed.inputOffsets[2] = e + 4;
    ASSERT_NO_FATAL_FAILURE(runKernel(packed, isa, qw, kvw, kvw, mask ? &*mask : nullptr, got));
    EXPECT_EQ(got, want) << "B=" << c.b << " S=" << c.s << " T=" << c.t << " H=" << c.h
                         << " D=" << c.d;
  }
}

/// int8_products: the kernel equals the evaluator's int8 attention (the
/// same codes of Q, K and V, exact integer sums, the same factors) except
/// where a probability's code lies at a rounding tie of 255 e (the kernel's
/// 2^x against std::exp): such a code one apart moves the row's results
/// by at most 2 max|v| / (its sum of codes, at least 255). Awkward lengths,
/// keys past the registers' 128 (softmax row by row), both mask forms,
/// a head of zeros, packed operands and u8 codes of the result.
TEST_P(AttentionKernelTest, MultipliesEachHeadsInt8Codes) {
  Isa isa = GetParam();
  if (!hostHas(isa))
    GTEST_SKIP() << "the host lacks this ISA";
  // AVX-512 VNNI, or AVX2 with AVX-VNNI (EVEX-encoded on hosts with
  // AVX-512 VNNI only): on AVX2 a head dim of a multiple of 16.
  if (!__builtin_cpu_supports("avx512vnni") &&
      !(isa == Isa::Avx2 && __builtin_cpu_supports("avxvnni")))
    GTEST_SKIP() << "the host lacks VNNI for this ISA";
  AttentionConfig probe{1, 7, 7, 1, 16, 0.37f, false};
  probe.int8Products = true;
  EXPECT_TRUE(AttentionKernel::supports(probe, isa));
  probe.headDim = 8;
  EXPECT_EQ(AttentionKernel::supports(probe, isa), false);
  std::vector<Case> cases = {
      {1, 1, 1, 1, 16, {}},              {1, 7, 7, 2, 16, {1, 1, 1, 7}},
      {2, 17, 17, 3, 32, {2, 1, 1, 17}}, {1, 128, 128, 12, 32, {1, 1, 1, 128}},
      {1, 5, 129, 1, 64, {1, 1, 5, 129}}, {2, 9, 3, 4, 16, {2, 4, 9, 3}},
      {1, 6, 33, 2, 48, {}},             {1, 4, 200, 2, 32, {1, 1, 1, 200}},
      {1, 3, 40, 1, 256, {1, 1, 1, 40}}, {1, 130, 130, 2, 16, {1, 1, 130, 130}}};
  std::mt19937 rng(23);
  int64_t checked = 0;
  for (const Case &c : cases) {
    const std::string at = " B=" + std::to_string(c.b) + " S=" + std::to_string(c.s) +
                           " T=" + std::to_string(c.t) + " H=" + std::to_string(c.h) +
                           " D=" + std::to_string(c.d);
    AttentionConfig cfg{c.b, c.s, c.t, c.h, c.d, 0.37f, !c.maskShape.empty()};
    cfg.int8Products = true;
    cfg.evexVnni = isa == Isa::Avx2 && !__builtin_cpu_supports("avxvnni");
    ASSERT_TRUE(AttentionKernel::supports(cfg, isa)) << at;
    const int64_t e = c.h * c.d;
    Tensor q = nunc_test::randomTensor(rng, {c.b, c.s, e}, -2.f, 2.f);
    Tensor k = nunc_test::randomTensor(rng, {c.b, c.t, e}, -3.f, 1.f);
    Tensor v = nunc_test::randomTensor(rng, {c.b, c.t, e}, -2.f, 2.f);
    // Head 0 of K all zero where there are several (any step, codes 0).
    for (int64_t r = 0; c.h > 1 && r < c.b * c.t; ++r)
      std::fill_n(k.mutableAs<float>() + r * e, c.d, 0.f);
    std::optional<Tensor> mask = paddingMask(rng, c, cfg);
    kernels::AttentionGrids int8;
    int8.int8Products = true;
    llvm::Expected<Tensor> want =
        kernels::attention(q, k, v, mask ? &*mask : nullptr, c.h, cfg.scale, int8);
    ASSERT_TRUE(static_cast<bool>(want)) << llvm::toString(want.takeError());
    llvm::Expected<Tensor> f32 =
        kernels::attention(q, k, v, mask ? &*mask : nullptr, c.h, cfg.scale);
    ASSERT_TRUE(static_cast<bool>(f32)) << llvm::toString(f32.takeError());
    std::vector<float> out, oneSlot;
    ASSERT_NO_FATAL_FAILURE(runKernel(cfg, isa, q, k, v, mask ? &*mask : nullptr, out));
    ASSERT_NO_FATAL_FAILURE(
        runKernel(cfg, isa, q, k, v, mask ? &*mask : nullptr, oneSlot, /*slots=*/1));
    EXPECT_EQ(std::memcmp(out.data(), oneSlot.data(), out.size() * 4), 0) << at;
    const float maxV = 2.f;
    int64_t apart = 0;
    double worst = 0, error = 0, norm = 0;
    for (size_t i = 0; i < out.size(); ++i) {
      const float diff = std::fabs(out[i] - want->as<float>()[i]);
      worst = std::max<double>(worst, diff);
      apart += diff > 1e-6f * maxV;
      error += std::pow(double(out[i]) - f32->as<float>()[i], 2);
      norm += std::pow(double(f32->as<float>()[i]), 2);
    }
    EXPECT_LE(worst, 2 * maxV / 255) << at;
    EXPECT_LE(apart, static_cast<int64_t>(out.size()) / 50) << at;
    // And what it computes is the attention, to int8's resolution.
    EXPECT_LT(std::sqrt(error / norm), 0.02) << at;
    checked += static_cast<int64_t>(out.size()) - apart;
    for (AttentionConfig::U8Output grid :
         {AttentionConfig::U8Output{0.005f, 128}, AttentionConfig::U8Output{0.02f, 110}})
      ASSERT_NO_FATAL_FAILURE(
          expectCodesOf(cfg, isa, q, k, v, mask ? &*mask : nullptr, out, grid, at));
    // Packed: Q, K and V at column offsets of wider rows, the same bits.
    const int64_t width = 3 * e + 5;
    Tensor packedRows = nunc_test::randomTensor(rng, {c.b, std::max(c.s, c.t), width}, -1, 1);
    if (c.s == c.t) {
      for (int64_t r = 0; r < c.b * c.s; ++r)
        for (int64_t j = 0; j < e; ++j) {
          float *row = packedRows.mutableAs<float>() + r * width;
          row[1 + j] = q.as<float>()[r * e + j];
          row[e + 2 + j] = k.as<float>()[r * e + j];
          row[2 * e + 4 + j] = v.as<float>()[r * e + j];
        }
      AttentionConfig packed = cfg;
      for (int i = 0; i < 3; ++i)
        packed.inputStrides[i] = width;
      packed.inputOffsets[0] = 1;
      packed.inputOffsets[1] = e + 2;
      packed.inputOffsets[2] = 2 * e + 4;
      std::vector<float> got;
      ASSERT_NO_FATAL_FAILURE(runKernel(packed, isa, packedRows, packedRows, packedRows,
                                        mask ? &*mask : nullptr, got));
      EXPECT_EQ(got, out) << "packed" << at;
    }
  }
  EXPECT_GT(checked, 0);
}

/// [B, H, L, D] <-> [B, L, H*D] (merging when `toMerged`).
Tensor swapHeads(const Tensor &x, bool toMerged, int64_t heads) {
  const int64_t b = x.dim(0);
  const int64_t len = toMerged ? x.dim(2) : x.dim(1);
  const int64_t d = toMerged ? x.dim(3) : x.dim(2) / heads;
  Tensor y = cantFail(Tensor::create(DType::F32, toMerged ? std::vector<int64_t>{b, len, heads * d}
                                                          : std::vector<int64_t>{b, heads, len, d}));
  for (int64_t bi = 0; bi < b; ++bi)
    for (int64_t h = 0; h < heads; ++h)
      for (int64_t i = 0; i < len; ++i)
        for (int64_t j = 0; j < d; ++j) {
          const int64_t major = ((bi * heads + h) * len + i) * d + j;
          const int64_t merged = ((bi * len + i) * heads + h) * d + j;
          (toMerged ? y.mutableAs<float>()[merged] : y.mutableAs<float>()[major]) =
              toMerged ? x.as<float>()[major] : x.as<float>()[merged];
        }
  return y;
}

/// Heads-first operands and results ([B, H, L, D]) and grouped query heads
/// (query head h reading key and value head h / group), each operand in
/// either layout: the kernel equals itself on the same data merged, with
/// the key and value heads repeated; the evaluator's layouts equal that
/// too. Also with int8 products (on VNNI hosts), each task quantizing its
/// key and value head itself: the same bits as merged, and the evaluator's
/// up to a probability code at a rounding tie.
void checkHeadsFirstAndGroupedOperands(Isa isa, bool int8);
TEST_P(AttentionKernelTest, ReadsHeadsFirstAndGroupedOperands) {
  Isa isa = GetParam();
  if (!hostHas(isa))
    GTEST_SKIP() << "the host lacks this ISA";
  const bool vnni = __builtin_cpu_supports("avx512vnni") ||
                    (isa == Isa::Avx2 && __builtin_cpu_supports("avxvnni"));
  for (bool int8 : {false, true}) {
    if (!int8 || vnni) {
      ASSERT_NO_FATAL_FAILURE(checkHeadsFirstAndGroupedOperands(isa, int8));
    }
  }
}

void checkHeadsFirstAndGroupedOperands(Isa isa, bool int8) {
  struct Layout {
    int64_t b, s, t, h, kv, d;
    std::array<bool, 4> major;
    bool mask;
  };
  const Layout cases[] = {{1, 7, 7, 2, 2, 16, {true, true, true, true}, true},
                          {2, 17, 33, 4, 1, 32, {true, true, true, false}, true},
                          {1, 1, 129, 8, 2, 64, {true, true, true, true}, false},
                          {2, 9, 9, 6, 3, 16, {false, true, false, true}, true},
                          {1, 5, 17, 4, 2, 48, {false, false, false, false}, true},
                          {1, 128, 128, 8, 2, 64, {true, false, true, false}, true},
                          {2, 1, 40, 6, 2, 32, {false, false, false, false}, true},
                          {1, 9, 20, 4, 2, 16, {true, true, true, true}, false}};
  std::mt19937 rng(13);
  int64_t checked = 0;
  for (const Layout &c : cases) {
    AttentionConfig cfg{c.b, c.s, c.t, c.h, c.d, 0.29f, c.mask};
    cfg.kvHeads = c.kv;
    std::copy(c.major.begin(), c.major.end(), cfg.headsMajor);
    cfg.int8Products = int8;
    cfg.evexVnni = isa == Isa::Avx2 && !__builtin_cpu_supports("avxvnni");
    if (!AttentionKernel::supports(cfg, isa))
      continue;
    ++checked;
    // Merged operands; K and V of kv heads.
    Tensor q = nunc_test::randomTensor(rng, {c.b, c.s, c.h * c.d}, -2.f, 2.f);
    Tensor k = nunc_test::randomTensor(rng, {c.b, c.t, c.kv * c.d}, -2.f, 2.f);
    Tensor v = nunc_test::randomTensor(rng, {c.b, c.t, c.kv * c.d}, -2.f, 2.f);
    std::optional<Tensor> mask;
    if (c.mask) {
      mask = nunc_test::randomTensor(rng, {c.s, c.t}, -2.f, 2.f);
      cfg.maskStrides[2] = c.s == 1 ? 0 : c.t; // (as attentionConfig gives a dim of 1)
      cfg.maskStrides[3] = 1;
    }
    // Their repeats: each query head's key and value head in its place.
    auto repeated = [&](const Tensor &x) {
      Tensor y = cantFail(Tensor::create(DType::F32, {c.b, c.t, c.h * c.d}));
      for (int64_t r = 0; r < c.b * c.t; ++r)
        for (int64_t h = 0; h < c.h; ++h)
          std::memcpy(y.mutableAs<float>() + (r * c.h + h) * c.d,
                      x.as<float>() + (r * c.kv + h / (c.h / c.kv)) * c.d, c.d * 4);
      return y;
    };
    AttentionConfig plain{c.b, c.s, c.t, c.h, c.d, cfg.scale, c.mask};
    std::copy(cfg.maskStrides, cfg.maskStrides + 4, plain.maskStrides);
    plain.int8Products = int8;
    plain.evexVnni = cfg.evexVnni;
    std::vector<float> want, got;
    const Tensor *m = mask ? &*mask : nullptr;
    ASSERT_NO_FATAL_FAILURE(runKernel(plain, isa, q, repeated(k), repeated(v), m, want));
    if (c.major[3]) {
      Tensor merged = cantFail(Tensor::create(DType::F32, {c.b, c.s, c.h * c.d}));
      std::memcpy(merged.mutableAs<float>(), want.data(), want.size() * 4);
      Tensor major = swapHeads(merged, false, c.h);
      want.assign(major.as<float>(), major.as<float>() + major.numElements());
    }
    Tensor ql = c.major[0] ? swapHeads(q, false, c.h) : q;
    Tensor kl = c.major[1] ? swapHeads(k, false, c.kv) : k;
    Tensor vl = c.major[2] ? swapHeads(v, false, c.kv) : v;
    ASSERT_NO_FATAL_FAILURE(runKernel(cfg, isa, ql, kl, vl, m, got));
    const std::string what = "B=" + std::to_string(c.b) + " S=" + std::to_string(c.s) +
                             " T=" + std::to_string(c.t) + " H=" + std::to_string(c.h) +
                             " KV=" + std::to_string(c.kv) + " D=" + std::to_string(c.d);
    EXPECT_EQ(got, want) << what;
    // One task per key head, its query heads as rows (one query row, or
    // heads first without a mask): the same bits (int8: K and V quantized
    // once for the task, each query head's rows on a Q step of their own).
    if (std::optional<AttentionConfig> rows = AttentionKernel::groupedRows(cfg)) {
      EXPECT_TRUE(c.s == 1 || (!c.mask && c.major[0] && c.major[3])) << what;
      EXPECT_EQ(AttentionKernel::numTasks(*rows), c.b * c.kv) << what;
      std::vector<float> grouped;
      ASSERT_NO_FATAL_FAILURE(runKernel(*rows, isa, ql, kl, vl, m, grouped));
      EXPECT_EQ(grouped, want) << what << " (grouped rows)";
      // And their u8 codes (u8Output: a static int8 model's decoder step),
      // written heads first.
      ASSERT_NO_FATAL_FAILURE(
          expectCodesOf(*rows, isa, ql, kl, vl, m, want, {0.0173f, 97}, what + " (u8 rows)"));
    } else {
      EXPECT_FALSE(c.kv != c.h && (c.s == 1 || (!c.mask && c.major[0] && c.major[3]))) << what;
    }
    kernels::AttentionLayout layout;
    std::copy(c.major.begin(), c.major.end(), layout.headsMajor);
    layout.kvHeads = c.kv;
    kernels::AttentionGrids grids;
    grids.int8Products = int8;
    llvm::Expected<Tensor> ref =
        kernels::attention(ql, kl, vl, m, c.h, cfg.scale, grids, layout);
    ASSERT_TRUE(static_cast<bool>(ref)) << llvm::toString(ref.takeError());
    double worst = 0;
    int64_t apart = 0;
    for (size_t i = 0; i < got.size(); ++i) {
      const double diff = std::fabs(got[i] - ref->as<float>()[i]);
      worst = std::max(worst, diff);
      apart += diff > 2e-6;
    }
    // int8: a probability code one apart at a rounding tie moves a row by
    // at most 2 max|v| / 255 (|v| < 2).
    EXPECT_LT(worst, int8 ? 4.0 / 255 : 2e-5) << what;
    EXPECT_LE(apart, int8 ? static_cast<int64_t>(got.size()) / 50 : int64_t(got.size())) << what;
  }
  EXPECT_GT(checked, 0);
}

/// Causal and windowed constant masks (-inf or the lowest float past each
/// row's last key): given each row's keys (rowKeys), the kernel skips the
/// key chunks and P V terms past them. A skipped probability is at most
/// 2^-126 (the exponential's floor): with values of ordinary size, the same
/// bits as without. A row masked whole keeps all its keys. S, T, the past
/// and the head size (which sets the rows of a P V block: 6 or 2 on
/// AVX-512, 3 on AVX2, against 3 and 2 for the scores) chosen so that rows
/// and blocks end inside, at and past chunk edges (128 keys on AVX-512, 48
/// on AVX2), in full row blocks and the rest; each task's scratch starts as
/// NaN, so a probability P V reads but the scores skipped shows.
TEST_P(AttentionKernelTest, SkipsTheKeysACausalMaskLeavesNoRow) {
  Isa isa = GetParam();
  if (!hostHas(isa))
    GTEST_SKIP() << "the host lacks this ISA";
  struct Causal {
    int64_t s, t, past, window; // window: the first key is i + past - window (-1: none)
    float masked;
    bool wholeRow;              // row 1 masked whole
    int64_t d;
    int64_t wholeEvery = 0;     // > 0: also the rows of every other block of this many
  };
  const float inf = std::numeric_limits<float>::infinity();
  const Causal cases[] = {{256, 256, 0, -1, -inf, false, 32},
                          {128, 300, 172, -1, std::numeric_limits<float>::lowest(), false, 32},
                          {100, 100, 0, 20, -inf, false, 32},
                          {7, 161, 154, -1, -inf, true, 32},
                          {131, 131, 0, -1, -1e30f, false, 32},
                          {300, 300, 0, -1, -inf, false, 64},
                          {150, 155, 5, -1, -inf, false, 16},
                          {150, 155, 5, -1, -inf, false, 128},
                          {150, 151, 1, -1, -inf, false, 16},
                          {150, 152, 2, -1, -inf, false, 8},
                          // Rows in registers (AVX-512, T <= 128): each
                          // block computes the vectors its keys take.
                          {128, 128, 0, -1, -inf, false, 32},
                          {100, 100, 0, -1, std::numeric_limits<float>::lowest(), false, 64},
                          {40, 113, 73, -1, -inf, false, 16},
                          {17, 17, 0, 5, -1e30f, false, 32},
                          {5, 20, 15, -1, -inf, true, 128},
                          {64, 64, 0, -1, -inf, false, 256},
                          // Counts that go up and down with every block of P V
                          // (6 rows): 7 loops, and at 90 rows more loops than
                          // vectors, so whole rows instead.
                          {40, 40, 0, -1, -inf, false, 32, 6},
                          {90, 90, 0, -1, -inf, false, 32, 6}};
  const bool vnni = __builtin_cpu_supports("avx512vnni") ||
                    (isa == Isa::Avx2 && __builtin_cpu_supports("avxvnni"));
  std::mt19937 rng(17);
  // Each case in f32, then with int8 products (their skipped
  // probabilities' codes are 0) where the host has VNNI.
  const size_t n = std::size(cases);
  for (size_t pass = 0; pass < (vnni ? 2 * n : n); ++pass) {
    const bool int8 = pass >= n;
    const Causal &k = cases[pass % n];
    const int64_t h = 2, d = k.d;
    AttentionConfig cfg{1, k.s, k.t, h, d, 0.31f, true};
    cfg.maskStrides[2] = k.t;
    cfg.maskStrides[3] = 1;
    cfg.int8Products = int8;
    cfg.evexVnni = isa == Isa::Avx2 && !__builtin_cpu_supports("avxvnni");
    if (!AttentionKernel::supports(cfg, isa))
      continue;
    Tensor q = nunc_test::randomTensor(rng, {1, k.s, h * d}, -2.f, 2.f);
    Tensor key = nunc_test::randomTensor(rng, {1, k.t, h * d}, -2.f, 2.f);
    Tensor v = nunc_test::randomTensor(rng, {1, k.t, h * d}, -2.f, 2.f);
    Tensor mask = cantFail(Tensor::create(DType::F32, {k.s, k.t}));
    for (int64_t i = 0; i < k.s; ++i) {
      int64_t last = i + k.past; // the last key row i sees
      const bool whole = (k.wholeRow && i == 1) || (k.wholeEvery && i / k.wholeEvery % 2 == 1);
      cfg.rowKeys.push_back(whole ? k.t : std::min(last + 1, k.t));
      for (int64_t j = 0; j < k.t; ++j) {
        bool seen = j <= last && (k.window < 0 || j >= last - k.window) && !whole;
        mask.mutableAs<float>()[i * k.t + j] = seen ? 0.5f * std::sin(float(i + j)) : k.masked;
      }
    }
    AttentionConfig all = cfg;
    all.rowKeys.clear();
    std::vector<float> want, got;
    ASSERT_NO_FATAL_FAILURE(runKernel(all, isa, q, key, v, &mask, want));
    ASSERT_NO_FATAL_FAILURE(runKernel(cfg, isa, q, key, v, &mask, got));
    const std::string what = "S=" + std::to_string(k.s) + " T=" + std::to_string(k.t) +
                             " past " + std::to_string(k.past) + " D=" + std::to_string(d) +
                             (int8 ? " int8" : "");
    EXPECT_TRUE(AttentionKernel::skipsMaskedKeys(cfg)) << what;
    EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size() * 4), 0) << what;
    // And both equal the reference (int8: up to a probability code at a
    // rounding tie, 2 max|v| / 255).
    kernels::AttentionGrids grids;
    grids.int8Products = int8;
    llvm::Expected<Tensor> ref =
        kernels::attention(q, key, v, &mask, h, cfg.scale, grids, kernels::AttentionLayout());
    ASSERT_TRUE(static_cast<bool>(ref)) << llvm::toString(ref.takeError());
    double worst = 0;
    for (size_t i = 0; i < got.size(); ++i) {
      const int64_t row = static_cast<int64_t>(i / (h * d));
      if (!(k.wholeRow && row == 1) && !(k.wholeEvery && row / k.wholeEvery % 2 == 1))
        worst = std::max<double>(worst, std::fabs(got[i] - ref->as<float>()[i]));
    }
    EXPECT_LT(worst, int8 ? 4.0 / 255 : 2e-5) << what;
  }
}

/// Grouped query heads as rows of their key head's task (heads first, a
/// key-padding mask the same for every row) that also skip the padded keys
/// (rowKeys): the same bits as each query head's own task reading every
/// key, in f32 and with int8 products (VNNI hosts).
TEST_P(AttentionKernelTest, GroupedRowsSkipPaddedKeys) {
  Isa isa = GetParam();
  if (!hostHas(isa))
    GTEST_SKIP() << "the host lacks this ISA";
  const bool vnni = __builtin_cpu_supports("avx512vnni") ||
                    (isa == Isa::Avx2 && __builtin_cpu_supports("avxvnni"));
  struct Case {
    int64_t s, t, kept, d;
  };
  std::mt19937 rng(29);
  int64_t checked = 0;
  for (bool int8 : {false, true}) {
    if (int8 && !vnni)
      continue;
    for (const Case &k : {Case{5, 300, 161, 32}, Case{9, 140, 37, 16}, Case{3, 64, 64, 64}}) {
      AttentionConfig plain{1, k.s, k.t, 4, k.d, 0.27f, true};
      plain.kvHeads = 2;
      std::fill(plain.headsMajor, plain.headsMajor + 4, true);
      plain.maskStrides[3] = 1;
      plain.int8Products = int8;
      plain.evexVnni = isa == Isa::Avx2 && !__builtin_cpu_supports("avxvnni");
      std::optional<AttentionConfig> rows = AttentionKernel::groupedRows(plain);
      ASSERT_TRUE(rows.has_value());
      AttentionConfig skipping = *rows;
      skipping.rowKeys.assign(skipping.seq, k.kept);
      if (!AttentionKernel::supports(skipping, isa))
        continue;
      ++checked;
      const std::string what = "S=" + std::to_string(k.s) + " T=" + std::to_string(k.t) +
                               " kept " + std::to_string(k.kept) + (int8 ? " int8" : "");
      EXPECT_TRUE(AttentionKernel::skipsMaskedKeys(skipping)) << what;
      Tensor q = nunc_test::randomTensor(rng, {1, 4, k.s, k.d}, -2.f, 2.f);
      Tensor key = nunc_test::randomTensor(rng, {1, 2, k.t, k.d}, -2.f, 2.f);
      Tensor v = nunc_test::randomTensor(rng, {1, 2, k.t, k.d}, -2.f, 2.f);
      Tensor mask = nunc_test::randomTensor(rng, {k.t}, -1.f, 1.f);
      for (int64_t j = k.kept; j < k.t; ++j)
        mask.mutableAs<float>()[j] = -INFINITY;
      std::vector<float> want, got;
      ASSERT_NO_FATAL_FAILURE(runKernel(plain, isa, q, key, v, &mask, want));
      ASSERT_NO_FATAL_FAILURE(runKernel(skipping, isa, q, key, v, &mask, got));
      EXPECT_EQ(got, want) << what;
    }
  }
  EXPECT_GT(checked, 0);
}

/// `count` u8 codes, uniform with runs of 0 and 255 (a tenth each: the
/// largest products and the grids' ends).
std::vector<uint8_t> randomCodes(std::mt19937 &rng, size_t count) {
  std::vector<uint8_t> codes(count);
  std::uniform_int_distribution<int> code(0, 255), run(0, 9);
  for (uint8_t &b : codes) {
    int r = run(rng);
    b = r == 0 ? 0 : r == 1 ? 255 : static_cast<uint8_t>(code(rng));
  }
  return codes;
}

/// u8 grids (zero point 0..255) as the kernel's FakeQuant and the
/// evaluator's Grid.
Activation kernelGrid(float scale, int64_t zeroPoint) {
  return Activation::fakeQuant(scale, static_cast<float>(-zeroPoint),
                               static_cast<float>(255 - zeroPoint));
}
kernels::Grid referenceGrid(float scale, int64_t zeroPoint) {
  return kernels::Grid{scale, zeroPoint, 0, 255};
}

/// A QDQ model's attention: every intermediate rounded to its grid
/// ((scale, zero point) of scores, scaled, masked, softmax, P V; no
/// probability grid where its scale is 0). The kernel's own exp and sums
/// may put a value at a rounding tie on the neighbouring grid point, so
/// the output must lie on its grid, within one step of the reference
/// everywhere and equal to it almost everywhere. Inputs uniform in
/// [-range, range]; a mask of random values.
void expectOnTheReferenceGrids(Isa isa, const std::vector<Case> &cases, float scale,
                               const std::array<std::pair<float, int64_t>, 5> &grids,
                               float range, uint32_t seed) {
  const auto [outStep, outZero] = grids[4];
  kernels::AttentionGrids want{referenceGrid(grids[0].first, grids[0].second),
                               referenceGrid(grids[1].first, grids[1].second),
                               referenceGrid(grids[2].first, grids[2].second), std::nullopt,
                               referenceGrid(outStep, outZero)};
  if (grids[3].first)
    want.probs = referenceGrid(grids[3].first, grids[3].second);
  std::mt19937 rng(seed);
  auto random = [&](std::vector<int64_t> shape) {
    return nunc_test::randomTensor(rng, std::move(shape), -range, range);
  };
  for (const Case &c : cases) {
    AttentionConfig cfg{c.b, c.s, c.t, c.h, c.d, scale, !c.maskShape.empty()};
    if (!AttentionKernel::supports(cfg, isa))
      continue;
    cfg.scores = kernelGrid(grids[0].first, grids[0].second);
    cfg.scaled = kernelGrid(grids[1].first, grids[1].second);
    cfg.logits = kernelGrid(grids[2].first, grids[2].second);
    if (grids[3].first)
      cfg.probs = kernelGrid(grids[3].first, grids[3].second);
    cfg.output = kernelGrid(outStep, outZero);
    int64_t e = c.h * c.d;
    Tensor q = random({c.b, c.s, e}), k = random({c.b, c.t, e}), v = random({c.b, c.t, e});
    std::optional<Tensor> mask;
    if (!c.maskShape.empty()) {
      mask = random(c.maskShape);
      cfg.maskStrides[0] = c.maskShape[0] == 1 ? 0 : c.t;
      cfg.maskStrides[3] = 1;
    }
    llvm::Expected<Tensor> ref =
        kernels::attention(q, k, v, mask ? &*mask : nullptr, c.h, cfg.scale, want);
    ASSERT_TRUE(static_cast<bool>(ref)) << llvm::toString(ref.takeError());
    std::vector<float> out;
    ASSERT_NO_FATAL_FAILURE(runKernel(cfg, isa, q, k, v, mask ? &*mask : nullptr, out));
    int64_t equal = 0, n = ref->numElements();
    for (int64_t i = 0; i < n; ++i) {
      float got = out[i], r = ref->as<float>()[i];
      ASSERT_EQ(got / outStep, std::nearbyint(got / outStep)) << "off the output grid at " << i;
      ASSERT_LE(std::fabs(got - r), outStep * 1.0001f) << "at " << i;
      equal += got == r;
    }
    EXPECT_GE(equal, n * 0.95) << "B=" << c.b << " S=" << c.s << " T=" << c.t << " H=" << c.h
                               << " D=" << c.d
                               << (grids[3].first ? "" : ", no probability grid");
  }
}

TEST_P(AttentionKernelTest, RoundsToTheQdqGrids) {
  Isa isa = GetParam();
  if (!hostHas(isa))
    GTEST_SKIP() << "the host lacks this ISA";
  std::vector<Case> cases = {{1, 1, 1, 1, 16, {}},
                             {1, 7, 17, 2, 16, {1, 1, 1, 17}},
                             {2, 17, 9, 3, 32, {2, 1, 1, 9}},
                             {1, 128, 128, 12, 32, {1, 1, 1, 128}},
                             {1, 5, 129, 1, 64, {}}};
  // With and without a grid on the probabilities: rows of at most 128 keys
  // take the AVX-512 kernel's softmax in registers either way (in base e).
  for (float probs : {1.f / 256, 0.f})
    expectOnTheReferenceGrids(isa, cases, 0.5f,
                              {{{0.0625f, 128}, {0.05f, 128}, {0.0625f, 200}, {probs, 0},
                                {1.f / 64, 128}}},
                              1.f, 11);
}

/// quantize_static calibrates the scaled scores' range as the scores' range
/// times the scale, so their grid follows (MiniLM's first attention: step
/// 0.2594 times 1/sqrt(32) is 0.04585, zero point 128 on both): the kernel
/// then rounds the scores once and takes the integer's value on the second
/// grid. A step off by a hair, or a narrower second range, does not follow.
/// The reference rounds twice; the results agree in all three cases
/// (scores reach past the grids' ends: inputs in [-3, 3]).
TEST_P(AttentionKernelTest, RoundsTheScaledScoresOnceWhereTheirGridFollows) {
  Isa isa = GetParam();
  if (!hostHas(isa))
    GTEST_SKIP() << "the host lacks this ISA";
  const float scale = 0.176776692f, scoresStep = 0.25938662886619568f,
              scaledStep = 0.045853510499000549f;
  AttentionConfig follows{1, 1, 1, 1, 16, scale};
  follows.scores = kernelGrid(scoresStep, 128);
  follows.scaled = kernelGrid(scaledStep, 128);
  EXPECT_TRUE(AttentionKernel::scaledGridFollows(follows));
  AttentionConfig offByAHair = follows;
  offByAHair.scaled = kernelGrid(scaledStep * 1.01f, 128);
  EXPECT_FALSE(AttentionKernel::scaledGridFollows(offByAHair));
  AttentionConfig narrower = follows;
  narrower.scaled = kernelGrid(scaledStep, 100);
  EXPECT_FALSE(AttentionKernel::scaledGridFollows(narrower));
  std::vector<Case> cases = {{1, 7, 17, 2, 16, {1, 1, 1, 17}},
                             {1, 128, 128, 12, 32, {1, 1, 1, 128}}};
  for (auto [step, zero] : {std::pair<float, int64_t>{scaledStep, 128},
                            {scaledStep * 1.01f, 128}, {scaledStep, 100}})
    expectOnTheReferenceGrids(isa, cases, scale,
                              {{{scoresStep, 128}, {step, zero}, {step, zero}, {1.f / 255, 0},
                                {1.f / 64, 114}}},
                              3.f, 13);
}

/// u8 inputs (AttentionConfig::u8Inputs): Q, K and V are the codes of
/// their QDQ grids, and Q K^T and P V run as vpdpbusd on codes. The
/// reference runs on the codes' values with the same grids; the kernel's
/// sums are exact where the reference's are float, so as with f32 inputs a
/// value at a rounding tie may land on the neighbouring grid point. Zero
/// points 0, 255 and between; codes uniform with runs of 0 and 255 (the
/// largest products); keys not a multiple of 4 or 16, rows past 128 keys
/// (softmax through memory), head dims with tails of 16 and 48 bytes. The
/// AVX2 kernel (AVX-VNNI hosts; EVEX-encoded where the host has AVX-512
/// VNNI instead) as well.
TEST_P(AttentionKernelTest, ComputesOnTheU8CodesOfQdqGrids) {
  const Isa isa = GetParam();
  const bool avxVnni = __builtin_cpu_supports("avxvnni");
  const bool evexVnni = !avxVnni && __builtin_cpu_supports("avx512vnni") &&
                        __builtin_cpu_supports("avx512vl");
  if (!hostHas(isa) ||
      (isa == Isa::Avx512 ? !__builtin_cpu_supports("avx512vnni") : !avxVnni && !evexVnni))
    GTEST_SKIP() << "the host lacks VNNI for this ISA";
  EXPECT_FALSE(AttentionKernel::supports(
      [] {
        AttentionConfig u8{1, 1, 1, 1, 16};
        u8.u8Inputs = true;
        return u8;
      }(),
      isa))
      << "u8 inputs need grids";
  std::vector<Case> cases = {{1, 1, 1, 1, 16, {}},
                             {1, 7, 7, 2, 16, {1, 1, 1, 7}},
                             {2, 17, 17, 3, 32, {2, 1, 1, 17}},
                             {1, 128, 128, 12, 32, {1, 1, 1, 128}},
                             {1, 5, 129, 1, 64, {1, 1, 1, 129}},
                             {1, 6, 33, 2, 48, {}},
                             {1, 4, 130, 1, 208, {1, 1, 1, 130}},
                             {1, 3, 40, 1, 256, {}}};
  struct Zeros {
    int64_t q, k, v;
  };
  // The probabilities' grid: u8 1/255 as quantize_static writes it; a zero
  // point (its code index minus the lowest code, and P V's column terms);
  // 1/256 (255 steps end below 1: the index clamps); s8 codes. And the
  // probability grid alone (no score or output grid: base-2 logits).
  struct Probs {
    float scale;
    int64_t zero, lo, hi;
    bool alone;
  };
  std::mt19937 rng(17);
  for (Probs p : {Probs{1.f / 255, 0, 0, 255, false}, Probs{1.f / 200, 30, 0, 255, false},
                  Probs{1.f / 256, 0, 0, 255, false}, Probs{1.f / 127, 0, -128, 127, false},
                  Probs{1.f / 255, 0, 0, 255, true}})
    for (Zeros z : {Zeros{128, 128, 128}, Zeros{0, 255, 37}, Zeros{255, 0, 200}}) {
      if (p.scale != 1.f / 255 && z.q != 0)
        continue; // the other probability grids with one set of zero points
      SCOPED_TRACE("probability grid " + std::to_string(p.scale) + ":" +
                   std::to_string(p.zero) + (p.alone ? " alone" : "") + ", zero points " +
                   std::to_string(z.q) + " " + std::to_string(z.k) + " " + std::to_string(z.v));
      const float qStep = 0.04f, kStep = 0.035f, vStep = 0.02f, scale = 0.25f;
      const kernels::Grid probsRef{p.scale, p.zero, p.lo, p.hi};
      const Activation probsGrid = Activation::fakeQuant(
          p.scale, static_cast<float>(p.lo - p.zero), static_cast<float>(p.hi - p.zero));
      kernels::AttentionGrids want{referenceGrid(0.25f, 128), referenceGrid(0.0625f, 128),
                                   referenceGrid(0.0625f, 200), probsRef,
                                   referenceGrid(1.f / 64, 114)};
      if (p.alone)
        want = kernels::AttentionGrids{std::nullopt, std::nullopt, std::nullopt, probsRef,
                                       std::nullopt};
      for (const Case &c : cases) {
        AttentionConfig cfg{c.b, c.s, c.t, c.h, c.d, scale, !c.maskShape.empty()};
        if (!p.alone) {
          cfg.scores = kernelGrid(0.25f, 128);
          cfg.scaled = kernelGrid(0.0625f, 128);
          cfg.logits = kernelGrid(0.0625f, 200);
          cfg.output = kernelGrid(1.f / 64, 114);
        }
        cfg.probs = probsGrid;
        cfg.u8Inputs = true;
        cfg.evexVnni = isa == Isa::Avx2 && evexVnni;
        cfg.inputGrids[0] = kernelGrid(qStep, z.q);
        cfg.inputGrids[1] = kernelGrid(kStep, z.k);
        cfg.inputGrids[2] = kernelGrid(vStep, z.v);
        ASSERT_TRUE(AttentionKernel::supports(cfg, isa)) << "D=" << c.d;
        const int64_t e = c.h * c.d;
        // Codes and their values.
        auto operand = [&](int64_t rows, float step, int64_t zero, Tensor &values) {
          std::vector<uint8_t> codes = randomCodes(rng, c.b * rows * e);
          std::vector<float> f(codes.size());
          for (size_t i = 0; i < codes.size(); ++i)
            f[i] = step * static_cast<float>(codes[i] - zero);
          values = llvm::cantFail(Tensor::copyOf(DType::F32, {c.b, rows, e}, f.data()));
          return llvm::cantFail(Tensor::copyOf(DType::U8, {c.b, rows, e}, codes.data()));
        };
        Tensor qv, kv, vv;
        Tensor q = operand(c.s, qStep, z.q, qv), k = operand(c.t, kStep, z.k, kv),
               v = operand(c.t, vStep, z.v, vv);
        std::optional<Tensor> mask;
        if (!c.maskShape.empty()) {
          mask = nunc_test::randomTensor(rng, c.maskShape, -1.f, 1.f);
          cfg.maskStrides[0] = c.maskShape[0] == 1 ? 0 : c.t;
          cfg.maskStrides[3] = 1;
        }
        llvm::Expected<Tensor> ref =
            kernels::attention(qv, kv, vv, mask ? &*mask : nullptr, c.h, scale, want);
        ASSERT_TRUE(static_cast<bool>(ref)) << llvm::toString(ref.takeError());
        std::vector<float> out, oneSlot;
        ASSERT_NO_FATAL_FAILURE(runKernel(cfg, isa, q, k, v, mask ? &*mask : nullptr, out));
        ASSERT_NO_FATAL_FAILURE(
            runKernel(cfg, isa, q, k, v, mask ? &*mask : nullptr, oneSlot, /*slots=*/1));
        EXPECT_EQ(std::memcmp(out.data(), oneSlot.data(), out.size() * 4), 0);
        const std::string at = " B=" + std::to_string(c.b) + " S=" + std::to_string(c.s) +
                               " T=" + std::to_string(c.t) + " H=" + std::to_string(c.h) +
                               " D=" + std::to_string(c.d);
        // The output grid's codes in place of its values (the values with
        // no grid: on 1/64 with zero point 114 all the same).
        ASSERT_NO_FATAL_FAILURE(expectCodesOf(cfg, isa, q, k, v, mask ? &*mask : nullptr, out,
                                              {1.f / 64, 114}, at));
        // Without an output grid (`out` unrounded), a scale whose
        // reciprocal is inexact: the row factor folded with it.
        if (p.alone) {
          ASSERT_NO_FATAL_FAILURE(expectCodesOf(cfg, isa, q, k, v, mask ? &*mask : nullptr,
                                                out, {0.0173f, 97}, at));
        }
        int64_t equal = 0, n = ref->numElements();
        for (int64_t i = 0; i < n; ++i) {
          float got = out[i], r = ref->as<float>()[i];
          if (p.alone) {
            // No output grid: a probability at a rounding tie moves the
            // value by one step times a value of V (|v| <= 5.1).
            ASSERT_LE(std::fabs(got - r), 2 * p.scale * 5.1f) << "at " << i << at;
            equal += std::fabs(got - r) <= 1e-5f * std::max(1.f, std::fabs(r));
            continue;
          }
          const float outStep = 1.f / 64;
          ASSERT_EQ(got / outStep, std::nearbyint(got / outStep))
              << "off the output grid at " << i;
          ASSERT_LE(std::fabs(got - r), outStep * 1.0001f) << "at " << i << at;
          equal += got == r;
        }
        EXPECT_GE(equal, n * 0.95) << at;
      }
    }
}

/// qlinear_arithmetic (AttentionConfig::qlinear): onnxruntime's steps, so
/// the kernel equals the evaluator's attentionQLinear bit for bit. Scaled
/// grids that follow the scores' by a shift of 0 or 3 codes, and one that
/// does not (the table through a gather); the Div by sqrt(32) and a Mul
/// (no divisor); masks the same for every query row (a term row per task)
/// and per row (terms per element), on a grid with a zero point; zero
/// points 0, 255 and between; keys not a multiple of 4 or 16, rows past
/// 128 keys; probabilities on 1/255 as quantize_static writes it
/// (floor(1 / s) = 254) and on a grid with a zero point; the mask's codes
/// added as s8 (signed_codes: the sums' rounding differs). AVX-512 only.
TEST_P(AttentionKernelTest, ComputesOnnxruntimesQLinearStepsExactly) {
  const Isa isa = GetParam();
  AttentionConfig probe{1, 1, 1, 1, 16};
  probe.u8Inputs = probe.qlinear = true;
  for (Activation *g : {&probe.scores, &probe.scaled, &probe.probs, &probe.output,
                        &probe.inputGrids[0], &probe.inputGrids[1], &probe.inputGrids[2]})
    *g = kernelGrid(0.1f, 128);
  if (isa != Isa::Avx512) {
    EXPECT_FALSE(AttentionKernel::supports(probe, isa));
    return;
  }
  if (!hostHas(isa) || !__builtin_cpu_supports("avx512vnni"))
    GTEST_SKIP() << "the host lacks AVX-512 VNNI";
  ASSERT_TRUE(AttentionKernel::supports(probe, isa));
  AttentionConfig narrow = probe;
  narrow.probs = Activation::fakeQuant(1.f / 127, 0, 127);
  EXPECT_FALSE(AttentionKernel::supports(narrow, isa)) << "a grid of 128 codes";

  std::vector<Case> cases = {{1, 1, 1, 1, 16, {}},
                             {1, 7, 7, 2, 16, {1, 1, 1, 7}},
                             {2, 17, 17, 3, 32, {2, 1, 1, 17}},
                             {1, 128, 128, 12, 32, {1, 1, 1, 128}},
                             {1, 5, 129, 1, 64, {1, 1, 5, 129}},
                             {1, 6, 33, 2, 48, {}},
                             {2, 4, 130, 1, 208, {2, 1, 4, 130}},
                             {1, 3, 40, 1, 256, {1, 1, 1, 40}}};
  struct Steps {
    float scaledStep;
    int64_t scaledZero;
    float divisor; // 0: times the scale
    float probsStep;
    int64_t probsZero;
    bool signedCodes = false; // the mask's codes add as s8
    // The masked scores' grid (0: 1.5 times the scaled step, zero point
    // 190) and the mask's zero point.
    float logitsStep = 0;
    int64_t logitsZero = 190, maskZero = 200;
  };
  const float sqrt32 = 5.65685415f;
  std::mt19937 rng(23);
  for (Steps st : {Steps{0.25f / sqrt32, 128, sqrt32, 0.0039215688593685627f, 0},
                   Steps{0.25f / sqrt32, 125, sqrt32, 1.f / 200, 30},
                   Steps{0.05f, 100, sqrt32, 0.0039215688593685627f, 0},
                   Steps{0.0625f, 120, 0, 1.f / 255, 0},
                   // Grids on which ~4 % of the (scaled, mask) code pairs
                   // add to another code as s8 than as u8.
                   Steps{0.04375f, 128, sqrt32, 0.0039215688593685627f, 0, true, 0.075f, 128,
                         128}})
    for (std::array<int64_t, 3> z : {std::array<int64_t, 3>{128, 128, 128}, {0, 255, 37},
                                     {255, 0, 200}}) {
      SCOPED_TRACE("scaled " + std::to_string(st.scaledStep) + ":" +
                   std::to_string(st.scaledZero) + " divisor " + std::to_string(st.divisor) +
                   ", probs " + std::to_string(st.probsStep) + ":" +
                   std::to_string(st.probsZero) + (st.signedCodes ? " s8" : "") +
                   ", zero points " + std::to_string(z[0]) +
                   " " + std::to_string(z[1]) + " " + std::to_string(z[2]));
      const float scale = st.divisor ? 1.f / st.divisor : 0.25f;
      const std::array<float, 3> steps = {0.04f, 0.035f, 0.02f};
      const kernels::Grid maskRef = referenceGrid(0.05f, st.maskZero);
      const float logitsStep = st.logitsStep ? st.logitsStep : st.scaledStep * 1.5f;
      kernels::AttentionGrids want{referenceGrid(0.25f, 128),
                                   referenceGrid(st.scaledStep, st.scaledZero),
                                   referenceGrid(logitsStep, st.logitsZero),
                                   referenceGrid(st.probsStep, st.probsZero),
                                   referenceGrid(1.f / 64, 114)};
      const std::array<kernels::Grid, 3> inputs = {referenceGrid(steps[0], z[0]),
                                                   referenceGrid(steps[1], z[1]),
                                                   referenceGrid(steps[2], z[2])};
      for (const Case &c : cases) {
        AttentionConfig cfg{c.b, c.s, c.t, c.h, c.d, scale, !c.maskShape.empty()};
        cfg.u8Inputs = cfg.qlinear = true;
        cfg.signedCodes = st.signedCodes;
        cfg.scaleDivisor = st.divisor;
        cfg.scores = kernelGrid(0.25f, 128);
        cfg.scaled = kernelGrid(st.scaledStep, st.scaledZero);
        if (cfg.mask) {
          cfg.logits = kernelGrid(logitsStep, st.logitsZero);
          cfg.maskGrid = kernelGrid(maskRef.scale, maskRef.zeroPoint);
        }
        cfg.probs = kernelGrid(st.probsStep, st.probsZero);
        cfg.output = kernelGrid(1.f / 64, 114);
        for (int i = 0; i < 3; ++i)
          cfg.inputGrids[i] = kernelGrid(steps[i], z[i]);
        ASSERT_TRUE(AttentionKernel::supports(cfg, isa)) << "D=" << c.d;
        const int64_t e = c.h * c.d;
        auto codes = [&](std::vector<int64_t> shape) {
          std::vector<uint8_t> bytes = randomCodes(rng, shape[0] * shape[1] * shape[2]);
          return llvm::cantFail(Tensor::copyOf(DType::U8, shape, bytes.data()));
        };
        Tensor q = codes({c.b, c.s, e}), k = codes({c.b, c.t, e}), v = codes({c.b, c.t, e});
        std::optional<Tensor> mask;
        if (cfg.mask) {
          // Values on the mask's grid (codes 0 .. 255, many at its lowest).
          int64_t n = 1;
          for (int64_t d : c.maskShape)
            n *= d;
          std::vector<float> m(n);
          std::uniform_int_distribution<int> code(0, 255), low(0, 3);
          for (float &x : m)
            x = static_cast<float>((low(rng) == 0 ? 0 : code(rng)) - maskRef.zeroPoint) *
                maskRef.scale;
          mask = llvm::cantFail(Tensor::copyOf(DType::F32, c.maskShape, m.data()));
          cfg.maskStrides[0] = c.maskShape[0] == 1 ? 0 : c.maskShape[2] * c.t;
          cfg.maskStrides[2] = c.maskShape[2] == 1 ? 0 : c.t;
          cfg.maskStrides[3] = 1;
        } else {
          want.logits.reset();
        }
        llvm::Expected<Tensor> ref = kernels::attentionQLinear(
            q, k, v, mask ? &*mask : nullptr, c.h, scale, st.divisor, want, inputs,
            cfg.mask ? std::optional<kernels::Grid>(maskRef) : std::nullopt, st.signedCodes);
        if (!cfg.mask)
          want.logits = referenceGrid(logitsStep, st.logitsZero);
        ASSERT_TRUE(static_cast<bool>(ref)) << llvm::toString(ref.takeError());
        std::vector<float> out;
        ASSERT_NO_FATAL_FAILURE(runKernel(cfg, isa, q, k, v, mask ? &*mask : nullptr, out));
        const std::string at = " B=" + std::to_string(c.b) + " S=" + std::to_string(c.s) +
                               " T=" + std::to_string(c.t) + " H=" + std::to_string(c.h) +
                               " D=" + std::to_string(c.d);
        int64_t differ = 0, firstAt = -1;
        for (int64_t i = 0, n = ref->numElements(); i < n; ++i)
          if (out[i] != ref->as<float>()[i] && differ++ == 0)
            firstAt = i;
        EXPECT_EQ(differ, 0) << "first at " << firstAt << ": " << out[firstAt] << " vs "
                             << ref->as<float>()[firstAt] << at;
        // P V's codes as they are, in place of their values.
        ASSERT_NO_FATAL_FAILURE(expectCodesOf(cfg, isa, q, k, v, mask ? &*mask : nullptr, out,
                                              {1.f / 64, 114}, at));
      }
    }
}

INSTANTIATE_TEST_SUITE_P(Isas, AttentionKernelTest, ::testing::Values(Isa::Avx512, Isa::Avx2),
                         [](const auto &info) {
                           return info.param == Isa::Avx512 ? std::string("avx512")
                                                            : std::string("avx2");
                         });

} // namespace
