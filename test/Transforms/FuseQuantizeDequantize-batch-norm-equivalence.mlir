// The Q/DQ pairs a QDQ model keeps around an unfolded BatchNormalization
// (conv -> Q/DQ -> BN -> Q/DQ -> conv, as quantize_static writes a model
// exported without BN folding). After an int8 conv, the BN and both pairs
// run in that conv's epilogue (output grid, normalization, norm grid) and
// the next conv reads the rounded result (also an output, z) as its static
// u8 input; the last pair rounds in that conv's epilogue. After a depthwise
// (f32) conv, the BN kernel rounds its input and its result itself (w).
// The reference evaluator gives the same outputs before and after the
// fusion pipeline, and the compiled library (conv kernels, the BN kernel)
// agrees with it within a step of the last grid: a and b of the BN are
// rounded to f32 once (the unfused evaluator keeps them in double), which
// may move a value that lies within an ulp of a rounding boundary.
// RUN: nunc-opt %s --nunc-fuse -o %t.fused.mlir
// RUN: FileCheck %s --input-file %t.fused.mlir
// RUN: nunc run --reference %s --random-inputs --seed 5 -o %t.ref.npz
// RUN: nunc run --reference %t.fused.mlir --random-inputs --seed 5 -o %t.fused.npz
// RUN: nunc run %t.fused.mlir --random-inputs --seed 5 -o %t.jit.npz
// RUN: %python -c "import sys, numpy as np; a, b, c = (np.load(p) for p in sys.argv[1:]); d = [np.abs(a[k] - x[k]) / s for x in (b, c) for k, s in (('y', 0.0625), ('z', 0.015625), ('w', 0.015625))]; assert max(e.max() for e in d) <= 1.001 and max((e > 0.5).mean() for e in d) < 0.02, [(e.max(), (e > 0.5).mean()) for e in d]" %t.ref.npz %t.fused.npz %t.jit.npz

