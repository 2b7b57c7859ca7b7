//===- DataKernels.cpp - gather, reshape, transpose, slice, concat, ... ---===//

#include "KernelSupport.h"
#include "Kernels.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

namespace mlir::nunc::kernels {

namespace {

/// Copies element `from` of src to element `to` of dst for a given width.
template <size_t W> inline void copyElement(char *dst, const char *src) {
  std::memcpy(dst, src, W);
}

/// Gathers out[i] = in[offset(i)] for every element of `outShape`, reading
/// `in` through `strides` from `base`.
void stridedCopy(const Tensor &in, Tensor &out, int64_t base,
                 llvm::SmallVector<int64_t, 6> strides) {
  size_t w = dtypeSize(in.dtype());
  const char *src = in.raw() + base * w;
  char *dst = out.mutableRaw();
  std::array<llvm::SmallVector<int64_t, 6>, 1> st = {std::move(strides)};
  auto run = [&]<size_t W>() {
    forEachIndex<1>(out.shape(), st, [&](int64_t i, const std::array<int64_t, 1> &off) {
      copyElement<W>(dst + i * W, src + off[0] * W);
    });
  };
  switch (w) {
  case 1: run.template operator()<1>(); break;
  case 2: run.template operator()<2>(); break;
  case 4: run.template operator()<4>(); break;
  default: run.template operator()<8>(); break;
  }
}

} // namespace

Expected<Tensor> gather(const Tensor &data, const Tensor &indices, int64_t axis) {
  if (indices.dtype() != DType::I64 && indices.dtype() != DType::I32)
    return kernelError("Gather indices must be int32 or int64");
  NUNC_ASSIGN_OR_RETURN(a, shape::normalizeAxis(axis, data.rank(), "Gather axis"));
  NUNC_ASSIGN_OR_RETURN(outShape, shape::gather(data.shape(), indices.shape(), a));
  NUNC_ASSIGN_OR_RETURN(out, Tensor::create(data.dtype(), outShape));
  int64_t outer = 1, inner = 1, dim = data.dim(a);
  for (int64_t i = 0; i < a; ++i)
    outer *= data.dim(i);
  for (int64_t i = a + 1; i < data.rank(); ++i)
    inner *= data.dim(i);
  size_t block = inner * dtypeSize(data.dtype());
  int64_t count = indices.numElements();
  // Indices are data: check every one before reading.
  llvm::SmallVector<int64_t> idx(count);
  for (int64_t j = 0; j < count; ++j) {
    int64_t v = indices.getInt(j);
    if (v < -dim || v >= dim)
      return kernelError("index " + llvm::Twine(v) + " is out of range for axis " +
                         llvm::Twine(a) + " of size " + llvm::Twine(dim) +
                         " (valid: " + llvm::Twine(-dim) + " to " +
                         llvm::Twine(dim - 1) + ")");
    idx[j] = v < 0 ? v + dim : v;
  }
  char *dst = out.mutableRaw();
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < count; ++j) {
      std::memcpy(dst, data.raw() + (o * dim + idx[j]) * block, block);
      dst += block;
    }
  return out;
}

Expected<Tensor> gatherElements(const Tensor &data, const Tensor &indices, int64_t axis) {
  if (indices.dtype() != DType::I64 && indices.dtype() != DType::I32)
    return kernelError("GatherElements indices must be int32 or int64");
  if (data.rank() != indices.rank() || data.rank() == 0)
    return kernelError("GatherElements needs data and indices of the same rank (at least 1)");
  NUNC_ASSIGN_OR_RETURN(a, shape::normalizeAxis(axis, data.rank(), "GatherElements axis"));
  for (int64_t d = 0; d < data.rank(); ++d)
    if (d != a && indices.dim(d) > data.dim(d))
      return kernelError("GatherElements indices dim " + llvm::Twine(d) +
                         " exceeds the data's");
  const int64_t dim = data.dim(a);
  for (int64_t j = 0, e = indices.numElements(); j < e; ++j) {
    int64_t v = indices.getInt(j);
    if (v < -dim || v >= dim)
      return kernelError("index " + llvm::Twine(v) + " is out of range for axis " +
                         llvm::Twine(a) + " of size " + llvm::Twine(dim) + " (valid: " +
                         llvm::Twine(-dim) + " to " + llvm::Twine(dim - 1) + ")");
  }
  NUNC_ASSIGN_OR_RETURN(out, Tensor::create(data.dtype(), indices.shape()));
  const size_t width = dtypeSize(data.dtype());
  llvm::SmallVector<int64_t, 6> dataStrides = rowMajorStrides(data.shape());
  llvm::SmallVector<int64_t, 6> idxStrides = rowMajorStrides(indices.shape());
  char *dst = out.mutableRaw();
  forEachIndex<1>(indices.shape(), std::array{dataStrides},
                  [&](int64_t j, const std::array<int64_t, 1> &off) {
                    int64_t v = indices.getInt(j);
                    v = v < 0 ? v + dim : v;
                    const int64_t at = j / idxStrides[a] % indices.dim(a);
                    std::memcpy(dst + j * width,
                                data.raw() + (off[0] + (v - at) * dataStrides[a]) * width,
                                width);
                  });
  return out;
}

