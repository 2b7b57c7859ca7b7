//===- OnnxNodes.cpp - one ONNX node to nunc ops --------------------------===//
//
// Normalizes opset differences as it goes: attributes that later opsets turned
// into inputs become constant operands, defaults are filled in, and Softmax's
// pre-13 semantics are rewritten into Flatten/Softmax/Reshape.
//
//===----------------------------------------------------------------------===//

#include "ImporterImpl.h"

#include "nunc/Dialect/Nunc/NuncUtils.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/Support/InterleavedRange.h"

#include <cfloat>

using namespace mlir;
using namespace mlir::nunc;
using namespace mlir::nunc::import_detail;

namespace {

std::optional<int64_t> rankOf(Value v) {
  if (auto t = dyn_cast<RankedTensorType>(v.getType()))
    return t.getRank();
  return std::nullopt;
}

} // namespace

LogicalResult Importer::convert(NodeContext &n, SmallVectorImpl<Value> &outputs) {
  llvm::StringRef op = n.node.op_type();
  // onnxruntime's own QuantizeLinear and DequantizeLinear (com.microsoft,
  // what its quantizer writes with UseQDQContribOps) compute what the
  // ai.onnx ops do, with the same inputs and `axis`: converted as those.
  bool contribQdq = n.node.domain() == kContribDomain &&
                    (op == "QuantizeLinear" || op == "DequantizeLinear");
  if (!isDefaultDomain(n.node.domain()) && !contribQdq)
    return convertContrib(n, outputs);
  Location loc = n.loc;
  auto in = [&](unsigned i) { return n.input(i); };
  auto take = [&](FailureOr<Operation *> r) -> LogicalResult {
    if (failed(r))
      return failure();
    outputs.append((*r)->result_begin(), (*r)->result_end());
    return success();
  };
  // Checks that inputs [0, required) are present and at most `max` given.
  auto arity = [&](unsigned required, unsigned max) -> LogicalResult {
    if (n.inputs.size() > max)
      return n.error() << op << " takes at most " << max << " input"
                       << (max == 1 ? "" : "s") << ", got " << n.inputs.size();
    for (unsigned i = 0; i < required; ++i) {
      if (in(i))
        continue;
      InFlightDiagnostic d = n.error();
      d << op << " needs input #" << i;
      // Attributes that later opsets turned into inputs are a common mix-up.
      for (const onnx::AttributeProto &a : n.node.attribute())
        if (llvm::is_contained({"axes", "starts", "ends", "min", "max"},
                               llvm::StringRef(a.name())))
          d << " ('" << a.name() << "' is an input at opset " << n.opset
            << ", not an attribute)";
      return d;
    }
    return success();
  };
  auto element = [](Value v) { return cast<ShapedType>(v.getType()).getElementType(); };

#define NUNC_SIMPLE(ONNX, OP, N)                                               \
  if (op == ONNX) {                                                            \
    if (failed(arity(N, N)))                                                   \
      return failure();                                                        \
    return take(create<OP>(n, n.inputs));                                      \
  }
  NUNC_SIMPLE("Add", AddOp, 2)
  NUNC_SIMPLE("Sub", SubOp, 2)
  NUNC_SIMPLE("Mul", MulOp, 2)
  NUNC_SIMPLE("Div", DivOp, 2)
  NUNC_SIMPLE("Pow", PowOp, 2)
  NUNC_SIMPLE("Equal", EqualOp, 2)
  NUNC_SIMPLE("BitwiseAnd", BitwiseAndOp, 2)
  NUNC_SIMPLE("BitwiseOr", BitwiseOrOp, 2)
  NUNC_SIMPLE("BitwiseXor", BitwiseXorOp, 2)
  NUNC_SIMPLE("Where", WhereOp, 3)
  NUNC_SIMPLE("Sqrt", SqrtOp, 1)
  NUNC_SIMPLE("Erf", ErfOp, 1)
  NUNC_SIMPLE("Exp", ExpOp, 1)
  NUNC_SIMPLE("Log", LogOp, 1)
  NUNC_SIMPLE("Sin", SinOp, 1)
  NUNC_SIMPLE("Cos", CosOp, 1)
  NUNC_SIMPLE("Tan", TanOp, 1)
  NUNC_SIMPLE("Asin", AsinOp, 1)
  NUNC_SIMPLE("Acos", AcosOp, 1)
  NUNC_SIMPLE("Atan", AtanOp, 1)
  NUNC_SIMPLE("Sinh", SinhOp, 1)
  NUNC_SIMPLE("Cosh", CoshOp, 1)
  NUNC_SIMPLE("Asinh", AsinhOp, 1)
  NUNC_SIMPLE("Acosh", AcoshOp, 1)
  NUNC_SIMPLE("Atanh", AtanhOp, 1)
  NUNC_SIMPLE("Softplus", SoftplusOp, 1)
  NUNC_SIMPLE("Abs", AbsOp, 1)
  NUNC_SIMPLE("Greater", GreaterOp, 2)
  NUNC_SIMPLE("Tanh", TanhOp, 1)
  NUNC_SIMPLE("Floor", FloorOp, 1)
  NUNC_SIMPLE("Ceil", CeilOp, 1)
  NUNC_SIMPLE("Round", RoundOp, 1)
  NUNC_SIMPLE("Relu", ReluOp, 1)
  NUNC_SIMPLE("Sigmoid", SigmoidOp, 1)
  NUNC_SIMPLE("Identity", IdentityOp, 1)
  NUNC_SIMPLE("MatMul", MatMulOp, 2)
  NUNC_SIMPLE("Expand", ExpandOp, 2)
  NUNC_SIMPLE("GlobalAveragePool", GlobalAveragePoolOp, 1)
  NUNC_SIMPLE("QLinearMatMul", QLinearMatMulOp, 8)
  NUNC_SIMPLE("Range", RangeOp, 3)
#undef NUNC_SIMPLE

  if (op == "DynamicQuantizeLinear") {
    if (failed(arity(1, 1)))
      return failure();
    return take(create<DynamicQuantizeLinearOp>(n, n.inputs, {}, 3));
  }

  if (op == "LeakyRelu") {
    FailureOr<float> alpha = n.getFloat("alpha", 0.01f);
    if (failed(arity(1, 1)) || failed(alpha))
      return failure();
    return take(create<LeakyReluOp>(n, n.inputs, {attr("alpha", builder.getF32FloatAttr(*alpha))}));
  }

  if (op == "Gelu") {
    FailureOr<std::string> approx = n.getString("approximate", "none");
    if (failed(arity(1, 1)) || failed(approx))
      return failure();
    return take(create<GeluOp>(n, n.inputs, {attr("approximate", builder.getStringAttr(*approx))}));
  }

  // CastLike(x, like): Cast to like's element type (like's values unread).
  if (op == "Cast" || op == "CastLike") {
    bool like = op == "CastLike";
    FailureOr<int64_t> to = like ? FailureOr<int64_t>(0) : n.getInt("to", std::nullopt);
    FailureOr<int64_t> saturate = n.getInt("saturate", 1);
    if (failed(arity(like ? 2 : 1, like ? 2 : 1)) || failed(to) || failed(saturate))
      return failure();
    std::optional<Type> type =
        like ? std::optional<Type>(element(in(1))) : onnx_io::elementType(ctx, *to);
    if (!type)
      return n.error() << "Cast to " << onnx_io::dataTypeName(*to) << " is not supported";
    return take(create<CastOp>(n, ValueRange{in(0)},
                               {attr("to", TypeAttr::get(*type)),
                                attr("saturate", builder.getI64IntegerAttr(*saturate))}));
  }

  if (op == "Clip") {
    if (failed(arity(1, n.opset < 11 ? 1 : 3)))
      return failure();
    Value lo = in(1), hi = in(2);
    if (n.opset < 11) {
      FailureOr<float> minV = n.getFloat("min", -FLT_MAX);
      FailureOr<float> maxV = n.getFloat("max", FLT_MAX);
      if (failed(minV) || failed(maxV))
        return failure();
      lo = constScalar(loc, element(in(0)), *minV);
      hi = constScalar(loc, element(in(0)), *maxV);
    }
    SmallVector<Value> operands{in(0), lo, hi};
    return take(create<ClipOp>(n, present(operands), {segments(operands)}));
  }

  // Pad: pads (an attribute before opset 11, then an input), the constant
  // value (attribute `value` before 11, then an optional input) and, from
  // opset 18, `axes` (constant) spread over every dim.
  if (op == "Pad") {
    if (failed(arity(1, n.opset < 11 ? 1 : 4)))
      return failure();
    FailureOr<std::string> mode = n.getString("mode", "constant");
    if (failed(mode))
      return failure();
    std::optional<int64_t> rank = rankOf(in(0));
    if (!rank)
      return n.error() << "Pad needs an input of known rank";
    Value pads = in(1), value = in(2);
    if (n.opset < 11) {
      FailureOr<std::optional<SmallVector<int64_t>>> p = n.getInts("pads");
      FailureOr<float> v = n.getFloat("value", 0.f);
      if (failed(p) || failed(v))
        return failure();
      if (!*p)
        return n.error() << "Pad needs its 'pads' attribute";
      pads = constI64(loc, **p);
      value = *v != 0.f ? constScalar(loc, element(in(0)), *v) : Value();
    } else if (!pads) {
      return n.error() << "Pad needs its pads input";
    }
    if (value && isEmptyTensor(value))
      value = Value();
    // Constant axes and pads spread over every dim here; otherwise the op
    // keeps its axes (the evaluator spreads them).
    Value axes = in(3);
    if (axes) {
      std::optional<SmallVector<int64_t>> a = getConstantInts(axes), p = getConstantInts(pads);
      if (a && p) {
        llvm::Expected<shape::Dims> full = shape::spreadPads(*p, *a, *rank);
        if (!full)
          return n.error() << llvm::toString(full.takeError());
        pads = constI64(loc, *full);
        axes = Value();
      }
    }
    SmallVector<Value> operands{in(0), pads, value, axes};
    return take(create<PadOp>(n, present(operands),
                              {segments(operands), attr("mode", builder.getStringAttr(*mode))}));
  }

  if (op == "Gemm") {
    FailureOr<float> alpha = n.getFloat("alpha", 1.f), beta = n.getFloat("beta", 1.f);
    FailureOr<int64_t> ta = n.getInt("transA", 0), tb = n.getInt("transB", 0);
    if (failed(arity(2, 3)) || failed(alpha) || failed(beta) || failed(ta) || failed(tb))
      return failure();
    return take(create<GemmOp>(n, present(n.inputs),
                               {attr("alpha", builder.getF32FloatAttr(*alpha)),
                                attr("beta", builder.getF32FloatAttr(*beta)),
                                attr("transA", builder.getI64IntegerAttr(*ta)),
                                attr("transB", builder.getI64IntegerAttr(*tb))}));
  }

  if (op == "MatMulInteger") {
    if (failed(arity(2, 4)))
      return failure();
    SmallVector<Value> operands{in(0), in(1), in(2), in(3)};
    return take(create<MatMulIntegerOp>(n, present(operands), {segments(operands)}));
  }

  if (op == "ArgMax" || op == "ArgMin") {
    FailureOr<int64_t> axis = n.getInt("axis", 0), keep = n.getInt("keepdims", 1),
                       last = n.getInt("select_last_index", 0);
    if (failed(arity(1, 1)) || failed(axis) || failed(keep) || failed(last))
      return failure();
    SmallVector<NamedAttribute> attrs{attr("axis", builder.getI64IntegerAttr(*axis)),
                                      attr("keepdims", builder.getI64IntegerAttr(*keep)),
                                      attr("select_last_index", builder.getI64IntegerAttr(*last))};
    return take(op == "ArgMax" ? create<ArgMaxOp>(n, {in(0)}, attrs)
                               : create<ArgMinOp>(n, {in(0)}, attrs));
  }

  if (op == "ReduceMean" || op == "ReduceSum" || op == "ReduceMax" || op == "ReduceMin" ||
      op == "ReduceProd") {
    FailureOr<int64_t> keep = n.getInt("keepdims", 1);
    FailureOr<std::pair<Value, int64_t>> axes = reductionAxes(n);
    if (failed(keep) || failed(axes))
      return failure();
    SmallVector<NamedAttribute> attrs{attr("keepdims", builder.getI64IntegerAttr(*keep)),
                                      attr("noop_with_empty_axes",
                                           builder.getI64IntegerAttr(axes->second))};
    SmallVector<Value> operands = present({in(0), axes->first});
    if (op == "ReduceMean")
      return take(create<ReduceMeanOp>(n, operands, attrs));
    if (op == "ReduceMax")
      return take(create<ReduceMaxOp>(n, operands, attrs));
    if (op == "ReduceMin")
      return take(create<ReduceMinOp>(n, operands, attrs));
    if (op == "ReduceProd")
      return take(create<ReduceProdOp>(n, operands, attrs));
    return take(create<ReduceSumOp>(n, operands, attrs));
  }

  if (op == "Softmax") {
    FailureOr<int64_t> axis = n.getInt("axis", n.opset < 13 ? 1 : -1);
    if (failed(arity(1, 1)) || failed(axis))
      return failure();
    FailureOr<Value> y = softmax(n, in(0), *axis, /*flattened=*/n.opset < 13);
    if (failed(y))
      return failure();
    outputs.push_back(*y);
    return success();
  }

  if (op == "LayerNormalization") {
    FailureOr<int64_t> axis = n.getInt("axis", -1), stash = n.getInt("stash_type", 1);
    FailureOr<float> eps = n.getFloat("epsilon", 1e-5f);
    if (failed(arity(2, 3)) || failed(axis) || failed(stash) || failed(eps))
      return failure();
    return take(create<LayerNormOp>(n, present(n.inputs),
                                    {attr("axis", builder.getI64IntegerAttr(*axis)),
                                     attr("epsilon", builder.getF32FloatAttr(*eps)),
                                     attr("stash_type", builder.getI64IntegerAttr(*stash))},
                                    3));
  }

  // InstanceNormalization and GroupNormalization as a LayerNormalization
  // over each (image, channel) or (image, group) row (scale 1, no bias: the
  // LayerNorm kernel), then the per-channel (per-group before opset 21's
  // GroupNormalization) scale and bias.
  if (op == "InstanceNormalization" || op == "GroupNormalization") {
    bool group = op == "GroupNormalization";
    FailureOr<float> eps = n.getFloat("epsilon", 1e-5f);
    FailureOr<int64_t> groups = group ? n.getInt("num_groups", 0) : FailureOr<int64_t>(0);
    FailureOr<int64_t> stash = group && n.opset >= 21 ? n.getInt("stash_type", 1)
                                                      : FailureOr<int64_t>(1);
    if (failed(arity(3, 3)) || failed(eps) || failed(groups) || failed(stash))
      return failure();
    auto type = dyn_cast<RankedTensorType>(in(0).getType());
    if (!type || !type.hasStaticShape() || type.getRank() < 3)
      return n.error() << op << " needs an input of static shape and rank 3 or more (pin it "
                                "with --shape)";
    ArrayRef<int64_t> d = type.getShape();
    const int64_t N = d[0], C = d[1], rank = d.size();
    int64_t G = group ? *groups : C;
    if (G < 1 || C % G != 0)
      return n.error() << op << " needs num_groups dividing the " << C << " channels, got "
                       << G;
    int64_t rest = type.getNumElements() / (N * G);
    Type el = type.getElementType();
    auto rowsType = RankedTensorType::get({rest}, el);
    Value ones = ConstantOp::create(builder, loc, rowsType,
                                    DenseElementsAttr::get(rowsType, builder.getFloatAttr(el, 1)));
    FailureOr<Value> rows = firstResult(create<ReshapeOp>(n, {in(0), constI64(loc, {N, G, rest})}));
    if (failed(rows))
      return failure();
    FailureOr<Operation *> norm = create<LayerNormOp>(
        n, {*rows, ones},
        {attr("axis", builder.getI64IntegerAttr(2)), attr("epsilon", builder.getF32FloatAttr(*eps)),
         attr("stash_type", builder.getI64IntegerAttr(*stash))},
        3);
    if (failed(norm))
      return failure();
    Value y = (*norm)->getResult(0);
    auto affine = [&](Value v, int64_t channels, int64_t trailing) -> FailureOr<Value> {
      SmallVector<int64_t> shape{channels};
      shape.append(trailing, 1);
      FailureOr<Value> scale = firstResult(create<ReshapeOp>(n, {in(1), constI64(loc, shape)}));
      FailureOr<Value> bias = firstResult(create<ReshapeOp>(n, {in(2), constI64(loc, shape)}));
      if (failed(scale) || failed(bias))
        return failure();
      FailureOr<Value> m = firstResult(create<MulOp>(n, {v, *scale}));
      return succeeded(m) ? firstResult(create<AddOp>(n, {*m, *bias})) : m;
    };
    bool perGroup = group && n.opset < 21;
    if (perGroup) {
      FailureOr<Value> a = affine(y, G, 1);
      if (failed(a))
        return failure();
      y = *a;
    }
    FailureOr<Value> back = firstResult(create<ReshapeOp>(n, {y, constI64(loc, d)}));
    if (succeeded(back) && !perGroup)
      back = affine(*back, C, rank - 2);
    if (failed(back))
      return failure();
    outputs.push_back(*back);
    return success();
  }

  if (op == "BatchNormalization") {
    FailureOr<float> eps = n.getFloat("epsilon", 1e-5f);
    n.ignore("momentum"); // only used in training
    if (n.opset <= 8) {
      FailureOr<int64_t> spatial = n.getInt("spatial", 1);
      if (failed(spatial))
        return failure();
      if (*spatial != 1)
        return n.error() << "BatchNormalization with spatial=0 is not supported";
    }
    if (n.opset >= 14) {
      FailureOr<int64_t> training = n.getInt("training_mode", 0);
      if (failed(training))
        return failure();
      if (*training != 0)
        return n.error() << "BatchNormalization in training mode is not supported";
    }
    if (failed(arity(5, 5)) || failed(eps))
      return failure();
    return take(create<BatchNormOp>(n, n.inputs, {attr("epsilon", builder.getF32FloatAttr(*eps))}));
  }

  if (op == "Gather") {
    FailureOr<int64_t> axis = n.getInt("axis", 0);
    if (failed(arity(2, 2)) || failed(axis))
      return failure();
    return take(create<GatherOp>(n, n.inputs, {attr("axis", builder.getI64IntegerAttr(*axis))}));
  }

  if (op == "GatherElements") {
    FailureOr<int64_t> axis = n.getInt("axis", 0);
    if (failed(arity(2, 2)) || failed(axis))
      return failure();
    return take(create<GatherElementsOp>(n, n.inputs,
                                         {attr("axis", builder.getI64IntegerAttr(*axis))}));
  }

  // TopK: k an attribute before opset 10, then a constant input; largest
  // and sorted from opset 11.
  if (op == "TopK") {
    FailureOr<int64_t> axis = n.getInt("axis", -1), largest = n.getInt("largest", 1),
                       sorted = n.getInt("sorted", 1);
    if (failed(axis) || failed(largest) || failed(sorted))
      return failure();
    int64_t k;
    if (n.opset < 10) {
      FailureOr<int64_t> kAttr = n.getInt("k", std::nullopt);
      if (failed(arity(1, 1)) || failed(kAttr))
        return failure();
      k = *kAttr;
    } else {
      if (failed(arity(2, 2)))
        return failure();
      std::optional<SmallVector<int64_t>> given = getConstantInts(in(1));
      if (!given || given->size() != 1)
        return n.error() << "TopK needs k to be a constant (its outputs' shape depends on it)";
      k = (*given)[0];
    }
    return take(create<TopKOp>(n, {in(0)},
                               {attr("k", builder.getI64IntegerAttr(k)),
                                attr("axis", builder.getI64IntegerAttr(*axis)),
                                attr("largest", builder.getI64IntegerAttr(*largest)),
                                attr("sorted", builder.getI64IntegerAttr(*sorted))},
                               2));
  }

  if (op == "GatherND") {
    FailureOr<int64_t> batchDims = n.getInt("batch_dims", 0);
    if (failed(arity(2, 2)) || failed(batchDims))
      return failure();
    return take(create<GatherNDOp>(n, n.inputs,
                                   {attr("batch_dims", builder.getI64IntegerAttr(*batchDims))}));
  }

  // ScatterND and ScatterElements (Scatter, opset 9-10, is ScatterElements
  // without reduction).
  if (op == "ScatterND" || op == "ScatterElements" || op == "Scatter") {
    FailureOr<std::string> reduction = n.getString("reduction", "none");
    FailureOr<int64_t> axis = op == "ScatterND" ? FailureOr<int64_t>(0) : n.getInt("axis", 0);
    if (failed(arity(3, 3)) || failed(reduction) || failed(axis))
      return failure();
    SmallVector<NamedAttribute> attrs{attr("reduction", builder.getStringAttr(*reduction))};
    if (op == "ScatterND")
      return take(create<ScatterNDOp>(n, n.inputs, attrs));
    attrs.push_back(attr("axis", builder.getI64IntegerAttr(*axis)));
    return take(create<ScatterElementsOp>(n, n.inputs, attrs));
  }

  // CumSum and CumProd: the axis (an input) must be a constant.
  if (op == "CumSum" || op == "CumProd") {
    FailureOr<int64_t> exclusive = n.getInt("exclusive", 0), reverse = n.getInt("reverse", 0);
    if (failed(arity(2, 2)) || failed(exclusive) || failed(reverse))
      return failure();
    std::optional<SmallVector<int64_t>> axis = getConstantInts(in(1));
    if (!axis || axis->size() != 1)
      return n.error() << op << " needs its axis to be a constant scalar";
    SmallVector<NamedAttribute> attrs{attr("axis", builder.getI64IntegerAttr((*axis)[0])),
                                      attr("exclusive", builder.getI64IntegerAttr(*exclusive)),
                                      attr("reverse", builder.getI64IntegerAttr(*reverse))};
    return take(op == "CumSum" ? create<CumSumOp>(n, {in(0)}, attrs)
                               : create<CumProdOp>(n, {in(0)}, attrs));
  }

  if (op == "Reshape") {
    FailureOr<int64_t> allowZero = n.getInt("allowzero", 0);
    if (failed(arity(2, 2)) || failed(allowZero))
      return failure();
    return take(create<ReshapeOp>(n, n.inputs,
                                  {attr("allowzero", builder.getI64IntegerAttr(*allowZero))}));
  }

  if (op == "Flatten") {
    FailureOr<int64_t> axis = n.getInt("axis", 1);
    if (failed(arity(1, 1)) || failed(axis))
      return failure();
    return take(create<FlattenOp>(n, n.inputs, {attr("axis", builder.getI64IntegerAttr(*axis))}));
  }

  if (op == "Transpose") {
    FailureOr<std::optional<SmallVector<int64_t>>> perm = n.getInts("perm");
    if (failed(arity(1, 1)) || failed(perm))
      return failure();
    SmallVector<int64_t> p;
    if (*perm) {
      p = **perm;
    } else {
      std::optional<int64_t> rank = rankOf(in(0));
      if (!rank)
        return n.error() << "Transpose without perm needs an input of known rank";
      for (int64_t i = *rank - 1; i >= 0; --i)
        p.push_back(i);
    }
    return take(create<TransposeOp>(n, n.inputs, {attr("perm", builder.getDenseI64ArrayAttr(p))}));
  }

  if (op == "Unsqueeze" || op == "Squeeze") {
    Value axes;
    if (n.opset >= 13) {
      if (failed(arity(op == "Unsqueeze" ? 2 : 1, 2)))
        return failure();
      axes = in(1);
    } else {
      FailureOr<std::optional<SmallVector<int64_t>>> a = n.getInts("axes");
      if (failed(arity(1, 1)) || failed(a))
        return failure();
      if (*a)
        axes = constI64(loc, **a);
      else if (op == "Unsqueeze")
        return n.error() << "Unsqueeze needs the 'axes' attribute";
    }
    if (op == "Unsqueeze")
      return take(create<UnsqueezeOp>(n, {in(0), axes}));
    return take(create<SqueezeOp>(n, present({in(0), axes})));
  }

  if (op == "Concat") {
    FailureOr<int64_t> axis = n.getInt("axis", std::nullopt);
    if (failed(axis))
      return failure();
    if (n.inputs.empty() || llvm::any_of(n.inputs, [](Value v) { return !v; }))
      return n.error() << "Concat needs at least one input and no empty ones";
    return take(create<ConcatOp>(n, n.inputs, {attr("axis", builder.getI64IntegerAttr(*axis))}));
  }

  if (op == "Slice") {
    SmallVector<Value> operands;
    if (n.opset < 10) {
      FailureOr<std::optional<SmallVector<int64_t>>> starts = n.getInts("starts"),
                                                      ends = n.getInts("ends"),
                                                      axes = n.getInts("axes");
      if (failed(arity(1, 1)) || failed(starts) || failed(ends) || failed(axes))
        return failure();
      if (!*starts || !*ends)
        return n.error() << "Slice needs 'starts' and 'ends'";
      operands = {in(0), constI64(loc, **starts), constI64(loc, **ends),
                  *axes ? constI64(loc, **axes) : Value(), Value()};
    } else {
      if (failed(arity(3, 5)))
        return failure();
      operands = {in(0), in(1), in(2), in(3), in(4)};
    }
    return take(create<SliceOp>(n, present(operands), {segments(operands)}));
  }

  // Split as one Slice per output along `axis`: the sizes from `split` (an
  // attribute before opset 13, a constant input since), else equal parts
  // (opset 18's num_outputs: ceil-sized, the last one smaller).
  if (op == "Split") {
    FailureOr<int64_t> axis = n.getInt("axis", 0);
    FailureOr<int64_t> numOutputs = n.opset >= 18 ? n.getInt("num_outputs", 0) : 0;
    FailureOr<std::optional<SmallVector<int64_t>>> splitAttr =
        n.opset < 13 ? n.getInts("split") : std::optional<SmallVector<int64_t>>();
    if (failed(arity(1, 2)) || failed(axis) || failed(numOutputs) || failed(splitAttr))
      return failure();
    auto type = dyn_cast<RankedTensorType>(in(0).getType());
    int64_t rank = type ? type.getRank() : 0;
    if (!type || *axis < -rank || *axis >= rank)
      return n.error() << "Split's axis " << *axis << " is out of range for "
                       << in(0).getType();
    int64_t a = *axis < 0 ? *axis + rank : *axis, dim = type.getDimSize(a);
    int64_t parts = n.node.output_size();
    // One Slice per part along the axis, part i ending at endOf(i) (an i64
    // [1], a constant or computed) and starting where part i - 1 ends.
    auto emitParts = [&](llvm::function_ref<FailureOr<Value>(int64_t)> endOf) -> LogicalResult {
      Value start = constI64(loc, {0});
      for (int64_t i = 0; i < parts; ++i) {
        FailureOr<Value> end = endOf(i);
        if (failed(end))
          return failure();
        SmallVector<Value> operands{in(0), start, *end, constI64(loc, {a}), Value()};
        if (failed(take(create<SliceOp>(n, present(operands), {segments(operands)}))))
          return failure();
        start = *end;
      }
      return success();
    };
    // Opset 18 takes exactly one of the two.
    if (n.opset >= 18 && static_cast<bool>(in(1)) == (*numOutputs > 0))
      return n.error() << "Split at opset " << n.opset
                       << " takes either the 'split' input or num_outputs, not "
                       << (in(1) ? "both" : "neither");
    if (in(1) && !getConstantInts(in(1))) {
      // Sizes known only from values: part i ends at the sum of the sizes up
      // to it (Slices that fold once the sizes are constants).
      auto sizesType = dyn_cast<RankedTensorType>(in(1).getType());
      if (!sizesType || sizesType.getRank() != 1 || sizesType.getDimSize(0) != parts)
        return n.error() << "Split's 'split' input must hold " << parts << " sizes, got "
                         << in(1).getType();
      return emitParts([&](int64_t i) -> FailureOr<Value> {
        SmallVector<Value> upTo{in(1), constI64(loc, {0}), constI64(loc, {i + 1}),
                                constI64(loc, {0}), Value()};
        FailureOr<Value> head = firstResult(create<SliceOp>(n, present(upTo), {segments(upTo)}));
        if (failed(head))
          return failure();
        return firstResult(create<ReduceSumOp>(
            n, {*head, constI64(loc, {0})},
            {attr("keepdims", builder.getI64IntegerAttr(1)),
             attr("noop_with_empty_axes", builder.getI64IntegerAttr(0))}));
      });
    }
    if (*numOutputs > 0 && *numOutputs != parts)
      return n.error() << "Split's num_outputs (" << *numOutputs << ") differs from its "
                       << parts << " outputs";
    SmallVector<int64_t> sizes;
    if (in(1)) {
      sizes = *getConstantInts(in(1));
    } else if (*splitAttr) {
      sizes = **splitAttr;
    } else if (ShapedType::isDynamic(dim)) {
      // Equal parts of a size known at run time: part i ends at chunk *
      // (i + 1), chunk = ceil(size / parts) (Slice clamps the last end).
      FailureOr<Value> size =
          firstResult(create<ShapeOp>(n, in(0),
                                      {attr("start", builder.getI64IntegerAttr(a)),
                                       attr("end", builder.getI64IntegerAttr(a + 1))}));
      if (failed(size))
        return failure();
      FailureOr<Value> rounded = firstResult(create<AddOp>(n, {*size, constI64(loc, {parts - 1})}));
      if (failed(rounded))
        return failure();
      FailureOr<Value> chunk = firstResult(create<DivOp>(n, {*rounded, constI64(loc, {parts})}));
      if (failed(chunk))
        return failure();
      return emitParts([&](int64_t i) -> FailureOr<Value> {
        return firstResult(create<MulOp>(n, {*chunk, constI64(loc, {i + 1})}));
      });
    } else if (*numOutputs > 0) {
      int64_t chunk = (dim + parts - 1) / parts;
      sizes.assign(parts, chunk);
      sizes.back() = dim - chunk * (parts - 1);
    } else {
      if (dim % parts)
        return n.error() << "Split into " << parts << " equal parts needs a size along axis "
                         << a << " divisible by " << parts << ", got " << dim;
      sizes.assign(parts, dim / parts);
    }
    int64_t total = 0;
    for (int64_t size : sizes)
      total += size;
    if ((int64_t)sizes.size() != parts || (!ShapedType::isDynamic(dim) && total != dim) ||
        llvm::any_of(sizes, [](int64_t size) { return size < 0; })) {
      InFlightDiagnostic d = n.error();
      d << "Split's sizes (" << sizes.size() << " of them, summing to " << total << ") must be "
        << parts << " non-negative sizes";
      if (!ShapedType::isDynamic(dim))
        d << " summing to " << dim;
      return d;
    }
    int64_t end = 0;
    return emitParts([&](int64_t i) -> FailureOr<Value> {
      end += sizes[i];
      return constI64(loc, {end});
    });
  }

  // The comparisons and logic ops that are others in disguise, each exact
  // (NaN compares false: a >= b is a > b or a == b, not the negation of
  // a < b): Less(a, b) = Greater(b, a); And(a, b) = Where(a, b, a);
  // Or(a, b) = Where(a, a, b); Not(a) = Equal(a, false); Xor(a, b) =
  // Not(Equal(a, b)).
  if (op == "Less" || op == "LessOrEqual" || op == "GreaterOrEqual") {
    if (failed(arity(2, 2)))
      return failure();
    bool less = op != "GreaterOrEqual";
    Value a = less ? in(1) : in(0), b = less ? in(0) : in(1);
    FailureOr<Value> greater = firstResult(create<GreaterOp>(n, {a, b}));
    if (failed(greater))
      return failure();
    if (op == "Less") {
      outputs.push_back(*greater);
      return success();
    }
    FailureOr<Value> equal = firstResult(create<EqualOp>(n, {a, b}));
    if (failed(equal))
      return failure();
    return take(create<WhereOp>(n, {*greater, *greater, *equal}));
  }
  if (op == "And" || op == "Or") {
    if (failed(arity(2, 2)))
      return failure();
    return take(op == "And" ? create<WhereOp>(n, {in(0), in(1), in(0)})
                            : create<WhereOp>(n, {in(0), in(0), in(1)}));
  }
  if (op == "Not" || op == "Xor") {
    if (failed(arity(op == "Not" ? 1 : 2, op == "Not" ? 1 : 2)))
      return failure();
    Value x = in(0);
    if (op == "Xor") {
      FailureOr<Value> equal = firstResult(create<EqualOp>(n, {in(0), in(1)}));
      if (failed(equal))
        return failure();
      x = *equal;
    }
    return take(create<EqualOp>(n, {x, constScalar(loc, builder.getI1Type(), 0)}));
  }
  // GridSample: opset 16's mode names (bilinear, bicubic) are opset 20's
  // linear and cubic.
  if (op == "GridSample") {
    FailureOr<std::string> mode = n.getString("mode", n.opset >= 20 ? "linear" : "bilinear");
    FailureOr<std::string> padding = n.getString("padding_mode", "zeros");
    FailureOr<int64_t> align = n.getInt("align_corners", 0);
    if (failed(arity(2, 2)) || failed(mode) || failed(padding) || failed(align))
      return failure();
    std::string m = *mode == "bilinear" ? "linear" : *mode == "bicubic" ? "cubic" : *mode;
    if (!llvm::is_contained({"linear", "nearest", "cubic"}, m))
      return n.error() << "GridSample's mode must be " << (n.opset >= 20 ? "linear" : "bilinear")
                       << ", nearest or " << (n.opset >= 20 ? "cubic" : "bicubic") << ", got '"
                       << *mode << "'";
    if (*align != 0 && *align != 1)
      return n.error() << "GridSample's align_corners must be 0 or 1, got " << *align;
    std::optional<int64_t> rank = rankOf(in(0));
    if (rank && *rank != 4)
      return n.error() << "GridSample of " << *rank - 2
                       << "-D images is not supported (only 2-D: N, C, H, W)";
    SmallVector<NamedAttribute> attrs{attr("mode", builder.getStringAttr(m)),
                                      attr("padding_mode", builder.getStringAttr(*padding))};
    if (*align)
      attrs.push_back(attr("align_corners", builder.getUnitAttr()));
    return take(create<GridSampleOp>(n, n.inputs, attrs));
  }
  if (op == "Mod") {
    if (failed(arity(2, 2)))
      return failure();
    FailureOr<int64_t> fmod = n.getInt("fmod", 0);
    if (failed(fmod))
      return failure();
    if (*fmod != 0 && *fmod != 1)
      return n.error() << "fmod must be 0 or 1, got " << *fmod;
    SmallVector<NamedAttribute> attrs;
    if (*fmod)
      attrs.push_back(builder.getNamedAttr("fmod", builder.getUnitAttr()));
    return take(create<ModOp>(n, n.inputs, attrs));
  }
  if (op == "BitShift") {
    if (failed(arity(2, 2)))
      return failure();
    FailureOr<std::string> direction = n.getString("direction", "");
    if (failed(direction))
      return failure();
    if (*direction == "LEFT")
      return take(create<ShiftLeftOp>(n, n.inputs));
    if (*direction == "RIGHT")
      return take(create<ShiftRightOp>(n, n.inputs));
    return n.error() << "direction must be LEFT or RIGHT, got '" << *direction << "'";
  }
  // BitwiseNot(x) = x ^ ~0.
  if (op == "BitwiseNot") {
    if (failed(arity(1, 1)))
      return failure();
    auto el = dyn_cast<IntegerType>(getElementTypeOrSelf(in(0).getType()));
    if (!el || el.getWidth() == 1)
      return n.error() << "BitwiseNot needs an integer input, got " << in(0).getType();
    auto onesType = RankedTensorType::get({}, el);
    Value ones = ConstantOp::create(
        builder, loc, onesType,
        DenseElementsAttr::get(onesType, APInt::getAllOnes(el.getWidth())));
    return take(create<BitwiseXorOp>(n, {in(0), ones}));
  }
  // Min / Max of any number of inputs: a chain of the binary op (one input:
  // itself).
  if (op == "Min" || op == "Max") {
    if (failed(arity(1, 1 << 20)))
      return failure();
    Value acc = in(0);
    for (size_t i = 1; i < n.inputs.size(); ++i) {
      FailureOr<Value> next = firstResult(op == "Min" ? create<MinOp>(n, {acc, in(i)})
                                                      : create<MaxOp>(n, {acc, in(i)}));
      if (failed(next))
        return failure();
      acc = *next;
    }
    outputs.push_back(acc);
    return success();
  }
  // Activations that are compositions of other ops, each as ONNX defines
  // it (its function body or reference): Elu, Selu, Celu, Softsign,
  // ThresholdedRelu, PRelu, Mish and Sign.
  if (op == "Elu" || op == "Selu" || op == "Celu" || op == "Softsign" ||
      op == "ThresholdedRelu" || op == "PRelu" || op == "Mish" || op == "Sign") {
    if (failed(arity(op == "PRelu" ? 2 : 1, op == "PRelu" ? 2 : 1)))
      return failure();
    Value x = in(0);
    Type el = element(x);
    auto mk = [&](StringRef name, ValueRange operands,
                  ArrayRef<NamedAttribute> attrs = {}) {
      return firstResult(create(n, name, operands, attrs, 1));
    };
    // f16 and bf16 compute in f32 and round once, as ONNX's reference does.
    Type original = el;
    if (isa<FloatType>(el) && !el.isF32() && !el.isF64() && op != "PRelu") {
      el = builder.getF32Type();
      FailureOr<Value> wide =
          mk(CastOp::getOperationName(), {x}, {attr("to", TypeAttr::get(el))});
      if (failed(wide))
        return failure();
      x = *wide;
    }
    auto c = [&](double v) { return constScalar(loc, el, v); };
    FailureOr<Value> y = failure();
    if (op == "Elu" || op == "Celu") {
      // Elu: x > 0 ? x : alpha (e^x - 1); Celu: max(0, x) + min(0, alpha
      // (e^(x / alpha) - 1)).
      FailureOr<float> alpha = n.getFloat("alpha", 1.f);
      if (failed(alpha))
        return failure();
      FailureOr<Value> arg = op == "Celu" ? mk(DivOp::getOperationName(), {x, c(*alpha)})
                                          : FailureOr<Value>(x);
      FailureOr<Value> e = succeeded(arg) ? mk(ExpOp::getOperationName(), {*arg}) : arg;
      if (succeeded(e))
        e = mk(SubOp::getOperationName(), {*e, c(1)});
      if (succeeded(e))
        e = mk(MulOp::getOperationName(), {c(*alpha), *e});
      if (failed(e))
        return failure();
      if (op == "Elu") {
        FailureOr<Value> pos = mk(GreaterOp::getOperationName(), {x, c(0)});
        y = succeeded(pos) ? mk(WhereOp::getOperationName(), {*pos, x, *e}) : pos;
      } else {
        FailureOr<Value> hi = mk(MaxOp::getOperationName(), {c(0), x});
        FailureOr<Value> lo = mk(MinOp::getOperationName(), {c(0), *e});
        y = succeeded(hi) && succeeded(lo) ? mk(AddOp::getOperationName(), {*hi, *lo})
                                           : FailureOr<Value>(failure());
      }
    } else if (op == "Selu") {
      // gamma (x > 0 ? x : alpha e^x - alpha)
      FailureOr<float> alpha = n.getFloat("alpha", 1.67326319217681884765625f);
      FailureOr<float> gamma = n.getFloat("gamma", 1.05070102214813232421875f);
      if (failed(alpha) || failed(gamma))
        return failure();
      FailureOr<Value> e = mk(ExpOp::getOperationName(), {x});
      if (succeeded(e))
        e = mk(MulOp::getOperationName(), {c(*alpha), *e});
      if (succeeded(e))
        e = mk(SubOp::getOperationName(), {*e, c(*alpha)});
      FailureOr<Value> pos = mk(GreaterOp::getOperationName(), {x, c(0)});
      if (succeeded(e) && succeeded(pos))
        y = mk(WhereOp::getOperationName(), {*pos, x, *e});
      if (succeeded(y))
        y = mk(MulOp::getOperationName(), {c(*gamma), *y});
    } else if (op == "Softsign") {
      FailureOr<Value> a = mk(AbsOp::getOperationName(), {x});
      if (succeeded(a))
        a = mk(AddOp::getOperationName(), {c(1), *a});
      y = succeeded(a) ? mk(DivOp::getOperationName(), {x, *a}) : a;
    } else if (op == "ThresholdedRelu") {
      FailureOr<float> alpha = n.getFloat("alpha", 1.f);
      if (failed(alpha))
        return failure();
      FailureOr<Value> above = mk(GreaterOp::getOperationName(), {x, c(*alpha)});
      y = succeeded(above) ? mk(WhereOp::getOperationName(), {*above, x, c(0)}) : above;
    } else if (op == "PRelu") {
      // x < 0 ? slope x : x, slope broadcast to x.
      FailureOr<Value> neg = mk(GreaterOp::getOperationName(), {c(0), x});
      FailureOr<Value> scaled = mk(MulOp::getOperationName(), {in(1), x});
      if (succeeded(neg) && succeeded(scaled))
        y = mk(WhereOp::getOperationName(), {*neg, *scaled, x});
    } else if (op == "Mish") {
      FailureOr<Value> t = mk(SoftplusOp::getOperationName(), {x});
      if (succeeded(t))
        t = mk(TanhOp::getOperationName(), {*t});
      y = succeeded(t) ? mk(MulOp::getOperationName(), {x, *t}) : t;
    } else { // Sign: 1, -1, or x itself (0, -0, NaN)
      FailureOr<Value> neg = mk(GreaterOp::getOperationName(), {c(0), x});
      FailureOr<Value> pos = mk(GreaterOp::getOperationName(), {x, c(0)});
      if (succeeded(neg) && succeeded(pos)) {
        y = mk(WhereOp::getOperationName(), {*neg, c(-1), x});
        if (succeeded(y))
          y = mk(WhereOp::getOperationName(), {*pos, c(1), *y});
      }
    }
    if (succeeded(y) && el != original)
      y = mk(CastOp::getOperationName(), {*y}, {attr("to", TypeAttr::get(original))});
    if (failed(y))
      return failure();
    outputs.push_back(*y);
    return success();
  }
  // Sum and Mean of any number of inputs: Adds in input order (Mean then
  // divides by the count).
  if (op == "Sum" || op == "Mean") {
    if (failed(arity(1, 1 << 20)))
      return failure();
    Value acc = in(0);
    for (size_t i = 1; i < n.inputs.size(); ++i) {
      FailureOr<Value> next = firstResult(create<AddOp>(n, {acc, in(i)}));
      if (failed(next))
        return failure();
      acc = *next;
    }
    if (op == "Mean" && n.inputs.size() > 1)
      return take(create<DivOp>(
          n, {acc, constScalar(loc, element(in(0)), static_cast<double>(n.inputs.size()))}));
    outputs.push_back(acc);
    return success();
  }
  // GlobalMaxPool: ReduceMax over the spatial dims, kept.
  if (op == "GlobalMaxPool") {
    if (failed(arity(1, 1)))
      return failure();
    std::optional<int64_t> rank = rankOf(in(0));
    if (!rank || *rank < 3)
      return n.error() << "GlobalMaxPool needs an input of rank 3 or more";
    SmallVector<int64_t> axes;
    for (int64_t d = 2; d < *rank; ++d)
      axes.push_back(d);
    return take(create<ReduceMaxOp>(n, {in(0), constI64(loc, axes)},
                                    {attr("keepdims", builder.getI64IntegerAttr(1)),
                                     attr("noop_with_empty_axes", builder.getI64IntegerAttr(0))}));
  }
  // DepthToSpace / SpaceToDepth as Reshape, Transpose, Reshape (static
  // dims), and Tile as Reshape, Expand, Reshape (constant repeats).
  if (op == "DepthToSpace" || op == "SpaceToDepth" || op == "Tile") {
    if (failed(arity(op == "Tile" ? 2 : 1, op == "Tile" ? 2 : 1)))
      return failure();
    auto type = dyn_cast<RankedTensorType>(in(0).getType());
    if (!type || !type.hasStaticShape())
      return n.error() << op << " needs an input of static shape (pin it with --shape)";
    ArrayRef<int64_t> d = type.getShape();
    auto reshape = [&](Value v, ArrayRef<int64_t> shape) {
      return firstResult(create<ReshapeOp>(n, {v, constI64(loc, shape)}));
    };
    // Reshape to `first`, then an Expand to `expanded` (Tile) or a
    // Transpose by `perm`, then reshape to `last`.
    SmallVector<int64_t> first, perm, last, expanded;
    auto compose = [&]() -> LogicalResult {
      FailureOr<Value> y = reshape(in(0), first);
      if (succeeded(y) && !expanded.empty())
        y = firstResult(create<ExpandOp>(n, {*y, constI64(loc, expanded)}));
      else if (succeeded(y))
        y = firstResult(
            create<TransposeOp>(n, {*y}, {attr("perm", builder.getDenseI64ArrayAttr(perm))}));
      if (succeeded(y))
        y = reshape(*y, last);
      if (failed(y))
        return failure();
      outputs.push_back(*y);
      return success();
    };
    if (op == "Tile") {
      std::optional<SmallVector<int64_t>> repeats = getConstantInts(in(1));
      if (!repeats || repeats->size() != d.size() ||
          llvm::any_of(*repeats, [](int64_t r) { return r < 0; }))
        return n.error() << "Tile needs constant, non-negative repeats, one per dim";
      for (auto [dim, r] : llvm::zip(d, *repeats)) {
        first.append({1, dim});
        expanded.append({r, dim});
        last.push_back(r * dim);
      }
      return compose();
    }
    FailureOr<int64_t> block = n.getInt("blocksize", 0);
    FailureOr<std::string> mode = n.getString("mode", "DCR");
    if (failed(block) || failed(mode))
      return failure();
    int64_t b = *block;
    if (d.size() != 4 || b < 1)
      return n.error() << op << " needs a 4-D input and a positive blocksize";
    int64_t N = d[0], C = d[1], H = d[2], W = d[3];
    if (op == "DepthToSpace") {
      if (C % (b * b) != 0 || (*mode != "DCR" && *mode != "CRD"))
        return n.error() << "DepthToSpace needs channels a multiple of blocksize^2 and mode "
                            "DCR or CRD";
      int64_t c = C / (b * b);
      if (*mode == "DCR") {
        first = {N, b, b, c, H, W};
        perm = {0, 3, 4, 1, 5, 2};
      } else {
        first = {N, c, b, b, H, W};
        perm = {0, 1, 4, 2, 5, 3};
      }
      last = {N, c, H * b, W * b};
    } else {
      if (H % b != 0 || W % b != 0 || (*mode != "DCR" && *mode != "CRD"))
        return n.error() << "SpaceToDepth needs height and width multiples of blocksize and "
                            "mode DCR or CRD";
      first = {N, C, H / b, b, W / b, b};
      // DCR: channel (bh b + bw) C + c; CRD (opset 25): c b^2 + bh b + bw.
      perm = *mode == "DCR" ? SmallVector<int64_t>{0, 3, 5, 1, 2, 4}
                            : SmallVector<int64_t>{0, 1, 3, 5, 2, 4};
      last = {N, C * b * b, H / b, W / b};
    }
    return compose();
  }
  // Reciprocal as 1 / x, as ONNX defines it (the same rounding).
  if (op == "Reciprocal") {
    if (failed(arity(1, 1)))
      return failure();
    return take(create<DivOp>(n, {constScalar(loc, element(in(0)), 1), in(0)}));
  }

  // Neg as x * -1: exact, the sign of zeros and NaNs included.
  if (op == "Neg") {
    if (failed(arity(1, 1)))
      return failure();
    return take(create<MulOp>(n, {in(0), constScalar(loc, element(in(0)), -1)}));
  }

  // onnxruntime's RMSNorm (its default domain, version 1): (X, scale) ->
  // (X / sqrt(mean(X^2) + epsilon) * scale, that reciprocal), the mean over
  // the dims from `axis` on, in f32.
  if (op == "SimplifiedLayerNormalization") {
    FailureOr<int64_t> axis = n.getInt("axis", -1);
    FailureOr<float> eps = n.getFloat("epsilon", 1e-5f);
    FailureOr<int64_t> stash = n.getInt("stash_type", 1);
    if (failed(arity(2, 2)) || failed(axis) || failed(eps) || failed(stash))
      return failure();
    if (*stash != 1 || !cast<ShapedType>(in(0).getType()).getElementType().isF32())
      return n.error() << "SimplifiedLayerNormalization is imported for f32 inputs with "
                          "stash_type 1 only";
    FailureOr<std::pair<Value, Value>> y = rmsNorm(n, in(0), in(1), *axis, *eps);
    if (failed(y))
      return failure();
    outputs.append({y->first, y->second});
    return success();
  }

  // HardSigmoid: clip(alpha x + beta, 0, 1); HardSwish: x times the same
  // with alpha 1/6, beta 1/2.
  if (op == "HardSigmoid" || op == "HardSwish") {
    bool swish = op == "HardSwish";
    if (swish && n.opset < 14)
      return n.error() << "HardSwish is an opset-14 op, the model imports opset " << n.opset;
    FailureOr<float> alpha = swish ? 1.f / 6 : n.getFloat("alpha", 0.2f);
    FailureOr<float> beta = swish ? 0.5f : n.getFloat("beta", 0.5f);
    if (failed(arity(1, 1)) || failed(alpha) || failed(beta))
      return failure();
    FailureOr<Value> y = hardSigmoid(n, in(0), *alpha, *beta);
    if (failed(y))
      return failure();
    if (!swish) {
      outputs.push_back(*y);
      return success();
    }
    return take(create<MulOp>(n, {in(0), *y}));
  }

  if (op == "Shape") {
    FailureOr<int64_t> start = n.getInt("start", 0);
    const onnx::AttributeProto *endAttr = n.find("end");
    if (failed(arity(1, 1)) || failed(start))
      return failure();
    SmallVector<NamedAttribute> attrs{attr("start", builder.getI64IntegerAttr(*start))};
    if (endAttr) {
      if (endAttr->type() != onnx::AttributeProto::INT)
        return n.wrongType(*endAttr, "an int");
      attrs.push_back(attr("end", builder.getI64IntegerAttr(endAttr->i())));
    }
    return take(create<ShapeOp>(n, n.inputs, attrs));
  }

  if (op == "ConstantOfShape") {
    if (failed(arity(1, 1)))
      return failure();
    const onnx::AttributeProto *v = n.find("value");
    ElementsAttr value;
    if (v) {
      if (v->type() != onnx::AttributeProto::TENSOR)
        return n.wrongType(*v, "a tensor");
      onnx::TensorProto t = v->t();
      FailureOr<ElementsAttr> a = tensorAttr(t, loc, "ConstantOfShape's value");
      if (failed(a))
        return failure();
      value = *a;
    } else {
      auto type = RankedTensorType::get({1}, builder.getF32Type());
      value = DenseElementsAttr::get(type, 0.0f);
    }
    return take(create<ConstantOfShapeOp>(n, n.inputs, {attr("value", value)}));
  }

  if (op == "Constant") {
    if (failed(arity(0, 0)))
      return failure();
    int given = 0;
    ElementsAttr value;
    bool fourBit = false;
    for (const onnx::AttributeProto &a : n.node.attribute()) {
      n.ignore(a.name());
      ++given;
      llvm::StringRef name = a.name();
      auto scalarType = [&](Type t) { return RankedTensorType::get({}, t); };
      if (name == "value" && a.type() == onnx::AttributeProto::TENSOR) {
        onnx::TensorProto t = a.t();
        FailureOr<ElementsAttr> v = tensorAttr(t, loc, "Constant's value");
        if (failed(v))
          return failure();
        value = *v;
        fourBit = onnx_io::isFourBit(t.data_type());
      } else if (name == "value_float" && a.type() == onnx::AttributeProto::FLOAT) {
        value = DenseElementsAttr::get(scalarType(builder.getF32Type()), a.f());
      } else if (name == "value_floats" && a.type() == onnx::AttributeProto::FLOATS) {
        SmallVector<float> v(a.floats().begin(), a.floats().end());
        value = DenseElementsAttr::get(
            RankedTensorType::get({(int64_t)v.size()}, builder.getF32Type()),
            ArrayRef<float>(v));
      } else if (name == "value_int" && a.type() == onnx::AttributeProto::INT) {
        value = DenseElementsAttr::get(scalarType(builder.getI64Type()), (int64_t)a.i());
      } else if (name == "value_ints" && a.type() == onnx::AttributeProto::INTS) {
        SmallVector<int64_t> v(a.ints().begin(), a.ints().end());
        value = DenseElementsAttr::get(
            RankedTensorType::get({(int64_t)v.size()}, builder.getI64Type()),
            ArrayRef<int64_t>(v));
      } else if (name == "sparse_value" || name.starts_with("value_string")) {
        return n.error() << "Constant with '" << name << "' is not supported";
      } else {
        return n.error() << "unexpected attribute '" << name << "' ("
                         << onnx::AttributeProto_AttributeType_Name(a.type())
                         << ") for Constant";
      }
    }
    if (given != 1)
      return n.error() << "Constant needs exactly one value attribute, got " << given;
    if (failed(take(create<ConstantOp>(n, {}, {attr("value", value)}))))
      return failure();
    if (fourBit)
      outputs.front().getDefiningOp()->setAttr(kFourBitCodes, builder.getUnitAttr());
    return success();
  }

  if (op == "Conv" || op == "ConvInteger" || op == "QLinearConv" || op == "MaxPool" ||
      op == "AveragePool") {
    bool isConv = op != "MaxPool" && op != "AveragePool";
    bool qlinear = op == "QLinearConv";
    if (failed(qlinear ? arity(8, 9)
                       : arity(isConv ? 2 : 1, op == "ConvInteger" ? 4 : isConv ? 3 : 1)))
      return failure();
    FailureOr<SmallVector<NamedAttribute>> attrs =
        op == "AveragePool" ? averagePoolAttributes(n)
                            : windowAttributes(n, isConv ? in(qlinear ? 3 : 1) : Value());
    if (failed(attrs))
      return failure();
    if (isConv) {
      FailureOr<int64_t> group = n.getInt("group", 1);
      if (failed(group))
        return failure();
      attrs->push_back(attr("group", builder.getI64IntegerAttr(*group)));
      if (op == "ConvInteger") {
        SmallVector<Value> operands{in(0), in(1), in(2), in(3)};
        attrs->push_back(segments(operands));
        return take(create<ConvIntegerOp>(n, present(operands), *attrs));
      }
      if (qlinear)
        return take(create<QLinearConvOp>(n, present(n.inputs), *attrs));
      return take(create<ConvOp>(n, present(n.inputs), *attrs));
    }
    if (op == "AveragePool")
      return take(create<AveragePoolOp>(n, n.inputs, *attrs));
    FailureOr<int64_t> ceil = n.getInt("ceil_mode", 0);
    if (failed(ceil))
      return failure();
    attrs->push_back(attr("ceil_mode", builder.getI64IntegerAttr(*ceil)));
    n.ignore("storage_order"); // only affects the Indices output
    return take(create<MaxPoolOp>(n, n.inputs, *attrs));
  }

  if (op == "ConvTranspose") {
    if (failed(arity(2, 3)))
      return failure();
    FailureOr<SmallVector<NamedAttribute>> attrs = windowAttributes(n, in(1));
    FailureOr<int64_t> group = n.getInt("group", 1);
    FailureOr<std::optional<SmallVector<int64_t>>> outPadding = n.getInts("output_padding"),
                                                    outShape = n.getInts("output_shape");
    if (failed(attrs) || failed(group) || failed(outPadding) || failed(outShape))
      return failure();
    size_t nd = 0;
    for (NamedAttribute a : *attrs)
      if (a.getName() == "kernel_shape")
        nd = cast<DenseI64ArrayAttr>(a.getValue()).size();
    attrs->push_back(attr("group", builder.getI64IntegerAttr(*group)));
    attrs->push_back(attr("output_padding", builder.getDenseI64ArrayAttr(
                                                *outPadding ? **outPadding
                                                            : SmallVector<int64_t>(nd, 0))));
    attrs->push_back(attr("output_shape", builder.getDenseI64ArrayAttr(
                                              *outShape ? **outShape : SmallVector<int64_t>())));
    return take(create<ConvTransposeOp>(n, present(n.inputs), *attrs));
  }

  if (op == "Col2Im") {
    if (failed(arity(3, 3)))
      return failure();
    auto rank = [](Value v) -> int64_t {
      auto t = dyn_cast<RankedTensorType>(v.getType());
      return t && t.getRank() == 1 && !t.isDynamicDim(0) ? t.getDimSize(0) : -1;
    };
    if (rank(in(1)) < 0 && rank(in(2)) < 0)
      return n.error() << "Col2Im needs image_shape or block_shape of known length";
    FailureOr<SmallVector<NamedAttribute>> attrs =
        stepAttributes(n, std::max(rank(in(1)), rank(in(2))));
    if (failed(attrs))
      return failure();
    return take(create<Col2ImOp>(n, n.inputs, *attrs));
  }

  if (op == "Resize" || op == "Upsample") {
    // Resize-10 and Upsample: (X, scales), asymmetric coordinates, and
    // onnxruntime's nearest rounding for them (floor up, ceil down).
    bool legacy = op == "Upsample" || n.opset < 11;
    bool scalesAttr = op == "Upsample" && n.opset < 9;
    if (failed(legacy ? arity(scalesAttr ? 1 : 2, scalesAttr ? 1 : 2) : arity(1, 4)))
      return failure();
    FailureOr<std::string> mode = n.getString("mode", "nearest");
    if (failed(mode))
      return failure();
    Value roi, scales, sizes;
    SmallVector<NamedAttribute> attrs{attr("mode", builder.getStringAttr(*mode))};
    if (legacy) {
      if (*mode != "nearest" && *mode != "linear")
        return n.error() << op << " mode must be 'nearest' or 'linear' at opset " << n.opset
                         << ", got '" << *mode << "'";
      attrs.push_back(attr("coordinate_transformation_mode", builder.getStringAttr("asymmetric")));
      attrs.push_back(attr("nearest_mode", builder.getStringAttr("simple")));
      if (scalesAttr) {
        FailureOr<SmallVector<float>> values = n.getFloats("scales");
        if (failed(values))
          return failure();
        if (values->empty())
          return n.error() << "Upsample needs the 'scales' attribute at opset " << n.opset;
        auto type = RankedTensorType::get({(int64_t)values->size()}, builder.getF32Type());
        scales = ConstantOp::create(builder, loc, type,
                                    DenseElementsAttr::get(type, ArrayRef<float>(*values)));
      } else {
        scales = in(1);
      }
    } else {
      FailureOr<std::string> ctm = n.getString("coordinate_transformation_mode", "half_pixel"),
                             nearest = n.getString("nearest_mode", "round_prefer_floor"),
                             keep = n.getString("keep_aspect_ratio_policy", "stretch");
      FailureOr<float> cubicA = n.getFloat("cubic_coeff_a", -0.75f),
                       extrapolation = n.getFloat("extrapolation_value", 0.f);
      FailureOr<int64_t> exclude = n.getInt("exclude_outside", 0),
                         antialias = n.getInt("antialias", 0);
      FailureOr<std::optional<SmallVector<int64_t>>> axes = n.getInts("axes");
      if (failed(ctm) || failed(nearest) || failed(keep) || failed(cubicA) ||
          failed(extrapolation) || failed(exclude) || failed(antialias) || failed(axes))
        return failure();
      attrs.append({attr("coordinate_transformation_mode", builder.getStringAttr(*ctm)),
                    attr("nearest_mode", builder.getStringAttr(*nearest)),
                    attr("keep_aspect_ratio_policy", builder.getStringAttr(*keep)),
                    attr("cubic_coeff_a", builder.getF32FloatAttr(*cubicA)),
                    attr("extrapolation_value", builder.getF32FloatAttr(*extrapolation)),
                    attr("exclude_outside", builder.getI64IntegerAttr(*exclude)),
                    attr("antialias", builder.getI64IntegerAttr(*antialias))});
      if (*axes)
        attrs.push_back(attr("axes", builder.getDenseI64ArrayAttr(**axes)));
      roi = in(1);
      scales = in(2);
      sizes = in(3);
    }
    // An empty roi, scales or sizes (opset 11-12 models pass one) is absent.
    auto presentNonEmpty = [](Value v) { return isEmptyTensor(v) ? Value() : v; };
    roi = presentNonEmpty(roi);
    scales = presentNonEmpty(scales);
    sizes = presentNonEmpty(sizes);
    if (scales && !element(scales).isF32())
      return n.error() << op << "'s scales must be float, got " << onnxTypeName(element(scales));
    if (sizes && !element(sizes).isSignlessInteger(64))
      return n.error() << op << "'s sizes must be int64, got " << onnxTypeName(element(sizes));
    SmallVector<Value> operands{in(0), roi, scales, sizes};
    attrs.push_back(segments(operands));
    return take(create<ResizeOp>(n, present(operands), attrs));
  }

  if (op == "QuantizeLinear" || op == "DequantizeLinear") {
    bool quantize = op == "QuantizeLinear";
    FailureOr<int64_t> axis = n.getInt("axis", 1), block = n.getInt("block_size", 0),
                       outDType = n.getInt("output_dtype", 0);
    if (failed(arity(2, 3)) || failed(axis) || failed(block) || failed(outDType))
      return failure();
    if (*block != 0 && quantize)
      return n.error() << op << " with block_size (blocked quantization) is not supported";
    if (*block != 0) {
      if (*outDType != 0)
        return n.error() << "DequantizeLinear with block_size and output_dtype is not supported";
      FailureOr<Value> y = blockedDequantize(n, *axis, *block);
      if (failed(y))
        return failure();
      outputs.push_back(*y);
      return success();
    }
    // A per-axis scale takes a zero point of its shape, not a scalar one.
    auto scaleType = dyn_cast<RankedTensorType>(in(1).getType());
    auto zeroType = in(2) ? dyn_cast<RankedTensorType>(in(2).getType()) : RankedTensorType();
    if (scaleType && zeroType && scaleType.hasStaticShape() && scaleType.getNumElements() > 1 &&
        zeroType.getShape() != scaleType.getShape())
      return n.error() << op << "'s zero point must have the shape of its per-axis scale ("
                       << scaleType << "), got " << zeroType;
    // Before opset 21, ai.onnx's Q/DQ take 8-bit codes (DequantizeLinear
    // int32 too), as onnxruntime checks; its com.microsoft ops take 16 bits
    // at any version.
    auto codesBefore21 = [&](Type codes) -> LogicalResult {
      if (!isDefaultDomain(n.node.domain()) || n.opset >= 21 || codes.isInteger(8) ||
          (!quantize && codes.isSignlessInteger(32)))
        return success();
      return n.error() << op << " at opset " << n.opset << " takes uint8 or int8"
                       << (quantize ? "" : " (or int32)") << " codes, got " << onnxTypeName(codes)
                       << " (16-bit codes need opset 21, or onnxruntime's com.microsoft." << op
                       << ")";
    };
    if (quantize) {
      FailureOr<int64_t> saturate = n.getInt("saturate", 1);
      FailureOr<int64_t> precision = n.getInt("precision", 0);
      if (failed(saturate) || failed(precision))
        return failure();
      if (*precision != 0)
        return n.error() << "QuantizeLinear with 'precision' is not supported";
      // (4-bit codes come in as constants of 8-bit ones: rounding to them
      // would saturate at 8 bits.)
      if (in(2) && holdsFourBitCodes(in(2)))
        return n.error() << "QuantizeLinear to 4-bit codes (an INT4 / UINT4 zero point) is not "
                            "supported; 4-bit weights (DequantizeLinear of a constant) are";
      Type outType = IntegerType::get(ctx, 8, IntegerType::Unsigned);
      if (in(2)) {
        outType = element(in(2));
      } else if (*outDType != 0) {
        std::optional<Type> t = onnx_io::elementType(ctx, *outDType);
        if (!t)
          return n.error() << "QuantizeLinear to " << onnx_io::dataTypeName(*outDType)
                           << " is not supported";
        outType = *t;
      }
      if (failed(codesBefore21(outType)))
        return failure();
      return take(create<QuantizeLinearOp>(
          n, present(n.inputs),
          {attr("axis", builder.getI64IntegerAttr(*axis)),
           attr("output_element_type", TypeAttr::get(outType))}));
    }
    if (*outDType != 0) {
      std::optional<Type> t = onnx_io::elementType(ctx, *outDType);
      if (!t || *t != element(in(1)))
        return n.error() << "DequantizeLinear's output_dtype must match its scale's type";
    }
    if (failed(codesBefore21(element(in(0)))))
      return failure();
    return take(create<DequantizeLinearOp>(n, present(n.inputs),
                                           {attr("axis", builder.getI64IntegerAttr(*axis))}));
  }

  if (op == "Attention")
    return convertOnnxAttention(n, outputs);
  if (llvm::is_contained(kCompositeOps, op))
    return convertComposite(n, outputs);
  if (op == "LSTM" || op == "GRU" || op == "RNN")
    return convertRecurrent(n, outputs);
  // checkSupportedOps() rejects everything else before conversion starts.
  return n.error() << "no converter for " << op;
}

