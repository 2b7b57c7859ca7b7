//===- Common.h - shared pieces of the nunc subcommands ---------*- C++ -*-===//

#ifndef NUNC_TOOLS_NUNC_COMMON_H
#define NUNC_TOOLS_NUNC_COMMON_H

#include "nunc/Codegen/CompileModel.h"
#include "nunc/Import/OnnxImporter.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/CommandLine.h"

#include <string>
#include <vector>

namespace nunc_tool {

extern llvm::cl::OptionCategory category;
extern llvm::cl::SubCommand importCommand, runCommand, inspectCommand, compileCommand;

int runImport();
int runRun();
int runInspect();
int runCompile();

/// A context with nunc's dialects whose diagnostics print as
/// `model.onnx: node "name" (Op, opset N): error: message`.
class ToolContext {
public:
  ToolContext();
  mlir::MLIRContext &get() { return ctx; }

private:
  mlir::MLIRContext ctx;
};

/// Prints "nunc <sub>: error: message" and returns 1.
int fail(llvm::StringRef subcommand, const llvm::Twine &message);

/// Errors printed so far (diagnostics and fail()): a subcommand that exits
/// 1 having printed none gets an internal error line from main.
int errorsPrinted();

/// --explain: the kernel of every step, and how many took the generic path.
void printKernelChoices(const mlir::nunc::CompiledModel &compiled, llvm::raw_ostream &os);

/// Parses the --shape pins into `options`; false (after printing) on errors.
bool parseShapePins(llvm::StringRef subcommand, const std::vector<std::string> &pins,
                    mlir::nunc::ImportOptions &options);

} // namespace nunc_tool

#endif // NUNC_TOOLS_NUNC_COMMON_H