Expected<llvm::SmallVector<Tensor, 2>> topK(const Tensor &x, int64_t k, int64_t axis,
                                            bool largest) {
  if (x.dtype() == DType::Bool)
    return kernelError("TopK does not take bool tensors");
  NUNC_ASSIGN_OR_RETURN(a, shape::normalizeAxis(axis, x.rank(), "TopK axis"));
  const int64_t n = x.dim(a);
  if (k < 0 || k > n)
    return kernelError("TopK's k (" + llvm::Twine(k) + ") must be between 0 and " +
                       llvm::Twine(n));
  shape::Dims outShape(x.shape());
  outShape[a] = k;
  NUNC_ASSIGN_OR_RETURN(values, Tensor::create(x.dtype(), outShape));
  NUNC_ASSIGN_OR_RETURN(indices, Tensor::create(DType::I64, outShape));
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < a; ++d)
    outer *= x.dim(d);
  for (int64_t d = a + 1; d < x.rank(); ++d)
    inner *= x.dim(d);
  const size_t width = dtypeSize(x.dtype());
  int64_t *idx = indices.mutableAs<int64_t>();
  std::vector<int64_t> order(n);
  for (int64_t b = 0; b < outer; ++b)
    for (int64_t i = 0; i < inner; ++i) {
      auto at = [&](int64_t s) { return (b * n + s) * inner + i; };
      for (int64_t s = 0; s < n; ++s)
        order[s] = s;
      std::stable_sort(order.begin(), order.end(), [&](int64_t p, int64_t q) {
        double u = x.getDouble(at(p)), v = x.getDouble(at(q));
        if (std::isnan(u) || std::isnan(v))
          return !std::isnan(u) && std::isnan(v);
        if (x.dtype() == DType::U64) {
          uint64_t iu = x.as<uint64_t>()[at(p)], iv = x.as<uint64_t>()[at(q)];
          return largest ? iu > iv : iu < iv;
        }
        if (!isFloat(x.dtype())) {
          int64_t iu = x.getInt(at(p)), iv = x.getInt(at(q));
          return largest ? iu > iv : iu < iv;
        }
        return largest ? u > v : u < v;
      });
      for (int64_t s = 0; s < k; ++s) {
        const int64_t o = (b * k + s) * inner + i;
        std::memcpy(values.mutableRaw() + o * width, x.raw() + at(order[s]) * width, width);
        idx[o] = order[s];
      }
    }
  return llvm::SmallVector<Tensor, 2>{std::move(values), std::move(indices)};
}

namespace {
/// The index at `flat` of an index tensor, checked against `dim` and made
/// non-negative.
Expected<int64_t> checkedIndex(const Tensor &indices, int64_t flat, int64_t dim,
                               int64_t axis) {
  int64_t v = indices.getInt(flat);
  if (v < -dim || v >= dim)
    return kernelError("index " + llvm::Twine(v) + " is out of range for axis " +
                       llvm::Twine(axis) + " of size " + llvm::Twine(dim) + " (valid: " +
                       llvm::Twine(-dim) + " to " + llvm::Twine(dim - 1) + ")");
  return v < 0 ? v + dim : v;
}

/// out[at] = reduce(out[at], upd[from]) elementwise in the compute type.
template <typename T>
void combine(T *out, int64_t at, const T *upd, int64_t from, llvm::StringRef reduction) {
  using C = ComputeType<T>;
  if (reduction == "none") {
    out[at] = upd[from];
    return;
  }
  if constexpr (!std::is_same_v<T, bool>) {
    C a = static_cast<C>(out[at]), b = static_cast<C>(upd[from]);
    C r = reduction == "add" ? C(a + b)
          : reduction == "mul" ? C(a * b)
          : reduction == "max" ? std::max(a, b)
                               : std::min(a, b);
    out[at] = T(r);
  }
}
} // namespace

