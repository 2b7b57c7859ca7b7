//===- ShapeInference.cpp - result type inference of nunc ops -------------===//
//
// Each op's inferResultTypes: element type and the most precise shape the
// operand types (and constant operand values) allow. The shape arithmetic is
// in ShapeHelpers.cpp, shared with the evaluator.
//
//===----------------------------------------------------------------------===//

#include "nunc/Dialect/Nunc/NuncOps.h"
#include "nunc/Dialect/Nunc/NuncUtils.h"
#include "nunc/Dialect/Nunc/ShapeHelpers.h"

#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/InterleavedRange.h"

#include <cstring>

using namespace mlir;
using namespace mlir::nunc;
using shape::Dims;

static_assert(shape::kDynamic == ShapedType::kDynamic,
              "ShapeHelpers and MLIR must agree on the dynamic dim marker");

namespace {

std::optional<ArrayRef<int64_t>> dimsOf(Value v) {
  if (auto t = dyn_cast<RankedTensorType>(v.getType()))
    return t.getShape();
  return std::nullopt;
}

Type elementOf(Value v) { return cast<ShapedType>(v.getType()).getElementType(); }

Type tensorOf(std::optional<ArrayRef<int64_t>> dims, Type element) {
  if (!dims)
    return UnrankedTensorType::get(element);
  return RankedTensorType::get(*dims, element);
}

Type rankedDynamic(int64_t rank, Type element) {
  return RankedTensorType::get(SmallVector<int64_t>(rank, ShapedType::kDynamic),
                               element);
}

/// Reports a shape-rule failure at the op and fails.
LogicalResult fail(Operation *op, llvm::Error error) {
  InFlightDiagnostic diag = op->emitError();
  diag << llvm::toString(std::move(error));
  return diag;
}

/// Unwraps an Expected or reports its error at `op`.
template <typename T>
FailureOr<T> check(Operation *op, llvm::Expected<T> value) {
  if (!value) {
    (void)fail(op, value.takeError());
    return failure();
  }
  return std::move(*value);
}

LogicalResult requireSameElement(Operation *op, ValueRange values) {
  Type first = elementOf(values.front());
  for (Value v : values.drop_front())
    if (elementOf(v) != first)
      return op->emitError() << "operands have different element types: "
                             << onnxTypeName(first) << " and " << onnxTypeName(elementOf(v));
  return success();
}

/// A constant scale's entries are finite: a NaN or infinite scale (no
/// quantizer writes one) would make the compiled arithmetic and the
/// reference differ where 0 x inf appears, so it is an error, not a guess.
LogicalResult checkFiniteScale(Operation *op, Value scale, StringRef what) {
  DenseElementsAttr values;
  if (!matchPattern(scale, m_Constant(&values)) || !isa<FloatType>(values.getElementType()))
    return success();
  for (const APFloat &v : values.getValues<APFloat>())
    if (!v.isFinite())
      return op->emitError() << what << " must be finite, got "
                             << (v.isNaN() ? "NaN" : v.isNegative() ? "-inf" : "inf");
  return success();
}

/// Scalar-or-1-D parameter (scale, zero point) matching `axis` of `input`.
LogicalResult checkQuantParam(Operation *op, Value param, Value input, int64_t axis,
                              StringRef what) {
  if (what.ends_with("scale") && failed(checkFiniteScale(op, param, what)))
    return failure();
  auto dims = dimsOf(param);
  if (!dims)
    return success();
  if (dims->empty() || (dims->size() == 1 && (*dims)[0] == 1))
    return success();
  if (dims->size() != 1)
    return op->emitError() << what << " must be a scalar or 1-D, got rank "
                           << dims->size() << " (blocked quantization is not supported)";
  auto in = dimsOf(input);
  if (!in)
    return success();
  auto a = shape::normalizeAxis(axis, in->size(), "quantization axis");
  if (!a)
    return fail(op, a.takeError());
  if (!ShapedType::isDynamic((*in)[*a]) && !ShapedType::isDynamic((*dims)[0]) &&
      (*in)[*a] != (*dims)[0])
    return op->emitError() << what << " has " << (*dims)[0]
                           << " entries but axis " << axis << " has size " << (*in)[*a];
  return success();
}

LogicalResult inferBroadcast(Operation *op, ValueRange inputs, Type element,
                             SmallVectorImpl<Type> &types) {
  SmallVector<ArrayRef<int64_t>> shapes;
  for (Value v : inputs) {
    auto d = dimsOf(v);
    if (!d) {
      types.push_back(UnrankedTensorType::get(element));
      return success();
    }
    shapes.push_back(*d);
  }
  FailureOr<Dims> out = check(op, shape::broadcast(shapes));
  if (failed(out))
    return failure();
  types.push_back(RankedTensorType::get(*out, element));
  return success();
}

/// Window attributes (kernel, strides, ...) against the input's spatial dims.
FailureOr<Dims> inferWindowed(Operation *op, Value input, ArrayRef<int64_t> kernel,
                              ArrayRef<int64_t> strides, ArrayRef<int64_t> dilations,
                              ArrayRef<int64_t> pads, StringRef autoPad, bool ceilMode,
                              int64_t channels) {
  auto in = dimsOf(input);
  if (!in)
    return Dims();
  if (in->size() < 3) {
    op->emitError() << "expected an NCHW input of rank >= 3, got rank "
                    << in->size();
    return failure();
  }
  FailureOr<shape::WindowGeometry> g = check(
      op, shape::window(in->drop_front(2), kernel, strides, dilations, pads, autoPad,
                        ceilMode));
  if (failed(g))
    return failure();
  Dims out{(*in)[0], channels};
  out.append(g->output.begin(), g->output.end());
  return out;
}

} // namespace

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

LogicalResult ConstantOp::inferResultTypes(SmallVectorImpl<Type> &types) {
  types.push_back(getValue().getType());
  return success();
}

LogicalResult ConstantOfShapeOp::inferResultTypes(SmallVectorImpl<Type> &types) {
  auto valueType = cast<ShapedType>(getValue().getType());
  if (valueType.getNumElements() != 1)
    return emitError() << "value must hold exactly one element, got "
                       << valueType.getNumElements();
  Type element = valueType.getElementType();
  auto shapeDims = dimsOf(getShape());
  if (shapeDims && shapeDims->size() != 1)
    return emitError() << "shape must be 1-D, got rank " << shapeDims->size();
  std::optional<SmallVector<int64_t>> dims = getPartialShapeValue(getShape());
  if (!dims) {
    types.push_back(UnrankedTensorType::get(element));
    return success();
  }
  for (int64_t d : *dims)
    if (!ShapedType::isDynamic(d) && d < 0)
      return emitError() << "shape " << shape::toString(*dims)
                         << " has a negative dim";
  types.push_back(RankedTensorType::get(*dims, element));
  return success();
}