FailureOr<Value> Importer::blockedDequantize(NodeContext &n, int64_t axis, int64_t blockSize) {
  // The weights of weight-only 4-bit models in QDQ form (onnxruntime's
  // MatMulNBitsQuantizer): blocks of block_size along `axis`, each with its
  // scale and zero point. Dequantized here, as MatMulNBits is: the model
  // compiles as its f32 original would.
  Value x = n.input(0), scale = n.input(1), zeroPoint = n.input(2);
  for (Value v : {x, scale, zeroPoint})
    if (v && !matchPattern(v, m_Constant()))
      return n.error() << "DequantizeLinear with block_size needs constant codes, scales and "
                          "zero points (a weight), to dequantize them when compiling";
  auto xType = dyn_cast<RankedTensorType>(x.getType());
  auto sType = dyn_cast<RankedTensorType>(scale.getType());
  if (!xType || !sType || !xType.hasStaticShape() || !sType.hasStaticShape() ||
      !sType.getElementType().isF32() || xType.getRank() != sType.getRank() ||
      xType.getRank() == 0)
    return n.error() << "DequantizeLinear with block_size needs f32 scales of the codes' rank, "
                        "got codes "
                     << x.getType() << " and scales " << scale.getType();
  if (zeroPoint && cast<ShapedType>(zeroPoint.getType()).getShape() != sType.getShape())
    return n.error() << "DequantizeLinear's zero point must have the shape of its blocked scale ("
                     << sType << "), got " << zeroPoint.getType();
  const int64_t rank = xType.getRank();
  if (axis < -rank || axis >= rank)
    return n.error() << "DequantizeLinear axis " << axis << " is out of range for rank " << rank;
  if (axis < 0)
    axis += rank;
  ArrayRef<int64_t> dims = xType.getShape(), sDims = sType.getShape();
  if (blockSize < 1)
    return n.error() << "DequantizeLinear block_size must be positive, got " << blockSize;
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t want = d == axis ? (dims[d] + blockSize - 1) / blockSize : dims[d];
    if (sDims[d] != want)
      return n.error() << "DequantizeLinear with block_size " << blockSize << " along axis "
                       << axis << " needs scales of shape [" << llvm::interleaved(sDims)
                       << "] to have dim " << d << " = " << want;
  }
  std::optional<SmallVector<int64_t>> codes = getConstantInts(x),
                                      zeros = zeroPoint ? getConstantInts(zeroPoint)
                                                        : std::optional<SmallVector<int64_t>>();
  std::optional<SmallVector<double>> scales = getConstantDoubles(scale);
  if (!codes || !scales || (zeroPoint && !zeros))
    return n.error() << "DequantizeLinear: cannot read its constant inputs";
  // Element i's block: its index along `axis` divided by block_size, the
  // other indices as they are (row-major strides of both shapes).
  int64_t inner = 1;
  for (int64_t d = axis + 1; d < rank; ++d)
    inner *= dims[d];
  const int64_t along = dims[axis], blocks = sDims[axis];
  std::string bytes(xType.getNumElements() * 4, 0);
  for (int64_t i = 0, e = xType.getNumElements(); i < e; ++i) {
    const int64_t outer = i / (inner * along), a = i / inner % along, in = i % inner;
    const int64_t j = (outer * blocks + a / blockSize) * inner + in;
    const int64_t zp = zeros ? (*zeros)[j] : 0;
    // (code - zero point) x scale, rounded once to f32.
    const float value = static_cast<float>((*codes)[i] - zp) * static_cast<float>((*scales)[j]);
    std::memcpy(&bytes[i * 4], &value, 4);
  }
  auto type = RankedTensorType::get(dims, builder.getF32Type());
  std::string key = (n.node.name().empty() ? std::string("dequantized") : n.node.name()) +
                    "_weight";
  return ConstantOp::create(builder, n.loc, type,
                            rawElementsAttr(type, std::make_unique<std::string>(std::move(bytes)),
                                            4, key))
      .getResult();
}