Expected<Tensor> gatherND(const Tensor &data, const Tensor &indices, int64_t batchDims) {
  const int64_t r = data.rank(), q = indices.rank(), b = batchDims;
  const int64_t k = q ? indices.dim(q - 1) : 0;
  if (q < 1 || b < 0 || b >= std::min(r, q) || k < 1 || b + k > r)
    return kernelError("GatherND: bad index tuples or batch_dims");
  shape::Dims outShape(indices.shape().begin(), indices.shape().end() - 1);
  outShape.append(data.shape().begin() + b + k, data.shape().end());
  NUNC_ASSIGN_OR_RETURN(out, Tensor::create(data.dtype(), outShape));
  int64_t batch = 1, tuples = 1, slice = 1, dataBatch = 1;
  for (int64_t d = 0; d < b; ++d)
    batch *= indices.dim(d);
  for (int64_t d = b; d < q - 1; ++d)
    tuples *= indices.dim(d);
  for (int64_t d = b + k; d < r; ++d)
    slice *= data.dim(d);
  for (int64_t d = b; d < r; ++d)
    dataBatch *= data.dim(d);
  const size_t width = dtypeSize(data.dtype()) * slice;
  char *dst = out.mutableRaw();
  for (int64_t bi = 0; bi < batch; ++bi)
    for (int64_t t = 0; t < tuples; ++t) {
      int64_t offset = 0; // in slices, within the batch item
      for (int64_t e = 0; e < k; ++e) {
        NUNC_ASSIGN_OR_RETURN(v, checkedIndex(indices, (bi * tuples + t) * k + e,
                                              data.dim(b + e), b + e));
        offset = offset * data.dim(b + e) + v;
      }
      std::memcpy(dst, data.raw() + (bi * dataBatch / slice + offset) * width, width);
      dst += width;
    }
  return out;
}

Expected<Tensor> scatterND(const Tensor &data, const Tensor &indices, const Tensor &updates,
                           llvm::StringRef reduction) {
  const int64_t r = data.rank(), q = indices.rank();
  const int64_t k = q ? indices.dim(q - 1) : 0;
  if (q < 1 || k < 1 || k > r)
    return kernelError("ScatterND: bad index tuples");
  int64_t tuples = indices.numElements() / k, slice = 1;
  for (int64_t d = k; d < r; ++d)
    slice *= data.dim(d);
  if (updates.numElements() != tuples * slice || updates.dtype() != data.dtype())
    return kernelError("ScatterND: updates do not match the indexed slices");
  NUNC_ASSIGN_OR_RETURN(out, Tensor::copyOf(data.dtype(), data.shape(), data.raw()));
  llvm::Error err = llvm::Error::success();
  dispatchDType(data.dtype(), [&]<typename T>() {
    T *o = out.mutableAs<T>();
    const T *u = updates.as<T>();
    for (int64_t t = 0; t < tuples && !err; ++t) {
      int64_t offset = 0;
      for (int64_t e = 0; e < k; ++e) {
        Expected<int64_t> v = checkedIndex(indices, t * k + e, data.dim(e), e);
        if (!v) {
          err = v.takeError();
          return;
        }
        offset = offset * data.dim(e) + *v;
      }
      for (int64_t s = 0; s < slice; ++s)
        combine(o, offset * slice + s, u, t * slice + s, reduction);
    }
  });
  if (err)
    return std::move(err);
  return out;
}

Expected<Tensor> scatterElements(const Tensor &data, const Tensor &indices,
                                 const Tensor &updates, int64_t axis,
                                 llvm::StringRef reduction) {
  if (indices.shape() != updates.shape() || indices.rank() != data.rank() || data.rank() == 0 ||
      updates.dtype() != data.dtype())
    return kernelError("ScatterElements: indices and updates must have one shape, of data's "
                       "rank");
  NUNC_ASSIGN_OR_RETURN(a, shape::normalizeAxis(axis, data.rank(), "ScatterElements axis"));
  for (int64_t d = 0; d < data.rank(); ++d)
    if (d != a && indices.dim(d) > data.dim(d))
      return kernelError("ScatterElements indices dim " + llvm::Twine(d) +
                         " exceeds the data's");
  NUNC_ASSIGN_OR_RETURN(out, Tensor::copyOf(data.dtype(), data.shape(), data.raw()));
  llvm::SmallVector<int64_t, 6> dataStrides = rowMajorStrides(data.shape());
  llvm::SmallVector<int64_t, 6> idxStrides = rowMajorStrides(indices.shape());
  llvm::Error err = llvm::Error::success();
  dispatchDType(data.dtype(), [&]<typename T>() {
    T *o = out.mutableAs<T>();
    const T *u = updates.as<T>();
    forEachIndex<1>(indices.shape(), std::array{dataStrides},
                    [&](int64_t j, const std::array<int64_t, 1> &off) {
                      if (err)
                        return;
                      Expected<int64_t> v = checkedIndex(indices, j, data.dim(a), a);
                      if (!v) {
                        err = v.takeError();
                        return;
                      }
                      const int64_t at = j / idxStrides[a] % indices.dim(a);
                      combine(o, off[0] + (*v - at) * dataStrides[a], u, j, reduction);
                    });
  });
  if (err)
    return std::move(err);
  return out;
}

