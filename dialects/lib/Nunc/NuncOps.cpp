//===- NuncOps.cpp - nunc op definitions, assembly and folders ------------===//
//
// Result type inference lives in ShapeInference.cpp.
//
//===----------------------------------------------------------------------===//

#include "nunc/Dialect/Nunc/NuncOps.h"
#include "nunc/Dialect/Nunc/NuncUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/OpImplementation.h"

#include <cmath>

using namespace mlir;
using namespace mlir::nunc;

#define GET_OP_CLASSES
#include "nunc/Dialect/Nunc/NuncOps.cpp.inc"

//===----------------------------------------------------------------------===//
// ConstantOp: `nunc.constant {attrs} dense<...> : tensor<...>`
//===----------------------------------------------------------------------===//

ParseResult ConstantOp::parse(OpAsmParser &parser, OperationState &result) {
  if (parser.parseOptionalAttrDict(result.attributes))
    return failure();
  Attribute value;
  if (parser.parseAttribute(value))
    return failure();
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements)
    return parser.emitError(parser.getNameLoc(), "expected an elements attribute");
  result.getOrAddProperties<Properties>().value = elements;
  result.addTypes(elements.getType());
  return success();
}

void ConstantOp::print(OpAsmPrinter &p) {
  p.printOptionalAttrDict((*this)->getAttrs(), /*elidedAttrs=*/{"value"});
  p << ' ';
  p.printAttribute(getValue());
}

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

std::optional<int64_t> LayerNormOp::rowSize() {
  auto in = dyn_cast<RankedTensorType>(getInput().getType());
  const int64_t rank = in ? in.getRank() : 0, axis = static_cast<int64_t>(getAxis());
  if (!in || axis < -rank || axis >= rank)
    return std::nullopt;
  int64_t n = 1;
  for (int64_t d : in.getShape().drop_front(axis < 0 ? axis + rank : axis)) {
    if (ShapedType::isDynamic(d))
      return std::nullopt;
    n *= d;
  }
  return n;
}

//===----------------------------------------------------------------------===//
// Folders that need no evaluation; everything else with constant operands is
// folded by the constant-folding pass through the evaluator.
//===----------------------------------------------------------------------===//

OpFoldResult IdentityOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType())
    return getInput();
  return {};
}

OpFoldResult MulOp::fold(FoldAdaptor) {
  if (getOutputQuantization() || multipliesCodes())
    return {};
  for (auto [x, one] : {std::pair(getLhs(), getRhs()), std::pair(getRhs(), getLhs())}) {
    ElementsAttr attr;
    if (x.getType() != getType() || !cast<ShapedType>(x.getType()).getElementType().isF32() ||
        !matchPattern(one, m_Constant(&attr)) || !attr.getElementType().isF32() ||
        attr.getNumElements() == 0 || attr.getNumElements() > 64)
      continue;
    auto values = attr.tryGetValues<float>();
    if (values && llvm::all_of(*values, [](float v) { return v == 1.f; }))
      return x;
  }
  return {};
}

OpFoldResult CastOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType())
    return getInput();
  return {};
}

namespace {
/// x ^ 2 -> x * x (see PowOp's description).
struct SquareAsMultiplication : OpRewritePattern<PowOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(PowOp op, PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (!type || op.getLhs().getType() != type || !isa<FloatType>(type.getElementType()))
      return failure();
    DenseElementsAttr exponent;
    if (!matchPattern(op.getRhs(), m_Constant(&exponent)) || !exponent.isSplat())
      return failure();
    Type element = exponent.getElementType();
    bool two = false;
    if (isa<FloatType>(element))
      two = exponent.getSplatValue<APFloat>().convertToDouble() == 2.0;
    else if (isa<IntegerType>(element))
      two = exponent.getSplatValue<APInt>().getSExtValue() == 2;
    if (!two)
      return failure();
    rewriter.replaceOpWithNewOp<MulOp>(op, type, op.getLhs(), op.getLhs(), TypeAttr(), TypeAttr(),
                                       TypeAttr());
    return success();
  }
};
} // namespace

void PowOp::getCanonicalizationPatterns(RewritePatternSet &results, MLIRContext *ctx) {
  results.add<SquareAsMultiplication>(ctx);
}

OpFoldResult ShapeOp::fold(FoldAdaptor) {
  auto inputType = dyn_cast<RankedTensorType>(getData().getType());
  auto resultType = dyn_cast<RankedTensorType>(getType());
  if (!inputType || !resultType || !resultType.hasStaticShape())
    return {};
  int64_t rank = inputType.getRank();
  auto clampIndex = [&](int64_t i) {
    if (i < 0)
      i += rank;
    return std::clamp<int64_t>(i, 0, rank);
  };
  int64_t start = clampIndex(getStart());
  int64_t end = clampIndex(getEnd().value_or(rank));
  SmallVector<int64_t> dims;
  for (int64_t i = start; i < end; ++i) {
    if (inputType.isDynamicDim(i))
      return {};
    dims.push_back(inputType.getDimSize(i));
  }
  return DenseIntElementsAttr::get(resultType, dims);
}

