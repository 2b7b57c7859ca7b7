//===- FuseAttention.cpp - exported multi-head attention to nunc.attention ===//

#include "PatternUtils.h"
#include "nunc/Transforms/Passes.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>
#include <limits>

namespace mlir::nunc {
#define GEN_PASS_DEF_FUSEATTENTION
#include "nunc/Transforms/Passes.h.inc"
} // namespace mlir::nunc

using namespace mlir;
using namespace mlir::nunc;

namespace {

struct HeadSplit {
  Value source; // [B, S, H*D]
  int64_t heads = 0, headDim = 0;
};

/// Matches Transpose(Reshape(source [B,S,E] -> [B,S,H,D]), perm).
std::optional<HeadSplit> matchHeadSplit(Value v, ArrayRef<int64_t> perm,
                                        SmallVectorImpl<Operation *> &ops) {
  // The head split may be shared: CSE makes one of the splits of an input
  // that several attentions read (MultiHeadAttention's key and value
  // input, or a query that two of them take), and the fused attention
  // reads the source itself, so the split is dropped with its last reader.
  auto transpose = v.getDefiningOp<TransposeOp>();
  if (!transpose || transpose.getPerm() != perm)
    return std::nullopt;
  auto reshape = transpose.getInput().getDefiningOp<ReshapeOp>();
  if (!reshape)
    return std::nullopt;
  auto src = dyn_cast<RankedTensorType>(reshape.getData().getType());
  auto split = dyn_cast<RankedTensorType>(reshape.getType());
  if (!src || !split || !src.hasStaticShape() || !split.hasStaticShape() ||
      src.getRank() != 3 || split.getRank() != 4 ||
      split.getDimSize(0) != src.getDimSize(0) || split.getDimSize(1) != src.getDimSize(1) ||
      split.getDimSize(2) * split.getDimSize(3) != src.getDimSize(2))
    return std::nullopt;
  ops.append({transpose, reshape});
  return HeadSplit{reshape.getData(), split.getDimSize(2), split.getDimSize(3)};
}

/// A static 4-D ranked type's shape, or an empty one.
ArrayRef<int64_t> shape4(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  if (!t || !t.hasStaticShape() || t.getRank() != 4)
    return {};
  return t.getShape();
}

/// An attention operand as nunc.attention reads it: the [B, L, h*D] source
/// of a head split, or a heads-first [B, h, L, D] value. `group` > 1: the
/// model repeated each of its h heads that many times (torch's repeat_kv,
/// grouped query heads).
struct Operand {
  Value source;
  bool headsMajor = false;
  int64_t heads = 0, headDim = 0, group = 1;
};

/// The operand behind v, a [B, H, L, D] value: a head split of a [B, L,
/// H*D] source; with `repeats`, Reshape(Expand(Unsqueeze(x, 2) or
/// Reshape(x) [B, h, 1, L, D], [B, h, g, L, D]), [B, h*g, L, D]); else v
/// itself, heads first.
std::optional<Operand> matchOperand(Value v, bool repeats, SmallVectorImpl<Operation *> &ops) {
  const int64_t heads[] = {0, 2, 1, 3};
  if (std::optional<HeadSplit> split = matchHeadSplit(v, heads, ops))
    return Operand{split->source, false, split->heads, split->headDim, 1};
  ArrayRef<int64_t> shape = shape4(v);
  if (shape.empty())
    return std::nullopt;
  if (repeats) {
    auto merge = v.getDefiningOp<ReshapeOp>();
    auto expand = merge ? merge.getData().getDefiningOp<ExpandOp>() : ExpandOp();
    auto expanded = expand ? dyn_cast<RankedTensorType>(expand.getType()) : RankedTensorType();
    Operation *insert = expand ? expand.getInput().getDefiningOp() : nullptr;
    if (expanded && expanded.hasStaticShape() && expanded.getRank() == 5 &&
        isa_and_nonnull<UnsqueezeOp, ReshapeOp>(insert)) {
      ArrayRef<int64_t> e = expanded.getShape();
      Value x = insert->getOperand(0);
      ArrayRef<int64_t> xs = shape4(x);
      auto inserted = cast<RankedTensorType>(insert->getResult(0).getType());
      const int64_t one[] = {e[0], e[1], 1, e[3], e[4]};
      if (!xs.empty() && inserted.getShape() == ArrayRef<int64_t>(one) &&
          ArrayRef<int64_t>{e[0], e[1] * e[2], e[3], e[4]} == shape && xs[1] == e[1] &&
          xs[0] == e[0] && xs[2] == e[3] && xs[3] == e[4]) {
        SmallVector<Operation *> found{merge, expand, insert};
        if (std::optional<Operand> o = matchOperand(x, false, found)) {
          o->group = e[2];
          ops.append(found.begin(), found.end());
          return o;
        }
      }
    }
  }
  return Operand{v, true, shape[1], shape[3], 1};
}

/// x without a Mul by a constant scalar (its only use), whose factor goes
/// into `scale`: torch's scaled_dot_product_attention scales Q and K^T by
/// sqrt(scale) each before their product.
Value withoutScaling(Value x, double &scale, SmallVectorImpl<Operation *> &ops) {
  auto mul = singleUseDef<MulOp>(x);
  if (!mul)
    return x;
  // (A constant of one element that leaves x's shape as it is.)
  for (auto [c, other] : {std::pair(mul.getRhs(), mul.getLhs()),
                          std::pair(mul.getLhs(), mul.getRhs())})
    if (std::optional<double> f = getUniformFloat(c);
        f && cast<ShapedType>(c.getType()).getNumElements() == 1 &&
        other.getType() == mul.getType()) {
      scale *= *f;
      ops.push_back(mul);
      return other;
    }
  return x;
}

/// v without the fake_quantize (its only use) that rounds it, if any: a QDQ
/// model's Quantize/DequantizeLinear pair on an attention intermediate,
/// whose grid goes into `grid` (and the op into `ops`).
Value withoutGrid(Value v, TypeAttr &grid, SmallVectorImpl<Operation *> &ops) {
  auto fq = singleUseDef<FakeQuantizeOp>(v);
  if (!fq)
    return v;
  grid = fq.getQuantizationAttr();
  ops.push_back(fq);
  return fq.getInput();
}

/// The one user of v, if it is an OpTy.
template <typename OpTy> OpTy soleUser(Value v) {
  return v.hasOneUse() ? dyn_cast<OpTy>(*v.getUsers().begin()) : OpTy();
}

/// Grouped query heads as rows of their key head's product: `product` =
/// MatMul(Reshape(a [B, H, S, X] -> [B, h, g*S, X]), b), read back as
/// `wide` = Reshape(product -> [B, H, S, Y]) (the ai.onnx Attention
/// import). The group g, or 0.
int64_t rowsGroup(Value a, Value product, Value wide) {
  ArrayRef<int64_t> from = shape4(a), rows = shape4(product), to = shape4(wide);
  if (from.empty() || rows.empty() || to.empty() || from[0] != to[0] || rows[0] != to[0] ||
      from[1] != to[1] || from[2] != to[2] || rows[1] == 0 || to[1] % rows[1] != 0)
    return 0;
  int64_t g = to[1] / rows[1];
  return rows[2] == g * to[2] && rows[3] == to[3] ? g : 0;
}

/// softmax(Q K^T * scale + mask) V, found from the P V product: the heads
/// merged after it ([B, S, H*D]) or not ([B, H, S, D]); Q, K and V head
/// splits of [B, L, h*D] sources or heads-first values; grouped query
/// heads (rows of their key head's products, or repeated key and value
/// heads).
struct AttentionPattern : OpRewritePattern<MatMulOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MatMulOp pv, PatternRewriter &rewriter) const override {
    // The matched ops (for the fused location): those after P V, last
    // first, then the rest from P V back.
    SmallVector<Operation *> after, ops;
    // The grids of a QDQ model's pairs along the way (null where none).
    TypeAttr outputGrid, probsGrid, logitsGrid, scaledGrid, scoresGrid;
    Value probsIn = pv.getA(), end = pv.getResult();
    int64_t pvGroup = 1;
    if (auto rows = probsIn.getDefiningOp<ReshapeOp>()) {
      auto wide = soleUser<ReshapeOp>(pv.getResult());
      if (!wide || !rows->hasOneUse())
        return failure();
      pvGroup = rowsGroup(rows.getData(), pv.getResult(), wide.getResult());
      if (!pvGroup)
        return failure();
      probsIn = rows.getData();
      end = wide.getResult();
      after.push_back(wide);
      ops.push_back(rows);
    }
    auto softmax = singleUseDef<SoftmaxOp>(withoutGrid(probsIn, probsGrid, ops));
    if (!softmax)
      return failure();
    ArrayRef<int64_t> probsShape = shape4(softmax.getResult());
    int64_t axis = softmax.getAxisAttr().getInt();
    if (probsShape.empty() || (axis != -1 && axis != 3))
      return failure();
    ops.append({pv, softmax});
    const int64_t batch = probsShape[0], heads = probsShape[1], seq = probsShape[2],
                  keys = probsShape[3];