Expected<Tensor> cumulative(const Tensor &x, int64_t axis, bool exclusive, bool reverse,
                            bool product) {
  const char *name = product ? "CumProd" : "CumSum";
  if (x.dtype() == DType::Bool)
    return kernelError(llvm::Twine(name) + " does not take bool tensors");
  const std::string what = std::string(name) + " axis";
  NUNC_ASSIGN_OR_RETURN(a, shape::normalizeAxis(axis, x.rank(), what));
  NUNC_ASSIGN_OR_RETURN(out, Tensor::create(x.dtype(), x.shape()));
  int64_t outer = 1, inner = 1, n = x.dim(a);
  for (int64_t d = 0; d < a; ++d)
    outer *= x.dim(d);
  for (int64_t d = a + 1; d < x.rank(); ++d)
    inner *= x.dim(d);
  dispatchDType(x.dtype(), [&]<typename T>() {
    if constexpr (!std::is_same_v<T, bool>) {
      using C = ComputeType<T>;
      using Acc = std::conditional_t<std::is_integral_v<C>, Accumulator<C>, C>;
      const T *in = x.as<T>();
      T *o = out.mutableAs<T>();
      for (int64_t b = 0; b < outer; ++b)
        for (int64_t i = 0; i < inner; ++i) {
          // (Integers in their unsigned type: products and sums wrap.)
          Acc acc = product ? 1 : 0;
          auto step = [&](Acc v) {
            if constexpr (std::is_integral_v<Acc>) // (u16 * u16 would overflow int)
              acc = product ? Acc(uint64_t(acc) * uint64_t(v)) : Acc(uint64_t(acc) + uint64_t(v));
            else
              acc = product ? acc * v : acc + v;
          };
          for (int64_t s = 0; s < n; ++s) {
            const int64_t at = (b * n + (reverse ? n - 1 - s : s)) * inner + i;
            const Acc v = static_cast<Acc>(static_cast<C>(in[at]));
            if (!exclusive)
              step(v);
            o[at] = T(static_cast<C>(acc));
            if (exclusive)
              step(v);
          }
        }
    }
  });
  return out;
}

Expected<Tensor> reshape(const Tensor &data, const Tensor &shapeT, bool allowZero) {
  if (shapeT.rank() != 1)
    return kernelError("Reshape's shape must be 1-D");
  NUNC_ASSIGN_OR_RETURN(target,
                        shape::reshape(data.shape(), readInts(shapeT), allowZero));
  return data.reshaped(target);
}

Expected<Tensor> flatten(const Tensor &x, int64_t axis) {
  NUNC_ASSIGN_OR_RETURN(target, shape::flatten(x.shape(), axis));
  return x.reshaped(target);
}

Expected<Tensor> transpose(const Tensor &x, llvm::ArrayRef<int64_t> perm) {
  NUNC_ASSIGN_OR_RETURN(outShape, shape::transpose(x.shape(), perm));
  NUNC_ASSIGN_OR_RETURN(out, Tensor::create(x.dtype(), outShape));
  llvm::SmallVector<int64_t, 6> own = rowMajorStrides(x.shape()), strides;
  for (int64_t p : perm)
    strides.push_back(own[p]);
  stridedCopy(x, out, 0, strides);
  return out;
}

Expected<Tensor> unsqueeze(const Tensor &x, const Tensor &axes) {
  NUNC_ASSIGN_OR_RETURN(target, shape::unsqueeze(x.shape(), readInts(axes)));
  return x.reshaped(target);
}

Expected<Tensor> squeeze(const Tensor &x, const Tensor *axes) {
  std::optional<llvm::SmallVector<int64_t, 6>> values;
  if (axes)
    values = readInts(*axes);
  std::optional<llvm::ArrayRef<int64_t>> ref;
  if (values)
    ref = llvm::ArrayRef<int64_t>(*values);
  NUNC_ASSIGN_OR_RETURN(target, shape::squeeze(x.shape(), ref));
  return x.reshaped(target);
}

Expected<Tensor> concat(llvm::ArrayRef<const Tensor *> inputs, int64_t axis) {
  if (inputs.empty())
    return kernelError("Concat needs at least one input");
  llvm::SmallVector<llvm::ArrayRef<int64_t>> shapes;
  for (const Tensor *t : inputs) {
    if (t->dtype() != inputs.front()->dtype())
      return kernelError("Concat inputs have different types");
    shapes.push_back(t->shape());
  }
  NUNC_ASSIGN_OR_RETURN(outShape, shape::concat(shapes, axis));
  int64_t a = axis < 0 ? axis + inputs.front()->rank() : axis;
  NUNC_ASSIGN_OR_RETURN(out, Tensor::create(inputs.front()->dtype(), outShape));
  int64_t outer = 1;
  for (int64_t i = 0; i < a; ++i)
    outer *= outShape[i];
  char *dst = out.mutableRaw();
  for (int64_t o = 0; o < outer; ++o)
    for (const Tensor *t : inputs) {
      size_t block = outer ? t->byteSize() / outer : 0;
      std::memcpy(dst, t->raw() + o * block, block);
      dst += block;
    }
  return out;
}

