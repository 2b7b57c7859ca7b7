//===- ShapeHelpersTest.cpp - ONNX shape rules ----------------------------===//

#include "nunc/Dialect/Nunc/ShapeHelpers.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

using namespace mlir::nunc::shape;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

namespace {
constexpr int64_t D = kDynamic;

template <typename T> T ok(llvm::Expected<T> v) {
  EXPECT_TRUE(static_cast<bool>(v)) << (v ? "" : llvm::toString(v.takeError()));
  return v ? *v : T();
}
template <typename T> std::string err(llvm::Expected<T> v) {
  if (v)
    return "(no error)";
  return llvm::toString(v.takeError());
}
} // namespace

TEST(ShapeHelpers, BroadcastStaticAndDynamic) {
  EXPECT_THAT(ok(broadcast({2, 1, 3}, {4, 1})), ElementsAre(2, 4, 3));
  EXPECT_THAT(ok(broadcast({D, 1}, {1, 5})), ElementsAre(D, 5));
  EXPECT_THAT(ok(broadcast({D}, {7})), ElementsAre(7));  // ? must be 1 or 7
  EXPECT_THAT(ok(broadcast({0}, {1})), ElementsAre(0));
  EXPECT_THAT(err(broadcast({3}, {4})), HasSubstr("cannot be broadcast"));
  EXPECT_THAT(err(broadcast({0}, {2})), HasSubstr("cannot be broadcast"));
}

TEST(ShapeHelpers, MatMulPromotionAndBatches) {
  EXPECT_THAT(ok(matmul({3}, {3, 4})), ElementsAre(4));
  EXPECT_THAT(ok(matmul({2, 3}, {3})), ElementsAre(2));
  EXPECT_THAT(ok(matmul({5, 1, 2, 3}, {4, 3, 7})), ElementsAre(5, 4, 2, 7));
  EXPECT_THAT(err(matmul({2, 3}, {4, 5})), HasSubstr("inner dims differ"));
}

TEST(ShapeHelpers, ReshapeZeroAndMinusOne) {
  EXPECT_THAT(ok(reshape({2, 3, 4}, {0, -1}, false)), ElementsAre(2, 12));
  EXPECT_THAT(ok(reshape({0, 3}, {3, 0}, true)), ElementsAre(3, 0)); // allowzero: literal 0
  // Without allowzero the 0 copies input dim 1 (3): 9 elements from 0.
  EXPECT_THAT(err(reshape({0, 3}, {3, 0}, false)), HasSubstr("cannot reshape"));
}

TEST(ShapeHelpers, ReshapeErrors) {
  EXPECT_THAT(err(reshape({2, 3}, {-1, -1}, false)), HasSubstr("more than one -1"));
  // A target whose element count overflows int64 is an error, not unknown.
  int64_t big = int64_t(1) << 62;
  EXPECT_THAT(err(reshape({4}, {big, big, 4}, false)), HasSubstr("more than 2^63 elements"));
  EXPECT_THAT(err(reshape({2, 3}, {4, -1}, false)), HasSubstr("cannot reshape"));
  EXPECT_THAT(err(reshape({2, 3}, {5}, false)), HasSubstr("6 elements"));
  EXPECT_THAT(err(reshape({2}, {0, 0}, false)), HasSubstr("copies dim 1"));
  EXPECT_THAT(err(reshape({0, 3}, {0, -1}, true)), HasSubstr("both 0 and -1"));
}

TEST(ShapeHelpers, ReshapeWithDynamicInput) {
  // Batch unknown: -1 cannot be computed, explicit dims stay.
  EXPECT_THAT(ok(reshape({D, 128, 384}, {0, 0, 12, 32}, false)), ElementsAre(D, 128, 12, 32));
  EXPECT_THAT(ok(reshape({D, 6}, {-1, 3}, false)), ElementsAre(D, 3));
}

TEST(ShapeHelpers, SliceClampsAndSteps) {
  SliceDim s = sliceDim(10, 2, 100, 3); // 2, 5, 8
  EXPECT_EQ(s.start, 2);
  EXPECT_EQ(s.size, 3);
  s = sliceDim(10, -1, INT64_MIN, -1); // all ten, backwards
  EXPECT_EQ(s.start, 9);
  EXPECT_EQ(s.size, 10);
  s = sliceDim(10, 5, 2, 1);
  EXPECT_EQ(s.size, 0);
  s = sliceDim(7, 100, -100, -2); // 6, 4, 2, 0
  EXPECT_EQ(s.start, 6);
  EXPECT_EQ(s.size, 4);
  // Steps of +-2^63 select the start alone (as onnxruntime and the ONNX
  // reference do), without overflowing.
  s = sliceDim(5, -1, INT64_MIN, INT64_MIN);
  EXPECT_EQ(s.start, 4);
  EXPECT_EQ(s.size, 1);
  s = sliceDim(5, 1, INT64_MAX, INT64_MAX);
  EXPECT_EQ(s.start, 1);
  EXPECT_EQ(s.size, 1);
  EXPECT_THAT(err(slice({4}, {0}, {4}, {}, {0})), HasSubstr("step must not be 0"));
  EXPECT_THAT(err(slice({4, 4}, {0}, {4}, {2}, {})), HasSubstr("out of range"));
}

