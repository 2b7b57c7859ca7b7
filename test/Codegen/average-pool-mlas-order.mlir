// average_pool with ordered_f32_arithmetic: onnxruntime's MLAS f32
// AveragePool (a QDQ s8 model's pool whose pairs onnxruntime converts to
// u8 on one side only, so it runs the f32 op). %a: 3x2 windows of stride
// 3x2 and %b: padded 3x3 of stride 2x1, both column sums first; %c: stride
// 3 along W, window order; values of many magnitudes, so the order moves
// the sums' roundings. The generic kernel equals the reference evaluator,
// and both the arithmetic as Inputs/mlas_average_pool.py writes it.
// RUN: nunc run --reference %s --random-inputs --seed 4 -o %t.ref.npz
// RUN: nunc run %s --random-inputs --seed 4 -o %t.jit.npz --explain 2>&1 | FileCheck %s
// RUN: %python %S/Inputs/mlas_average_pool.py %t.ref.npz %t.jit.npz

// CHECK-COUNT-3: generic  nunc.average_pool

func.func @main(%x: tensor<2x5x9x11xf32> {nunc.name = "x"}) -> (tensor<2x5x3x5xf32> {nunc.name = "a"}, tensor<2x5x5x11xf32> {nunc.name = "b"}, tensor<2x5x8x3xf32> {nunc.name = "c"}, tensor<2x5x9x11xf32> {nunc.name = "v"}) {
  %big = nunc.constant dense<1000.0> : tensor<f32>
  %sq = nunc.mul %x, %x : (tensor<2x5x9x11xf32>, tensor<2x5x9x11xf32>) -> tensor<2x5x9x11xf32>
  %cube = nunc.mul %sq, %x : (tensor<2x5x9x11xf32>, tensor<2x5x9x11xf32>) -> tensor<2x5x9x11xf32>
  %wide = nunc.mul %cube, %big : (tensor<2x5x9x11xf32>, tensor<f32>) -> tensor<2x5x9x11xf32>
  %v = nunc.add %wide, %x : (tensor<2x5x9x11xf32>, tensor<2x5x9x11xf32>) -> tensor<2x5x9x11xf32>
  %a = nunc.average_pool %v {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 2>, ordered_f32_arithmetic, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 3, 2>} : tensor<2x5x9x11xf32> -> tensor<2x5x3x5xf32>
  %b = nunc.average_pool %v {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, ordered_f32_arithmetic, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 1>} : tensor<2x5x9x11xf32> -> tensor<2x5x5x11xf32>
  %c = nunc.average_pool %v {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 3>, ordered_f32_arithmetic, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 3>} : tensor<2x5x9x11xf32> -> tensor<2x5x8x3xf32>
  return %a, %b, %c, %v : tensor<2x5x3x5xf32>, tensor<2x5x5x11xf32>, tensor<2x5x8x3xf32>, tensor<2x5x9x11xf32>
}
