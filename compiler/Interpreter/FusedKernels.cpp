//===- FusedKernels.cpp - reference semantics of the fused ops ------------===//
//
// Written as compositions of the plain kernels, so that a fused op means
// exactly what the ops it replaced meant; onnxruntime's QLinear steps
// (attentionQLinear, quantizedLinear's one step) are written out as its
// kernels compute them, with the helpers the x86 kernels share.
//
//===----------------------------------------------------------------------===//

#include "KernelSupport.h"
#include "Kernels.h"
#include "nunc/Dialect/Nunc/OneStepRequantization.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <vector>

namespace mlir::nunc::kernels {

namespace {
Expected<Tensor> activationKind(const Tensor &x, const FusedActivation &act) {
  llvm::StringRef kind = act.kind;
  if (kind == "none")
    return x;
  if (kind == "hard_sigmoid" || kind == "hard_swish")
    return hardSigmoid(x, act.alpha, act.beta, kind == "hard_swish");
  if (kind == "silu")
    return silu(x);
  if (kind == "relu")
    return unary(UnaryKind::Relu, x);
  if (kind == "leaky_relu")
    return leakyRelu(x, act.alpha);
  if (kind == "gelu")
    return unary(UnaryKind::GeluErf, x);
  if (kind == "gelu_tanh")
    return unary(UnaryKind::GeluTanh, x);
  if (kind == "sigmoid")
    return unary(UnaryKind::Sigmoid, x);
  if (kind == "tanh")
    return unary(UnaryKind::Tanh, x);
  if (kind == "clip") {
    NUNC_ASSIGN_OR_RETURN(lo, cast(cantFail(Tensor::fromValues<float>(DType::F32, {}, {act.min})),
                                   x.dtype()));
    NUNC_ASSIGN_OR_RETURN(hi, cast(cantFail(Tensor::fromValues<float>(DType::F32, {}, {act.max})),
                                   x.dtype()));
    return clip(x, &lo, &hi);
  }
  return kernelError("unknown activation '" + kind + "'");
}
} // namespace

Expected<Tensor> activation(const Tensor &x, const FusedActivation &act) {
  NUNC_ASSIGN_OR_RETURN(y, activationKind(x, act));
  if (act.postMul == 1.f && act.postAdd == 0.f)
    return y;
  if (y.dtype() != DType::F32)
    return kernelError("an activation's post_mul/post_add needs f32, got " + y.describe());
  NUNC_ASSIGN_OR_RETURN(out, Tensor::create(y.dtype(), y.shape()));
  const float *in = y.as<float>();
  float *o = out.mutableAs<float>();
  for (int64_t i = 0, n = y.numElements(); i < n; ++i) {
    float v = in[i] * act.postMul; // two roundings, as the Mul and the Add
    o[i] = v + act.postAdd;
  }
  return out;
}

InputQuantization u8RangeQuantization(const float *x, int64_t count) {
  float lo = 0.f, hi = 0.f;
  for (int64_t i = 0; i < count; ++i) {
    lo = std::min(lo, x[i]);
    hi = std::max(hi, x[i]);
  }
  float scale = (hi - lo) / 255.f;
  if (scale == 0.f)
    scale = 1.f;
  return {scale, static_cast<int32_t>(std::nearbyint(std::clamp(0.f - lo / scale, 0.f, 255.f)))};
}

void quantizeMinusZeroPoint(const float *x, int64_t count, InputQuantization q, int32_t *out) {
  for (int64_t i = 0; i < count; ++i) {
    float v = std::nearbyint(x[i] / q.scale) + static_cast<float>(q.zeroPoint);
    // NaN: code 0, as the kernels' quantizers give.
    out[i] = (std::isnan(v) ? 0 : static_cast<int32_t>(
                                      std::clamp(v, 0.f, static_cast<float>(q.qmax)))) -
             q.zeroPoint;
  }
}

Expected<Tensor> quantizeU8(const Tensor &x, InputQuantization q) {
  if (x.dtype() != DType::F32)
    return kernelError("quantize needs an f32 tensor, not " + x.describe());
  NUNC_ASSIGN_OR_RETURN(y, Tensor::create(DType::U8, x.shape()));
  std::vector<int32_t> centered(x.numElements());
  quantizeMinusZeroPoint(x.as<float>(), x.numElements(), q, centered.data());
  uint8_t *out = y.mutableAs<uint8_t>();
  for (size_t i = 0; i < centered.size(); ++i)
    out[i] = static_cast<uint8_t>(centered[i] + q.zeroPoint);
  return y;
}

Expected<Tensor> residualAndActivation(Tensor y, const Tensor *residual,
                                       const FusedActivation &act) {
  if (residual) {
    if (residual->shape() != y.shape())
      return kernelError("residual " + residual->describe() + " does not match " +
                         y.describe());
    NUNC_ASSIGN_OR_RETURN(r, binary(BinaryKind::Add, y, *residual));
    y = r;
  }
  return activation(y, act);
}

Expected<Tensor> linear(const Tensor &input, const Tensor &weight, const Tensor *bias,
                        const Tensor *residual, const FusedActivation &act) {
  NUNC_ASSIGN_OR_RETURN(y, matmul(input, weight));
  if (bias) {
    NUNC_ASSIGN_OR_RETURN(b, binary(BinaryKind::Add, y, *bias));
    y = b;
  }
  return residualAndActivation(std::move(y), residual, act);
}

namespace {
/// sums[r, :] += sum_i q[r, i] W[i, :] for `rows` rows of codes (row stride
/// ldq) and `k` rows of W [k, n], in s32 (exact where the caller sized k).
[[gnu::always_inline]] inline void addCodesTimesRowsBody(int64_t rows, int64_t k, int64_t n,
                                                         const int32_t *q, int64_t ldq,
                                                         const int32_t *w, int32_t *sums) {
  for (int64_t i = 0; i < k; ++i)
    for (int64_t r = 0; r < rows; ++r) {
      const int32_t qi = q[r * ldq + i];
      const int32_t *__restrict wi = w + i * n;
      int32_t *__restrict part = sums + r * n;
      for (int64_t j = 0; j < n; ++j)
        part[j] += qi * wi[j];
    }
}

#if defined(__x86_64__)
// Integer sums: any vector width gives the same values (the x86-64
// baseline has no 32-bit vector multiply).
[[gnu::target("avx512f")]] void addCodesTimesRowsAvx512(int64_t rows, int64_t k, int64_t n,
                                                        const int32_t *q, int64_t ldq,
                                                        const int32_t *w, int32_t *sums) {
  addCodesTimesRowsBody(rows, k, n, q, ldq, w, sums);
}
#endif

void addCodesTimesRows(int64_t rows, int64_t k, int64_t n, const int32_t *q, int64_t ldq,
                       const int32_t *w, int32_t *sums) {
#if defined(__x86_64__)
  static const bool avx512 = __builtin_cpu_supports("avx512f");
  if (avx512)
    return addCodesTimesRowsAvx512(rows, k, n, q, ldq, w, sums);
#endif
  addCodesTimesRowsBody(rows, k, n, q, ldq, w, sums);
}

} // namespace

int64_t largestMagnitude(const int32_t *codes, int64_t n) {
  int64_t most = 0;
  for (int64_t i = 0; i < n; ++i)
    most = std::max(most, std::abs(static_cast<int64_t>(codes[i])));
  return most;
}

void exactProductSums(int64_t rows, int64_t k, int64_t n, const int32_t *q, int64_t ldq,
                      int64_t maxQ, const int32_t *w, int64_t maxW, std::vector<int32_t> &partial,
                      int64_t *out) {
  std::fill(out, out + rows * n, 0);
  if (maxQ * maxW > INT32_MAX) {
    // Codes past any grid (a NaN's): s64 products, as the plain loop.
    for (int64_t i = 0; i < k; ++i)
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t j = 0; j < n; ++j)
          out[r * n + j] += static_cast<int64_t>(q[r * ldq + i]) * w[i * n + j];
    return;
  }
  const int64_t blockK = std::max<int64_t>(1, INT32_MAX / std::max<int64_t>(1, maxQ * maxW));
  partial.resize(rows * n);
  for (int64_t i0 = 0; i0 < k; i0 += blockK) {
    std::fill(partial.begin(), partial.end(), 0);
    addCodesTimesRows(rows, std::min(k, i0 + blockK) - i0, n, q + i0, ldq, w + i0 * n,
                      partial.data());
    for (int64_t e = 0; e < rows * n; ++e)
      out[e] += partial[e];
  }
}

