//===- SplitBatch.cpp - run a batch as one image at a time ----------------===//
//
// A batch-N CNN run layer by layer streams N images' activations through
// every layer: at batch 4, MobileNet's 112x112x96 tensors (19 MB in f32)
// leave L2 and most of L3 between layers. Run image by image, the same
// tensors are a quarter of that and stay in cache. This pass proves that
// every op computes image i from image i alone, then gives the function the
// types of one image; codegen loops the body over the batch.
//
//===----------------------------------------------------------------------===//

#include "nunc/Dialect/Nunc/NuncOps.h"
#include "nunc/Dialect/Nunc/NuncUtils.h"
#include "nunc/Dialect/Nunc/ShapeHelpers.h"
#include "nunc/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::nunc {
#define GEN_PASS_DEF_SPLITBATCH
#include "nunc/Transforms/Passes.h.inc"
} // namespace mlir::nunc

using namespace mlir;
using namespace mlir::nunc;

namespace {

class BatchAnalysis {
public:
  BatchAnalysis(func::FuncOp func, int64_t n) : func(func), n(n) {}

  /// Empty when the function splits; otherwise why not.
  std::string run();
  const llvm::DenseSet<Value> &batchedValues() const { return batched; }
  /// Bytes of every value computed from the inputs, for the whole batch.
  int64_t activationBytes = 0;
  /// Bytes of the weights of GEMMs and convolutions with fewer than
  /// kFewRows rows (output positions) per item: one at a time, those are
  /// read once per item instead of once per batch.
  int64_t fewRowWeightBytes = 0;
  static constexpr int64_t kFewRows = 16;

private:
  std::string check(Operation *op);
  static int64_t bytes(Value v) {
    auto t = cast<RankedTensorType>(v.getType());
    return t.getNumElements() * getElementByteWidth(t.getElementType());
  }
  /// Output positions of one image of an NCHW result.
  static int64_t positionsPerItem(Value out) {
    auto t = cast<RankedTensorType>(out.getType());
    return t.getRank() < 2 ? 1 : t.getNumElements() / (t.getDimSize(0) * t.getDimSize(1));
  }
  void countWeight(Value weight, int64_t rowsPerItem) {
    if (rowsPerItem < kFewRows)
      fewRowWeightBytes += bytes(weight);
  }
  bool isBatched(Value v) const { return batched.contains(v); }
  static int64_t dim0(Value v) { return cast<RankedTensorType>(v.getType()).getDimSize(0); }
  static int64_t rank(Value v) { return cast<RankedTensorType>(v.getType()).getRank(); }
  /// An unbatched operand of an op whose result is batched must broadcast
  /// along the leading dim: lower rank, or a leading dim of 1.
  bool broadcastsOverBatch(Value v, int64_t resultRank) const {
    return rank(v) < resultRank || dim0(v) == 1;
  }
  /// Elementwise with numpy broadcasting: a batched operand has the
  /// result's rank and leading dim, another broadcasts over it.
  bool followsBatch(Value v, Value out) const {
    return isBatched(v) ? rank(v) == rank(out) && dim0(v) == dim0(out)
                        : broadcastsOverBatch(v, rank(out));
  }
  std::string elementwise(Operation *op);
  /// `image` (batched, the result's rank and leading dim) is what the op
  /// maps image by image; `params` are used whole for every image (conv
  /// weights, a GEMM's B) and must not depend on the inputs; other operands
  /// follow the elementwise rule (residuals, biases).
  std::string imageWise(Operation *op, Value image, ArrayRef<Value> params);
  /// Rows of `a` times a constant `b`: the leading dim is an outer row dim.
  std::string rowwise(Operation *op, Value a, Value b);
  /// The op's own axis must not be the leading one.
  static std::string notLeadingAxis(int64_t axis, int64_t r, llvm::StringRef what) {
    if (axis < 0)
      axis += r;
    return axis == 0 ? what.str() + " is the batch dim" : "";
  }

