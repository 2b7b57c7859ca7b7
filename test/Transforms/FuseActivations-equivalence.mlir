// The exported forms of MobileNetV3's and PP-LCNet's blocks (and SiLU) compute the
// same after nunc-fuse-activations, nunc-fold-batch-norm, nunc-fuse-conv
// and nunc-fuse-linear (reference evaluator, to a few ulp: the fused hard
// sigmoid rounds x / 6 + 1/2 where the export rounds x + 3 and / 6), and
// the compiled x86 epilogues compute what the evaluator does.
// RUN: nunc-opt %s --nunc-fuse-activations --nunc-fold-batch-norm --nunc-fuse-conv --nunc-fuse-linear -o %t.fused.mlir
// RUN: FileCheck %s --input-file %t.fused.mlir
// RUN: %python -c "import sys, numpy as np; r = np.random.default_rng(5); np.savez(sys.argv[1], x=r.uniform(-4, 4, (1, 4, 5, 5)).astype(np.float32), v=r.uniform(-4, 4, (6, 8)).astype(np.float32))" %t.in.npz
// RUN: nunc run --reference %s --input %t.in.npz -o %t.ref.npz
// RUN: nunc run --reference %t.fused.mlir --input %t.in.npz -o %t.fused.npz
// RUN: nunc run %t.fused.mlir --input %t.in.npz -o %t.jit.npz
// RUN: %python -c "import sys, numpy as np; a, b, c = (np.load(p) for p in sys.argv[1:]); [np.testing.assert_allclose(b[k], a[k], rtol=1e-5, atol=2e-6, err_msg=k) for k in 'yzw']; [np.testing.assert_allclose(c[k], b[k], rtol=1e-5, atol=2e-6, err_msg=k) for k in 'yzw']; assert 0 < (a['y'] == 0).mean() < 0.9 and (a['y'] == 1).mean() > 0, 'both bounds of the hard sigmoid'; assert (a['z'] < 0).any() and (a['z'] > 0).any()" %t.ref.npz %t.fused.npz %t.jit.npz