Expected<Tensor> slice(const Tensor &x, const Tensor &starts, const Tensor &ends,
                       const Tensor *axes, const Tensor *steps) {
  llvm::SmallVector<int64_t, 6> noValues;
  NUNC_ASSIGN_OR_RETURN(
      dims, shape::slice(x.shape(), readInts(starts), readInts(ends),
                         axes ? readInts(*axes) : noValues,
                         steps ? readInts(*steps) : noValues));
  shape::Dims outShape;
  llvm::SmallVector<int64_t, 6> own = rowMajorStrides(x.shape()), strides;
  int64_t base = 0;
  for (auto [i, d] : llvm::enumerate(dims)) {
    outShape.push_back(d.size);
    strides.push_back(own[i] * d.step);
    if (d.size > 0)
      base += own[i] * d.start;
  }
  NUNC_ASSIGN_OR_RETURN(out, Tensor::create(x.dtype(), outShape));
  stridedCopy(x, out, base, strides);
  return out;
}

Expected<Tensor> pad(const Tensor &x, const Tensor &padsT, const Tensor *value,
                     const Tensor *axes, llvm::StringRef mode) {
  llvm::SmallVector<int64_t, 6> pads = readInts(padsT);
  const int64_t rank = x.rank();
  if (axes) {
    NUNC_ASSIGN_OR_RETURN(full, shape::spreadPads(pads, readInts(*axes), rank));
    pads.assign(full.begin(), full.end());
  }
  if (static_cast<int64_t>(pads.size()) != 2 * rank)
    return kernelError("Pad needs 2 x rank pads, got " + std::to_string(pads.size()));
  if (value && (value->numElements() != 1 || value->dtype() != x.dtype()))
    return kernelError("Pad's constant_value must be one element of the input's type");
  shape::Dims outShape;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t n = x.shape()[d], size = n + pads[d] + pads[d + rank];
    bool grows = pads[d] > 0 || pads[d + rank] > 0;
    if (size < 0 || (mode != "constant" && grows && n == 0) ||
        (mode == "reflect" && grows && (pads[d] >= n || pads[d + rank] >= n)))
      return kernelError("Pad cannot pad dim " + std::to_string(d) + " of " +
                         std::to_string(n) + " by " + std::to_string(pads[d]) + ", " +
                         std::to_string(pads[d + rank]) + " in mode " + mode.str());
    outShape.push_back(size);
  }
  NUNC_ASSIGN_OR_RETURN(out, Tensor::create(x.dtype(), outShape));
  const size_t width = dtypeSize(x.dtype());
  llvm::SmallVector<int64_t, 6> strides = rowMajorStrides(x.shape());
  const int64_t total = out.numElements();
  llvm::SmallVector<int64_t, 6> idx(rank, 0);
  for (int64_t i = 0; i < total; ++i) {
    int64_t offset = 0;
    bool inside = true;
    for (int64_t d = 0; d < rank; ++d) {
      int64_t n = x.shape()[d], j = idx[d] - pads[d];
      if (j < 0 || j >= n) {
        if (mode == "constant") {
          inside = false;
          break;
        }
        if (mode == "edge")
          j = j < 0 ? 0 : n - 1;
        else if (mode == "wrap")
          j = ((j % n) + n) % n;
        else // reflect: pads < n, so one mirror suffices
          j = j < 0 ? -j : 2 * (n - 1) - j;
      }
      offset += j * strides[d];
    }
    char *dst = out.mutableRaw() + i * width;
    if (inside)
      std::memcpy(dst, x.raw() + offset * width, width);
    else if (value)
      std::memcpy(dst, value->raw(), width);
    else
      std::memset(dst, 0, width);
    for (int64_t d = rank - 1; d >= 0 && ++idx[d] == outShape[d]; --d)
      idx[d] = 0;
  }
  return out;
}

Expected<Tensor> expand(const Tensor &x, const Tensor &shapeT) {
  if (shapeT.rank() != 1)
    return kernelError("Expand's shape must be 1-D");
  llvm::SmallVector<int64_t, 6> target = readInts(shapeT);
  for (int64_t d : target)
    if (d < 0)
      return kernelError("Expand's shape " + shape::toString(target) +
                         " has a negative dim");
  NUNC_ASSIGN_OR_RETURN(outShape, shape::broadcast(x.shape(), target));
  NUNC_ASSIGN_OR_RETURN(out, Tensor::create(x.dtype(), outShape));
  stridedCopy(x, out, 0, broadcastStrides(x.shape(), outShape));
  return out;
}

