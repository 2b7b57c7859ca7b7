// A QDQ convolution becomes quantized_conv with static activations: the
// same u8 input and s8 weights, summed exactly, where the QDQ graph sums the
// dequantized values in f32. Scales are powers of two and the sums stay
// within 2^24 of the smallest product, so the f32 conv is exact too: the
// reference evaluator gives identical outputs for both forms (padding
// included: padded taps are the quantized zero), and so does the compiled
// library (on the int8 convolution where the host has it).
// RUN: nunc-opt %s --nunc-fuse-conv -o %t.fused.mlir
// RUN: FileCheck %s --input-file %t.fused.mlir
// RUN: nunc run --reference %s --random-inputs --seed 3 -o %t.ref.npz
// RUN: nunc run --reference %t.fused.mlir --random-inputs --seed 3 -o %t.fused.npz
// RUN: nunc run %s --random-inputs --seed 3 -o %t.jit.npz
// RUN: %python -c "import sys, numpy as np; a, b, c = (np.load(p) for p in sys.argv[1:]); [np.testing.assert_array_equal(x[k], a[k], err_msg=k) for x in (b, c) for k in ('y', 'z', 'u', 'v')]" %t.ref.npz %t.fused.npz %t.jit.npz

// y: u8 activations (zero point 7), per-channel weights, bias, relu.
// z: s8 activations (the u8 grid 128 higher), per-tensor weight, stride 2.
// u: u8 weights with zero points per output channel (quantize_static's
// QUInt8, QLinearConv's u8 weights), C = 3 padded to 4.
// v: s8 weights with zero points per output channel (onnxruntime's
// quantized f32 weights), taken as the u8 weights 128 higher.
// CHECK-LABEL: func.func @main(
// CHECK: nunc.quantized_conv {{.*}} {activation = "relu", activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 1.250000e-01:7>, kernel_shape = array<i64: 3, 3>
// CHECK: nunc.quantized_conv {{.*}} {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 2.500000e-01:128>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}
// CHECK: nunc.quantized_conv {{.*}} : tensor<1x3x5x6xf32>, tensor<2x3x3x3x!quant.uniform<u8:f32:0, {6.250000e-02:100,1.562500e-02:255}>>
// CHECK: nunc.quantized_conv {{.*}} : tensor<1x3x5x6xf32>, tensor<2x3x3x3x!quant.uniform<u8:f32:0, {6.250000e-02:85,1.562500e-02:140}>>
// CHECK-NOT: nunc.conv
func.func @main(%x: tensor<1x3x5x6xf32> {nunc.name = "x"}) -> (tensor<1x2x5x6xf32> {nunc.name = "y"}, tensor<1x2x3x3xf32> {nunc.name = "z"}, tensor<1x2x5x6xf32> {nunc.name = "u"}, tensor<1x2x5x6xf32> {nunc.name = "v"}) {
  %s = nunc.constant dense<0.125> : tensor<f32>
  %zp = nunc.constant dense<7> : tensor<ui8>
  %q = nunc.quantize_linear %x, %s, %zp : tensor<ui8> {output_element_type = ui8} : tensor<1x3x5x6xf32>, tensor<f32> -> tensor<1x3x5x6xui8>
  %dq = nunc.dequantize_linear %q, %s, %zp : tensor<ui8> : tensor<1x3x5x6xui8>, tensor<f32> -> tensor<1x3x5x6xf32>
  %w = nunc.constant dense<[[[[1, -2, 3], [4, -5, 6], [-7, 8, 9]], [[10, 11, -12], [13, -14, 15], [16, 17, -18]], [[-19, 20, 21], [22, -23, 24], [25, 26, -27]]],
                            [[[127, -128, 3], [0, 5, -6], [7, 8, -9]], [[-1, 1, -1], [1, -1, 1], [-1, 1, -1]], [[2, 4, 8], [16, 32, 64], [-64, -32, -16]]]]> : tensor<2x3x3x3xi8>
  %wsc = nunc.constant dense<[0.0625, 0.015625]> : tensor<2xf32>
  %wzc = nunc.constant dense<0> : tensor<2xi8>
  %dwc = nunc.dequantize_linear %w, %wsc, %wzc : tensor<2xi8> {axis = 0 : i64} : tensor<2x3x3x3xi8>, tensor<2xf32> -> tensor<2x3x3x3xf32>
  %b = nunc.constant dense<[0.5, -0.25]> : tensor<2xf32>
  %c = nunc.conv %dq, %dwc, %b : tensor<2xf32> {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x3x5x6xf32>, tensor<2x3x3x3xf32> -> tensor<1x2x5x6xf32>
  %y = nunc.relu %c : tensor<1x2x5x6xf32> -> tensor<1x2x5x6xf32>
  %s2 = nunc.constant dense<0.25> : tensor<f32>
  %zp2 = nunc.constant dense<0> : tensor<i8>
  %q2 = nunc.quantize_linear %x, %s2, %zp2 : tensor<i8> {output_element_type = i8} : tensor<1x3x5x6xf32>, tensor<f32> -> tensor<1x3x5x6xi8>
  %dq2 = nunc.dequantize_linear %q2, %s2, %zp2 : tensor<i8> : tensor<1x3x5x6xi8>, tensor<f32> -> tensor<1x3x5x6xf32>
  %ws = nunc.constant dense<0.03125> : tensor<f32>
  %dw = nunc.dequantize_linear %w, %ws : tensor<2x3x3x3xi8>, tensor<f32> -> tensor<2x3x3x3xf32>
  %z = nunc.conv %dq2, %dw {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : tensor<1x3x5x6xf32>, tensor<2x3x3x3xf32> -> tensor<1x2x3x3xf32>
  %uw = nunc.constant dense<[[[[1, 200, 3], [4, 255, 6], [0, 8, 9]], [[10, 11, 12], [13, 140, 15], [16, 17, 180]], [[19, 20, 21], [22, 230, 24], [25, 26, 27]]],
                             [[[127, 128, 3], [0, 5, 6], [7, 8, 9]], [[1, 1, 1], [1, 1, 1], [1, 1, 1]], [[2, 4, 8], [16, 32, 64], [64, 32, 16]]]]> : tensor<2x3x3x3xui8>
  %uzp = nunc.constant dense<[100, 255]> : tensor<2xui8>
  %duw = nunc.dequantize_linear %uw, %wsc, %uzp : tensor<2xui8> {axis = 0 : i64} : tensor<2x3x3x3xui8>, tensor<2xf32> -> tensor<2x3x3x3xf32>
  %u = nunc.conv %dq, %duw, %b : tensor<2xf32> {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x3x5x6xf32>, tensor<2x3x3x3xf32> -> tensor<1x2x5x6xf32>
  %vzp = nunc.constant dense<[-43, 12]> : tensor<2xi8>
  %dvw = nunc.dequantize_linear %w, %wsc, %vzp : tensor<2xi8> {axis = 0 : i64} : tensor<2x3x3x3xi8>, tensor<2xf32> -> tensor<2x3x3x3xf32>
  %v = nunc.conv %dq, %dvw, %b : tensor<2xf32> {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x3x5x6xf32>, tensor<2x3x3x3xf32> -> tensor<1x2x5x6xf32>
  return %y, %z, %u, %v : tensor<1x2x5x6xf32>, tensor<1x2x3x3xf32>, tensor<1x2x5x6xf32>, tensor<1x2x5x6xf32>
}
