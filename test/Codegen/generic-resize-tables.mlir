// Two Resizes of the same types and attributes whose float inputs differ
// (roi of tf_crop_and_resize; scales 2 and 2.1, the same output size)
// read different tables: the compiled generic kernels must not be shared
// (their key holds small float constants too), and both match the
// reference evaluator.
// RUN: %python -c "import sys, numpy as np; np.savez(sys.argv[1], x=np.arange(30, dtype=np.float32).reshape(1, 1, 5, 6))" %t.in.npz
// RUN: nunc run --reference %s --input %t.in.npz -o %t.ref.npz
// RUN: nunc run %s --input %t.in.npz -o %t.jit.npz
// RUN: %python -c "import sys, numpy as np; a, b = (np.load(p) for p in sys.argv[1:]); [np.testing.assert_allclose(b[k], a[k], rtol=1e-6, atol=1e-6, err_msg=k) for k in a.files]; assert not np.array_equal(a['crop_a'], a['crop_b']) and not np.array_equal(a['up2'], a['up21'])" %t.ref.npz %t.jit.npz

func.func @main(%x: tensor<1x1x5x6xf32> {nunc.name = "x"}) -> (tensor<1x1x4x4xf32> {nunc.name = "crop_a"}, tensor<1x1x4x4xf32> {nunc.name = "crop_b"}, tensor<1x1x10x12xf32> {nunc.name = "up2"}, tensor<1x1x10x12xf32> {nunc.name = "up21"}) {
  %sizes = nunc.constant dense<[1, 1, 4, 4]> : tensor<4xi64>
  %roi_a = nunc.constant dense<[0.0, 0.0, 0.1, 0.2, 1.0, 1.0, 0.9, 0.8]> : tensor<8xf32>
  %roi_b = nunc.constant dense<[0.0, 0.0, 0.3, 0.0, 1.0, 1.0, 1.2, 0.6]> : tensor<8xf32>
  %crop_a = nunc.resize %x roi %roi_a : tensor<8xf32> sizes %sizes : tensor<4xi64> {mode = "linear", coordinate_transformation_mode = "tf_crop_and_resize", extrapolation_value = 7.0 : f32} : tensor<1x1x5x6xf32> -> tensor<1x1x4x4xf32>
  %crop_b = nunc.resize %x roi %roi_b : tensor<8xf32> sizes %sizes : tensor<4xi64> {mode = "linear", coordinate_transformation_mode = "tf_crop_and_resize", extrapolation_value = 7.0 : f32} : tensor<1x1x5x6xf32> -> tensor<1x1x4x4xf32>
  %s2 = nunc.constant dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>
  %s21 = nunc.constant dense<[1.0, 1.0, 2.1, 2.1]> : tensor<4xf32>
  %up2 = nunc.resize %x scales %s2 : tensor<4xf32> {mode = "linear", coordinate_transformation_mode = "asymmetric"} : tensor<1x1x5x6xf32> -> tensor<1x1x10x12xf32>
  %up21 = nunc.resize %x scales %s21 : tensor<4xf32> {mode = "linear", coordinate_transformation_mode = "asymmetric"} : tensor<1x1x5x6xf32> -> tensor<1x1x10x12xf32>
  return %crop_a, %crop_b, %up2, %up21 : tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>, tensor<1x1x10x12xf32>, tensor<1x1x10x12xf32>
}
