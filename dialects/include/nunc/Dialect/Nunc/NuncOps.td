//===- NuncOps.td - nunc dialect operations -----------------*- tablegen -*-===//
//
// One op per ONNX op nunc accepts, with ONNX semantics (numpy broadcasting,
// negative axes). Every op infers its result types (NuncInterfaces.td); the
// evaluator in compiler/Interpreter is the executable definition of each op.
//
//===----------------------------------------------------------------------===//

#ifndef NUNC_DIALECT_NUNC_NUNCOPS_TD
#define NUNC_DIALECT_NUNC_NUNCOPS_TD

include "nunc/Dialect/Nunc/NuncDialect.td"
include "nunc/Dialect/Nunc/NuncInterfaces.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

class Nunc_Op<string mnemonic, list<Trait> traits = []>
    : Op<Nunc_Dialect, mnemonic,
         !listconcat([Pure, DeclareOpInterfaceMethods<Nunc_InferShapesOpInterface>],
                     traits)>;

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

def Nunc_ConstantOp : Nunc_Op<"constant", [ConstantLike]> {
  let summary = "A tensor constant (ONNX Constant and graph initializers)";
  let description = [{
    Large initializers are held as `dense_resource` blobs that reference the
    bytes read from the model file, so weights are not copied again.
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Nunc_Tensor:$output);
  let hasFolder = 1;
  let hasCustomAssemblyFormat = 1;
}

def Nunc_ConstantOfShapeOp : Nunc_Op<"constant_of_shape"> {
  let summary = "A tensor of the given shape filled with one value";
  let arguments = (ins TensorOf<[I64]>:$shape, ElementsAttr:$value);
  let results = (outs Nunc_Tensor:$output);
  let assemblyFormat = "$shape attr-dict `:` type($shape) `->` type($output)";
}

def Nunc_RangeOp : Nunc_Op<"range"> {
  let summary = "start + i * delta for i < max(ceil((limit - start) / delta), 0)";
  let description = [{
    start, limit and delta are scalars of one type. The result's length is
    known once they are constants; constant folding then replaces the op
    (nunc compiles static shapes, so a range of run-time values does not
    compile).
  }];
  let arguments = (ins Nunc_NumericTensor:$start, Nunc_NumericTensor:$limit,
                       Nunc_NumericTensor:$delta);
  let results = (outs Nunc_NumericTensor:$output);
  let assemblyFormat = "$start `,` $limit `,` $delta attr-dict `:` functional-type(operands, results)";
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

class Nunc_UnaryOp<string mnemonic, list<Trait> traits = [],
                   Type operandType = Nunc_FloatTensor>
    : Nunc_Op<mnemonic, traits> {
  let arguments = (ins operandType:$input);
  let results = (outs operandType:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}

def Nunc_SqrtOp : Nunc_UnaryOp<"sqrt"> { let summary = "Elementwise square root"; }
def Nunc_ErfOp : Nunc_UnaryOp<"erf"> { let summary = "Elementwise error function"; }
def Nunc_ExpOp : Nunc_UnaryOp<"exp"> { let summary = "Elementwise e^x"; }
def Nunc_LogOp : Nunc_UnaryOp<"log"> { let summary = "Elementwise natural logarithm"; }
def Nunc_SinOp : Nunc_UnaryOp<"sin"> { let summary = "Elementwise sine"; }
def Nunc_CosOp : Nunc_UnaryOp<"cos"> { let summary = "Elementwise cosine"; }
def Nunc_TanOp : Nunc_UnaryOp<"tan"> { let summary = "Elementwise tangent"; }
def Nunc_AsinOp : Nunc_UnaryOp<"asin"> { let summary = "Elementwise arcsine"; }
def Nunc_AcosOp : Nunc_UnaryOp<"acos"> { let summary = "Elementwise arccosine"; }
def Nunc_AtanOp : Nunc_UnaryOp<"atan"> { let summary = "Elementwise arctangent"; }
def Nunc_SinhOp : Nunc_UnaryOp<"sinh"> { let summary = "Elementwise hyperbolic sine"; }
def Nunc_CoshOp : Nunc_UnaryOp<"cosh"> { let summary = "Elementwise hyperbolic cosine"; }
def Nunc_AsinhOp : Nunc_UnaryOp<"asinh"> { let summary = "Elementwise inverse hyperbolic sine"; }
def Nunc_AcoshOp : Nunc_UnaryOp<"acosh"> { let summary = "Elementwise inverse hyperbolic cosine"; }
def Nunc_AtanhOp : Nunc_UnaryOp<"atanh"> { let summary = "Elementwise inverse hyperbolic tangent"; }
def Nunc_SoftplusOp : Nunc_UnaryOp<"softplus"> {
  let summary = "Elementwise log(exp(x) + 1), as max(x, 0) + log1p(exp(-|x|))";
}
def Nunc_AbsOp : Nunc_UnaryOp<"abs", [], Nunc_NumericTensor> {
  let summary = "Elementwise |x| (integers wrap: |INT_MIN| is INT_MIN)";
}
def Nunc_TanhOp : Nunc_UnaryOp<"tanh"> { let summary = "Elementwise tanh"; }
def Nunc_FloorOp : Nunc_UnaryOp<"floor"> { let summary = "Elementwise round down"; }
def Nunc_CeilOp : Nunc_UnaryOp<"ceil"> { let summary = "Elementwise round up"; }
def Nunc_RoundOp : Nunc_UnaryOp<"round"> {
  let summary = "Elementwise round to the nearest integer, halves to even";
}
def Nunc_ReluOp : Nunc_UnaryOp<"relu", [], Nunc_SignedNumericTensor> {
  let summary = "Elementwise max(x, 0)";
}
def Nunc_SigmoidOp : Nunc_UnaryOp<"sigmoid"> { let summary = "Elementwise 1/(1+exp(-x))"; }
def Nunc_LeakyReluOp : Nunc_Op<"leaky_relu"> {
  let summary = "Elementwise x < 0 ? alpha * x : x";
  let description = [{
    alpha must be finite: the x86 kernels compute max(x, 0) + alpha min(x,
    0) (one rounding), which an infinite alpha would make NaN for x >= 0.
  }];
  let arguments = (ins Nunc_FloatTensor:$input, DefaultValuedAttr<F32Attr, "0.01">:$alpha);
  let results = (outs Nunc_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasVerifier = 1;
}
def Nunc_HardSigmoidOp : Nunc_Op<"hard_sigmoid"> {
  let summary = "Elementwise clamp(alpha * x + beta, 0, 1)";
  let description = [{
    Made by nunc-fuse-activations from ONNX's HardSigmoid (as the
    importer spells it) and the clip(x + 3, 0, 6) / 6 that exporters write.
  }];
  let arguments = (ins TensorOf<[F32]>:$input, F32Attr:$alpha, F32Attr:$beta);
  let results = (outs TensorOf<[F32]>:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}
def Nunc_SiluOp : Nunc_Op<"silu"> {
  let summary = "Elementwise x * sigmoid(x) (SiLU, Swish)";
  let description = [{
    Made by nunc-fuse-activations from x * sigmoid(x); rounded as those two
    ops.
  }];
  let arguments = (ins TensorOf<[F32]>:$input);
  let results = (outs TensorOf<[F32]>:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}
def Nunc_HardSwishOp : Nunc_Op<"hard_swish"> {
  let summary = "Elementwise x * clamp(alpha * x + beta, 0, 1)";
  let arguments = (ins TensorOf<[F32]>:$input, F32Attr:$alpha, F32Attr:$beta);
  let results = (outs TensorOf<[F32]>:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}
def Nunc_IdentityOp : Nunc_UnaryOp<"identity", [], Nunc_Tensor> {
  let summary = "Returns its input";
  let hasFolder = 1;
}
def Nunc_GeluOp : Nunc_UnaryOp<"gelu"> {
  let summary = "Gaussian error linear unit (exact with erf, or the tanh approximation)";
  let description = [{
    The optional grids (per-tensor `!quant.uniform`, erf form only) are the
    Quantize/DequantizeLinear pairs a QDQ model keeps inside GELU: y =
    round_p(x * round_s(round_e(erf(x / sqrt 2)) + one)) * half with
    `erf_quantization` e, `sum_quantization` s, `product_quantization` p.
    `one` and `half` (with grids only; 1 and 0.5 unless given) are the
    model's own constants, which a QDQ model may have quantized too
    (quantize_static with symmetric activations: 0.99608 and 0.49804);
    `one_quantization` / `half_quantization` record the grids they are
    codes of (nunc-fuse-gelu, where erf's argument was a Div by sqrt 2 and
    1 the Add's second operand: the form of onnxruntime's steps in
    quantized_linear's gelu_qlinear_arithmetic; they do not change this
    op's values).
  }];
  let arguments = (ins Nunc_FloatTensor:$input,
                       DefaultValuedStrAttr<StrAttr, "none">:$approximate,
                       OptionalAttr<TypeAttr>:$erf_quantization,
                       OptionalAttr<TypeAttr>:$sum_quantization,
                       OptionalAttr<TypeAttr>:$product_quantization,
                       DefaultValuedAttr<F32Attr, "1.0">:$one,
                       DefaultValuedAttr<F32Attr, "0.5">:$half,
                       OptionalAttr<TypeAttr>:$one_quantization,
                       OptionalAttr<TypeAttr>:$half_quantization);
  let extraClassDeclaration = [{
    /// Whether a QDQ model's grid rounds an intermediate.
    bool hasGrids() {
      return getErfQuantization() || getSumQuantization() || getProductQuantization();
    }
  }];
}
def Nunc_CastOp : Nunc_UnaryOp<"cast", [], Nunc_Tensor> {
  let summary = "Converts elements to the element type `to`";
  let arguments = (ins Nunc_Tensor:$input, TypeAttr:$to,
                       DefaultValuedAttr<I64Attr, "1">:$saturate);
  let hasFolder = 1;
}

def Nunc_ClipOp : Nunc_Op<"clip", [AttrSizedOperandSegments]> {
  let summary = "Elementwise clamp to [min, max]; an absent bound does not clamp";
  let arguments = (ins Nunc_NumericTensor:$input, Optional<Nunc_NumericTensor>:$min,
                       Optional<Nunc_NumericTensor>:$max);
  let results = (outs Nunc_NumericTensor:$output);
  let assemblyFormat = [{
    $input (`min` $min^ `:` type($min))? (`max` $max^ `:` type($max))? attr-dict
    `:` type($input) `->` type($output)
  }];
}

class Nunc_BinaryOp<string mnemonic, list<Trait> traits = [],
                    Type operandType = Nunc_NumericTensor>
    : Nunc_Op<mnemonic, traits> {
  let arguments = (ins operandType:$lhs, operandType:$rhs);
  let results = (outs Nunc_Tensor:$output);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` functional-type(operands, results)
  }];
}

// Add, Sub, Mul, Div: an f32 result may be rounded to a per-tensor
// `output_quantization` grid last (a QDQ model's Quantize/DequantizeLinear
// pair after the op: nunc-fuse-elementwise-quantization), in the same pass.
class Nunc_ArithOp<string mnemonic> : Nunc_Op<mnemonic> {
  let arguments = (ins Nunc_NumericTensor:$lhs, Nunc_NumericTensor:$rhs,
                       OptionalAttr<TypeAttr>:$output_quantization);
  let results = (outs Nunc_Tensor:$output);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` functional-type(operands, results)
  }];
}

def Nunc_AddOp : Nunc_Op<"add"> {
  let summary = "Broadcasting lhs + rhs";
  let description = [{
    `output_quantization` (as for sub, mul and div) rounds the sum to a
    per-tensor grid. With `lhs_quantization` and `rhs_quantization` too (u8
    grids the f32 operands' values lie on: a QDQ model's Add between Q/DQ
    pairs, see nunc-one-step-requantization) the codes of the sum come as
    onnxruntime's QLinearAdd computes them: each operand's code
    qa = clamp(round_half_even(lhs / s_a) + zp_a, qmin, qmax) (the quotient
    correctly rounded; a value on the grid gives its own code), likewise
    qb, and q = clamp(round_half_even(fma(qa, rA, fma(qb, rB, F))), qmin,
    qmax) with rA = fl(s_a / s_c), rB = fl(s_b / s_c) and F = fl(zp_c -
    fma(rA, zp_a, fl(rB zp_b))) (codeSumConstants); the result is (q -
    zp_c) s_c. Rounding
    the f32 sum of the operands' values instead (the Q/DQ pairs' own
    arithmetic) lands a code apart where the two straddle a rounding
    boundary. With `signed_codes` the codes are the s8 codes of the same
    grids (each zero point 128 less, q within [-128, 127]), as a model with
    signed activations holds them (nunc-unsign-quantize-dequantize gave its
    pairs the u8 codes): the same values, the fl steps of onnxruntime's s8
    QLinearAdd.
  }];
  let arguments = (ins Nunc_NumericTensor:$lhs, Nunc_NumericTensor:$rhs,
                       OptionalAttr<TypeAttr>:$output_quantization,
                       OptionalAttr<TypeAttr>:$lhs_quantization,
                       OptionalAttr<TypeAttr>:$rhs_quantization,
                       UnitAttr:$signed_codes);
  let results = (outs Nunc_Tensor:$output);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` functional-type(operands, results)
  }];
  let extraClassDeclaration = [{
    /// Whether the sum's codes come from the operands' codes
    /// (lhs_quantization and rhs_quantization).
    bool addsCodes() { return getLhsQuantization().has_value(); }
  }];
}
def Nunc_SubOp : Nunc_ArithOp<"sub"> { let summary = "Broadcasting lhs - rhs"; }
def Nunc_MulOp : Nunc_Op<"mul"> {
  let summary = "Broadcasting lhs * rhs";
  let description = [{
    Folds x * 1 (f32, either order, the 1 not widening x, no output grid):
    exact for every x (exporters write paddle's Swish beta of 1 so).

    `output_quantization` rounds the product to a per-tensor grid. With
    `lhs_quantization` and `rhs_quantization` too (u8 grids the f32
    operands' values lie on: a QDQ model's Mul between Q/DQ pairs, such as
    an unfused LayerNorm's scale; see nunc-one-step-requantization) the
    product's codes come as onnxruntime's QLinearMul computes them: the
    operands' codes qa, qb (as nunc.add takes them), then q =
    clamp(round_half_even(fl(fl(fl((qa - zp_a)(qb - zp_b)) r) + zp_c)),
    qmin, qmax) with r = fl(fl(s_a s_b) / s_c) (read off onnxruntime 1.32's
    outputs: 0 codes apart in 6.5 x 10^6, where rounding the product's
    value instead, or adding zp_c after rounding, lands a code apart near
    halves); the result is (q - zp_c) s_c. `signed_codes`: the s8 codes of
    the same grids (zero points 128 less), as nunc.add.
  }];
  let arguments = (ins Nunc_NumericTensor:$lhs, Nunc_NumericTensor:$rhs,
                       OptionalAttr<TypeAttr>:$output_quantization,
                       OptionalAttr<TypeAttr>:$lhs_quantization,
                       OptionalAttr<TypeAttr>:$rhs_quantization,
                       UnitAttr:$signed_codes);
  let results = (outs Nunc_Tensor:$output);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` functional-type(operands, results)
  }];
  let extraClassDeclaration = [{
    /// Whether the product's codes come from the operands' codes
    /// (lhs_quantization and rhs_quantization).
    bool multipliesCodes() { return getLhsQuantization().has_value(); }
  }];
  let hasFolder = 1;
}
def Nunc_DivOp : Nunc_ArithOp<"div"> {
  let summary = "Broadcasting lhs / rhs (integer division truncates)";
}
def Nunc_PowOp : Nunc_BinaryOp<"pow"> {
  let summary = "Broadcasting lhs ^ rhs; the result has the type of lhs";
  let description = [{
    Canonicalizes x ^ 2 (a constant exponent of 2 that does not broadcast x)
    to x * x: the same correctly rounded square (numpy and onnxruntime
    square for that exponent too), computed by the elementwise kernels.
  }];
  let hasCanonicalizer = 1;
}
def Nunc_EqualOp : Nunc_BinaryOp<"equal", [], Nunc_Tensor> {
  let summary = "Broadcasting lhs == rhs, as i1";
}
def Nunc_GreaterOp : Nunc_BinaryOp<"greater"> {
  let summary = "Broadcasting lhs > rhs, as i1 (false where either is NaN)";
}
def Nunc_MinOp : Nunc_BinaryOp<"min"> {
  let summary = "Broadcasting elementwise minimum (NaN where either is NaN, as numpy's)";
}
def Nunc_MaxOp : Nunc_BinaryOp<"max"> {
  let summary = "Broadcasting elementwise maximum (NaN where either is NaN, as numpy's)";
}

def Nunc_ModOp : Nunc_Op<"mod"> {
  let summary = "Broadcasting remainder of lhs / rhs";
  let description = [{
    The remainder has the sign of rhs (Python's and numpy's %; 0 signed as
    rhs) or, with `fmod`, the sign of lhs (C's fmod; integers: the remainder
    of the truncating division). A float remainder is exact before the
    sign adjustment adds rhs; x mod 0 is NaN for floats and 0 for integers
    in compiled code (the reference evaluator reports an integer x mod 0 as
    an error, as it does x / 0).
  }];
  let arguments = (ins Nunc_NumericTensor:$lhs, Nunc_NumericTensor:$rhs, UnitAttr:$fmod);
  let results = (outs Nunc_Tensor:$output);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` functional-type(operands, results)
  }];
}
def Nunc_BitwiseAndOp : Nunc_BinaryOp<"bitwise_and", [], Nunc_IntegerTensor> {
  let summary = "Broadcasting lhs & rhs";
}
def Nunc_BitwiseOrOp : Nunc_BinaryOp<"bitwise_or", [], Nunc_IntegerTensor> {
  let summary = "Broadcasting lhs | rhs";
}
def Nunc_BitwiseXorOp : Nunc_BinaryOp<"bitwise_xor", [], Nunc_IntegerTensor> {
  let summary = "Broadcasting lhs ^ rhs";
}
def Nunc_ShiftLeftOp : Nunc_BinaryOp<"shift_left", [], Nunc_IntegerTensor> {
  let summary = "Broadcasting lhs << rhs; 0 where rhs is negative or not below the bit width";
}
def Nunc_ShiftRightOp : Nunc_BinaryOp<"shift_right", [], Nunc_IntegerTensor> {
  let summary = "Broadcasting lhs >> rhs, arithmetic for signed lhs";
  let description = [{
    A shift by a negative amount or one not below the bit width gives what
    every bit shifted out would: 0, or -1 for a negative signed lhs.
  }];
}

def Nunc_WhereOp : Nunc_Op<"where"> {
  let summary = "Broadcasting select: condition ? x : y";
  let arguments = (ins TensorOf<[I1]>:$condition, Nunc_Tensor:$x, Nunc_Tensor:$y);
  let results = (outs Nunc_Tensor:$output);
  let assemblyFormat = [{
    $condition `,` $x `,` $y attr-dict `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

def Nunc_MatMulOp : Nunc_Op<"matmul"> {
  let summary = "numpy.matmul: batched, broadcasting, 1-D operands promoted";
  let arguments = (ins Nunc_NumericTensor:$a, Nunc_NumericTensor:$b);
  let results = (outs Nunc_Tensor:$output);
  let assemblyFormat = "$a `,` $b attr-dict `:` functional-type(operands, results)";
}

def Nunc_GemmOp : Nunc_Op<"gemm"> {
  let summary = "alpha * op(A) * op(B) + beta * C, C broadcast to [M, N]";
  let arguments = (ins Nunc_NumericTensor:$a, Nunc_NumericTensor:$b,
                       Optional<Nunc_NumericTensor>:$c,
                       DefaultValuedAttr<F32Attr, "1.0">:$alpha,
                       DefaultValuedAttr<F32Attr, "1.0">:$beta,
                       DefaultValuedAttr<I64Attr, "0">:$transA,
                       DefaultValuedAttr<I64Attr, "0">:$transB);
  let results = (outs Nunc_Tensor:$output);
  let assemblyFormat = [{
    $a `,` $b (`,` $c^ `:` type($c))? attr-dict `:` type($a) `,` type($b)
    `->` type($output)
  }];
}

def Nunc_MatMulIntegerOp : Nunc_Op<"matmul_integer", [AttrSizedOperandSegments]> {
  let summary = "(A - a_zero_point) x (B - b_zero_point) in i32";
  let arguments = (ins Nunc_QuantTensor:$a, Nunc_QuantTensor:$b,
                       Optional<Nunc_QuantTensor>:$a_zero_point,
                       Optional<Nunc_QuantTensor>:$b_zero_point);
  let results = (outs TensorOf<[I32]>:$output);
  let assemblyFormat = [{
    $a `,` $b (`a_zero_point` $a_zero_point^ `:` type($a_zero_point))?
    (`b_zero_point` $b_zero_point^ `:` type($b_zero_point))? attr-dict
    `:` type($a) `,` type($b) `->` type($output)
  }];
}

def Nunc_ConvIntegerOp : Nunc_Op<"conv_integer", [AttrSizedOperandSegments]> {
  let summary = "(x - x_zero_point) conv (w - w_zero_point) in i32 (ONNX ConvInteger)";
  let description = [{
    x_zero_point is a scalar; w_zero_point a scalar or one per output
    channel. Padding is x_zero_point (it contributes nothing).
  }];
  let arguments = (ins Nunc_QuantTensor:$input, Nunc_QuantTensor:$weight,
                       Optional<Nunc_QuantTensor>:$input_zero_point,
                       Optional<Nunc_QuantTensor>:$weight_zero_point,
                       DefaultValuedStrAttr<StrAttr, "NOTSET">:$auto_pad,
                       DenseI64ArrayAttr:$dilations,
                       DefaultValuedAttr<I64Attr, "1">:$group,
                       DenseI64ArrayAttr:$kernel_shape,
                       DenseI64ArrayAttr:$pads, DenseI64ArrayAttr:$strides);
  let results = (outs TensorOf<[I32]>:$output);
  let assemblyFormat = [{
    $input `,` $weight (`input_zero_point` $input_zero_point^ `:` type($input_zero_point))?
    (`weight_zero_point` $weight_zero_point^ `:` type($weight_zero_point))? attr-dict
    `:` type($input) `,` type($weight) `->` type($output)
  }];
}

def Nunc_QLinearConvOp : Nunc_Op<"qlinear_conv"> {
  let summary = "Requantized (x - x_zero_point) conv (w - w_zero_point) + B (ONNX QLinearConv)";
  let description = [{
    The i32 sums of ConvInteger plus the i32 bias B (scale x_scale *
    w_scale, zero point 0), times x_scale * w_scale / y_scale in f32, plus
    y_zero_point, rounded half to even and saturated to y's type (that of
    y_zero_point). x_scale, x_zero_point, y_scale and y_zero_point are
    scalars; w_scale and w_zero_point a scalar or one per output channel.
  }];
  let arguments = (ins Nunc_QuantTensor:$input, Nunc_FloatTensor:$input_scale,
                       Nunc_QuantTensor:$input_zero_point,
                       Nunc_QuantTensor:$weight, Nunc_FloatTensor:$weight_scale,
                       Nunc_QuantTensor:$weight_zero_point,
                       Nunc_FloatTensor:$output_scale, Nunc_QuantTensor:$output_zero_point,
                       Optional<TensorOf<[I32]>>:$bias,
                       DefaultValuedStrAttr<StrAttr, "NOTSET">:$auto_pad,
                       DenseI64ArrayAttr:$dilations,
                       DefaultValuedAttr<I64Attr, "1">:$group,
                       DenseI64ArrayAttr:$kernel_shape,
                       DenseI64ArrayAttr:$pads, DenseI64ArrayAttr:$strides);
  let results = (outs Nunc_QuantTensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

def Nunc_QLinearMatMulOp : Nunc_Op<"qlinear_matmul"> {
  let summary = "Quantized matmul with per-tensor or per-row/column scales and zero points";
  let arguments = (ins Nunc_QuantTensor:$a, Nunc_FloatTensor:$a_scale,
                       Nunc_QuantTensor:$a_zero_point,
                       Nunc_QuantTensor:$b, Nunc_FloatTensor:$b_scale,
                       Nunc_QuantTensor:$b_zero_point,
                       Nunc_FloatTensor:$y_scale, Nunc_QuantTensor:$y_zero_point);
  let results = (outs Nunc_QuantTensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

//===----------------------------------------------------------------------===//
// Reductions and normalization
//===----------------------------------------------------------------------===//

class Nunc_ReduceOp<string mnemonic, Type dataType = Nunc_NumericTensor>
    : Nunc_Op<mnemonic> {
  let description = [{
    `ordered_f32_arithmetic` (f32 data reduced over its trailing axes, rows
    of a known multiple of 4 elements, at least 8) sums each row as
    onnxruntime's CPU kernel does (Eigen's vectorized sum of 4-float SSE
    packets, read off onnxruntime 1.32's ReduceMean: every row equal):
    two packet accumulators over the row's whole pairs of packets (element
    i in lane i mod 4 of accumulator (i / 4) mod 2), the last packet into
    the first, the two added, their lanes as (l0 + l2) + (l1 + l3); a mean
    then divides by the row's size. So a quantized model's decomposed
    LayerNorm rounds its means to the codes onnxruntime does.
  }];
  let arguments = (ins dataType:$data, Optional<TensorOf<[I64]>>:$axes,
                       DefaultValuedAttr<I64Attr, "1">:$keepdims,
                       DefaultValuedAttr<I64Attr, "0">:$noop_with_empty_axes,
                       UnitAttr:$ordered_f32_arithmetic);
  let results = (outs Nunc_Tensor:$output);
  let extraClassDeclaration = [{
    /// The row size when the op reduces static data over its trailing axes
    /// (all of them without axes); none otherwise.
    std::optional<int64_t> trailingRowSize();
  }];
  let assemblyFormat = [{
    $data (`axes` $axes^ `:` type($axes))? attr-dict `:` type($data) `->` type($output)
  }];
}

def Nunc_ReduceMeanOp : Nunc_ReduceOp<"reduce_mean"> {
  let summary = "Mean over axes (all axes when none are given, unless noop_with_empty_axes)";
}
def Nunc_ReduceSumOp : Nunc_ReduceOp<"reduce_sum"> {
  let summary = "Sum over axes (all axes when none are given, unless noop_with_empty_axes)";
}
def Nunc_ReduceMaxOp : Nunc_ReduceOp<"reduce_max", Nunc_Tensor> {
  let summary = "Maximum over axes (NaN if any is; -inf, or the type's lowest, over none)";
}
def Nunc_ReduceMinOp : Nunc_ReduceOp<"reduce_min", Nunc_Tensor> {
  let summary = "Minimum over axes (NaN if any is; +inf, or the type's highest, over none)";
}
def Nunc_ReduceProdOp : Nunc_ReduceOp<"reduce_prod"> {
  let summary = "Product over axes (1 over none; integers wrap)";
}

class Nunc_CumulativeOp<string mnemonic> : Nunc_Op<mnemonic> {
  let arguments = (ins Nunc_NumericTensor:$data, I64Attr:$axis,
                       DefaultValuedAttr<I64Attr, "0">:$exclusive,
                       DefaultValuedAttr<I64Attr, "0">:$reverse);
  let results = (outs Nunc_NumericTensor:$output);
  let assemblyFormat = "$data attr-dict `:` type($data) `->` type($output)";
}
def Nunc_CumSumOp : Nunc_CumulativeOp<"cum_sum"> {
  let summary = "Running sum along axis (exclusive: the element itself left out; reverse: "
                "from the end; integers wrap)";
}
def Nunc_CumProdOp : Nunc_CumulativeOp<"cum_prod"> {
  let summary = "Running product along axis (exclusive: the element itself left out, the "
                "first 1; reverse: from the end; integers wrap)";
}

def Nunc_TopKOp : Nunc_Op<"top_k"> {
  let summary = "The k largest (or smallest) values along axis and their i64 indices";
  let description = [{
    Sorted best first (also where `sorted` is 0: ONNX leaves that order
    open); equal values in index order; NaN after every number.
  }];
  let arguments = (ins Nunc_NumericTensor:$input, I64Attr:$k,
                       DefaultValuedAttr<I64Attr, "-1">:$axis,
                       DefaultValuedAttr<I64Attr, "1">:$largest,
                       DefaultValuedAttr<I64Attr, "1">:$sorted);
  let results = (outs Nunc_NumericTensor:$values, TensorOf<[I64]>:$indices);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($values) `,` type($indices)";
}

class Nunc_ArgExtremeOp<string mnemonic> : Nunc_Op<mnemonic> {
  let arguments = (ins Nunc_NumericTensor:$data, DefaultValuedAttr<I64Attr, "0">:$axis,
                       DefaultValuedAttr<I64Attr, "1">:$keepdims,
                       DefaultValuedAttr<I64Attr, "0">:$select_last_index);
  let results = (outs TensorOf<[I64]>:$output);
  let assemblyFormat = "$data attr-dict `:` type($data) `->` type($output)";
}
def Nunc_ArgMaxOp : Nunc_ArgExtremeOp<"arg_max"> {
  let summary = "Index (i64) of the largest value along axis (a NaN counts as largest; "
                "ties: the first, or the last with select_last_index)";
}
def Nunc_ArgMinOp : Nunc_ArgExtremeOp<"arg_min"> {
  let summary = "Index (i64) of the smallest value along axis (a NaN counts as smallest; "
                "ties: the first, or the last with select_last_index)";
}

def Nunc_SoftmaxOp : Nunc_Op<"softmax"> {
  let summary = "Softmax along one axis (ONNX opset 13 semantics)";
  let description = [{
    With `input_quantization` and `output_quantization` (per-tensor u8
    grids, both or neither; set by nunc-one-step-requantization on a QDQ
    model's Softmax between two pairs) the input's values lie on the first
    grid and the result is rounded to the second as onnxruntime's
    QLinearSoftmax computes it from the codes: with the exp table T of
    qlinearSoftmaxTable(s_x, D) (D the axis' length), a row whose largest
    step (q - zp_x) is m takes e_j = T[255 - m + k_j] for its steps k_j,
    sums them in f32 in row order, and its result is min(round_half_even(
    fl(e_j x fl(floor(fl(1 / s_y)) / sum))), 255 - zp_y) x s_y.
  }];
  let arguments = (ins Nunc_FloatTensor:$input, DefaultValuedAttr<I64Attr, "-1">:$axis,
                       OptionalAttr<TypeAttr>:$input_quantization,
                       OptionalAttr<TypeAttr>:$output_quantization);
  let results = (outs Nunc_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}

def Nunc_LayerNormOp : Nunc_Op<"layer_norm"> {
  let summary = "Normalizes over the dims from `axis` on; also returns mean and 1/stddev";
  let hasVerifier = 1;
  let description = [{
    y = (x - mean) / sqrt(var + epsilon) * scale + bias over each row of the
    dims from `axis` on; also the rows' mean and 1 / sqrt(var + epsilon).

    `ordered_f32_arithmetic` (f32, rows of a multiple of 8 elements) fixes
    every rounding as onnxruntime's CPU kernel (its MLAS AVX2 LayerNorm,
    1.32) computes them, so that a quantized model's LayerNorm between
    Q/DQ pairs rounds to the same codes: the mean is fl32(S / n), S the
    f64 sum of the row as 8 lanes (element i in lane i mod 8, in element
    order) added as a tree ((l_k + l_k+4), then (k, k+2), then 0 + 1); the
    variance sums d_i = fl32(x_i - mean) squared by f32 FMAs in 8 lanes
    likewise, then fl32(sum / n); 1/stddev = 1 / fl32(sqrt(fl32(var +
    epsilon))); y = fma(fl32(d_i x 1/stddev), scale, bias). Without it the
    result is the reals' rounded by whatever order the target's kernel takes
    (within a few ulps).

    `rms`: root-mean-square normalization (RMSNorm, as Llama-style decoders
    and ONNX's RMSNormalization compute it): no mean is subtracted,
    y = x / sqrt(mean(x^2) + epsilon) * scale + bias, and the `mean` result
    is 0. Not with ordered_f32_arithmetic.
  }];
  let arguments = (ins Nunc_FloatTensor:$input, Nunc_FloatTensor:$scale,
                       Optional<Nunc_FloatTensor>:$bias,
                       DefaultValuedAttr<I64Attr, "-1">:$axis,
                       DefaultValuedAttr<F32Attr, "1e-5">:$epsilon,
                       DefaultValuedAttr<I64Attr, "1">:$stash_type,
                       UnitAttr:$ordered_f32_arithmetic, UnitAttr:$rms);
  let extraClassDeclaration = [{
    /// The number of elements normalized together (the input's dims from
    /// `axis` on), where its type says it.
    std::optional<int64_t> rowSize();
  }];
  let results = (outs Nunc_FloatTensor:$output, Nunc_FloatTensor:$mean,
                      Nunc_FloatTensor:$inv_std_dev);
  let assemblyFormat = [{
    $input `,` $scale (`,` $bias^ `:` type($bias))? attr-dict `:` type($input) `,`
    type($scale) `->` type(results)
  }];
}

def Nunc_BatchNormOp : Nunc_Op<"batch_norm"> {
  let summary = "Inference-mode batch normalization over channel dim 1";
  let description = [{
    y = (x - mean) / sqrt(var + epsilon) * scale + bias, per channel (dim 1).
    `input_quantization` and `output_quantization` (optional per-tensor
    grids over f32, as `fake_quantize` takes) round x before and y after:
    the Quantize/DequantizeLinear pairs around a BatchNormalization that a
    QDQ model keeps when it was quantized without folding BN into the conv
    (onnxruntime's `quantize_static` on an unfolded export), fused so the
    three steps are one pass.
  }];
  let arguments = (ins Nunc_FloatTensor:$input, Nunc_FloatTensor:$scale,
                       Nunc_FloatTensor:$bias, Nunc_FloatTensor:$mean,
                       Nunc_FloatTensor:$var,
                       DefaultValuedAttr<F32Attr, "1e-5">:$epsilon,
                       OptionalAttr<TypeAttr>:$input_quantization,
                       OptionalAttr<TypeAttr>:$output_quantization);
  let results = (outs Nunc_FloatTensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

//===----------------------------------------------------------------------===//
// Data movement and shapes
//===----------------------------------------------------------------------===//

def Nunc_GatherOp : Nunc_Op<"gather"> {
  let summary = "Takes slices of data along axis at the given indices";
  let description = [{
    Indices are data dependent: the evaluator and generated code check them
    against the dimension and fail instead of reading out of bounds.
  }];
  let arguments = (ins Nunc_Tensor:$data, Nunc_IntTensor:$indices,
                       DefaultValuedAttr<I64Attr, "0">:$axis);
  let results = (outs Nunc_Tensor:$output);
  let assemblyFormat = "$data `,` $indices attr-dict `:` functional-type(operands, results)";
}

def Nunc_GatherElementsOp : Nunc_Op<"gather_elements"> {
  let summary = "out[..., i, ...] = data[..., indices[..., i, ...], ...] along axis";
  let description = [{
    The result has the indices' shape; each index picks the element of data
    at the same position but along `axis`. Indices are data dependent: the
    evaluator and generated code check them against the dimension and fail
    instead of reading out of bounds.
  }];
  let arguments = (ins Nunc_Tensor:$data, Nunc_IntTensor:$indices,
                       DefaultValuedAttr<I64Attr, "0">:$axis);
  let results = (outs Nunc_Tensor:$output);
  let assemblyFormat = "$data `,` $indices attr-dict `:` functional-type(operands, results)";
}

def Nunc_GatherNDOp : Nunc_Op<"gather_nd"> {
  let summary = "Slices of data at the index tuples in the last dim of indices";
  let description = [{
    ONNX GatherND: the result is indices' shape without its last dim (k),
    then data's dims after the first batch_dims + k. Indices are checked
    at run time against their dims.
  }];
  let arguments = (ins Nunc_Tensor:$data, TensorOf<[I64]>:$indices,
                       DefaultValuedAttr<I64Attr, "0">:$batch_dims);
  let results = (outs Nunc_Tensor:$output);
  let assemblyFormat = "$data `,` $indices attr-dict `:` functional-type(operands, results)";
}

class Nunc_ScatterOp<string mnemonic, dag indices> : Nunc_Op<mnemonic> {
  let arguments = !con((ins Nunc_Tensor:$data), indices,
                       (ins Nunc_Tensor:$updates,
                        DefaultValuedAttr<StrAttr, "\"none\"">:$reduction));
  let results = (outs Nunc_Tensor:$output);
  let assemblyFormat = [{
    $data `,` $indices `,` $updates attr-dict `:` functional-type(operands, results)
  }];
}
def Nunc_ScatterNDOp : Nunc_ScatterOp<"scatter_nd", (ins TensorOf<[I64]>:$indices)> {
  let summary = "data with the slices at the index tuples of indices replaced by (or "
                "reduced with) updates; indices checked at run time";
}
def Nunc_ScatterElementsOp
    : Nunc_ScatterOp<"scatter_elements",
                     (ins Nunc_IntTensor:$indices, DefaultValuedAttr<I64Attr, "0">:$axis)> {
  let summary = "data with the elements updates name along axis replaced by (or reduced "
                "with) them; indices checked at run time";
}

def Nunc_ReshapeOp : Nunc_Op<"reshape"> {
  let summary = "Reshape to `shape` (0 copies the input dim unless allowzero, -1 infers)";
  let arguments = (ins Nunc_Tensor:$data, TensorOf<[I64]>:$shape,
                       DefaultValuedAttr<I64Attr, "0">:$allowzero);
  let results = (outs Nunc_Tensor:$output);
  let assemblyFormat = "$data `,` $shape attr-dict `:` functional-type(operands, results)";
}

def Nunc_FlattenOp : Nunc_Op<"flatten"> {
  let summary = "Reshape to 2-D: [prod(dims before axis), prod(dims from axis)]";
  let arguments = (ins Nunc_Tensor:$input, DefaultValuedAttr<I64Attr, "1">:$axis);
  let results = (outs Nunc_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}

def Nunc_TransposeOp : Nunc_Op<"transpose"> {
  let summary = "Permutes dims: output dim i is input dim perm[i]";
  let arguments = (ins Nunc_Tensor:$input, DenseI64ArrayAttr:$perm);
  let results = (outs Nunc_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}

def Nunc_UnsqueezeOp : Nunc_Op<"unsqueeze"> {
  let summary = "Inserts size-1 dims at `axes` (positions in the output)";
  let arguments = (ins Nunc_Tensor:$data, TensorOf<[I64]>:$axes);
  let results = (outs Nunc_Tensor:$output);
  let assemblyFormat = "$data `,` $axes attr-dict `:` functional-type(operands, results)";
}

def Nunc_SqueezeOp : Nunc_Op<"squeeze"> {
  let summary = "Removes size-1 dims at `axes`, or all size-1 dims when absent";
  let arguments = (ins Nunc_Tensor:$data, Optional<TensorOf<[I64]>>:$axes);
  let results = (outs Nunc_Tensor:$output);
  let assemblyFormat = [{
    $data (`axes` $axes^ `:` type($axes))? attr-dict `:` type($data) `->` type($output)
  }];
}

def Nunc_ConcatOp : Nunc_Op<"concat"> {
  let summary = "Concatenates tensors along axis";
  let arguments = (ins Variadic<Nunc_Tensor>:$inputs, I64Attr:$axis);
  let results = (outs Nunc_Tensor:$output);
  let assemblyFormat = "$inputs attr-dict `:` functional-type($inputs, results)";
}

def Nunc_PadOp : Nunc_Op<"pad", [AttrSizedOperandSegments]> {
  let summary = "ONNX Pad: pads [begin..., end...], negative ones crop";
  let description = [{
    `mode` constant (the optional scalar `constant_value`, else 0), reflect
    (mirrored without repeating the edge), edge (the edge repeated) or wrap
    (periodic). Without `axes`, `pads` holds 2 x rank values (the importer
    spreads constant ONNX `axes` over every dim); with it (run-time pads or
    axes), 2 x len(axes). The output's dim d is in_d + begin_d + end_d.
  }];
  let arguments = (ins Nunc_Tensor:$input, TensorOf<[I64]>:$pads,
                       Optional<Nunc_Tensor>:$constant_value,
                       Optional<Nunc_IntTensor>:$axes,
                       DefaultValuedStrAttr<StrAttr, "constant">:$mode);
  let results = (outs Nunc_Tensor:$output);
  let assemblyFormat = [{
    $input `,` $pads (`value` $constant_value^ `:` type($constant_value))?
    (`axes` $axes^ `:` type($axes))? attr-dict `:` type($input) `,` type($pads) `->`
    type($output)
  }];
}

def Nunc_SliceOp : Nunc_Op<"slice", [AttrSizedOperandSegments]> {
  let summary = "numpy-style slicing with starts/ends/axes/steps tensors";
  let arguments = (ins Nunc_Tensor:$data, Nunc_IntTensor:$starts,
                       Nunc_IntTensor:$ends, Optional<Nunc_IntTensor>:$axes,
                       Optional<Nunc_IntTensor>:$steps);
  let results = (outs Nunc_Tensor:$output);
  let assemblyFormat = [{
    $data `[` $starts `:` type($starts) `,` $ends `:` type($ends)
    (`axes` $axes^ `:` type($axes))? (`steps` $steps^ `:` type($steps))? `]`
    attr-dict `:` type($data) `->` type($output)
  }];
}

def Nunc_ExpandOp : Nunc_Op<"expand"> {
  let summary = "Broadcasts input against `shape` (bidirectionally)";
  let arguments = (ins Nunc_Tensor:$input, TensorOf<[I64]>:$shape);
  let results = (outs Nunc_Tensor:$output);
  let assemblyFormat = "$input `,` $shape attr-dict `:` functional-type(operands, results)";
}

def Nunc_ShapeOp : Nunc_Op<"shape"> {
  let summary = "The shape of the input as i64, dims [start, end)";
  let arguments = (ins Nunc_Tensor:$data, DefaultValuedAttr<I64Attr, "0">:$start,
                       OptionalAttr<I64Attr>:$end);
  let results = (outs TensorOf<[I64]>:$output);
  let assemblyFormat = "$data attr-dict `:` type($data) `->` type($output)";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Convolution and pooling (NCHW)
//===----------------------------------------------------------------------===//

// Spatial attributes are always filled in by the importer (defaults
// materialized), so passes and the evaluator read them without fallbacks.
def Nunc_ConvOp : Nunc_Op<"conv"> {
  let summary = "Grouped N-d convolution, NCHW layout, weights [M, C/group, k...]";
  let description = [{
    ONNX Conv. `weight_quantization` (optional) records the grid a QDQ
    model's DequantizeLinear put the constant weight on before it folded
    (nunc-constant-folding): `!quant.uniform<i8:f32, s>` or u8 with a zero
    point, per tensor or per output channel (axis 0). Every weight value is
    fl((q - zp) * scale) of its channel's grid; it does not change what the
    conv computes, and passes that change the weight drop it. The integer
    depthwise kernel takes the model's own scales from it (see fused_conv's
    `one_step_requantization`).
  }];
  let arguments = (ins Nunc_FloatTensor:$input, Nunc_FloatTensor:$weight,
                       Optional<Nunc_FloatTensor>:$bias,
                       DefaultValuedStrAttr<StrAttr, "NOTSET">:$auto_pad,
                       DenseI64ArrayAttr:$dilations,
                       DefaultValuedAttr<I64Attr, "1">:$group,
                       DenseI64ArrayAttr:$kernel_shape,
                       DenseI64ArrayAttr:$pads, DenseI64ArrayAttr:$strides,
                       OptionalAttr<TypeAttr>:$weight_quantization);
  let results = (outs Nunc_FloatTensor:$output);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^ `:` type($bias))? attr-dict `:` type($input) `,`
    type($weight) `->` type($output)
  }];
}

def Nunc_ConvTransposeOp : Nunc_Op<"conv_transpose"> {
  let summary = "Grouped N-d transposed convolution, NCHW, weights [C, M/group, k...]";
  let description = [{
    ONNX ConvTranspose. The output's spatial dims and the pads come from
    `output_shape` (when not empty), `auto_pad`, `pads` and `output_padding`
    as ONNX says (shape::convTranspose). nunc-lower-conv-transpose rewrites
    it into a 1x1 convolution (the GEMM) and a col2im, the form the kernels
    and int8 run.
  }];
  let arguments = (ins Nunc_FloatTensor:$input, Nunc_FloatTensor:$weight,
                       Optional<Nunc_FloatTensor>:$bias,
                       DefaultValuedStrAttr<StrAttr, "NOTSET">:$auto_pad,
                       DenseI64ArrayAttr:$dilations,
                       DefaultValuedAttr<I64Attr, "1">:$group,
                       DenseI64ArrayAttr:$kernel_shape,
                       DenseI64ArrayAttr:$output_padding,
                       DenseI64ArrayAttr:$output_shape,
                       DenseI64ArrayAttr:$pads, DenseI64ArrayAttr:$strides);
  let results = (outs Nunc_FloatTensor:$output);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^ `:` type($bias))? attr-dict `:` type($input) `,`
    type($weight) `->` type($output)
  }];
}

def Nunc_Col2ImOp : Nunc_Op<"col2im"> {
  let summary = "Sums blocks [N, C*prod(block), L] into images [N, C, image...] (ONNX Col2Im)";
  let description = [{
    Block l's element (c, offset) adds to image position
    l_i * strides_i - pads_begin_i + offset_i * dilations_i along each
    spatial dim i, where it falls inside the image. `image_shape` and
    `block_shape` must be constants once shapes are known (as Reshape's
    shape).
  }];
  let arguments = (ins Nunc_FloatTensor:$input, TensorOf<[I64]>:$image_shape,
                       TensorOf<[I64]>:$block_shape, DenseI64ArrayAttr:$dilations,
                       DenseI64ArrayAttr:$pads, DenseI64ArrayAttr:$strides);
  let results = (outs Nunc_FloatTensor:$output);
  let assemblyFormat = [{
    $input `,` $image_shape `,` $block_shape attr-dict `:` functional-type(operands, results)
  }];
}

def Nunc_ResizeOp : Nunc_Op<"resize", [AttrSizedOperandSegments]> {
  let summary = "Nearest, linear or cubic interpolation along any dims (ONNX Resize)";
  let description = [{
    ONNX Resize (opset 11-19 attributes; Resize-10 and Upsample import with
    coordinate_transformation_mode "asymmetric" and nearest_mode "simple":
    floor when upsampling a dim, ceil when downsampling it, as onnxruntime
    reads them). roi, scales and sizes must be constants once shapes are
    known; every dim is interpolated separably with a fixed number of taps
    (shape::resizeAxis), so the kernels read per-dim tables computed at
    compile time; coordinates and output sizes as onnxruntime computes them
    (f32, over the integer output length). linear and cubic take float
    data; nearest any type.
  }];
  let arguments = (ins Nunc_Tensor:$input, Optional<Nunc_FloatTensor>:$roi,
                       Optional<TensorOf<[F32]>>:$scales, Optional<TensorOf<[I64]>>:$sizes,
                       DefaultValuedStrAttr<StrAttr, "nearest">:$mode,
                       DefaultValuedStrAttr<StrAttr, "half_pixel">:$coordinate_transformation_mode,
                       DefaultValuedStrAttr<StrAttr, "round_prefer_floor">:$nearest_mode,
                       DefaultValuedAttr<F32Attr, "-0.75f">:$cubic_coeff_a,
                       DefaultValuedAttr<I64Attr, "0">:$exclude_outside,
                       DefaultValuedAttr<F32Attr, "0.0f">:$extrapolation_value,
                       DefaultValuedAttr<I64Attr, "0">:$antialias,
                       OptionalAttr<DenseI64ArrayAttr>:$axes,
                       DefaultValuedStrAttr<StrAttr, "stretch">:$keep_aspect_ratio_policy);
  let results = (outs Nunc_Tensor:$output);
  let extraClassDeclaration = [{
    shape::ResizeParams getResizeParams();
    /// roi, scales and sizes as shape::resize takes them (an absent or
    /// empty one as std::nullopt); false when one is not a constant.
    bool getConstantInputs(std::optional<llvm::SmallVector<double>> &roi,
                           std::optional<llvm::SmallVector<double>> &scales,
                           std::optional<llvm::SmallVector<int64_t>> &sizes);
  }];
  let assemblyFormat = [{
    $input (`roi` $roi^ `:` type($roi))? (`scales` $scales^ `:` type($scales))?
    (`sizes` $sizes^ `:` type($sizes))? attr-dict `:` type($input) `->` type($output)
  }];
}

def Nunc_GridSampleOp : Nunc_Op<"grid_sample"> {
  let summary = "Samples NCHW input at a grid's normalized (x, y) points (ONNX GridSample)";
  let description = [{
    output[n, c, h, w] interpolates input[n, c] at grid[n, h, w] = (x, y),
    each in [-1, 1] over the input's width and height (the corner pixels'
    centers with `align_corners`, else their outer edges). `mode`: nearest
    (the coordinate rounded half to even), linear (2 x 2 taps) or cubic
    (4 x 4 taps, Keys' kernel with a = -0.75), rows interpolated first.
    `padding_mode`: zeros (taps outside read 0), border (coordinates
    clamped to the image) or reflection (coordinates reflected at the
    borders until inside); in cubic mode the taps are clamped or reflected
    one by one instead of the coordinate, as PyTorch's grid_sample and
    onnxruntime (ONNX's reference does both).
  }];
  let arguments = (ins Nunc_FloatTensor:$input, Nunc_FloatTensor:$grid,
                       DefaultValuedStrAttr<StrAttr, "linear">:$mode,
                       DefaultValuedStrAttr<StrAttr, "zeros">:$padding_mode,
                       UnitAttr:$align_corners);
  let results = (outs Nunc_Tensor:$output);
  let assemblyFormat = [{
    $input `,` $grid attr-dict `:` functional-type(operands, results)
  }];
}

def Nunc_MaxPoolOp : Nunc_Op<"max_pool"> {
  let summary = "N-d max pooling, NCHW";
  let arguments = (ins Nunc_NumericTensor:$input,
                       DefaultValuedStrAttr<StrAttr, "NOTSET">:$auto_pad,
                       DefaultValuedAttr<I64Attr, "0">:$ceil_mode,
                       DenseI64ArrayAttr:$dilations, DenseI64ArrayAttr:$kernel_shape,
                       DenseI64ArrayAttr:$pads, DenseI64ArrayAttr:$strides);
  let results = (outs Nunc_NumericTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}

def Nunc_AveragePoolOp : Nunc_Op<"average_pool"> {
  let summary = "N-d average pooling, NCHW";
  let description = [{
    With `output_quantization` (a per-tensor u8 grid (s, zp); set by
    nunc-one-step-requantization on a QDQ model's AveragePool between two
    pairs) the mean is rounded to that grid as onnxruntime's
    QLinearAveragePool computes it: the window's values (its input's grid
    values) summed in f32 in window order (rows, then columns; taps outside
    the input skipped), y = fl(sum / count), the code round_half_even(fl(y
    / s + z)) clamped to the grid, the result that code's value. z is the
    model's zero point: zp, or zp - 128 with `signed_codes` (an s8 model's
    codes, which nunc-unsign-quantize-dequantize moved up by 128); adding
    it before the rounding, not after as QuantizeLinear does, moves f32
    ties. `ordered_f32_arithmetic` (without output_quantization) fixes the
    f32 mean's roundings as onnxruntime's MLAS f32 AveragePool computes
    it (a QDQ s8 model's pool whose pairs onnxruntime converts to u8 on
    one side only, so it does not fuse them): with a stride of at most 2
    along the last dim and every window dim at most 32, each last-dim tap's
    column summed over the other dims in order, then the columns left to
    right; otherwise window order; then a division by the count. Without
    either the mean is the reals' rounded by whatever the target's kernel
    does (x86: a product by the count's reciprocal).
  }];
  let arguments = (ins Nunc_FloatTensor:$input,
                       DefaultValuedStrAttr<StrAttr, "NOTSET">:$auto_pad,
                       DefaultValuedAttr<I64Attr, "0">:$ceil_mode,
                       DefaultValuedAttr<I64Attr, "0">:$count_include_pad,
                       DenseI64ArrayAttr:$dilations, DenseI64ArrayAttr:$kernel_shape,
                       DenseI64ArrayAttr:$pads, DenseI64ArrayAttr:$strides,
                       OptionalAttr<TypeAttr>:$output_quantization,
                       UnitAttr:$signed_codes, UnitAttr:$ordered_f32_arithmetic);
  let results = (outs Nunc_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let extraClassDeclaration = [{
    /// ordered_f32_arithmetic: whether MLAS sums columns first (see the
    /// description).
    bool sumsColumnsFirst();
    /// The zero point added before the rounding (see the description).
    int32_t roundingZeroPoint();
  }];
}

def Nunc_GlobalAveragePoolOp : Nunc_Op<"global_average_pool"> {
  let summary = "Mean over all spatial dims, keeping them as size 1";
  let description = [{
    With `input_quantization` and `output_quantization` (per-tensor u8
    grids, both or neither; set by nunc-one-step-requantization) the input's
    values lie on the first grid and the mean is rounded to the second as
    onnxruntime's QLinearGlobalAveragePool computes it from the codes: with
    acc = sum(q - zp_x) over the N = H x W positions (exact) and m =
    fl(s_x / fl(s_y x N)), the result is (clamp(round_half_even(fl(float(acc)
    x m)) + zp_y, 0, 255) - zp_y) x s_y (a QDQ model's GlobalAveragePool
    between two pairs), where the plain mean sums f32 values and divides.
  }];
  let arguments = (ins Nunc_FloatTensor:$input,
                       OptionalAttr<TypeAttr>:$input_quantization,
                       OptionalAttr<TypeAttr>:$output_quantization);
  let results = (outs Nunc_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}

//===----------------------------------------------------------------------===//
// Quantization (ONNX QDQ and integer ops)
//===----------------------------------------------------------------------===//

def Nunc_QuantizeLinearOp : Nunc_Op<"quantize_linear"> {
  let summary = "saturate(round_half_even(x / scale) + zero_point), per tensor or per axis";
  let arguments = (ins Nunc_FloatTensor:$input, Nunc_FloatTensor:$scale,
                       Optional<Nunc_QuantStorageTensor>:$zero_point,
                       DefaultValuedAttr<I64Attr, "1">:$axis,
                       TypeAttr:$output_element_type);
  let results = (outs Nunc_QuantStorageTensor:$output);
  let assemblyFormat = [{
    $input `,` $scale (`,` $zero_point^ `:` type($zero_point))? attr-dict `:`
    type($input) `,` type($scale) `->` type($output)
  }];
}

def Nunc_DequantizeLinearOp : Nunc_Op<"dequantize_linear"> {
  let summary = "(x - zero_point) * scale, per tensor or per axis";
  let arguments = (ins TensorOf<[I8, UI8, I16, UI16, I32]>:$input,
                       Nunc_FloatTensor:$scale,
                       Optional<TensorOf<[I8, UI8, I16, UI16, I32]>>:$zero_point,
                       DefaultValuedAttr<I64Attr, "1">:$axis);
  let results = (outs Nunc_FloatTensor:$output);
  let assemblyFormat = [{
    $input `,` $scale (`,` $zero_point^ `:` type($zero_point))? attr-dict `:`
    type($input) `,` type($scale) `->` type($output)
  }];
}

def Nunc_DynamicQuantizeLinearOp : Nunc_Op<"dynamic_quantize_linear"> {
  let summary = "u8 quantization with scale and zero point from the tensor's range";
  let arguments = (ins TensorOf<[F32]>:$input);
  let results = (outs TensorOf<[UI8]>:$output, TensorOf<[F32]>:$scale,
                      TensorOf<[UI8]>:$zero_point);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type(results)";
}

//===----------------------------------------------------------------------===//
// Fused ops (made by the fusion passes; each has a reference semantics in the
// evaluator, so a fusion can be checked by running both graphs)
//===----------------------------------------------------------------------===//

// Activations a fused op applies last: none, relu, gelu (erf), gelu_tanh,
// sigmoid, tanh, clip (clamp to [activation_min, activation_max]),
// leaky_relu (x < 0 ? activation_alpha * x : x), hard_sigmoid
// (clamp(activation_alpha * x + activation_beta, 0, 1)), hard_swish
// (x * hard_sigmoid(x)), silu (x * sigmoid(x)); then y * activation_post_mul + activation_post_add
// (a scalar Mul and Add after the activation, rounded as those two ops).
class Nunc_ActivationAttrs {
  dag activationAttrs = (ins DefaultValuedStrAttr<StrAttr, "none">:$activation,
                             DefaultValuedAttr<F32Attr, "0.0">:$activation_min,
                             DefaultValuedAttr<F32Attr, "0.0">:$activation_max,
                             DefaultValuedAttr<F32Attr, "0.01">:$activation_alpha,
                             DefaultValuedAttr<F32Attr, "0.0">:$activation_beta,
                             DefaultValuedAttr<F32Attr, "1.0">:$activation_post_mul,
                             DefaultValuedAttr<F32Attr, "0.0">:$activation_post_add);
}

def Nunc_LinearOp : Nunc_Op<"linear", [AttrSizedOperandSegments]>, Nunc_ActivationAttrs {
  let summary = "activation(input x weight + bias + residual)";
  let description = [{
    input is [..., M, K], weight is [K, N] (a constant in practice), bias is
    [N], residual has the shape of the result [..., M, N]. Fusion folds
    MatMul/Gemm, bias and residual adds, transposes of the weight and the
    activation into one op, so a GEMM kernel does all of it in its epilogue.
  }];
  let arguments = !con((ins Nunc_FloatTensor:$input, Nunc_FloatTensor:$weight,
                            Optional<Nunc_FloatTensor>:$bias,
                            Optional<Nunc_FloatTensor>:$residual),
                       activationAttrs);
  let results = (outs Nunc_FloatTensor:$output);
  let assemblyFormat = [{
    $input `,` $weight (`bias` $bias^ `:` type($bias))?
    (`residual` $residual^ `:` type($residual))? attr-dict `:` type($input) `,`
    type($weight) `->` type($output)
  }];
}

def Nunc_QuantizedLinearOp : Nunc_Op<"quantized_linear", [AttrSizedOperandSegments]>,
                             Nunc_ActivationAttrs {
  let summary = "activation(input x weight + bias + residual) in int8 (W8A8)";
  let description = [{
    The int8 form of `linear` that `--nunc-quantize-int8` produces. weight is
    [K, N] of `!quant.uniform<i8:f32:1, {...}>`: s8, symmetric (zero points
    0), one scale per output column (a per-tensor `!quant.uniform<i8:f32,
    s>` is accepted too); it comes from `quant.scast` of an i8 constant.
    The weight may also be u8 with zero points (`!quant.uniform<u8:f32:1,
    {s:zp, ...}>` or per tensor, from an i8 constant holding the codes:
    onnxruntime's QUInt8 weights), with dynamic or static activations and
    an f32 or u8 input; the products are then (a - za) (w - zw), still
    exact in s32.
    `activation_quantization = "dynamic_per_row"`: each row of the f32
    input is quantized at run time to u8 with its own scale and zero point
    (ONNX DynamicQuantizeLinear applied row by row); `"dynamic_per_tensor"`
    quantizes the whole input with one range, as DynamicQuantizeLinear does
    (what onnxruntime's `quantize_dynamic` models compute); `"static"`
    quantizes with the fixed `input_quantization` type, e.g.
    `!quant.uniform<u8:f32, 0.0235:118>` (from calibration), or a u16 grid
    `!quant.uniform<u16:f32, s:zp>` (an A16W8 QDQ model's 16-bit
    activations; s8 weights only): clamp(round_half_even(x / s) + zp, 0,
    65535); the sums are then exact in s64 (x86 computes the high and low
    bytes' sums each exactly in s32 and adds them in f32, which rounds
    again where they pass 2^24: ~1 ulp, K > 514). Products
    accumulate exactly in s32; the result is dequantized as
    float(sum) * (scale_input * scale_weight), then bias, residual and the
    activation apply in f32, as in `linear`. With `output_quantization`
    (a per-tensor `!quant.uniform`, as `fake_quantize` takes), the result is
    finally rounded to that grid in the epilogue: a Quantize/DequantizeLinear
    pair after the GEMM, fused into it.

    Static u8 activations can also travel between GEMMs already quantized
    (`nunc-fuse-activation-quantization`): the input may be a tensor of
    `!quant.uniform<u8:f32, scale:zp>` (from `nunc.quantize` or another
    quantized_linear; then activation_quantization is "static" and the
    element type is the input quantization, with no input_quantization
    attribute), and with `u8_output` the result is the u8 tensor of
    `output_quantization` instead of f32: the epilogue quantizes
    clamp(round_half_even(y / scale) + zp, 0, 255), what the next layer's
    static quantizer would have computed from the f32 result (after an
    approximated activation such as GELU the x86 kernels multiply by the
    reciprocal: a code apart at most, at rounding ties).

    `product_quantization` (a per-tensor grid, optional) rounds the
    dequantized product to that grid before the bias is added: a QDQ model's
    Q/DQ pair between the MatMul and its bias Add. `bias_quantization`
    rounds the sum after the bias (if any), before the residual: the Q/DQ
    pair between the bias Add and a residual Add.
    `activation_input_quantization` rounds the sum after the residual,
    before the activation: the Q/DQ pair between a QDQ model's GEMM and its
    GELU, whose own pairs inside are `gelu_erf_quantization`,
    `gelu_sum_quantization` and `gelu_product_quantization`, with its
    constants `gelu_one` and `gelu_half` (as on `nunc.gelu`; activation
    "gelu" only). The epilogue's order: product,
    product grid, bias, bias grid, residual, activation input grid,
    activation, output grid.

    `bias_codes_quantization`: the bias's values are the codes of this u8
    grid, and `bias_first`: the bias was its Add's first operand (a QDQ
    model's bias Add; nunc-fuse-linear records both).
    `one_step_requantization` (a static u8 input, a product grid, a
    bias on `bias_codes_quantization`, and a grid right after the bias:
    gridAfterBias) computes the product
    and the bias as onnxruntime runs the QDQ model's MatMul and bias Add
    (QLinearMatMul, then QLinearAdd): the product's code from the exact s32
    sum in one multiply (qlinearMatMulCode, multiplier fl(fl(s_x s_w[n]) /
    s_p)), then the bias's code added to it as QLinearAdd adds codes
    (codeSumConstants; `bias_first`: the bias was the Add's first operand,
    QLinearAdd's A, else its second) onto that grid, whose value goes on
    through the rest of the epilogue. With `residual_quantization` too (the
    u8 grid the residual's values lie on; the bias's grid is then
    bias_quantization) the residual's code is added to that sum's code as
    QLinearAdd adds them (`residual_first`: the residual was the Add's
    first operand) onto the grid right after the residual
    (gridAfterResidual). nunc-fuse-linear sets `residual_first` wherever
    it takes a residual from an Add's first operand. `signed_codes` (a
    model with s8 activations written as QLinear operators: their u8 grids
    are the s8 ones 128 higher, bias_codes_quantization an s8 grid): the
    QLinearAdds add s8 codes (the u8 ones minus 128, zero points likewise)
    as onnxruntime's s8 kernel does; the product's code is the same either
    way. Without it bias_codes_quantization is a u8 grid.

    `f32_product_k_block` (a static input, product_quantization) computes
    the product that product_quantization rounds as onnxruntime runs a QDQ
    model's MatMul that it leaves in f32 (s8 activations whose Q/DQ pair
    it keeps signed: the pair has several readers; 4-bit weights, for which
    it has no QLinearMatMul): from the dequantized codes fl((q - zp) s_x)
    and weights fl((w - zw) s_w[n]), summed as MLAS's sgemm sums them: a
    chain of FMAs over each block of this many k, from zero, the blocks'
    sums added in order (mlasSgemmKBlock gives MLAS's block for the GEMM's
    N and K). With one_step_requantization (an 8-bit product grid: a u8
    model's 4-bit MatMul, whose bias Add onnxruntime runs as a QLinearAdd)
    the product's code is QuantizeLinear's of that sum (u8CodeOf: its
    quotient by s_p rounded, plus zp), and the bias's code is added to it
    as above.
    `qlinear_product` (a static input, an 8-bit product_quantization, not
    one_step_requantization) takes the product's code as onnxruntime's
    QLinearMatMul computes it (qlinearMatMulCode: one multiply of the exact
    sum by fl(fl(s_x s_w[n]) / s_p)), and its value on through the rest of
    the epilogue as without it: a QDQ model with s8 activations whose
    MatMul onnxruntime runs as a QLinearMatMul (its pairs converted to u8)
    and whose bias Add it leaves in f32 (the bias's DequantizeLinear stays
    s8).

    `gelu_one_quantization` / `gelu_half_quantization`: the grids whose
    codes the model's GELU constants 1 and 0.5 are (nunc-fuse-gelu takes
    them from the Add and Mul reading the folded constants,
    nunc.lhs_codes_grid / rhs_codes_grid). With them,
    `gelu_qlinear_arithmetic` (u8 grids: the activation input's, the
    GELU's three, the two constants' and the output's) computes the GELU
    as onnxruntime runs a QDQ or QOperator model's (qlinearGeluCode): Div by
    sqrt 2 and Erf in f32 on the input code's value, QuantizeLinear onto
    the erf grid, QLinearAdd of the constant 1's code (the sum grid),
    QLinearMul of the input's code and the sum's (the product grid), and
    QLinearMul of that and the constant 0.5's code onto the output grid.
    With `signed_codes` (a QLinear-operator model with s8 activations) the
    QLinearAdd and QLinearMuls take s8 codes, as its GEMM's steps do (the
    constants' grids then s8 as the model stores them).
  }];
  let arguments = !con((ins AnyTensor:$input, AnyRankedTensor:$weight,
                            Optional<Nunc_FloatTensor>:$bias,
                            Optional<Nunc_FloatTensor>:$residual,
                            DefaultValuedStrAttr<StrAttr, "dynamic_per_row">:
                                $activation_quantization,
                            OptionalAttr<TypeAttr>:$input_quantization,
                            OptionalAttr<TypeAttr>:$output_quantization,
                            UnitAttr:$u8_output,
                            OptionalAttr<TypeAttr>:$product_quantization,
                            OptionalAttr<TypeAttr>:$bias_quantization,
                            OptionalAttr<TypeAttr>:$activation_input_quantization,
                            OptionalAttr<TypeAttr>:$gelu_erf_quantization,
                            OptionalAttr<TypeAttr>:$gelu_sum_quantization,
                            OptionalAttr<TypeAttr>:$gelu_product_quantization,
                            DefaultValuedAttr<F32Attr, "1.0">:$gelu_one,
                            DefaultValuedAttr<F32Attr, "0.5">:$gelu_half),
                       activationAttrs,
                       (ins UnitAttr:$one_step_requantization,
                            OptionalAttr<TypeAttr>:$bias_codes_quantization,
                            UnitAttr:$bias_first,
                            OptionalAttr<TypeAttr>:$residual_quantization,
                            UnitAttr:$residual_first,
                            UnitAttr:$signed_codes,
                            OptionalAttr<I64Attr>:$f32_product_k_block,
                            UnitAttr:$qlinear_product,
                            OptionalAttr<TypeAttr>:$gelu_one_quantization,
                            OptionalAttr<TypeAttr>:$gelu_half_quantization,
                            UnitAttr:$gelu_qlinear_arithmetic));
  let results = (outs AnyTensor:$output);
  let extraClassDeclaration = [{
    /// The static u8 quantization of the input: its element type when it
    /// arrives quantized, else input_quantization (absent: dynamic).
    std::optional<::mlir::quant::UniformQuantizedType> staticInputQuantization();
    /// The constants of gelu_qlinear_arithmetic (its u8 grids and the
    /// constants' codes); none without it.
    std::optional<::mlir::nunc::QLinearGelu> qlinearGeluSteps();
    /// Whether a QDQ model's grids round inside the GELU activation.
    bool hasGeluGrids() {
      return getGeluErfQuantization() || getGeluSumQuantization() ||
             getGeluProductQuantization();
    }
    /// The grid that rounds the sum right after the bias: bias_quantization,
    /// else (no residual) activation_input_quantization, else (no
    /// activation either) output_quantization; none.
    std::optional<::mlir::Type> gridAfterBias() {
      if (getBiasQuantization())
        return getBiasQuantization();
      if (getResidual())
        return std::nullopt;
      if (getActivationInputQuantization())
        return getActivationInputQuantization();
      if (getActivation() != "none")
        return std::nullopt;
      return getOutputQuantization();
    }
    /// The grid that rounds the sum right after the residual:
    /// activation_input_quantization, else (no activation)
    /// output_quantization; none.
    std::optional<::mlir::Type> gridAfterResidual() {
      if (getActivationInputQuantization())
        return getActivationInputQuantization();
      if (getActivation() != "none")
        return std::nullopt;
      return getOutputQuantization();
    }
  }];
  let assemblyFormat = [{
    $input `,` $weight (`bias` $bias^ `:` type($bias))?
    (`residual` $residual^ `:` type($residual))? attr-dict `:` type($input) `,`
    type($weight) `->` type($output)
  }];
}

def Nunc_QuantizedConvOp : Nunc_Op<"quantized_conv", [AttrSizedOperandSegments]>,
                           Nunc_ActivationAttrs {
  let summary = "activation(conv(input, weight) + bias + residual) in int8 (W8A8)";
  let description = [{
    The int8 form of a 2-D `fused_conv`. weight is [M, C / group, kh, kw]
    of `!quant.uniform<i8:f32:0, {...}>` (s8, symmetric, one scale per
    output channel; a per-tensor type is accepted too), or of
    `!quant.uniform<u8:f32:0, {scale:zp, ...}>` (u8 with zero points in
    [0, 255], per channel or per tensor: the products are (w - zp) x), from
    `quant.scast` of an i8 constant (u8 codes as their bytes). The f32 NCHW input is quantized to u8 with one (scale,
    zero point) for the whole tensor: at run time from its range, as ONNX
    DynamicQuantizeLinear does (`activation_quantization =
    "dynamic_per_tensor"`, the default), or with the fixed
    `input_quantization` type (`"static"`, from calibration or a QDQ
    model). Padding is the quantized zero (the zero point), so it contributes
    nothing. Products accumulate exactly in s32; output channel m is
    float(sum) * fl(scale_input * scale_weight[m]), then bias, residual and
    the activation apply in f32 as in `fused_conv`, and `output_quantization`
    (optional) rounds the result to a grid, as in `quantized_linear`.

    `norm_scale` and `norm_shift` ([M] f32, together) then apply
    y * norm_scale[m] + norm_shift[m] (an f32 product, then the sum, as
    onnxruntime's BatchNormalization) and
    `norm_quantization` (optional) rounds that: a BatchNormalization a QDQ
    model keeps after the conv's output Q/DQ pair (with its own pair after
    it), computed in the epilogue. Its a = 1 / sqrt(var + eps) * gamma and
    b = beta - mean * a are formed at compile time in f32 steps as
    onnxruntime forms them (BatchNormParams::affineF32).

    With `u8_output` the result is the u8 codes of the last grid (the
    `norm_quantization` with a norm, else `output_quantization`, a
    `!quant.uniform<u8:f32, scale:zp>` that is then the result's element
    type): the epilogue writes the integers the grid rounds to instead of
    their f32 values (a static activation handed to the next convolution,
    see nunc-fuse-conv-activation-quantization). Likewise the input may
    hold u8 codes (`!quant.uniform<u8:f32, scale:zp>`, a depthwise conv's
    u8 output): they are the quantized input itself, with
    `activation_quantization = "static"` and no `input_quantization`.

    With `output_table` (f32, one entry per code of the last grid, which
    it needs) the result at code q of that grid is output_table[q - qmin]
    instead of the code's value: an elementwise function of the rounded
    result (an `elementwise_chain` a QDQ model applies after the conv,
    tabulated at compile time; see nunc-fuse-chain-into-conv), looked up
    in the epilogue. `table_quantization` (a per-tensor grid, with a table
    only) rounds the entries; with `u8_output` it is the u8 grid whose
    codes the result holds, in place of the last grid.

    `one_step_requantization` (with an `output_quantization` of
    `!quant.uniform<u8:f32, scale:zp>` and a static input: fixed
    `input_quantization` or u8 codes; no residual; activation none, Relu
    or Clip) computes the codes of
    the output grid as
    onnxruntime's QLinearConv requantizes: with acc the exact s32 sum of
    (x - zp_x)(w - zw) and s[m] = fl(scale_input * scale_weight[m]),
    q = clamp(round_half_even(fl(float(acc + bq[m]) * fl(s[m] / s_y)))
    + zp_y, lo, hi), where bq[m] = round_half_even(bias[m] / s[m]) (the
    bias on the sums' own grid, in double; 0 without bias), float() rounds
    to nearest even, and the activation bounds the codes: [lo, hi] =
    [0, 255], with Relu [zp_y, 255], with Clip(a, b) [zp_y + round(a / s_y),
    zp_y + round(b / s_y)] within [0, 255] (quotients correctly rounded,
    then rounded half to even). One multiply per value where the two-step
    form scales, adds the bias and divides by s_y exactly; a QDQ model's
    bias, an int32 on s[m]'s grid, then computes exactly as onnxruntime
    runs it (see nunc-one-step-requantization). The rest of the epilogue
    takes those codes: written as they are (`u8_output` without a
    normalization or table), looked up in the table at them (without a
    normalization: a QDQ model's elementwise chain after the conv), or as
    their values (q - zp_y) s_y, normalized and rounded to the last grid
    as above.

    `f32_product_k_block` (a static input, not one_step_requantization)
    computes the conv in f32 as onnxruntime runs a QDQ model's Conv that it
    leaves in f32 (s8 activations whose Q/DQ pair has several readers, so
    it keeps the pair signed): from the dequantized input fl((q - zp) s_x)
    (padding 0) and weights fl((w - zw) s_w[m]), each output a sum over
    k = (c kh + i) kw + j (MLAS's im2col order) of FMA chains from zero over
    blocks of this many k, the blocks' sums added in order (MLAS's sgemm
    with M = output channels, N = output positions: mlasSgemmKBlock(N, K)),
    then + bias in f32 and the rest of the epilogue as above, in place of
    the exact integer sum and its scale.

    With `group` G > 1 (ONNX Conv's group: not a depthwise conv, which is a
    `fused_conv` with an output grid) output channel m sums over input
    channels [g C / G, (g + 1) C / G) of group g = m / (M / G) only; the
    input's quantization and everything after the sums are as above;
    f32_product_k_block does not go with it.
  }];
  let arguments = !con((ins AnyTensor:$input, AnyRankedTensor:$weight,
                            Optional<Nunc_FloatTensor>:$bias,
                            Optional<Nunc_FloatTensor>:$residual,
                            Optional<Nunc_FloatTensor>:$norm_scale,
                            Optional<Nunc_FloatTensor>:$norm_shift,
                            DefaultValuedStrAttr<StrAttr, "dynamic_per_tensor">:
                                $activation_quantization,
                            OptionalAttr<TypeAttr>:$input_quantization,
                            OptionalAttr<TypeAttr>:$output_quantization,
                            OptionalAttr<TypeAttr>:$norm_quantization,
                            DefaultValuedStrAttr<StrAttr, "NOTSET">:$auto_pad,
                            DenseI64ArrayAttr:$dilations,
                            DenseI64ArrayAttr:$kernel_shape,
                            DenseI64ArrayAttr:$pads, DenseI64ArrayAttr:$strides),
                       activationAttrs, (ins UnitAttr:$u8_output,
                                             OptionalAttr<DenseF32ArrayAttr>:$output_table,
                                             OptionalAttr<TypeAttr>:$table_quantization,
                                             UnitAttr:$one_step_requantization,
                                             OptionalAttr<I64Attr>:$f32_product_k_block,
                                             DefaultValuedAttr<I64Attr, "1">:$group));
  let results = (outs AnyTensor:$output);
  let assemblyFormat = [{
    $input `,` $weight (`bias` $bias^ `:` type($bias))?
    (`residual` $residual^ `:` type($residual))?
    (`norm` $norm_scale^ `,` $norm_shift `:` type($norm_scale) `,` type($norm_shift))?
    attr-dict `:` type($input) `,` type($weight) `->` type($output)
  }];
  let extraClassDeclaration = [{
    /// The grid the epilogue rounds to last (norm_quantization after a
    /// normalization, else output_quantization), if any.
    std::optional<::mlir::Type> getLastGrid() {
      return getNormScale() ? getNormQuantization() : getOutputQuantization();
    }
  }];
}

def Nunc_FakeQuantizeOp : Nunc_Op<"fake_quantize"> {
  let summary = "x rounded to a quantization grid, kept in f32 (QuantizeLinear then DequantizeLinear)";
  let description = [{
    `quantization` is a per-tensor `!quant.uniform<st:f32, scale:zp>`;
    the result is (clamp(round_half_even(x / scale) + zp, qmin, qmax) - zp)
    * scale, exactly what an ONNX QuantizeLinear followed by a
    DequantizeLinear with the same scale and zero point compute, in one pass
    and without the integer tensor in between. QDQ models put such a pair on
    almost every activation.
  }];
  let arguments = (ins TensorOf<[F32]>:$input, TypeAttr:$quantization);
  let results = (outs TensorOf<[F32]>:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}

def Nunc_ElementwiseChainOp : Nunc_Op<"elementwise_chain"> {
  let summary = "A chain of f32 elementwise steps computed in one pass";
  let description = [{
    Values 0 .. n-1 are the inputs (f32, each of the result's shape); step
    i computes value n + i, and the result is the last step's value. Each
    entry of `steps` is a dictionary:
      `op`: "add", "sub", "mul", "div" (two `args`), "relu", "clip"
        (optional f32 `min`, `max`), "hard_sigmoid", "hard_swish" (f32
        `alpha`, `beta`) or "fake_quantize" (one `args`, `grid` required);
      `args`: array<i64> of earlier values; -1 stands for the f32
        `constant` (at most one of a binary step's two);
      `grid` (optional, a per-tensor `!quant.uniform`): the step's result
        rounded to it last, as a fake_quantize after the op.
    Each step computes exactly what the op it stands for computes on a
    tensor, element by element, so the chain equals those ops in sequence.
    nunc-fuse-elementwise-chains makes it from a QDQ model's runs of
    elementwise ops with a grid after each (PP-LCNet's scale and shift
    around a decomposed hard-swish); the x86 kernel keeps every value in
    registers instead of a pass over memory per op.
  }];
  let arguments = (ins Variadic<TensorOf<[F32]>>:$inputs, ArrayAttr:$steps);
  let results = (outs TensorOf<[F32]>:$output);
  let assemblyFormat = "$inputs attr-dict `:` functional-type($inputs, results)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// One entry of `steps`, decoded.
    struct Step {
      enum Kind { Add, Sub, Mul, Div, Relu, Clip, HardSigmoid, HardSwish, FakeQuantize };
      Kind kind = Add;
      ::llvm::SmallVector<int64_t, 2> args; // -1: `constant`
      float constant = 0;
      std::optional<float> min, max; // clip
      float alpha = 0, beta = 0;     // hard_sigmoid, hard_swish
      std::optional<::mlir::quant::UniformQuantizedType> grid;
      bool binary() const { return kind <= Div; }
    };
    /// The entry as a Step, or a failure reported through `emitError`.
    static ::mlir::FailureOr<Step> decodeStep(
        ::mlir::Attribute entry, ::llvm::function_ref<::mlir::InFlightDiagnostic()> emitError);
    static ::mlir::DictionaryAttr encodeStep(::mlir::MLIRContext *context, const Step &step);
    static ::llvm::StringRef kindName(Step::Kind kind);
    /// The verified steps.
    ::llvm::SmallVector<Step> getDecodedSteps();
  }];
}

def Nunc_DynamicFakeQuantizeOp : Nunc_Op<"dynamic_fake_quantize"> {
  let summary = "x rounded to the u8 grid DynamicQuantizeLinear picks for it, kept in f32";
  let description = [{
    DequantizeLinear(DynamicQuantizeLinear(x)) in one op: the grid is the
    one DynamicQuantizeLinear derives from the whole tensor's range (0
    included), the result (q - zero_point) * scale. onnxruntime's
    `quantize_dynamic` puts it before every integer op nunc runs in f32
    (u8 weights with zero points, grouped convolutions); without the u8
    tensor in between, a producer that measures the range as it stores
    leaves one rounding pass.
  }];
  let arguments = (ins TensorOf<[F32]>:$input);
  let results = (outs TensorOf<[F32]>:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}

def Nunc_QuantizeOp : Nunc_Op<"quantize"> {
  let summary = "f32 to the u8 of a per-tensor !quant.uniform (a static int8 GEMM's input)";
  let description = [{
    `quantization` is `!quant.uniform<u8:f32, scale:zp>`; the result holds
    clamp(round_half_even(x / scale) + zp, 0, 255) as that type, the rows a
    static quantized_linear reads. One quantize serves every GEMM that reads
    the same tensor with the same quantization (Q, K and V after a
    LayerNorm).
  }];
  let arguments = (ins TensorOf<[F32]>:$input, TypeAttr:$quantization);
  let results = (outs AnyTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}

def Nunc_AttentionOp : Nunc_Op<"attention"> {
  let summary = "Multi-head softmax(Q K^T * scale + mask) V on [B, S, H*D] or [B, H, S, D] tensors";
  let description = [{
    query is [B, S, H*D], key and value are [B, T, H*D]; the heads are the
    num_heads contiguous slices of the last dim. mask is additive and
    broadcasts to [B, H, S, T]. The result is [B, S, H*D] with the heads
    merged back, which is what the exported Reshape/Transpose chains compute.

    query, key and value are f32, or all three hold the u8 codes of their
    own per-tensor grids (element type `!quant.uniform<u8:f32, scale:zp>`),
    read as their values (q - zp) * scale: a QDQ model's Q, K and V as
    their GEMMs write them (nunc-fuse-attention-quantization). The mask and
    the result are f32.

    The optional grids (per-tensor `!quant.uniform`, as fake_quantize's) are
    the Quantize/DequantizeLinear pairs a QDQ model keeps inside attention,
    each rounding one intermediate: `scores_quantization` Q K^T,
    `scaled_quantization` the scaled scores, `logits_quantization` the
    masked ones (the softmax input), `probs_quantization` the softmax
    output, `output_quantization` P V (before the heads merge, which moves
    values without changing them).

    With `input_offsets = array<i64: q, k, v>` and `input_width = E`, the
    operands may be wider than E: the heads of query, key and value are the
    E columns starting at those offsets of their last dims, and the result
    is [B, S, E]. nunc-fuse-attention-projections uses this to read Q, K
    and V from the one GEMM that computes all three ([B, S, 3E], the same
    value three times).

    `heads_major = array<i1: q, k, v, out>` marks the operands (and the
    result) that are laid out heads first, [B, heads, length, D], as
    exported decoders hold them after their rotary embedding or past
    concatenation, instead of [B, length, heads*D]. `kv_heads` (a divisor
    of num_heads, default num_heads): key and value hold that many heads,
    query head h reading key and value head h / (num_heads / kv_heads)
    (grouped query attention, without repeating K and V). Both are f32 /
    float only, without packed operands.

    `scale_divisor`: the model divided the scores by this constant (`scale`
    is its reciprocal); without it, it multiplied them by `scale`.

    `qlinear_arithmetic` (u8 codes in, the scores', scaled scores',
    probabilities' and output's grids; with a mask, the masked scores'
    grid and `mask_quantization`, the u8 grid the mask's values lie on)
    computes each grid as onnxruntime runs a QDQ model's attention
    (QLinearMatMul, an f32 Div or Mul, QLinearAdd, QLinearSoftmax,
    QLinearMatMul; nunc/Dialect/Nunc/OneStepRequantization.h): Q K^T's
    exact integer sum to the scores' codes in one multiply
    (qlinearMatMulCode); each scores code dequantized, divided by
    `scale_divisor` (or times `scale`) and quantized (qlinearScaledCodes);
    the mask's code added as QLinearAdd adds codes (qlinearAddCode);
    the softmax from onnxruntime's exponential table, its f32 row sum in
    key order and its multiplier floor(1 / s_p) (qlinearSoftmaxCode,
    probabilities a little below the Softmax's); P V to the output's codes
    in one multiply. The result is those codes' values. With
    `signed_codes` the model's codes were s8 (the u8 codes here minus 128,
    of the same grids): the mask's codes add as onnxruntime's s8 QLinearAdd
    adds them; the other steps give the same codes either way.

    `int8_products` (f32 operands, no grids; nunc-quantize-attention sets
    it): both products run on int8 codes. Per (batch, head), Q, K and V
    each take a symmetric s8 grid of their own, step m / 127 with m the
    largest magnitude over that head's rows (at least 2^-100), codes
    round(x * (127 / m)) half to even; the scores are the codes' exact
    integer dot products times both steps and `scale` (plus the mask); the
    softmax's e = exp(x - the row's largest), in (0, 1], become u8 codes
    round(255 e); the result is the exact sum of those codes times V's
    codes, divided by the row's sum of codes, times V's step. (A step per
    head and probabilities relative to their row's largest code keep the
    output's 1 - cosine against f32 attention ~40 times below a probability
    grid of 1/255's, onnxruntime's, on MiniLM and BERT-base shapes.)

    With `u8_output` (a u8 `output_quantization`, the result not heads
    first) the result is the u8 codes of that grid, clamp(round(y / s) + zp,
    0, 255) with the row quantizer's arithmetic (the x86 kernel's f32 P V
    multiplies by the reciprocal folded into each row's factor: a code
    apart at most, at rounding ties): the static input of the
    GEMM after it, which nunc-fuse-activation-quantization folds in where
    the target's attention kernel writes codes.
  }];
  let arguments = (ins AnyTensor:$query, AnyTensor:$key,
                       AnyTensor:$value, Optional<Nunc_FloatTensor>:$mask,
                       I64Attr:$num_heads, F32Attr:$scale,
                       OptionalAttr<F32Attr>:$scale_divisor,
                       UnitAttr:$qlinear_arithmetic, UnitAttr:$signed_codes,
                       OptionalAttr<TypeAttr>:$mask_quantization,
                       OptionalAttr<DenseI64ArrayAttr>:$input_offsets,
                       OptionalAttr<I64Attr>:$input_width,
                       OptionalAttr<DenseBoolArrayAttr>:$heads_major,
                       OptionalAttr<I64Attr>:$kv_heads,
                       OptionalAttr<TypeAttr>:$scores_quantization,
                       OptionalAttr<TypeAttr>:$scaled_quantization,
                       OptionalAttr<TypeAttr>:$logits_quantization,
                       OptionalAttr<TypeAttr>:$probs_quantization,
                       OptionalAttr<TypeAttr>:$output_quantization,
                       UnitAttr:$u8_output, UnitAttr:$int8_products);
  let results = (outs AnyTensor:$output);
  let hasVerifier = 1;
  let assemblyFormat = [{
    $query `,` $key `,` $value (`mask` $mask^ `:` type($mask))? attr-dict `:`
    type($query) `,` type($key) `,` type($value) `->` type($output)
  }];
  let extraClassDeclaration = [{
    /// The columns [offset, offset + width) of operand i (0 query, 1 key,
    /// 2 value) that hold its heads.
    int64_t inputOffset(unsigned i);
    /// E = H*D: input_width, else the query's last dim (num_heads * D with
    /// a heads-major query).
    int64_t hiddenSize();
    /// Whether operand i (0 query, 1 key, 2 value) or, for i = 3, the
    /// result is [B, heads, length, D] (heads_major).
    bool isHeadsMajor(unsigned i) {
      return getHeadsMajor() && getHeadsMajor()->size() == 4 && (*getHeadsMajor())[i];
    }
    /// The heads of key and value: kv_heads, else num_heads.
    int64_t numKvHeads() {
      return getKvHeadsAttr() ? getKvHeadsAttr().getInt()
                             : static_cast<int64_t>(getNumHeads());
    }
    /// D, and the lengths S of the query and T of key and value (static
    /// shapes).
    int64_t headDim() { return hiddenSize() / getNumHeads(); }
    int64_t queryLength();
    int64_t keyLength();
    /// Whether some operand or the result is heads first, or key and
    /// value hold fewer heads.
    bool hasHeadsFirstOrGroups() {
      return isHeadsMajor(0) || isHeadsMajor(1) || isHeadsMajor(2) || isHeadsMajor(3) ||
             numKvHeads() != static_cast<int64_t>(getNumHeads());
    }
    /// scale_divisor, or 0 where the model multiplied by `scale`.
    float divisorOrZero() {
      return getScaleDivisorAttr() ? getScaleDivisorAttr().getValue().convertToFloat() : 0.f;
    }
  }];
}

def Nunc_FusedConvOp : Nunc_Op<"fused_conv", [AttrSizedOperandSegments]>,
                       Nunc_ActivationAttrs {
  let summary = "activation(conv(input, weight) + bias + residual)";
  let description = [{
    The input is f32, or the u8 codes of a per-tensor grid (element type
    `!quant.uniform<u8:f32, scale:zp>`), read as their values (q - zp) *
    scale: an int8 convolution's static u8 output handed to a depthwise
    convolution (nunc-fuse-conv-activation-quantization). The weight, bias
    and residual are f32.

    `output_quantization` (a per-tensor `!quant.uniform`) rounds the result
    to that grid, last; with `u8_output` (a u8 grid, no residual) the result
    is the grid's u8 codes instead, with that element type: the static
    input of the int8 convolution that reads it.

    With `output_table` (f32, one entry per code of `output_quantization`,
    which it needs) the result at code q of that grid is
    output_table[q - qmin] instead of the code's value: an elementwise
    chain a QDQ model applies after the conv, tabulated at compile time
    (nunc-fuse-chain-into-conv). `table_quantization` (a per-tensor grid,
    with a table only) rounds the entries; with `u8_output` it is the u8
    grid whose codes the result holds, in place of `output_quantization`.

    `weight_quantization`: as on `conv`, the grid of the model's constant
    weight. With it, `one_step_requantization` (a depthwise conv reading u8
    codes, a u8 `output_quantization`, no residual, activation none, Relu
    or Clip) computes the output codes as
    onnxruntime's QLinearConv: with k = q - zp_w the weight's steps on its
    grid (w = fl(k scale)), acc the exact s32 sum of (x - zp_x) k and s[c] = fl(scale_input *
    scale_weight[c]), q = clamp(round_half_even(fl(float(acc + bq[c]) *
    fl(s[c] / s_y))) + zp_y, lo, hi), bq and [lo, hi] as quantized_conv's
    one_step_requantization has them (nunc-one-step-requantization sets
    it): written as they are with `u8_output`, else as their values
    (q - zp_y) s_y (for a reader that rounds to the grid again: the
    BatchNormalization a QDQ export keeps after the conv's pair); with an
    `output_table`, the table is looked up at them.
  }];
  let arguments = !con((ins AnyTensor:$input, Nunc_FloatTensor:$weight,
                            Optional<Nunc_FloatTensor>:$bias,
                            Optional<Nunc_FloatTensor>:$residual,
                            DefaultValuedStrAttr<StrAttr, "NOTSET">:$auto_pad,
                            DenseI64ArrayAttr:$dilations,
                            DefaultValuedAttr<I64Attr, "1">:$group,
                            DenseI64ArrayAttr:$kernel_shape,
                            DenseI64ArrayAttr:$pads, DenseI64ArrayAttr:$strides),
                       activationAttrs,
                       (ins OptionalAttr<TypeAttr>:$output_quantization, UnitAttr:$u8_output,
                            OptionalAttr<DenseF32ArrayAttr>:$output_table,
                            OptionalAttr<TypeAttr>:$table_quantization,
                            OptionalAttr<TypeAttr>:$weight_quantization,
                            UnitAttr:$one_step_requantization));
  let results = (outs AnyTensor:$output);
  let assemblyFormat = [{
    $input `,` $weight (`bias` $bias^ `:` type($bias))?
    (`residual` $residual^ `:` type($residual))? attr-dict `:` type($input) `,`
    type($weight) `->` type($output)
  }];
}

#endif // NUNC_DIALECT_NUNC_NUNCOPS_TD