    // After P V: the output's grid, then the heads merge, where there are.
    if (auto fq = soleUser<FakeQuantizeOp>(end)) {
      outputGrid = fq.getQuantizationAttr();
      after.push_back(fq);
      end = fq.getResult();
    }
    const int64_t mergePerm[] = {0, 2, 1, 3};
    bool mergedOutput = false;
    Value mergeInput = end; // the result before the heads merge
    if (auto t = soleUser<TransposeOp>(end); t && t.getPerm() == ArrayRef<int64_t>(mergePerm))
      if (auto merge = soleUser<ReshapeOp>(t.getResult())) {
        auto type = dyn_cast<RankedTensorType>(merge.getType());
        if (type && type.hasStaticShape() && type.getRank() == 3) {
          after.append({t, merge});
          end = merge.getResult();
          mergedOutput = true;
        }
      }

    // logits = scaled (+ mask); scaled = scores (/ c | * c). Either operand
    // of the mask Add may be the scores: try both.
    Value logits = withoutGrid(softmax.getInput(), logitsGrid, ops);
    SmallVector<std::pair<Value, Value>> candidates; // (scaled, mask)
    if (auto add = singleUseDef<AddOp>(logits)) {
      candidates.push_back({add.getLhs(), add.getRhs()});
      candidates.push_back({add.getRhs(), add.getLhs()});
      ops.push_back(add);
    } else {
      candidates.push_back({logits, Value()});
    }
    MatMulOp qk;
    Value mask;
    double scale = 1.0;
    std::optional<double> divisor; // a Div's constant
    for (auto [scaledCandidate, maskCandidate] : candidates) {
      SmallVector<Operation *> found;
      TypeAttr scaledHere, scoresHere;
      // Without a mask the softmax input's grid was already taken.
      Value scaled = maskCandidate ? withoutGrid(scaledCandidate, scaledHere, found)
                                   : scaledCandidate;
      if (!scaled.hasOneUse())
        continue;
      double s = 1.0;
      std::optional<double> d;
      Value scores = scaled;
      if (auto div = singleUseDef<DivOp>(scaled)) {
        std::optional<double> c = getUniformFloat(div.getRhs());
        if (!c || *c == 0)
          continue;
        s = 1.0 / *c;
        d = c;
        scores = div.getLhs();
        found.push_back(div);
      } else if (auto mul = singleUseDef<MulOp>(scaled)) {
        std::optional<double> c = getUniformFloat(mul.getRhs());
        scores = mul.getLhs();
        if (!c) {
          c = getUniformFloat(mul.getLhs());
          scores = mul.getRhs();
        }
        if (!c)
          continue;
        s = *c;
        found.push_back(mul);
      }
      // A grid between Q K^T and the scale is the scores' own; with no
      // scale op the one grid found is the scaled scores'.
      if (scores != scaled)
        scores = withoutGrid(scores, scoresHere, found);
      // Q K^T, or grouped heads' rows of it read back as [B, H, S, T].
      MatMulOp m = singleUseDef<MatMulOp>(scores);
      int64_t qkGroup = 1;
      if (auto wide = singleUseDef<ReshapeOp>(scores); wide && pvGroup > 1) {
        m = singleUseDef<MatMulOp>(wide.getData());
        auto rows = m ? m.getA().getDefiningOp<ReshapeOp>() : ReshapeOp();
        qkGroup = 0;
        if (rows && rows->hasOneUse()) {
          qkGroup = rowsGroup(rows.getData(), m.getResult(), wide.getResult());
          found.append({wide, rows});
        }
      }
      if (m && qkGroup == pvGroup) {
        qk = m;
        mask = maskCandidate;
        scale = s;
        divisor = d;
        scaledGrid = scaledHere;
        scoresGrid = scoresHere;
        ops.append(found.begin(), found.end());
        break;
      }
    }
    if (!qk)
      return failure();
    ops.push_back(qk);

