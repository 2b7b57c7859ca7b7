//===- OnnxCompositeNodes.cpp - ONNX ops imported as compositions ---------===//
//
// ONNX ops that are exact compositions of nunc ops, imported as those (the
// fusions and kernels then take them as they take the ops written out):
// Dropout (inference: the identity), LogSoftmax and Hardmax, Trilu,
// ReduceL1 / ReduceL2 / ReduceSumSquare / ReduceLogSum / ReduceLogSumExp,
// LpNormalization, MeanVarianceNormalization, LRN, IsNaN, IsInf, OneHot,
// Shrink, Size and Einsum. Each follows ONNX's definition (its function body or
// reference implementation); where onnxruntime differs, the comment says
// which one nunc follows.
//
//===----------------------------------------------------------------------===//

#include "ImporterImpl.h"

#include "nunc/Dialect/Nunc/NuncUtils.h"

#include "llvm/ADT/StringExtras.h"

#include <cmath>

using namespace mlir;
using namespace mlir::nunc;
using namespace mlir::nunc::import_detail;

LogicalResult Importer::convertComposite(NodeContext &n, SmallVectorImpl<Value> &outputs) {
  llvm::StringRef op = n.node.op_type();
  Location loc = n.loc;
  auto in = [&](unsigned i) { return n.input(i); };
  auto arity = [&](unsigned required, unsigned max) -> LogicalResult {
    if (n.inputs.size() > max)
      return n.error() << op << " takes at most " << max << " input" << (max == 1 ? "" : "s")
                       << ", got " << n.inputs.size();
    for (unsigned i = 0; i < required; ++i)
      if (!in(i))
        return n.error() << op << " needs input #" << i;
    return success();
  };
  auto mk = [&](StringRef name, ValueRange operands, ArrayRef<NamedAttribute> attrs = {}) {
    return firstResult(create(n, name, operands, attrs, 1));
  };
  // Chains one-result ops: each step gets the previous result; the first
  // failure stops the chain.
  auto done = [&](FailureOr<Value> y) -> LogicalResult {
    if (failed(y))
      return failure();
    outputs.push_back(*y);
    return success();
  };
  auto i64Attr = [&](llvm::StringRef name, int64_t v) {
    return attr(name, builder.getI64IntegerAttr(v));
  };
  auto staticType = [&](Value v, llvm::StringRef what) -> FailureOr<RankedTensorType> {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    if (!t || !t.hasStaticShape())
      return n.error() << op << " needs " << what << " of static shape (pin its dims with "
                                                     "--shape)";
    return t;
  };
  auto element = [](Value v) { return cast<ShapedType>(v.getType()).getElementType(); };
  // The value of a one-element constant of any numeric type.
  auto constantNumber = [&](Value v) -> std::optional<double> {
    if (isa<FloatType>(element(v))) {
      std::optional<SmallVector<double>> d = getConstantDoubles(v);
      return d && d->size() == 1 ? std::optional<double>((*d)[0]) : std::nullopt;
    }
    std::optional<SmallVector<int64_t>> i = getConstantInts(v);
    return i && i->size() == 1 ? std::optional<double>((*i)[0]) : std::nullopt;
  };
  auto wrap = [&](int64_t axis, int64_t rank) -> FailureOr<int64_t> {
    if (axis < -rank || axis >= rank)
      return n.error() << op << ": axis " << axis << " is out of range for rank " << rank;
    return axis < 0 ? axis + rank : axis;
  };

  // Dropout at inference: the data as it is, and a mask of all true (all
  // ones of the data's type before opset 10). Training mode draws a random
  // mask; only its ratio-0 case (the identity) is compiled.
  if (op == "Dropout") {
    FailureOr<float> ratioAttr = n.getFloat("ratio", 0.5f);
    n.ignore("seed");
    if (failed(arity(1, n.opset >= 12 ? 3 : 1)) || failed(ratioAttr))
      return failure();
    if (Value training = in(2)) {
      std::optional<double> mode = constantNumber(training);
      if (!mode)
        return n.error() << "Dropout's training_mode must be a constant";
      std::optional<double> ratio = in(1) ? constantNumber(in(1)) : 0.5;
      if (*mode != 0 && ratio != 0.0)
        return n.error() << "Dropout in training mode draws a random mask; nunc compiles "
                            "inference (training_mode false, or a ratio of 0)";
    }
    FailureOr<Value> y = mk(IdentityOp::getOperationName(), {in(0)});
    if (failed(y))
      return failure();
    outputs.push_back(*y);
    if (n.node.output_size() > 1 && !n.node.output(1).empty()) {
      Type maskElement = n.opset >= 10 ? builder.getI1Type() : element(in(0));
      auto oneType = RankedTensorType::get({1}, maskElement);
      Attribute one = isa<FloatType>(maskElement) ? Attribute(FloatAttr::get(maskElement, 1))
                                                  : Attribute(IntegerAttr::get(maskElement, 1));
      FailureOr<Value> shape = mk(ShapeOp::getOperationName(), {in(0)}, {i64Attr("start", 0)});
      FailureOr<Value> mask =
          succeeded(shape) ? mk(ConstantOfShapeOp::getOperationName(), {*shape},
                                {attr("value", DenseElementsAttr::get(oneType, one))})
                           : shape;
      if (failed(mask))
        return failure();
      outputs.push_back(*mask);
    }
    return success();
  }

  // LogSoftmax: (x - max) - log(sum(exp(x - max))), exact where
  // log(softmax) would round tiny probabilities to 0. Hardmax: 1 where the
  // first maximum along the axis is, else 0. Before opset 13 both work on
  // all dims from `axis` on, flattened.
  if (op == "LogSoftmax" || op == "Hardmax") {
    FailureOr<int64_t> axisAttr = n.getInt("axis", n.opset < 13 ? 1 : -1);
    if (failed(arity(1, 1)) || failed(axisAttr))
      return failure();
    auto type = dyn_cast<RankedTensorType>(in(0).getType());
    if (!type)
      return n.error() << op << " needs an input of known rank";
    if (type.getRank() == 0)
      return n.error() << op << " needs an input of rank 1 or more";
    FailureOr<int64_t> axis = wrap(*axisAttr, type.getRank());
    if (failed(axis))
      return failure();
    Value x = in(0);
    int64_t along = *axis;
    bool flatten = n.opset < 13 && *axis != type.getRank() - 1;
    if (flatten) {
      FailureOr<Value> flat = mk(FlattenOp::getOperationName(), {x}, {i64Attr("axis", *axis)});
      if (failed(flat))
        return failure();
      x = *flat;
      along = 1;
    }
    FailureOr<Value> y = failure();
    if (op == "LogSoftmax") {
      Value axes = constI64(loc, {along});
      auto keep = SmallVector<NamedAttribute>{i64Attr("keepdims", 1),
                                              i64Attr("noop_with_empty_axes", 0)};
      FailureOr<Value> max = mk(ReduceMaxOp::getOperationName(), {x, axes}, keep);
      FailureOr<Value> shifted =
          succeeded(max) ? mk(SubOp::getOperationName(), {x, *max}) : max;
      FailureOr<Value> sum = succeeded(shifted) ? mk(ExpOp::getOperationName(), {*shifted})
                                                : shifted;
      if (succeeded(sum))
        sum = mk(ReduceSumOp::getOperationName(), {*sum, axes}, keep);
      if (succeeded(sum))
        sum = mk(LogOp::getOperationName(), {*sum});
      if (succeeded(sum))
        y = mk(SubOp::getOperationName(), {*shifted, *sum});
    } else {
      auto xType = cast<RankedTensorType>(x.getType());
      if (xType.hasStaticShape() && xType.getNumElements() == 0) {
        y = x; // (an empty input: nothing to compare, no position table)
      } else {
        if (xType.isDynamicDim(along))
          return n.error() << "Hardmax needs the dim it runs along to be known (pin it with "
                              "--shape)";
        int64_t count = xType.getDimSize(along);
        if (count > shape::kMaxTensorBytes / 8) // (an int64 table of the positions)
          return n.error() << "Hardmax along " << count
                           << " elements would need an index table over the 8 GiB a tensor "
                              "may hold";
        SmallVector<int64_t> iotaShape{count};
        iotaShape.append(xType.getRank() - along - 1, 1);
        SmallVector<int64_t> values(count);
        for (int64_t i = 0; i < count; ++i)
          values[i] = i;
        auto iotaType = RankedTensorType::get(iotaShape, builder.getI64Type());
        Value iota = ConstantOp::create(builder, loc, iotaType,
                                        DenseElementsAttr::get(iotaType, ArrayRef(values)));
        FailureOr<Value> index = mk(ArgMaxOp::getOperationName(), {x},
                                    {i64Attr("axis", along), i64Attr("keepdims", 1),
                                     i64Attr("select_last_index", 0)});
        FailureOr<Value> hit =
            succeeded(index) ? mk(EqualOp::getOperationName(), {iota, *index}) : index;
        if (succeeded(hit))
          y = mk(CastOp::getOperationName(), {*hit},
                 {attr("to", TypeAttr::get(element(x))), i64Attr("saturate", 1)});
      }
    }
    if (succeeded(y) && flatten) {
      FailureOr<Value> shape = mk(ShapeOp::getOperationName(), {in(0)}, {i64Attr("start", 0)});
      y = succeeded(shape)
              ? mk(ReshapeOp::getOperationName(), {*y, *shape}, {i64Attr("allowzero", 0)})
              : shape;
    }
    return done(y);
  }

  // Trilu: the elements on and above (upper) or on and below diagonal k of
  // the last two dims, zeros elsewhere: Where(mask, x, 0) with the mask
  // j - i >= k (upper) or j - i <= k from the constant j - i and k, which
  // may come at run time (a constant k folds the mask).
  if (op == "Trilu") {
    FailureOr<int64_t> upper = n.getInt("upper", 1);
    if (failed(arity(1, 2)) || failed(upper))
      return failure();
    auto type = dyn_cast<RankedTensorType>(in(0).getType());
    if (!type || type.getRank() < 2 || type.isDynamicDim(type.getRank() - 1) ||
        type.isDynamicDim(type.getRank() - 2))
      return n.error() << "Trilu needs an input of rank 2 or more whose last two dims are "
                          "known (pin them with --shape)";
    const int64_t rows = type.getDimSize(type.getRank() - 2),
                  cols = type.getDimSize(type.getRank() - 1);
    if (type.hasStaticShape() && type.getNumElements() == 0)
      return done(in(0)); // (nothing to mask: no position tables either)
    // (The row and column numbers are int64 tables, which a dim of 2^31
    // of an int8 input would take past the tensor limit.)
    if (std::max(rows, cols) > shape::kMaxTensorBytes / 8)
      return n.error() << "Trilu over " << rows << " x " << cols
                       << " would need an index table over the 8 GiB a tensor may hold";
    // j - i from a column of row numbers and a row of column numbers (a
    // constant [rows, cols] table would ship in the weights of a large
    // causal mask).
    auto iota = [&](int64_t count, ArrayRef<int64_t> shape) {
      SmallVector<int64_t> values(count);
      for (int64_t i = 0; i < count; ++i)
        values[i] = i;
      auto t = RankedTensorType::get(shape, builder.getI64Type());
      return ConstantOp::create(builder, loc, t, DenseElementsAttr::get(t, ArrayRef(values)))
          .getResult();
    };
    FailureOr<Value> diagonalOr =
        mk(SubOp::getOperationName(), {iota(cols, {1, cols}), iota(rows, {rows, 1})});
    if (failed(diagonalOr))
      return failure();
    Value diagonal = *diagonalOr;
    Value k = in(1) ? in(1) : constI64(loc, {0}, /*scalar=*/true);
    if (in(1)) {
      auto kType = dyn_cast<RankedTensorType>(k.getType());
      if (!kType || kType.getNumElements() != 1 || !kType.getElementType().isInteger(64))
        return n.error() << "Trilu needs k to be an int64 scalar";
      if (kType.getRank() != 0) {
        FailureOr<Value> scalar = mk(ReshapeOp::getOperationName(), {k, constI64(loc, {})});
        if (failed(scalar))
          return failure();
        k = *scalar;
      }
    }
    // Outside the kept triangle: k > j - i (upper) or j - i > k (lower).
    FailureOr<Value> outside = *upper ? mk(GreaterOp::getOperationName(), {k, diagonal})
                                      : mk(GreaterOp::getOperationName(), {diagonal, k});
    return done(succeeded(outside) ? mk(WhereOp::getOperationName(),
                                        {*outside, constScalar(loc, element(in(0)), 0), in(0)})
                                   : outside);
  }

  // The reductions ONNX defines through ReduceSum, ReduceMax, Exp, Log,
  // Abs and Sqrt; axes as ReduceSum takes them (an input from opset 18).
  if (op == "ReduceL1" || op == "ReduceL2" || op == "ReduceSumSquare" || op == "ReduceLogSum" ||
      op == "ReduceLogSumExp") {
    FailureOr<int64_t> keep = n.getInt("keepdims", 1);
    FailureOr<std::pair<Value, int64_t>> axesAndNoop = reductionAxes(n);
    if (failed(keep) || failed(axesAndNoop))
      return failure();
    auto [axes, noop] = *axesAndNoop;
    Value x = in(0);
    Type el = element(x);
    bool needsFloat = op == "ReduceL2" || op == "ReduceLogSum" || op == "ReduceLogSumExp";
    if (needsFloat && !isa<FloatType>(el))
      return n.error() << op << " of integers is not supported (it takes a square root, a "
                              "logarithm or an exponential)";
    auto reduce = [&](StringRef name, Value v, int64_t keepdims) {
      return mk(name, present({v, axes}),
                {i64Attr("keepdims", keepdims), i64Attr("noop_with_empty_axes", noop)});
    };
    StringRef sum = ReduceSumOp::getOperationName();
    FailureOr<Value> y = failure();
    if (op == "ReduceL1") {
      FailureOr<Value> a = mk(AbsOp::getOperationName(), {x});
      y = succeeded(a) ? reduce(sum, *a, *keep) : a;
    } else if (op == "ReduceL2" || op == "ReduceSumSquare") {
      FailureOr<Value> sq = mk(MulOp::getOperationName(), {x, x});
      y = succeeded(sq) ? reduce(sum, *sq, *keep) : sq;
      if (succeeded(y) && op == "ReduceL2")
        y = mk(SqrtOp::getOperationName(), {*y});
    } else if (op == "ReduceLogSum") {
      y = reduce(sum, x, *keep);
      if (succeeded(y))
        y = mk(LogOp::getOperationName(), {*y});
    } else {
      // log(sum(exp(x - m))) + m with m the maximum (0 where it is +-inf or
      // the reduction is empty: then the sum itself is 0, inf or NaN, as
      // without the shift), so large inputs do not overflow.
      StringRef max = ReduceMaxOp::getOperationName();
      Value inf = constScalar(loc, el, INFINITY), zero = constScalar(loc, el, 0);
      auto finiteOrZero = [&](FailureOr<Value> m) -> FailureOr<Value> {
        FailureOr<Value> a = succeeded(m) ? mk(AbsOp::getOperationName(), {*m}) : m;
        FailureOr<Value> isInf = succeeded(a) ? mk(EqualOp::getOperationName(), {*a, inf}) : a;
        return succeeded(isInf) ? mk(WhereOp::getOperationName(), {*isInf, zero, *m}) : isInf;
      };
      FailureOr<Value> kept = finiteOrZero(reduce(max, x, 1));
      FailureOr<Value> shift = finiteOrZero(reduce(max, x, *keep));
      FailureOr<Value> s = succeeded(kept) ? mk(SubOp::getOperationName(), {x, *kept}) : kept;
      if (succeeded(s))
        s = mk(ExpOp::getOperationName(), {*s});
      if (succeeded(s))
        s = reduce(sum, *s, *keep);
      if (succeeded(s))
        s = mk(LogOp::getOperationName(), {*s});
      if (succeeded(s) && succeeded(shift))
        y = mk(AddOp::getOperationName(), {*s, *shift});
    }
    return done(y);
  }

  // LpNormalization: x / ||x||_p along the axis (p 1 or 2). A zero norm
  // gives 0, as onnxruntime computes it (ONNX's reference divides: NaN).
  if (op == "LpNormalization") {
    FailureOr<int64_t> axisAttr = n.getInt("axis", -1), p = n.getInt("p", 2);
    if (failed(arity(1, 1)) || failed(axisAttr) || failed(p))
      return failure();
    if (*p != 1 && *p != 2)
      return n.error() << "LpNormalization needs p = 1 or 2, got " << *p;
    Value x = in(0);
    Type el = element(x);
    if (!isa<FloatType>(el))
      return n.error() << "LpNormalization needs floating-point data";
    Value axes = constI64(loc, {*axisAttr});
    auto keep = SmallVector<NamedAttribute>{i64Attr("keepdims", 1),
                                            i64Attr("noop_with_empty_axes", 0)};
    FailureOr<Value> norm = *p == 1 ? mk(AbsOp::getOperationName(), {x})
                                    : mk(MulOp::getOperationName(), {x, x});
    if (succeeded(norm))
      norm = mk(ReduceSumOp::getOperationName(), {*norm, axes}, keep);
    if (succeeded(norm) && *p == 2)
      norm = mk(SqrtOp::getOperationName(), {*norm});
    Value zero = constScalar(loc, el, 0);
    FailureOr<Value> isZero =
        succeeded(norm) ? mk(EqualOp::getOperationName(), {*norm, zero}) : norm;
    FailureOr<Value> q = succeeded(isZero) ? mk(DivOp::getOperationName(), {x, *norm}) : isZero;
    return done(succeeded(q) ? mk(WhereOp::getOperationName(), {*isZero, zero, *q}) : q);
  }

  // MeanVarianceNormalization, as ONNX's function body: (x - E[x]) /
  // (sqrt(E[x^2] - E[x]^2) + 1e-9) over `axes`.
  if (op == "MeanVarianceNormalization") {
    FailureOr<std::optional<SmallVector<int64_t>>> axesAttr = n.getInts("axes");
    if (failed(arity(1, 1)) || failed(axesAttr))
      return failure();
    Value x = in(0);
    Type el = element(x);
    Value axes = constI64(loc, *axesAttr ? **axesAttr : SmallVector<int64_t>{0, 2, 3});
    auto mean = [&](Value v) {
      return mk(ReduceMeanOp::getOperationName(), {v, axes},
                {i64Attr("keepdims", 1), i64Attr("noop_with_empty_axes", 0)});
    };
    FailureOr<Value> m = mean(x);
    FailureOr<Value> sq = mk(MulOp::getOperationName(), {x, x});
    FailureOr<Value> meanSq = succeeded(sq) ? mean(*sq) : sq;
    if (failed(m) || failed(meanSq))
      return failure();
    FailureOr<Value> var = mk(MulOp::getOperationName(), {*m, *m});
    if (succeeded(var))
      var = mk(SubOp::getOperationName(), {*meanSq, *var});
    if (succeeded(var))
      var = mk(SqrtOp::getOperationName(), {*var});
    if (succeeded(var))
      var = mk(AddOp::getOperationName(), {*var, constScalar(loc, el, 1e-9)});
    FailureOr<Value> centered = mk(SubOp::getOperationName(), {x, *m});
    if (failed(var) || failed(centered))
      return failure();
    return done(mk(DivOp::getOperationName(), {*centered, *var}));
  }

  // LRN: x / (bias + alpha / size * sum of x^2 over the `size` channels
  // around)^beta. The window sum is an AveragePool (padding counted) over
  // the channels of the squares viewed as [N, 1, C, rest], times size.
  if (op == "LRN") {
    FailureOr<float> alpha = n.getFloat("alpha", 1e-4f), beta = n.getFloat("beta", 0.75f),
                     bias = n.getFloat("bias", 1.0f);
    FailureOr<int64_t> size = n.getInt("size", std::nullopt);
    if (failed(arity(1, 1)) || failed(alpha) || failed(beta) || failed(bias) || failed(size))
      return failure();
    FailureOr<RankedTensorType> type = staticType(in(0), "an input");
    if (failed(type))
      return failure();
    if (type->getRank() < 3 || *size < 1 || !type->getElementType().isF32() ||
        type->getNumElements() == 0)
      return n.error() << "LRN needs a non-empty f32 input of rank 3 or more and a positive "
                          "size";
    ArrayRef<int64_t> d = type->getShape();
    const int64_t N = d[0], C = d[1], rest = type->getNumElements() / (N * C);
    Value x = in(0);
    Type el = element(x);
    FailureOr<Value> s = mk(MulOp::getOperationName(), {x, x});
    if (succeeded(s))
      s = mk(ReshapeOp::getOperationName(), {*s, constI64(loc, {N, 1, C, rest})});
    const int64_t before = (*size - 1) / 2, after = *size - 1 - before;
    if (succeeded(s))
      s = mk(AveragePoolOp::getOperationName(), {*s},
             {attr("auto_pad", builder.getStringAttr("NOTSET")),
              attr("kernel_shape", builder.getDenseI64ArrayAttr({*size, 1})),
              attr("strides", builder.getDenseI64ArrayAttr({1, 1})),
              attr("dilations", builder.getDenseI64ArrayAttr({1, 1})),
              attr("pads", builder.getDenseI64ArrayAttr({before, 0, after, 0})),
              i64Attr("ceil_mode", 0), i64Attr("count_include_pad", 1)});
    if (succeeded(s))
      s = mk(ReshapeOp::getOperationName(), {*s, constI64(loc, d)});
    // The pool's mean times size times alpha / size: alpha times the mean.
    if (succeeded(s))
      s = mk(MulOp::getOperationName(), {*s, constScalar(loc, el, *alpha)});
    if (succeeded(s))
      s = mk(AddOp::getOperationName(), {*s, constScalar(loc, el, *bias)});
    if (succeeded(s))
      s = mk(PowOp::getOperationName(), {*s, constScalar(loc, el, *beta)});
    return done(succeeded(s) ? mk(DivOp::getOperationName(), {x, *s}) : s);
  }

  // IsNaN: x != x. IsInf: x == +inf or x == -inf, as detect_positive and
  // detect_negative ask.
  if (op == "IsNaN" || op == "IsInf") {
    bool isInf = op == "IsInf";
    FailureOr<int64_t> pos = isInf ? n.getInt("detect_positive", 1) : FailureOr<int64_t>(0),
                       neg = isInf ? n.getInt("detect_negative", 1) : FailureOr<int64_t>(0);
    if (failed(arity(1, 1)) || failed(pos) || failed(neg))
      return failure();
    Value x = in(0);
    Type el = element(x);
    if (!isa<FloatType>(el))
      return n.error() << op << " needs floating-point data";
    if (!isInf) {
      FailureOr<Value> same = mk(EqualOp::getOperationName(), {x, x});
      return done(succeeded(same) ? mk(EqualOp::getOperationName(),
                                       {*same, constScalar(loc, builder.getI1Type(), 0)})
                                  : same);
    }
    // x == v, or all false in x's shape (x == NaN) for a side not asked for.
    auto equals = [&](bool asked, double v) {
      return mk(EqualOp::getOperationName(), {x, constScalar(loc, el, asked ? v : NAN)});
    };
    FailureOr<Value> hi = equals(*pos, INFINITY), lo = equals(*neg, -INFINITY);
    if (failed(hi) || failed(lo))
      return failure();
    return done(mk(WhereOp::getOperationName(), {*hi, *hi, *lo}));
  }

  // OneHot: `on` where the index (negative ones counted from depth) equals
  // the position along the new axis, `off` elsewhere; indices outside
  // [-depth, depth) give a row of `off`.
  if (op == "OneHot") {
    FailureOr<int64_t> axisAttr = n.getInt("axis", -1);
    if (failed(arity(3, 3)) || failed(axisAttr))
      return failure();
    std::optional<double> depthValue = constantNumber(in(1));
    if (!depthValue || !(*depthValue >= 1 && *depthValue <= (1 << 24)))
      return n.error() << "OneHot needs depth to be a constant from 1 to 2^24";
    const int64_t depth = static_cast<int64_t>(*depthValue);
    auto idxType = dyn_cast<RankedTensorType>(in(0).getType());
    if (!idxType)
      return n.error() << "OneHot needs indices of known rank";
    FailureOr<int64_t> axis = wrap(*axisAttr, idxType.getRank() + 1);
    if (failed(axis))
      return failure();
    Type i64 = builder.getI64Type();
    Value idx = in(0);
    FailureOr<Value> wide = idxType.getElementType() == i64
                                ? FailureOr<Value>(idx)
                                : mk(CastOp::getOperationName(), {idx},
                                     {attr("to", TypeAttr::get(i64)), i64Attr("saturate", 1)});
    if (failed(wide))
      return failure();
    Value zero = constScalar(loc, i64, 0);
    FailureOr<Value> negative = mk(GreaterOp::getOperationName(), {zero, *wide});
    FailureOr<Value> shifted = mk(AddOp::getOperationName(), {*wide, constScalar(loc, i64, depth)});
    if (failed(negative) || failed(shifted))
      return failure();
    FailureOr<Value> norm = mk(WhereOp::getOperationName(), {*negative, *shifted, *wide});
    if (succeeded(norm))
      norm = mk(UnsqueezeOp::getOperationName(), {*norm, constI64(loc, {*axis})});
    SmallVector<int64_t> iotaShape{depth}, values(depth);
    iotaShape.append(idxType.getRank() - *axis, 1);
    for (int64_t i = 0; i < depth; ++i)
      values[i] = i;
    auto iotaType = RankedTensorType::get(iotaShape, i64);
    Value iota = ConstantOp::create(builder, loc, iotaType,
                                    DenseElementsAttr::get(iotaType, ArrayRef(values)));
    FailureOr<Value> hit = succeeded(norm) ? mk(EqualOp::getOperationName(), {*norm, iota}) : norm;
    FailureOr<Value> off = mk(GatherOp::getOperationName(), {in(2), constI64(loc, {0}, true)},
                              {i64Attr("axis", 0)});
    FailureOr<Value> on = mk(GatherOp::getOperationName(), {in(2), constI64(loc, {1}, true)},
                             {i64Attr("axis", 0)});
    if (failed(hit) || failed(off) || failed(on))
      return failure();
    return done(mk(WhereOp::getOperationName(), {*hit, *on, *off}));
  }

  // Swish(x) = x sigmoid(alpha x); SwiGLU(a, b) = Swish(a) b, a and b of
  // one shape. (alpha 1 leaves x sigmoid(x), which the fusions take as
  // SiLU.)
  if (op == "Swish" || op == "SwiGLU") {
    const bool glu = op == "SwiGLU";
    FailureOr<float> alpha = n.getFloat("alpha", 1.f);
    if (failed(arity(glu ? 2 : 1, glu ? 2 : 1)) || failed(alpha))
      return failure();
    if (glu && in(0).getType() != in(1).getType())
      return n.error() << "SwiGLU's inputs must be of one type and shape (no broadcasting), got "
                       << in(0).getType() << " and " << in(1).getType();
    Value x = in(0);
    FailureOr<Value> gate = x;
    if (*alpha != 1.f)
      gate = mk(MulOp::getOperationName(), {x, constScalar(loc, element(x), *alpha)});
    if (succeeded(gate))
      gate = mk(SigmoidOp::getOperationName(), {*gate});
    FailureOr<Value> y = succeeded(gate) ? mk(MulOp::getOperationName(), {x, *gate}) : gate;
    if (glu && succeeded(y))
      y = mk(MulOp::getOperationName(), {*y, in(1)});
    return done(y);
  }

  // Shrink: x + bias below -lambd, x - bias above lambd, 0 between.
  if (op == "Shrink") {
    FailureOr<float> lambd = n.getFloat("lambd", 0.5f), bias = n.getFloat("bias", 0.f);
    if (failed(arity(1, 1)) || failed(lambd) || failed(bias))
      return failure();
    Value x = in(0);
    Type original = element(x), el = original;
    // Integers compare and shift in f64 (exact to 2^53; -lambd and a
    // fractional bias are not integers), then convert back.
    if (!isa<FloatType>(el)) {
      el = builder.getF64Type();
      FailureOr<Value> wide = mk(CastOp::getOperationName(), {x},
                                 {attr("to", TypeAttr::get(el)), i64Attr("saturate", 1)});
      if (failed(wide))
        return failure();
      x = *wide;
    }
    auto c = [&](double v) { return constScalar(loc, el, v); };
    FailureOr<Value> below = mk(GreaterOp::getOperationName(), {c(-*lambd), x});
    FailureOr<Value> above = mk(GreaterOp::getOperationName(), {x, c(*lambd)});
    FailureOr<Value> plus = mk(AddOp::getOperationName(), {x, c(*bias)});
    FailureOr<Value> minus = mk(SubOp::getOperationName(), {x, c(*bias)});
    if (failed(below) || failed(above) || failed(plus) || failed(minus))
      return failure();
    FailureOr<Value> y = mk(WhereOp::getOperationName(), {*above, *minus, c(0)});
    if (succeeded(y))
      y = mk(WhereOp::getOperationName(), {*below, *plus, *y});
    if (succeeded(y) && el != original)
      y = mk(CastOp::getOperationName(), {*y},
             {attr("to", TypeAttr::get(original)), i64Attr("saturate", 1)});
    return done(y);
  }

  // AffineGrid: the homogeneous coordinates of every output pixel ([P, 3]
  // in 2-D: x, y, 1; [P, 4] in 3-D), a constant from the constant size,
  // times theta^T: MatMul(base, Transpose(theta)) [N, P, 2 or 3], reshaped
  // to [N, (D,) H, W, 2 or 3].
  if (op == "AffineGrid") {
    FailureOr<int64_t> align = n.getInt("align_corners", 0);
    if (failed(arity(2, 2)) || failed(align))
      return failure();
    std::optional<SmallVector<int64_t>> size = getConstantInts(in(1));
    if (!size || (size->size() != 4 && size->size() != 5) ||
        llvm::any_of(*size, [](int64_t d) { return d <= 0; }))
      return n.error() << "AffineGrid needs a constant size [N, C, H, W] or [N, C, D, H, W] of "
                          "positive dims";
    FailureOr<RankedTensorType> theta = staticType(in(0), "theta");
    if (failed(theta))
      return failure();
    const int64_t spatial = size->size() - 2;
    Type el = theta->getElementType();
    if (!isa<FloatType>(el) || theta->getShape() != ArrayRef<int64_t>{(*size)[0], spatial,
                                                                       spatial + 1})
      return n.error() << "AffineGrid's theta must be float [" << (*size)[0] << ", " << spatial
                       << ", " << spatial + 1 << "], got " << *theta;
    ArrayRef<int64_t> dims = ArrayRef<int64_t>(*size).drop_front(2);
    int64_t points = 1;
    for (int64_t d : dims)
      points *= d;
    // Normalized coordinate of pixel i of a dim of d: the corners' centers
    // at -1 and 1 (align_corners), or the pixels' centers in (-1, 1). A dim
    // of 1 is at 0 either way, as torch's affine_grid (which the op
    // follows; with align_corners ONNX's reference gives -1, onnxruntime 1).
    auto normalized = [&](int64_t i, int64_t d) {
      if (d == 1)
        return 0.0;
      if (*align)
        return -1.0 + 2.0 * double(i) / double(d - 1);
      return -1.0 + (2.0 * double(i) + 1.0) / double(d);
    };
    SmallVector<Attribute> base;
    for (int64_t p = 0; p < points; ++p) {
      // (x, y[, z]): the last dim first.
      int64_t rest = p;
      SmallVector<double> coords(spatial);
      for (int64_t d = spatial - 1; d >= 0; --d) {
        coords[d] = normalized(rest % dims[d], dims[d]);
        rest /= dims[d];
      }
      for (int64_t d = spatial - 1; d >= 0; --d)
        base.push_back(FloatAttr::get(el, coords[d]));
      base.push_back(FloatAttr::get(el, 1.0));
    }
    auto baseType = RankedTensorType::get({points, spatial + 1}, el);
    Value baseGrid =
        ConstantOp::create(builder, loc, baseType, DenseElementsAttr::get(baseType, base));
    FailureOr<Value> thetaT = mk(TransposeOp::getOperationName(), {in(0)},
                                 {attr("perm", builder.getDenseI64ArrayAttr({0, 2, 1}))});
    if (failed(thetaT))
      return failure();
    FailureOr<Value> grid = mk(MatMulOp::getOperationName(), {baseGrid, *thetaT});
    if (failed(grid))
      return failure();
    SmallVector<int64_t> shape{(*size)[0]};
    shape.append(dims.begin(), dims.end());
    shape.push_back(spatial);
    return done(mk(ReshapeOp::getOperationName(), {*grid, constI64(loc, shape)}));
  }

  // Size: the element count, an i64 scalar (static shapes).
  if (op == "Size") {
    if (failed(arity(1, 1)))
      return failure();
    FailureOr<RankedTensorType> type = staticType(in(0), "an input");
    if (failed(type))
      return failure();
    outputs.push_back(constI64(loc, {type->getNumElements()}, /*scalar=*/true));
    return success();
  }

  // RMSNormalization (opset 23), as its function body: x in the stash type
  // over the dims from `axis` on, x / sqrt(mean(x^2) + epsilon), back to
  // x's type, times scale.
  if (op == "RMSNormalization") {
    FailureOr<int64_t> axis = n.getInt("axis", -1), stash = n.getInt("stash_type", 1);
    FailureOr<float> eps = n.getFloat("epsilon", 1e-5f);
    if (failed(arity(2, 2)) || failed(axis) || failed(stash) || failed(eps))
      return failure();
    Type el = element(in(0));
    std::optional<Type> stashType = onnx_io::elementType(ctx, *stash);
    if (!stashType || !isa<FloatType>(*stashType) || !isa<FloatType>(el))
      return n.error() << "RMSNormalization needs floating-point data and stash_type";
    if (*stashType == el) {
      FailureOr<std::pair<Value, Value>> y = rmsNorm(n, in(0), in(1), *axis, *eps);
      return done(succeeded(y) ? FailureOr<Value>(y->first) : FailureOr<Value>(failure()));
    }
    FailureOr<Value> x = mk(CastOp::getOperationName(), {in(0)},
                            {attr("to", TypeAttr::get(*stashType)), i64Attr("saturate", 1)});
    FailureOr<std::pair<Value, Value>> norm =
        succeeded(x) ? rmsNorm(n, *x, constScalar(loc, *stashType, 1), *axis, *eps)
                     : FailureOr<std::pair<Value, Value>>(failure());
    if (failed(norm))
      return failure();
    FailureOr<Value> y = mk(CastOp::getOperationName(), {norm->first},
                            {attr("to", TypeAttr::get(el)), i64Attr("saturate", 1)});
    return done(succeeded(y) ? mk(MulOp::getOperationName(), {*y, in(1)}) : y);
  }

  // RotaryEmbedding (opset 23), as ONNX's reference computes it: the first
  // rotary_embedding_dim features of each head rotated by the cos / sin
  // caches (rows picked by position_ids, checked at run time), as halves
  // or interleaved pairs.
  if (op == "RotaryEmbedding") {
    FailureOr<int64_t> interleaved = n.getInt("interleaved", 0),
                       rotaryDim = n.getInt("rotary_embedding_dim", 0),
                       numHeads = n.getInt("num_heads", 0);
    if (failed(arity(3, 4)) || failed(interleaved) || failed(rotaryDim) || failed(numHeads))
      return failure();
    FailureOr<RankedTensorType> type = staticType(in(0), "an input");
    if (failed(type))
      return failure();
    ArrayRef<int64_t> d = type->getShape();
    const int64_t rank = d.size();
    if (rank != 3 && rank != 4)
      return n.error() << "RotaryEmbedding needs a 3-D or 4-D input";
    if (rank == 3 && (*numHeads < 1 || d[2] % *numHeads != 0))
      return n.error() << "RotaryEmbedding of a 3-D input needs num_heads dividing its "
                          "hidden size";
    const int64_t batch = d[0], seq = rank == 4 ? d[2] : d[1];
    const int64_t heads = rank == 4 ? d[1] : *numHeads;
    const int64_t head = rank == 4 ? d[3] : d[2] / *numHeads;
    const int64_t rd = *rotaryDim ? *rotaryDim : head;
    if (rd < 2 || rd > head || rd % 2 != 0)
      return n.error() << "RotaryEmbedding's rotary_embedding_dim must be even and at most "
                          "the head size ("
                       << head << "), got " << rd;
    auto slice = [&](Value v, int64_t start, int64_t end, int64_t step) {
      SmallVector<Value> operands{v, constI64(loc, {start}), constI64(loc, {end}),
                                  constI64(loc, {-1}), constI64(loc, {step})};
      return mk(SliceOp::getOperationName(), operands, {segments(operands)});
    };
    auto binary = [&](StringRef name, FailureOr<Value> a, FailureOr<Value> b) {
      return succeeded(a) && succeeded(b) ? mk(name, {*a, *b}) : FailureOr<Value>(failure());
    };
    // x as [batch, seq, heads, head].
    FailureOr<Value> x = rank == 4 ? mk(TransposeOp::getOperationName(), {in(0)},
                                        {attr("perm", builder.getDenseI64ArrayAttr(
                                                          {0, 2, 1, 3}))})
                                   : mk(ReshapeOp::getOperationName(),
                                        {in(0), constI64(loc, {batch, seq, heads, head})});
    if (failed(x))
      return failure();
    auto cache = [&](Value c) -> FailureOr<Value> {
      FailureOr<Value> rows = in(3) ? mk(GatherOp::getOperationName(), {c, in(3)},
                                         {i64Attr("axis", 0)})
                                    : FailureOr<Value>(c);
      return succeeded(rows) ? mk(UnsqueezeOp::getOperationName(), {*rows, constI64(loc, {2})})
                             : rows;
    };
    FailureOr<Value> cos = cache(in(1)), sin = cache(in(2));
    FailureOr<Value> rotated = rd == head ? FailureOr<Value>(*x) : slice(*x, 0, rd, 1);
    if (failed(cos) || failed(sin) || failed(rotated))
      return failure();
    FailureOr<Value> x1 =
        *interleaved ? slice(*rotated, 0, rd, 2) : slice(*rotated, 0, rd / 2, 1);
    FailureOr<Value> x2 =
        *interleaved ? slice(*rotated, 1, rd, 2) : slice(*rotated, rd / 2, rd, 1);
    // (One statement each: the ops are made in this order, whatever order
    // the compiler evaluates arguments in.)
    StringRef mul = MulOp::getOperationName();
    FailureOr<Value> cosX1 = binary(mul, cos, x1);
    FailureOr<Value> sinX2 = binary(mul, sin, x2);
    FailureOr<Value> real = binary(SubOp::getOperationName(), cosX1, sinX2);
    FailureOr<Value> sinX1 = binary(mul, sin, x1);
    FailureOr<Value> cosX2 = binary(mul, cos, x2);
    FailureOr<Value> imag = binary(AddOp::getOperationName(), sinX1, cosX2);
    if (failed(real) || failed(imag))
      return failure();
    FailureOr<Value> y = failure();
    if (*interleaved) {
      FailureOr<Value> re = mk(UnsqueezeOp::getOperationName(), {*real, constI64(loc, {4})});
      FailureOr<Value> im = mk(UnsqueezeOp::getOperationName(), {*imag, constI64(loc, {4})});
      if (succeeded(re) && succeeded(im))
        y = mk(ConcatOp::getOperationName(), {*re, *im}, {i64Attr("axis", 4)});
      if (succeeded(y))
        y = mk(ReshapeOp::getOperationName(), {*y, constI64(loc, {batch, seq, heads, rd})});
    } else {
      y = mk(ConcatOp::getOperationName(), {*real, *imag}, {i64Attr("axis", 3)});
    }
    if (succeeded(y) && rd < head) {
      FailureOr<Value> rest = slice(*x, rd, head, 1);
      y = succeeded(rest) ? mk(ConcatOp::getOperationName(), {*y, *rest}, {i64Attr("axis", 3)})
                          : rest;
    }
    if (succeeded(y))
      y = rank == 4 ? mk(TransposeOp::getOperationName(), {*y},
                         {attr("perm", builder.getDenseI64ArrayAttr({0, 2, 1, 3}))})
                    : mk(ReshapeOp::getOperationName(), {*y, constI64(loc, d)});
    return done(y);
  }

  if (op == "Einsum")
    return einsum(n, outputs);

  return n.error() << "no converter for " << op;
}

