// The u8 handovers from an int8 conv to a depthwise conv, from a depthwise
// conv to an int8 conv and from int8 conv to int8 conv change no value:
// the reference evaluator gives the same bits before and after the pass.
// The compiled library (where the pass runs with the target's kernels: on
// AVX-512 hosts the int8 convs write u8 codes and the depthwise kernels read
// them, the stride-2 one splitting rows, the stride-1 one copying them; 37
// columns leave tails for both; then nunc-one-step-requantization) agrees
// with the reference of the one-step form up to the order of the depthwise
// sums (its kernels alone: WindowKernelTest, bit for bit), which moves a
// few of the projection's inputs across a rounding boundary of its grid.
// RUN: nunc-opt %s --nunc-fuse-conv-activation-quantization -o %t.fused.mlir
// RUN: FileCheck %s --input-file %t.fused.mlir
// RUN: nunc-opt %t.fused.mlir --nunc-one-step-requantization -o %t.onestep.mlir
// RUN: nunc run --reference %s --random-inputs --seed 5 -o %t.ref.npz
// RUN: nunc run --reference %t.fused.mlir --random-inputs --seed 5 -o %t.fused.npz
// RUN: nunc run --reference %t.onestep.mlir --random-inputs --seed 5 -o %t.onestep.npz
// RUN: nunc run %s --random-inputs --seed 5 -o %t.jit.npz
// RUN: %python -c "import sys, numpy as np; a, b, o, c = (np.load(p) for p in sys.argv[1:]); [np.testing.assert_array_equal(a[k], b[k]) for k in ('y', 'z', 'p', 'c')]; np.testing.assert_array_equal(c['c'], o['c']); [np.testing.assert_allclose(c[k], o[k], rtol=1e-5, atol=1e-6) for k in ('y', 'z')]; assert (np.abs(c['p'] - o['p']) > 1e-4).mean() < 0.01; assert all(np.unique(a[k]).size > 50 for k in ('y', 'z', 'p', 'c'))" %t.ref.npz %t.fused.npz %t.onestep.npz %t.jit.npz

