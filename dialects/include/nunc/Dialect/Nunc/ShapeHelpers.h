//===- ShapeHelpers.h - ONNX shape rules shared by inference and evaluation ===//
//
// The shape rules of ONNX ops as plain functions over dim lists. Type inference
// calls them with possibly dynamic dims (ShapedType::kDynamic); the evaluator
// calls them with the concrete shapes of run-time tensors. Keeping one copy
// means the compiler and its oracle cannot disagree about a shape.
//
//===----------------------------------------------------------------------===//

#ifndef NUNC_DIALECT_NUNC_SHAPEHELPERS_H
#define NUNC_DIALECT_NUNC_SHAPEHELPERS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace mlir::nunc::shape {

using Dims = llvm::SmallVector<int64_t, 6>;
/// Same value as ShapedType::kDynamic.
constexpr int64_t kDynamic = INT64_MIN;

inline bool isDynamic(int64_t d) { return d == kDynamic; }
inline bool allStatic(llvm::ArrayRef<int64_t> dims) {
  for (int64_t d : dims)
    if (isDynamic(d))
      return false;
  return true;
}

llvm::Error makeError(const llvm::Twine &message);

/// A possibly negative axis counted from the back, for axes already verified
/// to be in range. Takes int64_t on purpose: ODS getters of I64Attr return
/// uint64_t, and comparing those with 0 silently never sees a negative axis.
inline int64_t wrapAxis(int64_t axis, int64_t rank) { return axis < 0 ? axis + rank : axis; }

/// The product of dims, or std::nullopt when a dim is dynamic or the product
/// overflows int64.
std::optional<int64_t> numElements(llvm::ArrayRef<int64_t> dims);

/// Largest tensor nunc compiles or evaluates: bigger ones fail with an error
/// instead of exhausting memory (or overflowing a size) later.
constexpr int64_t kMaxTensorBytes = int64_t(8) << 30;
/// Whether static dims of `elementBytes`-byte elements stay within
/// kMaxTensorBytes (dynamic dims count as 1).
bool fitsTensorLimit(llvm::ArrayRef<int64_t> dims, int64_t elementBytes);
/// Most dims a tensor may have (numpy's limit), and so the most entries a
/// 1-D shape value may list.
constexpr int64_t kMaxRank = 64;

/// Formats dims as "[1, ?, 384]".
std::string toString(llvm::ArrayRef<int64_t> dims);

/// Maps a possibly negative axis into [0, rank).
llvm::Expected<int64_t> normalizeAxis(int64_t axis, int64_t rank,
                                      llvm::StringRef what = "axis");
/// Normalizes a list of axes; rejects duplicates.
llvm::Expected<Dims> normalizeAxes(llvm::ArrayRef<int64_t> axes, int64_t rank,
                                   llvm::StringRef what = "axes");

/// ONNX Pad's pads for `axes` ([begins..., ends...], 2 x len(axes)) as
/// pads over every dim of a tensor of `rank` (0 elsewhere).
llvm::Expected<Dims> spreadPads(llvm::ArrayRef<int64_t> pads, llvm::ArrayRef<int64_t> axes,
                                int64_t rank);

/// Multidirectional (numpy) broadcasting of any number of shapes.
llvm::Expected<Dims> broadcast(llvm::ArrayRef<llvm::ArrayRef<int64_t>> shapes);
llvm::Expected<Dims> broadcast(llvm::ArrayRef<int64_t> a, llvm::ArrayRef<int64_t> b);

/// numpy.matmul: 1-D operands are promoted and the promoted dim dropped.
llvm::Expected<Dims> matmul(llvm::ArrayRef<int64_t> a, llvm::ArrayRef<int64_t> b);

/// Reshape with ONNX's 0 (copy the input dim unless allowzero) and -1 (infer).
/// Entries of `target` may be kDynamic when a shape value is not known.
llvm::Expected<Dims> reshape(llvm::ArrayRef<int64_t> input,
                             llvm::ArrayRef<int64_t> target, bool allowZero);

