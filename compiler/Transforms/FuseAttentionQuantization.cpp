//===- FuseAttentionQuantization.cpp - u8 Q, K, V into attention ----------===//

#include "PatternUtils.h"
#include "nunc/Transforms/Passes.h"

#include "mlir/Dialect/Quant/IR/QuantTypes.h"

namespace mlir::nunc {
#define GEN_PASS_DEF_FUSEATTENTIONQUANTIZATION
#include "nunc/Transforms/Passes.h.inc"
} // namespace mlir::nunc

using namespace mlir;
using namespace mlir::nunc;

namespace {

struct FuseAttentionQuantizationPass
    : public mlir::nunc::impl::FuseAttentionQuantizationBase<FuseAttentionQuantizationPass> {
  std::function<bool(AttentionOp, ArrayRef<Type>)> readsU8Inputs;

  void runOnOperation() override {
    SmallVector<AttentionOp> attentions;
    getOperation().walk([&](AttentionOp op) { attentions.push_back(op); });
    for (AttentionOp op : attentions)
      fuse(op);
  }

  /// The GEMM writing operand `v` on a u8 grid, used only by the attention.
  static QuantizedLinearOp gridProducer(Value v) {
    auto gemm = singleUseDef<QuantizedLinearOp>(v);
    if (!gemm || gemm.getU8Output() || !isU8Grid(gemm.getOutputQuantization()))
      return nullptr;
    return gemm;
  }

  void fuse(AttentionOp op) {
    // Packed operands are one GEMM's columns; without a grid on the
    // probabilities P V would not be a product of codes. The u8 kernels
    // read [B, S, H*D] operands of equal heads.
    if (op.getInputOffsets() || !op.getProbsQuantization() || op.hasHeadsFirstOrGroups())
      return;
    SmallVector<QuantizedLinearOp, 3> gemms;
    SmallVector<Type, 3> grids;
    for (Value x : {op.getQuery(), op.getKey(), op.getValue()}) {
      QuantizedLinearOp gemm = gridProducer(x);
      if (!gemm)
        return;
      gemms.push_back(gemm);
      grids.push_back(*gemm.getOutputQuantization());
    }
    if (readsU8Inputs && !readsU8Inputs(op, grids))
      return;
    for (auto [gemm, grid] : llvm::zip(gemms, grids)) {
      gemm.setU8Output(true);
      gemm.getResult().setType(cast<RankedTensorType>(gemm.getType()).clone(grid));
    }
  }
};

} // namespace

std::unique_ptr<Pass> mlir::nunc::createFuseAttentionQuantization(
    std::function<bool(AttentionOp, ArrayRef<Type>)> readsU8Inputs) {
  auto pass = std::make_unique<FuseAttentionQuantizationPass>();
  pass->readsU8Inputs = std::move(readsU8Inputs);
  return pass;
}
