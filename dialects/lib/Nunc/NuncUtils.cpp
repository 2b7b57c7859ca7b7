//===- NuncUtils.cpp - helpers shared by nunc ops, passes and tools -------===//

#include "nunc/Dialect/Nunc/NuncUtils.h"
#include "nunc/Dialect/Nunc/NuncOps.h"

#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstring>

using namespace mlir;

namespace mlir::nunc {

/// The grid an f32 value's producer rounds it to last, so that it holds
/// only that grid's values (a QDQ model's conv output, or an elementwise
/// op's): per tensor, or none.
std::optional<quant::UniformQuantizedType> lastGridOf(Value v) {
  Operation *def = v.getDefiningOp();
  std::optional<Type> grid;
  // (With an output table, the table's grid, if any: the result holds its
  // entries.)
  if (auto qc = dyn_cast_or_null<QuantizedConvOp>(def)) {
    if (!qc.getU8Output())
      grid = qc.getOutputTable() ? qc.getTableQuantization() : qc.getLastGrid();
  } else if (auto fc = dyn_cast_or_null<FusedConvOp>(def)) {
    if (!fc.getU8Output())
      grid = fc.getOutputTable() ? fc.getTableQuantization() : fc.getOutputQuantization();
  } else if (auto fq = dyn_cast_or_null<FakeQuantizeOp>(def)) {
    grid = fq.getQuantization();
  } else if (auto bn = dyn_cast_or_null<BatchNormOp>(def)) {
    grid = bn.getOutputQuantization();
  } else if (auto pool = dyn_cast_or_null<GlobalAveragePoolOp>(def)) {
    grid = pool.getOutputQuantization();
  } else if (auto pool = dyn_cast_or_null<AveragePoolOp>(def)) {
    grid = pool.getOutputQuantization();
  } else if (auto softmax = dyn_cast_or_null<SoftmaxOp>(def)) {
    grid = softmax.getOutputQuantization();
  } else if (def && isa<AddOp, SubOp, MulOp, DivOp>(def)) {
    if (auto t = def->getAttrOfType<TypeAttr>("output_quantization"))
      grid = t.getValue();
  } else if (auto chain = dyn_cast_or_null<ElementwiseChainOp>(def)) {
    if (std::optional<quant::UniformQuantizedType> last = chain.getDecodedSteps().back().grid)
      grid = *last;
  }
  if (!grid)
    return std::nullopt;
  auto q = dyn_cast<quant::UniformQuantizedType>(*grid);
  if (!q)
    return std::nullopt;
  return q;
}


static StringRef codesGridName(OpOperand &operand) {
  Operation *reader = operand.getOwner();
  if (!isa<AddOp, MulOp>(reader) || operand.getOperandNumber() > 1)
    return {};
  return operand.getOperandNumber() == 0 ? kLhsCodesGrid : kRhsCodesGrid;
}

bool holdsFourBitCodes(Value v) {
  if (auto scast = v.getDefiningOp<quant::StorageCastOp>())
    v = scast.getInput();
  Operation *def = v.getDefiningOp();
  return def && isa<ConstantOp>(def) && def->hasAttr(kFourBitCodes);
}

TypeAttr codesGridOf(OpOperand &operand) {
  StringRef name = codesGridName(operand);
  if (name.empty() || !operand.get().getDefiningOp<ConstantOp>())
    return {};
  return operand.getOwner()->getAttrOfType<TypeAttr>(name);
}

void setCodesGrid(OpOperand &operand, TypeAttr grid) {
  if (StringRef name = codesGridName(operand); !name.empty())
    operand.getOwner()->setAttr(name, grid);
}

std::string onnxTypeName(Type t) {
  std::string name;
  if (t.isF32())
    name = "float";
  else if (t.isF16())
    name = "float16";
  else if (t.isBF16())
    name = "bfloat16";
  else if (t.isF64())
    name = "double";
  else if (t.isInteger(1))
    name = "bool";
  else if (auto i = dyn_cast<IntegerType>(t))
    name = (i.isUnsigned() ? "uint" : "int") + std::to_string(i.getWidth());
  else
    llvm::raw_string_ostream(name) << t;
  return "'" + name + "'";
}

int64_t getElementByteWidth(Type elementType) {
  if (auto q = dyn_cast<quant::QuantizedType>(elementType))
    elementType = q.getStorageType();
  if (elementType.isInteger(1))
    return 1;
  return (elementType.getIntOrFloatBitWidth() + 7) / 8;
}

std::optional<ArrayRef<char>> tryGetRawElements(ElementsAttr attr) {
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    if (dense.isSplat() || dense.getElementType().isInteger(1))
      return std::nullopt;
    return dense.getRawData();
  }
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(attr)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      return std::nullopt;
    return blob->getData();
  }
  return std::nullopt;
}

