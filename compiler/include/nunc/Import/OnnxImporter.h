//===- OnnxImporter.h - ONNX protobuf to the nunc dialect -------*- C++ -*-===//
//
// Reads an ONNX model (protobuf, with external data beside it) and builds a
// module with one function, @main, of nunc ops. Every op carries its ONNX node
// as location (file, node name, op type, opset). Initializers become constants
// that own the bytes read from the file, so weights are read once and never
// copied again. All problems are reported as located MLIR diagnostics; on
// failure nothing is returned.
//
//===----------------------------------------------------------------------===//

#ifndef NUNC_IMPORT_ONNXIMPORTER_H
#define NUNC_IMPORT_ONNXIMPORTER_H

#include "mlir/IR/BuiltinAttributeInterfaces.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <map>
#include <string>
#include <vector>

namespace mlir::nunc {

struct ImportOptions {
  /// Graph inputs whose dims are pinned (--shape input_ids=1x128).
  std::map<std::string, std::vector<int64_t>> inputShapes;
  /// Shapes of the data a run will feed (nunc run --input): applied like pins
  /// to the inputs of those names; names that are not inputs are ignored here
  /// (the caller reports them).
  std::map<std::string, std::vector<int64_t>> inputShapeHints;
  /// Graph inputs replaced by constants (their values known when compiling,
  /// e.g. the shape operands of a test). Types must match the inputs.
  std::map<std::string, ElementsAttr> constantInputs;
};

/// Parses "name=1x128" into options.inputShapes; returns an error message or
/// an empty string.
std::string parseShapePin(llvm::StringRef spec, ImportOptions &options);

/// Imports the model at `path`. Returns null after emitting diagnostics.
OwningOpRef<ModuleOp> importOnnxModel(MLIRContext *ctx, llvm::StringRef path,
                                      const ImportOptions &options);

/// The ONNX ops (default domain) the importer accepts.
llvm::ArrayRef<llvm::StringRef> supportedOnnxOps();

/// Default-domain opsets the importer accepts.
constexpr int64_t kMinOnnxOpset = 7;
constexpr int64_t kMaxOnnxOpset = 28;

} // namespace mlir::nunc

#endif // NUNC_IMPORT_ONNXIMPORTER_H
