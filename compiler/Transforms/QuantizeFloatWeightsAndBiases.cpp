//===- QuantizeFloatWeightsAndBiases.cpp - a QDQ model's f32 weights as codes ===//
//
// Some QDQ models leave the weight or the bias of a Conv, ConvTranspose or
// Gemm between Q/DQ pairs in f32 (quantize_static with QuantizeBias=False,
// QOperator models around ops without a QLinear form, other quantizers).
// onnxruntime's default session quantizes them when it loads the model
// (its WeightBiasQuantization, at the basic level): the weight to s8 codes
// on one asymmetric grid over its range, the bias to s32 codes on the grid
// of the input's scale times the weight's. Its QLinearConv and QGemm then
// run on those codes. Rewritten here the same way, before anything folds,
// the model reaches nunc's int8 kernels as a fully quantized one does, and
// computes what onnxruntime computes.
//
//===----------------------------------------------------------------------===//

#include "PatternUtils.h"
#include "nunc/Interpreter/Evaluator.h"
#include "nunc/Transforms/Passes.h"

#include <cmath>

namespace mlir::nunc {
#define GEN_PASS_DEF_QUANTIZEFLOATWEIGHTSANDBIASES
#include "nunc/Transforms/Passes.h.inc"
} // namespace mlir::nunc

using namespace mlir;
using namespace mlir::nunc;

namespace {

/// The op's only user, following Relu and Clip (each used once too), is a
/// QuantizeLinear: the op's result reaches a grid and nothing else.
bool reachesOneGrid(Operation *op) {
  Value v = op->getResult(0);
  while (true) {
    if (!v.hasOneUse())
      return false;
    Operation *user = *v.getUsers().begin();
    if (isa<QuantizeLinearOp>(user))
      return true;
    if (!isa<ReluOp, ClipOp>(user))
      return false;
    v = user->getResult(0);
  }
}

/// The elements of an f32 constant, or std::nullopt.
std::optional<SmallVector<float>> f32Constant(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type || !type.getElementType().isF32() || !type.hasStaticShape())
    return std::nullopt;
  return getConstantFloats(v);
}

/// onnxruntime's s8 grid for a tensor's values (GetQuantizationParameter):
/// its range widened to hold 0, over 255 steps, the zero point rounded
/// half to even from -128 - min / scale. All in f32, as there.
struct S8Grid {
  float scale;
  int8_t zeroPoint;
};
S8Grid gridOver(ArrayRef<float> values) {
  float lo = 0.f, hi = 0.f;
  for (float v : values) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  float scale = hi == lo ? 1.f : (hi - lo) / 255.f;
  float zero = std::clamp(-128.f - lo / scale, -128.f, 127.f);
  return {scale, static_cast<int8_t>(std::nearbyint(zero))};
}

/// A per-tensor DequantizeLinear of constant codes (zero point: none or s8).
Value dequantizedConstant(OpBuilder &b, Location loc, Tensor codes, float scale,
                          std::optional<int8_t> zeroPoint, StringRef name) {
  MLIRContext *ctx = b.getContext();
  ElementsAttr attr = attrFromTensor(codes, ctx, name);
  Value q = ConstantOp::create(b, loc, attr.getType(), attr);
  auto scaleType = RankedTensorType::get({}, b.getF32Type());
  Value s = ConstantOp::create(b, loc, scaleType, DenseElementsAttr::get(scaleType, scale));
  Value z;
  if (zeroPoint) {
    auto zType = RankedTensorType::get({}, IntegerType::get(ctx, 8));
    z = ConstantOp::create(b, loc, zType,
                           DenseElementsAttr::get(zType, APInt(8, static_cast<uint64_t>(
                                                                      *zeroPoint), true)));
  }
  auto outType = RankedTensorType::get(codes.shape(), b.getF32Type());
  return DequantizeLinearOp::create(b, loc, outType, q, s, z, b.getI64IntegerAttr(1));
}

