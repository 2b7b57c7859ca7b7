//===- ModuleWriter.h - writing modules that hold large weights -*- C++ -*-===//

#ifndef NUNC_SUPPORT_MODULEWRITER_H
#define NUNC_SUPPORT_MODULEWRITER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OperationSupport.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::nunc {

/// Prints `module` as MLIR text, like Operation::print, but writes the
/// dense_resource blobs (the weights) hex-encoded in chunks straight to `os`.
/// MLIR's own printer builds each blob's whole hex string in memory first,
/// which for a 440 MB model doubles the peak memory and time of an import.
/// The output parses back with any MLIR tool.
void printModuleStreamingResources(ModuleOp module, llvm::raw_ostream &os,
                                   OpPrintingFlags flags);

} // namespace mlir::nunc

#endif // NUNC_SUPPORT_MODULEWRITER_H
