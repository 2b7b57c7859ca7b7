//===- FuseLinear.cpp - MatMul/Gemm + bias + residual + activation --------===//

#include "PatternUtils.h"
#include "nunc/Interpreter/Evaluator.h"
#include "nunc/Dialect/Nunc/ShapeHelpers.h"
#include "nunc/Transforms/Passes.h"

#include "mlir/Dialect/Quant/IR/QuantTypes.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>

namespace mlir::nunc {
#define GEN_PASS_DEF_FUSELINEAR
#include "nunc/Transforms/Passes.h.inc"
} // namespace mlir::nunc

using namespace mlir;
using namespace mlir::nunc;

namespace {

/// The attributes of a linear (or quantized_linear) op, with its operands.
struct LinearParts {
  Value input, weight, bias, residual;
  EpilogueActivation act;
  /// quantized_linear only: how the input is quantized (else empty), and
  /// its fixed quantization when static.
  StringRef activationQuantization;
  TypeAttr inputQuantization;
  /// quantized_linear only: the grids the product is rounded to before the
  /// bias (product_quantization) and the sum after it
  /// (bias_quantization).
  TypeAttr productQuantization, biasQuantization;
  /// quantized_linear only: the grid before the activation, and a QDQ
  /// GELU's grids inside it.
  TypeAttr activationInputQuantization, geluErfQuantization, geluSumQuantization,
      geluProductQuantization;
  /// quantized_linear only: that GELU's constants for 1 and 1/2, and the
  /// grids whose codes they are.
  FloatAttr geluOne, geluHalf;
  TypeAttr geluOneQuantization, geluHalfQuantization;
  /// quantized_linear only: the residual was its Add's first operand.
  bool residualFirst = false;
  /// quantized_linear only: the grid of a QDQ model's bias codes, and
  /// whether the bias was its Add's first operand.
  TypeAttr biasCodesQuantization;
  bool biasFirst = false;
};

FailureOr<Operation *> buildLinear(PatternRewriter &rewriter, Location loc,
                                   const LinearParts &p) {
  SmallVector<Value> operands{p.input, p.weight};
  SmallVector<int32_t> segments{1, 1, p.bias ? 1 : 0, p.residual ? 1 : 0};
  if (p.bias)
    operands.push_back(p.bias);
  if (p.residual)
    operands.push_back(p.residual);
  SmallVector<NamedAttribute> attrs{
      rewriter.getNamedAttr("operandSegmentSizes", rewriter.getDenseI32ArrayAttr(segments))};
  StringRef name = LinearOp::getOperationName();
  if (!p.activationQuantization.empty()) {
    name = QuantizedLinearOp::getOperationName();
    attrs.push_back(rewriter.getNamedAttr(
        "activation_quantization", rewriter.getStringAttr(p.activationQuantization)));
    if (p.inputQuantization)
      attrs.push_back(rewriter.getNamedAttr("input_quantization", p.inputQuantization));
    for (auto [name, grid] :
         {std::pair("product_quantization", p.productQuantization),
          std::pair("bias_quantization", p.biasQuantization),
          std::pair("activation_input_quantization", p.activationInputQuantization),
          std::pair("gelu_erf_quantization", p.geluErfQuantization),
          std::pair("gelu_sum_quantization", p.geluSumQuantization),
          std::pair("gelu_product_quantization", p.geluProductQuantization),
          std::pair("gelu_one_quantization", p.geluOneQuantization),
          std::pair("gelu_half_quantization", p.geluHalfQuantization)})
      if (grid)
        attrs.push_back(rewriter.getNamedAttr(name, grid));
    for (auto [name, constant] :
         {std::pair("gelu_one", p.geluOne), std::pair("gelu_half", p.geluHalf)})
      if (constant)
        attrs.push_back(rewriter.getNamedAttr(name, constant));
    if (p.residualFirst)
      attrs.push_back(rewriter.getNamedAttr("residual_first", rewriter.getUnitAttr()));
    if (p.biasCodesQuantization)
      attrs.push_back(rewriter.getNamedAttr("bias_codes_quantization", p.biasCodesQuantization));
    if (p.biasFirst)
      attrs.push_back(rewriter.getNamedAttr("bias_first", rewriter.getUnitAttr()));
  }
  p.act.appendTo(rewriter, attrs);
  return createInferred(rewriter, loc, name, operands, attrs, 1, /*reportErrors=*/false);
}

/// Replaces `op` by the linear op of `p` (with op's result types kept).
LogicalResult replaceByLinear(PatternRewriter &rewriter, Operation *op, Location loc,
                              const LinearParts &p) {
  FailureOr<Operation *> lin = buildLinear(rewriter, loc, p);
  if (failed(lin))
    return failure();
  keepResultTypes(*lin, op);
  rewriter.replaceOp(op, (*lin)->getResults());
  return success();
}

/// Whether the op rounds its result to a grid last (nothing may follow in
/// its epilogue).
bool roundsOutput(LinearOp) { return false; }
bool roundsOutput(QuantizedLinearOp op) { return op.getOutputQuantization().has_value(); }
TypeAttr outputGrid(LinearOp) { return {}; }
TypeAttr outputGrid(QuantizedLinearOp op) { return op.getOutputQuantizationAttr(); }

LinearParts partsOf(LinearOp op) {
  return {op.getInput(), op.getWeight(), op.getBias(), op.getResidual(),
          EpilogueActivation::of(op)};
}

LinearParts partsOf(QuantizedLinearOp op) {
  LinearParts p{op.getInput(),
          op.getWeight(),
          op.getBias(),
          op.getResidual(),
          EpilogueActivation::of(op),
          op.getActivationQuantization(),
          op.getInputQuantizationAttr(),
          op.getProductQuantizationAttr(),
          op.getBiasQuantizationAttr(),
          op.getActivationInputQuantizationAttr(),
          op.getGeluErfQuantizationAttr(),
          op.getGeluSumQuantizationAttr(),
          op.getGeluProductQuantizationAttr()};
  p.geluOne = op.getGeluOneAttr();
  p.geluHalf = op.getGeluHalfAttr();
  p.geluOneQuantization = op.getGeluOneQuantizationAttr();
  p.geluHalfQuantization = op.getGeluHalfQuantizationAttr();
  p.residualFirst = op.getResidualFirst();
  p.biasCodesQuantization = op.getBiasCodesQuantizationAttr();
  p.biasFirst = op.getBiasFirst();
  return p;
}

/// A constant as an evaluator tensor, if `v` is a float32 constant.
std::optional<Tensor> f32Constant(Value v) {
  ElementsAttr attr;
  if (!v || !matchPattern(v, m_Constant(&attr)) ||
      !cast<ShapedType>(attr.getType()).getElementType().isF32())
    return std::nullopt;
  llvm::Expected<Tensor> t = tensorFromAttr(attr);
  if (!t) {
    llvm::consumeError(t.takeError());
    return std::nullopt;
  }
  return *t;
}

/// A new constant holding `t`.
Value constantOf(PatternRewriter &rewriter, Location loc, const Tensor &t, StringRef name) {
  ElementsAttr attr = attrFromTensor(t, rewriter.getContext(), name);
  return ConstantOp::create(rewriter, loc, attr.getType(), attr);
}

/// [K, N] weight of `w`, transposed (and scaled) at compile time when needed.
std::optional<Tensor> weightKN(Value w, bool transposed, float alpha) {
  bool extraTranspose = false;
  if (auto t = w.getDefiningOp<TransposeOp>()) {
    if (t.getPerm() != ArrayRef<int64_t>{1, 0})
      return std::nullopt;
    w = t.getInput();
    extraTranspose = true;
  }
  std::optional<Tensor> c = f32Constant(w);
  if (!c || c->rank() != 2)
    return std::nullopt;
  Tensor out = *c;
  if (transposed != extraTranspose)
    out = cantFail(Tensor::create(DType::F32, {c->dim(1), c->dim(0)}));
  int64_t rows = c->dim(0), cols = c->dim(1);
  const float *src = c->as<float>();
  if (transposed != extraTranspose) {
    float *dst = out.mutableAs<float>();
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j)
        dst[j * rows + i] = src[i * cols + j] * alpha;
  } else if (alpha != 1.f) {
    out = cantFail(Tensor::copyOf(DType::F32, c->shape(), c->raw()));
    for (int64_t i = 0; i < out.numElements(); ++i)
      out.mutableAs<float>()[i] *= alpha;
  }
  return out;
}

