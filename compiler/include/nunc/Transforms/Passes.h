//===- Passes.h - nunc tensor-level passes ----------------------*- C++ -*-===//

#ifndef NUNC_TRANSFORMS_PASSES_H
#define NUNC_TRANSFORMS_PASSES_H

#include "nunc/Dialect/Nunc/NuncOps.h"
#include "nunc/Quantize/Calibration.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/Pass/Pass.h"

#include <functional>

namespace mlir::nunc {

#define GEN_PASS_DECL
#include "nunc/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "nunc/Transforms/Passes.h.inc"

/// nunc-fuse-conv-activation-quantization handing u8 codes only to and from
/// the depthwise convolutions `readsU8Input` accepts (the target's kernels;
/// asked before each rewrite: whether the op reads the u8 codes of grid
/// `inputCodes`, or, with a null one, reads and writes codes as it is then,
/// reading f32 or already codes, when they are to go on to an int8 conv).
std::unique_ptr<Pass> createFuseConvActivationQuantization(
    std::function<bool(Operation *, Type inputCodes)> readsU8Input);

/// nunc-one-step-requantization (all of it, not only the Adds) marking
/// only the depthwise convs `integerDepthwise` accepts (the target's
/// integer depthwise kernel, which computes their one-step codes) and the
/// attentions, quantized_linears and LayerNorms `qlinearAttention`,
/// `qlinearLinear` and `orderedLayerNorm` accept (marked as they would be),
/// and the convs in f32 `f32ProductConv` accepts.
std::unique_ptr<Pass>
createOneStepRequantization(std::function<bool(FusedConvOp)> integerDepthwise,
                            std::function<bool(AttentionOp)> qlinearAttention,
                            std::function<bool(QuantizedLinearOp)> qlinearLinear,
                            std::function<bool(LayerNormOp)> orderedLayerNorm,
                            std::function<bool(QuantizedConvOp)> f32ProductConv);

/// nunc-fuse-chain-into-conv tabulating chains only into the convs
/// (quantized_conv, or a depthwise nunc.conv or fused_conv as it is before
/// the rewrite) that `looksUp` accepts: the target's kernels with the lookup.
std::unique_ptr<Pass> createFuseChainIntoConv(std::function<bool(Operation *)> looksUp);

/// nunc-fuse-activation-quantization folding a quantize into the attention
/// before it only where `attentionWritesU8` accepts it (the target's
/// kernel writes that grid's codes).
std::unique_ptr<Pass> createFuseActivationQuantization(
    const FuseActivationQuantizationOptions &options,
    std::function<bool(AttentionOp, Type grid)> attentionWritesU8);

/// nunc-fuse-attention-quantization handing codes only to the attentions
/// `readsU8Inputs` accepts (the target's kernel), given the u8 grids of
/// query, key and value.
std::unique_ptr<Pass> createFuseAttentionQuantization(
    std::function<bool(AttentionOp, ArrayRef<Type> inputGrids)> readsU8Inputs);

/// nunc-quantize-attention marking only the attentions `kernelTakes`
/// accepts with int8_products set (the target's kernel), and none of
/// `keepF32`.
std::unique_ptr<Pass> createQuantizeAttention(std::function<bool(AttentionOp)> kernelTakes,
                                              llvm::ArrayRef<std::string> keepF32 = {});

/// Re-infers the result types of `op` and keeps, per result, the more precise
/// of the current and the inferred type. Returns failure when inference
/// reports an error (emitted at the op), and sets `changed` when a type moved.
LogicalResult refineResultTypes(Operation *op, bool &changed);

/// Sets the function's result types to the types of what it returns.
void updateFunctionResultTypes(func::FuncOp func);

/// SmoothQuant factors (see Smoothing) for every LayerNorm of `func` that
/// nunc-smooth-activations can smooth and `absMax` (layerNormChannelAbsMax)
/// measured.
Smoothing smoothingFactors(func::FuncOp func,
                           const std::map<std::string, std::vector<float>> &absMax,
                           double alpha);

/// What nunc-smooth-activations does with `smoothing`.
LogicalResult applySmoothing(func::FuncOp func, const Smoothing &smoothing);

} // namespace mlir::nunc

#endif // NUNC_TRANSFORMS_PASSES_H
