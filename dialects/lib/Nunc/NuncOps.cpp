//===- NuncOps.cpp - nunc op definitions, assembly and folders ------------===//
//
// Result type inference lives in ShapeInference.cpp.
//
//===----------------------------------------------------------------------===//

#include "nunc/Dialect/Nunc/NuncOps.h"
#include "nunc/Dialect/Nunc/NuncUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/OpImplementation.h"

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
  if (getOutputQuantization())
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
    rewriter.replaceOpWithNewOp<MulOp>(op, type, op.getLhs(), op.getLhs(), TypeAttr());
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

std::optional<quant::UniformQuantizedType> QuantizedLinearOp::staticInputQuantization() {
  Type element = cast<ShapedType>(getInput().getType()).getElementType();
  if (auto q = dyn_cast<quant::UniformQuantizedType>(element))
    return q;
  if (std::optional<Type> t = getInputQuantization())
    return dyn_cast<quant::UniformQuantizedType>(*t);
  return std::nullopt;
}
