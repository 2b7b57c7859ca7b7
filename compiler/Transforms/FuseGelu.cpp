//===- FuseGelu.cpp - exported GELU subgraphs to nunc.gelu ----------------===//

#include "PatternUtils.h"
#include "nunc/Transforms/Passes.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>

namespace mlir::nunc {
#define GEN_PASS_DEF_FUSEGELU
#include "nunc/Transforms/Passes.h.inc"
} // namespace mlir::nunc

using namespace mlir;
using namespace mlir::nunc;

namespace {

/// Flattens a tree of single-use Muls into its factors.
void collectFactors(Value v, bool isRoot, SmallVectorImpl<Value> &factors,
                    SmallVectorImpl<Operation *> &muls) {
  auto mul = v.getDefiningOp<MulOp>();
  if (mul && (isRoot || v.hasOneUse()) && muls.size() < 4) {
    muls.push_back(mul);
    collectFactors(mul.getLhs(), false, factors, muls);
    collectFactors(mul.getRhs(), false, factors, muls);
    return;
  }
  factors.push_back(v);
}

/// Matches `x * c` or `x / (1/c)` (either Mul operand order), the constant
/// within `tolerance` (relative); returns x.
Value matchScaledBy(Value v, double c, SmallVectorImpl<Operation *> &ops,
                    double tolerance = 1e-4) {
  Operation *def = v.getDefiningOp();
  if (!def || !v.hasOneUse())
    return nullptr;
  if (auto div = dyn_cast<DivOp>(def)) {
    if (isFloatConstant(div.getRhs(), 1.0 / c, tolerance)) {
      ops.push_back(div);
      return div.getLhs();
    }
  } else if (auto mul = dyn_cast<MulOp>(def)) {
    for (auto [a, b] : {std::pair(mul.getLhs(), mul.getRhs()),
                        std::pair(mul.getRhs(), mul.getLhs())})
      if (isFloatConstant(b, c, tolerance)) {
        ops.push_back(mul);
        return a;
      }
  }
  return nullptr;
}

/// Matches `1 + f` (either order; the 1 within `tolerance`); returns f,
/// and the constant's value in `one` if given.
Value matchOnePlus(Value v, SmallVectorImpl<Operation *> &ops, double tolerance = 1e-4,
                   float *one = nullptr) {
  auto add = singleUseDef<AddOp>(v);
  if (!add)
    return nullptr;
  for (auto [a, b] : {std::pair(add.getLhs(), add.getRhs()),
                      std::pair(add.getRhs(), add.getLhs())})
    if (isFloatConstant(b, 1.0, tolerance)) {
      if (one)
        *one = static_cast<float>(*getUniformFloat(b));
      ops.push_back(add);
      return a;
    }
  return nullptr;
}

/// erf(x / sqrt 2) -> x.
Value matchErfArgument(Value v, SmallVectorImpl<Operation *> &ops, double tolerance = 1e-4) {
  auto erf = singleUseDef<ErfOp>(v);
  if (!erf)
    return nullptr;
  ops.push_back(erf);
  return matchScaledBy(erf.getInput(), M_SQRT1_2, ops, tolerance);
}

/// tanh(sqrt(2/pi) * (x + 0.044715 * x^3)) -> x.
Value matchTanhArgument(Value v, SmallVectorImpl<Operation *> &ops) {
  auto tanh = singleUseDef<TanhOp>(v);
  if (!tanh)
    return nullptr;
  ops.push_back(tanh);
  Value inner = matchScaledBy(tanh.getInput(), 0.7978845608028654, ops);
  auto add = singleUseDef<AddOp>(inner);
  if (!add)
    return nullptr;
  ops.push_back(add);
  for (auto [x, cubic] : {std::pair(add.getLhs(), add.getRhs()),
                          std::pair(add.getRhs(), add.getLhs())}) {
    SmallVector<Operation *> local;
    Value cube = matchScaledBy(cubic, 0.044715, local);
    if (auto pow = singleUseDef<PowOp>(cube)) {
      if (pow.getLhs() == x && isFloatConstant(pow.getRhs(), 3.0)) {
        ops.append(local.begin(), local.end());
        ops.push_back(pow);
        return x;
      }
    }
    // x^3 written as x * (x * x), in either order (torch's opset-9 export).
    if (auto outer = singleUseDef<MulOp>(cube)) {
      for (auto [a, b] : {std::pair(outer.getLhs(), outer.getRhs()),
                          std::pair(outer.getRhs(), outer.getLhs())}) {
        auto square = singleUseDef<MulOp>(b);
        if (a == x && square && square.getLhs() == x && square.getRhs() == x) {
          ops.append(local.begin(), local.end());
          ops.append({outer, square});
          return x;
        }
      }
    }
  }
  return nullptr;
}

/// Replaces `root` with gelu(x) carrying `attrs`, located at the matched ops.
LogicalResult replaceWithGelu(PatternRewriter &rewriter, Operation *root, Value x,
                              ArrayRef<NamedAttribute> attrs, ArrayRef<Operation *> matched) {
  FailureOr<Operation *> gelu = createInferred(rewriter, fusedLoc(matched),
                                               GeluOp::getOperationName(), {x}, attrs, 1,
                                               /*reportErrors=*/false);
  if (failed(gelu))
    return failure();
  keepResultTypes(*gelu, root);
  rewriter.replaceOp(root, (*gelu)->getResults());
  return success();
}

struct GeluPattern : OpRewritePattern<MulOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MulOp root, PatternRewriter &rewriter) const override {
    SmallVector<Value> factors;
    SmallVector<Operation *> ops;
    collectFactors(root, true, factors, ops);
    if (factors.size() != 3)
      return failure();
    // One factor is 0.5, one is (1 + erf/tanh(...x...)), one is x itself.
    for (int half = 0; half < 3; ++half) {
      if (!isFloatConstant(factors[half], 0.5))
        continue;
      for (int gate = 0; gate < 3; ++gate) {
        if (gate == half)
          continue;
        Value x = factors[3 - half - gate];
        SmallVector<Operation *> matched(ops);
        Value f = matchOnePlus(factors[gate], matched);
        if (!f)
          continue;
        StringRef approximate;
        if (matchErfArgument(f, matched) == x)
          approximate = "none";
        else if (matchTanhArgument(f, matched) == x)
          approximate = "tanh";
        else
          continue;
        if (x.getType() != root.getType())
          return failure();
        return replaceWithGelu(
            rewriter, root, x,
            {rewriter.getNamedAttr("approximate", rewriter.getStringAttr(approximate))},
            matched);
      }
    }
    return failure();
  }
};