/// Flatten to [prod(input[:axis]), prod(input[axis:])].
llvm::Expected<Dims> flatten(llvm::ArrayRef<int64_t> input, int64_t axis);

llvm::Expected<Dims> transpose(llvm::ArrayRef<int64_t> input,
                               llvm::ArrayRef<int64_t> perm);
/// Checks that perm is a permutation of [0, rank).
llvm::Error checkPermutation(llvm::ArrayRef<int64_t> perm, int64_t rank);

llvm::Expected<Dims> unsqueeze(llvm::ArrayRef<int64_t> input,
                               llvm::ArrayRef<int64_t> axes);
/// Squeeze; with no axes, removes every dim of size 1 (input must be static).
llvm::Expected<Dims> squeeze(llvm::ArrayRef<int64_t> input,
                             std::optional<llvm::ArrayRef<int64_t>> axes);

llvm::Expected<Dims> concat(llvm::ArrayRef<llvm::ArrayRef<int64_t>> inputs,
                            int64_t axis);

/// data.shape[:axis] + indices.shape + data.shape[axis+1:].
llvm::Expected<Dims> gather(llvm::ArrayRef<int64_t> data,
                            llvm::ArrayRef<int64_t> indices, int64_t axis);

/// Reduced shape. `axes` empty means all axes unless noopWithEmptyAxes.
llvm::Expected<Dims> reduce(llvm::ArrayRef<int64_t> input,
                            llvm::ArrayRef<int64_t> axes, bool keepDims,
                            bool noopWithEmptyAxes);
/// The normalized, sorted set of reduced axes (see `reduce`).
llvm::Expected<Dims> reducedAxes(int64_t rank, llvm::ArrayRef<int64_t> axes,
                                 bool noopWithEmptyAxes);

/// Range's element count, max(ceil((limit - start) / delta), 0): exact for
/// integers, in double for floats (as numpy's arange). Fails for delta 0.
llvm::Expected<int64_t> rangeLength(int64_t start, int64_t limit, int64_t delta);
llvm::Expected<int64_t> rangeLength(double start, double limit, double delta);

/// One sliced dim: first element, step and number of elements.
struct SliceDim {
  int64_t start = 0;
  int64_t step = 1;
  int64_t size = 0;
};
/// Clamps start/end as ONNX Slice does for a dim of size `dim` (static).
SliceDim sliceDim(int64_t dim, int64_t start, int64_t end, int64_t step);
/// Per-dim slices for all dims of `input` (identity for dims not in axes).
/// Dynamic dims give kDynamic sizes.
llvm::Expected<llvm::SmallVector<SliceDim, 6>>
slice(llvm::ArrayRef<int64_t> input, llvm::ArrayRef<int64_t> starts,
      llvm::ArrayRef<int64_t> ends, llvm::ArrayRef<int64_t> axes,
      llvm::ArrayRef<int64_t> steps);

/// Spatial geometry of a convolution or pooling window over NCHW input.
struct WindowGeometry {
  Dims kernel, strides, dilations;
  Dims padsBegin, padsEnd; // resolved (auto_pad applied)
  Dims output;             // output spatial dims
};
/// `pads` is [x1_begin, x2_begin, ..., x1_end, x2_end, ...] as in ONNX.
llvm::Expected<WindowGeometry>
window(llvm::ArrayRef<int64_t> inputSpatial, llvm::ArrayRef<int64_t> kernel,
       llvm::ArrayRef<int64_t> strides, llvm::ArrayRef<int64_t> dilations,
       llvm::ArrayRef<int64_t> pads, llvm::StringRef autoPad, bool ceilMode);

