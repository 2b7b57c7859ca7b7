//===- NuncDialect.cpp - nunc dialect registration ------------------------===//

#include "nunc/Dialect/Nunc/NuncOps.h"

#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::nunc;

#include "nunc/Dialect/Nunc/NuncDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "nunc/Dialect/Nunc/NuncAttrs.cpp.inc"

#include "nunc/Dialect/Nunc/NuncInterfaces.cpp.inc"

void NuncDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "nunc/Dialect/Nunc/NuncAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "nunc/Dialect/Nunc/NuncOps.cpp.inc"
      >();
}

Operation *NuncDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                            Type type, Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, type, elements);
}

static bool areCompatible(Type declared, Type inferred) {
  auto d = dyn_cast<ShapedType>(declared);
  auto i = dyn_cast<ShapedType>(inferred);
  if (!d || !i)
    return declared == inferred;
  if (d.getElementType() != i.getElementType())
    return false;
  if (!d.hasRank() || !i.hasRank())
    return true;
  if (d.getRank() != i.getRank())
    return false;
  for (auto [a, b] : llvm::zip(d.getShape(), i.getShape()))
    if (!ShapedType::isDynamic(a) && !ShapedType::isDynamic(b) && a != b)
      return false;
  return true;
}

LogicalResult mlir::nunc::verifyInferredResultTypes(Operation *op) {
  SmallVector<Type> inferred;
  if (failed(cast<InferShapesOpInterface>(op).inferResultTypes(inferred)))
    return failure();
  if (inferred.size() != op->getNumResults())
    return op->emitOpError("infers ") << inferred.size() << " results but has "
                                      << op->getNumResults();
  for (auto [i, pair] : llvm::enumerate(llvm::zip(op->getResultTypes(), inferred))) {
    auto [declared, expected] = pair;
    if (!areCompatible(declared, expected))
      return op->emitOpError("result #")
             << i << " has type " << declared << " but the operands give "
             << expected;
  }
  return success();
}
