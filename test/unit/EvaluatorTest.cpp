//===- EvaluatorTest.cpp - reference evaluator against hand-computed values ===//
//
// Each op runs through the evaluator on IR parsed from text, and the result is
// checked against values worked out by hand from the ONNX spec.
//
//===----------------------------------------------------------------------===//

#include "TestSupport.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <cmath>

using namespace nunc_test;
using ::testing::DoubleNear;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pointwise;

namespace {

constexpr DType F32 = DType::F32, I64 = DType::I64, I32 = DType::I32, I8 = DType::I8,
                U8 = DType::U8, Bool = DType::Bool, F16 = DType::F16;

/// A one-op function: `%0 = <body>` over arguments %a, %b, ... of `argTypes`.
std::string fn(const std::vector<std::string> &argTypes, const std::string &resultType,
               const std::string &body) {
  std::string args;
  for (size_t i = 0; i < argTypes.size(); ++i)
    args += (i ? ", %" : "%") + std::string(1, char('a' + i)) + ": " + argTypes[i];
  return "func.func @main(" + args + ") -> " + resultType + " {\n  %0 = " + body +
         "\n  return %0 : " + resultType + "\n}";
}

std::vector<double> run1(const std::string &mlir, const std::vector<Tensor> &inputs) {
  std::string error;
  std::vector<Tensor> out = evaluate(mlir, inputs, &error);
  EXPECT_EQ(error, "");
  EXPECT_EQ(out.size(), 1u);
  return out.empty() ? std::vector<double>() : values(out[0]);
}


MATCHER_P2(AllNear, expected, tol, "") {
  if (arg.size() != expected.size())
    return false;
  for (size_t i = 0; i < arg.size(); ++i)
    if (!(std::fabs(arg[i] - expected[i]) <= tol))
      return false;
  return true;
}

} // namespace

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

TEST(Evaluator, AddBroadcastsRowAcrossMatrix) {
  auto v = run1(fn({"tensor<2x3xf32>", "tensor<3xf32>"}, "tensor<2x3xf32>",
                   "nunc.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>"),
                {makeTensor(F32, {2, 3}, {1, 2, 3, 4, 5, 6}),
                 makeTensor(F32, {3}, {10, 20, 30})});
  EXPECT_THAT(v, ElementsAre(11, 22, 33, 14, 25, 36));
}

TEST(Evaluator, SubMulBroadcastColumnAgainstRow) {
  auto v = run1(fn({"tensor<2x1xf32>", "tensor<1x3xf32>"}, "tensor<2x3xf32>",
                   "nunc.sub %a, %b : (tensor<2x1xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>"),
                {makeTensor(F32, {2, 1}, {10, 20}), makeTensor(F32, {1, 3}, {1, 2, 3})});
  EXPECT_THAT(v, ElementsAre(9, 8, 7, 19, 18, 17));
  v = run1(fn({"tensor<2x1xi64>", "tensor<3xi64>"}, "tensor<2x3xi64>",
              "nunc.mul %a, %b : (tensor<2x1xi64>, tensor<3xi64>) -> tensor<2x3xi64>"),
           {makeTensor(I64, {2, 1}, {2, -3}), makeTensor(I64, {3}, {1, 2, 3})});
  EXPECT_THAT(v, ElementsAre(2, 4, 6, -3, -6, -9));
}

TEST(Evaluator, IntegerDivisionTruncatesTowardZero) {
  auto v = run1(fn({"tensor<4xi32>", "tensor<4xi32>"}, "tensor<4xi32>",
                   "nunc.div %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>"),
                {makeTensor(I32, {4}, {7, -7, 7, -7}), makeTensor(I32, {4}, {2, 2, -2, -2})});
  EXPECT_THAT(v, ElementsAre(3, -3, -3, 3));
}

TEST(Evaluator, IntegerDivisionByZeroIsAnError) {
  std::string err = evaluationError(
      fn({"tensor<2xi64>", "tensor<2xi64>"}, "tensor<2xi64>",
         "nunc.div %a, %b : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>"),
      {makeTensor(I64, {2}, {1, 2}), makeTensor(I64, {2}, {1, 0})});
  EXPECT_THAT(err, HasSubstr("division by zero"));
}

TEST(Evaluator, PowKeepsTheBaseType) {
  auto v = run1(fn({"tensor<3xf32>", "tensor<f32>"}, "tensor<3xf32>",
                   "nunc.pow %a, %b : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>"),
                {makeTensor(F32, {3}, {2, 3, 0.5}), makeTensor(F32, {}, {2})});
  EXPECT_THAT(v, ElementsAre(4, 9, 0.25));
  v = run1(fn({"tensor<2xi64>", "tensor<2xf32>"}, "tensor<2xi64>",
              "nunc.pow %a, %b : (tensor<2xi64>, tensor<2xf32>) -> tensor<2xi64>"),
           {makeTensor(I64, {2}, {3, 4}), makeTensor(F32, {2}, {3, 0.5})});
  EXPECT_THAT(v, ElementsAre(27, 2));
}

TEST(Evaluator, EqualGivesBool) {
  std::vector<Tensor> out =
      evaluate(fn({"tensor<3xi64>", "tensor<i64>"}, "tensor<3xi1>",
                  "nunc.equal %a, %b : (tensor<3xi64>, tensor<i64>) -> tensor<3xi1>"),
               {makeTensor(I64, {3}, {1, 5, 1}), makeTensor(I64, {}, {1})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].dtype(), Bool);
  EXPECT_THAT(values(out[0]), ElementsAre(1, 0, 1));
}

