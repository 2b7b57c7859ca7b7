//===- Passes.td - nunc tensor-level passes -----------------*- tablegen -*-===//

#ifndef NUNC_TRANSFORMS_PASSES_TD
#define NUNC_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def ShapeInference : Pass<"nunc-shape-inference", "func::FuncOp"> {
  let summary = "Refines result types from operand types and constant operands";
  let description = [{
    Walks the function in order and gives every nunc op the most precise result
    type its operands allow (a dim becomes static where inference knows it; a
    type never becomes less precise), then updates the function's result types.
    With pinned input shapes this makes a whole encoder static.
  }];
}

def ConstantFolding : Pass<"nunc-constant-folding", "func::FuncOp"> {
  let summary = "Evaluates ops whose operands are all constant";
  let description = [{
    Walks the function in order, refining each op's result types first, and
    replaces every op whose operands are constants (and whose results have
    static shapes within `max-elements`) by the constants the reference
    evaluator computes, and every op whose folder answers (Shape of a static
    tensor, Identity) by that answer. Shape subgraphs
    (Shape -> Gather -> Unsqueeze -> Concat -> Reshape) collapse in one run once
    the input shapes are pinned. Dead constants are erased.
  }];
  let options = [
    Option<"maxElements", "max-elements", "int64_t", "65536",
           "Largest result (in elements) the pass materializes as a constant">,
  ];
  let dependentDialects = ["::mlir::nunc::NuncDialect"];
}

#endif // NUNC_TRANSFORMS_PASSES_TD
