//===- Evaluator.cpp - reference evaluator for nunc IR --------------------===//

#include "nunc/Interpreter/Evaluator.h"

#include "KernelSupport.h"
#include "Kernels.h"
#include "nunc/Dialect/Nunc/NuncOps.h"
#include "nunc/Dialect/Nunc/NuncUtils.h"
#include "nunc/Dialect/Nunc/OneStepRequantization.h"

#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cstring>

using namespace mlir;
using namespace mlir::nunc;
using llvm::Expected;

namespace {

using Results = llvm::SmallVector<Tensor>;

Expected<Results> one(Expected<Tensor> t) {
  if (!t)
    return t.takeError();
  return Results{std::move(*t)};
}

template <unsigned N> Expected<Results> many(Expected<llvm::SmallVector<Tensor, N>> ts) {
  if (!ts)
    return ts.takeError();
  return Results(ts->begin(), ts->end());
}

/// A fused op's activation attributes.
template <typename FusedOp> kernels::FusedActivation activationOf(FusedOp op) {
  return {op.getActivation(),
          op.getActivationMin().convertToFloat(),
          op.getActivationMax().convertToFloat(),
          op.getActivationAlpha().convertToFloat(),
          op.getActivationBeta().convertToFloat(),
          op.getActivationPostMul().convertToFloat(),
          op.getActivationPostAdd().convertToFloat()};
}

kernels::WindowAttrs windowAttrs(StringRef autoPad, ArrayRef<int64_t> kernel,
                                 ArrayRef<int64_t> strides, ArrayRef<int64_t> dilations,
                                 ArrayRef<int64_t> pads) {
  kernels::WindowAttrs w;
  w.autoPad = autoPad;
  w.kernel = kernel;
  w.strides = strides;
  w.dilations = dilations;
  w.pads = pads;
  return w;
}

/// The per-channel (or the one) scale of an s8 weight.
Expected<llvm::SmallVector<float>> weightScales(Value weight) {
  llvm::SmallVector<float> scales;
  Type element = cast<ShapedType>(weight.getType()).getElementType();
  if (auto axis = dyn_cast<quant::UniformQuantizedPerAxisType>(element))
    for (double s : axis.getScales())
      scales.push_back(static_cast<float>(s));
  else if (auto tensor = dyn_cast<quant::UniformQuantizedType>(element))
    scales.push_back(static_cast<float>(tensor.getScale()));
  else
    return llvm::createStringError("the int8 weight is not uniformly quantized");
  return scales;
}

/// The zero points of an int8 weight: none for s8 (all 0), else one or one
/// per column.
llvm::SmallVector<int32_t> weightZeroPoints(Value weight) {
  llvm::SmallVector<int32_t> zps;
  Type element = cast<ShapedType>(weight.getType()).getElementType();
  if (auto axis = dyn_cast<quant::UniformQuantizedPerAxisType>(element)) {
    if (!axis.isSigned())
      for (int64_t z : axis.getZeroPoints())
        zps.push_back(static_cast<int32_t>(z));
  } else if (auto tensor = dyn_cast<quant::UniformQuantizedType>(element)) {
    if (!tensor.isSigned())
      zps.push_back(static_cast<int32_t>(tensor.getZeroPoint()));
  }
  return zps;
}

std::optional<kernels::InputQuantization> inputQuantization(std::optional<Type> t) {
  if (!t)
    return std::nullopt;
  auto q = cast<quant::UniformQuantizedType>(*t);
  return kernels::InputQuantization{static_cast<float>(q.getScale()),
                                    static_cast<int32_t>(q.getZeroPoint()),
                                    // The width's top, as the kernels clamp
                                    // (narrow u8 grids included).
                                    static_cast<int32_t>(
                                        (int64_t(1) << q.getStorageTypeIntegralWidth()) - 1)};
}

/// The grid a per-tensor !quant.uniform type describes (none for none).
std::optional<kernels::Grid> gridOf(std::optional<Type> t) {
  if (!t)
    return std::nullopt;
  auto q = cast<quant::UniformQuantizedType>(*t);
  return kernels::Grid{static_cast<float>(q.getScale()), q.getZeroPoint(),
                       q.getStorageTypeMin(), q.getStorageTypeMax()};
}

/// x rounded to `grid` (fake_quantize).
Expected<Tensor> roundToGrid(const Tensor &x, const kernels::Grid &grid) {
  return kernels::fakeQuantize(x, grid.scale, grid.zeroPoint, grid.qmin, grid.qmax);
}

/// y, rounded to the `output_quantization` grid when there is one.
Expected<Results> roundedToGrid(Expected<Tensor> y, std::optional<Type> grid) {
  if (!y || !grid)
    return one(std::move(y));
  return one(roundToGrid(*y, *gridOf(grid)));
}

/// x (on the per-tensor grid `g`) with each value replaced by
/// table[q - qmin], q its code (quantized_conv's and fused_conv's
/// output_table).
Tensor lookUpCodes(const Tensor &x, quant::UniformQuantizedType g, ArrayRef<float> table) {
  Tensor y = cantFail(Tensor::create(DType::F32, x.shape()));
  const float scale = static_cast<float>(g.getScale());
  const int64_t zp = g.getZeroPoint(), qmin = g.getStorageTypeMin(),
                qmax = g.getStorageTypeMax();
  const float *in = x.as<float>();
  float *out = y.mutableAs<float>();
  for (int64_t i = 0; i < x.numElements(); ++i) {
    // Exact: a grid value divided by the scale is within an ulp of its
    // integer (NaN never reaches here: the grid rounds it to qmin).
    int64_t q = std::isnan(in[i]) ? qmin
                                  : std::clamp<int64_t>(
                                        static_cast<int64_t>(std::nearbyint(in[i] / scale)) + zp,
                                        qmin, qmax);
    out[i] = table[q - qmin];
  }
  return y;
}

/// The end of a conv's epilogue: y rounded to its last grid; with an
/// output_table (verified: the last grid is per tensor), the entries at
/// its codes, rounded to the table's grid; as the u8 codes of the grid
/// that comes last with u8_output.
Expected<Results> lastGridAndTable(Expected<Tensor> y, std::optional<Type> last,
                                   std::optional<ArrayRef<float>> table,
                                   std::optional<Type> tableGrid, bool u8Output) {
  if (y && table) {
    y = roundToGrid(*y, *gridOf(last));
    if (!y)
      return y.takeError();
    y = lookUpCodes(*y, cast<quant::UniformQuantizedType>(*last), *table);
    last = tableGrid;
  }
  if (y && u8Output)
    return one(kernels::quantizeU8(*y, *inputQuantization(last)));
  return roundedToGrid(std::move(y), last);
}

/// u8 codes of the per-tensor grid `t` (x's element type) as their f32
/// values float(q - zp) * scale; x itself when it is not quantized.
Tensor valuesOf(const Tensor &x, Type t) {
  auto q = dyn_cast<quant::UniformQuantizedType>(t);
  if (!q)
    return x;
  Tensor f = cantFail(Tensor::create(DType::F32, x.shape()));
  const uint8_t *codes = x.as<uint8_t>();
  float scale = static_cast<float>(q.getScale());
  int32_t zp = static_cast<int32_t>(q.getZeroPoint());
  for (int64_t i = 0; i < x.numElements(); ++i)
    f.mutableAs<float>()[i] = static_cast<float>(codes[i] - zp) * scale;
  return f;
}

} // namespace

