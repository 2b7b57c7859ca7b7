// `nunc run` on hand-written IR: arguments and results without nunc.name are
// arg<i> and result<i>, evaluated and compiled alike; a module without
// func.func @main is an error (exit 1), not a crash.
// RUN: nunc run --reference %s --random-inputs --seed 1 -o %t.ref.npz
// RUN: nunc run %s --random-inputs --seed 1 -o %t.jit.npz
// RUN: %python -c "import sys, numpy as np; a, b = (np.load(p) for p in sys.argv[1:]); assert a.files == ['result0'] == b.files, a.files; np.testing.assert_array_equal(a['result0'], b['result0']); assert a['result0'].shape == (2, 3)" %t.ref.npz %t.jit.npz
// RUN: sed 's/@main/@other/' %s > %t.other.mlir
// RUN: not nunc run --reference %t.other.mlir --random-inputs -o %t.none.npz 2>&1 | FileCheck %s
// CHECK: nunc run: error: the module has no func.func @main (the graph to run)

func.func @main(%x: tensor<6xf32>) -> tensor<2x3xf32> {
  %shape = nunc.constant dense<[2, 3]> : tensor<2xi64>
  %r = nunc.reshape %x, %shape : (tensor<6xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  %y = nunc.relu %r : tensor<2x3xf32> -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}
