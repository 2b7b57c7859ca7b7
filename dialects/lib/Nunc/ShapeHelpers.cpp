//===- ShapeHelpers.cpp - ONNX shape rules --------------------------------===//

#include "nunc/Dialect/Nunc/ShapeHelpers.h"

#include <cmath>

#include "llvm/Support/FormatVariadic.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using llvm::ArrayRef;
using llvm::Expected;

namespace mlir::nunc::shape {

llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

std::optional<int64_t> numElements(ArrayRef<int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (isDynamic(d) || d < 0)
      return std::nullopt;
    if (d != 0 && n > INT64_MAX / d)
      return std::nullopt;
    n *= d;
  }
  return n;
}

bool fitsTensorLimit(ArrayRef<int64_t> dims, int64_t elementBytes) {
  if (llvm::is_contained(dims, 0))
    return true;
  int64_t n = std::max<int64_t>(1, elementBytes);
  for (int64_t d : dims) {
    if (isDynamic(d) || d < 0)
      continue;
    if (n > kMaxTensorBytes / d)
      return false;
    n *= d;
  }
  return n <= kMaxTensorBytes;
}

std::string toString(ArrayRef<int64_t> dims) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << '[';
  llvm::interleaveComma(dims, os, [&](int64_t d) {
    if (isDynamic(d))
      os << '?';
    else
      os << d;
  });
  os << ']';
  return s;
}

Expected<int64_t> normalizeAxis(int64_t axis, int64_t rank, llvm::StringRef what) {
  if (axis < -rank || axis >= rank)
    return makeError(what + " " + llvm::Twine(axis) + " is out of range for rank " +
                     llvm::Twine(rank));
  return axis < 0 ? axis + rank : axis;
}

Expected<Dims> normalizeAxes(ArrayRef<int64_t> axes, int64_t rank,
                             llvm::StringRef what) {
  Dims out;
  for (int64_t a : axes) {
    auto n = normalizeAxis(a, rank, what);
    if (!n)
      return n.takeError();
    if (llvm::is_contained(out, *n))
      return makeError(what + " contains axis " + llvm::Twine(*n) + " twice");
    out.push_back(*n);
  }
  return out;
}

Expected<Dims> spreadPads(ArrayRef<int64_t> pads, ArrayRef<int64_t> axes, int64_t rank) {
  if (pads.size() != 2 * axes.size())
    return makeError("Pad needs 2 x " + llvm::Twine(axes.size()) + " pads for its axes, got " +
                     llvm::Twine(pads.size()));
  auto dims = normalizeAxes(axes, rank, "Pad's axes");
  if (!dims)
    return dims.takeError();
  Dims full(2 * rank, 0);
  for (auto [i, d] : llvm::enumerate(*dims)) {
    full[d] = pads[i];
    full[d + rank] = pads[i + axes.size()];
  }
  return full;
}

Expected<Dims> broadcast(ArrayRef<ArrayRef<int64_t>> shapes) {
  size_t rank = 0;
  for (ArrayRef<int64_t> s : shapes)
    rank = std::max(rank, s.size());
  Dims out(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    int64_t fixed = 1;   // the one static size other than 1, if any
    bool sawDynamic = false;
    for (ArrayRef<int64_t> s : shapes) {
      if (i + s.size() < rank)
        continue;
      int64_t d = s[i + s.size() - rank];
      if (isDynamic(d)) {
        sawDynamic = true;
      } else if (d != 1) {
        if (fixed != 1 && fixed != d) {
          std::string msg = "shapes";
          for (ArrayRef<int64_t> t : shapes) {
            msg += ' ';
            msg += toString(t);
          }
          return makeError(msg + " cannot be broadcast together");
        }
        fixed = d;
      }
    }
    out[i] = fixed != 1 ? fixed : (sawDynamic ? kDynamic : 1);
  }
  return out;
}

Expected<Dims> broadcast(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  ArrayRef<int64_t> both[] = {a, b};
  return broadcast(both);
}

Expected<Dims> matmul(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  if (a.empty() || b.empty())
    return makeError("MatMul operands must have rank >= 1");
  Dims pa(a.begin(), a.end()), pb(b.begin(), b.end());
  bool dropM = pa.size() == 1, dropN = pb.size() == 1;
  if (dropM)
    pa.insert(pa.begin(), 1);
  if (dropN)
    pb.push_back(1);
  int64_t ka = pa[pa.size() - 1], kb = pb[pb.size() - 2];
  if (!isDynamic(ka) && !isDynamic(kb) && ka != kb)
    return makeError("MatMul inner dims differ: " + toString(a) + " x " + toString(b));
  auto batch = broadcast(ArrayRef<int64_t>(pa).drop_back(2),
                         ArrayRef<int64_t>(pb).drop_back(2));
  if (!batch)
    return batch.takeError();
  Dims out = *batch;
  if (!dropM)
    out.push_back(pa[pa.size() - 2]);
  if (!dropN)
    out.push_back(pb.back());
  return out;
}

