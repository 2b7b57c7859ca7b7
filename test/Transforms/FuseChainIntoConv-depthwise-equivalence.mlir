// RUN: nunc-opt %s --nunc-fuse-chain-into-conv -o %t.fused.mlir
// RUN: %python -c "import sys, numpy as np; r = np.random.default_rng(9); np.savez(sys.argv[1], x=r.uniform(-3, 3, (1, 8, 9, 70)).astype(np.float32))" %t.in.npz
// RUN: nunc run --reference %s --input %t.in.npz -o %t.ref.npz
// RUN: nunc run --reference %t.fused.mlir --input %t.in.npz -o %t.fused.npz
// RUN: nunc run %s --input %t.in.npz -o %t.jit.npz --one-step-requantization=false
// RUN: %python -c "import sys, numpy as np; a, b, c = (np.load(p) for p in sys.argv[1:]); [np.testing.assert_array_equal(b[k], a[k], err_msg=k) for k in a.files]; [np.testing.assert_array_equal(c[k], a[k], err_msg=k) for k in a.files]; assert len(np.unique(a['y'])) > 20 and len(np.unique(a['z'])) > 20" %t.ref.npz %t.fused.npz %t.jit.npz
// RUN: FileCheck %s --input-file %t.fused.mlir

// PP-LCNet's depthwise convs and the QDQ scale, shift and hard-swish after
// them (a grid after every op but the last): each chain becomes its
// depthwise conv's output_table at its first grid's codes, and the chain
// after the int8 conv before them that conv's (ending on a grid: its
// table_quantization). The same bits from the evaluator before and after,
// and from the compiled x86 kernels (`nunc run` compiles for the host; on
// AVX-512 the depthwise kernel looks the table up, on AVX-512 VNNI the
// int8 convs too): the first conv's table goes to the depthwise conv as
// the codes of its grid, y's chain on to an int8 conv as the codes of that
// conv's input grid (word lookups, 70 columns: rows of four vectors and a
// tail), z's (stride 2, 35 columns) stays f32 (the f32 lookup). (Compiled
// with --one-step-requantization=false: with it the int8 conv's codes
// before its table come as QLinearConv's, a code apart near ties; Codegen
// quantized-conv-one-step-table.mlir checks that form.)

