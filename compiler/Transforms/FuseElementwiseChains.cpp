//===- FuseElementwiseChains.cpp - runs of elementwise ops into one --------===//

#include "PatternUtils.h"
#include "nunc/Transforms/Passes.h"

#include "llvm/ADT/SetVector.h"

namespace mlir::nunc {
#define GEN_PASS_DEF_FUSEELEMENTWISECHAINS
#include "nunc/Transforms/Passes.h.inc"
} // namespace mlir::nunc

using namespace mlir;
using namespace mlir::nunc;

namespace {

using Step = ElementwiseChainOp::Step;

// What the x86 kernel takes (ElementwiseChainKernel): its input pointers,
// and the values it keeps in registers.
constexpr int64_t kKernelInputs = 4;
constexpr size_t kMaxSteps = 32;
constexpr int64_t kMaxLive = 8;

/// The per-tensor grid of an optional quantization attribute: nullopt when
/// absent, failure when it is not a per-tensor !quant.uniform over f32.
FailureOr<std::optional<quant::UniformQuantizedType>> gridOf(std::optional<Type> t) {
  if (!t)
    return std::optional<quant::UniformQuantizedType>();
  auto q = dyn_cast<quant::UniformQuantizedType>(*t);
  if (!q || !q.getExpressedType().isF32())
    return failure();
  return std::optional<quant::UniformQuantizedType>(q);
}

/// The op as a chain step, when the kernel takes it: its tensor operands
/// (f32, of the result's shape) in `tensors`, args -2 for them in order
/// (-1: the step's constant), filled in once the chain numbers its values.
std::optional<Step> stepOf(Operation *op, SmallVectorImpl<Value> &tensors) {
  if (op->getNumResults() != 1)
    return std::nullopt;
  auto out = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!out || !out.hasStaticShape() || !out.getElementType().isF32() ||
      out.getNumElements() == 0 || out.getNumElements() >= (int64_t(1) << 31))
    return std::nullopt;
  auto fullShape = [&](Value v) { return v.getType() == out; };
  Step step;
  auto tensorArg = [&](Value v) {
    tensors.push_back(v);
    step.args.push_back(-2);
  };
  if (auto add = dyn_cast<AddOp>(op); add && add.addsCodes())
    return std::nullopt; // the codes' sum: a kernel of its own
  if (auto mul = dyn_cast<MulOp>(op); mul && mul.multipliesCodes())
    return std::nullopt; // likewise the codes' product
  if (llvm::isa<AddOp, SubOp, MulOp, DivOp>(op)) {
    step.kind = isa<AddOp>(op)   ? Step::Add
                : isa<SubOp>(op) ? Step::Sub
                : isa<MulOp>(op) ? Step::Mul
                                 : Step::Div;
    auto grid = gridOf(op->getAttrOfType<TypeAttr>("output_quantization")
                           ? std::optional<Type>(
                                 op->getAttrOfType<TypeAttr>("output_quantization").getValue())
                           : std::nullopt);
    if (failed(grid))
      return std::nullopt;
    step.grid = *grid;
    int constants = 0;
    for (Value v : op->getOperands()) {
      if (fullShape(v)) {
        tensorArg(v);
      } else if (std::optional<float> c = getUniformF32(v); c && !constants++) {
        step.constant = *c;
        step.args.push_back(-1);
      } else {
        return std::nullopt;
      }
    }
    return step;
  }
  if (op->getNumOperands() < 1 || !fullShape(op->getOperand(0)))
    return std::nullopt;
  if (isa<ReluOp>(op)) {
    step.kind = Step::Relu;
  } else if (auto clip = dyn_cast<ClipOp>(op)) {
    step.kind = Step::Clip;
    if (clip.getMin() && !(step.min = getUniformF32(clip.getMin())))
      return std::nullopt;
    if (clip.getMax() && !(step.max = getUniformF32(clip.getMax())))
      return std::nullopt;
  } else if (isa<HardSigmoidOp, HardSwishOp>(op)) {
    step.kind = isa<HardSigmoidOp>(op) ? Step::HardSigmoid : Step::HardSwish;
    step.alpha = cast<FloatAttr>(op->getAttr("alpha")).getValue().convertToFloat();
    step.beta = cast<FloatAttr>(op->getAttr("beta")).getValue().convertToFloat();
  } else if (auto fq = dyn_cast<FakeQuantizeOp>(op)) {
    auto grid = gridOf(fq.getQuantization());
    if (failed(grid))
      return std::nullopt;
    step.kind = Step::FakeQuantize;
    step.grid = *grid;
  } else {
    return std::nullopt;
  }
  tensorArg(op->getOperand(0));
  return step;
}

