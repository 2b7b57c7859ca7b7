// RUN: nunc-opt %s --nunc-fuse-elementwise-chains -o %t.fused.mlir
// RUN: %python -c "import sys, numpy as np; r = np.random.default_rng(3); np.savez(sys.argv[1], x=r.uniform(-8, 8, (1, 4, 7, 9)).astype(np.float32), r=r.uniform(-5, 5, (1, 4, 7, 9)).astype(np.float32))" %t.in.npz
// RUN: nunc run --reference %s --input %t.in.npz -o %t.ref.npz
// RUN: nunc run --reference %t.fused.mlir --input %t.in.npz -o %t.fused.npz
// RUN: nunc run %t.fused.mlir --input %t.in.npz -o %t.jit.npz
// RUN: %python -c "import sys, numpy as np; a, b, c = (np.load(p) for p in sys.argv[1:]); [np.testing.assert_array_equal(b[k], a[k], err_msg=k) for k in a.files]; [np.testing.assert_array_equal(c[k], a[k], err_msg=k) for k in a.files]; assert len(np.unique(a['y'])) > 200 and len(np.unique(a['z'])) > 30" %t.ref.npz %t.fused.npz %t.jit.npz
// RUN: FileCheck %s --input-file %t.fused.mlir

// A QDQ PP-LCNet block after its conv (the conv output's grid, scale and
// shift, hard-swish as x * clip(x + 3, 0, 6) / 6 with a grid after every
// op, scale and shift again) and a residual-like tail, then f32
// activations: each run becomes one chain, with the same bits from the
// evaluator and from the compiled x86 chain kernel (a 7 x 9 plane: 252
// elements, the last vector masked).

