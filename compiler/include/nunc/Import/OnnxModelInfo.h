//===- OnnxModelInfo.h - what `nunc inspect` reports about a model -*- C++ -*-===//
//
// A summary read straight from the ONNX protobuf, so it is available even for
// models the importer cannot convert (it lists what is unsupported).
//
//===----------------------------------------------------------------------===//

#ifndef NUNC_IMPORT_ONNXMODELINFO_H
#define NUNC_IMPORT_ONNXMODELINFO_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace mlir::nunc {

struct OnnxValueInfo {
  std::string name;
  std::string dtype;               // numpy-style ("float32", "int64", ...)
  bool hasShape = false;
  std::vector<int64_t> dims;       // -1 where symbolic or unknown
  std::vector<std::string> dimNames; // dim_param, "" when static/unknown
};

struct OnnxModelInfo {
  int64_t irVersion = 0;
  std::string producer;
  std::map<std::string, int64_t> opsets; // domain ("" = default) -> version
  std::map<std::string, int64_t> opHistogram; // "Domain.Op" or "Op" -> count
  std::map<std::string, int64_t> unsupportedOps;
  std::map<std::string, std::string> firstUnsupportedNode;
  int64_t numNodes = 0;
  int64_t numInitializers = 0;
  int64_t parameterCount = 0;  // elements of initializers and Constant tensors
  int64_t parameterBytes = 0;
  bool usesExternalData = false;
  std::vector<OnnxValueInfo> inputs, outputs;
};

/// Reads the model and summarizes it. External tensors are not loaded.
llvm::Expected<OnnxModelInfo> readOnnxModelInfo(llvm::StringRef path);

} // namespace mlir::nunc

#endif // NUNC_IMPORT_ONNXMODELINFO_H
