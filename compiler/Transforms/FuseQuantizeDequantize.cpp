//===- FuseQuantizeDequantize.cpp - the Q/DQ pairs of QDQ models ----------===//

#include "PatternUtils.h"
#include "nunc/Dialect/Nunc/NuncUtils.h"
#include "nunc/Transforms/Passes.h"

#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <algorithm>
#include <cmath>

namespace mlir::nunc {
#define GEN_PASS_DEF_FUSEQUANTIZEDEQUANTIZE
#include "nunc/Transforms/Passes.h.inc"
} // namespace mlir::nunc

using namespace mlir;
using namespace mlir::nunc;

namespace {

/// Scale and zero point of a per-tensor Quantize/DequantizeLinear (a missing
/// zero point is 0).
struct TensorQuantization {
  double scale = 0;
  int64_t zeroPoint = 0;
  bool operator==(const TensorQuantization &o) const {
    return scale == o.scale && zeroPoint == o.zeroPoint;
  }
};

std::optional<TensorQuantization> perTensor(Value scale, Value zeroPoint) {
  std::optional<double> s = scalarConstant(scale);
  if (!s || !(*s > 0) || !std::isfinite(*s))
    return std::nullopt;
  TensorQuantization q{*s, 0};
  if (zeroPoint) {
    std::optional<double> z = scalarConstant(zeroPoint);
    if (!z)
      return std::nullopt;
    q.zeroPoint = static_cast<int64_t>(*z);
  }
  return q;
}

/// DequantizeLinear(QuantizeLinear(x, s, zp), s, zp) with one f32 scale and
/// zero point -> fake_quantize(x) on the grid !quant.uniform<st:f32, s:zp>.
/// The pair runs in one pass over f32 instead of two over a tensor and its
/// integer copy. Runs after nunc-fuse-linear, which takes the pairs that
/// feed a MatMul into quantized_linear's static input quantization.
struct QuantizeDequantizeToFakeQuantize : OpRewritePattern<DequantizeLinearOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DequantizeLinearOp dq, PatternRewriter &rewriter) const override {
    auto q = dq.getInput().getDefiningOp<QuantizeLinearOp>();
    if (!q)
      return failure();
    auto inType = dyn_cast<RankedTensorType>(q.getInput().getType());
    auto outType = dyn_cast<RankedTensorType>(dq.getType());
    if (!inType || !outType || !inType.getElementType().isF32() ||
        !outType.getElementType().isF32())
      return failure();
    std::optional<TensorQuantization> qq = perTensor(q.getScale(), q.getZeroPoint());
    std::optional<TensorQuantization> dqq = perTensor(dq.getScale(), dq.getZeroPoint());
    if (!qq || !dqq || !(*qq == *dqq))
      return failure();
    auto storage = dyn_cast<IntegerType>(cast<ShapedType>(q.getType()).getElementType());
    if (!storage || (storage.getWidth() != 8 && storage.getWidth() != 16))
      return failure();
    unsigned width = storage.getWidth();
    bool isSigned = !storage.isUnsigned();
    int64_t lo = isSigned ? -(int64_t(1) << (width - 1)) : 0;
    int64_t hi = isSigned ? (int64_t(1) << (width - 1)) - 1 : (int64_t(1) << width) - 1;
    MLIRContext *ctx = rewriter.getContext();
    // ONNX scales are f32; the grid keeps that exact value.
    double scale = static_cast<float>(qq->scale);
    Type grid = quant::UniformQuantizedType::get(
        isSigned ? quant::QuantizationFlags::Signed : 0, IntegerType::get(ctx, width),
        rewriter.getF32Type(), scale, qq->zeroPoint, lo, hi);
    rewriter.replaceOpWithNewOp<FakeQuantizeOp>(dq, dq.getType(), q.getInput(),
                                                TypeAttr::get(grid));
    return success();
  }
};

/// DequantizeLinear(DynamicQuantizeLinear(x)) with the DynamicQuantizeLinear's
/// own scale and zero point -> dynamic_fake_quantize(x): the grid comes from
/// x's range at run time, and the rounding needs no u8 tensor in between.
struct DynamicQuantizeDequantizeToFakeQuantize : OpRewritePattern<DequantizeLinearOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DequantizeLinearOp dq, PatternRewriter &rewriter) const override {
    auto q = dq.getInput().getDefiningOp<DynamicQuantizeLinearOp>();
    if (!q || dq.getInput() != q.getOutput() || dq.getScale() != q.getScale() ||
        dq.getZeroPoint() != q.getZeroPoint() || dq.getType() != q.getInput().getType())
      return failure();
    rewriter.replaceOpWithNewOp<DynamicFakeQuantizeOp>(dq, dq.getType(), q.getInput());
    return success();
  }
};