LogicalResult RangeOp::inferResultTypes(SmallVectorImpl<Type> &types) {
  Type element = elementOf(getStart());
  if (elementOf(getLimit()) != element || elementOf(getDelta()) != element)
    return emitError() << "start, limit and delta must have one type";
  for (Value v : {getStart(), getLimit(), getDelta()})
    if (auto dims = dimsOf(v); dims && !dims->empty())
      return emitError() << "start, limit and delta must be scalars, got " << v.getType();
  // The length, where all three are constants.
  SmallVector<ElementsAttr, 3> values(3);
  if (!matchPattern(getStart(), m_Constant(&values[0])) ||
      !matchPattern(getLimit(), m_Constant(&values[1])) ||
      !matchPattern(getDelta(), m_Constant(&values[2]))) {
    types.push_back(RankedTensorType::get({ShapedType::kDynamic}, element));
    return success();
  }
  auto lengthOf = [&]() -> llvm::Expected<int64_t> {
    if (isa<IntegerType>(element)) {
      SmallVector<int64_t, 3> ints;
      for (ElementsAttr v : values)
        if (std::optional<SmallVector<int64_t>> i = readIntElements(v); i && i->size() == 1)
          ints.push_back((*i)[0]);
      if (ints.size() == 3)
        return shape::rangeLength(ints[0], ints[1], ints[2]);
    } else if (auto floatType = dyn_cast<FloatType>(element)) {
      // The raw bits of any float width, read through APFloat.
      unsigned width = floatType.getWidth();
      SmallVector<double, 3> floats;
      for (ElementsAttr v : values) {
        SmallVector<char> raw;
        if (!readRawElements(v, raw) || raw.size() * 8 != width || width > 64)
          break;
        uint64_t bits = 0;
        std::memcpy(&bits, raw.data(), raw.size());
        llvm::APFloat value(floatType.getFloatSemantics(), llvm::APInt(width, bits));
        floats.push_back(value.convertToDouble());
      }
      if (floats.size() == 3)
        return shape::rangeLength(floats[0], floats[1], floats[2]);
    }
    return shape::makeError("Range over " + onnxTypeName(element) + " is not supported");
  };
  llvm::Expected<int64_t> length = lengthOf();
  if (!length)
    return emitError() << llvm::toString(length.takeError());
  types.push_back(RankedTensorType::get({*length}, element));
  return success();
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

#define NUNC_SAME_TYPE_AS_INPUT(OP)                                            \
  LogicalResult OP::inferResultTypes(SmallVectorImpl<Type> &types) {           \
    types.push_back(getInput().getType());                                     \
    return success();                                                          \
  }
NUNC_SAME_TYPE_AS_INPUT(SqrtOp)
NUNC_SAME_TYPE_AS_INPUT(ErfOp)
NUNC_SAME_TYPE_AS_INPUT(ExpOp)
NUNC_SAME_TYPE_AS_INPUT(LogOp)
NUNC_SAME_TYPE_AS_INPUT(SinOp)
NUNC_SAME_TYPE_AS_INPUT(CosOp)
NUNC_SAME_TYPE_AS_INPUT(TanOp)
NUNC_SAME_TYPE_AS_INPUT(AsinOp)
NUNC_SAME_TYPE_AS_INPUT(AcosOp)
NUNC_SAME_TYPE_AS_INPUT(AtanOp)
NUNC_SAME_TYPE_AS_INPUT(SinhOp)
NUNC_SAME_TYPE_AS_INPUT(CoshOp)
NUNC_SAME_TYPE_AS_INPUT(AsinhOp)
NUNC_SAME_TYPE_AS_INPUT(AcoshOp)
NUNC_SAME_TYPE_AS_INPUT(AtanhOp)
NUNC_SAME_TYPE_AS_INPUT(SoftplusOp)
NUNC_SAME_TYPE_AS_INPUT(AbsOp)
NUNC_SAME_TYPE_AS_INPUT(TanhOp)
NUNC_SAME_TYPE_AS_INPUT(FloorOp)
NUNC_SAME_TYPE_AS_INPUT(CeilOp)
NUNC_SAME_TYPE_AS_INPUT(RoundOp)
NUNC_SAME_TYPE_AS_INPUT(ReluOp)
NUNC_SAME_TYPE_AS_INPUT(LeakyReluOp)
NUNC_SAME_TYPE_AS_INPUT(HardSigmoidOp)
NUNC_SAME_TYPE_AS_INPUT(HardSwishOp)
NUNC_SAME_TYPE_AS_INPUT(SiluOp)
NUNC_SAME_TYPE_AS_INPUT(SigmoidOp)
NUNC_SAME_TYPE_AS_INPUT(IdentityOp)
#undef NUNC_SAME_TYPE_AS_INPUT

LogicalResult SoftmaxOp::inferResultTypes(SmallVectorImpl<Type> &types) {
  if (getInputQuantization().has_value() != getOutputQuantization().has_value() ||
      (getInputQuantization() &&
       (!isU8Grid(getInputQuantization()) || !isU8Grid(getOutputQuantization()))))
    return emitError() << "input_quantization and output_quantization must both be "
                          "!quant.uniform<u8:f32, scale:zp>, or neither";
  if (auto in = dimsOf(getInput()))
    if (failed(check(*this, shape::normalizeAxis(getAxis(), in->size(), "Softmax axis"))))
      return failure();
  types.push_back(getInput().getType());
  return success();
}

static bool isTensorGrid(Type t);

LogicalResult GeluOp::inferResultTypes(SmallVectorImpl<Type> &types) {
  if (getApproximate() != "none" && getApproximate() != "tanh")
    return emitError() << "approximate must be \"none\" or \"tanh\", got \""
                       << getApproximate() << "\"";
  if (!hasGrids() && (getOne().convertToFloat() != 1.f || getHalf().convertToFloat() != 0.5f))
    return emitError() << "one and half other than 1 and 0.5 need quantization grids";
  for (std::optional<Type> grid :
       {getErfQuantization(), getSumQuantization(), getProductQuantization()}) {
    if (!grid)
      continue;
    if (getApproximate() != "none" || !elementOf(getInput()).isF32())
      return emitError() << "quantization grids need the erf form on an f32 input";
    if (!isTensorGrid(*grid))
      return emitError() << "quantization grids must be per-tensor !quant.uniform of at most "
                            "16 bits over f32 with a positive scale and a zero point in "
                            "range, not "
                         << *grid;
  }
  types.push_back(getInput().getType());
  return success();
}

LogicalResult CastOp::inferResultTypes(SmallVectorImpl<Type> &types) {
  types.push_back(tensorOf(dimsOf(getInput()), getTo()));
  return success();
}

LogicalResult ClipOp::inferResultTypes(SmallVectorImpl<Type> &types) {
  for (Value bound : {getMin(), getMax()}) {
    if (!bound)
      continue;
    if (elementOf(bound) != elementOf(getInput()))
      return emitError() << "bound type " << onnxTypeName(elementOf(bound))
                         << " differs from input type " << onnxTypeName(elementOf(getInput()));
    auto d = dimsOf(bound);
    if (d) {
      std::optional<int64_t> n = shape::numElements(*d);
      if (n && *n != 1)
        return emitError() << "min and max must be scalars, got shape "
                           << shape::toString(*d);
    }
  }
  types.push_back(getInput().getType());
  return success();
}

/// The u8 activation type a static int8 GEMM reads: per tensor, u8 over
/// f32, positive scale (the zero point is in range by construction).
static bool isU8Activation(Type t) {
  auto q = dyn_cast_or_null<quant::UniformQuantizedType>(t);
  return q && q.getStorageType().isInteger(8) && !q.isSigned() && q.getExpressedType().isF32() &&
         q.getScale() > 0;
}

/// An Add/Sub/Mul/Div's output grid: per tensor, on an f32 result.
static LogicalResult checkOutputGrid(Operation *op, std::optional<Type> grid) {
  if (!grid)
    return success();
  if (!elementOf(op->getOperand(0)).isF32() || !isTensorGrid(*grid))
    return op->emitError() << "output_quantization must be a per-tensor grid over f32 on an "
                              "f32 result, got "
                           << *grid;
  return success();
}

#define NUNC_BROADCAST_SAME_ELEMENT(OP)                                        \
  LogicalResult OP::inferResultTypes(SmallVectorImpl<Type> &types) {           \
    if (failed(requireSameElement(*this, getOperands())) ||                    \
        failed(checkOutputGrid(*this, getOutputQuantization())))               \
      return failure();                                                        \
    return inferBroadcast(*this, getOperands(), elementOf(getLhs()), types);   \
  }
NUNC_BROADCAST_SAME_ELEMENT(SubOp)
NUNC_BROADCAST_SAME_ELEMENT(DivOp)
#undef NUNC_BROADCAST_SAME_ELEMENT

/// An Add's or Mul's operand and result grids (the codes' form of
/// QLinearAdd / QLinearMul).
template <typename Op> static LogicalResult inferCodesArith(Op op, SmallVectorImpl<Type> &types) {
  if (failed(requireSameElement(op, op.getOperands())) ||
      failed(checkOutputGrid(op, op.getOutputQuantization())))
    return failure();
  if (op.getSignedCodes() && !op.getLhsQuantization())
    return op.emitError() << "signed_codes needs lhs_quantization and rhs_quantization";
  if (op.getLhsQuantization() || op.getRhsQuantization()) {
    auto u8 = [](std::optional<Type> t) { return isU8Activation(t.value_or(Type())); };
    if (!u8(op.getLhsQuantization()) || !u8(op.getRhsQuantization()) ||
        !u8(op.getOutputQuantization()))
      return op.emitError() << "lhs_quantization and rhs_quantization need each other and an "
                               "output_quantization, all !quant.uniform<u8:f32, scale:zp>";
  }
  return inferBroadcast(op, op.getOperands(), elementOf(op.getLhs()), types);
}

LogicalResult AddOp::inferResultTypes(SmallVectorImpl<Type> &types) {
  return inferCodesArith(*this, types);
}
LogicalResult MulOp::inferResultTypes(SmallVectorImpl<Type> &types) {
  return inferCodesArith(*this, types);
}

LogicalResult PowOp::inferResultTypes(SmallVectorImpl<Type> &types) {
  return inferBroadcast(*this, getOperands(), elementOf(getLhs()), types);
}

LogicalResult EqualOp::inferResultTypes(SmallVectorImpl<Type> &types) {
  if (failed(requireSameElement(*this, getOperands())))
    return failure();
  return inferBroadcast(*this, getOperands(),
                        IntegerType::get(getContext(), 1), types);
}

LogicalResult GreaterOp::inferResultTypes(SmallVectorImpl<Type> &types) {
  if (failed(requireSameElement(*this, getOperands())))
    return failure();
  return inferBroadcast(*this, getOperands(), IntegerType::get(getContext(), 1), types);
}


/// Same-typed broadcasting operands, the result of their type.
template <typename OpT>
static LogicalResult inferSameTypeBroadcast(OpT op, SmallVectorImpl<Type> &types) {
  if (failed(requireSameElement(op, op->getOperands())))
    return failure();
  return inferBroadcast(op, op->getOperands(), elementOf(op.getLhs()), types);
}

LogicalResult MinOp::inferResultTypes(SmallVectorImpl<Type> &types) {
  return inferSameTypeBroadcast(*this, types);
}
LogicalResult MaxOp::inferResultTypes(SmallVectorImpl<Type> &types) {
  return inferSameTypeBroadcast(*this, types);
}
LogicalResult ModOp::inferResultTypes(SmallVectorImpl<Type> &types) {
  return inferSameTypeBroadcast(*this, types);
}
LogicalResult BitwiseAndOp::inferResultTypes(SmallVectorImpl<Type> &types) {
  return inferSameTypeBroadcast(*this, types);
}
LogicalResult BitwiseOrOp::inferResultTypes(SmallVectorImpl<Type> &types) {
  return inferSameTypeBroadcast(*this, types);
}
LogicalResult BitwiseXorOp::inferResultTypes(SmallVectorImpl<Type> &types) {
  return inferSameTypeBroadcast(*this, types);
}
LogicalResult ShiftLeftOp::inferResultTypes(SmallVectorImpl<Type> &types) {
  return inferSameTypeBroadcast(*this, types);
}
LogicalResult ShiftRightOp::inferResultTypes(SmallVectorImpl<Type> &types) {
  return inferSameTypeBroadcast(*this, types);
}


LogicalResult WhereOp::inferResultTypes(SmallVectorImpl<Type> &types) {
  if (failed(requireSameElement(*this, {getX(), getY()})))
    return failure();
  return inferBroadcast(*this, getOperands(), elementOf(getX()), types);
}

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

LogicalResult MatMulOp::inferResultTypes(SmallVectorImpl<Type> &types) {
  if (failed(requireSameElement(*this, getOperands())))
    return failure();
  auto a = dimsOf(getA()), b = dimsOf(getB());
  if (!a || !b) {
    types.push_back(UnrankedTensorType::get(elementOf(getA())));
    return success();
  }
  FailureOr<Dims> out = check(*this, shape::matmul(*a, *b));
  if (failed(out))
    return failure();
  types.push_back(RankedTensorType::get(*out, elementOf(getA())));
  return success();
}

LogicalResult GemmOp::inferResultTypes(SmallVectorImpl<Type> &types) {
  SmallVector<Value> values{getA(), getB()};
  if (getC())
    values.push_back(getC());
  if (failed(requireSameElement(*this, values)))
    return failure();
  Type element = elementOf(getA());
  auto a = dimsOf(getA()), b = dimsOf(getB());
  if (a && a->size() != 2)
    return emitError() << "A must be 2-D, got rank " << a->size();
  if (b && b->size() != 2)
    return emitError() << "B must be 2-D, got rank " << b->size();
  if (!a || !b) {
    types.push_back(rankedDynamic(2, element));
    return success();
  }
  int64_t m = (*a)[getTransA() ? 1 : 0], ka = (*a)[getTransA() ? 0 : 1];
  int64_t kb = (*b)[getTransB() ? 1 : 0], n = (*b)[getTransB() ? 0 : 1];
  if (!ShapedType::isDynamic(ka) && !ShapedType::isDynamic(kb) && ka != kb)
    return emitError() << "inner dims differ: A " << shape::toString(*a) << " B "
                       << shape::toString(*b) << " transA " << getTransA()
                       << " transB " << getTransB();
  Dims out{m, n};
  if (getC()) {
    if (auto c = dimsOf(getC())) {
      if (c->size() > 2)
        return emitError() << "C must have rank <= 2, got " << c->size();
      FailureOr<Dims> merged = check(*this, shape::broadcast(out, *c));
      if (failed(merged))
        return failure();
      // C broadcasts to [M, N] one way only.
      for (auto [o, mrg] : llvm::zip(out, *merged))
        if (!ShapedType::isDynamic(o) && o != mrg)
          return emitError() << "C of shape " << shape::toString(*c)
                             << " does not broadcast to " << shape::toString(out);
      out = *merged;
    }
  }
  types.push_back(RankedTensorType::get(out, element));
  return success();
}

LogicalResult MatMulIntegerOp::inferResultTypes(SmallVectorImpl<Type> &types) {
  if (getAZeroPoint() && elementOf(getAZeroPoint()) != elementOf(getA()))
    return emitError() << "a_zero_point type differs from A";
  if (getBZeroPoint() && elementOf(getBZeroPoint()) != elementOf(getB()))
    return emitError() << "b_zero_point type differs from B";
  Type i32 = IntegerType::get(getContext(), 32);
  auto a = dimsOf(getA()), b = dimsOf(getB());
  if (!a || !b) {
    types.push_back(UnrankedTensorType::get(i32));
    return success();
  }
  if (getAZeroPoint())
    if (failed(checkQuantParam(*this, getAZeroPoint(), getA(), -2, "a_zero_point")))
      return failure();
  if (getBZeroPoint())
    if (failed(checkQuantParam(*this, getBZeroPoint(), getB(), -1, "b_zero_point")))
      return failure();
  FailureOr<Dims> out = check(*this, shape::matmul(*a, *b));
  if (failed(out))
    return failure();
  types.push_back(RankedTensorType::get(*out, i32));
  return success();
}

LogicalResult QLinearMatMulOp::inferResultTypes(SmallVectorImpl<Type> &types) {
  if (elementOf(getA()) != elementOf(getAZeroPoint()) ||
      elementOf(getB()) != elementOf(getBZeroPoint()))
    return emitError() << "zero points must have the element types of A and B";
  Type element = elementOf(getYZeroPoint());
  auto a = dimsOf(getA()), b = dimsOf(getB());
  if (!a || !b) {
    types.push_back(UnrankedTensorType::get(element));
    return success();
  }
  FailureOr<Dims> out = check(*this, shape::matmul(*a, *b));
  if (failed(out))
    return failure();
  types.push_back(RankedTensorType::get(*out, element));
  return success();
}

//===----------------------------------------------------------------------===//
// Reductions and normalization
//===----------------------------------------------------------------------===//

template <typename ReduceOp> static std::optional<int64_t> trailingRowSizeOf(ReduceOp op) {
  auto in = dyn_cast<RankedTensorType>(op.getData().getType());
  if (!in || !in.hasStaticShape())
    return std::nullopt;
  const int64_t rank = in.getRank();
  SmallVector<int64_t> axes;
  if (op.getAxes()) {
    std::optional<SmallVector<int64_t>> given = getConstantInts(op.getAxes());
    if (!given)
      return std::nullopt;
    for (int64_t a : *given)
      axes.push_back(a < 0 ? a + rank : a);
  }
  if (axes.empty()) {
    if (op.getNoopWithEmptyAxes())
      return std::nullopt;
    for (int64_t a = 0; a < rank; ++a)
      axes.push_back(a);
  }
  llvm::sort(axes);
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  int64_t n = 1;
  for (size_t i = 0; i < axes.size(); ++i) {
    if (axes[i] != rank - static_cast<int64_t>(axes.size() - i))
      return std::nullopt;
    n *= in.getDimSize(axes[i]);
  }
  return n;
}
std::optional<int64_t> ReduceMeanOp::trailingRowSize() { return trailingRowSizeOf(*this); }
std::optional<int64_t> ReduceSumOp::trailingRowSize() { return trailingRowSizeOf(*this); }
std::optional<int64_t> ReduceMaxOp::trailingRowSize() { return trailingRowSizeOf(*this); }
std::optional<int64_t> ReduceMinOp::trailingRowSize() { return trailingRowSizeOf(*this); }
std::optional<int64_t> ReduceProdOp::trailingRowSize() { return trailingRowSizeOf(*this); }

template <typename ReduceOp>
static LogicalResult inferReduce(ReduceOp op, SmallVectorImpl<Type> &types) {
  Type element = elementOf(op.getData());
  if (op.getOrderedF32Arithmetic()) {
    std::optional<int64_t> n = op.trailingRowSize();
    if (!element.isF32() || !n || *n % 4 != 0 || *n < 8)
      return op.emitError() << "ordered_f32_arithmetic needs f32 data reduced over its "
                               "trailing axes in rows of a known multiple of 4 elements, at "
                               "least 8";
  }
  auto in = dimsOf(op.getData());
  std::optional<SmallVector<int64_t>> axes;
  if (op.getAxes()) {
    axes = getConstantInts(op.getAxes());
  } else {
    axes = SmallVector<int64_t>();
  }
  if (!in) {
    types.push_back(UnrankedTensorType::get(element));
    return success();
  }
  if (!axes) {
    // Unknown axes: the rank is known only when dims are kept.
    types.push_back(op.getKeepdims() ? rankedDynamic(in->size(), element)
                                     : UnrankedTensorType::get(element));
    return success();
  }
  FailureOr<Dims> out = check(op, shape::reduce(*in, *axes, op.getKeepdims() != 0,
                                                op.getNoopWithEmptyAxes() != 0));
  if (failed(out))
    return failure();
  types.push_back(RankedTensorType::get(*out, element));
  return success();
}

LogicalResult ReduceMeanOp::inferResultTypes(SmallVectorImpl<Type> &types) {
  return inferReduce(*this, types);
}
LogicalResult ReduceSumOp::inferResultTypes(SmallVectorImpl<Type> &types) {
  return inferReduce(*this, types);
}
template <typename ArgOp>
static LogicalResult inferArgExtreme(ArgOp op, SmallVectorImpl<Type> &types) {
  Type i64 = IntegerType::get(op.getContext(), 64);
  auto in = dimsOf(op.getData());
  if (!in) {
    types.push_back(UnrankedTensorType::get(i64));
    return success();
  }
  FailureOr<Dims> out =
      check(op, shape::reduce(*in, {op.getAxis()}, op.getKeepdims() != 0, false));
  if (failed(out))
    return failure();
  types.push_back(RankedTensorType::get(*out, i64));
  return success();
}
LogicalResult ArgMaxOp::inferResultTypes(SmallVectorImpl<Type> &types) {
  return inferArgExtreme(*this, types);
}
LogicalResult ArgMinOp::inferResultTypes(SmallVectorImpl<Type> &types) {
  return inferArgExtreme(*this, types);
}
LogicalResult ReduceMaxOp::inferResultTypes(SmallVectorImpl<Type> &types) {
  return inferReduce(*this, types);
}
LogicalResult ReduceMinOp::inferResultTypes(SmallVectorImpl<Type> &types) {
  return inferReduce(*this, types);
}
LogicalResult ReduceProdOp::inferResultTypes(SmallVectorImpl<Type> &types) {
  return inferReduce(*this, types);
}

LogicalResult LayerNormOp::inferResultTypes(SmallVectorImpl<Type> &types) {
  Type element = elementOf(getInput());
  Type statsElement =
      getStashType() == 1 ? Float32Type::get(getContext()) : element;
  auto in = dimsOf(getInput());
  if (!in) {
    types.append({getInput().getType(), UnrankedTensorType::get(statsElement),
                  UnrankedTensorType::get(statsElement)});
    return success();
  }
  FailureOr<int64_t> axis =
      check(*this, shape::normalizeAxis(getAxis(), in->size(), "axis"));
  if (failed(axis))
    return failure();
  ArrayRef<int64_t> normalized = in->drop_front(*axis);
  if (getOrderedF32Arithmetic()) {
    std::optional<int64_t> n = rowSize();
    if (!element.isF32() || !n || *n % 8 != 0)
      return emitError() << "ordered_f32_arithmetic needs f32 rows of a known multiple of 8 "
                            "elements";
  }
  SmallVector<Value> params{getScale()};
  if (getBias())
    params.push_back(getBias());
  for (Value p : params) {
    auto d = dimsOf(p);
    if (!d)
      continue;
    // Scale and bias broadcast to the normalized shape, never the reverse.
    auto b = shape::broadcast(normalized, *d);
    bool fits = static_cast<bool>(b) && b->size() == normalized.size();
    if (fits)
      for (auto [n, m] : llvm::zip(normalized, *b))
        fits &= ShapedType::isDynamic(n) || n == m;
    if (!b)
      llvm::consumeError(b.takeError());
    if (!fits)
      return emitError() << "scale/bias of shape " << shape::toString(*d)
                         << " does not broadcast to the normalized shape "
                         << shape::toString(normalized);
  }
  Dims stats(in->begin(), in->begin() + *axis);
  stats.append(in->size() - *axis, 1);
  types.push_back(getInput().getType());
  types.push_back(RankedTensorType::get(stats, statsElement));
  types.push_back(RankedTensorType::get(stats, statsElement));
  return success();
}


LogicalResult BatchNormOp::inferResultTypes(SmallVectorImpl<Type> &types) {
  auto in = dimsOf(getInput());
  if (in && in->size() < 2)
    return emitError() << "input must have rank >= 2, got " << in->size();
  for (std::optional<Type> grid : {getInputQuantization(), getOutputQuantization()}) {
    if (!grid)
      continue;
    if (!elementOf(getInput()).isF32())
      return emitError() << "input_quantization and output_quantization need an f32 input";
    if (!isTensorGrid(*grid))
      return emitError() << "input_quantization and output_quantization must be per-tensor "
                            "!quant.uniform of at most 16 bits over f32 with a positive scale "
                            "and a zero point in range, not "
                         << *grid;
  }
  for (Value p : {getScale(), getBias(), getMean(), getVar()}) {
    auto d = dimsOf(p);
    if (!d)
      continue;
    if (d->size() != 1)
      return emitError() << "scale, bias, mean and var must be 1-D";
    if (in && !ShapedType::isDynamic((*in)[1]) && !ShapedType::isDynamic((*d)[0]) &&
        (*d)[0] != (*in)[1])
      return emitError() << "parameter of size " << (*d)[0] << " does not match "
                         << (*in)[1] << " channels";
  }
  types.push_back(getInput().getType());
  return success();
}

//===----------------------------------------------------------------------===//
// Data movement and shapes
//===----------------------------------------------------------------------===//

LogicalResult GatherOp::inferResultTypes(SmallVectorImpl<Type> &types) {
  Type element = elementOf(getData());
  auto data = dimsOf(getData()), indices = dimsOf(getIndices());
  if (!data || !indices) {
    types.push_back(UnrankedTensorType::get(element));
    return success();
  }
  FailureOr<Dims> out = check(*this, shape::gather(*data, *indices, getAxis()));
  if (failed(out))
    return failure();
  // Constant indices can be checked now; run-time ones are checked when run.
  int64_t axis = shape::wrapAxis(getAxis(), data->size());
  int64_t dim = (*data)[axis];
  if (!ShapedType::isDynamic(dim))
    if (std::optional<SmallVector<int64_t>> values = getConstantInts(getIndices()))
      for (int64_t i : *values)
        if (i < -dim || i >= dim)
          return emitError() << "index " << i << " is out of range for axis "
                             << axis << " of size " << dim;
  types.push_back(RankedTensorType::get(*out, element));
  return success();
}

LogicalResult GatherElementsOp::inferResultTypes(SmallVectorImpl<Type> &types) {
  Type element = elementOf(getData());
  auto data = dimsOf(getData()), indices = dimsOf(getIndices());
  if (!data || !indices) {
    types.push_back(UnrankedTensorType::get(element));
    return success();
  }
  if (data->size() != indices->size() || data->empty())
    return emitError() << "GatherElements needs data and indices of the same rank (at least "
                          "1), got "
                       << data->size() << " and " << indices->size();
  const int64_t rank = data->size(), given = getAxis();
  if (given < -rank || given >= rank)
    return emitError() << "axis " << given << " is out of range for rank " << rank;
  int64_t axis = shape::wrapAxis(given, rank);
  for (int64_t d = 0; d < rank; ++d)
    if (d != axis && !ShapedType::isDynamic((*data)[d]) &&
        !ShapedType::isDynamic((*indices)[d]) && (*indices)[d] > (*data)[d])
      return emitError() << "indices dim " << d << " (" << (*indices)[d]
                         << ") exceeds the data's (" << (*data)[d] << ")";
  int64_t dim = (*data)[axis];
  if (!ShapedType::isDynamic(dim))
    if (std::optional<SmallVector<int64_t>> values = getConstantInts(getIndices()))
      for (int64_t i : *values)
        if (i < -dim || i >= dim)
          return emitError() << "index " << i << " is out of range for axis " << axis
                             << " of size " << dim;
  types.push_back(RankedTensorType::get(*indices, element));
  return success();
}

LogicalResult GatherNDOp::inferResultTypes(SmallVectorImpl<Type> &types) {
  Type element = elementOf(getData());
  auto data = dimsOf(getData()), indices = dimsOf(getIndices());
  if (indices && indices->empty())
    return emitError() << "GatherND needs indices of rank >= 1 (index tuples along the last "
                          "dim), got a scalar";
  if (!data || !indices || ShapedType::isDynamic(indices->back())) {
    types.push_back(UnrankedTensorType::get(element));
    return success();
  }
  const int64_t b = getBatchDims(), k = indices->back();
  const int64_t r = data->size(), q = indices->size();
  if (b < 0 || b >= std::min(r, q) || k < 1 || b + k > r)
    return emitError() << "GatherND needs 0 <= batch_dims < the ranks and an index tuple of 1 "
                          "to rank - batch_dims entries (data rank "
                       << r << ", tuples of " << k << ", batch_dims " << b << ")";
  for (int64_t d = 0; d < b; ++d)
    if (!ShapedType::isDynamic((*data)[d]) && !ShapedType::isDynamic((*indices)[d]) &&
        (*data)[d] != (*indices)[d])
      return emitError() << "GatherND batch dim " << d << " differs: " << (*data)[d]
                         << " in data, " << (*indices)[d] << " in indices";
  Dims out(indices->begin(), indices->end() - 1);
  out.append(data->begin() + b + k, data->end());
  types.push_back(RankedTensorType::get(out, element));
  return success();
}

template <typename ScatterOpT> static LogicalResult checkReduction(ScatterOpT op) {
  StringRef r = op.getReduction();
  if (!llvm::is_contained({"none", "add", "mul", "max", "min"}, r))
    return op.emitError() << "unknown reduction '" << r << "'";
  if (elementOf(op.getData()).isInteger(1) && r != "none")
    return op.emitError() << "a " << r << " reduction of bool data";
  return success();
}

LogicalResult ScatterNDOp::inferResultTypes(SmallVectorImpl<Type> &types) {
  if (failed(checkReduction(*this)))
    return failure();
  auto data = dimsOf(getData()), indices = dimsOf(getIndices()), updates = dimsOf(getUpdates());
  if (indices && indices->empty())
    return emitError() << "ScatterND needs indices of rank >= 1 (index tuples along the last "
                          "dim), got a scalar";
  if (data && indices && updates && !ShapedType::isDynamic(indices->back())) {
    const int64_t k = indices->back();
    if (k < 1 || k > static_cast<int64_t>(data->size()))
      return emitError() << "ScatterND index tuples of " << k << " entries for data of rank "
                         << data->size();
    Dims want(indices->begin(), indices->end() - 1);
    want.append(data->begin() + k, data->end());
    bool ok = want.size() == updates->size();
    for (size_t d = 0; ok && d < want.size(); ++d)
      ok = ShapedType::isDynamic(want[d]) || ShapedType::isDynamic((*updates)[d]) ||
           want[d] == (*updates)[d];
    if (!ok)
      return emitError() << "ScatterND updates must have shape [" << llvm::interleaved(want)
                         << "], got [" << llvm::interleaved(*updates) << "]";
  }
  types.push_back(getData().getType());
  return success();
}

LogicalResult ScatterElementsOp::inferResultTypes(SmallVectorImpl<Type> &types) {
  if (failed(checkReduction(*this)))
    return failure();
  auto data = dimsOf(getData()), indices = dimsOf(getIndices()), updates = dimsOf(getUpdates());
  if (data && indices && updates) {
    const int64_t rank = data->size(), axis = getAxis();
    if (indices->size() != data->size() || *indices != *updates || rank == 0)
      return emitError() << "ScatterElements needs indices and updates of one shape, of "
                            "data's rank";
    if (axis < -rank || axis >= rank)
      return emitError() << "axis " << axis << " is out of range for rank " << rank;
  }
  types.push_back(getData().getType());
  return success();
}

LogicalResult TopKOp::inferResultTypes(SmallVectorImpl<Type> &types) {
  Type element = elementOf(getInput()), i64 = IntegerType::get(getContext(), 64);
  auto in = dimsOf(getInput());
  if (!in) {
    types.push_back(UnrankedTensorType::get(element));
    types.push_back(UnrankedTensorType::get(i64));
    return success();
  }
  const int64_t rank = in->size(), given = getAxis(), k = getK();
  if (rank == 0 || given < -rank || given >= rank)
    return emitError() << "TopK axis " << given << " is out of range for rank " << rank;
  int64_t axis = shape::wrapAxis(given, rank);
  if (k < 0 || (!ShapedType::isDynamic((*in)[axis]) && k > (*in)[axis]))
    return emitError() << "TopK's k (" << k << ") must be between 0 and the axis' size ("
                       << (*in)[axis] << ")";
  Dims out(*in);
  out[axis] = k;
  types.push_back(RankedTensorType::get(out, element));
  types.push_back(RankedTensorType::get(out, i64));
  return success();
}

/// CumSum and CumProd: the data's type; the axis within its rank.
template <typename OpT>
static LogicalResult inferCumulative(OpT op, llvm::StringRef name, SmallVectorImpl<Type> &types) {
  if (auto t = dyn_cast<RankedTensorType>(op.getData().getType())) {
    const int64_t axis = op.getAxis();
    if (t.getRank() == 0 || axis < -t.getRank() || axis >= t.getRank())
      return op.emitError() << name << " axis " << axis
                            << " is out of range for rank " << t.getRank();
  }
  types.push_back(op.getData().getType());
  return success();
}
LogicalResult CumSumOp::inferResultTypes(SmallVectorImpl<Type> &types) {
  return inferCumulative(*this, "CumSum", types);
}
LogicalResult CumProdOp::inferResultTypes(SmallVectorImpl<Type> &types) {
  return inferCumulative(*this, "CumProd", types);
}

LogicalResult ReshapeOp::inferResultTypes(SmallVectorImpl<Type> &types) {
  Type element = elementOf(getData());
  auto shapeDims = dimsOf(getShape());
  if (shapeDims && shapeDims->size() != 1)
    return emitError() << "shape must be 1-D, got rank " << shapeDims->size();
  std::optional<SmallVector<int64_t>> target = getPartialShapeValue(getShape());
  if (!target) {
    types.push_back(UnrankedTensorType::get(element));
    return success();
  }
  if (llvm::count(*target, -1) > 1)
    return emitError() << "Reshape target " << shape::toString(*target)
                       << " has more than one -1";
  for (int64_t t : *target)
    if (!ShapedType::isDynamic(t) && t < -1)
      return emitError() << "Reshape target " << shape::toString(*target)
                         << " has a negative dim other than -1";
  auto in = dimsOf(getData());
  if (!in) {
    // Without the input's rank, only explicit positive target dims are known.
    SmallVector<int64_t> dims;
    for (int64_t t : *target)
      dims.push_back(t > 0 ? t : ShapedType::kDynamic);
    if (getAllowzero())
      for (auto [d, t] : llvm::zip(dims, *target))
        if (t == 0)
          d = 0;
    types.push_back(RankedTensorType::get(dims, element));
    return success();
  }
  FailureOr<Dims> out =
      check(*this, shape::reshape(*in, *target, getAllowzero() != 0));
  if (failed(out))
    return failure();
  types.push_back(RankedTensorType::get(*out, element));
  return success();
}

LogicalResult FlattenOp::inferResultTypes(SmallVectorImpl<Type> &types) {
  Type element = elementOf(getInput());
  auto in = dimsOf(getInput());
  if (!in) {
    types.push_back(rankedDynamic(2, element));
    return success();
  }
  FailureOr<Dims> out = check(*this, shape::flatten(*in, getAxis()));
  if (failed(out))
    return failure();
  types.push_back(RankedTensorType::get(*out, element));
  return success();
}

LogicalResult TransposeOp::inferResultTypes(SmallVectorImpl<Type> &types) {
  Type element = elementOf(getInput());
  auto in = dimsOf(getInput());
  if (llvm::Error e = shape::checkPermutation(getPerm(), getPerm().size()))
    return fail(*this, std::move(e));
  if (!in) {
    types.push_back(rankedDynamic(getPerm().size(), element));
    return success();
  }
  FailureOr<Dims> out = check(*this, shape::transpose(*in, getPerm()));
  if (failed(out))
    return failure();
  types.push_back(RankedTensorType::get(*out, element));
  return success();
}

LogicalResult UnsqueezeOp::inferResultTypes(SmallVectorImpl<Type> &types) {
  Type element = elementOf(getData());
  auto in = dimsOf(getData());
  std::optional<SmallVector<int64_t>> axes = getConstantInts(getAxes());
  if (!in || !axes) {
    auto axesDims = dimsOf(getAxes());
    if (in && axesDims && axesDims->size() == 1 &&
        !ShapedType::isDynamic((*axesDims)[0]))
      types.push_back(rankedDynamic(in->size() + (*axesDims)[0], element));
    else
      types.push_back(UnrankedTensorType::get(element));
    return success();
  }
  FailureOr<Dims> out = check(*this, shape::unsqueeze(*in, *axes));
  if (failed(out))
    return failure();
  types.push_back(RankedTensorType::get(*out, element));
  return success();
}

LogicalResult SqueezeOp::inferResultTypes(SmallVectorImpl<Type> &types) {
  Type element = elementOf(getData());
  auto in = dimsOf(getData());
  std::optional<SmallVector<int64_t>> axes;
  if (getAxes())
    axes = getConstantInts(getAxes());
  if (!in || (getAxes() && !axes) ||
      (!getAxes() && !shape::allStatic(*in))) {
    types.push_back(UnrankedTensorType::get(element));
    return success();
  }
  std::optional<ArrayRef<int64_t>> axesRef;
  if (axes)
    axesRef = ArrayRef<int64_t>(*axes);
  FailureOr<Dims> out = check(*this, shape::squeeze(*in, axesRef));
  if (failed(out))
    return failure();
  types.push_back(RankedTensorType::get(*out, element));
  return success();
}

LogicalResult ConcatOp::inferResultTypes(SmallVectorImpl<Type> &types) {
  if (getInputs().empty())
    return emitError() << "needs at least one input";
  if (failed(requireSameElement(*this, getInputs())))
    return failure();
  Type element = elementOf(getInputs().front());
  SmallVector<ArrayRef<int64_t>> shapes;
  std::optional<int64_t> rank;
  for (Value v : getInputs()) {
    if (auto d = dimsOf(v)) {
      shapes.push_back(*d);
      rank = d->size();
    }
  }
  if (shapes.size() != getInputs().size()) {
    types.push_back(rank ? rankedDynamic(*rank, element)
                         : UnrankedTensorType::get(element));
    return success();
  }
  FailureOr<Dims> out = check(*this, shape::concat(shapes, getAxis()));
  if (failed(out))
    return failure();
  types.push_back(RankedTensorType::get(*out, element));
  return success();
}

LogicalResult PadOp::inferResultTypes(SmallVectorImpl<Type> &types) {
  Type element = elementOf(getInput());
  StringRef mode = getMode();
  if (mode != "constant" && mode != "reflect" && mode != "edge" && mode != "wrap")
    return emitError() << "Pad mode must be constant, reflect, edge or wrap, got '" << mode
                       << "'";
  if (getConstantValue()) {
    auto v = dyn_cast<RankedTensorType>(getConstantValue().getType());
    if (elementOf(getConstantValue()) != element || (v && v.getNumElements() > 1 && v.hasStaticShape()))
      return emitError() << "Pad's constant_value must be one element of the input's type, got "
                         << getConstantValue().getType();
  }
  auto in = dimsOf(getInput());
  if (!in) {
    types.push_back(UnrankedTensorType::get(element));
    return success();
  }
  const int64_t rank = in->size();
  std::optional<SmallVector<int64_t>> pads = getConstantInts(getPads());
  std::optional<SmallVector<int64_t>> axes =
      getAxes() ? getConstantInts(getAxes()) : std::optional<SmallVector<int64_t>>();
  if (!pads || (getAxes() && !axes)) {
    types.push_back(rankedDynamic(rank, element));
    return success();
  }
  if (axes) {
    llvm::Expected<shape::Dims> full = shape::spreadPads(*pads, *axes, rank);
    if (!full)
      return emitError() << llvm::toString(full.takeError());
    pads = *full;
  }
  if (static_cast<int64_t>(pads->size()) != 2 * rank)
    return emitError() << "Pad needs 2 x rank = " << 2 * rank << " pads, got " << pads->size();
  SmallVector<int64_t> out;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t dim = (*in)[d], begin = (*pads)[d], end = (*pads)[d + rank];
    if (ShapedType::isDynamic(dim)) {
      out.push_back(ShapedType::kDynamic);
      continue;
    }
    if (dim + begin + end < 0)
      return emitError() << "Pad's pads " << begin << " and " << end << " leave dim " << d
                         << " (" << dim << ") negative";
    if ((mode == "reflect" && (begin >= dim || end >= dim) && (begin > 0 || end > 0)) ||
        (mode != "constant" && dim == 0 && (begin > 0 || end > 0)))
      return emitError() << "Pad mode '" << mode << "' cannot pad dim " << d << " of size "
                         << dim << " by " << begin << " and " << end;
    out.push_back(dim + begin + end);
  }
  types.push_back(RankedTensorType::get(out, element));
  return success();
}