/// A constant that broadcasts to [N] only, flattened to [N] and scaled.
std::optional<Tensor> biasVector(Value v, int64_t n, float scale) {
  std::optional<Tensor> c = f32Constant(v);
  if (!c)
    return std::nullopt;
  for (int64_t i = 0; i + 1 < c->rank(); ++i)
    if (c->dim(i) != 1)
      return std::nullopt;
  int64_t last = c->rank() ? c->dim(c->rank() - 1) : 1;
  if (last != n && last != 1)
    return std::nullopt;
  Tensor out = cantFail(Tensor::create(DType::F32, {n}));
  for (int64_t i = 0; i < n; ++i)
    out.mutableAs<float>()[i] = c->as<float>()[last == 1 ? 0 : i] * scale;
  return out;
}

int64_t outputColumns(Value linearResult) {
  auto t = dyn_cast<RankedTensorType>(linearResult.getType());
  return t && t.getRank() && t.hasStaticShape() ? t.getDimSize(t.getRank() - 1) : -1;
}

struct MatMulToLinear : OpRewritePattern<MatMulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MatMulOp op, PatternRewriter &rewriter) const override {
    if (!isStatic(op.getType()) || !cast<ShapedType>(op.getType()).getElementType().isF32())
      return failure();
    std::optional<Tensor> w = weightKN(op.getB(), /*transposed=*/false, 1.f);
    if (!w)
      return failure();
    Location loc = op.getLoc();
    rewriter.setInsertionPoint(op);
    LinearParts p{op.getA(), constantOf(rewriter, loc, *w, "weight")};
    return replaceByLinear(rewriter, op, loc, p);
  }
};

/// `v` with its last two dims swapped.
FailureOr<Value> swapLastTwo(PatternRewriter &rewriter, Location loc, Value v) {
  int64_t rank = cast<RankedTensorType>(v.getType()).getRank();
  SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  std::swap(perm[rank - 2], perm[rank - 1]);
  return createInferredValue(rewriter, loc, TransposeOp::getOperationName(), {v},
                             {rewriter.getNamedAttr("perm", rewriter.getDenseI64ArrayAttr(perm))});
}

/// An f32 scalar constant.
Value scalarOf(PatternRewriter &rewriter, Location loc, float value) {
  auto type = RankedTensorType::get({}, rewriter.getF32Type());
  return ConstantOp::create(rewriter, loc, type, DenseElementsAttr::get(type, value));
}

