//===- ElementwiseKernel.cpp - f32 elementwise, broadcasting (xbyak) -----===//

#include "ElementwiseKernel.h"
#include "PaddedPlane.h"

#include <algorithm>
#include <type_traits>

namespace mlir::nunc::x86 {

namespace {
/// Row length a single long row is cut into (a multiple of every vector width).
constexpr int64_t kFlatRow = 4096;
} // namespace

std::vector<int32_t> ElementwiseKernel::layout(ElementwiseConfig &c, llvm::ArrayRef<int64_t> out,
                                               llvm::ArrayRef<int64_t> a,
                                               llvm::ArrayRef<int64_t> b) {
  const int n = c.inputs;
  const int64_t rank = out.size();
  // Per output dim: its size and each operand's element stride (0 where the
  // operand broadcasts). Dims of size 1 are dropped.
  struct Dim {
    int64_t size, stride[2];
  };
  std::vector<Dim> dims;
  int64_t stride[2] = {1, 1};
  std::vector<Dim> reversed;
  for (int64_t d = rank - 1; d >= 0; --d) {
    Dim dim{out[d], {0, 0}};
    for (int i = 0; i < n; ++i) {
      llvm::ArrayRef<int64_t> shape = i == 0 ? a : b;
      int64_t k = d - (rank - static_cast<int64_t>(shape.size()));
      int64_t size = k >= 0 ? shape[k] : 1;
      dim.stride[i] = size == 1 ? 0 : stride[i];
      stride[i] *= size;
    }
    if (dim.size != 1)
      reversed.push_back(dim);
  }
  // Merge a dim into the next inner one when every operand continues
  // linearly across them.
  for (const Dim &d : reversed) {
    if (!dims.empty()) {
      Dim &inner = dims.back();
      bool linear = true;
      for (int i = 0; i < n; ++i)
        linear &= d.stride[i] == inner.stride[i] * inner.size;
      if (linear) {
        inner.size *= d.size;
        continue;
      }
    }
    dims.push_back(d);
  }
  std::reverse(dims.begin(), dims.end()); // outermost first
  if (dims.empty())
    dims.push_back({1, {0, 0}});

  const Dim &innerDim = dims.back();
  c.inner = innerDim.size;
  for (int i = 0; i < n; ++i)
    c.scalarInner[i] = innerDim.stride[i] == 0;
  c.table = false;
  c.tail = 0;
  if (dims.size() == 1) {
    c.rows = 1;
    c.rowStep[0] = c.rowStep[1] = 0;
    if (c.inner >= 2 * kFlatRow) {
      c.rows = c.inner / kFlatRow;
      c.tail = c.inner % kFlatRow;
      c.inner = kFlatRow;
      for (int i = 0; i < n; ++i)
        c.rowStep[i] = c.scalarInner[i] ? 0 : kFlatRow;
    }
    return {};
  }
  if (dims.size() == 2) {
    c.rows = dims[0].size;
    for (int i = 0; i < n; ++i)
      c.rowStep[i] = dims[0].stride[i];
    return {};
  }
  // Several outer dims: each row's operand offsets, in row order.
  c.table = true;
  c.rows = 1;
  for (size_t d = 0; d + 1 < dims.size(); ++d)
    c.rows *= dims[d].size;
  std::vector<int32_t> table;
  table.reserve(c.rows * 2);
  std::vector<int64_t> index(dims.size() - 1, 0);
  for (int64_t r = 0; r < c.rows; ++r) {
    for (int i = 0; i < 2; ++i) {
      int64_t offset = 0;
      for (size_t d = 0; d < index.size(); ++d)
        offset += index[d] * (i < n ? dims[d].stride[i] : 0);
      table.push_back(static_cast<int32_t>(offset));
    }
    for (int64_t d = index.size() - 1; d >= 0; --d) {
      if (++index[d] < dims[d].size)
        break;
      index[d] = 0;
    }
  }
  return table;
}

int64_t ElementwiseKernel::rowsPerTask(const ElementwiseConfig &c) {
  // Tasks of at least ~16K elements, at most 32 of them.
  int64_t byWork = std::max<int64_t>(1, 16384 / std::max<int64_t>(1, c.inner));
  return std::max<int64_t>(byWork, (c.rows + 31) / 32);
}

int64_t ElementwiseKernel::numTasks(const ElementwiseConfig &c) {
  return std::max<int64_t>(1, (c.rows + rowsPerTask(c) - 1) / rowsPerTask(c));
}

namespace {

using namespace Xbyak;

template <typename Vmm> class ElementwiseGenerator : public PlaneGenerator {
public:
  static constexpr bool kAvx512 = std::is_same_v<Vmm, Zmm>;
  static constexpr int kLanes = kAvx512 ? 16 : 8;
  static constexpr int kVecBytes = kLanes * 4;

  explicit ElementwiseGenerator(const ElementwiseConfig &config) : c(config) {
    replicate = kAvx512 ? 1 : 8;
  }

  void generate() {
    const int64_t per = ElementwiseKernel::rowsPerTask(c);
    const bool binary = c.inputs == 2;
    prologue();
    // r10 = first row; r9 = rows of this task.
    imul(r10, rsi, per);
    mov(r9, c.rows);
    sub(r9, r10);
    mov(rax, per);
    cmp(r9, rax);
    cmovg(r9, rax);
    mov(r12, ptr[rdi + 0]); // a
    mov(r13, ptr[rdi + 8]); // b
    mov(rcx, ptr[rdi + 16]); // y row
    imul(rax, r10, c.inner * 4);
    add(rcx, rax);
    if (c.table) {
      mov(r11, ptr[rdi + 24]);
      lea(r11, ptr[r11 + r10 * 8]);
    } else {
      // a and b rows advance by a fixed step.
      imul(rax, r10, c.rowStep[0] * 4);
      lea(rax, ptr[r12 + rax]);
      if (binary) {
        imul(rbx, r10, c.rowStep[1] * 4);
        add(rbx, r13);
      }
    }
    Label rowLoop, done;
    test(r9, r9);
    jle(done, T_NEAR);
    L(rowLoop);
    if (c.table) {
      movsxd(rax, dword[r11]);
      lea(rax, ptr[r12 + rax * 4]);
      if (binary) {
        movsxd(rbx, dword[r11 + 4]);
        lea(rbx, ptr[r13 + rbx * 4]);
      }
      add(r11, 8);
    }
    emitRow(c.inner);
    if (!c.table) {
      add(rax, c.rowStep[0] * 4);
      if (binary)
        add(rbx, c.rowStep[1] * 4);
    }
    add(rcx, c.inner * 4);
    dec(r9);
    jnz(rowLoop, T_NEAR);
    L(done);
    if (c.tail) {
      // The last task also takes the tail row, where the rows left off.
      Label skip;
      cmp(rsi, ElementwiseKernel::numTasks(c) - 1);
      jne(skip, T_NEAR);
      emitRow(c.tail);
      L(skip);
    }
    epilogueReturn(0);
    emitConstants();
  }

private:
  ElementwiseConfig c;

  Vmm value(int u) { return Vmm(u); }        // 0..3
  Vmm temp(int i) { return Vmm(4 + i); }     // 4..7
  Vmm scalar(int i) { return Vmm(8 + i); }   // 8, 9; 10: the affine shift
  Vmm mask() { return Vmm(15); }

  /// A unary GELU with a QDQ model's grids and nothing else, on AVX-512:
  /// the loop's four vectors go through it together (emitGeluOnGrids).
  bool geluOnGrids() const {
    return kLanes == 16 && c.inputs == 1 && c.op == ElementwiseConfig::Activate &&
           c.activation.kind == Activation::Gelu && c.activation.hasGrids() &&
           !c.activation.hasPostAffine() &&
           c.before.kind == Activation::None && c.after.kind == Activation::None;
  }

  /// x = op(x, operand b at `bAddr` or its row scalar).
  void apply(const Vmm &x, const RegExp &bAt, bool bMasked) {
    if (c.inputs == 2) {
      Vmm b = scalar(1), shift = scalar(2);
      auto load = [&](const Vmm &dst, const RegExp &at) {
        if (bMasked)
          loadMasked(dst, ptr[at], mask());
        else
          vmovups(dst, ptr[at]);
      };
      if (!c.scalarInner[1]) {
        load(temp(0), bAt);
        b = temp(0);
        if (c.op == ElementwiseConfig::Affine) {
          load(temp(1), bAt + c.affineShift * 4);
          shift = temp(1);
        }
      }
      if (c.codes) {
        codesOf(x, b);
        return;
      }
      switch (c.op) {
      case ElementwiseConfig::Add: vaddps(x, x, b); break;
      case ElementwiseConfig::Sub: vsubps(x, x, b); break;
      case ElementwiseConfig::Mul: vmulps(x, x, b); break;
      case ElementwiseConfig::Div: vdivps(x, x, b); break;
      case ElementwiseConfig::Affine: // x a + b as onnxruntime's BatchNormalization: no FMA
        vmulps(x, x, b);
        vaddps(x, x, shift);
        break;
      default: break;
      }
      return;
    }
    switch (c.op) {
    case ElementwiseConfig::Sqrt: vsqrtps(x, x); break;
    case ElementwiseConfig::Erf: emitErf(x, temp(0), temp(1), temp(2)); break;
    default: emitActivation(x, c.activation, temp(0), temp(1), temp(2), temp(3)); break;
    }
  }

  /// x = the value of the sum's or product's code from the operands' values
  /// x and b (ElementwiseConfig::Codes); b is kept.
  void codesOf(const Vmm &x, const Vmm &b) {
    const ElementwiseConfig::Codes &q = *c.codes;
    vdivps(temp(1), b, constAddr(q.scaleB));
    roundHalfEven(temp(1), temp(1));
    vaddps(temp(1), temp(1), constAddr(q.zpB));
    vmaxps(temp(1), temp(1), constAddr(q.qminB));
    vminps(temp(1), temp(1), constAddr(q.qmaxB));
    if (c.op == ElementwiseConfig::Add) {
      vbroadcastss(temp(2), constScalar(q.ratioB));
      vfmadd213ps(temp(1), temp(2), constAddr(q.fixed)); // qb rB + F
    } else {
      vsubps(temp(1), temp(1), constAddr(q.zpB)); // qb - zpB
    }
    vdivps(x, x, constAddr(q.scaleA));
    roundHalfEven(x, x);
    vaddps(x, x, constAddr(q.zpA));
    vmaxps(x, x, constAddr(q.qminA));
    vminps(x, x, constAddr(q.qmaxA));
    if (c.op == ElementwiseConfig::Add) {
      vfmadd132ps(x, temp(1), constAddr(q.ratioA)); // qa rA + (qb rB + F)
    } else {
      vsubps(x, x, constAddr(q.zpA));
      vmulps(x, x, temp(1)); // exact: |va vb| < 2^24
      vmulps(x, x, constAddr(q.ratioA));
      vaddps(x, x, constAddr(q.zpC));
    }
    roundHalfEven(x, x);
    vmaxps(x, x, constAddr(q.qmin));
    vminps(x, x, constAddr(q.qmax));
    vsubps(x, x, constAddr(q.zpC));
    vmulps(x, x, constAddr(q.scaleC));
  }

  /// y = op(a, b) for one vector at the given addresses (the tail when
  /// masked).
  void vector(int u, const RegExp &aAt, const RegExp &bAt, const RegExp &yAt, bool masked) {
    Vmm x = value(u);
    if (c.scalarInner[0])
      vmovaps(x, scalar(0));
    else if (masked)
      loadMasked(x, ptr[aAt], mask());
    else
      vmovups(x, ptr[aAt]);
    emitActivation(x, c.before, temp(0), temp(1), temp(2), temp(3));
    apply(x, bAt, masked);
    emitActivation(x, c.after, temp(0), temp(1), temp(2), temp(3));
    if (masked)
      storeMasked(ptr[yAt], x, mask());
    else
      vmovups(ptr[yAt], x);
  }

  /// One row of `len` elements at rax / rbx -> rcx.
  void emitRow(int64_t len) {
    if (c.scalarInner[0])
      vbroadcastss(scalar(0), ptr[rax]);
    if (c.inputs == 2 && c.scalarInner[1])
      vbroadcastss(scalar(1), ptr[rbx]);
    if (c.op == ElementwiseConfig::Affine && c.scalarInner[1])
      vbroadcastss(scalar(2), ptr[rbx + c.affineShift * 4]);
    int64_t full = len / kLanes;
    int tail = static_cast<int>(len % kLanes);
    if (full >= 8) {
      Label loop;
      mov(r8, full / 4);
      xor_(edx, edx);
      L(loop);
      if (geluOnGrids()) {
        if constexpr (kLanes == 16) {
          std::vector<GeluLane> lanes;
          for (int u = 0; u < 4; ++u) {
            vmovups(value(u), ptr[rax + rdx + u * kVecBytes]);
            lanes.push_back({value(u), {Vmm(16 + 4 * u), Vmm(17 + 4 * u), Vmm(18 + 4 * u),
                                        Vmm(19 + 4 * u)}});
          }
          emitGeluOnGrids(lanes, c.activation);
          for (int u = 0; u < 4; ++u)
            vmovups(ptr[rcx + rdx + u * kVecBytes], value(u));
        }
      } else {
        for (int u = 0; u < 4; ++u)
          vector(u, rax + rdx + u * kVecBytes, rbx + rdx + u * kVecBytes,
                 rcx + rdx + u * kVecBytes, false);
      }
      add(rdx, 4 * kVecBytes);
      dec(r8);
      jnz(loop, T_NEAR);
      for (int64_t i = full / 4 * 4; i < full; ++i)
        vector(static_cast<int>(i % 4), rax + i * kVecBytes, rbx + i * kVecBytes,
               rcx + i * kVecBytes, false);
    } else {
      for (int64_t i = 0; i < full; ++i)
        vector(static_cast<int>(i % 4), rax + i * kVecBytes, rbx + i * kVecBytes,
               rcx + i * kVecBytes, false);
    }
    if (tail) {
      setTailMask(tail, mask());
      vector(0, rax + full * kVecBytes, rbx + full * kVecBytes, rcx + full * kVecBytes, true);
    }
  }
};

} // namespace

std::unique_ptr<JitKernel> ElementwiseKernel::generate(const ElementwiseConfig &config,
                                                       Isa isa) {
  if (config.op == ElementwiseConfig::Affine && config.inputs != 2)
    return nullptr;
  if (config.codes &&
      ((config.op != ElementwiseConfig::Add && config.op != ElementwiseConfig::Mul) ||
       config.inputs != 2 ||
       config.before.kind != Activation::None || config.after.kind != Activation::None))
    return nullptr; // the codes' sum replaces the grids
  return generatedFor<ElementwiseGenerator>(isa, config);
}

} // namespace mlir::nunc::x86