// CHECK-COUNT-5: u8_output
// CHECK-NOT: nunc.conv
func.func @main(%x: tensor<1x4x9x37xf32> {nunc.name = "x"}) -> (tensor<1x6x5x19xf32> {nunc.name = "y"}, tensor<1x6x9x37xf32> {nunc.name = "z"}, tensor<1x5x9x37xf32> {nunc.name = "p"}, tensor<1x5x9x37xf32> {nunc.name = "c"}) {
  %w = nunc.constant dense<[[[[18]], [[-25]], [[-20]], [[-16]]], [[[-20]], [[18]], [[22]], [[4]]], [[[-28]], [[-25]], [[-11]], [[-5]]], [[[7]], [[-2]], [[-15]], [[-21]]], [[[11]], [[14]], [[-29]], [[-24]]], [[[-3]], [[-7]], [[23]], [[1]]]]> : tensor<6x4x1x1xi8>
  %qw = quant.scast %w : tensor<6x4x1x1xi8> to tensor<6x4x1x1x!quant.uniform<i8:f32:0, {0.03125, 0.0625, 0.015625, 0.046875, 0.02, 0.05}>>
  %b = nunc.constant dense<[0.318, -0.238, 0.071, -0.21, 0.281, -0.004]> : tensor<6xf32>
  %dw = nunc.constant dense<[[[[-0.141, -0.334, -0.528], [-0.195, 0.241, -0.119], [0.479, -0.1, 0.012]]], [[[0.773, 0.273, -0.253], [-0.091, 0.27, 0.968], [-0.135, -0.122, 0.501]]], [[[-0.443, -0.146, 0.441], [0.29, 0.046, 0.335], [-1.414, 0.511, -0.48]]], [[[-0.834, 0.138, 0.35], [-0.222, -0.538, 0.013], [-0.026, 0.703, 0.374]]], [[[0.097, 0.556, -0.103], [-0.463, 0.292, 0.291], [-0.107, -0.391, 0.115]]], [[[-1.247, 0.345, 0.246], [-0.819, 0.031, -0.482], [0.379, -1.017, -0.457]]]]> : tensor<6x1x3x3xf32>
  %db = nunc.constant dense<[0.071, 0.116, -0.216, -0.05, 0.033, -0.061]> : tensor<6xf32>
  %a = nunc.constant dense<[0.75, 1.5, -0.5, 1.25, 0.5, -1.0]> : tensor<6xf32>
  %s = nunc.constant dense<[0.1, -0.2, 0.3, 0.05, 0.0, -0.1]> : tensor<6xf32>
  // An expansion conv, its output on a u8 grid, then a stride-2 depthwise conv.
  %e = nunc.quantized_conv %x, %qw bias %b : tensor<6xf32> {activation = "relu", activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.0234375:128>, kernel_shape = array<i64: 1, 1>, output_quantization = !quant.uniform<u8:f32, 0.0078125:0>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x4x9x37xf32>, tensor<6x4x1x1x!quant.uniform<i8:f32:0, {0.03125, 0.0625, 0.015625, 0.046875, 0.02, 0.05}>> -> tensor<1x6x9x37xf32>
  %y = nunc.conv %e, %dw, %db : tensor<6xf32> {dilations = array<i64: 1, 1>, group = 6 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : tensor<1x6x9x37xf32>, tensor<6x1x3x3xf32> -> tensor<1x6x5x19xf32>
  // With a normalization between two grids (a QDQ model's BatchNormalization),
  // then a stride-1 depthwise conv with an activation.
  %n = nunc.quantized_conv %x, %qw norm %a, %s : tensor<6xf32>, tensor<6xf32> {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.0234375:128>, kernel_shape = array<i64: 1, 1>, norm_quantization = !quant.uniform<u8:f32, 0.01171875:100>, output_quantization = !quant.uniform<u8:f32, 0.015625:120>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x4x9x37xf32>, tensor<6x4x1x1x!quant.uniform<i8:f32:0, {0.03125, 0.0625, 0.015625, 0.046875, 0.02, 0.05}>> -> tensor<1x6x9x37xf32>
  %z = nunc.fused_conv %n, %dw bias %db : tensor<6xf32> {activation = "clip", activation_max = 1.0 : f32, activation_min = -0.5 : f32, dilations = array<i64: 1, 1>, group = 6 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x6x9x37xf32>, tensor<6x1x3x3xf32> -> tensor<1x6x9x37xf32>
  // Expansion, depthwise conv, projection (its input on a grid): all in u8.
  %e3 = nunc.quantized_conv %x, %qw bias %b : tensor<6xf32> {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.0234375:128>, kernel_shape = array<i64: 1, 1>, output_quantization = !quant.uniform<u8:f32, 0.0078125:20>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x4x9x37xf32>, tensor<6x4x1x1x!quant.uniform<i8:f32:0, {0.03125, 0.0625, 0.015625, 0.046875, 0.02, 0.05}>> -> tensor<1x6x9x37xf32>
  %d3 = nunc.conv %e3, %dw, %db : tensor<6xf32> {dilations = array<i64: 1, 1>, group = 6 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x6x9x37xf32>, tensor<6x1x3x3xf32> -> tensor<1x6x9x37xf32>
  %pw = nunc.constant dense<[[[[3]], [[-7]], [[12]], [[-2]], [[5]], [[9]]], [[[1]], [[2]], [[-3]], [[8]], [[-4]], [[6]]], [[[-5]], [[3]], [[7]], [[1]], [[-1]], [[2]]], [[[4]], [[-6]], [[1]], [[9]], [[2]], [[-8]]], [[[7]], [[7]], [[-7]], [[3]], [[0]], [[-2]]]]> : tensor<5x6x1x1xi8>
  %qp = quant.scast %pw : tensor<5x6x1x1xi8> to tensor<5x6x1x1x!quant.uniform<i8:f32, 0.05>>
  %p = nunc.quantized_conv %d3, %qp {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.00390625:128>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x6x9x37xf32>, tensor<5x6x1x1x!quant.uniform<i8:f32, 0.05>> -> tensor<1x5x9x37xf32>
  // Two int8 convs in a row, the first without a grid of its own: it takes
  // the second's input grid and hands over its codes (the compiled library
  // equals the evaluator here: integer sums, the same f32 steps).
  %e4 = nunc.quantized_conv %x, %qw bias %b : tensor<6xf32> {activation = "relu", activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.0234375:128>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x4x9x37xf32>, tensor<6x4x1x1x!quant.uniform<i8:f32:0, {0.03125, 0.0625, 0.015625, 0.046875, 0.02, 0.05}>> -> tensor<1x6x9x37xf32>
  %c = nunc.quantized_conv %e4, %qp {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.0078125:0>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x6x9x37xf32>, tensor<5x6x1x1x!quant.uniform<i8:f32, 0.05>> -> tensor<1x5x9x37xf32>
  return %y, %z, %p, %c : tensor<1x6x5x19xf32>, tensor<1x6x9x37xf32>, tensor<1x5x9x37xf32>, tensor<1x5x9x37xf32>
}
