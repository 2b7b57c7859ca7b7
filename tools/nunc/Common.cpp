//===- Common.cpp - shared pieces of the nunc subcommands -----------------===//

#include "Common.h"

#include "nunc/Dialect/Nunc/NuncUtils.h"
#include "nunc/Pipeline/Pipeline.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <mutex>

namespace nunc_tool {

llvm::cl::OptionCategory category("nunc options");
llvm::cl::SubCommand importCommand("import", "Import an ONNX model into the nunc dialect (MLIR)");
llvm::cl::SubCommand runCommand("run", "Run a model on inputs and write its outputs");
llvm::cl::SubCommand inspectCommand("inspect", "Summarize an ONNX model: ops, parameters, MACs, I/O");

namespace {
std::atomic<int> printedErrors{0};

/// Records the first pass that fails. (Diagnostics of passes that run on
/// several functions at once reach the handler only after all of them, so
/// whether a failure was silent is judged after the whole run.)
class FailedPassRecorder : public mlir::PassInstrumentation {
public:
  void runAfterPassFailed(mlir::Pass *pass, mlir::Operation *op) override {
    std::lock_guard<std::mutex> lock(mutex);
    if (name.empty())
      name = pass->getArgument().str();
  }
  std::string first() {
    std::lock_guard<std::mutex> lock(mutex);
    return name;
  }

private:
  std::mutex mutex;
  std::string name;
};
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

mlir::LogicalResult runPasses(mlir::PassManager &pm, mlir::ModuleOp module) {
  auto recorder = std::make_unique<FailedPassRecorder>();
  FailedPassRecorder *failedPass = recorder.get();
  pm.addInstrumentation(std::move(recorder));
  int before = printedErrors;
  if (succeeded(pm.run(module)))
    return mlir::success();
  if (printedErrors == before)
    module.emitError() << "internal error: compiler pass '" << failedPass->first()
                       << "' failed without saying why";
  return mlir::failure();
}

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
