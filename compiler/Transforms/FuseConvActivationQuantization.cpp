//===- FuseConvActivationQuantization.cpp - u8 from int8 conv to depthwise -===//

#include "PatternUtils.h"
#include "nunc/Transforms/Passes.h"

#include "mlir/Dialect/Quant/IR/QuantTypes.h"

namespace mlir::nunc {
#define GEN_PASS_DEF_FUSECONVACTIVATIONQUANTIZATION
#include "nunc/Transforms/Passes.h.inc"
} // namespace mlir::nunc

using namespace mlir;
using namespace mlir::nunc;

namespace {

/// A depthwise conv or fused_conv reading `v` as its input.
bool isDepthwiseReader(Operation *user, Value v) {
  return isDepthwiseConv(user) && user->getOperand(0) == v;
}

struct FuseConvActivationQuantizationPass
    : public mlir::nunc::impl::FuseConvActivationQuantizationBase<
          FuseConvActivationQuantizationPass> {
  using FuseConvActivationQuantizationBase::FuseConvActivationQuantizationBase;

  /// The target's rule for which depthwise convolutions read u8 codes
  /// (null: all of them).
  std::function<bool(Operation *, Type)> readsU8Input;

  void runOnOperation() override {
    SmallVector<QuantizedConvOp> producers;
    getOperation().walk([&](QuantizedConvOp op) { producers.push_back(op); });
    for (QuantizedConvOp op : producers)
      handOver(op);
    // Then from depthwise convs (fused_convs by now where they read codes)
    // to the int8 convs after them.
    SmallVector<Operation *> depthwise;
    getOperation().walk([&](Operation *op) {
      if (isa<ConvOp, FusedConvOp>(op) && isDepthwiseReader(op, op->getOperand(0)))
        depthwise.push_back(op);
    });
    for (Operation *op : depthwise)
      handOverFromDepthwise(op);
  }

  /// depthwise conv -> quantized_conv (static, a u8 input grid), that its
  /// only use: the depthwise conv writes the codes of that grid
  /// (output_quantization, u8_output) and the int8 conv reads them as its
  /// quantized input, where it quantized the f32 values itself (the same
  /// codes; a quarter of the bytes between them).
  /// With an output table, the depthwise conv rounds its entries to that
  /// grid (table_quantization, unless they have another) and writes their
  /// codes.
  void handOverFromDepthwise(Operation *op) {
    Value result = op->getResult(0);
    auto fused = dyn_cast<FusedConvOp>(op);
    const bool table = fused && fused.getOutputTable();
    if ((fused && (fused.getU8Output() || fused.getResidual() ||
                   (fused.getOutputQuantization() && !table))) ||
        !result.hasOneUse())
      return;
    auto reader = dyn_cast<QuantizedConvOp>(*result.getUsers().begin());
    if (!reader || reader.getInput() != result || reader.getActivationQuantization() != "static" ||
        !isU8Grid(reader.getInputQuantization()))
      return;
    if (readsU8Input && !readsU8Input(op, Type()))
      return;
    Type grid = *reader.getInputQuantization();
    // A table already rounded to another grid: its codes are not these.
    if (table && fused.getTableQuantization() && *fused.getTableQuantization() != grid)
      return;
    if (auto conv = dyn_cast<ConvOp>(op))
      fused = replaceWithFusedConv(conv);
    if (table)
      fused.setTableQuantizationAttr(TypeAttr::get(grid));
    else
      fused.setOutputQuantizationAttr(TypeAttr::get(grid));
    fused.setU8Output(true);
    fused.getResult().setType(cast<RankedTensorType>(fused.getType()).clone(grid));
    reader.removeInputQuantizationAttr();
  }

  /// quantized_conv (its last grid u8; with an output table, the table's
  /// grid) -> depthwise conv, or a static quantized_conv on that grid, that
  /// its only use: the int8 conv writes the grid's u8 codes (u8_output) and
  /// the reader takes them, where the f32 tensor between them was those
  /// codes' values already (4x the bytes written and read back).
  void handOver(QuantizedConvOp op) {
    // With a table, its entries' grid (table_quantization), if any.
    const bool table = static_cast<bool>(op.getOutputTable());
    std::optional<Type> grid = table ? op.getTableQuantization() : op.getLastGrid();
    Value result = op.getResult();
    if (op.getU8Output() || !result.hasOneUse())
      return;
    Operation *user = *result.getUsers().begin();
    if (auto reader = dyn_cast<QuantizedConvOp>(user)) {
      // Another int8 conv quantizing this result on its own u8 grid (a
      // ResNet block's second conv): the first writes that grid's codes
      // (taking it as its output grid when it has none: the same
      // rounding), the second takes them as they are.
      std::optional<Type> input = reader.getInputQuantization();
      if (reader.getInput() != result || reader.getActivationQuantization() != "static" ||
          !isU8Grid(input) || (grid && grid != input) ||
          (!grid && (op.getNormScale() || table)))
        return;
      if (!grid)
        op.setOutputQuantizationAttr(TypeAttr::get(*input));
      op.setU8Output(true);
      result.setType(cast<RankedTensorType>(result.getType()).clone(*input));
      reader.removeInputQuantizationAttr();
      return;
    }
    if (!isU8Grid(grid) || !isDepthwiseReader(user, result) ||
        (readsU8Input && !readsU8Input(user, *grid)))
      return;
    op.setU8Output(true);
    result.setType(cast<RankedTensorType>(result.getType()).clone(*grid));
    // Only fused_conv takes u8 codes.
    if (auto conv = dyn_cast<ConvOp>(user))
      replaceWithFusedConv(conv);
  }
};

} // namespace

std::unique_ptr<Pass>
mlir::nunc::createFuseConvActivationQuantization(
    std::function<bool(Operation *, Type)> readsU8Input) {
  auto pass = std::make_unique<FuseConvActivationQuantizationPass>();
  pass->readsU8Input = std::move(readsU8Input);
  return pass;
}