// CHECK-NOT: nunc.quantize_linear
// The input's pair stays for the depthwise conv (the int8 conv quantizes x).
// CHECK: %[[FX:.*]] = nunc.fake_quantize %arg0
// CHECK-NOT: nunc.fake_quantize
// CHECK: %[[C1:.*]] = nunc.quantized_conv %{{.*}}, %{{.*}} norm %{{.*}}, %{{.*}} : tensor<4xf32>, tensor<4xf32> {activation_quantization = "static", {{.*}}norm_quantization = !quant.uniform<u8:f32, 1.562500e-02:10>, output_quantization = !quant.uniform<u8:f32, 3.125000e-02:128>
// CHECK: %[[C2:.*]] = nunc.quantized_conv %[[C1]], %{{.*}} {activation_quantization = "static", {{.*}}input_quantization = !quant.uniform<u8:f32, 1.562500e-02:10>, {{.*}}output_quantization = !quant.uniform<u8:f32, 6.250000e-02:128>
// CHECK: %[[D:.*]] = nunc.conv %[[FX]], {{.*}}group = 3
// CHECK: %[[W:.*]] = nunc.batch_norm %[[D]], {{.*}} {input_quantization = !quant.uniform<u8:f32, 3.125000e-02:128>, output_quantization = !quant.uniform<u8:f32, 1.562500e-02:10>}
// CHECK-NOT: nunc.fake_quantize
// CHECK: return %[[C2]], %[[C1]], %[[W]]
func.func @main(%x: tensor<1x3x6x5xf32> {nunc.name = "x"}) -> (tensor<1x2x6x5xf32> {nunc.name = "y"}, tensor<1x4x6x5xf32> {nunc.name = "z"}, tensor<1x3x6x5xf32> {nunc.name = "w"}) {
  %sx = nunc.constant dense<0.0625> : tensor<f32>
  %zx = nunc.constant dense<128> : tensor<ui8>
  %w = nunc.constant dense<[[[[3]], [[-7]], [[12]]], [[[-2]], [[5]], [[9]]], [[[1]], [[-1]], [[4]]], [[[8]], [[6]], [[-5]]]]> : tensor<4x3x1x1xi8>
  %sw = nunc.constant dense<[0.25, 0.125, 0.5, 0.25]> : tensor<4xf32>
  %qx = nunc.quantize_linear %x, %sx, %zx : tensor<ui8> {output_element_type = ui8} : tensor<1x3x6x5xf32>, tensor<f32> -> tensor<1x3x6x5xui8>
  %dx = nunc.dequantize_linear %qx, %sx, %zx : tensor<ui8> : tensor<1x3x6x5xui8>, tensor<f32> -> tensor<1x3x6x5xf32>
  %dw = nunc.dequantize_linear %w, %sw {axis = 0 : i64} : tensor<4x3x1x1xi8>, tensor<4xf32> -> tensor<4x3x1x1xf32>
  %c = nunc.conv %dx, %dw {dilations = array<i64: 1, 1>, group = 1 : i64, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x3x6x5xf32>, tensor<4x3x1x1xf32> -> tensor<1x4x6x5xf32>
  %sa = nunc.constant dense<0.03125> : tensor<f32>
  %za = nunc.constant dense<128> : tensor<ui8>
  %qa = nunc.quantize_linear %c, %sa, %za : tensor<ui8> {output_element_type = ui8} : tensor<1x4x6x5xf32>, tensor<f32> -> tensor<1x4x6x5xui8>
  %da = nunc.dequantize_linear %qa, %sa, %za : tensor<ui8> : tensor<1x4x6x5xui8>, tensor<f32> -> tensor<1x4x6x5xf32>
  %gamma = nunc.constant dense<[0.75, 1.25, 0.5, 1.5]> : tensor<4xf32>
  %beta = nunc.constant dense<[0.1, -0.2, 0.3, 0.05]> : tensor<4xf32>
  %mean = nunc.constant dense<[0.5, -0.25, 0.0, 1.0]> : tensor<4xf32>
  %var = nunc.constant dense<[1.0, 0.5, 2.0, 0.75]> : tensor<4xf32>
  %bn = nunc.batch_norm %da, %gamma, %beta, %mean, %var : (tensor<1x4x6x5xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x6x5xf32>
  %sb = nunc.constant dense<0.015625> : tensor<f32>
  %zb = nunc.constant dense<10> : tensor<ui8>
  %qb = nunc.quantize_linear %bn, %sb, %zb : tensor<ui8> {output_element_type = ui8} : tensor<1x4x6x5xf32>, tensor<f32> -> tensor<1x4x6x5xui8>
  %db = nunc.dequantize_linear %qb, %sb, %zb : tensor<ui8> : tensor<1x4x6x5xui8>, tensor<f32> -> tensor<1x4x6x5xf32>
  %w2 = nunc.constant dense<[[[[2]], [[-3]], [[1]], [[4]]], [[[-6]], [[2]], [[7]], [[-1]]]]> : tensor<2x4x1x1xi8>
  %sw2 = nunc.constant dense<[0.125, 0.25]> : tensor<2xf32>
  %dw2 = nunc.dequantize_linear %w2, %sw2 {axis = 0 : i64} : tensor<2x4x1x1xi8>, tensor<2xf32> -> tensor<2x4x1x1xf32>
  %c2 = nunc.conv %db, %dw2 {dilations = array<i64: 1, 1>, group = 1 : i64, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x4x6x5xf32>, tensor<2x4x1x1xf32> -> tensor<1x2x6x5xf32>
  %sy = nunc.constant dense<0.0625> : tensor<f32>
  %zy = nunc.constant dense<128> : tensor<ui8>
  %qy = nunc.quantize_linear %c2, %sy, %zy : tensor<ui8> {output_element_type = ui8} : tensor<1x2x6x5xf32>, tensor<f32> -> tensor<1x2x6x5xui8>
  %y = nunc.dequantize_linear %qy, %sy, %zy : tensor<ui8> : tensor<1x2x6x5xui8>, tensor<f32> -> tensor<1x2x6x5xf32>
  %qdw = nunc.constant dense<[[[[4, -2, 1], [8, 6, -4], [2, 0, -8]]], [[[-4, 2, 4], [1, 8, 2], [-6, 4, 0]]], [[[8, 0, -2], [4, -4, 6], [2, 1, 4]]]]> : tensor<3x1x3x3xi8>
  %sdw = nunc.constant dense<0.125> : tensor<f32>
  %wdw = nunc.dequantize_linear %qdw, %sdw : tensor<3x1x3x3xi8>, tensor<f32> -> tensor<3x1x3x3xf32>
  %dconv = nunc.conv %dx, %wdw {dilations = array<i64: 1, 1>, group = 3 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x3x6x5xf32>, tensor<3x1x3x3xf32> -> tensor<1x3x6x5xf32>
  %qd = nunc.quantize_linear %dconv, %sa, %za : tensor<ui8> {output_element_type = ui8} : tensor<1x3x6x5xf32>, tensor<f32> -> tensor<1x3x6x5xui8>
  %dd = nunc.dequantize_linear %qd, %sa, %za : tensor<ui8> : tensor<1x3x6x5xui8>, tensor<f32> -> tensor<1x3x6x5xf32>
  %g3 = nunc.constant dense<[0.75, 1.25, 0.5]> : tensor<3xf32>
  %b3 = nunc.constant dense<[0.1, -0.2, 0.3]> : tensor<3xf32>
  %m3 = nunc.constant dense<[0.5, -0.25, 0.0]> : tensor<3xf32>
  %v3 = nunc.constant dense<[1.0, 0.5, 2.0]> : tensor<3xf32>
  %bnd = nunc.batch_norm %dd, %g3, %b3, %m3, %v3 : (tensor<1x3x6x5xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x3x6x5xf32>
  %qw = nunc.quantize_linear %bnd, %sb, %zb : tensor<ui8> {output_element_type = ui8} : tensor<1x3x6x5xf32>, tensor<f32> -> tensor<1x3x6x5xui8>
  %wout = nunc.dequantize_linear %qw, %sb, %zb : tensor<ui8> : tensor<1x3x6x5xui8>, tensor<f32> -> tensor<1x3x6x5xf32>
  return %y, %db, %wout : tensor<1x2x6x5xf32>, tensor<1x4x6x5xf32>, tensor<1x3x6x5xf32>
}
