//===- ImporterImpl.h - internals shared by the importer's files -*- C++ -*-===//

#ifndef NUNC_IMPORT_IMPORTERIMPL_H
#define NUNC_IMPORT_IMPORTERIMPL_H

#include "nunc/Import/OnnxImporter.h"

#include "OnnxProtoIO.h"
#include "nunc/Dialect/Nunc/NuncOps.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Path.h"
#include "llvm/ADT/StringSet.h"

namespace mlir::nunc::import_detail {

inline const llvm::StringRef kSupportedOps[] = {
    "Add", "Sub", "Mul", "Div", "Pow", "Sqrt", "Floor", "Ceil", "Round", "Erf", "Tanh", "Relu",
    "LeakyRelu", "Sigmoid", "Clip", "Gelu", "Where", "Equal", "Cast", "CastLike", "MatMul",
    "Gemm", "ReduceMean", "ReduceSum", "Softmax", "LayerNormalization", "Gather", "Reshape",
    "Transpose", "Unsqueeze", "Squeeze", "Concat", "Slice", "Expand", "Shape", "ConstantOfShape",
    "Constant", "Identity", "Flatten", "Conv", "BatchNormalization", "MaxPool", "AveragePool",
    "GlobalAveragePool", "QuantizeLinear", "DequantizeLinear", "DynamicQuantizeLinear",
    "MatMulInteger", "QLinearMatMul", "ConvInteger", "QLinearConv", "Split", "Neg", "HardSigmoid",
    "HardSwish", "Range", "ConvTranspose", "Col2Im", "Resize", "Upsample", "Exp", "Log", "Sin",
    "Cos", "Abs", "Reciprocal", "Softplus", "Min", "Max", "Greater", "Less", "GreaterOrEqual",
    "LessOrEqual", "Not", "And", "Or", "Xor", "Pad", "ReduceMax", "ReduceMin", "Elu", "Selu",
    "Celu", "Softsign", "ThresholdedRelu", "PRelu", "Mish", "Sign", "Sum", "Mean",
    "GlobalMaxPool", "DepthToSpace", "SpaceToDepth", "Tile", "InstanceNormalization",
    "GroupNormalization", "ArgMax", "ArgMin", "ReduceProd", "CumSum", "GatherElements",
    "TopK", "LSTM", "GRU", "RNN", "GatherND", "ScatterND", "ScatterElements", "Scatter",
    "Attention", "GridSample", "CumProd", "Mod", "BitwiseAnd", "BitwiseOr", "BitwiseXor",
    "BitwiseNot", "BitShift", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh",
    "Atanh",
    // onnxruntime's own, in the default domain (its optimizer writes it for
    // RMSNorm): OnnxContribNodes.cpp.
    "SimplifiedLayerNormalization"};

/// The default-domain ops imported as compositions of others
/// (OnnxCompositeNodes.cpp).
inline const llvm::StringRef kCompositeOps[] = {
    "Dropout", "LogSoftmax", "Hardmax", "Trilu", "ReduceL1", "ReduceL2", "ReduceSumSquare",
    "ReduceLogSum", "ReduceLogSumExp", "LpNormalization", "MeanVarianceNormalization", "LRN",
    "IsNaN", "IsInf", "OneHot", "Shrink", "Size", "Einsum", "RMSNormalization",
    "RotaryEmbedding", "AffineGrid", "Swish", "SwiGLU"};
/// onnxruntime's com.microsoft operators (version 1): the quantized ones
/// its quantize_static writes in QOperator format, each imported as the
/// DequantizeLinear -> f32 op -> QuantizeLinear it stands for (its own
/// QuantizeLinear and DequantizeLinear, QDQ format with UseQDQContribOps,
/// are the ai.onnx ops), and those its graph optimizer fuses a transformer
/// into (a model saved with `optimized_model_filepath`), each imported as
/// the ai.onnx ops it fused; and MatMulNBits, its weight-only quantizers'
/// block-quantized MatMul, imported as the f32 MatMul of its dequantized
/// weight.
inline constexpr llvm::StringLiteral kContribDomain = "com.microsoft";
inline const llvm::StringRef kSupportedContribOps[] = {
    "QLinearAdd", "QLinearMul", "QLinearSigmoid", "QLinearLeakyRelu", "QLinearSoftmax",
    "QLinearGlobalAveragePool", "QLinearAveragePool", "QLinearConcat", "QGemm",
    "QuantizeLinear", "DequantizeLinear", "DynamicQuantizeMatMul", "MatMulIntegerToFloat",
    "FusedMatMul", "Gelu", "FastGelu", "BiasGelu", "SkipLayerNormalization",
    "EmbedLayerNormalization", "FusedConv", "FusedGemm", "Attention", "QAttention",
    "QEmbedLayerNormalization", "QuickGelu", "SkipSimplifiedLayerNormalization", "MatMulNBits",
    "MultiHeadAttention"};
inline bool isDefaultDomain(llvm::StringRef domain) {
  return domain.empty() || domain == "ai.onnx";
}
inline bool isSupportedNode(const onnx::NodeProto &n) {
  if (isDefaultDomain(n.domain()))
    return llvm::is_contained(kSupportedOps, n.op_type()) ||
           llvm::is_contained(kCompositeOps, n.op_type());
  return n.domain() == kContribDomain && llvm::is_contained(kSupportedContribOps, n.op_type());
}

/// Where and what a node is; the attribute readers report errors at it and
/// remember which attributes were read, so unexpected ones can be rejected.
struct NodeContext {
  const onnx::NodeProto &node;
  Location loc;
  int64_t opset;
  SmallVector<Value> inputs; // null where an optional input is absent
  llvm::StringSet<> readAttributes;