// Einsum as Slice (diagonals), ReduceSum, Transpose, Reshape and MatMul:
// the operands are folded left to right, each pair's shared labels that a
// later operand or the output still needs are batch dims of one MatMul,
// the shared ones nothing needs any more its k. Labels are ints: letters
// their character, the dims an ellipsis stands for 256 + their position,
// aligned to the right as numpy broadcasts them.
LogicalResult Importer::einsum(NodeContext &n, SmallVectorImpl<Value> &outputs) {
  Location loc = n.loc;
  FailureOr<std::string> attrEq = n.getString("equation", "");
  if (failed(attrEq))
    return failure();
  std::string eq;
  for (char c : *attrEq)
    if (c != ' ')
      eq += c;
  if (n.inputs.empty() || llvm::is_contained(n.inputs, Value()))
    return n.error() << "Einsum needs at least one input";
  auto mk = [&](StringRef name, ValueRange operands, ArrayRef<NamedAttribute> attrs = {}) {
    return firstResult(create(n, name, operands, attrs, 1));
  };
  llvm::StringRef text(eq);
  auto [lhs, rhs] = text.split("->");
  bool explicitOutput = text.contains("->");
  SmallVector<llvm::StringRef> terms;
  lhs.split(terms, ',');
  if (terms.size() != n.inputs.size())
    return n.error() << "Einsum equation '" << *attrEq << "' has " << terms.size()
                     << " operand terms for " << n.inputs.size() << " inputs";
  constexpr int64_t kEllipsis = 256;
  struct Term {
    Value v;
    SmallVector<int64_t> labels;
  };
  // Explicit letters of a term, and whether it has an ellipsis.
  auto letters = [&](llvm::StringRef t, SmallVectorImpl<int64_t> &out,
                     bool &ellipsis) -> LogicalResult {
    ellipsis = false;
    for (size_t i = 0; i < t.size(); ++i) {
      if (t.substr(i).starts_with("...")) {
        if (ellipsis)
          return n.error() << "Einsum term '" << t << "' has two ellipses";
        ellipsis = true;
        out.push_back(-1); // where the ellipsis dims go
        i += 2;
        continue;
      }
      if (!llvm::isAlpha(static_cast<unsigned char>(t[i])))
        return n.error() << "Einsum equation '" << *attrEq << "': unexpected '" << t[i] << "'";
      out.push_back(static_cast<unsigned char>(t[i]));
    }
    return success();
  };
  SmallVector<Term> operands;
  llvm::DenseMap<int64_t, int64_t> sizes;
  int64_t ellipsisRank = 0;
  SmallVector<SmallVector<int64_t>> parsed(terms.size());
  SmallVector<bool> hasEllipsis(terms.size());
  for (size_t i = 0; i < terms.size(); ++i) {
    bool e;
    if (failed(letters(terms[i], parsed[i], e)))
      return failure();
    hasEllipsis[i] = e;
    auto type = dyn_cast<RankedTensorType>(n.inputs[i].getType());
    if (!type || !type.hasStaticShape())
      return n.error() << "Einsum needs inputs of static shape (pin their dims with --shape)";
    int64_t explicitCount = parsed[i].size() - (e ? 1 : 0);
    int64_t ell = type.getRank() - explicitCount;
    if (ell < 0 || (!e && ell != 0))
      return n.error() << "Einsum term '" << terms[i] << "' does not match input #" << i
                       << " of rank " << type.getRank();
    ellipsisRank = std::max(ellipsisRank, ell);
  }
  for (size_t i = 0; i < terms.size(); ++i) {
    auto type = cast<RankedTensorType>(n.inputs[i].getType());
    int64_t ell = type.getRank() - (parsed[i].size() - (hasEllipsis[i] ? 1 : 0));
    Term t{n.inputs[i], {}};
    for (int64_t l : parsed[i]) {
      if (l != -1) {
        t.labels.push_back(l);
        continue;
      }
      for (int64_t j = 0; j < ell; ++j)
        t.labels.push_back(kEllipsis + ellipsisRank - ell + j);
    }
    for (auto [d, l] : llvm::enumerate(t.labels)) {
      int64_t size = type.getDimSize(d);
      auto [it, inserted] = sizes.try_emplace(l, size);
      if (inserted || it->second == size)
        continue;
      // Ellipsis dims broadcast as numpy's do; letters must agree.
      if (l >= kEllipsis && (it->second == 1 || size == 1)) {
        it->second = std::max(it->second, size);
        continue;
      }
      return n.error() << "Einsum label '" << (l >= kEllipsis ? std::string("...") : std::string(1, char(l)))
                       << "' has sizes " << it->second << " and " << size;
    }
    operands.push_back(std::move(t));
  }
  // The output's labels: given, or (implicit) the ellipsis dims then the
  // letters that appear once, in alphabetical order.
  SmallVector<int64_t> outLabels;
  if (explicitOutput) {
    SmallVector<int64_t> out;
    bool e;
    if (failed(letters(rhs, out, e)))
      return failure();
    for (int64_t l : out) {
      if (l == -1) {
        for (int64_t j = 0; j < ellipsisRank; ++j)
          outLabels.push_back(kEllipsis + j);
      } else if (!sizes.count(l) || llvm::is_contained(outLabels, l)) {
        return n.error() << "Einsum output label '" << char(l)
                         << "' is not in any input or appears twice";
      } else {
        outLabels.push_back(l);
      }
    }
  } else {
    for (int64_t j = 0; j < ellipsisRank; ++j)
      outLabels.push_back(kEllipsis + j);
    std::map<int64_t, int> counts;
    for (const Term &t : operands)
      for (int64_t l : t.labels)
        if (l < kEllipsis)
          ++counts[l];
    for (auto [l, c] : counts)
      if (c == 1)
        outLabels.push_back(l);
  }

  auto transpose = [&](Term &t, ArrayRef<int64_t> order) -> LogicalResult {
    SmallVector<int64_t> perm;
    for (int64_t l : order)
      perm.push_back(llvm::find(t.labels, l) - t.labels.begin());
    if (llvm::equal(perm, llvm::seq<int64_t>(0, perm.size())))
      return success();
    FailureOr<Value> v = mk(TransposeOp::getOperationName(), {t.v},
                            {attr("perm", builder.getDenseI64ArrayAttr(perm))});
    if (failed(v))
      return failure();
    t.v = *v;
    t.labels.assign(order.begin(), order.end());
    return success();
  };
  auto reshape = [&](Value v, ArrayRef<int64_t> shape) {
    return mk(ReshapeOp::getOperationName(), {v, constI64(loc, shape)});
  };
  auto dims = [](Value v) { return cast<RankedTensorType>(v.getType()).getShape(); };
  // Diagonals (a label twice in a term) as a strided Slice of the two dims
  // flattened; then labels nothing else needs summed away.
  auto reduceAlone = [&](Term &t, const llvm::SmallDenseSet<int64_t> &needed) -> LogicalResult {
    for (;;) {
      int64_t p = -1, q = -1;
      for (size_t i = 0; i < t.labels.size() && p < 0; ++i)
        for (size_t j = i + 1; j < t.labels.size(); ++j)
          if (t.labels[i] == t.labels[j]) {
            p = i;
            q = j;
            break;
          }
      if (p < 0)
        break;
      int64_t l = t.labels[p];
      int64_t size = dims(t.v)[p];
      if (dims(t.v)[q] != size)
        return n.error() << "Einsum diagonal of dims of sizes " << size << " and "
                         << dims(t.v)[q];
      SmallVector<int64_t> order;
      for (size_t i = 0; i < t.labels.size(); ++i)
        if ((int64_t)i != p && (int64_t)i != q)
          order.push_back(i);
      order.append({p, q});
      SmallVector<int64_t> rest, restLabels;
      for (int64_t i : ArrayRef(order).drop_back(2)) {
        rest.push_back(dims(t.v)[i]);
        restLabels.push_back(t.labels[i]);
      }
      FailureOr<Value> v = llvm::equal(order, llvm::seq<int64_t>(0, order.size()))
                               ? FailureOr<Value>(t.v)
                               : mk(TransposeOp::getOperationName(), {t.v},
                                    {attr("perm", builder.getDenseI64ArrayAttr(order))});
      SmallVector<int64_t> flat(rest);
      flat.push_back(size * size);
      if (succeeded(v))
        v = reshape(*v, flat);
      if (succeeded(v)) {
        Value axis = constI64(loc, {static_cast<int64_t>(rest.size())});
        SmallVector<Value> sliceOperands{*v, constI64(loc, {0}), constI64(loc, {size * size}),
                                         axis, constI64(loc, {size + 1})};
        v = mk(SliceOp::getOperationName(), sliceOperands, {segments(sliceOperands)});
      }
      if (failed(v))
        return failure();
      t.v = *v;
      t.labels = restLabels;
      t.labels.push_back(l);
    }
    SmallVector<int64_t> axes;
    SmallVector<int64_t> kept;
    for (auto [i, l] : llvm::enumerate(t.labels)) {
      if (needed.contains(l))
        kept.push_back(l);
      else
        axes.push_back(i);
    }
    if (axes.empty())
      return success();
    FailureOr<Value> v = mk(ReduceSumOp::getOperationName(), {t.v, constI64(loc, axes)},
                            {attr("keepdims", builder.getI64IntegerAttr(0)),
                             attr("noop_with_empty_axes", builder.getI64IntegerAttr(0))});
    if (failed(v))
      return failure();
    t.v = *v;
    t.labels = kept;
    return success();
  };
  auto neededAfter = [&](size_t i, ArrayRef<int64_t> extra) {
    llvm::SmallDenseSet<int64_t> needed(outLabels.begin(), outLabels.end());
    needed.insert(extra.begin(), extra.end());
    for (size_t j = i + 1; j < operands.size(); ++j)
      needed.insert(operands[j].labels.begin(), operands[j].labels.end());
    return needed;
  };

  Term acc = operands[0];
  if (failed(reduceAlone(acc, neededAfter(0, {}))))
    return failure();
  for (size_t i = 1; i < operands.size(); ++i) {
    Term b = operands[i];
    if (failed(reduceAlone(b, neededAfter(i, acc.labels))))
      return failure();
    llvm::SmallDenseSet<int64_t> later = neededAfter(i, {});
    SmallVector<int64_t> batch, aOnly, bOnly, contracted;
    for (int64_t l : acc.labels) {
      if (!llvm::is_contained(b.labels, l))
        aOnly.push_back(l);
      else if (later.contains(l))
        batch.push_back(l);
      else
        contracted.push_back(l);
    }
    for (int64_t l : b.labels)
      if (!llvm::is_contained(acc.labels, l))
        bOnly.push_back(l);
    auto sizeIn = [&](const Term &t, int64_t l) {
      return dims(t.v)[llvm::find(t.labels, l) - t.labels.begin()];
    };
    for (int64_t l : contracted)
      if (sizeIn(acc, l) != sizeIn(b, l))
        return n.error() << "Einsum sums over a broadcast ellipsis dim (sizes "
                         << sizeIn(acc, l) << " and " << sizeIn(b, l) << ")";
    SmallVector<int64_t> aOrder(batch), bOrder(batch);
    aOrder.append(aOnly);
    aOrder.append(contracted);
    bOrder.append(contracted);
    bOrder.append(bOnly);
    if (failed(transpose(acc, aOrder)) || failed(transpose(b, bOrder)))
      return failure();
    auto product = [&](const Term &t, ArrayRef<int64_t> labels) {
      int64_t p = 1;
      for (int64_t l : labels)
        p *= sizeIn(t, l);
      return p;
    };
    SmallVector<int64_t> aShape, bShape, outShape;
    for (int64_t l : batch) {
      aShape.push_back(sizeIn(acc, l));
      bShape.push_back(sizeIn(b, l));
      outShape.push_back(std::max(sizeIn(acc, l), sizeIn(b, l)));
    }
    aShape.append({product(acc, aOnly), product(acc, contracted)});
    bShape.append({product(b, contracted), product(b, bOnly)});
    for (int64_t l : aOnly)
      outShape.push_back(sizeIn(acc, l));
    for (int64_t l : bOnly)
      outShape.push_back(sizeIn(b, l));
    FailureOr<Value> a = reshape(acc.v, aShape), bv = reshape(b.v, bShape);
    FailureOr<Value> m = succeeded(a) && succeeded(bv)
                             ? mk(MatMulOp::getOperationName(), {*a, *bv})
                             : FailureOr<Value>(failure());
    if (succeeded(m))
      m = reshape(*m, outShape);
    if (failed(m))
      return failure();
    acc.v = *m;
    acc.labels = batch;
    acc.labels.append(aOnly);
    acc.labels.append(bOnly);
  }
  if (failed(reduceAlone(acc, neededAfter(operands.size(), {}))))
    return failure();
  if (acc.labels.size() != outLabels.size())
    return n.error() << "Einsum equation '" << *attrEq << "' does not give its output";
  if (failed(transpose(acc, outLabels)))
    return failure();
  outputs.push_back(acc.v);
  return success();
}
