// RUN: nunc-opt %s --nunc-fuse-chain-into-conv -o %t.fused.mlir
// RUN: %python -c "import sys, numpy as np; r = np.random.default_rng(5); np.savez(sys.argv[1], x=r.uniform(-3, 4, (1, 5, 7, 9)).astype(np.float32))" %t.in.npz
// RUN: nunc run --reference %s --input %t.in.npz -o %t.ref.npz
// RUN: nunc run --reference %t.fused.mlir --input %t.in.npz -o %t.fused.npz
// RUN: nunc run %s --input %t.in.npz -o %t.jit.npz
// RUN: %python -c "import sys, numpy as np; a, b, c = (np.load(p) for p in sys.argv[1:]); [np.testing.assert_array_equal(b[k], a[k], err_msg=k) for k in a.files]; [np.testing.assert_array_equal(c[k], a[k], err_msg=k) for k in a.files]; assert len(np.unique(a['y'])) > 20" %t.ref.npz %t.fused.npz %t.jit.npz
// RUN: FileCheck %s --input-file %t.fused.mlir

// A QDQ PP-LCNet pointwise conv and the scale, shift and hard-swish after
// its output grid (a grid after every op): the chain becomes the conv's
// output_table, with the same bits from the evaluator before and after and
// from the compiled x86 epilogue's lookup (`nunc run` compiles for the
// host: on AVX-512 VNNI hosts the conv looks the table up; elsewhere the
// chain runs after an f32 conv).

// CHECK-LABEL: func.func @main(
// CHECK: nunc.quantized_conv {{.*}}output_table = array<f32:
// CHECK-NOT: nunc.elementwise_chain
func.func @main(%x: tensor<1x5x7x9xf32> {nunc.name = "x"}) -> (tensor<1x16x7x9xf32> {nunc.name = "y"}) {
  %w = nunc.constant dense<[[[[3]], [[-7]], [[12]], [[-1]], [[5]]], [[[-9]], [[4]], [[2]], [[8]], [[-3]]], [[[6]], [[1]], [[-5]], [[7]], [[2]]], [[[-2]], [[-8]], [[3]], [[4]], [[9]]], [[[3]], [[-7]], [[12]], [[-1]], [[5]]], [[[-9]], [[4]], [[2]], [[8]], [[-3]]], [[[6]], [[1]], [[-5]], [[7]], [[2]]], [[[-2]], [[-8]], [[3]], [[4]], [[9]]], [[[3]], [[-7]], [[12]], [[-1]], [[5]]], [[[-9]], [[4]], [[2]], [[8]], [[-3]]], [[[6]], [[1]], [[-5]], [[7]], [[2]]], [[[-2]], [[-8]], [[3]], [[4]], [[9]]], [[[3]], [[-7]], [[12]], [[-1]], [[5]]], [[[-9]], [[4]], [[2]], [[8]], [[-3]]], [[[6]], [[1]], [[-5]], [[7]], [[2]]], [[[-2]], [[-8]], [[3]], [[4]], [[9]]]]> : tensor<16x5x1x1xi8>
  %qw = quant.scast %w : tensor<16x5x1x1xi8> to tensor<16x5x1x1x!quant.uniform<i8:f32, 0.03125>>
  %b = nunc.constant dense<0.125> : tensor<16xf32>
  %c = nunc.quantized_conv %x, %qw bias %b : tensor<16xf32> {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.03:100>, kernel_shape = array<i64: 1, 1>, output_quantization = !quant.uniform<u8:f32, 0.04:110>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x5x7x9xf32>, tensor<16x5x1x1x!quant.uniform<i8:f32, 0.03125>> -> tensor<1x16x7x9xf32>
  %y = nunc.elementwise_chain %c {steps = [{args = array<i64: 0, -1>, constant = 1.25 : f32, grid = !quant.uniform<u8:f32, 0.035:140>, op = "mul"}, {args = array<i64: 1, -1>, constant = -0.5 : f32, grid = !quant.uniform<u8:f32, 0.03:130>, op = "add"}, {args = array<i64: 2, -1>, constant = 3.0 : f32, grid = !quant.uniform<u8:f32, 0.0235294:0>, op = "add"}, {args = array<i64: 3>, max = 6.0 : f32, min = 0.0 : f32, op = "clip"}, {args = array<i64: 2, 4>, grid = !quant.uniform<u8:f32, 0.1:60>, op = "mul"}, {args = array<i64: 5, -1>, constant = 6.0 : f32, grid = !quant.uniform<u8:f32, 0.02:50>, op = "div"}]} : (tensor<1x16x7x9xf32>) -> tensor<1x16x7x9xf32>
  return %y : tensor<1x16x7x9xf32>
}