  Value input(unsigned i) const { return i < inputs.size() ? inputs[i] : Value(); }

  const onnx::AttributeProto *find(llvm::StringRef name) {
    readAttributes.insert(name);
    for (const onnx::AttributeProto &a : node.attribute())
      if (a.name() == name)
        return &a;
    return nullptr;
  }

  InFlightDiagnostic error() { return emitError(loc); }

  LogicalResult wrongType(const onnx::AttributeProto &a, llvm::StringRef expected) {
    return error() << "attribute '" << a.name() << "' must be " << expected << ", got "
                   << onnx::AttributeProto_AttributeType_Name(a.type());
  }

  FailureOr<int64_t> getInt(llvm::StringRef name, std::optional<int64_t> dflt) {
    const onnx::AttributeProto *a = find(name);
    if (!a) {
      if (dflt)
        return *dflt;
      return error() << "missing required attribute '" << name << "'";
    }
    if (a->type() != onnx::AttributeProto::INT)
      return wrongType(*a, "an int");
    return a->i();
  }
  FailureOr<float> getFloat(llvm::StringRef name, float dflt) {
    const onnx::AttributeProto *a = find(name);
    if (!a)
      return dflt;
    if (a->type() != onnx::AttributeProto::FLOAT)
      return wrongType(*a, "a float");
    return a->f();
  }
  FailureOr<std::string> getString(llvm::StringRef name, llvm::StringRef dflt) {
    const onnx::AttributeProto *a = find(name);
    if (!a)
      return dflt.str();
    if (a->type() != onnx::AttributeProto::STRING)
      return wrongType(*a, "a string");
    return a->s();
  }
  /// std::nullopt when absent.
  FailureOr<std::optional<SmallVector<int64_t>>> getInts(llvm::StringRef name) {
    const onnx::AttributeProto *a = find(name);
    if (!a)
      return std::optional<SmallVector<int64_t>>();
    if (a->type() != onnx::AttributeProto::INTS)
      return wrongType(*a, "a list of ints");
    return std::optional<SmallVector<int64_t>>(
        SmallVector<int64_t>(a->ints().begin(), a->ints().end()));
  }
  /// Empty when absent.
  FailureOr<SmallVector<float>> getFloats(llvm::StringRef name) {
    const onnx::AttributeProto *a = find(name);
    if (!a)
      return SmallVector<float>();
    if (a->type() != onnx::AttributeProto::FLOATS)
      return wrongType(*a, "a list of floats");
    return SmallVector<float>(a->floats().begin(), a->floats().end());
  }
  /// Accepts an attribute nunc has no use for.
  void ignore(llvm::StringRef name) { readAttributes.insert(name); }
};

class Importer {
public:
  Importer(MLIRContext *ctx, llvm::StringRef path, const ImportOptions &options)
      : ctx(ctx), builder(ctx), path(path.str()), options(options) {
    llvm::SmallString<256> dir(path);
    llvm::sys::path::remove_filename(dir);
    modelDir = dir.empty() ? "." : std::string(dir);
    fileLoc = FileLineColLoc::get(ctx, path, 0, 0);
  }

