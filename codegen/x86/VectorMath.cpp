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

#include <array>
#include <type_traits>

namespace mlir::nunc::x86 {

Activation Activation::fromName(const std::string &name, float min, float max) {
  Activation a;
  a.min = min;
  a.max = max;
  if (name == "relu") a.kind = Relu;
  else if (name == "clip") a.kind = Clip;
  else if (name == "sigmoid") a.kind = Sigmoid;
  else if (name == "tanh") a.kind = Tanh;
  else if (name == "gelu") a.kind = Gelu;
  else if (name == "gelu_tanh") a.kind = GeluTanh;
  else a.kind = None;
  return a;
}

namespace {
constexpr float kLog2e = 1.44269504088896341f;
constexpr float kLn2Hi = 0.693359375f, kLn2Lo = -2.12194440e-4f;
const float kErfP[] = {1.128378987312317f, 0.19627544283866882f, 0.05347038805484772f,
                       0.004004636313766241f, 0.00028803767054341733f, 1.974276301552891e-06f};
const float kErfQ[] = {1.0f, 0.5072757601737976f, 0.11648682504892349f,
                       0.015446405857801437f, 0.001216552802361548f, 3.747493610717356e-05f};
/// The erf fit's coefficients (of z^2) for an argument x = sqrt 2 z, times
/// `factor`: c_i 2^-i factor.
std::array<float, 6> rescaledErf(const float (&c)[6], double factor) {
  std::array<float, 6> r;
  for (int i = 0; i < 6; ++i)
    r[i] = static_cast<float>(c[i] * factor / static_cast<double>(1 << i));
  return r;
}
} // namespace

template <typename Vmm> void JitKernel::emitExp(const Vmm &x, const Vmm &t0, const Vmm &t1) {
  constexpr bool avx512 = std::is_same_v<Vmm, Xbyak::Zmm>;
  vminps(x, x, constAddr(88.3762626647949f));
  vmaxps(x, x, constAddr(-87.3365447504f));
  vmulps(t0, x, constAddr(kLog2e));
  if constexpr (avx512)
    vrndscaleps(t0, t0, 0); // round to nearest even
  else
    vroundps(t0, t0, 0);
  vfnmadd231ps(x, t0, constAddr(kLn2Hi));
  vfnmadd231ps(x, t0, constAddr(kLn2Lo)); // x = r
  const float c[] = {1.f / 5040, 1.f / 720, 1.f / 120, 1.f / 24, 1.f / 6, 0.5f, 1.f, 1.f};
  emitPolynomialTimesPow2(x, t0, t1, c);
}

template <typename Vmm>
void JitKernel::emitPolynomialTimesPow2(const Vmm &x, const Vmm &n, const Vmm &t,
                                        const float (&c)[8]) {
  if constexpr (std::is_same_v<Vmm, Xbyak::Zmm>)
    vbroadcastss(t, constScalar(c[0]));
  else
    vmovups(t, constAddr(c[0]));
  for (int i = 1; i < 8; ++i)
    vfmadd213ps(t, x, constAddr(c[i]));
  if constexpr (std::is_same_v<Vmm, Xbyak::Zmm>) {
    vscalefps(x, t, n);
  } else {
    vcvtps2dq(n, n);
    vpaddd(n, n, constAddrBits(127));
    vpslld(n, n, 23);
    vmulps(x, t, n);
  }
}

template <typename Vmm> void JitKernel::emitExp2(const Vmm &x, const Vmm &t0, const Vmm &t1) {
  constexpr bool avx512 = std::is_same_v<Vmm, Xbyak::Zmm>;
  vmaxps(x, x, constAddr(-126.f)); // the smallest normal result; NaN ends here too
  if constexpr (avx512)
    vrndscaleps(t0, x, 0); // n, round to nearest even
  else
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
                                const float *p, const float *q) {
  vmulps(u, c, c);
  loadConstant(tp, p[5]);
  for (int i = 4; i >= 0; --i)
    vfmadd213ps(tp, u, constAddr(p[i]));
  loadConstant(tq, q[5]);
  for (int i = 4; i >= 0; --i)
    vfmadd213ps(tq, u, constAddr(q[i]));
  vmulps(c, c, tp);
  vdivps(c, c, tq);
}

template <typename Vmm>
void JitKernel::emitErf(const Vmm &x, const Vmm &t0, const Vmm &t1, const Vmm &t2) {
  emitClamp(x, x, t0, 4.f);
  emitOddRational(x, t0, t1, t2, kErfP, kErfQ);
}

template <typename Vmm>
void JitKernel::emitActivation(const Vmm &x, const Activation &act, const Vmm &t0,
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
  case Activation::Clip:
    vmaxps(x, x, constAddr(act.min));
    vminps(x, x, constAddr(act.max));
    return;
  case Activation::FakeQuant: {
    // As QuantizeLinear + DequantizeLinear: x / scale correctly rounded
    // (emitQuotient), round half to even, clamp, scale back. The clamp
    // comes first, on x against fl(min * scale) and fl(max * scale) (their
    // quotients round to min and max): the same result, and q cannot
    // overflow; NaN still ends at the lower bound.
    float scale = act.scale;
    vmaxps(x, x, constAddr(act.min * scale));
    vminps(x, x, constAddr(act.max * scale));
    emitQuotient(t0, x, scale);
    if constexpr (avx512)
      vrndscaleps(x, t0, 0x08);
    else
      vroundps(x, t0, 0x08);
    vmulps(x, x, constAddr(act.scale));
    return;
  }
  case Activation::Sigmoid:
    sigmoid();
    return;
  case Activation::Tanh: // 2 sigmoid(2x) - 1
    vaddps(x, x, x);
    sigmoid();
    vaddps(x, x, x);
    vsubps(x, x, constAddr(1.f));
    return;
  case Activation::Gelu: {
    if (act.hasGrids()) {
      // round_p(x round_s(round_e(erf(x / sqrt 2)) + 1)) / 2, as a QDQ
      // model's pairs inside GELU round it.
      auto round = [&](const Vmm &v, const Activation::Grid &g) {
        if (g.scale)
          emitActivation(v, Activation::fakeQuant(g.scale, g.min, g.max), t1, t1, t1, t1);
      };
      vmulps(t0, x, constAddr(0.70710678118654752f));
      emitErf(t0, t1, t2, t3);
      round(t0, act.erfGrid);
      vaddps(t0, t0, constAddr(1.f));
      round(t0, act.sumGrid);
      vmulps(x, x, t0);
      round(x, act.productGrid);
      vmulps(x, x, constAddr(0.5f));
      return;
    }
    // x / 2 (1 + erf(x / sqrt 2)) = x (1/2 + c P(c^2) / Q(c^2)) with the erf
    // fit rescaled to c = clamp(x, +-4 sqrt 2): P's coefficients by
    // 2^-i / (2 sqrt 2), Q's by 2^-i. 18 vector uops instead of 21 (GEMM
    // epilogues are port-bound on them).
    static const std::array<float, 6> p = rescaledErf(kErfP, 0.35355339059327376);
    static const std::array<float, 6> q = rescaledErf(kErfQ, 1.0);
    constexpr float kClamp = 5.65685424949238f; // 4 sqrt 2
    if constexpr (avx512)
      vrangeps(t0, x, constAddr(kClamp), 0x02); // the smaller magnitude, x's sign (NaN: a
                                                // bound, but the product with x keeps NaN)
    else
      emitClamp(t0, x, t3, kClamp);
    emitOddRational(t0, t3, t1, t2, p.data(), q.data());
    vaddps(t0, t0, constAddr(0.5f));
    vmulps(x, x, t0);
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
                                                             const float (&)[8]);
template void JitKernel::emitPolynomialTimesPow2<Xbyak::Ymm>(const Xbyak::Ymm &,
                                                             const Xbyak::Ymm &,
                                                             const Xbyak::Ymm &,
                                                             const float (&)[8]);
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
                                                     const float *, const float *);
template void JitKernel::emitOddRational<Xbyak::Ymm>(const Xbyak::Ymm &, const Xbyak::Ymm &,
                                                     const Xbyak::Ymm &, const Xbyak::Ymm &,
                                                     const float *, const float *);
template void JitKernel::emitErf<Xbyak::Zmm>(const Xbyak::Zmm &, const Xbyak::Zmm &,
                                            const Xbyak::Zmm &, const Xbyak::Zmm &);
template void JitKernel::emitErf<Xbyak::Ymm>(const Xbyak::Ymm &, const Xbyak::Ymm &,
                                            const Xbyak::Ymm &, const Xbyak::Ymm &);
template void JitKernel::emitActivation<Xbyak::Zmm>(const Xbyak::Zmm &, const Activation &,
                                                    const Xbyak::Zmm &, const Xbyak::Zmm &,
                                                    const Xbyak::Zmm &, const Xbyak::Zmm &);
template void JitKernel::emitActivation<Xbyak::Ymm>(const Xbyak::Ymm &, const Activation &,
                                                    const Xbyak::Ymm &, const Xbyak::Ymm &,
                                                    const Xbyak::Ymm &, const Xbyak::Ymm &);

} // namespace mlir::nunc::x86
