//===- VectorMath.cpp - exp and activations in generated x86 code ---------===//
//
// exp: range reduction x = n ln2 + r, |r| <= ln2/2, Taylor polynomial of
// degree 7 (relative error below 1e-7), times 2^n; exp2 the same without
// the multiplication by log2(e) and the two-part ln 2. erf (for GELU): a
// rational approximation x P(x^2) / Q(x^2) fitted for nunc on [0, 4]
// (max absolute error 3.4e-7 in float32); |x| is clamped to 4, where erf is 1
// to float precision.
//
//===----------------------------------------------------------------------===//

#include "JitSupport.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <type_traits>

namespace mlir::nunc::x86 {

Activation Activation::fromName(const std::string &name, float min, float max, float alpha) {
  Activation a;
  a.min = min;
  a.max = max;
  a.alpha = alpha;
  if (name == "relu") a.kind = Relu;
  else if (name == "leaky_relu") a.kind = LeakyRelu;
  else if (name == "clip") a.kind = Clip;
  else if (name == "sigmoid") a.kind = Sigmoid;
  else if (name == "tanh") a.kind = Tanh;
  else if (name == "gelu") a.kind = Gelu;
  else if (name == "gelu_tanh") a.kind = GeluTanh;
  else if (name == "hard_sigmoid") a.kind = HardSigmoid;
  else if (name == "hard_swish") a.kind = HardSwish;
  else if (name == "silu") a.kind = Silu;
  else if (name == "none") a.kind = None;
  else llvm::report_fatal_error(llvm::Twine("unknown activation '") + name + "'");
  return a;
}

namespace {
constexpr float kLog2e = 1.44269504088896341f;
constexpr float kLn2Hi = 0.693359375f, kLn2Lo = -2.12194440e-4f;
// tanh x = x P(x^2) / Q(x^2) on |x| <= kTanhClamp (Eigen's float fit; beyond
// it tanh rounds to +-1 within the fit's error).
const float kTanhP[] = {4.89352455891786e-03f, 6.37261928875436e-04f, 1.48572235717979e-05f,
                        5.12229709037114e-08f, -8.60467152213735e-11f, 2.00018790482477e-13f,
                        -2.76076847742355e-16f};
const float kTanhQ[] = {4.89352518554385e-03f, 2.26843463243900e-03f, 1.18534705686654e-04f,
                        1.19825839466702e-06f};
constexpr float kTanhClamp = 7.90531110763549805f;

const float kErfP[] = {1.128378987312317f, 0.19627544283866882f, 0.05347038805484772f,
                       0.004004636313766241f, 0.00028803767054341733f, 1.974276301552891e-06f};
const float kErfQ[] = {1.0f, 0.5072757601737976f, 0.11648682504892349f,
                       0.015446405857801437f, 0.001216552802361548f, 3.747493610717356e-05f};
/// 2^f on [0, 1) for the AVX-512 exp2, from the lowest power: degree 5,
/// p(0) = 1 exactly, near minimax in relative error (scripts/exp2_poly.py:
/// worst 1.4e-7 in float32; 1.7e-7 for x just below an integer, where
/// f = x - floor x rounds). Degree 6 (6.6e-8 here, 7.6e-8 in the unit
/// test's sweep) cost the attention's softmax one more FMA a vector, ~2.5 %
/// of the attention.
const float kExp2Poly[6] = {1.f, 0.693151295f, 0.240164444f, 0.0557999127f, 0.00901702978f,
                            0.00186713017f};
/// The AVX-512 GELU's g(a) = erf(a / sqrt 2) / 2 for a = |x|: a cubic in
/// the position f in [0, 1) within each 32nd of [0, 4 sqrt 2), the
/// interval t = fl(min(a, kGeluClamp) kGeluScale) < 32, f = t - trunc t;
/// the last interval is 1/2 exactly, so the GELU of any x below -5.5 is 0.
/// From scripts/gelu_table.py (worst error of the GELU in float32: 2.4e-7
/// absolute, or relative above 1).
constexpr float kGeluClamp = 5.65685415f, kGeluScale = 5.65685415f;
const float kGeluCubic[4][32] = {
    {// c0
     0.f, 0.0701580122f, 0.13816306f, 0.202058285f,
     0.260249764f, 0.311620295f, 0.355577707f, 0.392037451f,
     0.42135036f, 0.444194108f, 0.46145007f, 0.474085063f,
     0.483052611f, 0.489221901f, 0.493335873f, 0.495995075f,
     0.497661173f, 0.498673022f, 0.499268651f, 0.499608546f,
     0.49979654f, 0.499897331f, 0.499949694f, 0.499976069f,
     0.499988943f, 0.499995053f, 0.499997854f, 0.499999106f,
     0.499999642f, 0.499999851f, 0.49999994f, 0.5f,
    },
    {// c1
     0.0705246031f, 0.0694332272f, 0.0662553385f, 0.0612774268f,
     0.0549294837f, 0.0477238297f, 0.0401873253f, 0.0327994414f,
     0.0259457827f, 0.0198925063f, 0.0147820339f, 0.0106463404f,
     0.00743168918f, 0.00502800103f, 0.00329703419f, 0.00209542154f,
     0.00129074056f, 0.000770594168f, 0.000445893849f, 0.000250066718f,
     0.000135924827f, 7.16077338e-05f, 3.65627675e-05f, 1.80940588e-05f,
     8.67861854e-06f, 4.03443437e-06f, 1.81774124e-06f, 7.93777303e-07f,
     3.35956003e-07f, 1.37810744e-07f, 5.47899219e-08f, 0.f,
    },
    {// c2
     -4.0104469e-06f, -0.00109889777f, -0.00209231605f, -0.00289886096f,
     -0.00346064102f, -0.0037537301f, -0.00378811546f, -0.00360182417f,
     -0.00325115165f, -0.00279950863f, -0.00230728299f, -0.00182442239f,
     -0.00138649147f, -0.00101404032f, -0.000714479771f, -0.000485376368f,
     -0.000318133709f, -0.000201288654f, -0.000122999467f, -7.26148937e-05f,
     -4.14310452e-05f, -2.28519166e-05f, -1.21876064e-05f, -6.28640191e-06f,
     -3.13654459e-06f, -1.51403071e-06f, -7.07150946e-07f, -3.19622501e-07f,
     -1.39816422e-07f, -5.91994329e-08f, -2.42635316e-08f, 0.f,
    },
    {// c3
     -0.000362493418f, -0.000329240778f, -0.000267767464f, -0.000187082114f,
     -9.83413702e-05f, -1.27197854e-05f, 6.0506045e-05f, 0.000115250761f,
     0.000149091575f, 0.000162952609f, 0.00016022296f, 0.000145619604f,
     0.000124095634f, 0.000100007725f, 7.66380326e-05f, 5.60575136e-05f,
     3.92451038e-05f, 2.63500733e-05f, 1.6994185e-05f, 1.05407998e-05f,
     6.29402575e-06f, 3.62087439e-06f, 2.00824388e-06f, 1.07443168e-06f,
     5.54759765e-07f, 2.76547411e-07f, 1.33144582e-07f, 6.19295122e-08f,
     2.78359931e-08f, 1.20934898e-08f, 5.0795097e-09f, 0.f,
    },
};
/// The erf fit's coefficients (of z^2) for an argument x = sqrt 2 z, times
/// `factor`: c_i 2^-i factor.
std::array<float, 6> rescaledErf(const float (&c)[6], double factor) {
  std::array<float, 6> r;
  for (int i = 0; i < 6; ++i)
    r[i] = static_cast<float>(c[i] * factor / static_cast<double>(1 << i));
  return r;
}
} // namespace

Xbyak::Address JitKernel::geluTable(int k, int half) {
  if (!geluTableOffset) {
    extraData.resize((extraData.size() + 15) / 16 * 16); // 64-byte aligned
    geluTableOffset = static_cast<int64_t>(extraData.size()) * 4;
    for (const auto &table : kGeluCubic)
      for (float c : table) {
        uint32_t bits;
        std::memcpy(&bits, &c, 4);
        extraData.push_back(bits);
      }
  }
  return ptr[rip + dataLabel + *geluTableOffset + (k * 32 + half * 16) * 4];
}

template <typename Vmm> void JitKernel::emitExp(const Vmm &x, const Vmm &t0, const Vmm &t1) {
  constexpr bool avx512 = std::is_same_v<Vmm, Xbyak::Zmm>;
  // The bounds as first sources: minps and maxps return the second where
  // either is NaN, so a NaN x stays NaN (and e^NaN is NaN) instead of
  // becoming a bound. Past ln(FLT_MAX) = 88.72 the result overflows to inf,
  // as e^x does (so 1 / (1 + e^-x) is 0 for x far below 0, and x times it
  // -0, not x e^-88); below -87.34 (AVX2: -86.64) it stays at the smallest
  // normal float (twice it).
  loadConstant(t0, 89.f);
  vminps(x, t0, x);
  loadConstant(t0, avx512 ? -87.3365447504f : -86.6433975f);
  vmaxps(x, t0, x);
  vmulps(t0, x, constAddr(kLog2e));
  if constexpr (avx512)
    vrndscaleps(t0, t0, 0); // round to nearest even
  else
    vroundps(t0, t0, 0);
  vfnmadd231ps(x, t0, constAddr(kLn2Hi));
  vfnmadd231ps(x, t0, constAddr(kLn2Lo)); // x = r
  const float c[] = {1.f / 5040, 1.f / 720, 1.f / 120, 1.f / 24, 1.f / 6, 0.5f, 1.f, 1.f};
  emitPolynomialTimesPow2(x, t0, t1, c, /*upTo128=*/true);
}

template <typename Vmm>
void JitKernel::emitPolynomialTimesPow2(const Vmm &x, const Vmm &n, const Vmm &t,
                                        const float (&c)[8], bool upTo128) {
  if constexpr (std::is_same_v<Vmm, Xbyak::Zmm>)
    vbroadcastss(t, constScalar(c[0]));
  else
    vmovups(t, constAddr(c[0]));
  for (int i = 1; i < 8; ++i)
    vfmadd213ps(t, x, constAddr(c[i]));
  if constexpr (std::is_same_v<Vmm, Xbyak::Zmm>) {
    vscalefps(x, t, n);
  } else {
    // 2^n from its exponent bits; with n up to 128, 2 t times 2^(n-1) (the
    // doubling is exact, so one rounding, and no subnormal in between).
    vcvtps2dq(n, n);
    vpaddd(n, n, constAddrBits(upTo128 ? 126 : 127));
    vpslld(n, n, 23);
    if (upTo128)
      vaddps(t, t, t);
    vmulps(x, t, n);
  }
}

template <typename Vmm> void JitKernel::emitExp2(const Vmm &x, const Vmm &t0, const Vmm &t1) {
  // The smallest normal result. The bound as the first source: maxps
  // returns the second where either is NaN, so NaN stays NaN (a NaN score
  // makes its softmax row NaN, as in onnxruntime), and -inf ends here.
  loadConstant(t0, -126.f);
  vmaxps(x, t0, x);
  if constexpr (std::is_same_v<Vmm, Xbyak::Zmm>) {
    // f = x - floor(x) in [0, 1) in one vreduceps, and vscalefps takes
    // floor(x) from x itself: 8 vector uops where rounding to nearest took
    // 12 (vrndscaleps is two, and the subtraction and two FMAs go).
    vreduceps(t0, x, 0x09); // round down, no precision exception
    vbroadcastss(t1, constScalar(kExp2Poly[5]));
    for (int i = 4; i >= 0; --i)
      vfmadd213ps(t1, t0, constAddr(kExp2Poly[i]));
    vscalefps(x, t1, x);
    return;
  }
  vroundps(t0, x, 0);
  vsubps(x, x, t0); // f = x - n in [-1/2, 1/2], exact
  // 2^f = e^(f ln 2): Taylor polynomial of degree 7 in f, coefficients
  // ln2^k / k! from the highest (relative error below 1e-8 on
  // |f ln 2| <= 0.35).
  float c[8];
  double term = 1;
  for (int k = 7; k >= 0; term *= 0.693147180559945309 / (8 - k), --k)
    c[k] = static_cast<float>(term);
  emitPolynomialTimesPow2(x, t0, t1, c);
}

template <typename Vmm>
void JitKernel::emitClamp(const Vmm &dst, const Vmm &src, const Vmm &t, float bound) {
  loadConstant(t, bound);
  vminps(dst, t, src);
  loadConstant(t, -bound);
  vmaxps(dst, t, dst);
}

template <typename Vmm>
void JitKernel::emitOddRational(const Vmm &c, const Vmm &u, const Vmm &tp, const Vmm &tq,
                                const float *p, const float *q, int np, int nq) {
  vmulps(u, c, c);
  loadConstant(tp, p[np - 1]);
  for (int i = np - 2; i >= 0; --i)
    vfmadd213ps(tp, u, constAddr(p[i]));
  loadConstant(tq, q[nq - 1]);
  for (int i = nq - 2; i >= 0; --i)
    vfmadd213ps(tq, u, constAddr(q[i]));
  vmulps(c, c, tp);
  vdivps(c, c, tq);
}

template <typename Vmm>
void JitKernel::emitErf(const Vmm &x, const Vmm &t0, const Vmm &t1, const Vmm &t2) {
  emitClamp(x, x, t0, 4.f);
  emitOddRational(x, t0, t1, t2, kErfP, kErfQ);
}

void JitKernel::emitHalfErfMagnitude(const std::vector<GeluLane> &lanes) {
  // g(|x|), g a cubic in f per interval (kGeluCubic), its coefficients
  // picked per lane by vpermt2ps from the two halves of a table; each step
  // for every vector (t: h, f, the interval, c). x may be f.
  auto each = [&](auto step) {
    for (const GeluLane &l : lanes)
      step(l.x, l.t[0], l.t[1], l.t[2], l.t[3]);
  };
  using Z = const Xbyak::Zmm &;
  each([&](Z x, Z, Z f, Z, Z) { vrangeps(f, x, constAddr(kGeluClamp), 0x0a); }); // min(|x|, clamp)
  each([&](Z, Z, Z f, Z, Z) { vmulps(f, f, constAddr(kGeluScale)); });
  each([&](Z, Z, Z f, Z i, Z) { vcvttps2dq(i, f); }); // (NaN: any interval; f is NaN then)
  each([&](Z, Z, Z f, Z, Z) { vreduceps(f, f, 0x0b); }); // f = t - trunc t
  auto coefficient = [&](Z dst, Z interval, int k) {
    vmovups(dst, geluTable(k, 0));
    vpermt2ps(dst, interval, geluTable(k, 1));
  };
  each([&](Z, Z h, Z, Z i, Z) { coefficient(h, i, 3); });
  for (int k = 2; k >= 0; --k) {
    each([&](Z, Z, Z, Z i, Z c) { coefficient(c, i, k); });
    each([&](Z, Z h, Z f, Z, Z c) { vfmadd213ps(h, f, c); });
  }
}

void JitKernel::emitHalfErfOfScaled(const std::vector<GeluLane> &lanes) {
  emitHalfErfMagnitude(lanes);
  for (const GeluLane &l : lanes) // g | sign
    vpternlogd(l.t[0], l.x, constAddrBits(0x80000000u), 0xf8);
}

void JitKernel::emitGeluOfStored(const Xbyak::Address &x, const std::array<Xbyak::Zmm, 4> &t) {
  const Xbyak::Zmm &h = t[0], &f = t[1];
  vmovups(f, x);
  emitHalfErfMagnitude({{f, t}});
  vmovups(f, x);
  vpternlogd(h, f, constAddrBits(0x80000000u), 0xf8); // g | sign
  vaddps(h, h, constAddr(0.5f));
  vmulps(h, h, f);
}

void JitKernel::emitGeluLanes(const std::vector<GeluLane> &lanes) {
  emitHalfErfOfScaled(lanes);
  for (const GeluLane &l : lanes)
    vaddps(l.t[0], l.t[0], constAddr(0.5f));
  for (const GeluLane &l : lanes)
    vmulps(l.x, l.x, l.t[0]);
}

void JitKernel::emitGeluInPairs(const std::vector<Xbyak::Zmm> &xs,
                                const std::array<Xbyak::Zmm, 4> &a,
                                const std::array<Xbyak::Zmm, 4> &b) {
  for (size_t i = 0; i < xs.size(); i += 2) {
    std::vector<GeluLane> lanes = {{xs[i], a}};
    if (i + 1 < xs.size())
      lanes.push_back({xs[i + 1], b});
    emitGeluLanes(lanes);
  }
}

void JitKernel::emitGeluOnGrids(const std::vector<GeluLane> &lanes, const Activation &act) {
  // round_p(x round_s(round_e(erf(x / sqrt 2)) + one)) half, as a QDQ model's
  // pairs inside GELU round it.
  auto round = [&](auto pick, const Activation::Grid &g) {
    if (g.scale)
      emitFakeQuants<Xbyak::Zmm>(
          static_cast<int>(lanes.size()), [&](int i) { return pick(lanes[i]); },
          [&](int i) { return lanes[i].t[1]; }, Activation::fakeQuant(g.scale, g.min, g.max));
  };
  auto erf = [](const GeluLane &l) -> const Xbyak::Zmm & { return l.t[0]; };
  auto value = [](const GeluLane &l) -> const Xbyak::Zmm & { return l.x; };
  emitHalfErfOfScaled(lanes);
  for (const GeluLane &l : lanes)
    vaddps(l.t[0], l.t[0], l.t[0]);
  round(erf, act.erfGrid);
  for (const GeluLane &l : lanes)
    vaddps(l.t[0], l.t[0], constAddr(act.geluOne));
  round(erf, act.sumGrid);
  for (const GeluLane &l : lanes)
    vmulps(l.x, l.x, l.t[0]);
  round(value, act.productGrid);
  for (const GeluLane &l : lanes)
    vmulps(l.x, l.x, constAddr(act.geluHalf));
}

float Activation::geluOnGrids(float x) const {
  if (qlinearGelu) {
    const QLinearGelu &k = *qlinearGelu;
    return static_cast<float>(qlinearGeluCode(u8CodeOf(x, k.inScale, k.inZero), k) - k.outZero) *
           k.outScale;
  }
  // The evaluator's steps (geluOnGrids, fakeQuantizeValue) in its order.
  auto round = [](float v, const Grid &g) {
    // + 0: a code of 0 from below gives +0, as (q - zp) * scale does.
    return g.scale ? std::clamp(std::nearbyint(v / g.scale), g.min, g.max) * g.scale + 0.f : v;
  };
  float e = round(std::erf(x * static_cast<float>(M_SQRT1_2)), erfGrid);
  float s = round(e + geluOne, sumGrid);
  return round(x * s, productGrid) * geluHalf;
}

int64_t JitKernel::tableData(const std::vector<float> &values) {
  extraData.resize((extraData.size() + 15) / 16 * 16); // 64-byte aligned
  int64_t offset = static_cast<int64_t>(extraData.size()) * 4;
  for (int64_t i = 0; i < kTableEntries; ++i) {
    float v = values.empty() ? 0.f : values[std::min<size_t>(i, values.size() - 1)];
    uint32_t bits;
    std::memcpy(&bits, &v, 4);
    extraData.push_back(bits);
  }
  return offset;
}

namespace {
/// The u8 code of an output table's entry as the evaluator quantizes it
/// (quotient rounded half to even, + zero point, saturated; NaN 0).
int32_t entryCode(float v, float scale, int32_t zeroPoint) {
  float q = std::nearbyint(v / scale) + static_cast<float>(zeroPoint);
  return std::isnan(q) ? 0 : static_cast<int32_t>(std::clamp(q, 0.f, 255.f));
}
} // namespace

int64_t JitKernel::codeWordTableData(const std::vector<float> &values, float scale,
                                     int32_t zeroPoint) {
  std::vector<uint16_t> codes;
  for (float v : values)
    codes.push_back(static_cast<uint16_t>(entryCode(v, scale, zeroPoint)));
  return wordTableData(codes);
}

int64_t JitKernel::codeDwordTableData(const std::vector<float> &values, float scale,
                                      int32_t zeroPoint) {
  extraData.resize((extraData.size() + 15) / 16 * 16); // 64-byte aligned
  int64_t offset = static_cast<int64_t>(extraData.size()) * 4;
  for (int64_t i = 0; i < kTableEntries; ++i) {
    float v = values.empty() ? 0.f : values[std::min<size_t>(i, values.size() - 1)];
    extraData.push_back(static_cast<uint32_t>(entryCode(v, scale, zeroPoint) - zeroPoint));
  }
  return offset;
}

int64_t JitKernel::wordTableData(const std::vector<uint16_t> &codes) {
  extraData.resize((extraData.size() + 15) / 16 * 16); // 64-byte aligned
  int64_t offset = static_cast<int64_t>(extraData.size()) * 4;
  auto code = [&](int64_t i) -> uint32_t {
    return codes.empty() ? 0 : codes[std::min<size_t>(i, codes.size() - 1)];
  };
  for (int64_t i = 0; i < kTableEntries; i += 2)
    extraData.push_back(code(i) | code(i + 1) << 16);
  // Then the index bits 6 and 7 in every word, for emitWordTableLookup.
  extraData.insert(extraData.end(), 16, 0x00400040u);
  extraData.insert(extraData.end(), 16, 0x00800080u);
  return offset;
}

void JitKernel::emitWordTableLookup(const Xbyak::Zmm &x, const Xbyak::Zmm &t0,
                                    const Xbyak::Zmm &t1, const Xbyak::Zmm &t2,
                                    int64_t offset, int firstMask) {
  const Xbyak::Opmask bit6(firstMask), bit7(firstMask + 1);
  // Entries 64 p .. 64 p + 63 (two registers of 32 words) at the index's
  // bits 0-5; the four blocks merged by bits 6 and 7.
  auto block = [&](const Xbyak::Zmm &dst, int p) {
    vmovdqu16(dst, ptr[rip + dataLabel + offset + p * 128]);
    vpermt2w(dst, x, ptr[rip + dataLabel + offset + p * 128 + 64]);
  };
  vptestmw(bit6, x, ptr[rip + dataLabel + offset + kTableEntries * 2]);
  vptestmw(bit7, x, ptr[rip + dataLabel + offset + kTableEntries * 2 + 64]);
  block(t0, 0);
  block(t1, 1);
  vmovdqu16(t0 | bit6, t1);
  block(t1, 2);
  block(t2, 3);
  vmovdqu16(t1 | bit6, t2);
  vmovdqu16(t0 | bit7, t1);
  vmovdqa64(x, t0);
}

template <typename Vmm>
void JitKernel::emitGridIndex(const Vmm &x, const Vmm &t, const Activation &grid) {
  vmaxps(x, x, constAddr(grid.min * grid.scale));
  vminps(x, x, constAddr(grid.max * grid.scale));
  emitQuotient(t, x, grid.scale);
  // Round half to even whatever MXCSR says.
  if constexpr (std::is_same_v<Vmm, Xbyak::Zmm>) {
    vcvtps2dq(x, t | T_rn_sae);
  } else {
    vroundps(t, t, 0x08);
    vcvttps2dq(x, t);
  }
  vpsubd(x, x, constAddrBits(static_cast<uint32_t>(static_cast<int32_t>(grid.min))));
}

void JitKernel::emitTableLookup(const Xbyak::Zmm &y, const Xbyak::Zmm &index,
                                const Xbyak::Zmm &t0, const Xbyak::Zmm &t1,
                                const Xbyak::Zmm &t2, int64_t offset, int firstMask) {
  const Xbyak::Opmask bit5(firstMask), bit6(firstMask + 1), bit7(firstMask + 2);
  // Entries 32 g .. 32 g + 31 at the index's bits 0-4 (vpermt2ps reads
  // only those); the 8 groups merged pairwise by bits 5, 6, 7.
  auto group = [&](const Xbyak::Zmm &dst, int g) {
    vmovaps(dst, ptr[rip + dataLabel + offset + g * 128]);
    vpermt2ps(dst, index, ptr[rip + dataLabel + offset + g * 128 + 64]);
  };
  vptestmd(bit5, index, constAddrBits(32));
  vptestmd(bit6, index, constAddrBits(64));
  vptestmd(bit7, index, constAddrBits(128));
  // Groups 2 h and 2 h + 1 merged by bit 5 into dst (tmp: a temporary).
  auto pair = [&](const Xbyak::Zmm &dst, const Xbyak::Zmm &tmp, int h) {
    group(dst, 2 * h);
    group(tmp, 2 * h + 1);
    vmovaps(dst | bit5, tmp);
  };
  pair(y, t0, 0);
  pair(t0, t1, 1);
  vmovaps(y | bit6, t0);
  pair(t0, t1, 2);
  pair(t1, t2, 3);
  vmovaps(t0 | bit6, t1);
  vmovaps(y | bit7, t0);
}

template <typename Vmm>
void JitKernel::emitActivation(const Vmm &x, const Activation &act, const Vmm &t0,
                               const Vmm &t1, const Vmm &t2, const Vmm &t3) {
  emitActivationKind(x, act, t0, t1, t2, t3);
  if (act.postMul != 1.f)
    vmulps(x, x, constAddr(act.postMul));
  if (act.postAdd != 0.f)
    vaddps(x, x, constAddr(act.postAdd));
}

template <typename Vmm>
void JitKernel::emitActivationKind(const Vmm &x, const Activation &act, const Vmm &t0,
                                   const Vmm &t1, const Vmm &t2, const Vmm &t3) {
  constexpr bool avx512 = std::is_same_v<Vmm, Xbyak::Zmm>;
  auto loadConst = [&](const Vmm &dst, float v) {
    if constexpr (avx512)
      vbroadcastss(dst, constScalar(v));
    else
      vmovups(dst, constAddr(v));
  };
  /// x = 1 / (1 + exp(-x)), using t0..t2.
  auto sigmoid = [&]() {
    vmulps(x, x, constAddr(-1.f));
    emitExp(x, t0, t1);
    vaddps(x, x, constAddr(1.f));
    loadConst(t2, 1.f);
    vdivps(x, t2, x);
  };
  switch (act.kind) {
  case Activation::None:
    return;
  case Activation::Relu:
    vmaxps(x, x, constAddr(0.f));
    return;
  case Activation::LeakyRelu:
    // max(x, 0) + alpha min(x, 0): alpha x rounded once where x < 0, x
    // itself elsewhere (alpha is finite: the op's verifier). min(0, x)
    // with 0 first keeps a NaN x, which the FMA then carries.
    vxorps(t0, t0, t0);
    vminps(t0, t0, x);
    vmaxps(x, x, constAddr(0.f));
    vfmadd231ps(x, t0, constAddr(act.alpha));
    return;
  case Activation::Clip:
    // maxps and minps return their second source where either is NaN: with
    // the bound first, a NaN stays NaN, as ONNX's Clip (and onnxruntime's)
    // keep it.
    loadConst(t0, act.min);
    vmaxps(x, t0, x);
    loadConst(t0, act.max);
    vminps(x, t0, x);
    return;
  case Activation::HardSigmoid:
    // alpha x + beta rounded twice, as the Mul and Add ONNX spells it with;
    // the bounds first, so that NaN stays NaN.
    vmulps(x, x, constAddr(act.alpha));
    vaddps(x, x, constAddr(act.beta));
    loadConst(t0, 0.f);
    vmaxps(x, t0, x);
    loadConst(t0, 1.f);
    vminps(x, t0, x);
    return;
  case Activation::HardSwish:
    // (x times the clamp gives NaN for a NaN x whatever the clamp gave.)
    vmulps(t0, x, constAddr(act.alpha));
    vaddps(t0, t0, constAddr(act.beta));
    vmaxps(t0, t0, constAddr(0.f));
    vminps(t0, t0, constAddr(1.f));
    vmulps(x, x, t0);
    return;
  case Activation::FakeQuant:
    emitFakeQuants<Vmm>(1, [&](int) { return x; }, [&](int) { return t0; }, act);
    return;
  case Activation::Sigmoid:
    sigmoid();
    return;
  case Activation::Silu: // x sigmoid(x), the product rounded once more as ONNX's Mul
    vmovaps(t3, x);
    sigmoid();
    vmulps(x, x, t3);
    return;
  case Activation::Tanh:
    // x P(x^2) / Q(x^2) on x clamped to +-7.905 (Eigen's fit): within 3.2e-7
    // relative everywhere, tiny x included (2 sigmoid(2x) - 1 cancelled
    // there: 100 % off below 1e-5).
    emitClamp(x, x, t0, kTanhClamp);
    emitOddRational(x, t0, t1, t2, kTanhP, kTanhQ, 7, 4);
    return;
  case Activation::Gelu: {
    if (act.hasGrids()) {
      if constexpr (avx512) {
        emitGeluOnGrids({{x, {t0, t1, t2, t3}}}, act);
        return;
      }
      // round_p(x round_s(round_e(erf(x / sqrt 2)) + one)) half, as a QDQ
      // model's pairs inside GELU round it.
      auto round = [&](const Vmm &v, const Activation::Grid &g) {
        if (g.scale)
          emitActivation(v, Activation::fakeQuant(g.scale, g.min, g.max), t1, t1, t1, t1);
      };
      vmulps(t0, x, constAddr(0.70710678118654752f));
      emitErf(t0, t1, t2, t3);
      round(t0, act.erfGrid);
      vaddps(t0, t0, constAddr(act.geluOne));
      round(t0, act.sumGrid);
      vmulps(x, x, t0);
      round(x, act.productGrid);
      vmulps(x, x, constAddr(act.geluHalf));
      return;
    }
    if constexpr (avx512) {
      // x (1/2 + erf(x / sqrt 2) / 2): 14 vector uops and no division
      // (GEMM epilogues are port-bound on them).
      emitGeluLanes({{x, {t0, t1, t2, t3}}});
      return;
    }
    // x / 2 (1 + erf(x / sqrt 2)) = x (1/2 + c P(c^2) / Q(c^2)) with the erf
    // fit rescaled to c = clamp(x, +-4 sqrt 2): P's coefficients by
    // 2^-i / (2 sqrt 2), Q's by 2^-i.
    static const std::array<float, 6> p = rescaledErf(kErfP, 0.35355339059327376);
    static const std::array<float, 6> q = rescaledErf(kErfQ, 1.0);
    constexpr float kClamp = 5.65685424949238f; // 4 sqrt 2
    emitClamp(t0, x, t3, kClamp);
    emitOddRational(t0, t3, t1, t2, p.data(), q.data());
    vaddps(t0, t0, constAddr(0.5f));
    // 0 below the clamp, where 1/2 + c P / Q is a rounding error that x
    // would scale (GELU(-1e30) would be -1e22).
    vcmpltps(t1, x, constAddr(-kClamp));
    vmulps(x, x, t0);
    vandnps(x, t1, x);
    return;
  }
  case Activation::GeluTanh: {
    // u = sqrt(2/pi) (x + 0.044715 x^3); y = x / (1 + exp(-2u))
    vmulps(t3, x, x);
    vmulps(t3, t3, constAddr(0.044715f));
    vaddps(t3, t3, constAddr(1.f)); // 1 + c x^2
    vmulps(t3, t3, x);                                     // x + c x^3
    vmulps(t3, t3, constAddr(-2.f * 0.7978845608028654f)); // -2u
    emitExp(t3, t0, t1);
    vaddps(t3, t3, constAddr(1.f));
    vdivps(x, x, t3);
    return;
  }
  }
}

template <typename Vmm>
void JitKernel::emitHorizontal(const Vmm &v, const Vmm &t, Reduction r) {
  auto op = [&]() {
    switch (r) {
    case Reduction::Max: vmaxps(v, v, t); break;
    case Reduction::Min: vminps(v, v, t); break;
    case Reduction::Add: vaddps(v, v, t); break;
    }
  };
  if constexpr (std::is_same_v<Vmm, Xbyak::Zmm>) {
    vshuff32x4(t, v, v, 0x4e); // swap 256-bit halves
    op();
    vshuff32x4(t, v, v, 0xb1); // swap 128-bit lanes within halves
    op();
  } else {
    vperm2f128(t, v, v, 0x01);
    op();
  }
  vpermilps(t, v, 0x4e);
  op();
  vpermilps(t, v, 0xb1);
  op();
}

template void JitKernel::emitHorizontal<Xbyak::Zmm>(const Xbyak::Zmm &, const Xbyak::Zmm &,
                                                    Reduction);
template void JitKernel::emitHorizontal<Xbyak::Ymm>(const Xbyak::Ymm &, const Xbyak::Ymm &,
                                                    Reduction);
template void JitKernel::emitExp<Xbyak::Zmm>(const Xbyak::Zmm &, const Xbyak::Zmm &,
                                             const Xbyak::Zmm &);
template void JitKernel::emitExp<Xbyak::Ymm>(const Xbyak::Ymm &, const Xbyak::Ymm &,
                                             const Xbyak::Ymm &);
template void JitKernel::emitPolynomialTimesPow2<Xbyak::Zmm>(const Xbyak::Zmm &,
                                                             const Xbyak::Zmm &,
                                                             const Xbyak::Zmm &,
                                                             const float (&)[8], bool);
template void JitKernel::emitPolynomialTimesPow2<Xbyak::Ymm>(const Xbyak::Ymm &,
                                                             const Xbyak::Ymm &,
                                                             const Xbyak::Ymm &,
                                                             const float (&)[8], bool);
template void JitKernel::emitExp2<Xbyak::Zmm>(const Xbyak::Zmm &, const Xbyak::Zmm &,
                                              const Xbyak::Zmm &);
template void JitKernel::emitExp2<Xbyak::Ymm>(const Xbyak::Ymm &, const Xbyak::Ymm &,
                                              const Xbyak::Ymm &);
template void JitKernel::emitClamp<Xbyak::Zmm>(const Xbyak::Zmm &, const Xbyak::Zmm &,
                                               const Xbyak::Zmm &, float);
template void JitKernel::emitClamp<Xbyak::Ymm>(const Xbyak::Ymm &, const Xbyak::Ymm &,
                                               const Xbyak::Ymm &, float);
template void JitKernel::emitOddRational<Xbyak::Zmm>(const Xbyak::Zmm &, const Xbyak::Zmm &,
                                                     const Xbyak::Zmm &, const Xbyak::Zmm &,
                                                     const float *, const float *, int, int);
template void JitKernel::emitOddRational<Xbyak::Ymm>(const Xbyak::Ymm &, const Xbyak::Ymm &,
                                                     const Xbyak::Ymm &, const Xbyak::Ymm &,
                                                     const float *, const float *, int, int);
template void JitKernel::emitErf<Xbyak::Zmm>(const Xbyak::Zmm &, const Xbyak::Zmm &,
                                            const Xbyak::Zmm &, const Xbyak::Zmm &);
template void JitKernel::emitErf<Xbyak::Ymm>(const Xbyak::Ymm &, const Xbyak::Ymm &,
                                            const Xbyak::Ymm &, const Xbyak::Ymm &);
template void JitKernel::emitGridIndex<Xbyak::Zmm>(const Xbyak::Zmm &, const Xbyak::Zmm &,
                                                  const Activation &);
template void JitKernel::emitGridIndex<Xbyak::Ymm>(const Xbyak::Ymm &, const Xbyak::Ymm &,
                                                  const Activation &);
template void JitKernel::emitActivation<Xbyak::Zmm>(const Xbyak::Zmm &, const Activation &,
                                                    const Xbyak::Zmm &, const Xbyak::Zmm &,
                                                    const Xbyak::Zmm &, const Xbyak::Zmm &);
template void JitKernel::emitActivation<Xbyak::Ymm>(const Xbyak::Ymm &, const Activation &,
                                                    const Xbyak::Ymm &, const Xbyak::Ymm &,
                                                    const Xbyak::Ymm &, const Xbyak::Ymm &);

} // namespace mlir::nunc::x86
