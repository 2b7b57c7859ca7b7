// The quantized_linear that replaces a QDQ MatMul (or Gemm, with transB and a
// bias) computes what the Q, DQ
// and f32 MatMul compute, up to the order of the float sums: the reference
// evaluator runs both forms on the same random inputs.
// RUN: nunc-opt %s --nunc-fuse-linear -o %t.fused.mlir
// RUN: FileCheck %s --input-file %t.fused.mlir
// RUN: nunc run --reference %s --random-inputs --seed 4 -o %t.ref.npz
// RUN: nunc run --reference %t.fused.mlir --random-inputs --seed 4 -o %t.fused.npz
// RUN: %python -c "import sys, numpy as np; a = np.load(sys.argv[1]); b = np.load(sys.argv[2]); np.testing.assert_allclose(b['y'], a['y'], rtol=1e-6, atol=1e-5); np.testing.assert_allclose(b['z'], a['z'], rtol=1e-6, atol=1e-5); np.testing.assert_allclose(b['g'], a['g'], rtol=1e-6, atol=1e-5)" %t.ref.npz %t.fused.npz

// CHECK-COUNT-3: nunc.quantized_linear
// CHECK-NOT: nunc.{{(matmul|gemm)}}
func.func @main(%x: tensor<5x7xf32> {nunc.name = "x"}) -> (tensor<5x3xf32> {nunc.name = "y"}, tensor<5x3xf32> {nunc.name = "z"}, tensor<5x3xf32> {nunc.name = "g"}) {
  %w = nunc.constant dense<[[1, -2, 7], [3, 4, -8], [-5, 6, 9], [10, -11, 12], [-13, 14, 15], [16, 17, -18], [-19, 20, 21]]> : tensor<7x3xi8>
  %ws = nunc.constant dense<0.03125> : tensor<f32>
  %wsc = nunc.constant dense<[0.25, 0.0625, 0.125]> : tensor<3xf32>
  %wzc = nunc.constant dense<0> : tensor<3xi8>
  %s = nunc.constant dense<0.0078125> : tensor<f32>
  %zp = nunc.constant dense<128> : tensor<ui8>
  %q = nunc.quantize_linear %x, %s, %zp : tensor<ui8> {output_element_type = ui8} : tensor<5x7xf32>, tensor<f32> -> tensor<5x7xui8>
  %dq = nunc.dequantize_linear %q, %s, %zp : tensor<ui8> : tensor<5x7xui8>, tensor<f32> -> tensor<5x7xf32>
  %dw = nunc.dequantize_linear %w, %ws : tensor<7x3xi8>, tensor<f32> -> tensor<7x3xf32>
  %y = nunc.matmul %dq, %dw : (tensor<5x7xf32>, tensor<7x3xf32>) -> tensor<5x3xf32>
  %dwc = nunc.dequantize_linear %w, %wsc, %wzc : tensor<3xi8> {axis = 1 : i64} : tensor<7x3xi8>, tensor<3xf32> -> tensor<7x3xf32>
  %z = nunc.matmul %dq, %dwc : (tensor<5x7xf32>, tensor<7x3xf32>) -> tensor<5x3xf32>
  %wt = nunc.constant dense<[[1, 3, -5, 10, -13, 16, -19], [-2, 4, 6, -11, 14, 17, 20], [7, -8, 9, 12, 15, -18, 21]]> : tensor<3x7xi8>
  %wtz = nunc.constant dense<0> : tensor<3xi8>
  %bias = nunc.constant dense<[0.5, -1.25, 2.0]> : tensor<3xf32>
  %dwt = nunc.dequantize_linear %wt, %wsc, %wtz : tensor<3xi8> {axis = 0 : i64} : tensor<3x7xi8>, tensor<3xf32> -> tensor<3x7xf32>
  %g = nunc.gemm %dq, %dwt, %bias : tensor<3xf32> {transB = 1 : i64} : tensor<5x7xf32>, tensor<3x7xf32> -> tensor<5x3xf32>
  return %y, %z, %g : tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>
}
