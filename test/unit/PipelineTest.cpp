//===- PipelineTest.cpp - runPipeline explains every failure ----------------===//
//
// A pass that fails without a diagnostic (a pattern driver that gives up
// says nothing) would leave the user with a bare non-zero exit: runPipeline
// adds an error naming the pass, and only then.
//
//===----------------------------------------------------------------------===//

#include "nunc/Pipeline/Pipeline.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
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

/// A function pass: fails silently on functions named "silent*", with an
/// error on "loud*". The pass manager runs it on the functions in parallel
/// and replays their diagnostics when all are done.
struct NamedOutcomePass : PassWrapper<NamedOutcomePass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(NamedOutcomePass)
  StringRef getArgument() const override { return "test-named-outcome"; }
  void runOnOperation() override {
    StringRef name = getOperation().getSymName();
    if (name.starts_with("loud"))
      getOperation().emitError("loud's reason");
    if (!name.starts_with("ok"))
      signalPassFailure();
  }
};

/// The errors runPipeline leaves for the context's handler, for a module of
/// functions of these names.
std::vector<std::string> run(Outcome outcome, LogicalResult &result,
                             std::vector<std::string> functions = {}) {
  MLIRContext ctx;
  ctx.loadDialect<func::FuncDialect>();
  std::vector<std::string> errors;
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
    if (d.getSeverity() == DiagnosticSeverity::Error)
      errors.push_back(d.str());
    return success();
  });
  OwningOpRef<ModuleOp> module = ModuleOp::create(UnknownLoc::get(&ctx));
  OpBuilder b(module->getBodyRegion());
  for (const std::string &name : functions) {
    auto f = func::FuncOp::create(b, UnknownLoc::get(&ctx), name, b.getFunctionType({}, {}));
    OpBuilder body = OpBuilder::atBlockEnd(f.addEntryBlock());
    func::ReturnOp::create(body, UnknownLoc::get(&ctx));
  }
  PassManager pm(&ctx);
  if (functions.empty())
    pm.addPass(std::make_unique<OutcomePass>(outcome));
  else
    pm.nest<func::FuncOp>().addPass(std::make_unique<NamedOutcomePass>());
  result = nunc::runPipeline(pm, *module);
  return errors;
}

TEST(RunPipeline, ASilentFailureIsNamed) {
  LogicalResult result = success();
  std::vector<std::string> errors = run(Outcome::FailSilently, result);
  EXPECT_TRUE(failed(result));
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_THAT(errors[0], HasSubstr("internal error: compiler pass 'test-outcome' failed "
                                   "without saying why"));
}

TEST(RunPipeline, AFailureWithItsOwnErrorGetsNoOther) {
  LogicalResult result = success();
  EXPECT_THAT(run(Outcome::FailWithError, result), ElementsAre("the pass's own reason"));
  EXPECT_TRUE(failed(result));
}

TEST(RunPipeline, SuccessSaysNothing) {
  LogicalResult result = failure();
  EXPECT_THAT(run(Outcome::Succeed, result), ElementsAre());
  EXPECT_TRUE(succeeded(result));
}

TEST(RunPipeline, ParallelFunctionsDiagnosticsCountAfterTheRun) {
  LogicalResult result = success();
  // One function's error explains the failure of the run.
  EXPECT_THAT(run(Outcome::Succeed, result, {"ok0", "silent1", "loud2", "silent3"}),
              ElementsAre("loud's reason"));
  EXPECT_TRUE(failed(result));
  // Failures without a word: one internal error, naming the pass.
  std::vector<std::string> errors = run(Outcome::Succeed, result, {"silent0", "ok1", "silent2"});
  EXPECT_TRUE(failed(result));
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_THAT(errors[0], HasSubstr("compiler pass 'test-named-outcome' failed"));
  EXPECT_THAT(run(Outcome::Succeed, result, {"ok0", "ok1"}), ElementsAre());
  EXPECT_TRUE(succeeded(result));
}

} // namespace