Expected<Dims> reshape(ArrayRef<int64_t> input, ArrayRef<int64_t> target,
                       bool allowZero) {
  Dims out;
  int inferIndex = -1;
  bool hasZero = false;
  for (auto [i, t] : llvm::enumerate(target)) {
    if (isDynamic(t)) {
      out.push_back(kDynamic);
    } else if (t == -1) {
      if (inferIndex >= 0)
        return makeError("Reshape target " + toString(target) +
                         " has more than one -1");
      inferIndex = i;
      out.push_back(kDynamic);
    } else if (t == 0) {
      hasZero = true;
      if (allowZero) {
        out.push_back(0);
      } else {
        if (i >= input.size())
          return makeError("Reshape target " + toString(target) + " copies dim " +
                           llvm::Twine(i) + " of a rank-" +
                           llvm::Twine(input.size()) + " input");
        out.push_back(input[i]);
      }
    } else if (t < 0) {
      return makeError("Reshape target " + toString(target) +
                       " has a negative dim other than -1");
    } else {
      out.push_back(t);
    }
  }
  if (allowZero && hasZero && inferIndex >= 0)
    return makeError("Reshape target " + toString(target) +
                     " has both 0 and -1 while allowzero is set");
  std::optional<int64_t> inCount = numElements(input);
  if (inferIndex >= 0) {
    Dims others(out);
    others.erase(others.begin() + inferIndex);
    std::optional<int64_t> rest = numElements(others);
    if (inCount && rest) {
      if (*rest == 0 || *inCount % *rest != 0)
        return makeError("cannot reshape " + toString(input) + " to " +
                         toString(target));
      out[inferIndex] = *inCount / *rest;
    }
  }
  std::optional<int64_t> outCount = numElements(out);
  // All dims known but no count: the product overflows int64.
  if (inCount && !outCount && llvm::none_of(out, [](int64_t d) { return isDynamic(d); }))
    return makeError(llvm::formatv("cannot reshape {0} ({1} elements) to {2} (more than "
                                   "2^63 elements)",
                                   toString(input), *inCount, toString(out)));
  if (inCount && outCount && *inCount != *outCount)
    return makeError("cannot reshape " + toString(input) + " (" +
                     llvm::Twine(*inCount) + " elements) to " + toString(out) +
                     " (" + llvm::Twine(*outCount) + " elements)");
  return out;
}

static int64_t productOrDynamic(ArrayRef<int64_t> dims) {
  std::optional<int64_t> n = numElements(dims);
  return n ? *n : kDynamic;
}

Expected<Dims> flatten(ArrayRef<int64_t> input, int64_t axis) {
  int64_t rank = input.size();
  if (axis < -rank || axis > rank)
    return makeError("Flatten axis " + llvm::Twine(axis) +
                     " is out of range for rank " + llvm::Twine(rank));
  if (axis < 0)
    axis += rank;
  return Dims{productOrDynamic(input.take_front(axis)),
              productOrDynamic(input.drop_front(axis))};
}

llvm::Error checkPermutation(ArrayRef<int64_t> perm, int64_t rank) {
  if ((int64_t)perm.size() != rank)
    return makeError("perm " + toString(perm) + " does not have rank " +
                     llvm::Twine(rank) + " entries");
  llvm::SmallVector<bool, 6> seen(rank, false);
  for (int64_t p : perm) {
    if (p < 0 || p >= rank || seen[p])
      return makeError("perm " + toString(perm) + " is not a permutation");
    seen[p] = true;
  }
  return llvm::Error::success();
}

Expected<Dims> transpose(ArrayRef<int64_t> input, ArrayRef<int64_t> perm) {
  if (llvm::Error e = checkPermutation(perm, input.size()))
    return std::move(e);
  Dims out;
  for (int64_t p : perm)
    out.push_back(input[p]);
  return out;
}

Expected<Dims> unsqueeze(ArrayRef<int64_t> input, ArrayRef<int64_t> axes) {
  int64_t outRank = input.size() + axes.size();
  auto norm = normalizeAxes(axes, outRank, "Unsqueeze axes");
  if (!norm)
    return norm.takeError();
  Dims out;
  const int64_t *next = input.begin();
  for (int64_t i = 0; i < outRank; ++i)
    out.push_back(llvm::is_contained(*norm, i) ? 1 : *next++);
  return out;
}