/// v's fake_quantize (its only use) input and grid, or v and null.
std::pair<Value, TypeAttr> withoutGrid(Value v, SmallVectorImpl<Operation *> &ops) {
  auto fq = singleUseDef<FakeQuantizeOp>(v);
  if (!fq)
    return {v, nullptr};
  ops.push_back(fq);
  return {fq.getInput(), fq.getQuantizationAttr()};
}

/// The f32 value of a one-element constant within `tolerance` (relative)
/// of `want`.
std::optional<float> constantNear(Value v, double want, double tolerance) {
  std::optional<double> c = getUniformFloat(v);
  if (!c || !isFloatConstant(v, want, tolerance) ||
      !getElementTypeOrSelf(v.getType()).isF32())
    return std::nullopt;
  return static_cast<float>(*c);
}

/// GELU as a QDQ model (quantize_static) keeps it, a Q/DQ pair (by now a
/// fake_quantize) after the Erf, the Add of 1 and the Mul by x:
/// Mul(round_p(Mul(x, round_s(Add(round_e(Erf(x / sqrt 2)), one)))), half),
/// operands of each Add/Mul in either order. `one` and `half` are the
/// model's dequantized constants, folded: 1 and 0.5, or within 1 % of them
/// where the model quantized them too (symmetric activations: 0.99608,
/// 0.49804); nunc.gelu carries their exact values. sqrt 2 (or 1 / sqrt 2)
/// must be the float nearest it: between the grids a divisor a little off
/// would move values across rounding boundaries.
struct GeluWithGridsPattern : OpRewritePattern<MulOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MulOp root, PatternRewriter &rewriter) const override {
    // f32 sqrt 2 and 1 / sqrt 2 are within 3e-8 (relative) of the reals.
    constexpr double kNearestFloat = 6e-8, kQuantizedConstant = 0.01;
    for (auto [product, halfValue] : {std::pair(root.getLhs(), root.getRhs()),
                                      std::pair(root.getRhs(), root.getLhs())}) {
      std::optional<float> half = constantNear(halfValue, 0.5, kQuantizedConstant);
      if (!half)
        continue;
      SmallVector<Operation *> ops{root};
      auto [unrounded, productGrid] = withoutGrid(product, ops);
      auto mul = singleUseDef<MulOp>(unrounded);
      if (!mul)
        continue;
      ops.push_back(mul);
      for (auto [x, gate] : {std::pair(mul.getLhs(), mul.getRhs()),
                             std::pair(mul.getRhs(), mul.getLhs())}) {
        SmallVector<Operation *> matched(ops);
        auto [sum, sumGrid] = withoutGrid(gate, matched);
        float one = 1.f;
        Value rounded = matchOnePlus(sum, matched, kQuantizedConstant, &one);
        if (!rounded)
          continue;
        auto [erf, erfGrid] = withoutGrid(rounded, matched);
        if (!(productGrid || sumGrid || erfGrid) ||
            matchErfArgument(erf, matched, kNearestFloat) != x || x.getType() != root.getType())
          continue;
        SmallVector<NamedAttribute> attrs{
            rewriter.getNamedAttr("approximate", rewriter.getStringAttr("none"))};
        for (auto [name, grid] : {std::pair("erf_quantization", erfGrid),
                                  std::pair("sum_quantization", sumGrid),
                                  std::pair("product_quantization", productGrid)})
          if (grid)
            attrs.push_back(rewriter.getNamedAttr(name, grid));
        if (one != 1.f)
          attrs.push_back(rewriter.getNamedAttr("one", rewriter.getF32FloatAttr(one)));
        if (*half != 0.5f)
          attrs.push_back(rewriter.getNamedAttr("half", rewriter.getF32FloatAttr(*half)));
        // The constants' codes grids (folded from their DequantizeLinears;
        // their readers record them), for onnxruntime's QLinearAdd /
        // QLinearMul steps (qlinearGeluCode): the 1 only as the Add's second
        // operand (QLinearAdd rounds in its operands' order), and only with
        // erf's argument a Div by sqrt 2 (as exporters write it; those
        // steps divide, where x * (1 / sqrt 2) can be an ulp apart).
        auto add = sum.getDefiningOp<AddOp>();
        if (isa<DivOp>(matched.back()) && add && add.getLhs() == rounded) {
          TypeAttr one = codesGridOf(add->getOpOperand(1)),
                   half = codesGridOf(root->getOpOperand(halfValue == root.getLhs() ? 0 : 1));
          if (one && half) {
            attrs.push_back(rewriter.getNamedAttr("one_quantization", one));
            attrs.push_back(rewriter.getNamedAttr("half_quantization", half));
          }
        }
        return replaceWithGelu(rewriter, root, x, attrs, matched);
      }
    }
    return failure();
  }
};

struct FuseGeluPass : public mlir::nunc::impl::FuseGeluBase<FuseGeluPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<GeluPattern, GeluWithGridsPattern>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