/// A transposed convolution's spatial geometry, as onnxruntime resolves it
/// (and ONNX's reference, where that one is defined): with `outputShape`
/// (or auto_pad SAME_*, whose target is input * stride), the padding that
/// makes the natural size stride (in - 1) + output_padding + extent fit the
/// target, more of it at the start for SAME_LOWER and NOTSET; a target past
/// the natural size extends the end (as output_padding) when the blocks
/// still match. Otherwise `pads` (none for VALID).
llvm::Expected<WindowGeometry>
convTranspose(llvm::ArrayRef<int64_t> inputSpatial, llvm::ArrayRef<int64_t> kernel,
              llvm::ArrayRef<int64_t> strides, llvm::ArrayRef<int64_t> dilations,
              llvm::ArrayRef<int64_t> pads, llvm::ArrayRef<int64_t> outputPadding,
              llvm::ArrayRef<int64_t> outputShape, llvm::StringRef autoPad);

/// Col2Im's number of blocks along each spatial dim of `image`; fails when
/// the attributes do not fit (a block extent past the padded image).
llvm::Expected<Dims> col2imBlocks(llvm::ArrayRef<int64_t> image, llvm::ArrayRef<int64_t> block,
                                  llvm::ArrayRef<int64_t> strides,
                                  llvm::ArrayRef<int64_t> dilations,
                                  llvm::ArrayRef<int64_t> pads);

/// Resize's attributes (ONNX names).
struct ResizeParams {
  llvm::StringRef mode = "nearest";
  llvm::StringRef coordinateMode = "half_pixel";
  llvm::StringRef nearestMode = "round_prefer_floor";
  llvm::StringRef keepAspectRatioPolicy = "stretch";
  double cubicA = -0.75;
  bool excludeOutside = false;
  bool antialias = false;
  llvm::ArrayRef<int64_t> axes; // empty: all dims
};
/// Resize's output shape and, per dim, its scale and roi [start, end].
struct ResizePlan {
  Dims output;
  llvm::SmallVector<double, 6> scales, roiStart, roiEnd;
};
/// Checks the attributes and resolves scales or sizes (one of them given,
/// one entry per resized dim) and roi. Dims of `input` may be dynamic: with
/// scales their outputs are dynamic, with sizes (stretched) the sizes, and
/// their scales NaN until the dims are known.
llvm::Expected<ResizePlan> resize(llvm::ArrayRef<int64_t> input, const ResizeParams &params,
                                  std::optional<llvm::ArrayRef<double>> roi,
                                  std::optional<llvm::ArrayRef<double>> scales,
                                  std::optional<llvm::ArrayRef<int64_t>> sizes);
/// The same on the lists ResizeOp::getConstantInputs gives.
inline llvm::Expected<ResizePlan>
resize(llvm::ArrayRef<int64_t> input, const ResizeParams &params,
       const std::optional<llvm::SmallVector<double>> &roi,
       const std::optional<llvm::SmallVector<double>> &scales,
       const std::optional<llvm::SmallVector<int64_t>> &sizes) {
  auto ref = [](const auto &v) {
    using T = typename std::decay_t<decltype(*v)>::value_type;
    return v ? std::optional<llvm::ArrayRef<T>>(llvm::ArrayRef<T>(*v)) : std::nullopt;
  };
  return resize(input, params, ref(roi), ref(scales), ref(sizes));
}
/// One dim's interpolation: output position o reads input positions
/// index[o * taps + t] (clamped into the input) with weight[o * taps + t];
/// where extrapolated[o] (tf_crop_and_resize outside the input), the
/// output is extrapolation_value instead.
struct ResizeAxis {
  int64_t taps = 1;
  std::vector<int64_t> index;
  std::vector<double> weight;
  std::vector<uint8_t> extrapolated;
  bool identity = false; // output o reads input o, nothing else
};
ResizeAxis resizeAxis(const ResizeParams &params, int64_t inSize, int64_t outSize, double scale,
                      double roiStart, double roiEnd);

} // namespace mlir::nunc::shape

#endif // NUNC_DIALECT_NUNC_SHAPEHELPERS_H
