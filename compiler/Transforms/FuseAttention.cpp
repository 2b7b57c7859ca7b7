//===- FuseAttention.cpp - exported multi-head attention to nunc.attention ===//

#include "PatternUtils.h"
#include "nunc/Transforms/Passes.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

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

/// K^T per head: Transpose(Reshape(k), [0,2,3,1]), or the same written as two
/// transposes ([0,2,1,3] then [0,1,3,2]).
std::optional<HeadSplit> matchKeyTranspose(Value v, SmallVectorImpl<Operation *> &ops) {
  const int64_t direct[] = {0, 2, 3, 1}, heads[] = {0, 2, 1, 3}, swap[] = {0, 1, 3, 2};
  if (std::optional<HeadSplit> k = matchHeadSplit(v, direct, ops))
    return k;
  // (Shared like the head split: attentions of one key share its K^T.)
  auto outer = v.getDefiningOp<TransposeOp>();
  if (!outer || outer.getPerm() != ArrayRef<int64_t>(swap))
    return std::nullopt;
  std::optional<HeadSplit> k = matchHeadSplit(outer.getInput(), heads, ops);
  if (k)
    ops.push_back(outer);
  return k;
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

struct AttentionPattern : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ReshapeOp merge, PatternRewriter &rewriter) const override {
    const int64_t heads[] = {0, 2, 1, 3};
    auto outType = dyn_cast<RankedTensorType>(merge.getType());
    if (!outType || !outType.hasStaticShape() || outType.getRank() != 3)
      return failure();
    SmallVector<Operation *> ops{merge};
    auto mergeT = singleUseDef<TransposeOp>(merge.getData());
    if (!mergeT || mergeT.getPerm() != ArrayRef<int64_t>(heads))
      return failure();
    ops.push_back(mergeT);
    // The grids of a QDQ model's pairs along the way (null where none).
    TypeAttr outputGrid, probsGrid, logitsGrid, scaledGrid, scoresGrid;
    auto pv = singleUseDef<MatMulOp>(withoutGrid(mergeT.getInput(), outputGrid, ops));
    if (!pv)
      return failure();
    auto softmax = singleUseDef<SoftmaxOp>(withoutGrid(pv.getA(), probsGrid, ops));
    if (!softmax)
      return failure();
    auto probsType = cast<ShapedType>(softmax.getType());
    int64_t axis = softmax.getAxisAttr().getInt();
    if (!probsType.hasRank() || probsType.getRank() != 4 || (axis != -1 && axis != 3))
      return failure();
    ops.append({pv, softmax});

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
      if (auto m = singleUseDef<MatMulOp>(scores)) {
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

    std::optional<HeadSplit> q = matchHeadSplit(qk.getA(), heads, ops);
    std::optional<HeadSplit> k = matchKeyTranspose(qk.getB(), ops);
    std::optional<HeadSplit> v = matchHeadSplit(pv.getB(), heads, ops);
    if (!q || !k || !v || q->heads != k->heads || q->heads != v->heads ||
        q->headDim != k->headDim || q->headDim != v->headDim ||
        q->source.getType() != merge.getType() ||
        k->source.getType() != v->source.getType())
      return failure();
    auto qType = cast<RankedTensorType>(q->source.getType());
    auto kType = cast<RankedTensorType>(k->source.getType());
    if (mask && !broadcastsTo(mask,
                              {qType.getDimSize(0), q->heads, qType.getDimSize(1),
                               kType.getDimSize(1)},
                              qType.getElementType()))
      return failure();

    SmallVector<Value> operands{q->source, k->source, v->source};
    if (mask)
      operands.push_back(mask);
    SmallVector<NamedAttribute> attrs{
        rewriter.getNamedAttr("num_heads", rewriter.getI64IntegerAttr(q->heads)),
        rewriter.getNamedAttr("scale", rewriter.getF32FloatAttr(scale))};
    // (The divisor itself, for onnxruntime's f32 Div: x / c and x (1 / c)
    // round apart.)
    if (divisor)
      attrs.push_back(rewriter.getNamedAttr("scale_divisor", rewriter.getF32FloatAttr(*divisor)));
    for (auto [name, grid] : {std::pair("scores_quantization", scoresGrid),
                              std::pair("scaled_quantization", scaledGrid),
                              std::pair("logits_quantization", logitsGrid),
                              std::pair("probs_quantization", probsGrid),
                              std::pair("output_quantization", outputGrid)})
      if (grid)
        attrs.push_back(rewriter.getNamedAttr(name, grid));
    FailureOr<Operation *> attention =
        createInferred(rewriter, fusedLoc(ops), AttentionOp::getOperationName(), operands,
                       attrs, 1, /*reportErrors=*/false);
    if (failed(attention))
      return failure();
    keepResultTypes(*attention, merge);
    rewriter.replaceOp(merge, (*attention)->getResults());
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