TEST(Evaluator, UnaryMath) {
  auto unary = [](const std::string &op, std::vector<double> in) {
    return run1(fn({"tensor<3xf32>"}, "tensor<3xf32>",
                   op + " %a : tensor<3xf32> -> tensor<3xf32>"),
                {makeTensor(F32, {3}, in)});
  };
  EXPECT_THAT(unary("nunc.sqrt", {0, 4, 2.25}), ElementsAre(0, 2, 1.5));
  EXPECT_THAT(unary("nunc.relu", {-1, 0, 2.5}), ElementsAre(0, 0, 2.5));
  // erf(0.5) = 0.5204998778, tanh(1) = 0.7615941560, sigmoid(-100) ~ 3.7e-44.
  EXPECT_THAT(unary("nunc.erf", {0, 0.5, -0.5}),
              AllNear(std::vector<double>{0, 0.5204998778, -0.5204998778}, 1e-6));
  EXPECT_THAT(unary("nunc.tanh", {0, 1, -1}),
              AllNear(std::vector<double>{0, 0.7615941560, -0.7615941560}, 1e-6));
  EXPECT_THAT(unary("nunc.sigmoid", {0, 2, -100}),
              AllNear(std::vector<double>{0.5, 0.8807970780, 0}, 1e-6));
}

TEST(Evaluator, ReluOnIntegers) {
  auto v = run1(fn({"tensor<3xi8>"}, "tensor<3xi8>", "nunc.relu %a : tensor<3xi8> -> tensor<3xi8>"),
                {makeTensor(I8, {3}, {-128, 0, 127})});
  EXPECT_THAT(v, ElementsAre(0, 0, 127));
}

TEST(Evaluator, GeluExactAndTanh) {
  // 0.5 x (1 + erf(x / sqrt 2)) at x = 1 and -1; the tanh form at x = 1.
  auto v = run1(fn({"tensor<2xf32>"}, "tensor<2xf32>",
                   "nunc.gelu %a : tensor<2xf32> -> tensor<2xf32>"),
                {makeTensor(F32, {2}, {1, -1})});
  EXPECT_THAT(v, AllNear(std::vector<double>{0.8413447461, -0.1586552539}, 1e-6));
  v = run1(fn({"tensor<1xf32>"}, "tensor<1xf32>",
              "nunc.gelu %a {approximate = \"tanh\"} : tensor<1xf32> -> tensor<1xf32>"),
           {makeTensor(F32, {1}, {1})});
  EXPECT_THAT(v, AllNear(std::vector<double>{0.8411919906}, 1e-6));
}

TEST(Evaluator, WhereBroadcastsAllThree) {
  auto v = run1(fn({"tensor<2x1xi1>", "tensor<3xf32>", "tensor<f32>"}, "tensor<2x3xf32>",
                   "nunc.where %a, %b, %c : (tensor<2x1xi1>, tensor<3xf32>, tensor<f32>) -> "
                   "tensor<2x3xf32>"),
                {makeTensor(Bool, {2, 1}, {1, 0}), makeTensor(F32, {3}, {1, 2, 3}),
                 makeTensor(F32, {}, {-1})});
  EXPECT_THAT(v, ElementsAre(1, 2, 3, -1, -1, -1));
}

TEST(Evaluator, ClipWithOneBound) {
  auto v = run1(fn({"tensor<4xf32>", "tensor<f32>"}, "tensor<4xf32>",
                   "nunc.clip %a min %b : tensor<f32> : tensor<4xf32> -> tensor<4xf32>"),
                {makeTensor(F32, {4}, {-5, 0, 5, 1e30}), makeTensor(F32, {}, {-1})});
  EXPECT_THAT(v, ElementsAre(-1, 0, 5, 1e30f));
  v = run1(fn({"tensor<3xi64>", "tensor<i64>", "tensor<i64>"}, "tensor<3xi64>",
              "nunc.clip %a min %b : tensor<i64> max %c : tensor<i64> : tensor<3xi64> -> "
              "tensor<3xi64>"),
           {makeTensor(I64, {3}, {-9, 3, 9}), makeTensor(I64, {}, {0}),
            makeTensor(I64, {}, {6})});
  EXPECT_THAT(v, ElementsAre(0, 3, 6));
}

TEST(Evaluator, CastConversions) {
  // float -> int truncates toward zero; float -> bool is x != 0.
  auto v = run1(fn({"tensor<4xf32>"}, "tensor<4xi32>",
                   "nunc.cast %a {to = i32} : tensor<4xf32> -> tensor<4xi32>"),
                {makeTensor(F32, {4}, {1.9, -1.9, 0.5, -0.0})});
  EXPECT_THAT(v, ElementsAre(1, -1, 0, 0));
  v = run1(fn({"tensor<3xf32>"}, "tensor<3xi1>",
              "nunc.cast %a {to = i1} : tensor<3xf32> -> tensor<3xi1>"),
           {makeTensor(F32, {3}, {0, -0.1, 2})});
  EXPECT_THAT(v, ElementsAre(0, 1, 1));
  // 2049 is not representable in half: round to nearest even gives 2048;
  // 65520 and beyond overflow to infinity.
  v = run1(fn({"tensor<3xi64>"}, "tensor<3xf16>",
              "nunc.cast %a {to = f16} : tensor<3xi64> -> tensor<3xf16>"),
           {makeTensor(I64, {3}, {2049, 2051, 70000})});
  EXPECT_EQ(v[0], 2048);
  EXPECT_EQ(v[1], 2052);
  EXPECT_TRUE(std::isinf(v[2]));
}

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

