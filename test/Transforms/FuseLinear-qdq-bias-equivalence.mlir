// A QDQ model puts a Q/DQ pair between the MatMul and its bias Add, another
// after the Add, and (out-projection, FFN2) a residual Add with a third
// pair. nunc-fuse-linear and nunc-fuse-quantize-dequantize, run in the
// pipeline's order (the pipeline folds weights this small to f32, so they
// run here by name), fold all of it into one quantized_linear:
// product_quantization rounds the product before the bias,
// bias_quantization the sum before the residual, output_quantization the
// result; the residual, the Add's first operand here, is `residual_first`
// (the order onnxruntime's QLinearAdd rounds in). Scales are powers of two, so
// the f32 MatMul of the QDQ graph is exact too: the reference evaluator and
// the compiled library give identical outputs for both forms.
// RUN: nunc-opt %s --nunc-fuse-linear --nunc-fuse-quantize-dequantize --nunc-fuse-linear --nunc-fuse-quantize-dequantize --nunc-fuse-linear --nunc-fuse-quantize-dequantize -o %t.fused.mlir
// RUN: FileCheck %s --input-file %t.fused.mlir
// RUN: nunc run --reference %s --random-inputs --seed 6 -o %t.ref.npz
// RUN: nunc run --reference %t.fused.mlir --random-inputs --seed 6 -o %t.fused.npz
// RUN: nunc run %t.fused.mlir --random-inputs --seed 6 -o %t.jit.npz
// RUN: %python -c "import sys, numpy as np; a, b, c = (np.load(p) for p in sys.argv[1:]); [np.testing.assert_array_equal(x[k], a[k]) for x in (b, c) for k in ('y', 'r')]; assert len(np.unique(a['y'])) > 8 and len(np.unique(a['r'])) > 8" %t.ref.npz %t.fused.npz %t.jit.npz

// CHECK: nunc.quantized_linear %{{.*}}, %{{.*}} bias %{{.*}} : tensor<3xf32> {activation_quantization = "static", input_quantization = !quant.uniform<u8:f32, 7.812500e-03:128>, output_quantization = !quant.uniform<u8:f32, 1.250000e-01:100>, product_quantization = !quant.uniform<u8:f32, 6.250000e-02:128>}
// CHECK: nunc.quantized_linear %{{.*}}, %{{.*}} bias %{{.*}} : tensor<3xf32> residual %{{.*}} : tensor<16x3xf32> {activation_quantization = "static", bias_quantization = !quant.uniform<u8:f32, 1.250000e-01:100>, input_quantization = !quant.uniform<u8:f32, 7.812500e-03:128>, output_quantization = !quant.uniform<u8:f32, 2.500000e-01:100>, product_quantization = !quant.uniform<u8:f32, 6.250000e-02:128>, residual_first}
// CHECK-NOT: nunc.add
// CHECK-NOT: nunc.fake_quantize
func.func @main(%x: tensor<16x7xf32> {nunc.name = "x"}, %res: tensor<16x3xf32> {nunc.name = "res"}) -> (tensor<16x3xf32> {nunc.name = "y"}, tensor<16x3xf32> {nunc.name = "r"}) {
  %w = nunc.constant dense<[[1, -2, 7], [3, 4, -8], [-5, 6, 9], [10, -11, 12], [-13, 14, 15], [16, 17, -18], [-19, 20, 21]]> : tensor<7x3xi8>
  %ws = nunc.constant dense<0.03125> : tensor<f32>
  %s = nunc.constant dense<0.0078125> : tensor<f32>
  %zp = nunc.constant dense<128> : tensor<ui8>
  %s1 = nunc.constant dense<0.0625> : tensor<f32>
  %s2 = nunc.constant dense<0.125> : tensor<f32>
  %zp2 = nunc.constant dense<100> : tensor<ui8>
  %b = nunc.constant dense<[0.3, -1.7, 2.25]> : tensor<3xf32>
  %q = nunc.quantize_linear %x, %s, %zp : tensor<ui8> {output_element_type = ui8} : tensor<16x7xf32>, tensor<f32> -> tensor<16x7xui8>
  %dq = nunc.dequantize_linear %q, %s, %zp : tensor<ui8> : tensor<16x7xui8>, tensor<f32> -> tensor<16x7xf32>
  %dw = nunc.dequantize_linear %w, %ws : tensor<7x3xi8>, tensor<f32> -> tensor<7x3xf32>
  %m = nunc.matmul %dq, %dw : (tensor<16x7xf32>, tensor<7x3xf32>) -> tensor<16x3xf32>
  %mq = nunc.quantize_linear %m, %s1, %zp : tensor<ui8> {output_element_type = ui8} : tensor<16x3xf32>, tensor<f32> -> tensor<16x3xui8>
  %mdq = nunc.dequantize_linear %mq, %s1, %zp : tensor<ui8> : tensor<16x3xui8>, tensor<f32> -> tensor<16x3xf32>
  %a = nunc.add %b, %mdq : (tensor<3xf32>, tensor<16x3xf32>) -> tensor<16x3xf32>
  %aq = nunc.quantize_linear %a, %s2, %zp2 : tensor<ui8> {output_element_type = ui8} : tensor<16x3xf32>, tensor<f32> -> tensor<16x3xui8>
  %y = nunc.dequantize_linear %aq, %s2, %zp2 : tensor<ui8> : tensor<16x3xui8>, tensor<f32> -> tensor<16x3xf32>
  // The same layer with a residual Add and a pair after it.
  %m2 = nunc.matmul %dq, %dw : (tensor<16x7xf32>, tensor<7x3xf32>) -> tensor<16x3xf32>
  %m2q = nunc.quantize_linear %m2, %s1, %zp : tensor<ui8> {output_element_type = ui8} : tensor<16x3xf32>, tensor<f32> -> tensor<16x3xui8>
  %m2dq = nunc.dequantize_linear %m2q, %s1, %zp : tensor<ui8> : tensor<16x3xui8>, tensor<f32> -> tensor<16x3xf32>
  %a2 = nunc.add %m2dq, %b : (tensor<16x3xf32>, tensor<3xf32>) -> tensor<16x3xf32>
  %a2q = nunc.quantize_linear %a2, %s2, %zp2 : tensor<ui8> {output_element_type = ui8} : tensor<16x3xf32>, tensor<f32> -> tensor<16x3xui8>
  %a2dq = nunc.dequantize_linear %a2q, %s2, %zp2 : tensor<ui8> : tensor<16x3xui8>, tensor<f32> -> tensor<16x3xf32>
  %rs = nunc.add %res, %a2dq : (tensor<16x3xf32>, tensor<16x3xf32>) -> tensor<16x3xf32>
  %s3 = nunc.constant dense<0.25> : tensor<f32>
  %rq = nunc.quantize_linear %rs, %s3, %zp2 : tensor<ui8> {output_element_type = ui8} : tensor<16x3xf32>, tensor<f32> -> tensor<16x3xui8>
  %r = nunc.dequantize_linear %rq, %s3, %zp2 : tensor<ui8> : tensor<16x3xui8>, tensor<f32> -> tensor<16x3xf32>
  return %y, %r : tensor<16x3xf32>, tensor<16x3xf32>
}