LogicalResult SliceOp::inferResultTypes(SmallVectorImpl<Type> &types) {
  Type element = elementOf(getData());
  auto in = dimsOf(getData());
  if (getSteps())
    if (std::optional<SmallVector<int64_t>> steps = getConstantInts(getSteps()))
      if (llvm::is_contained(*steps, 0))
        return emitError() << "Slice step must not be 0";
  if (!in) {
    types.push_back(UnrankedTensorType::get(element));
    return success();
  }
  auto starts = getConstantInts(getStarts()), ends = getConstantInts(getEnds());
  std::optional<SmallVector<int64_t>> axes = SmallVector<int64_t>(),
                                      steps = SmallVector<int64_t>();
  if (getAxes())
    axes = getConstantInts(getAxes());
  if (getSteps())
    steps = getConstantInts(getSteps());
  if (!starts || !ends || !axes || !steps) {
    types.push_back(rankedDynamic(in->size(), element));
    return success();
  }
  auto slices = shape::slice(*in, *starts, *ends, *axes, *steps);
  if (!slices)
    return fail(*this, slices.takeError());
  SmallVector<int64_t> out;
  for (const shape::SliceDim &s : *slices)
    out.push_back(s.size);
  types.push_back(RankedTensorType::get(out, element));
  return success();
}