  func::FuncOp func;
  int64_t n;
  llvm::DenseSet<Value> batched;
};

std::string BatchAnalysis::run() {
  for (BlockArgument arg : func.getArguments())
    batched.insert(arg);
  for (Operation &op : func.getBody().front()) {
    if (isa<func::ReturnOp>(op)) {
      for (Value v : op.getOperands())
        if (!isBatched(v))
          return "an output does not depend on the inputs";
      continue;
    }
    if (llvm::none_of(op.getOperands(), [&](Value v) { return isBatched(v); }))
      continue; // computed from constants: the same for every image
    for (Value r : op.getResults()) {
      auto t = dyn_cast<RankedTensorType>(r.getType());
      if (!t || !t.hasStaticShape() || t.getRank() == 0 || t.getDimSize(0) % n)
        return op.getName().getStringRef().str() + " at " + describeLocation(op.getLoc()) +
               ": a result's leading dim is not a multiple of the batch";
    }
    std::string why = check(&op);
    if (!why.empty())
      return op.getName().getStringRef().str() + " at " + describeLocation(op.getLoc()) +
             ": " + why;
    for (Value r : op.getResults()) {
      batched.insert(r);
      activationBytes += bytes(r);
    }
  }
  return "";
}

std::string BatchAnalysis::elementwise(Operation *op) {
  Value out = op->getResult(0);
  for (Value v : op->getOperands())
    if (!followsBatch(v, out))
      return "an operand broadcasts along the batch dim";
  return "";
}

std::string BatchAnalysis::imageWise(Operation *op, Value image, ArrayRef<Value> params) {
  Value out = op->getResult(0);
  if (!isBatched(image) || rank(image) != rank(out) || dim0(image) != dim0(out))
    return "the result's leading dim is not the input's";
  for (Value v : op->getOperands()) {
    if (v == image)
      continue;
    if (llvm::is_contained(params, v)) {
      if (isBatched(v))
        return "a parameter operand depends on the inputs";
      continue;
    }
    if (!followsBatch(v, out))
      return "an operand broadcasts along the batch dim";
  }
  return "";
}

std::string BatchAnalysis::rowwise(Operation *op, Value a, Value b) {
  Value out = op->getResult(0);
  if (rank(a) < 2 || rank(out) != rank(a))
    return "the first operand is not a batch of rows";
  if (rank(b) > 2 && !broadcastsOverBatch(b, rank(out)))
    return "the second operand differs per image";
  auto type = cast<RankedTensorType>(out.getType());
  countWeight(b, type.getNumElements() / type.getShape().back() / n);
  return imageWise(op, a, {b});
}

std::string BatchAnalysis::check(Operation *op) {
  auto onlyFirstBatched = [&](Operation *o) -> std::string {
    for (Value v : o->getOperands().drop_front())
      if (v && isBatched(v))
        return "a parameter operand depends on the inputs";
    if (rank(o->getOperand(0)) != rank(o->getResult(0)) ||
        dim0(o->getOperand(0)) != dim0(o->getResult(0)))
      return "the result's leading dim is not the input's";
    return "";
  };
  auto perTensorRange = [](StringRef mode) -> std::string {
    return mode == "dynamic_per_tensor"
               ? "its input range is taken over the whole batch at run time"
               : "";
  };
  auto axisOfGrid = [&](Type grid, int64_t r) -> std::string {
    if (auto axis = dyn_cast_or_null<quant::UniformQuantizedPerAxisType>(grid))
      return notLeadingAxis(axis.getQuantizedDimension(), r, "the quantization axis");
    return "";
  };
  return llvm::TypeSwitch<Operation *, std::string>(op)
      // Elementwise, numpy broadcasting.
      .Case<SqrtOp, ErfOp, ExpOp, LogOp, SinOp, CosOp, TanOp, AsinOp, AcosOp, AtanOp, SinhOp,
            CoshOp, AsinhOp, AcoshOp, AtanhOp, SoftplusOp, AbsOp, TanhOp, FloorOp, CeilOp,
            RoundOp,
            ReluOp, LeakyReluOp, HardSigmoidOp, HardSwishOp, SiluOp,
            SigmoidOp, IdentityOp, GeluOp, CastOp, ClipOp, AddOp,
            SubOp, MulOp, DivOp, PowOp, MinOp, MaxOp, ModOp, BitwiseAndOp, BitwiseOrOp,
            BitwiseXorOp, ShiftLeftOp, ShiftRightOp, EqualOp, GreaterOp, WhereOp>(
          [&](Operation *o) { return elementwise(o); })
      .Case<FakeQuantizeOp, QuantizeOp>([&](Operation *o) {
        std::string why = onlyFirstBatched(o);
        if (!why.empty())
          return why;
        return axisOfGrid(o->getAttrOfType<TypeAttr>("quantization").getValue(),
                          rank(o->getOperand(0)));
      })
      .Case<QuantizeLinearOp, DequantizeLinearOp>([&](auto q) -> std::string {
        std::string why = onlyFirstBatched(q);
        if (!why.empty())
          return why;
        auto scale = cast<RankedTensorType>(q.getScale().getType());
        return scale.getNumElements() > 1
                   ? notLeadingAxis(q.getAxis(), rank(q.getInput()), "the quantization axis")
                   : "";
      })
      // Image-wise by definition: NCHW, parameters constant.
      .Case<ConvOp, FusedConvOp, MaxPoolOp, AveragePoolOp, GlobalAveragePoolOp, BatchNormOp,
            ConvIntegerOp>([&](Operation *o) {
        // Operand 1 of the convolutions is the weight; BatchNorm's are [C].
        bool conv = !isa<MaxPoolOp, AveragePoolOp, GlobalAveragePoolOp, BatchNormOp>(o);
        if (conv)
          countWeight(o->getOperand(1), positionsPerItem(o->getResult(0)));
        return imageWise(o, o->getOperand(0),
                         conv ? ArrayRef<Value>{o->getOperand(1)} : ArrayRef<Value>{});
      })
      .Case<QLinearConvOp>([&](QLinearConvOp c) -> std::string {
        countWeight(c.getWeight(), positionsPerItem(c.getResult()));
        SmallVector<Value> params(c->getOperands().drop_front());
        return imageWise(c, c.getInput(), params);
      })
      .Case<QuantizedConvOp>([&](QuantizedConvOp c) -> std::string {
        std::string why = perTensorRange(c.getActivationQuantization());
        countWeight(c.getWeight(), positionsPerItem(c.getOutput()));
        return why.empty() ? imageWise(c, c.getInput(), {c.getWeight()}) : why;
      })
      // Rows of the input times a constant weight.
      .Case<LinearOp>([&](LinearOp l) { return rowwise(l, l.getInput(), l.getWeight()); })
      .Case<QuantizedLinearOp>([&](QuantizedLinearOp l) -> std::string {
        std::string why = perTensorRange(l.getActivationQuantization());
        return why.empty() ? rowwise(l, l.getInput(), l.getWeight()) : why;
      })
      .Case<MatMulOp, MatMulIntegerOp>([&](Operation *o) -> std::string {
        Value a = o->getOperand(0), b = o->getOperand(1);
        for (Value zp : o->getOperands().drop_front(2))
          if (isBatched(zp))
            return "a zero point depends on the inputs";
        if (isBatched(b)) {
          // Batched matrix products: the leading dim is a batch dim of both.
          if (rank(b) < 3 || rank(a) != rank(b) || !isBatched(a) || dim0(a) != dim0(b))
            return "the second operand's leading dim is not a batch dim";
          return "";
        }
        return rowwise(o, a, b);
      })
      .Case<QLinearMatMulOp>([&](QLinearMatMulOp m) -> std::string {
        for (Value v : m->getOperands().drop_front())
          if (v != m.getB() && isBatched(v))
            return "a scale or zero point depends on the inputs";
        if (isBatched(m.getB()))
          return "the second operand depends on the inputs";
        return rowwise(m, m.getA(), m.getB());
      })
      .Case<GemmOp>([&](GemmOp g) -> std::string {
        if (g.getTransA() || isBatched(g.getB()) || (g.getC() && isBatched(g.getC())))
          return "only A's rows may depend on the inputs";
        if (g.getC() && !broadcastsOverBatch(g.getC(), 2))
          return "C broadcasts along the batch dim";
        return rowwise(g, g.getA(), g.getB());
      })
      .Case<AttentionOp>([&](AttentionOp a) -> std::string {
        for (Value v : {a.getQuery(), a.getKey(), a.getValue()})
          if (!isBatched(v) || dim0(v) != dim0(a.getOutput()))
            return "query, key or value is not a batch";
        // The additive mask broadcasts to [B, H, S, T].
        if (Value m = a.getMask();
            m && (isBatched(m) ? rank(m) != 4 || dim0(m) != dim0(a.getOutput())
                               : !broadcastsOverBatch(m, 4)))
          return "the mask's leading dim is not the batch";
        return "";
      })
      .Case<SoftmaxOp>([&](SoftmaxOp s) {
        return notLeadingAxis(s.getAxis(), rank(s.getInput()), "the softmax axis");
      })
      .Case<LayerNormOp>([&](LayerNormOp l) -> std::string {
        std::string why = notLeadingAxis(l.getAxis(), rank(l.getInput()), "the normalized axis");
        if (why.empty() && (isBatched(l.getScale()) || (l.getBias() && isBatched(l.getBias()))))
          why = "the scale or bias depends on the inputs";
        return why;
      })
      .Case<ReduceMeanOp, ReduceSumOp, ReduceMaxOp, ReduceMinOp, ReduceProdOp>(
          [&](auto r) -> std::string {
        // No axes: every axis, unless noop_with_empty_axes (an identity).
        if (!r.getAxes())
          return r.getNoopWithEmptyAxes() ? "" : "it reduces every axis, the batch dim too";
        std::optional<SmallVector<int64_t>> axes = getConstantInts(r.getAxes());
        if (isBatched(r.getAxes()) || !axes)
          return "the axes are not constant";
        if (axes->empty())
          return r.getNoopWithEmptyAxes() ? "" : "it reduces every axis, the batch dim too";
        for (int64_t a : *axes)
          if (!notLeadingAxis(a, rank(r.getData()), "").empty())
            return "the reduced axes include the batch dim";
        return "";
      })
      // Layout-preserving: image i stays the i-th contiguous chunk whenever
      // the result's leading dim is a multiple of N (checked for all ops).
      .Case<ReshapeOp, FlattenOp, SqueezeOp, UnsqueezeOp>([&](Operation *o) -> std::string {
        for (Value v : o->getOperands().drop_front())
          if (isBatched(v))
            return "the shape depends on the inputs";
        // Squeeze without axes drops every dim of 1: one item's leading dim
        // (1 after the split) would go too.
        if (auto sq = dyn_cast<SqueezeOp>(o); sq && !sq.getAxes())
          return "it squeezes every dim of size 1, without axes";
        if (auto r = dyn_cast<ReshapeOp>(o)) {
          std::optional<SmallVector<int64_t>> shape = getConstantInts(r.getShape());
          if (!shape || shape->empty())
            return "the target shape is not a constant";
          // 0 copies the input's leading dim, -1 infers it: both follow the
          // split; a literal leading dim is divided by N below.
          if ((*shape)[0] > 0 && (*shape)[0] != dim0(r.getOutput()))
            return "the target shape's leading dim is not the result's";
          if ((*shape)[0] == 0 && r.getAllowzero())
            return "allowzero with a zero leading dim";
        }
        return "";
      })
      .Case<TransposeOp>([&](TransposeOp t) -> std::string {
        return t.getPerm().empty() || t.getPerm()[0] != 0 ? "it moves the batch dim" : "";
      })
      .Case<ConcatOp>([&](ConcatOp c) -> std::string {
        // Equal leading dims in and out also rule out concatenating along it.
        for (Value v : c.getInputs())
          if (!isBatched(v) || dim0(v) != dim0(c.getOutput()))
            return "an operand's leading dim is not the batch";
        return "";
      })
      .Case<SliceOp>([&](SliceOp s) -> std::string {
        for (Value v : s->getOperands().drop_front())
          if (isBatched(v))
            return "the bounds depend on the inputs";
        if (!s.getAxes())
          return "it slices the batch dim";
        std::optional<SmallVector<int64_t>> axes = getConstantInts(s.getAxes());
        if (!axes)
          return "the axes are not constant";
        for (int64_t a : *axes)
          if (!notLeadingAxis(a, rank(s.getData()), "").empty())
            return "it slices the batch dim";
        return onlyFirstBatched(s);
      })
      .Case<TopKOp>([&](TopKOp t) -> std::string {
        std::string why = notLeadingAxis(t.getAxis(), rank(t.getInput()), "the axis");
        return why.empty() ? onlyFirstBatched(t) : why;
      })
      .Case<CumSumOp, CumProdOp>([&](Operation *c) -> std::string {
        std::string why = notLeadingAxis(c->getAttrOfType<IntegerAttr>("axis").getInt(),
                                         rank(c->getOperand(0)), "the axis");
        return why.empty() ? onlyFirstBatched(c) : why;
      })
      .Case<GatherElementsOp>([&](GatherElementsOp g) -> std::string {
        if (!notLeadingAxis(g.getAxis(), rank(g.getData()), "").empty())
          return "it gathers along the batch dim";
        // Item i's indices pick from item i's data: both split, or neither.
        if (!isBatched(g.getData()) || !isBatched(g.getIndices()))
          return "only one of data and indices depends on the inputs";
        if (dim0(g.getIndices()) != dim0(g.getData()))
          return "the indices' leading dim is not the data's";
        return "";
      })
      .Case<ArgMaxOp, ArgMinOp>([&](auto a) -> std::string {
        std::string why = notLeadingAxis(a.getAxis(), rank(a.getData()), "the axis");
        return why.empty() ? onlyFirstBatched(a) : why;
      })
      .Case<PadOp>([&](PadOp p) -> std::string {
        std::optional<SmallVector<int64_t>> pads = getConstantInts(p.getPads());
        std::optional<SmallVector<int64_t>> axes =
            p.getAxes() ? getConstantInts(p.getAxes()) : SmallVector<int64_t>();
        int64_t r = rank(p.getInput());
        if (!pads || !axes)
          return "the pads are not constant";
        if (p.getAxes()) {
          llvm::Expected<shape::Dims> full = shape::spreadPads(*pads, *axes, r);
          if (!full) {
            llvm::consumeError(full.takeError());
            return "bad pads";
          }
          pads = SmallVector<int64_t>(full->begin(), full->end());
        }
        if (r == 0 || (*pads)[0] != 0 || (*pads)[r] != 0)
          return "it pads the batch dim";
        return onlyFirstBatched(p);
      })
      .Case<ExpandOp>([&](ExpandOp e) -> std::string {
        std::optional<SmallVector<int64_t>> shape = getConstantInts(e.getShape());
        if (isBatched(e.getShape()) || !shape)
          return "the shape is not a constant";
        if ((int64_t)shape->size() != rank(e.getInput()))
          return "it adds leading dims";
        return onlyFirstBatched(e);
      })
      .Case<GatherOp>([&](GatherOp g) -> std::string {
        if (isBatched(g.getIndices())) {
          // Embedding lookups: the result's leading dims are the indices'.
          if (isBatched(g.getData()) || g.getAxis() != 0 || rank(g.getIndices()) == 0)
            return "both data and indices depend on the inputs, or axis is not 0";
          return dim0(g.getIndices()) == dim0(g.getOutput()) ? ""
                                                              : "the indices' leading dim is lost";
        }
        if (!notLeadingAxis(g.getAxis(), rank(g.getData()), "").empty())
          return "it gathers along the batch dim";
        // Along a later axis the leading dim stays (the rank may change).
        return dim0(g.getData()) == dim0(g.getOutput()) ? ""
                                                         : "the result's leading dim is not the input's";
      })
      // Per image, with constant image and block shapes.
      .Case<Col2ImOp>([&](Col2ImOp c) -> std::string {
        if (isBatched(c.getImageShape()) || isBatched(c.getBlockShape()))
          return "its image or block shape depends on the inputs";
        if (dim0(c.getInput()) != dim0(c.getOutput()))
          return "the result's leading dim is not the input's";
        return "";
      })
      // Per image where the batch dim is left as it is (scale 1, whole roi).
      .Case<ResizeOp>([&](ResizeOp r) -> std::string {
        std::string why = onlyFirstBatched(r);
        if (!why.empty())
          return why;
        std::optional<SmallVector<double>> roi, scales;
        std::optional<SmallVector<int64_t>> sizes;
        auto in = cast<RankedTensorType>(r.getInput().getType()).getShape();
        shape::ResizeParams params = r.getResizeParams();
        if (!r.getConstantInputs(roi, scales, sizes))
          return "its scales or sizes are not constants";
        auto plan = shape::resize(in, params, roi, scales, sizes);
        if (!plan) {
          llvm::consumeError(plan.takeError());
          return "its parameters do not fit";
        }
        shape::ResizeAxis batch = shape::resizeAxis(params, in[0], plan->output[0],
                                                    plan->scales[0], plan->roiStart[0],
                                                    plan->roiEnd[0]);
        return batch.identity ? "" : "it resizes the batch dim";
      })
      .Default([](Operation *) { return std::string("not known to keep images apart"); });
}

} // namespace