Expected<Tensor> shapeOf(const Tensor &x, int64_t start, std::optional<int64_t> end) {
  int64_t rank = x.rank();
  auto clampIndex = [&](int64_t i) { return std::clamp<int64_t>(i < 0 ? i + rank : i, 0, rank); };
  int64_t s = clampIndex(start), e = clampIndex(end.value_or(rank));
  llvm::SmallVector<int64_t, 6> dims(x.shape().begin() + s,
                                     x.shape().begin() + std::max(s, e));
  return Tensor::fromValues<int64_t>(DType::I64, {(int64_t)dims.size()}, dims);
}

Expected<Tensor> constantOfShape(const Tensor &shapeT, const Tensor &value) {
  if (value.numElements() != 1)
    return kernelError("ConstantOfShape's value must hold one element");
  llvm::SmallVector<int64_t, 6> dims = readInts(shapeT);
  for (int64_t d : dims)
    if (d < 0)
      return kernelError("ConstantOfShape's shape " + shape::toString(dims) +
                         " has a negative dim");
  NUNC_ASSIGN_OR_RETURN(out, Tensor::create(value.dtype(), dims));
  size_t w = dtypeSize(value.dtype());
  for (int64_t i = 0; i < out.numElements(); ++i)
    std::memcpy(out.mutableRaw() + i * w, value.raw(), w);
  return out;
}

Expected<Tensor> range(const Tensor &start, const Tensor &limit, const Tensor &delta) {
  if (start.numElements() != 1 || limit.numElements() != 1 || delta.numElements() != 1 ||
      start.dtype() != limit.dtype() || start.dtype() != delta.dtype())
    return kernelError("Range takes three scalars of one type");
  DType dtype = start.dtype();
  bool integer = dtype == DType::I16 || dtype == DType::I32 || dtype == DType::I64;
  if (!integer && !isFloat(dtype))
    return kernelError("Range over " + start.describe() + " is not supported");
  Expected<int64_t> length =
      integer ? shape::rangeLength(start.getInt(0), limit.getInt(0), delta.getInt(0))
              : shape::rangeLength(start.getDouble(0), limit.getDouble(0), delta.getDouble(0));
  if (!length)
    return length.takeError();
  NUNC_ASSIGN_OR_RETURN(out, Tensor::create(dtype, {*length}));
  // ONNX: output[i] = start + i * delta, in the operands' type (16-bit
  // floats through float, rounded as ONNX's reference evaluator rounds).
  dispatchDType(dtype, [&]<typename T>() {
    if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
      T first = start.as<T>()[0], step = delta.as<T>()[0];
      for (int64_t i = 0; i < *length; ++i)
        out.mutableAs<T>()[i] = static_cast<T>(first + static_cast<T>(i) * step);
    } else if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
      float first = start.as<T>()[0], step = delta.as<T>()[0];
      for (int64_t i = 0; i < *length; ++i)
        out.mutableAs<T>()[i] = T(float(first + float(T(float(i) * step))));
    }
  });
  return out;
}

Expected<Tensor> col2im(const Tensor &x, ArrayRef<int64_t> image, ArrayRef<int64_t> block,
                        ArrayRef<int64_t> strides, ArrayRef<int64_t> dilations,
                        ArrayRef<int64_t> pads) {
  if (!isFloat(x.dtype()))
    return kernelError("Col2Im takes float data");
  NUNC_ASSIGN_OR_RETURN(blocks, shape::col2imBlocks(image, block, strides, dilations, pads));
  int64_t nd = image.size();
  int64_t blockSize = *shape::numElements(block), numBlocks = *shape::numElements(blocks);
  if (x.rank() != 3 || x.dim(1) % blockSize != 0 || x.dim(2) != numBlocks)
    return kernelError("Col2Im input " + x.describe() + " does not fit " +
                       llvm::Twine(numBlocks) + " blocks of " + llvm::Twine(blockSize));
  int64_t batch = x.dim(0), channels = x.dim(1) / blockSize;
  int64_t pixels = *shape::numElements(image);
  shape::Dims outShape{batch, channels};
  outShape.append(image.begin(), image.end());
  NUNC_ASSIGN_OR_RETURN(out, Tensor::create(x.dtype(), outShape));
  std::vector<double> acc(out.numElements(), 0.0);
  llvm::SmallVector<int64_t, 6> blockIdx(nd), offset(nd);
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t c = 0; c < channels; ++c)
      for (int64_t k = 0; k < blockSize; ++k) {
        for (int64_t d = nd - 1, r = k; d >= 0; --d) {
          offset[d] = r % block[d];
          r /= block[d];
        }
        for (int64_t l = 0; l < numBlocks; ++l) {
          int64_t pos = 0;
          bool inside = true;
          for (int64_t d = nd - 1, r = l; d >= 0; --d) {
            blockIdx[d] = r % blocks[d];
            r /= blocks[d];
          }
          for (int64_t d = 0; d < nd && inside; ++d) {
            int64_t p = blockIdx[d] * strides[d] - pads[d] + offset[d] * dilations[d];
            inside = p >= 0 && p < image[d];
            pos = pos * image[d] + p;
          }
          if (inside)
            acc[(n * channels + c) * pixels + pos] +=
                x.getDouble((n * x.dim(1) + c * blockSize + k) * numBlocks + l);
        }
      }
  dispatchDType(out.dtype(), [&]<typename T>() {
    if constexpr (isFloatType<T>())
      for (size_t i = 0; i < acc.size(); ++i)
        out.mutableAs<T>()[i] = static_cast<T>(static_cast<ComputeType<T>>(acc[i]));
  });
  return out;
}