std::optional<std::vector<float>> mlir::nunc::tabulateOnGrid(Operation *op,
                                                             quant::UniformQuantizedType grid) {
  const int64_t qmin = grid.getStorageTypeMin(), qmax = grid.getStorageTypeMax();
  const float scale = static_cast<float>(grid.getScale());
  std::vector<float> values;
  for (int64_t q = qmin; q <= qmax; ++q)
    values.push_back(static_cast<float>(q - grid.getZeroPoint()) * scale);
  Expected<Tensor> in =
      Tensor::fromValues<float>(DType::F32, {static_cast<int64_t>(values.size())}, values);
  if (!in) {
    consumeError(in.takeError());
    return std::nullopt;
  }
  Expected<Results> out = evaluateOp(op, [&](Value) -> const Tensor & { return *in; });
  if (!out) {
    consumeError(out.takeError());
    return std::nullopt;
  }
  const float *y = (*out)[0].as<float>();
  return std::vector<float>(y, y + values.size());
}

namespace {
/// ReduceMean / ReduceSum, rows in onnxruntime's order with
/// ordered_f32_arithmetic (the shape as the plain reduction gives it).
template <typename ReduceOpT>
Expected<Tensor> evaluateReduce(ReduceOpT o, kernels::ReduceKind kind,
                                llvm::function_ref<const Tensor &(Value)> get) {
  SmallVector<int64_t, 6> axes;
  if (o.getAxes())
    axes = kernels::readInts(get(o.getAxes()));
  const Tensor &x = get(o.getData());
  Expected<Tensor> y =
      kernels::reduce(kind, x, axes, o.getKeepdims() != 0, o.getNoopWithEmptyAxes() != 0);
  std::optional<int64_t> n = o.trailingRowSize();
  if (!y || !o.getOrderedF32Arithmetic() || !n || x.dtype() != DType::F32 ||
      (kind != kernels::ReduceKind::Sum && kind != kernels::ReduceKind::Mean))
    return y;
  float *out = y->template mutableAs<float>();
  for (int64_t r = 0, rows = x.numElements() / *n; r < rows; ++r) {
    const float sum = onnxruntimeRowSum(x.template as<float>() + r * *n, *n);
    out[r] = kind == kernels::ReduceKind::Mean ? sum / static_cast<float>(*n) : sum;
  }
  return y;
}
} // namespace