bool readRawElements(ElementsAttr attr, SmallVectorImpl<char> &out) {
  out.clear();
  auto type = cast<ShapedType>(attr.getType());
  Type elem = type.getElementType();
  if (!elem.isIntOrFloat())
    return false;
  int64_t width = getElementByteWidth(elem);
  int64_t count = type.getNumElements();
  if (std::optional<ArrayRef<char>> raw = tryGetRawElements(attr)) {
    if ((int64_t)raw->size() != width * count)
      return false;
    out.append(raw->begin(), raw->end());
    return true;
  }
  auto dense = dyn_cast<DenseElementsAttr>(attr);
  if (!dense)
    return false;
  out.resize(width * count);
  if (elem.isInteger(1)) {
    auto values = dense.getValues<bool>();
    for (int64_t i = 0; i < count; ++i)
      out[i] = values[i] ? 1 : 0;
    return true;
  }
  // A splat stores one element.
  ArrayRef<char> one = dense.getRawData();
  for (int64_t i = 0; i < count; ++i)
    std::memcpy(out.data() + i * width, one.data(), width);
  return true;
}

std::optional<SmallVector<int64_t>> readIntElements(ElementsAttr attr) {
  auto type = cast<ShapedType>(attr.getType());
  auto intType = dyn_cast<IntegerType>(type.getElementType());
  if (!intType)
    return std::nullopt;
  SmallVector<char> raw;
  if (!readRawElements(attr, raw))
    return std::nullopt;
  unsigned bits = intType.getWidth();
  bool isUnsigned = intType.isUnsigned();
  SmallVector<int64_t> values;
  int64_t count = type.getNumElements();
  values.reserve(count);
  for (int64_t i = 0; i < count; ++i) {
    const char *p = raw.data() + i * getElementByteWidth(intType);
    int64_t v = 0;
    switch (bits) {
    case 1: v = *p ? 1 : 0; break;
    case 8: v = isUnsigned ? (int64_t)*(const uint8_t *)p : (int64_t)*(const int8_t *)p; break;
    case 16: {
      uint16_t u; std::memcpy(&u, p, 2);
      v = isUnsigned ? (int64_t)u : (int64_t)(int16_t)u;
      break;
    }
    case 32: {
      uint32_t u; std::memcpy(&u, p, 4);
      v = isUnsigned ? (int64_t)u : (int64_t)(int32_t)u;
      break;
    }
    case 64: std::memcpy(&v, p, 8); break;
    default: return std::nullopt;
    }
    values.push_back(v);
  }
  return values;
}

std::optional<SmallVector<int64_t>> getConstantInts(Value v) {
  ElementsAttr attr;
  if (!matchPattern(v, m_Constant(&attr)))
    return std::nullopt;
  return readIntElements(attr);
}

bool isEmptyTensor(Value v) {
  auto t = v ? dyn_cast<RankedTensorType>(v.getType()) : RankedTensorType();
  return t && t.hasStaticShape() && t.getNumElements() == 0;
}

std::optional<SmallVector<double>> getConstantDoubles(Value v) {
  ElementsAttr attr;
  if (!v || !matchPattern(v, m_Constant(&attr)))
    return std::nullopt;
  auto ft = dyn_cast<FloatType>(attr.getElementType());
  SmallVector<char> raw;
  if (!ft || !readRawElements(attr, raw))
    return std::nullopt;
  unsigned bytes = ft.getWidth() / 8;
  SmallVector<double> out;
  for (size_t at = 0; at + bytes <= raw.size(); at += bytes) {
    uint64_t bits = 0;
    std::memcpy(&bits, raw.data() + at, bytes);
    APFloat f(ft.getFloatSemantics(), APInt(ft.getWidth(), bits));
    bool lost;
    f.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
    out.push_back(f.convertToDouble());
  }
  return out;
}

