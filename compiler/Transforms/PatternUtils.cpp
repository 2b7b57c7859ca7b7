//===- PatternUtils.cpp - matching helpers shared by the fusion passes ----===//

#include "PatternUtils.h"

#include "nunc/Dialect/Nunc/ShapeHelpers.h"
#include "nunc/Interpreter/Evaluator.h"

#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"

#include <cmath>

namespace mlir::nunc {

std::optional<SmallVector<float>> getConstantFloats(Value v) {
  ElementsAttr attr;
  if (!v || !matchPattern(v, m_Constant(&attr)) ||
      !isa<FloatType>(cast<ShapedType>(attr.getType()).getElementType()))
    return std::nullopt;
  llvm::Expected<Tensor> t = tensorFromAttr(attr);
  if (!t) {
    llvm::consumeError(t.takeError());
    return std::nullopt;
  }
  SmallVector<float> out;
  out.reserve(t->numElements());
  for (int64_t i = 0; i < t->numElements(); ++i)
    out.push_back(static_cast<float>(t->getDouble(i)));
  return out;
}

std::optional<BatchNormParams> batchNormParams(BatchNormOp bn, int64_t channels) {
  std::optional<SmallVector<float>> gamma = getConstantFloats(bn.getScale()),
                                    beta = getConstantFloats(bn.getBias()),
                                    mean = getConstantFloats(bn.getMean()),
                                    var = getConstantFloats(bn.getVar());
  if (!gamma || !beta || !mean || !var || (int64_t)gamma->size() != channels ||
      (int64_t)beta->size() != channels || (int64_t)mean->size() != channels ||
      (int64_t)var->size() != channels)
    return std::nullopt;
  double eps = bn.getEpsilon().convertToFloat();
  BatchNormParams p;
  p.gammaF32 = *gamma;
  p.varF32 = *var;
  p.betaF32 = *beta;
  p.meanF32 = *mean;
  p.epsilonF32 = bn.getEpsilon().convertToFloat();
  for (int64_t c = 0; c < channels; ++c) {
    p.scale.push_back((*gamma)[c] / std::sqrt(double((*var)[c]) + eps));
    p.beta.push_back((*beta)[c]);
    p.mean.push_back((*mean)[c]);
  }
  return p;
}

void BatchNormParams::affineF32(SmallVectorImpl<float> &a, SmallVectorImpl<float> &b) const {
  a.clear();
  b.clear();
  // f32 steps in onnxruntime's order (this build targets baseline x86-64:
  // no FMA to contract them into).
  for (size_t c = 0; c < gammaF32.size(); ++c) {
    const float invStd = 1.f / std::sqrt(varF32[c] + epsilonF32);
    const float scaleF32 = invStd * gammaF32[c];
    const float shifted = meanF32[c] * scaleF32;
    a.push_back(scaleF32);
    b.push_back(betaF32[c] - shifted);
  }
}

std::optional<double> scalarConstant(Value v) {
  ElementsAttr attr;
  if (!v || !matchPattern(v, m_Constant(&attr)) || attr.getNumElements() != 1)
    return std::nullopt;
  llvm::Expected<Tensor> t = tensorFromAttr(attr);
  if (!t) {
    llvm::consumeError(t.takeError());
    return std::nullopt;
  }
  return t->getDouble(0);
}

std::optional<double> getUniformFloat(Value v) {
  ElementsAttr attr;
  if (!v || !matchPattern(v, m_Constant(&attr)))
    return std::nullopt;
  auto type = cast<ShapedType>(attr.getType());
  if (type.getNumElements() == 0)
    return std::nullopt;
  // Integer constants count too: exporters write Pow(x, 3) with an int64 3.
  if (isa<IntegerType>(type.getElementType()) && !type.getElementType().isInteger(1)) {
    std::optional<SmallVector<int64_t>> ints = readIntElements(attr);
    if (!ints || llvm::any_of(*ints, [&](int64_t i) { return i != ints->front(); }))
      return std::nullopt;
    return (double)ints->front();
  }
  if (!isa<FloatType>(type.getElementType()))
    return std::nullopt;
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    if (dense.isSplat())
      return dense.getSplatValue<APFloat>().convertToDouble();
  }
  if (type.getNumElements() > 4096)
    return std::nullopt;
  std::optional<SmallVector<float>> values = getConstantFloats(v);
  if (!values || llvm::any_of(*values, [&](float f) { return f != values->front(); }))
    return std::nullopt;
  return values->front();
}

