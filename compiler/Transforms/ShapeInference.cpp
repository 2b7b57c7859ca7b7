//===- ShapeInference.cpp - refine result types of nunc ops ---------------===//

#include "nunc/Transforms/Passes.h"

namespace mlir::nunc {
#define GEN_PASS_DEF_SHAPEINFERENCE
#include "nunc/Transforms/Passes.h.inc"
} // namespace mlir::nunc

using namespace mlir;
using namespace mlir::nunc;

/// The more precise of two compatible types; `current` when they conflict
/// (the verifier reports conflicts).
static Type meet(Type current, Type inferred) {
  auto c = dyn_cast<ShapedType>(current);
  auto i = dyn_cast<ShapedType>(inferred);
  if (!c || !i || c.getElementType() != i.getElementType())
    return current;
  if (!c.hasRank())
    return inferred;
  if (!i.hasRank() || c.getRank() != i.getRank())
    return current;
  SmallVector<int64_t> dims;
  for (auto [a, b] : llvm::zip(c.getShape(), i.getShape())) {
    if (!ShapedType::isDynamic(a) && !ShapedType::isDynamic(b) && a != b)
      return current;
    dims.push_back(ShapedType::isDynamic(a) ? b : a);
  }
  return RankedTensorType::get(dims, c.getElementType());
}

LogicalResult mlir::nunc::refineResultTypes(Operation *op, bool &changed) {
  auto infer = dyn_cast<InferShapesOpInterface>(op);
  if (!infer)
    return success();
  SmallVector<Type> types;
  if (failed(infer.inferResultTypes(types)))
    return failure();
  for (auto [result, inferred] : llvm::zip(op->getResults(), types)) {
    Type refined = meet(result.getType(), inferred);
    if (refined != result.getType()) {
      result.setType(refined);
      changed = true;
    }
  }
  return success();
}

void mlir::nunc::updateFunctionResultTypes(func::FuncOp func) {
  Operation *terminator = func.getBody().front().getTerminator();
  func.setFunctionType(FunctionType::get(func.getContext(), func.getArgumentTypes(),
                                         terminator->getOperandTypes()));
}

namespace {
struct ShapeInferencePass
    : public mlir::nunc::impl::ShapeInferenceBase<ShapeInferencePass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    bool changed = false;
    // Blocks are in topological order: one forward walk sees every operand's
    // final type before it infers an op.
    WalkResult r = func.walk([&](Operation *op) {
      return failed(refineResultTypes(op, changed)) ? WalkResult::interrupt()
                                                    : WalkResult::advance();
    });
    if (r.wasInterrupted())
      return signalPassFailure();
    updateFunctionResultTypes(func);
    if (!changed)
      markAllAnalysesPreserved();
  }
};
} // namespace
