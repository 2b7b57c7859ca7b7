//===- Passes.td - nunc tensor-level passes -----------------*- tablegen -*-===//

#ifndef NUNC_TRANSFORMS_PASSES_TD
#define NUNC_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def ShapeInference : Pass<"nunc-shape-inference", "func::FuncOp"> {
  let summary = "Refines result types from operand types and constant operands";
  let description = [{
    Walks the function in order and gives every nunc op the most precise result
    type its operands allow (a dim becomes static where inference knows it; a
    type never becomes less precise), then updates the function's result types.
    With pinned input shapes this makes a whole encoder static.
  }];
}

def ConstantFolding : Pass<"nunc-constant-folding", "func::FuncOp"> {
  let summary = "Evaluates ops whose operands are all constant";
  let description = [{
    Walks the function in order, refining each op's result types first, and
    replaces every op whose operands are constants (and whose results have
    static shapes within `max-elements`; past it, elementwise and
    data-movement ops whose results take no more bytes than an operand only
    they use: a weight's QuantizeLinear, Transpose or narrowing Cast; and
    Slices or Gathers of a constant that only such parts read, their sizes
    adding up to at most its own: a bidirectional LSTM's weights per
    direction) by the
    constants the reference
    evaluator computes, and every op whose folder answers (Shape of a static
    tensor, Identity) by that answer. Shape subgraphs
    (Shape -> Gather -> Unsqueeze -> Concat -> Reshape) collapse in one run once
    the input shapes are pinned. Dead constants are erased.
    DequantizeLinear of a constant folds whatever its size (a weight, at most
    4x its integer form), except, with `keep-quantized-weights`, the large
    ones that feed only MatMuls, Gathers or a Gemm's B, any that is the B
    of a MatMul or Gemm whose A is dequantized too (a QDQ model's, small
    ones included: onnxruntime runs them on the codes), and (`keep-conv-weights`) those
    that feed only the weights of Convs whose input is dequantized too, of
    one group or of groups of a multiple of 4 input channels: nunc-fuse-linear, nunc-fuse-conv and nunc-fuse-quantize-dequantize
    take those in their integer form. A per-tensor DequantizeLinear (or a
    pair's rounding) of constant codes that an Add or Mul reads leaves the
    grid of those codes on that reader (`nunc.lhs_codes_grid` /
    `nunc.rhs_codes_grid`): onnxruntime adds or multiplies the codes there.
    A folded conv filter (a depthwise conv's) keeps the model's grid as
    the conv's `weight_quantization`, unless its codes were 4-bit
    (nunc.four_bit_codes: onnxruntime runs that conv in f32).
  }];
  let options = [
    Option<"maxElements", "max-elements", "int64_t", "65536",
           "Largest result (in elements) the pass materializes as a constant, except "
           "elementwise and data-movement results no larger (in bytes) than an operand "
           "used only by that op">,
    Option<"keepQuantizedWeights", "keep-quantized-weights", "bool", "true",
           "Leave DequantizeLinears of more than 4096 constant elements that feed only "
           "MatMuls, Gathers or a Gemm's B, and those feeding only Conv weights, for fusion (int8 "
           "weights, embedding tables)">,
    Option<"keepConvWeights", "keep-conv-weights", "bool", "true",
           "With keep-quantized-weights: also leave the dequantized weights of Convs of one "
           "group or groups of a multiple of 4 channels with a dequantized input (QDQ convs, "
           "for the int8 convolution)">,
  ];
  let dependentDialects = ["::mlir::nunc::NuncDialect"];
}

//===----------------------------------------------------------------------===//
// Fusion
//===----------------------------------------------------------------------===//

def FuseGelu : Pass<"nunc-fuse-gelu", "func::FuncOp"> {
  let summary = "Rewrites exported GELU subgraphs into nunc.gelu";
  let description = [{
    Recognizes x * 0.5 * (1 + erf(x / sqrt(2))) (in any association and
    operand order, with x / sqrt(2) also as x * (1 / sqrt(2))), and the tanh
    approximation 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))). A QDQ
    model's erf form, with fake_quantize after the Erf, the Add of 1 and the
    Mul by x (then the Mul by 0.5), becomes nunc.gelu with those grids; the
    pipeline runs the pass again after nunc-fuse-quantize-dequantize. Where
    its 1 and 0.5 are codes of grids (their readers' codes grids) and erf's
    argument a Div by sqrt 2, the gelu records those grids too
    (`one_quantization`, `half_quantization`).
  }];
  let dependentDialects = ["::mlir::nunc::NuncDialect"];
}