Expected<Results> mlir::nunc::evaluateOp(Operation *op,
                                         llvm::function_ref<const Tensor &(Value)> get) {
  using namespace kernels;
  auto opt = [&](Value v) -> const Tensor * { return v ? &get(v) : nullptr; };
  auto dtypeOfType = [](Type t) -> Expected<DType> {
    std::optional<DType> d = fromMlirType(getElementTypeOrSelf(t));
    if (!d)
      return llvm::createStringError("unsupported element type");
    return *d;
  };

  return llvm::TypeSwitch<Operation *, Expected<Results>>(op)
      .Case([&](ConstantOp c) { return one(tensorFromAttr(c.getValue())); })
      .Case([&](ConstantOfShapeOp c) -> Expected<Results> {
        Expected<Tensor> value = tensorFromAttr(c.getValue());
        if (!value)
          return value.takeError();
        return one(constantOfShape(get(c.getShape()), *value));
      })
      .Case([&](RangeOp r) {
        return one(range(get(r.getStart()), get(r.getLimit()), get(r.getDelta())));
      })
      .Case([&](SqrtOp o) { return one(unary(UnaryKind::Sqrt, get(o.getInput()))); })
      .Case([&](FloorOp o) { return one(unary(UnaryKind::Floor, get(o.getInput()))); })
      .Case([&](CeilOp o) { return one(unary(UnaryKind::Ceil, get(o.getInput()))); })
      .Case([&](RoundOp o) { return one(unary(UnaryKind::Round, get(o.getInput()))); })
      .Case([&](ErfOp o) { return one(unary(UnaryKind::Erf, get(o.getInput()))); })
      .Case([&](ExpOp o) { return one(unary(UnaryKind::Exp, get(o.getInput()))); })
      .Case([&](LogOp o) { return one(unary(UnaryKind::Log, get(o.getInput()))); })
      .Case([&](SinOp o) { return one(unary(UnaryKind::Sin, get(o.getInput()))); })
      .Case([&](CosOp o) { return one(unary(UnaryKind::Cos, get(o.getInput()))); })
      .Case([&](TanOp o) { return one(unary(UnaryKind::Tan, get(o.getInput()))); })
      .Case([&](AsinOp o) { return one(unary(UnaryKind::Asin, get(o.getInput()))); })
      .Case([&](AcosOp o) { return one(unary(UnaryKind::Acos, get(o.getInput()))); })
      .Case([&](AtanOp o) { return one(unary(UnaryKind::Atan, get(o.getInput()))); })
      .Case([&](SinhOp o) { return one(unary(UnaryKind::Sinh, get(o.getInput()))); })
      .Case([&](CoshOp o) { return one(unary(UnaryKind::Cosh, get(o.getInput()))); })
      .Case([&](AsinhOp o) { return one(unary(UnaryKind::Asinh, get(o.getInput()))); })
      .Case([&](AcoshOp o) { return one(unary(UnaryKind::Acosh, get(o.getInput()))); })
      .Case([&](AtanhOp o) { return one(unary(UnaryKind::Atanh, get(o.getInput()))); })
      .Case([&](SoftplusOp o) { return one(unary(UnaryKind::Softplus, get(o.getInput()))); })
      .Case([&](AbsOp o) { return one(unary(UnaryKind::Abs, get(o.getInput()))); })
      .Case([&](TanhOp o) { return one(unary(UnaryKind::Tanh, get(o.getInput()))); })
      .Case([&](ReluOp o) { return one(unary(UnaryKind::Relu, get(o.getInput()))); })
      .Case([&](LeakyReluOp o) {
        return one(leakyRelu(get(o.getInput()), o.getAlpha().convertToFloat()));
      })
      .Case([&](SigmoidOp o) { return one(unary(UnaryKind::Sigmoid, get(o.getInput()))); })
      .Case([&](HardSigmoidOp o) {
        return one(hardSigmoid(get(o.getInput()), o.getAlpha().convertToFloat(),
                               o.getBeta().convertToFloat(), /*swish=*/false));
      })
      .Case([&](SiluOp o) { return one(silu(get(o.getInput()))); })
      .Case([&](HardSwishOp o) {
        return one(hardSigmoid(get(o.getInput()), o.getAlpha().convertToFloat(),
                               o.getBeta().convertToFloat(), /*swish=*/true));
      })
      .Case([&](GeluOp o) {
        if (o.hasGrids())
          return one(geluOnGrids(get(o.getInput()),
                                 GeluGrids{gridOf(o.getErfQuantization()),
                                           gridOf(o.getSumQuantization()),
                                           gridOf(o.getProductQuantization()),
                                           o.getOne().convertToFloat(),
                                           o.getHalf().convertToFloat()}));
        return one(unary(o.getApproximate() == "tanh" ? UnaryKind::GeluTanh
                                                      : UnaryKind::GeluErf,
                         get(o.getInput())));
      })
      .Case([&](IdentityOp o) { return one(get(o.getInput())); })
      .Case([&](CastOp o) -> Expected<Results> {
        Expected<DType> to = dtypeOfType(o.getTo());
        if (!to)
          return to.takeError();
        return one(cast(get(o.getInput()), *to));
      })
      .Case([&](ClipOp o) {
        return one(clip(get(o.getInput()), opt(o.getMin()), opt(o.getMax())));
      })
      .Case<AddOp, SubOp, MulOp, DivOp>([&](auto o) -> Expected<Results> {
        using Op = decltype(o);
        if constexpr (std::is_same_v<Op, AddOp> || std::is_same_v<Op, MulOp>) {
          // signed_codes: the s8 codes of the same grids.
          auto codes = [&](std::optional<Type> t) {
            kernels::Grid g = *gridOf(t);
            if (o.getSignedCodes()) {
              g.zeroPoint -= 128;
              g.qmin -= 128;
              g.qmax -= 128;
            }
            return g;
          };
          if (o.getLhsQuantization())
            return one((std::is_same_v<Op, AddOp> ? kernels::addCodes : kernels::mulCodes)(
                get(o.getLhs()), get(o.getRhs()), codes(o.getLhsQuantization()),
                codes(o.getRhsQuantization()), codes(o.getOutputQuantization())));
        }
        BinaryKind kind = std::is_same_v<Op, AddOp>   ? BinaryKind::Add
                          : std::is_same_v<Op, SubOp> ? BinaryKind::Sub
                          : std::is_same_v<Op, MulOp> ? BinaryKind::Mul
                                                      : BinaryKind::Div;
        return roundedToGrid(binary(kind, get(o.getLhs()), get(o.getRhs())),
                             o.getOutputQuantization());
      })
      .Case([&](ElementwiseChainOp o) -> Expected<Results> {
        // Step by step with the tensor kernels of the ops the steps stand for.
        std::vector<Tensor> values;
        for (Value in : o.getInputs())
          values.push_back(get(in));
        for (const ElementwiseChainOp::Step &step : o.getDecodedSteps()) {
          Expected<Tensor> constant = Tensor::fromValues<float>(DType::F32, {}, step.constant);
          if (!constant)
            return constant.takeError();
          auto arg = [&](int i) -> const Tensor & {
            return step.args[i] < 0 ? *constant : values[step.args[i]];
          };
          auto compute = [&]() -> Expected<Tensor> {
            switch (step.kind) {
            case ElementwiseChainOp::Step::Add:
            case ElementwiseChainOp::Step::Sub:
            case ElementwiseChainOp::Step::Mul:
            case ElementwiseChainOp::Step::Div: {
              const BinaryKind kinds[] = {BinaryKind::Add, BinaryKind::Sub, BinaryKind::Mul,
                                          BinaryKind::Div};
              return binary(kinds[step.kind], arg(0), arg(1));
            }
            case ElementwiseChainOp::Step::Relu: return unary(UnaryKind::Relu, arg(0));
            case ElementwiseChainOp::Step::Clip: {
              Expected<Tensor> lo =
                  Tensor::fromValues<float>(DType::F32, {}, step.min.value_or(0));
              if (!lo)
                return lo.takeError();
              Expected<Tensor> hi =
                  Tensor::fromValues<float>(DType::F32, {}, step.max.value_or(0));
              if (!hi)
                return hi.takeError();
              return clip(arg(0), step.min ? &*lo : nullptr, step.max ? &*hi : nullptr);
            }
            case ElementwiseChainOp::Step::HardSigmoid:
            case ElementwiseChainOp::Step::HardSwish:
              return hardSigmoid(arg(0), step.alpha, step.beta,
                                 step.kind == ElementwiseChainOp::Step::HardSwish);
            case ElementwiseChainOp::Step::FakeQuantize: return arg(0);
            }
            llvm_unreachable("a verified step kind");
          };
          Expected<Tensor> y = compute();
          if (!y)
            return y.takeError();
          if (step.grid) {
            Expected<Tensor> rounded = roundToGrid(*y, *gridOf(Type(*step.grid)));
            if (!rounded)
              return rounded.takeError();
            values.push_back(std::move(*rounded));
          } else {
            values.push_back(std::move(*y));
          }
        }
        return one(std::move(values.back()));
      })
      .Case([&](PowOp o) { return one(binary(BinaryKind::Pow, get(o.getLhs()), get(o.getRhs()))); })
      .Case([&](EqualOp o) { return one(binary(BinaryKind::Equal, get(o.getLhs()), get(o.getRhs()))); })
      .Case([&](GreaterOp o) {
        return one(binary(BinaryKind::Greater, get(o.getLhs()), get(o.getRhs())));
      })
      .Case([&](MinOp o) { return one(binary(BinaryKind::Min, get(o.getLhs()), get(o.getRhs()))); })
      .Case([&](ModOp o) {
        return one(binary(o.getFmod() ? BinaryKind::FMod : BinaryKind::Mod, get(o.getLhs()),
                          get(o.getRhs())));
      })
      .Case([&](BitwiseAndOp o) {
        return one(binary(BinaryKind::BitAnd, get(o.getLhs()), get(o.getRhs())));
      })
      .Case([&](BitwiseOrOp o) {
        return one(binary(BinaryKind::BitOr, get(o.getLhs()), get(o.getRhs())));
      })
      .Case([&](BitwiseXorOp o) {
        return one(binary(BinaryKind::BitXor, get(o.getLhs()), get(o.getRhs())));
      })
      .Case([&](ShiftLeftOp o) {
        return one(binary(BinaryKind::ShiftLeft, get(o.getLhs()), get(o.getRhs())));
      })
      .Case([&](ShiftRightOp o) {
        return one(binary(BinaryKind::ShiftRight, get(o.getLhs()), get(o.getRhs())));
      })
      .Case([&](MaxOp o) { return one(binary(BinaryKind::Max, get(o.getLhs()), get(o.getRhs()))); })
      .Case([&](WhereOp o) {
        return one(where(get(o.getCondition()), get(o.getX()), get(o.getY())));
      })
      .Case([&](MatMulOp o) { return one(matmul(get(o.getA()), get(o.getB()))); })
      .Case([&](GemmOp o) {
        return one(gemm(get(o.getA()), get(o.getB()), opt(o.getC()),
                        o.getAlpha().convertToFloat(), o.getBeta().convertToFloat(),
                        o.getTransA() != 0, o.getTransB() != 0));
      })
      .Case([&](MatMulIntegerOp o) {
        return one(matmulInteger(get(o.getA()), get(o.getB()), opt(o.getAZeroPoint()),
                                 opt(o.getBZeroPoint())));
      })
      .Case([&](ConvIntegerOp o) {
        WindowAttrs w = windowAttrs(o.getAutoPad(), o.getKernelShape(), o.getStrides(),
                                    o.getDilations(), o.getPads());
        w.group = o.getGroup();
        return one(convInteger(get(o.getInput()), get(o.getWeight()),
                               opt(o.getInputZeroPoint()), opt(o.getWeightZeroPoint()), w));
      })
      .Case([&](QLinearConvOp o) {
        WindowAttrs w = windowAttrs(o.getAutoPad(), o.getKernelShape(), o.getStrides(),
                                    o.getDilations(), o.getPads());
        w.group = o.getGroup();
        return one(qlinearConv(get(o.getInput()), get(o.getInputScale()),
                               get(o.getInputZeroPoint()), get(o.getWeight()),
                               get(o.getWeightScale()), get(o.getWeightZeroPoint()),
                               get(o.getOutputScale()), get(o.getOutputZeroPoint()),
                               opt(o.getBias()), w));
      })
      .Case([&](QLinearMatMulOp o) {
        return one(qlinearMatmul(get(o.getA()), get(o.getAScale()), get(o.getAZeroPoint()),
                                 get(o.getB()), get(o.getBScale()), get(o.getBZeroPoint()),
                                 get(o.getYScale()), get(o.getYZeroPoint())));
      })
      .Case([&](ReduceMeanOp o) { return one(evaluateReduce(o, ReduceKind::Mean, get)); })
      .Case([&](ReduceSumOp o) { return one(evaluateReduce(o, ReduceKind::Sum, get)); })
      .Case([&](ReduceMaxOp o) { return one(evaluateReduce(o, ReduceKind::Max, get)); })
      .Case<ArgMaxOp, ArgMinOp>([&](auto o) {
        return one(argExtreme(get(o.getData()), o.getAxis(), o.getKeepdims() != 0,
                              isa<ArgMaxOp>(o.getOperation()), o.getSelectLastIndex() != 0));
      })
      .Case([&](ReduceMinOp o) { return one(evaluateReduce(o, ReduceKind::Min, get)); })
      .Case([&](ReduceProdOp o) { return one(evaluateReduce(o, ReduceKind::Prod, get)); })
      .Case([&](SoftmaxOp o) {
        if (o.getInputQuantization())
          return one(qlinearSoftmax(get(o.getInput()), o.getAxis(),
                                    *inputQuantization(o.getInputQuantization()),
                                    *inputQuantization(o.getOutputQuantization())));
        return one(softmax(get(o.getInput()), o.getAxis()));
      })
      .Case([&](LayerNormOp o) -> Expected<Results> {
        Expected<DType> stats = dtypeOfType(o.getMean().getType());
        if (!stats)
          return stats.takeError();
        return many(layerNorm(get(o.getInput()), get(o.getScale()), opt(o.getBias()),
                              o.getAxis(), o.getEpsilon().convertToFloat(), *stats,
                              o.getOrderedF32Arithmetic(), o.getRms()));
      })
      .Case([&](BatchNormOp o) -> Expected<Results> {
        const Tensor &x = get(o.getInput());
        std::optional<Tensor> rounded;
        if (std::optional<kernels::Grid> in = gridOf(o.getInputQuantization())) {
          Expected<Tensor> r = roundToGrid(x, *in);
          if (!r)
            return r.takeError();
          rounded = std::move(*r);
        }
        return roundedToGrid(batchNorm(rounded ? *rounded : x, get(o.getScale()),
                                       get(o.getBias()), get(o.getMean()), get(o.getVar()),
                                       o.getEpsilon().convertToFloat()),
                             o.getOutputQuantization());
      })
      .Case([&](GatherOp o) {
        return one(gather(get(o.getData()), get(o.getIndices()), o.getAxis()));
      })
      .Case([&](GatherElementsOp o) {
        return one(gatherElements(get(o.getData()), get(o.getIndices()), o.getAxis()));
      })
      .Case([&](GatherNDOp o) {
        return one(gatherND(get(o.getData()), get(o.getIndices()), o.getBatchDims()));
      })
      .Case([&](ScatterNDOp o) {
        return one(scatterND(get(o.getData()), get(o.getIndices()), get(o.getUpdates()),
                             o.getReduction()));
      })
      .Case([&](ScatterElementsOp o) {
        return one(scatterElements(get(o.getData()), get(o.getIndices()), get(o.getUpdates()),
                                   o.getAxis(), o.getReduction()));
      })
      .Case([&](TopKOp o) {
        return many(topK(get(o.getInput()), o.getK(), o.getAxis(), o.getLargest() != 0));
      })
      .Case([&](CumProdOp o) {
        return one(cumulative(get(o.getData()), o.getAxis(), o.getExclusive() != 0,
                              o.getReverse() != 0, /*product=*/true));
      })
      .Case([&](CumSumOp o) {
        return one(cumulative(get(o.getData()), o.getAxis(), o.getExclusive() != 0,
                              o.getReverse() != 0, /*product=*/false));
      })
      .Case([&](ReshapeOp o) {
        return one(reshape(get(o.getData()), get(o.getShape()), o.getAllowzero() != 0));
      })
      .Case([&](FlattenOp o) { return one(flatten(get(o.getInput()), o.getAxis())); })
      .Case([&](TransposeOp o) { return one(transpose(get(o.getInput()), o.getPerm())); })
      .Case([&](UnsqueezeOp o) { return one(unsqueeze(get(o.getData()), get(o.getAxes()))); })
      .Case([&](SqueezeOp o) { return one(squeeze(get(o.getData()), opt(o.getAxes()))); })
      .Case([&](ConcatOp o) {
        SmallVector<const Tensor *> inputs;
        for (Value v : o.getInputs())
          inputs.push_back(&get(v));
        return one(concat(inputs, o.getAxis()));
      })
      .Case([&](SliceOp o) {
        return one(slice(get(o.getData()), get(o.getStarts()), get(o.getEnds()),
                         opt(o.getAxes()), opt(o.getSteps())));
      })
      .Case([&](ExpandOp o) { return one(expand(get(o.getInput()), get(o.getShape()))); })
      .Case([&](PadOp o) {
        return one(pad(get(o.getInput()), get(o.getPads()), opt(o.getConstantValue()),
                       opt(o.getAxes()), o.getMode()));
      })
      .Case([&](ShapeOp o) {
        return one(shapeOf(get(o.getData()), o.getStart(), o.getEnd()));
      })
      .Case([&](ConvOp o) {
        WindowAttrs w = windowAttrs(o.getAutoPad(), o.getKernelShape(), o.getStrides(),
                                    o.getDilations(), o.getPads());
        w.group = o.getGroup();
        return one(conv(get(o.getInput()), get(o.getWeight()), opt(o.getBias()), w));
      })
      .Case([&](ConvTransposeOp o) -> Expected<Results> {
        const Tensor &x = get(o.getInput());
        if (x.rank() < 3)
          return llvm::createStringError("ConvTranspose input must have rank >= 3, got " +
                                         x.describe());
        llvm::SmallVector<int64_t, 6> spatial(x.shape().drop_front(2));
        NUNC_ASSIGN_OR_RETURN(g, shape::convTranspose(spatial, o.getKernelShape(),
                                                      o.getStrides(), o.getDilations(),
                                                      o.getPads(), o.getOutputPadding(),
                                                      o.getOutputShape(), o.getAutoPad()));
        return one(convTranspose(x, get(o.getWeight()), opt(o.getBias()), o.getGroup(), g));
      })
      .Case([&](Col2ImOp o) {
        auto ints = [](const Tensor &t) {
          SmallVector<int64_t> v;
          for (int64_t i = 0; i < t.numElements(); ++i)
            v.push_back(t.getInt(i));
          return v;
        };
        return one(col2im(get(o.getInput()), ints(get(o.getImageShape())),
                          ints(get(o.getBlockShape())), o.getStrides(), o.getDilations(),
                          o.getPads()));
      })
      .Case([&](GridSampleOp o) {
        return one(gridSample(get(o.getInput()), get(o.getGrid()), o.getMode(),
                              o.getPaddingMode(), o.getAlignCorners()));
      })
      .Case([&](ResizeOp o) -> Expected<Results> {
        auto values = [](const Tensor *t) {
          std::optional<SmallVector<double>> v;
          if (t && t->numElements() > 0) {
            v.emplace();
            for (int64_t i = 0; i < t->numElements(); ++i)
              v->push_back(t->getDouble(i));
          }
          return v;
        };
        std::optional<SmallVector<double>> roi, scales = values(opt(o.getScales())),
                                                sizesF = values(opt(o.getSizes()));
        if (o.getCoordinateTransformationMode() == "tf_crop_and_resize")
          roi = values(opt(o.getRoi()));
        std::optional<SmallVector<int64_t>> sizes;
        if (sizesF)
          sizes = SmallVector<int64_t>(sizesF->begin(), sizesF->end());
        const Tensor &x = get(o.getInput());
        shape::ResizeParams params = o.getResizeParams();
        NUNC_ASSIGN_OR_RETURN(
            plan, shape::resize(x.shape(), params, roi, scales, sizes));
        return one(resize(x, params, plan, o.getExtrapolationValue().convertToFloat()));
      })
      .Case([&](MaxPoolOp o) {
        WindowAttrs w = windowAttrs(o.getAutoPad(), o.getKernelShape(), o.getStrides(),
                                    o.getDilations(), o.getPads());
        w.ceilMode = o.getCeilMode() != 0;
        return one(maxPool(get(o.getInput()), w));
      })
      .Case([&](AveragePoolOp o) {
        WindowAttrs w = windowAttrs(o.getAutoPad(), o.getKernelShape(), o.getStrides(),
                                    o.getDilations(), o.getPads());
        w.ceilMode = o.getCeilMode() != 0;
        w.countIncludePad = o.getCountIncludePad() != 0;
        if (o.getOrderedF32Arithmetic())
          return one(averagePoolAsMlas(get(o.getInput()), w, o.sumsColumnsFirst()));
        if (o.getOutputQuantization())
          return one(averagePoolOnGrid(get(o.getInput()), w,
                                       *inputQuantization(o.getOutputQuantization()),
                                       o.roundingZeroPoint()));
        return one(averagePool(get(o.getInput()), w));
      })
      .Case([&](GlobalAveragePoolOp o) {
        if (o.getInputQuantization())
          return one(globalAveragePoolOfCodes(get(o.getInput()),
                                              *inputQuantization(o.getInputQuantization()),
                                              *inputQuantization(o.getOutputQuantization())));
        return one(globalAveragePool(get(o.getInput())));
      })
      .Case([&](QuantizeLinearOp o) -> Expected<Results> {
        Expected<DType> out = dtypeOfType(o.getOutputElementType());
        if (!out)
          return out.takeError();
        return one(quantizeLinear(get(o.getInput()), get(o.getScale()),
                                  opt(o.getZeroPoint()), o.getAxis(), *out));
      })
      .Case([&](DequantizeLinearOp o) {
        return one(dequantizeLinear(get(o.getInput()), get(o.getScale()),
                                    opt(o.getZeroPoint()), o.getAxis()));
      })
      .Case([&](FakeQuantizeOp o) {
        return one(roundToGrid(get(o.getInput()), *gridOf(o.getQuantization())));
      })
      .Case([&](QuantizeOp o) {
        return one(quantizeU8(get(o.getInput()), *inputQuantization(o.getQuantization())));
      })
      .Case([&](DynamicQuantizeLinearOp o) {
        return many(dynamicQuantizeLinear(get(o.getInput())));
      })
      .Case([&](DynamicFakeQuantizeOp o) -> Expected<Results> {
        Expected<SmallVector<Tensor, 3>> q = dynamicQuantizeLinear(get(o.getInput()));
        if (!q)
          return q.takeError();
        return one(dequantizeLinear((*q)[0], (*q)[1], &(*q)[2], 1));
      })
      .Case([&](LinearOp o) {
        return one(linear(get(o.getInput()), get(o.getWeight()), opt(o.getBias()),
                          opt(o.getResidual()), activationOf(o)));
      })
      .Case([&](quant::StorageCastOp o) -> Expected<Results> {
        // u8 storage arrives as the signless i8 quant.scast takes: the
        // same bytes.
        const Tensor &in = get(o.getInput());
        auto q = dyn_cast<quant::QuantizedType>(getElementTypeOrSelf(o.getType()));
        if (q && !q.isSigned() && q.getStorageTypeIntegralWidth() == 8 &&
            in.dtype() == DType::I8)
          return one(Tensor::copyOf(DType::U8, in.shape(), in.raw()));
        return one(in);
      })
      .Case([&](QuantizedLinearOp o) -> Expected<Results> {
        Expected<SmallVector<float>> scales = weightScales(o.getWeight());
        if (!scales)
          return scales.takeError();
        std::optional<Type> input;
        if (std::optional<quant::UniformQuantizedType> q = o.staticInputQuantization())
          input = *q;
        // A grid before the activation, or grids inside it: the activation
        // follows the rest of the epilogue on its own.
        std::optional<kernels::Grid> beforeActivation =
            gridOf(o.getActivationInputQuantization());
        bool activationAfter = beforeActivation || o.hasGeluGrids();
        Expected<Tensor> y = quantizedLinear(
            get(o.getInput()), get(o.getWeight()), *scales,
            o.getActivationQuantization() == "dynamic_per_tensor", inputQuantization(input),
            opt(o.getBias()), opt(o.getResidual()),
            activationAfter ? kernels::FusedActivation() : activationOf(o),
            o.getOneStepRequantization() || o.getQlinearProduct()
                ? gridOf(asU8Grid(o.getProductQuantization()))
                : gridOf(o.getProductQuantization()),
            gridOf(o.getBiasQuantization()),
            weightZeroPoints(o.getWeight()),
            o.getOneStepRequantization()
                ? std::optional(QLinearBias{*gridOf(asU8Grid(o.getBiasCodesQuantization())),
                                            *gridOf(o.gridAfterBias()), o.getBiasFirst(),
                                            gridOf(o.getResidualQuantization()),
                                            o.getResidualQuantization()
                                                ? gridOf(o.gridAfterResidual())
                                                : std::nullopt,
                                            o.getResidualFirst(), o.getSignedCodes() ? 128 : 0})
                : std::nullopt,
            ProductSteps{static_cast<int64_t>(o.getF32ProductKBlock().value_or(0)),
                         o.getQlinearProduct()});
        if (y && beforeActivation)
          y = roundToGrid(*y, *beforeActivation);
        if (std::optional<QLinearGelu> k = o.qlinearGeluSteps(); y && k) {
          // onnxruntime's GELU steps on the input's codes (qlinearGeluCode).
          float *v = y->mutableAs<float>();
          for (int64_t i = 0, n = y->numElements(); i < n; ++i)
            v[i] = static_cast<float>(qlinearGeluCode(u8CodeOf(v[i], k->inScale, k->inZero), *k) -
                                      k->outZero) *
                   k->outScale;
        } else if (y && activationAfter)
          y = o.hasGeluGrids()
                  ? geluOnGrids(*y, GeluGrids{gridOf(o.getGeluErfQuantization()),
                                              gridOf(o.getGeluSumQuantization()),
                                              gridOf(o.getGeluProductQuantization()),
                                              o.getGeluOne().convertToFloat(),
                                              o.getGeluHalf().convertToFloat()})
                  : activation(*y, activationOf(o));
        if (y && o.getU8Output())
          return one(quantizeU8(*y, *inputQuantization(o.getOutputQuantization())));
        return roundedToGrid(std::move(y), o.getOutputQuantization());
      })
      .Case([&](QuantizedConvOp o) -> Expected<Results> {
        Expected<SmallVector<float>> scales = weightScales(o.getWeight());
        if (!scales)
          return scales.takeError();
        WindowAttrs w = windowAttrs(o.getAutoPad(), o.getKernelShape(), o.getStrides(),
                                    o.getDilations(), o.getPads());
        w.group = o.getGroup();
        // u8 codes are their own input quantization: their values quantize
        // back to them.
        Type element = getElementTypeOrSelf(o.getInput().getType());
        std::optional<Type> grid = o.getInputQuantization();
        if (isa<quant::QuantizedType>(element))
          grid = element;
        if (o.getOneStepRequantization()) {
          // The output grid's codes in one multiply; what follows takes them.
          Expected<Tensor> codes = quantizedConvOneStep(
              valuesOf(get(o.getInput()), element), get(o.getWeight()), *scales,
              *inputQuantization(grid), opt(o.getBias()), w, activationOf(o),
              *inputQuantization(o.getOutputQuantization()), weightZeroPoints(o.getWeight()));
          if (!codes || (o.getU8Output() && !o.getNormScale() && !o.getOutputTable()))
            return one(std::move(codes));
          Tensor values = valuesOf(*codes, *o.getOutputQuantization());
          if (!o.getNormScale() && o.getOutputTable())
            return lastGridAndTable(std::move(values), o.getOutputQuantization(),
                                    o.getOutputTable(), o.getTableQuantization(),
                                    o.getU8Output());
          if (!o.getNormScale())
            return one(std::move(values));
          return lastGridAndTable(
              channelAffine(values, get(o.getNormScale()), get(o.getNormShift())),
              o.getLastGrid(), o.getOutputTable(), o.getTableQuantization(), o.getU8Output());
        }
        Expected<Tensor> y = quantizedConv(
            valuesOf(get(o.getInput()), element), get(o.getWeight()), *scales,
            inputQuantization(grid), opt(o.getBias()),
            opt(o.getResidual()), w, activationOf(o), weightZeroPoints(o.getWeight()),
            static_cast<int64_t>(o.getF32ProductKBlock().value_or(0)));
        // With a normalization: rounded to the output grid, then normalized;
        // the last grid (getLastGrid) applies to that.
        if (o.getNormScale()) {
          Expected<Results> rounded = roundedToGrid(std::move(y), o.getOutputQuantization());
          if (!rounded)
            return rounded.takeError();
          y = channelAffine((*rounded)[0], get(o.getNormScale()), get(o.getNormShift()));
        }
        return lastGridAndTable(std::move(y), o.getLastGrid(), o.getOutputTable(),
                                o.getTableQuantization(), o.getU8Output());
      })
      .Case([&](AttentionOp o) -> Expected<Results> {
        // With u8_output, the codes of the values (on the output grid).
        auto result = [&](Expected<Tensor> y) -> Expected<Results> {
          if (y && o.getU8Output())
            return one(quantizeU8(*y, *inputQuantization(o.getOutputQuantization())));
          return one(std::move(y));
        };
        AttentionGrids grids{gridOf(o.getScoresQuantization()),
                             gridOf(o.getScaledQuantization()),
                             gridOf(o.getLogitsQuantization()),
                             gridOf(o.getProbsQuantization()),
                             gridOf(o.getOutputQuantization())};
        // (The verifier leaves int8_products no grids but u8_output's, which
        // `result` applies.)
        grids.int8Products = o.getInt8Products();
        if (o.getQlinearArithmetic()) {
          std::array<kernels::Grid, 3> inputs;
          for (unsigned i = 0; i < 3; ++i)
            inputs[i] = *gridOf(getElementTypeOrSelf(o->getOperand(i)));
          return result(attentionQLinear(get(o.getQuery()), get(o.getKey()), get(o.getValue()),
                                      opt(o.getMask()), o.getNumHeads(),
                                      o.getScale().convertToFloat(),
                                      o.divisorOrZero(), grids, inputs,
                                      gridOf(o.getMaskQuantization()), o.getSignedCodes()));
        }
        auto values = [&](Value x) { return valuesOf(get(x), getElementTypeOrSelf(x)); };
        if (!o.getInputOffsets()) {
          AttentionLayout layout;
          for (unsigned i = 0; i < 4; ++i)
            layout.headsMajor[i] = o.isHeadsMajor(i);
          layout.kvHeads = o.numKvHeads();
          return result(attention(values(o.getQuery()), values(o.getKey()), values(o.getValue()),
                               opt(o.getMask()), o.getNumHeads(), o.getScale().convertToFloat(),
                               grids, layout));
        }
        // Packed operands: each one's E columns at its offset.
        int64_t width = o.hiddenSize();
        Tensor parts[3];
        Value operands[3] = {o.getQuery(), o.getKey(), o.getValue()};
        for (unsigned i = 0; i < 3; ++i) {
          const Tensor &x = get(operands[i]);
          int64_t rows = x.shape()[0] * x.shape()[1], cols = x.shape()[2];
          Expected<Tensor> part =
              Tensor::create(x.dtype(), {x.shape()[0], x.shape()[1], width});
          if (!part)
            return part.takeError();
          const size_t bytes = dtypeSize(x.dtype());
          const char *from = x.raw() + o.inputOffset(i) * bytes;
          for (int64_t r = 0; r < rows; ++r)
            std::memcpy(part->mutableRaw() + r * width * bytes, from + r * cols * bytes,
                        width * bytes);
          parts[i] = std::move(*part);
        }
        return result(attention(parts[0], parts[1], parts[2], opt(o.getMask()), o.getNumHeads(),
                             o.getScale().convertToFloat(), grids));
      })
      .Case([&](FusedConvOp o) -> Expected<Results> {
        WindowAttrs w = windowAttrs(o.getAutoPad(), o.getKernelShape(), o.getStrides(),
                                    o.getDilations(), o.getPads());
        w.group = o.getGroup();
        Type element = getElementTypeOrSelf(o.getInput().getType());
        if (o.getOneStepRequantization()) {
          // onnxruntime's QLinearConv on the weight's own codes.
          const Tensor &weight = get(o.getWeight());
          std::optional<ConvWeightCodes> codes = convWeightCodes(
              ArrayRef<float>(weight.as<float>(), weight.numElements()), weight.dim(0),
              *o.getWeightQuantization());
          if (!codes)
            return llvm::createStringError(
                "one_step_requantization: the weight is not on its weight_quantization grid");
          // s8 steps as they are; u8 codes (steps past s8) with their zero
          // points.
          const bool asS8 = codes->stepsFitS8();
          const size_t perChannel = codes->steps.size() / codes->scales.size();
          std::vector<uint8_t> bytes(codes->steps.size());
          for (size_t i = 0; i < bytes.size(); ++i)
            bytes[i] = static_cast<uint8_t>(
                asS8 ? codes->steps[i] : codes->steps[i] + codes->zeroPoints[i / perChannel]);
          Expected<Tensor> k = Tensor::fromValues<uint8_t>(asS8 ? DType::I8 : DType::U8,
                                                           weight.shape(), bytes);
          if (!k)
            return k.takeError();
          if (!asS8 && !codes->isUnsigned)
            return llvm::createStringError(
                "one_step_requantization: s8 weight codes whose steps leave s8");
          Expected<Tensor> q = quantizedConvOneStep(
              valuesOf(get(o.getInput()), element), *k, codes->scales,
              *inputQuantization(element), opt(o.getBias()), w, activationOf(o),
              *inputQuantization(o.getOutputQuantization()),
              asS8 ? ArrayRef<int32_t>() : ArrayRef<int32_t>(codes->zeroPoints));
          if (!q || (o.getU8Output() && !o.getOutputTable()))
            return one(std::move(q));
          Tensor values = valuesOf(*q, *o.getOutputQuantization());
          if (o.getOutputTable()) // looked up at the one-step codes
            return lastGridAndTable(std::move(values), o.getOutputQuantization(),
                                    o.getOutputTable(), o.getTableQuantization(),
                                    o.getU8Output());
          return one(std::move(values));
        }
        Expected<Tensor> y = conv(valuesOf(get(o.getInput()), element), get(o.getWeight()),
                                  opt(o.getBias()), w);
        if (!y)
          return y.takeError();
        if (o.getResidual()) {
          y = binary(BinaryKind::Add, *y, get(o.getResidual()));
          if (!y)
            return y.takeError();
        }
        y = activation(*y, activationOf(o));
        return lastGridAndTable(std::move(y), o.getOutputQuantization(), o.getOutputTable(),
                                o.getTableQuantization(), o.getU8Output());
      })
      .Default([&](Operation *other) -> Expected<Results> {
        return llvm::createStringError("the evaluator has no kernel for '" +
                                       other->getName().getStringRef() + "'");
      });
}