TEST(ShapeHelpers, WindowOutputSizesAndAutoPad) {
  // 224 input, 7x7 kernel, stride 2, pad 3: 112.
  WindowGeometry g = ok(window({224}, {7}, {2}, {1}, {3, 3}, "NOTSET", false));
  EXPECT_THAT(g.output, ElementsAre(112));
  // SAME_UPPER on 5 with kernel 2, stride 1: out 5, total pad 1 at the end.
  g = ok(window({5}, {2}, {1}, {1}, {0, 0}, "SAME_UPPER", false));
  EXPECT_THAT(g.output, ElementsAre(5));
  EXPECT_THAT(g.padsBegin, ElementsAre(0));
  EXPECT_THAT(g.padsEnd, ElementsAre(1));
  g = ok(window({5}, {2}, {1}, {1}, {0, 0}, "SAME_LOWER", false));
  EXPECT_THAT(g.padsBegin, ElementsAre(1));
  // ceil_mode: 6 with kernel 3 stride 2 gives ceil(3/2)+1 = 3 windows, the last
  // starting at 4 (inside the input).
  g = ok(window({6}, {3}, {2}, {1}, {0, 0}, "NOTSET", true));
  EXPECT_THAT(g.output, ElementsAre(3));
  // dilation 2 makes a 3-tap kernel span 5.
  g = ok(window({5}, {3}, {1}, {2}, {0, 0}, "VALID", false));
  EXPECT_THAT(g.output, ElementsAre(1));
  EXPECT_THAT(err(window({2}, {3}, {1}, {1}, {0, 0}, "NOTSET", false)),
              HasSubstr("does not fit"));
  EXPECT_THAT(err(window({4}, {3}, {1}, {1}, {0, 0}, "SAME", false)),
              HasSubstr("unknown auto_pad"));
}

TEST(ShapeHelpers, SqueezeUnsqueezeConcatGather) {
  EXPECT_THAT(ok(unsqueeze({3, 4}, {0, -1})), ElementsAre(1, 3, 4, 1));
  EXPECT_THAT(err(unsqueeze({3}, {0, 0})), HasSubstr("twice"));
  EXPECT_THAT(ok(squeeze({1, 3, 1}, std::nullopt)), ElementsAre(3));
  EXPECT_THAT(err(squeeze({1, 3}, llvm::ArrayRef<int64_t>{1})), HasSubstr("cannot squeeze"));
  const int64_t p0[] = {2, 3}, p1[] = {2, D};
  llvm::ArrayRef<int64_t> parts[] = {p0, p1};
  EXPECT_THAT(ok(concat(parts, -1)), ElementsAre(2, D));
  EXPECT_THAT(ok(gather({5, 6, 7}, {2, 3}, 1)), ElementsAre(5, 2, 3, 7));
  EXPECT_THAT(ok(reduce({2, 3, 4}, {-1, 0}, false, false)), ElementsAre(3));
  EXPECT_THAT(ok(flatten({2, 3, 4}, 0)), ElementsAre(1, 24));
  EXPECT_THAT(ok(flatten({D, 3, 4}, 2)), ElementsAre(D, 4));
}

TEST(ShapeHelpers, ElementCountsRejectOverflow) {
  EXPECT_EQ(numElements({2, 3}), 6);
  EXPECT_EQ(numElements({D, 3}), std::nullopt);
  EXPECT_EQ(numElements({int64_t(1) << 40, int64_t(1) << 40}), std::nullopt);
}