Expected<Tensor> quantizedLinear(const Tensor &input, const Tensor &weight,
                                 llvm::ArrayRef<float> scales, bool perTensor,
                                 std::optional<InputQuantization> fixed, const Tensor *bias,
                                 const Tensor *residual, const FusedActivation &act,
                                 std::optional<Grid> product,
                                 std::optional<Grid> sum,
                                 llvm::ArrayRef<int32_t> weightZeroPoints,
                                 std::optional<QLinearBias> qlinearBias,
                                 ProductSteps productSteps) {
  const int64_t f32ProductKBlock = productSteps.f32KBlock;
  bool u8Input = input.dtype() == DType::U8 && fixed;
  bool u8Weight = weight.dtype() == DType::U8;
  if ((input.dtype() != DType::F32 && !u8Input) ||
      (weight.dtype() != DType::I8 && !u8Weight) || weight.rank() != 2 || input.rank() < 1 ||
      input.dim(input.rank() - 1) != weight.dim(0))
    return kernelError("quantized_linear operands " + input.describe() + " and " +
                       weight.describe() + " do not fit (f32 or u8 [..., K] and s8 or u8 [K, N])");
  int64_t k = weight.dim(0), n = weight.dim(1), m = input.numElements() / std::max<int64_t>(k, 1);
  if (scales.size() != 1 && static_cast<int64_t>(scales.size()) != n)
    return kernelError("quantized_linear has " + llvm::Twine(scales.size()) +
                       " weight scales for " + llvm::Twine(n) + " columns");
  if (!weightZeroPoints.empty() && weightZeroPoints.size() != 1 &&
      static_cast<int64_t>(weightZeroPoints.size()) != n)
    return kernelError("quantized_linear has " + llvm::Twine(weightZeroPoints.size()) +
                       " weight zero points for " + llvm::Twine(n) + " columns");
  if (bias && (bias->dtype() != DType::F32 || bias->numElements() != n))
    return kernelError("quantized_linear bias " + bias->describe() + " does not fit");
  if (qlinearBias && (!bias || !product || !fixed))
    return kernelError("one_step_requantization needs a bias, a product grid and a static input");
  if ((f32ProductKBlock || productSteps.qlinear) && !(product && fixed))
    return kernelError("f32_product_k_block and qlinear_product need a product grid and a "
                       "static input");
  if (productSteps.qlinear && qlinearBias)
    return kernelError("qlinear_product and one_step_requantization exclude each other");
  // one_step_requantization: QLinearAdd's constants, the bias's codes.
  CodeSumConstants add{}, residualAdd{};
  if (qlinearBias && qlinearBias->residual) {
    if (!residual || residual->numElements() != m * n || !sum || !qlinearBias->afterResidual)
      return kernelError("one_step_requantization's residual needs a residual, the sum's grid "
                         "and the grid after it");
    const Grid &a = qlinearBias->after, &rg = *qlinearBias->residual,
               &g2 = *qlinearBias->afterResidual;
    // (Zero points of the codes added: s8 ones with signed_codes.)
    auto f = [&](int64_t z) { return static_cast<float>(z - qlinearBias->offset); };
    residualAdd = qlinearBias->residualFirst
                      ? codeSumConstants(rg.scale, f(rg.zeroPoint), a.scale, f(a.zeroPoint),
                                         g2.scale, f(g2.zeroPoint))
                      : codeSumConstants(a.scale, f(a.zeroPoint), rg.scale, f(rg.zeroPoint),
                                         g2.scale, f(g2.zeroPoint));
  }
  std::vector<int32_t> biasCodes;
  if (qlinearBias) {
    const Grid &b = qlinearBias->biasCodes, &g = qlinearBias->after;
    auto f = [&](int64_t z) { return static_cast<float>(z - qlinearBias->offset); };
    add = qlinearBias->biasFirst
              ? codeSumConstants(b.scale, f(b.zeroPoint), product->scale,
                                 f(product->zeroPoint), g.scale, f(g.zeroPoint))
              : codeSumConstants(product->scale, f(product->zeroPoint), b.scale,
                                 f(b.zeroPoint), g.scale, f(g.zeroPoint));
    for (int64_t j = 0; j < n; ++j)
      biasCodes.push_back(u8CodeOf(bias->as<float>()[j], b.scale,
                                   static_cast<int32_t>(b.zeroPoint)));
  }
  llvm::SmallVector<int64_t, 6> shape(input.shape());
  shape.back() = n;
  NUNC_ASSIGN_OR_RETURN(y, Tensor::create(DType::F32, shape));
  const float *x = u8Input ? nullptr : input.as<float>();
  // The weights minus their zero points (exact in s32).
  std::vector<int32_t> w(k * n);
  for (int64_t i = 0; i < k * n; ++i) {
    int64_t j = i % n;
    int32_t zw = weightZeroPoints.empty()       ? 0
                 : weightZeroPoints.size() == 1 ? weightZeroPoints[0]
                                                : weightZeroPoints[j];
    w[i] = (u8Weight ? weight.as<uint8_t>()[i] : weight.as<int8_t>()[i]) - zw;
  }
  // f32_product_k_block: the weights as their DequantizeLinear gives them.
  std::vector<float> wf;
  if (f32ProductKBlock)
    for (int64_t i = 0; i < k * n; ++i)
      wf.push_back(static_cast<float>(w[i]) * scales[scales.size() == 1 ? 0 : i % n]);
  std::vector<float> xf(f32ProductKBlock ? k : 0);
  float *out = y.mutableAs<float>();
  const int64_t maxW = largestMagnitude(w.data(), k * n);
  // Blocks of rows share each pass over W: each row adds q[i] times W's
  // row i to its n sums (exactProductSums: u16 inputs' sums can pass 2^31).
  constexpr int64_t kRows = 4;
  std::vector<int32_t> codes(kRows * k), partial;
  std::vector<int64_t> sums(kRows * n);
  std::optional<InputQuantization> tensor = fixed;
  if (perTensor && !fixed)
    tensor = u8RangeQuantization(x, m * k);
  for (int64_t r0 = 0; r0 < m; r0 += kRows) {
    const int64_t rows = std::min(kRows, m - r0);
    InputQuantization rowQuantization[kRows];
    int64_t maxQ = 0;
    for (int64_t rr = 0; rr < rows; ++rr) {
      const int64_t r = r0 + rr;
      InputQuantization rq = tensor ? *tensor : u8RangeQuantization(x + r * k, k);
      rowQuantization[rr] = rq;
      int32_t *q = codes.data() + rr * k;
      if (u8Input)
        for (int64_t i = 0; i < k; ++i)
          q[i] = input.as<uint8_t>()[r * k + i] - rq.zeroPoint;
      else
        quantizeMinusZeroPoint(x + r * k, k, rq, q);
      maxQ = std::max(maxQ, largestMagnitude(q, k));
    }
    if (!f32ProductKBlock)
      exactProductSums(rows, k, n, codes.data(), k, maxQ, w.data(), maxW, partial, sums.data());
    for (int64_t rr = 0; rr < rows; ++rr) {
      const int64_t r = r0 + rr;
      const int32_t *q = codes.data() + rr * k;
      const float scale = rowQuantization[rr].scale;
      for (int64_t i = 0; i < static_cast<int64_t>(xf.size()); ++i)
        xf[i] = static_cast<float>(q[i]) * scale;
      for (int64_t j = 0; j < n; ++j) {
        const float f32Product =
            f32ProductKBlock ? mlasBlockedSum(xf.data(), 1, wf.data() + j, n, k, f32ProductKBlock)
                             : 0.f;
        if (f32ProductKBlock && !qlinearBias) {
          float v = product->round(f32Product);
          if (bias)
            v += bias->as<float>()[j];
          out[r * n + j] = sum ? sum->round(v) : v;
          continue;
        }
        const int64_t acc = sums[rr * n + j];
        const float s = scale * scales[scales.size() == 1 ? 0 : j];
        if (qlinearBias) {
          // QLinearMatMul's product code (or QuantizeLinear's of the f32
          // MatMul's product), then QLinearAdd of the bias's.
          const Grid &g = qlinearBias->after;
          const auto zp = static_cast<int32_t>(product->zeroPoint);
          // (s / s_p = qlinearMatMulMultiplier(scale, s_w[j], s_p).)
          const int32_t code =
              f32ProductKBlock
                  ? u8CodeOf(f32Product, product->scale, zp)
                  : qlinearMatMulCode(static_cast<int32_t>(acc), s / product->scale, zp);
          const int32_t o = qlinearBias->offset;
          const int32_t sumCode =
              qlinearBias->biasFirst
                  ? qlinearAddCode(biasCodes[j], qlinearAddTerm(code, add, o), add, o)
                  : qlinearAddCode(code, qlinearAddTerm(biasCodes[j], add, o), add, o);
          if (qlinearBias->residual) {
            // QLinearAdd of the residual's code to the sum's.
            const Grid &rg = *qlinearBias->residual, &g2 = *qlinearBias->afterResidual;
            const int32_t qr = u8CodeOf(residual->as<float>()[r * n + j], rg.scale,
                                        static_cast<int32_t>(rg.zeroPoint));
            const int32_t total = qlinearBias->residualFirst
                                      ? qlinearAddCode(qr, qlinearAddTerm(sumCode, residualAdd, o),
                                                       residualAdd, o)
                                      : qlinearAddCode(sumCode, qlinearAddTerm(qr, residualAdd, o),
                                                       residualAdd, o);
            out[r * n + j] = static_cast<float>(total - g2.zeroPoint) * g2.scale;
            continue;
          }
          const float v = static_cast<float>(sumCode - g.zeroPoint) * g.scale;
          out[r * n + j] = sum ? sum->round(v) : v;
          continue;
        }
        float v = static_cast<float>(acc) * s;
        if (productSteps.qlinear) {
          // QLinearMatMul's code (s / s_p = qlinearMatMulMultiplier), as its value.
          const auto zp = static_cast<int32_t>(product->zeroPoint);
          v = static_cast<float>(qlinearMatMulCode(static_cast<int32_t>(acc),
                                                   s / product->scale, zp) -
                                 zp) *
              product->scale;
        } else if (product) {
          v = product->round(v);
        }
        if (bias)
          v += bias->as<float>()[j];
        out[r * n + j] = sum ? sum->round(v) : v;
      }
    }
  }
  return residualAndActivation(std::move(y),
                               qlinearBias && qlinearBias->residual ? nullptr : residual, act);
}