struct FuseElementwiseChainsPass
    : public mlir::nunc::impl::FuseElementwiseChainsBase<FuseElementwiseChainsPass> {
  using FuseElementwiseChainsBase::FuseElementwiseChainsBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.getBody().empty())
      return;
    Block &body = func.getBody().front();
    // From the last op up: each chain grows from its last op (the only one
    // whose result leaves it) back through producers read only inside it.
    claimed.clear();
    SmallVector<Operation *> ops;
    for (Operation &op : body.without_terminator())
      ops.push_back(&op);
    for (Operation *root : llvm::reverse(ops)) {
      SmallVector<Value> unused;
      if (claimed.contains(root) || !stepOf(root, unused))
        continue;
      llvm::SetVector<Operation *> members;
      members.insert(root);
      for (bool grew = true; grew;) {
        grew = false;
        for (size_t i = 0; i < members.size(); ++i)
          for (Value v : members[i]->getOperands()) {
            Operation *p = v.getDefiningOp();
            SmallVector<Value> tensors;
            if (!p || members.contains(p) || claimed.contains(p) || p->getBlock() != &body ||
                !stepOf(p, tensors))
              continue;
            if (llvm::all_of(p->getResult(0).getUsers(),
                             [&](Operation *u) { return members.contains(u); })) {
              members.insert(p);
              grew = true;
            }
          }
      }
      claimed.insert(root);
      if (members.size() < 2)
        continue;
      SmallVector<Operation *> run(members.begin(), members.end());
      (void)fuse(run, root);
    }
  }

  /// Ops already in a chain, or erased (never looked at again).
  llvm::DenseSet<Operation *> claimed;

  /// Replaces the ops (the root last in block order) by one chain, when the
  /// kernel's limits allow.
  LogicalResult fuse(SmallVector<Operation *> &members, Operation *root) {
    llvm::sort(members, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
    SmallVector<Value> inputs;
    llvm::DenseMap<Value, int64_t> index;
    SmallVector<Step> steps;
    for (Operation *op : members) {
      SmallVector<Value> tensors;
      Step step = *stepOf(op, tensors);
      auto next = tensors.begin();
      for (int64_t &a : step.args) {
        if (a != -2)
          continue;
        Value v = *next++;
        auto it = index.find(v);
        if (it == index.end()) {
          it = index.try_emplace(v, static_cast<int64_t>(inputs.size())).first;
          inputs.push_back(v);
        }
        a = it->second;
      }
      steps.push_back(step);
      index[op->getResult(0)] = -3 - static_cast<int64_t>(steps.size() - 1); // step result
    }
    if (static_cast<int64_t>(inputs.size()) > std::min(maxInputs.getValue(), kKernelInputs) ||
        steps.size() > kMaxSteps)
      return failure();
    // Value numbers: inputs first, then the steps' results.
    const int64_t n = inputs.size();
    for (Step &step : steps)
      for (int64_t &a : step.args)
        if (a <= -3)
          a = n + (-3 - a);
    // Values alive across each step: read later, or the result.
    std::vector<int64_t> lastUse(n + steps.size(), -1);
    for (auto [i, step] : llvm::enumerate(steps))
      for (int64_t a : step.args)
        if (a >= 0)
          lastUse[a] = static_cast<int64_t>(i);
    lastUse.back() = static_cast<int64_t>(steps.size());
    for (int64_t i = 0; i < static_cast<int64_t>(steps.size()); ++i) {
      int64_t live = 0;
      for (int64_t v = 0; v <= n + i; ++v)
        live += lastUse[v] >= i;
      if (live > kMaxLive)
        return failure();
    }

    OpBuilder b(root);
    SmallVector<Attribute> encoded;
    for (const Step &step : steps)
      encoded.push_back(ElementwiseChainOp::encodeStep(b.getContext(), step));
    auto chain = b.create<ElementwiseChainOp>(fusedLoc(members), root->getResult(0).getType(),
                                              inputs, b.getArrayAttr(encoded));
    root->getResult(0).replaceAllUsesWith(chain.getResult());
    llvm::SetVector<Operation *> constants;
    for (Operation *op : llvm::reverse(members)) {
      for (Value v : op->getOperands())
        if (Operation *def = v.getDefiningOp(); def && isa<ConstantOp>(def))
          constants.insert(def);
      claimed.insert(op);
      op->erase();
    }
    for (Operation *c : constants)
      if (c->use_empty()) {
        claimed.insert(c);
        c->erase();
      }
    return success();
  }
};

} // namespace
