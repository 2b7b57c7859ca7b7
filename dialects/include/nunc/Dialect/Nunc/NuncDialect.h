//===- NuncDialect.h - nunc dialect -----------------------------*- C++ -*-===//

#ifndef NUNC_DIALECT_NUNC_NUNCDIALECT_H
#define NUNC_DIALECT_NUNC_NUNCDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::nunc {
/// Checks an op's declared result types against the types it infers: element
/// types must match, and ranks and static dims wherever both sides know them.
LogicalResult verifyInferredResultTypes(Operation *op);
} // namespace mlir::nunc

#include "nunc/Dialect/Nunc/NuncDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "nunc/Dialect/Nunc/NuncAttrs.h.inc"

#include "nunc/Dialect/Nunc/NuncInterfaces.h.inc"

#endif // NUNC_DIALECT_NUNC_NUNCDIALECT_H
