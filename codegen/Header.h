//===- Header.h - the generated C header and JSON manifest ------*- C++ -*-===//

#ifndef NUNC_CODEGEN_HEADER_H
#define NUNC_CODEGEN_HEADER_H

#include "nunc/Codegen/CompileModel.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::nunc {

/// ONNX TensorProto.DataType of an element type (what nunc_dtype holds).
int onnxDataType(Type element);

/// <name>.h: the runtime types, then the model's API with one typed pointer
/// per graph input and output.
std::string generateHeader(func::FuncOp func, const CompileOptions &options,
                           int64_t workspaceBytes);

/// <name>.json: I/O, sizes, target, the kernel of every step, nunc version.
std::string generateManifest(func::FuncOp func, const CompileOptions &options,
                             const CompiledModel &model);

/// Images the library runs the body for, one after another
/// (`nunc.batch_split`, set by nunc-split-batch); 1 when it runs it once.
int64_t batchSplit(func::FuncOp func);

/// The type of input or output `i` as the library's caller sees it: the
/// function's, with the leading dim times batchSplit(func); quantized
/// elements as their integer codes (u8 codes: ui8).
RankedTensorType ioType(func::FuncOp func, unsigned i, bool input);

/// A C identifier made from `s` (invalid characters become '_').
std::string cIdentifier(llvm::StringRef s);

} // namespace mlir::nunc

#endif // NUNC_CODEGEN_HEADER_H