LogicalResult ExpandOp::inferResultTypes(SmallVectorImpl<Type> &types) {
  Type element = elementOf(getInput());
  auto shapeDims = dimsOf(getShape());
  if (shapeDims && shapeDims->size() != 1)
    return emitError() << "shape must be 1-D, got rank " << shapeDims->size();
  std::optional<SmallVector<int64_t>> target = getPartialShapeValue(getShape());
  auto in = dimsOf(getInput());
  if (target)
    for (int64_t t : *target)
      if (!ShapedType::isDynamic(t) && t < 0)
        return emitError() << "shape " << shape::toString(*target)
                           << " has a negative dim";
  if (!target || !in) {
    types.push_back(UnrankedTensorType::get(element));
    return success();
  }
  FailureOr<Dims> out = check(*this, shape::broadcast(*in, *target));
  if (failed(out))
    return failure();
  types.push_back(RankedTensorType::get(*out, element));
  return success();
}

LogicalResult ShapeOp::inferResultTypes(SmallVectorImpl<Type> &types) {
  Type i64 = IntegerType::get(getContext(), 64);
  auto in = dimsOf(getData());
  if (!in) {
    types.push_back(RankedTensorType::get({ShapedType::kDynamic}, i64));
    return success();
  }
  int64_t rank = in->size();
  auto clampIndex = [&](int64_t i) {
    return std::clamp<int64_t>(i < 0 ? i + rank : i, 0, rank);
  };
  int64_t start = clampIndex(getStart());
  int64_t end = clampIndex(getEnd().value_or(rank));
  types.push_back(RankedTensorType::get({std::max<int64_t>(0, end - start)}, i64));
  return success();
}

//===----------------------------------------------------------------------===//
// Convolution and pooling
//===----------------------------------------------------------------------===//

/// Conv's shape rules, shared by conv and fused_conv.
/// (quantized_conv checks its weight's element type itself.)
static LogicalResult inferConv(Operation *op, Value input, Value weight, Value bias,
                               StringRef autoPad, ArrayRef<int64_t> dilations,
                               int64_t group, ArrayRef<int64_t> kernelShape,
                               ArrayRef<int64_t> pads, ArrayRef<int64_t> strides,
                               SmallVectorImpl<Type> &types, bool quantizedWeight = false) {
  // A u8 input (checked by fused_conv and quantized_conv) reads as f32
  // values.
  bool quantizedInput = isa<quant::QuantizedType>(elementOf(input));
  SmallVector<Value> values;
  if (!quantizedInput)
    values.push_back(input);
  if (!quantizedWeight)
    values.push_back(weight);
  if (bias)
    values.push_back(bias);
  if (!values.empty() && failed(requireSameElement(op, values)))
    return failure();
  Type element = quantizedInput ? Type(Float32Type::get(op->getContext())) : elementOf(input);
  auto in = dimsOf(input), w = dimsOf(weight);
  if (!w)
    return op->emitError() << "the weight's rank must be known";
  if (group <= 0)
    return op->emitError() << "group must be positive, got " << group;
  if (w->size() < 3)
    return op->emitError() << "weight must have rank >= 3, got " << w->size();
  if (kernelShape != w->drop_front(2) && shape::allStatic(w->drop_front(2)))
    return op->emitError() << "kernel_shape " << shape::toString(kernelShape)
                           << " differs from the weight's spatial dims "
                           << shape::toString(w->drop_front(2));
  int64_t m = (*w)[0];
  if (!ShapedType::isDynamic(m) && m % group != 0)
    return op->emitError() << m << " output channels do not divide into " << group
                           << " groups";
  if (in) {
    if (in->size() != w->size())
      return op->emitError() << "input rank " << in->size()
                             << " differs from weight rank " << w->size();
    int64_t c = (*in)[1], wc = (*w)[1];
    if (!ShapedType::isDynamic(c) && !ShapedType::isDynamic(wc) && c != wc * group)
      return op->emitError() << "input has " << c << " channels, weight expects " << wc
                             << " x " << group << " groups";
  }
  if (bias) {
    auto b = dimsOf(bias);
    if (b && (b->size() != 1 || (!ShapedType::isDynamic((*b)[0]) &&
                                 !ShapedType::isDynamic(m) && (*b)[0] != m)))
      return op->emitError() << "bias must be 1-D with " << m << " entries";
  }
  FailureOr<Dims> out = inferWindowed(op, input, kernelShape, strides, dilations, pads,
                                      autoPad, /*ceilMode=*/false, m);
  if (failed(out))
    return failure();
  types.push_back(in ? Type(RankedTensorType::get(*out, element))
                     : rankedDynamic(w->size(), element));
  return success();
}