//===----------------------------------------------------------------------===//
// QuantizedLinearOp
//===----------------------------------------------------------------------===//

std::optional<QLinearGelu> QuantizedLinearOp::qlinearGeluSteps() {
  if (!getGeluQlinearArithmetic())
    return std::nullopt;
  auto grid = [](std::optional<Type> t) {
    return dyn_cast_or_null<quant::UniformQuantizedType>(t.value_or(Type()));
  };
  // (The constants' grids as u8 ones: s8 codes + 128.)
  auto x = grid(getActivationInputQuantization()), e = grid(getGeluErfQuantization()),
       s = grid(getGeluSumQuantization()), p = grid(getGeluProductQuantization()),
       one = asU8Grid(getGeluOneQuantization()).value_or(nullptr),
       half = asU8Grid(getGeluHalfQuantization()).value_or(nullptr),
       y = grid(getOutputQuantization());
  if (!x || !e || !s || !p || !one || !half || !y)
    return std::nullopt;
  auto f = [](quant::UniformQuantizedType g) { return static_cast<float>(g.getScale()); };
  auto z = [](quant::UniformQuantizedType g) { return static_cast<int32_t>(g.getZeroPoint()); };
  return qlinearGelu(f(x), z(x), f(e), z(e), f(one), z(one),
                     u8CodeOf(getGeluOne().convertToFloat(), f(one), z(one)), f(s), z(s), f(p),
                     z(p), f(half), z(half),
                     u8CodeOf(getGeluHalf().convertToFloat(), f(half), z(half)), f(y), z(y),
                     getSignedCodes());
}

