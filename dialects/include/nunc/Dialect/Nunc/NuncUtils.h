//===- NuncUtils.h - helpers shared by nunc ops, passes and tools -*- C++ -*-===//

#ifndef NUNC_DIALECT_NUNC_NUNCUTILS_H
#define NUNC_DIALECT_NUNC_NUNCUTILS_H

#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace mlir::nunc {

/// Integer elements of a constant attribute (dense or dense_resource, any
/// integer width), widened to int64. std::nullopt for non-integer data.
std::optional<llvm::SmallVector<int64_t>> readIntElements(ElementsAttr attr);

/// The raw bytes of a constant: one element per `getDenseElementByteWidth`
/// bytes, i1 as one byte per element, splats expanded. Returns false when the
/// attribute kind is not supported.
bool readRawElements(ElementsAttr attr, llvm::SmallVectorImpl<char> &out);
/// Like readRawElements without copying, when the attribute stores its data
/// unpacked and not as a splat; an empty optional otherwise.
std::optional<llvm::ArrayRef<char>> tryGetRawElements(ElementsAttr attr);

/// An element type as ONNX names it, quoted ('float', 'int64', 'uint8'),
/// for the messages a model's author reads; other types as MLIR prints them.
std::string onnxTypeName(Type t);

/// Bytes of one element as stored by nunc (i1 takes one byte).
int64_t getElementByteWidth(Type elementType);

/// The values of `v` when it is a constant of integer elements.
std::optional<llvm::SmallVector<int64_t>> getConstantInts(Value v);

/// True for a tensor known to hold no elements (ONNX's way of leaving an
/// optional input out, as Resize's roi and scales before opset 13).
bool isEmptyTensor(Value v);

/// The values of `v` when it is a constant of float elements (f16, bf16,
/// f32, f64), widened to double.
std::optional<llvm::SmallVector<double>> getConstantDoubles(Value v);

/// What is known of the values of a 1-D (or scalar) integer tensor that holds
/// a shape, with unknown entries as ShapedType::kDynamic. Follows the
/// Shape -> Gather -> Unsqueeze -> Concat chains that exporters emit, so a
/// Reshape keeps the dims it can know even while the batch dim is dynamic.
/// std::nullopt when not even the number of entries is known.
std::optional<llvm::SmallVector<int64_t>> getPartialShapeValue(Value v);

/// Creates a nunc op with result types from its shape inference (operands and
/// attributes as for OperationState). On an inference error nothing is left
/// behind and failure is returned; the diagnostic is emitted at `loc` unless
/// `reportErrors` is false (rewrite patterns that merely decline to match).
FailureOr<Operation *> createInferred(OpBuilder &builder, Location loc,
                                      llvm::StringRef opName, ValueRange operands,
                                      ArrayRef<NamedAttribute> attributes,
                                      unsigned numResults = 1, bool reportErrors = true);

/// Names where an op came from, for diagnostics:
///   `model.onnx: node "/encoder/MatMul" (MatMul, opset 17)`
/// for ops imported from ONNX, and MLIR's own `file:line:col` otherwise.
std::string describeLocation(Location loc);

/// Function attribute: the model's activations were s8 codes (quantize_
/// static's QInt8), given the u8 codes of the same grids by
/// nunc-unsign-quantize-dequantize.
inline constexpr llvm::StringLiteral kSignedActivationCodes = "nunc.signed_activation_codes";
/// Function attribute: the model wrote its quantized ops as QLinear
/// operators (QOperator format: QLinearMatMul, QLinearConv, QLinearAdd,
/// ...), which onnxruntime runs as such, in their integer steps on s8 codes
/// too (a QDQ model's, it decides itself: with s8 activations most of a
/// transformer's MatMuls and Adds as f32 ops between the pairs).
inline constexpr llvm::StringLiteral kQLinearOperators = "nunc.qlinear_operators";
/// On an Add or Mul, for its lhs / rhs: the operand is a nunc.constant
/// folded from a per-tensor u8 or s8 DequantizeLinear (a QDQ model's bias,
/// a LayerNorm's scale, a GELU's 1 and 1/2) or from a pair's rounding of a
/// constant (position embeddings), and this is the grid whose codes its
/// values are, which onnxruntime's QLinearAdd / QLinearMul take (u8 or s8
/// storage as the model's). Kept on the reader, not on the constant: the
/// greedy rewrite driver uniques equal constants and keeps one's
/// discardable attributes only (a GELU's 1 merged with a mask's 1 - m).
inline constexpr llvm::StringLiteral kLhsCodesGrid = "nunc.lhs_codes_grid";
inline constexpr llvm::StringLiteral kRhsCodesGrid = "nunc.rhs_codes_grid";
/// On a constant of codes the model stored as INT4 / UINT4 (imported one a
/// byte): onnxruntime has no 4-bit QLinear kernels and runs the MatMul or
/// Conv that reads their DequantizeLinear in f32, which nunc-one-step-
/// requantization follows. (The greedy driver may unique it with an equal
/// 8-bit constant: equal codes, so only the summation order could change.)
inline constexpr llvm::StringLiteral kFourBitCodes = "nunc.four_bit_codes";
/// Whether `v` is such a constant, or a quant.scast of one.
bool holdsFourBitCodes(Value v);
/// The codes grid its reader records for `operand` (kLhsCodesGrid /
/// kRhsCodesGrid) while the operand is still a constant; null otherwise.
TypeAttr codesGridOf(OpOperand &operand);
/// Records `grid` as the codes grid of `operand` (an Add's or Mul's).
void setCodesGrid(OpOperand &operand, TypeAttr grid);