std::optional<float> getUniformF32(Value v) {
  if (!v || !getElementTypeOrSelf(v.getType()).isF32())
    return std::nullopt;
  std::optional<double> d = getUniformFloat(v);
  return d ? std::optional<float>(static_cast<float>(*d)) : std::nullopt;
}

bool isFloatConstant(Value v, double want, double tolerance) {
  std::optional<double> got = getUniformFloat(v);
  // A constant stored in a 16-bit float is only as close as its precision.
  Type element = v ? getElementTypeOrSelf(v.getType()) : Type();
  if (element && element.isF16())
    tolerance = std::max(tolerance, 1e-3);
  else if (element && element.isBF16())
    tolerance = std::max(tolerance, 8e-3);
  return got && std::fabs(*got - want) <= tolerance * std::max(1.0, std::fabs(want));
}

Value otherOperand(Operation *op, Value known) {
  if (!op || op->getNumOperands() != 2)
    return nullptr;
  if (op->getOperand(0) == known)
    return op->getOperand(1);
  if (op->getOperand(1) == known)
    return op->getOperand(0);
  return nullptr;
}

Value createF32Constant(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                        ArrayRef<float> values, StringRef name) {
  llvm::Expected<Tensor> t = Tensor::fromValues<float>(DType::F32, shape, values);
  ElementsAttr attr = attrFromTensor(cantFail(std::move(t)), b.getContext(), name);
  return ConstantOp::create(b, loc, attr.getType(), attr);
}

Value createIntScalar(OpBuilder &b, Location loc, IntegerType type, int64_t value) {
  auto tensor = RankedTensorType::get({}, type);
  auto attr = DenseElementsAttr::get(
      tensor, APInt(type.getWidth(), static_cast<uint64_t>(value), !type.isUnsigned()));
  return ConstantOp::create(b, loc, tensor, attr);
}

FailureOr<Value> createInferredValue(OpBuilder &b, Location loc, StringRef name,
                                     ValueRange operands, ArrayRef<NamedAttribute> attrs) {
  FailureOr<Operation *> op =
      createInferred(b, loc, name, operands, attrs, 1, /*reportErrors=*/false);
  if (failed(op))
    return failure();
  return (*op)->getResult(0);
}

Value createI64Constant(OpBuilder &b, Location loc, ArrayRef<int64_t> values) {
  auto type = RankedTensorType::get({static_cast<int64_t>(values.size())}, b.getI64Type());
  return ConstantOp::create(b, loc, type, DenseIntElementsAttr::get(type, values));
}

bool broadcastsTo(Value v, ArrayRef<int64_t> target, Type element) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type || !type.hasStaticShape() || type.getElementType() != element ||
      type.getRank() > (int64_t)target.size())
    return false;
  int64_t offset = target.size() - type.getRank();
  for (int64_t i = 0; i < type.getRank(); ++i)
    if (type.getDimSize(i) != 1 && type.getDimSize(i) != target[offset + i])
      return false;
  return true;
}

void keepResultTypes(Operation *fused, Operation *replaced) {
  for (auto [n, o] : llvm::zip(fused->getResults(), replaced->getResults())) {
    auto nt = dyn_cast<RankedTensorType>(n.getType());
    auto ot = dyn_cast<RankedTensorType>(o.getType());
    if (!nt || !ot || nt.getRank() != ot.getRank() ||
        nt.getElementType() != ot.getElementType())
      continue;
    bool compatible = true;
    for (auto [a, b] : llvm::zip(nt.getShape(), ot.getShape()))
      compatible &= ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
    if (compatible)
      n.setType(ot.hasStaticShape() || !nt.hasStaticShape() ? ot : nt);
  }
}

Location fusedLoc(ArrayRef<Operation *> ops) {
  SmallVector<Location> locs;
  for (Operation *op : ops)
    locs.push_back(op->getLoc());
  return FusedLoc::get(ops.front()->getContext(), locs);
}

std::optional<TypeAttr> staticInputGrid(MLIRContext *ctx, Value scale, Value zeroPoint,
                                        Type storage, bool u16) {
  std::optional<double> s = scalarConstant(scale);
  std::optional<double> z = zeroPoint ? scalarConstant(zeroPoint) : std::optional<double>(0);
  if (!s || !z || !(*s > 0))
    return std::nullopt;
  int64_t zp = static_cast<int64_t>(*z);
  unsigned bits = 8;
  if (storage.isSignlessInteger(8)) {
    zp += 128;
  } else if (u16 && storage.isSignlessInteger(16)) {
    zp += 32768;
    bits = 16;
  } else if (u16 && storage.isUnsignedInteger(16)) {
    bits = 16;
  } else if (!storage.isUnsignedInteger(8)) {
    return std::nullopt;
  }
  const int64_t top = (int64_t(1) << bits) - 1;
  if (zp < 0 || zp > top)
    return std::nullopt;
  return TypeAttr::get(quant::UniformQuantizedType::get(
      /*flags=*/0, IntegerType::get(ctx, bits), Float32Type::get(ctx), static_cast<float>(*s), zp,
      0, top));
}

