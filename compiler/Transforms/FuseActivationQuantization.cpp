//===- FuseActivationQuantization.cpp - u8 activations between GEMMs ------===//

#include "PatternUtils.h"
#include "nunc/Transforms/Passes.h"

#include "mlir/Dialect/Quant/IR/QuantTypes.h"

#include <functional>
#include <map>

namespace mlir::nunc {
#define GEN_PASS_DEF_FUSEACTIVATIONQUANTIZATION
#include "nunc/Transforms/Passes.h.inc"
} // namespace mlir::nunc

using namespace mlir;
using namespace mlir::nunc;

namespace {

struct FuseActivationQuantizationPass
    : public mlir::nunc::impl::FuseActivationQuantizationBase<
          FuseActivationQuantizationPass> {
  using FuseActivationQuantizationBase::FuseActivationQuantizationBase;

  void runOnOperation() override {
    if (rowAlignment <= 0)
      return;
    std::vector<QuantizeOp> quantizes = shareInputQuantization();
    if (producerEpilogue)
      for (QuantizeOp q : quantizes)
        if (!foldIntoProducer(q))
          foldIntoAttention(q);
  }

  /// The attentions whose codes the target's kernel writes (null: every one,
  /// as nunc-opt runs the pass).
  std::function<bool(AttentionOp, Type grid)> attentionWritesU8;

  /// Every static quantized_linear with an f32 input, an aligned K and s8
  /// weights (or u8 weights, K <= u8WeightMaxK) reads the u8 tensor of one
  /// quantize per (input, grid). Returns the quantizes in creation order.
  std::vector<QuantizeOp> shareInputQuantization() {
    SmallVector<QuantizedLinearOp> gemms;
    getOperation().walk([&](QuantizedLinearOp op) {
      auto in = dyn_cast<RankedTensorType>(op.getInput().getType());
      auto w = dyn_cast<RankedTensorType>(op.getWeight().getType());
      auto q = w ? dyn_cast<quant::QuantizedType>(w.getElementType()) : nullptr;
      if (isU8Grid(op.getInputQuantization()) && in && in.getElementType().isF32() && w && q &&
          w.getRank() == 2 && !w.isDynamicDim(0) && w.getDimSize(0) % rowAlignment == 0 &&
          (q.isSigned() || (u8WeightMaxK > 0 && w.getDimSize(0) <= u8WeightMaxK)))
        gemms.push_back(op);
    });
    std::map<std::pair<const void *, const void *>, size_t> index;
    std::vector<QuantizeOp> quantizes;
    std::vector<SmallVector<Operation *>> readers;
    for (QuantizedLinearOp gemm : gemms) {
      Value x = gemm.getInput();
      Type grid = *gemm.getInputQuantization();
      std::pair<const void *, const void *> key(x.getAsOpaquePointer(), grid.getAsOpaquePointer());
      auto [it, fresh] = index.try_emplace(key, quantizes.size());
      if (fresh) {
        OpBuilder b(&getContext());
        if (Operation *def = x.getDefiningOp())
          b.setInsertionPointAfter(def);
        else
          b.setInsertionPointToStart(cast<BlockArgument>(x).getOwner());
        auto type = cast<RankedTensorType>(x.getType()).clone(grid);
        quantizes.push_back(QuantizeOp::create(b, gemm.getLoc(), type, x, TypeAttr::get(grid)));
        readers.emplace_back();
      }
      QuantizeOp q = quantizes[it->second];
      gemm.getInputMutable().assign(q.getResult());
      gemm.removeInputQuantizationAttr();
      readers[it->second].push_back(gemm);
    }
    // Diagnostics and --explain name every node the quantize serves.
    for (auto [q, users] : llvm::zip(quantizes, readers))
      q->setLoc(fusedLoc(users));
    return quantizes;
  }

  /// quantize(quantized_linear(...)) with that its only use -> the GEMM
  /// writes the u8 tensor itself.
  bool foldIntoProducer(QuantizeOp q) {
    auto producer = singleUseDef<QuantizedLinearOp>(q.getInput());
    if (!producer || producer.getU8Output())
      return false;
    Type grid = q.getQuantization();
    // A producer already rounding to another grid would change its values.
    if (std::optional<Type> out = producer.getOutputQuantization(); out && *out != grid)
      return false;
    producer.setOutputQuantization(grid);
    producer.setU8Output(true);
    replaceQuantize(producer, q);
    return true;
  }

  /// The same for an attention whose result (heads merged) only that
  /// quantize reads: the P V of a static transformer's self-attention, the
  /// output projection's input. Only where a grid on P V changes nothing
  /// else: not on an attention of u8 codes without one
  /// (nunc-one-step-requantization would then compute its P V as
  /// onnxruntime's QLinearMatMul).
  void foldIntoAttention(QuantizeOp q) {
    auto attention = singleUseDef<AttentionOp>(q.getInput());
    if (!attention || attention.getU8Output() || attention.isHeadsMajor(3))
      return;
    // (All 256 codes: the grids this pass quantizes to.)
    Type grid = q.getQuantization();
    if (!isU8Grid(grid))
      return;
    std::optional<Type> out = attention.getOutputQuantization();
    if (out ? *out != grid
            : isa<quant::QuantizedType>(getElementTypeOrSelf(attention.getQuery())))
      return;
    if (attentionWritesU8 && !attentionWritesU8(attention, grid))
      return;
    attention.setOutputQuantization(grid);
    attention.setU8Output(true);
    replaceQuantize(attention, q);
  }

  /// `producer` (u8_output set) writes q's codes in its place.
  void replaceQuantize(Operation *producer, QuantizeOp q) {
    producer->getResult(0).setType(q.getType());
    producer->setLoc(fusedLoc({producer, q}));
    q.replaceAllUsesWith(producer->getResult(0));
    q.erase();
  }
};

} // namespace

std::unique_ptr<Pass> mlir::nunc::createFuseActivationQuantization(
    const FuseActivationQuantizationOptions &options,
    std::function<bool(AttentionOp, Type grid)> attentionWritesU8) {
  auto pass = std::make_unique<FuseActivationQuantizationPass>(options);
  pass->attentionWritesU8 = std::move(attentionWritesU8);
  return pass;
}