Expected<Dims> squeeze(ArrayRef<int64_t> input,
                       std::optional<ArrayRef<int64_t>> axes) {
  Dims out;
  if (!axes) {
    for (int64_t d : input) {
      if (isDynamic(d))
        return makeError("Squeeze without axes needs static dims, got " +
                         toString(input));
      if (d != 1)
        out.push_back(d);
    }
    return out;
  }
  auto norm = normalizeAxes(*axes, input.size(), "Squeeze axes");
  if (!norm)
    return norm.takeError();
  for (auto [i, d] : llvm::enumerate(input)) {
    if (!llvm::is_contained(*norm, (int64_t)i)) {
      out.push_back(d);
      continue;
    }
    if (!isDynamic(d) && d != 1)
      return makeError("cannot squeeze dim " + llvm::Twine(i) + " of size " +
                       llvm::Twine(d) + " in " + toString(input));
  }
  return out;
}

Expected<Dims> concat(ArrayRef<ArrayRef<int64_t>> inputs, int64_t axis) {
  if (inputs.empty())
    return makeError("Concat needs at least one input");
  int64_t rank = inputs.front().size();
  auto a = normalizeAxis(axis, rank, "Concat axis");
  if (!a)
    return a.takeError();
  Dims out(inputs.front().begin(), inputs.front().end());
  out[*a] = 0;
  for (ArrayRef<int64_t> in : inputs) {
    if ((int64_t)in.size() != rank)
      return makeError("Concat inputs have different ranks: " +
                       toString(inputs.front()) + " and " + toString(in));
    for (int64_t i = 0; i < rank; ++i) {
      if (i == *a) {
        out[i] = (isDynamic(out[i]) || isDynamic(in[i])) ? kDynamic : out[i] + in[i];
        continue;
      }
      if (isDynamic(out[i])) {
        out[i] = in[i];
      } else if (!isDynamic(in[i]) && in[i] != out[i]) {
        return makeError("Concat inputs " + toString(inputs.front()) + " and " +
                         toString(in) + " differ in dim " + llvm::Twine(i));
      }
    }
  }
  return out;
}

Expected<int64_t> rangeLength(int64_t start, int64_t limit, int64_t delta) {
  if (delta == 0)
    return makeError("Range's delta is 0");
  // Differences that overflow int64 are past any tensor size anyway.
  __int128 span = (__int128)limit - start;
  __int128 n = span / delta + (span % delta != 0 && ((span > 0) == (delta > 0)) ? 1 : 0);
  if (n > INT64_MAX)
    return makeError("Range has more than 2^63 elements");
  return n < 0 ? 0 : (int64_t)n;
}

Expected<int64_t> rangeLength(double start, double limit, double delta) {
  if (delta == 0 || std::isnan(delta))
    return makeError("Range's delta is 0 or NaN");
  double n = std::ceil((limit - start) / delta);
  if (std::isnan(n) || n >= 9.2e18)
    return makeError("Range's length is not a finite count");
  return n < 0 ? 0 : (int64_t)n;
}

Expected<Dims> gather(ArrayRef<int64_t> data, ArrayRef<int64_t> indices,
                      int64_t axis) {
  auto a = normalizeAxis(axis, data.size(), "Gather axis");
  if (!a)
    return a.takeError();
  Dims out(data.begin(), data.begin() + *a);
  out.append(indices.begin(), indices.end());
  out.append(data.begin() + *a + 1, data.end());
  return out;
}

Expected<Dims> reducedAxes(int64_t rank, ArrayRef<int64_t> axes,
                           bool noopWithEmptyAxes) {
  Dims out;
  if (axes.empty()) {
    if (!noopWithEmptyAxes)
      for (int64_t i = 0; i < rank; ++i)
        out.push_back(i);
    return out;
  }
  auto norm = normalizeAxes(axes, rank, "reduction axes");
  if (!norm)
    return norm.takeError();
  out = *norm;
  llvm::sort(out);
  return out;
}

Expected<Dims> reduce(ArrayRef<int64_t> input, ArrayRef<int64_t> axes,
                      bool keepDims, bool noopWithEmptyAxes) {
  auto red = reducedAxes(input.size(), axes, noopWithEmptyAxes);
  if (!red)
    return red.takeError();
  Dims out;
  for (auto [i, d] : llvm::enumerate(input)) {
    if (!llvm::is_contained(*red, (int64_t)i))
      out.push_back(d);
    else if (keepDims)
      out.push_back(1);
  }
  return out;
}

