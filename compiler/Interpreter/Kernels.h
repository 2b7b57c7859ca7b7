//===- Kernels.h - reference kernels of the evaluator -----------*- C++ -*-===//
//
// Plain, exact implementations of each op over run-time Tensors. They compute
// shapes with the same ShapeHelpers as type inference and report bad data
// (out-of-range indices, division by zero) as errors.
//
//===----------------------------------------------------------------------===//

#ifndef NUNC_INTERPRETER_KERNELS_H
#define NUNC_INTERPRETER_KERNELS_H

#include "nunc/Dialect/Nunc/ShapeHelpers.h"
#include "nunc/Interpreter/Tensor.h"

#include <optional>

#include "llvm/ADT/StringRef.h"

namespace mlir::nunc::kernels {

using llvm::Expected;

enum class UnaryKind {
  Sqrt, Erf, Tanh, Relu, Sigmoid, GeluErf, GeluTanh, Floor, Ceil, Round, Exp, Log, Sin, Cos,
  Tan, Asin, Acos, Atan, Sinh, Cosh, Asinh, Acosh, Atanh, Softplus,
  Abs // (any numeric type; Relu too)
};
Expected<Tensor> unary(UnaryKind kind, const Tensor &x);
/// x < 0 ? alpha * x : x (floating-point x; the product in x's compute type).
Expected<Tensor> leakyRelu(const Tensor &x, float alpha);
/// clamp(alpha x + beta, 0, 1), and x times that (`swish`); f32 only. The
/// clamp keeps NaN, as ONNX's Clip does.
Expected<Tensor> hardSigmoid(const Tensor &x, float alpha, float beta, bool swish);
/// x * sigmoid(x), rounded as those two ops; f32 only.
Expected<Tensor> silu(const Tensor &x);

/// Equal and Greater give bool; Min and Max give NaN where either operand is.
/// Mod: the remainder with the sign of the divisor (Python's %); FMod:
/// with the sign of the dividend (C's fmod). The bitwise kinds and shifts
/// take integers only (see nunc.shift_left / shift_right).
enum class BinaryKind {
  Add, Sub, Mul, Div, Pow, Equal, Greater, Min, Max, Mod, FMod,
  BitAnd, BitOr, BitXor, ShiftLeft, ShiftRight
};
Expected<Tensor> binary(BinaryKind kind, const Tensor &a, const Tensor &b);
Expected<Tensor> where(const Tensor &cond, const Tensor &x, const Tensor &y);
Expected<Tensor> clip(const Tensor &x, const Tensor *min, const Tensor *max);
Expected<Tensor> cast(const Tensor &x, DType to);

Expected<Tensor> matmul(const Tensor &a, const Tensor &b);
Expected<Tensor> gemm(const Tensor &a, const Tensor &b, const Tensor *c, float alpha,
                      float beta, bool transA, bool transB);

/// Geometry attributes of Conv and the pooling ops, defaults filled in.
struct WindowAttrs {
  llvm::StringRef autoPad = "NOTSET";
  llvm::ArrayRef<int64_t> kernel, strides, dilations, pads;
  bool ceilMode = false;
  bool countIncludePad = false;
  int64_t group = 1;
};
Expected<Tensor> conv(const Tensor &x, const Tensor &w, const Tensor *b,
                      const WindowAttrs &attrs);
Expected<Tensor> maxPool(const Tensor &x, const WindowAttrs &attrs);
/// ConvTranspose with resolved geometry (shape::convTranspose), summed in
/// double: the oracle its lowering to conv + col2im is checked against.
Expected<Tensor> convTranspose(const Tensor &x, const Tensor &w, const Tensor *b, int64_t group,
                               const shape::WindowGeometry &g);
/// ONNX Col2Im, summed in double.
Expected<Tensor> col2im(const Tensor &x, llvm::ArrayRef<int64_t> image,
                        llvm::ArrayRef<int64_t> block, llvm::ArrayRef<int64_t> strides,
                        llvm::ArrayRef<int64_t> dilations, llvm::ArrayRef<int64_t> pads);
/// ONNX Resize on the resolved plan: per dim tables (shape::resizeAxis),
/// the taps' weights multiplied and summed in double.
Expected<Tensor> resize(const Tensor &x, const shape::ResizeParams &params,
                        const shape::ResizePlan &plan, float extrapolationValue);
/// ONNX GridSample of a 4-D input (see nunc.grid_sample), in the data's
/// compute type as ONNX's reference.
Expected<Tensor> gridSample(const Tensor &x, const Tensor &grid, llvm::StringRef mode,
                            llvm::StringRef paddingMode, bool alignCorners);
Expected<Tensor> averagePool(const Tensor &x, const WindowAttrs &attrs);
Expected<Tensor> globalAveragePool(const Tensor &x);

enum class ReduceKind { Mean, Sum, Max, Min, Prod };
Expected<Tensor> reduce(ReduceKind kind, const Tensor &x, llvm::ArrayRef<int64_t> axes,
                        bool keepDims, bool noopWithEmptyAxes);
Expected<Tensor> softmax(const Tensor &x, int64_t axis);
/// ONNX ArgMax (`max`) or ArgMin along `axis`: i64 indices; a NaN counts as
/// the extreme (numpy's); ties go to the first, or the last index.
Expected<Tensor> argExtreme(const Tensor &x, int64_t axis, bool keepDims, bool max,
                            bool lastIndex);
/// Returns {Y, Mean, InvStdDev}. `ordered`: f32 rows of a multiple of 8,
/// each rounding as nunc.layer_norm's ordered_f32_arithmetic fixes it
/// (onnxruntime's); else in f64, rounded once. `rms`: RMSNorm (no mean
/// subtracted; Mean 0; not with `ordered`).
Expected<llvm::SmallVector<Tensor, 3>> layerNorm(const Tensor &x, const Tensor &scale,
                                                 const Tensor *bias, int64_t axis,
                                                 float epsilon, DType statsType,
                                                 bool ordered = false, bool rms = false);
Expected<Tensor> batchNorm(const Tensor &x, const Tensor &scale, const Tensor &bias,
                           const Tensor &mean, const Tensor &var, float epsilon);
/// y = fma(x, scale[c], shift[c]) in f32 over channel dim 1 (the epilogue
/// normalization of quantized_conv).
Expected<Tensor> channelAffine(const Tensor &x, const Tensor &scale, const Tensor &shift);

Expected<Tensor> gather(const Tensor &data, const Tensor &indices, int64_t axis);
/// GatherElements: the result has the indices' shape; indices are checked.
Expected<Tensor> gatherElements(const Tensor &data, const Tensor &indices, int64_t axis);
/// GatherND: slices of data at the index tuples (last dim of indices).
Expected<Tensor> gatherND(const Tensor &data, const Tensor &indices, int64_t batchDims);
/// ScatterND / ScatterElements: data with the indexed slices or elements
/// replaced by updates, or reduced with them ("add", "mul", "max", "min";
/// repeated indices apply in order).
Expected<Tensor> scatterND(const Tensor &data, const Tensor &indices, const Tensor &updates,
                           llvm::StringRef reduction);
Expected<Tensor> scatterElements(const Tensor &data, const Tensor &indices,
                                 const Tensor &updates, int64_t axis, llvm::StringRef reduction);
/// TopK: the k best along `axis` (largest or smallest), best first, ties
/// in index order, NaN last; values and i64 indices.
Expected<llvm::SmallVector<Tensor, 2>> topK(const Tensor &x, int64_t k, int64_t axis,
                                            bool largest);
/// CumSum along `axis` (floats summed in their compute type in order,
/// integers wrapping).
/// CumSum, or with `product` CumProd.
Expected<Tensor> cumulative(const Tensor &x, int64_t axis, bool exclusive, bool reverse,
                            bool product);
Expected<Tensor> reshape(const Tensor &data, const Tensor &shape, bool allowZero);
Expected<Tensor> flatten(const Tensor &x, int64_t axis);
Expected<Tensor> transpose(const Tensor &x, llvm::ArrayRef<int64_t> perm);
Expected<Tensor> unsqueeze(const Tensor &x, const Tensor &axes);
Expected<Tensor> squeeze(const Tensor &x, const Tensor *axes);
Expected<Tensor> concat(llvm::ArrayRef<const Tensor *> inputs, int64_t axis);
Expected<Tensor> slice(const Tensor &x, const Tensor &starts, const Tensor &ends,
                       const Tensor *axes, const Tensor *steps);
Expected<Tensor> expand(const Tensor &x, const Tensor &shape);
/// ONNX Pad over `axes` (absent: every dim; pads: begins, then ends;
/// negative ones crop);
/// `mode` constant (`value`, one element, or 0), reflect, edge or wrap.
Expected<Tensor> pad(const Tensor &x, const Tensor &pads, const Tensor *value,
                     const Tensor *axes, llvm::StringRef mode);
Expected<Tensor> shapeOf(const Tensor &x, int64_t start, std::optional<int64_t> end);
/// `value` holds one element.
Expected<Tensor> constantOfShape(const Tensor &shape, const Tensor &value);
/// ONNX Range: start + i * delta, max(ceil((limit - start) / delta), 0) values.
Expected<Tensor> range(const Tensor &start, const Tensor &limit, const Tensor &delta);

Expected<Tensor> quantizeLinear(const Tensor &x, const Tensor &scale,
                                const Tensor *zeroPoint, int64_t axis, DType out);
Expected<Tensor> dequantizeLinear(const Tensor &x, const Tensor &scale,
                                  const Tensor *zeroPoint, int64_t axis);
/// DequantizeLinear(QuantizeLinear(x)) with one scale and zero point and the
/// storage range [qmin, qmax]; f32 in and out.
Expected<Tensor> fakeQuantize(const Tensor &x, float scale, int64_t zeroPoint, int64_t qmin,
                              int64_t qmax);
/// One value of fakeQuantize.
float fakeQuantizeValue(float x, float scale, int64_t zeroPoint, int64_t qmin, int64_t qmax);
/// A per-tensor grid values are rounded to (fake_quantize's parameters).
struct Grid {
  float scale;
  int64_t zeroPoint, qmin, qmax;
  float round(float x) const { return fakeQuantizeValue(x, scale, zeroPoint, qmin, qmax); }
};
/// The grids a QDQ model rounds GELU's intermediates to (see nunc.gelu).
struct GeluGrids {
  std::optional<Grid> erf, sum, product;
  /// The model's constants for GELU's 1 and 1/2 (quantized in some QDQ models).
  float one = 1.f, half = 0.5f;
};
/// nunc.add with lhs_quantization and rhs_quantization: a + b (f32 values
/// on grids ga and gb, broadcasting) as onnxruntime's QLinearAdd computes
/// the codes on gc, returned as their f32 values (see the op).
Expected<Tensor> addCodes(const Tensor &a, const Tensor &b, const Grid &ga, const Grid &gb,
                          const Grid &gc);
/// nunc.mul with lhs_quantization and rhs_quantization: a * b as
/// onnxruntime's QLinearMul computes the codes on gc (qlinearMulCode),
/// returned as their f32 values.
Expected<Tensor> mulCodes(const Tensor &a, const Tensor &b, const Grid &ga, const Grid &gb,
                          const Grid &gc);
/// round_p(x * round_s(round_e(erf(x / sqrt 2)) + one)) * half, f32.
Expected<Tensor> geluOnGrids(const Tensor &x, const GeluGrids &grids);
/// Returns {y, y_scale, y_zero_point}.
Expected<llvm::SmallVector<Tensor, 3>> dynamicQuantizeLinear(const Tensor &x);
Expected<Tensor> matmulInteger(const Tensor &a, const Tensor &b, const Tensor *aZero,
                               const Tensor *bZero);
Expected<Tensor> qlinearMatmul(const Tensor &a, const Tensor &aScale,
                               const Tensor &aZero, const Tensor &b,
                               const Tensor &bScale, const Tensor &bZero,
                               const Tensor &yScale, const Tensor &yZero);

/// A fused op's activation: "none", "relu", "gelu", "gelu_tanh", "sigmoid",
/// "tanh", "clip" to [min, max], "leaky_relu" with slope alpha below 0.
struct FusedActivation {
  llvm::StringRef kind = "none";
  float min = 0, max = 0, alpha = 0.01f;
  /// hard_sigmoid/hard_swish's offset; then y * postMul + postAdd.
  float beta = 0, postMul = 1, postAdd = 0;
};
Expected<Tensor> activation(const Tensor &x, const FusedActivation &act);
/// y + residual (same shape; none: y), then the activation: the tail of the
/// fused ops.
Expected<Tensor> residualAndActivation(Tensor y, const Tensor *residual,
                                       const FusedActivation &act);
/// activation(input x weight + bias + residual).
Expected<Tensor> linear(const Tensor &input, const Tensor &weight, const Tensor *bias,
                        const Tensor *residual, const FusedActivation &act);
/// nunc.quantized_linear with dynamic activations: each row of the f32
/// input (or, perTensor, the whole input at once) is quantized to u8 as
/// DynamicQuantizeLinear does (scale 1 for all zeros), multiplied exactly
/// with the s8 weight [K, N] whose column n has scale scales[n] (or
/// scales[0] for all), dequantized as float(sum) * (scaleA * scales[n]),
/// then bias, residual and activation.
/// With `fixed` set, the input is quantized with that (scale, zero point)
/// instead (static activations; codes up to its qmax: a u16 grid's too,
/// their sums then in s64), or is already u8 on that grid. With
/// `product`, the dequantized product is rounded to that grid before the
/// bias is added; with `sum`, the result after the bias, before the
/// residual.
struct InputQuantization {
  float scale;
  int32_t zeroPoint;
  /// The codes' top: 255, or 65535 for a u16 grid (quantized_linear only).
  int32_t qmax = 255;
};
/// nunc.global_average_pool with its grids: onnxruntime's
/// QLinearGlobalAveragePool on the codes of `x`'s values (steps of `input`),
/// the mean's values on `output` (see the op).
Expected<Tensor> globalAveragePoolOfCodes(const Tensor &x, InputQuantization input,
                                          InputQuantization output);
/// nunc.softmax with its grids: onnxruntime's QLinearSoftmax on the codes
/// of `x`'s values (steps of `input`) along `axis`, the results' values on
/// `output` (see the op).
Expected<Tensor> qlinearSoftmax(const Tensor &x, int64_t axis, InputQuantization input,
                                InputQuantization output);
/// nunc.average_pool with ordered_f32_arithmetic: MLAS's f32 average, the
/// sums in window order or (columnsFirst) per last-dim column first, then
/// a division by the count.
Expected<Tensor> averagePoolAsMlas(const Tensor &x, const WindowAttrs &attrs,
                                   bool columnsFirst);
/// nunc.average_pool with its output_quantization: onnxruntime's
/// QLinearAveragePool, each window's values summed in f32 in window order,
/// divided by the count, rounded as round_half_even(fl(y / s + z)) with z
/// = `roundingZeroPoint` (the model's zero point; see the op), the result
/// the code's value on `output`.
Expected<Tensor> averagePoolOnGrid(const Tensor &x, const WindowAttrs &attrs,
                                   InputQuantization output, int32_t roundingZeroPoint);
/// DynamicQuantizeLinear's u8 parameters for `count` values: the range
/// widened to include 0, scale (hi - lo) / 255 (1 when all zeros), zero
/// point round(clamp(-lo / scale, 0, 255)).
InputQuantization u8RangeQuantization(const float *x, int64_t count);
/// clamp(round_half_even(x / scale) + zp, 0, qmax) - zp for `count` values.
void quantizeMinusZeroPoint(const float *x, int64_t count, InputQuantization q, int32_t *out);
/// nunc.quantize: clamp(round_half_even(x / scale) + zp, 0, 255) as u8.
Expected<Tensor> quantizeU8(const Tensor &x, InputQuantization q);
/// quantized_linear's one_step_requantization: the grid of the bias's
/// codes (as a u8 grid) and the grid right after the bias (gridAfterBias).
struct QLinearBias {
  Grid biasCodes, after;
  bool biasFirst = false; // the bias is QLinearAdd's first operand
  /// residual_quantization: the residual's grid and the one after it.
  std::optional<Grid> residual, afterResidual;
  bool residualFirst = false;
  /// 128: signed_codes (the QLinearAdds on s8 codes, the u8 ones - 128).
  int32_t offset = 0;
};
/// How quantized_linear's product reaches its grid without
/// one_step_requantization (both need `fixed` and `product`):
/// f32KBlock > 0, its f32_product_k_block (summed from the dequantized
/// codes and weights in MLAS's sgemm order); `qlinear`, its qlinear_product
/// (the code as QLinearMatMul computes it).
struct ProductSteps {
  int64_t f32KBlock = 0;
  bool qlinear = false;
};
/// quantized_linear: s8 weights (zero points 0), or u8 ones with
/// `weightZeroPoints` (one, or one per column).
Expected<Tensor> quantizedLinear(const Tensor &input, const Tensor &weight,
                                 llvm::ArrayRef<float> scales, bool perTensor,
                                 std::optional<InputQuantization> fixed, const Tensor *bias,
                                 const Tensor *residual, const FusedActivation &act,
                                 std::optional<Grid> product = std::nullopt,
                                 std::optional<Grid> sum = std::nullopt,
                                 llvm::ArrayRef<int32_t> weightZeroPoints = {},
                                 std::optional<QLinearBias> qlinearBias = std::nullopt,
                                 ProductSteps productSteps = {});
/// ONNX ConvInteger: (x - x_zero_point) conv (w - w_zero_point) in i32; the
/// weight's zero point is a scalar or one per output channel; padding is the
/// input's zero point.
Expected<Tensor> convInteger(const Tensor &x, const Tensor &w, const Tensor *xZero,
                             const Tensor *wZero, const WindowAttrs &attrs);
/// ONNX QLinearConv: ConvInteger's sums plus the i32 bias, times
/// fl(fl(x_scale w_scale[m]) / y_scale), plus y_zero_point, rounded half to
/// even and saturated to y_zero_point's type (as ONNX's reference).
Expected<Tensor> qlinearConv(const Tensor &x, const Tensor &xScale, const Tensor &xZero,
                             const Tensor &w, const Tensor &wScale, const Tensor &wZero,
                             const Tensor &yScale, const Tensor &yZero, const Tensor *b,
                             const WindowAttrs &attrs);
/// nunc.quantized_conv: the f32 input quantized to u8 with one (scale, zero
/// point), `fixed` or from its range (DynamicQuantizeLinear), padding the
/// quantized zero; exact integer sums with the s8 (or u8, minus its zero
/// points: one, or one per output channel) weight [M, C, kh, kw] whose
/// output channel m has scale scales[m] (or scales[0] for all);
/// float(sum) * (scale * scales[m]) + bias, then residual and activation.
/// With f32ProductKBlock > 0 (quantized_conv's f32_product_k_block, a
/// `fixed` input) the sum is instead of the dequantized values
/// fl((q - zp) scale) and fl((w - zw) scales[m]) in f32, FMA chains over
/// blocks of that many k of the im2col order, the blocks' sums added in
/// order (MLAS's sgemm), and the bias is added to it.
Expected<Tensor> quantizedConv(const Tensor &x, const Tensor &w, llvm::ArrayRef<float> scales,
                               std::optional<InputQuantization> fixed, const Tensor *b,
                               const Tensor *residual, const WindowAttrs &attrs,
                               const FusedActivation &act,
                               llvm::ArrayRef<int32_t> weightZeroPoints = {},
                               int64_t f32ProductKBlock = 0);
/// quantized_conv's one_step_requantization: the u8 codes of `output`,
/// clamp(round_half_even(fl(float(acc + bq[m]) * fl(s[m] / output.scale)))
/// + zp, lo, hi) with acc the exact s32 sums, s[m] = fl(input scale x
/// weight scale[m]), bq = oneStepBiasCode and [lo, hi] = oneStepCodeBounds
/// (nunc/Dialect/Nunc/OneStepRequantization.h).
Expected<Tensor> quantizedConvOneStep(const Tensor &x, const Tensor &w,
                                      llvm::ArrayRef<float> scales, InputQuantization input,
                                      const Tensor *b, const WindowAttrs &attrs,
                                      const FusedActivation &act, InputQuantization output,
                                      llvm::ArrayRef<int32_t> weightZeroPoints = {});

/// The grids a QDQ model rounds attention's intermediates to (see
/// nunc.attention): Q K^T, scaled, masked, the softmax output, P V.
struct AttentionGrids {
  std::optional<Grid> scores, scaled, logits, probs, output;
  /// nunc.attention's int8_products (no grids then): Q K^T and P V on each
  /// head's symmetric s8 codes of Q, K and V, the probabilities as u8 codes
  /// of their exponentials relative to the row's largest.
  bool int8Products = false;
};
/// nunc.attention's layouts: which of query, key, value and the result are
/// [B, heads, length, D] rather than [B, length, heads*D], and the heads of
/// key and value (0: as many as the query's).
struct AttentionLayout {
  bool headsMajor[4] = {false, false, false, false};
  int64_t kvHeads = 0;
};
/// Multi-head attention with an additive mask (see nunc.attention).
Expected<Tensor> attention(const Tensor &q, const Tensor &k, const Tensor &v,
                           const Tensor *mask, int64_t heads, float scale,
                           const AttentionGrids &grids = {},
                           const AttentionLayout &layout = {});
/// nunc.attention's qlinear_arithmetic: q, k and v are u8 codes on
/// `inputs` (query, key, value), `grids` has the scores', scaled, probs'
/// and output's grids (and the logits' with a mask, whose f32 values lie
/// on `maskGrid`); `divisor` 0: the scores are multiplied by `scale`;
/// `signedCodes`: the mask's codes add as s8 (nunc.attention's signed_codes).
Expected<Tensor> attentionQLinear(const Tensor &q, const Tensor &k, const Tensor &v,
                                  const Tensor *mask, int64_t heads, float scale,
                                  float divisor, const AttentionGrids &grids,
                                  const std::array<Grid, 3> &inputs,
                                  const std::optional<Grid> &maskGrid,
                                  bool signedCodes = false);

/// Single-precision C += A * B on row-major blocks (shared by matmul, gemm
/// and conv): A is [m, k] with row stride lda, B is [k, n] with row stride ldb.
/// Each element sums its products in k order, each product and sum rounded
/// (no FMA), so every host gives the same bits (AVX-512 hosts faster).
void gemmF32(int64_t m, int64_t n, int64_t k, const float *a, int64_t lda,
             const float *b, int64_t ldb, float *c, int64_t ldc);
/// gemmF32 on the x86-64 baseline's vectors (what hosts without AVX-512
/// run; the tests hold it to the same bits).
void gemmF32Baseline(int64_t m, int64_t n, int64_t k, const float *a, int64_t lda,
                     const float *b, int64_t ldb, float *c, int64_t ldc);

} // namespace mlir::nunc::kernels

#endif // NUNC_INTERPRETER_KERNELS_H