/// A Gemm that is no linear op as it stands (a weight computed at run time,
/// a C that is neither a bias vector nor a residual) as the ops
/// it is made of: Transpose(A), Transpose(B), MatMul, Mul by alpha, Add of
/// beta C. Otherwise it would run on the generic kernel's scalar dot
/// products (~100x slower than a GEMM kernel); MatMulToLinear and the
/// epilogue patterns then take what they can (a constant B makes a linear
/// op, a C of the result's shape its residual).
LogicalResult decomposeGemm(GemmOp op, PatternRewriter &rewriter) {
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  Value a = op.getA(), b = op.getB();
  if (op.getTransA()) {
    FailureOr<Value> t = swapLastTwo(rewriter, loc, a);
    if (failed(t))
      return failure();
    a = *t;
  }
  if (op.getTransB()) {
    FailureOr<Value> t = swapLastTwo(rewriter, loc, b);
    if (failed(t))
      return failure();
    b = *t;
  }
  FailureOr<Value> y = createInferredValue(rewriter, loc, MatMulOp::getOperationName(), {a, b});
  float alpha = op.getAlpha().convertToFloat(), beta = op.getBeta().convertToFloat();
  if (succeeded(y) && alpha != 1.f)
    y = createInferredValue(rewriter, loc, MulOp::getOperationName(),
                            {*y, scalarOf(rewriter, loc, alpha)});
  if (succeeded(y) && op.getC() && beta != 0.f) {
    FailureOr<Value> c = op.getC();
    if (beta != 1.f)
      c = createInferredValue(rewriter, loc, MulOp::getOperationName(),
                              {*c, scalarOf(rewriter, loc, beta)});
    y = succeeded(c) ? createInferredValue(rewriter, loc, AddOp::getOperationName(), {*y, *c})
                     : c;
  }
  if (failed(y) || y->getType() != op.getType())
    return failure();
  rewriter.replaceOp(op, *y);
  return success();
}

/// MatMul(W, x) with a constant [N, K] W: y^T = x^T W^T, a linear op between
/// two transposes of the last two dims (the generic kernel would run it
/// ~2x slower than onnxruntime).
struct ConstantFirstMatMulToLinear : OpRewritePattern<MatMulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MatMulOp op, PatternRewriter &rewriter) const override {
    auto xType = dyn_cast<RankedTensorType>(op.getB().getType());
    if (!isStatic(op.getType()) || !cast<ShapedType>(op.getType()).getElementType().isF32() ||
        !xType || xType.getRank() < 2 || f32Constant(op.getB()))
      return failure();
    // W^T as the linear op's [K, N] weight.
    std::optional<Tensor> w = weightKN(op.getA(), /*transposed=*/true, 1.f);
    if (!w)
      return failure();
    Location loc = op.getLoc();
    rewriter.setInsertionPoint(op);
    FailureOr<Value> xt = swapLastTwo(rewriter, loc, op.getB());
    if (failed(xt))
      return failure();
    LinearParts p{*xt, constantOf(rewriter, loc, *w, "weight")};
    FailureOr<Operation *> lin = buildLinear(rewriter, loc, p);
    if (failed(lin))
      return failure();
    FailureOr<Value> y = swapLastTwo(rewriter, loc, (*lin)->getResult(0));
    if (failed(y) || y->getType() != op.getType())
      return failure();
    rewriter.replaceOp(op, *y);
    return success();
  }
};

/// MatMul(x, W) with a constant W of one [K, N] matrix per batch index
/// (x's batch dims equal W's): one linear op per matrix on its slice of x,
/// concatenated (the generic kernel would run it ~2x slower than
/// onnxruntime). Up to kMaxBatchedWeights matrices.
struct BatchedWeightMatMulToLinears : OpRewritePattern<MatMulOp> {
  using OpRewritePattern::OpRewritePattern;
  static constexpr int64_t kMaxBatchedWeights = 64;
  LogicalResult matchAndRewrite(MatMulOp op, PatternRewriter &rewriter) const override {
    auto xType = dyn_cast<RankedTensorType>(op.getA().getType());
    auto outType = dyn_cast<RankedTensorType>(op.getType());
    std::optional<Tensor> w = f32Constant(op.getB());
    if (!outType || !isStatic(outType) || !outType.getElementType().isF32() || !xType ||
        !w || w->rank() < 3 || xType.getRank() != w->rank())
      return failure();
    const int64_t rank = w->rank(), k = w->dim(rank - 2), n = w->dim(rank - 1);
    int64_t batch = 1;
    for (int64_t d = 0; d + 2 < rank; ++d) {
      if (xType.getDimSize(d) != w->dim(d))
        return failure();
      batch *= w->dim(d);
    }
    const int64_t m = xType.getDimSize(rank - 2);
    if (batch < 2 || batch > kMaxBatchedWeights)
      return failure();
    Location loc = op.getLoc();
    rewriter.setInsertionPoint(op);
    auto make = [&](StringRef name, ValueRange operands, ArrayRef<NamedAttribute> attrs = {}) {
      return createInferredValue(rewriter, loc, name, operands, attrs);
    };
    auto i64s = [&](ArrayRef<int64_t> v) { return createI64Constant(rewriter, loc, v); };
    FailureOr<Value> x = make(ReshapeOp::getOperationName(), {op.getA(), i64s({batch, m, k})});
    if (failed(x))
      return failure();
    SmallVector<Value> parts;
    for (int64_t g = 0; g < batch; ++g) {
      FailureOr<Value> slice = make(SliceOp::getOperationName(),
                                    {*x, i64s({g}), i64s({g + 1}), i64s({0})},
                                    {rewriter.getNamedAttr("operandSegmentSizes",
                                                           rewriter.getDenseI32ArrayAttr(
                                                               {1, 1, 1, 1, 0}))});
      if (failed(slice))
        return failure();
      Tensor wg = cantFail(Tensor::copyOf(DType::F32, {k, n}, w->raw() + g * k * n * 4));
      LinearParts p{*slice, constantOf(rewriter, loc, wg, "weight")};
      FailureOr<Operation *> lin = buildLinear(rewriter, loc, p);
      if (failed(lin))
        return failure();
      parts.push_back((*lin)->getResult(0));
    }
    FailureOr<Value> y = make(ConcatOp::getOperationName(), parts,
                              {rewriter.getNamedAttr("axis", rewriter.getI64IntegerAttr(0))});
    if (succeeded(y))
      y = make(ReshapeOp::getOperationName(), {*y, i64s(outType.getShape())});
    if (failed(y) || y->getType() != op.getType())
      return failure();
    rewriter.replaceOp(op, *y);
    return success();
  }
};

