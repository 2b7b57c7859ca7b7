//===- OnnxContribNodes.cpp - onnxruntime's com.microsoft ops -------------===//
//
// onnxruntime's quantize_static in QOperator format writes QLinearConv and
// QLinearMatMul (ai.onnx) and, for everything else it quantizes, its own
// com.microsoft ops. Each is defined as dequantize -> the f32 op -> quantize,
// and is imported as exactly that: the QDQ form, which the Q/DQ fusions then
// turn into the same int8 kernels as a QDQ model's (nunc-fuse-quantize-
// dequantize and the passes after it). onnxruntime computes some of them
// with integer shortcuts (a rescaled integer sum for QLinearAdd and the
// pools, an exp table for QLinearSoftmax, C added to the int32 sums of
// QGemm); the results differ from the f32 definition by at most one unit of
// the output grid, on near-ties.
//
// Its graph optimizer fuses a transformer's ops into others of its own
// (what a model saved with `optimized_model_filepath` holds):
// DynamicQuantizeMatMul and MatMulIntegerToFloat (a quantize_dynamic
// MatMul and its bias), FusedMatMul (transposes and a scale around a
// MatMul), Gelu, FastGelu and BiasGelu, SkipLayerNormalization (the
// residual Add and LayerNorm), EmbedLayerNormalization (the embeddings'
// Gathers, Adds and LayerNorm; its transformer optimizer writes it too, and
// quantize_dynamic makes it QEmbedLayerNormalization, 8-bit tables),
// FusedConv and FusedGemm (a Conv or Gemm and its activation), Attention
// and QAttention (OnnxAttentionNodes.cpp). Each is imported as the ai.onnx
// ops it fused, which nunc's own fusions then take as they take the
// unoptimized model's.
//
//===----------------------------------------------------------------------===//

#include "ImporterImpl.h"

#include "nunc/Dialect/Nunc/NuncUtils.h"

#include <cfloat>

using namespace mlir;
using namespace mlir::nunc;
using namespace mlir::nunc::import_detail;

