//===- nunc-opt.cpp - pass driver for nunc's lit tests --------------------===//

#include "nunc/Dialect/Nunc/NuncOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  registry.insert<mlir::nunc::NuncDialect, mlir::func::FuncDialect>();
  mlir::registerTransformsPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "nunc pass driver\n", registry));
}