struct GemmToLinear : OpRewritePattern<GemmOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GemmOp op, PatternRewriter &rewriter) const override {
    if (!isStatic(op.getType()) || !cast<ShapedType>(op.getType()).getElementType().isF32())
      return failure();
    float alpha = op.getAlpha().convertToFloat(), beta = op.getBeta().convertToFloat();
    std::optional<Tensor> w = weightKN(op.getB(), op.getTransB() != 0, alpha);
    // (A weight from a DequantizeLinear is QdqGemmToLinear's.)
    Value b = op.getB();
    if (auto t = b.getDefiningOp<TransposeOp>())
      b = t.getInput();
    if (!w && (op.getTransA() || !b.getDefiningOp<DequantizeLinearOp>()))
      return decomposeGemm(op, rewriter);
    if (!w)
      return failure();
    int64_t n = w->dim(1);
    std::optional<Tensor> bias;
    Value residual;
    if (op.getC() && beta != 0.f) {
      bias = biasVector(op.getC(), n, beta);
      if (!bias) {
        // A full [M, N] C is a residual.
        if (op.getC().getType() != op.getType() || beta != 1.f)
          return decomposeGemm(op, rewriter);
        residual = op.getC();
      }
    }
    Location loc = op.getLoc();
    rewriter.setInsertionPoint(op);
    Value input = op.getA();
    if (op.getTransA()) {
      FailureOr<Value> t = swapLastTwo(rewriter, loc, input);
      if (failed(t))
        return failure();
      input = *t;
    }
    LinearParts p{input, constantOf(rewriter, loc, *w, "weight")};
    if (bias)
      p.bias = constantOf(rewriter, loc, *bias, "bias");
    p.residual = residual;
    return replaceByLinear(rewriter, op, loc, p);
  }
};

/// Add(linear, c) with c a constant [N] vector -> bias; Add(linear, r) with r
/// of the result's shape -> residual (for linear and quantized_linear). A
/// quantized_linear that rounds its result to a grid (a QDQ model's Q/DQ
/// pair before the Add) moves that grid to where the Add comes in: before
/// the bias (product_quantization) or before the residual
/// (bias_quantization).
template <typename LinearTy> struct AddIntoLinear : OpRewritePattern<AddOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AddOp add, PatternRewriter &rewriter) const override {
    for (auto [a, b] : {std::pair(add.getLhs(), add.getRhs()),
                        std::pair(add.getRhs(), add.getLhs())}) {
      auto lin = singleUseDef<LinearTy>(a);
      if (!lin || !EpilogueActivation::of(lin).isIdentity() || lin.getResidual())
        continue;
      LinearParts p = partsOf(lin);
      bool rounded = roundsOutput(lin);
      Location loc = fusedLoc({lin, add});
      int64_t n = outputColumns(lin.getResult());
      if (!lin.getBias() && n > 0 && add.getType() == lin.getType() &&
          (!rounded || (!p.productQuantization && !p.biasQuantization))) {
        if (rounded)
          p.productQuantization = outputGrid(lin);
        if (std::optional<Tensor> bias = biasVector(b, n, 1.f)) {
          rewriter.setInsertionPoint(add);
          p.bias = constantOf(rewriter, loc, *bias, "bias");
          // A QDQ model's bias: the grid of its codes and which operand of
          // the Add it was (the order onnxruntime's QLinearAdd rounds in).
          OpOperand &biasOperand = add->getOpOperand(b == add.getLhs() ? 0 : 1);
          if (TypeAttr codes = codesGridOf(biasOperand);
              codes && !p.activationQuantization.empty()) {
            p.biasCodesQuantization = codes;
            p.biasFirst = biasOperand.getOperandNumber() == 0;
          }
          FailureOr<Operation *> fused = buildLinear(rewriter, loc, p);
          if (failed(fused))
            return failure();
          keepResultTypes(*fused, add);
    rewriter.replaceOp(add, (*fused)->getResults());
          return success();
        }
      }
      p = partsOf(lin);
      if (b.getType() == add.getType() && add.getType() == lin.getType() &&
          (!rounded || !p.biasQuantization)) {
        if (rounded)
          p.biasQuantization = outputGrid(lin);
        rewriter.setInsertionPoint(add);
        p.residual = b;
        // (The order onnxruntime's QLinearAdd rounds in.)
        p.residualFirst = !p.activationQuantization.empty() && b == add.getLhs();
        FailureOr<Operation *> fused = buildLinear(rewriter, loc, p);
        if (failed(fused))
          return failure();
        keepResultTypes(*fused, add);
    rewriter.replaceOp(add, (*fused)->getResults());
        return success();
      }
    }
    return failure();
  }
};

