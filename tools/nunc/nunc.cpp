//===- nunc.cpp - the nunc command-line driver ----------------------------===//
//
//   nunc import  model.onnx [--shape name=dims ...] -o model.mlir
//   nunc run     --reference model.onnx (--input in.npz | --random-inputs) -o out.npz
//   nunc inspect model.onnx [--json]
//
//===----------------------------------------------------------------------===//

#include "Common.h"

#include "llvm/Config/llvm-config.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

using namespace nunc_tool;

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  llvm::cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << "nunc " << NUNC_VERSION << " (LLVM/MLIR " << LLVM_VERSION_STRING << ")\n";
  });
  llvm::cl::HideUnrelatedOptions(category);
  llvm::cl::ParseCommandLineOptions(
      argc, argv,
      "nunc: ahead-of-time compiler for ONNX models\n\n"
      "  nunc import model.onnx [--shape NAME=DIMS ...] -o model.mlir\n"
      "  nunc run --reference model.onnx (--input in.npz | --random-inputs) [-o out.npz]\n"
      "  nunc inspect model.onnx [--json]\n"
      "  nunc compile model.onnx --target x86_64-avx512 --shape NAME=DIMS ... -o out/\n\n"
      "Run 'nunc <subcommand> --help' for the options of each.\n");
  int status = -1;
  if (importCommand)
    status = runImport();
  else if (runCommand)
    status = runRun();
  else if (inspectCommand)
    status = runInspect();
  else if (compileCommand)
    status = runCompile();
  if (status > 0 && errorsPrinted() == 0)
    llvm::errs() << "nunc: error: internal error: failed without saying why\n";
  if (status >= 0)
    return status;
  llvm::errs() << "nunc: error: expected a subcommand (import, run, inspect, compile); see "
                  "'nunc --help'\n";
  return 1;
}