FailureOr<Value> Importer::hardSigmoid(NodeContext &n, Value x, float alpha, float beta) {
  Type element = cast<ShapedType>(x.getType()).getElementType();
  FailureOr<Value> scaled =
      firstResult(create<MulOp>(n, {x, constScalar(n.loc, element, alpha)}));
  if (failed(scaled))
    return failure();
  FailureOr<Value> shifted =
      firstResult(create<AddOp>(n, {*scaled, constScalar(n.loc, element, beta)}));
  if (failed(shifted))
    return failure();
  SmallVector<Value> operands{*shifted, constScalar(n.loc, element, 0),
                              constScalar(n.loc, element, 1)};
  return firstResult(create<ClipOp>(n, operands, {segments(operands)}));
}

FailureOr<std::pair<Value, Value>> Importer::rmsNorm(NodeContext &n, Value x, Value scale,
                                                     int64_t axis, float eps) {
  std::optional<int64_t> rank = rankOf(x);
  if (!rank)
    return n.error() << "RMS normalization needs an input of known rank";
  if (axis < -*rank || axis >= *rank)
    return n.error() << "axis " << axis << " is out of range for rank " << *rank;
  if (axis < 0)
    axis += *rank;
  SmallVector<int64_t> axes;
  for (int64_t d = axis; d < *rank; ++d)
    axes.push_back(d);
  Type element = cast<ShapedType>(x.getType()).getElementType();
  FailureOr<Value> squares = firstResult(create<MulOp>(n, {x, x}));
  if (failed(squares))
    return failure();
  FailureOr<Value> mean = firstResult(create<ReduceMeanOp>(
      n, {*squares, constI64(n.loc, axes)}, {attr("keepdims", builder.getI64IntegerAttr(1))}));
  if (failed(mean))
    return failure();
  FailureOr<Value> shifted =
      firstResult(create<AddOp>(n, {*mean, constScalar(n.loc, element, eps)}));
  if (failed(shifted))
    return failure();
  FailureOr<Value> root = firstResult(create<SqrtOp>(n, {*shifted}));
  if (failed(root))
    return failure();
  FailureOr<Value> normalized = firstResult(create<DivOp>(n, {x, *root}));
  if (failed(normalized))
    return failure();
  FailureOr<Value> y = firstResult(create<MulOp>(n, {*normalized, scale}));
  FailureOr<Value> inverse =
      firstResult(create<DivOp>(n, {constScalar(n.loc, element, 1), *root}));
  if (failed(y) || failed(inverse))
    return failure();
  return std::pair(*y, *inverse);
}

