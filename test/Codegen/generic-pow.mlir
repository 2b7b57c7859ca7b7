// The generic Pow follows C's pow, as the evaluator (std::pow) does: a
// negative base with an integral exponent keeps the sign of an odd power
// (an unfused LayerNorm's variance is Pow(x - mean, 2)), a fractional one
// gives NaN, a zero exponent 1, a zero base with a negative exponent inf.
// RUN: %python -c "import sys, numpy as np; np.savez(sys.argv[1], x=np.array([[-3.0], [-2.0], [-0.5], [0.0], [0.5], [2.0], [-1.25]], np.float32), y=np.array([[2.0, 3.0, 0.5, 0.0, -1.0, -2.0, 1.5]], np.float32), xd=np.array([-3.0, -0.5, 2.0]), yd=np.array([3.0, 2.0, 0.5]))" %t.in.npz
// RUN: nunc run --reference %s --input %t.in.npz -o %t.ref.npz
// RUN: nunc run %s --input %t.in.npz -o %t.jit.npz
// RUN: %python -c "import sys, numpy as np; a, b, i = (np.load(p) for p in sys.argv[1:]); [np.testing.assert_allclose(b[k], a[k], rtol=2e-6, equal_nan=True) for k in a.files]; np.testing.assert_allclose(a['p'], np.power(i['x'], i['y']), rtol=1e-6, equal_nan=True); assert np.isnan(a['p']).sum() == 8 and np.isinf(a['p']).sum() == 2" %t.ref.npz %t.jit.npz %t.in.npz

func.func @main(%x: tensor<7x1xf32> {nunc.name = "x"}, %y: tensor<1x7xf32> {nunc.name = "y"},
                %xd: tensor<3xf64> {nunc.name = "xd"}, %yd: tensor<3xf64> {nunc.name = "yd"})
    -> (tensor<7x7xf32> {nunc.name = "p"}, tensor<3xf64> {nunc.name = "pd"}) {
  %p = nunc.pow %x, %y : (tensor<7x1xf32>, tensor<1x7xf32>) -> tensor<7x7xf32>
  %pd = nunc.pow %xd, %yd : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  return %p, %pd : tensor<7x7xf32>, tensor<3xf64>
}
