// A QDQ model's GlobalAveragePool between pairs (global_average_pool with
// its grids): onnxruntime's QLinearGlobalAveragePool, the codes' sum times
// fl(s_x / fl(s_y N)), rounded half to even, clamped, as the output grid's
// values. %t: s_x / (s_y N) = 0.5 on 2x2 planes, so every odd sum of codes
// is a tie: the result is checked against round-half-even of half the sum
// of %q's codes; %p: 7x9 planes (vectors and a masked tail), the output
// grid's ends reached. The compiled kernel equals the reference evaluator
// bit for bit.
// RUN: nunc run --reference %s --random-inputs --seed 9 -o %t.ref.npz
// RUN: nunc run %s --random-inputs --seed 9 -o %t.jit.npz --explain 2>&1 | FileCheck %s
// RUN: %python -c "import sys, numpy as np; a, b = (np.load(p) for p in sys.argv[1:]); [np.testing.assert_array_equal(a[k], b[k]) for k in ('t', 'p', 'q')]; s = np.rint(a['q'] * 64).sum(axis=(2, 3), keepdims=True); assert (s % 2 == 1).sum() > 20; np.testing.assert_array_equal(a['t'] * 128, np.clip(np.rint(s / 2), -128, 127)); p = np.rint(a['p'] / 0.005) + 40; assert p.min() == 0 and p.max() == 255 and np.unique(p).size > 15" %t.ref.npz %t.jit.npz

// CHECK: global_average_pool.{{.*}}[1x64x4x1] +codes averaged in one step
// CHECK: global_average_pool.{{.*}}[2x48x63x1] +codes averaged in one step

func.func @main(%x: tensor<1x64x2x2xf32> {nunc.name = "x"}, %y: tensor<2x48x7x9xf32> {nunc.name = "y"}) -> (tensor<1x64x1x1xf32> {nunc.name = "t"}, tensor<2x48x1x1xf32> {nunc.name = "p"}, tensor<1x64x2x2xf32> {nunc.name = "q"}) {
  %q = nunc.fake_quantize %x {quantization = !quant.uniform<u8:f32, 0.015625:128>} : tensor<1x64x2x2xf32> -> tensor<1x64x2x2xf32>
  %t = nunc.global_average_pool %q {input_quantization = !quant.uniform<u8:f32, 0.015625:128>, output_quantization = !quant.uniform<u8:f32, 0.0078125:128>} : tensor<1x64x2x2xf32> -> tensor<1x64x1x1xf32>
  %c = nunc.constant dense<40.0> : tensor<f32>
  %ys = nunc.mul %y, %c : (tensor<2x48x7x9xf32>, tensor<f32>) -> tensor<2x48x7x9xf32>
  %yq = nunc.fake_quantize %ys {quantization = !quant.uniform<u8:f32, 0.25:100>} : tensor<2x48x7x9xf32> -> tensor<2x48x7x9xf32>
  %p = nunc.global_average_pool %yq {input_quantization = !quant.uniform<u8:f32, 0.25:100>, output_quantization = !quant.uniform<u8:f32, 0.005:40>} : tensor<2x48x7x9xf32> -> tensor<2x48x1x1xf32>
  return %t, %p, %q : tensor<1x64x1x1xf32>, tensor<2x48x1x1xf32>, tensor<1x64x2x2xf32>
}