FailureOr<std::pair<Value, int64_t>> Importer::reductionAxes(NodeContext &n) {
  llvm::StringRef op = n.node.op_type();
  bool axesAsInput = op == "ReduceSum" ? n.opset >= 13 : n.opset >= 18;
  unsigned most = axesAsInput ? 2 : 1;
  if (n.inputs.size() > most || !n.input(0))
    return n.error() << op << " needs its data and takes at most " << most << " input"
                     << (most == 1 ? "" : "s") << " at opset " << n.opset;
  if (axesAsInput) {
    FailureOr<int64_t> noop = n.getInt("noop_with_empty_axes", 0);
    if (failed(noop))
      return failure();
    return std::pair(n.input(1), *noop);
  }
  FailureOr<std::optional<SmallVector<int64_t>>> a = n.getInts("axes");
  if (failed(a))
    return failure();
  return std::pair(*a ? constI64(n.loc, **a) : Value(), int64_t{0});
}

FailureOr<Value> Importer::softmax(NodeContext &n, Value x, int64_t axis, bool flattened) {
  if (!flattened)
    return firstResult(create<SoftmaxOp>(n, x, {attr("axis", builder.getI64IntegerAttr(axis))}));
  // Before opset 13, Softmax normalized over all dims from `axis` on.
  std::optional<int64_t> rank = rankOf(x);
  if (!rank)
    return n.error() << "Softmax before opset 13 needs an input of known rank";
  int64_t a = axis < 0 ? axis + *rank : axis;
  if (a < 0 || a >= std::max<int64_t>(*rank, 1))
    return n.error() << "Softmax axis " << axis << " is out of range for rank " << *rank;
  if (a == *rank - 1)
    return firstResult(create<SoftmaxOp>(n, x, {attr("axis", builder.getI64IntegerAttr(-1))}));
  FailureOr<Operation *> flat =
      create<FlattenOp>(n, x, {attr("axis", builder.getI64IntegerAttr(a))});
  if (failed(flat))
    return failure();
  FailureOr<Operation *> soft = create<SoftmaxOp>(
      n, (*flat)->getResults(), {attr("axis", builder.getI64IntegerAttr(1))});
  FailureOr<Operation *> shape =
      create<ShapeOp>(n, x, {attr("start", builder.getI64IntegerAttr(0))});
  if (failed(soft) || failed(shape))
    return failure();
  return firstResult(create<ReshapeOp>(n, {(*soft)->getResult(0), (*shape)->getResult(0)},
                                       {attr("allowzero", builder.getI64IntegerAttr(0))}));
}