/// Whether every value of `v` already lies on `grid`: a fake_quantize to it,
/// a quantized_linear whose epilogue ends with it, or a reshape / transpose
/// of such a value (they move values without changing them).
bool onGrid(Value v, TypeAttr grid) {
  Operation *def = v.getDefiningOp();
  while (isa_and_nonnull<ReshapeOp, TransposeOp>(def))
    def = def->getOperand(0).getDefiningOp();
  if (auto fq = dyn_cast_or_null<FakeQuantizeOp>(def))
    return fq.getQuantizationAttr() == grid;
  if (auto lin = dyn_cast_or_null<QuantizedLinearOp>(def))
    return lin.getOutputQuantizationAttr() == grid;
  return false;
}

/// fake_quantize of a value already on its grid -> that value. Rounding a
/// grid value to its own grid gives it back bit for bit (k * scale divides
/// back to k exactly enough to round to k), so the pairs QDQ models repeat
/// after every Reshape and Transpose of a quantized tensor go: Q, K and V
/// reach attention as plain head splits, and no pass is spent on them.
struct FakeQuantizeOfGridValue : OpRewritePattern<FakeQuantizeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(FakeQuantizeOp fq, PatternRewriter &rewriter) const override {
    if (fq.getInput().getType() != fq.getType() ||
        !onGrid(fq.getInput(), fq.getQuantizationAttr()))
      return failure();
    rewriter.replaceOp(fq, fq.getInput());
    return success();
  }
};

/// fake_quantize of a Clip or Relu (read by nothing else, its input not on
/// a grid) whose bounds round to the grid's end codes, or lie beyond them
/// -> fake_quantize of its input: rounding is monotonic and saturates, so
/// every value the bound clamps takes that end code either way (a
/// QOperator model's Relu6 after a BatchNormalization that stays f32;
/// onnxruntime drops such a Clip too). The rounding can then join the op
/// before (the BatchNormalization, a conv's epilogue).
struct FakeQuantizeOfClipWithinItsGrid : OpRewritePattern<FakeQuantizeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(FakeQuantizeOp fq, PatternRewriter &rewriter) const override {
    Operation *def = fq.getInput().getDefiningOp();
    auto grid = dyn_cast<quant::UniformQuantizedType>(fq.getQuantization());
    if (!def || !def->hasOneUse() || !grid || fq.getInput().getType() != fq.getType())
      return failure();
    const auto scale = static_cast<float>(grid.getScale());
    const int64_t zp = grid.getZeroPoint();
    // The code a bound rounds to (QuantizeLinear's), within the grid.
    auto code = [&](double bound) {
      return std::clamp<double>(std::nearbyint(static_cast<float>(bound) / scale) + zp,
                                grid.getStorageTypeMin(), grid.getStorageTypeMax());
    };
    auto lowEnd = [&](std::optional<double> bound) {
      return !bound || code(*bound) == grid.getStorageTypeMin();
    };
    auto highEnd = [&](std::optional<double> bound) {
      return !bound || code(*bound) == grid.getStorageTypeMax();
    };
    Value input;
    if (auto clip = dyn_cast<ClipOp>(def)) {
      std::optional<double> lo, hi;
      if ((clip.getMin() && !(lo = scalarConstant(clip.getMin()))) ||
          (clip.getMax() && !(hi = scalarConstant(clip.getMax()))) || !lowEnd(lo) ||
          !highEnd(hi))
        return failure();
      input = clip.getInput();
    } else if (auto relu = dyn_cast<ReluOp>(def)) {
      if (!lowEnd(0.0))
        return failure();
      input = relu.getInput();
    } else {
      return failure();
    }
    // (Not where its input lies on a grid already, a pair's values: the
    // Clip and its pair are then a function of the input's code, which the
    // conv writing it looks up as a table; a lone requantization would
    // stay a pass of its own.)
    if (isa_and_nonnull<DequantizeLinearOp>(input.getDefiningOp()) || lastGridOf(input))
      return failure();
    rewriter.modifyOpInPlace(fq, [&] {
      fq.getInputMutable().assign(input);
      fq->setLoc(rewriter.getFusedLoc({def->getLoc(), fq.getLoc()}));
    });
    rewriter.eraseOp(def);
    return success();
  }
};