namespace {
/// scores + mask (broadcast), or the scores without a mask.
Expected<Tensor> maskedScores(const Tensor &scores, const Tensor *mask) {
  if (!mask)
    return scores;
  NUNC_ASSIGN_OR_RETURN(masked, binary(BinaryKind::Add, scores, *mask));
  if (masked.shape() != scores.shape())
    return kernelError("attention mask " + mask->describe() +
                       " does not broadcast to the scores " + scores.describe());
  return masked;
}

/// The codes round(x * (127 / m)) (half to even) of `n` values, m = max |x|
/// (at least 2^-100); returns their step m / 127.
float symmetricCodes(const float *x, int64_t n, int32_t *codes) {
  float m = 0;
  for (int64_t i = 0; i < n; ++i)
    m = std::max(m, std::fabs(x[i]));
  m = std::max(m, 0x1p-100f);
  const float perUnit = 127.f / m;
  for (int64_t i = 0; i < n; ++i)
    codes[i] = static_cast<int32_t>(std::nearbyint(x[i] * perUnit));
  return m / 127.f;
}

/// int8_products attention of heads-first [B, H, L, D] f32 operands: each
/// head's Q, K and V on symmetric s8 grids of their own, the scores their
/// codes' exact dot products times both steps and the scale (plus the
/// mask), e = exp(x - the row's largest) as u8 codes round(255 e), P V
/// their exact sums with V's codes, times V's step over the row's sum of
/// codes.
Expected<Tensor> int8ProductsAttention(const Tensor &q, const Tensor &k, const Tensor &v,
                                       const Tensor *mask, float scale) {
  const int64_t b = q.dim(0), h = q.dim(1), s = q.dim(2), t = k.dim(2), d = q.dim(3);
  NUNC_ASSIGN_OR_RETURN(scores, Tensor::create(DType::F32, {b, h, s, t}));
  std::vector<float> valueSteps(b * h);
  std::vector<int64_t> valueMagnitudes(b * h);
  std::vector<int32_t> qc(s * d), kc(t * d), kt(d * t), vc(b * h * t * d), partial;
  std::vector<int64_t> dots(s * t);
  for (int64_t bh = 0; bh < b * h; ++bh) {
    const float sq = symmetricCodes(q.as<float>() + bh * s * d, s * d, qc.data());
    const float sk = symmetricCodes(k.as<float>() + bh * t * d, t * d, kc.data());
    valueSteps[bh] = symmetricCodes(v.as<float>() + bh * t * d, t * d, vc.data() + bh * t * d);
    valueMagnitudes[bh] = largestMagnitude(vc.data() + bh * t * d, t * d);
    const float factor = sq * sk * scale;
    for (int64_t j = 0; j < t; ++j)
      for (int64_t e = 0; e < d; ++e)
        kt[e * t + j] = kc[j * d + e];
    exactProductSums(s, d, t, qc.data(), d, largestMagnitude(qc.data(), s * d), kt.data(),
                     largestMagnitude(kt.data(), d * t), partial, dots.data());
    float *row = scores.mutableAs<float>() + bh * s * t;
    for (int64_t i = 0; i < s * t; ++i)
      row[i] = static_cast<float>(dots[i]) * factor;
  }
  NUNC_ASSIGN_OR_RETURN(logits, maskedScores(scores, mask));
  NUNC_ASSIGN_OR_RETURN(out, Tensor::create(DType::F32, {b, h, s, d}));
  std::vector<int32_t> pc(t);
  std::vector<int64_t> weighted(d);
  for (int64_t bh = 0; bh < b * h; ++bh)
    for (int64_t i = 0; i < s; ++i) {
      // Logits at least the lowest float (a row masked throughout by -inf
      // averages its keys, as the kernel's does).
      const float *row = logits.as<float>() + (bh * s + i) * t;
      std::vector<float> x(row, row + t);
      for (float &l : x)
        l = std::max(l, std::numeric_limits<float>::lowest());
      const float most = *std::max_element(x.begin(), x.end());
      int64_t sum = 0;
      for (int64_t j = 0; j < t; ++j) {
        pc[j] = static_cast<int32_t>(std::nearbyint(255.f * std::exp(x[j] - most)));
        sum += pc[j];
      }
      const float factor = 1.f / static_cast<float>(sum) * valueSteps[bh];
      exactProductSums(1, t, d, pc.data(), t, largestMagnitude(pc.data(), t),
                       vc.data() + bh * t * d, valueMagnitudes[bh], partial, weighted.data());
      for (int64_t e = 0; e < d; ++e)
        out.mutableAs<float>()[(bh * s + i) * d + e] = static_cast<float>(weighted[e]) * factor;
    }
  return out;
}
} // namespace