/// An activation op applied to a linear (or quantized_linear) result. After
/// a quantized_linear's output grid (a QDQ model's Q/DQ pair between the
/// GEMM and a GELU), the activation follows that grid in the epilogue
/// (activation_input_quantization), and a QDQ GELU brings its grids.
template <typename ActOp, typename LinearTy>
struct ActivationIntoLinear : OpRewritePattern<ActOp> {
  using OpRewritePattern<ActOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(ActOp act, PatternRewriter &rewriter) const override {
    constexpr bool quantized = std::is_same_v<LinearTy, QuantizedLinearOp>;
    auto lin = singleUseDef<LinearTy>(act->getOperand(0));
    if (!lin || !EpilogueActivation::of(lin).isIdentity() || act.getType() != lin.getType())
      return failure();
    LinearParts p = partsOf(lin);
    if (roundsOutput(lin)) {
      if constexpr (!quantized)
        return failure();
      else if (lin.getU8Output())
        return failure();
      else
        p.activationInputQuantization = outputGrid(lin);
    }
    if constexpr (std::is_same_v<ActOp, ReluOp>) {
      p.act.kind = "relu";
    } else if constexpr (std::is_same_v<ActOp, LeakyReluOp>) {
      p.act.kind = "leaky_relu";
      p.act.alpha = act.getAlpha().convertToFloat();
    } else if constexpr (std::is_same_v<ActOp, SigmoidOp>) {
      p.act.kind = "sigmoid";
    } else if constexpr (std::is_same_v<ActOp, TanhOp>) {
      p.act.kind = "tanh";
    } else if constexpr (std::is_same_v<ActOp, SiluOp>) {
      p.act.kind = "silu";
    } else if constexpr (std::is_same_v<ActOp, HardSigmoidOp> ||
                         std::is_same_v<ActOp, HardSwishOp>) {
      p.act.kind = std::is_same_v<ActOp, HardSigmoidOp> ? "hard_sigmoid" : "hard_swish";
      p.act.alpha = act.getAlpha().convertToFloat();
      p.act.beta = act.getBeta().convertToFloat();
    } else if constexpr (std::is_same_v<ActOp, GeluOp>) {
      if (act.hasGrids()) {
        if constexpr (!quantized)
          return failure();
        p.geluErfQuantization = act.getErfQuantizationAttr();
        p.geluSumQuantization = act.getSumQuantizationAttr();
        p.geluProductQuantization = act.getProductQuantizationAttr();
        p.geluOne = act.getOneAttr();
        p.geluHalf = act.getHalfAttr();
        p.geluOneQuantization = act.getOneQuantizationAttr();
        p.geluHalfQuantization = act.getHalfQuantizationAttr();
      }
      p.act.kind = act.getApproximate() == "tanh" ? "gelu_tanh" : "gelu";
    } else {
      std::optional<double> lo = act.getMin() ? getUniformFloat(act.getMin()) : -INFINITY;
      std::optional<double> hi = act.getMax() ? getUniformFloat(act.getMax()) : INFINITY;
      if (!lo || !hi)
        return failure();
      p.act.kind = "clip";
      p.act.min = *lo;
      p.act.max = *hi;
    }
    rewriter.setInsertionPoint(act);
    FailureOr<Operation *> fused = buildLinear(rewriter, fusedLoc({lin, act}), p);
    if (failed(fused))
      return failure();
    keepResultTypes(*fused, act);
    rewriter.replaceOp(act, (*fused)->getResults());
    return success();
  }
};

/// A pattern that takes u8 weights with zero points where `u8Weights` (the
/// pass option) and K fits the kernels (kU8WeightMaxDepth).
template <typename Op> struct U8WeightPattern : OpRewritePattern<Op> {
  U8WeightPattern(MLIRContext *ctx, bool u8Weights, bool u16Inputs = false)
      : OpRewritePattern<Op>(ctx), u8Weights(u8Weights), u16Inputs(u16Inputs) {}
  bool u8Weights;
  /// 16-bit static activations (QDQ A16W8) with s8 weights too.
  bool u16Inputs;
  bool takesU8(int64_t k) const { return u8Weights && k <= kU8WeightMaxDepth; }
  /// The same for a static input on `grid`: u16 inputs take s8 weights only.
  bool takesU8(int64_t k, TypeAttr grid) const {
    return takesU8(k) && !isU16Grid(grid.getValue());
  }
};