/// fake_quantize of a Reshape/Transpose chain (each op used only by the
/// next) whose users are all MatMuls of two computed operands (attention's
/// Q K^T and P V) -> the chain applied to the fake_quantize of its source.
/// Rounding commutes with moving values; a model that quantizes only its
/// MatMuls keeps the Q/DQ pairs of Q, K and V on the head splits, and once
/// moved they round in the GEMM epilogue (FakeQuantizeIntoLinear) and
/// attention fuses (nunc-fuse-attention). Only for such MatMuls: a pair
/// before a GEMM with a constant weight is that GEMM's static input
/// quantization (nunc-fuse-linear), which must stay where it is.
struct FakeQuantizeBeforeHeadSplit : OpRewritePattern<FakeQuantizeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(FakeQuantizeOp fq, PatternRewriter &rewriter) const override {
    auto computed = [](Value v) { return !v.getDefiningOp<ConstantOp>(); };
    if (fq->use_empty() || !llvm::all_of(fq->getUsers(), [&](Operation *u) {
          auto mm = dyn_cast<MatMulOp>(u);
          return mm && computed(mm.getA()) && computed(mm.getB());
        }))
      return failure();
    SmallVector<Operation *> chain; // from the fake_quantize back to the source
    Value source = fq.getInput();
    while (Operation *def = source.getDefiningOp()) {
      if (!isa<ReshapeOp, TransposeOp>(def) || !source.hasOneUse())
        break;
      chain.push_back(def);
      source = def->getOperand(0);
    }
    if (chain.empty() || !isa<RankedTensorType>(source.getType()))
      return failure();
    Value moved = FakeQuantizeOp::create(rewriter, fusedLoc({fq, chain.back()}),
                                         source.getType(), source,
                                         fq.getQuantizationAttr());
    for (Operation *op : llvm::reverse(chain)) {
      IRMapping mapping;
      mapping.map(op->getOperand(0), moved);
      moved = rewriter.clone(*op, mapping)->getResult(0);
    }
    rewriter.replaceOp(fq, moved);
    return success();
  }
};

/// Gather(DequantizeLinear(table, s, zp), ids) -> DequantizeLinear(Gather(
/// table, ids), s, zp) for a per-tensor s and zp: the embedding tables of
/// QDQ models stay in their integer form (a quarter of the bytes), and only
/// the gathered rows are dequantized, instead of the whole table every run.
struct GatherOfDequantize : OpRewritePattern<GatherOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GatherOp gather, PatternRewriter &rewriter) const override {
    auto dq = gather.getData().getDefiningOp<DequantizeLinearOp>();
    auto outType = dyn_cast<RankedTensorType>(gather.getType());
    if (!dq || !outType || !perTensor(dq.getScale(), dq.getZeroPoint()))
      return failure();
    Type storage = cast<ShapedType>(dq.getInput().getType()).getElementType();
    Location loc = fusedLoc({dq, gather});
    auto rows = GatherOp::create(rewriter, loc, outType.clone(storage), dq.getInput(),
                                 gather.getIndices(), gather.getAxisAttr());
    rewriter.replaceOpWithNewOp<DequantizeLinearOp>(gather, outType, rows.getResult(),
                                                    dq.getScale(), dq.getZeroPoint(),
                                                    dq.getAxisAttr());
    return success();
  }
};

/// fake_quantize of a quantized_linear result (its only use) ->
/// quantized_linear with that output_quantization: the GEMM epilogue rounds
/// the result, with no pass of its own.
struct FakeQuantizeIntoLinear : OpRewritePattern<FakeQuantizeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(FakeQuantizeOp fq, PatternRewriter &rewriter) const override {
    auto lin = singleUseDef<QuantizedLinearOp>(fq.getInput());
    if (!lin || lin.getOutputQuantization() || lin.getType() != fq.getType())
      return failure();
    rewriter.modifyOpInPlace(lin, [&] {
      lin.setOutputQuantizationAttr(fq.getQuantizationAttr());
      lin->setLoc(fusedLoc({lin, fq}));
    });
    rewriter.replaceOp(fq, lin.getResult());
    return success();
  }
};

/// fake_quantize of a quantized_conv result (its only use) -> quantized_conv
/// with that output_quantization (norm_quantization after a normalization):
/// a QDQ model's Q/DQ pair after a conv rounds in the conv's epilogue.
struct FakeQuantizeIntoConv : OpRewritePattern<FakeQuantizeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(FakeQuantizeOp fq, PatternRewriter &rewriter) const override {
    auto conv = singleUseDef<QuantizedConvOp>(fq.getInput());
    // After a normalization in the epilogue, the grid is the last step.
    bool normalized = conv && conv.getNormScale();
    if (!conv || conv.getType() != fq.getType() || conv.getLastGrid())
      return failure();
    rewriter.modifyOpInPlace(conv, [&] {
      if (normalized)
        conv.setNormQuantizationAttr(fq.getQuantizationAttr());
      else
        conv.setOutputQuantizationAttr(fq.getQuantizationAttr());
      conv->setLoc(fusedLoc({conv, fq}));
    });
    rewriter.replaceOp(fq, conv.getResult());
    return success();
  }
};