    // Q: torch's sqrt(scale) factor, the rows reshape of grouped heads.
    Value qValue = qk.getA();
    if (pvGroup > 1)
      qValue = qValue.getDefiningOp<ReshapeOp>().getData();
    double factor = 1.0;
    qValue = withoutScaling(qValue, factor, ops);
    std::optional<Operand> q = matchOperand(qValue, /*repeats=*/false, ops);
    // K^T: Transpose(Reshape(k), [0,2,3,1]), or a [0,1,3,2] transpose of a K
    // operand (shared like the head split: attentions of one key share it).
    const int64_t direct[] = {0, 2, 3, 1}, swap[] = {0, 1, 3, 2};
    Value keyT = withoutScaling(qk.getB(), factor, ops);
    std::optional<Operand> k;
    if (std::optional<HeadSplit> split = matchHeadSplit(keyT, direct, ops)) {
      k = Operand{split->source, false, split->heads, split->headDim, 1};
    } else if (auto t = keyT.getDefiningOp<TransposeOp>();
               t && t.getPerm() == ArrayRef<int64_t>(swap)) {
      ops.push_back(t);
      k = matchOperand(t.getInput(), /*repeats=*/pvGroup == 1, ops);
    }
    std::optional<Operand> v = matchOperand(pv.getB(), /*repeats=*/pvGroup == 1, ops);
    if (!q || !k || !v || q->group != 1 || k->group != v->group || k->heads != v->heads ||
        q->headDim != k->headDim || q->headDim != v->headDim || q->heads != heads)
      return failure();
    // One key head that the MatMuls broadcast to every query head
    // (multi-query attention) is a group of all of them.
    if (k->heads == 1 && k->group == 1 && pvGroup == 1)
      k->group = v->group = heads;
    if (k->heads * k->group * pvGroup != heads)
      return failure();
    scale *= factor;
    // A NaN or infinite scale (or one past f32) stays unfused: the graph
    // computes what it does to every score.
    if (!(std::fabs(scale) <= std::numeric_limits<float>::max()))
      return failure();
    if (factor != 1.0) // (a Div's exact quotient has no room for the factor)
      divisor.reset();
    const int64_t kvHeads = k->heads;
    Type element = cast<ShapedType>(qk.getType()).getElementType();
    if (mask && !broadcastsTo(mask, {batch, heads, seq, keys}, element))
      return failure();

