//===- QuantizeInt8.cpp - linear ops to int8 (W8A8, dynamic activations) --===//

#include "PatternUtils.h"
#include "nunc/Interpreter/Evaluator.h"
#include "nunc/Quantize/Calibration.h"
#include "nunc/Transforms/Passes.h"
#include "nunc/Dialect/Nunc/ShapeHelpers.h"


#include "mlir/Dialect/Quant/IR/QuantTypes.h"

#include <algorithm>
#include <cmath>

namespace mlir::nunc {
#define GEN_PASS_DEF_QUANTIZEINT8
#include "nunc/Transforms/Passes.h.inc"
} // namespace mlir::nunc

using namespace mlir;
using namespace mlir::nunc;

namespace {

struct QuantizeInt8Pass : public mlir::nunc::impl::QuantizeInt8Base<QuantizeInt8Pass> {
  using QuantizeInt8Base::QuantizeInt8Base;

  /// The profile: static ranges (activations=static) and the channel means
  /// of bias correction (either mode).
  std::optional<CalibrationProfile> calibration;
  bool staticActivations = false;

  void runOnOperation() override {
    if (activations != "dynamic" && activations != "static") {
      getOperation().emitError() << "nunc-quantize-int8: activations must be dynamic or "
                                    "static, not '"
                                 << activations << "'";
      return signalPassFailure();
    }
    staticActivations = activations == "static";
    if (staticActivations || !profile.empty()) {
      llvm::Expected<CalibrationProfile> p = CalibrationProfile::read(profile);
      if (!p) {
        getOperation().emitError() << llvm::toString(p.takeError());
        return signalPassFailure();
      }
      calibration = std::move(*p);
    }
    SmallVector<Operation *> targets;
    getOperation().walk([&](Operation *op) {
      if (isQuantizable(op))
        targets.push_back(op);
    });
    // Keys are computed before any rewrite, so indices stay those of the
    // f32 graph the profile was made from.
    SmallVector<std::string> keys;
    for (Operation *op : targets)
      keys.push_back(quantizationKey(op));
    SmallVector<std::pair<Operation *, std::string>> depthwise;
    for (auto [op, key] : llvm::zip(targets, keys)) {
      LogicalResult done = success();
      if (auto lin = dyn_cast<LinearOp>(op))
        done = quantize(lin, key);
      else if (convs && isDepthwise(op))
        depthwise.push_back({op, key});
      else if (convs)
        done = quantizeConv(op, key);
      if (failed(done))
        return signalPassFailure();
    }
    for (auto [op, key] : depthwise)
      if (failed(quantizeDepthwiseInput(op, key)))
        return signalPassFailure();
    if (minEmbeddingElements > 0) {
      SmallVector<std::pair<GatherOp, std::string>> gathers;
      getOperation().walk([&](GatherOp op) { gathers.push_back({op, quantizationKey(op)}); });
      for (auto [op, key] : gathers)
        if (!llvm::is_contained(keepF32, key))
          quantizeEmbedding(op);
    }
  }