/// weight_quantization of a conv or fused_conv: the grid of a weight of M
/// output channels (isConvWeightGrid).
static LogicalResult checkWeightGrid(Operation *op, Value weight, std::optional<Type> grid) {
  if (!grid)
    return success();
  auto w = dimsOf(weight);
  int64_t channels = w && !w->empty() ? (*w)[0] : ShapedType::kDynamic;
  if (ShapedType::isDynamic(channels) || !isConvWeightGrid(*grid, channels))
    return op->emitError() << "weight_quantization must be an 8-bit !quant.uniform over f32 with "
                              "positive scales, per tensor or one per output channel (axis 0), "
                              "not "
                           << *grid;
  return success();
}

LogicalResult ConvOp::inferResultTypes(SmallVectorImpl<Type> &types) {
  if (failed(checkWeightGrid(*this, getWeight(), getWeightQuantization())))
    return failure();
  return inferConv(*this, getInput(), getWeight(), getBias(), getAutoPad(), getDilations(),
                   getGroup(), getKernelShape(), getPads(), getStrides(), types);
}

LogicalResult ConvIntegerOp::inferResultTypes(SmallVectorImpl<Type> &types) {
  if (getInputZeroPoint() && elementOf(getInputZeroPoint()) != elementOf(getInput()))
    return emitError() << "input_zero_point type differs from the input";
  if (getWeightZeroPoint() && elementOf(getWeightZeroPoint()) != elementOf(getWeight()))
    return emitError() << "weight_zero_point type differs from the weight";
  if (getInputZeroPoint())
    if (auto z = dimsOf(getInputZeroPoint());
        z && shape::allStatic(*z) && llvm::any_of(*z, [](int64_t d) { return d != 1; }))
      return emitError() << "input_zero_point must be a scalar";
  // One weight zero point, or one per output channel (ONNX's w_zero_point).
  if (getWeightZeroPoint() &&
      failed(checkQuantParam(*this, getWeightZeroPoint(), getWeight(), 0, "w_zero_point")))
    return failure();
  if (failed(inferConv(*this, getInput(), getWeight(), Value(), getAutoPad(), getDilations(),
                       getGroup(), getKernelShape(), getPads(), getStrides(), types,
                       /*quantizedWeight=*/true)))
    return failure();
  Type i32 = IntegerType::get(getContext(), 32);
  if (auto r = dyn_cast<RankedTensorType>(types.back()))
    types.back() = r.clone(i32);
  else
    types.back() = UnrankedTensorType::get(i32);
  return success();
}

LogicalResult QLinearConvOp::inferResultTypes(SmallVectorImpl<Type> &types) {
  if (elementOf(getInputZeroPoint()) != elementOf(getInput()))
    return emitError() << "x_zero_point type " << onnxTypeName(elementOf(getInputZeroPoint()))
                       << " differs from the input type " << onnxTypeName(elementOf(getInput()));
  if (elementOf(getWeightZeroPoint()) != elementOf(getWeight()))
    return emitError() << "w_zero_point type " << onnxTypeName(elementOf(getWeightZeroPoint()))
                       << " differs from the weight type " << onnxTypeName(elementOf(getWeight()));
  for (auto [v, what] : {std::pair(getInputScale(), "x_scale"),
                         std::pair(getInputZeroPoint(), "x_zero_point"),
                         std::pair(getOutputScale(), "y_scale"),
                         std::pair(getOutputZeroPoint(), "y_zero_point")}) {
    if (auto d = dimsOf(v); d && shape::allStatic(*d) && shape::numElements(*d) != 1)
      return emitError() << what << " must be a scalar";
    if (StringRef(what).ends_with("scale") && failed(checkFiniteScale(*this, v, what)))
      return failure();
  }
  // w_scale and w_zero_point: a scalar or one per output channel (axis 0).
  for (auto [v, what] : {std::pair(getWeightScale(), "w_scale"),
                         std::pair(getWeightZeroPoint(), "w_zero_point")})
    if (failed(checkQuantParam(*this, v, getWeight(), 0, what)))
      return failure();
  if (getBias()) {
    auto b = dimsOf(getBias()), w = dimsOf(getWeight());
    if (b && (b->size() != 1 || (w && !w->empty() && !ShapedType::isDynamic((*b)[0]) &&
                                 !ShapedType::isDynamic((*w)[0]) && (*b)[0] != (*w)[0])))
      return emitError() << "bias must be 1-D with one entry per output channel";
  }
  if (failed(inferConv(*this, getInput(), getWeight(), Value(), getAutoPad(), getDilations(),
                       getGroup(), getKernelShape(), getPads(), getStrides(), types,
                       /*quantizedWeight=*/true)))
    return failure();
  Type element = elementOf(getOutputZeroPoint());
  if (auto r = dyn_cast<RankedTensorType>(types.back()))
    types.back() = r.clone(element);
  else
    types.back() = UnrankedTensorType::get(element);
  return success();
}

LogicalResult ConvTransposeOp::inferResultTypes(SmallVectorImpl<Type> &types) {
  SmallVector<Value> values{getInput(), getWeight()};
  if (getBias())
    values.push_back(getBias());
  if (failed(requireSameElement(*this, values)))
    return failure();
  Type element = elementOf(getInput());
  auto in = dimsOf(getInput()), w = dimsOf(getWeight());
  if (!w)
    return emitError() << "the weight's rank must be known";
  int64_t group = getGroup();
  if (group <= 0)
    return emitError() << "group must be positive, got " << group;
  if (w->size() < 3)
    return emitError() << "weight must have rank >= 3, got " << w->size();
  if (getKernelShape() != w->drop_front(2) && shape::allStatic(w->drop_front(2)))
    return emitError() << "kernel_shape " << shape::toString(getKernelShape())
                       << " differs from the weight's spatial dims "
                       << shape::toString(w->drop_front(2));
  int64_t c = (*w)[0], m = ShapedType::isDynamic((*w)[1]) ? (*w)[1] : (*w)[1] * group;
  if (!ShapedType::isDynamic(c) && c % group != 0)
    return emitError() << c << " input channels do not divide into " << group << " groups";
  if (getBias()) {
    auto b = dimsOf(getBias());
    if (b && (b->size() != 1 || (!ShapedType::isDynamic((*b)[0]) &&
                                 !ShapedType::isDynamic(m) && (*b)[0] != m)))
      return emitError() << "bias must be 1-D with " << m << " entries";
  }
  if (!in) {
    types.push_back(rankedDynamic(w->size(), element));
    return success();
  }
  if (in->size() != w->size())
    return emitError() << "input rank " << in->size() << " differs from weight rank "
                       << w->size();
  if (!ShapedType::isDynamic((*in)[1]) && !ShapedType::isDynamic(c) && (*in)[1] != c)
    return emitError() << "input has " << (*in)[1] << " channels, the weight expects " << c;
  FailureOr<shape::WindowGeometry> g = check(
      *this, shape::convTranspose(in->drop_front(2), getKernelShape(), getStrides(),
                                  getDilations(), getPads(), getOutputPadding(),
                                  getOutputShape(), getAutoPad()));
  if (failed(g))
    return failure();
  Dims out{(*in)[0], m};
  out.append(g->output.begin(), g->output.end());
  types.push_back(RankedTensorType::get(out, element));
  return success();
}

LogicalResult Col2ImOp::inferResultTypes(SmallVectorImpl<Type> &types) {
  Type element = elementOf(getInput());
  auto in = dimsOf(getInput());
  std::optional<SmallVector<int64_t>> image = getConstantInts(getImageShape()),
                                      block = getConstantInts(getBlockShape());
  if (!image || !block) {
    // The rank is known from image_shape's length.
    auto len = dimsOf(getImageShape());
    if (len && len->size() == 1 && !ShapedType::isDynamic((*len)[0]))
      types.push_back(rankedDynamic(2 + (*len)[0], element));
    else
      types.push_back(UnrankedTensorType::get(element));
    return success();
  }
  FailureOr<Dims> blocks = check(
      *this, shape::col2imBlocks(*image, *block, getStrides(), getDilations(), getPads()));
  if (failed(blocks))
    return failure();
  int64_t blockSize = shape::numElements(*block).value_or(0);
  int64_t channels = ShapedType::kDynamic;
  if (in) {
    if (in->size() != 3)
      return emitError() << "input must be [N, C * prod(block_shape), L], got rank "
                         << in->size();
    int64_t rows = (*in)[1], l = (*in)[2];
    if (!ShapedType::isDynamic(rows)) {
      if (blockSize <= 0 || rows % blockSize != 0)
        return emitError() << "input dim 1 (" << rows << ") is not a multiple of the block size "
                           << blockSize;
      channels = rows / blockSize;
    }
    int64_t expected = shape::numElements(*blocks).value_or(-1);
    if (!ShapedType::isDynamic(l) && l != expected)
      return emitError() << "input has " << l << " blocks, but image_shape "
                         << shape::toString(*image) << " with these block_shape, "
                         << "strides, dilations and pads takes " << expected;
  }
  Dims out{in ? (*in)[0] : ShapedType::kDynamic, channels};
  out.append(image->begin(), image->end());
  types.push_back(RankedTensorType::get(out, element));
  return success();
}

shape::ResizeParams ResizeOp::getResizeParams() {
  shape::ResizeParams p;
  p.mode = getMode();
  p.coordinateMode = getCoordinateTransformationMode();
  p.nearestMode = getNearestMode();
  p.keepAspectRatioPolicy = getKeepAspectRatioPolicy();
  p.cubicA = getCubicCoeffA().convertToFloat();
  p.excludeOutside = getExcludeOutside() != 0;
  p.antialias = getAntialias() != 0;
  if (getAxes())
    p.axes = *getAxes();
  return p;
}

bool ResizeOp::getConstantInputs(std::optional<SmallVector<double>> &roi,
                                 std::optional<SmallVector<double>> &scales,
                                 std::optional<SmallVector<int64_t>> &sizes) {
  roi.reset();
  scales.reset();
  sizes.reset();
  if (getRoi() && !isEmptyTensor(getRoi()) &&
      getCoordinateTransformationMode() == "tf_crop_and_resize" &&
      !(roi = getConstantDoubles(getRoi())))
    return false;
  if (getScales() && !isEmptyTensor(getScales()) && !(scales = getConstantDoubles(getScales())))
    return false;
  if (getSizes() && !isEmptyTensor(getSizes()) && !(sizes = getConstantInts(getSizes())))
    return false;
  return true;
}

LogicalResult ResizeOp::inferResultTypes(SmallVectorImpl<Type> &types) {
  Type element = elementOf(getInput());
  if (getMode() != "nearest" && !isa<FloatType>(element))
    return emitError() << getMode() << " Resize takes float data, got " << onnxTypeName(element)
                       << " (nearest takes any type)";
  auto in = dimsOf(getInput());
  if (!in) {
    types.push_back(UnrankedTensorType::get(element));
    return success();
  }
  std::optional<SmallVector<double>> roi, scales;
  std::optional<SmallVector<int64_t>> sizes;
  if (!getConstantInputs(roi, scales, sizes)) {
    types.push_back(rankedDynamic(in->size(), element));
    return success();
  }
  FailureOr<shape::ResizePlan> plan =
      check(*this, shape::resize(*in, getResizeParams(), roi, scales, sizes));
  if (failed(plan))
    return failure();
  types.push_back(RankedTensorType::get(plan->output, element));
  return success();
}

LogicalResult GridSampleOp::inferResultTypes(SmallVectorImpl<Type> &types) {
  if (!llvm::is_contained({"linear", "nearest", "cubic"}, getMode()))
    return emitError() << "mode must be linear, nearest or cubic, got '" << getMode() << "'";
  if (!llvm::is_contained({"zeros", "border", "reflection"}, getPaddingMode()))
    return emitError() << "padding_mode must be zeros, border or reflection, got '"
                       << getPaddingMode() << "'";
  Type element = elementOf(getInput());
  if (elementOf(getGrid()) != element)
    return emitError() << "the grid must be of the input's type";
  auto in = dimsOf(getInput()), grid = dimsOf(getGrid());
  if ((in && in->size() != 4) ||
      (grid && (grid->size() != 4 || ((*grid)[3] != 2 && !ShapedType::isDynamic((*grid)[3])))))
    return emitError() << "GridSample takes a 4-D input and an [N, H, W, 2] grid";
  if (in && ((*in)[2] == 0 || (*in)[3] == 0))
    return emitError() << "GridSample samples no pixels of an input with an empty height or "
                          "width";
  if (in && grid && (*in)[0] != ShapedType::kDynamic && (*grid)[0] != ShapedType::kDynamic &&
      (*in)[0] != (*grid)[0])
    return emitError() << "the input and the grid differ in batch";
  const int64_t d = ShapedType::kDynamic;
  int64_t batch = in ? (*in)[0] : d;
  if (batch == d && grid)
    batch = (*grid)[0];
  types.push_back(RankedTensorType::get(
      {batch, in ? (*in)[1] : d, grid ? (*grid)[1] : d, grid ? (*grid)[2] : d}, element));
  return success();
}

LogicalResult MaxPoolOp::inferResultTypes(SmallVectorImpl<Type> &types) {
  auto in = dimsOf(getInput());
  FailureOr<Dims> out = inferWindowed(
      *this, getInput(), getKernelShape(), getStrides(), getDilations(), getPads(),
      getAutoPad(), getCeilMode() != 0,
      in && in->size() >= 2 ? (*in)[1] : ShapedType::kDynamic);
  if (failed(out))
    return failure();
  types.push_back(in ? Type(RankedTensorType::get(*out, elementOf(getInput())))
                     : rankedDynamic(getKernelShape().size() + 2, elementOf(getInput())));
  return success();
}

