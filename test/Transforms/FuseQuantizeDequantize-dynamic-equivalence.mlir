// DequantizeLinear(DynamicQuantizeLinear(x)) becomes one dynamic_fake_quantize,
// and the compiled kernel gives the reference evaluator's values bit for bit
// on each path: x (a graph input: the kernel's own range pass) holds the
// ties of its grid (range [-127/128, 1]: scale 1/128, zero point 127, every
// other value half a step off the grid; round half to even decides); tiny
// (scale ~1e-38, outside the reciprocal's range: the division) holds a NaN,
// which the range skips and which becomes code 0; the depthwise conv's
// result takes the partial ranges its window kernel measured as it stored
// them.
// RUN: nunc-opt %s --nunc-fuse-quantize-dequantize -o %t.fused.mlir
// RUN: FileCheck %s --input-file %t.fused.mlir
// RUN: %python -c "import sys, numpy as np; x = (np.arange(133, dtype=np.float32) - 126.5) / 128; x[:2] = (-127 / 128, 1); t = np.random.default_rng(1).uniform(-1, 1, 40).astype(np.float32) * np.float32(1e-36); t[3] = np.nan; np.savez(sys.argv[1], x=x.reshape(7, 19), tiny=t.reshape(2, 20), img=np.random.default_rng(3).uniform(-1, 1, (1, 5, 17, 17)).astype(np.float32))" %t.in.npz
// RUN: nunc run --reference %s --input %t.in.npz -o %t.ref.npz
// RUN: nunc run --reference %t.fused.mlir --input %t.in.npz -o %t.fused.npz
// RUN: nunc run %t.fused.mlir --input %t.in.npz -o %t.jit.npz
// RUN: %python -c "import sys, numpy as np; a, b, c = (np.load(p) for p in sys.argv[1:]); [np.testing.assert_array_equal(x[k], a[k], err_msg=k) for x in (b, c) for k in a.files]; assert np.unique(a['a']).size > 60 and np.isfinite(a['t']).all()" %t.ref.npz %t.fused.npz %t.jit.npz

// CHECK-COUNT-3: nunc.dynamic_fake_quantize
// CHECK-NOT: nunc.dynamic_quantize_linear
// CHECK-NOT: nunc.dequantize_linear
func.func @main(%x: tensor<7x19xf32> {nunc.name = "x"}, %tiny: tensor<2x20xf32> {nunc.name = "tiny"}, %img: tensor<1x5x17x17xf32> {nunc.name = "img"}) -> (tensor<7x19xf32> {nunc.name = "a"}, tensor<2x20xf32> {nunc.name = "t"}, tensor<1x5x17x17xf32> {nunc.name = "b"}) {
  %q, %s, %zp = nunc.dynamic_quantize_linear %x : tensor<7x19xf32> -> tensor<7x19xui8>, tensor<f32>, tensor<ui8>
  %a = nunc.dequantize_linear %q, %s, %zp : tensor<ui8> : tensor<7x19xui8>, tensor<f32> -> tensor<7x19xf32>
  %tq, %ts, %tzp = nunc.dynamic_quantize_linear %tiny : tensor<2x20xf32> -> tensor<2x20xui8>, tensor<f32>, tensor<ui8>
  %t = nunc.dequantize_linear %tq, %ts, %tzp : tensor<ui8> : tensor<2x20xui8>, tensor<f32> -> tensor<2x20xf32>
  %w = nunc.constant dense<[[[[0.5, -1.0, 0.25], [1.0, 2.0, -0.75], [0.125, 0.5, -0.5]]], [[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]], [[[-0.25, 0.5, 0.75], [1.5, -2.0, 0.25], [0.5, 0.5, 0.5]]], [[[2.0, -1.0, 0.5], [0.25, 0.125, 1.0], [-1.5, 0.5, 0.0]]], [[[0.3, 0.7, -0.9], [1.1, -0.2, 0.4], [0.6, -0.8, 1.2]]]]> : tensor<5x1x3x3xf32>
  %c = nunc.conv %img, %w {dilations = array<i64: 1, 1>, group = 5 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x5x17x17xf32>, tensor<5x1x3x3xf32> -> tensor<1x5x17x17xf32>
  %cq, %cs, %czp = nunc.dynamic_quantize_linear %c : tensor<1x5x17x17xf32> -> tensor<1x5x17x17xui8>, tensor<f32>, tensor<ui8>
  %b = nunc.dequantize_linear %cq, %cs, %czp : tensor<ui8> : tensor<1x5x17x17xui8>, tensor<f32> -> tensor<1x5x17x17xf32>
  return %a, %t, %b : tensor<7x19xf32>, tensor<2x20xf32>, tensor<1x5x17x17xf32>
}