static std::optional<SmallVector<int64_t>> partialShapeValue(Value v, int depth) {
  if (std::optional<SmallVector<int64_t>> c = getConstantInts(v))
    return c;
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type || type.getRank() > 1 || !isa<IntegerType>(type.getElementType()))
    return std::nullopt;
  // What the type alone tells: the number of entries.
  std::optional<SmallVector<int64_t>> unknown;
  if (type.hasStaticShape() && type.getNumElements() <= shape::kMaxRank)
    unknown = SmallVector<int64_t>(type.getNumElements(), ShapedType::kDynamic);
  if (depth > 16)
    return unknown;
  Operation *def = v.getDefiningOp();
  if (!def)
    return unknown;

  if (auto shape = dyn_cast<ShapeOp>(def)) {
    auto in = dyn_cast<RankedTensorType>(shape.getData().getType());
    if (!in)
      return unknown;
    int64_t rank = in.getRank();
    auto clampIndex = [&](int64_t i) {
      return std::clamp<int64_t>(i < 0 ? i + rank : i, 0, rank);
    };
    int64_t start = clampIndex(shape.getStart());
    int64_t end = clampIndex(shape.getEnd().value_or(rank));
    return SmallVector<int64_t>(in.getShape().begin() + start,
                                in.getShape().begin() + std::max(start, end));
  }
  if (auto concat = dyn_cast<ConcatOp>(def)) {
    SmallVector<int64_t> out;
    for (Value part : concat.getInputs()) {
      std::optional<SmallVector<int64_t>> p = partialShapeValue(part, depth + 1);
      if (!p)
        return unknown;
      out.append(*p);
    }
    return out;
  }
  if (isa<UnsqueezeOp, SqueezeOp, CastOp, IdentityOp, ReshapeOp>(def)) {
    // These keep the sequence of values; only the container changes.
    if (std::optional<SmallVector<int64_t>> inner =
            partialShapeValue(def->getOperand(0), depth + 1))
      return inner;
    return unknown;
  }
  if (auto gather = dyn_cast<GatherOp>(def)) {
    std::optional<SmallVector<int64_t>> indices = getConstantInts(gather.getIndices());
    std::optional<SmallVector<int64_t>> data =
        partialShapeValue(gather.getData(), depth + 1);
    if (!indices || !data)
      return unknown;
    SmallVector<int64_t> out;
    int64_t n = data->size();
    for (int64_t i : *indices) {
      if (i < -n || i >= n)
        return unknown;
      out.push_back((*data)[i < 0 ? i + n : i]);
    }
    return out;
  }
  return unknown;
}

std::optional<SmallVector<int64_t>> getPartialShapeValue(Value v) {
  return partialShapeValue(v, 0);
}

FailureOr<Operation *> createInferred(OpBuilder &builder, Location loc, StringRef opName,
                                      ValueRange operands,
                                      ArrayRef<NamedAttribute> attributes,
                                      unsigned numResults, bool reportErrors) {
  std::optional<ScopedDiagnosticHandler> quiet;
  if (!reportErrors)
    quiet.emplace(builder.getContext(), [](Diagnostic &) { return success(); });
  // An ONNX node's optional input left out (an empty name) where the op
  // needs it.
  if (llvm::is_contained(operands, Value())) {
    emitError(loc) << "'" << opName << "' is missing a required input (an empty input name)";
    return failure();
  }
  OperationState state(loc, opName);
  state.addOperands(operands);
  state.addAttributes(attributes);
  state.addTypes(SmallVector<Type>(numResults, NoneType::get(builder.getContext())));
  // Inferred before it is inserted: a rejected op never reaches the IR (nor a
  // pattern rewriter's listener).
  Operation *op = Operation::create(state);
  SmallVector<Type> types;
  auto infer = dyn_cast<InferShapesOpInterface>(op);
  if (!infer || failed(infer.inferResultTypes(types))) {
    op->destroy();
    return failure();
  }
  for (Type t : types) {
    auto ranked = dyn_cast<RankedTensorType>(t);
    if (!ranked)
      continue;
    Type element = ranked.getElementType();
    bool sized = element.isIntOrFloat() || isa<quant::QuantizedType>(element);
    if (ranked.getRank() > shape::kMaxRank)
      op->emitError() << "computes a tensor of rank " << ranked.getRank() << ", past the "
                      << shape::kMaxRank << " dims nunc supports";
    else if (shape::fitsTensorLimit(ranked.getShape(), sized ? getElementByteWidth(element) : 1))
      continue;
    else
      op->emitError() << "computes a tensor of type " << t << ", over the "
                      << (shape::kMaxTensorBytes >> 30) << " GiB a tensor may hold";
    op->destroy();
    return failure();
  }
  for (auto [r, t] : llvm::zip(op->getResults(), types))
    r.setType(t);
  return builder.insert(op);
}

