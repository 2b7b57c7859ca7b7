//===- Common.cpp - shared pieces of the nunc subcommands -----------------===//

#include "Common.h"

#include "nunc/Dialect/Nunc/NuncUtils.h"
#include "nunc/Pipeline/Pipeline.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>

namespace nunc_tool {

llvm::cl::OptionCategory category("nunc options");
llvm::cl::SubCommand importCommand("import", "Import an ONNX model into the nunc dialect (MLIR)");
llvm::cl::SubCommand runCommand("run", "Run a model on inputs and write its outputs");
llvm::cl::SubCommand inspectCommand("inspect", "Summarize an ONNX model: ops, parameters, MACs, I/O");

namespace {
std::atomic<int> printedErrors{0};
} // namespace

ToolContext::ToolContext() {
  mlir::DialectRegistry registry;
  mlir::nunc::registerNuncDialects(registry);
  ctx.appendDialectRegistry(registry);
  ctx.loadAllAvailableDialects();
  // Diagnostics name the ONNX node; an IR dump of the op helps nobody there.
  ctx.printOpOnDiagnostic(false);
  ctx.getDiagEngine().registerHandler([this](mlir::Diagnostic &diag) {
    llvm::raw_ostream &os = llvm::errs();
    const char *kind = "note";
    switch (diag.getSeverity()) {
    case mlir::DiagnosticSeverity::Error: kind = "error"; ++printedErrors; break;
    case mlir::DiagnosticSeverity::Warning: kind = "warning"; break;
    case mlir::DiagnosticSeverity::Remark: kind = "remark"; break;
    case mlir::DiagnosticSeverity::Note: break;
    }
    os << mlir::nunc::describeLocation(diag.getLocation()) << ": " << kind << ": "
       << diag.str() << "\n";
    for (mlir::Diagnostic &note : diag.getNotes())
      os << mlir::nunc::describeLocation(note.getLocation()) << ": note: " << note.str()
         << "\n";
    return mlir::success();
  });
}

int fail(llvm::StringRef subcommand, const llvm::Twine &message) {
  llvm::errs() << "nunc " << subcommand << ": error: " << message << "\n";
  ++printedErrors;
  return 1;
}

int errorsPrinted() { return printedErrors; }

bool parseShapePins(llvm::StringRef subcommand, const std::vector<std::string> &pins,
                    mlir::nunc::ImportOptions &options) {
  for (const std::string &pin : pins) {
    std::string err = mlir::nunc::parseShapePin(pin, options);
    if (!err.empty()) {
      fail(subcommand, err);
      return false;
    }
  }
  return true;
}

void printKernelChoices(const mlir::nunc::CompiledModel &compiled, llvm::raw_ostream &os) {
  int generic = 0;
  for (const mlir::nunc::KernelChoice &k : compiled.kernels) {
    os << (k.generic ? "generic  " : "kernel   ") << k.op << "  " << k.kernel << "  ; " << k.node
       << "\n";
    generic += k.generic;
  }
  os << compiled.kernels.size() << " steps, " << generic << " on the generic path\n";
}

} // namespace nunc_tool