/// The weight's scales (and, for u8 weights, zero points: one, or one per
/// index of the layout's axis) when quantizedWeight takes it. An s8 weight
/// with zero points other than 0 is, with `u8Weights`, the u8 one 128
/// higher (codes and zero points): the same values (`fromS8`).
struct WeightQuantization {
  SmallVector<float> scales;
  SmallVector<int64_t> zeroPoints;
  bool fromS8 = false;
};
static std::optional<WeightQuantization> weightScales(Value wq, Value scale, Value zeroPoint,
                                                      Int8WeightLayout layout,
                                                      int64_t scaleAxis, bool u8Weights) {
  ElementsAttr wAttr;
  auto wType = dyn_cast<RankedTensorType>(wq.getType());
  bool u8 = u8Weights && wType && wType.getElementType().isUnsignedInteger(8);
  if (!wType || wType.getRank() != layout.rank || !wType.hasStaticShape() ||
      !(wType.getElementType().isSignlessInteger(8) || u8) ||
      !matchPattern(wq, m_Constant(&wAttr)))
    return std::nullopt;
  int64_t n = wType.getDimSize(layout.axis);
  std::optional<SmallVector<float>> ws = getConstantFloats(scale);
  if (!ws || (ws->size() != 1 &&
              (static_cast<int64_t>(ws->size()) != n || scaleAxis < -layout.rank ||
               scaleAxis >= layout.rank || shape::wrapAxis(scaleAxis, layout.rank) != layout.axis)))
    return std::nullopt;
  if (llvm::any_of(*ws, [](float v) { return !(v > 0) || !std::isfinite(v); }))
    return std::nullopt;
  WeightQuantization q{*ws, {}};
  if (zeroPoint) {
    ElementsAttr zAttr;
    if (!matchPattern(zeroPoint, m_Constant(&zAttr)))
      return std::nullopt;
    llvm::Expected<Tensor> z = tensorFromAttr(zAttr);
    if (!z) {
      llvm::consumeError(z.takeError());
      return std::nullopt;
    }
    for (int64_t i = 0; i < z->numElements(); ++i)
      q.zeroPoints.push_back(z->getInt(i));
    q.fromS8 = !u8 && llvm::any_of(q.zeroPoints, [](int64_t v) { return v != 0; });
    if (q.fromS8 && !u8Weights)
      return std::nullopt;
    // u8: one zero point, or one per index of the layout's axis (along
    // which per-index scales apply too; either may be one for all).
    if ((u8 || q.fromS8) && z->numElements() != 1 && !(z->rank() == 1 && z->numElements() == n))
      return std::nullopt;
    if (q.fromS8)
      for (int64_t &v : q.zeroPoints)
        v += 128;
  }
  if (u8 && q.zeroPoints.empty())
    q.zeroPoints.push_back(0);
  if (!u8 && !q.fromS8)
    q.zeroPoints.clear();
  return q;
}

bool isQuantizedWeight(Value wq, Value scale, Value zeroPoint, Int8WeightLayout layout,
                       int64_t scaleAxis, bool u8Weights) {
  return weightScales(wq, scale, zeroPoint, layout, scaleAxis, u8Weights).has_value();
}