FailureOr<SmallVector<NamedAttribute>> Importer::windowAttributes(NodeContext &n,
                                                                  Value weight) {
  llvm::StringRef op = n.node.op_type();
  FailureOr<std::string> autoPad = n.getString("auto_pad", "NOTSET");
  FailureOr<std::optional<SmallVector<int64_t>>> kernel = n.getInts("kernel_shape");
  if (failed(autoPad) || failed(kernel))
    return failure();
  if (*autoPad != "NOTSET" && *autoPad != "SAME_UPPER" && *autoPad != "SAME_LOWER" &&
      *autoPad != "VALID")
    return n.error() << "unknown auto_pad '" << *autoPad << "'";
  SmallVector<int64_t> k;
  if (*kernel) {
    k = **kernel;
  } else if (weight) {
    auto w = dyn_cast<RankedTensorType>(weight.getType());
    if (!w || w.getRank() < 3 || llvm::any_of(w.getShape().drop_front(2), ShapedType::isDynamic))
      return n.error() << op << " without kernel_shape needs a weight whose spatial "
                          "dims are known";
    k.assign(w.getShape().begin() + 2, w.getShape().end());
  } else {
    return n.error() << op << " needs the 'kernel_shape' attribute";
  }
  FailureOr<SmallVector<NamedAttribute>> attrs = stepAttributes(n, k.size());
  if (failed(attrs))
    return failure();
  attrs->append({attr("auto_pad", builder.getStringAttr(*autoPad)),
                 attr("kernel_shape", builder.getDenseI64ArrayAttr(k))});
  return attrs;
}