/// Checks a run-time tensor against a declared type.
static llvm::Error checkAgainstType(const Tensor &t, Type type, const llvm::Twine &what) {
  auto shaped = cast<ShapedType>(type);
  std::optional<DType> d = fromMlirType(shaped.getElementType());
  if (!d || *d != t.dtype())
    return llvm::createStringError(what + " has type " + dtypeName(t.dtype()) +
                                   ", expected " +
                                   (d ? dtypeName(*d) : llvm::StringRef("?")));
  if (!shaped.hasRank())
    return llvm::Error::success();
  bool ok = shaped.getRank() == t.rank();
  for (int64_t i = 0; ok && i < t.rank(); ++i)
    ok = shaped.isDynamicDim(i) || shaped.getDimSize(i) == t.dim(i);
  if (!ok)
    return llvm::createStringError(what + " has shape " +
                                   shape::toString(t.shape()) + ", expected " +
                                   shape::toString(shaped.getShape()));
  return llvm::Error::success();
}

Expected<Results> mlir::nunc::evaluateFunction(func::FuncOp func, ArrayRef<Tensor> inputs,
                                               EvaluationObserver observer) {
  Block &body = func.getBody().front();
  if (inputs.size() != body.getNumArguments())
    return llvm::createStringError("expected " + llvm::Twine(body.getNumArguments()) +
                                   " inputs, got " + llvm::Twine(inputs.size()));
  llvm::DenseMap<Value, Tensor> values;
  for (auto [i, arg] : llvm::enumerate(body.getArguments())) {
    std::string name = "input #" + std::to_string(i);
    if (auto n = func.getArgAttrOfType<StringAttr>(i, "nunc.name"))
      name = "input '" + n.str() + "'";
    if (llvm::Error e = checkAgainstType(inputs[i], arg.getType(), name))
      return std::move(e);
    values[arg] = inputs[i];
  }
  // Release each intermediate after its last use, so peak memory stays near
  // the model's live set rather than the sum of all activations.
  llvm::DenseMap<Operation *, SmallVector<Value>> lastUses;
  {
    llvm::DenseMap<Value, Operation *> last;
    for (Operation &op : body)
      for (Value v : op.getOperands())
        last[v] = &op;
    for (auto &[v, op] : last)
      lastUses[op].push_back(v);
  }
  for (Operation &op : body) {
    if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      Results out;
      for (Value v : ret.getOperands())
        out.push_back(values.lookup(v));
      return out;
    }
    auto operand = [&](Value v) -> const Tensor & { return values[v]; };
    if (observer)
      observer(&op, operand);
    Expected<Results> results = evaluateOp(&op, operand);
    if (!results)
      return llvm::createStringError(describeLocation(op.getLoc()) + ": " +
                                     llvm::toString(results.takeError()));
    for (auto [r, t] : llvm::zip(op.getResults(), *results)) {
      if (llvm::Error e = checkAgainstType(t, r.getType(), "the result"))
        return llvm::createStringError(describeLocation(op.getLoc()) + ": " +
                                       llvm::toString(std::move(e)) +
                                       " (the IR's types disagree with the data)");
      values[r] = std::move(t);
    }
    for (Value v : lastUses.lookup(&op))
      if (!isa<BlockArgument>(v))
        values.erase(v);
  }
  return llvm::createStringError("function has no return");
}