    SmallVector<Value> operands{q->source, k->source, v->source};
    if (mask)
      operands.push_back(mask);
    SmallVector<NamedAttribute> attrs{
        rewriter.getNamedAttr("num_heads", rewriter.getI64IntegerAttr(heads)),
        rewriter.getNamedAttr("scale", rewriter.getF32FloatAttr(scale))};
    // (The divisor itself, for onnxruntime's f32 Div: x / c and x (1 / c)
    // round apart.)
    if (divisor)
      attrs.push_back(rewriter.getNamedAttr("scale_divisor", rewriter.getF32FloatAttr(*divisor)));
    // The result's type: where the merge reshapes to another than [B, S,
    // H*D], the result stays heads first before it.
    auto resultType = [&](bool merged) {
      return merged ? RankedTensorType::get({batch, seq, heads * q->headDim}, element)
                    : RankedTensorType::get({batch, heads, seq, q->headDim}, element);
    };
    if (mergedOutput && resultType(true) != end.getType()) {
      mergedOutput = false;
      end = mergeInput;
      after.pop_back_n(2);
    }
    if (resultType(mergedOutput) != end.getType())
      return failure();
    const bool headsMajor[] = {q->headsMajor, k->headsMajor, v->headsMajor, !mergedOutput};
    if (llvm::is_contained(headsMajor, true))
      attrs.push_back(
          rewriter.getNamedAttr("heads_major", rewriter.getDenseBoolArrayAttr(headsMajor)));
    if (kvHeads != heads)
      attrs.push_back(rewriter.getNamedAttr("kv_heads", rewriter.getI64IntegerAttr(kvHeads)));
    for (auto [name, grid] : {std::pair("scores_quantization", scoresGrid),
                              std::pair("scaled_quantization", scaledGrid),
                              std::pair("logits_quantization", logitsGrid),
                              std::pair("probs_quantization", probsGrid),
                              std::pair("output_quantization", outputGrid)})
      if (grid)
        attrs.push_back(rewriter.getNamedAttr(name, grid));
    Operation *replaced = end.getDefiningOp();
    ops.insert(ops.begin(), after.rbegin(), after.rend());
    rewriter.setInsertionPoint(replaced);
    FailureOr<Operation *> attention =
        createInferred(rewriter, fusedLoc(ops), AttentionOp::getOperationName(), operands,
                       attrs, 1, /*reportErrors=*/false);
    if (failed(attention))
      return failure();
    rewriter.replaceOp(replaced, (*attention)->getResults());
    return success();
  }
};

struct FuseAttentionPass : public mlir::nunc::impl::FuseAttentionBase<FuseAttentionPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<AttentionPattern>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