bool AveragePoolOp::sumsColumnsFirst() {
  ArrayRef<int64_t> kernel = getKernelShape(), strides = getStrides(), pads = getPads();
  auto type = dyn_cast<RankedTensorType>(getInput().getType());
  const size_t n = kernel.size();
  if (n < 2 || strides.size() != n || !type || type.isDynamicDim(type.getRank() - 1) ||
      strides.back() > 2 || !llvm::all_of(kernel, [](int64_t k) { return k <= 32; }))
    return false;
  // MLAS's row buffer: 2045 floats for the row and its padding.
  const int64_t padded =
      type.getShape().back() + (pads.size() == 2 * n ? pads[n - 1] + pads[2 * n - 1] : 0);
  return padded <= 2045;
}

int32_t AveragePoolOp::roundingZeroPoint() {
  auto grid = cast<quant::UniformQuantizedType>(*getOutputQuantization());
  return static_cast<int32_t>(grid.getZeroPoint()) - (getSignedCodes() ? 128 : 0);
}

LogicalResult AveragePoolOp::inferResultTypes(SmallVectorImpl<Type> &types) {
  if (getOutputQuantization() && !isU8Grid(getOutputQuantization()))
    return emitError() << "output_quantization must be !quant.uniform<u8:f32, scale:zp>";
  if (getSignedCodes() && !getOutputQuantization())
    return emitError() << "signed_codes needs output_quantization";
  if (getOrderedF32Arithmetic() && getOutputQuantization())
    return emitError() << "ordered_f32_arithmetic and output_quantization exclude each other";
  auto in = dimsOf(getInput());
  FailureOr<Dims> out = inferWindowed(
      *this, getInput(), getKernelShape(), getStrides(), getDilations(), getPads(),
      getAutoPad(), getCeilMode() != 0,
      in && in->size() >= 2 ? (*in)[1] : ShapedType::kDynamic);
  if (failed(out))
    return failure();
  types.push_back(in ? Type(RankedTensorType::get(*out, elementOf(getInput())))
                     : rankedDynamic(getKernelShape().size() + 2, elementOf(getInput())));
  return success();
}

LogicalResult GlobalAveragePoolOp::inferResultTypes(SmallVectorImpl<Type> &types) {
  if (getInputQuantization().has_value() != getOutputQuantization().has_value() ||
      (getInputQuantization() &&
       (!isU8Grid(getInputQuantization()) || !isU8Grid(getOutputQuantization()))))
    return emitError() << "input_quantization and output_quantization must both be "
                          "!quant.uniform<u8:f32, scale:zp>, or neither";
  auto in = dimsOf(getInput());
  if (!in) {
    types.push_back(getInput().getType());
    return success();
  }
  if (in->size() < 3)
    return emitError() << "expected an NCHW input of rank >= 3, got rank "
                       << in->size();
  Dims out(in->begin(), in->begin() + 2);
  out.append(in->size() - 2, 1);
  types.push_back(RankedTensorType::get(out, elementOf(getInput())));
  return success();
}

//===----------------------------------------------------------------------===//
// Quantization
//===----------------------------------------------------------------------===//

LogicalResult QuantizeLinearOp::inferResultTypes(SmallVectorImpl<Type> &types) {
  Type element = getOutputElementType();
  if (!element.isInteger(8) && !element.isInteger(16))
    return emitError() << "output type must be a signed or unsigned 8- or 16-bit "
                          "integer, got "
                       << onnxTypeName(element);
  if (getZeroPoint() && elementOf(getZeroPoint()) != element)
    return emitError() << "zero point type " << onnxTypeName(elementOf(getZeroPoint()))
                       << " differs from the output type " << onnxTypeName(element);
  if (elementOf(getScale()) != elementOf(getInput()))
    return emitError() << "scale type differs from the input type";
  if (failed(checkQuantParam(*this, getScale(), getInput(), getAxis(), "scale")))
    return failure();
  if (getZeroPoint() &&
      failed(checkQuantParam(*this, getZeroPoint(), getInput(), getAxis(), "zero point")))
    return failure();
  types.push_back(tensorOf(dimsOf(getInput()), element));
  return success();
}

LogicalResult DequantizeLinearOp::inferResultTypes(SmallVectorImpl<Type> &types) {
  if (getZeroPoint() && elementOf(getZeroPoint()) != elementOf(getInput()))
    return emitError() << "zero point type " << onnxTypeName(elementOf(getZeroPoint()))
                       << " differs from the input type " << onnxTypeName(elementOf(getInput()));
  if (failed(checkQuantParam(*this, getScale(), getInput(), getAxis(), "scale")))
    return failure();
  if (getZeroPoint() &&
      failed(checkQuantParam(*this, getZeroPoint(), getInput(), getAxis(), "zero point")))
    return failure();
  types.push_back(tensorOf(dimsOf(getInput()), elementOf(getScale())));
  return success();
}

LogicalResult DynamicQuantizeLinearOp::inferResultTypes(SmallVectorImpl<Type> &types) {
  MLIRContext *ctx = getContext();
  Type u8 = IntegerType::get(ctx, 8, IntegerType::Unsigned);
  types.push_back(tensorOf(dimsOf(getInput()), u8));
  types.push_back(RankedTensorType::get({}, Float32Type::get(ctx)));
  types.push_back(RankedTensorType::get({}, u8));
  return success();
}

//===----------------------------------------------------------------------===//
// Fused ops
//===----------------------------------------------------------------------===//

static LogicalResult checkActivation(Operation *op, StringRef activation) {
  if (!llvm::is_contained({"none", "relu", "leaky_relu", "gelu", "gelu_tanh", "sigmoid", "tanh",
                           "clip", "hard_sigmoid", "hard_swish", "silu"},
                          activation))
    return op->emitError() << "unknown activation '" << activation << "'";
  return success();
}

/// The residual of a fused op must have exactly the result's shape.
static LogicalResult checkResidual(Operation *op, Value residual, Type result) {
  if (!residual)
    return success();
  if (elementOf(residual) != cast<ShapedType>(result).getElementType())
    return op->emitError() << "residual type differs from the result type";
  auto r = dimsOf(residual);
  auto out = dyn_cast<RankedTensorType>(result);
  if (!r || !out)
    return success();
  bool same = r->size() == (size_t)out.getRank();
  for (size_t i = 0; same && i < r->size(); ++i)
    same = ShapedType::isDynamic((*r)[i]) || out.isDynamicDim(i) ||
           (*r)[i] == out.getDimSize(i);
  if (!same)
    return op->emitError() << "residual of shape " << shape::toString(*r)
                           << " does not match the result " << out;
  return success();
}

/// The result of linear / quantized_linear: input [..., M, K] x weight
/// [K, N] (checked by the caller), a bias of N entries, a residual of the
/// result's shape.
static LogicalResult inferLinearResult(Operation *op, Value bias, Value residual,
                                       std::optional<ArrayRef<int64_t>> in,
                                       ArrayRef<int64_t> w, Type element,
                                       SmallVectorImpl<Type> &types) {
  int64_t n = w[1];
  if (bias) {
    auto b = dimsOf(bias);
    if (b && (b->size() != 1 || (!ShapedType::isDynamic((*b)[0]) &&
                                 !ShapedType::isDynamic(n) && (*b)[0] != n)))
      return op->emitError() << "bias must be 1-D with " << n << " entries";
  }
  Type result;
  if (!in) {
    result = UnrankedTensorType::get(element);
  } else {
    if (in->empty())
      return op->emitError() << "input must have rank >= 1";
    FailureOr<Dims> out = check(op, shape::matmul(*in, w));
    if (failed(out))
      return failure();
    result = RankedTensorType::get(*out, element);
  }
  if (failed(checkResidual(op, residual, result)))
    return failure();
  types.push_back(result);
  return success();
}

LogicalResult LinearOp::inferResultTypes(SmallVectorImpl<Type> &types) {
  if (failed(checkActivation(*this, getActivation())))
    return failure();
  Type element = elementOf(getInput());
  if (elementOf(getWeight()) != element || (getBias() && elementOf(getBias()) != element))
    return emitError() << "input, weight and bias must have one element type";
  auto in = dimsOf(getInput()), w = dimsOf(getWeight());
  if (!w || w->size() != 2)
    return emitError() << "weight must be 2-D [K, N]";
  return inferLinearResult(*this, getBias(), getResidual(), in, *w, element, types);
}

/// A grid an f32 tensor can be rounded to (fake_quantize, quantized_linear's
/// output_quantization).
static bool isTensorGrid(Type t) {
  auto q = dyn_cast<quant::UniformQuantizedType>(t);
  return q && q.getStorageTypeIntegralWidth() <= 16 && q.getExpressedType().isF32() &&
         q.getScale() > 0 && q.getZeroPoint() >= q.getStorageTypeMin() &&
         q.getZeroPoint() <= q.getStorageTypeMax();
}

LogicalResult FakeQuantizeOp::inferResultTypes(SmallVectorImpl<Type> &types) {
  if (!isTensorGrid(getQuantization()))
    return emitError() << "quantization must be a per-tensor !quant.uniform of at most 16 "
                          "bits over f32 with a positive scale and a zero point in range, not "
                       << getQuantization();
  types.push_back(getInput().getType());
  return success();
}

LogicalResult DynamicFakeQuantizeOp::inferResultTypes(SmallVectorImpl<Type> &types) {
  types.push_back(getInput().getType());
  return success();
}

/// The activation quantization modes and the optional input/output grids
/// of quantized_linear and quantized_conv. `u16Input`: input_quantization
/// may also be a u16 grid (isU16Grid; quantized_linear).
/// A conv's output_table: one entry per code of the grid it indexes
/// (`indexGrid`, described as `gridName`, which it needs); its
/// table_quantization, only with a table, a per-tensor grid.
static LogicalResult checkOutputTable(Operation *op, std::optional<ArrayRef<float>> table,
                                      std::optional<Type> indexGrid,
                                      std::optional<Type> tableGrid, StringRef gridName) {
  if (table) {
    auto grid = dyn_cast_or_null<quant::UniformQuantizedType>(indexGrid.value_or(Type()));
    if (!grid || static_cast<int64_t>(table->size()) !=
                     grid.getStorageTypeMax() - grid.getStorageTypeMin() + 1)
      return op->emitError() << "output_table needs " << gridName
                             << " and one entry per code of it";
  }
  if (tableGrid && (!table || !isTensorGrid(*tableGrid)))
    return op->emitError() << "table_quantization needs an output_table and must be a "
                              "per-tensor !quant.uniform of at most 16 bits over f32 with a "
                              "positive scale and a zero point in range, not "
                           << *tableGrid;
  return success();
}

static LogicalResult checkQuantizationModes(Operation *op, StringRef mode,
                                            ArrayRef<StringRef> modes,
                                            std::optional<Type> input,
                                            std::optional<Type> output,
                                            bool u16Input = false) {
  if (!llvm::is_contained(modes, mode)) {
    std::string known;
    for (auto [i, m] : llvm::enumerate(modes))
      known += (i == 0 ? "" : i + 1 == modes.size() ? " or " : ", ") + m.str();
    return op->emitError() << "activation_quantization '" << mode
                           << "' is not supported (expected " << known << ")";
  }
  if ((mode == "static") != input.has_value())
    return op->emitError() << "input_quantization must be given exactly when "
                              "activation_quantization is static";
  if (input && !(u16Input && isU16Grid(*input))) {
    auto q = dyn_cast<quant::UniformQuantizedType>(*input);
    if (!q || !q.getStorageType().isInteger(8) || q.isSigned() ||
        !q.getExpressedType().isF32() || q.getScale() <= 0)
      return op->emitError() << "input_quantization must be !quant.uniform<u8:f32, scale:zp>"
                             << (u16Input ? " (or u16)" : "") << " with a positive scale, not "
                             << *input;
  }
  if (output && !isTensorGrid(*output))
    return op->emitError() << "output_quantization must be a per-tensor !quant.uniform of at "
                              "most 16 bits over f32 with a positive scale and a zero point in "
                              "range, not "
                           << *output;
  return success();
}

