//===- OneStepRequantization.cpp - u8 codes in one multiply ---------------===//

#include "PatternUtils.h"
#include "nunc/Dialect/Nunc/NuncUtils.h"
#include "nunc/Dialect/Nunc/OneStepRequantization.h"
#include "nunc/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/IR/Matchers.h"

#include <cmath>

namespace mlir::nunc {
#define GEN_PASS_DEF_ONESTEPREQUANTIZATION
#include "nunc/Transforms/Passes.h.inc"
} // namespace mlir::nunc

using namespace mlir;
using namespace mlir::nunc;

namespace {

/// Whether every bias lies within 2^24 steps of its sums' grid
/// s[m] = fl(input scale x weight scale[m]) (the bias code's range, far
/// inside the sums' s32; no bias: yes; one that is not a constant: no),
/// and rounds to it within 1/16 of an output step: a QDQ model's bias is
/// on that grid, but one whose scale is not the product (the sums' step
/// larger than the output's) would vanish there.
/// `weightScales`: one per output channel (channelScales).
bool biasFitsItsGrid(Value bias, double inputScale, ArrayRef<float> weightScales,
                     double outputScale) {
  if (!bias)
    return true;
  std::optional<SmallVector<float>> values = getConstantFloats(bias);
  if (!values || weightScales.size() != values->size())
    return false;
  for (auto [b, w] : llvm::zip(*values, weightScales)) {
    const float s = static_cast<float>(inputScale) * w;
    if (!(std::fabs(static_cast<double>(b) / s) < 16777216.0) ||
        !(std::fabs(b - static_cast<double>(oneStepBiasCode(b, s)) * s) <= outputScale / 16))
      return false;
  }
  return true;
}

/// A QuantizeLinear's grid where it has one (8-bit codes, one constant
/// scale and zero point): a QLinear-operator model's codes for an op that
/// moves u8 tensors (Resize, Reshape) or a graph output.
std::optional<Type> quantizeLinearGrid(QuantizeLinearOp q) {
  auto storage = dyn_cast<IntegerType>(getElementTypeOrSelf(q.getType()));
  std::optional<double> scale = scalarConstant(q.getScale());
  std::optional<double> zeroPoint =
      q.getZeroPoint() ? scalarConstant(q.getZeroPoint()) : std::optional<double>(0);
  if (!storage || storage.getWidth() != 8 || !scale || !(*scale > 0) || !zeroPoint)
    return std::nullopt;
  const bool isSigned = !storage.isUnsigned();
  return quant::UniformQuantizedType::get(
      isSigned ? quant::QuantizationFlags::Signed : 0, storage, Float32Type::get(q.getContext()),
      static_cast<float>(*scale), static_cast<int64_t>(*zeroPoint), isSigned ? -128 : 0,
      isSigned ? 127 : 255);
}

/// The grid a use rounds its value to on reading it: a static int8 conv
/// quantizing it (input_quantization), a fake_quantize, quantize or
/// quantize_linear op (a GEMM's u8 input, a Resize's codes), a batch_norm
/// rounding its input, an Add of codes rounding its operand or an
/// elementwise chain whose steps reading it are fake_quantize ops; an s8
/// grid as the u8 one of the same values; none when it reads the f32
/// values.
std::optional<Type> gridOfUse(OpOperand &use) {
  std::optional<Type> g;
  Operation *user = use.getOwner();
  if (auto q = dyn_cast<QuantizeLinearOp>(user)) {
    g = quantizeLinearGrid(q);
  } else if (auto qc = dyn_cast<QuantizedConvOp>(user)) {
    if (use.getOperandNumber() == 0 && qc.getActivationQuantization() == "static")
      g = qc.getInputQuantization();
  } else if (auto fq = dyn_cast<FakeQuantizeOp>(user)) {
    g = fq.getQuantization();
  } else if (auto q = dyn_cast<QuantizeOp>(user)) {
    g = q.getQuantization();
  } else if (auto bn = dyn_cast<BatchNormOp>(user)) {
    if (use.getOperandNumber() == 0)
      g = bn.getInputQuantization();
  } else if (auto add = dyn_cast<AddOp>(user); add && add.addsCodes()) {
    g = use.getOperandNumber() == 0 ? add.getLhsQuantization() : add.getRhsQuantization();
  } else if (auto chain = dyn_cast<ElementwiseChainOp>(user)) {
    // Every step reading it a fake_quantize to one grid (a residual Add's
    // operand pair, as a chain formed it).
    const int64_t arg = use.getOperandNumber();
    for (const ElementwiseChainOp::Step &step : chain.getDecodedSteps()) {
      if (!llvm::is_contained(step.args, arg))
        continue;
      if (step.kind != ElementwiseChainOp::Step::FakeQuantize || !step.grid ||
          (g && *g != Type(*step.grid)))
        return std::nullopt;
      g = *step.grid;
    }
  }
  // (An s8 grid as the u8 one of the same values: a QLinear-operator s8
  // model's residual pair next to the next GEMM's quantize.)
  if (std::optional<quant::UniformQuantizedType> u8 = asU8Grid(g))
    g = *u8;
  return g;
}

/// The grid every use of `v` rounds it to on reading it (gridOfUse), if
/// one.
std::optional<quant::UniformQuantizedType> gridOfEveryUse(Value v) {
  std::optional<Type> grid;
  for (OpOperand &use : v.getUses()) {
    std::optional<Type> g = gridOfUse(use);
    if (!g || (grid && *grid != *g))
      return std::nullopt;
    grid = g;
  }
  if (auto q = dyn_cast_or_null<quant::UniformQuantizedType>(grid.value_or(Type())))
    return q;
  return std::nullopt;
}

/// The u8 grid the conv's codes would take one multiply to (see the op's
/// one_step_requantization), if they can: a static input, a u8 output grid
/// right after the activation (whatever follows it: u8 codes, f32 values,
/// a normalization and its grid, a table looked up at its codes) or, for a plain
/// f32 result, the one every reader rounds it to (a QDQ conv whose pair the
/// readers took: the next conv's input quantization, an Add of codes); an
/// activation the codes' bounds express, and a bias that fits its grid.
std::optional<Type> oneStepGrid(QuantizedConvOp op) {
  std::optional<Type> out = op.getOutputQuantization();
  if (!out && !op.getU8Output() && !op.getNormScale() && !op.getOutputTable())
    if (std::optional<quant::UniformQuantizedType> readers = gridOfEveryUse(op.getResult()))
      out = *readers;
  std::optional<Type> grid = op.getInputQuantization();
  Type element = getElementTypeOrSelf(op.getInput().getType());
  if (isa<quant::QuantizedType>(element))
    grid = element;
  else if (op.getActivationQuantization() != "static")
    grid.reset();
  auto input = dyn_cast_or_null<quant::UniformQuantizedType>(grid.value_or(Type()));
  const StringRef act = op.getActivation();
  if (isU8Grid(out) && input && !op.getResidual() &&
      (act == "none" || act == "relu" || act == "clip") &&
      op.getActivationPostMul().convertToFloat() == 1.f &&
      op.getActivationPostAdd().convertToFloat() == 0.f &&
      biasFitsItsGrid(op.getBias(), input.getScale(),
                      channelScales(getElementTypeOrSelf(op.getWeight().getType()),
                                    cast<ShapedType>(op.getWeight().getType()).getDimSize(0)),
                      cast<quant::UniformQuantizedType>(*out).getScale()))
    return out;
  return std::nullopt;
}

/// The u8 grid a depthwise fused_conv's codes would take one multiply to
/// (see its one_step_requantization), if they can: u8 codes in; out its u8
/// codes, the values of its u8 output grid or of the one every reader
/// rounds them to (a BatchNormalization's input pair), or the codes its
/// table is looked up at (an elementwise chain after it); an activation the
/// codes' bounds express, its constant weight on the model's grid (s8
/// codes, or u8 ones whose steps may leave s8) and a bias that fits its
/// sums' grid (biasFitsItsGrid).
std::optional<Type> depthwiseOneStepGrid(FusedConvOp op) {
  auto input = dyn_cast<quant::UniformQuantizedType>(getElementTypeOrSelf(op.getInput().getType()));
  const StringRef act = op.getActivation();
  std::optional<Type> grid = op.getWeightQuantization();
  std::optional<Type> out = op.getOutputQuantization();
  if (!out && !op.getU8Output() && !op.getOutputTable())
    if (std::optional<quant::UniformQuantizedType> readers = gridOfEveryUse(op.getResult()))
      out = *readers;
  if (!input || !grid || !isU8Grid(out) || op.getResidual() ||
      !(act == "none" || act == "relu" || act == "clip") ||
      op.getActivationPostMul().convertToFloat() != 1.f ||
      op.getActivationPostAdd().convertToFloat() != 0.f)
    return std::nullopt;
  std::optional<SmallVector<float>> weight = getConstantFloats(op.getWeight());
  const int64_t channels = cast<ShapedType>(op.getWeight().getType()).getDimSize(0);
  std::optional<ConvWeightCodes> codes =
      weight ? convWeightCodes(*weight, channels, *grid) : std::nullopt;
  // (Steps past s8: u8 codes minus their zero points; the kernel adds an
  // offset per channel.)
  if (codes && (codes->stepsFitS8() || codes->isUnsigned) &&
      biasFitsItsGrid(op.getBias(), input.getScale(), codes->scales,
                      cast<quant::UniformQuantizedType>(*out).getScale()))
    return out;
  return std::nullopt;
}

/// A QDQ model's Add or Mul between Q/DQ pairs (its operands and its
/// result on u8 grids): the result's codes as onnxruntime's QLinearAdd or
/// QLinearMul computes them. An operand is of the result's shape, or a
/// constant of several values holding the codes of a grid (recorded by
/// the op, kLhsCodesGrid / kRhsCodesGrid: an unfused LayerNorm's scale and
/// shift, which it broadcasts; a folded pair's position embeddings) on
/// which onnxruntime runs the op: s8 in a model with s8 activations
/// written as QLinear operators (`signed_codes`), u8 otherwise (a QDQ s8
/// model's converted pairs; there an operand whose pair has other readers
/// stays s8 and the op an f32 one). A Mul only by such a constant:
/// a Mul of two tensors, or an op with a one-value constant (a QDQ CNN's
/// hard-swish and its + 3), stays a step of an elementwise chain, which a
/// conv's epilogue looks up in one pass. A one-value constant whose value
/// dequantized past the float range (a symmetric grid's code of the
/// attention mask's lowest float) counts as several: onnxruntime's
/// QLinearMul multiplies the codes and never forms the infinity, where the
/// f32 product 0 x inf of an unmasked position is NaN. Where the result's grid is its
/// readers' (each rounds it on reading), the op rounds to it itself, so
/// that the readers' rounding finds its values on the grid already.
/// Whether the Q/DQ pair that `v` (an op's operand) comes through has other
/// readers: other uses of v, or, for a fake_quantize, other ops rounding its
/// input to its grid (the model's other DequantizeLinears of the pair).
/// onnxruntime converts an s8 pair to u8 only where it has one reader.
bool sharesItsPair(Value v) {
  if (!v.hasOneUse())
    return true;
  auto fq = v.getDefiningOp<FakeQuantizeOp>();
  if (!fq)
    return false;
  std::optional<quant::UniformQuantizedType> grid = asU8Grid(fq.getQuantization());
  return llvm::any_of(fq.getInput().getUses(), [&](OpOperand &use) {
    return use.getOwner() != fq && gridOfUse(use) == std::optional<Type>(grid);
  });
}

template <typename OpTy> void codesInOneStep(OpTy op) {
  if (op.getLhsQuantization() || !getElementTypeOrSelf(op.getType()).isF32())
    return;
  auto codesConstant = [&](unsigned operand) -> TypeAttr {
    OpOperand &use = op->getOpOperand(operand);
    auto type = dyn_cast<ShapedType>(use.get().getType());
    if (!type || !type.hasStaticShape() || type.getNumElements() < 1)
      return {};
    if (type.getNumElements() == 1) {
      if (!std::is_same_v<OpTy, MulOp>)
        return {};
      auto constant = use.get().getDefiningOp<ConstantOp>();
      auto values = constant ? dyn_cast<DenseElementsAttr>(constant.getValue()) : nullptr;
      if (!values || !values.getElementType().isF32() ||
          std::isfinite(values.getSplatValue<float>()))
        return {};
    }
    return codesGridOf(use);
  };
  if (std::is_same_v<OpTy, MulOp> && !codesConstant(0) && !codesConstant(1))
    return;
  // A QLinear-operator model with s8 activations adds s8 codes (onnxruntime's
  // s8 kernel); a QDQ one has its single-reader pairs converted to u8 and
  // adds those, and leaves an Add of an s8 constant (a bias's lone
  // DequantizeLinear stays s8) in f32.
  auto func = op->template getParentOfType<func::FuncOp>();
  const bool signedModel = func->hasAttr(kSignedActivationCodes),
             signedCodes = signedModel && func->hasAttr(kQLinearOperators);
  // (Such a QDQ model's operand or result whose pair has other readers
  // stays s8 there, and the op an f32 one.)
  if (signedModel && !signedCodes) {
    for (unsigned operand : {0u, 1u})
      if (!codesConstant(operand) && sharesItsPair(op->getOperand(operand)))
        return;
    // (Its result's pair likewise: a QLinearAdd writes a converted one.)
    if (!op->getResult(0).hasOneUse())
      return;
  }
  // A fake_quantize that rounds an operand for this op alone: the op rounds
  // it to the same code itself.
  SmallVector<FakeQuantizeOp, 2> folded;
  auto gridOfOperand = [&](unsigned operand) -> std::optional<quant::UniformQuantizedType> {
    Value v = op->getOperand(operand);
    if (v.getType() != op.getType() || codesConstant(operand)) {
      TypeAttr codes = codesConstant(operand);
      if (!codes)
        return std::nullopt;
      if (!(signedCodes ? isS8Grid(codes.getValue()) : isU8Grid(codes.getValue())))
        return std::nullopt;
      return asU8Grid(codes.getValue());
    }
    auto fq = v.getDefiningOp<FakeQuantizeOp>();
    if (fq && v.hasOneUse() && fq.getInput().getType() == v.getType())
      folded.push_back(fq);
    return lastGridOf(v);
  };
  std::optional<quant::UniformQuantizedType> lhs = gridOfOperand(0), rhs = gridOfOperand(1);
  std::optional<quant::UniformQuantizedType> out;
  if (std::optional<Type> t = op.getOutputQuantization())
    out = dyn_cast<quant::UniformQuantizedType>(*t);
  else
    out = gridOfEveryUse(op.getResult());
  auto u8 = [](std::optional<quant::UniformQuantizedType> q) { return q && isU8Grid(*q); };
  if (!u8(lhs) || !u8(rhs) || !u8(out))
    return;
  op.setOutputQuantization(*out);
  op.setLhsQuantization(*lhs);
  op.setRhsQuantization(*rhs);
  op.setSignedCodes(signedCodes);
  for (FakeQuantizeOp fq : folded) {
    op->replaceUsesOfWith(fq.getResult(), fq.getInput());
    fq.erase();
  }
}

/// The grid `v`'s values lie on (lastGridOf), or a quantized GEMM's last
/// (its f32 result rounded to output_quantization in its epilogue); through
/// ops that move values without changing them (the model's pair after such
/// an op, which repeated the grid, is gone).
std::optional<quant::UniformQuantizedType> valuesGridOf(Value v) {
  while (isa_and_nonnull<ReshapeOp, TransposeOp, FlattenOp, SqueezeOp, UnsqueezeOp>(
      v.getDefiningOp()))
    v = v.getDefiningOp()->getOperand(0);
  if (auto linear = v.getDefiningOp<QuantizedLinearOp>();
      linear && !linear.getU8Output() && linear.getOutputQuantization())
    return dyn_cast<quant::UniformQuantizedType>(*linear.getOutputQuantization());
  return lastGridOf(v);
}

/// The grid a pool's mean is rounded to: a fake_quantize's that only it
/// feeds (returned, to fold), or every reader's.
std::pair<std::optional<quant::UniformQuantizedType>, FakeQuantizeOp> meanGrid(Value mean) {
  auto fq = mean.hasOneUse() ? dyn_cast<FakeQuantizeOp>(*mean.user_begin()) : FakeQuantizeOp();
  if (fq && fq.getType() == mean.getType())
    return {dyn_cast<quant::UniformQuantizedType>(fq.getQuantization()), fq};
  return {gridOfEveryUse(mean), nullptr};
}

void foldInto(Value mean, FakeQuantizeOp fq) {
  if (fq) {
    fq.replaceAllUsesWith(mean);
    fq.erase();
  }
}

/// A QDQ model's GlobalAveragePool between pairs: its input on a u8 grid
/// (its producer's last), its mean rounded to another by a fake_quantize
/// that only it feeds, or by every reader: the pool rounds as onnxruntime's
/// QLinearGlobalAveragePool (its grids); a fake_quantize so folded goes.
void poolCodesInOneStep(GlobalAveragePoolOp pool) {
  std::optional<quant::UniformQuantizedType> in = lastGridOf(pool.getInput());
  auto type = dyn_cast<RankedTensorType>(pool.getInput().getType());
  if (pool.getInputQuantization() || !in || !isU8Grid(*in) || !type || !type.hasStaticShape() ||
      type.getRank() < 3 || type.getNumElements() == 0)
    return;
  // The kernels sum the steps in f32: exact below 2^24.
  if (type.getNumElements() / (type.getDimSize(0) * type.getDimSize(1)) * 255 >= (1 << 24))
    return;
  auto [out, fq] = meanGrid(pool.getResult());
  if (!out || !isU8Grid(*out))
    return;
  pool.setInputQuantizationAttr(TypeAttr::get(*in));
  pool.setOutputQuantizationAttr(TypeAttr::get(*out));
  foldInto(pool.getResult(), fq);
}

/// The grids of a QDQ model's one-input op between pairs that onnxruntime
/// runs as its QLinear kernel (AveragePool, Softmax): the input's values on
/// a u8 grid (valuesGridOf), the result rounded to one (meanGrid, whose
/// fake_quantize `folded` goes if taken). With s8 activations the codes
/// are s8 (`signedCodes`) where both pairs stay s8 (a QLinear-operator
/// model; a QDQ one where both have other readers) and u8 where
/// onnxruntime converted both; with one of each it runs the f32 op
/// (`f32Op`, the grids unused).
struct UnaryPairGrids {
  quant::UniformQuantizedType in, out;
  FakeQuantizeOp folded;
  bool signedCodes = false;
  bool f32Op = false;
};
std::optional<UnaryPairGrids> unaryPairGrids(Operation *op) {
  Value input = op->getOperand(0), result = op->getResult(0);
  std::optional<quant::UniformQuantizedType> in = valuesGridOf(input);
  if (!in || !isU8Grid(*in))
    return std::nullopt;
  auto [out, fq] = meanGrid(result);
  if (!out || !isU8Grid(*out))
    return std::nullopt;
  UnaryPairGrids grids{*in, *out, fq};
  auto func = op->getParentOfType<func::FuncOp>();
  if (func->hasAttr(kSignedActivationCodes)) {
    grids.signedCodes = true;
    if (!func->hasAttr(kQLinearOperators)) {
      const bool sharedIn = sharesItsPair(input),
                 sharedOut = !result.hasOneUse() || (fq && !fq->hasOneUse());
      grids.f32Op = sharedIn != sharedOut;
      grids.signedCodes = sharedIn;
    }
  }
  return grids;
}

/// A QDQ model's AveragePool between pairs (unaryPairGrids): onnxruntime
/// runs it as QLinearAveragePool, whose f32 steps (a division by the count,
/// the zero point added before the rounding) land a code apart from a
/// reciprocal product and QuantizeLinear's rounding on a few % of a
/// model's outputs (PaddleOCR's recognizer, 3x2 windows of codes: exact
/// ties); its zero point the s8 one with signed codes. Where onnxruntime
/// runs the f32 AveragePool instead (pairs converted on one side), MLAS's
/// f32 order (ordered_f32_arithmetic) before the pair's own rounding;
/// not for a window of the whole input (MLAS's global kernel).
void averagePoolOnItsGrid(AveragePoolOp pool) {
  std::optional<UnaryPairGrids> grids;
  if (pool.getOutputQuantization() || pool.getOrderedF32Arithmetic() ||
      !(grids = unaryPairGrids(pool)))
    return;
  if (grids->f32Op) {
    auto type = dyn_cast<RankedTensorType>(pool.getInput().getType());
    if (type && type.hasStaticShape() &&
        type.getShape().drop_front(2) != ArrayRef<int64_t>(pool.getKernelShape()))
      pool.setOrderedF32Arithmetic(true);
    return;
  }
  pool.setOutputQuantizationAttr(TypeAttr::get(grids->out));
  pool.setSignedCodes(grids->signedCodes);
  foldInto(pool.getResult(), grids->folded);
}

/// A QDQ model's Softmax between pairs (unaryPairGrids): onnxruntime runs
/// it as QLinearSoftmax (an exp table of the input's steps, the row's f32
/// sum, floor(1 / s_y) for 1 / s_y), a code or more apart from the f32
/// softmax rounded, on a classifier's last op or a transformer's attention
/// that nunc.attention did not take. The codes' offset does not matter
/// there (the table takes steps apart from the row's largest, both grids'
/// top codes saturate alike).
void softmaxInQLinearSteps(SoftmaxOp op) {
  std::optional<UnaryPairGrids> grids;
  if (op.getInputQuantization() || !(grids = unaryPairGrids(op)) || grids->f32Op)
    return;
  op.setInputQuantizationAttr(TypeAttr::get(grids->in));
  op.setOutputQuantizationAttr(TypeAttr::get(grids->out));
  foldInto(op.getResult(), grids->folded);
}

/// A QDQ model's attention on u8 codes with a grid on each step (and its
/// mask on one, or none): qlinear_arithmetic and the mask's grid, where
/// `accepts` (the target's kernel) takes it; signed_codes in a model
/// quantized with s8 activations (onnxruntime's s8 softmax saturates
/// round(e c / sum) + zp at 127 as the u8 codes do at 255: checked on 1.32).
void attentionInQLinearSteps(AttentionOp op, const std::function<bool(AttentionOp)> &accepts) {
  auto u8 = [](std::optional<Type> t) {
    auto q = t ? dyn_cast<quant::UniformQuantizedType>(*t) : nullptr;
    return q && isU8Grid(q);
  };
  if (op.getQlinearArithmetic() ||
      !isa<quant::QuantizedType>(getElementTypeOrSelf(op.getQuery())) ||
      !u8(op.getScoresQuantization()) || !u8(op.getScaledQuantization()) ||
      !u8(op.getProbsQuantization()) || !u8(op.getOutputQuantization()))
    return;
  const bool signedCodes = op->getParentOfType<func::FuncOp>()->hasAttr(kSignedActivationCodes);
  if (op.getMask()) {
    std::optional<quant::UniformQuantizedType> mask = lastGridOf(op.getMask());
    if (!u8(op.getLogitsQuantization()) || !mask || !isU8Grid(*mask))
      return;
    op.setMaskQuantizationAttr(TypeAttr::get(*mask));
  } else if (op.getLogitsQuantization()) {
    return;
  }
  op.setQlinearArithmetic(true);
  op.setSignedCodes(signedCodes);
  if (accepts && !accepts(op)) {
    op.removeQlinearArithmeticAttr();
    op.removeMaskQuantizationAttr();
    op.removeSignedCodesAttr();
  }
}

/// A QDQ model's MatMul and bias Add between pairs (a static u8 input, a
/// u8 product grid, a bias of u8 codes (bias_codes_quantization) and a u8
/// grid right after it): one_step_requantization (and a residual's grid),
/// where `accepts` (the target's kernel) takes it. In models quantized with
/// s8 activations only where the model wrote them as QLinear operators
/// (kQLinearOperators; a QDQ one onnxruntime runs as f32 ops), with a bias
/// of s8 codes: signed_codes.
void linearInQLinearSteps(QuantizedLinearOp op,
                          const std::function<bool(QuantizedLinearOp)> &accepts) {
  auto u8 = [](std::optional<Type> t) {
    auto q = t ? dyn_cast<quant::UniformQuantizedType>(*t) : nullptr;
    return q && isU8Grid(q);
  };
  auto func = op->getParentOfType<func::FuncOp>();
  const bool signedCodes = func->hasAttr(kSignedActivationCodes);
  std::optional<quant::UniformQuantizedType> input = op.staticInputQuantization();
  // (A QLinearMatMul's product grid is an s8 one in such a model.)
  if (op.getOneStepRequantization() || op.getActivationQuantization() != "static" || !input ||
      !isU8Grid(*input) || !op.getBias() || !u8(op.gridAfterBias()) ||
      !(signedCodes ? asU8Grid(op.getProductQuantization()).has_value()
                    : u8(op.getProductQuantization())) ||
      (signedCodes && !func->hasAttr(kQLinearOperators)))
    return;
  TypeAttr codes = op.getBiasCodesQuantizationAttr();
  if (!codes || !(signedCodes ? isS8Grid(codes.getValue()) : isU8Grid(codes.getValue())))
    return;
  // Every bias value one of the grid's (as folded from its codes).
  auto grid = *asU8Grid(codes.getValue());
  const float scale = static_cast<float>(grid.getScale());
  std::optional<SmallVector<float>> values = getConstantFloats(op.getBias());
  const auto zp = static_cast<int32_t>(grid.getZeroPoint());
  if (!values || !llvm::all_of(*values, [&](float b) {
        return static_cast<float>(u8CodeOf(b, scale, zp) - zp) * scale == b;
      }))
    return;
  op.setOneStepRequantization(true);
  op.setSignedCodes(signedCodes);
  // A residual on a u8 grid between u8 grids: its codes added likewise (an
  // s8 grid in a signed model, as the u8 one of its values).
  if (op.getResidual() && op.getBiasQuantization() && u8(op.gridAfterResidual()))
    if (std::optional<quant::UniformQuantizedType> r = lastGridOf(op.getResidual());
        r && (isU8Grid(*r) || (signedCodes && isS8Grid(*r))))
      op.setResidualQuantizationAttr(TypeAttr::get(*asU8Grid(*r)));
  if (accepts && !accepts(op)) {
    op.removeOneStepRequantizationAttr();
    op.removeResidualQuantizationAttr();
    op.removeSignedCodesAttr();
  }
}

/// How many ops read the codes of the Q/DQ pair that `codes` (a GEMM's u8
/// input) come from: a nunc.quantize's readers together with those of the
/// fake_quantize ops that round the same value to the same grid (the
/// model's DequantizeLinear readers, split between the GEMMs that read
/// codes and the rest), or the readers of a GEMM or attention that writes
/// the codes itself (u8_output); none when the value quantized has readers
/// outside the pair.
std::optional<int64_t> pairReaders(Value codes) {
  Operation *def = codes.getDefiningOp();
  if (isa_and_nonnull<QuantizedLinearOp, AttentionOp>(def))
    return static_cast<int64_t>(llvm::range_size(codes.getUsers()));
  auto quantize = dyn_cast_or_null<QuantizeOp>(def);
  if (!quantize)
    return std::nullopt;
  std::optional<quant::UniformQuantizedType> grid = asU8Grid(quantize.getQuantization());
  int64_t readers = 0;
  for (Operation *user : quantize.getInput().getUsers()) {
    std::optional<Type> g;
    if (auto q = dyn_cast<QuantizeOp>(user))
      g = q.getQuantization();
    else if (auto fq = dyn_cast<FakeQuantizeOp>(user))
      g = fq.getQuantization();
    if (!g || asU8Grid(*g) != grid)
      return std::nullopt;
    readers += llvm::range_size(user->getResult(0).getUsers());
  }
  return readers;
}

/// A QDQ model with s8 activations (not written as QLinear operators):
/// onnxruntime converts only pairs of one reader to u8 and runs no
/// s8-activation QLinearMatMul on x86. A GEMM whose input pair has several
/// readers is thus an f32 MatMul there on the dequantized values, its
/// result rounded to the product's grid (f32_product_k_block, MLAS's block
/// for its N and K); one whose pair has one reader a QLinearMatMul with
/// its bias Add in f32 (the bias's DequantizeLinear stays s8):
/// qlinear_product. Either where `accepts` (the target's kernel) takes it.
/// 4-bit weights (holdsFourBitCodes): onnxruntime has no 4-bit QLinearMatMul
/// and runs every such MatMul in f32, whatever its pair's readers, in a u8
/// model too; there its bias Add stays a QLinearAdd of the product's code
/// (one_step_requantization, which linearInQLinearSteps set, then takes the
/// f32 product's).
void linearProductInOnnxruntimeSteps(QuantizedLinearOp op,
                                     const std::function<bool(QuantizedLinearOp)> &accepts) {
  auto func = op->getParentOfType<func::FuncOp>();
  const bool fourBit = holdsFourBitCodes(op.getWeight());
  if ((!func->hasAttr(kSignedActivationCodes) && !fourBit) || func->hasAttr(kQLinearOperators) ||
      (op.getOneStepRequantization() && !fourBit) || op.getF32ProductKBlock() ||
      op.getQlinearProduct() || op.getActivationQuantization() != "static" ||
      !op.staticInputQuantization() || !asU8Grid(op.getProductQuantization()) ||
      !isa<quant::QuantizedType>(getElementTypeOrSelf(op.getInput().getType())))
    return;
  std::optional<int64_t> readers = fourBit ? std::nullopt : pairReaders(op.getInput());
  if (!fourBit && (!readers || *readers < 1))
    return;
  if (!fourBit && *readers == 1) {
    op.setQlinearProduct(true);
  } else {
    auto weight = cast<ShapedType>(op.getWeight().getType());
    op.setF32ProductKBlock(mlasSgemmKBlock(weight.getDimSize(1), weight.getDimSize(0)));
  }
  if (accepts && !accepts(op)) {
    op.removeQlinearProductAttr();
    op.removeF32ProductKBlockAttr();
  }
}

/// How many ops read the Q/DQ pair a static conv's input comes from: the
/// uses of its u8 codes, or of its f32 value where every use rounds it to
/// the conv's grid (static convs, quantize and fake_quantize ops, batch
/// norms, Adds of codes; u8 or s8 storage of the same values) or its
/// values lie on that grid (the pair folded into their producer, or a max
/// pool of such values: an f32 Add or a conv's residual reads the pair's
/// values); none otherwise.
std::optional<int64_t> convPairReaders(QuantizedConvOp op) {
  Value input = op.getInput();
  const auto uses = static_cast<int64_t>(llvm::range_size(input.getUses()));
  if (isa<quant::QuantizedType>(getElementTypeOrSelf(input.getType())))
    return uses;
  std::optional<quant::UniformQuantizedType> grid = asU8Grid(op.getInputQuantization());
  if (op.getActivationQuantization() != "static" || !grid)
    return std::nullopt;
  if (gridOfEveryUse(input) == grid)
    return uses;
  for (Value v = input; v;) {
    if (std::optional<quant::UniformQuantizedType> last = lastGridOf(v))
      return asU8Grid(*last) == grid ? std::optional<int64_t>(uses) : std::nullopt;
    auto pool = v.getDefiningOp<MaxPoolOp>();
    v = pool ? pool.getInput() : Value();
  }
  return std::nullopt;
}

/// A QDQ model with s8 activations: onnxruntime keeps a pair of several
/// readers s8, runs no s8-activation QLinearConv on x86 and none from a
/// converted u8 pair to an s8 one, so a conv reading such a pair, or
/// writing one, is an f32 Conv there on the dequantized values (MLAS's
/// im2col and sgemm: f32_product_k_block, the block for N = output
/// positions and K = C kh kw), where `accepts` (the target's kernel)
/// takes it. (Single-reader pairs on both sides are converted to u8: a
/// QLinearConv, the exact sums and one_step_requantization.) The output
/// pair's readers: the normalization or table that follows it, else the
/// result's. A conv of 4-bit weights (holdsFourBitCodes) is an f32 Conv
/// there in any QDQ model: onnxruntime has no 4-bit QLinearConv.
void convProductInOnnxruntimeSteps(QuantizedConvOp op,
                                   const std::function<bool(QuantizedConvOp)> &accepts) {
  auto func = op->getParentOfType<func::FuncOp>();
  const bool fourBit = holdsFourBitCodes(op.getWeight());
  if ((!func->hasAttr(kSignedActivationCodes) && !fourBit) || func->hasAttr(kQLinearOperators) ||
      op.getOneStepRequantization() || op.getF32ProductKBlock())
    return;
  std::optional<int64_t> readers = convPairReaders(op);
  const bool sharedOutput = !op.getNormScale() && !op.getOutputTable() &&
                            !op.getOutput().hasOneUse();
  auto weight = cast<ShapedType>(op.getWeight().getType());
  auto output = cast<ShapedType>(op.getOutput().getType());
  if (!readers || (*readers < 2 && !sharedOutput && !fourBit) || !weight.hasStaticShape() ||
      !output.hasStaticShape())
    return;
  const int64_t k = weight.getDimSize(1) * weight.getDimSize(2) * weight.getDimSize(3);
  op.setF32ProductKBlock(
      mlasSgemmKBlock(output.getDimSize(2) * output.getDimSize(3), k));
  if (accepts && !accepts(op))
    op.removeF32ProductKBlockAttr();
}

/// A u8 QDQ (or QOperator) model's GELU in a GEMM's epilogue whose
/// constants 1 and 0.5 are codes of known grids: gelu_qlinear_arithmetic
/// (onnxruntime's QLinearAdd / QLinearMul steps), where `accepts` (the
/// target's kernel) takes it. With s8 activations only in a QOperator
/// model whose GEMM computes on s8 codes (signed_codes: the GELU's steps
/// take them too); a QDQ one keeps the GELU input's pair s8 (two readers)
/// and runs its Muls in f32.
void geluInQLinearSteps(QuantizedLinearOp op,
                        const std::function<bool(QuantizedLinearOp)> &accepts) {
  auto u8 = [](std::optional<Type> t) { return t && isU8Grid(*t); };
  // (The constants' codes keep the model's storage: s8 ones with s8 codes.)
  auto constant = [&](std::optional<Type> t) {
    return u8(t) || (op.getSignedCodes() && isS8Grid(t));
  };
  auto func = op->getParentOfType<func::FuncOp>();
  if (op.getGeluQlinearArithmetic() ||
      (func->hasAttr(kSignedActivationCodes) &&
       !(func->hasAttr(kQLinearOperators) && op.getSignedCodes())) ||
      op.getActivation() != "gelu" || !u8(op.getActivationInputQuantization()) ||
      !u8(op.getGeluErfQuantization()) || !u8(op.getGeluSumQuantization()) ||
      !u8(op.getGeluProductQuantization()) || !constant(op.getGeluOneQuantization()) ||
      !constant(op.getGeluHalfQuantization()) || !u8(op.getOutputQuantization()))
    return;
  op.setGeluQlinearArithmetic(true);
  if (accepts && !accepts(op))
    op.removeGeluQlinearArithmeticAttr();
}

/// Whether `v`'s values lie on a grid: a DequantizeLinear's, or rounded to
/// one by the op that writes them as f32.
bool valuesOnAGrid(Value v) {
  Operation *def = v.getDefiningOp();
  if (isa_and_nonnull<DequantizeLinearOp>(def))
    return true;
  if (auto ql = dyn_cast_or_null<QuantizedLinearOp>(def))
    return ql.getOutputQuantization() && !ql.getU8Output();
  return lastGridOf(v).has_value();
}

/// A LayerNorm between a quantized model's pairs (its input on a grid, or
/// its result rounded to one by every reader), f32 rows of a multiple of 8:
/// ordered_f32_arithmetic, where `accepts` (the target's kernel) takes it.
void layerNormInOnnxruntimeSteps(LayerNormOp op, const std::function<bool(LayerNormOp)> &accepts) {
  std::optional<int64_t> n = op.rowSize();
  // (onnxruntime's RMS normalizations take steps of their own.)
  if (op.getOrderedF32Arithmetic() || op.getRms() || !n ||
      !getElementTypeOrSelf(op.getInput()).isF32())
    return;
  const bool rounded = !op.getOutput().use_empty() &&
                       llvm::all_of(op.getOutput().getUsers(),
                                    llvm::IsaPred<QuantizeOp, FakeQuantizeOp>);
  if (*n % 8 != 0 || !(valuesOnAGrid(op.getInput()) || rounded))
    return;
  op.setOrderedF32Arithmetic(true);
  if (accepts && !accepts(op))
    op.removeOrderedF32ArithmeticAttr();
}

/// A ReduceMean or ReduceSum between a quantized model's pairs (its data
/// on a grid, or its result rounded to one by every reader: a decomposed
/// LayerNorm's means) over rows of a multiple of 4 elements, at least 8:
/// ordered_f32_arithmetic (onnxruntime's row sums), which the row-reduction
/// kernel runs on every target.
template <typename ReduceOpT> void reductionInOnnxruntimeSteps(ReduceOpT op) {
  std::optional<int64_t> n = op.trailingRowSize();
  if (op.getOrderedF32Arithmetic() || !n || *n % 4 != 0 || *n < 8 ||
      !getElementTypeOrSelf(op.getData()).isF32())
    return;
  // (A reader that rounds it first: a quantize, a fake_quantize, an Add of
  // codes, or an elementwise chain whose every step reading it is a
  // fake_quantize.)
  auto rounds = [](OpOperand &use) {
    Operation *user = use.getOwner();
    if (isa<QuantizeOp, FakeQuantizeOp>(user))
      return true;
    if (auto add = dyn_cast<AddOp>(user); add && add.addsCodes())
      return true;
    auto chain = dyn_cast<ElementwiseChainOp>(user);
    if (!chain)
      return false;
    const int64_t arg = use.getOperandNumber();
    return llvm::all_of(chain.getDecodedSteps(), [&](const ElementwiseChainOp::Step &s) {
      return !llvm::is_contained(s.args, arg) ||
             s.kind == ElementwiseChainOp::Step::FakeQuantize;
    });
  };
  const bool rounded =
      !op.getOutput().use_empty() && llvm::all_of(op.getOutput().getUses(), rounds);
  if (valuesOnAGrid(op.getData()) || rounded)
    op.setOrderedF32Arithmetic(true);
}

struct OneStepRequantizationPass
    : public mlir::nunc::impl::OneStepRequantizationBase<OneStepRequantizationPass> {
  using OneStepRequantizationBase::OneStepRequantizationBase;
  void runOnOperation() override {
    getOperation().walk([](AddOp op) { codesInOneStep(op); });
    getOperation().walk([](MulOp op) { codesInOneStep(op); });
    if (onlyElementwise)
      return;
    getOperation().walk([&](QuantizedConvOp op) {
      convProductInOnnxruntimeSteps(op, f32ProductConv);
      if (op.getOneStepRequantization() || op.getF32ProductKBlock())
        return;
      if (std::optional<Type> grid = oneStepGrid(op)) {
        op.setOutputQuantization(*grid);
        op.setOneStepRequantization(true);
      }
    });
    // (Collected first: a folded fake_quantize is erased.)
    SmallVector<GlobalAveragePoolOp> pools;
    getOperation().walk([&](GlobalAveragePoolOp op) { pools.push_back(op); });
    for (GlobalAveragePoolOp pool : pools)
      poolCodesInOneStep(pool);
    SmallVector<AveragePoolOp> windows;
    getOperation().walk([&](AveragePoolOp op) { windows.push_back(op); });
    for (AveragePoolOp pool : windows)
      averagePoolOnItsGrid(pool);
    SmallVector<SoftmaxOp> softmaxes;
    getOperation().walk([&](SoftmaxOp op) { softmaxes.push_back(op); });
    for (SoftmaxOp op : softmaxes)
      softmaxInQLinearSteps(op);
    getOperation().walk([&](FusedConvOp op) {
      if (op.getOneStepRequantization())
        return;
      std::optional<Type> grid = depthwiseOneStepGrid(op);
      if (!grid)
        return;
      // (Asked with the attributes set: the readers' grid, where they round
      // the result.)
      const bool readersGrid = !op.getOutputQuantization();
      op.setOutputQuantizationAttr(TypeAttr::get(*grid));
      op.setOneStepRequantization(true);
      if (integerDepthwise && !integerDepthwise(op)) {
        op.removeOneStepRequantizationAttr();
        if (readersGrid)
          op.removeOutputQuantizationAttr();
      }
    });
    getOperation().walk([&](AttentionOp op) { attentionInQLinearSteps(op, qlinearAttention); });
    getOperation().walk([&](QuantizedLinearOp op) {
      linearInQLinearSteps(op, qlinearLinear);
      linearProductInOnnxruntimeSteps(op, qlinearLinear);
      geluInQLinearSteps(op, qlinearLinear);
    });
    getOperation().walk([&](LayerNormOp op) { layerNormInOnnxruntimeSteps(op, orderedLayerNorm); });
    getOperation().walk([](ReduceMeanOp op) { reductionInOnnxruntimeSteps(op); });
    getOperation().walk([](ReduceSumOp op) { reductionInOnnxruntimeSteps(op); });
  }
  /// The target's rules for which depthwise convs compute on integers and
  /// which attentions and GEMMs in onnxruntime's steps (null: all of them).
  std::function<bool(FusedConvOp)> integerDepthwise;
  std::function<bool(AttentionOp)> qlinearAttention;
  std::function<bool(QuantizedLinearOp)> qlinearLinear;
  std::function<bool(LayerNormOp)> orderedLayerNorm;
  std::function<bool(QuantizedConvOp)> f32ProductConv;
};

} // namespace

std::unique_ptr<Pass>
mlir::nunc::createOneStepRequantization(std::function<bool(FusedConvOp)> integerDepthwise,
                                        std::function<bool(AttentionOp)> qlinearAttention,
                                        std::function<bool(QuantizedLinearOp)> qlinearLinear,
                                        std::function<bool(LayerNormOp)> orderedLayerNorm,
                                        std::function<bool(QuantizedConvOp)> f32ProductConv) {
  auto pass = std::make_unique<OneStepRequantizationPass>();
  pass->integerDepthwise = std::move(integerDepthwise);
  pass->qlinearAttention = std::move(qlinearAttention);
  pass->qlinearLinear = std::move(qlinearLinear);
  pass->orderedLayerNorm = std::move(orderedLayerNorm);
  pass->f32ProductConv = std::move(f32ProductConv);
  return pass;
}