def FuseActivations : Pass<"nunc-fuse-activations", "func::FuncOp"> {
  let summary = "Rewrites exported HardSigmoid, HardSwish and SiLU subgraphs into nunc ops";
  let description = [{
    f32 only. clamp(x * a + b, 0, 1) (ONNX's HardSigmoid as the importer
    spells it) becomes nunc.hard_sigmoid {alpha = a, beta = b}, and
    clamp(x + c, 0, d) / d (or times 1 / d; d > 0), as exporters write
    relu6(x + 3) / 6, nunc.hard_sigmoid {alpha = 1 / d, beta = c / d}.
    x * hard_sigmoid(x) (ONNX's HardSwish) and x * clamp(x + c, 0, d) / d
    (paddle2onnx's hardswish) become nunc.hard_swish. The fused forms round
    alpha x + beta where the exported ones round x + c and the division:
    they agree to a few ulp. x * sigmoid(x) (SiLU, Swish) becomes nunc.silu.
    Fusion then takes them into the producing convolution or GEMM as its
    epilogue activation.
  }];
  let dependentDialects = ["::mlir::nunc::NuncDialect"];
}

def FuseElementwiseQuantization
    : Pass<"nunc-fuse-elementwise-quantization", "func::FuncOp"> {
  let summary = "Folds a fake_quantize into the Add/Sub/Mul/Div it rounds";
  let description = [{
    fake_quantize(a op b) where the fake_quantize is the op's only use
    becomes the op with that grid as its `output_quantization`: the x86
    elementwise kernel rounds in the same pass. A QDQ model keeps a
    Quantize/DequantizeLinear pair after every such op (the scale and
    shift around a QDQ MobileNetV3's or PP-LCNet's activations, residual
    Adds). The pipeline runs it last, so that the fusions before it never
    see an Add or Mul that rounds its result.
  }];
  let dependentDialects = ["::mlir::nunc::NuncDialect"];
}

def FuseElementwiseChains : Pass<"nunc-fuse-elementwise-chains", "func::FuncOp"> {
  let summary = "Runs of elementwise ops into one nunc.elementwise_chain";
  let description = [{
    Add, Sub, Mul, Div (with their `output_quantization`), Relu, Clip,
    HardSigmoid, HardSwish and fake_quantize ops on f32 tensors of one shape,
    whose other operands are constants of one value, join into one
    nunc.elementwise_chain when every value between them is read only
    inside the run: a QDQ model's scale, shift and decomposed hard-swish
    with a grid after each op (PP-LCNet) become one pass over memory instead
    of one per op. A run keeps at most `max-inputs` tensor inputs, 32 steps
    and 8 values alive at once (the kernel holds them in registers); a
    single op stays as it is. Code generation runs it last, after every
    fusion that takes elementwise ops into a GEMM or convolution epilogue.
  }];
  let options = [
    Option<"maxInputs", "max-inputs", "int64_t", "4",
           "Most tensor inputs of one chain (at most the kernel's 4)">,
  ];
  let dependentDialects = ["::mlir::nunc::NuncDialect"];
}

def FuseChainIntoConv : Pass<"nunc-fuse-chain-into-conv", "func::FuncOp"> {
  let summary = "An elementwise chain after a conv as the conv's output table";
  let description = [{
    A one-input nunc.elementwise_chain whose input is a quantized_conv's
    result, read by nothing else, depends on it only through the conv's
    last grid (the conv rounds its result to it): the chain's values at
    that grid's codes (at most `max-codes` of them), computed now with the
    evaluator, become the conv's `output_table`, and the chain goes. The
    epilogue then looks each result up by its code: a QDQ model's scale,
    shift and hard-swish after a pointwise conv (PP-LCNet) cost no pass
    over memory of their own.

    Likewise a chain after a depthwise conv (nunc.conv, or a fused_conv
    with no output grid) whose first step rounds the conv's result to a
    grid (fake_quantize): that grid becomes the conv's (a fused_conv's)
    `output_quantization` and the chain its `output_table` (PP-LCNet's
    depthwise convs). Where the chain ends on a grid, that grid is the
    table's `table_quantization` (the entries lie on it).

    Code generation runs it after nunc-fuse-elementwise-chains with its
    target's rule for which convolution kernels have the lookup; on its own
    (nunc-opt) it takes every conv.
  }];
  let options = [
    Option<"maxCodes", "max-codes", "int64_t", "256",
           "Most codes of a grid to tabulate (the kernel's table holds 256)">,
  ];
  let dependentDialects = ["::mlir::nunc::NuncDialect"];
}

def FuseLayerNorm : Pass<"nunc-fuse-layer-norm", "func::FuncOp"> {
  let summary = "Rewrites decomposed LayerNorm subgraphs into nunc.layer_norm";
  let description = [{
    Recognizes (x - mean(x)) / sqrt(mean((x - mean(x))^2) + eps) * gamma + beta
    over trailing axes, as torch exports LayerNorm below opset 17 (ReduceMean,
    Sub, Pow or Mul, ReduceMean, Add, Sqrt, Div, Mul, Add); gamma and beta are
    optional. Also RMSNorm, x / sqrt(mean(x^2) + eps) or x * (1 / sqrt(...))
    then * gamma (+ beta), as Llama-style decoders export it and ONNX's
    RMSNormalization's body computes it: nunc.layer_norm {rms}.
  }];
  let dependentDialects = ["::mlir::nunc::NuncDialect"];
}

def FuseAttention : Pass<"nunc-fuse-attention", "func::FuncOp"> {
  let summary = "Rewrites the exported multi-head attention pattern into nunc.attention";
  let description = [{
    Recognizes, from the MatMul with V back, Q K^T, scaling by Div or Mul,
    an optional additive mask, Softmax over the last axis and MatMul with V,
    all with static shapes. Q, K (to K^T) and V are each a Reshape/Transpose
    head split of a [B, L, H*D] tensor, which the attention reads unsplit,
    or a heads-first [B, H, L, D] value (heads_major): a decoder's Q and K
    after their rotary embedding, K and V after the past is concatenated.
    Grouped query heads become kv_heads: K and V repeated by torch's
    repeat_kv (Unsqueeze at 2, Expand, Reshape), which the attention does
    not repeat, or the query heads of each key head reshaped into its rows
    for both products (the ai.onnx Attention import). A scalar constant Mul
    on Q and on K^T (scaled_dot_product_attention's sqrt(scale)) goes into
    the scale. The Transpose/Reshape that merges the heads joins the
    attention where there is one; else its result stays heads first. A head
    split may have other readers (K and V of one input, or a query two
    attentions read, merged by CSE). A QDQ model's fake_quantize ops on the intermediates
    (Q K^T, scaled, masked, the softmax output, P V) become the attention's
    grids; the pipeline runs the pass again after
    nunc-fuse-quantize-dequantize has turned the pairs into fake_quantize.
  }];
  let dependentDialects = ["::mlir::nunc::NuncDialect"];
}

def FuseLinear : Pass<"nunc-fuse-linear", "func::FuncOp"> {
  let summary = "Folds MatMul/Gemm with a constant weight, bias, residual and activation into nunc.linear";
  let description = [{
    MatMul(x, W) and Gemm(x, W, C) with constant W become nunc.linear with W
    as [K, N] (Gemm's transB, a Transpose of W and alpha/beta are folded into
    the constants at compile time; transA becomes a Transpose of x).
    MatMul(W, x) with a constant [N, K] W becomes the linear op of x^T and
    W^T between two transposes; MatMul(x, W) with one constant matrix per
    batch index (x's batch dims equal W's, up to 64 matrices) a linear op
    per matrix on its slice of x, concatenated; a Gemm that fits none of
    these (a run-time B, a C that is neither a bias vector nor a residual)
    the Transpose / MatMul / Mul / Add it is made of. Then a following Add of a constant [N]
    vector becomes the bias, an Add of a same-shaped tensor the residual, and
    a following Relu, LeakyRelu, GELU, Sigmoid, Tanh, Clip, HardSigmoid,
    HardSwish or SiLU the activation, and after it a Mul, then an Add, of an f32
    scalar its post_mul and post_add, as long as each intermediate has a
    single use. The int8 MatMul of onnxruntime's
    `quantize_dynamic` models (DynamicQuantizeLinear, MatMulInteger with a
    constant s8 weight of zero point 0, Cast, Mul by the product of the
    scales) becomes nunc.quantized_linear with per-tensor dynamic
    activations; bias, residual and activation then fold into it the same
    way. With `u8-weights` (K < 2^14; the fusion pipeline sets it: every
    int8 GEMM takes them), a u8 weight with zero points
    (`weight_type=QUInt8`) does too; otherwise such a product becomes an f32
    MatMul of the dequantized values. An activation
    after a quantized_linear's output grid (a QDQ
    model's Q/DQ pair between the GEMM and its GELU) follows that grid in
    the epilogue (`activation_input_quantization`), and a QDQ GELU's own
    grids come with it (`gelu_*_quantization`). With `u16-inputs`, a QDQ
    MatMul or Gemm whose activation pair is 16-bit (u16, or s16 as the u16
    grid 32768 higher) with s8 weights becomes quantized_linear with that
    u16 `input_quantization` (the fusion pipeline sets it for targets whose
    int8 GEMM reads u16 inputs: x86_64-avx512vnni and x86_64-amx);
    otherwise its weight folds to f32 and it stays an f32 linear.
  }];
  let options = [
    Option<"u8Weights", "u8-weights", "bool", /*default=*/"false",
           "quantize_dynamic's u8 weights with zero points become quantized_linear">,
    Option<"u16Inputs", "u16-inputs", "bool", /*default=*/"false",
           "QDQ MatMuls with 16-bit activations and s8 weights (A16W8) become "
           "quantized_linear with a u16 input grid (targets whose int8 GEMM takes them)">,
  ];
  let dependentDialects = ["::mlir::nunc::NuncDialect", "::mlir::quant::QuantDialect"];
}

def FuseQuantizeDequantize : Pass<"nunc-fuse-quantize-dequantize", "func::FuncOp"> {
  let summary = "Fuses the QuantizeLinear/DequantizeLinear pairs of QDQ models";
  let description = [{
    Runs after nunc-fuse-linear, which already took the pairs that feed a
    MatMul (into quantized_linear). A remaining DequantizeLinear of a
    QuantizeLinear with the same per-tensor scale and zero point becomes
    nunc.fake_quantize (one f32 pass that rounds to the grid); a
    DequantizeLinear of a DynamicQuantizeLinear with its own scale and zero
    point, nunc.dynamic_fake_quantize. A Gather of a
    per-tensor DequantizeLinear (a QDQ embedding table) becomes a
    DequantizeLinear of the Gather, so the table stays integer and only the
    gathered rows are dequantized. A fake_quantize of a value already on its
    grid (after a fake_quantize or an int8 GEMM epilogue to the same grid,
    through Reshape and Transpose) goes: rounding it again changes nothing.
    So does a Clip or Relu read only by a fake_quantize whose grid's end
    codes its bounds round to (or lie beyond), its input not on a grid: the
    grid's saturation clamps the same values to the same codes (a QOperator
    model's Relu6 after a BatchNormalization; on a grid's values the pair
    and the Clip stay a table the conv before looks up).
    A QLinearConv with a constant weight becomes the QDQ form first
    (QuantizeLinear(Conv(DequantizeLinear(x), DequantizeLinear(w), bias))),
    so it fuses as quantize_static's QDQ convolutions do.
  }];
  let dependentDialects = ["::mlir::nunc::NuncDialect", "::mlir::quant::QuantDialect"];
}

def RemoveDoubleQuantizeDequantize
    : Pass<"nunc-remove-double-qdq-pairs", "func::FuncOp"> {
  let summary = "Merges Q/DQ pairs in a row into one pair, as onnxruntime does when it loads "
                "a QDQ model";
  let description = [{
    Runs first, before anything folds. Q1 -> DQ1 -> Q2 -> DQ2 (per tensor,
    constant f32 scales and explicit 8-bit zero points, the same on each
    pair's Q and DQ, both pairs u8 or both s8; Q1, DQ1 and Q2 read by the
    next op alone and by no graph output) becomes one pair, as
    onnxruntime's DoubleQDQPairsRemover (the first of its basic-level
    graph transformations) has it: Q1 -> DQ2 where the grids are equal
    (scales within 1e-20), else Q -> DQ on the grid over the common range:
    lo = max(fl((qmin - z_i) s_i)), hi = min(fl((qmax - z_i) s_i)), scale
    fl((hi - lo) / (qmax - qmin)), zero point round(qmin - lo / scale),
    half away from zero, all in f32. Ranges that do not meet stay as
    written.
  }];
  let dependentDialects = ["::mlir::nunc::NuncDialect"];
}