namespace {

struct SplitBatchPass : public mlir::nunc::impl::SplitBatchBase<SplitBatchPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal() || !llvm::hasSingleElement(func.getBody()) ||
        func.getNumArguments() == 0)
      return;
    MLIRContext *ctx = &getContext();
    // N: the leading dim every input shares.
    int64_t n = 0;
    for (Type t : func.getArgumentTypes()) {
      auto r = dyn_cast<RankedTensorType>(t);
      if (!r || !r.hasStaticShape() || r.getRank() == 0)
        return block(func, "an input is a scalar or not static");
      if (n && r.getDimSize(0) != n)
        return block(func, "the inputs' leading dims differ");
      n = r.getDimSize(0);
    }
    if (n <= 1)
      return;
    BatchAnalysis analysis(func, n);
    std::string why = analysis.run();
    if (!why.empty())
      return block(func, why);
    // Few-row GEMMs (a classifier after global pooling, an MLP) re-read
    // their weights per item; worth it only while that is small next to
    // the activation traffic that stays in cache.
    if (analysis.fewRowWeightBytes * (n - 1) * 4 > analysis.activationBytes)
      return block(func, "ops with fewer than " + std::to_string(BatchAnalysis::kFewRows) +
                             " rows per item would read " +
                             std::to_string(analysis.fewRowWeightBytes) +
                             " B of weights once per item, against " +
                             std::to_string(analysis.activationBytes) +
                             " B of activations for the whole batch");

    auto oneImage = [&](Type t) -> Type {
      auto r = cast<RankedTensorType>(t);
      SmallVector<int64_t> shape(r.getShape());
      shape[0] /= n;
      return r.clone(shape);
    };
    OpBuilder b(ctx);
    for (Operation &op : llvm::make_early_inc_range(func.getBody().front())) {
      // Literal leading dims of target shapes shrink with the tensors.
      auto shrinkShape = [&](OpOperand &operand, int64_t dim0, size_t at = 0) {
        SmallVector<int64_t> shape = *getConstantInts(operand.get());
        shape[at] = dim0;
        auto type = RankedTensorType::get({(int64_t)shape.size()}, b.getI64Type());
        b.setInsertionPoint(&op);
        Operation *old = operand.get().getDefiningOp();
        operand.set(ConstantOp::create(b, op.getLoc(), type,
                                       DenseIntElementsAttr::get(type, ArrayRef(shape))));
        if (old && old->use_empty())
          old->erase();
      };
      if (auto r = dyn_cast<ReshapeOp>(op); r && analysis.batchedValues().contains(r.getData())) {
        if ((*getConstantInts(r.getShape()))[0] > 0)
          shrinkShape(r.getShapeMutable(), r.getOutput().getType().getDimSize(0) / n);
      } else if (auto e = dyn_cast<ExpandOp>(op);
                 e && analysis.batchedValues().contains(e.getInput())) {
        shrinkShape(e.getShapeMutable(), 1); // the input supplies the leading dim
      } else if (auto r = dyn_cast<ResizeOp>(op);
                 r && r.getSizes() &&
                 !getConstantInts(r.getSizes()).value_or(SmallVector<int64_t>()).empty() &&
                 analysis.batchedValues().contains(r.getInput())) {
        // Sizes for the batch dim (all dims, or axes naming it) become 1.
        int64_t rank = r.getInput().getType().getRank();
        std::optional<size_t> at = 0;
        if (r.getAxes()) {
          at.reset();
          for (auto [i, a] : llvm::enumerate(*r.getAxes()))
            if (shape::wrapAxis(a, rank) == 0)
              at = i;
        }
        if (at)
          shrinkShape(r.getSizesMutable()[0], 1, *at);
      }
    }
    for (Value v : analysis.batchedValues())
      v.setType(oneImage(v.getType()));
    SmallVector<Type> results;
    for (Type t : func.getResultTypes())
      results.push_back(oneImage(t));
    func.setType(FunctionType::get(ctx, func.getBody().front().getArgumentTypes(), results));
    func->setAttr("nunc.batch_split", IntegerAttr::get(IntegerType::get(ctx, 64), n));
  }

  static void block(func::FuncOp func, const std::string &why) {
    func->setAttr("nunc.batch_split_blocked", StringAttr::get(func.getContext(), why));
  }
};

} // namespace