/// The grid an f32 value's producer rounds it to last, so that it holds
/// only that grid's values (a QDQ model's conv output, or an elementwise
/// op's): per tensor, or none.
std::optional<quant::UniformQuantizedType> lastGridOf(Value v);

/// The ONNX node names in `loc` (several for a fused op), in order.
SmallVector<std::string> onnxNodeNames(Location loc);

/// A grid whose codes a u8 tensor holds as the kernels write them: per
/// tensor, u8 over f32, the full range [0, 255] (the kernels saturate
/// there).
bool isU8Grid(std::optional<Type> t);
/// A per-tensor grid of s8 codes over f32, [-128, 127].
bool isS8Grid(std::optional<Type> t);
/// A u8 or s8 grid (isU8Grid, isS8Grid) as the u8 grid of the same values
/// (an s8 grid's zero point + 128); none for any other type.
std::optional<quant::UniformQuantizedType> asU8Grid(std::optional<Type> t);

/// A conv weight's grid (weight_quantization): 8-bit storage over f32,
/// per tensor or per output channel (axis 0, `channels` scales), positive
/// scales.
bool isConvWeightGrid(Type grid, int64_t channels);

/// The f32 scales of a uniformly quantized type, one per channel: a per
/// tensor scale repeated `channels` times, a per-axis type's own; empty
/// for any other type.
SmallVector<float> channelScales(Type quantized, int64_t channels);

/// A conv's f32 weight [channels, ...] as the steps of its
/// weight_quantization grid: k = q - zp of the model's codes q, with
/// fl(k * scales[m]) == w exactly and q within the grid's storage range
/// (s8, or u8 whose steps may reach +-255). None where a value lies off its
/// channel's grid (the weight changed since).
struct ConvWeightCodes {
  SmallVector<int16_t> steps;
  SmallVector<float> scales;         // one per channel
  SmallVector<int32_t> zeroPoints;   // one per channel
  bool isUnsigned = false;           // u8 codes q = step + zero point
  /// Whether every step fits s8 (the weight as s8 codes with zero points 0).
  bool stepsFitS8() const;
};
std::optional<ConvWeightCodes> convWeightCodes(ArrayRef<float> weight, int64_t channels,
                                               Type grid);

/// A 16-bit static input grid of quantized_linear (an A16W8 model's
/// activations): per tensor, u16 over f32, positive scale, the full range
/// [0, 65535].
bool isU16Grid(std::optional<Type> t);

/// The epilogue activation of a fused op (the attributes of
/// Nunc_ActivationAttrs), as passes and code generators read and write it.
struct EpilogueActivation {
  std::string kind = "none";
  float min = 0, max = 0, alpha = 0.01f, beta = 0, postMul = 1, postAdd = 0;
  /// The attributes of `op`, their defaults where it has none.
  static EpilogueActivation of(Operation *op);
  /// All of them as named attributes (for an op about to be created).
  void appendTo(Builder &b, SmallVectorImpl<NamedAttribute> &attrs) const;
  /// Sets all of them on `op`.
  void setOn(Operation *op) const;
  bool hasPostAffine() const { return postMul != 1.f || postAdd != 0.f; }
  /// Takes a scalar Mul (`mul`) or Add by c after the activation as the post
  /// affine where it stays one rounding in the model's order (a Mul before
  /// any post, an Add once) and there is an activation (before one, a Mul or
  /// Add folds into the weights or bias instead); false, unchanged, else.
  bool takePost(bool mul, float c) {
    if (kind == "none" || (mul ? hasPostAffine() : postAdd != 0.f))
      return false;
    (mul ? postMul : postAdd) = c;
    return true;
  }
  bool isIdentity() const { return kind == "none" && !hasPostAffine(); }
};

/// The location the importer gives an op made from an ONNX node.
Location makeOnnxNodeLocation(MLIRContext *ctx, llvm::StringRef file,
                              llvm::StringRef nodeName, llvm::StringRef opType,
                              llvm::StringRef domain, int64_t opset);

} // namespace mlir::nunc

#endif // NUNC_DIALECT_NUNC_NUNCUTILS_H