/// The MatMul of an onnxruntime `quantize_dynamic` model:
///   (q, s, zp) = DynamicQuantizeLinear(x)
///   y = Cast<f32>(MatMulInteger(q, W, zp, zW)) * (s * sW)
/// with W a constant [K, N] and sW a constant scale (one, or one per column):
///  - W s8 of zero point 0 -> quantized_linear(x, W as !quant.uniform) with
///    activations quantized per tensor at run time, the same arithmetic;
///  - W u8 with zero points (quantize_dynamic with weight_type QUInt8),
///    where the int8 GEMM takes them (U8WeightPattern): the same, the
///    weight's zero points in its !quant.uniform;
///  - otherwise (those without `u8-weights` or with K >= 2^14, s8 with zero
///    points) ->
///    MatMul(DequantizeLinear(q, s, zp), DequantizeLinear(W, sW, zW)): the
///    same sum of products, in f32 (rounding once per product and sum where
///    MatMulInteger sums exactly). The weight's DequantizeLinear folds after
///    fusion and the MatMul becomes an f32 GEMM, where MatMulInteger would
///    run as generic integer loops (~45x slower on MiniLM).
struct DynamicQuantizedMatMulToLinear : U8WeightPattern<MulOp> {
  using U8WeightPattern::U8WeightPattern;
  LogicalResult matchAndRewrite(MulOp mul, PatternRewriter &rewriter) const override {
    std::optional<DynamicQuantizedProduct<MatMulIntegerOp>> m =
        matchDynamicQuantizedProduct<MatMulIntegerOp>(mul);
    if (!m)
      return failure();
    Value w = m->op.getB(), wScale = m->weightScale, wZero = m->op.getBZeroPoint();
    auto wType = dyn_cast<RankedTensorType>(w.getType());
    bool u8 = wType && wType.getRank() == 2 && takesU8(wType.getDimSize(0));
    bool int8 = isQuantizedWeight(w, wScale, wZero, kLinearWeight, /*scaleAxis=*/1, u8);
    if (!int8 && (!wType || wType.getRank() != 2 || !wType.hasStaticShape() ||
                  !matchPattern(w, m_Constant()) ||
                  !perTensorOrAxis(wScale, wType.getDimSize(1)) ||
                  !cast<ShapedType>(wScale.getType()).getElementType().isF32() ||
                  (wZero && !perTensorOrAxis(wZero, wType.getDimSize(1)))))
      return failure();
    Location loc = fusedLoc({m->dq, m->op, m->castOp, mul});
    rewriter.setInsertionPoint(mul);
    if (int8) {
      FailureOr<Value> weight =
          quantizedWeight(rewriter, loc, w, wScale, wZero, kLinearWeight, /*scaleAxis=*/1, u8);
      if (failed(weight))
        return failure();
      LinearParts p{m->dq.getInput(), *weight};
      p.activationQuantization = "dynamic_per_tensor";
      return replaceByLinear(rewriter, mul, loc, p);
    }
    // DequantizeLinear takes a scale and zero point of one size: where one
    // is per column and the other per tensor, the latter repeats.
    const int64_t columns = wType.getDimSize(1);
    auto perColumn = [&](Value v) -> Value {
      auto type = cast<RankedTensorType>(v.getType());
      if (type.getNumElements() == columns)
        return v;
      auto shapeType = RankedTensorType::get({1}, rewriter.getI64Type());
      Value shape = ConstantOp::create(rewriter, loc, shapeType,
                                       DenseIntElementsAttr::get(shapeType, {columns}));
      return ExpandOp::create(rewriter, loc, type.clone(ArrayRef<int64_t>{columns}), v, shape);
    };
    if (wZero && cast<ShapedType>(wZero.getType()).getNumElements() !=
                     cast<ShapedType>(wScale.getType()).getNumElements()) {
      wScale = perColumn(wScale);
      wZero = perColumn(wZero);
    }
    Value weight = DequantizeLinearOp::create(rewriter, loc, wType.clone(rewriter.getF32Type()),
                                              w, wScale, wZero, rewriter.getI64IntegerAttr(1));
    rewriter.replaceOpWithNewOp<MatMulOp>(mul, mul.getType(),
                                          dequantizedInput(rewriter, loc, m->dq), weight);
    return success();
  }
};

/// The f32 input x and its static grid when `a` is DequantizeLinear(
/// QuantizeLinear(x)) on one per-tensor grid (a QDQ model's activation);
/// `u16`: 16-bit grids too.
std::optional<std::pair<QuantizeLinearOp, TypeAttr>> qdqActivation(Value a, bool u16) {
  auto dq = a.getDefiningOp<DequantizeLinearOp>();
  if (!dq)
    return std::nullopt;
  auto q = dq.getInput().getDefiningOp<QuantizeLinearOp>();
  if (!q || !cast<ShapedType>(q.getInput().getType()).getElementType().isF32())
    return std::nullopt;
  Type storage = cast<ShapedType>(q.getType()).getElementType();
  MLIRContext *ctx = a.getContext();
  std::optional<TypeAttr> grid =
      staticInputGrid(ctx, q.getScale(), q.getZeroPoint(), storage, u16);
  if (!grid || grid != staticInputGrid(ctx, dq.getScale(), dq.getZeroPoint(), storage, u16))
    return std::nullopt;
  return std::make_pair(q, *grid);
}

/// Replaces `op` by quantized_linear(x, weight) + bias with static input
/// `grid` (the QDQ patterns' common end).
LogicalResult replaceByStaticLinear(PatternRewriter &rewriter, Operation *op, Location loc,
                                    Value x, TypeAttr grid, Value weight, Value bias = Value()) {
  LinearParts p{x, weight, bias};
  p.activationQuantization = "static";
  p.inputQuantization = grid;
  return replaceByLinear(rewriter, op, loc, p);
}

/// A MatMul of a QDQ model (onnxruntime's quantize_static, QDQ format):
///   MatMul(DequantizeLinear(QuantizeLinear(x, sx, zx), sx, zx),
///          DequantizeLinear(Wq, sW, 0))
/// with per-tensor u8 (or s8) activations and constant s8 weights of zero
/// point 0, per tensor or per column -> quantized_linear(x, Wq) with static
/// activations (sx, zx). With `u16Inputs`, 16-bit activations and s8
/// weights (A16W8) too. Quantize/Dequantize pairs around the result stay as
/// they are.
struct QdqMatMulToLinear : U8WeightPattern<MatMulOp> {
  using U8WeightPattern::U8WeightPattern;
  LogicalResult matchAndRewrite(MatMulOp mm, PatternRewriter &rewriter) const override {
    auto dqW = mm.getB().getDefiningOp<DequantizeLinearOp>();
    std::optional<std::pair<QuantizeLinearOp, TypeAttr>> input =
        qdqActivation(mm.getA(), u16Inputs);
    if (!input || !dqW || !isStatic(mm.getType()) ||
        !cast<ShapedType>(mm.getType()).getElementType().isF32())
      return failure();
    auto [q, grid] = *input;
    Location loc = fusedLoc({q, mm.getA().getDefiningOp(), dqW, mm});
    rewriter.setInsertionPoint(mm);
    auto wType = dyn_cast<RankedTensorType>(dqW.getInput().getType());
    bool u8 = wType && wType.getRank() == 2 && takesU8(wType.getDimSize(0), grid);
    FailureOr<Value> weight = quantizedWeight(rewriter, loc, dqW.getInput(), dqW.getScale(),
                                              dqW.getZeroPoint(), kLinearWeight, dqW.getAxis(), u8);
    if (failed(weight))
      return failure();
    return replaceByStaticLinear(rewriter, mm, loc, q.getInput(), grid, *weight);
  }
};

