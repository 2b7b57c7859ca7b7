//===- GenericKernels.h - every op as plain loops, through MLIR -*- C++ -*-===//
//
// The generic path: any nunc op becomes a function of scalar loops (scf,
// arith, math on memrefs) that the upstream MLIR pipeline lowers to LLVM.
// No model fails to compile for lack of a fast kernel; `nunc compile
// --explain` lists the ops that took this path.
//
//===----------------------------------------------------------------------===//

#ifndef NUNC_CODEGEN_GENERICKERNELS_H
#define NUNC_CODEGEN_GENERICKERNELS_H

#include "mlir/IR/BuiltinOps.h"

namespace mlir::nunc {

/// Adds to `kernels` a func.func `symbol` that computes `op`:
///   (memref operands..., memref results..., [memref<Nxi8> scratch]) -> i32
/// on static memrefs with signless element types (unsigned tensors use their
/// signless twins; the op's types say how to read them). Returns 0, or 1
/// when the data is out of range (a Gather index). Fails with a diagnostic
/// for ops that cannot be lowered.
LogicalResult buildGenericKernel(ModuleOp kernels, Operation *op, llvm::StringRef symbol,
                                bool resultAliasesOperand = false);

/// Whether the generic kernel of `op` may write its result over operand `i`
/// (it reads each element of it before writing the same element).
bool genericKernelWorksInPlace(Operation *op, unsigned operand);

/// Geometry of the packed im2col a convolution's implicit GEMM reads.
struct ConvPackConfig {
  int64_t batch, channels, height, width;   // input NCHW
  int64_t kernelH, kernelW, strideH, strideW, dilationH, dilationW, padTop, padLeft;
  int64_t outH, outW;
  int64_t panelWidth;                        // NR of the GEMM kernel
  /// The int8 convolution's channel-blocked input: 32-bit elements (four u8
  /// channels; `channels` counts the groups) and padding of the zero point
  /// in every byte, read from a third argument memref<2xi32> (zero point,
  /// scale bits).
  bool zeroPointPadding = false;
};

/// Adds `symbol`: (memref input NCHW f32, memref packed f32, index task) -> i32
/// writing, for task = image * C + channel, that channel's rows of the
/// im2col matrix [C*kh*kw][OH*OW] in the GEMM kernel's panel layout
/// [image][panel][C*kh*kw][NR] (padding in the input and past the last
/// column read as 0; with zeroPointPadding, as described there).
void buildConvPackKernel(ModuleOp kernels, const ConvPackConfig &c, llvm::StringRef symbol);

/// A run-time matrix into the f32 GEMM kernel's panels (x86::GemmKernel).
struct PanelPackConfig {
  int64_t batch, k, n;   // `batch` matrices W [k, n]
  int64_t panelWidth;    // NR
};

/// Adds `symbol`: (memref source f32, memref packed f32, index task) -> i32
/// writing, for task = matrix * panels + panel, that panel [k][NR] of the
/// packed [batch][panel][k][NR] (columns past n zero).
void buildPanelPackKernel(ModuleOp kernels, const PanelPackConfig &c, llvm::StringRef symbol);

/// The memref type a tensor of `type` is passed as to a generic kernel.
MemRefType genericMemRefType(Type tensorType);

/// Lowers the functions built above to the LLVM dialect (bare-pointer
/// arguments, polynomial approximations instead of libm calls).
LogicalResult lowerGenericKernelsToLLVM(ModuleOp kernels);

} // namespace mlir::nunc

#endif // NUNC_CODEGEN_GENERICKERNELS_H
