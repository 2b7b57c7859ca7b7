// average_pool with output_quantization: onnxruntime's QLinearAveragePool
// (a QDQ model's AveragePool between pairs). %a: 3x2 windows of stride
// 3x2 on a grid of the output's scale, so every window whose code sum is
// 3 mod 6 is an exact tie, and an odd zero point added before the rounding
// moves each of them a code (QuantizeLinear's order would not); %b: a
// padded 3x3 of stride 2, border windows counting 4 or 6 taps (the map of
// counts), the grid's top end reached; %c: stride 3 in W (the generic
// kernel), signed_codes (rounding zero point 131 - 128 = 3). The compiled
// kernels equal the reference evaluator, and both the arithmetic as
// Inputs/qlinear_average_pool.py writes it.
// RUN: nunc run --reference %s --random-inputs --seed 21 -o %t.ref.npz
// RUN: nunc run %s --random-inputs --seed 21 -o %t.jit.npz --explain 2>&1 | FileCheck %s
// RUN: %python %S/Inputs/qlinear_average_pool.py %t.ref.npz %t.jit.npz

// CHECK: average_pool.{{.*}}[1x24x7x9, 3x2 window, stride 3x2] +divide +requantize
// CHECK: average_pool.{{.*}}[2x5x9x11, 3x3 window, stride 2x2] +divide +requantize
// CHECK: generic  nunc.average_pool

func.func @main(%x: tensor<1x24x7x9xf32> {nunc.name = "x"}, %y: tensor<2x5x9x11xf32> {nunc.name = "y"}) -> (tensor<1x24x2x4xf32> {nunc.name = "a"}, tensor<2x5x5x6xf32> {nunc.name = "b"}, tensor<1x24x6x3xf32> {nunc.name = "c"}, tensor<1x24x7x9xf32> {nunc.name = "xq"}, tensor<2x5x9x11xf32> {nunc.name = "yq"}) {
  %two = nunc.constant dense<2.0> : tensor<f32>
  %xs = nunc.mul %x, %two : (tensor<1x24x7x9xf32>, tensor<f32>) -> tensor<1x24x7x9xf32>
  %xq = nunc.fake_quantize %xs {quantization = !quant.uniform<u8:f32, 0.015625:128>} : tensor<1x24x7x9xf32> -> tensor<1x24x7x9xf32>
  %a = nunc.average_pool %xq {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 2>, output_quantization = !quant.uniform<u8:f32, 0.015625:5>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 3, 2>} : tensor<1x24x7x9xf32> -> tensor<1x24x2x4xf32>
  %yq = nunc.fake_quantize %y {quantization = !quant.uniform<u8:f32, 0.0078125:128>} : tensor<2x5x9x11xf32> -> tensor<2x5x9x11xf32>
  %b = nunc.average_pool %yq {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, output_quantization = !quant.uniform<u8:f32, 0.0078125:201>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : tensor<2x5x9x11xf32> -> tensor<2x5x5x6xf32>
  %c = nunc.average_pool %xq {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 3>, output_quantization = !quant.uniform<u8:f32, 0.03125:131>, pads = array<i64: 0, 0, 0, 0>, signed_codes, strides = array<i64: 1, 3>} : tensor<1x24x7x9xf32> -> tensor<1x24x6x3xf32>
  return %a, %b, %c, %xq, %yq : tensor<1x24x2x4xf32>, tensor<2x5x5x6xf32>, tensor<1x24x6x3xf32>, tensor<1x24x7x9xf32>, tensor<2x5x9x11xf32>
}