// ConvTranspose over an input of 3 with kernel 3, stride 2: the natural
// size is 2 (3 - 1) + 3 = 7.
TEST(ShapeHelpers, ConvTransposeGeometry) {
  auto g = [](llvm::StringRef autoPad, std::vector<int64_t> pads, std::vector<int64_t> outPad,
              std::vector<int64_t> outShape) {
    return convTranspose({3}, {3}, {2}, {1}, pads, outPad, outShape, autoPad);
  };
  // SAME_* aim at 3 * 2 = 6: one pad, at the end for SAME_UPPER.
  WindowGeometry upper = ok(g("SAME_UPPER", {0, 0}, {0}, {}));
  EXPECT_THAT(upper.output, ElementsAre(6));
  EXPECT_THAT(upper.padsBegin, ElementsAre(0));
  EXPECT_THAT(upper.padsEnd, ElementsAre(1));
  EXPECT_THAT(ok(g("SAME_LOWER", {0, 0}, {0}, {})).padsBegin, ElementsAre(1));
  // output_shape 5: two pads, one each side; 8: the end grows, no pads.
  WindowGeometry five = ok(g("NOTSET", {0, 0}, {0}, {5}));
  EXPECT_THAT(five.padsBegin, ElementsAre(1));
  EXPECT_THAT(five.padsEnd, ElementsAre(1));
  WindowGeometry eight = ok(g("NOTSET", {0, 0}, {0}, {8}));
  EXPECT_THAT(eight.output, ElementsAre(8));
  EXPECT_THAT(eight.padsEnd, ElementsAre(0));
  EXPECT_THAT(err(g("NOTSET", {0, 0}, {0}, {9})), HasSubstr("does not fit"));
  // Explicit pads and output_padding: 7 + 1 - 1 - 2 = 5.
  EXPECT_THAT(ok(g("NOTSET", {1, 2}, {1}, {})).output, ElementsAre(5));
  EXPECT_THAT(err(g("NOTSET", {0, 0}, {2}, {})), HasSubstr("smaller than the stride"));
}

TEST(ShapeHelpers, Col2ImBlocks) {
  // (5 - 2) / 1 + 1 = 4 and (6 - 3) / 2 + 1 = 2 (floor).
  EXPECT_THAT(ok(col2imBlocks({5, 6}, {2, 3}, {1, 2}, {1, 1}, {0, 0, 0, 0})), ElementsAre(4, 2));
  // Dilation 2 stretches a block of 2 to 3; pads widen the image.
  EXPECT_THAT(ok(col2imBlocks({4}, {2}, {1}, {2}, {1, 0})), ElementsAre(3));
  EXPECT_THAT(err(col2imBlocks({2}, {3}, {1}, {1}, {0, 0})), HasSubstr("does not fit"));
}

TEST(ShapeHelpers, ResizeOutputSizes) {
  ResizeParams p;
  std::vector<double> scales{0.7};
  // 10 x 0.7f is 7 in f32 (6.99999988 exactly): onnxruntime's 7 rows.
  EXPECT_THAT(ok(resize({10}, p, std::nullopt, llvm::ArrayRef<double>(scales), std::nullopt))
                  .output,
              ElementsAre(7));
  // not_smaller: max(7 / 6, 1 / 27) x 27 = 31.4999981 in f32, rounded: 31.
  ResizeParams keep;
  keep.keepAspectRatioPolicy = "not_smaller";
  std::vector<int64_t> sizes{7, 1};
  EXPECT_THAT(ok(resize({6, 27}, keep, std::nullopt, std::nullopt, llvm::ArrayRef<int64_t>(sizes)))
                  .output,
              ElementsAre(7, 31));
  // Sizes on dims not known yet: the sizes.
  EXPECT_THAT(ok(resize({D, 3}, p, std::nullopt, std::nullopt, llvm::ArrayRef<int64_t>(sizes)))
                  .output,
              ElementsAre(7, 1));
  std::vector<double> huge{1e30};
  EXPECT_THAT(err(resize({10}, p, std::nullopt, llvm::ArrayRef<double>(huge), std::nullopt)),
              HasSubstr("below 2^40"));
}

TEST(ShapeHelpers, ResizeAxisTaps) {
  ResizeParams nearest;
  nearest.coordinateMode = "asymmetric";
  nearest.nearestMode = "floor";
  EXPECT_THAT(resizeAxis(nearest, 3, 6, 2.0, 0, 1).index, ElementsAre(0, 0, 1, 1, 2, 2));
  // half_pixel x2 on 2: sources -0.25, 0.25, 0.75, 1.25; the taps outside
  // read the edge.
  ResizeParams linear;
  linear.mode = "linear";
  ResizeAxis l = resizeAxis(linear, 2, 4, 2.0, 0, 1);
  EXPECT_EQ(l.taps, 2);
  EXPECT_THAT(l.index, ElementsAre(0, 0, 0, 1, 0, 1, 1, 1));
  EXPECT_THAT(l.weight, ElementsAre(0.25, 0.75, 0.75, 0.25, 0.25, 0.75, 0.75, 0.25));
  // Antialiased linear at scale 1/2: the filter is twice as wide, 4 taps.
  linear.antialias = true;
  EXPECT_EQ(resizeAxis(linear, 8, 4, 0.5, 0, 1).taps, 4);
  // pytorch_half_pixel to one element reads position 0.
  ResizeParams torch;
  torch.coordinateMode = "pytorch_half_pixel";
  EXPECT_THAT(resizeAxis(torch, 5, 1, 0.2, 0, 1).index, ElementsAre(0));
}
