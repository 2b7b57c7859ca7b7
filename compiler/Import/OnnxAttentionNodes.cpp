//===- OnnxAttentionNodes.cpp - onnxruntime's fused attention ops ---------===//
//
// onnxruntime's transformer optimizer fuses a BERT layer's self-attention
// (the Q, K and V projections, the head split, softmax(Q K^T * scale +
// mask) V and the head merge) into com.microsoft.Attention, the three
// projections' weights side by side in one matrix; quantize_dynamic turns
// that into QAttention (8-bit input and weights). Where the projections do
// not share an input (cross-attention: CLIP, T5, UNet; or with
// use_multi_head_attention) it writes MultiHeadAttention, which takes the
// projected query, key and value (key and value T long) and their biases.
// Each is imported as the ai.onnx ops it fused, as an export writes them: a
// MatMul (for QAttention MatMulInteger -> Cast -> Mul) on each projection's
// columns plus its bias, Reshape and Transpose to heads, the scaled scores
// plus an additive mask, Softmax, the second MatMul and the merge.
// nunc-fuse-attention, nunc-fuse-attention-projections and nunc-fuse-linear
// then take them as they take the export's.
//
// The mask is what onnxruntime's CPU kernel adds to the scaled scores:
// mask_filter_value where mask_index (MultiHeadAttention's
// key_padding_mask) masks a key (a raw [B, T] or [B, S, T] mask: where it
// is <= 0; [B] key lengths: keys from the length on; [2B] end then start
// positions: keys outside [start, end); [B, 1] and [1, 1] mask nothing),
// replaced by the lowest float on keys after the query with
// `unidirectional` (which onnxruntime never attends to, whatever the
// padding mask says; T = S only), plus attention_bias.
//
//===----------------------------------------------------------------------===//

#include "ImporterImpl.h"

#include "nunc/Dialect/Nunc/NuncUtils.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::nunc;
using namespace mlir::nunc::import_detail;