def QuantizeFloatWeightsAndBiases
    : Pass<"nunc-quantize-float-weights-and-biases", "func::FuncOp"> {
  let summary = "Quantizes the f32 weight and bias of a Conv, ConvTranspose or Gemm between "
                "Q/DQ pairs, as onnxruntime does when it loads a QDQ model";
  let description = [{
    Runs first, before anything folds (a DequantizeLinear of a quantized
    bias folds into an f32 constant). For a Conv, ConvTranspose or Gemm
    whose input is a DequantizeLinear with one constant scale s_x and whose
    result goes only to a QuantizeLinear (through Relu or Clip, each read
    once), as onnxruntime's WeightBiasQuantization (basic level, ORT >=
    1.20):
    - an f32 constant weight becomes DequantizeLinear of s8 codes on one
      grid over its values (onnxruntime's GetQuantizationParameter: the
      range widened to hold 0, scale (max - min) / 255, zero point
      round(-128 - min / scale) half to even, all in f32; codes
      saturate(round(w / scale) + zero point));
    - a 1-D f32 constant bias becomes DequantizeLinear of s32 codes
      round(fl(b / fl(s_x s_w))), zero point 0, s_w the weight's scale
      (per output channel where the weight's DequantizeLinear has one per
      bias element along axis 0, a Gemm's along 1 without transB).
    Nothing changes where the weight is already dequantized and there is
    no bias, where the bias is not an f32 constant, or where a bias code
    would leave the s32 range. The fusions then take these ops as a fully
    quantized model's: QLinearConv's and QGemm's integer sums (a
    ConvTranspose's as onnxruntime's f32 one on the dequantized weights).
  }];
  let dependentDialects = ["::mlir::nunc::NuncDialect"];
}

