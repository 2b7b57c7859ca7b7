// A QLinearConv whose weight is computed at run time keeps the exact generic
// kernel: i32 sums of (x - zx)(w - zw[m]) (u8 weights with one zero point
// per output channel), the i32 bias, times fl(fl(sx sw[m]) / sy) in f64,
// plus y's zero point, rounded half to even and saturated. The compiled
// results equal the evaluator's (ONNX's reference arithmetic) exactly: with
// a bias, padding and a stride, and grouped without a bias.
// RUN: nunc run --reference %s --random-inputs --seed 4 --int-range 0:256 -o %t.ref.npz
// RUN: nunc run %s --random-inputs --seed 4 --int-range 0:256 -o %t.jit.npz
// RUN: %python -c "import sys, numpy as np; a, b = np.load(sys.argv[1]), np.load(sys.argv[2]); [np.testing.assert_array_equal(b[k], a[k], err_msg=k) for k in a.files]; assert sorted(a.files) == ['y', 'y_grouped'], a.files; assert all(len(np.unique(a[k])) > 20 for k in a.files)" %t.ref.npz %t.jit.npz

func.func @main(%x: tensor<1x3x7x6xui8> {nunc.name = "x"}, %w: tensor<5x3x3x3xui8> {nunc.name = "w"},
                %wg: tensor<6x1x3x3xui8> {nunc.name = "wg"})
    -> (tensor<1x5x3x7xui8> {nunc.name = "y"}, tensor<1x6x5x4xui8> {nunc.name = "y_grouped"}) {
  %sx = nunc.constant dense<0.05> : tensor<f32>
  %zx = nunc.constant dense<119> : tensor<ui8>
  %sw = nunc.constant dense<[0.011, 0.013, 0.007, 0.019, 0.023]> : tensor<5xf32>
  %zw = nunc.constant dense<[120, 131, 127, 2, 250]> : tensor<5xui8>
  %sy = nunc.constant dense<3.5> : tensor<f32>
  %zy = nunc.constant dense<125> : tensor<ui8>
  %b = nunc.constant dense<[700, -1300, 0, 2500, -90]> : tensor<5xi32>
  %y = nunc.qlinear_conv %x, %sx, %zx, %w, %sw, %zw, %sy, %zy, %b {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 0, 2>, strides = array<i64: 2, 1>} : (tensor<1x3x7x6xui8>, tensor<f32>, tensor<ui8>, tensor<5x3x3x3xui8>, tensor<5xf32>, tensor<5xui8>, tensor<f32>, tensor<ui8>, tensor<5xi32>) -> tensor<1x5x3x7xui8>
  %swg = nunc.constant dense<0.02> : tensor<f32>
  %zwg = nunc.constant dense<128> : tensor<ui8>
  %syg = nunc.constant dense<0.6> : tensor<f32>
  %yg = nunc.qlinear_conv %x, %sx, %zx, %wg, %swg, %zwg, %syg, %zy {dilations = array<i64: 1, 1>, group = 3 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x3x7x6xui8>, tensor<f32>, tensor<ui8>, tensor<6x1x3x3xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>) -> tensor<1x6x5x4xui8>
  return %y, %yg : tensor<1x5x3x7xui8>, tensor<1x6x5x4xui8>
}
