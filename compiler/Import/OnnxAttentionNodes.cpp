//===- OnnxAttentionNodes.cpp - attention ops as the ops they fuse --------===//
//
// ai.onnx Attention (opset 23 on): see convertOnnxAttention below.
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

  auto make = [&](llvm::StringRef name, ArrayRef<Value> operands,
                  ArrayRef<NamedAttribute> attrs = {}) {
    return createChained(n, name, operands, attrs);
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

// ai.onnx Attention (opset 23; nonpad_kv_seqlen from 24, sliding windows
// from 25), as its reference implementation computes it: the heads split
// (3-D inputs), past keys and values concatenated before the new ones
// (present_key / present_value), Q K^T times the scale (default
// 1/sqrt(head size)), softcap's c tanh(x / c), plus the additive bias (the
// mask, a bool one as 0 / -inf, its last dim padded with -inf to the total
// length; causal and window masks aligned to the query's position, past
// length + i, or with nonpad_kv_seqlen, its length - S + i; keys past
// nonpad_kv_seqlen masked), Softmax, P V and the heads merged. Grouped
// query heads (q_num_heads a multiple of kv_num_heads) read their key and
// value head by reshaping the query heads of one key head into rows, so
// keys and values are never repeated. A query whose bias masks every key
// gives 0 (and 0 probabilities in qk_matmul_output's mode 3), as the
// reference and onnxruntime. qk_matmul_output as onnxruntime 1.32 gives it:
// mode 0 the scaled scores, 1 after softcap, 2 with the bias added, 3 the
// probabilities (the reference gives mode 0 after softcap too, and adds no
// mask in mode 1 either). A causal mask goes by each query's position
// whatever the shape of attn_mask (the reference takes the query length
// from a mask with one query row; onnxruntime refuses such masks). Without
// a past, a 3-D Attention with as many key as query heads is the pattern
// nunc-fuse-attention fuses.
LogicalResult Importer::convertOnnxAttention(NodeContext &n,
                                             SmallVectorImpl<Value> &outputs) {
  auto in = [&](unsigned i) { return n.input(i); };
  const unsigned maxInputs = n.opset >= 24 ? 7 : 6;
  if (n.inputs.size() > maxInputs)
    return n.error() << "Attention takes at most " << maxInputs << " inputs at opset "
                     << n.opset << ", got " << n.inputs.size();
  for (unsigned i = 0; i < 3; ++i)
    if (!in(i))
      return n.error() << "Attention needs input #" << i;
  FailureOr<int64_t> causal = n.getInt("is_causal", 0);
  FailureOr<int64_t> mode = n.getInt("qk_matmul_output_mode", 0);
  FailureOr<float> softcap = n.getFloat("softcap", 0.f);
  FailureOr<int64_t> left = n.opset >= 25 ? n.getInt("left_window_size", -1) : -1;
  FailureOr<int64_t> right = n.opset >= 25 ? n.getInt("right_window_size", -1) : -1;
  const onnx::AttributeProto *qHeadsAttr = n.find("q_num_heads");
  const onnx::AttributeProto *kvHeadsAttr = n.find("kv_num_heads");
  const onnx::AttributeProto *scaleAttr = n.find("scale");
  // The softmax runs in f32 for every input type (f16 and bf16 are held in
  // f32 inside the kernels), at least the precision asked for but f64's.
  n.ignore("softmax_precision");
  if (failed(causal) || failed(mode) || failed(softcap) || failed(left) || failed(right))
    return failure();
  for (const onnx::AttributeProto *a : {qHeadsAttr, kvHeadsAttr})
    if (a && a->type() != onnx::AttributeProto::INT)
      return n.wrongType(*a, "an int");
  if (scaleAttr && scaleAttr->type() != onnx::AttributeProto::FLOAT)
    return n.wrongType(*scaleAttr, "a float");
  if (*causal != 0 && *causal != 1)
    return n.error() << "Attention's is_causal must be 0 or 1, got " << *causal;
  if (*mode < 0 || *mode > 3)
    return n.error() << "Attention's qk_matmul_output_mode must be 0 to 3, got " << *mode;
  if (*left < -1 || *right < -1)
    return n.error() << "Attention's window sizes must be -1 or nonnegative, got "
                     << *left << " and " << *right;
  if (!std::isfinite(*softcap) || *softcap < 0)
    return n.error() << "Attention's softcap must be finite and nonnegative, got " << *softcap;
  Value q = in(0), k = in(1), v = in(2), mask = in(3), pastKey = in(4), pastValue = in(5),
        nonpad = in(6);
  if (!pastKey != !pastValue)
    return n.error() << "Attention needs past_key and past_value together";
  if (nonpad && pastKey)
    return n.error() << "Attention's nonpad_kv_seqlen cannot be combined with past_key";

  // Shapes: all static, so the heads, lengths and masks are known.
  auto staticType = [&](Value x) -> RankedTensorType {
    auto t = dyn_cast<RankedTensorType>(x.getType());
    return t && t.hasStaticShape() ? t : RankedTensorType();
  };
  for (Value x : {q, k, v, mask, pastKey, pastValue, nonpad})
    if (x && !staticType(x))
      return n.error() << "Attention needs inputs of static shape (pin dims with --shape), got "
                       << x.getType();
  auto qType = staticType(q), kType = staticType(k), vType = staticType(v);
  const int64_t rank = qType.getRank();
  if ((rank != 3 && rank != 4) || kType.getRank() != rank || vType.getRank() != rank)
    return n.error() << "Attention's Q, K and V must all be 3-D or all 4-D, got " << qType
                     << ", " << kType << " and " << vType;
  Type el = qType.getElementType();
  if (!isa<FloatType>(el) || kType.getElementType() != el || vType.getElementType() != el)
    return n.error() << "Attention's Q, K and V must be of one float type";
  const int64_t batch = qType.getDimSize(0);
  int64_t qHeads, kvHeads, seq, kvSeq, headDim, valueDim;
  if (rank == 3) {
    if (!qHeadsAttr || !kvHeadsAttr)
      return n.error() << "Attention with 3-D inputs needs q_num_heads and kv_num_heads";
    qHeads = qHeadsAttr->i();
    kvHeads = kvHeadsAttr->i();
    if (qHeads <= 0 || kvHeads <= 0 || qType.getDimSize(2) % qHeads ||
        kType.getDimSize(2) % kvHeads || vType.getDimSize(2) % kvHeads)
      return n.error() << "Attention's hidden sizes " << qType.getDimSize(2) << ", "
                       << kType.getDimSize(2) << " and " << vType.getDimSize(2)
                       << " do not split into q_num_heads " << qHeads << " and kv_num_heads "
                       << kvHeads;
    seq = qType.getDimSize(1);
    kvSeq = kType.getDimSize(1);
    headDim = qType.getDimSize(2) / qHeads;
    if (kType.getDimSize(2) / kvHeads != headDim)
      return n.error() << "Attention's query and key heads differ in size";
    valueDim = vType.getDimSize(2) / kvHeads;
    if (vType.getDimSize(1) != kvSeq)
      return n.error() << "Attention's K and V differ in length";
  } else {
    qHeads = qType.getDimSize(1);
    kvHeads = kType.getDimSize(1);
    seq = qType.getDimSize(2);
    kvSeq = kType.getDimSize(2);
    headDim = qType.getDimSize(3);
    valueDim = vType.getDimSize(3);
    if ((qHeadsAttr && qHeadsAttr->i() != qHeads) || (kvHeadsAttr && kvHeadsAttr->i() != kvHeads))
      return n.error() << "Attention's q_num_heads / kv_num_heads disagree with its 4-D inputs";
    if (kType.getDimSize(3) != headDim || vType.getDimSize(1) != kvHeads ||
        vType.getDimSize(2) != kvSeq)
      return n.error() << "Attention's Q " << qType << ", K " << kType << " and V " << vType
                       << " do not fit [B, heads, length, head size]";
  }
  if (kType.getDimSize(0) != batch || vType.getDimSize(0) != batch)
    return n.error() << "Attention's Q, K and V differ in batch";
  if (kvHeads == 0 || qHeads % kvHeads)
    return n.error() << "Attention's q_num_heads " << qHeads
                     << " is not a multiple of kv_num_heads " << kvHeads;
  int64_t pastLength = 0;
  if (pastKey) {
    auto pk = staticType(pastKey), pv = staticType(pastValue);
    pastLength = pk.getRank() == 4 ? pk.getDimSize(2) : -1;
    if (pastLength < 0 || pk.getElementType() != el || pv.getElementType() != el ||
        pk.getShape() != ArrayRef<int64_t>{batch, kvHeads, pastLength, headDim} ||
        pv.getShape() != ArrayRef<int64_t>{batch, kvHeads, pastLength, valueDim})
      return n.error() << "Attention's past_key " << pk << " and past_value " << pv
                       << " do not fit [" << batch << ", " << kvHeads << ", past length, "
                       << headDim << " / " << valueDim << "]";
  }
  const int64_t total = pastLength + kvSeq;
  if (nonpad) {
    auto t = staticType(nonpad);
    if (t.getShape() != ArrayRef<int64_t>{batch} || !t.getElementType().isInteger(64))
      return n.error() << "Attention's nonpad_kv_seqlen must be int64 [" << batch << "], got "
                       << t;
  }
  RankedTensorType maskType = mask ? staticType(mask) : RankedTensorType();
  if (mask) {
    Type m = maskType.getElementType();
    if ((!m.isInteger(1) && m != el) || maskType.getRank() < 1 || maskType.getRank() > 4 ||
        maskType.getShape().back() > total)
      return n.error() << "Attention's attn_mask must be bool or Q's type, of rank 1 to 4, at "
                          "most " << total << " keys long, got " << maskType;
  }

  auto make = [&](llvm::StringRef name, ArrayRef<Value> operands,
                  ArrayRef<NamedAttribute> attrs = {}) {
    return createChained(n, name, operands, attrs);
  };
  auto reshape = [&](Value x, ArrayRef<int64_t> shape) {
    return make(ReshapeOp::getOperationName(), {x, constI64(n.loc, shape)});
  };
  auto transpose = [&](Value x, ArrayRef<int64_t> perm) {
    return make(TransposeOp::getOperationName(), {x},
                {attr("perm", builder.getDenseI64ArrayAttr(perm))});
  };
  auto binary = [&](llvm::StringRef name, Value a, Value b) { return make(name, {a, b}); };
  auto where = [&](Value c, Value a, Value b) {
    return make(WhereOp::getOperationName(), {c, a, b});
  };
  auto i64Attr = [&](llvm::StringRef name, int64_t x) {
    return attr(name, builder.getI64IntegerAttr(x));
  };
  const double negInf = -std::numeric_limits<double>::infinity();
  Value zero = constScalar(n.loc, el, 0), minusInf = constScalar(n.loc, el, negInf);
  // A constant of Q's type, 0 where `allowed`, else -inf.
  auto biasConstant = [&](ArrayRef<int64_t> shape, llvm::function_ref<bool(int64_t)> allowed) {
    auto type = RankedTensorType::get(shape, el);
    SmallVector<Attribute> values;
    for (int64_t i = 0, e = type.getNumElements(); i < e; ++i)
      values.push_back(FloatAttr::get(el, allowed(i) ? 0.0 : negInf));
    return ConstantOp::create(builder, n.loc, type, DenseElementsAttr::get(type, values));
  };

  // [B, S, H*D] -> [B, H, S, D].
  auto heads = [&](Value x, int64_t h) {
    return rank == 4 ? x
                     : transpose(reshape(x, {batch, cast<RankedTensorType>(x.getType())
                                                         .getDimSize(1),
                                             h, -1}),
                                 {0, 2, 1, 3});
  };
  Value qh = heads(q, qHeads);
  Value kh = heads(k, kvHeads);
  Value vh = heads(v, kvHeads);
  if (pastKey) {
    kh = make(ConcatOp::getOperationName(), {pastKey, kh}, {i64Attr("axis", 2)});
    vh = make(ConcatOp::getOperationName(), {pastValue, vh}, {i64Attr("axis", 2)});
  }
  const int64_t group = qHeads / kvHeads;
  // Q K^T; grouped heads as rows of their key head's product.
  Value keyT = transpose(kh, {0, 1, 3, 2});
  Value scores =
      group == 1
          ? binary(MatMulOp::getOperationName(), qh, keyT)
          : reshape(binary(MatMulOp::getOperationName(),
                           reshape(qh, {batch, kvHeads, group * seq, headDim}), keyT),
                    {batch, qHeads, seq, total});
  const double scale =
      scaleAttr ? scaleAttr->f() : 1.0 / std::sqrt(static_cast<double>(headDim));
  scores = binary(MulOp::getOperationName(), scores, constScalar(n.loc, el, scale));
  Value qkOutput = scores;
  if (*softcap > 0) {
    Value c = constScalar(n.loc, el, *softcap);
    scores = binary(MulOp::getOperationName(),
                    make(TanhOp::getOperationName(), {binary(DivOp::getOperationName(),
                                                             scores, c)}),
                    c);
  }
  if (*mode == 1)
    qkOutput = scores;

  // The additive bias, each part broadcasting to [B, Hq, S, T].
  SmallVector<Value> biasParts;
  if (mask) {
    Value m = mask;
    if (maskType.getElementType().isInteger(1))
      m = where(m, zero, minusInf);
    if (int64_t missing = total - maskType.getShape().back()) {
      SmallVector<int64_t> padShape(maskType.getShape());
      padShape.back() = missing;
      Value pad = biasConstant(padShape, [](int64_t) { return false; });
      m = make(ConcatOp::getOperationName(), {m, pad}, {i64Attr("axis", maskType.getRank() - 1)});
    }
    biasParts.push_back(m);
  }
  const bool windowed = *causal || *left >= 0 || *right >= 0;
  // Key j is allowed for the query at position p iff p - j lies in
  // [lowest, highest]: causal p - j >= 0, a left window p - j <= left, a
  // right window j - p <= right.
  int64_t lowest = std::numeric_limits<int64_t>::min();
  int64_t highest = std::numeric_limits<int64_t>::max();
  if (*causal)
    lowest = 0;
  if (*right >= 0)
    lowest = std::max(lowest, -*right);
  if (*left >= 0)
    highest = *left;
  // Whether some query's window holds no key (p - left past the last key,
  // when S is longer than T).
  bool windowMasksRow = false;
  if (windowed && !nonpad) {
    // p = past length + i, the same for every batch: a constant [S, T].
    auto allowed = [&](int64_t i, int64_t j) {
      int64_t d = pastLength + i - j;
      return d >= lowest && d <= highest;
    };
    biasParts.push_back(
        biasConstant({seq, total}, [&](int64_t e) { return allowed(e / total, e % total); }));
    for (int64_t i = 0; i < seq && !windowMasksRow; ++i) {
      bool any = false;
      for (int64_t j = 0; j < total && !any; ++j)
        any = allowed(i, j);
      windowMasksRow = !any;
    }
  }
  if (nonpad) {
    // p = nonpad_kv_seqlen[b] - S + i: i - j + that offset, [B, S, T].
    auto indexType = RankedTensorType::get({seq, total}, builder.getI64Type());
    SmallVector<int64_t> diff;
    for (int64_t i = 0; i < seq; ++i)
      for (int64_t j = 0; j < total; ++j)
        diff.push_back(i - j);
    Value lengths = reshape(nonpad, {batch, 1, 1});
    if (windowed) {
      Value offsets = binary(SubOp::getOperationName(), lengths, constI64(n.loc, {seq}, true));
      Value diffs = ConstantOp::create(builder, n.loc, indexType,
                                       DenseElementsAttr::get(indexType, ArrayRef(diff)));
      Value d = binary(AddOp::getOperationName(), offsets, diffs);
      Value outside;
      auto orWith = [&](Value c) { outside = outside ? where(outside, outside, c) : c; };
      if (lowest != std::numeric_limits<int64_t>::min())
        orWith(binary(GreaterOp::getOperationName(), constI64(n.loc, {lowest}, true), d));
      if (highest != std::numeric_limits<int64_t>::max())
        orWith(binary(GreaterOp::getOperationName(), d, constI64(n.loc, {highest}, true)));
      biasParts.push_back(reshape(where(outside, minusInf, zero), {batch, 1, seq, total}));
    }
    // Keys from nonpad_kv_seqlen on are padding.
    SmallVector<int64_t> iota;
    for (int64_t j = 0; j < total; ++j)
      iota.push_back(j);
    Value itemLengths = reshape(nonpad, {batch, 1});
    Value keep = binary(GreaterOp::getOperationName(), itemLengths, constI64(n.loc, iota));
    biasParts.push_back(reshape(where(keep, zero, minusInf), {batch, 1, 1, total}));
  }
  Value bias;
  for (Value part : biasParts)
    bias = bias ? binary(AddOp::getOperationName(), bias, part) : part;
  Value logits = bias ? binary(AddOp::getOperationName(), scores, bias) : scores;
  if (*mode == 2)
    qkOutput = logits;
  Value probs = make(SoftmaxOp::getOperationName(), {logits}, {i64Attr("axis", -1)});

  // Rows the bias masks whole: a mask or padding can do that, and a window
  // whose keys all lie past the last (a causal mask alone never does: key
  // 0 is allowed wherever p >= 0).
  Value masked;
  if (bias && (mask || nonpad || windowMasksRow)) {
    Value rowMax = make(ReduceMaxOp::getOperationName(), {bias, constI64(n.loc, {-1})},
                        {i64Attr("keepdims", 1), i64Attr("noop_with_empty_axes", 0)});
    masked = binary(EqualOp::getOperationName(), rowMax, minusInf);
  }
  if (*mode == 3)
    qkOutput = masked ? where(masked, zero, probs) : probs;

  Value y = group == 1
                ? binary(MatMulOp::getOperationName(), probs, vh)
                : reshape(binary(MatMulOp::getOperationName(),
                                 reshape(probs, {batch, kvHeads, group * seq, total}), vh),
                          {batch, qHeads, seq, valueDim});
  // The masked rows' zeros go on the merged output where the mask is the
  // same for every head (keeping the merge next to P V for the fusion).
  // (masked is [b, h, s, 1] right-aligned, each of b, h, s 1 or the full
  // size.)
  SmallVector<int64_t> maskedDims(4, 1);
  int64_t maskedRank = 0;
  if (auto t = masked ? dyn_cast<RankedTensorType>(masked.getType()) : RankedTensorType()) {
    maskedRank = t.getRank();
    llvm::copy(t.getShape(), maskedDims.end() - maskedRank);
  }
  const bool perHead = maskedDims[1] != 1;
  if (masked && (rank == 4 || perHead))
    y = where(masked, zero, y);
  if (rank == 3) {
    y = reshape(transpose(y, {0, 2, 1, 3}), {batch, seq, qHeads * valueDim});
    if (masked && !perHead)
      y = where(maskedRank == 4 ? reshape(masked, {maskedDims[0], maskedDims[2], 1}) : masked,
                zero, y);
  }
  Value results[] = {y, kh, vh, qkOutput};
  for (int i = 0, e = std::min(n.node.output_size(), 4); i < e; ++i) {
    if (!results[i])
      return failure();
    outputs.push_back(results[i]);
  }
  return success();
}
