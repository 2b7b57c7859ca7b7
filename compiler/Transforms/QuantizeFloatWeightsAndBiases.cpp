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

/// The op's only reader, following Relu and Clip (each read once too), is
/// a QuantizeLinear: the op's result reaches a grid and no other op. (As
/// in onnxruntime, a graph output is no reader.)
bool reachesOneGrid(Operation *op) {
  Value v = op->getResult(0);
  while (true) {
    SmallVector<Operation *> readers;
    for (Operation *user : v.getUsers())
      if (!isa<func::ReturnOp>(user))
        readers.push_back(user);
    if (readers.size() != 1)
      return false;
    if (isa<QuantizeLinearOp>(readers[0]))
      return true;
    if (!isa<ReluOp, ClipOp>(readers[0]))
      return false;
    v = readers[0]->getResult(0);
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

/// A DequantizeLinear of constant codes: one scale, or one per index of
/// axis 0 (zero point: none, or one s8).
Value dequantizedConstant(OpBuilder &b, Location loc, const Tensor &codes,
                          ArrayRef<float> scales, std::optional<int8_t> zeroPoint,
                          StringRef name) {
  ElementsAttr attr = attrFromTensor(codes, b.getContext(), name);
  Value q = ConstantOp::create(b, loc, attr.getType(), attr);
  const bool perAxis = scales.size() > 1;
  SmallVector<int64_t> scaleShape;
  if (perAxis)
    scaleShape.push_back(static_cast<int64_t>(scales.size()));
  Value s = createF32Constant(b, loc, scaleShape, scales, "scale");
  Value z = zeroPoint ? createIntScalar(b, loc, b.getI8Type(), *zeroPoint) : Value();
  auto outType = RankedTensorType::get(codes.shape(), b.getF32Type());
  return DequantizeLinearOp::create(b, loc, outType, q, s, z,
                                    b.getI64IntegerAttr(perAxis ? 0 : 1));
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

  std::optional<S8Grid> grid;
  if (!dqWeight) {
    grid = gridOver(*weightValues);
    weightScales = {grid->scale};
  }

  // The bias's codes: fl(sx sw), then round(fl(b / that)) half to even
  // (onnxruntime's Mul, Div and Round). With a code past the s32 range the
  // op stays as written (onnxruntime's Cast would wrap it).
  SmallVector<int32_t> biasCodes;
  SmallVector<float> biasScales;
  if (biasValues) {
    for (size_t i = 0; i < biasValues->size(); ++i) {
      float scale = inputScale * weightScales[weightScales.size() == 1 ? 0 : i];
      float q = std::nearbyint((*biasValues)[i] / scale);
      if (!(std::fabs(q) < 2147483648.f))
        return;
      biasCodes.push_back(static_cast<int32_t>(q));
      if (perChannel || i == 0)
        biasScales.push_back(scale);
    }
  }

  OpBuilder b(op);
  Location loc = op->getLoc();
  if (grid) {
    SmallVector<int8_t> codes;
    codes.reserve(weightValues->size());
    for (float w : *weightValues) {
      float q = std::nearbyint(w / grid->scale) + static_cast<float>(grid->zeroPoint);
      codes.push_back(static_cast<int8_t>(std::clamp(q, -128.f, 127.f)));
    }
    auto wType = cast<RankedTensorType>(weight.getType());
    Tensor t = cantFail(Tensor::fromValues<int8_t>(DType::I8, wType.getShape(), codes));
    op->setOperand(1, dequantizedConstant(b, loc, t, {grid->scale}, grid->zeroPoint, "weight"));
  }
  if (biasValues) {
    const int64_t n = static_cast<int64_t>(biasCodes.size());
    Tensor t = cantFail(Tensor::fromValues<int32_t>(DType::I32, {n}, biasCodes));
    op->setOperand(2, dequantizedConstant(b, loc, t, biasScales, std::nullopt, "bias"));
  }
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
