// The Gemm and MatMul forms that become a linear op with transposes, Muls
// and Adds around it compute what the exported ops do: both run on the same
// random inputs in the reference evaluator, and the outputs must agree.
// RUN: nunc-opt %s --nunc-fuse-linear -o %t.fused.mlir
// RUN: FileCheck %s --input-file %t.fused.mlir
// RUN: nunc run --reference %s --random-inputs --seed 3 -o %t.ref.npz
// RUN: nunc run --reference %t.fused.mlir --random-inputs --seed 3 -o %t.fused.npz
// RUN: %python -c "import sys, numpy as np; a = np.load(sys.argv[1]); b = np.load(sys.argv[2]); assert sorted(a.files) == sorted(b.files) == ['t', 'u', 'v', 'w'], (a.files, b.files); [np.testing.assert_allclose(b[k], a[k], rtol=1e-5, atol=1e-6, err_msg=k) for k in a.files]" %t.ref.npz %t.fused.npz

// t: Gemm with transA, transB, alpha and a column C scaled by beta.
// u: Gemm of two run-time operands (transA) with a full C.
// v: MatMul of a constant [N, K] weight and a 3-D x.
// w: Gemm with a full C scaled by beta and a Relu after it.

// CHECK-LABEL: func.func @main(
// CHECK-NOT: nunc.gemm
// CHECK-COUNT-3: nunc.linear
// CHECK-NOT: nunc.linear
// CHECK-NOT: nunc.gemm
func.func @main(%a: tensor<3x2xf32> {nunc.name = "a"}, %c: tensor<2x1xf32> {nunc.name = "c"}, %b: tensor<3x4xf32> {nunc.name = "b"}, %f: tensor<2x4xf32> {nunc.name = "f"}, %x: tensor<2x3x5xf32> {nunc.name = "x"}, %y: tensor<2x3xf32> {nunc.name = "y"}) -> (tensor<2x4xf32> {nunc.name = "t"}, tensor<2x4xf32> {nunc.name = "u"}, tensor<2x2x5xf32> {nunc.name = "v"}, tensor<2x4xf32> {nunc.name = "w"}) {
  %wt = nunc.constant dense<[[1.0, -2.0, 0.5], [0.25, 3.0, -1.0], [-0.5, 0.75, 2.0], [1.5, -1.25, 0.125]]> : tensor<4x3xf32>
  %t = nunc.gemm %a, %wt, %c : tensor<2x1xf32> {alpha = 0.75 : f32, beta = -1.5 : f32, transA = 1 : i64, transB = 1 : i64} : tensor<3x2xf32>, tensor<4x3xf32> -> tensor<2x4xf32>
  %u = nunc.gemm %a, %b, %f : tensor<2x4xf32> {alpha = 1.25 : f32, transA = 1 : i64} : tensor<3x2xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
  %m = nunc.constant dense<[[1.0, 2.0, -3.0], [0.5, -5.0, 6.0]]> : tensor<2x3xf32>
  %v = nunc.matmul %m, %x : (tensor<2x3xf32>, tensor<2x3x5xf32>) -> tensor<2x2x5xf32>
  %w0 = nunc.gemm %y, %wt, %f : tensor<2x4xf32> {beta = 2.0 : f32, transB = 1 : i64} : tensor<2x3xf32>, tensor<4x3xf32> -> tensor<2x4xf32>
  %w = nunc.relu %w0 : tensor<2x4xf32> -> tensor<2x4xf32>
  return %t, %u, %v, %w : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x2x5xf32>, tensor<2x4xf32>
}
