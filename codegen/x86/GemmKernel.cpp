//===- GemmKernel.cpp - fp32 GEMM with fused epilogues (xbyak) ------------===//

#include "GemmKernel.h"

#include <map>
#include <tuple>
#include <type_traits>

namespace mlir::nunc::x86 {

std::vector<float> GemmKernel::packWeights(const float *w, int64_t k, int64_t n, Isa isa) {
  int64_t nr = panelWidth(isa), panels = numPanels(n, isa);
  std::vector<float> out(panels * k * nr, 0.f);
  for (int64_t p = 0; p < panels; ++p)
    for (int64_t kk = 0; kk < k; ++kk)
      for (int64_t j = 0; j < nr && p * nr + j < n; ++j)
        out[(p * k + kk) * nr + j] = w[kk * n + p * nr + j];
  return out;
}

std::vector<float> GemmKernel::packBias(const float *b, int64_t n, Isa isa) {
  int64_t nr = panelWidth(isa), panels = numPanels(n, isa);
  std::vector<float> out(panels * nr, 0.f);
  for (int64_t j = 0; j < n; ++j)
    out[j] = b[j];
  return out;
}

namespace {

using namespace Xbyak;

template <typename Vmm> class GemmGenerator : public PanelGemmKernel {
public:
  static constexpr bool kAvx512 = std::is_same_v<Vmm, Zmm>;
  static constexpr int kLanes = kAvx512 ? 16 : 8;
  static constexpr int kRows = kAvx512 ? 8 : 6;
  static constexpr int kVecs = kAvx512 ? 3 : 2;
  static constexpr int kUnroll = 4;

  explicit GemmGenerator(GemmConfig config) : c(config) {
    replicate = kAvx512 ? 1 : 8;
  }

  void generate() {
    if (c.im2col) {
      generateWithIm2col();
      return;
    }
    const int64_t nr = kVecs * kLanes;
    const int64_t panels = (c.n + nr - 1) / nr;

    prologue();
    if (c.batch > 1) {
      // task = image * panels + panel: r14 = image, rsi = panel
      mov(rax, rsi);
      xor_(edx, edx);
      mov(rcx, panels);
      div(rcx);
      mov(r14, rax);
      mov(rsi, rdx);
    }
    mov(rax, ptr[rdi + 0]);  // A
    mov(rbx, ptr[rdi + 8]);  // packed W
    mov(rdx, ptr[rdi + 16]); // packed bias
    mov(r12, ptr[rdi + 24]); // residual
    mov(rcx, ptr[rdi + 32]); // C
    if (c.batch > 1) {
      imul(r13, r14, c.wBatchStride * 4);
      add(rbx, r13);
      if (c.aBatchStride) {
        imul(r13, r14, c.aBatchStride * 4);
        add(rax, r13);
      }
    }
    // Move to this task's panel.
    imul(r13, rsi, c.k * nr * 4);
    add(rbx, r13);
    lea(rdi, ptr[rbx + c.k * nr * 4]); // the prefetch cursor: the next panel
    seekImageAndPanel(c.batch > 1);
    setRowStrides(c.lda * 4);

    panelBody(rsi, c.n, kVecs, kLanes, [&](int vecs, int lanes) { rowLoop(vecs, lanes, c.m); },
              [&](int rows, int vecs, int lanes) { microKernel(rows, vecs, lanes); });
    emitConstants();
  }

private:
  GemmConfig c;

  /// C, the residual and a column bias to image r14 (where `byImage`) and
  /// panel rsi; uses r13.
  void seekImageAndPanel(bool byImage) {
    const int64_t nr = kVecs * kLanes;
    if (byImage) {
      imul(r13, r14, c.cBatchStride * 4);
      add(rcx, r13);
      imul(r13, r14, c.rBatchStride * 4);
      add(r12, r13);
    }
    imul(r13, rsi, nr * 4);
    if (!c.rowBias)
      add(rdx, r13);
    add(rcx, r13);
    add(r12, r13);
  }

  /// The convolution building its own panels: the task's (image, panel,
  /// row chunk) items one after another (GemmKernel::im2colSplit), each
  /// panel packed into the task's buffer and run from there. Locals: [rsp]
  /// item, [rsp + 8] arguments, [rsp + 16] buffer, [rsp + 24] row chunk.
  void generateWithIm2col() {
    const Im2colConfig &ic = *c.im2col;
    const GemmKernel::Im2colSplit split = GemmKernel::im2colSplit(c);
    const int64_t nr = kVecs * kLanes, items = split.items(c.batch);
    const int64_t tasks = std::min<int64_t>(items, GemmKernel::kMaxIm2colTasks);
    prologue();
    frameBytes = 32;
    sub(rsp, frameBytes);
    mov(ptr[rsp + 8], rdi);
    mov(ptr[rsp], rsi);
    mov(rax, ptr[rdi + 40]);
    imul(rdx, rdx, split.bufferFloats * 4); // the scratch slot's buffer (nunc_rt_task)
    add(rax, rdx);
    mov(ptr[rsp + 16], rax);
    Label item, next;
    L(item);
    // item = (image x panels + panel) x chunks + chunk
    mov(rax, ptr[rsp]);
    xor_(edx, edx);
    mov(rcx, split.chunks);
    div(rcx);
    mov(ptr[rsp + 24], rdx);
    xor_(edx, edx);
    mov(rcx, split.panels);
    div(rcx);
    mov(r14, rax); // image
    mov(rsi, rdx); // panel
    // The panel, from the (padded) input planes.
    if (split.packPerItem) {
      mov(rdi, ptr[rsp + 8]);
      mov(rax, ptr[rdi + 8]);
      imul(rdx, r14, ic.channels * PanelIm2col::plane(ic).floats * 4);
      lea(rax, ptr[rax + rdx + PanelIm2col::guardElements(ic) * 4]); // the image's planes
      mov(rbx, ptr[rsp + 16]);
      emitPanelIm2col(ic, rax, rsi, rbx);
    }
    // The last item panel's joined tail columns, transposed: from the same
    // planes, or from the packed last panel (after this one). (zmm only.)
    if (kAvx512 && split.tail) {
      Label notLast;
      cmp(rsi, split.panels - 1);
      jne(notLast, T_NEAR);
      if (!split.packPerItem) {
        mov(rdi, ptr[rsp + 8]);
        mov(rax, ptr[rdi + 8]);
        imul(rdx, r14, c.wBatchStride * 4);
        add(rax, rdx);
        imul(rdx, rsi, c.k * nr * 4);
        lea(rax, ptr[rax + rdx + c.k * nr * 4]);
        mov(rbx, ptr[rsp + 16]);
      }
      packTail(split, rax, rbx, !split.packPerItem);
      L(notLast);
    }
    mov(rdi, ptr[rsp + 8]);
    if (split.packPerItem) {
      mov(rbx, ptr[rsp + 16]);
    } else {
      mov(rbx, ptr[rdi + 8]); // the packed panel
      imul(rdx, r14, c.wBatchStride * 4);
      add(rbx, rdx);
      imul(rdx, rsi, c.k * nr * 4);
      add(rbx, rdx);
    }
    mov(rax, ptr[rdi + 0]);
    mov(rdx, ptr[rdi + 16]);
    mov(r12, ptr[rdi + 24]);
    mov(rcx, ptr[rdi + 32]);
    seekImageAndPanel(true);
    if (split.chunks > 1) {
      // The chunk's first row in A, C, the residual and a row bias.
      mov(r13, ptr[rsp + 24]);
      imul(r13, r13, split.rowsPerChunk * 4);
      if (c.rowBias)
        add(rdx, r13);
      imul(r15, r13, c.lda);
      add(rax, r15);
      imul(r15, r13, c.ldc);
      add(rcx, r15);
      imul(r15, r13, c.ldr);
      add(r12, r15);
    }
    setRowStrides(c.lda * 4);
    if (kAvx512 && split.tail) {
      Label notLast;
      cmp(rsi, split.panels - 1);
      jne(notLast, T_NEAR);
      // rdi: the transposed tail columns for the dot products.
      if (split.packPerItem)
        lea(rdi, ptr[rbx + c.k * nr * 4]);
      else
        mov(rdi, ptr[rsp + 16]);
      rowLoop(kVecs, kLanes, split.rowsPerChunk, split.tail);
      jmp(next, T_NEAR);
      L(notLast);
      rowLoop(kVecs, kLanes, split.rowsPerChunk);
    } else {
      panelDispatch(rsi, c.n, kVecs, kLanes,
                    [&](int vecs, int lanes) { rowLoop(vecs, lanes, split.rowsPerChunk); });
    }
    L(next);
    nextItem(item, tasks, items);
    epilogueReturn(0);
    emitMicroKernels([&](int rows, int vecs, int lanes) { microKernel(rows, vecs, lanes); });
    if constexpr (kAvx512)
      for (auto &[key, label] : dotLabels) {
        L(*label);
        dotKernel(std::get<0>(key), std::get<1>(key), std::get<2>(key));
        ret();
      }
    emitConstants();
  }

  /// The joined tail columns' im2col, transposed ([tail][paddedK] at
  /// `dst`, after the panel in the task's buffer or at its start), gathered
  /// 16 k at a time with a table of each k's offset (0 past K): from the
  /// padded planes at `src`, or from the packed last panel ([K][48]) there.
  void packTail(const GemmKernel::Im2colSplit &split, const Reg64 &src, const Reg64 &dst,
                bool fromPanel) {
    if constexpr (!kAvx512)
      return;
    const Im2colConfig &ic = *c.im2col;
    const PaddedPlane plane = PanelIm2col::plane(ic);
    const int64_t nr = kVecs * kLanes, taps = ic.kernelH * ic.kernelW;
    std::vector<uint32_t> offsets(split.paddedK, 0);
    for (int64_t k = 0; k < c.k; ++k) {
      int64_t ch = k / taps, t = k % taps, ky = t / ic.kernelW, kx = t % ic.kernelW;
      offsets[k] = static_cast<uint32_t>(
          fromPanel ? k * nr
                    : ch * plane.floats + ky * ic.dilationH * plane.cols + kx * ic.dilationW);
    }
    lea(rcx, dataAddr(offsets));
    const int64_t positions = ic.outH * ic.outW;
    for (int64_t j = 0; j < split.tail; ++j) {
      int64_t p = positions - split.tail + j, oy = p / ic.outW, ox = p % ic.outW;
      int64_t at = fromPanel ? j : oy * ic.strideH * plane.cols + ox * ic.strideW;
      lea(rdx, ptr[src + at * 4]);
      lea(r8, ptr[dst + ((split.packPerItem ? c.k * nr : 0) + j * split.paddedK) * 4]);
      xor_(r9, r9);
      mov(r10, split.paddedK / kLanes);
      Label block;
      L(block);
      vmovdqu32(Zmm(1), ptr[rcx + r9]);
      kxnorw(k1, k1, k1);
      vgatherdps(Zmm(0) | k1, ptr[rdx + Zmm(1) * 4]);
      vmovups(ptr[r8 + r9], Zmm(0));
      add(r9, kLanes * 4);
      dec(r10);
      jnz(block, T_NEAR);
    }
  }

  Label &dotLabel(int rows, int cols, int first) {
    auto &l = dotLabels[{rows, cols, first}];
    if (!l)
      l = std::make_unique<Label>();
    return *l;
  }

  /// rows x cols of the joined tail columns (from column `first` of the
  /// tail, at panel column 48 + first): each a dot product of an A row and
  /// a transposed im2col column over K, 16 k at a time, summed across the
  /// lanes at the end; then the same epilogue as the panel's, one element
  /// at a time.
  void dotKernel(int rows, int cols, int first) {
    static_assert(kAvx512, "joined tail columns: the zmm form");
    const GemmKernel::Im2colSplit split = GemmKernel::im2colSplit(c);
    const int64_t nr = kVecs * kLanes;
    auto accOf = [&](int r, int j) { return Zmm(r * cols + j); };
    auto bOf = [&](int j) { return Zmm(24 + j); };
    const Zmm a(27);
    for (int r = 0; r < rows; ++r)
      for (int j = 0; j < cols; ++j)
        vxorps(accOf(r, j), accOf(r, j), accOf(r, j));
    mov(r14, rax);
    lea(r15, ptr[rdi + first * split.paddedK * 4]);
    auto step = [&](bool masked) {
      for (int j = 0; j < cols; ++j) {
        Address b = ptr[r15 + j * split.paddedK * 4];
        if (masked)
          vmovups(bOf(j) | k1 | T_z, b);
        else
          vmovups(bOf(j), b);
      }
      for (int r = 0; r < rows; ++r) {
        if (masked)
          vmovups(a | k1 | T_z, ptr[aRow(r14, r)]);
        else
          vmovups(a, ptr[aRow(r14, r)]);
        for (int j = 0; j < cols; ++j)
          vfmadd231ps(accOf(r, j), a, bOf(j));
      }
    };
    const int64_t blocks = c.k / kLanes, rest = c.k % kLanes;
    if (blocks) {
      Label loop;
      mov(r13, blocks);
      L(loop);
      step(false);
      add(r14, kLanes * 4);
      add(r15, kLanes * 4);
      dec(r13);
      jnz(loop, T_NEAR);
    }
    if (rest) {
      mov(r13d, (1u << rest) - 1);
      kmovw(k1, r13d);
      step(true);
    }
    for (int r = 0; r < rows; ++r)
      for (int j = 0; j < cols; ++j) {
        Zmm x = accOf(r, j);
        Xmm xs(x.getIdx());
        int64_t col = nr + first + j;
        emitHorizontal(x, temp(0), Reduction::Add);
        if (c.bias)
          vaddss(xs, xs, ptr[rdx + (c.rowBias ? r : col) * 4]);
        if (c.residual)
          vaddss(xs, xs, ptr[r12 + (r * c.ldr + col) * 4]);
        emitActivation(x, c.activation, temp(0), temp(1), temp(2), temp(3));
        vmovss(ptr[rcx + (r * c.ldc + col) * 4], xs);
      }
  }

  std::map<std::tuple<int, int, int>, std::unique_ptr<Label>> dotLabels;

  /// The row tiles of `rows` rows of the current panel (pointers advance;
  /// restored after), each followed by the dot products of the `tail`
  /// columns joined to the panel.
  void rowLoop(int vecs, int lastLanes, int64_t rows, int64_t tail = 0) {
    int64_t fullTiles = rows / kRows, rest = rows % kRows;
    auto tile = [&](int tileRows) {
      call(microLabel(tileRows, vecs, lastLanes));
      for (int64_t j = 0; j < tail; j += 2)
        call(dotLabel(tileRows, static_cast<int>(std::min<int64_t>(2, tail - j)),
                      static_cast<int>(j)));
    };
    push(rax);
    push(rcx);
    push(r12);
    push(rdx);
    if (fullTiles) {
      Label loop;
      mov(rbp, fullTiles);
      L(loop);
      tile(kRows);
      add(rax, kRows * c.lda * 4);
      add(rcx, kRows * c.ldc * 4);
      add(r12, kRows * c.ldr * 4);
      if (c.rowBias)
        add(rdx, kRows * 4);
      dec(rbp);
      jnz(loop, T_NEAR);
    }
    if (rest)
      tile(static_cast<int>(rest));
    pop(rdx);
    pop(r12);
    pop(rcx);
    pop(rax);
  }

  Vmm acc(int r, int v) { return Vmm(r * kVecs + v); }
  Vmm bReg(int v) { return Vmm(kAvx512 ? 24 + v : kRows * kVecs + v); }
  Vmm aReg() { return Vmm(kAvx512 ? 27 : kRows * kVecs + kVecs); }
  /// Epilogue temporaries: registers the k loop no longer needs.
  Vmm temp(int i) { return Vmm(kAvx512 ? 28 + i : kRows * kVecs + i); }

  /// One k step at byte offsets aOff (into A rows) and bOff (into the panel).
  void kStep(int rows, int vecs, int64_t aOff, int64_t bOff) {
    for (int v = 0; v < vecs; ++v)
      vmovups(bReg(v), ptr[r15 + bOff + v * kLanes * 4]);
    for (int r = 0; r < rows; ++r) {
      vbroadcastss(aReg(), ptr[aRow(r14, r) + aOff]);
      for (int v = 0; v < vecs; ++v)
        vfmadd231ps(acc(r, v), bReg(v), aReg());
    }
  }

  /// rows x vecs tile; the last vector has lastLanes valid lanes.
  void microKernel(int rows, int vecs, int lastLanes) {
    const int64_t nr = kVecs * kLanes;
    bool masked = lastLanes != kLanes;
    for (int r = 0; r < rows; ++r)
      for (int v = 0; v < vecs; ++v) {
        if (c.bias && c.rowBias)
          vbroadcastss(acc(r, v), ptr[rdx + r * 4]);
        else if (c.bias)
          vmovups(acc(r, v), ptr[rdx + v * kLanes * 4]);
        else
          vxorps(acc(r, v), acc(r, v), acc(r, v));
      }
    mov(r14, rax);
    mov(r15, rbx);
    // rdi: the next-panel prefetch cursor (the im2col form has its own
    // panels, built per task, and no cursor).
    const int lines = c.im2col ? 0
                               : nextPanelPrefetchLines(c.k * nr * 4, (c.m + kRows - 1) / kRows,
                                                        c.k / kUnroll, kUnroll * nr * 4 / 64);
    // k steps over `count` k from r14 / r15 (advanced past them).
    auto kSteps = [&](int64_t count) {
      int64_t blocks = count / kUnroll, rest = count % kUnroll;
      if (blocks) {
        Label loop;
        mov(r13, blocks);
        L(loop);
        for (int u = 0; u < kUnroll; ++u) {
          kStep(rows, vecs, u * 4, u * nr * 4);
          prefetchNextPanel(rdi, lines, u, kUnroll);
        }
        if (lines)
          add(rdi, lines * 64);
        add(r14, kUnroll * 4);
        add(r15, kUnroll * nr * 4);
        dec(r13);
        jnz(loop, T_NEAR);
      }
      for (int u = 0; u < rest; ++u)
        kStep(rows, vecs, u * 4, u * nr * 4);
      if (rest) {
        add(r14, rest * 4);
        add(r15, rest * nr * 4);
      }
    };

    // Epilogue: residual, activation, store (masked in the last vector).
    std::vector<uint32_t> laneMask(kLanes, 0);
    for (int i = 0; i < lastLanes; ++i)
      laneMask[i] = 0xffffffffu;
    Address maskAddr = masked && !kAvx512 ? dataAddr(laneMask) : ptr[rip];
    if (masked && kAvx512) {
      mov(r13d, (1u << lastLanes) - 1);
      kmovw(k1, r13d);
    }
    // x += [a], or [a] = x, masked in the tile's last vector.
    auto addFrom = [&](const Vmm &x, const Address &a, bool tailVec) {
      addMasked(x, a, tailVec, maskAddr, temp(0), temp(1));
    };
    auto storeTo = [&](const Address &a, const Vmm &x, bool tailVec) {
      if (!tailVec) {
        vmovups(a, x);
      } else if constexpr (kAvx512) {
        vmovups(a | k1, x);
      } else {
        vmovups(temp(0), maskAddr);
        vmaskmovps(a, temp(0), x);
      }
    };
    auto cAddr = [&](int r, int v) { return ptr[rcx + r * c.ldc * 4 + v * kLanes * 4]; };
    auto withTileC = [&](bool store) {
      for (int r = 0; r < rows; ++r)
        for (int v = 0; v < vecs; ++v) {
          const bool tailVec = masked && v == vecs - 1;
          if (store)
            storeTo(cAddr(r, v), acc(r, v), tailVec);
          else
            addFrom(acc(r, v), cAddr(r, v), tailVec);
        }
    };
    if (c.kBlock > 0 && c.kBlock < c.k) {
      // MLAS's order: each block's chains from zero (the mask set above
      // survives: kStep leaves k1 alone), the running sums in C.
      for (int64_t k0 = 0; k0 < c.k; k0 += c.kBlock) {
        if (k0)
          for (int r = 0; r < rows; ++r)
            for (int v = 0; v < vecs; ++v)
              vxorps(acc(r, v), acc(r, v), acc(r, v));
        kSteps(std::min(c.kBlock, c.k - k0));
        if (k0)
          withTileC(/*store=*/false);
        if (k0 + c.kBlock < c.k)
          withTileC(/*store=*/true);
      }
    } else {
      kSteps(c.k);
    }
    // On AVX-512 a plain GELU runs on two vectors of a row at a time, step
    // by step (zmm24-27 free after the k loop): its ~40-cycle chain, one
    // vector at a time, filled the scheduler.
    const bool geluInPairs = kAvx512 && c.activation.kind == Activation::Gelu &&
                             !c.activation.hasGrids() && !c.activation.hasPostAffine();
    for (int r = 0; r < rows; ++r) {
      for (int v = 0; v < vecs; ++v) {
        bool tailVec = masked && v == vecs - 1;
        Vmm x = acc(r, v);
        if (c.residual)
          addFrom(x, ptr[r12 + r * c.ldr * 4 + v * kLanes * 4], tailVec);
        if (!geluInPairs)
          emitActivation(x, c.activation, temp(0), temp(1), temp(2), temp(3));
      }
      if constexpr (kAvx512)
        if (geluInPairs) {
          std::vector<Vmm> row;
          for (int v = 0; v < vecs; ++v)
            row.push_back(acc(r, v));
          emitGeluInPairs(row, {Vmm(24), Vmm(25), Vmm(26), Vmm(27)},
                          {temp(0), temp(1), temp(2), temp(3)});
        }
      for (int v = 0; v < vecs; ++v)
        storeTo(cAddr(r, v), acc(r, v), masked && v == vecs - 1);
    }
  }
};

} // namespace

GemmKernel::Im2colSplit GemmKernel::im2colSplit(const GemmConfig &c) {
  // zmm panels of 48 and tiles of 8 rows, or ymm ones of 16 and 6 (which
  // join no tail columns).
  const bool zmm = !c.im2col || c.im2col->panelWidth == 48;
  const int64_t nr = zmm ? 48 : 16, rowsPerTile = zmm ? 8 : 6, wantItems = 8;
  Im2colSplit s;
  int64_t panels = (c.n + nr - 1) / nr, last = c.n - (panels - 1) * nr;
  s.panels = panels;
  // (Not with kBlock: the joined columns' dot products sum K in another
  // order.)
  if (zmm && panels > 1 && last <= 4 && c.kBlock == 0) {
    s.panels = panels - 1;
    s.tail = last;
  }
  s.rowsPerChunk = c.m;
  if (c.m % rowsPerTile == 0) {
    int64_t tiles = c.m / rowsPerTile, perImage = c.batch * s.panels;
    int64_t want = (wantItems + perImage - 1) / perImage;
    for (int64_t d = std::min(want, tiles); d > 1; --d)
      if (tiles % d == 0) {
        s.chunks = d;
        s.rowsPerChunk = c.m / d;
        break;
      }
  }
  s.paddedK = (c.k + 15) / 16 * 16;
  s.packPerItem = s.chunks == 1;
  s.bufferFloats = (s.packPerItem ? c.k * nr : 0) + s.tail * s.paddedK;
  return s;
}

std::unique_ptr<JitKernel> GemmKernel::generate(const GemmConfig &config, Isa isa) {
  if (config.im2col && (config.im2col->panelWidth != panelWidth(isa) ||
                        !PanelIm2col::supports(*config.im2col, isa)))
    return nullptr;
  if (config.kBlock < 0 || (config.kBlock && config.bias) ||
      (config.im2col && config.aBatchStride))
    return nullptr;
  return generatedFor<GemmGenerator>(isa, config);
}

} // namespace mlir::nunc::x86