  /// Gather(table, ids) of a constant f32 table [V, D] along axis 0 ->
  /// Cast(Gather(table_s8, ids), f32) * Gather(scales [V, 1], ids), with one
  /// symmetric scale per row (max |row| / 127). The table is most of a
  /// transformer's embedding bytes; per-row scales keep each token's vector
  /// within 1/254 of its own largest element.
  void quantizeEmbedding(GatherOp op) {
    auto table = dyn_cast<RankedTensorType>(op.getData().getType());
    auto out = dyn_cast<RankedTensorType>(op.getType());
    if (!table || !out || !out.hasStaticShape() || table.getRank() != 2 ||
        !table.hasStaticShape() || !table.getElementType().isF32() ||
        table.getNumElements() < minEmbeddingElements ||
        shape::wrapAxis(op.getAxis(), 2) != 0)
      return;
    std::optional<SmallVector<float>> w = getConstantFloats(op.getData());
    if (!w)
      return;
    int64_t rows = table.getDimSize(0), cols = table.getDimSize(1);
    SmallVector<float> scales(rows);
    SmallVector<int8_t> q(rows * cols);
    for (int64_t r = 0; r < rows; ++r) {
      float top = 0.f;
      for (int64_t c = 0; c < cols; ++c)
        top = std::max(top, std::fabs((*w)[r * cols + c]));
      scales[r] = top > 0.f ? top / 127.f : 1.f;
      for (int64_t c = 0; c < cols; ++c)
        q[r * cols + c] = static_cast<int8_t>(
            std::clamp(std::nearbyint((*w)[r * cols + c] / scales[r]), -127.f, 127.f));
    }
    MLIRContext *ctx = &getContext();
    OpBuilder b(op);
    Location loc = op.getLoc();
    ElementsAttr qAttr = attrFromTensor(
        cantFail(Tensor::fromValues<int8_t>(DType::I8, {rows, cols}, q)), ctx, "int8_embedding");
    ElementsAttr sAttr = attrFromTensor(
        cantFail(Tensor::fromValues<float>(DType::F32, {rows, 1}, scales)), ctx,
        "int8_embedding_scale");
    Value qTable = ConstantOp::create(b, loc, qAttr.getType(), qAttr);
    Value sTable = ConstantOp::create(b, loc, sAttr.getType(), sAttr);
    Type i8 = IntegerType::get(ctx, 8), f32 = b.getF32Type();
    SmallVector<int64_t> scaleShape(out.getShape());
    scaleShape.back() = 1;
    Value qRows = GatherOp::create(b, loc, out.clone(i8), qTable, op.getIndices(),
                                   op.getAxisAttr());
    Value sRows = GatherOp::create(b, loc, RankedTensorType::get(scaleShape, f32), sTable,
                                   op.getIndices(), op.getAxisAttr());
    Value rowsF32 = CastOp::create(b, loc, out, qRows, TypeAttr::get(f32));
    Value y = MulOp::create(b, loc, out, rowsF32, sRows, TypeAttr(), TypeAttr(), TypeAttr());
    Operation *oldTable = op.getData().getDefiningOp();
    op.replaceAllUsesWith(y);
    op.erase();
    if (oldTable && oldTable->use_empty())
      oldTable->erase();
  }

  /// The s8 form of a weight: symmetric per index of dim `axis` (an output
  /// column or channel), the largest magnitude mapping to 127 (scale 1 for
  /// all zeros), round half to even.
  struct Int8Weight {
    SmallVector<int8_t> values;
    SmallVector<double> scales;
  };

