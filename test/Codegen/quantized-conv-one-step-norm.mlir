// One-step requantization followed by more epilogue: the output grid's
// codes from one multiply, then their values (q - zp) s_y normalized and
// rounded to the norm grid (a QDQ export's conv -> Q/DQ -> BatchNorm ->
// Q/DQ, as onnxruntime runs its QLinearConv then the BatchNorm), written as
// u8 codes (%c) or f32 (%y); and a conv whose grid's values are its f32
// output (%f, a QDQ conv before a residual Add). The compiled kernels equal
// the reference evaluator bit for bit.
// RUN: nunc run --reference %s --random-inputs --seed 13 -o %t.ref.npz
// RUN: nunc run %s --random-inputs --seed 13 -o %t.jit.npz
// RUN: %python -c "import sys, numpy as np; a, b = (np.load(p) for p in sys.argv[1:]); [np.testing.assert_array_equal(a[k], b[k]) for k in ('y', 'c', 'f')]; assert all(np.unique(a[k]).size > 8 for k in ('y', 'c', 'f'))" %t.ref.npz %t.jit.npz

func.func @main(%x: tensor<1x3x9x11xf32> {nunc.name = "x"}) -> (tensor<1x4x9x11xf32> {nunc.name = "y"}, tensor<1x4x9x11x!quant.uniform<u8:f32, 0.01171875:100>> {nunc.name = "c"}, tensor<1x4x9x11xf32> {nunc.name = "f"}) {
  %w = nunc.constant dense<[[[[3, -1, 2]], [[-7, 4, 1]], [[12, 0, -5]]], [[[-2, 6, 1]], [[5, -3, 2]], [[9, 1, -1]]], [[[1, 2, 3]], [[-1, -2, -3]], [[4, 0, 2]]], [[[8, -4, 1]], [[6, 2, -2]], [[-5, 3, 7]]]]> : tensor<4x3x1x3xi8>
  %qw = quant.scast %w : tensor<4x3x1x3xi8> to tensor<4x3x1x3x!quant.uniform<i8:f32:0, {0.03125, 0.0625, 0.015625, 0.046875}>>
  %b = nunc.constant dense<[0.25, -0.5, 0.125, 0.0]> : tensor<4xf32>
  %a = nunc.constant dense<[0.75, 1.5, -0.5, 1.25]> : tensor<4xf32>
  %s = nunc.constant dense<[0.1, -0.2, 0.3, 0.05]> : tensor<4xf32>
  %y = nunc.quantized_conv %x, %qw bias %b : tensor<4xf32> norm %a, %s : tensor<4xf32>, tensor<4xf32> {activation = "relu", activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.0625:128>, kernel_shape = array<i64: 1, 3>, norm_quantization = !quant.uniform<u8:f32, 0.01171875:100>, one_step_requantization, output_quantization = !quant.uniform<u8:f32, 0.046875:7>, pads = array<i64: 0, 1, 0, 1>, strides = array<i64: 1, 1>} : tensor<1x3x9x11xf32>, tensor<4x3x1x3x!quant.uniform<i8:f32:0, {0.03125, 0.0625, 0.015625, 0.046875}>> -> tensor<1x4x9x11xf32>
  %c = nunc.quantized_conv %x, %qw bias %b : tensor<4xf32> norm %a, %s : tensor<4xf32>, tensor<4xf32> {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.0625:128>, kernel_shape = array<i64: 1, 3>, norm_quantization = !quant.uniform<u8:f32, 0.01171875:100>, one_step_requantization, output_quantization = !quant.uniform<u8:f32, 0.046875:130>, pads = array<i64: 0, 1, 0, 1>, strides = array<i64: 1, 1>, u8_output} : tensor<1x3x9x11xf32>, tensor<4x3x1x3x!quant.uniform<i8:f32:0, {0.03125, 0.0625, 0.015625, 0.046875}>> -> tensor<1x4x9x11x!quant.uniform<u8:f32, 0.01171875:100>>
  %f = nunc.quantized_conv %x, %qw bias %b : tensor<4xf32> {activation = "clip", activation_max = 2.0 : f32, activation_min = -1.0 : f32, activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.0625:128>, kernel_shape = array<i64: 1, 3>, one_step_requantization, output_quantization = !quant.uniform<u8:f32, 0.03125:60>, pads = array<i64: 0, 1, 0, 1>, strides = array<i64: 1, 1>} : tensor<1x3x9x11xf32>, tensor<4x3x1x3x!quant.uniform<i8:f32:0, {0.03125, 0.0625, 0.015625, 0.046875}>> -> tensor<1x4x9x11xf32>
  return %y, %c, %f : tensor<1x4x9x11xf32>, tensor<1x4x9x11x!quant.uniform<u8:f32, 0.01171875:100>>, tensor<1x4x9x11xf32>
}