/// batch_norm of a fake_quantize result (its only use) -> batch_norm with
/// that input_quantization, and fake_quantize of a batch_norm result (its
/// only use) -> batch_norm with that output_quantization: the Q/DQ pairs a
/// QDQ model keeps around an unfolded BatchNormalization, rounded in the
/// pass that normalizes.
struct FakeQuantizeIntoBatchNorm : OpRewritePattern<BatchNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BatchNormOp bn, PatternRewriter &rewriter) const override {
    auto fq = singleUseDef<FakeQuantizeOp>(bn.getInput());
    if (!fq || bn.getInputQuantization())
      return failure();
    rewriter.modifyOpInPlace(bn, [&] {
      bn.getInputMutable().assign(fq.getInput());
      bn.setInputQuantizationAttr(fq.getQuantizationAttr());
      bn->setLoc(fusedLoc({fq, bn}));
    });
    rewriter.eraseOp(fq);
    return success();
  }
};

struct FakeQuantizeAfterBatchNorm : OpRewritePattern<FakeQuantizeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(FakeQuantizeOp fq, PatternRewriter &rewriter) const override {
    auto bn = singleUseDef<BatchNormOp>(fq.getInput());
    if (!bn || bn.getOutputQuantization() || bn.getType() != fq.getType())
      return failure();
    // A BN straight after a conv folds into it (nunc-fold-batch-norm,
    // nunc-fuse-conv), the pair then rounding in the conv's epilogue: a grid
    // on the BN would keep it from folding.
    if (!bn.getInputQuantization() &&
        isa_and_nonnull<ConvOp, FusedConvOp, QuantizedConvOp>(bn.getInput().getDefiningOp()) &&
        bn.getInput().hasOneUse())
      return failure();
    rewriter.modifyOpInPlace(bn, [&] {
      bn.setOutputQuantizationAttr(fq.getQuantizationAttr());
      bn->setLoc(fusedLoc({bn, fq}));
    });
    rewriter.replaceOp(fq, bn.getResult());
    return success();
  }
};

/// batch_norm (constant parameters) of an int8 conv's result (its only use)
/// with a grid between them (the conv's output_quantization or the BN's
/// input_quantization, not both) -> the conv normalizes in its epilogue:
/// norm_scale a = gamma / sqrt(var + eps), norm_shift b = beta - mean * a
/// (in double, then f32), and the BN's output grid as norm_quantization.
/// Without a grid between them the BN folds into the conv's weights instead
/// (nunc-fuse-conv).
struct BatchNormIntoConvEpilogue : OpRewritePattern<BatchNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BatchNormOp bn, PatternRewriter &rewriter) const override {
    auto conv = singleUseDef<QuantizedConvOp>(bn.getInput());
    if (!conv || conv.getNormScale() || bn.getType() != conv.getType() ||
        static_cast<bool>(conv.getOutputQuantization()) ==
            static_cast<bool>(bn.getInputQuantization()))
      return failure();
    int64_t m = cast<ShapedType>(conv.getWeight().getType()).getDimSize(0);
    std::optional<BatchNormParams> p = batchNormParams(bn, m);
    if (!p)
      return failure();
    SmallVector<float> a, b;
    p->affineF32(a, b);
    rewriter.setInsertionPoint(conv);
    Location loc = fusedLoc({conv, bn});
    Value normScale = createF32Constant(rewriter, loc, {m}, a, "norm_scale");
    Value normShift = createF32Constant(rewriter, loc, {m}, b, "norm_shift");
    rewriter.modifyOpInPlace(conv, [&] {
      conv.getNormScaleMutable().assign(normScale);
      conv.getNormShiftMutable().assign(normShift);
      if (std::optional<Type> grid = bn.getInputQuantization())
        conv.setOutputQuantizationAttr(TypeAttr::get(*grid));
      if (std::optional<Type> grid = bn.getOutputQuantization())
        conv.setNormQuantizationAttr(TypeAttr::get(*grid));
      conv->setLoc(loc);
    });
    rewriter.replaceOp(bn, conv.getResult());
    return success();
  }
};

struct FuseQuantizeDequantizePass
    : public mlir::nunc::impl::FuseQuantizeDequantizeBase<FuseQuantizeDequantizePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<QuantizeDequantizeToFakeQuantize, DynamicQuantizeDequantizeToFakeQuantize,
                 FakeQuantizeOfGridValue, FakeQuantizeOfClipWithinItsGrid,
                 FakeQuantizeBeforeHeadSplit,
                 GatherOfDequantize,
                 FakeQuantizeIntoLinear,
                 FakeQuantizeIntoConv, FakeQuantizeIntoBatchNorm, FakeQuantizeAfterBatchNorm,
                 BatchNormIntoConvEpilogue>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