FailureOr<SmallVector<NamedAttribute>> Importer::stepAttributes(NodeContext &n, size_t nd) {
  FailureOr<std::optional<SmallVector<int64_t>>> strides = n.getInts("strides"),
                                                  dilations = n.getInts("dilations"),
                                                  pads = n.getInts("pads");
  if (failed(strides) || failed(dilations) || failed(pads))
    return failure();
  auto orDefault = [&](const std::optional<SmallVector<int64_t>> &v, size_t count,
                       int64_t dflt) { return v ? *v : SmallVector<int64_t>(count, dflt); };
  return SmallVector<NamedAttribute>{
      attr("strides", builder.getDenseI64ArrayAttr(orDefault(*strides, nd, 1))),
      attr("dilations", builder.getDenseI64ArrayAttr(orDefault(*dilations, nd, 1))),
      attr("pads", builder.getDenseI64ArrayAttr(orDefault(*pads, 2 * nd, 0)))};
}

FailureOr<SmallVector<NamedAttribute>> Importer::averagePoolAttributes(NodeContext &n) {
  FailureOr<SmallVector<NamedAttribute>> attrs = windowAttributes(n, Value());
  FailureOr<int64_t> ceil = n.getInt("ceil_mode", 0);
  FailureOr<int64_t> includePad = n.getInt("count_include_pad", 0);
  if (failed(attrs) || failed(ceil) || failed(includePad))
    return failure();
  attrs->push_back(attr("ceil_mode", builder.getI64IntegerAttr(*ceil)));
  attrs->push_back(attr("count_include_pad", builder.getI64IntegerAttr(*includePad)));
  return attrs;
}