SliceDim sliceDim(int64_t dim, int64_t start, int64_t end, int64_t step) {
  if (start < 0)
    start = start < -dim ? 0 : start + dim;
  if (end < 0)
    end = end < -dim ? -1 : end + dim;
  // A step at least as long as the dim selects at most the start: the same
  // as a step of exactly the dim, which keeps the arithmetic below (and the
  // kernels' address steps) from overflowing for steps near +-2^63.
  int64_t longest = std::max<int64_t>(dim, 1);
  step = std::clamp<int64_t>(step, -longest, longest);
  SliceDim s;
  s.step = step;
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, dim);
    end = std::clamp<int64_t>(end, 0, dim);
    s.size = end > start ? (end - start + step - 1) / step : 0;
  } else {
    start = std::clamp<int64_t>(start, 0, dim - 1);
    end = std::clamp<int64_t>(end, -1, dim - 1);
    s.size = start > end ? (start - end - step - 1) / -step : 0;
  }
  s.start = start;
  return s;
}

Expected<llvm::SmallVector<SliceDim, 6>>
slice(ArrayRef<int64_t> input, ArrayRef<int64_t> starts, ArrayRef<int64_t> ends,
      ArrayRef<int64_t> axes, ArrayRef<int64_t> steps) {
  size_t n = starts.size();
  if (ends.size() != n || (!axes.empty() && axes.size() != n) ||
      (!steps.empty() && steps.size() != n))
    return makeError("Slice starts, ends, axes and steps differ in length");
  Dims defaultAxes;
  if (axes.empty()) {
    for (size_t i = 0; i < n; ++i)
      defaultAxes.push_back(i);
    axes = defaultAxes;
  }
  auto norm = normalizeAxes(axes, input.size(), "Slice axes");
  if (!norm)
    return norm.takeError();
  llvm::SmallVector<SliceDim, 6> out;
  for (int64_t d : input)
    out.push_back(SliceDim{0, 1, d});
  for (size_t i = 0; i < n; ++i) {
    int64_t step = steps.empty() ? 1 : steps[i];
    if (step == 0)
      return makeError("Slice step must not be 0");
    int64_t a = (*norm)[i];
    if (isDynamic(input[a])) {
      out[a] = SliceDim{starts[i], step, kDynamic};
      continue;
    }
    out[a] = sliceDim(input[a], starts[i], ends[i], step);
  }
  return out;
}

/// Window attributes (and ConvTranspose's output_shape) stay below 2^31, so
/// that no sum or product of two of them (or with a dim) overflows.
constexpr int64_t kMaxWindowAttribute = int64_t(1) << 31;

Expected<WindowGeometry> window(ArrayRef<int64_t> in, ArrayRef<int64_t> kernel,
                                ArrayRef<int64_t> strides,
                                ArrayRef<int64_t> dilations,
                                ArrayRef<int64_t> pads, llvm::StringRef autoPad,
                                bool ceilMode) {
  size_t n = in.size();
  if (kernel.size() != n || strides.size() != n || dilations.size() != n ||
      pads.size() != 2 * n)
    return makeError("window attributes do not match " + llvm::Twine(n) +
                     " spatial dims (kernel " + toString(kernel) + ", strides " +
                     toString(strides) + ", dilations " + toString(dilations) +
                     ", pads " + toString(pads) + ")");
  WindowGeometry g;
  g.kernel.assign(kernel.begin(), kernel.end());
  g.strides.assign(strides.begin(), strides.end());
  g.dilations.assign(dilations.begin(), dilations.end());
  for (size_t i = 0; i < n; ++i) {
    if (kernel[i] <= 0 || strides[i] <= 0 || dilations[i] <= 0)
      return makeError("kernel, strides and dilations must be positive");
    if (pads[i] < 0 || pads[i + n] < 0)
      return makeError("pads must not be negative");
    if (kernel[i] >= kMaxWindowAttribute || strides[i] >= kMaxWindowAttribute ||
        dilations[i] >= kMaxWindowAttribute || pads[i] >= kMaxWindowAttribute ||
        pads[i + n] >= kMaxWindowAttribute)
      return makeError("kernel " + toString(kernel) + ", strides " + toString(strides) +
                       ", dilations " + toString(dilations) + " and pads " + toString(pads) +
                       " must be below 2^31");
    int64_t extent = dilations[i] * (kernel[i] - 1) + 1;
    int64_t pb = 0, pe = 0, out = kDynamic;
    if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
      if (!isDynamic(in[i])) {
        out = llvm::divideCeil(in[i], strides[i]);
        int64_t total = std::max<int64_t>(0, (out - 1) * strides[i] + extent - in[i]);
        pb = autoPad == "SAME_UPPER" ? total / 2 : total - total / 2;
        pe = total - pb;
      }
    } else if (autoPad == "VALID" || autoPad == "NOTSET") {
      if (autoPad == "NOTSET") {
        pb = pads[i];
        pe = pads[i + n];
      }
      if (!isDynamic(in[i])) {
        int64_t span = in[i] + pb + pe - extent;
        if (span < 0)
          return makeError("window of extent " + llvm::Twine(extent) +
                           " does not fit the padded input of size " +
                           llvm::Twine(in[i] + pb + pe));
        out = (ceilMode ? llvm::divideCeil(span, strides[i]) : span / strides[i]) + 1;
        // A window must start inside the input or its leading padding.
        if (ceilMode && (out - 1) * strides[i] >= in[i] + pb)
          --out;
      }
    } else {
      return makeError("unknown auto_pad '" + autoPad + "'");
    }
    // The kernels tabulate kernel x output coordinates per dim (8 bytes
    // each, the evaluator; a divisor per output from its taps, the x86
    // pools): bound those tables as tensors.
    if (!isDynamic(out) && out > kMaxTensorBytes / 8 / kernel[i])
      return makeError("a window of " + llvm::Twine(kernel[i]) + " taps over " +
                       llvm::Twine(out) + " output positions along spatial dim " +
                       llvm::Twine(i) + " is past the 2^30 taps nunc tabulates");
    g.padsBegin.push_back(pb);
    g.padsEnd.push_back(pe);
    g.output.push_back(out);
  }
  return g;
}

