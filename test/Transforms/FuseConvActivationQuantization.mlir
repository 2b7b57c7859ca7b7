// RUN: nunc-opt %s -split-input-file --nunc-fuse-conv-activation-quantization | FileCheck %s

// An int8 conv whose output grid is u8 and whose only use is a depthwise
// conv: the conv writes the grid's codes (u8_output, the grid its result's
// element type), and the depthwise conv, now a fused_conv with no
// activation, reads them.
// CHECK-LABEL: func.func @expand_then_depthwise(
// CHECK: %[[E:.*]] = nunc.quantized_conv {{.*}}output_quantization = !quant.uniform<u8:f32, 7.812500e-03>{{.*}}u8_output{{.*}} -> tensor<1x8x5x6x!quant.uniform<u8:f32, 7.812500e-03>>
// CHECK: %[[D:.*]] = nunc.fused_conv %[[E]], %{{.*}} bias %{{.*}} : tensor<8xf32> {dilations = array<i64: 1, 1>, group = 8 : i64{{.*}}strides = array<i64: 2, 2>} : tensor<1x8x5x6x!quant.uniform<u8:f32, 7.812500e-03>>, tensor<8x1x3x3xf32> -> tensor<1x8x3x3xf32>
// CHECK: return %[[D]]
func.func @expand_then_depthwise(%x: tensor<1x4x5x6xf32>) -> tensor<1x8x3x3xf32> {
  %w = nunc.constant dense<3> : tensor<8x4x1x1xi8>
  %qw = quant.scast %w : tensor<8x4x1x1xi8> to tensor<8x4x1x1x!quant.uniform<i8:f32, 0.03125>>
  %dw = nunc.constant dense<0.5> : tensor<8x1x3x3xf32>
  %db = nunc.constant dense<0.25> : tensor<8xf32>
  %e = nunc.quantized_conv %x, %qw {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.0234375:128>, kernel_shape = array<i64: 1, 1>, output_quantization = !quant.uniform<u8:f32, 0.0078125:0>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x4x5x6xf32>, tensor<8x4x1x1x!quant.uniform<i8:f32, 0.03125>> -> tensor<1x8x5x6xf32>
  %d = nunc.conv %e, %dw, %db : tensor<8xf32> {dilations = array<i64: 1, 1>, group = 8 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : tensor<1x8x5x6xf32>, tensor<8x1x3x3xf32> -> tensor<1x8x3x3xf32>
  return %d : tensor<1x8x3x3xf32>
}

// -----

// With a normalization the codes are those of its grid (norm_quantization);
// a fused_conv keeps its activation.
// CHECK-LABEL: func.func @normalized_then_fused(
// CHECK: nunc.quantized_conv {{.*}}u8_output{{.*}} -> tensor<1x8x5x6x!quant.uniform<u8:f32, 0.01171875:100>>
// CHECK: nunc.fused_conv {{.*}}activation = "clip"{{.*}} : tensor<1x8x5x6x!quant.uniform<u8:f32, 0.01171875:100>>, tensor<8x1x3x3xf32> -> tensor<1x8x5x6xf32>
func.func @normalized_then_fused(%x: tensor<1x4x5x6xf32>) -> tensor<1x8x5x6xf32> {
  %w = nunc.constant dense<3> : tensor<8x4x1x1xi8>
  %qw = quant.scast %w : tensor<8x4x1x1xi8> to tensor<8x4x1x1x!quant.uniform<i8:f32, 0.03125>>
  %a = nunc.constant dense<0.75> : tensor<8xf32>
  %s = nunc.constant dense<0.125> : tensor<8xf32>
  %dw = nunc.constant dense<0.5> : tensor<8x1x3x3xf32>
  %e = nunc.quantized_conv %x, %qw norm %a, %s : tensor<8xf32>, tensor<8xf32> {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.0234375:128>, kernel_shape = array<i64: 1, 1>, norm_quantization = !quant.uniform<u8:f32, 0.01171875:100>, output_quantization = !quant.uniform<u8:f32, 0.015625:120>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x4x5x6xf32>, tensor<8x4x1x1x!quant.uniform<i8:f32, 0.03125>> -> tensor<1x8x5x6xf32>
  %d = nunc.fused_conv %e, %dw {activation = "clip", activation_max = 6.0 : f32, activation_min = 0.0 : f32, dilations = array<i64: 1, 1>, group = 8 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x8x5x6xf32>, tensor<8x1x3x3xf32> -> tensor<1x8x5x6xf32>
  return %d : tensor<1x8x5x6xf32>
}

// -----

// A depthwise conv whose only use is a static int8 conv's input writes the
// codes of that conv's input grid (output_quantization, u8_output), which
// the int8 conv reads as its quantized input (no input_quantization): the
// whole block, expansion -> depthwise -> projection, in u8.
// CHECK-LABEL: func.func @block(
// CHECK: %[[E:.*]] = nunc.quantized_conv {{.*}}u8_output{{.*}} -> tensor<1x8x5x6x!quant.uniform<u8:f32, 7.812500e-03>>
// CHECK: %[[D:.*]] = nunc.fused_conv %[[E]], {{.*}}output_quantization = !quant.uniform<u8:f32, 3.125000e-02:64>{{.*}}u8_output} : tensor<1x8x5x6x!quant.uniform<u8:f32, 7.812500e-03>>, tensor<8x1x3x3xf32> -> tensor<1x8x5x6x!quant.uniform<u8:f32, 3.125000e-02:64>>
// CHECK: nunc.quantized_conv %[[D]], %{{.*}} {activation_quantization = "static", dilations
// CHECK-NOT: input_quantization
// CHECK-SAME: : tensor<1x8x5x6x!quant.uniform<u8:f32, 3.125000e-02:64>>, tensor<4x8x1x1x!quant.uniform<i8:f32, 6.250000e-02>> -> tensor<1x4x5x6xf32>
func.func @block(%x: tensor<1x4x5x6xf32>) -> tensor<1x4x5x6xf32> {
  %w = nunc.constant dense<3> : tensor<8x4x1x1xi8>
  %qw = quant.scast %w : tensor<8x4x1x1xi8> to tensor<8x4x1x1x!quant.uniform<i8:f32, 0.03125>>
  %dw = nunc.constant dense<0.5> : tensor<8x1x3x3xf32>
  %pw = nunc.constant dense<-2> : tensor<4x8x1x1xi8>
  %qp = quant.scast %pw : tensor<4x8x1x1xi8> to tensor<4x8x1x1x!quant.uniform<i8:f32, 0.0625>>
  %e = nunc.quantized_conv %x, %qw {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.0234375:128>, kernel_shape = array<i64: 1, 1>, output_quantization = !quant.uniform<u8:f32, 0.0078125:0>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x4x5x6xf32>, tensor<8x4x1x1x!quant.uniform<i8:f32, 0.03125>> -> tensor<1x8x5x6xf32>
  %d = nunc.conv %e, %dw {dilations = array<i64: 1, 1>, group = 8 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x8x5x6xf32>, tensor<8x1x3x3xf32> -> tensor<1x8x5x6xf32>
  %p = nunc.quantized_conv %d, %qp {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.03125:64>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x8x5x6xf32>, tensor<4x8x1x1x!quant.uniform<i8:f32, 0.0625>> -> tensor<1x4x5x6xf32>
  return %p : tensor<1x4x5x6xf32>
}

// -----

// An int8 conv whose only use is a static int8 conv hands it the codes of
// that conv's input grid: taken as its output grid when it has none, kept
// when it is the same; another grid stays.
// CHECK-LABEL: func.func @conv_then_conv(
// CHECK: %[[A:.*]] = nunc.quantized_conv {{.*}}output_quantization = !quant.uniform<u8:f32, 3.125000e-02:64>{{.*}}u8_output{{.*}} -> tensor<1x8x5x6x!quant.uniform<u8:f32, 3.125000e-02:64>>
// CHECK: nunc.quantized_conv %[[A]], %{{.*}} {activation_quantization = "static", dilations
// CHECK-NOT: input_quantization
// CHECK-SAME: -> tensor<1x4x5x6xf32>
// CHECK: %[[B:.*]] = nunc.quantized_conv {{.*}}u8_output{{.*}} -> tensor<1x8x5x6x!quant.uniform<u8:f32, 3.125000e-02:64>>
// CHECK: nunc.quantized_conv %[[B]],
// CHECK: %[[C:.*]] = nunc.quantized_conv {{.*}} -> tensor<1x8x5x6xf32>
// CHECK: nunc.quantized_conv %[[C]], {{.*}}input_quantization = !quant.uniform<u8:f32, 3.125000e-02:64>
func.func @conv_then_conv(%x: tensor<1x4x5x6xf32>) -> (tensor<1x4x5x6xf32>, tensor<1x4x5x6xf32>, tensor<1x4x5x6xf32>) {
  %w = nunc.constant dense<3> : tensor<8x4x1x1xi8>
  %qw = quant.scast %w : tensor<8x4x1x1xi8> to tensor<8x4x1x1x!quant.uniform<i8:f32, 0.03125>>
  %pw = nunc.constant dense<-2> : tensor<4x8x1x1xi8>
  %qp = quant.scast %pw : tensor<4x8x1x1xi8> to tensor<4x8x1x1x!quant.uniform<i8:f32, 0.0625>>
  %a = nunc.quantized_conv %x, %qw {activation = "relu", activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.0234375:128>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x4x5x6xf32>, tensor<8x4x1x1x!quant.uniform<i8:f32, 0.03125>> -> tensor<1x8x5x6xf32>
  %ra = nunc.quantized_conv %a, %qp {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.03125:64>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x8x5x6xf32>, tensor<4x8x1x1x!quant.uniform<i8:f32, 0.0625>> -> tensor<1x4x5x6xf32>
  %b = nunc.quantized_conv %x, %qw {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.0234375:128>, kernel_shape = array<i64: 1, 1>, output_quantization = !quant.uniform<u8:f32, 0.03125:64>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x4x5x6xf32>, tensor<8x4x1x1x!quant.uniform<i8:f32, 0.03125>> -> tensor<1x8x5x6xf32>
  %rb = nunc.quantized_conv %b, %qp {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.03125:64>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x8x5x6xf32>, tensor<4x8x1x1x!quant.uniform<i8:f32, 0.0625>> -> tensor<1x4x5x6xf32>
  %c = nunc.quantized_conv %x, %qw {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.0234375:128>, kernel_shape = array<i64: 1, 1>, output_quantization = !quant.uniform<u8:f32, 0.0625:64>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x4x5x6xf32>, tensor<8x4x1x1x!quant.uniform<i8:f32, 0.03125>> -> tensor<1x8x5x6xf32>
  %rc = nunc.quantized_conv %c, %qp {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.03125:64>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x8x5x6xf32>, tensor<4x8x1x1x!quant.uniform<i8:f32, 0.0625>> -> tensor<1x4x5x6xf32>
  return %ra, %rb, %rc : tensor<1x4x5x6xf32>, tensor<1x4x5x6xf32>, tensor<1x4x5x6xf32>
}

// -----

// A depthwise conv before a dynamic int8 conv (its input range measured at
// run time), or with a residual, keeps writing f32.
// CHECK-LABEL: func.func @depthwise_stays(
// CHECK-NOT: u8_output
// CHECK: return
func.func @depthwise_stays(%x: tensor<1x8x5x6xf32>, %r: tensor<1x8x5x6xf32>) -> (tensor<1x4x5x6xf32>, tensor<1x4x5x6xf32>) {
  %dw = nunc.constant dense<0.5> : tensor<8x1x3x3xf32>
  %pw = nunc.constant dense<-2> : tensor<4x8x1x1xi8>
  %qp = quant.scast %pw : tensor<4x8x1x1xi8> to tensor<4x8x1x1x!quant.uniform<i8:f32, 0.0625>>
  %d1 = nunc.conv %x, %dw {dilations = array<i64: 1, 1>, group = 8 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x8x5x6xf32>, tensor<8x1x3x3xf32> -> tensor<1x8x5x6xf32>
  %p1 = nunc.quantized_conv %d1, %qp {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x8x5x6xf32>, tensor<4x8x1x1x!quant.uniform<i8:f32, 0.0625>> -> tensor<1x4x5x6xf32>
  %d2 = nunc.fused_conv %x, %dw residual %r : tensor<1x8x5x6xf32> {dilations = array<i64: 1, 1>, group = 8 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x8x5x6xf32>, tensor<8x1x3x3xf32> -> tensor<1x8x5x6xf32>
  %p2 = nunc.quantized_conv %d2, %qp {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.03125:64>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x8x5x6xf32>, tensor<4x8x1x1x!quant.uniform<i8:f32, 0.0625>> -> tensor<1x4x5x6xf32>
  return %p1, %p2 : tensor<1x4x5x6xf32>, tensor<1x4x5x6xf32>
}

// -----

// No handover: a second use of the f32 values (returned), a one-group conv
// after the int8 conv, an s8 output grid, no output grid at all, and a
// normalization whose own grid is missing.
// CHECK-LABEL: func.func @stays(
// CHECK-NOT: u8_output
// CHECK-NOT: !quant.uniform<u8:f32, 7.812500e-03>>,
// CHECK: return
func.func @stays(%x: tensor<1x4x5x6xf32>) -> (tensor<1x8x5x6xf32>, tensor<1x8x5x6xf32>, tensor<1x8x5x6xf32>, tensor<1x8x5x6xf32>, tensor<1x8x5x6xf32>, tensor<1x8x5x6xf32>) {
  %w = nunc.constant dense<3> : tensor<8x4x1x1xi8>
  %qw = quant.scast %w : tensor<8x4x1x1xi8> to tensor<8x4x1x1x!quant.uniform<i8:f32, 0.03125>>
  %dw = nunc.constant dense<0.5> : tensor<8x1x3x3xf32>
  %fw = nunc.constant dense<0.5> : tensor<8x8x1x1xf32>
  %a = nunc.constant dense<0.75> : tensor<8xf32>
  %s = nunc.constant dense<0.125> : tensor<8xf32>
  %e1 = nunc.quantized_conv %x, %qw {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.0234375:128>, kernel_shape = array<i64: 1, 1>, output_quantization = !quant.uniform<u8:f32, 0.0078125:0>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x4x5x6xf32>, tensor<8x4x1x1x!quant.uniform<i8:f32, 0.03125>> -> tensor<1x8x5x6xf32>
  %d1 = nunc.conv %e1, %dw {dilations = array<i64: 1, 1>, group = 8 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x8x5x6xf32>, tensor<8x1x3x3xf32> -> tensor<1x8x5x6xf32>
  %e2 = nunc.quantized_conv %x, %qw {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.0234375:128>, kernel_shape = array<i64: 1, 1>, output_quantization = !quant.uniform<u8:f32, 0.0078125:0>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x4x5x6xf32>, tensor<8x4x1x1x!quant.uniform<i8:f32, 0.03125>> -> tensor<1x8x5x6xf32>
  %d2 = nunc.conv %e2, %fw {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x8x5x6xf32>, tensor<8x8x1x1xf32> -> tensor<1x8x5x6xf32>
  %e3 = nunc.quantized_conv %x, %qw {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.0234375:128>, kernel_shape = array<i64: 1, 1>, output_quantization = !quant.uniform<i8:f32, 0.0078125:-3>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x4x5x6xf32>, tensor<8x4x1x1x!quant.uniform<i8:f32, 0.03125>> -> tensor<1x8x5x6xf32>
  %d3 = nunc.conv %e3, %dw {dilations = array<i64: 1, 1>, group = 8 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x8x5x6xf32>, tensor<8x1x3x3xf32> -> tensor<1x8x5x6xf32>
  %e4 = nunc.quantized_conv %x, %qw {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.0234375:128>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x4x5x6xf32>, tensor<8x4x1x1x!quant.uniform<i8:f32, 0.03125>> -> tensor<1x8x5x6xf32>
  %d4 = nunc.conv %e4, %dw {dilations = array<i64: 1, 1>, group = 8 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x8x5x6xf32>, tensor<8x1x3x3xf32> -> tensor<1x8x5x6xf32>
  %e5 = nunc.quantized_conv %x, %qw norm %a, %s : tensor<8xf32>, tensor<8xf32> {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.0234375:128>, kernel_shape = array<i64: 1, 1>, output_quantization = !quant.uniform<u8:f32, 0.0078125:0>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x4x5x6xf32>, tensor<8x4x1x1x!quant.uniform<i8:f32, 0.03125>> -> tensor<1x8x5x6xf32>
  %d5 = nunc.conv %e5, %dw {dilations = array<i64: 1, 1>, group = 8 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x8x5x6xf32>, tensor<8x1x3x3xf32> -> tensor<1x8x5x6xf32>
  return %e1, %d1, %d2, %d3, %d4, %d5 : tensor<1x8x5x6xf32>, tensor<1x8x5x6xf32>, tensor<1x8x5x6xf32>, tensor<1x8x5x6xf32>, tensor<1x8x5x6xf32>, tensor<1x8x5x6xf32>
}

// -----

// A depthwise conv with an output table (a chain it looks up) whose only
// use is a static int8 conv: the entries are rounded to that conv's input
// grid (table_quantization) and written as its codes, which the int8 conv
// reads as its quantized input.
// CHECK-LABEL: func.func @table_then_conv(
// CHECK: %[[D:.*]] = nunc.fused_conv {{.*}}output_quantization = !quant.uniform<u8:f32, 5.000000e-01>, output_table = array<f32: {{.*}}>, pads = {{.*}}table_quantization = !quant.uniform<u8:f32, 3.125000e-02:64>, u8_output} : tensor<1x8x5x6xf32>, tensor<8x1x3x3xf32> -> tensor<1x8x5x6x!quant.uniform<u8:f32, 3.125000e-02:64>>
// CHECK: nunc.quantized_conv %[[D]], %{{.*}} {activation_quantization = "static", dilations
// CHECK-NOT: input_quantization
// CHECK-SAME: -> tensor<1x4x5x6xf32>
func.func @table_then_conv(%x: tensor<1x8x5x6xf32>) -> tensor<1x4x5x6xf32> {
  %dw = nunc.constant dense<0.5> : tensor<8x1x3x3xf32>
  %pw = nunc.constant dense<-2> : tensor<4x8x1x1xi8>
  %qp = quant.scast %pw : tensor<4x8x1x1xi8> to tensor<4x8x1x1x!quant.uniform<i8:f32, 0.0625>>
  %d = nunc.fused_conv %x, %dw {dilations = array<i64: 1, 1>, group = 8 : i64, kernel_shape = array<i64: 3, 3>, output_quantization = !quant.uniform<u8:f32, 0.5>, output_table = array<f32: 0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0, 2.25, 2.5, 2.75, 3.0, 3.25, 3.5, 3.75, 4.0, 4.25, 4.5, 4.75, 5.0, 5.25, 5.5, 5.75, 6.0, 6.25, 6.5, 6.75, 7.0, 7.25, 7.5, 7.75, 8.0, 8.25, 8.5, 8.75, 9.0, 9.25, 9.5, 9.75, 10.0, 10.25, 10.5, 10.75, 11.0, 11.25, 11.5, 11.75, 12.0, 12.25, 12.5, 12.75, 13.0, 13.25, 13.5, 13.75, 14.0, 14.25, 14.5, 14.75, 15.0, 15.25, 15.5, 15.75, 16.0, 16.25, 16.5, 16.75, 17.0, 17.25, 17.5, 17.75, 18.0, 18.25, 18.5, 18.75, 19.0, 19.25, 19.5, 19.75, 20.0, 20.25, 20.5, 20.75, 21.0, 21.25, 21.5, 21.75, 22.0, 22.25, 22.5, 22.75, 23.0, 23.25, 23.5, 23.75, 24.0, 24.25, 24.5, 24.75, 25.0, 25.25, 25.5, 25.75, 26.0, 26.25, 26.5, 26.75, 27.0, 27.25, 27.5, 27.75, 28.0, 28.25, 28.5, 28.75, 29.0, 29.25, 29.5, 29.75, 30.0, 30.25, 30.5, 30.75, 31.0, 31.25, 31.5, 31.75, 32.0, 32.25, 32.5, 32.75, 33.0, 33.25, 33.5, 33.75, 34.0, 34.25, 34.5, 34.75, 35.0, 35.25, 35.5, 35.75, 36.0, 36.25, 36.5, 36.75, 37.0, 37.25, 37.5, 37.75, 38.0, 38.25, 38.5, 38.75, 39.0, 39.25, 39.5, 39.75, 40.0, 40.25, 40.5, 40.75, 41.0, 41.25, 41.5, 41.75, 42.0, 42.25, 42.5, 42.75, 43.0, 43.25, 43.5, 43.75, 44.0, 44.25, 44.5, 44.75, 45.0, 45.25, 45.5, 45.75, 46.0, 46.25, 46.5, 46.75, 47.0, 47.25, 47.5, 47.75, 48.0, 48.25, 48.5, 48.75, 49.0, 49.25, 49.5, 49.75, 50.0, 50.25, 50.5, 50.75, 51.0, 51.25, 51.5, 51.75, 52.0, 52.25, 52.5, 52.75, 53.0, 53.25, 53.5, 53.75, 54.0, 54.25, 54.5, 54.75, 55.0, 55.25, 55.5, 55.75, 56.0, 56.25, 56.5, 56.75, 57.0, 57.25, 57.5, 57.75, 58.0, 58.25, 58.5, 58.75, 59.0, 59.25, 59.5, 59.75, 60.0, 60.25, 60.5, 60.75, 61.0, 61.25, 61.5, 61.75, 62.0, 62.25, 62.5, 62.75, 63.0, 63.25, 63.5, 63.75>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x8x5x6xf32>, tensor<8x1x3x3xf32> -> tensor<1x8x5x6xf32>
  %p = nunc.quantized_conv %d, %qp {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.03125:64>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x8x5x6xf32>, tensor<4x8x1x1x!quant.uniform<i8:f32, 0.0625>> -> tensor<1x4x5x6xf32>
  return %p : tensor<1x4x5x6xf32>
}

// -----

// An int8 conv with a table on a u8 grid of its own (table_quantization)
// writes the codes of that grid to the depthwise conv after it, and to a
// static int8 conv quantizing on that same grid; one on another grid, or
// a table without a grid, keeps f32.
// CHECK-LABEL: func.func @conv_table_then_readers(
// CHECK: %[[A:.*]] = nunc.quantized_conv {{.*}}table_quantization = !quant.uniform<u8:f32, 2.500000e-01>, u8_output} : {{.*}} -> tensor<1x8x5x6x!quant.uniform<u8:f32, 2.500000e-01>>
// CHECK: nunc.fused_conv %[[A]],
// CHECK: %[[B:.*]] = nunc.quantized_conv {{.*}}table_quantization = !quant.uniform<u8:f32, 2.500000e-01>, u8_output} : {{.*}} -> tensor<1x8x5x6x!quant.uniform<u8:f32, 2.500000e-01>>
// CHECK: nunc.quantized_conv %[[B]], %{{.*}} {activation_quantization = "static", dilations
// CHECK-NOT: input_quantization
// CHECK-SAME: -> tensor<1x4x5x6xf32>
// CHECK: %[[C:.*]] = nunc.quantized_conv {{.*}}table_quantization = !quant.uniform<u8:f32, 2.500000e-01>} : {{.*}} -> tensor<1x8x5x6xf32>
// CHECK: nunc.quantized_conv %[[C]], {{.*}}input_quantization = !quant.uniform<u8:f32, 3.125000e-02:64>
// CHECK: %[[D:.*]] = nunc.quantized_conv {{.*}}output_table = {{.*}} -> tensor<1x8x5x6xf32>
// CHECK: nunc.conv %[[D]],
func.func @conv_table_then_readers(%x: tensor<1x4x5x6xf32>) -> (tensor<1x8x5x6xf32>, tensor<1x4x5x6xf32>, tensor<1x4x5x6xf32>, tensor<1x8x5x6xf32>) {
  %w = nunc.constant dense<3> : tensor<8x4x1x1xi8>
  %qw = quant.scast %w : tensor<8x4x1x1xi8> to tensor<8x4x1x1x!quant.uniform<i8:f32, 0.03125>>
  %dw = nunc.constant dense<0.5> : tensor<8x1x3x3xf32>
  %pw = nunc.constant dense<-2> : tensor<4x8x1x1xi8>
  %qp = quant.scast %pw : tensor<4x8x1x1xi8> to tensor<4x8x1x1x!quant.uniform<i8:f32, 0.0625>>
  %a = nunc.quantized_conv %x, %qw {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.0234375:128>, kernel_shape = array<i64: 1, 1>, output_quantization = !quant.uniform<u8:f32, 0.5>, output_table = array<f32: 0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0, 2.25, 2.5, 2.75, 3.0, 3.25, 3.5, 3.75, 4.0, 4.25, 4.5, 4.75, 5.0, 5.25, 5.5, 5.75, 6.0, 6.25, 6.5, 6.75, 7.0, 7.25, 7.5, 7.75, 8.0, 8.25, 8.5, 8.75, 9.0, 9.25, 9.5, 9.75, 10.0, 10.25, 10.5, 10.75, 11.0, 11.25, 11.5, 11.75, 12.0, 12.25, 12.5, 12.75, 13.0, 13.25, 13.5, 13.75, 14.0, 14.25, 14.5, 14.75, 15.0, 15.25, 15.5, 15.75, 16.0, 16.25, 16.5, 16.75, 17.0, 17.25, 17.5, 17.75, 18.0, 18.25, 18.5, 18.75, 19.0, 19.25, 19.5, 19.75, 20.0, 20.25, 20.5, 20.75, 21.0, 21.25, 21.5, 21.75, 22.0, 22.25, 22.5, 22.75, 23.0, 23.25, 23.5, 23.75, 24.0, 24.25, 24.5, 24.75, 25.0, 25.25, 25.5, 25.75, 26.0, 26.25, 26.5, 26.75, 27.0, 27.25, 27.5, 27.75, 28.0, 28.25, 28.5, 28.75, 29.0, 29.25, 29.5, 29.75, 30.0, 30.25, 30.5, 30.75, 31.0, 31.25, 31.5, 31.75, 32.0, 32.25, 32.5, 32.75, 33.0, 33.25, 33.5, 33.75, 34.0, 34.25, 34.5, 34.75, 35.0, 35.25, 35.5, 35.75, 36.0, 36.25, 36.5, 36.75, 37.0, 37.25, 37.5, 37.75, 38.0, 38.25, 38.5, 38.75, 39.0, 39.25, 39.5, 39.75, 40.0, 40.25, 40.5, 40.75, 41.0, 41.25, 41.5, 41.75, 42.0, 42.25, 42.5, 42.75, 43.0, 43.25, 43.5, 43.75, 44.0, 44.25, 44.5, 44.75, 45.0, 45.25, 45.5, 45.75, 46.0, 46.25, 46.5, 46.75, 47.0, 47.25, 47.5, 47.75, 48.0, 48.25, 48.5, 48.75, 49.0, 49.25, 49.5, 49.75, 50.0, 50.25, 50.5, 50.75, 51.0, 51.25, 51.5, 51.75, 52.0, 52.25, 52.5, 52.75, 53.0, 53.25, 53.5, 53.75, 54.0, 54.25, 54.5, 54.75, 55.0, 55.25, 55.5, 55.75, 56.0, 56.25, 56.5, 56.75, 57.0, 57.25, 57.5, 57.75, 58.0, 58.25, 58.5, 58.75, 59.0, 59.25, 59.5, 59.75, 60.0, 60.25, 60.5, 60.75, 61.0, 61.25, 61.5, 61.75, 62.0, 62.25, 62.5, 62.75, 63.0, 63.25, 63.5, 63.75>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>, table_quantization = !quant.uniform<u8:f32, 0.25>} : tensor<1x4x5x6xf32>, tensor<8x4x1x1x!quant.uniform<i8:f32, 0.03125>> -> tensor<1x8x5x6xf32>
  %da = nunc.conv %a, %dw {dilations = array<i64: 1, 1>, group = 8 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x8x5x6xf32>, tensor<8x1x3x3xf32> -> tensor<1x8x5x6xf32>
  %b = nunc.quantized_conv %x, %qw {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.0234375:128>, kernel_shape = array<i64: 1, 1>, output_quantization = !quant.uniform<u8:f32, 0.5>, output_table = array<f32: 0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0, 2.25, 2.5, 2.75, 3.0, 3.25, 3.5, 3.75, 4.0, 4.25, 4.5, 4.75, 5.0, 5.25, 5.5, 5.75, 6.0, 6.25, 6.5, 6.75, 7.0, 7.25, 7.5, 7.75, 8.0, 8.25, 8.5, 8.75, 9.0, 9.25, 9.5, 9.75, 10.0, 10.25, 10.5, 10.75, 11.0, 11.25, 11.5, 11.75, 12.0, 12.25, 12.5, 12.75, 13.0, 13.25, 13.5, 13.75, 14.0, 14.25, 14.5, 14.75, 15.0, 15.25, 15.5, 15.75, 16.0, 16.25, 16.5, 16.75, 17.0, 17.25, 17.5, 17.75, 18.0, 18.25, 18.5, 18.75, 19.0, 19.25, 19.5, 19.75, 20.0, 20.25, 20.5, 20.75, 21.0, 21.25, 21.5, 21.75, 22.0, 22.25, 22.5, 22.75, 23.0, 23.25, 23.5, 23.75, 24.0, 24.25, 24.5, 24.75, 25.0, 25.25, 25.5, 25.75, 26.0, 26.25, 26.5, 26.75, 27.0, 27.25, 27.5, 27.75, 28.0, 28.25, 28.5, 28.75, 29.0, 29.25, 29.5, 29.75, 30.0, 30.25, 30.5, 30.75, 31.0, 31.25, 31.5, 31.75, 32.0, 32.25, 32.5, 32.75, 33.0, 33.25, 33.5, 33.75, 34.0, 34.25, 34.5, 34.75, 35.0, 35.25, 35.5, 35.75, 36.0, 36.25, 36.5, 36.75, 37.0, 37.25, 37.5, 37.75, 38.0, 38.25, 38.5, 38.75, 39.0, 39.25, 39.5, 39.75, 40.0, 40.25, 40.5, 40.75, 41.0, 41.25, 41.5, 41.75, 42.0, 42.25, 42.5, 42.75, 43.0, 43.25, 43.5, 43.75, 44.0, 44.25, 44.5, 44.75, 45.0, 45.25, 45.5, 45.75, 46.0, 46.25, 46.5, 46.75, 47.0, 47.25, 47.5, 47.75, 48.0, 48.25, 48.5, 48.75, 49.0, 49.25, 49.5, 49.75, 50.0, 50.25, 50.5, 50.75, 51.0, 51.25, 51.5, 51.75, 52.0, 52.25, 52.5, 52.75, 53.0, 53.25, 53.5, 53.75, 54.0, 54.25, 54.5, 54.75, 55.0, 55.25, 55.5, 55.75, 56.0, 56.25, 56.5, 56.75, 57.0, 57.25, 57.5, 57.75, 58.0, 58.25, 58.5, 58.75, 59.0, 59.25, 59.5, 59.75, 60.0, 60.25, 60.5, 60.75, 61.0, 61.25, 61.5, 61.75, 62.0, 62.25, 62.5, 62.75, 63.0, 63.25, 63.5, 63.75>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>, table_quantization = !quant.uniform<u8:f32, 0.25>} : tensor<1x4x5x6xf32>, tensor<8x4x1x1x!quant.uniform<i8:f32, 0.03125>> -> tensor<1x8x5x6xf32>
  %pb = nunc.quantized_conv %b, %qp {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.25>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x8x5x6xf32>, tensor<4x8x1x1x!quant.uniform<i8:f32, 0.0625>> -> tensor<1x4x5x6xf32>
  %c = nunc.quantized_conv %x, %qw {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.0234375:128>, kernel_shape = array<i64: 1, 1>, output_quantization = !quant.uniform<u8:f32, 0.5>, output_table = array<f32: 0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0, 2.25, 2.5, 2.75, 3.0, 3.25, 3.5, 3.75, 4.0, 4.25, 4.5, 4.75, 5.0, 5.25, 5.5, 5.75, 6.0, 6.25, 6.5, 6.75, 7.0, 7.25, 7.5, 7.75, 8.0, 8.25, 8.5, 8.75, 9.0, 9.25, 9.5, 9.75, 10.0, 10.25, 10.5, 10.75, 11.0, 11.25, 11.5, 11.75, 12.0, 12.25, 12.5, 12.75, 13.0, 13.25, 13.5, 13.75, 14.0, 14.25, 14.5, 14.75, 15.0, 15.25, 15.5, 15.75, 16.0, 16.25, 16.5, 16.75, 17.0, 17.25, 17.5, 17.75, 18.0, 18.25, 18.5, 18.75, 19.0, 19.25, 19.5, 19.75, 20.0, 20.25, 20.5, 20.75, 21.0, 21.25, 21.5, 21.75, 22.0, 22.25, 22.5, 22.75, 23.0, 23.25, 23.5, 23.75, 24.0, 24.25, 24.5, 24.75, 25.0, 25.25, 25.5, 25.75, 26.0, 26.25, 26.5, 26.75, 27.0, 27.25, 27.5, 27.75, 28.0, 28.25, 28.5, 28.75, 29.0, 29.25, 29.5, 29.75, 30.0, 30.25, 30.5, 30.75, 31.0, 31.25, 31.5, 31.75, 32.0, 32.25, 32.5, 32.75, 33.0, 33.25, 33.5, 33.75, 34.0, 34.25, 34.5, 34.75, 35.0, 35.25, 35.5, 35.75, 36.0, 36.25, 36.5, 36.75, 37.0, 37.25, 37.5, 37.75, 38.0, 38.25, 38.5, 38.75, 39.0, 39.25, 39.5, 39.75, 40.0, 40.25, 40.5, 40.75, 41.0, 41.25, 41.5, 41.75, 42.0, 42.25, 42.5, 42.75, 43.0, 43.25, 43.5, 43.75, 44.0, 44.25, 44.5, 44.75, 45.0, 45.25, 45.5, 45.75, 46.0, 46.25, 46.5, 46.75, 47.0, 47.25, 47.5, 47.75, 48.0, 48.25, 48.5, 48.75, 49.0, 49.25, 49.5, 49.75, 50.0, 50.25, 50.5, 50.75, 51.0, 51.25, 51.5, 51.75, 52.0, 52.25, 52.5, 52.75, 53.0, 53.25, 53.5, 53.75, 54.0, 54.25, 54.5, 54.75, 55.0, 55.25, 55.5, 55.75, 56.0, 56.25, 56.5, 56.75, 57.0, 57.25, 57.5, 57.75, 58.0, 58.25, 58.5, 58.75, 59.0, 59.25, 59.5, 59.75, 60.0, 60.25, 60.5, 60.75, 61.0, 61.25, 61.5, 61.75, 62.0, 62.25, 62.5, 62.75, 63.0, 63.25, 63.5, 63.75>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>, table_quantization = !quant.uniform<u8:f32, 0.25>} : tensor<1x4x5x6xf32>, tensor<8x4x1x1x!quant.uniform<i8:f32, 0.03125>> -> tensor<1x8x5x6xf32>
  %pc = nunc.quantized_conv %c, %qp {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.03125:64>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x8x5x6xf32>, tensor<4x8x1x1x!quant.uniform<i8:f32, 0.0625>> -> tensor<1x4x5x6xf32>
  %d = nunc.quantized_conv %x, %qw {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.0234375:128>, kernel_shape = array<i64: 1, 1>, output_quantization = !quant.uniform<u8:f32, 0.5>, output_table = array<f32: 0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0, 2.25, 2.5, 2.75, 3.0, 3.25, 3.5, 3.75, 4.0, 4.25, 4.5, 4.75, 5.0, 5.25, 5.5, 5.75, 6.0, 6.25, 6.5, 6.75, 7.0, 7.25, 7.5, 7.75, 8.0, 8.25, 8.5, 8.75, 9.0, 9.25, 9.5, 9.75, 10.0, 10.25, 10.5, 10.75, 11.0, 11.25, 11.5, 11.75, 12.0, 12.25, 12.5, 12.75, 13.0, 13.25, 13.5, 13.75, 14.0, 14.25, 14.5, 14.75, 15.0, 15.25, 15.5, 15.75, 16.0, 16.25, 16.5, 16.75, 17.0, 17.25, 17.5, 17.75, 18.0, 18.25, 18.5, 18.75, 19.0, 19.25, 19.5, 19.75, 20.0, 20.25, 20.5, 20.75, 21.0, 21.25, 21.5, 21.75, 22.0, 22.25, 22.5, 22.75, 23.0, 23.25, 23.5, 23.75, 24.0, 24.25, 24.5, 24.75, 25.0, 25.25, 25.5, 25.75, 26.0, 26.25, 26.5, 26.75, 27.0, 27.25, 27.5, 27.75, 28.0, 28.25, 28.5, 28.75, 29.0, 29.25, 29.5, 29.75, 30.0, 30.25, 30.5, 30.75, 31.0, 31.25, 31.5, 31.75, 32.0, 32.25, 32.5, 32.75, 33.0, 33.25, 33.5, 33.75, 34.0, 34.25, 34.5, 34.75, 35.0, 35.25, 35.5, 35.75, 36.0, 36.25, 36.5, 36.75, 37.0, 37.25, 37.5, 37.75, 38.0, 38.25, 38.5, 38.75, 39.0, 39.25, 39.5, 39.75, 40.0, 40.25, 40.5, 40.75, 41.0, 41.25, 41.5, 41.75, 42.0, 42.25, 42.5, 42.75, 43.0, 43.25, 43.5, 43.75, 44.0, 44.25, 44.5, 44.75, 45.0, 45.25, 45.5, 45.75, 46.0, 46.25, 46.5, 46.75, 47.0, 47.25, 47.5, 47.75, 48.0, 48.25, 48.5, 48.75, 49.0, 49.25, 49.5, 49.75, 50.0, 50.25, 50.5, 50.75, 51.0, 51.25, 51.5, 51.75, 52.0, 52.25, 52.5, 52.75, 53.0, 53.25, 53.5, 53.75, 54.0, 54.25, 54.5, 54.75, 55.0, 55.25, 55.5, 55.75, 56.0, 56.25, 56.5, 56.75, 57.0, 57.25, 57.5, 57.75, 58.0, 58.25, 58.5, 58.75, 59.0, 59.25, 59.5, 59.75, 60.0, 60.25, 60.5, 60.75, 61.0, 61.25, 61.5, 61.75, 62.0, 62.25, 62.5, 62.75, 63.0, 63.25, 63.5, 63.75>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x4x5x6xf32>, tensor<8x4x1x1x!quant.uniform<i8:f32, 0.03125>> -> tensor<1x8x5x6xf32>
  %dd = nunc.conv %d, %dw {dilations = array<i64: 1, 1>, group = 8 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x8x5x6xf32>, tensor<8x1x3x3xf32> -> tensor<1x8x5x6xf32>
  return %da, %pb, %pc, %dd : tensor<1x8x5x6xf32>, tensor<1x4x5x6xf32>, tensor<1x4x5x6xf32>, tensor<1x8x5x6xf32>
}
