// An int8 conv with a residual and a normalization in its epilogue (bias,
// residual, activation, output grid, fma(y, a, b), norm grid): the residual
// is read from its own operand, not from the last one (norm_shift). The
// compiled kernels equal the reference evaluator bit for bit (exact integer
// sums, the same f32 steps in the same order).
// RUN: nunc run --reference %s --random-inputs --seed 11 -o %t.ref.npz
// RUN: nunc run %s --random-inputs --seed 11 -o %t.jit.npz
// RUN: %python -c "import sys, numpy as np; a, b = (np.load(p) for p in sys.argv[1:]); np.testing.assert_array_equal(a['y'], b['y']); assert np.unique(a['y']).size > 8" %t.ref.npz %t.jit.npz

func.func @main(%x: tensor<1x3x5x7xf32> {nunc.name = "x"}, %r: tensor<1x4x5x7xf32> {nunc.name = "r"}) -> (tensor<1x4x5x7xf32> {nunc.name = "y"}) {
  %w = nunc.constant dense<[[[[3, -1, 2]], [[-7, 4, 1]], [[12, 0, -5]]], [[[-2, 6, 1]], [[5, -3, 2]], [[9, 1, -1]]], [[[1, 2, 3]], [[-1, -2, -3]], [[4, 0, 2]]], [[[8, -4, 1]], [[6, 2, -2]], [[-5, 3, 7]]]]> : tensor<4x3x1x3xi8>
  %qw = quant.scast %w : tensor<4x3x1x3xi8> to tensor<4x3x1x3x!quant.uniform<i8:f32:0, {0.03125, 0.0625, 0.015625, 0.046875}>>
  %b = nunc.constant dense<[0.25, -0.5, 0.125, 0.0]> : tensor<4xf32>
  %a = nunc.constant dense<[0.75, 1.5, -0.5, 1.25]> : tensor<4xf32>
  %s = nunc.constant dense<[0.1, -0.2, 0.3, 0.05]> : tensor<4xf32>
  %y = nunc.quantized_conv %x, %qw bias %b : tensor<4xf32> residual %r : tensor<1x4x5x7xf32> norm %a, %s : tensor<4xf32>, tensor<4xf32> {activation = "relu", activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.0625:128>, kernel_shape = array<i64: 1, 3>, norm_quantization = !quant.uniform<u8:f32, 0.03125:64>, output_quantization = !quant.uniform<u8:f32, 0.046875:0>, pads = array<i64: 0, 1, 0, 1>, strides = array<i64: 1, 1>} : tensor<1x3x5x7xf32>, tensor<4x3x1x3x!quant.uniform<i8:f32:0, {0.03125, 0.0625, 0.015625, 0.046875}>> -> tensor<1x4x5x7xf32>
  return %y : tensor<1x4x5x7xf32>
}