/// A Gemm of a QDQ model, as QdqMatMulToLinear: Gemm(DequantizeLinear(
/// QuantizeLinear(x)), DequantizeLinear(Wq), C) with alpha 1 and C absent
/// or a constant that broadcasts to [N] (the bias, times beta) ->
/// quantized_linear(x, Wq, bias). With transB (a classifier's Linear as
/// PyTorch exports it: Wq [N, K], scales per row), Wq is transposed at
/// compile time, its scales then per column. Unfused, the weight folded to
/// f32 (4x the bytes, the f32 GEMM reading them: ~7 % of a QDQ MobileNet).
struct QdqGemmToLinear : U8WeightPattern<GemmOp> {
  using U8WeightPattern::U8WeightPattern;
  LogicalResult matchAndRewrite(GemmOp op, PatternRewriter &rewriter) const override {
    auto dqW = op.getB().getDefiningOp<DequantizeLinearOp>();
    std::optional<std::pair<QuantizeLinearOp, TypeAttr>> input =
        qdqActivation(op.getA(), u16Inputs);
    if (!input || !dqW || op.getTransA() || op.getAlpha().convertToFloat() != 1.f ||
        !isStatic(op.getType()) || !cast<ShapedType>(op.getType()).getElementType().isF32())
      return failure();
    ElementsAttr wAttr;
    auto wType = dyn_cast<RankedTensorType>(dqW.getInput().getType());
    if (!wType || wType.getRank() != 2 || !wType.hasStaticShape() ||
        !wType.getElementType().isInteger(8) ||
        !matchPattern(dqW.getInput(), m_Constant(&wAttr)))
      return failure();
    bool transB = op.getTransB() != 0;
    bool u8 = takesU8(wType.getDimSize(transB ? 1 : 0), input->second);
    // Checked on Wq as it is, before the transposed copy exists: a pattern
    // that fails must leave the IR unchanged.
    if (!isQuantizedWeight(dqW.getInput(), dqW.getScale(), dqW.getZeroPoint(),
                           transB ? Int8WeightLayout{2, 0} : kLinearWeight, dqW.getAxis(), u8))
      return failure();
    int64_t n = wType.getDimSize(transB ? 0 : 1);
    std::optional<Tensor> bias;
    if (op.getC() && op.getBeta().convertToFloat() != 0.f) {
      bias = biasVector(op.getC(), n, op.getBeta().convertToFloat());
      if (!bias)
        return failure();
    }
    auto [q, grid] = *input;
    Location loc = fusedLoc({q, op.getA().getDefiningOp(), dqW, op});
    rewriter.setInsertionPoint(op);
    Value wq = dqW.getInput();
    int64_t axis = dqW.getAxis();
    if (transB) {
      llvm::Expected<Tensor> w = tensorFromAttr(wAttr);
      if (!w) {
        llvm::consumeError(w.takeError());
        return failure();
      }
      // The bytes of s8 or u8 codes, transposed.
      int64_t k = wType.getDimSize(1);
      const auto *bytes = w->as<uint8_t>();
      SmallVector<uint8_t> t(n * k);
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < k; ++j)
          t[j * n + i] = bytes[i * k + j];
      wq = constantOf(rewriter, loc,
                      cantFail(Tensor::fromValues<uint8_t>(w->dtype(), {k, n}, t)), "weight");
      axis = shape::wrapAxis(axis, 2) == 0 ? 1 : 0;
    }
    FailureOr<Value> weight = quantizedWeight(rewriter, loc, wq, dqW.getScale(),
                                              dqW.getZeroPoint(), kLinearWeight, axis, u8);
    if (failed(weight))
      return failure();
    return replaceByStaticLinear(rewriter, op, loc, q.getInput(), grid, *weight,
                                 bias ? constantOf(rewriter, loc, *bias, "bias") : Value());
  }
};

/// ONNX QLinearMatMul(a, sa, za, Wq, sW, 0, sy, zy) with a constant s8
/// weight and a per-tensor u8/s8 `a` -> QuantizeLinear(quantized_linear(
/// DequantizeLinear(a, sa, za), Wq) [static (sa, za)], sy, zy). The
/// quantized_linear quantizes DequantizeLinear(a) back to exactly a, so its
/// integer product is QLinearMatMul's; the result rounds once in f32
/// (acc * fl(sa sW)) and once to y's grid, where QLinearMatMul scales by
/// sa sW / sy in one step: the two can differ by one unit of y on a tie.
/// When `a` is itself QuantizeLinear(x), the Q/DQ pair then fuses below.
struct QLinearMatMulToLinear : U8WeightPattern<QLinearMatMulOp> {
  using U8WeightPattern::U8WeightPattern;
  LogicalResult matchAndRewrite(QLinearMatMulOp mm, PatternRewriter &rewriter) const override {
    auto aType = dyn_cast<RankedTensorType>(mm.getA().getType());
    auto outType = dyn_cast<RankedTensorType>(mm.getType());
    if (!aType || !outType || !aType.hasStaticShape() || !outType.hasStaticShape())
      return failure();
    MLIRContext *ctx = rewriter.getContext();
    std::optional<TypeAttr> grid =
        staticInputGrid(ctx, mm.getAScale(), mm.getAZeroPoint(), aType.getElementType());
    std::optional<double> sy = scalarConstant(mm.getYScale());
    if (!grid || !sy || !scalarConstant(mm.getYZeroPoint()))
      return failure();
    Location loc = mm.getLoc();
    rewriter.setInsertionPoint(mm);
    // b_scale of a 2-D b is a scalar or one per column.
    auto bType = dyn_cast<RankedTensorType>(mm.getB().getType());
    FailureOr<Value> weight = quantizedWeight(
        rewriter, loc, mm.getB(), mm.getBScale(), mm.getBZeroPoint(), kLinearWeight,
        /*scaleAxis=*/1, bType && bType.getRank() == 2 && takesU8(bType.getDimSize(0)));
    if (failed(weight))
      return failure();
    Type f32 = rewriter.getF32Type();
    Value a = DequantizeLinearOp::create(rewriter, loc, aType.clone(f32), mm.getA(),
                                         mm.getAScale(), mm.getAZeroPoint(),
                                         rewriter.getI64IntegerAttr(1));
    LinearParts p{a, *weight};
    p.activationQuantization = "static";
    p.inputQuantization = *grid;
    FailureOr<Operation *> lin = buildLinear(rewriter, loc, p);
    if (failed(lin))
      return failure();
    (*lin)->getResult(0).setType(outType.clone(f32));
    rewriter.replaceOpWithNewOp<QuantizeLinearOp>(
        mm, outType, (*lin)->getResult(0), mm.getYScale(), mm.getYZeroPoint(),
        rewriter.getI64IntegerAttr(1), TypeAttr::get(outType.getElementType()));
    return success();
  }
};