  OwningOpRef<ModuleOp> run();

private:
  LogicalResult checkOpsets();
  LogicalResult checkSupportedOps();
  LogicalResult sortNodes(SmallVectorImpl<int> &order);
  FailureOr<Type> valueInfoType(const onnx::ValueInfoProto &vi, bool isInput,
                                SmallVectorImpl<std::string> &dimNames);
  FailureOr<ElementsAttr> tensorAttr(onnx::TensorProto &t, Location loc,
                                     llvm::StringRef what);
  /// `raw` as the elements of `type`: inline up to kInlineConstantBytes,
  /// else a resource blob named `key` that takes over the string.
  ElementsAttr rawElementsAttr(RankedTensorType type, std::unique_ptr<std::string> raw,
                               int64_t alignment, llvm::StringRef key);
  static constexpr int64_t kInlineConstantBytes = 256;
  LogicalResult convertNode(const onnx::NodeProto &node, int index);
  LogicalResult convert(NodeContext &n, SmallVectorImpl<Value> &outputs);
  /// The com.microsoft ops of kSupportedContribOps (OnnxContribNodes.cpp).
  LogicalResult convertContrib(NodeContext &n, SmallVectorImpl<Value> &outputs);
  /// The default-domain ops of kCompositeOps (OnnxCompositeNodes.cpp).
  LogicalResult convertComposite(NodeContext &n, SmallVectorImpl<Value> &outputs);
  /// LSTM, GRU and RNN unrolled over their steps (OnnxRecurrentNodes.cpp).
  LogicalResult convertRecurrent(NodeContext &n, SmallVectorImpl<Value> &outputs);
  /// Einsum as Transpose, Reshape, Slice, ReduceSum and MatMul.
  LogicalResult einsum(NodeContext &n, SmallVectorImpl<Value> &outputs);
  /// com.microsoft Attention, QAttention and MultiHeadAttention
  /// (OnnxAttentionNodes.cpp).
  LogicalResult convertAttention(NodeContext &n, SmallVectorImpl<Value> &outputs);
  /// ai.onnx Attention (opset 23 on) as the ops it composes
  /// (OnnxAttentionNodes.cpp).
  LogicalResult convertOnnxAttention(NodeContext &n, SmallVectorImpl<Value> &outputs);
  /// com.microsoft MatMulNBits, its weight dequantized (OnnxMatMulNBits.cpp).
  LogicalResult convertMatMulNBits(NodeContext &n, SmallVectorImpl<Value> &outputs);
  /// A Reduce* op's axes (an input from opset 18, ReduceSum's from 13; an
  /// attribute before, or none) and its noop_with_empty_axes.
  FailureOr<std::pair<Value, int64_t>> reductionAxes(NodeContext &n);
  /// Softmax along `axis`; `flattened`: over all dims from `axis` on, as
  /// Softmax before opset 13.
  FailureOr<Value> softmax(NodeContext &n, Value x, int64_t axis, bool flattened);
  /// clip(alpha x + beta, 0, 1), as Mul, Add and Clip.
  FailureOr<Value> hardSigmoid(NodeContext &n, Value x, float alpha, float beta);
  /// DequantizeLinear with block_size (opset 21) of constant codes, scales
  /// and zero points: the f32 tensor it gives.
  FailureOr<Value> blockedDequantize(NodeContext &n, int64_t axis, int64_t blockSize);
  /// RMSNorm over the dims from `axis` on: x / sqrt(mean(x^2) + eps) * scale
  /// and 1 / sqrt(mean(x^2) + eps), as Mul, ReduceMean, Add, Sqrt, Div, Mul.
  FailureOr<std::pair<Value, Value>> rmsNorm(NodeContext &n, Value x, Value scale, int64_t axis,
                                             float eps);
  /// auto_pad, kernel_shape (from `weight`'s spatial dims when absent and a
  /// weight is given), strides, dilations and pads with their defaults.
  FailureOr<SmallVector<NamedAttribute>> windowAttributes(NodeContext &n, Value weight);
  /// strides, dilations (1 each) and pads (0) for `nd` spatial dims, given
  /// or defaulted.
  FailureOr<SmallVector<NamedAttribute>> stepAttributes(NodeContext &n, size_t nd);
  /// windowAttributes plus AveragePool's ceil_mode and count_include_pad.
  FailureOr<SmallVector<NamedAttribute>> averagePoolAttributes(NodeContext &n);