Expected<Tensor> attention(const Tensor &q, const Tensor &k, const Tensor &v,
                           const Tensor *mask, int64_t heads, float scale,
                           const AttentionGrids &grids, const AttentionLayout &layout) {
  const int64_t kvHeads = layout.kvHeads ? layout.kvHeads : heads;
  auto rankOf = [&](unsigned i) { return layout.headsMajor[i] ? 4 : 3; };
  // Length and head size of each operand (merged: [B, L, h*D]).
  auto lengthOf = [&](const Tensor &x, unsigned i) { return x.dim(rankOf(i) == 4 ? 2 : 1); };
  auto headDimOf = [&](const Tensor &x, unsigned i, int64_t h) {
    return rankOf(i) == 4 ? x.dim(3) : x.dim(2) / h;
  };
  auto fits = [&](const Tensor &x, unsigned i, int64_t h) {
    return x.rank() == rankOf(i) &&
           (rankOf(i) == 4 ? x.dim(1) == h : x.dim(2) % h == 0);
  };
  if (heads <= 0 || kvHeads <= 0 || heads % kvHeads != 0 || !fits(q, 0, heads) ||
      !fits(k, 1, kvHeads) || !fits(v, 2, kvHeads) || k.dim(0) != q.dim(0) ||
      v.dim(0) != q.dim(0) || lengthOf(k, 1) != lengthOf(v, 2) ||
      headDimOf(k, 1, kvHeads) != headDimOf(q, 0, heads) ||
      headDimOf(v, 2, kvHeads) != headDimOf(q, 0, heads))
    return kernelError("attention operands " + q.describe() + ", " + k.describe() + ", " +
                       v.describe() + " do not fit " + llvm::Twine(heads) + " / " +
                       llvm::Twine(kvHeads) + " heads");
  int64_t b = q.dim(0), s = lengthOf(q, 0), t = lengthOf(k, 1), d = headDimOf(q, 0, heads);
  // [B, L, h*D] -> [B, h, L, D], as the exported Reshape/Transpose do; the
  // key and value heads repeated for grouped query heads.
  auto split = [&](const Tensor &x, unsigned i, int64_t h, int64_t len) -> Expected<Tensor> {
    Tensor split = x;
    if (!layout.headsMajor[i]) {
      NUNC_ASSIGN_OR_RETURN(moved, transpose(x.reshaped({b, len, h, d}), {0, 2, 1, 3}));
      split = std::move(moved);
    }
    if (h == heads)
      return split;
    NUNC_ASSIGN_OR_RETURN(repeated, Tensor::create(x.dtype(), {b, heads, len, d}));
    const int64_t block = len * d * dtypeSize(x.dtype()), group = heads / h;
    for (int64_t bi = 0; bi < b; ++bi)
      for (int64_t hi = 0; hi < heads; ++hi)
        std::memcpy(repeated.mutableRaw() + (bi * heads + hi) * block,
                    split.raw() + (bi * h + hi / group) * block, block);
    return repeated;
  };
  NUNC_ASSIGN_OR_RETURN(qh, split(q, 0, heads, s));
  NUNC_ASSIGN_OR_RETURN(kh, split(k, 1, kvHeads, t));
  NUNC_ASSIGN_OR_RETURN(vh, split(v, 2, kvHeads, t));
  if (grids.int8Products) {
    if (q.dtype() != DType::F32 || k.dtype() != DType::F32 || v.dtype() != DType::F32)
      return kernelError("int8_products attention takes f32 operands");
    NUNC_ASSIGN_OR_RETURN(out, int8ProductsAttention(qh, kh, vh, mask, scale));
    if (layout.headsMajor[3])
      return out;
    NUNC_ASSIGN_OR_RETURN(merged, transpose(out, {0, 2, 1, 3}));
    return merged.reshaped({b, s, heads * d});
  }
  NUNC_ASSIGN_OR_RETURN(kt, transpose(kh, {0, 1, 3, 2}));
  // A QDQ model's grid on an intermediate, where it has one.
  auto rounded = [](Tensor x, const std::optional<Grid> &g) -> Expected<Tensor> {
    if (!g)
      return x;
    return fakeQuantize(x, g->scale, g->zeroPoint, g->qmin, g->qmax);
  };
  NUNC_ASSIGN_OR_RETURN(product, matmul(qh, kt));
  NUNC_ASSIGN_OR_RETURN(scores, rounded(std::move(product), grids.scores));
  NUNC_ASSIGN_OR_RETURN(scaleT, cast(cantFail(Tensor::fromValues<float>(DType::F32, {}, {scale})),
                                     q.dtype()));
  NUNC_ASSIGN_OR_RETURN(scaledRaw, binary(BinaryKind::Mul, scores, scaleT));
  NUNC_ASSIGN_OR_RETURN(scaled, rounded(std::move(scaledRaw), grids.scaled));
  NUNC_ASSIGN_OR_RETURN(logits, maskedScores(scaled, mask));
  NUNC_ASSIGN_OR_RETURN(logitsRounded, rounded(std::move(logits), grids.logits));
  NUNC_ASSIGN_OR_RETURN(probsRaw, softmax(logitsRounded, -1));
  NUNC_ASSIGN_OR_RETURN(probs, rounded(std::move(probsRaw), grids.probs));
  NUNC_ASSIGN_OR_RETURN(product2, matmul(probs, vh));
  NUNC_ASSIGN_OR_RETURN(out, rounded(std::move(product2), grids.output));
  if (layout.headsMajor[3])
    return out;
  NUNC_ASSIGN_OR_RETURN(merged, transpose(out, {0, 2, 1, 3}));
  return merged.reshaped({b, s, heads * d});
}