/// quantized_linear with static input grid G whose input is
/// DequantizeLinear(QuantizeLinear(x)) on G itself: quantizing x directly
/// gives the same integers (the round trip is idempotent on G).
struct SkipRequantizedInput : OpRewritePattern<QuantizedLinearOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(QuantizedLinearOp op, PatternRewriter &rewriter) const override {
    std::optional<Type> grid = op.getInputQuantization();
    auto dq = op.getInput().getDefiningOp<DequantizeLinearOp>();
    if (!grid || !dq)
      return failure();
    auto q = dq.getInput().getDefiningOp<QuantizeLinearOp>();
    if (!q || !cast<ShapedType>(q.getInput().getType()).getElementType().isF32())
      return failure();
    Type storage = cast<ShapedType>(q.getType()).getElementType();
    MLIRContext *ctx = rewriter.getContext();
    std::optional<TypeAttr> qGrid =
        staticInputGrid(ctx, q.getScale(), q.getZeroPoint(), storage, /*u16=*/true);
    if (!qGrid || qGrid->getValue() != *grid ||
        staticInputGrid(ctx, dq.getScale(), dq.getZeroPoint(), storage, /*u16=*/true) != qGrid)
      return failure();
    rewriter.modifyOpInPlace(op, [&] { op.getInputMutable().assign(q.getInput()); });
    return success();
  }
};

/// A Mul, then an Add, by one f32 scalar after a linear op's activation:
/// its post_mul and post_add (not after an output grid).
template <typename BinOp, typename LinearTy> struct PostAffineIntoLinear : OpRewritePattern<BinOp> {
  using OpRewritePattern<BinOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(BinOp op, PatternRewriter &rewriter) const override {
    for (auto [a, b] : {std::pair(op.getLhs(), op.getRhs()), std::pair(op.getRhs(), op.getLhs())}) {
      auto lin = singleUseDef<LinearTy>(a);
      std::optional<float> c = getUniformF32(b);
      if (!lin || !c || roundsOutput(lin) || a.getType() != op.getType())
        continue;
      LinearParts p = partsOf(lin);
      if (!p.act.takePost(std::is_same_v<BinOp, MulOp>, *c))
        continue;
      rewriter.setInsertionPoint(op);
      return replaceByLinear(rewriter, op, fusedLoc({lin, op}), p);
    }
    return failure();
  }
};

struct FuseLinearPass : public mlir::nunc::impl::FuseLinearBase<FuseLinearPass> {
  using FuseLinearBase::FuseLinearBase;
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<DynamicQuantizedMatMulToLinear, QLinearMatMulToLinear>(&getContext(),
                                                                         u8Weights);
    patterns.add<QdqMatMulToLinear, QdqGemmToLinear>(&getContext(), u8Weights, u16Inputs);
    patterns.add<MatMulToLinear, ConstantFirstMatMulToLinear, BatchedWeightMatMulToLinears,
                 GemmToLinear, SkipRequantizedInput, AddIntoLinear<LinearOp>,
                 AddIntoLinear<QuantizedLinearOp>,
                 ActivationIntoLinear<ReluOp, LinearOp>, ActivationIntoLinear<LeakyReluOp, LinearOp>,
                 ActivationIntoLinear<SigmoidOp, LinearOp>,
                 ActivationIntoLinear<TanhOp, LinearOp>, ActivationIntoLinear<GeluOp, LinearOp>,
                 ActivationIntoLinear<ClipOp, LinearOp>,
                 ActivationIntoLinear<ReluOp, QuantizedLinearOp>,
                 ActivationIntoLinear<LeakyReluOp, QuantizedLinearOp>,
                 ActivationIntoLinear<SigmoidOp, QuantizedLinearOp>,
                 ActivationIntoLinear<TanhOp, QuantizedLinearOp>,
                 ActivationIntoLinear<GeluOp, QuantizedLinearOp>,
                 ActivationIntoLinear<ClipOp, QuantizedLinearOp>,
                 ActivationIntoLinear<HardSigmoidOp, LinearOp>,
                 ActivationIntoLinear<HardSwishOp, LinearOp>,
                 ActivationIntoLinear<HardSigmoidOp, QuantizedLinearOp>,
                 ActivationIntoLinear<HardSwishOp, QuantizedLinearOp>,
                 ActivationIntoLinear<SiluOp, LinearOp>,
                 ActivationIntoLinear<SiluOp, QuantizedLinearOp>,
                 PostAffineIntoLinear<MulOp, LinearOp>, PostAffineIntoLinear<AddOp, LinearOp>,
                 PostAffineIntoLinear<MulOp, QuantizedLinearOp>,
                 PostAffineIntoLinear<AddOp, QuantizedLinearOp>>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