Expected<WindowGeometry> convTranspose(ArrayRef<int64_t> in, ArrayRef<int64_t> kernel,
                                       ArrayRef<int64_t> strides, ArrayRef<int64_t> dilations,
                                       ArrayRef<int64_t> pads, ArrayRef<int64_t> outputPadding,
                                       ArrayRef<int64_t> outputShape, llvm::StringRef autoPad) {
  size_t n = in.size();
  if (kernel.size() != n || strides.size() != n || dilations.size() != n ||
      pads.size() != 2 * n || outputPadding.size() != n ||
      (!outputShape.empty() && outputShape.size() != n))
    return makeError("ConvTranspose attributes do not match " + llvm::Twine(n) +
                     " spatial dims (kernel " + toString(kernel) + ", strides " +
                     toString(strides) + ", dilations " + toString(dilations) + ", pads " +
                     toString(pads) + ", output_padding " + toString(outputPadding) +
                     ", output_shape " + toString(outputShape) + ")");
  bool same = autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER";
  if (!same && autoPad != "NOTSET" && autoPad != "VALID")
    return makeError("unknown auto_pad '" + autoPad + "'");
  WindowGeometry g;
  g.kernel.assign(kernel.begin(), kernel.end());
  g.strides.assign(strides.begin(), strides.end());
  g.dilations.assign(dilations.begin(), dilations.end());
  for (size_t i = 0; i < n; ++i) {
    if (kernel[i] <= 0 || strides[i] <= 0 || dilations[i] <= 0)
      return makeError("kernel, strides and dilations must be positive");
    if (pads[i] < 0 || pads[i + n] < 0 || outputPadding[i] < 0)
      return makeError("pads and output_padding must not be negative");
    if (kernel[i] >= kMaxWindowAttribute || strides[i] >= kMaxWindowAttribute ||
        dilations[i] >= kMaxWindowAttribute || pads[i] >= kMaxWindowAttribute ||
        pads[i + n] >= kMaxWindowAttribute ||
        (!outputShape.empty() && outputShape[i] >= kMaxWindowAttribute))
      return makeError("kernel " + toString(kernel) + ", strides " + toString(strides) +
                       ", dilations " + toString(dilations) + ", pads " + toString(pads) +
                       " and output_shape " + toString(outputShape) + " must be below 2^31");
    // ONNX (as PyTorch) allows output_padding up to the dilation; past the
    // stride those rows are beyond every block, which onnxruntime refuses.
    if (outputPadding[i] >= strides[i])
      return makeError("output_padding " + llvm::Twine(outputPadding[i]) +
                       " must be smaller than the stride " + llvm::Twine(strides[i]) +
                       " (as onnxruntime requires)");
    int64_t extent = dilations[i] * (kernel[i] - 1) + 1;
    int64_t pb = 0, pe = 0, out = kDynamic;
    bool targeted = !outputShape.empty() || same;
    if (!targeted && autoPad == "NOTSET") {
      pb = pads[i];
      pe = pads[i + n];
    }
    if (!isDynamic(in[i])) {
      int64_t natural = strides[i] * (in[i] - 1) + outputPadding[i] + extent;
      if (targeted) {
        out = !outputShape.empty() ? outputShape[i] : in[i] * strides[i];
        int64_t total = natural - out;
        if (total > 0) {
          pb = autoPad == "SAME_UPPER" ? total / 2 : total - total / 2;
          pe = total - pb;
        } else if ((out - extent) / strides[i] + 1 != in[i]) {
          return makeError("output_shape " + toString(outputShape) + " does not fit input dims " +
                           toString(in) + " (dim " + llvm::Twine(i) + " gives at most " +
                           llvm::Twine(natural + strides[i] - 1) + ")");
        }
      } else {
        out = natural - pb - pe;
      }
      if (out <= 0)
        return makeError("the pads leave no output (dim " + llvm::Twine(i) + ")");
    } else if (!outputShape.empty()) {
      out = outputShape[i];
    }
    g.padsBegin.push_back(pb);
    g.padsEnd.push_back(pe);
    g.output.push_back(out);
  }
  return g;
}

