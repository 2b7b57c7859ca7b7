// A QDQ model quantized after BN folding (onnxruntime's quant_pre_process,
// then quantize_static): conv -> Q/DQ -> conv -> Q/DQ. The second conv
// quantizes the first one's output with the pair's grid as its static u8
// input (rounding it before would change nothing), and the last pair rounds
// in the second conv's epilogue (its output_quantization): no fake_quantize
// step is left. The reference evaluator gives the same outputs before and
// after the fusion pipeline, and so does the compiled library (both convs'
// kernels): the products are exact in s32 and every rounding is the same.
// RUN: nunc-opt %s --nunc-fuse -o %t.fused.mlir
// RUN: FileCheck %s --input-file %t.fused.mlir
// RUN: nunc run --reference %s --random-inputs --seed 7 -o %t.ref.npz
// RUN: nunc run --reference %t.fused.mlir --random-inputs --seed 7 -o %t.fused.npz
// RUN: nunc run %t.fused.mlir --random-inputs --seed 7 -o %t.jit.npz
// RUN: %python -c "import sys, numpy as np; a, b, c = (np.load(p) for p in sys.argv[1:]); [np.testing.assert_array_equal(a[k], x[k], err_msg=k) for x in (b, c) for k in a.files]" %t.ref.npz %t.fused.npz %t.jit.npz

// CHECK-NOT: nunc.fake_quantize
// CHECK: %[[C1:.*]] = nunc.quantized_conv %{{.*}} {activation_quantization = "static", {{.*}}strides = array<i64: 1, 1>} :
// CHECK: %[[C2:.*]] = nunc.quantized_conv %[[C1]], %{{.*}} {activation_quantization = "static", {{.*}}input_quantization = !quant.uniform<u8:f32, 3.125000e-02:128>, {{.*}}output_quantization = !quant.uniform<u8:f32, 6.250000e-02:128>
// CHECK-NOT: nunc.fake_quantize
// CHECK: return %[[C2]]
func.func @main(%x: tensor<1x3x6x5xf32> {nunc.name = "x"}) -> (tensor<1x2x6x5xf32> {nunc.name = "y"}) {
  %sx = nunc.constant dense<0.0625> : tensor<f32>
  %zx = nunc.constant dense<128> : tensor<ui8>
  %w = nunc.constant dense<[[[[3]], [[-7]], [[12]]], [[[-2]], [[5]], [[9]]], [[[1]], [[-1]], [[4]]], [[[8]], [[6]], [[-5]]]]> : tensor<4x3x1x1xi8>
  %sw = nunc.constant dense<[0.25, 0.125, 0.5, 0.25]> : tensor<4xf32>
  %b1 = nunc.constant dense<[0.5, -0.25, 0.125, 0.0]> : tensor<4xf32>
  %qx = nunc.quantize_linear %x, %sx, %zx : tensor<ui8> {output_element_type = ui8} : tensor<1x3x6x5xf32>, tensor<f32> -> tensor<1x3x6x5xui8>
  %dx = nunc.dequantize_linear %qx, %sx, %zx : tensor<ui8> : tensor<1x3x6x5xui8>, tensor<f32> -> tensor<1x3x6x5xf32>
  %dw = nunc.dequantize_linear %w, %sw {axis = 0 : i64} : tensor<4x3x1x1xi8>, tensor<4xf32> -> tensor<4x3x1x1xf32>
  %c = nunc.conv %dx, %dw, %b1 : tensor<4xf32> {dilations = array<i64: 1, 1>, group = 1 : i64, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x3x6x5xf32>, tensor<4x3x1x1xf32> -> tensor<1x4x6x5xf32>
  %sa = nunc.constant dense<0.03125> : tensor<f32>
  %za = nunc.constant dense<128> : tensor<ui8>
  %qa = nunc.quantize_linear %c, %sa, %za : tensor<ui8> {output_element_type = ui8} : tensor<1x4x6x5xf32>, tensor<f32> -> tensor<1x4x6x5xui8>
  %da = nunc.dequantize_linear %qa, %sa, %za : tensor<ui8> : tensor<1x4x6x5xui8>, tensor<f32> -> tensor<1x4x6x5xf32>
  %w2 = nunc.constant dense<[[[[2]], [[-3]], [[1]], [[4]]], [[[-6]], [[2]], [[7]], [[-1]]]]> : tensor<2x4x1x1xi8>
  %sw2 = nunc.constant dense<[0.125, 0.25]> : tensor<2xf32>
  %dw2 = nunc.dequantize_linear %w2, %sw2 {axis = 0 : i64} : tensor<2x4x1x1xi8>, tensor<2xf32> -> tensor<2x4x1x1xf32>
  %c2 = nunc.conv %da, %dw2 {dilations = array<i64: 1, 1>, group = 1 : i64, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x4x6x5xf32>, tensor<2x4x1x1xf32> -> tensor<1x2x6x5xf32>
  %sy = nunc.constant dense<0.0625> : tensor<f32>
  %zy = nunc.constant dense<128> : tensor<ui8>
  %qy = nunc.quantize_linear %c2, %sy, %zy : tensor<ui8> {output_element_type = ui8} : tensor<1x2x6x5xf32>, tensor<f32> -> tensor<1x2x6x5xui8>
  %y = nunc.dequantize_linear %qy, %sy, %zy : tensor<ui8> : tensor<1x2x6x5xui8>, tensor<f32> -> tensor<1x2x6x5xf32>
  return %y : tensor<1x2x6x5xf32>
}
