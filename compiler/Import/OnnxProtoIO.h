//===- OnnxProtoIO.h - reading ONNX protobuf files --------------*- C++ -*-===//

#ifndef NUNC_IMPORT_ONNXPROTOIO_H
#define NUNC_IMPORT_ONNXPROTOIO_H

#include "onnx.pb.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Types.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <optional>
#include <string>

namespace mlir::nunc::onnx_io {

/// Parses a ModelProto from a file, streaming (the file is never held in
/// memory twice). Fails with a readable message for unreadable, truncated or
/// non-ONNX files.
llvm::Error loadModel(llvm::StringRef path, onnx::ModelProto &model);

/// "FLOAT", "INT64", ... for an onnx::TensorProto::DataType value.
std::string dataTypeName(int dataType);
/// numpy-style name ("float32") or the ONNX name for types nunc lacks.
std::string numpyName(int dataType);
/// The nunc element type of an ONNX data type, if nunc supports it.
std::optional<Type> elementType(MLIRContext *ctx, int dataType);
/// Bytes per element (0 for types without a fixed byte size).
int64_t elementSize(int dataType);
/// INT4 / UINT4: packed two to a byte in a file (low nibble first). nunc
/// reads a constant of them as one code a byte (i8 sign-extended, ui8), so
/// that a DequantizeLinear of 4-bit weights is one of 8-bit codes of the
/// same values; graph inputs and outputs of them stay unsupported.
bool isFourBit(int dataType);
/// The element type a constant of this data type imports as: elementType,
/// or for 4-bit codes the 8-bit type holding them.
std::optional<Type> constantElementType(MLIRContext *ctx, int dataType);
/// Bytes of `count` elements in a file (4-bit codes packed two a byte).
int64_t storedBytes(int dataType, int64_t count);

/// Number of elements of a TensorProto, or an error for negative dims or an
/// element count no real model has (overflow, or above 2^40).
llvm::Expected<int64_t> tensorElementCount(const onnx::TensorProto &t);

/// The bytes of a tensor, however the file stores them (raw_data, typed
/// fields, external data beside the model), checked against its dims; the
/// element layout is nunc's (i1 as one byte, 4-bit codes one a byte).
/// raw_data is moved out of `t`, not copied (4-bit codes: unpacked into a
/// copy). Errors read as the continuation of "tensor 'x' ...".
llvm::Expected<std::unique_ptr<std::string>> readTensorData(onnx::TensorProto &t,
                                                            llvm::StringRef modelDir);

/// Resolves an external-data `location` against the model's folder. Refuses
/// absolute paths and anything that resolves outside that folder.
llvm::Expected<std::string> resolveExternalPath(llvm::StringRef modelDir,
                                                llvm::StringRef location);

} // namespace mlir::nunc::onnx_io

#endif // NUNC_IMPORT_ONNXPROTOIO_H
