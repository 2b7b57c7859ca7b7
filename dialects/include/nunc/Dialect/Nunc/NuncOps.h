//===- NuncOps.h - nunc dialect operations ----------------------*- C++ -*-===//

#ifndef NUNC_DIALECT_NUNC_NUNCOPS_H
#define NUNC_DIALECT_NUNC_NUNCOPS_H

#include "nunc/Dialect/Nunc/NuncDialect.h"
#include "nunc/Dialect/Nunc/OneStepRequantization.h"
#include "nunc/Dialect/Nunc/ShapeHelpers.h"

#include "mlir/Dialect/Quant/IR/QuantTypes.h"

#include <optional>

#define GET_OP_CLASSES
#include "nunc/Dialect/Nunc/NuncOps.h.inc"

#endif // NUNC_DIALECT_NUNC_NUNCOPS_H
