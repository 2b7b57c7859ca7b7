//===- nunc-opt.cpp - pass driver for nunc's lit tests --------------------===//

#include "nunc/Pipeline/Pipeline.h"
#include "nunc/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::nunc::registerNuncDialects(registry);
  mlir::registerTransformsPasses();
  mlir::nunc::registerNuncPasses();
  mlir::PassPipelineRegistration<>(
      "nunc-simplify", "Shape inference, constant folding, canonicalization and CSE",
      [](mlir::OpPassManager &pm) { mlir::nunc::buildSimplifyPipeline(pm); });
  mlir::PassPipelineRegistration<>(
      "nunc-fuse", "The tensor-level pipeline of nunc compile (simplify, fuse, simplify)",
      [](mlir::OpPassManager &pm) { mlir::nunc::buildFusionPipeline(pm); });
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "nunc pass driver\n", registry));
}