TEST(Evaluator, MatMul2D) {
  // [[1,2,3],[4,5,6]] x [[1,0],[0,1],[1,1]] = [[4,5],[10,11]]
  auto v = run1(fn({"tensor<2x3xf32>", "tensor<3x2xf32>"}, "tensor<2x2xf32>",
                   "nunc.matmul %a, %b : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>"),
                {makeTensor(F32, {2, 3}, {1, 2, 3, 4, 5, 6}),
                 makeTensor(F32, {3, 2}, {1, 0, 0, 1, 1, 1})});
  EXPECT_THAT(v, ElementsAre(4, 5, 10, 11));
}

TEST(Evaluator, MatMulPromotesVectorsAndBroadcastsBatches) {
  // [1,2] x [[1,2],[3,4]] = [7,10]
  auto v = run1(fn({"tensor<2xf32>", "tensor<2x2xf32>"}, "tensor<2xf32>",
                   "nunc.matmul %a, %b : (tensor<2xf32>, tensor<2x2xf32>) -> tensor<2xf32>"),
                {makeTensor(F32, {2}, {1, 2}), makeTensor(F32, {2, 2}, {1, 2, 3, 4})});
  EXPECT_THAT(v, ElementsAre(7, 10));
  // Batch [2] against batch [1]: both batches use the same B = identity * 2.
  v = run1(fn({"tensor<2x1x2xi64>", "tensor<1x2x2xi64>"}, "tensor<2x1x2xi64>",
              "nunc.matmul %a, %b : (tensor<2x1x2xi64>, tensor<1x2x2xi64>) -> "
              "tensor<2x1x2xi64>"),
           {makeTensor(I64, {2, 1, 2}, {1, 2, 3, 4}), makeTensor(I64, {1, 2, 2}, {2, 0, 0, 2})});
  EXPECT_THAT(v, ElementsAre(2, 4, 6, 8));
}

TEST(Evaluator, MatMulOddSizesMatchNaiveLoop) {
  // 17x129 by 129x7: exercises the blocked kernel's edges.
  const int64_t m = 17, k = 129, n = 7;
  std::vector<double> a(m * k), b(k * n), want(m * n, 0);
  for (int64_t i = 0; i < m * k; ++i)
    a[i] = ((i * 7) % 11) - 5;
  for (int64_t i = 0; i < k * n; ++i)
    b[i] = ((i * 5) % 13) - 6;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t kk = 0; kk < k; ++kk)
        want[i * n + j] += a[i * k + kk] * b[kk * n + j];
  auto v = run1(fn({"tensor<17x129xf32>", "tensor<129x7xf32>"}, "tensor<17x7xf32>",
                   "nunc.matmul %a, %b : (tensor<17x129xf32>, tensor<129x7xf32>) -> "
                   "tensor<17x7xf32>"),
                {makeTensor(F32, {m, k}, a), makeTensor(F32, {k, n}, b)});
  EXPECT_EQ(v, want); // small integers: exact in float
}

TEST(Evaluator, GemmTransposesScalesAndAddsBroadcastC) {
  // A^T = [[1,2],[3,4]] (A stored [[1,3],[2,4]]), B^T = [[1,1],[0,1]] (B stored
  // [[1,0],[1,1]]); A^T B^T = [[1,3],[3,7]]; alpha 2, beta 0.5, C = [10, 20].
  auto v = run1(fn({"tensor<2x2xf32>", "tensor<2x2xf32>", "tensor<2xf32>"},
                   "tensor<2x2xf32>",
                   "nunc.gemm %a, %b, %c : tensor<2xf32> {alpha = 2.0 : f32, beta = 0.5 : f32, "
                   "transA = 1 : i64, transB = 1 : i64} : tensor<2x2xf32>, tensor<2x2xf32> -> "
                   "tensor<2x2xf32>"),
                {makeTensor(F32, {2, 2}, {1, 3, 2, 4}), makeTensor(F32, {2, 2}, {1, 0, 1, 1}),
                 makeTensor(F32, {2}, {10, 20})});
  EXPECT_THAT(v, ElementsAre(7, 16, 11, 24));
}

//===----------------------------------------------------------------------===//
// Reductions and normalization
//===----------------------------------------------------------------------===//

TEST(Evaluator, ReduceMeanAndSumOverAxes) {
  std::string body = "nunc.reduce_mean %a axes %c : tensor<1xi64> {keepdims = 1 : i64} : "
                     "tensor<2x3xf32> -> tensor<2x1xf32>";
  std::string mlir = "func.func @main(%a: tensor<2x3xf32>) -> tensor<2x1xf32> {\n"
                     "  %c = nunc.constant dense<[-1]> : tensor<1xi64>\n  %0 = " +
                     body + "\n  return %0 : tensor<2x1xf32>\n}";
  EXPECT_THAT(run1(mlir, {makeTensor(F32, {2, 3}, {1, 2, 3, 4, 5, 9})}), ElementsAre(2, 6));
  // No axes: all of them; keepdims = 0 gives a scalar.
  auto v = run1(fn({"tensor<2x3xi64>"}, "tensor<i64>",
                   "nunc.reduce_sum %a {keepdims = 0 : i64} : tensor<2x3xi64> -> tensor<i64>"),
                {makeTensor(I64, {2, 3}, {1, 2, 3, 4, 5, 6})});
  EXPECT_THAT(v, ElementsAre(21));
  // noop_with_empty_axes: the input comes back unchanged.
  v = run1(fn({"tensor<2xf32>"}, "tensor<2xf32>",
              "nunc.reduce_sum %a {noop_with_empty_axes = 1 : i64} : tensor<2xf32> -> "
              "tensor<2xf32>"),
           {makeTensor(F32, {2}, {3, 4})});
  EXPECT_THAT(v, ElementsAre(3, 4));
}

