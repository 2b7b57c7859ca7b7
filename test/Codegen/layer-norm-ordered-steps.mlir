// A LayerNorm between a quantized model's pairs in onnxruntime's f32 steps
// (ordered_f32_arithmetic: an f64 mean in 8 lanes, one 8-lane FMA chain for
// the centered squares, y = fma((x - mean) * inv, scale, bias)) on rows of
// 392 values of a grid (a 16-lane output tail of 8): the kernel equals the
// reference evaluator bit for bit (outputs, means and 1/stddevs). That
// these are onnxruntime's roundings the e2e tests check (QDQ and QOperator
// MiniLMs equal to onnxruntime's outputs).
// RUN: nunc run --reference %s --random-inputs --seed 5 -o %t.ref.npz
// RUN: nunc run %s --random-inputs --seed 5 -o %t.jit.npz --explain 2>&1 | FileCheck %s
// RUN: %python -c "import sys, numpy as np; r, j = (np.load(p) for p in sys.argv[1:]); [np.testing.assert_array_equal(r[k], j[k]) for k in ('a', 'm', 'i')]; assert np.unique(r['a']).size > 5000" %t.ref.npz %t.jit.npz

// CHECK: layer_norm.avx512[21x392] +bias +ordered f32 steps

func.func @main(%x: tensor<3x7x392xf32> {nunc.name = "x"}, %g: tensor<392xf32> {nunc.name = "g"}, %h: tensor<392xf32> {nunc.name = "h"}) -> (tensor<3x7x392xf32> {nunc.name = "a"}, tensor<3x7x1xf32> {nunc.name = "m"}, tensor<3x7x1xf32> {nunc.name = "i"}) {
  %q = nunc.fake_quantize %x {quantization = !quant.uniform<u8:f32, 0.0137:131>} : tensor<3x7x392xf32> -> tensor<3x7x392xf32>
  %a, %m, %i = nunc.layer_norm %q, %g, %h : tensor<392xf32> {ordered_f32_arithmetic} : tensor<3x7x392xf32>, tensor<392xf32> -> tensor<3x7x392xf32>, tensor<3x7x1xf32>, tensor<3x7x1xf32>
  return %a, %m, %i : tensor<3x7x392xf32>, tensor<3x7x1xf32>, tensor<3x7x1xf32>
}
