//===- FuseChainIntoConv.cpp - an elementwise chain as a conv's table -----===//

#include "PatternUtils.h"
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

  /// The target's rule for which convs look a table up (null: all).
  std::function<bool(Operation *)> looksUp;

  void runOnOperation() override {
    SmallVector<ElementwiseChainOp> chains;
    getOperation().walk([&](ElementwiseChainOp op) { chains.push_back(op); });
    for (ElementwiseChainOp chain : chains) {
      if (chain.getInputs().size() != 1)
        continue;
      Value x = chain.getInputs()[0];
      if (!x.hasOneUse() || x.getType() != chain.getType())
        continue;
      SmallVector<ElementwiseChainOp::Step> steps = chain.getDecodedSteps();
      if (auto conv = x.getDefiningOp<QuantizedConvOp>())
        fuseIntoQuantizedConv(chain, steps, conv);
      else if (Operation *def = x.getDefiningOp(); def && isa<ConvOp, FusedConvOp>(def))
        fuseIntoDepthwiseConv(chain, steps, def);
    }
  }

  /// The chain's values at the codes of `grid` (at most maxCodes).
  std::optional<std::vector<float>> tabulate(ElementwiseChainOp chain,
                                             quant::UniformQuantizedType grid) {
    if (!grid || grid.getStorageTypeMax() - grid.getStorageTypeMin() + 1 > maxCodes)
      return std::nullopt;
    return tabulateOnGrid(chain, grid);
  }

  /// The grid a chain ends on, if any: its table's table_quantization (the
  /// entries lie on it), the codes a handover to the next conv writes.
  static TypeAttr lastGrid(ArrayRef<ElementwiseChainOp::Step> steps) {
    return steps.back().grid ? TypeAttr::get(*steps.back().grid) : TypeAttr();
  }

  /// The conv's result stands for the chain's; its node names join the
  /// chain's (the chain ran after it).
  void replaceChain(ElementwiseChainOp chain, Operation *conv) {
    chain.getResult().replaceAllUsesWith(conv->getResult(0));
    conv->setLoc(FusedLoc::get(&getContext(), {conv->getLoc(), chain.getLoc()}));
    chain.erase();
  }

  /// chain(quantized_conv(...)): the conv looks the chain's values up at
  /// its last grid's codes.
  void fuseIntoQuantizedConv(ElementwiseChainOp chain, ArrayRef<ElementwiseChainOp::Step> steps,
                             QuantizedConvOp conv) {
    if (conv.getU8Output() || conv.getOutputTable() || (looksUp && !looksUp(conv)))
      return;
    auto grid = dyn_cast_or_null<quant::UniformQuantizedType>(conv.getLastGrid().value_or(Type()));
    std::optional<std::vector<float>> table = tabulate(chain, grid);
    if (!table)
      return;
    conv.setOutputTableAttr(DenseF32ArrayAttr::get(&getContext(), *table));
    conv.setTableQuantizationAttr(lastGrid(steps));
    replaceChain(chain, conv);
  }

  /// chain(depthwise conv), the chain's first step rounding the conv's
  /// result to a grid: the conv (as a fused_conv) rounds to that grid and
  /// looks the chain's values up at its codes.
  void fuseIntoDepthwiseConv(ElementwiseChainOp chain, ArrayRef<ElementwiseChainOp::Step> steps,
                             Operation *op) {
    auto fused = dyn_cast<FusedConvOp>(op);
    if (!isDepthwiseConv(op) ||
        (fused && (fused.getOutputQuantization() || fused.getOutputTable())) ||
        (looksUp && !looksUp(op)))
      return;
    if (steps[0].kind != ElementwiseChainOp::Step::FakeQuantize ||
        steps[0].args.size() != 1 || steps[0].args[0] != 0)
      return;
    // A later step reading the conv's result itself sees more than its code.
    for (const ElementwiseChainOp::Step &step : steps.drop_front())
      if (llvm::is_contained(step.args, 0))
        return;
    quant::UniformQuantizedType grid = *steps[0].grid;
    std::optional<std::vector<float>> table = tabulate(chain, grid);
    if (!table)
      return;
    if (auto conv = dyn_cast<ConvOp>(op))
      fused = replaceWithFusedConv(conv);
    fused.setOutputQuantizationAttr(TypeAttr::get(grid));
    fused.setOutputTableAttr(DenseF32ArrayAttr::get(&getContext(), *table));
    fused.setTableQuantizationAttr(lastGrid(steps));
    replaceChain(chain, fused);
  }
};

} // namespace

std::unique_ptr<Pass>
mlir::nunc::createFuseChainIntoConv(std::function<bool(Operation *)> looksUp) {
  auto pass = std::make_unique<FuseChainIntoConvPass>();
  pass->looksUp = std::move(looksUp);
  return pass;
}