TEST(Evaluator, SoftmaxAlongEitherAxis) {
  // softmax([0, ln 3]) = [0.25, 0.75]
  double l3 = std::log(3.0);
  auto v = run1(fn({"tensor<2x2xf32>"}, "tensor<2x2xf32>",
                   "nunc.softmax %a {axis = 0 : i64} : tensor<2x2xf32> -> tensor<2x2xf32>"),
                {makeTensor(F32, {2, 2}, {0, 5, l3, 5})});
  EXPECT_THAT(v, AllNear(std::vector<double>{0.25, 0.5, 0.75, 0.5}, 1e-6));
  v = run1(fn({"tensor<1x2xf32>"}, "tensor<1x2xf32>",
              "nunc.softmax %a : tensor<1x2xf32> -> tensor<1x2xf32>"),
           {makeTensor(F32, {1, 2}, {1000, 1000 + l3})});
  EXPECT_THAT(v, AllNear(std::vector<double>{0.25, 0.75}, 1e-4));
}

TEST(Evaluator, LayerNormReturnsNormalizedMeanAndInvStd) {
  // Row [1,2,3,4]: mean 2.5, var 1.25, 1/std = 0.894427191 (eps 0).
  std::vector<Tensor> out = evaluate(
      "func.func @main(%x: tensor<1x4xf32>, %s: tensor<4xf32>, %b: tensor<4xf32>) -> "
      "(tensor<1x4xf32>, tensor<1x1xf32>, tensor<1x1xf32>) {\n"
      "  %0:3 = nunc.layer_norm %x, %s, %b : tensor<4xf32> {epsilon = 0.0 : f32} : "
      "tensor<1x4xf32>, tensor<4xf32> -> tensor<1x4xf32>, tensor<1x1xf32>, tensor<1x1xf32>\n"
      "  return %0#0, %0#1, %0#2 : tensor<1x4xf32>, tensor<1x1xf32>, tensor<1x1xf32>\n}",
      {makeTensor(F32, {1, 4}, {1, 2, 3, 4}), makeTensor(F32, {4}, {1, 1, 2, 2}),
       makeTensor(F32, {4}, {0, 0, 0, 1})});
  ASSERT_EQ(out.size(), 3u);
  double r = 0.894427191;
  EXPECT_THAT(values(out[0]),
              AllNear(std::vector<double>{-1.5 * r, -0.5 * r, 2 * 0.5 * r, 2 * 1.5 * r + 1},
                      1e-6));
  EXPECT_THAT(values(out[1]), ElementsAre(2.5));
  EXPECT_THAT(values(out[2]), AllNear(std::vector<double>{r}, 1e-6));
}