// CHECK-LABEL: func.func @main(
// CHECK-NEXT: %[[Y:.*]] = nunc.elementwise_chain %arg0, %arg1 {steps = [
// CHECK-SAME: {args = array<i64: 0>, grid = !quant.uniform<u8:f32, 3.000000e-02:120>, op = "fake_quantize"},
// CHECK-SAME: {args = array<i64: -1, 2>, constant = 1.250000e+00 : f32, grid = !quant.uniform<u8:f32, 4.000000e-02:110>, op = "mul"},
// CHECK-SAME: {args = array<i64: 3, -1>, constant = -5.000000e-01 : f32, grid = !quant.uniform<{{[^>]*}}>, op = "add"},
// CHECK-SAME: {args = array<i64: 4, -1>, constant = 3.000000e+00 : f32, grid = !quant.uniform<{{[^>]*}}>, op = "add"},
// CHECK-SAME: {args = array<i64: 4, 5>, grid = !quant.uniform<u8:f32, 1.000000e-01:60>, op = "mul"},
// CHECK-SAME: {args = array<i64: 6, -1>, constant = 6.000000e+00 : f32, grid = !quant.uniform<{{[^>]*}}>, op = "div"},
// CHECK-SAME: {args = array<i64: -1, 7>, constant = 7.500000e-01 : f32, grid = !quant.uniform<{{[^>]*}}>, op = "mul"},
// CHECK-SAME: {args = array<i64: 8, -1>, constant = 1.250000e-01 : f32, op = "add"},
// CHECK-SAME: {args = array<i64: -1, 1>, constant = 6.000000e+00 : f32, op = "sub"},
// CHECK-SAME: {args = array<i64: 10, 9>, op = "div"}]}
// CHECK-NEXT: %[[Z:.*]] = nunc.elementwise_chain %arg1 {steps = [
// CHECK-SAME: {alpha = 0.166666701 : f32, args = array<i64: 0>, beta = 5.000000e-01 : f32, op = "hard_swish"},
// CHECK-SAME: {args = array<i64: 1>, max = 3.000000e+00 : f32, min = -5.000000e-01 : f32, op = "clip"},
// CHECK-SAME: {args = array<i64: 2>, op = "relu"},
// CHECK-SAME: {alpha = 2.000000e-01 : f32, args = array<i64: 3>, beta = 5.000000e-01 : f32, op = "hard_sigmoid"},
// CHECK-SAME: {args = array<i64: 4>, grid = !quant.uniform<i8:f32, 1.000000e-02>, op = "fake_quantize"}]}
// CHECK-NEXT: return %[[Y]], %[[Z]]
func.func @main(%x: tensor<1x4x7x9xf32> {nunc.name = "x"}, %r: tensor<1x4x7x9xf32> {nunc.name = "r"}) -> (tensor<1x4x7x9xf32> {nunc.name = "y"}, tensor<1x4x7x9xf32> {nunc.name = "z"}) {
  %s1 = nunc.constant dense<1.25> : tensor<1xf32>
  %b1 = nunc.constant dense<-0.5> : tensor<1xf32>
  %c3 = nunc.constant dense<3.0> : tensor<f32>
  %c6 = nunc.constant dense<6.0> : tensor<f32>
  %s2 = nunc.constant dense<0.75> : tensor<1xf32>
  %b2 = nunc.constant dense<0.125> : tensor<1xf32>
  %0 = nunc.fake_quantize %x {quantization = !quant.uniform<u8:f32, 0.03:120>} : tensor<1x4x7x9xf32> -> tensor<1x4x7x9xf32>
  %1 = nunc.mul %s1, %0 {output_quantization = !quant.uniform<u8:f32, 0.04:110>} : (tensor<1xf32>, tensor<1x4x7x9xf32>) -> tensor<1x4x7x9xf32>
  %2 = nunc.add %1, %b1 {output_quantization = !quant.uniform<u8:f32, 0.035:140>} : (tensor<1x4x7x9xf32>, tensor<1xf32>) -> tensor<1x4x7x9xf32>
  %3 = nunc.add %2, %c3 {output_quantization = !quant.uniform<u8:f32, 0.0235294:0>} : (tensor<1x4x7x9xf32>, tensor<f32>) -> tensor<1x4x7x9xf32>
  %4 = nunc.mul %2, %3 {output_quantization = !quant.uniform<u8:f32, 0.1:60>} : (tensor<1x4x7x9xf32>, tensor<1x4x7x9xf32>) -> tensor<1x4x7x9xf32>
  %5 = nunc.div %4, %c6 {output_quantization = !quant.uniform<u8:f32, 0.02:50>} : (tensor<1x4x7x9xf32>, tensor<f32>) -> tensor<1x4x7x9xf32>
  %6 = nunc.mul %s2, %5 {output_quantization = !quant.uniform<u8:f32, 0.015:55>} : (tensor<1xf32>, tensor<1x4x7x9xf32>) -> tensor<1x4x7x9xf32>
  %7 = nunc.add %6, %b2 : (tensor<1x4x7x9xf32>, tensor<1xf32>) -> tensor<1x4x7x9xf32>
  %8 = nunc.sub %c6, %r : (tensor<f32>, tensor<1x4x7x9xf32>) -> tensor<1x4x7x9xf32>
  %9 = nunc.div %8, %7 : (tensor<1x4x7x9xf32>, tensor<1x4x7x9xf32>) -> tensor<1x4x7x9xf32>
  %10 = nunc.hard_swish %r {alpha = 0.1666667 : f32, beta = 0.5 : f32} : tensor<1x4x7x9xf32> -> tensor<1x4x7x9xf32>
  %11 = nunc.clip %10 min %b1 : tensor<1xf32> max %c3 : tensor<f32> : tensor<1x4x7x9xf32> -> tensor<1x4x7x9xf32>
  %12 = nunc.relu %11 : tensor<1x4x7x9xf32> -> tensor<1x4x7x9xf32>
  %13 = nunc.hard_sigmoid %12 {alpha = 0.2 : f32, beta = 0.5 : f32} : tensor<1x4x7x9xf32> -> tensor<1x4x7x9xf32>
  %14 = nunc.fake_quantize %13 {quantization = !quant.uniform<i8:f32, 0.01>} : tensor<1x4x7x9xf32> -> tensor<1x4x7x9xf32>
  return %9, %14 : tensor<1x4x7x9xf32>, tensor<1x4x7x9xf32>
}
