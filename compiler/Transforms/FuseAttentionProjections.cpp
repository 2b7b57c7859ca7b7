//===- FuseAttentionProjections.cpp - Q, K and V from one GEMM ------------===//
//
// Self-attention's three projections read the same input: one GEMM with the
// weights side by side computes all three, quantizes the input once (int8
// with dynamic or static activations) and runs at the efficiency of N = 3E
// instead of three GEMMs of N = E. The attention then reads its heads from
// the packed result (input_offsets).
//
//===----------------------------------------------------------------------===//

#include "PatternUtils.h"
#include "nunc/Interpreter/Evaluator.h"
#include "nunc/Transforms/Passes.h"

#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::nunc {
#define GEN_PASS_DEF_FUSEATTENTIONPROJECTIONS
#include "nunc/Transforms/Passes.h.inc"
} // namespace mlir::nunc

using namespace mlir;
using namespace mlir::nunc;

namespace {

/// One projection's constant weight [K, N] and bias [N] (empty: none).
struct Projection {
  Operation *op;
  int64_t n = 0;
  SmallVector<float> weight, bias; // linear
  Tensor weightI8;                 // quantized_linear: the 8-bit storage
  SmallVector<double> scales;      // quantized_linear: one per column
  SmallVector<int64_t> zeroPoints; // quantized_linear: one per column (u8)
};

/// The s8 weight of a quantized_linear (zero points 0), or a u8 one with
/// zero points: its storage and one scale and zero point per output column
/// (per-tensor ones repeated). Fails for other forms.
LogicalResult readQuantizedWeight(Value weight, Projection &p, int64_t &qmin, int64_t &qmax) {
  auto scast = weight.getDefiningOp<quant::StorageCastOp>();
  if (!scast)
    return failure();
  auto constant = scast.getInput().getDefiningOp<ConstantOp>();
  if (!constant)
    return failure();
  llvm::Expected<Tensor> storage = tensorFromAttr(constant.getValue());
  if (!storage) {
    llvm::consumeError(storage.takeError());
    return failure();
  }
  if (storage->dtype() != DType::I8)
    return failure();
  Type element = cast<ShapedType>(scast.getType()).getElementType();
  // u8 storage and zero points: the qmin / qmax comparison keeps the three
  // of one kind.
  if (auto perAxis = dyn_cast<quant::UniformQuantizedPerAxisType>(element)) {
    if (perAxis.getQuantizedDimension() != 1 ||
        (perAxis.isSigned() &&
         llvm::any_of(perAxis.getZeroPoints(), [](int64_t z) { return z != 0; })))
      return failure();
    p.scales.assign(perAxis.getScales().begin(), perAxis.getScales().end());
    p.zeroPoints.assign(perAxis.getZeroPoints().begin(), perAxis.getZeroPoints().end());
    qmin = perAxis.getStorageTypeMin();
    qmax = perAxis.getStorageTypeMax();
  } else if (auto perTensor = dyn_cast<quant::UniformQuantizedType>(element)) {
    if (perTensor.isSigned() && perTensor.getZeroPoint() != 0)
      return failure();
    p.scales.assign(p.n, perTensor.getScale());
    p.zeroPoints.assign(p.n, perTensor.getZeroPoint());
    qmin = perTensor.getStorageTypeMin();
    qmax = perTensor.getStorageTypeMax();
  } else {
    return failure();
  }
  p.weightI8 = std::move(*storage);
  return success(static_cast<int64_t>(p.scales.size()) == p.n);
}

struct ProjectionsIntoOneGemm : OpRewritePattern<AttentionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(AttentionOp at, PatternRewriter &rewriter) const override {
    // (Packed operands are [B, S, E] columns of equal width.)
    if (at.getInputOffsets() || at.hasHeadsFirstOrGroups())
      return failure();
    Value qkv[3] = {at.getQuery(), at.getKey(), at.getValue()};
    if (qkv[0] == qkv[1] || qkv[1] == qkv[2] || qkv[0] == qkv[2])
      return failure();
    SmallVector<Projection, 3> projections;
    for (Value v : qkv) {
      Operation *op = v.getDefiningOp();
      if (!op || !v.hasOneUse() || !isa<LinearOp, QuantizedLinearOp>(op))
        return failure();
      projections.push_back({op});
    }
    Operation *first = projections[0].op;
    // The same op kind, input and attributes (activation, quantization,
    // operand segments: bias in all or none, no residual).
    Value input = first->getOperand(0);
    auto inputType = dyn_cast<RankedTensorType>(input.getType());
    if (!inputType || !inputType.hasStaticShape() || inputType.getRank() != 3)
      return failure();
    const int64_t width = at.hiddenSize();
    for (Projection &p : projections) {
      if (p.op->getName() != first->getName() || p.op->getOperand(0) != input ||
          p.op->getAttrDictionary() != first->getAttrDictionary())
        return failure();
      auto resultType = dyn_cast<RankedTensorType>(p.op->getResult(0).getType());
      auto weightType = dyn_cast<RankedTensorType>(p.op->getOperand(1).getType());
      if (!resultType || !resultType.hasStaticShape() || !resultType.getElementType().isF32() ||
          !weightType || !weightType.hasStaticShape() || weightType.getRank() != 2)
        return failure();
      p.n = weightType.getDimSize(1);
      if (p.n != width)
        return failure();
    }
    bool quantized = isa<QuantizedLinearOp>(first);
    if (auto lin = dyn_cast<LinearOp>(first); lin && lin.getResidual())
      return failure();
    if (auto ql = dyn_cast<QuantizedLinearOp>(first); ql && (ql.getResidual() || ql.getU8Output()))
      return failure();
    bool hasBias = quantized ? static_cast<bool>(cast<QuantizedLinearOp>(first).getBias())
                             : static_cast<bool>(cast<LinearOp>(first).getBias());
    const int64_t k = cast<ShapedType>(first->getOperand(1).getType()).getDimSize(0);
    int64_t qmin = 0, qmax = 0;
    for (Projection &p : projections) {
      Value weight = p.op->getOperand(1);
      // (4-bit weights: onnxruntime's three f32 MatMuls, each its own sums'
      // k blocks; see nunc-one-step-requantization.)
      if (holdsFourBitCodes(weight))
        return failure();
      if (quantized) {
        int64_t lo = 0, hi = 0;
        if (failed(readQuantizedWeight(weight, p, lo, hi)) ||
            (&p != &projections[0] && (lo != qmin || hi != qmax)))
          return failure();
        qmin = lo;
        qmax = hi;
      } else {
        std::optional<SmallVector<float>> w = getConstantFloats(weight);
        if (!w)
          return failure();
        p.weight = std::move(*w);
      }
      if (hasBias) {
        std::optional<SmallVector<float>> b = getConstantFloats(p.op->getOperand(2));
        if (!b || static_cast<int64_t>(b->size()) != p.n)
          return failure();
        p.bias = std::move(*b);
      }
    }

