//===- OnnxRecurrentNodes.cpp - LSTM, GRU and RNN, unrolled ---------------===//
//
// The recurrent layers of CRNN-style and speech models, unrolled over their
// (static) sequence at import: the input projection of every step at once
// (one MatMul of [T x batch, input] by the weights: a linear op on the GEMM
// kernel once W is constant), then per step the recurrent MatMul of the
// state (a linear op of `batch` rows), the gate activations and the state
// update as ONNX defines them. sequence_lens (lengths per batch item) mask
// the steps past an item's length (its state kept, its outputs 0); the
// reverse direction then reads each item's first `length` steps backwards
// through a GatherElements, and writes its outputs back the same way.
//
//===----------------------------------------------------------------------===//

#include "ImporterImpl.h"

#include "nunc/Dialect/Nunc/NuncUtils.h"

#include "llvm/ADT/StringExtras.h"

#include <cmath>

using namespace mlir;
using namespace mlir::nunc;
using namespace mlir::nunc::import_detail;

LogicalResult Importer::convertRecurrent(NodeContext &n, SmallVectorImpl<Value> &outputs) {
  llvm::StringRef op = n.node.op_type();
  Location loc = n.loc;
  const bool lstm = op == "LSTM", gru = op == "GRU";
  const int64_t gates = lstm ? 4 : gru ? 3 : 1;
  auto in = [&](unsigned i) { return n.input(i); };
  const unsigned maxInputs = lstm ? 8 : 6;
  if (n.inputs.size() > maxInputs || !in(0) || !in(1) || !in(2))
    return n.error() << op << " needs X, W and R, and takes at most " << maxInputs << " inputs";
  FailureOr<std::string> direction = n.getString("direction", "forward");
  FailureOr<int64_t> layout = n.getInt("layout", 0);
  FailureOr<int64_t> hiddenAttr = n.getInt("hidden_size", 0);
  FailureOr<int64_t> inputForget = lstm ? n.getInt("input_forget", 0) : FailureOr<int64_t>(0);
  FailureOr<int64_t> linearBeforeReset =
      gru ? n.getInt("linear_before_reset", 0) : FailureOr<int64_t>(0);
  FailureOr<SmallVector<float>> alphas = n.getFloats("activation_alpha"),
                                betas = n.getFloats("activation_beta");
  const onnx::AttributeProto *clipAttr = n.find("clip");
  const onnx::AttributeProto *actAttr = n.find("activations");
  if (failed(direction) || failed(layout) || failed(hiddenAttr) || failed(inputForget) ||
      failed(linearBeforeReset) || failed(alphas) || failed(betas))
    return failure();
  if (*direction != "forward" && *direction != "reverse" && *direction != "bidirectional")
    return n.error() << op << " direction must be forward, reverse or bidirectional, got '"
                     << *direction << "'";
  std::optional<float> clip;
  if (clipAttr) {
    if (clipAttr->type() != onnx::AttributeProto::FLOAT)
      return n.wrongType(*clipAttr, "a float");
    clip = clipAttr->f();
  }
  const int64_t dirs = *direction == "bidirectional" ? 2 : 1;

  auto xType = dyn_cast<RankedTensorType>(in(0).getType());
  auto rType = dyn_cast<RankedTensorType>(in(2).getType());
  if (!xType || !xType.hasStaticShape() || xType.getRank() != 3 || !rType ||
      !rType.hasStaticShape() || rType.getRank() != 3)
    return n.error() << op << " needs X of static shape [seq, batch, input] (or [batch, seq, "
                            "input] with layout 1; pin its dims with --shape) and R of rank 3";
  Type el = xType.getElementType();
  if (!isa<FloatType>(el))
    return n.error() << op << " needs floating-point data";
  const int64_t T = xType.getDimSize(*layout ? 1 : 0), batch = xType.getDimSize(*layout ? 0 : 1),
                inputSize = xType.getDimSize(2);
  const int64_t H = *hiddenAttr ? *hiddenAttr : rType.getDimSize(2);
  if (rType.getDimSize(0) != dirs || rType.getDimSize(1) != gates * H || rType.getDimSize(2) != H)
    return n.error() << op << " needs R of shape [" << dirs << ", " << gates * H << ", " << H
                     << "]";

  // Activations: f, g (and h for LSTM) per direction, with their alpha /
  // beta taken in order by the ones that have them.
  const size_t perDir = lstm ? 3 : gru ? 2 : 1;
  SmallVector<std::string> acts;
  if (actAttr) {
    if (actAttr->type() != onnx::AttributeProto::STRINGS)
      return n.wrongType(*actAttr, "a list of strings");
    for (const std::string &a : actAttr->strings())
      acts.push_back(a);
    if (acts.size() == perDir && dirs == 2)
      acts.append(SmallVector<std::string>(acts));
    if (acts.size() != perDir * dirs)
      return n.error() << op << " needs " << perDir * dirs << " activations, got "
                       << actAttr->strings_size();
  } else {
    SmallVector<std::string> dflt =
        lstm ? SmallVector<std::string>{"Sigmoid", "Tanh", "Tanh"}
        : gru ? SmallVector<std::string>{"Sigmoid", "Tanh"}
              : SmallVector<std::string>{"Tanh"};
    for (int64_t d = 0; d < dirs; ++d)
      acts.append(dflt);
  }
  struct Activation {
    std::string name;
    float alpha = 0, beta = 0;
  };
  SmallVector<Activation> activations;
  size_t nextAlpha = 0, nextBeta = 0;
  for (const std::string &a : acts) {
    std::string name = llvm::StringRef(a).lower();
    Activation act{name};
    auto take = [](const SmallVector<float> &from, size_t &next, float dflt) {
      return next < from.size() ? from[next++] : dflt;
    };
    if (name == "leakyrelu")
      act.alpha = take(*alphas, nextAlpha, 0.01f);
    else if (name == "thresholdedrelu" || name == "elu")
      act.alpha = take(*alphas, nextAlpha, 1.f);
    else if (name == "hardsigmoid") {
      act.alpha = take(*alphas, nextAlpha, 0.2f);
      act.beta = take(*betas, nextBeta, 0.5f);
    } else if (name == "scaledtanh" || name == "affine") {
      act.alpha = take(*alphas, nextAlpha, 1.f);
      act.beta = take(*betas, nextBeta, name == "affine" ? 0.f : 1.f);
    } else if (!llvm::is_contained({"sigmoid", "tanh", "relu", "softsign", "softplus"},
                                   llvm::StringRef(name))) {
      return n.error() << op << " activation '" << a << "' is not supported";
    }
    activations.push_back(act);
  }

  auto mk = [&](StringRef name, ValueRange operands,
                ArrayRef<NamedAttribute> attrs = {}) -> FailureOr<Value> {
    return firstResult(create(n, name, operands, attrs, 1));
  };
  // Builds ops until one fails; `ok` then stays false and values are null.
  bool ok = true;
  auto v = [&](FailureOr<Value> r) -> Value {
    if (failed(r)) {
      ok = false;
      return Value();
    }
    return *r;
  };
  auto c = [&](double x) { return constScalar(loc, el, x); };
  auto add = [&](Value a, Value b) { return ok ? v(mk(AddOp::getOperationName(), {a, b})) : a; };
  auto sub = [&](Value a, Value b) { return ok ? v(mk(SubOp::getOperationName(), {a, b})) : a; };
  auto mul = [&](Value a, Value b) { return ok ? v(mk(MulOp::getOperationName(), {a, b})) : a; };
  auto matmul = [&](Value a, Value b) {
    return ok ? v(mk(MatMulOp::getOperationName(), {a, b})) : a;
  };
  auto unary = [&](StringRef name, Value a) { return ok ? v(mk(name, {a})) : a; };
  auto reshape = [&](Value a, ArrayRef<int64_t> shape) {
    return ok ? v(mk(ReshapeOp::getOperationName(), {a, constI64(loc, shape)})) : a;
  };
  auto transpose = [&](Value a, ArrayRef<int64_t> perm) {
    return ok ? v(mk(TransposeOp::getOperationName(), {a},
                     {attr("perm", builder.getDenseI64ArrayAttr(perm))}))
              : a;
  };
  auto pick = [&](Value a, int64_t index) { // a[index] along axis 0
    return ok ? v(mk(GatherOp::getOperationName(), {a, constI64(loc, {index}, true)},
                     {attr("axis", builder.getI64IntegerAttr(0))}))
              : a;
  };
  auto columns = [&](Value a, int64_t from, int64_t to) { // a[..., from:to]
    SmallVector<Value> operands{a, constI64(loc, {from}), constI64(loc, {to}),
                                constI64(loc, {-1}), Value()};
    return ok ? v(mk(SliceOp::getOperationName(), present(operands), {segments(operands)}))
              : a;
  };
  auto concat = [&](ValueRange parts, int64_t axis) {
    return ok ? v(mk(ConcatOp::getOperationName(), parts,
                     {attr("axis", builder.getI64IntegerAttr(axis))}))
              : Value();
  };
  auto unsqueeze = [&](Value a, int64_t axis) {
    return ok ? v(mk(UnsqueezeOp::getOperationName(), {a, constI64(loc, {axis})})) : a;
  };
  auto where = [&](Value cond, Value a, Value b) {
    return ok ? v(mk(WhereOp::getOperationName(), {cond, a, b})) : a;
  };
  // `clip` bounds the gates' inputs; the LSTM's cell state goes into h()
  // unclipped, as onnxruntime computes it (`clipped` false there).
  auto activate = [&](const Activation &act, Value x, bool clipped = true) -> Value {
    if (!ok)
      return x;
    if (clip && clipped)
      x = v(mk(ClipOp::getOperationName(), {x, c(-*clip), c(*clip)},
               {attr("operandSegmentSizes", builder.getDenseI32ArrayAttr({1, 1, 1}))}));
    const std::string &a = act.name;
    if (a == "sigmoid")
      return unary(SigmoidOp::getOperationName(), x);
    if (a == "tanh")
      return unary(TanhOp::getOperationName(), x);
    if (a == "relu")
      return unary(ReluOp::getOperationName(), x);
    if (a == "softplus")
      return unary(SoftplusOp::getOperationName(), x);
    if (a == "softsign") {
      Value magnitude = unary(AbsOp::getOperationName(), x);
      return ok ? v(mk(DivOp::getOperationName(), {x, add(c(1), magnitude)})) : x;
    }
    if (a == "leakyrelu")
      return ok ? v(mk(LeakyReluOp::getOperationName(), {x},
                       {attr("alpha", builder.getF32FloatAttr(act.alpha))}))
                : x;
    if (a == "hardsigmoid") {
      FailureOr<Value> y = hardSigmoid(n, x, act.alpha, act.beta);
      return v(y);
    }
    if (a == "scaledtanh") {
      Value inner = unary(TanhOp::getOperationName(), mul(c(act.beta), x));
      return mul(c(act.alpha), inner);
    }
    if (a == "affine") {
      Value scaled = mul(c(act.alpha), x);
      return add(scaled, c(act.beta));
    }
    Value zero = c(0);
    if (a == "thresholdedrelu")
      return where(v(mk(GreaterOp::getOperationName(), {x, c(act.alpha)})), x, zero);
    // elu: x > 0 ? x : alpha (e^x - 1)
    Value e = mul(c(act.alpha), sub(unary(ExpOp::getOperationName(), x), c(1)));
    return where(v(mk(GreaterOp::getOperationName(), {x, zero})), x, e);
  };

  // X as [T, batch, input]; its projection needs the rows [T x batch, input].
  Value x = *layout ? transpose(in(0), {1, 0, 2}) : in(0);
  Value lens = in(4);
  if (lens) {
    // Lengths that are all T change nothing.
    std::optional<SmallVector<int64_t>> given = getConstantInts(lens);
    if (given && llvm::all_of(*given, [&](int64_t l) { return l == T; }))
      lens = Value();
  }
  if (lens && cast<ShapedType>(lens.getType()).getElementType() != builder.getI64Type())
    lens = v(mk(CastOp::getOperationName(), {lens},
                {attr("to", TypeAttr::get(builder.getI64Type())),
                 attr("saturate", builder.getI64IntegerAttr(1))}));
  // The [T, batch, 1] indices that read each item's first `length` steps
  // backwards (steps past it stay): (t < len) ? len - 1 - t : t.
  Value reverseIndex;
  if (lens && *direction != "forward") {
    SmallVector<int64_t> steps(T);
    for (int64_t t = 0; t < T; ++t)
      steps[t] = t;
    auto stepType = RankedTensorType::get({T, 1}, builder.getI64Type());
    Value t = ConstantOp::create(builder, loc, stepType,
                                 DenseElementsAttr::get(stepType, ArrayRef(steps)));
    Value inside = v(mk(GreaterOp::getOperationName(), {lens, t})); // [T, batch]
    Value back = sub(sub(lens, constI64(loc, {1}, true)), t);
    reverseIndex = unsqueeze(where(inside, back, t), 2);
  }
  auto reverseSteps = [&](Value a, int64_t width) { // a: [T, batch, width]
    Value index = v(mk(ExpandOp::getOperationName(),
                       {reverseIndex, constI64(loc, {T, batch, width})}));
    return ok ? v(mk(GatherElementsOp::getOperationName(), {a, index},
                     {attr("axis", builder.getI64IntegerAttr(0))}))
              : a;
  };

  SmallVector<Value> ys, finalH, finalC;
  auto zerosType = RankedTensorType::get({batch, H}, el);
  Value zeros = ConstantOp::create(builder, loc, zerosType,
                                   DenseElementsAttr::get(zerosType, builder.getFloatAttr(el, 0)));
  for (int64_t d = 0; d < dirs && ok; ++d) {
    bool reverse = *direction == "reverse" || d == 1;
    ArrayRef<Activation> act = ArrayRef(activations).slice(d * perDir, perDir);
    Value xd = reverse && reverseIndex ? reverseSteps(x, inputSize) : x;
    // The input projection of all steps, with the biases that add there.
    Value w = transpose(pick(in(1), d), {1, 0});     // [input, G H]
    Value r = transpose(pick(in(2), d), {1, 0});     // [H, G H]
    Value proj = matmul(reshape(xd, {T * batch, inputSize}), w);
    Value recurrentBias; // GRU with linear_before_reset: Rb of the h gate
    if (Value bias = in(3)) {
      Value b = pick(bias, d);
      Value wb = columns(b, 0, gates * H), rb = columns(b, gates * H, 2 * gates * H);
      if (gru && *linearBeforeReset) {
        // Rb of the h gate goes inside r (.) (H Rh^T + Rbh): only Rbz, Rbr
        // join the projection.
        recurrentBias = columns(rb, 2 * H, 3 * H);
        auto noneType = RankedTensorType::get({H}, el);
        Value none = ConstantOp::create(builder, loc, noneType,
                                        DenseElementsAttr::get(noneType,
                                                               builder.getFloatAttr(el, 0)));
        rb = concat({columns(rb, 0, 2 * H), none}, 0);
      }
      proj = add(proj, add(wb, rb));
    }
    proj = reshape(proj, {T, batch, gates * H});
    // (Batch-major states, layout 1, are [batch, directions, H].)
    auto state = [&](Value s) { return pick(*layout ? transpose(s, {1, 0, 2}) : s, d); };
    Value h = in(5) ? state(in(5)) : zeros;
    Value cell = lstm && in(6) ? state(in(6)) : zeros;
    Value pi, po, pf;
    if (lstm && in(7)) {
      Value p = pick(in(7), d);
      pi = columns(p, 0, H);
      po = columns(p, H, 2 * H);
      pf = columns(p, 2 * H, 3 * H);
    }
    Value rGates = r, rh; // GRU: [Rz Rr] and Rh
    if (gru) {
      rGates = columns(r, 0, 2 * H);
      rh = columns(r, 2 * H, 3 * H);
    }
    SmallVector<Value> stepOutputs(T);
    for (int64_t s = 0; s < T && ok; ++s) {
      // Step s of this direction reads x[t]; with lengths, the reversed
      // input is read in order.
      int64_t t = reverse && !reverseIndex ? T - 1 - s : s;
      Value xt = pick(proj, t); // [batch, G H]
      Value nextH, nextC;
      if (lstm) {
        Value g = add(xt, matmul(h, r));
        Value i = columns(g, 0, H), o = columns(g, H, 2 * H), f = columns(g, 2 * H, 3 * H),
              z = columns(g, 3 * H, 4 * H);
        if (pi) {
          i = add(i, mul(pi, cell));
          f = add(f, mul(pf, cell));
        }
        i = activate(act[0], i);
        f = *inputForget ? sub(c(1), i) : activate(act[0], f);
        // (One op per statement: the IR's order does not depend on the order
        // the C++ compiler evaluates arguments in.)
        Value kept = mul(f, cell);
        Value candidate = activate(act[1], z);
        nextC = add(kept, mul(i, candidate));
        if (po)
          o = add(o, mul(po, nextC));
        Value out = activate(act[0], o);
        nextH = mul(out, activate(act[2], nextC, /*clipped=*/false));
      } else if (gru) {
        Value zr = add(columns(xt, 0, 2 * H), matmul(h, rGates));
        Value z = activate(act[0], columns(zr, 0, H));
        Value rs = activate(act[0], columns(zr, H, 2 * H));
        Value hh = columns(xt, 2 * H, 3 * H);
        if (*linearBeforeReset) {
          Value hr = matmul(h, rh);
          if (recurrentBias)
            hr = add(hr, recurrentBias);
          hh = add(hh, mul(rs, hr));
        } else {
          hh = add(hh, matmul(mul(rs, h), rh));
        }
        Value cand = activate(act[1], hh);
        Value fresh = mul(sub(c(1), z), cand);
        nextH = add(fresh, mul(z, h));
      } else {
        nextH = activate(act[0], add(xt, matmul(h, r)));
      }
      Value y = nextH;
      if (lens && ok) {
        Value live = unsqueeze(v(mk(GreaterOp::getOperationName(),
                                    {lens, constI64(loc, {t}, true)})),
                               1); // [batch, 1]
        nextH = where(live, nextH, h);
        if (lstm)
          nextC = where(live, nextC, cell);
        y = where(live, y, c(0));
      }
      h = nextH;
      cell = nextC;
      stepOutputs[t] = unsqueeze(y, 0);
    }
    if (!ok)
      break;
    Value yd = concat(stepOutputs, 0); // [T, batch, H]
    if (reverse && reverseIndex)
      yd = reverseSteps(yd, H);
    ys.push_back(unsqueeze(yd, 1));
    finalH.push_back(unsqueeze(h, 0));
    if (lstm)
      finalC.push_back(unsqueeze(cell, 0));
  }
  if (!ok)
    return failure();
  Value y = dirs == 1 ? ys[0] : concat(ys, 1);           // [T, dirs, batch, H]
  Value yh = dirs == 1 ? finalH[0] : concat(finalH, 0);  // [dirs, batch, H]
  Value yc = lstm ? (dirs == 1 ? finalC[0] : concat(finalC, 0)) : Value();
  if (*layout) {
    y = transpose(y, {2, 0, 1, 3});
    yh = transpose(yh, {1, 0, 2});
    if (yc)
      yc = transpose(yc, {1, 0, 2});
  }
  if (!ok)
    return failure();
  outputs.append({y, yh});
  if (lstm)
    outputs.push_back(yc);
  return success();
}
