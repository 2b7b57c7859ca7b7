//===- NuncInterfaces.td - nunc op interfaces ---------------*- tablegen -*-===//

#ifndef NUNC_DIALECT_NUNC_NUNCINTERFACES_TD
#define NUNC_DIALECT_NUNC_NUNCINTERFACES_TD

include "mlir/IR/OpBase.td"

def Nunc_InferShapesOpInterface : OpInterface<"InferShapesOpInterface"> {
  let cppNamespace = "::mlir::nunc";
  let description = [{
    Computes the result types of an op from its operand types, its attributes and
    the values of constant operands (Reshape's shape, Unsqueeze's axes, ...). Dims
    that cannot be known are dynamic. The importer builds every op through this
    method, the verifier checks declared result types against it, and the
    shape-inference pass uses it to refine types once inputs are pinned.

    Emits an error at the op's location and fails when the operands are
    inconsistent (incompatible broadcast, axis out of range, ...).
  }];
  let methods = [
    InterfaceMethod<"Infers the result types.", "::llvm::LogicalResult",
      "inferResultTypes", (ins "::llvm::SmallVectorImpl<::mlir::Type> &":$types)>,
  ];
  let verify = [{ return ::mlir::nunc::verifyInferredResultTypes($_op); }];
}

#endif // NUNC_DIALECT_NUNC_NUNCINTERFACES_TD