/// An s8 symmetric weight of f32, per tensor or per `axis` with `count`
/// scales (count dynamic: unchecked); with `u8Weights`, also u8 with zero
/// points in [0, 255].
static LogicalResult checkInt8Weight(Operation *op, Value weight, int64_t axis,
                                     StringRef axisName, int64_t count, bool u8Weights = false) {
  Type wElement = cast<ShapedType>(weight.getType()).getElementType();
  auto q = dyn_cast<quant::QuantizedType>(wElement);
  bool u8 = q && u8Weights && q.getStorageType().isInteger(8) && !q.isSigned() &&
            q.getStorageTypeMin() == 0 && q.getStorageTypeMax() == 255;
  if (!q || !q.getStorageType().isInteger(8) || !(q.isSigned() || u8) ||
      !q.getExpressedType().isF32())
    return op->emitError() << "weight must hold !quant.uniform<i8:f32...>"
                           << (u8Weights ? " or !quant.uniform<u8:f32...>" : "") << ", not "
                           << wElement;
  if (auto perAxis = dyn_cast<quant::UniformQuantizedPerAxisType>(q)) {
    if (perAxis.getQuantizedDimension() != axis ||
        llvm::any_of(perAxis.getZeroPoints(), [&](int64_t z) { return u8 ? z < 0 || z > 255 : z != 0; }))
      return op->emitError() << "a per-axis weight must be quantized along dim " << axis << " (its "
                             << axisName << ") with zero points "
                             << (u8 ? "in [0, 255]" : "0");
    if (!ShapedType::isDynamic(count) && static_cast<int64_t>(perAxis.getScales().size()) != count)
      return op->emitError() << "weight has " << perAxis.getScales().size() << " scales for "
                             << count << " " << axisName;
  } else if (auto tensor = dyn_cast<quant::UniformQuantizedType>(q)) {
    if (u8 ? tensor.getZeroPoint() < 0 || tensor.getZeroPoint() > 255 : tensor.getZeroPoint() != 0)
      return op->emitError() << "the weight's zero point must be "
                             << (u8 ? "in [0, 255]" : "0 (symmetric)");
  } else {
    return op->emitError() << "weight must be uniformly quantized, not " << wElement;
  }
  return success();
}


/// The rules for an int8 op's input that holds u8 codes (element type
/// `element`, a quant type): the codes of a u8 grid, which is then the
/// static input quantization itself.
static LogicalResult checkCodesInput(Operation *op, Type element, StringRef mode,
                                     std::optional<Type> inputQuantization) {
  if (!isU8Activation(element))
    return op->emitError() << "a quantized input must hold !quant.uniform<u8:f32, scale:zp>, not "
                           << element;
  if (mode != "static" || inputQuantization)
    return op->emitError() << "a quantized input needs activation_quantization \"static\" and "
                              "no input_quantization (its type is the quantization)";
  return success();
}

LogicalResult QuantizeOp::inferResultTypes(SmallVectorImpl<Type> &types) {
  if (!isU8Activation(getQuantization()))
    return emitError() << "quantization must be !quant.uniform<u8:f32, scale:zp> with a positive "
                          "scale, not "
                       << getQuantization();
  auto in = cast<ShapedType>(getInput().getType());
  types.push_back(in.hasRank() ? Type(RankedTensorType::get(in.getShape(), getQuantization()))
                               : Type(UnrankedTensorType::get(getQuantization())));
  return success();
}

LogicalResult QuantizedLinearOp::inferResultTypes(SmallVectorImpl<Type> &types) {
  if (failed(checkActivation(*this, getActivation())))
    return failure();
  Type element = elementOf(getInput());
  bool u8Input = isa<quant::QuantizedType>(element);
  if (u8Input) {
    if (failed(checkCodesInput(*this, element, getActivationQuantization(),
                               getInputQuantization())))
      return failure();
  } else if (failed(checkQuantizationModes(*this, getActivationQuantization(),
                                           {"dynamic_per_row", "dynamic_per_tensor", "static"},
                                           getInputQuantization(), std::nullopt,
                                           /*u16Input=*/true))) {
    return failure();
  }
  if (getInputQuantization() && isU16Grid(*getInputQuantization())) {
    auto w = dyn_cast<quant::QuantizedType>(elementOf(getWeight()));
    if (!w || !w.isSigned())
      return emitError() << "a u16 input_quantization needs s8 weights";
  }
  if (getOutputQuantization() && !isTensorGrid(*getOutputQuantization()))
    return emitError() << "output_quantization must be a per-tensor !quant.uniform of at most 16 "
                          "bits over f32 with a positive scale and a zero point in range, not "
                       << *getOutputQuantization();
  for (auto [name, grid] :
       {std::pair("product_quantization", getProductQuantization()),
        std::pair("bias_quantization", getBiasQuantization()),
        std::pair("activation_input_quantization", getActivationInputQuantization()),
        std::pair("gelu_erf_quantization", getGeluErfQuantization()),
        std::pair("gelu_sum_quantization", getGeluSumQuantization()),
        std::pair("gelu_product_quantization", getGeluProductQuantization())})
    if (grid && !isTensorGrid(*grid))
      return emitError() << name << " must be a per-tensor !quant.uniform of at most 16 bits "
                                    "over f32 with a positive scale and a zero point in range, "
                                    "not "
                         << *grid;
  if (hasGeluGrids() && getActivation() != "gelu")
    return emitError() << "gelu grids need activation \"gelu\", not \"" << getActivation()
                       << "\"";
  if (!hasGeluGrids() &&
      (getGeluOne().convertToFloat() != 1.f || getGeluHalf().convertToFloat() != 0.5f))
    return emitError() << "gelu_one and gelu_half other than 1 and 0.5 need gelu grids";
  if (getU8Output() && !isU8Activation(getOutputQuantization().value_or(Type())))
    return emitError() << "u8_output needs an output_quantization of !quant.uniform<u8:f32, "
                          "scale:zp>";
  if (!(u8Input || element.isF32()) || (getBias() && !elementOf(getBias()).isF32()))
    return emitError() << "input and bias must be f32";
  if ((getBiasCodesQuantization() || getBiasFirst()) && !getBias())
    return emitError() << "bias_codes_quantization and bias_first need a bias";
  if (getResidualQuantization() && !getOneStepRequantization())
    return emitError() << "residual_quantization goes with one_step_requantization";
  if (getResidualQuantization() &&
      (!getResidual() || !isU8Activation(*getResidualQuantization()) ||
       !getBiasQuantization() || !isU8Activation(gridAfterResidual().value_or(Type()))))
    return emitError() << "residual_quantization needs a residual, u8 grids on it, on the "
                          "bias's sum (bias_quantization) and right after it";
  if (getOneStepRequantization()) {
    // onnxruntime's QLinearMatMul and QLinearAdd: u8 codes at each step.
    auto u8 = [](std::optional<Type> g) { return g && isU8Activation(*g); };
    if (getActivationQuantization() != "static" || !staticInputQuantization() ||
        !u8(*staticInputQuantization()) || !asU8Grid(getProductQuantization()) || !getBias() ||
        !getBiasCodesQuantization() || !u8(gridAfterBias()))
      return emitError() << "one_step_requantization needs a static u8 input, 8-bit "
                            "product_quantization, a bias on bias_codes_quantization and a "
                            "u8 grid right after the bias";
    if (getSignedCodes() ? !isS8Grid(getBiasCodesQuantization())
                         : !isU8Grid(getBiasCodesQuantization()) ||
                               !isU8Grid(getProductQuantization()))
      return emitError() << "bias_codes_quantization (and product_quantization) must be s8 "
                            "grids with signed_codes (the product's may be u8), u8 grids "
                            "without";
  } else if (getSignedCodes()) {
    return emitError() << "signed_codes goes with one_step_requantization";
  }
  if (getGeluQlinearArithmetic()) {
    auto u8 = [](std::optional<Type> g) { return g && isU8Activation(*g); };
    // (The constants' codes keep the model's storage: s8 with signed_codes.)
    auto constant = [&](std::optional<Type> g) {
      return u8(g) || (getSignedCodes() && isS8Grid(g));
    };
    if (getActivation() != "gelu" || !u8(getActivationInputQuantization()) ||
        !u8(getGeluErfQuantization()) || !u8(getGeluSumQuantization()) ||
        !u8(getGeluProductQuantization()) || !constant(getGeluOneQuantization()) ||
        !constant(getGeluHalfQuantization()) || !u8(getOutputQuantization()))
      return emitError() << "gelu_qlinear_arithmetic needs activation gelu and u8 grids on "
                            "the activation input, the GELU's three steps, its constants 1 "
                            "and 0.5 (gelu_one / gelu_half_quantization; s8 with "
                            "signed_codes too) and the output";
  }
  if (std::optional<uint64_t> block = getF32ProductKBlock())
    if (static_cast<int64_t>(*block) <= 0 || getActivationQuantization() != "static" ||
        !staticInputQuantization() || !getProductQuantization())
      return emitError() << "f32_product_k_block needs a positive block, a static input and "
                            "product_quantization";
  if (getQlinearProduct() &&
      (getOneStepRequantization() || getF32ProductKBlock() ||
       getActivationQuantization() != "static" || !staticInputQuantization() ||
       !asU8Grid(getProductQuantization())))
    return emitError() << "qlinear_product needs a static input and an 8-bit "
                          "product_quantization, and neither one_step_requantization nor "
                          "f32_product_k_block";
  auto in = dimsOf(getInput()), w = dimsOf(getWeight());
  if (!w || w->size() != 2)
    return emitError() << "weight must be 2-D [K, N]";
  // u8 weights with zero points, for f32 and u8 inputs alike (x86 takes
  // the rows' code sums from its row quantizer, or sums u8 rows).
  if (failed(checkInt8Weight(*this, getWeight(), 1, "columns", (*w)[1],
                             /*u8Weights=*/true)))
    return failure();
  Builder b(getContext());
  if (failed(inferLinearResult(*this, getBias(), getResidual(), in, *w, b.getF32Type(), types)))
    return failure();
  if (getU8Output())
    types.back() = cast<TensorType>(types.back()).clone(*getOutputQuantization());
  return success();
}

LogicalResult QuantizedConvOp::inferResultTypes(SmallVectorImpl<Type> &types) {
  if (failed(checkActivation(*this, getActivation())))
    return failure();
  Type element = elementOf(getInput());
  if (isa<quant::QuantizedType>(element)) {
    if (failed(checkCodesInput(*this, element, getActivationQuantization(),
                               getInputQuantization())))
      return failure();
    if (getOutputQuantization() && !isTensorGrid(*getOutputQuantization()))
      return emitError() << "output_quantization must be a per-tensor !quant.uniform of at most "
                            "16 bits over f32 with a positive scale and a zero point in range, "
                            "not "
                         << *getOutputQuantization();
  } else if (failed(checkQuantizationModes(*this, getActivationQuantization(),
                                           {"dynamic_per_tensor", "static"},
                                           getInputQuantization(), getOutputQuantization()))) {
    return failure();
  } else if (!element.isF32()) {
    return emitError() << "input and bias must be f32";
  }
  auto w = dimsOf(getWeight());
  if (!w || w->size() != 4)
    return emitError() << "weight must be 4-D [M, C / group, kh, kw]";
  // u8 weights with zero points, any input quantization (the kernel sums
  // each position's codes itself).
  if (failed(checkInt8Weight(*this, getWeight(), 0, "output channels", (*w)[0],
                             /*u8Weights=*/true)) ||
      failed(inferConv(*this, getInput(), getWeight(), getBias(), getAutoPad(), getDilations(),
                       getGroup(), getKernelShape(), getPads(), getStrides(), types,
                       /*quantizedWeight=*/true)))
    return failure();
  if (static_cast<bool>(getNormScale()) != static_cast<bool>(getNormShift()))
    return emitError() << "norm_scale and norm_shift go together";
  if (getNormQuantization() && !getNormScale())
    return emitError() << "norm_quantization needs norm_scale and norm_shift";
  if (getNormQuantization() && !isTensorGrid(*getNormQuantization()))
    return emitError() << "norm_quantization must be a per-tensor !quant.uniform of at most 16 "
                          "bits over f32 with a positive scale and a zero point in range, not "
                       << *getNormQuantization();
  for (Value v : {getNormScale(), getNormShift()}) {
    if (!v)
      continue;
    auto d = dimsOf(v);
    if (!elementOf(v).isF32() || (d && (d->size() != 1 || (!ShapedType::isDynamic((*w)[0]) &&
                                                            !ShapedType::isDynamic((*d)[0]) &&
                                                            (*d)[0] != (*w)[0]))))
      return emitError() << "norm_scale and norm_shift must be f32 [M] with M = " << (*w)[0];
  }
  if (failed(checkResidual(*this, getResidual(), types.front())))
    return failure();
  if (failed(checkOutputTable(*this, getOutputTable(), getLastGrid(), getTableQuantization(),
                              "a last grid (norm_quantization with a norm, else "
                              "output_quantization)")))
    return failure();
  std::optional<Type> tableGrid = getTableQuantization();
  if (getU8Output()) {
    // The codes of the table's grid with a table, else of the last grid.
    std::optional<Type> grid = getOutputTable() ? tableGrid
                               : getNormScale() ? getNormQuantization()
                                                : getOutputQuantization();
    if (!isU8Activation(grid.value_or(Type())))
      return emitError() << "u8_output needs a last grid (norm_quantization with a norm, else "
                            "output_quantization; table_quantization with an output_table) of "
                            "!quant.uniform<u8:f32, scale:zp>";
    types.front() = cast<TensorType>(types.front()).clone(*grid);
  }
  if (getOneStepRequantization()) {
    const bool staticInput = isa<quant::QuantizedType>(element) ||
                             (getActivationQuantization() == "static" && getInputQuantization());
    const StringRef act = getActivation();
    if (!isU8Activation(getOutputQuantization().value_or(Type())) || !staticInput ||
        getResidual() || !(act == "none" || act == "relu" || act == "clip") ||
        getActivationPostMul().convertToFloat() != 1.f ||
        getActivationPostAdd().convertToFloat() != 0.f)
      return emitError() << "one_step_requantization needs an output_quantization of "
                            "!quant.uniform<u8:f32, scale:zp>, a static input, no residual, "
                            "and an activation of none, relu or clip";
  }
  if (std::optional<uint64_t> block = getF32ProductKBlock()) {
    const bool staticInput = isa<quant::QuantizedType>(element) ||
                             (getActivationQuantization() == "static" && getInputQuantization());
    if (static_cast<int64_t>(*block) <= 0 || !staticInput || getOneStepRequantization() ||
        getGroup() != 1)
      return emitError() << "f32_product_k_block needs a positive block and a static input, "
                            "and no one_step_requantization or groups";
  }
  return success();
}

