// The quantized_linear that replaces onnxruntime's quantize_dynamic MatMul
// computes exactly what the ops it replaces compute: the reference evaluator
// gives identical outputs for both forms on the same random inputs.
// RUN: nunc-opt %s --nunc-fuse-linear -o %t.fused.mlir
// RUN: FileCheck %s --input-file %t.fused.mlir
// RUN: nunc run --reference %s --random-inputs --seed 2 -o %t.ref.npz
// RUN: nunc run --reference %t.fused.mlir --random-inputs --seed 2 -o %t.fused.npz
// RUN: %python -c "import sys, numpy as np; a = np.load(sys.argv[1]); b = np.load(sys.argv[2]); np.testing.assert_array_equal(a['y'], b['y']); np.testing.assert_array_equal(a['z'], b['z'])" %t.ref.npz %t.fused.npz

// CHECK-COUNT-2: nunc.quantized_linear
// CHECK-NOT: nunc.matmul_integer
func.func @main(%x: tensor<5x7xf32> {nunc.name = "x"}) -> (tensor<5x3xf32> {nunc.name = "y"}, tensor<5x3xf32> {nunc.name = "z"}) {
  %w = nunc.constant dense<[[1, -2, 7], [3, 4, -8], [-5, 6, 9], [10, -11, 12], [-13, 14, 15], [16, 17, -18], [-19, 20, 21]]> : tensor<7x3xi8>
  %wzp = nunc.constant dense<0> : tensor<i8>
  %ws = nunc.constant dense<0.03125> : tensor<f32>
  %wsc = nunc.constant dense<[0.25, 0.0625, 0.125]> : tensor<3xf32>
  %b = nunc.constant dense<[0.5, -0.5, 2.0]> : tensor<3xf32>
  %q, %s, %zp = nunc.dynamic_quantize_linear %x : tensor<5x7xf32> -> tensor<5x7xui8>, tensor<f32>, tensor<ui8>
  %scale = nunc.mul %s, %ws : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %acc = nunc.matmul_integer %q, %w a_zero_point %zp : tensor<ui8> b_zero_point %wzp : tensor<i8> : tensor<5x7xui8>, tensor<7x3xi8> -> tensor<5x3xi32>
  %f = nunc.cast %acc {to = f32} : tensor<5x3xi32> -> tensor<5x3xf32>
  %m = nunc.mul %f, %scale : (tensor<5x3xf32>, tensor<f32>) -> tensor<5x3xf32>
  %y = nunc.add %m, %b : (tensor<5x3xf32>, tensor<3xf32>) -> tensor<5x3xf32>
  %scale2 = nunc.mul %wsc, %s : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  %acc2 = nunc.matmul_integer %q, %w a_zero_point %zp : tensor<ui8> b_zero_point %wzp : tensor<i8> : tensor<5x7xui8>, tensor<7x3xi8> -> tensor<5x3xi32>
  %f2 = nunc.cast %acc2 {to = f32} : tensor<5x3xi32> -> tensor<5x3xf32>
  %z = nunc.mul %scale2, %f2 : (tensor<3xf32>, tensor<5x3xf32>) -> tensor<5x3xf32>
  return %y, %z : tensor<5x3xf32>, tensor<5x3xf32>
}