TEST(Evaluator, BatchNormPerChannel) {
  // Channel 0: (x - 1) / sqrt(4) * 2 + 1; channel 1: (x - 0) / 1 * 1 + 0.
  auto v = run1(
      fn({"tensor<1x2x2xf32>", "tensor<2xf32>", "tensor<2xf32>", "tensor<2xf32>",
          "tensor<2xf32>"},
         "tensor<1x2x2xf32>",
         "nunc.batch_norm %a, %b, %c, %d, %e {epsilon = 0.0 : f32} : (tensor<1x2x2xf32>, "
         "tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2xf32>"),
      {makeTensor(F32, {1, 2, 2}, {1, 3, 5, 7}), makeTensor(F32, {2}, {2, 1}),
       makeTensor(F32, {2}, {1, 0}), makeTensor(F32, {2}, {1, 0}), makeTensor(F32, {2}, {4, 1})});
  EXPECT_THAT(v, ElementsAre(1, 3, 5, 7));
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

TEST(Evaluator, GatherRowsAndColumnsWithNegativeIndices) {
  auto v = run1(fn({"tensor<3x2xf32>", "tensor<2xi64>"}, "tensor<2x2xf32>",
                   "nunc.gather %a, %b : (tensor<3x2xf32>, tensor<2xi64>) -> tensor<2x2xf32>"),
                {makeTensor(F32, {3, 2}, {1, 2, 3, 4, 5, 6}), makeTensor(I64, {2}, {2, -3})});
  EXPECT_THAT(v, ElementsAre(5, 6, 1, 2));
  v = run1(fn({"tensor<2x3xf32>", "tensor<i32>"}, "tensor<2xf32>",
              "nunc.gather %a, %b {axis = 1 : i64} : (tensor<2x3xf32>, tensor<i32>) -> "
              "tensor<2xf32>"),
           {makeTensor(F32, {2, 3}, {1, 2, 3, 4, 5, 6}), makeTensor(I32, {}, {-1})});
  EXPECT_THAT(v, ElementsAre(3, 6));
}

TEST(Evaluator, GatherRejectsOutOfRangeIndices) {
  std::string err = evaluationError(
      fn({"tensor<4x2xf32>", "tensor<2xi64>"}, "tensor<2x2xf32>",
         "nunc.gather %a, %b : (tensor<4x2xf32>, tensor<2xi64>) -> tensor<2x2xf32>"),
      {makeTensor(F32, {4, 2}, {0, 0, 0, 0, 0, 0, 0, 0}), makeTensor(I64, {2}, {1, 4})});
  EXPECT_THAT(err, HasSubstr("index 4 is out of range for axis 0 of size 4"));
  err = evaluationError(
      fn({"tensor<4x2xf32>", "tensor<1xi64>"}, "tensor<1x2xf32>",
         "nunc.gather %a, %b : (tensor<4x2xf32>, tensor<1xi64>) -> tensor<1x2xf32>"),
      {makeTensor(F32, {4, 2}, {0, 0, 0, 0, 0, 0, 0, 0}), makeTensor(I64, {1}, {-5})});
  EXPECT_THAT(err, HasSubstr("index -5 is out of range"));
}

TEST(Evaluator, ReshapeCopiesZeroDimsAndInfersMinusOne) {
  std::string mlir = "func.func @main(%a: tensor<2x3x2xf32>) -> tensor<2x6xf32> {\n"
                     "  %s = nunc.constant dense<[0, -1]> : tensor<2xi64>\n"
                     "  %0 = nunc.reshape %a, %s : (tensor<2x3x2xf32>, tensor<2xi64>) -> "
                     "tensor<2x6xf32>\n  return %0 : tensor<2x6xf32>\n}";
  std::vector<Tensor> out =
      evaluate(mlir, {makeTensor(F32, {2, 3, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_THAT(out[0].shape(), ElementsAre(2, 6));
  EXPECT_EQ(values(out[0])[7], 7);
}

TEST(Evaluator, TransposePermutes) {
  // [[1,2,3],[4,5,6]]^T
  auto v = run1(fn({"tensor<2x3xi64>"}, "tensor<3x2xi64>",
                   "nunc.transpose %a {perm = array<i64: 1, 0>} : tensor<2x3xi64> -> "
                   "tensor<3x2xi64>"),
                {makeTensor(I64, {2, 3}, {1, 2, 3, 4, 5, 6})});
  EXPECT_THAT(v, ElementsAre(1, 4, 2, 5, 3, 6));
  // 3-D, perm [2, 0, 1]: out[k][i][j] = in[i][j][k].
  v = run1(fn({"tensor<2x2x2xi64>"}, "tensor<2x2x2xi64>",
              "nunc.transpose %a {perm = array<i64: 2, 0, 1>} : tensor<2x2x2xi64> -> "
              "tensor<2x2x2xi64>"),
           {makeTensor(I64, {2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7})});
  EXPECT_THAT(v, ElementsAre(0, 2, 4, 6, 1, 3, 5, 7));
}

TEST(Evaluator, ConcatAlongInnerAxis) {
  auto v = run1(fn({"tensor<2x1xf32>", "tensor<2x2xf32>"}, "tensor<2x3xf32>",
                   "nunc.concat %a, %b {axis = 1 : i64} : (tensor<2x1xf32>, tensor<2x2xf32>) -> "
                   "tensor<2x3xf32>"),
                {makeTensor(F32, {2, 1}, {1, 4}), makeTensor(F32, {2, 2}, {2, 3, 5, 6})});
  EXPECT_THAT(v, ElementsAre(1, 2, 3, 4, 5, 6));
}

TEST(Evaluator, SliceWithNegativeStepAndClampedEnds) {
  // x[::-2] of [0..6] = [6, 4, 2, 0]; x[1:100] clamps.
  std::string mlir =
      "func.func @main(%a: tensor<7xi64>) -> tensor<4xi64> {\n"
      "  %s = nunc.constant dense<[-1]> : tensor<1xi64>\n"
      "  %e = nunc.constant dense<[-9223372036854775807]> : tensor<1xi64>\n"
      "  %st = nunc.constant dense<[-2]> : tensor<1xi64>\n"
      "  %ax = nunc.constant dense<[0]> : tensor<1xi64>\n"
      "  %0 = nunc.slice %a[%s : tensor<1xi64>, %e : tensor<1xi64> axes %ax : tensor<1xi64> "
      "steps %st : tensor<1xi64>] : tensor<7xi64> -> tensor<4xi64>\n"
      "  return %0 : tensor<4xi64>\n}";
  EXPECT_THAT(run1(mlir, {makeTensor(I64, {7}, {0, 1, 2, 3, 4, 5, 6})}),
              ElementsAre(6, 4, 2, 0));
}

TEST(Evaluator, ExpandShapeAndConstantOfShape) {
  std::string mlir = "func.func @main(%a: tensor<2x1xf32>) -> tensor<2x3xf32> {\n"
                     "  %s = nunc.constant dense<[1, 3]> : tensor<2xi64>\n"
                     "  %0 = nunc.expand %a, %s : (tensor<2x1xf32>, tensor<2xi64>) -> "
                     "tensor<2x3xf32>\n  return %0 : tensor<2x3xf32>\n}";
  EXPECT_THAT(run1(mlir, {makeTensor(F32, {2, 1}, {7, 8})}), ElementsAre(7, 7, 7, 8, 8, 8));
  auto v = run1(fn({"tensor<2x3x4xf32>"}, "tensor<2xi64>",
                   "nunc.shape %a {start = -2 : i64} : tensor<2x3x4xf32> -> tensor<2xi64>"),
                {makeTensor(F32, {2, 3, 4}, std::vector<double>(24, 0))});
  EXPECT_THAT(v, ElementsAre(3, 4));
  v = run1(fn({"tensor<2xi64>"}, "tensor<?x?xi32>",
              "nunc.constant_of_shape %a {value = dense<5> : tensor<1xi32>} : tensor<2xi64> -> "
              "tensor<?x?xi32>"),
           {makeTensor(I64, {2}, {1, 3})});
  EXPECT_THAT(v, ElementsAre(5, 5, 5));
}

//===----------------------------------------------------------------------===//
// Convolution and pooling
//===----------------------------------------------------------------------===//

TEST(Evaluator, ConvWithPaddingStrideAndBias) {
  // 3x3 image 1..9, 2x2 kernel of ones, pad 1 on all sides, stride 2, bias 10:
  // windows at (-1,-1): 1; (-1,1): 2+3; (1,-1): 4+7; (1,1): 5+6+8+9.
  auto v = run1(fn({"tensor<1x1x3x3xf32>", "tensor<1x1x2x2xf32>", "tensor<1xf32>"},
                   "tensor<1x1x2x2xf32>",
                   "nunc.conv %a, %b, %c : tensor<1xf32> {dilations = array<i64: 1, 1>, "
                   "kernel_shape = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, strides = "
                   "array<i64: 2, 2>} : tensor<1x1x3x3xf32>, tensor<1x1x2x2xf32> -> "
                   "tensor<1x1x2x2xf32>"),
                {makeTensor(F32, {1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}),
                 makeTensor(F32, {1, 1, 2, 2}, {1, 1, 1, 1}), makeTensor(F32, {1}, {10})});
  EXPECT_THAT(v, ElementsAre(11, 15, 21, 38));
}

TEST(Evaluator, ConvInF64KeepsF64Precision) {
  // 1 + 2^-40 and 2^-40 exist in f64 only; a 3x3 kernel over a padded 3x3
  // image, bias 0.5: the centre sums all nine products exactly.
  const double tiny = std::ldexp(1.0, -40);
  std::vector<double> image{1 + tiny, 2, 3, 4, 5, 6, 7, 8, tiny};
  auto v = run1(fn({"tensor<1x1x3x3xf64>", "tensor<1x1x3x3xf64>", "tensor<1xf64>"},
                   "tensor<1x1x3x3xf64>",
                   "nunc.conv %a, %b, %c : tensor<1xf64> {dilations = array<i64: 1, 1>, "
                   "kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = "
                   "array<i64: 1, 1>} : tensor<1x1x3x3xf64>, tensor<1x1x3x3xf64> -> "
                   "tensor<1x1x3x3xf64>"),
                {makeTensor(DType::F64, {1, 1, 3, 3}, image),
                 makeTensor(DType::F64, {1, 1, 3, 3}, {1, 1, 1, 1, 1, 1, 1, 1, 1}),
                 makeTensor(DType::F64, {1}, {0.5})});
  ASSERT_EQ(v.size(), 9u);
  // Top-left window: image[0, 1, 3, 4]; centre: all nine; bottom-right:
  // image[4, 5, 7, 8].
  EXPECT_EQ(v[0], (1 + tiny) + 2 + 4 + 5 + 0.5);
  EXPECT_EQ(v[4], 45 - 9 + 2 * tiny + 0.5);
  EXPECT_EQ(v[8], 5 + 6 + 8 + tiny + 0.5);
}

TEST(Evaluator, DepthwiseConvKeepsChannelsApart) {
  // Two channels, group 2, 1x1 kernels scaling by 2 and -1.
  auto v = run1(fn({"tensor<1x2x1x2xf32>", "tensor<2x1x1x1xf32>"}, "tensor<1x2x1x2xf32>",
                   "nunc.conv %a, %b {dilations = array<i64: 1, 1>, group = 2 : i64, "
                   "kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = "
                   "array<i64: 1, 1>} : tensor<1x2x1x2xf32>, tensor<2x1x1x1xf32> -> "
                   "tensor<1x2x1x2xf32>"),
                {makeTensor(F32, {1, 2, 1, 2}, {1, 2, 3, 4}),
                 makeTensor(F32, {2, 1, 1, 1}, {2, -1})});
  EXPECT_THAT(v, ElementsAre(2, 4, -3, -4));
}

TEST(Evaluator, PoolingWithPadsAndCountIncludePad) {
  std::string attrs = "dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = "
                      "array<i64: 1, 1, 0, 0>, strides = array<i64: 1, 1>";
  auto in = makeTensor(F32, {1, 1, 2, 2}, {1, 2, 3, 4});
  // Windows: {1}, {1,2}, {1,3}, {1,2,3,4}.
  EXPECT_THAT(run1(fn({"tensor<1x1x2x2xf32>"}, "tensor<1x1x2x2xf32>",
                      "nunc.max_pool %a {" + attrs +
                          "} : tensor<1x1x2x2xf32> -> tensor<1x1x2x2xf32>"),
                   {in}),
              ElementsAre(1, 2, 3, 4));
  EXPECT_THAT(run1(fn({"tensor<1x1x2x2xf32>"}, "tensor<1x1x2x2xf32>",
                      "nunc.average_pool %a {" + attrs +
                          "} : tensor<1x1x2x2xf32> -> tensor<1x1x2x2xf32>"),
                   {in}),
              ElementsAre(1, 1.5, 2, 2.5));
  EXPECT_THAT(run1(fn({"tensor<1x1x2x2xf32>"}, "tensor<1x1x2x2xf32>",
                      "nunc.average_pool %a {count_include_pad = 1 : i64, " + attrs +
                          "} : tensor<1x1x2x2xf32> -> tensor<1x1x2x2xf32>"),
                   {in}),
              ElementsAre(0.25, 0.75, 1, 2.5));
  EXPECT_THAT(run1(fn({"tensor<1x1x2x2xf32>"}, "tensor<1x1x1x1xf32>",
                      "nunc.global_average_pool %a : tensor<1x1x2x2xf32> -> tensor<1x1x1x1xf32>"),
                   {in}),
              ElementsAre(2.5));
}

//===----------------------------------------------------------------------===//
// Quantization
//===----------------------------------------------------------------------===//

TEST(Evaluator, QuantizeRoundsHalfToEvenAndSaturates) {
  // x / 1 + 128: 2.5 -> 2, 3.5 -> 4, -2.5 -> -2, 1000 saturates at 255.
  auto v = run1(fn({"tensor<5xf32>", "tensor<f32>", "tensor<ui8>"}, "tensor<5xui8>",
                   "nunc.quantize_linear %a, %b, %c : tensor<ui8> {output_element_type = ui8} "
                   ": tensor<5xf32>, tensor<f32> -> tensor<5xui8>"),
                {makeTensor(F32, {5}, {2.5, 3.5, -2.5, 1000, -1000}), makeTensor(F32, {}, {1}),
                 makeTensor(U8, {}, {128})});
  EXPECT_THAT(v, ElementsAre(130, 132, 126, 255, 0));
}

TEST(Evaluator, QuantizeTakesNaNToTheLowestCode) {
  // As onnxruntime and the compiled kernels do, for every storage type (an
  // s8 NaN is not the zero point), and through a fused Q/DQ pair.
  for (auto [type, lowest] : {std::pair("i8", -128), std::pair("ui8", 0),
                              std::pair("i16", -32768), std::pair("ui16", 0)}) {
    std::string t = std::string("tensor<3x") + type + ">";
    auto v = run1(fn({"tensor<3xf32>", "tensor<f32>"}, t,
                     std::string("nunc.quantize_linear %a, %b {output_element_type = ") + type +
                         "} : tensor<3xf32>, tensor<f32> -> " + t),
                  {makeTensor(F32, {3}, {NAN, 1.f, -NAN}), makeTensor(F32, {}, {0.5})});
    EXPECT_THAT(v, ElementsAre(lowest, 2, lowest)) << type;
  }
  auto v = run1(fn({"tensor<2xf32>"}, "tensor<2xf32>",
                   "nunc.fake_quantize %a {quantization = !quant.uniform<i8:f32, 0.5>} : "
                   "tensor<2xf32> -> tensor<2xf32>"),
                {makeTensor(F32, {2}, {NAN, 3.f})});
  EXPECT_THAT(v, ElementsAre(-64.f, 3.f));
}

TEST(Evaluator, PerAxisQuantizeAndDequantize) {
  // Axis 1 with scales [1, 0.5]: column 1 doubles.
  auto v = run1(fn({"tensor<2x2xf32>", "tensor<2xf32>"}, "tensor<2x2xi8>",
                   "nunc.quantize_linear %a, %b {output_element_type = i8} : tensor<2x2xf32>, "
                   "tensor<2xf32> -> tensor<2x2xi8>"),
                {makeTensor(F32, {2, 2}, {1, 1, -3, 100}), makeTensor(F32, {2}, {1, 0.5})});
  EXPECT_THAT(v, ElementsAre(1, 2, -3, 127));
  v = run1(fn({"tensor<2x2xi8>", "tensor<2xf32>", "tensor<2xi8>"}, "tensor<2x2xf32>",
              "nunc.dequantize_linear %a, %b, %c : tensor<2xi8> {axis = 0 : i64} : "
              "tensor<2x2xi8>, tensor<2xf32> -> tensor<2x2xf32>"),
           {makeTensor(I8, {2, 2}, {1, 2, -3, 127}), makeTensor(F32, {2}, {1, 0.5}),
            makeTensor(I8, {2}, {0, -1})});
  EXPECT_THAT(v, ElementsAre(1, 2, -1, 64));
}

TEST(Evaluator, DynamicQuantizeLinearMatchesTheSpecExample) {
  // The example of the ONNX spec: scale (2 - -3) / 255, zero point 153.
  std::vector<Tensor> out = evaluate(
      "func.func @main(%x: tensor<6xf32>) -> (tensor<6xui8>, tensor<f32>, tensor<ui8>) {\n"
      "  %0:3 = nunc.dynamic_quantize_linear %x : tensor<6xf32> -> tensor<6xui8>, tensor<f32>, "
      "tensor<ui8>\n  return %0#0, %0#1, %0#2 : tensor<6xui8>, tensor<f32>, tensor<ui8>\n}",
      {makeTensor(F32, {6}, {0, 2, -3, -2.5, 1.34, 0.5})});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_THAT(values(out[0]), ElementsAre(153, 255, 0, 26, 221, 179));
  EXPECT_THAT(values(out[1]), AllNear(std::vector<double>{0.0196078438}, 1e-9));
  EXPECT_THAT(values(out[2]), ElementsAre(153));
  // All zeros: scale 1 and zero point 0, as onnxruntime gives (the spec's
  // formula would give scale 0).
  out = evaluate(
      "func.func @main(%x: tensor<3xf32>) -> (tensor<3xui8>, tensor<f32>, tensor<ui8>) {\n"
      "  %0:3 = nunc.dynamic_quantize_linear %x : tensor<3xf32> -> tensor<3xui8>, tensor<f32>, "
      "tensor<ui8>\n  return %0#0, %0#1, %0#2 : tensor<3xui8>, tensor<f32>, tensor<ui8>\n}",
      {makeTensor(F32, {3}, {0, 0, 0})});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_THAT(values(out[0]), ElementsAre(0, 0, 0));
  EXPECT_THAT(values(out[1]), ElementsAre(1.0));
  EXPECT_THAT(values(out[2]), ElementsAre(0));
}

TEST(Evaluator, MatMulIntegerSubtractsZeroPoints) {
  // (A - 1) x (B - [0, 2]) with A = [[2,3]], B = [[1,2],[3,4]]:
  // [1,2] x [[1,0],[3,2]] = [7, 4]; u8 255 x s8 -128 stays exact in i32.
  auto v = run1(fn({"tensor<1x2xui8>", "tensor<2x2xui8>", "tensor<ui8>", "tensor<2xui8>"},
                   "tensor<1x2xi32>",
                   "nunc.matmul_integer %a, %b a_zero_point %c : tensor<ui8> b_zero_point %d : "
                   "tensor<2xui8> : tensor<1x2xui8>, tensor<2x2xui8> -> tensor<1x2xi32>"),
                {makeTensor(U8, {1, 2}, {2, 3}), makeTensor(U8, {2, 2}, {1, 2, 3, 4}),
                 makeTensor(U8, {}, {1}), makeTensor(U8, {2}, {0, 2})});
  EXPECT_THAT(v, ElementsAre(7, 4));
  v = run1(fn({"tensor<1x2xui8>", "tensor<2x1xi8>"}, "tensor<1x1xi32>",
              "nunc.matmul_integer %a, %b : tensor<1x2xui8>, tensor<2x1xi8> -> tensor<1x1xi32>"),
           {makeTensor(U8, {1, 2}, {255, 255}), makeTensor(I8, {2, 1}, {-128, -128})});
  EXPECT_THAT(v, ElementsAre(-65280));
}

TEST(Evaluator, QLinearMatMulRequantizes) {
  // a: scale 0.5 zp 10, b: scale 0.25 zp 0, y: scale 0.1 zp 5.
  // A - 10 = [[2, 4]], B = [[4],[2]] -> acc 16; 16 * 0.5 * 0.25 / 0.1 = 20; + 5 = 25.
  auto v = run1(fn({"tensor<1x2xui8>", "tensor<f32>", "tensor<ui8>", "tensor<2x1xui8>",
                    "tensor<f32>", "tensor<ui8>", "tensor<f32>", "tensor<ui8>"},
                   "tensor<1x1xui8>",
                   "nunc.qlinear_matmul %a, %b, %c, %d, %e, %f, %g, %h : (tensor<1x2xui8>, "
                   "tensor<f32>, tensor<ui8>, tensor<2x1xui8>, tensor<f32>, tensor<ui8>, "
                   "tensor<f32>, tensor<ui8>) -> tensor<1x1xui8>"),
                {makeTensor(U8, {1, 2}, {12, 14}), makeTensor(F32, {}, {0.5}),
                 makeTensor(U8, {}, {10}), makeTensor(U8, {2, 1}, {4, 2}),
                 makeTensor(F32, {}, {0.25}), makeTensor(U8, {}, {0}),
                 makeTensor(F32, {}, {0.1}), makeTensor(U8, {}, {5})});
  EXPECT_THAT(v, ElementsAre(25));
}

//===----------------------------------------------------------------------===//
// Function-level checks
//===----------------------------------------------------------------------===//

TEST(Evaluator, RejectsInputsThatContradictTheSignature) {
  std::string mlir = fn({"tensor<2x3xf32>"}, "tensor<2x3xf32>",
                        "nunc.relu %a : tensor<2x3xf32> -> tensor<2x3xf32>");
  EXPECT_THAT(evaluationError(mlir, {makeTensor(F32, {3, 2}, {0, 0, 0, 0, 0, 0})}),
              HasSubstr("has shape [3, 2], expected [2, 3]"));
  EXPECT_THAT(evaluationError(mlir, {makeTensor(I64, {2, 3}, {0, 0, 0, 0, 0, 0})}),
              HasSubstr("has type int64, expected float32"));
  EXPECT_THAT(evaluationError(mlir, {}), HasSubstr("expected 1 inputs, got 0"));
}

TEST(Evaluator, DynamicDimsTakeTheirSizeFromTheData) {
  auto v = run1(fn({"tensor<?x2xf32>", "tensor<2xf32>"}, "tensor<?x2xf32>",
                   "nunc.mul %a, %b : (tensor<?x2xf32>, tensor<2xf32>) -> tensor<?x2xf32>"),
                {makeTensor(F32, {3, 2}, {1, 2, 3, 4, 5, 6}), makeTensor(F32, {2}, {2, 0})});
  EXPECT_THAT(v, ElementsAre(2, 0, 6, 0, 10, 0));
}