// CHECK-LABEL: func.func @main
// CHECK: nunc.fused_conv %arg0, %{{.*}} bias %{{.*}} : tensor<8xf32> {activation = "hard_swish", activation_alpha = 0.166666672 : f32, activation_beta = 5.000000e-01 : f32, activation_post_add = 3.400000e-05 : f32, activation_post_mul = 1.700000e-01 : f32,
// CHECK: nunc.fused_conv %{{.*}} {activation = "hard_sigmoid", activation_alpha = 2.000000e+00 : f32, activation_beta = 5.000000e-01 : f32, dilations
// CHECK: nunc.linear %arg1, %{{.*}} bias %{{.*}} : tensor<5xf32> {activation = "hard_swish", activation_alpha = 0.166666672 : f32, activation_beta = 5.000000e-01 : f32, activation_post_mul = 5.000000e-01 : f32}
// CHECK: nunc.linear %arg1, %{{.*}} bias %{{.*}} : tensor<5xf32> {activation = "silu"}
// CHECK-NOT: nunc.{{(add|mul|div|clip|sigmoid|hard_sigmoid|hard_swish|silu)}}
func.func @main(%x: tensor<1x4x5x5xf32> {nunc.name = "x"}, %v: tensor<6x8xf32> {nunc.name = "v"}) -> (tensor<1x8x5x5xf32> {nunc.name = "y"}, tensor<6x5xf32> {nunc.name = "z"}, tensor<6x5xf32> {nunc.name = "w"}) {
  %w1 = nunc.constant dense<[[[[-0.8289999961853027]], [[-0.5260000228881836]], [[0.6029999852180481]], [[0.164000004529953]]], [[[-0.8119999766349792]], [[-0.1340000033378601]], [[-0.041999999433755875]], [[-0.6809999942779541]]], [[[0.4690000116825104]], [[-0.7730000019073486]], [[-0.21799999475479126]], [[0.032999999821186066]]], [[[-0.13899999856948853]], [[0.17399999499320984]], [[0.47600001096725464]], [[0.9129999876022339]]], [[[-0.4320000112056732]], [[0.296999990940094]], [[0.3919999897480011]], [[-0.41499999165534973]]], [[[-0.996999979019165]], [[0.9470000267028809]], [[-0.40299999713897705]], [[-0.3720000088214874]]], [[[0.7829999923706055]], [[0.17000000178813934]], [[-0.05700000002980232]], [[0.546999990940094]]], [[[-0.9390000104904175]], [[0.414000004529953]], [[-0.25200000405311584]], [[-0.8180000185966492]]]]> : tensor<8x4x1x1xf32>
  %b1 = nunc.constant dense<[0.16099999845027924, 0.4309999942779541, -0.2930000126361847, 0.12999999523162842, -0.20200000703334808, 0.24199999868869781, 0.22200000286102295, -0.2809999883174896]> : tensor<8xf32>
  %w2 = nunc.constant dense<[[[[0.6600000262260437, 0.3149999976158142, 0.3659999966621399], [0.6399999856948853, -0.14300000667572021, 0.5170000195503235], [0.7570000290870667, -0.7950000166893005, 0.699999988079071]]], [[[-0.21199999749660492, -0.04100000113248825, -0.7070000171661377], [0.3970000147819519, -0.41600000858306885, 0.7419999837875366], [-0.4490000009536743, 0.12399999797344208, -0.20100000500679016]]], [[[0.22599999606609344, -0.6069999933242798, -0.6389999985694885], [0.49399998784065247, 0.5040000081062317, 0.1340000033378601], [0.8420000076293945, -0.5879999995231628, 0.7020000219345093]]], [[[-0.6620000004768372, 0.9290000200271606, 0.24699999392032623], [0.21400000154972076, 0.9409999847412109, 0.5740000009536743], [0.5799999833106995, -0.8920000195503235, -0.26100000739097595]]], [[[-0.8299999833106995, -0.6129999756813049, -0.5720000267028809], [0.7170000076293945, -0.7459999918937683, -0.4059999883174896], [-0.014000000432133675, 0.6990000009536743, 0.9300000071525574]]], [[[0.41600000858306885, -0.5730000138282776, 0.09000000357627869], [0.41200000047683716, -0.8960000276565552, 0.36000001430511475], [-0.2630000114440918, 0.17900000512599945, 0.33899998664855957]]], [[[0.33799999952316284, 0.04600000008940697, 0.10899999737739563], [-0.6039999723434448, -0.009999999776482582, -0.7490000128746033], [-0.039000000804662704, 0.07199999690055847, 0.5479999780654907]]], [[[-0.21299999952316284, -0.9610000252723694, 0.054999999701976776], [-0.5899999737739563, 0.4830000102519989, -0.22300000488758087], [-0.23899999260902405, 0.8190000057220459, -0.21400000154972076]]]]> : tensor<8x1x3x3xf32>
  %b2 = nunc.constant dense<[-0.1509999930858612, -0.15199999511241913, -0.01899999938905239, -0.40700000524520874, 0.04699999839067459, 0.42100000381469727, 0.06300000101327896, 0.24400000274181366]> : tensor<8xf32>
  %wl = nunc.constant dense<[[0.8939999938011169, 0.6840000152587891, 0.4880000054836273, 0.6259999871253967, 0.6399999856948853], [-0.492000013589859, -0.035999998450279236, -0.3149999976158142, -0.47699999809265137, 0.14300000667572021], [-0.36399999260902405, 0.2370000034570694, 0.16500000655651093, -0.7910000085830688, -0.11500000208616257], [-0.2199999988079071, 0.4129999876022339, -0.8240000009536743, -0.6620000004768372, 0.02500000037252903], [-0.19099999964237213, 0.3310000002384186, -0.33399999141693115, -0.6060000061988831, 0.8640000224113464], [-0.5120000243186951, -0.7059999704360962, -0.4399999976158142, -0.32100000977516174, -0.550000011920929], [0.0729999989271164, 0.8740000128746033, -0.7480000257492065, -0.17000000178813934, 0.335999995470047], [0.7689999938011169, 1.0, -0.7129999995231628, 0.07500000298023224, 0.7620000243186951]]> : tensor<8x5xf32>
  %bl = nunc.constant dense<[-0.44699999690055847, 0.08799999952316284, -0.32600000500679016, 0.2680000066757202, 0.43799999356269836]> : tensor<5xf32>
  %scale = nunc.constant dense<1.38> : tensor<1xf32>
  %shift = nunc.constant dense<0.58> : tensor<1xf32>
  %three = nunc.constant dense<3.0> : tensor<1xf32>
  %six = nunc.constant dense<6.0> : tensor<1xf32>
  %zero = nunc.constant dense<0.0> : tensor<f32>
  %one = nunc.constant dense<1.0> : tensor<f32>
  %six0 = nunc.constant dense<6.0> : tensor<f32>
  %lab_scale = nunc.constant dense<0.17> : tensor<1xf32>
  %lab_shift = nunc.constant dense<3.4e-05> : tensor<1xf32>
  %a = nunc.constant dense<2.0> : tensor<f32>
  %half = nunc.constant dense<0.5> : tensor<f32>
  %sixth = nunc.constant dense<0.166666672> : tensor<f32>
  %0 = nunc.conv %x, %w1, %b1 : tensor<8xf32> {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x4x5x5xf32>, tensor<8x4x1x1xf32> -> tensor<1x8x5x5xf32>
  %1 = nunc.mul %scale, %0 : (tensor<1xf32>, tensor<1x8x5x5xf32>) -> tensor<1x8x5x5xf32>
  %2 = nunc.add %1, %shift : (tensor<1x8x5x5xf32>, tensor<1xf32>) -> tensor<1x8x5x5xf32>
  %3 = nunc.add %2, %three : (tensor<1x8x5x5xf32>, tensor<1xf32>) -> tensor<1x8x5x5xf32>
  %4 = nunc.clip %3 min %zero : tensor<f32> max %six0 : tensor<f32> : tensor<1x8x5x5xf32> -> tensor<1x8x5x5xf32>
  %5 = nunc.mul %2, %4 : (tensor<1x8x5x5xf32>, tensor<1x8x5x5xf32>) -> tensor<1x8x5x5xf32>
  %6 = nunc.div %5, %six : (tensor<1x8x5x5xf32>, tensor<1xf32>) -> tensor<1x8x5x5xf32>
  %7 = nunc.mul %lab_scale, %6 : (tensor<1xf32>, tensor<1x8x5x5xf32>) -> tensor<1x8x5x5xf32>
  %8 = nunc.add %7, %lab_shift : (tensor<1x8x5x5xf32>, tensor<1xf32>) -> tensor<1x8x5x5xf32>
  %9 = nunc.conv %8, %w2, %b2 : tensor<8xf32> {dilations = array<i64: 1, 1>, group = 8 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x8x5x5xf32>, tensor<8x1x3x3xf32> -> tensor<1x8x5x5xf32>
  %10 = nunc.mul %9, %a : (tensor<1x8x5x5xf32>, tensor<f32>) -> tensor<1x8x5x5xf32>
  %11 = nunc.add %10, %half : (tensor<1x8x5x5xf32>, tensor<f32>) -> tensor<1x8x5x5xf32>
  %12 = nunc.clip %11 min %zero : tensor<f32> max %one : tensor<f32> : tensor<1x8x5x5xf32> -> tensor<1x8x5x5xf32>
  %13 = nunc.matmul %v, %wl : (tensor<6x8xf32>, tensor<8x5xf32>) -> tensor<6x5xf32>
  %14 = nunc.add %13, %bl : (tensor<6x5xf32>, tensor<5xf32>) -> tensor<6x5xf32>
  %15 = nunc.mul %14, %sixth : (tensor<6x5xf32>, tensor<f32>) -> tensor<6x5xf32>
  %16 = nunc.add %15, %half : (tensor<6x5xf32>, tensor<f32>) -> tensor<6x5xf32>
  %17 = nunc.clip %16 min %zero : tensor<f32> max %one : tensor<f32> : tensor<6x5xf32> -> tensor<6x5xf32>
  %18 = nunc.mul %14, %17 : (tensor<6x5xf32>, tensor<6x5xf32>) -> tensor<6x5xf32>
  %19 = nunc.mul %18, %half : (tensor<6x5xf32>, tensor<f32>) -> tensor<6x5xf32>
  %20 = nunc.matmul %v, %wl : (tensor<6x8xf32>, tensor<8x5xf32>) -> tensor<6x5xf32>
  %21 = nunc.add %bl, %20 : (tensor<5xf32>, tensor<6x5xf32>) -> tensor<6x5xf32>
  %22 = nunc.sigmoid %21 : tensor<6x5xf32> -> tensor<6x5xf32>
  %23 = nunc.mul %21, %22 : (tensor<6x5xf32>, tensor<6x5xf32>) -> tensor<6x5xf32>
  return %12, %19, %23 : tensor<1x8x5x5xf32>, tensor<6x5xf32>, tensor<6x5xf32>
}