std::optional<quant::UniformQuantizedType> QuantizedLinearOp::staticInputQuantization() {
  Type element = cast<ShapedType>(getInput().getType()).getElementType();
  if (auto q = dyn_cast<quant::UniformQuantizedType>(element))
    return q;
  if (std::optional<Type> t = getInputQuantization())
    return dyn_cast<quant::UniformQuantizedType>(*t);
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// ElementwiseChainOp
//===----------------------------------------------------------------------===//

namespace {
using ChainStep = ElementwiseChainOp::Step;
constexpr std::pair<llvm::StringLiteral, ChainStep::Kind> kChainKinds[] = {
    {"add", ChainStep::Add},          {"sub", ChainStep::Sub},
    {"mul", ChainStep::Mul},          {"div", ChainStep::Div},
    {"relu", ChainStep::Relu},        {"clip", ChainStep::Clip},
    {"hard_sigmoid", ChainStep::HardSigmoid}, {"hard_swish", ChainStep::HardSwish},
    {"fake_quantize", ChainStep::FakeQuantize}};
} // namespace

llvm::StringRef ElementwiseChainOp::kindName(Step::Kind kind) {
  for (const auto &[name, k] : kChainKinds)
    if (k == kind)
      return name;
  return "";
}

FailureOr<ElementwiseChainOp::Step>
ElementwiseChainOp::decodeStep(Attribute entry,
                               llvm::function_ref<InFlightDiagnostic()> emitError) {
  auto dict = dyn_cast<DictionaryAttr>(entry);
  if (!dict)
    return emitError() << "a step must be a dictionary, not " << entry;
  Step step;
  auto name = dict.getAs<StringAttr>("op");
  const auto *kind = name ? llvm::find_if(kChainKinds, [&](const auto &k) {
    return k.first == name.getValue();
  })
                          : std::end(kChainKinds);
  if (kind == std::end(kChainKinds))
    return emitError() << "step " << dict << " needs an `op` among add, sub, mul, div, relu, "
                          "clip, hard_sigmoid, hard_swish, fake_quantize";
  step.kind = kind->second;
  auto args = dict.getAs<DenseI64ArrayAttr>("args");
  const size_t arity = step.binary() ? 2 : 1;
  if (!args || args.size() != arity)
    return emitError() << "step '" << name.getValue() << "' needs `args` of " << arity
                       << " value" << (arity == 1 ? "" : "s");
  step.args.assign(args.asArrayRef().begin(), args.asArrayRef().end());
  auto f32 = [&](llvm::StringRef key) -> std::optional<float> {
    if (auto a = dict.getAs<FloatAttr>(key))
      return static_cast<float>(a.getValueAsDouble());
    return std::nullopt;
  };
  int constants = llvm::count(step.args, -1);
  if (constants) {
    if (!step.binary() || constants > 1 || !f32("constant"))
      return emitError() << "step '" << name.getValue()
                         << "': -1 stands for the f32 `constant`, once in a binary step";
    step.constant = *f32("constant");
  }
  step.min = f32("min");
  step.max = f32("max");
  if (step.kind == Step::HardSigmoid || step.kind == Step::HardSwish) {
    if (!f32("alpha") || !f32("beta"))
      return emitError() << "step '" << name.getValue() << "' needs f32 `alpha` and `beta`";
    step.alpha = *f32("alpha");
    step.beta = *f32("beta");
  }
  if (auto grid = dict.getAs<TypeAttr>("grid")) {
    auto q = dyn_cast<quant::UniformQuantizedType>(grid.getValue());
    if (!q || !q.getExpressedType().isF32())
      return emitError() << "step '" << name.getValue()
                         << "': `grid` must be a per-tensor !quant.uniform of f32";
    step.grid = q;
  }
  if (step.kind == Step::FakeQuantize && !step.grid)
    return emitError() << "step 'fake_quantize' needs a `grid`";
  return step;
}

DictionaryAttr ElementwiseChainOp::encodeStep(MLIRContext *context, const Step &step) {
  Builder b(context);
  SmallVector<NamedAttribute> entries;
  entries.push_back(b.getNamedAttr("op", b.getStringAttr(kindName(step.kind))));
  entries.push_back(b.getNamedAttr("args", b.getDenseI64ArrayAttr(step.args)));
  if (llvm::is_contained(step.args, -1))
    entries.push_back(b.getNamedAttr("constant", b.getF32FloatAttr(step.constant)));
  if (step.min)
    entries.push_back(b.getNamedAttr("min", b.getF32FloatAttr(*step.min)));
  if (step.max)
    entries.push_back(b.getNamedAttr("max", b.getF32FloatAttr(*step.max)));
  if (step.kind == Step::HardSigmoid || step.kind == Step::HardSwish) {
    entries.push_back(b.getNamedAttr("alpha", b.getF32FloatAttr(step.alpha)));
    entries.push_back(b.getNamedAttr("beta", b.getF32FloatAttr(step.beta)));
  }
  if (step.grid)
    entries.push_back(b.getNamedAttr("grid", TypeAttr::get(*step.grid)));
  return b.getDictionaryAttr(entries);
}

SmallVector<ElementwiseChainOp::Step> ElementwiseChainOp::getDecodedSteps() {
  SmallVector<Step> steps;
  for (Attribute entry : getSteps())
    steps.push_back(*decodeStep(entry, [&] { return emitError(); }));
  return steps;
}

LogicalResult LayerNormOp::verify() {
  if (getRms() && getOrderedF32Arithmetic())
    return emitOpError("takes rms or ordered_f32_arithmetic, not both");
  return success();
}

LogicalResult LeakyReluOp::verify() {
  if (!std::isfinite(getAlpha().convertToDouble()))
    return emitOpError("needs a finite alpha, got ") << getAlpha().convertToDouble();
  return success();
}

LogicalResult AttentionOp::verify() {
  // (The kernels' row maxima would step over NaN scores.)
  if (!std::isfinite(getScale().convertToDouble()))
    return emitOpError("needs a finite scale, got ") << getScale().convertToDouble();
  if (!getInt8Products())
    return success();
  for (Value x : {getQuery(), getKey(), getValue()})
    if (!getElementTypeOrSelf(x.getType()).isF32())
      return emitOpError("with int8_products needs f32 query, key and value");
  if (getQlinearArithmetic() || getScoresQuantization() || getScaledQuantization() ||
      getLogitsQuantization() || getProbsQuantization() ||
      (getOutputQuantization() && !getU8Output()))
    return emitOpError("with int8_products takes no grids (but u8_output's)");
  return success();
}

LogicalResult ElementwiseChainOp::verify() {
  auto out = dyn_cast<RankedTensorType>(getOutput().getType());
  if (!out)
    return emitOpError("needs a ranked result");
  for (Value in : getInputs()) {
    auto t = dyn_cast<RankedTensorType>(in.getType());
    if (!t || t.getShape() != out.getShape())
      return emitOpError("needs inputs of the result's shape ") << out;
  }
  if (getSteps().empty())
    return emitOpError("needs at least one step");
  const int64_t inputs = getInputs().size();
  for (auto [i, entry] : llvm::enumerate(getSteps())) {
    FailureOr<Step> step = decodeStep(entry, [&] { return emitOpError(); });
    if (failed(step))
      return failure();
    for (int64_t a : step->args)
      if (a < -1 || a >= inputs + static_cast<int64_t>(i))
        return emitOpError("step ") << i << " reads value " << a << ", not an input (0-"
                                    << inputs - 1 << ") or an earlier step's result";
  }
  return success();
}
