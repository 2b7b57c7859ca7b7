//===- GenericKernels.h - every op as plain loops, through MLIR -*- C++ -*-===//
//
// The generic path: any nunc op becomes a function of scalar loops (scf,
// arith, math on memrefs) that the upstream MLIR pipeline lowers to LLVM.
// No model fails to compile for lack of a fast kernel; `nunc compile
// --explain` lists the ops that took this path.
//
//===----------------------------------------------------------------------===//

#ifndef NUNC_CODEGEN_GENERICKERNELS_H
#define NUNC_CODEGEN_GENERICKERNELS_H

#include "mlir/IR/BuiltinOps.h"

namespace mlir::nunc {

/// Adds to `kernels` a func.func `symbol` that computes `op`:
///   (memref operands..., memref results..., [memref<Nxi8> scratch]) -> i32
/// on static memrefs with signless element types (unsigned tensors use their
/// signless twins; the op's types say how to read them). Returns 0, or 1
/// when the data is out of range (a Gather index). Fails with a diagnostic
/// for ops that cannot be lowered.
LogicalResult buildGenericKernel(ModuleOp kernels, Operation *op, llvm::StringRef symbol);

/// The memref type a tensor of `type` is passed as to a generic kernel.
MemRefType genericMemRefType(Type tensorType);

/// Lowers the functions built above to the LLVM dialect (bare-pointer
/// arguments, polynomial approximations instead of libm calls).
LogicalResult lowerGenericKernelsToLLVM(ModuleOp kernels);

} // namespace mlir::nunc

#endif // NUNC_CODEGEN_GENERICKERNELS_H