Expected<Tensor> attentionQLinear(const Tensor &q, const Tensor &k, const Tensor &v,
                                  const Tensor *mask, int64_t heads, float scale,
                                  float divisor, const AttentionGrids &grids,
                                  const std::array<Grid, 3> &inputs,
                                  const std::optional<Grid> &maskGrid, bool signedCodes) {
  if (q.dtype() != DType::U8 || k.dtype() != DType::U8 || v.dtype() != DType::U8 ||
      q.rank() != 3 || k.rank() != 3 || heads <= 0 || q.dim(2) % heads != 0 ||
      k.shape() != v.shape() || k.dim(2) != q.dim(2) || k.dim(0) != q.dim(0))
    return kernelError("qlinear attention operands " + q.describe() + ", " + k.describe() +
                       ", " + v.describe() + " are not u8 codes of " + llvm::Twine(heads) +
                       " heads");
  if (!grids.scores || !grids.scaled || !grids.probs || !grids.output ||
      (mask && (!grids.logits || !maskGrid)))
    return kernelError("qlinear attention needs the scores', scaled, probabilities' and "
                       "output's grids (and with a mask the logits' and the mask's)");
  const int64_t b = q.dim(0), s = q.dim(1), t = k.dim(1), e = q.dim(2), d = e / heads;
  const uint8_t *qc = q.as<uint8_t>(), *kc = k.as<uint8_t>(), *vc = v.as<uint8_t>();
  auto zp = [](const Grid &g) { return static_cast<int32_t>(g.zeroPoint); };
  const int32_t zq = zp(inputs[0]), zk = zp(inputs[1]), zv = zp(inputs[2]);
  const float m1 = qlinearMatMulMultiplier(inputs[0].scale, inputs[1].scale, grids.scores->scale);
  const float m2 = qlinearMatMulMultiplier(grids.probs->scale, inputs[2].scale,
                                           grids.output->scale);
  const std::array<uint8_t, 256> scaledCodes =
      qlinearScaledCodes(grids.scores->scale, zp(*grids.scores), divisor, scale,
                         grids.scaled->scale, zp(*grids.scaled));
  const Grid &softmaxIn = mask ? *grids.logits : *grids.scaled;
  const std::array<float, 256> table = qlinearSoftmaxTable(softmaxIn.scale, t);
  std::optional<CodeSumConstants> sum;
  const int32_t offset = signedCodes ? 128 : 0; // the mask's QLinearAdd on s8 codes
  Tensor maskValues;
  SmallVector<int64_t, 4> maskStrides;
  if (mask) {
    const Grid &l = *grids.logits;
    sum = codeSumConstants(grids.scaled->scale,
                           static_cast<float>(grids.scaled->zeroPoint - offset), maskGrid->scale,
                           static_cast<float>(maskGrid->zeroPoint - offset), l.scale,
                           static_cast<float>(l.zeroPoint - offset));
    const SmallVector<int64_t, 4> scores{b, heads, s, t};
    auto shape = shape::broadcast(scores, mask->shape());
    if (!shape || ArrayRef<int64_t>(*shape) != ArrayRef<int64_t>(scores) ||
        mask->dtype() != DType::F32) {
      if (!shape)
        consumeError(shape.takeError());
      return kernelError("attention mask " + mask->describe() +
                         " does not broadcast to the scores");
    }
    maskValues = *mask;
    maskStrides.append(broadcastStrides(mask->shape(), scores));
  }
  NUNC_ASSIGN_OR_RETURN(out, Tensor::create(DType::F32, {b, s, e}));
  float *o = out.mutableAs<float>();
  std::vector<int32_t> logits(t), probs(t);
  std::vector<float> exps(t);
  for (int64_t n = 0; n < b; ++n)
    for (int64_t h = 0; h < heads; ++h)
      for (int64_t i = 0; i < s; ++i) {
        const uint8_t *qi = qc + (n * s + i) * e + h * d;
        for (int64_t j = 0; j < t; ++j) {
          const uint8_t *kj = kc + (n * t + j) * e + h * d;
          int32_t acc = 0;
          for (int64_t x = 0; x < d; ++x)
            acc += (qi[x] - zq) * (kj[x] - zk);
          int32_t code = scaledCodes[qlinearMatMulCode(acc, m1, zp(*grids.scores))];
          if (mask) {
            const float m = maskValues.as<float>()[n * maskStrides[0] + h * maskStrides[1] +
                                                   i * maskStrides[2] + j * maskStrides[3]];
            const int32_t mc =
                u8CodeOf(m, maskGrid->scale, static_cast<int32_t>(maskGrid->zeroPoint));
            code = qlinearAddCode(code, qlinearAddTerm(mc, *sum, offset), *sum, offset);
          }
          logits[j] = code;
        }
        const int32_t top = *std::max_element(logits.begin(), logits.end());
        float rowSum = 0;
        for (int64_t j = 0; j < t; ++j) {
          exps[j] = table[255 - top + logits[j]];
          rowSum += exps[j];
        }
        const float factor = qlinearSoftmaxFactor(grids.probs->scale, rowSum);
        for (int64_t j = 0; j < t; ++j)
          probs[j] = qlinearSoftmaxCode(exps[j], factor, zp(*grids.probs)) - zp(*grids.probs);
        for (int64_t x = 0; x < d; ++x) {
          int32_t acc = 0;
          for (int64_t j = 0; j < t; ++j)
            acc += probs[j] * (vc[(n * t + j) * e + h * d + x] - zv);
          const int32_t code = qlinearMatMulCode(acc, m2, zp(*grids.output));
          o[(n * s + i) * e + h * d + x] =
              static_cast<float>(code - zp(*grids.output)) * grids.output->scale;
        }
      }
  return out;
}

} // namespace mlir::nunc::kernels