  /// Creates an op, infers its result types (reporting errors at its
  /// location) and returns it, or fails and leaves nothing behind.
  FailureOr<Operation *> create(NodeContext &n, llvm::StringRef name,
                                ValueRange operands, ArrayRef<NamedAttribute> attrs,
                                unsigned numResults);
  template <typename OpTy>
  FailureOr<Operation *> create(NodeContext &n, ValueRange operands,
                                ArrayRef<NamedAttribute> attrs = {},
                                unsigned numResults = 1) {
    return create(n, OpTy::getOperationName(), operands, attrs, numResults);
  }
  /// The result of a one-result op `create` made, or its failure.
  static FailureOr<Value> firstResult(FailureOr<Operation *> op) {
    if (failed(op))
      return failure();
    return (*op)->getResult(0);
  }
  /// One op of a composition, or null where it or an operand failed (its
  /// error already reported), so a chain of them is checked once, at its end.
  Value createChained(NodeContext &n, llvm::StringRef name, ArrayRef<Value> operands,
                      ArrayRef<NamedAttribute> attrs = {}) {
    if (llvm::any_of(operands, [](Value v) { return !v; }))
      return Value();
    FailureOr<Value> r = firstResult(create(n, name, operands, attrs, 1));
    return failed(r) ? Value() : *r;
  }
  Value constI64(Location loc, ArrayRef<int64_t> values, bool scalar = false);
  Value constScalar(Location loc, Type element, double value);

  NamedAttribute attr(llvm::StringRef name, Attribute value) {
    return builder.getNamedAttr(name, value);
  }
  NamedAttribute segments(ArrayRef<Value> operands) {
    SmallVector<int32_t> sizes;
    for (Value v : operands)
      sizes.push_back(v ? 1 : 0);
    return attr("operandSegmentSizes", builder.getDenseI32ArrayAttr(sizes));
  }
  static SmallVector<Value> present(ArrayRef<Value> values) {
    SmallVector<Value> out;
    for (Value v : values)
      if (v)
        out.push_back(v);
    return out;
  }

  MLIRContext *ctx;
  OpBuilder builder;
  std::string path, modelDir;
  const ImportOptions &options;
  Location fileLoc = UnknownLoc::get(ctx);
  onnx::ModelProto model;
  int64_t opset = 0;
  int64_t contribOpset = 1; // the model's com.microsoft version
  llvm::StringMap<Value> values;
};

} // namespace mlir::nunc::import_detail

#endif // NUNC_IMPORT_IMPORTERIMPL_H