Expected<Dims> col2imBlocks(ArrayRef<int64_t> image, ArrayRef<int64_t> block,
                            ArrayRef<int64_t> strides, ArrayRef<int64_t> dilations,
                            ArrayRef<int64_t> pads) {
  size_t n = image.size();
  if (n == 0 || block.size() != n || strides.size() != n || dilations.size() != n ||
      pads.size() != 2 * n)
    return makeError("Col2Im attributes do not match image_shape " + toString(image) +
                     " (block_shape " + toString(block) + ", strides " + toString(strides) +
                     ", dilations " + toString(dilations) + ", pads " + toString(pads) + ")");
  Dims blocks;
  for (size_t i = 0; i < n; ++i) {
    if (image[i] <= 0 || block[i] <= 0 || strides[i] <= 0 || dilations[i] <= 0)
      return makeError("image_shape, block_shape, strides and dilations must be positive");
    if (pads[i] < 0 || pads[i + n] < 0)
      return makeError("pads must not be negative");
    int64_t span = image[i] + pads[i] + pads[i + n] - (dilations[i] * (block[i] - 1) + 1);
    if (span < 0)
      return makeError("a block of extent " + llvm::Twine(dilations[i] * (block[i] - 1) + 1) +
                       " does not fit the padded image of size " +
                       llvm::Twine(image[i] + pads[i] + pads[i + n]));
    blocks.push_back(span / strides[i] + 1);
  }
  return blocks;
}

