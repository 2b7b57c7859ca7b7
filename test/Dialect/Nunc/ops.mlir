// RUN: nunc-opt %s | FileCheck %s
// RUN: nunc-opt %s | nunc-opt | FileCheck %s

// CHECK-LABEL: func @binary
func.func @binary(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xi1> {
  // CHECK: nunc.add %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %0 = nunc.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: nunc.equal {{.*}} -> tensor<2x3xi1>
  %1 = nunc.equal %0, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  return %1 : tensor<2x3xi1>
}