def QOperatorToQdq : Pass<"nunc-qoperator-to-qdq", "func::FuncOp"> {
  let summary = "Rewrites QOperator-format quantized ops into the QDQ form the fusions take";
  let description = [{
    Runs before the fusions. A QLinearConv with a constant weight becomes
    QuantizeLinear(Conv(DequantizeLinear(x), DequantizeLinear(w), bias)), as
    quantize_static's QDQ convolutions are. A QLinearMatMul whose B is
    computed at run time (attention) becomes QuantizeLinear(MatMul(
    DequantizeLinear(a), DequantizeLinear(b))). A per-tensor
    DequantizeLinear of an 8-bit tensor that Reshape, Transpose, Flatten,
    Squeeze, Unsqueeze, MaxPool or a nearest Resize moved becomes that op on the dequantized
    values between a QuantizeLinear/DequantizeLinear pair of the same grid
    (the same values), so the pairs fuse into the producer and the
    consumer as a QDQ model's do. (The importer expands onnxruntime's
    com.microsoft QLinear ops into their QDQ form itself.)
  }];
  let dependentDialects = ["::mlir::nunc::NuncDialect"];
}

def UnsignQuantizeDequantize : Pass<"nunc-unsign-quantize-dequantize", "func::FuncOp"> {
  let summary = "Gives Q/DQ pairs on s8 (s16) grids the u8 (u16) codes of the same grid";
  let description = [{
    Runs before the fusions. A per-tensor QuantizeLinear to s8 or s16 codes
    whose users are all per-tensor DequantizeLinears with constant zero
    points becomes a QuantizeLinear to u8 (u16) codes with its zero point
    moved by 128 (32768), and each DequantizeLinear's zero point moves as
    far: the same rounding, saturation and dequantized values. Models with
    signed activations (onnxruntime's quantize_static with
    activation_type=QInt8, or QOperator models of it) then reach the int8
    kernels and u8 handovers that unsigned ones do. Codes that leave the
    pairs (a graph output, an integer op's input) keep their type.
  }];
  let dependentDialects = ["::mlir::nunc::NuncDialect"];
}

def FoldBatchNorm : Pass<"nunc-fold-batch-norm", "func::FuncOp"> {
  let summary = "Folds inference BatchNormalization into the preceding Conv's (or "
                "ConvTranspose's) constants";
  let description = [{
    BatchNormalization(Conv(x, W, b)) becomes a Conv with W and b scaled
    and shifted per output channel (in double). So do a Mul and an Add of a
    constant per output channel (or a scalar) after a Conv: a scale and
    shift an exporter wrote apart (paddle's learnable affine blocks). The
    same for ConvTranspose (its weight [C, M/group, k...] scaled along M),
    whose bias paddle2onnx writes as an Add.
  }];
  let dependentDialects = ["::mlir::nunc::NuncDialect"];
}

def Conv1dAs2d : Pass<"nunc-conv1d-as-2d", "func::FuncOp"> {
  let summary = "Runs 1-D convolutions as 2-D ones of height 1";
  let description = [{
    Conv over [N, C, L] becomes Reshape to [N, C, 1, L], the 2-D Conv with
    the weight reshaped to [M, C/group, 1, k] (kernel, strides, dilations
    and pads with a leading 1 or 0), and Reshape back: the same bytes, so
    the convolution kernels (f32 and int8) run it. An elementwise op
    (Relu, LeakyRelu, Sigmoid, Tanh, GELU, SiLU, HardSigmoid, HardSwish,
    Clip, Add, Sub, Mul, Div) or a BatchNormalization reading such a
    reshape runs on the 4-D tensor instead, its other operands of rank 2
    or more given the extra 1, so that the conv fusions still see it right
    after the conv; a reshape of a reshape becomes one (none where it gives
    the 4-D tensor back). A QDQ model's pairs go with the conv: a Quantize /
    DequantizeLinear or fake_quantize (per tensor, or per axis 0 or 1) after
    the reshape runs inside it, and a lifting reshape of one moves above it
    (of a constant weight's codes, reshaped at compile time; a pair with
    other readers stays for them), so the QDQ conv fusion finds its
    pattern on the 2-D conv. Needs static shapes.
  }];
  let dependentDialects = ["::mlir::nunc::NuncDialect"];
}

def LowerConvTranspose : Pass<"nunc-lower-conv-transpose", "func::FuncOp"> {
  let summary = "Rewrites ConvTranspose into a grouped 1x1 Conv and a Col2Im";
  let description = [{
    ConvTranspose(x, W, b) = Col2Im(Conv1x1(x, W'), ...) + b, where W'
    [group * M/group * prod(kernel), C/group, 1...] is W [C, M/group, k...]
    transposed per group (Reshape, Transpose, Reshape: constant folding
    folds them for a constant weight). The 1x1 convolution is a GEMM over
    the input's pixels, so the f32 and int8 convolution kernels run it;
    the col2im sums each output pixel's taps. Needs static input dims.
  }];
  let dependentDialects = ["::mlir::nunc::NuncDialect"];
}

def FuseConv : Pass<"nunc-fuse-conv", "func::FuncOp"> {
  let summary = "Folds a residual Add and an activation into the preceding Conv; QDQ convs to int8";
  let description = [{
    A Pad of zeros over the spatial dims (constant mode) before a Conv adds
    to the conv's pads (TensorFlow's explicit padding, ZeroPad2d).
    Conv followed by an Add of a same-shaped tensor (residual) and/or an
    activation (Relu, LeakyRelu, Clip, Sigmoid, Tanh, GELU, HardSigmoid,
    HardSwish, SiLU) becomes nunc.fused_conv, or folds into a quantized_conv the
    same way. A Mul, then an Add, of an f32 scalar after the activation
    become its post_mul and post_add.
    With `int8` (the default), a QDQ model's 2-D convolution of one group
    or of groups of a multiple of 4 input channels (the int8 convolution
    runs those a group at a time), Conv(x', DequantizeLinear(Wq, sW, zW)) with x' a per-tensor u8/s8
    Quantize/DequantizeLinear pair of x (or the fake_quantize it became) and
    Wq a constant s8 weight of zero point 0 or a u8 one with zero points
    (per tensor or per output channel; u8 where K = 4 ceil(C / 4) kh kw <
    2^14, for the kernel's word pairs), becomes quantized_conv(x, Wq) with
    static activations: the same integers, summed exactly. So does
    onnxruntime's `quantize_dynamic` convolution,
    Cast(ConvInteger(DynamicQuantizeLinear(x), Wq, zx, zW)) * (s * sW), with
    activations quantized per tensor at run time (groups likewise); the
    ConvIntegers it cannot take (other groups, larger K) become f32 Convs of the dequantized values.
    (Every x86 target has int8 convolution kernels; `int8=false` keeps
    QDQ convolutions f32, for experiments with nunc-opt.) A
    BatchNormalization after a quantized_conv (quantize_dynamic keeps the
    f32 model's) becomes its normalization (norm_scale, norm_shift) as
    onnxruntime's kernel forms it in f32 (folding it into the scales in
    double moved a DynamicQuantizeLinear's range by an ulp, and every code
    after it); an activation or residual after it stays an op.
  }];
  let options = [
    Option<"int8", "int8", "bool", /*default=*/"true",
           "Rewrite QDQ convolutions to quantized_conv">,
  ];
  let dependentDialects = ["::mlir::nunc::NuncDialect", "::mlir::quant::QuantDialect"];
}

def QuantizeInt8 : Pass<"nunc-quantize-int8", "func::FuncOp"> {
  let summary = "Rewrites nunc.linear and 2-D convolutions with constant f32 weights into nunc.quantized_linear / nunc.quantized_conv (W8A8)";
  let description = [{
    Post-training quantization without calibration data: each weight column
    n gets the symmetric scale s_n = max_k |W[k, n]| / 127 (1 for an
    all-zero column) and W[k, n] becomes round(W[k, n] / s_n) in
    [-127, 127] (round half to even), an i8 constant cast with `quant.scast`
    to `!quant.uniform<i8<-127:127>:f32:1, {s_0, ...}>`. Activations are
    quantized at run time per row (`activation_quantization =
    "dynamic_per_row"`), or, with `activations=static`, with the fixed u8
    range a calibration profile (`profile=<file.json>`, see
    nunc/Quantize/Calibration.h) gives for the op's input; every quantized op
    must have an entry there. Where the entry holds the mean of each input
    channel (`channel_mean`) and `bias-correction` is on (the default), the
    op's bias (also with dynamic activations, given a `profile`) loses the
    mean output shift of the weights' rounding:
    b_j -= sum_c mean_c * sum_k (dequantized - f32 weight)[c, k, j].
    Linear ops whose weight is not a constant, or
    whose input is not f32, stay as they are; so do those smaller than
    `min-macs` multiply-adds per row (K x N), where int8 gains nothing, and
    those listed in `keep-f32` (mixed precision).
    With `convs` (the default), `conv` and `fused_conv` ops with one group
    or groups of a multiple of 4 input channels, a 4-D f32 input and a
    constant weight [M, C / group, kh, kw] of at least
    `min-conv-macs` multiply-adds per output position (C x kh x kw x M)
    become
    `nunc.quantized_conv`: s8 weights per output channel (symmetric, as
    above), the input quantized per tensor at run time
    (`"dynamic_per_tensor"`) or with the profile's range (static); a grouped
    conv's bias correction reads its own group's channel means. Other
    grouped convolutions stay f32, and so do depthwise ones (one filter per
    channel),
    except that with static activations a depthwise conv whose input only an
    int8 conv reads hands its profile grid to that conv as
    `output_quantization` and gets its filter rounded to a symmetric s8 grid
    per channel (still f32 values; its bias corrected as above), which the
    code generator's integer depthwise kernel takes. Only where that grid
    keeps the input's SNR (its mean square over the grid's rounding noise,
    scale^2 / 12, from the profile) at `min-handover-snr` dB or more: a
    long-tailed input (hard-swish outputs) would lose more accuracy in the
    extra rounding than the integer kernel gains in time. The estimate
    counts the rounding and what a clipping calibration method cuts off
    (the profile's clip_square). Profiles without mean squares, and a
    threshold of 0 or less, hand every such input over.
    Embedding tables (a Gather along axis 0 of a constant f32 [V, D] of at
    least `min-embedding-elements` elements) become s8 with one symmetric
    scale per row: Cast(Gather(table_s8, ids)) * Gather(row_scales, ids),
    except those listed in `keep-f32` (by their Gather node's name).
  }];
  let options = [
    Option<"minMacs", "min-macs", "int64_t", /*default=*/"4096",
           "Quantize only linear ops with at least this many multiply-adds per row">,
    // A conv quantizes its whole input (C values a position) for C x kh x kw
    // x M multiply-adds: MobileNet's 16 x 32 1x1 convs already run 1.6x
    // faster in int8 (measured); 8 x 16 ones would not.
    Option<"minConvMacs", "min-conv-macs", "int64_t", /*default=*/"512",
           "Quantize only convolutions with at least this many multiply-adds per output "
           "position">,
    Option<"activations", "activations", "std::string", /*default=*/"\"dynamic\"",
           "dynamic (ranges per row at run time) or static (from the profile)">,
    Option<"profile", "profile", "std::string", /*default=*/"",
           "Calibration profile (JSON): the input ranges for activations=static, and in "
           "either mode the channel means of bias correction">,
    Option<"minEmbeddingElements", "min-embedding-elements", "int64_t", /*default=*/"65536",
           "Quantize Gather tables of at least this many elements (0: none)">,
    Option<"convs", "convs", "bool", /*default=*/"true",
           "Quantize 2-D convolutions of one group or of groups of a multiple of 4 input "
           "channels (for targets with int8 convolution kernels)">,
    Option<"depthwiseHandover", "depthwise-handover", "bool", /*default=*/"true",
           "Static activations: give a depthwise conv after an int8 conv its input grid "
           "(and its filter an s8 grid) to read u8 codes (for targets whose depthwise "
           "kernel reads them)">,
    ListOption<"keepF32", "keep-f32", "std::string",
               "Linear, conv and gather ops (by key: their MatMul/Gemm/Conv/Gather node name) "
               "to leave in f32">,
    Option<"biasCorrection", "bias-correction", "bool", /*default=*/"true",
           "With a profile's channel means, take the mean output shift of the int8 weights "
           "back out of the bias">,
    // ReLU6 outputs on their calibrated grid measure 42-46 dB (MobileNetV2:
    // faster and as accurate handed over), PP-LCNet's hard-swish outputs
    // 24-38 dB (its recognizer's output cosine 0.994 -> 0.983 with all of
    // them handed over, for 4 % of its time).
    Option<"minHandoverSnr", "min-handover-snr", "double", /*default=*/"40",
           "Static activations: hand a depthwise conv's input over as u8 codes only where "
           "its calibrated grid's estimated SNR is at least this many dB">
  ];
  let dependentDialects = ["::mlir::nunc::NuncDialect", "::mlir::quant::QuantDialect"];
}

def SmoothActivations : Pass<"nunc-smooth-activations", "func::FuncOp"> {
  let summary = "Moves LayerNorm output outliers into the consuming weights (SmoothQuant) before static int8";
  let description = [{
    Applies the `smoothing` section of a calibration profile (`nunc compile
    --smoothquant` writes it; see nunc/Quantize/Calibration.h). For each
    listed LayerNorm (over the last axis, constant scale and bias) with
    factors s: a second LayerNorm computes y / s (its scale and bias divided
    by s), the `linear` ops with constant f32 [C, N] weights that read y read
    it instead, and their weight rows are multiplied by s. The f32 result is
    unchanged up to rounding; y's other uses (a residual) keep the original,
    which is erased when none remain. The profile's ranges are those of the
    smoothed inputs: run this before `nunc-quantize-int8` with the same
    profile. A profile without `smoothing` changes nothing; one whose
    factors do not fit the model is an error.
  }];
  let options = [
    Option<"profile", "profile", "std::string", /*default=*/"",
           "Calibration profile (JSON) with a smoothing section">,
  ];
  let dependentDialects = ["::mlir::nunc::NuncDialect"];
}

def FuseActivationQuantization : Pass<"nunc-fuse-activation-quantization", "func::FuncOp"> {
  let summary = "Hands static u8 activations from GEMM to GEMM instead of re-quantizing f32";
  let description = [{
    Target lowering for static int8 (calibrated or QDQ) models. A
    quantized_linear with an f32 input and a static `input_quantization` G
    reads `nunc.quantize(x) : G` instead, one quantize per (tensor, G):
    Q, K and V after a LayerNorm share it; GEMMs with u8 weights (zero
    points) too, up to `u8-weight-max-k`, the target then summing each
    row's codes for their compensation. Then a quantize whose input is a
    quantized_linear result with no other use (and no other output grid)
    folds into that GEMM: `u8_output` with `output_quantization = G`, so
    the producing epilogue writes the u8 rows and no pass over the f32
    tensor remains (FFN1 + GELU -> FFN2). Likewise into an attention
    (heads merged) with no other use and no other output grid, where the
    target's attention kernel writes codes (the compiler's rule; on its own
    every one): the output projection's input.
    The u8 tensors are dense [..., K]; `row-alignment` is the K multiple the
    target's int8 GEMM needs to read such rows directly (4 for AVX-512 VNNI,
    8 for AVX-VNNI, 64 for AMX; 0: none, the pass does nothing). GEMMs
    whose K is not a multiple keep quantizing their own input.
  }];
  let options = [
    Option<"rowAlignment", "row-alignment", "int64_t", /*default=*/"4",
           "K multiple a u8 activation needs (0: leave every GEMM quantizing its input)">,
    Option<"producerEpilogue", "producer-epilogue", "bool", /*default=*/"true",
           "Fold a quantize into the quantized_linear that produces its only input use">,
    Option<"u8WeightMaxK", "u8-weight-max-k", "int64_t", /*default=*/"16383",
           "The largest K of a GEMM with u8 weights that reads u8 rows (its code sums "
           "then come from a row-sum step; 0: such GEMMs quantize their own input)">,
  ];
  let dependentDialects = ["::mlir::nunc::NuncDialect", "::mlir::quant::QuantDialect"];
}

def FuseConvActivationQuantization
    : Pass<"nunc-fuse-conv-activation-quantization", "func::FuncOp"> {
  let summary = "Hands static u8 activations between int8 convolutions and depthwise convs";
  let description = [{
    Target lowering for static int8 (QDQ) CNNs. A quantized_conv whose last
    grid (norm_quantization with a norm, else output_quantization) is a
    `!quant.uniform<u8:f32, scale:zp>` and whose only use is the input of a
    depthwise conv (MobileNet's expansion conv and the depthwise conv after
    it) writes that grid's u8 codes (`u8_output`), and the depthwise conv,
    as a fused_conv, reads them as their values: the same numbers, with a
    quarter of the bytes written and read back between the two (the f32
    tensor there is the largest of such a network). Then a depthwise conv
    whose only use is the input of a static quantized_conv with a u8
    `input_quantization` writes the codes of that grid (output_quantization,
    u8_output), which the int8 conv reads as its quantized input (MobileNet's
    depthwise conv and the projection after it); a depthwise conv with an
    `output_table` (nunc-fuse-chain-into-conv) rounds the entries to that
    grid instead (table_quantization) and writes their codes: the int8
    conv's own quantization of the chain's values. An int8 conv whose only
    use is a static int8 conv quantizing its result with its own last grid
    hands that conv the codes directly (a ResNet block's two convs). The
    compiler runs it with its target's rule for which depthwise
    convolutions it has u8 kernels for; on its own (nunc-opt) it takes
    every depthwise conv.
  }];
  let dependentDialects = ["::mlir::nunc::NuncDialect", "::mlir::quant::QuantDialect"];
}

def OneStepRequantization : Pass<"nunc-one-step-requantization", "func::FuncOp"> {
  let summary = "Computes a QDQ model's u8 codes as onnxruntime's kernels do";
  let description = [{
    Target lowering for static int8 CNNs, after the u8 handovers
    (nunc-fuse-conv-activation-quantization). A quantized_conv whose
    result goes to a u8 output grid (`output_quantization`) from a static
    input, with no residual or output table and an activation of none, Relu
    or Clip, gets `one_step_requantization`: its codes on that grid become
    round(float(sum + bias code) x fl(s[m] / s_y)) + zp within the
    activation's code bounds, as onnxruntime's QLinearConv (and its QDQ
    convs) requantize, where the two-step form rounds the f32 result
    float(sum) x s[m] + bias to its grid (an exact quotient by s_y). A QDQ
    model's bias is an int32 on s[m]'s grid, so it then computes as
    onnxruntime runs that model; nunc's own static PTQ bias moves by at most
    half of s[m] (far below s_y). A bias that its grid would move by more
    than s_y / 16 (a QDQ bias whose scale is not s_x s_w) keeps the two-step
    form. The two forms differ where the scaled sum
    lies within an ulp of a code's rounding boundary (a code apart). The
    epilogue takes ~4 fewer instructions per vector (no bias add, exact
    quotient or activation), which is most of what the small-K convs of
    MobileNet-like networks cost. What follows the grid stays as it was:
    the codes written (`u8_output`), or their f32 values, or a
    normalization and its own grid (the BatchNormalization a QDQ export
    keeps between two Q/DQ pairs, which onnxruntime runs after its
    QLinearConv's codes).

    A quantized_conv with a normalization may also have a table after it
    (a Clip chain after the pair behind the BatchNormalization): its own
    pair still takes one step.

    In a QDQ model with s8 activations, a static quantized_conv whose input
    pair has several readers (the uses of the value it rounds, where each
    rounds it to that grid or its values lie on it: a residual block's
    first conv, sharing its input with the residual Add) or whose output
    pair has (no normalization or table after it, several uses) gets
    `f32_product_k_block` instead: onnxruntime keeps such a pair s8 and
    runs no QLinearConv from or to it on x86, but an f32 Conv on the
    dequantized values (MLAS's im2col and sgemm; the block for N = output
    positions, K = C kh kw), which nunc then sums as it does. The code
    generator marks only those its int8 convolution runs so.

    A depthwise fused_conv reading u8 codes and writing those of its output
    grid, or their f32 values (of its output grid, or of the one every
    reader rounds them to: a BatchNormalization's input pair, which it
    then takes as its output grid; or the codes its table is looked up at),
    with activation none, Relu or Clip, whose constant weight
    lies on the model's grid (`weight_quantization`, steps within s8) gets
    `one_step_requantization` likewise: the integer depthwise kernel then
    adds the bias code and the zero points' term as integers and multiplies
    once, as onnxruntime's depthwise QLinearConv, where it otherwise works
    in code units with constants from the filter's recovered scale. The
    code generator marks only those its target's integer depthwise kernel
    runs.

    A GlobalAveragePool whose input lies on a u8 grid and whose mean a
    fake_quantize (read by nothing else) or every reader rounds to one gets
    both grids: its mean then rounds as onnxruntime's
    QLinearGlobalAveragePool computes it from the codes (the folded
    fake_quantize goes). An AveragePool so placed gets the output grid
    (`output_quantization`): its mean rounds as onnxruntime's
    QLinearAveragePool (f32 window sums, a division, the zero point added
    before the rounding; in a QDQ s8 model the s8 zero point,
    `signed_codes`, where both pairs have other readers, the u8 one where
    neither has; with one of each onnxruntime's f32 pool, in MLAS's
    order: `ordered_f32_arithmetic`). A
    Softmax so placed gets both grids: QLinearSoftmax's steps. Their input
    grid may come through Reshape / Transpose / Flatten / Squeeze /
    Unsqueeze, or be a quantized GEMM's output grid. A QuantizeLinear
    reader (a QLinear-operator model's codes for a Resize) gives the grid
    a producer rounds to, as a fake_quantize does.

    A QDQ model's Add between pairs (its operands on u8 grids, the sum
    rounded to one, by the Add or by every reader) gets `lhs_quantization`
    and `rhs_quantization`: its codes come as onnxruntime's QLinearAdd
    computes them (see nunc.add). An operand a fake_quantize rounds for
    the Add alone is read before it (the Add rounds it to the same code).
    A Mul between pairs by such a constant (below) likewise gets them, its
    codes as onnxruntime's QLinearMul computes them (see nunc.mul; an
    unfused LayerNorm's scale); a Mul of two tensors stays a step of an
    elementwise chain (a QDQ CNN's hard-swish, which a conv looks up in one
    pass).
    An operand of either may be a constant of several values holding a
    grid's codes (the op's `nunc.lhs_codes_grid` / `nunc.rhs_codes_grid`,
    broadcast or not); one-value constants
    (a hard-swish's + 3) leave the op to the chains. Codes are s8 in a
    model with s8 activations written as QLinear operators
    (`signed_codes`, with s8 constants), u8 otherwise: in a QDQ s8 model
    onnxruntime converts single-reader pairs to u8, so there only ops whose
    operands' pairs have one reader (or are u8 constants, a folded pair's;
    each reader's own fake_quantize of one value counts as a reader) and
    whose result has one are marked, the others staying f32 ops as they
    do there.
    `only-elementwise` marks the Adds and Muls alone: the code generator
    does so before it forms elementwise chains, which then leave them as
    they are.

    An attention reading u8 codes with a u8 grid on each of its steps
    (scores, scaled scores, probabilities, output, and with a mask the
    masked scores, the mask's values on a u8 grid of their own) gets
    `qlinear_arithmetic` and `mask_quantization`: it then computes as
    onnxruntime runs the QDQ model's attention (QLinearMatMul, f32 Div,
    QLinearAdd, QLinearSoftmax, QLinearMatMul; see nunc.attention). The
    code generator marks only those its attention kernel runs so. In
    models quantized with s8 activations also `signed_codes` (the mask's
    codes add as s8).

    A quantized_linear with a static u8 input, a u8 product grid, a bias
    constant whose values are the codes of a u8 grid
    (bias_codes_quantization, from the grid nunc-constant-folding records
    on the Add that reads a bias folded from its DequantizeLinear) and a u8
    grid right after the bias gets `one_step_requantization` and
    `bias_codes_quantization`: its product and bias then compute as
    onnxruntime's QLinearMatMul and QLinearAdd
    (see nunc.quantized_linear). The code generator marks only those its
    int8 GEMM runs so. In models quantized with s8 activations only where
    the model wrote its quantized ops as QLinear operators
    (`nunc.qlinear_operators`, which the importer sets; onnxruntime runs a
    QDQ one's MatMuls and Adds as f32 ops between the pairs there), with a
    bias of s8 codes: `signed_codes` (QLinearAdd of s8 codes).

    In a QDQ model with s8 activations, a quantized_linear reading u8
    codes whose Q/DQ pair has several readers (the nunc.quantize's and
    those of fake_quantize ops rounding the same value to the same grid)
    and whose product is rounded to a grid gets `f32_product_k_block`:
    onnxruntime converts only pairs of one reader to u8 and runs no s8
    QLinearMatMul on x86, so it runs that MatMul in f32 on the dequantized
    values (MLAS's sgemm), and nunc then sums the product as it does. The
    code generator marks only those its int8 GEMM runs so. One whose pair
    has one reader gets `qlinear_product`: onnxruntime converts that pair to
    u8 and runs the MatMul as a QLinearMatMul (its bias Add in f32).
    Weights of 4-bit codes (the importer marks their constants
    nunc.four_bit_codes): onnxruntime has no 4-bit QLinearMatMul or
    QLinearConv and runs every such MatMul and Conv in f32 on the
    dequantized values, with u8 activations too: `f32_product_k_block`
    whatever the pair's readers (a u8 model's GEMM keeping its
    one_step_requantization: the bias Add a QLinearAdd of the f32
    product's code).

    A quantized_linear whose GELU epilogue has u8 grids on its input, its
    three steps, its constants 1 and 0.5 (`gelu_one_quantization`,
    `gelu_half_quantization`) and its output, in a model without s8
    activations (or, with `signed_codes`, a QLinear-operator one: its steps
    on s8 codes), gets `gelu_qlinear_arithmetic`: the GELU then computes as
    onnxruntime's QLinearAdd / QLinearMul steps (see
    nunc.quantized_linear), where the code generator's int8 GEMM takes it.

    A LayerNorm between pairs (its input on a grid: a DequantizeLinear's
    values or an op's rounded to one; or its result read only by quantize
    and fake_quantize ops) on f32 rows of a multiple of 8 gets
    `ordered_f32_arithmetic`: it then rounds each step as onnxruntime's
    CPU LayerNorm does (see nunc.layer_norm), where a few ulps apart moved
    a code of the pair after it. The code generator marks only those its
    LayerNorm kernel runs so. Likewise a ReduceMean / ReduceSum over the
    trailing axes (rows of a multiple of 4, at least 8) whose data lie on a
    grid or whose every reader rounds its result first (a quantize, a
    fake_quantize, an Add of codes, an elementwise chain's fake_quantize):
    `ordered_f32_arithmetic`, onnxruntime's row sums (a decomposed
    LayerNorm's means).
  }];
  let options = [
    Option<"onlyElementwise", "only-elementwise", "bool", "false",
           "Mark only the Adds and Muls (the convs' codes after the last handover)">,
  ];
  let dependentDialects = ["::mlir::nunc::NuncDialect"];
}

def FuseAttentionQuantization : Pass<"nunc-fuse-attention-quantization", "func::FuncOp"> {
  let summary = "Hands a QDQ model's Q, K and V to its attention as u8 codes";
  let description = [{
    Target lowering for QDQ transformers. When an attention has a grid on
    its probabilities and its query, key and value each come from a
    quantized_linear used only there whose `output_quantization` is a u8
    grid (the Q/DQ pairs of the projections' outputs), the three GEMMs
    write that grid's codes (`u8_output`) and the attention reads them as
    their values: the same numbers, a quarter of the bytes, and the target
    computes Q K^T and P V on the codes (x86: vpdpbusd, with the
    probabilities kept as the codes of their grid). The compiler runs it
    with its target's rule for which attentions its kernel takes this way;
    on its own (nunc-opt) it takes every one.
  }];
  let dependentDialects = ["::mlir::nunc::NuncDialect", "::mlir::quant::QuantDialect"];
}

def QuantizeAttention : Pass<"nunc-quantize-attention", "func::FuncOp"> {
  let summary = "Runs f32 attentions' Q K^T and P V on int8 codes (int8_products)";
  let description = [{
    Post-training quantization of attention (`nunc compile --quantize int8`,
    unless `--attention f32`). Every nunc.attention on f32 operands without
    grids (no QDQ model's intermediates, no qlinear_arithmetic), a head dim
    of a multiple of 16 up to 256 and at most 65536 keys (any layout:
    packed, heads first, grouped heads) gets `int8_products`: each head's
    Q, K and V on a symmetric s8 grid of its own, computed at run time, and
    the probabilities as u8 codes of their exponentials relative to the
    row's largest (see nunc.attention). On MiniLM and BERT-base shapes the
    outputs move by 1 - cosine ~3e-6 against f32 attention, ~40 times less
    than the int8 GEMMs, where onnxruntime's QDQ attention (probabilities on
    a fixed grid of 1/255) moves them by ~1.3e-4. The compiler runs it with
    its target's rule (the VNNI targets: x86_64-avx512vnni, x86_64-amx,
    x86_64-avxvnni); on its own (nunc-opt) it takes every such attention.
    Those listed in `keep-f32` (by key: their ONNX Softmax node's name, as
    `--accuracy-target` and the accuracy report name them) stay f32.
  }];
  let options = [
    ListOption<"keepF32", "keep-f32", "std::string",
               "Attentions (by key: their Softmax node name) to leave in f32">
  ];
  let dependentDialects = ["::mlir::nunc::NuncDialect"];
}

def FuseAttentionProjections : Pass<"nunc-fuse-attention-projections", "func::FuncOp"> {
  let summary = "Computes self-attention's Q, K and V with one GEMM";
  let description = [{
    Target lowering. When an attention's query, key and value each come from
    a linear (or each from a quantized_linear) used only there, with the same
    input, constant weights of E columns, and the same attributes (bias in
    all or none, no residual, the same activation and quantization), the
    three become one op with the weights side by side ([K, 3E], Q, K, V;
    per-column scales, and the zero points of u8 weights, concatenated, a
    per-tensor one repeated; s8 and u8 weights do not mix; 4-bit weights,
    nunc.four_bit_codes, stay three GEMMs as onnxruntime's three f32
    MatMuls) and the biases likewise, and the attention reads its heads from that result
    (`input_offsets = [0, E, 2E]`, `input_width = E`). The input is then
    quantized once instead of three times, and the GEMM has N = 3E.
    Calibration, the quantization report and `--accuracy-target` still see
    the three projections: the pass runs when a model is compiled for a
    target.
  }];
  let dependentDialects = ["::mlir::nunc::NuncDialect", "::mlir::quant::QuantDialect"];
}

//===----------------------------------------------------------------------===//
// Scheduling
//===----------------------------------------------------------------------===//

def SplitBatch : Pass<"nunc-split-batch", "func::FuncOp"> {
  let summary = "Rewrites a batch-N function into a batch-1 body the library runs N times";
  let description = [{
    When every input has the same leading dim N > 1 and every op computes
    each image of the batch from that image alone (the leading dim is never
    reduced, normalized, transposed, concatenated, sliced or quantized with
    a range over the whole tensor), the function's types become those of one
    image and it gets `nunc.batch_split = N`: the generated library runs the
    body once per image, on the i-th 1/N of every input and output. Each
    image's tensors then stay in cache from layer to layer, and the arena
    holds one image. A reshape may merge the batch into its next dim
    ([N, S, H] -> [N*S, H]): any leading dim divisible by N splits, since
    image i is always the i-th contiguous chunk; reshape and expand shape
    constants are rewritten to match.
    Anything else leaves the function unchanged, with the first reason in
    `nunc.batch_split_blocked` ("<op> at <location>: why"). Run it before
    quantization: a range computed per tensor at run time then covers one
    image (nunc's own `dynamic_per_tensor` convolutions), while ops imported
    with per-tensor dynamic ranges over the whole batch (DynamicQuantizeLinear,
    onnxruntime's `quantize_dynamic` models) block the split, keeping ONNX's
    semantics.
  }];
  let dependentDialects = ["::mlir::nunc::NuncDialect"];
}

#endif // NUNC_TRANSFORMS_PASSES_TD