Location makeOnnxNodeLocation(MLIRContext *ctx, StringRef file, StringRef nodeName,
                              StringRef opType, StringRef domain, int64_t opset) {
  Location fileLoc = FileLineColLoc::get(ctx, file, 0, 0);
  Location nameLoc = NameLoc::get(StringAttr::get(ctx, nodeName));
  return FusedLoc::get(ctx, {fileLoc, nameLoc},
                       OnnxNodeAttr::get(ctx, opType, domain, opset));
}

SmallVector<std::string> onnxNodeNames(Location loc) {
  SmallVector<std::string> names;
  loc->walk([&](Location l) {
    auto fused = dyn_cast<FusedLoc>(l);
    if (!fused || !dyn_cast_or_null<OnnxNodeAttr>(fused.getMetadata()))
      return WalkResult::advance();
    for (Location part : fused.getLocations())
      if (auto n = dyn_cast<NameLoc>(part))
        names.push_back(n.getName().str());
    return WalkResult::skip();
  });
  return names;
}

std::string describeLocation(Location loc) {
  std::string s;
  llvm::raw_string_ostream os(s);
  // Fusion passes fuse locations: name every ONNX node involved.
  SmallVector<std::string> nodes;
  StringRef file;
  loc->walk([&](Location l) {
    auto fused = dyn_cast<FusedLoc>(l);
    if (!fused)
      return WalkResult::advance();
    auto node = dyn_cast_or_null<OnnxNodeAttr>(fused.getMetadata());
    if (!node)
      return WalkResult::advance();
    std::string name;
    for (Location part : fused.getLocations()) {
      if (auto f = dyn_cast<FileLineColLoc>(part))
        file = f.getFilename().getValue();
      else if (auto n = dyn_cast<NameLoc>(part))
        name = n.getName().str();
    }
    std::string desc;
    llvm::raw_string_ostream d(desc);
    d << "node \"" << name << "\" (";
    if (!node.getDomain().empty())
      d << node.getDomain() << ".";
    d << node.getOpType() << ", opset " << node.getOpset() << ")";
    nodes.push_back(desc);
    return WalkResult::skip();
  });
  if (nodes.empty()) {
    // File-level problems carry the file with line 0: print just the file
    // (and the tensor's name for initializers).
    Location inner = loc;
    std::string name;
    if (auto n = dyn_cast<NameLoc>(loc)) {
      name = n.getName().str();
      inner = n.getChildLoc();
    }
    auto f = dyn_cast<FileLineColLoc>(inner);
    if (f && f.getLine() == 0) {
      os << f.getFilename().getValue();
      if (!name.empty())
        os << ": \"" << name << "\"";
      return s;
    }
    os << loc;
    return s;
  }
  if (!file.empty())
    os << file << ": ";
  llvm::interleave(nodes, os, ", ");
  return s;
}

bool isU8Grid(std::optional<Type> t) {
  auto q = dyn_cast_or_null<quant::UniformQuantizedType>(t.value_or(Type()));
  return q && q.getStorageTypeIntegralWidth() == 8 && !q.isSigned() &&
         q.getExpressedType().isF32() && q.getScale() > 0 && q.getStorageTypeMin() == 0 &&
         q.getStorageTypeMax() == 255;
}

bool isS8Grid(std::optional<Type> t) {
  auto q = dyn_cast_or_null<quant::UniformQuantizedType>(t.value_or(Type()));
  return q && q.getStorageTypeIntegralWidth() == 8 && q.isSigned() &&
         q.getExpressedType().isF32() && q.getScale() > 0 && q.getStorageTypeMin() == -128 &&
         q.getStorageTypeMax() == 127;
}

std::optional<quant::UniformQuantizedType> asU8Grid(std::optional<Type> t) {
  if (isU8Grid(t))
    return cast<quant::UniformQuantizedType>(*t);
  if (!isS8Grid(t))
    return std::nullopt;
  auto q = cast<quant::UniformQuantizedType>(*t);
  MLIRContext *ctx = q.getContext();
  return quant::UniformQuantizedType::get(0, IntegerType::get(ctx, 8), q.getExpressedType(),
                                          q.getScale(), q.getZeroPoint() + 128, 0, 255);
}