FailureOr<Value> quantizedWeight(PatternRewriter &rewriter, Location loc, Value wq, Value scale,
                                 Value zeroPoint, Int8WeightLayout layout, int64_t scaleAxis,
                                 bool u8Weights) {
  std::optional<WeightQuantization> wqz =
      weightScales(wq, scale, zeroPoint, layout, scaleAxis, u8Weights);
  if (!wqz)
    return failure();
  SmallVector<float> &ws = wqz->scales;
  auto wType = cast<RankedTensorType>(wq.getType());
  int64_t dim = layout.axis;
  int64_t n = wType.getDimSize(dim);
  MLIRContext *ctx = rewriter.getContext();
  Type i8 = IntegerType::get(ctx, 8), f32 = rewriter.getF32Type();
  Type element;
  if (!wqz->zeroPoints.empty()) {
    // u8 with zero points: per tensor where both are one, else per axis.
    SmallVector<int64_t> &zps = wqz->zeroPoints;
    if (ws.size() == 1 && zps.size() == 1) {
      element = quant::UniformQuantizedType::get(0, i8, f32, ws[0], zps[0], 0, 255);
    } else {
      SmallVector<double> scales(n);
      SmallVector<int64_t> zeros(n);
      for (int64_t j = 0; j < n; ++j) {
        scales[j] = ws[ws.size() == 1 ? 0 : j];
        zeros[j] = zps[zps.size() == 1 ? 0 : j];
      }
      element = quant::UniformQuantizedPerAxisType::get(0, i8, f32, scales, zeros, dim, 0, 255);
    }
  } else if (ws.size() == 1) {
    element = quant::UniformQuantizedType::get(quant::QuantizationFlags::Signed, i8, f32,
                                               ws[0], 0, -128, 127);
  } else {
    SmallVector<double> scales(ws.begin(), ws.end());
    element = quant::UniformQuantizedPerAxisType::get(quant::QuantizationFlags::Signed, i8, f32,
                                                      scales, SmallVector<int64_t>(n, 0), dim,
                                                      -128, 127);
  }
  Value storage = wq;
  if (!wqz->zeroPoints.empty()) {
    // quant.scast takes signless storage: the same bytes as i8.
    ElementsAttr attr;
    matchPattern(wq, m_Constant(&attr));
    llvm::Expected<Tensor> codes = tensorFromAttr(attr);
    if (!codes) {
      llvm::consumeError(codes.takeError());
      return failure();
    }
    std::vector<int8_t> bytes(codes->as<uint8_t>(), codes->as<uint8_t>() + codes->numElements());
    if (wqz->fromS8) // the u8 codes 128 higher: the sign bit flipped
      for (int8_t &c : bytes)
        c = static_cast<int8_t>(static_cast<uint8_t>(c) ^ 0x80);
    ElementsAttr signless = attrFromTensor(
        cantFail(Tensor::fromValues<int8_t>(DType::I8, wType.getShape(), bytes)), ctx, "weight");
    storage = ConstantOp::create(rewriter, loc, signless.getType(), signless);
    if (holdsFourBitCodes(wq))
      storage.getDefiningOp()->setAttr(kFourBitCodes, rewriter.getUnitAttr());
  }
  return quant::StorageCastOp::create(rewriter, loc,
                                      RankedTensorType::get(wType.getShape(), element), storage)
      .getResult();
}

} // namespace mlir::nunc

bool mlir::nunc::isDepthwiseConv(Operation *op) {
  if (!isa<ConvOp, FusedConvOp>(op))
    return false;
  auto in = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  auto w = dyn_cast<RankedTensorType>(op->getOperand(1).getType());
  int64_t group = cast<IntegerAttr>(op->getAttr("group")).getInt();
  return in && w && in.getRank() == 4 && w.getRank() == 4 && group > 1 &&
         in.getDimSize(1) == group && w.getDimSize(0) == group && w.getDimSize(1) == 1;
}

bool mlir::nunc::int8ConvGroups(int64_t group, Value weight) {
  auto w = dyn_cast<RankedTensorType>(weight.getType());
  return group == 1 || (group > 1 && w && w.getRank() == 4 && w.hasStaticShape() &&
                        w.getDimSize(1) % 4 == 0 && w.getDimSize(0) % group == 0);
}

mlir::nunc::FusedConvOp mlir::nunc::replaceWithFusedConv(ConvOp conv) {
  OpBuilder b(conv);
  auto fused = FusedConvOp::create(
      b, conv.getLoc(), conv.getType(), conv.getInput(), conv.getWeight(), conv.getBias(),
      /*residual=*/Value(), conv.getAutoPadAttr(), conv.getDilationsAttr(), conv.getGroupAttr(),
      conv.getKernelShapeAttr(), conv.getPadsAttr(), conv.getStridesAttr(), StringAttr(),
      FloatAttr(), FloatAttr(), FloatAttr(), FloatAttr(), FloatAttr(), FloatAttr(),
      /*output_quantization=*/TypeAttr(), /*u8_output=*/UnitAttr(),
      /*output_table=*/DenseF32ArrayAttr(), /*table_quantization=*/TypeAttr(),
      conv.getWeightQuantizationAttr(), /*one_step_requantization=*/UnitAttr());
  conv.replaceAllUsesWith(fused.getResult());
  conv.erase();
  return fused;
}