Expected<Tensor> gridSample(const Tensor &x, const Tensor &grid, llvm::StringRef mode,
                            llvm::StringRef paddingMode, bool alignCorners) {
  if (!isFloat(x.dtype()) || grid.dtype() != x.dtype())
    return kernelError("GridSample takes float data and a grid of its type");
  if (x.rank() != 4 || grid.rank() != 4 || grid.dim(3) != 2 || grid.dim(0) != x.dim(0))
    return kernelError("GridSample takes [N, C, H, W] data and an [N, H', W', 2] grid");
  const int64_t n = x.dim(0), channels = x.dim(1), h = x.dim(2), w = x.dim(3);
  const int64_t oh = grid.dim(1), ow = grid.dim(2);
  if (h == 0 || w == 0)
    return kernelError("GridSample samples no pixels of an input with an empty height or width");
  NUNC_ASSIGN_OR_RETURN(out, Tensor::create(x.dtype(), {n, channels, oh, ow}));
  const bool zeros = paddingMode == "zeros", border = paddingMode == "border";
  dispatchDType(x.dtype(), [&]<typename T>() {
    if constexpr (isFloatType<T>()) {
      using C = ComputeType<T>;
      const T *px = x.as<T>(), *pg = grid.as<T>();
      T *po = out.mutableAs<T>();
      // Borders of a dim of d pixels: the corner pixels' centers, or their
      // outer edges.
      auto lo = [&](int64_t) { return alignCorners ? C(0) : C(-0.5); };
      auto hi = [&](int64_t d) { return alignCorners ? C(d - 1) : C(d) - C(0.5); };
      auto reflect = [&](C v, int64_t d) {
        C l = lo(d), u = hi(d), range = u - l;
        if (range <= 0)
          return l;
        if (v < l) {
          C dx = l - v, k = std::trunc(dx / range), r = dx - k * range;
          return std::fmod(k, C(2)) == 0 ? l + r : u - r;
        }
        if (v > u) {
          C dx = v - u, k = std::trunc(dx / range), r = dx - k * range;
          return std::fmod(k, C(2)) == 0 ? u - r : l + r;
        }
        return v;
      };
      // A coordinate in pixels: denormalized, far-off or non-finite ones
      // clamped to +-2^24 (f64: 2^52; NaN to the low end), then rounded (nearest) and
      // brought inside by the padding mode (not cubic's: its taps are, one
      // by one, as PyTorch and onnxruntime; ONNX's reference moves the
      // coordinate too).
      auto coordinate = [&](C g, int64_t d) {
        C v = alignCorners ? (g + 1) / 2 * C(d - 1) : ((g + 1) * C(d) - 1) / 2;
        const C far = std::is_same_v<C, double> ? C(4503599627370496.0) : C(16777216);
        v = std::isnan(v) ? -far : std::clamp(v, -far, far);
        if (mode == "nearest")
          v = std::nearbyint(v);
        if (mode != "cubic" && (v < lo(d) || v > hi(d))) {
          if (border)
            v = std::clamp(v, C(0), C(d - 1));
          else if (!zeros)
            v = reflect(v, d);
        }
        return v;
      };
      // Pixel index i of a dim of d pixels, or -1 (reads 0).
      auto index = [&](int64_t i, int64_t d) -> int64_t {
        if (i >= 0 && i < d)
          return i;
        if (zeros)
          return -1;
        if (border)
          return std::clamp<int64_t>(i, 0, d - 1);
        return std::clamp<int64_t>(static_cast<int64_t>(reflect(C(i), d)), 0, d - 1);
      };
      auto cubic = [](C t, C coeffs[4]) {
        const C a = C(-0.75);
        t = std::fabs(t);
        coeffs[0] = ((a * (t + 1) - 5 * a) * (t + 1) + 8 * a) * (t + 1) - 4 * a;
        coeffs[1] = ((a + 2) * t - (a + 3)) * t * t + 1;
        coeffs[2] = ((a + 2) * (1 - t) - (a + 3)) * (1 - t) * (1 - t) + 1;
        coeffs[3] = ((a * (2 - t) - 5 * a) * (2 - t) + 8 * a) * (2 - t) - 4 * a;
      };
      for (int64_t b = 0; b < n; ++b)
        for (int64_t i = 0; i < oh; ++i)
          for (int64_t j = 0; j < ow; ++j) {
            const T *g = pg + ((b * oh + i) * ow + j) * 2;
            C cx = coordinate(C(g[0]), w), cy = coordinate(C(g[1]), h);
            // Taps along each dim: first index and weights.
            int taps = mode == "nearest" ? 1 : mode == "linear" ? 2 : 4;
            int64_t x0, y0;
            C wx[4] = {1, 0, 0, 0}, wy[4] = {1, 0, 0, 0};
            if (mode == "nearest") {
              x0 = static_cast<int64_t>(cx);
              y0 = static_cast<int64_t>(cy);
            } else {
              C fx = std::floor(cx), fy = std::floor(cy);
              x0 = static_cast<int64_t>(fx);
              y0 = static_cast<int64_t>(fy);
              if (mode == "linear") {
                wx[1] = cx - fx, wx[0] = 1 - wx[1];
                wy[1] = cy - fy, wy[0] = 1 - wy[1];
              } else {
                cubic(cx - fx, wx);
                cubic(cy - fy, wy);
                --x0, --y0;
              }
            }
            for (int64_t c = 0; c < channels; ++c) {
              const T *plane = px + (b * channels + c) * h * w;
              C sum = 0;
              for (int ty = 0; ty < taps; ++ty) {
                int64_t yi = index(y0 + ty, h);
                C row = 0;
                for (int tx = 0; tx < taps; ++tx) {
                  int64_t xi = index(x0 + tx, w);
                  C p = yi < 0 || xi < 0 ? C(0) : C(plane[yi * w + xi]);
                  row += wx[tx] * p;
                }
                sum += wy[ty] * row;
              }
              po[((b * channels + c) * oh + i) * ow + j] = T(sum);
            }
          }
    }
  });
  return out;
}

