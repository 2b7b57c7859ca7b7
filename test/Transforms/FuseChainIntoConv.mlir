// RUN: nunc-opt %s -split-input-file --nunc-fuse-chain-into-conv | FileCheck %s

// A chain after a quantized_conv's output grid (u8, scale 0.5): its values
// at the 256 codes, 0.5 q * 2 + 1 = q + 1, become the conv's output_table,
// and the chain goes; the conv's location gains the chain's.
// CHECK-LABEL: func.func @conv_then_chain(
// CHECK: %[[C:.*]] = nunc.quantized_conv {{.*}}output_quantization = !quant.uniform<u8:f32, 5.000000e-01>, output_table = array<f32: 1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00,
// CHECK-SAME: 2.550000e+02, 2.560000e+02>
// CHECK-NOT: nunc.elementwise_chain
// CHECK: return %[[C]]
func.func @conv_then_chain(%x: tensor<1x4x5x6xf32>) -> tensor<1x8x5x6xf32> {
  %w = nunc.constant dense<3> : tensor<8x4x1x1xi8>
  %qw = quant.scast %w : tensor<8x4x1x1xi8> to tensor<8x4x1x1x!quant.uniform<i8:f32, 0.03125>>
  %c = nunc.quantized_conv %x, %qw {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.0234375:128>, kernel_shape = array<i64: 1, 1>, output_quantization = !quant.uniform<u8:f32, 0.5>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x4x5x6xf32>, tensor<8x4x1x1x!quant.uniform<i8:f32, 0.03125>> -> tensor<1x8x5x6xf32>
  %y = nunc.elementwise_chain %c {steps = [{args = array<i64: 0, -1>, constant = 2.0 : f32, op = "mul"}, {args = array<i64: 1, -1>, constant = 1.0 : f32, op = "add"}]} : (tensor<1x8x5x6xf32>) -> tensor<1x8x5x6xf32>
  return %y : tensor<1x8x5x6xf32>
}

// -----

// With a normalization the table is of its grid (norm_quantization,
// s8 with a zero point: codes -128..127, values (q - 3) 0.25), here a clip
// to [0, 6] and + 25: 25 up to code 3, then 0.25 steps up to 31.
// CHECK-LABEL: func.func @normalized(
// CHECK: nunc.quantized_conv {{.*}}output_table = array<f32: 2.500000e+01,
// CHECK-SAME: 2.500000e+01, 2.525000e+01, 2.550000e+01, 2.575000e+01,
// CHECK-SAME: 3.100000e+01>
// CHECK-NOT: nunc.elementwise_chain
func.func @normalized(%x: tensor<1x4x5x6xf32>) -> tensor<1x8x5x6xf32> {
  %w = nunc.constant dense<3> : tensor<8x4x1x1xi8>
  %qw = quant.scast %w : tensor<8x4x1x1xi8> to tensor<8x4x1x1x!quant.uniform<i8:f32, 0.03125>>
  %a = nunc.constant dense<0.75> : tensor<8xf32>
  %s = nunc.constant dense<0.125> : tensor<8xf32>
  %c = nunc.quantized_conv %x, %qw norm %a, %s : tensor<8xf32>, tensor<8xf32> {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.0234375:128>, kernel_shape = array<i64: 1, 1>, norm_quantization = !quant.uniform<i8:f32, 0.25:3>, output_quantization = !quant.uniform<u8:f32, 0.015625:120>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x4x5x6xf32>, tensor<8x4x1x1x!quant.uniform<i8:f32, 0.03125>> -> tensor<1x8x5x6xf32>
  %y = nunc.elementwise_chain %c {steps = [{args = array<i64: 0>, max = 6.0 : f32, min = 0.0 : f32, op = "clip"}, {args = array<i64: 1, -1>, constant = 25.0 : f32, op = "add"}]} : (tensor<1x8x5x6xf32>) -> tensor<1x8x5x6xf32>
  return %y : tensor<1x8x5x6xf32>
}

// -----

// Not taken: the conv's result has another reader; the conv has no grid;
// its grid has 65536 codes (more than max-codes); the chain has two inputs.
// CHECK-LABEL: func.func @not_taken(
// CHECK-NOT: output_table
// CHECK-COUNT-4: nunc.elementwise_chain
func.func @not_taken(%x: tensor<1x4x5x6xf32>) -> (tensor<1x8x5x6xf32>, tensor<1x8x5x6xf32>, tensor<1x8x5x6xf32>, tensor<1x8x5x6xf32>, tensor<1x8x5x6xf32>) {
  %w = nunc.constant dense<3> : tensor<8x4x1x1xi8>
  %qw = quant.scast %w : tensor<8x4x1x1xi8> to tensor<8x4x1x1x!quant.uniform<i8:f32, 0.03125>>
  %c1 = nunc.quantized_conv %x, %qw {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.0234375:128>, kernel_shape = array<i64: 1, 1>, output_quantization = !quant.uniform<u8:f32, 0.5>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x4x5x6xf32>, tensor<8x4x1x1x!quant.uniform<i8:f32, 0.03125>> -> tensor<1x8x5x6xf32>
  %y1 = nunc.elementwise_chain %c1 {steps = [{args = array<i64: 0, -1>, constant = 2.0 : f32, op = "mul"}, {args = array<i64: 1>, op = "relu"}]} : (tensor<1x8x5x6xf32>) -> tensor<1x8x5x6xf32>
  %c2 = nunc.quantized_conv %x, %qw {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.0234375:128>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x4x5x6xf32>, tensor<8x4x1x1x!quant.uniform<i8:f32, 0.03125>> -> tensor<1x8x5x6xf32>
  %y2 = nunc.elementwise_chain %c2 {steps = [{args = array<i64: 0, -1>, constant = 2.0 : f32, op = "mul"}, {args = array<i64: 1>, op = "relu"}]} : (tensor<1x8x5x6xf32>) -> tensor<1x8x5x6xf32>
  %c3 = nunc.quantized_conv %x, %qw {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.0234375:128>, kernel_shape = array<i64: 1, 1>, output_quantization = !quant.uniform<u16:f32, 0.5>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x4x5x6xf32>, tensor<8x4x1x1x!quant.uniform<i8:f32, 0.03125>> -> tensor<1x8x5x6xf32>
  %y3 = nunc.elementwise_chain %c3 {steps = [{args = array<i64: 0, -1>, constant = 2.0 : f32, op = "mul"}, {args = array<i64: 1>, op = "relu"}]} : (tensor<1x8x5x6xf32>) -> tensor<1x8x5x6xf32>
  %c4 = nunc.quantized_conv %x, %qw {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.0234375:128>, kernel_shape = array<i64: 1, 1>, output_quantization = !quant.uniform<u8:f32, 0.5>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x4x5x6xf32>, tensor<8x4x1x1x!quant.uniform<i8:f32, 0.03125>> -> tensor<1x8x5x6xf32>
  %y4 = nunc.elementwise_chain %c4, %c2 {steps = [{args = array<i64: 0, 1>, op = "mul"}, {args = array<i64: 2>, op = "relu"}]} : (tensor<1x8x5x6xf32>, tensor<1x8x5x6xf32>) -> tensor<1x8x5x6xf32>
  return %y1, %c1, %y2, %y3, %y4 : tensor<1x8x5x6xf32>, tensor<1x8x5x6xf32>, tensor<1x8x5x6xf32>, tensor<1x8x5x6xf32>, tensor<1x8x5x6xf32>
}

// -----

// A chain after a depthwise nunc.conv whose first step rounds the conv's
// result to a grid (u8, scale 0.5): the conv becomes a fused_conv rounding
// to that grid, and the chain's values at its codes, 0.5 q + 1, its
// output_table.
// CHECK-LABEL: func.func @depthwise_then_chain(
// CHECK: %[[D:.*]] = nunc.fused_conv %arg0, {{.*}}output_quantization = !quant.uniform<u8:f32, 5.000000e-01>, output_table = array<f32: 1.000000e+00, 1.500000e+00, 2.000000e+00,
// CHECK-SAME: 1.280000e+02, 1.285000e+02>
// CHECK-NOT: nunc.elementwise_chain
// CHECK: return %[[D]]
func.func @depthwise_then_chain(%x: tensor<1x4x5x6xf32>) -> tensor<1x4x5x6xf32> {
  %w = nunc.constant dense<0.5> : tensor<4x1x3x3xf32>
  %b = nunc.constant dense<0.25> : tensor<4xf32>
  %d = nunc.conv %x, %w, %b : tensor<4xf32> {dilations = array<i64: 1, 1>, group = 4 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x4x5x6xf32>, tensor<4x1x3x3xf32> -> tensor<1x4x5x6xf32>
  %y = nunc.elementwise_chain %d {steps = [{args = array<i64: 0>, grid = !quant.uniform<u8:f32, 0.5>, op = "fake_quantize"}, {args = array<i64: 1, -1>, constant = 1.0 : f32, op = "add"}]} : (tensor<1x4x5x6xf32>) -> tensor<1x4x5x6xf32>
  return %y : tensor<1x4x5x6xf32>
}

// -----

// A fused_conv keeps its activation; the table follows it.
// CHECK-LABEL: func.func @fused_depthwise_then_chain(
// CHECK: nunc.fused_conv {{.*}}activation = "relu"{{.*}}output_quantization = !quant.uniform<u8:f32, 5.000000e-01>, output_table = array<f32: 1.000000e+00,
// CHECK-NOT: nunc.elementwise_chain
func.func @fused_depthwise_then_chain(%x: tensor<1x4x5x6xf32>) -> tensor<1x4x5x6xf32> {
  %w = nunc.constant dense<0.5> : tensor<4x1x3x3xf32>
  %d = nunc.fused_conv %x, %w {activation = "relu", dilations = array<i64: 1, 1>, group = 4 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x4x5x6xf32>, tensor<4x1x3x3xf32> -> tensor<1x4x5x6xf32>
  %y = nunc.elementwise_chain %d {steps = [{args = array<i64: 0>, grid = !quant.uniform<u8:f32, 0.5>, op = "fake_quantize"}, {args = array<i64: 1, -1>, constant = 1.0 : f32, op = "add"}]} : (tensor<1x4x5x6xf32>) -> tensor<1x4x5x6xf32>
  return %y : tensor<1x4x5x6xf32>
}

// -----

// Chains that stay: one whose first step is not a rounding of the conv's
// result (it depends on more than its codes), one after a conv that is not
// depthwise, one after a fused_conv that already rounds to a grid, and one
// whose later step reads the conv's result itself, past the rounding.
// CHECK-LABEL: func.func @depthwise_chains_stay(
// CHECK-COUNT-4: nunc.elementwise_chain
// CHECK-NOT: output_table
func.func @depthwise_chains_stay(%x: tensor<1x4x5x6xf32>) -> (tensor<1x4x5x6xf32>, tensor<1x4x5x6xf32>, tensor<1x4x5x6xf32>, tensor<1x4x5x6xf32>) {
  %w = nunc.constant dense<0.5> : tensor<4x1x3x3xf32>
  %d = nunc.conv %x, %w {dilations = array<i64: 1, 1>, group = 4 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x4x5x6xf32>, tensor<4x1x3x3xf32> -> tensor<1x4x5x6xf32>
  %y0 = nunc.elementwise_chain %d {steps = [{args = array<i64: 0, -1>, constant = 2.0 : f32, grid = !quant.uniform<u8:f32, 0.5>, op = "mul"}]} : (tensor<1x4x5x6xf32>) -> tensor<1x4x5x6xf32>
  %wf = nunc.constant dense<0.5> : tensor<4x4x3x3xf32>
  %f = nunc.conv %x, %wf {dilations = array<i64: 1, 1>, group = 1 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x4x5x6xf32>, tensor<4x4x3x3xf32> -> tensor<1x4x5x6xf32>
  %y1 = nunc.elementwise_chain %f {steps = [{args = array<i64: 0>, grid = !quant.uniform<u8:f32, 0.5>, op = "fake_quantize"}, {args = array<i64: 1, -1>, constant = 1.0 : f32, op = "add"}]} : (tensor<1x4x5x6xf32>) -> tensor<1x4x5x6xf32>
  %g = nunc.fused_conv %x, %w {dilations = array<i64: 1, 1>, group = 4 : i64, kernel_shape = array<i64: 3, 3>, output_quantization = !quant.uniform<u8:f32, 0.25>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x4x5x6xf32>, tensor<4x1x3x3xf32> -> tensor<1x4x5x6xf32>
  %y2 = nunc.elementwise_chain %g {steps = [{args = array<i64: 0>, grid = !quant.uniform<u8:f32, 0.5>, op = "fake_quantize"}, {args = array<i64: 1, -1>, constant = 1.0 : f32, op = "add"}]} : (tensor<1x4x5x6xf32>) -> tensor<1x4x5x6xf32>
  %h = nunc.conv %x, %w {dilations = array<i64: 1, 1>, group = 4 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x4x5x6xf32>, tensor<4x1x3x3xf32> -> tensor<1x4x5x6xf32>
  %y3 = nunc.elementwise_chain %h {steps = [{args = array<i64: 0>, grid = !quant.uniform<u8:f32, 0.5>, op = "fake_quantize"}, {args = array<i64: 1, 0>, op = "mul"}]} : (tensor<1x4x5x6xf32>) -> tensor<1x4x5x6xf32>
  return %y0, %y1, %y2, %y3 : tensor<1x4x5x6xf32>, tensor<1x4x5x6xf32>, tensor<1x4x5x6xf32>, tensor<1x4x5x6xf32>
}

// -----

// A chain that ends on a grid: that grid is the table's
// table_quantization (its entries lie on it).
// CHECK-LABEL: func.func @chain_ending_on_a_grid(
// CHECK: nunc.quantized_conv {{.*}}output_table = array<f32: {{.*}}>, pads = {{.*}}table_quantization = !quant.uniform<u8:f32, 2.500000e-01:4>}
// CHECK-NOT: nunc.elementwise_chain
func.func @chain_ending_on_a_grid(%x: tensor<1x4x5x6xf32>) -> tensor<1x8x5x6xf32> {
  %w = nunc.constant dense<3> : tensor<8x4x1x1xi8>
  %qw = quant.scast %w : tensor<8x4x1x1xi8> to tensor<8x4x1x1x!quant.uniform<i8:f32, 0.03125>>
  %c = nunc.quantized_conv %x, %qw {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.0234375:128>, kernel_shape = array<i64: 1, 1>, output_quantization = !quant.uniform<u8:f32, 0.5>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x4x5x6xf32>, tensor<8x4x1x1x!quant.uniform<i8:f32, 0.03125>> -> tensor<1x8x5x6xf32>
  %y = nunc.elementwise_chain %c {steps = [{args = array<i64: 0, -1>, constant = 0.5 : f32, grid = !quant.uniform<u8:f32, 0.25:4>, op = "mul"}]} : (tensor<1x8x5x6xf32>) -> tensor<1x8x5x6xf32>
  return %y : tensor<1x8x5x6xf32>
}
