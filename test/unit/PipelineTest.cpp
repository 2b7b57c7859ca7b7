//===- PipelineTest.cpp - runPipeline explains every failure ----------------===//
//
// A pass that fails without a diagnostic (a pattern driver that gives up
// says nothing) would leave the user with a bare non-zero exit: runPipeline
// adds an error naming the pass, and only then.
//
//===----------------------------------------------------------------------===//

#include "nunc/Pipeline/Pipeline.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <string>
#include <vector>

using namespace mlir;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

namespace {

enum class Outcome { Succeed, FailSilently, FailWithError };

struct OutcomePass : PassWrapper<OutcomePass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(OutcomePass)
  explicit OutcomePass(Outcome outcome) : outcome(outcome) {}
  StringRef getArgument() const override { return "test-outcome"; }
  void runOnOperation() override {
    if (outcome == Outcome::FailWithError)
      getOperation().emitError("the pass's own reason");
    if (outcome != Outcome::Succeed)
      signalPassFailure();
  }
  Outcome outcome;
};

/// The errors runPipeline leaves for the context's handler.
std::vector<std::string> run(Outcome outcome, LogicalResult &result) {
  MLIRContext ctx;
  std::vector<std::string> errors;
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
    if (d.getSeverity() == DiagnosticSeverity::Error)
      errors.push_back(d.str());
    return success();
  });
  OwningOpRef<ModuleOp> module = ModuleOp::create(UnknownLoc::get(&ctx));
  PassManager pm(&ctx);
  pm.addPass(std::make_unique<OutcomePass>(outcome));
  result = nunc::runPipeline(pm, *module);
  // The counting handler is gone: a later error reaches ours once.
  module->emitError("after");
  return errors;
}

TEST(RunPipeline, ASilentFailureIsNamed) {
  LogicalResult result = success();
  std::vector<std::string> errors = run(Outcome::FailSilently, result);
  EXPECT_TRUE(failed(result));
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_THAT(errors[0], HasSubstr("internal error: compiler pass 'test-outcome' failed "
                                   "without saying why"));
  EXPECT_EQ(errors[1], "after");
}

TEST(RunPipeline, AFailureWithItsOwnErrorGetsNoOther) {
  LogicalResult result = success();
  EXPECT_THAT(run(Outcome::FailWithError, result),
              ElementsAre("the pass's own reason", "after"));
  EXPECT_TRUE(failed(result));
}

TEST(RunPipeline, SuccessSaysNothing) {
  LogicalResult result = failure();
  EXPECT_THAT(run(Outcome::Succeed, result), ElementsAre("after"));
  EXPECT_TRUE(succeeded(result));
}

} // namespace