Expected<Tensor> resize(const Tensor &x, const shape::ResizeParams &params,
                        const shape::ResizePlan &plan, float extrapolationValue) {
  int64_t rank = x.rank();
  bool nearest = params.mode == "nearest";
  if (!nearest && !isFloat(x.dtype()))
    return kernelError("linear and cubic Resize take float data");
  NUNC_ASSIGN_OR_RETURN(out, Tensor::create(x.dtype(), plan.output));
  if (out.numElements() == 0)
    return out;
  std::vector<shape::ResizeAxis> axes;
  for (int64_t d = 0; d < rank; ++d)
    axes.push_back(shape::resizeAxis(params, x.dim(d), plan.output[d], plan.scales[d],
                                     plan.roiStart[d], plan.roiEnd[d]));
  llvm::SmallVector<int64_t, 6> inStrides = rowMajorStrides(x.shape());
  llvm::SmallVector<int64_t, 6> o(rank, 0), t(rank, 0);
  size_t width = dtypeSize(x.dtype());
  for (int64_t i = 0; i < out.numElements(); ++i) {
    bool extrapolated = false;
    for (int64_t d = 0; d < rank; ++d)
      extrapolated |= axes[d].extrapolated[o[d]] != 0;
    if (nearest && !extrapolated) {
      int64_t src = 0;
      for (int64_t d = 0; d < rank; ++d)
        src += axes[d].index[o[d]] * inStrides[d];
      std::memcpy(out.mutableRaw() + i * width, x.raw() + src * width, width);
    } else {
      double sum = extrapolationValue;
      if (!extrapolated) {
        // Every combination of one tap per dim.
        sum = 0;
        std::fill(t.begin(), t.end(), 0);
        while (true) {
          double weight = 1;
          int64_t src = 0;
          for (int64_t d = 0; d < rank; ++d) {
            int64_t at = o[d] * axes[d].taps + t[d];
            weight *= axes[d].weight[at];
            src += axes[d].index[at] * inStrides[d];
          }
          sum += weight * x.getDouble(src);
          int64_t d = rank - 1;
          while (d >= 0 && ++t[d] == axes[d].taps)
            t[d--] = 0;
          if (d < 0)
            break;
        }
      }
      dispatchDType(out.dtype(), [&]<typename T>() {
        if constexpr (isFloatType<T>())
          out.mutableAs<T>()[i] = static_cast<T>(static_cast<ComputeType<T>>(sum));
        else if constexpr (std::is_same_v<T, bool>)
          out.mutableAs<T>()[i] = sum != 0; // nearest only (extrapolated)
        else // truncated, then wrapped to the type, as the compiled kernel
          out.mutableAs<T>()[i] = static_cast<T>(static_cast<int64_t>(sum));
      });
    }
    for (int64_t d = rank - 1; d >= 0 && ++o[d] == plan.output[d]; --d)
      o[d] = 0;
  }
  return out;
}

} // namespace mlir::nunc::kernels
