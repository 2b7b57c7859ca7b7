// RUN: nunc-opt %s -split-input-file --nunc-split-batch | FileCheck %s

// A CNN at batch 4: conv, pool, flatten, classifier. Every type becomes one
// image's; the reshape's literal leading dim 4 becomes 1, its -1 stays.
// CHECK-LABEL: func.func @cnn(
// CHECK-SAME: %[[X:.*]]: tensor<1x3x8x8xf32>) -> tensor<1x10xf32>
// CHECK-SAME: nunc.batch_split = 4 : i64
// CHECK: %[[C:.*]] = nunc.conv %[[X]], %{{.*}} {{.*}} : tensor<1x3x8x8xf32>, tensor<6x3x3x3xf32> -> tensor<1x6x6x6xf32>
// CHECK: %[[R:.*]] = nunc.relu %[[C]] : tensor<1x6x6x6xf32> -> tensor<1x6x6x6xf32>
// CHECK: %[[A:.*]] = nunc.add %[[R]], %{{.*}} : (tensor<1x6x6x6xf32>, tensor<6x1x1xf32>) -> tensor<1x6x6x6xf32>
// CHECK: %[[P:.*]] = nunc.global_average_pool %[[A]] : tensor<1x6x6x6xf32> -> tensor<1x6x1x1xf32>
// CHECK: %[[S:.*]] = nunc.constant dense<[1, -1]> : tensor<2xi64>
// CHECK: %[[F:.*]] = nunc.reshape %[[P]], %[[S]] : (tensor<1x6x1x1xf32>, tensor<2xi64>) -> tensor<1x6xf32>
// CHECK: %[[Y:.*]] = nunc.linear %[[F]], %{{.*}} : tensor<1x6xf32>, tensor<6x10xf32> -> tensor<1x10xf32>
// CHECK: return %[[Y]] : tensor<1x10xf32>
func.func @cnn(%x: tensor<4x3x8x8xf32>) -> tensor<4x10xf32> {
  %w = nunc.constant dense<0.5> : tensor<6x3x3x3xf32>
  %c = nunc.constant dense<0.25> : tensor<6x1x1xf32>
  %s = nunc.constant dense<[4, -1]> : tensor<2xi64>
  %fc = nunc.constant dense<0.125> : tensor<6x10xf32>
  %0 = nunc.conv %x, %w {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<4x3x8x8xf32>, tensor<6x3x3x3xf32> -> tensor<4x6x6x6xf32>
  %1 = nunc.relu %0 : tensor<4x6x6x6xf32> -> tensor<4x6x6x6xf32>
  %2 = nunc.add %1, %c : (tensor<4x6x6x6xf32>, tensor<6x1x1xf32>) -> tensor<4x6x6x6xf32>
  %3 = nunc.global_average_pool %2 : tensor<4x6x6x6xf32> -> tensor<4x6x1x1xf32>
  %4 = nunc.reshape %3, %s : (tensor<4x6x1x1xf32>, tensor<2xi64>) -> tensor<4x6xf32>
  %5 = nunc.linear %4, %fc : tensor<4x6xf32>, tensor<6x10xf32> -> tensor<4x10xf32>
  return %5 : tensor<4x10xf32>
}

// -----

// An encoder's pieces at batch 2: embedding lookup, the batch merged into
// the rows ([2, 8, 16] -> [16, 16]) for a linear and split back, layer norm
// and softmax over the last axis, attention with a per-image mask, a
// position table broadcast over the batch.
// CHECK-LABEL: func.func @encoder(
// CHECK-SAME: %[[IDS:.*]]: tensor<1x8xi64>, %[[MASK:.*]]: tensor<1x1x1x8xf32>) -> tensor<1x8x16xf32>
// CHECK-SAME: nunc.batch_split = 2 : i64
// CHECK: nunc.gather %{{.*}}, %[[IDS]] : (tensor<100x16xf32>, tensor<1x8xi64>) -> tensor<1x8x16xf32>
// CHECK: nunc.add %{{.*}}, %{{.*}} : (tensor<1x8x16xf32>, tensor<1x8x16xf32>) -> tensor<1x8x16xf32>
// CHECK: %[[S1:.*]] = nunc.constant dense<[8, 16]> : tensor<2xi64>
// CHECK: nunc.reshape %{{.*}}, %[[S1]] : (tensor<1x8x16xf32>, tensor<2xi64>) -> tensor<8x16xf32>
// CHECK: nunc.linear {{.*}} : tensor<8x16xf32>, tensor<16x16xf32> -> tensor<8x16xf32>
// CHECK: %[[S2:.*]] = nunc.constant dense<[1, 8, 16]> : tensor<3xi64>
// CHECK: nunc.reshape %{{.*}}, %[[S2]] : (tensor<8x16xf32>, tensor<3xi64>) -> tensor<1x8x16xf32>
// CHECK: nunc.layer_norm {{.*}} : tensor<1x8x16xf32>, tensor<16xf32> -> tensor<1x8x16xf32>, tensor<1x8x1xf32>, tensor<1x8x1xf32>
// CHECK: nunc.attention {{.*}} mask %[[MASK]] : tensor<1x1x1x8xf32> {{.*}} -> tensor<1x8x16xf32>
// CHECK: nunc.softmax {{.*}} : tensor<1x8x16xf32> -> tensor<1x8x16xf32>
func.func @encoder(%ids: tensor<2x8xi64>, %mask: tensor<2x1x1x8xf32>) -> tensor<2x8x16xf32> {
  %table = nunc.constant dense<0.5> : tensor<100x16xf32>
  %pos = nunc.constant dense<0.25> : tensor<1x8x16xf32>
  %rows = nunc.constant dense<[16, 16]> : tensor<2xi64>
  %back = nunc.constant dense<[2, 8, 16]> : tensor<3xi64>
  %w = nunc.constant dense<0.125> : tensor<16x16xf32>
  %g = nunc.constant dense<1.0> : tensor<16xf32>
  %0 = nunc.gather %table, %ids : (tensor<100x16xf32>, tensor<2x8xi64>) -> tensor<2x8x16xf32>
  %1 = nunc.add %0, %pos : (tensor<2x8x16xf32>, tensor<1x8x16xf32>) -> tensor<2x8x16xf32>
  %2 = nunc.reshape %1, %rows : (tensor<2x8x16xf32>, tensor<2xi64>) -> tensor<16x16xf32>
  %3 = nunc.linear %2, %w : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  %4 = nunc.reshape %3, %back : (tensor<16x16xf32>, tensor<3xi64>) -> tensor<2x8x16xf32>
  %5, %m, %r = nunc.layer_norm %4, %g {axis = 2 : i64} : tensor<2x8x16xf32>, tensor<16xf32> -> tensor<2x8x16xf32>, tensor<2x8x1xf32>, tensor<2x8x1xf32>
  %6 = nunc.attention %5, %5, %5 mask %mask : tensor<2x1x1x8xf32> {num_heads = 2 : i64, scale = 0.5 : f32} : tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32> -> tensor<2x8x16xf32>
  %7 = nunc.softmax %6 : tensor<2x8x16xf32> -> tensor<2x8x16xf32>
  return %7 : tensor<2x8x16xf32>
}

// -----

// Batch 1: nothing to split, nothing said.
// CHECK-LABEL: func.func @one(
// CHECK-SAME: tensor<1x4xf32>) -> tensor<1x4xf32> {
func.func @one(%x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %0 = nunc.relu %x : tensor<1x4xf32> -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}

// -----

// A softmax across the batch mixes images: unchanged, and the reason given.
// CHECK-LABEL: func.func @softmax_over_batch(
// CHECK-SAME: %{{.*}}: tensor<3x4xf32>) -> tensor<3x4xf32>
// CHECK-SAME: nunc.batch_split_blocked = "nunc.softmax at {{.*}}: the softmax axis is the batch dim"
// CHECK-NOT: nunc.batch_split =
func.func @softmax_over_batch(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %0 = nunc.relu %x : tensor<3x4xf32> -> tensor<3x4xf32>
  %1 = nunc.softmax %0 {axis = 0 : i64} : tensor<3x4xf32> -> tensor<3x4xf32>
  return %1 : tensor<3x4xf32>
}

// -----

// A constant that differs per image (leading dim 3, not 1) cannot follow.
// CHECK-LABEL: func.func @per_image_constant(
// CHECK-SAME: nunc.batch_split_blocked = "nunc.add at {{.*}}: an operand broadcasts along the batch dim"
func.func @per_image_constant(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %c = nunc.constant dense<[[1.0], [2.0], [3.0]]> : tensor<3x1xf32>
  %0 = nunc.add %x, %c : (tensor<3x4xf32>, tensor<3x1xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// Moving the batch dim (transpose), concatenating along it, a vector times
// a matrix (rank-1 input: its leading dim is K, not the batch), a range
// over the whole batch (dynamic_per_tensor, as onnxruntime's
// quantize_dynamic models compute it), an output made of constants: each
// blocks the split.
// CHECK-LABEL: func.func @transpose_batch(
// CHECK-SAME: nunc.batch_split_blocked = "nunc.transpose at {{.*}}: it moves the batch dim"
func.func @transpose_batch(%x: tensor<2x4xf32>) -> tensor<4x2xf32> {
  %0 = nunc.transpose %x {perm = array<i64: 1, 0>} : tensor<2x4xf32> -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}

// CHECK-LABEL: func.func @concat_batch(
// CHECK-SAME: nunc.batch_split_blocked = "nunc.concat at {{.*}}: an operand's leading dim is not the batch"
func.func @concat_batch(%x: tensor<2x4xf32>) -> tensor<4x4xf32> {
  %0 = nunc.concat %x, %x {axis = 0 : i64} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// CHECK-LABEL: func.func @vector_matrix(
// CHECK-SAME: nunc.batch_split_blocked = "nunc.matmul at {{.*}}: the first operand is not a batch of rows"
func.func @vector_matrix(%x: tensor<2x4xf32>) -> tensor<2xf32> {
  %s = nunc.constant dense<[8]> : tensor<1xi64>
  %0 = nunc.reshape %x, %s : (tensor<2x4xf32>, tensor<1xi64>) -> tensor<8xf32>
  %1 = nunc.constant dense<1.0> : tensor<8x2xf32>
  %2 = nunc.matmul %0, %1 : (tensor<8xf32>, tensor<8x2xf32>) -> tensor<2xf32>
  return %2 : tensor<2xf32>
}

// CHECK-LABEL: func.func @range_over_batch(
// CHECK-SAME: nunc.batch_split_blocked = "nunc.quantized_linear at {{.*}}: its input range is taken over the whole batch at run time"
func.func @range_over_batch(%x: tensor<2x8xf32>) -> tensor<2x4xf32> {
  %i = nunc.constant dense<3> : tensor<8x4xi8>
  %w = quant.scast %i : tensor<8x4xi8> to tensor<8x4x!quant.uniform<i8:f32, 0.03>>
  %0 = nunc.quantized_linear %x, %w {activation_quantization = "dynamic_per_tensor"} : tensor<2x8xf32>, tensor<8x4x!quant.uniform<i8:f32, 0.03>> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// CHECK-LABEL: func.func @constant_output(
// CHECK-SAME: nunc.batch_split_blocked = "an output does not depend on the inputs"
func.func @constant_output(%x: tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  %c = nunc.constant dense<1.0> : tensor<2x4xf32>
  %0 = nunc.relu %x : tensor<2x4xf32> -> tensor<2x4xf32>
  return %0, %c : tensor<2x4xf32>, tensor<2x4xf32>
}

// -----

// Inputs with different leading dims have no common batch.
// CHECK-LABEL: func.func @two_batches(
// CHECK-SAME: nunc.batch_split_blocked = "the inputs' leading dims differ"
func.func @two_batches(%x: tensor<2x4xf32>, %y: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %0 = nunc.relu %x : tensor<2x4xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// An MLP at batch 4: one row per item, so item by item every weight would be
// read four times for a few bytes of activations. It runs whole.
// CHECK-LABEL: func.func @few_rows(
// CHECK-SAME: %{{.*}}: tensor<4x64xf32>) -> tensor<4x64xf32>
// CHECK-SAME: nunc.batch_split_blocked = "ops with fewer than 16 rows per item would read 32768 B of weights once per item, against 2048 B of activations for the whole batch"
func.func @few_rows(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %w1 = nunc.constant dense<0.5> : tensor<64x64xf32>
  %w2 = nunc.constant dense<0.25> : tensor<64x64xf32>
  %0 = nunc.linear %x, %w1 : tensor<4x64xf32>, tensor<64x64xf32> -> tensor<4x64xf32>
  %1 = nunc.linear %0, %w2 : tensor<4x64xf32>, tensor<64x64xf32> -> tensor<4x64xf32>
  return %1 : tensor<4x64xf32>
}

// -----

// Reductions: over a later axis the batch splits; over the batch dim, or
// over every axis (no axes), it does not. A Squeeze without axes would drop
// one item's leading dim of 1 too.
// CHECK-LABEL: func.func @reduce_rows(
// CHECK-SAME: %{{.*}}: tensor<1x4x8xf32>) -> tensor<1x4xf32>
// CHECK-SAME: nunc.batch_split = 2
// CHECK: nunc.reduce_mean {{.*}} : tensor<1x4x8xf32> -> tensor<1x4xf32>
func.func @reduce_rows(%x: tensor<2x4x8xf32>) -> tensor<2x4xf32> {
  %ax = nunc.constant dense<[-1]> : tensor<1xi64>
  %0 = nunc.reduce_mean %x axes %ax : tensor<1xi64> {keepdims = 0 : i64} : tensor<2x4x8xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// CHECK-LABEL: func.func @reduce_batch(
// CHECK-SAME: nunc.batch_split_blocked = "nunc.reduce_sum at {{.*}}: the reduced axes include the batch dim"
func.func @reduce_batch(%x: tensor<2x4x8xf32>) -> tensor<4x8xf32> {
  %ax = nunc.constant dense<[0]> : tensor<1xi64>
  %0 = nunc.reduce_sum %x axes %ax : tensor<1xi64> {keepdims = 0 : i64} : tensor<2x4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @reduce_all(
// CHECK-SAME: nunc.batch_split_blocked = "nunc.reduce_sum at {{.*}}: a result's leading dim is not a multiple of the batch"
func.func @reduce_all(%x: tensor<2x4xf32>) -> tensor<1x1xf32> {
  %0 = nunc.reduce_sum %x : tensor<2x4xf32> -> tensor<1x1xf32>
  %1 = nunc.relu %0 : tensor<1x1xf32> -> tensor<1x1xf32>
  return %1 : tensor<1x1xf32>
}

// CHECK-LABEL: func.func @squeeze_all(
// CHECK-SAME: nunc.batch_split_blocked = "nunc.squeeze at {{.*}}: it squeezes every dim of size 1, without axes"
func.func @squeeze_all(%x: tensor<2x3x1x1xf32>) -> tensor<2x3xf32> {
  %0 = nunc.squeeze %x : tensor<2x3x1x1xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// More item-wise ops: an expand along a later dim (its shape's leading
// entry becomes 1: the input supplies it), a slice of a later axis, a
// flatten from axis 1, a gather of batched data along a later axis, an
// unsqueeze after the leading dim, a where with a scalar.
// CHECK-LABEL: func.func @more_ops(
// CHECK-SAME: %[[X:.*]]: tensor<1x3x1xf32>) -> tensor<1x1x2x4xf32>
// CHECK-SAME: nunc.batch_split = 2
// CHECK: %[[ES:.*]] = nunc.constant dense<[1, 3, 4]> : tensor<3xi64>
// CHECK: nunc.expand %[[X]], %[[ES]] : (tensor<1x3x1xf32>, tensor<3xi64>) -> tensor<1x3x4xf32>
// CHECK: nunc.slice {{.*}} : tensor<1x3x4xf32> -> tensor<1x2x4xf32>
// CHECK: nunc.flatten {{.*}} : tensor<1x2x4xf32> -> tensor<1x8xf32>
// CHECK: nunc.gather {{.*}} {axis = 1 : i64} : (tensor<1x8xf32>, tensor<2x4xi64>) -> tensor<1x2x4xf32>
// CHECK: nunc.unsqueeze {{.*}} : (tensor<1x2x4xf32>, tensor<1xi64>) -> tensor<1x1x2x4xf32>
// CHECK: nunc.where {{.*}} : (tensor<1x1x2x4xi1>, tensor<1x1x2x4xf32>, tensor<f32>) -> tensor<1x1x2x4xf32>
func.func @more_ops(%x: tensor<2x3x1xf32>) -> tensor<2x1x2x4xf32> {
  %es = nunc.constant dense<[2, 3, 4]> : tensor<3xi64>
  %st = nunc.constant dense<[1]> : tensor<1xi64>
  %en = nunc.constant dense<[3]> : tensor<1xi64>
  %ax = nunc.constant dense<[1]> : tensor<1xi64>
  %ids = nunc.constant dense<[[0, 1, 2, 3], [4, 5, 6, 7]]> : tensor<2x4xi64>
  %u = nunc.constant dense<[1]> : tensor<1xi64>
  %zero = nunc.constant dense<0.0> : tensor<f32>
  %0 = nunc.expand %x, %es : (tensor<2x3x1xf32>, tensor<3xi64>) -> tensor<2x3x4xf32>
  %1 = nunc.slice %0[%st : tensor<1xi64>, %en : tensor<1xi64> axes %ax : tensor<1xi64>] : tensor<2x3x4xf32> -> tensor<2x2x4xf32>
  %2 = nunc.flatten %1 {axis = 1 : i64} : tensor<2x2x4xf32> -> tensor<2x8xf32>
  %3 = nunc.gather %2, %ids {axis = 1 : i64} : (tensor<2x8xf32>, tensor<2x4xi64>) -> tensor<2x2x4xf32>
  %4 = nunc.unsqueeze %3, %u : (tensor<2x2x4xf32>, tensor<1xi64>) -> tensor<2x1x2x4xf32>
  %c = nunc.equal %4, %4 : (tensor<2x1x2x4xf32>, tensor<2x1x2x4xf32>) -> tensor<2x1x2x4xi1>
  %5 = nunc.where %c, %4, %zero : (tensor<2x1x2x4xi1>, tensor<2x1x2x4xf32>, tensor<f32>) -> tensor<2x1x2x4xf32>
  return %5 : tensor<2x1x2x4xf32>
}

// -----

// Slicing the batch dim (even whole), gathering along it, and a per-axis
// dequantize along it all mix items.
// CHECK-LABEL: func.func @slice_batch(
// CHECK-SAME: nunc.batch_split_blocked = "nunc.slice at {{.*}}: it slices the batch dim"
func.func @slice_batch(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %st = nunc.constant dense<[0]> : tensor<1xi64>
  %en = nunc.constant dense<[2]> : tensor<1xi64>
  %ax = nunc.constant dense<[0]> : tensor<1xi64>
  %0 = nunc.slice %x[%st : tensor<1xi64>, %en : tensor<1xi64> axes %ax : tensor<1xi64>] : tensor<2x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @gather_batch(
// CHECK-SAME: nunc.batch_split_blocked = "nunc.gather at {{.*}}: it gathers along the batch dim"
func.func @gather_batch(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %ids = nunc.constant dense<[1, 0]> : tensor<2xi64>
  %0 = nunc.gather %x, %ids : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @dequantize_along_batch(
// CHECK-SAME: nunc.batch_split_blocked = "nunc.dequantize_linear at {{.*}}: the quantization axis is the batch dim"
func.func @dequantize_along_batch(%x: tensor<2x3xi8>) -> tensor<2x3xf32> {
  %s = nunc.constant dense<[0.5, 0.25]> : tensor<2xf32>
  %0 = nunc.dequantize_linear %x, %s {axis = 0 : i64} : tensor<2x3xi8>, tensor<2xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// A decoder at batch 2: an FPN's nearest Resize by sizes (the batch entry
// of the sizes becomes 1; the scales' 1 for the batch stays) and the col2im
// of a lowered ConvTranspose, item by item.
// CHECK-LABEL: func.func @decoder(
// CHECK-SAME: %[[X:.*]]: tensor<1x3x4x5xf32>, %[[C:.*]]: tensor<1x12x20xf32>) -> (tensor<1x3x8x10xf32>, tensor<1x3x8x15xf32>, tensor<1x3x8x10xf32>)
// CHECK-SAME: nunc.batch_split = 2 : i64
// CHECK: %[[SIZES:.*]] = nunc.constant dense<[1, 3, 8, 10]> : tensor<4xi64>
// CHECK: nunc.resize %[[X]] sizes %[[SIZES]] : tensor<4xi64> {{.*}} : tensor<1x3x4x5xf32> -> tensor<1x3x8x10xf32>
// CHECK: nunc.resize %[[X]] scales %{{.*}} : tensor<4xf32> {{.*}} : tensor<1x3x4x5xf32> -> tensor<1x3x8x15xf32>
// CHECK: nunc.col2im %[[C]], %{{.*}}, %{{.*}} {{.*}} : (tensor<1x12x20xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<1x3x8x10xf32>
func.func @decoder(%x: tensor<2x3x4x5xf32>, %c: tensor<2x12x20xf32>) -> (tensor<2x3x8x10xf32>, tensor<2x3x8x15xf32>, tensor<2x3x8x10xf32>) {
  %sizes = nunc.constant dense<[2, 3, 8, 10]> : tensor<4xi64>
  %0 = nunc.resize %x sizes %sizes : tensor<4xi64> {coordinate_transformation_mode = "asymmetric", nearest_mode = "floor"} : tensor<2x3x4x5xf32> -> tensor<2x3x8x10xf32>
  %scales = nunc.constant dense<[1.0, 1.0, 2.0, 3.0]> : tensor<4xf32>
  %1 = nunc.resize %x scales %scales : tensor<4xf32> {mode = "linear"} : tensor<2x3x4x5xf32> -> tensor<2x3x8x15xf32>
  %image = nunc.constant dense<[8, 10]> : tensor<2xi64>
  %block = nunc.constant dense<2> : tensor<2xi64>
  %2 = nunc.col2im %c, %image, %block {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<2x12x20xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<2x3x8x10xf32>
  return %0, %1, %2 : tensor<2x3x8x10xf32>, tensor<2x3x8x15xf32>, tensor<2x3x8x10xf32>
}

// -----

// A Resize along the batch dim mixes items: the batch runs as a whole.
// CHECK-LABEL: func.func @resize_batch_dim(
// CHECK-SAME: nunc.batch_split_blocked = "nunc.resize at {{.*}}: the result's leading dim is not the input's"
func.func @resize_batch_dim(%x: tensor<2x3x4x5xf32>) -> tensor<4x3x4x5xf32> {
  %scales = nunc.constant dense<[2.0, 1.0, 1.0, 1.0]> : tensor<4xf32>
  %0 = nunc.resize %x scales %scales : tensor<4xf32> : tensor<2x3x4x5xf32> -> tensor<4x3x4x5xf32>
  return %0 : tensor<4x3x4x5xf32>
}

// -----

// Same size, but a crop along the batch dim: blocked too.
// CHECK-LABEL: func.func @resize_crops_batch(
// CHECK-SAME: nunc.batch_split_blocked = "nunc.resize at {{.*}}: it resizes the batch dim"
func.func @resize_crops_batch(%x: tensor<2x3x4x5xf32>) -> tensor<2x3x4x5xf32> {
  %roi = nunc.constant dense<[0.5, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0]> : tensor<8xf32>
  %sizes = nunc.constant dense<[2, 3, 4, 5]> : tensor<4xi64>
  %0 = nunc.resize %x roi %roi : tensor<8xf32> sizes %sizes : tensor<4xi64> {coordinate_transformation_mode = "tf_crop_and_resize", mode = "linear"} : tensor<2x3x4x5xf32> -> tensor<2x3x4x5xf32>
  return %0 : tensor<2x3x4x5xf32>
}
