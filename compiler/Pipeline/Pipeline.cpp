//===- Pipeline.cpp - pass pipelines of nunc ------------------------------===//

#include "nunc/Pipeline/Pipeline.h"

#include "nunc/Dialect/Nunc/NuncOps.h"
#include "nunc/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

#include <mutex>

using namespace mlir;

namespace {
/// Records the first pass that fails. (Diagnostics of passes that run on
/// several functions at once reach the handlers only after all of them, so
/// whether a failure was silent is judged after the whole run.)
class FailedPassRecorder : public PassInstrumentation {
public:
  void runAfterPassFailed(Pass *pass, Operation *) override {
    std::lock_guard<std::mutex> lock(mutex);
    if (name.empty())
      name = (pass->getArgument().empty() ? pass->getName() : pass->getArgument()).str();
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

void mlir::nunc::registerNuncDialects(DialectRegistry &registry) {
  registry.insert<NuncDialect, func::FuncDialect, quant::QuantDialect>();
}

void mlir::nunc::buildSimplifyPipeline(OpPassManager &pm, bool keepQuantizedWeights,
                                       bool keepConvWeights) {
  OpPassManager &fpm = pm.nest<func::FuncOp>();
  ConstantFoldingOptions folding;
  folding.keepQuantizedWeights = keepQuantizedWeights;
  folding.keepConvWeights = keepConvWeights;
  fpm.addPass(createShapeInference());
  fpm.addPass(createConstantFolding(folding));
  fpm.addPass(createCanonicalizerPass());
  fpm.addPass(createCSEPass());
  // Folding and CSE can expose more: one more round settles what exporters emit.
  fpm.addPass(createConstantFolding(folding));
  fpm.addPass(createShapeInference());
}

void mlir::nunc::buildFusionPipeline(OpPassManager &pm, bool int8Convs, bool u16Gemms,
                                     bool onnxruntimeRewrites) {
  // Every int8 GEMM takes u8 weights with zero points.
  FuseLinearOptions linear;
  linear.u8Weights = true;
  linear.u16Inputs = u16Gemms;
  // onnxruntime's load-time rewrites of QDQ models, in its order, before
  // the first folding (which turns a quantized bias into an f32 one).
  if (onnxruntimeRewrites) {
    pm.nest<func::FuncOp>().addPass(createRemoveDoubleQuantizeDequantize());
    pm.nest<func::FuncOp>().addPass(createQuantizeFloatWeightsAndBiases());
  }
  buildSimplifyPipeline(pm, /*keepQuantizedWeights=*/true, /*keepConvWeights=*/int8Convs);
  OpPassManager &fpm = pm.nest<func::FuncOp>();
  fpm.addPass(createQOperatorToQdq());
  fpm.addPass(createUnsignQuantizeDequantize());
  fpm.addPass(createFuseGelu());
  fpm.addPass(createFuseActivations());
  fpm.addPass(createFuseLayerNorm());
  fpm.addPass(createFuseAttention());
  fpm.addPass(createFuseLinear(linear));
  fpm.addPass(createFuseQuantizeDequantize());
  fpm.addPass(createConv1dAs2d());
  fpm.addPass(createFoldBatchNorm());
  fpm.addPass(createLowerConvTranspose());
  FuseConvOptions conv;
  conv.int8 = int8Convs;
  fpm.addPass(createFuseConv(conv));
  buildSimplifyPipeline(pm, /*keepQuantizedWeights=*/false);
  // Quantized weights the int8 patterns could not take (u8 weights with a
  // zero point past K 2^14, 16-bit activations without `u16Gemms` or with
  // u8 weights) are constants only now: their MatMuls
  // become f32 linear ops here instead of generic loops, and their convs
  // take the BatchNormalization after them and their bias and activation.
  pm.nest<func::FuncOp>().addPass(createFuseLinear(linear));
  // (Also the 1x1 conv of a 1-D ConvTranspose, lowered after the first.)
  pm.nest<func::FuncOp>().addPass(createConv1dAs2d());
  pm.nest<func::FuncOp>().addPass(createFoldBatchNorm());
  pm.nest<func::FuncOp>().addPass(createFuseConv(conv));
  // A QDQ GEMM's bias Add folded there leaves its Q/DQ pair for the
  // epilogue; then the residual Add after that pair, and its own pair.
  pm.nest<func::FuncOp>().addPass(createFuseQuantizeDequantize());
  pm.nest<func::FuncOp>().addPass(createFuseLinear(linear));
  pm.nest<func::FuncOp>().addPass(createFuseQuantizeDequantize());
  // A QDQ model's attention and GELU, their pairs now fake_quantize ops
  // (the repeated ones after Reshape and Transpose gone), fuse with their
  // grids.
  pm.nest<func::FuncOp>().addPass(createFuseAttention());
  pm.nest<func::FuncOp>().addPass(createFuseGelu());
  // Such a GELU (or any activation) after a quantized GEMM's output grid
  // runs in that GEMM's epilogue, and so does the pair after it where no
  // GEMM reads it (a graph output).
  pm.nest<func::FuncOp>().addPass(createFuseLinear(linear));
  pm.nest<func::FuncOp>().addPass(createFuseQuantizeDequantize());
  // Last: the grids left after elementwise ops round in their kernels.
  pm.nest<func::FuncOp>().addPass(createFuseElementwiseQuantization());
}

void mlir::nunc::buildInt8Pipeline(OpPassManager &pm, llvm::StringRef profile,
                                   llvm::ArrayRef<std::string> keepF32, bool convs,
                                   bool biasCorrection, bool staticActivations,
                                   std::optional<double> minHandoverSnr,
                                   bool depthwiseHandover,
                                   std::function<bool(AttentionOp)> int8Attention) {
  QuantizeInt8Options options;
  options.convs = convs;
  options.depthwiseHandover = depthwiseHandover;
  if (minHandoverSnr)
    options.minHandoverSnr = *minHandoverSnr;
  options.biasCorrection = biasCorrection;
  options.keepF32.assign(keepF32.begin(), keepF32.end());
  options.profile = profile.str();
  if (!profile.empty() && staticActivations)
    options.activations = "static";
  pm.nest<func::FuncOp>().addPass(createQuantizeInt8(options));
  if (int8Attention)
    pm.nest<func::FuncOp>().addPass(createQuantizeAttention(std::move(int8Attention), keepF32));
  buildSimplifyPipeline(pm, /*keepQuantizedWeights=*/false);
}

LogicalResult mlir::nunc::runPipeline(PassManager &pm, ModuleOp module) {
  auto recorder = std::make_unique<FailedPassRecorder>();
  FailedPassRecorder *failedPass = recorder.get();
  pm.addInstrumentation(std::move(recorder));
  // (Any error of the run counts: one from a pass that went on hides a
  // later silent failure, which is then not the only thing the user sees.)
  int errors = 0;
  LogicalResult result = failure();
  {
    // Counts the errors on their way to the handlers registered before it
    // (failure(): not handled here). The engine calls handlers under its
    // lock, and the pass manager replays a parallel pass's diagnostics
    // before it returns.
    ScopedDiagnosticHandler counter(module.getContext(), [&](Diagnostic &diag) {
      errors += diag.getSeverity() == DiagnosticSeverity::Error;
      return failure();
    });
    result = pm.run(module);
  }
  if (succeeded(result) || errors > 0)
    return result;
  std::string pass = failedPass->first();
  return module.emitError() << "internal error: compiler pass '"
                            << (pass.empty() ? std::string("(unknown)") : pass)
                            << "' failed without saying why";
}

LogicalResult mlir::nunc::simplify(ModuleOp module) {
  PassManager pm(module.getContext());
  buildSimplifyPipeline(pm);
  return runPipeline(pm, module);
}
