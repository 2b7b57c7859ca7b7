//===- Evaluator.h - reference evaluator for nunc IR ------------*- C++ -*-===//
//
// Runs nunc-dialect IR on the CPU, op by op, plainly and exactly. It is the
// oracle that constant folding and (later) calibration trust, and what
// `nunc run --reference` executes. Shapes are computed from the actual inputs,
// so a function with dynamic dims runs on any consistent input.
//
//===----------------------------------------------------------------------===//

#ifndef NUNC_INTERPRETER_EVALUATOR_H
#define NUNC_INTERPRETER_EVALUATOR_H

#include "nunc/Interpreter/Tensor.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <optional>
#include <vector>

namespace mlir::nunc {

/// Evaluates one nunc op. `operand` yields the tensor of each operand value
/// (only called for operands that are present). Errors carry no location;
/// callers add it.
llvm::Expected<llvm::SmallVector<Tensor>>
evaluateOp(Operation *op, llvm::function_ref<const Tensor &(Value)> operand);

/// The values of a one-input op (an elementwise_chain) at every code of a
/// per-tensor grid, in code order: what it computes on an input that holds
/// only that grid's values, to look up instead. None for an op the
/// evaluator cannot run on them.
std::optional<std::vector<float>> tabulateOnGrid(Operation *op, quant::UniformQuantizedType grid);

/// Sees each op just before it is evaluated, with its operands' tensors
/// (calibration collects activation statistics this way).
using EvaluationObserver =
    llvm::function_ref<void(Operation *op, llvm::function_ref<const Tensor &(Value)> operand)>;

/// Runs a function of nunc ops. Inputs are checked against the argument
/// types (dtype, rank, static dims); errors name the op's ONNX node.
llvm::Expected<llvm::SmallVector<Tensor>> evaluateFunction(func::FuncOp func,
                                                          llvm::ArrayRef<Tensor> inputs,
                                                          EvaluationObserver observer = {});

/// How many evaluations of `ctx`'s functions may run at once on separate
/// threads: `requested`, or 1 where the context has multithreading off
/// (evaluating quantized types gets integer types, whose uniquing then
/// takes no lock).
inline unsigned concurrentEvaluations(MLIRContext *ctx, unsigned requested) {
  return ctx->isMultithreadingEnabled() ? requested : 1;
}

/// A tensor over the data of a constant attribute (no copy for dense_resource
/// blobs and non-splat dense data).
llvm::Expected<Tensor> tensorFromAttr(ElementsAttr attr);

/// A constant attribute holding `t`: dense for small tensors, dense_resource
/// (named after `hint`) for larger ones.
ElementsAttr attrFromTensor(const Tensor &t, MLIRContext *ctx,
                            llvm::StringRef hint = "folded");

} // namespace mlir::nunc

#endif // NUNC_INTERPRETER_EVALUATOR_H