/// Rewrites one Conv / ConvTranspose / Gemm as onnxruntime's
/// WeightBiasQuantization does, or leaves it as it is.
void quantizeWeightAndBias(Operation *op) {
  Value input = op->getOperand(0), weight = op->getOperand(1);
  Value bias = op->getNumOperands() > 2 ? op->getOperand(2) : Value();
  auto dqInput = input.getDefiningOp<DequantizeLinearOp>();
  if (!dqInput || !scalarConstant(dqInput.getScale()) || !reachesOneGrid(op))
    return;
  float inputScale = static_cast<float>(*scalarConstant(dqInput.getScale()));
  auto dqWeight = weight.getDefiningOp<DequantizeLinearOp>();
  std::optional<SmallVector<float>> weightValues;
  if (!dqWeight && !(weightValues = f32Constant(weight)))
    return;
  // (A weight with an infinity or a NaN has no grid: left as written.)
  if (weightValues && !llvm::all_of(*weightValues, [](float w) { return std::isfinite(w); }))
    return;
  std::optional<SmallVector<float>> biasValues;
  if (bias) {
    auto biasType = dyn_cast<RankedTensorType>(bias.getType());
    if (!biasType || biasType.getRank() != 1 || !(biasValues = f32Constant(bias)))
      return;
  }
  if (dqWeight && !biasValues)
    return;

  // The weight's scales: its DequantizeLinear's (per tensor, or per output
  // channel along the axis onnxruntime expects, one per bias element), or
  // the one grid its f32 values get.
  SmallVector<float> weightScales;
  bool perChannel = false;
  if (dqWeight) {
    std::optional<SmallVector<float>> s = getConstantFloats(dqWeight.getScale());
    auto sType = dyn_cast<RankedTensorType>(dqWeight.getScale().getType());
    if (!s || !sType)
      return;
    if (s->size() != 1) {
      auto wType = dyn_cast<RankedTensorType>(weight.getType());
      int64_t expected = 0;
      if (auto gemm = dyn_cast<GemmOp>(op))
        expected = gemm.getTransB() == 0 ? 1 : 0;
      int64_t axis = dqWeight.getAxis();
      if (wType && axis < 0)
        axis += wType.getRank();
      if (!wType || sType.getRank() != 1 || s->size() != biasValues->size() || axis != expected)
        return;
      perChannel = true;
    }
    weightScales = std::move(*s);
  }

  OpBuilder b(op);
  Location loc = op->getLoc();
  Value newWeight;
  if (!dqWeight) {
    S8Grid grid = gridOver(*weightValues);
    SmallVector<int8_t> codes;
    codes.reserve(weightValues->size());
    for (float w : *weightValues) {
      float q = std::nearbyint(w / grid.scale) + static_cast<float>(grid.zeroPoint);
      codes.push_back(static_cast<int8_t>(std::clamp(q, -128.f, 127.f)));
    }
    auto wType = cast<RankedTensorType>(weight.getType());
    Tensor t = cantFail(Tensor::fromValues<int8_t>(DType::I8, wType.getShape(), codes));
    newWeight = dequantizedConstant(b, loc, std::move(t), grid.scale, grid.zeroPoint, "weight");
    weightScales = {grid.scale};
  }

  Value newBias;
  if (biasValues) {
    // fl(sx sw), then round(fl(b / that)) half to even: onnxruntime's Mul,
    // Div and Round. A bias past the s32 range stays as it is (onnxruntime's
    // Cast would wrap it).
    const int64_t n = static_cast<int64_t>(biasValues->size());
    SmallVector<int32_t> codes;
    SmallVector<float> scales;
    for (int64_t i = 0; i < n; ++i) {
      float scale = inputScale * weightScales[weightScales.size() == 1 ? 0 : i];
      float q = std::nearbyint((*biasValues)[i] / scale);
      if (!(std::fabs(q) < 2147483648.f))
        return;
      codes.push_back(static_cast<int32_t>(q));
      if (perChannel || i == 0)
        scales.push_back(scale);
    }
    Tensor t = cantFail(Tensor::fromValues<int32_t>(DType::I32, {n}, codes));
    if (scales.size() == 1) {
      newBias = dequantizedConstant(b, loc, std::move(t), scales[0], std::nullopt, "bias");
    } else {
      ElementsAttr attr = attrFromTensor(t, b.getContext(), "bias");
      Value q = ConstantOp::create(b, loc, attr.getType(), attr);
      Value s = createF32Constant(b, loc, {n}, scales, "bias_scale");
      newBias = DequantizeLinearOp::create(b, loc, RankedTensorType::get({n}, b.getF32Type()), q,
                                           s, Value(), b.getI64IntegerAttr(0));
    }
  }
  if (newWeight)
    op->setOperand(1, newWeight);
  if (newBias)
    op->setOperand(2, newBias);
}

struct QuantizeFloatWeightsAndBiasesPass
    : public mlir::nunc::impl::QuantizeFloatWeightsAndBiasesBase<
          QuantizeFloatWeightsAndBiasesPass> {
  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) {
      if (isa<ConvOp, ConvTransposeOp, GemmOp>(op))
        ops.push_back(op);
    });
    for (Operation *op : ops)
      quantizeWeightAndBias(op);
  }
};

} // namespace
