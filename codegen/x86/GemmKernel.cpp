//===- GemmKernel.cpp - fp32 GEMM with fused epilogues (xbyak) ------------===//

#include "GemmKernel.h"

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
    if constexpr (kAvx512) {
      if (c.im2col) {
        generateWithIm2col();
        return;
      }
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
      imul(r13, r14, c.cBatchStride * 4);
      add(rcx, r13);
      imul(r13, r14, c.rBatchStride * 4);
      add(r12, r13);
    }
    // Move to this task's panel.
    imul(r13, rsi, c.k * nr * 4);
    add(rbx, r13);
    imul(r13, rsi, nr * 4);
    if (!c.rowBias)
      add(rdx, r13);
    add(rcx, r13);
    add(r12, r13);
    setRowStrides(c.lda * 4);

    panelBody(rsi, c.n, kVecs, kLanes, [&](int vecs, int lanes) { rowLoop(vecs, lanes); },
              [&](int rows, int vecs, int lanes) { microKernel(rows, vecs, lanes); });
    emitConstants();
  }

private:
  GemmConfig c;

  /// The convolution building its own panels: the task's (image, panel)
  /// items one after another, each packed into the task's buffer and run
  /// from there. Locals: [rsp] item, [rsp + 8] arguments, [rsp + 16] buffer.
  void generateWithIm2col() {
    const int64_t nr = kVecs * kLanes;
    const int64_t panels = (c.n + nr - 1) / nr, items = c.batch * panels;
    const int64_t tasks = std::min<int64_t>(items, GemmKernel::kMaxIm2colTasks);
    prologue();
    frameBytes = 32;
    sub(rsp, frameBytes);
    mov(ptr[rsp + 8], rdi);
    mov(ptr[rsp], rsi);
    mov(rax, ptr[rdi + 40]);
    imul(rdx, rsi, c.k * nr * 4);
    add(rax, rdx);
    mov(ptr[rsp + 16], rax);
    Label item;
    L(item);
    mov(rax, ptr[rsp]);
    xor_(edx, edx);
    mov(rcx, panels);
    div(rcx);
    mov(r14, rax); // image
    mov(rsi, rdx); // panel
    const Im2colConfig &ic = *c.im2col;
    mov(rdi, ptr[rsp + 8]);
    mov(rax, ptr[rdi + 8]);
    imul(rdx, r14, ic.channels * PanelIm2col::plane(ic).floats * 4);
    lea(rax, ptr[rax + rdx + PanelIm2col::guardElements(ic) * 4]); // the image's planes
    mov(rbx, ptr[rsp + 16]);
    emitPanelIm2col(ic, rax, rsi, rbx);
    mov(rdi, ptr[rsp + 8]);
    mov(rax, ptr[rdi + 0]);
    mov(rbx, ptr[rsp + 16]);
    mov(rdx, ptr[rdi + 16]);
    mov(r12, ptr[rdi + 24]);
    mov(rcx, ptr[rdi + 32]);
    imul(r13, r14, c.cBatchStride * 4);
    add(rcx, r13);
    imul(r13, r14, c.rBatchStride * 4);
    add(r12, r13);
    imul(r13, rsi, nr * 4);
    if (!c.rowBias)
      add(rdx, r13);
    add(rcx, r13);
    add(r12, r13);
    setRowStrides(c.lda * 4);
    panelDispatch(rsi, c.n, kVecs, kLanes, [&](int vecs, int lanes) { rowLoop(vecs, lanes); });
    mov(rax, ptr[rsp]);
    add(rax, tasks);
    mov(ptr[rsp], rax);
    cmp(rax, items);
    jb(item, T_NEAR);
    epilogueReturn(0);
    emitMicroKernels([&](int rows, int vecs, int lanes) { microKernel(rows, vecs, lanes); });
    emitConstants();
  }


  /// All row tiles of the current panel (pointers advance; restored after).
  void rowLoop(int vecs, int lastLanes) {
    int64_t fullTiles = c.m / kRows, rest = c.m % kRows;
    push(rax);
    push(rcx);
    push(r12);
    push(rdx);
    if (fullTiles) {
      Label rows;
      mov(rbp, fullTiles);
      L(rows);
      call(microLabel(kRows, vecs, lastLanes));
      add(rax, kRows * c.lda * 4);
      add(rcx, kRows * c.ldc * 4);
      add(r12, kRows * c.ldr * 4);
      if (c.rowBias)
        add(rdx, kRows * 4);
      dec(rbp);
      jnz(rows, T_NEAR);
    }
    if (rest)
      call(microLabel(rest, vecs, lastLanes));
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
    int64_t blocks = c.k / kUnroll, rest = c.k % kUnroll;
    if (blocks) {
      Label loop;
      mov(r13, blocks);
      L(loop);
      for (int u = 0; u < kUnroll; ++u)
        kStep(rows, vecs, u * 4, u * nr * 4);
      add(r14, kUnroll * 4);
      add(r15, kUnroll * nr * 4);
      dec(r13);
      jnz(loop, T_NEAR);
    }
    for (int u = 0; u < rest; ++u)
      kStep(rows, vecs, u * 4, u * nr * 4);

    // Epilogue: residual, activation, store (masked in the last vector).
    std::vector<uint32_t> laneMask(kLanes, 0);
    for (int i = 0; i < lastLanes; ++i)
      laneMask[i] = 0xffffffffu;
    Address maskAddr = masked && !kAvx512 ? dataAddr(laneMask) : ptr[rip];
    if (masked && kAvx512) {
      mov(r13d, (1u << lastLanes) - 1);
      kmovw(k1, r13d);
    }
    for (int r = 0; r < rows; ++r) {
      for (int v = 0; v < vecs; ++v) {
        bool tailVec = masked && v == vecs - 1;
        Vmm x = acc(r, v);
        Address cAddr = ptr[rcx + r * c.ldc * 4 + v * kLanes * 4];
        if (c.residual) {
          Address rAddr = ptr[r12 + r * c.ldr * 4 + v * kLanes * 4];
          if (!tailVec) {
            vaddps(x, x, rAddr);
          } else if constexpr (kAvx512) {
            vaddps(x | k1, x, rAddr);
          } else {
            vmovups(temp(0), maskAddr);
            vmaskmovps(temp(1), temp(0), rAddr);
            vaddps(x, x, temp(1));
          }
        }
        emitActivation(x, c.activation, temp(0), temp(1), temp(2), temp(3));
        if (!tailVec) {
          vmovups(cAddr, x);
        } else if constexpr (kAvx512) {
          vmovups(cAddr | k1, x);
        } else {
          vmovups(temp(0), maskAddr);
          vmaskmovps(cAddr, temp(0), x);
        }
      }
    }
  }
};

} // namespace

std::unique_ptr<JitKernel> GemmKernel::generate(const GemmConfig &config, Isa isa) {
  if (config.im2col && !PanelIm2col::supports(*config.im2col, isa))
    return nullptr;
  return generatedFor<GemmGenerator>(isa, config);
}

} // namespace mlir::nunc::x86