LogicalResult AttentionOp::inferResultTypes(SmallVectorImpl<Type> &types) {
  // u8 codes (all three operands, each its own grid) read as f32 values.
  const bool codes = isa<quant::QuantizedType>(elementOf(getQuery())) ||
                     isa<quant::QuantizedType>(elementOf(getKey())) ||
                     isa<quant::QuantizedType>(elementOf(getValue()));
  SmallVector<Value> values;
  if (codes) {
    for (Value x : {getQuery(), getKey(), getValue()})
      if (!isU8Activation(elementOf(x)))
        return emitError() << "query, key and value must all be float tensors or all hold "
                              "!quant.uniform<u8:f32, scale:zp>, not "
                           << elementOf(x);
    if (getInputOffsets() || getInputWidthAttr())
      return emitError() << "packed operands (input_offsets) must be f32";
    if (getMask() && !elementOf(getMask()).isF32())
      return emitError() << "the mask of u8 operands must be f32";
  } else {
    if (!isa<FloatType>(elementOf(getQuery())))
      return emitError() << "query, key and value must be float tensors or hold "
                            "!quant.uniform<u8:f32, scale:zp>, not "
                         << elementOf(getQuery());
    values = {getQuery(), getKey(), getValue()};
    if (getMask())
      values.push_back(getMask());
  }
  if (!values.empty() && failed(requireSameElement(*this, values)))
    return failure();
  for (std::optional<Type> grid :
       {getScoresQuantization(), getScaledQuantization(), getLogitsQuantization(),
        getProbsQuantization(), getOutputQuantization()}) {
    if (!grid)
      continue;
    if (!codes && !elementOf(getQuery()).isF32())
      return emitError() << "quantization grids need f32 operands";
    if (!isTensorGrid(*grid))
      return emitError() << "quantization grids must be per-tensor !quant.uniform of at most "
                            "16 bits over f32 with a positive scale and a zero point in "
                            "range, not "
                         << *grid;
  }
  if (float d = divisorOrZero(); getScaleDivisorAttr() && !(d != 0 && std::isfinite(d)))
    return emitError() << "scale_divisor must be finite and not 0";
  if ((getMaskQuantization() || getSignedCodes()) && !getQlinearArithmetic())
    return emitError() << "mask_quantization and signed_codes go with qlinear_arithmetic";
  if (getQlinearArithmetic()) {
    // onnxruntime's QLinear kernels: u8 codes in, a u8 grid on each step.
    auto u8Grid = [](std::optional<Type> g) { return g && isU8Activation(*g); };
    if (!codes)
      return emitError() << "qlinear_arithmetic needs u8 query, key and value codes";
    if (!u8Grid(getScoresQuantization()) || !u8Grid(getScaledQuantization()) ||
        !u8Grid(getProbsQuantization()) || !u8Grid(getOutputQuantization()))
      return emitError() << "qlinear_arithmetic needs u8 scores, scaled, probs and output "
                            "grids";
    if (getMask() ? !u8Grid(getLogitsQuantization()) || !u8Grid(getMaskQuantization())
                  : getLogitsQuantization() || getMaskQuantization())
      return emitError() << "qlinear_arithmetic needs u8 logits and mask grids with a mask, "
                            "neither without one";
  }
  int64_t heads = getNumHeads();
  if (heads <= 0)
    return emitError() << "num_heads must be positive";
  const int64_t kvHeads = numKvHeads();
  if (kvHeads <= 0 || heads % kvHeads != 0)
    return emitError() << "kv_heads " << kvHeads << " does not divide num_heads " << heads;
  if (getHeadsMajor() && getHeadsMajor()->size() != 4)
    return emitError() << "heads_major needs four entries (query, key, value, result)";
  const bool packed = getInputOffsets() || getInputWidthAttr();
  if (hasHeadsFirstOrGroups() && (codes || packed))
    return emitError() << "heads_major and kv_heads need float, unpacked operands";
  const int64_t width = packed && getInputWidthAttr() ? getInputWidthAttr().getInt() : 0;
  if (packed) {
    if (!getInputOffsets() || !getInputWidthAttr() || getInputOffsets()->size() != 3)
      return emitError() << "input_offsets (three: query, key, value) and input_width go "
                            "together";
    if (width <= 0 || width % heads != 0)
      return emitError() << "input_width " << width << " does not split into " << heads
                         << " heads";
  }
  // Each operand as (batch, length, heads, D), dynamic where unknown.
  std::optional<std::array<int64_t, 4>> views[3];
  const char *names[] = {"query", "key", "value"};
  for (auto [i, x] : llvm::enumerate(std::array{getQuery(), getKey(), getValue()})) {
    auto d = dimsOf(x);
    if (!d)
      continue;
    const int64_t h = i == 0 ? heads : kvHeads;
    if (isHeadsMajor(i)) {
      if (d->size() != 4)
        return emitError() << names[i] << " must be [B, heads, length, D] (heads_major)";
      if (!ShapedType::isDynamic((*d)[1]) && (*d)[1] != h)
        return emitError() << names[i] << " holds " << (*d)[1] << " heads, not " << h;
      views[i] = {(*d)[0], (*d)[2], h, (*d)[3]};
      continue;
    }
    if (d->size() != 3)
      return emitError() << names[i] << " must be [B, length, heads*D]";
    int64_t cols = (*d)[2];
    if (packed) {
      int64_t offset = (*getInputOffsets())[i];
      if (!ShapedType::isDynamic(cols) && (offset < 0 || offset + width > cols))
        return emitError() << "input columns [" << offset << ", " << offset + width
                           << ") lie outside operand " << i << "'s " << cols;
      cols = width;
    } else if (!ShapedType::isDynamic(cols) && cols % h != 0) {
      return emitError() << "hidden size " << cols << " does not split into " << h
                         << " heads";
    }
    views[i] = {(*d)[0], (*d)[1], h,
                ShapedType::isDynamic(cols) ? ShapedType::kDynamic : cols / h};
  }
  auto q = views[0], k = views[1], v = views[2];
  if (q && k && v) {
    auto differ = [](int64_t a, int64_t b) {
      return !ShapedType::isDynamic(a) && !ShapedType::isDynamic(b) && a != b;
    };
    for (unsigned dim : {0u, 1u, 3u})
      if (differ((*k)[dim], (*v)[dim]))
        return emitError() << "key and value differ in "
                           << (dim == 0 ? "batch" : dim == 1 ? "length" : "head size");
    if (differ((*q)[0], (*k)[0]))
      return emitError() << "query and key differ in batch";
    if (differ((*q)[3], (*k)[3]))
      return emitError() << "query and key differ in head size";
    if (getMask()) {
      if (auto m = dimsOf(getMask())) {
        Dims scores{(*q)[0], heads, (*q)[1], (*k)[1]};
        FailureOr<Dims> b = check(*this, shape::broadcast(scores, *m));
        if (failed(b))
          return failure();
        // (Not past them: a mask of a larger batch would widen the result.)
        auto widens = [&](unsigned i) {
          return !ShapedType::isDynamic(scores[i]) && (*b)[i] != scores[i];
        };
        if (b->size() != 4 || widens(0) || widens(1) || widens(2) || widens(3))
          return emitError() << "mask must broadcast to [B, H, S, T]";
      }
    }
  }
  Type resultElement =
      codes ? Type(Float32Type::get(getContext())) : elementOf(getQuery());
  if (getU8Output()) {
    // All 256 codes: the kernels clamp to [0, 255], as the quantize does.
    if (!isU8Grid(getOutputQuantization()))
      return emitError() << "u8_output needs a u8 output_quantization of all 256 codes";
    if (isHeadsMajor(3))
      return emitError() << "u8_output needs a result with the heads merged";
    resultElement = *getOutputQuantization();
  }
  if (!q) {
    types.push_back(UnrankedTensorType::get(resultElement));
    return success();
  }
  const int64_t d = (*q)[3];
  const int64_t e = ShapedType::isDynamic(d) ? ShapedType::kDynamic : heads * d;
  types.push_back(isHeadsMajor(3)
                      ? RankedTensorType::get({(*q)[0], heads, (*q)[1], d}, resultElement)
                      : RankedTensorType::get({(*q)[0], (*q)[1], e}, resultElement));
  return success();
}

int64_t AttentionOp::inputOffset(unsigned i) {
  return getInputOffsets() ? (*getInputOffsets())[i] : 0;
}

int64_t AttentionOp::hiddenSize() {
  if (getInputWidthAttr())
    return getInputWidthAttr().getInt();
  auto query = cast<ShapedType>(getQuery().getType());
  return isHeadsMajor(0) ? getNumHeads() * query.getDimSize(3) : query.getDimSize(2);
}

int64_t AttentionOp::queryLength() {
  return cast<ShapedType>(getQuery().getType()).getDimSize(isHeadsMajor(0) ? 2 : 1);
}

int64_t AttentionOp::keyLength() {
  return cast<ShapedType>(getKey().getType()).getDimSize(isHeadsMajor(1) ? 2 : 1);
}

LogicalResult FusedConvOp::inferResultTypes(SmallVectorImpl<Type> &types) {
  Type element = elementOf(getInput());
  if (isa<quant::QuantizedType>(element) ? !isU8Activation(element)
                                         : !isa<FloatType>(element))
    return emitError() << "input must be a float tensor or hold !quant.uniform<u8:f32, "
                          "scale:zp>, not "
                       << element;
  if (failed(checkActivation(*this, getActivation())) ||
      failed(inferConv(*this, getInput(), getWeight(), getBias(), getAutoPad(),
                       getDilations(), getGroup(), getKernelShape(), getPads(),
                       getStrides(), types)) ||
      failed(checkResidual(*this, getResidual(), types.front())))
    return failure();
  // u8 codes in and grids out are a depthwise conv's (one filter per
  // channel), the form the kernels that handle them take.
  bool quantizedInput = isa<quant::QuantizedType>(element);
  if (quantizedInput || getOutputQuantization() || getU8Output()) {
    auto in = dimsOf(getInput()), w = dimsOf(getWeight());
    int64_t group = static_cast<int64_t>(getGroup());
    if (group <= 1 || !in || in->size() < 2 || (*in)[1] != group || !w || w->size() < 2 ||
        (*w)[1] != 1)
      return emitError() << "u8 codes and output_quantization need a depthwise conv (group = "
                            "input channels > 1, one filter each)";
    if (quantizedInput && (!elementOf(getWeight()).isF32() ||
                           (getBias() && !elementOf(getBias()).isF32())))
      return emitError() << "with a quantized input, weight and bias must be f32";
  }
  if (std::optional<Type> grid = getOutputQuantization(); grid && !isTensorGrid(*grid))
    return emitError() << "output_quantization must be a per-tensor !quant.uniform of at most 16 "
                          "bits over f32 with a positive scale and a zero point in range, not "
                       << *grid;
  if (failed(checkOutputTable(*this, getOutputTable(), getOutputQuantization(),
                              getTableQuantization(), "an output_quantization")))
    return failure();
  std::optional<Type> tableGrid = getTableQuantization();
  if (getU8Output()) {
    // The codes of the table's grid with a table, else of the output grid.
    std::optional<Type> grid = getOutputTable() ? tableGrid : getOutputQuantization();
    if (!isU8Activation(grid.value_or(Type())))
      return emitError() << "u8_output needs an output_quantization (table_quantization with an "
                            "output_table) of !quant.uniform<u8:f32, scale:zp>";
    if (getResidual())
      return emitError() << "u8_output takes no residual";
    types.front() = cast<TensorType>(types.front()).clone(*grid);
  }
  if (failed(checkWeightGrid(*this, getWeight(), getWeightQuantization())))
    return failure();
  if (getOneStepRequantization()) {
    const StringRef act = getActivation();
    if (!isa<quant::QuantizedType>(element) || !getWeightQuantization() ||
        !isU8Activation(getOutputQuantization().value_or(Type())) || getResidual() ||
        !(act == "none" || act == "relu" || act == "clip") ||
        getActivationPostMul().convertToFloat() != 1.f ||
        getActivationPostAdd().convertToFloat() != 0.f)
      return emitError() << "one_step_requantization needs u8 input codes, a "
                            "weight_quantization, an output_quantization of "
                            "!quant.uniform<u8:f32, scale:zp> (its codes, their values or a "
                            "table's index; no residual), and an activation of none, relu or "
                            "clip";
  }
  return success();
}

LogicalResult ElementwiseChainOp::inferResultTypes(SmallVectorImpl<Type> &types) {
  for (auto [i, entry] : llvm::enumerate(getSteps())) {
    FailureOr<Step> step = decodeStep(entry, [&] { return emitError(); });
    if (failed(step))
      return failure();
    if (step->grid && !isTensorGrid(*step->grid))
      return emitError() << "step " << i << ": grid must be a per-tensor !quant.uniform of "
                         << "at most 16 bits over f32 with a positive scale and a zero point "
                            "in range, not "
                         << *step->grid;
  }
  types.push_back(getInputs().empty() ? getOutput().getType() : getInputs().front().getType());
  return success();
}