Expected<ResizePlan> resize(ArrayRef<int64_t> input, const ResizeParams &p,
                            std::optional<ArrayRef<double>> roi,
                            std::optional<ArrayRef<double>> scales,
                            std::optional<ArrayRef<int64_t>> sizes) {
  int64_t rank = input.size();
  auto oneOf = [](llvm::StringRef v, std::initializer_list<llvm::StringRef> set) {
    return llvm::is_contained(set, v);
  };
  if (!oneOf(p.mode, {"nearest", "linear", "cubic"}))
    return makeError("unknown Resize mode '" + p.mode + "'");
  if (!oneOf(p.coordinateMode, {"half_pixel", "half_pixel_symmetric", "pytorch_half_pixel",
                                "align_corners", "asymmetric", "tf_crop_and_resize",
                                "tf_half_pixel_for_nn"}))
    return makeError("unknown coordinate_transformation_mode '" + p.coordinateMode + "'");
  if (!oneOf(p.nearestMode, {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil",
                             "simple"}))
    return makeError("unknown nearest_mode '" + p.nearestMode + "'");
  if (!oneOf(p.keepAspectRatioPolicy, {"stretch", "not_larger", "not_smaller"}))
    return makeError("unknown keep_aspect_ratio_policy '" + p.keepAspectRatioPolicy + "'");
  if (p.antialias && p.mode == "nearest")
    return makeError("antialias is defined for linear and cubic Resize only");
  Dims axes;
  if (p.axes.empty()) {
    for (int64_t d = 0; d < rank; ++d)
      axes.push_back(d);
  } else {
    Expected<Dims> a = normalizeAxes(p.axes, rank, "Resize axes");
    if (!a)
      return a.takeError();
    axes = *a;
  }
  size_t na = axes.size();
  if (scales.has_value() == sizes.has_value())
    return makeError("Resize needs exactly one of scales and sizes");
  if ((scales ? scales->size() : sizes->size()) != na)
    return makeError("Resize " + llvm::Twine(scales ? "scales" : "sizes") + " has " +
                     llvm::Twine(scales ? scales->size() : sizes->size()) + " entries for " +
                     llvm::Twine(na) + " resized dims");
  if (p.keepAspectRatioPolicy != "stretch" && !sizes)
    return makeError("keep_aspect_ratio_policy '" + p.keepAspectRatioPolicy +
                     "' needs sizes, not scales");
  ResizePlan plan;
  plan.output.assign(input.begin(), input.end());
  plan.scales.assign(rank, 1.0);
  plan.roiStart.assign(rank, 0.0);
  plan.roiEnd.assign(rank, 1.0);
  if (p.coordinateMode == "tf_crop_and_resize") {
    if (!roi || (roi->size() != 2 * na && roi->size() != 2 * static_cast<size_t>(rank)))
      return makeError("tf_crop_and_resize needs a roi of " + llvm::Twine(2 * na) + " values");
    bool perAxis = roi->size() == 2 * na;
    size_t half = roi->size() / 2;
    for (size_t i = 0; i < na; ++i) {
      size_t at = perAxis ? i : axes[i];
      plan.roiStart[axes[i]] = (*roi)[at];
      plan.roiEnd[axes[i]] = (*roi)[at + half];
    }
  }
  if (scales) {
    for (size_t i = 0; i < na; ++i) {
      double s = (*scales)[i];
      int64_t d = axes[i];
      // floor(scale * dim) in f32, as onnxruntime and PyTorch compute it
      // (10 x 0.7f is 7, not 6.99999988).
      float out = static_cast<float>(s) * static_cast<float>(isDynamic(input[d]) ? 1 : input[d]);
      if (!(s > 0) || !(out < 0x1p40f))
        return makeError("Resize scales must be positive and finite, and give dims below 2^40, "
                         "got " + llvm::formatv("{0}", s));
      plan.scales[d] = s;
      plan.output[d] = isDynamic(input[d]) ? kDynamic : static_cast<int64_t>(out);
    }
    return plan;
  }
  bool stretch = p.keepAspectRatioPolicy == "stretch";
  for (size_t i = 0; i < na; ++i) {
    int64_t d = axes[i];
    if ((*sizes)[i] <= 0)
      return makeError("Resize sizes must be positive, got " + toString(*sizes));
    // Stretched to known sizes: the output is known before the input dims
    // are (their scales are, once the dims are pinned).
    if (isDynamic(input[d])) {
      plan.output[d] = stretch ? (*sizes)[i] : kDynamic;
      plan.scales[d] = std::nan("");
      continue;
    }
    if (input[d] == 0)
      return makeError("Resize cannot resize an empty dim");
    // In f32, as onnxruntime.
    plan.scales[d] = static_cast<float>((*sizes)[i]) / static_cast<float>(input[d]);
    plan.output[d] = (*sizes)[i];
  }
  if (!stretch && llvm::all_of(axes, [&](int64_t d) { return !isDynamic(input[d]); })) {
    auto s = static_cast<float>(plan.scales[axes[0]]);
    for (int64_t d : axes)
      s = p.keepAspectRatioPolicy == "not_larger" ? std::min(s, static_cast<float>(plan.scales[d]))
                                                  : std::max(s, static_cast<float>(plan.scales[d]));
    for (int64_t d : axes) {
      plan.scales[d] = s;
      plan.output[d] = static_cast<int64_t>(std::round(s * static_cast<float>(input[d])));
    }
  }
  return plan;
}

namespace {
/// Interpolation weights of the taps around the source coordinate, whose
/// fractional part is `ratio` (1 at an integer), as ONNX's reference.
std::vector<double> resizeCoefficients(const ResizeParams &p, double ratio, double scale) {
  double a = p.cubicA;
  auto cubic = [a](double x) {
    x = std::fabs(x);
    if (x <= 1)
      return ((a + 2) * x - (a + 3)) * x * x + 1;
    if (x < 2)
      return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
    return 0.0;
  };
  std::vector<double> c;
  if (!p.antialias) {
    if (p.mode == "linear")
      return {1 - ratio, ratio};
    return {cubic(ratio + 1), cubic(ratio), cubic(1 - ratio), cubic(2 - ratio)};
  }
  // Downsampling stretches the filter by 1 / scale (never narrower than 1).
  double s = std::min(scale, 1.0);
  int64_t start = static_cast<int64_t>(std::floor((p.mode == "linear" ? -1 : -2) / s)) + 1;
  double sum = 0;
  for (int64_t i = start; i < 2 - start; ++i) {
    double x = s * (i - ratio);
    c.push_back(p.mode == "linear" ? std::clamp(1 - std::fabs(x), 0.0, 1.0) : cubic(x));
    sum += c.back();
  }
  for (double &v : c)
    v /= sum;
  return c;
}
} // namespace

