//===- ImportCommand.cpp - nunc import ------------------------------------===//

#include "Common.h"

#include "nunc/Pipeline/Pipeline.h"
#include "nunc/Support/ModuleWriter.h"

#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/ToolOutputFile.h"

namespace cl = llvm::cl;

namespace nunc_tool {
namespace {
cl::opt<std::string> input(cl::Positional, cl::desc("<model.onnx>"), cl::Required,
                           cl::sub(importCommand), cl::cat(category));
cl::opt<std::string> output("o", cl::desc("Output file ('-' for stdout; a .mlirbc name "
                                          "writes MLIR bytecode)"),
                            cl::value_desc("file"), cl::Required, cl::sub(importCommand),
                            cl::cat(category));
cl::list<std::string> shapes("shape",
                             cl::desc("Pin a graph input's dims (input_ids=1x128) or a "
                                      "symbolic dim (sequence=128) "
                                      "(repeatable)"),
                             cl::value_desc("name=dims"), cl::sub(importCommand),
                             cl::cat(category));
cl::opt<bool> noSimplify("no-simplify",
                         cl::desc("Emit the IR as imported, without shape inference "
                                  "and constant folding"),
                         cl::sub(importCommand), cl::cat(category));
cl::opt<bool> locations("locations",
                        cl::desc("Print locations (ONNX node names, op types, opsets)"),
                        cl::sub(importCommand), cl::cat(category));
cl::opt<bool> elideWeights("elide-weights",
                           cl::desc("Print large constants as placeholders (the output "
                                    "cannot be parsed back)"),
                           cl::sub(importCommand), cl::cat(category));
} // namespace

int runImport() {
  mlir::nunc::ImportOptions options;
  if (!parseShapePins("import", shapes, options))
    return 1;
  ToolContext tc;
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::nunc::importOnnxModel(&tc.get(), input, options);
  if (!module)
    return 1;
  if (!noSimplify && failed(mlir::nunc::simplify(*module)))
    return 1;

  // Written only when everything succeeded: no partial files on errors.
  std::string err;
  auto file = mlir::openOutputFile(output, &err);
  if (!file)
    return fail("import", err);
  if (llvm::StringRef(output).ends_with(".mlirbc")) {
    if (failed(mlir::writeBytecodeToFile(*module, file->os())))
      return fail("import", "cannot write bytecode");
  } else {
    mlir::OpPrintingFlags flags;
    if (locations)
      flags.enableDebugInfo(true, /*prettyForm=*/false);
    if (elideWeights) {
      flags.elideLargeElementsAttrs(16).elideLargeResourceString(0);
      module->print(file->os(), flags);
    } else {
      mlir::nunc::printModuleStreamingResources(*module, file->os(), flags);
    }
  }
  file->keep();
  return 0;
}

} // namespace nunc_tool