    // The weights side by side: [K, 3E], Q's columns first.
    const int64_t total = 3 * width;
    Operation *earliest = first;
    for (Projection &p : projections)
      if (p.op->isBeforeInBlock(earliest))
        earliest = p.op;
    rewriter.setInsertionPoint(earliest);
    Location loc = fusedLoc({projections[0].op, projections[1].op, projections[2].op});
    Value weight;
    if (quantized) {
      SmallVector<int8_t> w(k * total);
      SmallVector<double> scales;
      SmallVector<int64_t> zeroPoints;
      for (auto [i, p] : llvm::enumerate(projections)) {
        const int8_t *from = p.weightI8.as<int8_t>();
        for (int64_t row = 0; row < k; ++row)
          std::copy(from + row * width, from + (row + 1) * width,
                    w.begin() + row * total + i * width);
        scales.append(p.scales);
        zeroPoints.append(p.zeroPoints);
      }
      MLIRContext *ctx = rewriter.getContext();
      Type i8 = IntegerType::get(ctx, 8);
      ElementsAttr attr = attrFromTensor(
          cantFail(Tensor::fromValues<int8_t>(DType::I8, {k, total}, w)), ctx, "qkv_weight");
      Value storage = ConstantOp::create(rewriter, loc, attr.getType(), attr);
      auto element = quant::UniformQuantizedPerAxisType::get(
          qmin < 0 ? quant::QuantizationFlags::Signed : 0, i8, rewriter.getF32Type(), scales,
          zeroPoints, /*quantizedDimension=*/1, qmin, qmax);
      weight = quant::StorageCastOp::create(rewriter, loc,
                                            RankedTensorType::get({k, total}, element), storage);
    } else {
      SmallVector<float> w(k * total);
      for (auto [i, p] : llvm::enumerate(projections))
        for (int64_t row = 0; row < k; ++row)
          std::copy(p.weight.begin() + row * width, p.weight.begin() + (row + 1) * width,
                    w.begin() + row * total + i * width);
      weight = createF32Constant(rewriter, loc, {k, total}, w, "qkv_weight");
    }
    Value bias;
    if (hasBias) {
      SmallVector<float> values;
      for (Projection &p : projections)
        values.append(p.bias);
      bias = createF32Constant(rewriter, loc, {total}, values, "qkv_bias");
    }
    Operation *fused = rewriter.clone(*first);
    fused->setLoc(loc);
    fused->setOperand(1, weight);
    if (hasBias)
      fused->setOperand(2, bias);
    auto resultType = cast<RankedTensorType>(first->getResult(0).getType());
    fused->getResult(0).setType(RankedTensorType::get(
        {resultType.getDimSize(0), resultType.getDimSize(1), total}, resultType.getElementType()));

    Value packed = fused->getResult(0);
    rewriter.modifyOpInPlace(at, [&] {
      at->setOperand(0, packed);
      at->setOperand(1, packed);
      at->setOperand(2, packed);
      at.setInputOffsets(ArrayRef<int64_t>{0, width, 2 * width});
      at.setInputWidth(width);
    });
    for (Projection &p : projections)
      rewriter.eraseOp(p.op);
    return success();
  }
};

struct FuseAttentionProjectionsPass
    : public mlir::nunc::impl::FuseAttentionProjectionsBase<FuseAttentionProjectionsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ProjectionsIntoOneGemm>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