LogicalResult Importer::convertAttention(NodeContext &n, SmallVectorImpl<Value> &outputs) {
  llvm::StringRef op = n.node.op_type();
  bool quantized = op == "QAttention";
  auto in = [&](unsigned i) { return n.input(i); };
  Type f32 = builder.getF32Type();

  // One op of the expansion; null where it or an operand failed (its
  // error already reported), so a chain is checked once, at its end.
  auto make = [&](llvm::StringRef name, ArrayRef<Value> operands,
                  ArrayRef<NamedAttribute> attrs = {}) -> Value {
    if (llvm::any_of(operands, [](Value v) { return !v; }))
      return Value();
    FailureOr<Value> r = firstResult(create(n, name, operands, attrs, 1));
    return failed(r) ? Value() : *r;
  };
  auto add = [&](Value a, Value b) { return make(AddOp::getOperationName(), {a, b}); };
  auto sub = [&](Value a, Value b) { return make(SubOp::getOperationName(), {a, b}); };
  auto mul = [&](Value a, Value b) { return make(MulOp::getOperationName(), {a, b}); };
  auto matmul = [&](Value a, Value b) { return make(MatMulOp::getOperationName(), {a, b}); };
  auto scalar = [&](double v) { return constScalar(n.loc, f32, v); };
  auto reshape = [&](Value x, ArrayRef<int64_t> shape) {
    return make(ReshapeOp::getOperationName(), {x, constI64(n.loc, shape)});
  };
  auto transpose = [&](Value x, ArrayRef<int64_t> perm) {
    return make(TransposeOp::getOperationName(), {x},
                {attr("perm", builder.getDenseI64ArrayAttr(perm))});
  };
  auto slice = [&](Value x, int64_t start, int64_t end, int64_t axis) {
    SmallVector<Value> operands{x, constI64(n.loc, {start}), constI64(n.loc, {end}),
                                constI64(n.loc, {axis}), Value()};
    return make(SliceOp::getOperationName(), present(operands), {segments(operands)});
  };
  auto toF32 = [&](Value x) {
    return make(CastOp::getOperationName(), {x},
                {attr("to", TypeAttr::get(f32)), attr("saturate", builder.getI64IntegerAttr(1))});
  };
  // min(max(x, 0), 1): on integers (held exactly in f32), 1 where x >= 1.
  auto clip01 = [&](Value x) {
    SmallVector<Value> operands{x, scalar(0), scalar(1)};
    return make(ClipOp::getOperationName(), operands, {segments(operands)});
  };
  auto f32Constant = [&](ArrayRef<int64_t> shape, ArrayRef<float> values) -> Value {
    auto type = RankedTensorType::get(shape, f32);
    return ConstantOp::create(builder, n.loc, type, DenseElementsAttr::get(type, values));
  };
  auto numElements = [](Value v) -> std::optional<int64_t> {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    if (!t || !t.hasStaticShape())
      return std::nullopt;
    return t.getNumElements();
  };

  // Attention: (input, weights, bias?, mask_index?, past?, attention_bias?,
  // past_sequence_length?). QAttention: (input, weight, bias, input_scale,
  // weight_scale, mask_index?, input_zero_point?, weight_zero_point?, past?).
  // MultiHeadAttention: (query, key, value, bias?, key_padding_mask?,
  // attention_bias?, past_key?, past_value?, past_sequence_length?,
  // cache_indirection?).
  const bool multiHead = op == "MultiHeadAttention";
  const unsigned maxInputs = multiHead ? 10 : quantized ? 9 : 7,
                 maskAt = quantized ? 5 : multiHead ? 4 : 3, pastAt = quantized ? 8 : 4;
  if (n.inputs.size() > maxInputs)
    return n.error() << op << " takes at most " << maxInputs << " inputs, got "
                     << n.inputs.size();
  if (multiHead && (!in(1) || !in(2)))
    return n.error() << op << " with packed QKV or KV (no key or value) is not supported";
  for (unsigned i = 0, required = quantized ? 5 : multiHead ? 3 : 2; i < required; ++i)
    if (!in(i))
      return n.error() << op << " needs input #" << i;
  FailureOr<int64_t> heads = n.getInt("num_heads", std::nullopt);
  FailureOr<int64_t> unidirectional = n.getInt("unidirectional", 0);
  FailureOr<float> scaleAttr = n.getFloat("scale", 0.f);
  FailureOr<float> filter = n.getFloat("mask_filter_value", -10000.f);
  FailureOr<int64_t> rotary = multiHead ? 0 : n.getInt("do_rotary", 0);
  FailureOr<int64_t> shareBuffer = multiHead ? 0 : n.getInt("past_present_share_buffer", 0);
  FailureOr<std::optional<SmallVector<int64_t>>> qkvSizes = std::optional<SmallVector<int64_t>>();
  if (!quantized && !multiHead) {
    qkvSizes = n.getInts("qkv_hidden_sizes");
    // Only read with do_rotary, which is refused below.
    n.ignore("rotary_embedding_dim");
  }
  if (failed(heads) || failed(unidirectional) || failed(scaleAttr) || failed(filter) ||
      failed(rotary) || failed(shareBuffer) || failed(qkvSizes))
    return failure();
  if (*rotary)
    return n.error() << op << " with do_rotary is not supported";
  if (multiHead && (in(6) || in(7) || in(8) || in(9)))
    return n.error() << op << " with a past state (past_key, past_value, "
                            "past_sequence_length, cache_indirection) is not supported";
  if (!multiHead && (in(pastAt) || *shareBuffer || (!quantized && in(6))))
    return n.error() << op << " with a past state (past, past_present_share_buffer, "
                            "past_sequence_length) is not supported";
  if (*unidirectional != 0 && *unidirectional != 1)
    return n.error() << op << "'s unidirectional must be 0 or 1, got " << *unidirectional;
  if (!std::isfinite(*filter))
    return n.error() << op << "'s mask_filter_value must be finite, got " << *filter;

  auto xType = dyn_cast<RankedTensorType>(in(0).getType());
  if (!xType || xType.getRank() != 3)
    return n.error() << op << "'s " << (multiHead ? "query" : "input")
                     << " must be 3-D (batch, sequence, "
                     << (multiHead ? "hidden" : "input_hidden") << "), got " << in(0).getType();
  if (*heads <= 0)
    return n.error() << op << "'s num_heads must be positive, got " << *heads;
  // Q, K and V as [B, S or T, heads x (head or value) dim], after their
  // projections (Attention) or bias (MultiHeadAttention).
  SmallVector<int64_t> hidden(3);
  Value projected[3];
  int64_t keys = xType.getDimSize(1); // T: S for self-attention
  if (multiHead) {
    auto kType = dyn_cast<RankedTensorType>(in(1).getType());
    auto vType = dyn_cast<RankedTensorType>(in(2).getType());
    if (!kType || kType.getRank() != 3 || !vType || vType.getRank() != 3)
      return n.error() << op << "'s key and value must be 3-D (batch, sequence, hidden), got "
                       << in(1).getType() << " and " << in(2).getType()
                       << " (4-D per-head key and value are not supported)";
    hidden = {xType.getDimSize(2), kType.getDimSize(2), vType.getDimSize(2)};
    if (llvm::any_of(hidden, ShapedType::isDynamic))
      return n.error() << op << " needs the hidden sizes (last dims) of query, key and value "
                              "when importing";
    if (hidden[0] != hidden[1] || hidden[0] <= 0 || hidden[2] <= 0 || hidden[0] % *heads ||
        hidden[2] % *heads)
      return n.error() << op << ": query and key hidden sizes " << hidden[0] << " and "
                       << hidden[1] << " must be equal, and they and value's " << hidden[2]
                       << " positive multiples of num_heads (" << *heads << ")";
    auto matches = [](int64_t a, int64_t b) {
      return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
    };
    if (!matches(kType.getDimSize(0), xType.getDimSize(0)) ||
        !matches(vType.getDimSize(0), xType.getDimSize(0)) ||
        !matches(kType.getDimSize(1), vType.getDimSize(1)))
      return n.error() << op << ": key " << kType << " and value " << vType
                       << " must have the query's batch and one key sequence length";
    keys = kType.isDynamicDim(1) ? vType.getDimSize(1) : kType.getDimSize(1);
    Value bias = in(3);
    if (bias) {
      auto biasType = dyn_cast<RankedTensorType>(bias.getType());
      int64_t total = hidden[0] + hidden[1] + hidden[2];
      if (!biasType || biasType.getRank() != 1 ||
          (!biasType.isDynamicDim(0) && biasType.getDimSize(0) != total))
        return n.error() << op << "'s bias must be [" << total
                         << "] (query's, key's and value's), got " << bias.getType();
    }
    for (int64_t i = 0, lo = 0; i < 3; lo += hidden[i], ++i)
      projected[i] = bias ? add(in(i), slice(bias, lo, lo + hidden[i], 0)) : in(i);
  } else {
    auto wType = dyn_cast<RankedTensorType>(in(1).getType());
    if (!wType || wType.getRank() != 2 || wType.isDynamicDim(1))
      return n.error() << op << "'s weights must be 2-D with a known second dim, got "
                       << in(1).getType();
    int64_t total = wType.getDimSize(1);
    // Shapes each of the three projections would otherwise report alone.
    if (!xType.isDynamicDim(2) && !wType.isDynamicDim(0) &&
        xType.getDimSize(2) != wType.getDimSize(0))
      return n.error() << op << "'s weights have " << wType.getDimSize(0)
                       << " rows for an input of hidden size " << xType.getDimSize(2);
    if (in(2)) {
      auto biasType = dyn_cast<RankedTensorType>(in(2).getType());
      if (!biasType || biasType.getRank() != 1 ||
          (!biasType.isDynamicDim(0) && biasType.getDimSize(0) != total))
        return n.error() << op << "'s bias must have the weights' " << total
                         << " columns, got " << in(2).getType();
    }
    hidden.assign(3, total / 3);
    if (*qkvSizes) {
      if ((*qkvSizes)->size() != 3)
        return n.error() << op << "'s qkv_hidden_sizes must have 3 values";
      hidden = **qkvSizes;
    } else if (total % 3) {
      return n.error() << op << "'s weights have " << total
                       << " columns, not a multiple of 3 (without qkv_hidden_sizes)";
    }
    if (hidden[0] != hidden[1] || hidden[0] + hidden[1] + hidden[2] != total ||
        llvm::any_of(hidden, [&](int64_t h) { return h <= 0 || h % *heads; }))
      return n.error() << op << ": Q, K and V hidden sizes " << hidden[0] << ", " << hidden[1]
                       << ", " << hidden[2] << " must be positive multiples of num_heads ("
                       << *heads << "), Q's equal to K's, summing to the weights' " << total
                       << " columns";

    if (quantized) {
      for (unsigned i : {0u, 1u}) {
        Type t = cast<ShapedType>(in(i).getType()).getElementType();
        if (!t.isUnsignedInteger(8) && !t.isSignlessInteger(8))
          return n.error() << op << " input #" << i << " must be uint8 or int8, got "
                           << onnxTypeName(t);
      }
      for (unsigned i : {3u, 6u})
        if (in(i) && numElements(in(i)) != 1)
          return n.error() << op << " input #" << i << " (the input's "
                           << (i == 3 ? "scale" : "zero point") << ") must have one element, got "
                           << in(i).getType();
      for (unsigned i : {4u, 7u})
        if (in(i) && numElements(in(i)) != 1 && numElements(in(i)) != total)
          return n.error() << op << " input #" << i << " (the weight's "
                           << (i == 4 ? "scale" : "zero point") << ") must have 1 or " << total
                           << " elements, got " << in(i).getType();
      for (auto [zero, of] : {std::pair(6u, 0u), std::pair(7u, 1u)})
        if (in(zero) && cast<ShapedType>(in(zero).getType()).getElementType() !=
                            cast<ShapedType>(in(of).getType()).getElementType())
          return n.error() << op << " input #" << zero << " (a zero point) must have input #"
                           << of << "'s type, got " << in(zero).getType();
    }

    // Projection i (0 Q, 1 K, 2 V): input x the weights' columns [lo, hi),
    // plus the bias's.
    int64_t offsets[3] = {0, hidden[0], hidden[0] + hidden[1]};
    auto project = [&](int i) -> Value {
      int64_t lo = offsets[i], hi = lo + hidden[i];
      Value bias = in(2) ? slice(in(2), lo, hi, 0) : Value();
      if (!quantized) {
        Value y = matmul(in(0), slice(in(1), lo, hi, 1));
        return bias ? add(y, bias) : y;
      }
      // Per-column scales and zero points (3 * hidden) take the same slice.
      auto columns = [&](Value v) { return numElements(v) == 1 ? v : slice(v, lo, hi, 0); };
      Value weight = slice(in(1), lo, hi, 1), weightZero = in(7) ? columns(in(7)) : Value();
      if (!weight || (in(7) && !weightZero))
        return Value();
      SmallVector<Value> operands{in(0), weight, in(6), weightZero};
      Value acc =
          make(MatMulIntegerOp::getOperationName(), present(operands), {segments(operands)});
      return add(mul(toF32(acc), mul(in(3), columns(in(4)))), bias);
    };
    for (int i = 0; i < 3; ++i)
      projected[i] = project(i);
  }
  const int64_t headDim = hidden[0] / *heads, valueDim = hidden[2] / *heads;
  const float scale = *scaleAttr != 0.f ? *scaleAttr : 1.f / std::sqrt(float(headDim));

  // [B, S, heads * d] -> [B, heads, S, d] (perm {0, 2, 1, 3}) or, for K,
  // [B, heads, d, S] ({0, 2, 3, 1}).
  auto splitHeads = [&](Value y, int64_t d, ArrayRef<int64_t> perm) {
    return transpose(reshape(y, {0, 0, *heads, d}), perm);
  };
  Value q = splitHeads(projected[0], headDim, {0, 2, 1, 3});
  Value kT = splitHeads(projected[1], headDim, {0, 2, 3, 1});
  Value v = splitHeads(projected[2], valueDim, {0, 2, 1, 3});
  Value scores = mul(matmul(q, kT), scalar(scale));

  // The additive mask, broadcasting to [B, heads, S, T].
  Value mask;
  auto addToMask = [&](Value m) { mask = mask ? add(mask, m) : m; };
  // mask_filter_value where keep (0 or 1) is 0.
  auto filtered = [&](Value keep) { return mul(sub(scalar(1), keep), scalar(*filter)); };
  // The key-position forms need the sequence length when importing.
  auto staticDims = [&]() -> LogicalResult {
    if (!xType.isDynamicDim(0) && !xType.isDynamicDim(1) && !ShapedType::isDynamic(keys))
      return success();
    InFlightDiagnostic diag = n.error()
                              << op << " with this mask needs the batch and sequence dims when "
                                       "compiling; pin them with --shape (input is "
                              << xType;
    if (multiHead)
      diag << ", key " << in(1).getType();
    return diag << ")";
  };
  const char *maskName = multiHead ? "key_padding_mask" : "mask_index";
  if (Value index = in(maskAt)) {
    auto t = dyn_cast<RankedTensorType>(index.getType());
    if (!t || !t.hasStaticShape() || !t.getElementType().isSignlessInteger(32))
      return n.error() << op << "'s " << maskName
                       << " must be int32 of a known shape (pin the "
                              "model's dims with --shape), got "
                       << index.getType();
    // Raw masks are [B, T] ([B, 1] and [1, 1] mask nothing) or [B, S, T];
    // without past state T is S, or MultiHeadAttention's key length.
    auto matches = [](int64_t got, int64_t want) {
      return ShapedType::isDynamic(want) || got == want;
    };
    int64_t batch = xType.getDimSize(0), seq = xType.getDimSize(1);
    bool fits = true;
    if (t.getRank() == 2 && t.getDimSize(1) == 1)
      fits = t.getDimSize(0) == 1 || matches(t.getDimSize(0), batch);
    else if (t.getRank() == 2)
      fits = matches(t.getDimSize(0), batch) && matches(t.getDimSize(1), keys);
    else if (t.getRank() == 3)
      fits = matches(t.getDimSize(0), batch) && matches(t.getDimSize(1), seq) &&
             matches(t.getDimSize(2), keys);
    if (!fits)
      return n.error() << op << "'s " << t.getRank() << "-D " << maskName << " must be "
                       << (t.getRank() == 2 ? "[batch, key sequence]"
                                            : "[batch, sequence, key sequence]")
                       << " for input " << xType << ", got " << index.getType();
    if (t.getRank() == 1) {
      if (failed(staticDims()))
        return failure();
      int64_t len = t.getDimSize(0);
      if (len != batch && len != 2 * batch)
        return n.error() << op << "'s 1-D " << maskName << " must have batch_size (" << batch
                         << ") or 2 * batch_size elements, got " << len
                         << " (3 * batch_size + 2 is not supported)";
      SmallVector<float> positions, nextPositions;
      for (int64_t j = 0; j < keys; ++j) {
        positions.push_back(float(j));
        nextPositions.push_back(float(j + 1));
      }
      Value key = f32Constant({1, keys}, positions);
      Value bounds = toF32(index);
      // Keys before each row's end (exclusive): end - j >= 1. (No Slice for
      // the lengths alone, which would keep nunc-split-batch off.)
      Value ends = len == batch ? bounds : slice(bounds, 0, batch, 0);
      Value keep = clip01(sub(reshape(ends, {-1, 1}), key));
      // And from its start (inclusive) on: j + 1 - start >= 1.
      if (len == 2 * batch)
        keep = mul(keep, clip01(sub(f32Constant({1, keys}, nextPositions),
                                    reshape(slice(bounds, batch, 2 * batch, 0), {-1, 1}))));
      addToMask(reshape(filtered(keep), {0, 1, 1, -1}));
    } else if (t.getRank() == 2) {
      if (t.getDimSize(1) != 1)
        addToMask(reshape(filtered(clip01(toF32(index))), {0, 1, 1, -1}));
    } else if (t.getRank() == 3) {
      addToMask(make(UnsqueezeOp::getOperationName(),
                     {filtered(clip01(toF32(index))), constI64(n.loc, {1})}));
    } else {
      return n.error() << op << " with a " << t.getRank() << "-D " << maskName
                       << " is not supported (1-D lengths or positions, 2-D or 3-D raw masks)";
    }
  }
  // Keys after the query get the lowest float in place of the padding
  // mask's value (a Where, not a sum, which could overflow to -inf).
  if (*unidirectional) {
    if (failed(staticDims()))
      return failure();
    int64_t seq = xType.getDimSize(1);
    if (keys != seq)
      return n.error() << op << " with unidirectional needs keys as long as the queries, got "
                       << keys << " keys for " << seq << " queries";
    const float lowest = std::numeric_limits<float>::lowest();
    if (!mask) {
      SmallVector<float> causal(seq * seq, 0.f);
      for (int64_t i = 0; i < seq; ++i)
        for (int64_t j = i + 1; j < seq; ++j)
          causal[i * seq + j] = lowest;
      mask = f32Constant({seq, seq}, causal);
    } else {
      SmallVector<bool> later(seq * seq, false);
      for (int64_t i = 0; i < seq; ++i)
        for (int64_t j = i + 1; j < seq; ++j)
          later[i * seq + j] = true;
      auto type = RankedTensorType::get({seq, seq}, builder.getI1Type());
      Value after = ConstantOp::create(builder, n.loc, type, DenseElementsAttr::get(type, later));
      mask = make(WhereOp::getOperationName(), {after, scalar(lowest), mask});
    }
  }
  if (!quantized && in(5)) { // attention_bias, at 5 in both
    // [B or 1, heads or 1, S, T].
    auto biasType = dyn_cast<RankedTensorType>(in(5).getType());
    SmallVector<int64_t> full{xType.getDimSize(0), *heads, xType.getDimSize(1), keys};
    bool fits = biasType && biasType.getRank() == 4;
    for (int i = 0; fits && i < 4; ++i) {
      int64_t got = biasType.getDimSize(i);
      fits = ShapedType::isDynamic(got) || ShapedType::isDynamic(full[i]) || got == full[i] ||
             (i < 2 && got == 1);
    }
    if (!fits)
      return n.error() << op << "'s attention_bias must be [batch or 1, num_heads or 1, "
                              "sequence, key sequence] for input "
                       << xType << " and " << *heads << " heads, got " << in(5).getType();
    addToMask(in(5));
  }

  Value logits = mask ? add(scores, mask) : scores;
  if (!logits)
    return failure();
  FailureOr<Value> probs = softmax(n, logits, -1, /*flattened=*/false);
  if (failed(probs))
    return failure();
  Value merged = reshape(transpose(matmul(*probs, v), {0, 2, 1, 3}), {0, 0, hidden[2]});
  if (!merged)
    return failure();
  outputs.push_back(merged);
  return success();
}
