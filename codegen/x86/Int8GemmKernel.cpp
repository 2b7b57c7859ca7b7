//===- Int8GemmKernel.cpp - u8 x s8 GEMM with VNNI (xbyak) ----------------===//

#include "Int8GemmKernel.h"

#include <cstring>
#include <type_traits>

namespace mlir::nunc::x86 {

std::vector<int8_t> Int8GemmKernel::packWeights(const int8_t *w, int64_t k, int64_t n, Isa isa) {
  int64_t g = kGroup(isa), nr = panelWidth(isa);
  int64_t kp = paddedK(k, isa), panels = numPanels(n, isa);
  std::vector<int8_t> out(panels * kp * nr, 0);
  for (int64_t p = 0; p < panels; ++p)
    for (int64_t kk = 0; kk < k; ++kk)
      for (int64_t j = 0; j < nr && p * nr + j < n; ++j)
        out[((p * kp / g + kk / g) * nr + j) * g + kk % g] = w[kk * n + p * nr + j];
  return out;
}

std::vector<uint32_t> Int8GemmKernel::packColumns(const int32_t *sums, const float *scales,
                                                  const float *bias, int64_t n, Isa isa) {
  int64_t nr = panelWidth(isa);
  std::vector<uint32_t> out(numPanels(n, isa) * 3 * nr, 0);
  for (int64_t j = 0; j < n; ++j) {
    int64_t base = j / nr * 3 * nr + j % nr;
    std::memcpy(&out[base], &sums[j], 4);
    std::memcpy(&out[base + nr], &scales[j], 4);
    if (bias)
      std::memcpy(&out[base + 2 * nr], &bias[j], 4);
  }
  return out;
}

namespace {

using namespace Xbyak;

/// One generator for both forms. AVX-512 VNNI: u8 A, `vpdpbusd` on groups
/// of 4 k, tile 8 x 48 (24 accumulators). AVX2: A holds the u8 values in 16
/// bits, W s8 pairs are widened at load and `vpmaddwd` + `vpaddd` take
/// groups of 2 k, tile 6 x 16 (12 accumulators, 2 weight vectors, the A
/// broadcast and one product register). Either way a group of one A row is
/// 4 bytes.
template <typename Vmm> class Int8GemmGenerator : public PanelGemmKernel {
public:
  static constexpr bool kAvx512 = std::is_same_v<Vmm, Zmm>;
  static constexpr int kLanes = kAvx512 ? 16 : 8, kRows = kAvx512 ? 8 : 6,
                       kVecs = kAvx512 ? 3 : 2, kGroup = kAvx512 ? 4 : 2, kUnroll = 4;
  static constexpr int64_t kGroupBytes = kVecs * kLanes * kGroup; // W bytes per k group

  explicit Int8GemmGenerator(const Int8GemmConfig &config) : c(config) {
    replicate = kAvx512 ? 1 : 8;
  }

  void generate() {
    const int64_t nr = kVecs * kLanes;
    const int64_t kp = Int8GemmKernel::paddedK(c.k, c.isa);

    prologue();
    mov(rax, ptr[rdi + 0]);  // A
    mov(rbx, ptr[rdi + 8]);  // packed W
    mov(rdx, ptr[rdi + 16]); // column block
    mov(r12, ptr[rdi + 32]); // residual
    mov(rcx, ptr[rdi + 40]); // C
    mov(r13, rsi);           // panel
    mov(rsi, ptr[rdi + 24]); // row block
    imul(r14, r13, kp * nr); // W panel: kp/g groups of nr x g bytes
    add(rbx, r14);
    imul(r14, r13, 3 * nr * 4);
    add(rdx, r14);
    imul(r14, r13, nr * 4);
    add(rcx, r14);
    add(r12, r14);
    setRowStrides(c.lda);

    panelBody(r13, c.n, kVecs, kLanes, [&](int vecs, int lanes) { rowLoop(vecs, lanes); },
              [&](int rows, int vecs, int lanes) { microKernel(rows, vecs, lanes); });
    emitConstants();
  }

private:
  Int8GemmConfig c;

  static constexpr int kFree = kRows * kVecs; // first register after the accumulators
  Vmm acc(int r, int v) { return Vmm(r * kVecs + v); }
  Vmm bReg(int v) { return Vmm(kFree + v); }
  Vmm aReg() { return Vmm(kFree + kVecs); }
  Vmm product() { return Vmm(kFree + kVecs + 1); } // AVX2 only
  /// Epilogue temporaries: past the k-loop registers on AVX-512; the k-loop
  /// registers themselves on AVX2 (16 registers in all).
  Vmm temp(int i) { return Vmm(kAvx512 ? 28 + i : kFree + i); }

  /// All row tiles of the current panel (pointers restored after).
  void rowLoop(int vecs, int lastLanes) {
    int64_t fullTiles = c.m / kRows, rest = c.m % kRows;
    push(rax);
    push(rcx);
    push(r12);
    push(rsi);
    if (fullTiles) {
      Label rows;
      mov(rbp, fullTiles);
      L(rows);
      call(microLabel(kRows, vecs, lastLanes));
      add(rax, kRows * c.lda);
      add(rcx, kRows * c.ldc * 4);
      add(r12, kRows * c.ldr * 4);
      add(rsi, kRows * 8);
      dec(rbp);
      jnz(rows, T_NEAR);
    }
    if (rest)
      call(microLabel(static_cast<int>(rest), vecs, lastLanes));
    pop(rsi);
    pop(r12);
    pop(rcx);
    pop(rax);
  }

  /// One group of k (one dword of each A row) at byte offsets aOff, bOff.
  void kStep(int rows, int vecs, int64_t aOff, int64_t bOff) {
    for (int v = 0; v < vecs; ++v) {
      if constexpr (kAvx512)
        vmovdqu32(bReg(v), ptr[r15 + bOff + v * kLanes * 4]);
      else
        vpmovsxbw(bReg(v), ptr[r15 + bOff + v * kLanes * 2]);
    }
    for (int r = 0; r < rows; ++r) {
      vpbroadcastd(aReg(), ptr[aRow(r14, r) + aOff]);
      for (int v = 0; v < vecs; ++v) {
        if constexpr (kAvx512) {
          vpdpbusd(acc(r, v), aReg(), bReg(v));
        } else {
          vpmaddwd(product(), aReg(), bReg(v));
          vpaddd(acc(r, v), acc(r, v), product());
        }
      }
    }
  }

  void microKernel(int rows, int vecs, int lastLanes) {
    for (int r = 0; r < rows; ++r)
      for (int v = 0; v < vecs; ++v)
        if constexpr (kAvx512)
          vpxord(acc(r, v), acc(r, v), acc(r, v));
        else
          vpxor(acc(r, v), acc(r, v), acc(r, v));
    mov(r14, rax);
    mov(r15, rbx);
    int64_t groups = Int8GemmKernel::paddedK(c.k, c.isa) / kGroup;
    int64_t blocks = groups / kUnroll, rest = groups % kUnroll;
    if (blocks) {
      Label loop;
      mov(r13, blocks);
      L(loop);
      for (int u = 0; u < kUnroll; ++u)
        kStep(rows, vecs, u * 4, u * kGroupBytes);
      add(r14, kUnroll * 4);
      add(r15, kUnroll * kGroupBytes);
      dec(r13);
      jnz(loop, T_NEAR);
    }
    for (int u = 0; u < rest; ++u)
      kStep(rows, vecs, u * 4, u * kGroupBytes);

    // Epilogue: zero-point compensation, scale, bias, residual, activation.
    bool masked = lastLanes != kLanes;
    Address maskAddr = ptr[rip];
    if (masked) {
      if constexpr (kAvx512) {
        mov(r13d, (1u << lastLanes) - 1);
        kmovw(k1, r13d);
      } else {
        std::vector<uint32_t> laneMask(kLanes, 0);
        for (int i = 0; i < lastLanes; ++i)
          laneMask[i] = 0xffffffffu;
        maskAddr = dataAddr(laneMask);
      }
    }
    const int64_t nr = kVecs * kLanes;
    const int64_t sums = 0, scales = nr * 4, biases = 2 * nr * 4;
    for (int r = 0; r < rows; ++r) {
      for (int v = 0; v < vecs; ++v) {
        bool tailVec = masked && v == vecs - 1;
        Vmm x = acc(r, v);
        int64_t col = v * kLanes * 4;
        if (c.perRowA) {
          vpbroadcastd(temp(0), ptr[rsi + r * 8]);
          vpmulld(temp(0), temp(0), ptr[rdx + sums + col]);
          vpsubd(x, x, temp(0));
        } else {
          vpsubd(x, x, ptr[rdx + sums + col]);
        }
        vcvtdq2ps(x, x);
        if (c.perRowA) {
          // One rounding of scaleA * scaleW, then one of the product (as
          // onnxruntime's MatMulInteger -> Cast -> Mul does).
          vbroadcastss(temp(0), ptr[rsi + r * 8 + 4]);
          vmulps(temp(0), temp(0), ptr[rdx + scales + col]);
          vmulps(x, x, temp(0));
        } else {
          vmulps(x, x, ptr[rdx + scales + col]);
        }
        if (c.bias)
          vaddps(x, x, ptr[rdx + biases + col]);
        if (c.residual) {
          Address rAddr = ptr[r12 + r * c.ldr * 4 + col];
          if (!tailVec) {
            vaddps(x, x, rAddr);
          } else if constexpr (kAvx512) {
            vaddps(x | k1, x, rAddr);
          } else {
            vmovups(temp(1), maskAddr);
            vmaskmovps(temp(0), temp(1), rAddr);
            vaddps(x, x, temp(0));
          }
        }
        emitActivation(x, c.activation, temp(0), temp(1), temp(2), temp(3));
        emitActivation(x, c.output, temp(0), temp(1), temp(2), temp(3));
        Address cAddr = ptr[rcx + r * c.ldc * 4 + col];
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

std::unique_ptr<JitKernel> Int8GemmKernel::generate(const Int8GemmConfig &config) {
  return generatedFor<Int8GemmGenerator>(config.isa, config);
}

} // namespace mlir::nunc::x86