bool isConvWeightGrid(Type grid, int64_t channels) {
  if (auto q = dyn_cast_or_null<quant::UniformQuantizedType>(grid))
    return q.getStorageTypeIntegralWidth() == 8 && q.getExpressedType().isF32() &&
           q.getScale() > 0 && std::isfinite(q.getScale());
  auto axis = dyn_cast_or_null<quant::UniformQuantizedPerAxisType>(grid);
  return axis && axis.getStorageTypeIntegralWidth() == 8 && axis.getExpressedType().isF32() &&
         axis.getQuantizedDimension() == 0 &&
         static_cast<int64_t>(axis.getScales().size()) == channels &&
         llvm::all_of(axis.getScales(), [](double s) { return s > 0 && std::isfinite(s); });
}

SmallVector<float> channelScales(Type quantized, int64_t channels) {
  if (auto q = dyn_cast_or_null<quant::UniformQuantizedType>(quantized))
    return SmallVector<float>(channels, static_cast<float>(q.getScale()));
  SmallVector<float> scales;
  if (auto axis = dyn_cast_or_null<quant::UniformQuantizedPerAxisType>(quantized))
    for (double s : axis.getScales())
      scales.push_back(static_cast<float>(s));
  return scales;
}

bool ConvWeightCodes::stepsFitS8() const {
  return llvm::all_of(steps, [](int16_t k) { return k >= -128 && k <= 127; });
}

std::optional<ConvWeightCodes> convWeightCodes(ArrayRef<float> weight, int64_t channels,
                                               Type grid) {
  if (channels <= 0 || weight.size() % channels || !isConvWeightGrid(grid, channels))
    return std::nullopt;
  ConvWeightCodes c;
  c.scales = channelScales(grid, channels);
  auto q = cast<quant::QuantizedType>(grid);
  c.isUnsigned = !q.isSigned();
  const int64_t lo = q.getStorageTypeMin(), hi = q.getStorageTypeMax();
  if (auto perTensor = dyn_cast<quant::UniformQuantizedType>(grid))
    c.zeroPoints.assign(channels, static_cast<int32_t>(perTensor.getZeroPoint()));
  else
    for (int64_t z : cast<quant::UniformQuantizedPerAxisType>(grid).getZeroPoints())
      c.zeroPoints.push_back(static_cast<int32_t>(z));
  const size_t perChannel = weight.size() / channels;
  c.steps.resize(weight.size());
  for (size_t i = 0; i < weight.size(); ++i) {
    const size_t m = i / perChannel;
    const float s = c.scales[m];
    const double k = std::nearbyint(static_cast<double>(weight[i]) / s);
    const double q = k + c.zeroPoints[m];
    // DequantizeLinear's one f32 rounding of (q - zp) * scale.
    if (!(q >= lo && q <= hi) || static_cast<float>(k) * s != weight[i])
      return std::nullopt;
    c.steps[i] = static_cast<int16_t>(k);
  }
  return c;
}

bool isU16Grid(std::optional<Type> t) {
  auto q = dyn_cast_or_null<quant::UniformQuantizedType>(t.value_or(Type()));
  return q && q.getStorageTypeIntegralWidth() == 16 && !q.isSigned() &&
         q.getExpressedType().isF32() && q.getScale() > 0 && q.getStorageTypeMin() == 0 &&
         q.getStorageTypeMax() == 65535;
}

EpilogueActivation EpilogueActivation::of(Operation *op) {
  EpilogueActivation a;
  if (auto kind = op->getAttrOfType<StringAttr>("activation"))
    a.kind = kind.getValue().str();
  auto read = [&](StringRef name, float &dst) {
    if (auto v = op->getAttrOfType<FloatAttr>(name))
      dst = v.getValue().convertToFloat();
  };
  read("activation_min", a.min);
  read("activation_max", a.max);
  read("activation_alpha", a.alpha);
  read("activation_beta", a.beta);
  read("activation_post_mul", a.postMul);
  read("activation_post_add", a.postAdd);
  return a;
}

void EpilogueActivation::appendTo(Builder &b, SmallVectorImpl<NamedAttribute> &attrs) const {
  attrs.push_back(b.getNamedAttr("activation", b.getStringAttr(kind)));
  for (auto [name, value] :
       {std::pair("activation_min", min), std::pair("activation_max", max),
        std::pair("activation_alpha", alpha), std::pair("activation_beta", beta),
        std::pair("activation_post_mul", postMul), std::pair("activation_post_add", postAdd)})
    attrs.push_back(b.getNamedAttr(name, b.getF32FloatAttr(value)));
}

void EpilogueActivation::setOn(Operation *op) const {
  Builder b(op->getContext());
  SmallVector<NamedAttribute> attrs;
  appendTo(b, attrs);
  for (NamedAttribute a : attrs)
    op->setAttr(a.getName(), a.getValue());
}

} // namespace mlir::nunc