ResizeAxis resizeAxis(const ResizeParams &p, int64_t in, int64_t out, double scale,
                      double roiStart, double roiEnd) {
  ResizeAxis r;
  auto isClose = [](double x, double y) {
    return std::fabs(x - y) <= 1e-9 * std::max(std::fabs(x), std::fabs(y));
  };
  // As ONNX's reference: a dim of scale ~1, same size and the whole roi is
  // left as it is.
  if (isClose(scale, 1.0) && out == in && roiStart == 0.0 && roiEnd == 1.0)
    r.identity = true;
  bool nearest = p.mode == "nearest";
  r.taps = nearest || r.identity ? 1 : resizeCoefficients(p, 0.5, scale).size();
  r.index.resize(out * r.taps);
  r.weight.resize(out * r.taps, 1.0);
  r.extrapolated.assign(out, 0);
  if (r.identity) {
    for (int64_t o = 0; o < out; ++o)
      r.index[o] = o;
    return r;
  }
  // align_corners, tf_crop_and_resize and pytorch_half_pixel divide by the
  // output length, as onnxruntime and PyTorch do (ONNX's reference takes
  // scale x length, a fraction when the scale does not divide: two of its
  // node tests, see expected_failures.txt); half_pixel_symmetric by both.
  // In f32, as onnxruntime computes them: a source coordinate that lands
  // on a rounding tie (3.5 / 0.7f) rounds as there.
  float sc = static_cast<float>(scale), inF = static_cast<float>(in),
        outN = static_cast<float>(out), outF = sc * inF;
  float roiS = static_cast<float>(roiStart), roiE = static_cast<float>(roiEnd);
  llvm::StringRef mode = p.coordinateMode;
  for (int64_t o = 0; o < out; ++o) {
    float y = static_cast<float>(o), xf;
    if (mode == "align_corners") {
      xf = out == 1 ? 0.f : y * (inF - 1) / (outN - 1);
    } else if (mode == "asymmetric") {
      xf = y / sc;
    } else if (mode == "tf_crop_and_resize") {
      xf = out == 1 ? 0.5f * (roiS + roiE) * (inF - 1)
                    : roiS * (inF - 1) + y * (roiE - roiS) * (inF - 1) / (outN - 1);
      r.extrapolated[o] = xf < 0 || xf > inF - 1;
    } else if (mode == "pytorch_half_pixel") {
      xf = out == 1 ? 0.f : (y + 0.5f) / sc - 0.5f;
    } else if (mode == "tf_half_pixel_for_nn") {
      xf = (y + 0.5f) / sc;
    } else if (mode == "half_pixel_symmetric") {
      // onnxruntime adds the double 0.5s here: one rounding, at the end.
      float offset = inF / 2 * (1 - outN / outF);
      xf = static_cast<float>(double(offset) + (double(y) + 0.5) / double(sc) - 0.5);
    } else {
      xf = (y + 0.5f) / sc - 0.5f;
    }
    double x = xf;
    double fl = std::floor(x);
    bool integral = x == fl;
    double ratio = integral ? 1.0 : x - fl;
    auto at = static_cast<int64_t>(fl);
    if (nearest) {
      int64_t i = at;
      if (!integral) {
        llvm::StringRef nm = p.nearestMode;
        bool up = nm == "ceil" || (nm == "round_prefer_floor" && ratio > 0.5) ||
                  (nm == "round_prefer_ceil" && ratio >= 0.5) || (nm == "simple" && scale < 1);
        i += up ? 1 : 0;
      }
      r.index[o] = std::clamp<int64_t>(i, 0, in - 1);
      continue;
    }
    std::vector<double> c = resizeCoefficients(p, ratio, scale);
    int64_t first = at - r.taps / 2 + (integral ? 0 : 1);
    double sum = 0;
    for (int64_t t = 0; t < r.taps; ++t) {
      int64_t i = first + t;
      if (p.excludeOutside && (i < 0 || i >= in))
        c[t] = 0;
      sum += c[t];
    }
    for (int64_t t = 0; t < r.taps; ++t) {
      r.index[o * r.taps + t] = std::clamp<int64_t>(first + t, 0, in - 1);
      r.weight[o * r.taps + t] = p.excludeOutside && sum != 0 ? c[t] / sum : c[t];
    }
  }
  return r;
}

} // namespace mlir::nunc::shape