  static Int8Weight quantizeSymmetric(ArrayRef<float> w, ArrayRef<int64_t> shape, int64_t axis) {
    int64_t channels = shape[axis], inner = 1;
    for (int64_t d : shape.drop_front(axis + 1))
      inner *= d;
    int64_t outer = static_cast<int64_t>(w.size()) / (channels * inner);
    auto at = [&](int64_t o, int64_t c, int64_t i) { return (o * channels + c) * inner + i; };
    Int8Weight q{SmallVector<int8_t>(w.size()), SmallVector<double>(channels)};
    for (int64_t c = 0; c < channels; ++c) {
      float top = 0.f;
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t i = 0; i < inner; ++i)
          top = std::max(top, std::fabs(w[at(o, c, i)]));
      q.scales[c] = top > 0.f ? static_cast<double>(top / 127.f) : 1.0;
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t i = 0; i < inner; ++i)
          q.values[at(o, c, i)] = static_cast<int8_t>(std::clamp(
              std::nearbyint(w[at(o, c, i)] / static_cast<float>(q.scales[c])), -127.f, 127.f));
    }
    return q;
  }

  /// quant.scast of `q` (row-major `shape`, scales along `axis`).
  Value int8WeightValue(OpBuilder &b, Location loc, const Int8Weight &q, ArrayRef<int64_t> shape,
                        int64_t axis, StringRef name) {
    MLIRContext *ctx = b.getContext();
    Type i8 = IntegerType::get(ctx, 8);
    ElementsAttr attr = attrFromTensor(
        cantFail(Tensor::fromValues<int8_t>(DType::I8, shape, q.values)), ctx, name);
    Value storage = ConstantOp::create(b, loc, attr.getType(), attr);
    auto element = quant::UniformQuantizedPerAxisType::get(
        quant::QuantizationFlags::Signed, i8, b.getF32Type(), q.scales,
        SmallVector<int64_t>(shape[axis], 0), axis, -127, 127);
    return quant::StorageCastOp::create(b, loc, RankedTensorType::get(shape, element), storage);
  }

  /// Bias correction: with the mean m_c of each input channel, the int8
  /// weight shifts output j's mean by sum_c m_c sum_k (dequantized - f32
  /// weight)[c, k, j]; the returned bias (a new constant) subtracts that.
  /// `w` is [input channels, outputs] (a linear's [K, N], `inner` 1) or,
  /// with `outputsFirst`, [outputs, input channels, inner] (a conv's [M, C /
  /// groups, kh x kw]: output j reads group j / (M / groups)'s channels).
  /// Returns `bias` unchanged without means, or when the bias is not a
  /// constant.
  Value correctedBias(OpBuilder &b, Location loc, Value bias, ArrayRef<float> w,
                      const Int8Weight &q, ArrayRef<float> mean, bool outputsFirst,
                      int64_t outputs, int64_t inner, int64_t groups = 1) {
    if (!biasCorrection || mean.empty())
      return bias;
    // (Checked by inputChannelMean.) Output j of a grouped conv reads its
    // group's channels only.
    const int64_t channels = static_cast<int64_t>(mean.size()) / groups;
    const int64_t groupOutputs = outputs / groups;
    SmallVector<float> values(outputs, 0.f);
    if (bias) {
      std::optional<SmallVector<float>> b0 = getConstantFloats(bias);
      if (!b0 || static_cast<int64_t>(b0->size()) != outputs)
        return bias;
      values = *b0;
    }
    for (int64_t j = 0; j < outputs; ++j) {
      double shift = 0;
      for (int64_t c = 0; c < channels; ++c) {
        double err = 0;
        for (int64_t i = 0; i < inner; ++i) {
          int64_t at = outputsFirst ? (j * channels + c) * inner + i : (c * inner + i) * outputs + j;
          err += q.values[at] * q.scales[j] - w[at];
        }
        shift += mean[j / groupOutputs * channels + c] * err;
      }
      values[j] = static_cast<float>(values[j] - shift);
    }
    ElementsAttr attr = attrFromTensor(
        cantFail(Tensor::fromValues<float>(DType::F32, {outputs}, values)), b.getContext(),
        "int8_corrected_bias");
    return ConstantOp::create(b, loc, attr.getType(), attr);
  }

  static void eraseIfUnused(Operation *op) {
    if (op && op->use_empty() && isa<ConstantOp>(op))
      op->erase();
  }

  /// The profile's mean of each of the op's `channels` input channels
  /// (empty when it has none); a different count is a stale profile.
  FailureOr<ArrayRef<float>> inputChannelMean(Operation *op, const std::string &key,
                                              StringRef kind, int64_t channels) {
    if (!calibration)
      return ArrayRef<float>();
    auto it = calibration->inputs.find(key);
    if (it == calibration->inputs.end() || it->second.channelMean.empty())
      return ArrayRef<float>();
    const std::vector<float> &mean = it->second.channelMean;
    if (static_cast<int64_t>(mean.size()) != channels)
      return op->emitError() << "the calibration profile '" << profile << "' has "
                             << mean.size() << " channel means for the input of " << kind
                             << " op '" << key << "', which has " << channels
                             << " channels (recalibrate for this model)";
    return ArrayRef<float>(mean);
  }

  /// The u8 grid of the op's input from the profile (null when dynamic).
  FailureOr<TypeAttr> calibratedInput(Operation *op, const std::string &key, StringRef kind) {
    if (!staticActivations)
      return TypeAttr();
    auto it = calibration->inputs.find(key);
    if (it == calibration->inputs.end())
      return op->emitError() << "the calibration profile '" << profile
                             << "' has no range for the input of " << kind << " op '" << key
                             << "' (recalibrate for this model)";
    return TypeAttr::get(quant::UniformQuantizedType::get(
        /*flags=*/0, IntegerType::get(&getContext(), 8), Float32Type::get(&getContext()),
        it->second.scale, it->second.zeroPoint, 0, 255));
  }

  /// A conv or fused_conv with one filter per channel, 2-D, its f32
  /// weight [C, 1, kh, kw] a constant.
  static bool isDepthwise(Operation *op) {
    auto in = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
    auto w = dyn_cast<RankedTensorType>(op->getOperand(1).getType());
    int64_t group = cast<IntegerAttr>(op->getAttr("group")).getInt();
    return in && in.getRank() == 4 && in.getElementType().isF32() && w && w.hasStaticShape() &&
           w.getRank() == 4 && w.getElementType().isF32() && group > 1 &&
           in.getDimSize(1) == group && w.getDimSize(0) == group && w.getDimSize(1) == 1 &&
           matchPattern(op->getOperand(1), m_Constant());
  }

  /// Whether the code generator's integer depthwise kernel takes a filter
  /// of this shape (x86::Int8DepthwiseKernel::supports): at most 8 taps a
  /// row and 7 rows, no dilation, horizontal stride 1 or 2, no residual.
  static bool integerDepthwiseShape(Operation *op) {
    auto w = cast<RankedTensorType>(op->getOperand(1).getType());
    auto dilations = cast<DenseI64ArrayAttr>(op->getAttr("dilations")).asArrayRef();
    auto strides = cast<DenseI64ArrayAttr>(op->getAttr("strides")).asArrayRef();
    auto fused = dyn_cast<FusedConvOp>(op);
    return w.getDimSize(2) <= 7 && w.getDimSize(3) <= 8 &&
           llvm::all_of(dilations, [](int64_t d) { return d == 1; }) && strides.size() == 2 &&
           (strides[1] == 1 || strides[1] == 2) && !(fused && fused.getResidual());
  }

  /// Static activations: a depthwise conv whose input only an int8 conv
  /// reads gets that input's u8 grid from the profile as the int8 conv's
  /// output_quantization (which then hands it the grid's codes,
  /// nunc-fuse-conv-activation-quantization), and, where the integer
  /// depthwise kernel takes its shape, its filter rounded to a symmetric s8
  /// grid per channel (still f32 values: that kernel takes filters on such
  /// a grid), the bias corrected for that rounding as the others' are. The
  /// depthwise conv's input and filter are then what onnxruntime's static
  /// int8 model has. Other shapes keep their f32 filter: the f32 kernel
  /// would gain nothing from the rounding. Inputs whose grid measures
  /// below min-handover-snr stay f32 (Passes.td).
  LogicalResult quantizeDepthwiseInput(Operation *op, const std::string &key) {
    auto producer = op->getOperand(0).getDefiningOp<QuantizedConvOp>();
    if (!staticActivations || !depthwiseHandover || !producer || !producer->hasOneUse() ||
        producer.getOutputQuantization() || producer.getNormScale() ||
        llvm::is_contained(keepF32, key))
      return success();
    FailureOr<TypeAttr> grid = calibratedInput(op, key, "conv");
    if (failed(grid))
      return failure();
    // Unmeasured (NaN) grids pass; a threshold of 0 or less passes all.
    if (minHandoverSnr > 0 && calibration->inputs.at(key).gridSnrDb() < minHandoverSnr)
      return success();
    auto wType = cast<RankedTensorType>(op->getOperand(1).getType());
    int64_t channels = wType.getDimSize(0), taps = wType.getNumElements() / channels;
    std::optional<SmallVector<float>> w = getConstantFloats(op->getOperand(1));
    if (!w)
      return success();
    FailureOr<ArrayRef<float>> mean = inputChannelMean(op, key, "conv", channels);
    if (failed(mean))
      return failure();
    producer.setOutputQuantizationAttr(*grid);
    if (!integerDepthwiseShape(op))
      return success();
    Int8Weight q = quantizeSymmetric(*w, wType.getShape(), /*axis=*/0);
    SmallVector<float> rounded(w->size());
    for (int64_t c = 0; c < channels; ++c)
      for (int64_t t = 0; t < taps; ++t)
        rounded[c * taps + t] =
            static_cast<float>(q.values[c * taps + t] * static_cast<float>(q.scales[c]));
    OpBuilder b(op);
    Operation *oldWeight = op->getOperand(1).getDefiningOp();
    ElementsAttr attr =
        attrFromTensor(cantFail(Tensor::fromValues<float>(DType::F32, wType.getShape(), rounded)),
                       &getContext(), "int8_depthwise_weight");
    op->setOperand(1, ConstantOp::create(b, op->getLoc(), attr.getType(), attr));
    eraseIfUnused(oldWeight);
    // Each output channel reads one input channel: its shift is that
    // channel's mean times the sum of its filter's rounding errors.
    auto fused = dyn_cast<FusedConvOp>(op);
    Value bias = fused ? fused.getBias() : cast<ConvOp>(op).getBias();
    if (biasCorrection && !mean->empty()) {
      SmallVector<float> values(channels, 0.f);
      std::optional<SmallVector<float>> b0;
      if (bias && (!(b0 = getConstantFloats(bias)) || static_cast<int64_t>(b0->size()) != channels))
        return success();
      if (b0)
        values = *b0;
      for (int64_t c = 0; c < channels; ++c) {
        double err = 0;
        for (int64_t t = 0; t < taps; ++t)
          err += double(rounded[c * taps + t]) - (*w)[c * taps + t];
        values[c] = static_cast<float>(values[c] - (*mean)[c] * err);
      }
      ElementsAttr battr = attrFromTensor(
          cantFail(Tensor::fromValues<float>(DType::F32, {channels}, values)), &getContext(),
          "int8_corrected_bias");
      Value corrected = ConstantOp::create(b, op->getLoc(), battr.getType(), battr);
      Operation *oldBias = bias ? bias.getDefiningOp() : nullptr;
      if (fused)
        fused.getBiasMutable().assign(corrected);
      else
        cast<ConvOp>(op).getBiasMutable().assign(corrected);
      eraseIfUnused(oldBias);
    }
    return success();
  }

  /// conv / fused_conv (2-D, constant f32 weight, groups the int8
  /// convolution takes: int8ConvGroups) -> quantized_conv with s8 weights
  /// per output channel.
  LogicalResult quantizeConv(Operation *op, const std::string &key) {
    auto in = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
    Value weightValue = op->getOperand(1);
    auto wType = dyn_cast<RankedTensorType>(weightValue.getType());
    if (!in || !in.getElementType().isF32() || in.getRank() != 4 || !wType ||
        !wType.hasStaticShape() || wType.getRank() != 4 || !wType.getElementType().isF32())
      return success();
    auto group = cast<IntegerAttr>(op->getAttr("group"));
    if (!int8ConvGroups(group.getInt(), weightValue))
      return success();
    int64_t m = wType.getDimSize(0), ck = wType.getNumElements() / m;
    if (ck * m < minConvMacs || llvm::is_contained(keepF32, key))
      return success();
    std::optional<SmallVector<float>> w = getConstantFloats(weightValue);
    if (!w)
      return success();
    FailureOr<TypeAttr> inputType = calibratedInput(op, key, "conv");
    if (failed(inputType))
      return failure();
    FailureOr<ArrayRef<float>> mean =
        inputChannelMean(op, key, "conv", wType.getDimSize(1) * group.getInt());
    if (failed(mean))
      return failure();
    OpBuilder b(op);
    Int8Weight q = quantizeSymmetric(*w, wType.getShape(), /*axis=*/0);
    Value weight = int8WeightValue(b, op->getLoc(), q, wType.getShape(), 0, "int8_conv_weight");
    Value bias, residual;
    if (auto f = dyn_cast<FusedConvOp>(op)) {
      bias = f.getBias();
      residual = f.getResidual();
    } else {
      bias = cast<ConvOp>(op).getBias();
    }
    int64_t taps = wType.getDimSize(2) * wType.getDimSize(3);
    Operation *oldBias = bias ? bias.getDefiningOp() : nullptr;
    bias = correctedBias(b, op->getLoc(), bias, *w, q, *mean, /*outputsFirst=*/true, m, taps,
                         group.getInt());
    auto quantized = QuantizedConvOp::create(
        b, op->getLoc(), op->getResult(0).getType(), op->getOperand(0), weight, bias, residual,
        Value(), Value(), b.getStringAttr(staticActivations ? "static" : "dynamic_per_tensor"),
        *inputType, TypeAttr(), TypeAttr(), cast<StringAttr>(op->getAttr("auto_pad")),
        cast<DenseI64ArrayAttr>(op->getAttr("dilations")),
        cast<DenseI64ArrayAttr>(op->getAttr("kernel_shape")),
        cast<DenseI64ArrayAttr>(op->getAttr("pads")),
        cast<DenseI64ArrayAttr>(op->getAttr("strides")), StringAttr(), FloatAttr(), FloatAttr(),
        FloatAttr(), FloatAttr(), FloatAttr(), FloatAttr(), UnitAttr(), DenseF32ArrayAttr(),
        TypeAttr(), UnitAttr(), IntegerAttr(), group);
    EpilogueActivation::of(op).setOn(quantized);
    Operation *oldWeight = weightValue.getDefiningOp();
    op->getResult(0).replaceAllUsesWith(quantized.getResult());
    op->erase();
    eraseIfUnused(oldWeight);
    eraseIfUnused(oldBias);
    return success();
  }

  LogicalResult quantize(LinearOp op, const std::string &key) {
    auto in = dyn_cast<RankedTensorType>(op.getInput().getType());
    auto wType = dyn_cast<RankedTensorType>(op.getWeight().getType());
    if (!in || !in.getElementType().isF32() || !wType || !wType.hasStaticShape() ||
        wType.getRank() != 2 || !wType.getElementType().isF32())
      return success();
    int64_t k = wType.getDimSize(0), n = wType.getDimSize(1);
    if (k * n < minMacs || llvm::is_contained(keepF32, key))
      return success();
    std::optional<SmallVector<float>> w = getConstantFloats(op.getWeight());
    if (!w)
      return success();
    FailureOr<TypeAttr> inputType = calibratedInput(op, key, "linear");
    if (failed(inputType))
      return failure();
    FailureOr<ArrayRef<float>> mean = inputChannelMean(op, key, "linear", k);
    if (failed(mean))
      return failure();
    OpBuilder b(op);
    Int8Weight q = quantizeSymmetric(*w, {k, n}, /*axis=*/1);
    Value weight = int8WeightValue(b, op.getLoc(), q, {k, n}, /*axis=*/1, "int8_weight");
    Value bias = correctedBias(b, op.getLoc(), op.getBias(), *w, q, *mean,
                               /*outputsFirst=*/false, n, /*inner=*/1);
    auto quantized = QuantizedLinearOp::create(
        b, op.getLoc(), op.getType(), op.getInput(), weight, bias, op.getResidual(),
        b.getStringAttr(staticActivations ? "static" : "dynamic_per_row"), *inputType, TypeAttr(),
        /*u8_output=*/UnitAttr(), /*product_quantization=*/TypeAttr(),
        /*bias_quantization=*/TypeAttr(), /*activation_input_quantization=*/TypeAttr(),
        /*gelu_erf_quantization=*/TypeAttr(), /*gelu_sum_quantization=*/TypeAttr(),
        /*gelu_product_quantization=*/TypeAttr(), /*gelu_one=*/b.getF32FloatAttr(1.f),
        /*gelu_half=*/b.getF32FloatAttr(0.5f), StringAttr(), FloatAttr(), FloatAttr(),
        FloatAttr(), FloatAttr(), FloatAttr(), FloatAttr(), /*one_step_requantization=*/UnitAttr(),
        /*bias_codes_quantization=*/TypeAttr(), /*bias_first=*/UnitAttr(),
        /*residual_quantization=*/TypeAttr(), /*residual_first=*/UnitAttr(),
        /*signed_codes=*/UnitAttr(), /*f32_product_k_block=*/IntegerAttr(),
        /*qlinear_product=*/UnitAttr(), /*gelu_one_quantization=*/TypeAttr(),
        /*gelu_half_quantization=*/TypeAttr(), /*gelu_qlinear_arithmetic=*/UnitAttr());
    EpilogueActivation::of(op).setOn(quantized);
    Operation *oldWeight = op.getWeight().getDefiningOp();
    Operation *oldBias = op.getBias() ? op.getBias().getDefiningOp() : nullptr;
    op.replaceAllUsesWith(quantized.getResult());
    op.erase();
    eraseIfUnused(oldWeight);
    eraseIfUnused(oldBias);
    return success();
  }
};

} // namespace