Expected<Tensor> mlir::nunc::tensorFromAttr(ElementsAttr attr) {
  auto type = cast<ShapedType>(attr.getType());
  std::optional<DType> dtype = fromMlirType(type.getElementType());
  if (!dtype || !type.hasStaticShape())
    return llvm::createStringError("unsupported constant type");
  if (std::optional<ArrayRef<char>> raw = tryGetRawElements(attr)) {
    if ((int64_t)raw->size() != type.getNumElements() * (int64_t)dtypeSize(*dtype))
      return llvm::createStringError("constant data has the wrong size");
    // Attributes live as long as the MLIRContext, which outlives evaluation.
    return Tensor::borrow(*dtype, type.getShape(), raw->data(), nullptr);
  }
  SmallVector<char> bytes;
  if (!readRawElements(attr, bytes))
    return llvm::createStringError("unsupported constant attribute");
  return Tensor::copyOf(*dtype, type.getShape(), bytes.data());
}

ElementsAttr mlir::nunc::attrFromTensor(const Tensor &t, MLIRContext *ctx, StringRef hint) {
  auto type = RankedTensorType::get(t.shape(), toMlirType(t.dtype(), ctx));
  ArrayRef<char> bytes(t.raw(), t.byteSize());
  size_t width = dtypeSize(t.dtype());
  bool splat = t.numElements() > 1;
  for (int64_t i = 1; splat && i < t.numElements(); ++i)
    splat = std::memcmp(t.raw(), t.raw() + i * width, width) == 0;
  if (splat && t.dtype() != DType::Bool)
    return DenseElementsAttr::getFromRawBuffer(type, bytes.take_front(width));
  if (t.byteSize() <= 1024 || t.dtype() == DType::Bool) {
    if (t.dtype() == DType::Bool) {
      SmallVector<bool> values(t.as<bool>(), t.as<bool>() + t.numElements());
      return DenseElementsAttr::get(type, values);
    }
    return DenseElementsAttr::getFromRawBuffer(type, bytes);
  }
  return DenseResourceElementsAttr::get(
      type, hint,
      HeapAsmResourceBlob::allocateAndCopyWithAlign(bytes, dtypeSize(t.dtype()),
                                                    /*dataIsMutable=*/false));
}