LogicalResult Importer::convertContrib(NodeContext &n, SmallVectorImpl<Value> &outputs) {
  llvm::StringRef op = n.node.op_type();
  if (op == "Attention" || op == "QAttention" || op == "MultiHeadAttention")
    return convertAttention(n, outputs);
  if (op == "MatMulNBits")
    return convertMatMulNBits(n, outputs);
  auto in = [&](unsigned i) { return n.input(i); };
  // At most `max` inputs, of which those at `required` are given (zero
  // points are optional: 0 of the quantized input's type).
  auto arity = [&](unsigned max, ArrayRef<unsigned> required) -> LogicalResult {
    if (n.inputs.size() > max)
      return n.error() << op << " takes at most " << max << " inputs, got " << n.inputs.size();
    for (unsigned i : required)
      if (!in(i))
        return n.error() << op << " needs input #" << i;
    return success();
  };
  auto elementOf = [](Value v) { return cast<ShapedType>(v.getType()).getElementType(); };
  // x's quantization parameters are one scale (and zero point) for the
  // whole tensor, except where `axis` is given (QGemm's B).
  auto dequantize = [&](Value x, Value scale, Value zeroPoint,
                        int64_t axis = 1) -> FailureOr<Value> {
    return firstResult(create<DequantizeLinearOp>(n, present({x, scale, zeroPoint}),
                                                  {attr("axis", builder.getI64IntegerAttr(axis))}));
  };
  // The result's element type: the zero point's, else that of `like` (the
  // quantized input, as the contrib ops' type constraints tie them).
  auto quantize = [&](FailureOr<Value> x, Value scale, Value zeroPoint,
                      Type like) -> LogicalResult {
    if (failed(x))
      return failure();
    Type element = zeroPoint ? elementOf(zeroPoint) : like;
    FailureOr<Value> q = firstResult(create<QuantizeLinearOp>(
        n, present({*x, scale, zeroPoint}),
        {attr("axis", builder.getI64IntegerAttr(1)),
         attr("output_element_type", TypeAttr::get(element))}));
    if (failed(q))
      return failure();
    outputs.push_back(*q);
    return success();
  };
  // Scales and zero points of one element (per tensor), where the op has
  // no other form: a longer one would otherwise read as per-axis.
  auto perTensor = [&](ArrayRef<unsigned> indices) -> LogicalResult {
    for (unsigned i : indices) {
      if (!in(i))
        continue;
      auto t = dyn_cast<RankedTensorType>(in(i).getType());
      if (!t || !t.hasStaticShape() || t.getNumElements() != 1)
        return n.error() << op << " input #" << i
                         << " (a scale or zero point) must have one element, got "
                         << in(i).getType();
    }
    return success();
  };
  // Every quantized operand must be 8-bit, as onnxruntime's kernels take.
  auto eightBit = [&](ArrayRef<unsigned> indices) -> LogicalResult {
    for (unsigned i : indices) {
      Type t = elementOf(in(i));
      if (!t.isUnsignedInteger(8) && !t.isSignlessInteger(8))
        return n.error() << op << " input #" << i << " must be uint8 or int8, got "
                         << onnxTypeName(t);
    }
    return success();
  };

  // (A, A_scale, A_zero_point?, B, B_scale, B_zero_point?, C_scale, C_zero_point?)
  if (op == "QLinearAdd" || op == "QLinearMul") {
    if (failed(arity(8, {0, 1, 3, 4, 6})) || failed(eightBit({0, 3})) ||
        failed(perTensor({1, 2, 4, 5, 6, 7})))
      return failure();
    FailureOr<Value> a = dequantize(in(0), in(1), in(2));
    FailureOr<Value> b = dequantize(in(3), in(4), in(5));
    if (failed(a) || failed(b))
      return failure();
    FailureOr<Value> sum = op == "QLinearAdd" ? firstResult(create<AddOp>(n, {*a, *b}))
                                              : firstResult(create<MulOp>(n, {*a, *b}));
    return quantize(sum, in(6), in(7), elementOf(in(0)));
  }

  // (X, X_scale, X_zero_point?, Y_scale, Y_zero_point?)
  if (op == "QLinearSigmoid" || op == "QLinearLeakyRelu" || op == "QLinearSoftmax" ||
      op == "QLinearGlobalAveragePool" || op == "QLinearAveragePool") {
    if (failed(arity(5, {0, 1, 3})) || failed(eightBit({0})) || failed(perTensor({1, 2, 3, 4})))
      return failure();
    FailureOr<int64_t> channelsLast =
        op.ends_with("AveragePool") ? n.getInt("channels_last", 0) : FailureOr<int64_t>(0);
    if (failed(channelsLast))
      return failure();
    if (*channelsLast)
      return n.error() << op << " with channels_last = 1 (NHWC) is not supported";
    FailureOr<SmallVector<NamedAttribute>> poolAttrs;
    FailureOr<float> alpha = op == "QLinearLeakyRelu" ? n.getFloat("alpha", 0.01f) : 0.f;
    if (failed(alpha))
      return failure();
    FailureOr<int64_t> axis = 0, version = 13;
    if (op == "QLinearAveragePool" && failed(poolAttrs = averagePoolAttributes(n)))
      return failure();
    if (op == "QLinearSoftmax") {
      // `opset` is the ai.onnx Softmax whose axis semantics this follows.
      axis = n.getInt("axis", -1);
      version = n.getInt("opset", std::nullopt);
      if (failed(axis) || failed(version))
        return failure();
    }
    FailureOr<Value> x = dequantize(in(0), in(1), in(2));
    if (failed(x))
      return failure();
    FailureOr<Value> y;
    if (op == "QLinearSigmoid")
      y = firstResult(create<SigmoidOp>(n, *x));
    else if (op == "QLinearLeakyRelu")
      y = firstResult(create<LeakyReluOp>(n, *x, {attr("alpha", builder.getF32FloatAttr(*alpha))}));
    else if (op == "QLinearSoftmax")
      y = softmax(n, *x, *axis, /*flattened=*/*version < 13);
    else if (op == "QLinearGlobalAveragePool")
      y = firstResult(create<GlobalAveragePoolOp>(n, *x));
    else
      y = firstResult(create<AveragePoolOp>(n, *x, *poolAttrs));
    return quantize(y, in(3), in(4), elementOf(in(0)));
  }

  // (Y_scale, Y_zero_point, then X, X_scale, X_zero_point per input)
  if (op == "QLinearConcat") {
    FailureOr<int64_t> axis = n.getInt("axis", std::nullopt);
    if (failed(axis))
      return failure();
    if (n.inputs.size() < 5 || (n.inputs.size() - 2) % 3 != 0)
      return n.error() << "QLinearConcat takes Y_scale, Y_zero_point and a (tensor, scale, "
                          "zero point) triple per input, got "
                       << n.inputs.size() << " inputs";
    SmallVector<Value> parts;
    for (unsigned i = 2; i < n.inputs.size(); i += 3) {
      if (failed(arity(n.inputs.size(), {0, i, i + 1})) || failed(eightBit({i})) ||
          failed(perTensor({0, 1, i + 1, i + 2})))
        return failure();
      FailureOr<Value> x = dequantize(in(i), in(i + 1), in(i + 2));
      if (failed(x))
        return failure();
      parts.push_back(*x);
    }
    return quantize(firstResult(create<ConcatOp>(n, parts,
                                                 {attr("axis", builder.getI64IntegerAttr(*axis))})),
                    in(0), in(1), elementOf(in(2)));
  }

  // (A, a_scale, a_zero_point, B, b_scale, b_zero_point, C?, y_scale?,
  // y_zero_point?): alpha a_scale b_scale ((A - za)(B - zb) + C), C an
  // int32 of scale alpha a_scale b_scale; quantized to y's grid when y_scale
  // is given, else f32.
  if (op == "QGemm") {
    FailureOr<float> alpha = n.getFloat("alpha", 1.f);
    FailureOr<int64_t> ta = n.getInt("transA", 0), tb = n.getInt("transB", 0);
    if (failed(arity(9, {0, 1, 3, 4})) || failed(alpha) || failed(ta) || failed(tb) ||
        failed(eightBit({0, 3})) || failed(perTensor({1, 2, 7, 8})))
      return failure();
    if (in(8) && !in(7))
      return n.error() << "QGemm has y_zero_point but no y_scale";
    // b_scale and b_zero_point are one per column of B: B's axis 1, or 0
    // when B is transposed.
    FailureOr<Value> a = dequantize(in(0), in(1), in(2));
    FailureOr<Value> b = dequantize(in(3), in(4), in(5), *tb ? 0 : 1);
    if (failed(a) || failed(b))
      return failure();
    Value bias;
    if (in(6)) {
      if (!elementOf(in(6)).isSignlessInteger(32))
        return n.error() << "QGemm's C must be int32, got " << onnxTypeName(elementOf(in(6)));
      Type f32 = builder.getF32Type();
      FailureOr<Value> c = firstResult(create<CastOp>(
          n, in(6),
          {attr("to", TypeAttr::get(f32)), attr("saturate", builder.getI64IntegerAttr(1))}));
      FailureOr<Value> scale = firstResult(create<MulOp>(n, {in(1), in(4)}));
      if (failed(c) || failed(scale))
        return failure();
      if (*alpha != 1.f && failed(scale = firstResult(create<MulOp>(
                                           n, {*scale, constScalar(n.loc, f32, *alpha)}))))
        return failure();
      FailureOr<Value> scaled = firstResult(create<MulOp>(n, {*c, *scale}));
      if (failed(scaled))
        return failure();
      bias = *scaled;
    }
    FailureOr<Value> y = firstResult(create<GemmOp>(
        n, present({*a, *b, bias}),
        {attr("alpha", builder.getF32FloatAttr(*alpha)), attr("beta", builder.getF32FloatAttr(1.f)),
         attr("transA", builder.getI64IntegerAttr(*ta)),
         attr("transB", builder.getI64IntegerAttr(*tb))}));
    if (failed(y))
      return failure();
    if (!in(7)) {
      outputs.push_back(*y);
      return success();
    }
    return quantize(y, in(7), in(8), IntegerType::get(ctx, 8, IntegerType::Unsigned));
  }

  // The graph optimizer's fusions.
  auto add = [&](FailureOr<Value> a, Value b) -> FailureOr<Value> {
    if (failed(a) || !b)
      return a;
    return firstResult(create<AddOp>(n, {*a, b}));
  };
  auto push = [&](FailureOr<Value> y) -> LogicalResult {
    if (failed(y))
      return failure();
    outputs.push_back(*y);
    return success();
  };
  // Cast<f32>(MatMulInteger(a, b, za, zb)) * (a_scale * b_scale) + bias: a
  // quantize_dynamic MatMul as nunc-fuse-linear matches it.
  auto integerMatMul = [&](Value a, Value b, Value aZero, Value bZero, Value aScale,
                           Value bScale, Value bias) -> LogicalResult {
    SmallVector<Value> operands{a, b, aZero, bZero};
    FailureOr<Value> acc =
        firstResult(create<MatMulIntegerOp>(n, present(operands), {segments(operands)}));
    if (failed(acc))
      return failure();
    FailureOr<Value> f = firstResult(create<CastOp>(
        n, *acc,
        {attr("to", TypeAttr::get(builder.getF32Type())),
         attr("saturate", builder.getI64IntegerAttr(1))}));
    FailureOr<Value> scale = firstResult(create<MulOp>(n, {aScale, bScale}));
    if (failed(f) || failed(scale))
      return failure();
    return push(add(firstResult(create<MulOp>(n, {*f, *scale})), bias));
  };

  // (A f32, B, b_scale, b_zero_point?, bias?): A quantized per tensor at run
  // time as DynamicQuantizeLinear does.
  if (op == "DynamicQuantizeMatMul") {
    if (failed(arity(5, {0, 1, 2})) || failed(eightBit({1})))
      return failure();
    FailureOr<Operation *> q = create<DynamicQuantizeLinearOp>(n, in(0), {}, 3);
    if (failed(q))
      return failure();
    return integerMatMul((*q)->getResult(0), in(1), (*q)->getResult(2), in(3),
                         (*q)->getResult(1), in(2), in(4));
  }

  // (A, B, a_scale, b_scale, a_zero_point?, b_zero_point?, bias?)
  if (op == "MatMulIntegerToFloat") {
    if (failed(arity(7, {0, 1, 2, 3})) || failed(eightBit({0, 1})))
      return failure();
    return integerMatMul(in(0), in(1), in(4), in(5), in(2), in(3), in(6));
  }

  // alpha op(A) op(B), op a transpose of the last two dims where asked.
  if (op == "FusedMatMul") {
    FailureOr<float> alpha = n.getFloat("alpha", 1.f);
    FailureOr<int64_t> ta = n.getInt("transA", 0), tb = n.getInt("transB", 0);
    FailureOr<int64_t> tba = n.getInt("transBatchA", 0), tbb = n.getInt("transBatchB", 0);
    if (failed(arity(2, {0, 1})) || failed(alpha) || failed(ta) || failed(tb) || failed(tba) ||
        failed(tbb))
      return failure();
    if (*tba || *tbb)
      return n.error() << "FusedMatMul with transBatchA or transBatchB is not supported";
    auto transposed = [&](Value x, bool t) -> FailureOr<Value> {
      if (!t)
        return x;
      auto type = dyn_cast<RankedTensorType>(x.getType());
      if (!type || type.getRank() < 2)
        return n.error() << "FusedMatMul transposes a ranked operand of at least 2 dims, got "
                         << x.getType();
      SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()));
      std::swap(perm[perm.size() - 1], perm[perm.size() - 2]);
      return firstResult(
          create<TransposeOp>(n, x, {attr("perm", builder.getDenseI64ArrayAttr(perm))}));
    };
    FailureOr<Value> a = transposed(in(0), *ta), b = transposed(in(1), *tb);
    if (failed(a) || failed(b))
      return failure();
    FailureOr<Value> y = firstResult(create<MatMulOp>(n, {*a, *b}));
    if (failed(y) || *alpha == 1.f)
      return push(y);
    return push(firstResult(create<MulOp>(n, {*y, constScalar(n.loc, elementOf(*y), *alpha)})));
  }

  // Gelu(X), BiasGelu(A, B) = Gelu(A + B) with erf; FastGelu(X, bias?) with
  // the tanh approximation.
  if (op == "Gelu" || op == "BiasGelu" || op == "FastGelu") {
    bool bias = op != "Gelu";
    if (failed(arity(bias ? 2 : 1, op == "BiasGelu" ? ArrayRef<unsigned>{0, 1}
                                                     : ArrayRef<unsigned>{0})))
      return failure();
    FailureOr<Value> x = add(FailureOr<Value>(in(0)), bias ? in(1) : Value());
    if (failed(x))
      return failure();
    return push(firstResult(create<GeluOp>(
        n, *x,
        {attr("approximate", builder.getStringAttr(op == "FastGelu" ? "tanh" : "none"))})));
  }

  // LayerNormalization over the last axis (results: y, mean, inverse
  // standard deviation).
  auto layerNorm = [&](Value x, Value gamma, Value beta, float eps) {
    return create<LayerNormOp>(n, present({x, gamma, beta}),
                               {attr("axis", builder.getI64IntegerAttr(-1)),
                                attr("epsilon", builder.getF32FloatAttr(eps)),
                                attr("stash_type", builder.getI64IntegerAttr(1))},
                               3);
  };

  // (input, skip, gamma, beta?, bias?) -> (LayerNorm(input + skip + bias),
  // mean, inv_std_var, input + skip + bias): LayerNormalization's mean and
  // inverse standard deviation ([..., 1]) are the same.
  // (input, skip, gamma, bias?) -> (RMSNorm(input + bias + skip) * gamma,
  // mean (RMSNorm has none: refused), 1 / sqrt(mean(sum^2) + eps), the sum).
  if (op == "SkipSimplifiedLayerNormalization") {
    FailureOr<float> eps = n.getFloat("epsilon", 1e-12f);
    if (failed(arity(4, {0, 1, 2})) || failed(eps))
      return failure();
    if (n.node.output_size() > 1 && !n.node.output(1).empty())
      return n.error() << "SkipSimplifiedLayerNormalization's output #1 (mean) has no value "
                          "in an RMS normalization; nunc does not produce it";
    FailureOr<Value> biased = add(FailureOr<Value>(in(0)), in(3));
    FailureOr<Value> sum =
        failed(biased) ? biased : firstResult(create<AddOp>(n, {*biased, in(1)}));
    if (failed(sum))
      return failure();
    FailureOr<std::pair<Value, Value>> y = rmsNorm(n, *sum, in(2), -1, *eps);
    if (failed(y))
      return failure();
    outputs.append({y->first, Value(), y->second, *sum});
    return success();
  }

  // x * sigmoid(alpha x) (CLIP's GELU approximation; alpha 1 is SiLU).
  if (op == "QuickGelu") {
    FailureOr<float> alpha = n.getFloat("alpha", 1.702f);
    if (failed(arity(1, {0})) || failed(alpha))
      return failure();
    Type element = elementOf(in(0));
    FailureOr<Value> scaled =
        firstResult(create<MulOp>(n, {in(0), constScalar(n.loc, element, *alpha)}));
    FailureOr<Value> gate =
        failed(scaled) ? scaled : firstResult(create<SigmoidOp>(n, {*scaled}));
    if (failed(gate))
      return failure();
    return push(firstResult(create<MulOp>(n, {in(0), *gate})));
  }

  if (op == "SkipLayerNormalization") {
    FailureOr<float> eps = n.getFloat("epsilon", 1e-12f);
    if (failed(arity(5, {0, 1, 2})) || failed(eps))
      return failure();
    // The bias first: a GEMM's result then takes it as its bias and the
    // skip as its residual (nunc-fuse-linear), in its epilogue.
    FailureOr<Value> biased = add(FailureOr<Value>(in(0)), in(4));
    if (failed(biased))
      return failure();
    FailureOr<Value> sum = firstResult(create<AddOp>(n, {*biased, in(1)}));
    if (failed(sum))
      return failure();
    FailureOr<Operation *> norm = layerNorm(*sum, in(2), in(3), *eps);
    if (failed(norm))
      return failure();
    outputs.append({(*norm)->getResult(0), (*norm)->getResult(1), (*norm)->getResult(2), *sum});
    return success();
  }

  // (input_ids, segment_ids?, word_embedding, position_embedding,
  // segment_embedding?, gamma, beta, mask?, position_ids?) -> (LayerNorm(
  // word[input_ids] + position[position_ids, or 0 .. S-1] +
  // segment[segment_ids]), mask_index: each row's count of mask entries
  // equal to 1 (0 without a mask), the sum before the LayerNorm).
  // QEmbedLayerNormalization: the same with 8-bit tables, gamma and beta
  // (inputs 2-6), their scales (8-12) and zero points (13-17), no
  // position_ids and no sum output.
  if (op == "EmbedLayerNormalization" || op == "QEmbedLayerNormalization") {
    bool quantized = op == "QEmbedLayerNormalization";
    FailureOr<float> eps = n.getFloat("epsilon", 1e-12f);
    FailureOr<int64_t> maskIndexType =
        quantized ? FailureOr<int64_t>(1) : n.getInt("mask_index_type", 1);
    if (failed(quantized ? arity(18, {0, 2, 3, 5, 6, 8, 9, 11, 12, 13, 14, 16, 17})
                         : arity(9, {0, 2, 3, 5, 6})) ||
        failed(eps) || failed(maskIndexType))
      return failure();
    if (*maskIndexType != 1)
      return n.error() << "EmbedLayerNormalization with mask_index_type " << *maskIndexType
                       << " is not supported (only 1, the mask's count of ones per row)";
    if (in(1).operator bool() != in(4).operator bool() ||
        (quantized && (in(4).operator bool() != in(10).operator bool() ||
                       in(4).operator bool() != in(15).operator bool())))
      return n.error() << op << " needs segment_ids and segment_embedding"
                       << (quantized ? " (with its scale and zero point)" : "")
                       << ", or none of them";
    // The f32 tables, gamma and beta (inputs 2-6).
    SmallVector<Value> tables;
    for (unsigned i = 2; i <= 6; ++i) {
      if (!in(i) || !quantized) {
        tables.push_back(in(i));
        continue;
      }
      if (failed(eightBit({i})) || failed(perTensor({i + 6, i + 11})))
        return failure();
      FailureOr<Value> table = dequantize(in(i), in(i + 6), in(i + 11));
      if (failed(table))
        return failure();
      tables.push_back(*table);
    }
    Value word = tables[0], position = tables[1], segment = tables[2], gamma = tables[3],
          beta = tables[4], positionIds = quantized ? Value() : in(8);
    // The ids and the mask are [batch, sequence] integers; without position
    // ids the positions are the table's first rows, one per token.
    for (unsigned i : {0u, 1u, 7u, 8u}) {
      if (!in(i) || (quantized && i == 8))
        continue;
      auto type = dyn_cast<RankedTensorType>(in(i).getType());
      if (!type || type.getRank() != 2 || !isa<IntegerType>(type.getElementType()))
        return n.error() << op << " input #" << i
                         << " (ids or mask) must be 2-D [batch, sequence] integers, got "
                         << in(i).getType();
    }
    auto idsType = cast<RankedTensorType>(in(0).getType());
    auto positionType = dyn_cast<RankedTensorType>(position.getType());
    if (!positionIds && positionType && positionType.getRank() == 2 &&
        !idsType.isDynamicDim(1) && !positionType.isDynamicDim(0) &&
        positionType.getDimSize(0) < idsType.getDimSize(1))
      return n.error() << op << "'s position_embedding has " << positionType.getDimSize(0)
                       << " rows for a sequence of " << idsType.getDimSize(1);
    auto gather = [&](Value table, Value ids) -> FailureOr<Value> {
      return firstResult(
          create<GatherOp>(n, {table, ids}, {attr("axis", builder.getI64IntegerAttr(0))}));
    };
    // Dims [from, from + 1) of input_ids' shape.
    auto dim = [&](int64_t from) -> FailureOr<Value> {
      return firstResult(create<ShapeOp>(n, in(0),
                                         {attr("start", builder.getI64IntegerAttr(from)),
                                          attr("end", builder.getI64IntegerAttr(from + 1))}));
    };
    FailureOr<Value> positions;
    if (positionIds) {
      positions = gather(position, positionIds);
    } else {
      FailureOr<Value> seq = dim(1);
      if (failed(seq))
        return failure();
      SmallVector<Value> operands{position, constI64(n.loc, {0}), *seq, constI64(n.loc, {0}),
                                  Value()};
      positions = firstResult(create<SliceOp>(n, present(operands), {segments(operands)}));
    }
    FailureOr<Value> sum = gather(word, in(0));
    if (failed(sum) || failed(positions))
      return failure();
    sum = firstResult(create<AddOp>(n, {*sum, *positions}));
    if (in(1)) {
      FailureOr<Value> segments = gather(segment, in(1));
      if (failed(segments) || failed(sum))
        return failure();
      sum = firstResult(create<AddOp>(n, {*sum, *segments}));
    }
    if (failed(sum))
      return failure();
    FailureOr<Operation *> norm = layerNorm(*sum, gamma, beta, *eps);
    if (failed(norm))
      return failure();
    FailureOr<Value> maskIndex;
    if (in(7)) {
      // onnxruntime counts the entries equal to 1, not their sum.
      Type i32 = builder.getI32Type();
      FailureOr<Value> ones =
          firstResult(create<EqualOp>(n, {in(7), constScalar(n.loc, elementOf(in(7)), 1)}));
      if (failed(ones))
        return failure();
      ones = firstResult(create<CastOp>(n, *ones,
                                        {attr("to", TypeAttr::get(i32)),
                                         attr("saturate", builder.getI64IntegerAttr(1))}));
      if (failed(ones))
        return failure();
      maskIndex = firstResult(create<ReduceSumOp>(
          n, {*ones, constI64(n.loc, {1})},
          {attr("keepdims", builder.getI64IntegerAttr(0)),
           attr("noop_with_empty_axes", builder.getI64IntegerAttr(0))}));
    } else {
      FailureOr<Value> batch = dim(0);
      if (failed(batch))
        return failure();
      auto zero = DenseElementsAttr::get(RankedTensorType::get({1}, builder.getI32Type()),
                                         static_cast<int32_t>(0));
      maskIndex = firstResult(create<ConstantOfShapeOp>(n, *batch, {attr("value", zero)}));
    }
    if (failed(maskIndex))
      return failure();
    outputs.append({(*norm)->getResult(0), *maskIndex});
    if (!quantized)
      outputs.push_back(*sum);
    return success();
  }

  // The activation FusedConv and FusedGemm apply last: `kind` with its
  // parameters (LeakyRelu: alpha; Clip: min, max).
  auto activate = [&](FailureOr<Value> x, StringRef kind,
                      ArrayRef<float> params) -> FailureOr<Value> {
    if (failed(x))
      return failure();
    auto param = [&](size_t i, float dflt) { return i < params.size() ? params[i] : dflt; };
    Type element = elementOf(*x);
    if (kind == "Relu")
      return firstResult(create<ReluOp>(n, *x));
    if (kind == "Tanh")
      return firstResult(create<TanhOp>(n, *x));
    if (kind == "Sigmoid")
      return firstResult(create<SigmoidOp>(n, *x));
    if (kind == "LeakyRelu")
      return firstResult(create<LeakyReluOp>(
          n, *x, {attr("alpha", builder.getF32FloatAttr(param(0, 0.01f)))}));
    if (kind == "Clip") {
      SmallVector<Value> operands{*x, constScalar(n.loc, element, param(0, -FLT_MAX)),
                                  constScalar(n.loc, element, param(1, FLT_MAX))};
      return firstResult(create<ClipOp>(n, operands, {segments(operands)}));
    }
    if (kind == "HardSigmoid")
      return hardSigmoid(n, *x, param(0, 0.2f), param(1, 0.5f));
    return n.error() << op << " with activation '" << kind
                     << "' is not supported (Relu, Tanh, Sigmoid, LeakyRelu, Clip, HardSigmoid)";
  };

  // (X, W, B?, Z?) -> activation(Conv(X, W, B) + Z), Conv's attributes.
  if (op == "FusedConv") {
    FailureOr<std::string> kind = n.getString("activation", "");
    FailureOr<SmallVector<float>> params = n.getFloats("activation_params");
    FailureOr<int64_t> group = n.getInt("group", 1);
    if (failed(arity(4, {0, 1})) || failed(kind) || failed(params) || failed(group))
      return failure();
    FailureOr<SmallVector<NamedAttribute>> attrs = windowAttributes(n, in(1));
    if (failed(attrs))
      return failure();
    attrs->push_back(attr("group", builder.getI64IntegerAttr(*group)));
    FailureOr<Value> y = firstResult(create<ConvOp>(n, present({in(0), in(1), in(2)}), *attrs));
    if (in(3))
      y = add(y, in(3));
    return push(kind->empty() ? y : activate(y, *kind, *params));
  }

  // (A, B, C?) -> activation(Gemm(A, B, C)); activation_alpha, _beta and
  // _gamma are the activation's parameters.
  if (op == "FusedGemm") {
    FailureOr<float> alpha = n.getFloat("alpha", 1.f), beta = n.getFloat("beta", 1.f);
    FailureOr<int64_t> ta = n.getInt("transA", 0), tb = n.getInt("transB", 0);
    FailureOr<std::string> kind = n.getString("activation", "");
    FailureOr<float> a0 = n.getFloat("activation_alpha", 0.01f);
    FailureOr<float> a1 = n.getFloat("activation_beta", FLT_MAX);
    FailureOr<float> a2 = n.getFloat("activation_gamma", 0.f);
    if (failed(arity(3, {0, 1})) || failed(alpha) || failed(beta) || failed(ta) || failed(tb) ||
        failed(kind) || failed(a0) || failed(a1) || failed(a2))
      return failure();
    if (*kind == "Clip")
      return n.error() << "FusedGemm with activation 'Clip' is not supported";
    FailureOr<Value> y = firstResult(create<GemmOp>(
        n, present({in(0), in(1), in(2)}),
        {attr("alpha", builder.getF32FloatAttr(*alpha)),
         attr("beta", builder.getF32FloatAttr(*beta)),
         attr("transA", builder.getI64IntegerAttr(*ta)),
         attr("transB", builder.getI64IntegerAttr(*tb))}));
    SmallVector<float> params{*a0};
    if (*kind == "HardSigmoid")
      params = {n.find("activation_alpha") ? *a0 : 0.2f, n.find("activation_beta") ? *a1 : 0.5f};
    return push(kind->empty() ? y : activate(y, *kind, params));
  }

  // checkSupportedOps() rejects everything else before conversion starts.
  return n.error() << "no converter for " << n.node.domain() << "." << op;
}
