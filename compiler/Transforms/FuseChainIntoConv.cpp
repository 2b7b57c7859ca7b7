//===- FuseChainIntoConv.cpp - an elementwise chain as a conv's table -----===//

#include "nunc/Interpreter/Evaluator.h"
#include "nunc/Transforms/Passes.h"

namespace mlir::nunc {
#define GEN_PASS_DEF_FUSECHAININTOCONV
#include "nunc/Transforms/Passes.h.inc"
} // namespace mlir::nunc

using namespace mlir;
using namespace mlir::nunc;

namespace {

struct FuseChainIntoConvPass
    : public mlir::nunc::impl::FuseChainIntoConvBase<FuseChainIntoConvPass> {
  using FuseChainIntoConvBase::FuseChainIntoConvBase;

  void runOnOperation() override {
    SmallVector<ElementwiseChainOp> chains;
    getOperation().walk([&](ElementwiseChainOp op) { chains.push_back(op); });
    for (ElementwiseChainOp chain : chains)
      fuse(chain);
  }

  /// chain(quantized_conv(...)), the chain the conv result's only reader:
  /// the conv looks the chain's values up at its last grid's codes.
  void fuse(ElementwiseChainOp chain) {
    if (chain.getInputs().size() != 1)
      return;
    Value x = chain.getInputs()[0];
    auto conv = x.getDefiningOp<QuantizedConvOp>();
    if (!conv || !x.hasOneUse() || conv.getU8Output() || conv.getOutputTable() ||
        conv.getType() != chain.getType())
      return;
    auto grid = dyn_cast_or_null<quant::UniformQuantizedType>(conv.getLastGrid().value_or(Type()));
    if (!grid || grid.getStorageTypeMax() - grid.getStorageTypeMin() + 1 > maxCodes)
      return;
    std::optional<std::vector<float>> table = tabulateOnGrid(chain, grid);
    if (!table)
      return;
    conv.setOutputTableAttr(DenseF32ArrayAttr::get(&getContext(), *table));
    // The conv's node names join the chain's (the chain ran after it).
    chain.getResult().replaceAllUsesWith(conv.getResult());
    conv->setLoc(FusedLoc::get(&getContext(), {conv.getLoc(), chain.getLoc()}));
    chain.erase();
  }
};

} // namespace