// CHECK-LABEL: func.func @main(
// CHECK: nunc.quantized_conv {{.*}}output_table = array<f32: {{.*}}>, pads = {{.*}}table_quantization = !quant.uniform<u8:f32, 3.000000e-02:100>}
// CHECK: nunc.fused_conv {{.*}}output_quantization = !quant.uniform<u8:f32, 2.000000e-02:120>, output_table = array<f32:
// CHECK: nunc.fused_conv {{.*}}output_quantization = !quant.uniform<u8:f32, 2.000000e-02:120>, output_table = array<f32:
// CHECK-NOT: nunc.elementwise_chain
func.func @main(%x: tensor<1x8x9x70xf32> {nunc.name = "x"}) -> (tensor<1x4x9x70xf32> {nunc.name = "y"}, tensor<1x8x5x35xf32> {nunc.name = "z"}) {
  %w1 = nunc.constant dense<[[[[-0.4972, -0.3158, 0.3615], [0.0986, -0.4870, -0.0802], [-0.0251, -0.4083, 0.2815]]], [[[-0.4636, -0.1305, 0.0201], [-0.0832, 0.1042, 0.2854], [0.5475, -0.2590, 0.1783]]], [[[0.2355, -0.2487, -0.5982], [0.5682, -0.2419, -0.2232], [0.4701, 0.1022, -0.0344]]], [[[0.3279, -0.5636, 0.2484], [-0.1509, -0.4910, 0.1926], [0.5178, -0.3514, 0.1561]]], [[[-0.2422, 0.2901, 0.2666], [-0.3375, 0.3959, 0.1892], [0.2194, 0.3841, -0.0857]]], [[[0.3104, 0.4542, -0.4772], [0.4197, -0.1273, -0.0244], [-0.4244, 0.2381, -0.2496]]], [[[0.4454, -0.2696, 0.0742], [-0.1204, 0.1355, -0.3640], [-0.3837, 0.2962, 0.3027]]], [[[0.0804, 0.5053, -0.3531], [0.4211, -0.3972, 0.5572], [0.1484, 0.1283, 0.5647]]]]> : tensor<8x1x3x3xf32>
  %b1 = nunc.constant dense<[0.2591, -0.1537, -0.2118, -0.1321, -0.0962, -0.1649, 0.0218, 0.2622]> : tensor<8xf32>
  %w2 = nunc.constant dense<[[[[0.3444, 0.3479, -0.5351], [-0.1569, -0.4981, -0.3678], [-0.3434, 0.4304, -0.4479]]], [[[-0.2439, -0.0086, 0.4194], [0.5583, 0.2498, -0.3436], [0.0540, 0.2472, -0.5377]]], [[[0.2159, -0.1581, 0.1076], [0.2034, 0.2030, 0.0277], [0.0657, -0.3622, -0.0058]]], [[[-0.4495, -0.0231, 0.0435], [0.3289, -0.1276, -0.5765], [0.0333, -0.3537, 0.2895]]], [[[-0.1336, -0.1434, 0.4913], [-0.1284, -0.1814, -0.1824], [-0.0231, -0.4880, 0.0561]]], [[[0.5057, 0.0755, 0.2927], [0.5366, 0.4105, 0.2928], [0.3758, 0.3842, -0.2955]]], [[[-0.0216, -0.1887, -0.2859], [0.0859, -0.2185, 0.1424], [0.0989, -0.4747, -0.0691]]], [[[-0.1322, 0.2480, -0.4942], [-0.3973, 0.0151, -0.1145], [0.1984, -0.2006, -0.3633]]]]> : tensor<8x1x3x3xf32>
  %pw = nunc.constant dense<[[[[17]], [[-15]], [[11]], [[-4]], [[12]], [[6]], [[-18]], [[15]]], [[[17]], [[19]], [[-18]], [[-15]], [[5]], [[1]], [[-17]], [[15]]], [[[-11]], [[-18]], [[14]], [[3]], [[-19]], [[-14]], [[15]], [[10]]], [[[14]], [[17]], [[-8]], [[1]], [[-6]], [[-20]], [[-11]], [[-18]]]]> : tensor<4x8x1x1xi8>
  %qp = quant.scast %pw : tensor<4x8x1x1xi8> to tensor<4x8x1x1x!quant.uniform<i8:f32, 0.0625>>
  %ew = nunc.constant dense<[[[[26]], [[7]], [[11]], [[23]], [[4]], [[16]], [[20]], [[-17]]], [[[-27]], [[-12]], [[-13]], [[22]], [[24]], [[-30]], [[-1]], [[19]]], [[[-23]], [[17]], [[-23]], [[-2]], [[18]], [[-12]], [[-10]], [[-14]]], [[[13]], [[-15]], [[29]], [[-4]], [[-2]], [[0]], [[4]], [[3]]], [[[0]], [[29]], [[18]], [[17]], [[12]], [[7]], [[-10]], [[29]]], [[[-3]], [[-18]], [[20]], [[-21]], [[21]], [[6]], [[-24]], [[-28]]], [[[-4]], [[-28]], [[-22]], [[0]], [[28]], [[-3]], [[18]], [[25]]], [[[19]], [[7]], [[-4]], [[0]], [[-15]], [[-1]], [[-8]], [[-16]]]]> : tensor<8x8x1x1xi8>
  %qe = quant.scast %ew : tensor<8x8x1x1xi8> to tensor<8x8x1x1x!quant.uniform<i8:f32, 0.03125>>
  %e = nunc.quantized_conv %x, %qe {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.0235:128>, kernel_shape = array<i64: 1, 1>, output_quantization = !quant.uniform<u8:f32, 0.04:110>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x8x9x70xf32>, tensor<8x8x1x1x!quant.uniform<i8:f32, 0.03125>> -> tensor<1x8x9x70xf32>
  %ce = nunc.elementwise_chain %e {steps = [{args = array<i64: 0, -1>, constant = 1.5 : f32, grid = !quant.uniform<u8:f32, 0.035:140>, op = "mul"}, {args = array<i64: 1, -1>, constant = -0.25 : f32, grid = !quant.uniform<u8:f32, 0.03:100>, op = "add"}]} : (tensor<1x8x9x70xf32>) -> tensor<1x8x9x70xf32>
  %d1 = nunc.conv %ce, %w1, %b1 : tensor<8xf32> {dilations = array<i64: 1, 1>, group = 8 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x8x9x70xf32>, tensor<8x1x3x3xf32> -> tensor<1x8x9x70xf32>
  %c1 = nunc.elementwise_chain %d1 {steps = [{args = array<i64: 0>, grid = !quant.uniform<u8:f32, 0.02:120>, op = "fake_quantize"}, {args = array<i64: 1, -1>, constant = 1.25 : f32, grid = !quant.uniform<u8:f32, 0.025:125>, op = "mul"}, {args = array<i64: 2, -1>, constant = -0.5 : f32, grid = !quant.uniform<u8:f32, 0.03:130>, op = "add"}, {args = array<i64: 3, -1>, constant = 3.0 : f32, grid = !quant.uniform<u8:f32, 0.0235294:0>, op = "add"}, {args = array<i64: 4>, max = 6.0 : f32, min = 0.0 : f32, op = "clip"}, {args = array<i64: 3, 5>, grid = !quant.uniform<u8:f32, 0.1:60>, op = "mul"}, {args = array<i64: 6, -1>, constant = 6.0 : f32, op = "div"}]} : (tensor<1x8x9x70xf32>) -> tensor<1x8x9x70xf32>
  %y = nunc.quantized_conv %c1, %qp {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.0123:17>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x8x9x70xf32>, tensor<4x8x1x1x!quant.uniform<i8:f32, 0.0625>> -> tensor<1x4x9x70xf32>
  %d2 = nunc.conv %x, %w2 {dilations = array<i64: 1, 1>, group = 8 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : tensor<1x8x9x70xf32>, tensor<8x1x3x3xf32> -> tensor<1x8x5x35xf32>
  %z = nunc.elementwise_chain %d2 {steps = [{args = array<i64: 0>, grid = !quant.uniform<u8:f32, 0.02:120>, op = "fake_quantize"}, {args = array<i64: 1, -1>, constant = 1.25 : f32, grid = !quant.uniform<u8:f32, 0.025:125>, op = "mul"}, {args = array<i64: 2, -1>, constant = -0.5 : f32, grid = !quant.uniform<u8:f32, 0.03:130>, op = "add"}, {args = array<i64: 3, -1>, constant = 3.0 : f32, grid = !quant.uniform<u8:f32, 0.0235294:0>, op = "add"}, {args = array<i64: 4>, max = 6.0 : f32, min = 0.0 : f32, op = "clip"}, {args = array<i64: 3, 5>, grid = !quant.uniform<u8:f32, 0.1:60>, op = "mul"}, {args = array<i64: 6, -1>, constant = 6.0 : f32, op = "div"}]} : (tensor<1x8x5x35xf32>) -> tensor<1x8x5x35xf32>
  return %y, %z : tensor<1x4x9x70xf32>, tensor<1x8x5x35xf32>
}
