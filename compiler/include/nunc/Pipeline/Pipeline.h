//===- Pipeline.h - pass pipelines of nunc ----------------------*- C++ -*-===//

#ifndef NUNC_PIPELINE_PIPELINE_H
#define NUNC_PIPELINE_PIPELINE_H

#include "nunc/Dialect/Nunc/NuncOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"

#include <functional>
#include <optional>

namespace mlir::nunc {

/// Registers the dialects nunc's IR uses.
void registerNuncDialects(DialectRegistry &registry);

/// Adds the tensor-level cleanup every consumer of imported IR wants: shape
/// inference, constant folding (shape subgraphs collapse once input shapes
/// are pinned), canonicalization, CSE, and a final shape inference.
/// `keepQuantizedWeights`: large int8 MatMul weights and embedding tables
/// (and, with `keepConvWeights`, QDQ conv weights) stay behind their
/// DequantizeLinear for fusion to take (before fusion); after it, whatever
/// fusion left is folded.
void buildSimplifyPipeline(OpPassManager &pm, bool keepQuantizedWeights = true,
                           bool keepConvWeights = true);

/// The tensor-level pipeline `nunc compile` runs before code generation:
/// simplify, fuse (GELU, LayerNorm, attention, linear, Q/DQ pairs, BatchNorm
/// into Conv, conv epilogues), simplify again, and fuse linear ops once more
/// for weights that only the second simplification made constant.
/// `int8Convs`: QDQ convolutions become quantized_conv (every x86 target
/// has the kernels; off: they stay f32 convolutions). quantize_dynamic's u8 weights with zero points
/// become quantized_linear (FuseLinear's `u8-weights`: every int8 GEMM takes
/// them). `u16Gemms`: so do QDQ MatMuls with 16-bit activations and s8
/// weights (FuseLinear's `u16-inputs`; targets whose int8 GEMM reads u16
/// inputs), which otherwise stay f32 linear ops. `onnxruntimeRewrites`:
/// first, the rewrites onnxruntime makes to a QDQ model when it loads it
/// (nunc-remove-double-qdq-pairs, nunc-quantize-float-weights-and-biases).
void buildFusionPipeline(OpPassManager &pm, bool int8Convs = true, bool u16Gemms = false,
                         bool onnxruntimeRewrites = true);

/// After fusion, for `--quantize int8`: linear ops (and, with `convs`, 2-D
/// convolutions of one group) to int8 (weights per output channel;
/// activations per row / per tensor at run time, or, with `profile` naming
/// a calibration profile and `staticActivations`, static; with
/// `biasCorrection`, the profile's channel means correct the biases in
/// either mode; `minHandoverSnr`: nunc-quantize-int8's min-handover-snr
/// instead of its default; `depthwiseHandover`: its depthwise-handover, for
/// targets whose depthwise kernel reads u8 codes; `int8Attention`: run
/// nunc-quantize-attention with that rule, the target's), then simplify.
void buildInt8Pipeline(OpPassManager &pm, llvm::StringRef profile = "",
                       llvm::ArrayRef<std::string> keepF32 = {}, bool convs = true,
                       bool biasCorrection = true, bool staticActivations = true,
                       std::optional<double> minHandoverSnr = std::nullopt,
                       bool depthwiseHandover = true,
                       std::function<bool(AttentionOp)> int8Attention = nullptr);

/// Runs `pm` on `module`. A pass that fails without an error diagnostic
/// gets one naming it ("internal error: compiler pass 'X' failed without
/// saying why"), so a failure never reaches the user unexplained. Adds an
/// instrumentation to `pm` (each call one more).
LogicalResult runPipeline(PassManager &pm, ModuleOp module);

/// Runs buildSimplifyPipeline on `module` (through runPipeline);
/// diagnostics go to the context.
LogicalResult simplify(ModuleOp module);

} // namespace mlir::nunc

#endif // NUNC_PIPELINE_PIPELINE_H
