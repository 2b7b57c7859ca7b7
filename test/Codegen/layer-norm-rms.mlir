// RMSNorm (nunc.layer_norm {rms}) on the LayerNorm kernel (f32 rows of 392,
// a 16-lane tail of 8; with a bias) and on the generic path (f64; a scale
// broadcast from [1]): the JIT's outputs equal the reference evaluator's
// within float rounding, the means are 0 and the 1/rms values are those of
// numpy's formula on the inputs (rows with a mean far from 0, which an
// rms must not take out).
// RUN: %python -c "import sys, numpy as np; r = np.random.default_rng(3); np.savez(sys.argv[1], x=(r.standard_normal((3, 7, 392)) + 4).astype(np.float32), g=r.standard_normal(392).astype(np.float32), h=r.standard_normal(392).astype(np.float32), xd=r.standard_normal((5, 33)) - 2)" %t.in.npz
// RUN: nunc run --reference %s --input %t.in.npz -o %t.ref.npz
// RUN: nunc run %s --input %t.in.npz -o %t.jit.npz --explain 2>&1 | FileCheck %s
// RUN: %python -c "import sys, numpy as np; r, j, i = (np.load(p) for p in sys.argv[1:]); [np.testing.assert_allclose(j[k], r[k], rtol=2e-5, atol=2e-5, err_msg=k) for k in r.files]; x = i['x'].astype(np.float64); inv = 1 / np.sqrt((x * x).mean(-1, keepdims=True) + 1e-3); np.testing.assert_allclose(j['i'], inv, rtol=1e-5); np.testing.assert_allclose(j['a'], x * inv * i['g'] + i['h'], rtol=1e-4, atol=1e-4); assert not j['m'].any() and not r['m'].any(); xd = i['xd']; np.testing.assert_allclose(j['ad'], 0.5 * xd / np.sqrt((xd * xd).mean(-1, keepdims=True) + 1e-3), rtol=1e-9)" %t.ref.npz %t.jit.npz %t.in.npz

// CHECK: layer_norm.avx512[21x392] rms +bias
// CHECK: generic{{.*}}nunc.layer_norm

func.func @main(%x: tensor<3x7x392xf32> {nunc.name = "x"}, %g: tensor<392xf32> {nunc.name = "g"}, %h: tensor<392xf32> {nunc.name = "h"}, %xd: tensor<5x33xf64> {nunc.name = "xd"}) -> (tensor<3x7x392xf32> {nunc.name = "a"}, tensor<3x7x1xf32> {nunc.name = "m"}, tensor<3x7x1xf32> {nunc.name = "i"}, tensor<5x33xf64> {nunc.name = "ad"}) {
  %a, %m, %i = nunc.layer_norm %x, %g, %h : tensor<392xf32> {epsilon = 1.0e-03 : f32, rms} : tensor<3x7x392xf32>, tensor<392xf32> -> tensor<3x7x392xf32>, tensor<3x7x1xf32>, tensor<3x7x1xf32>
  %half = nunc.constant dense<0.5> : tensor<1xf64>
  %ad, %md, %id = nunc.layer_norm %xd, %half {epsilon = 1.0e-03 : f32, rms} : tensor<5x33xf64>, tensor<1xf64> -> tensor<5x33xf64>, tensor<5x1xf32>, tensor<5x1xf32>
  return %a, %m, %i, %ad : tensor<3x7x392xf32>, tensor<3x7x1xf32>, tensor<3x7x1xf32>, tensor<5x33xf64>
}
