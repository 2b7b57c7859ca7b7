//===- Int8GemmKernel.cpp - u8 x s8 GEMM with VNNI (xbyak) ----------------===//

#include "Int8GemmKernel.h"

#include <cstring>
#include <map>
#include <tuple>

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

class Int8GemmGenerator : public JitKernel {
public:
  static constexpr int kLanes = 16, kRows = 8, kVecs = 3, kUnroll = 4;
  static constexpr int64_t kPanelBytes = kVecs * kLanes * 4; // 48 columns x 4 k

  explicit Int8GemmGenerator(const Int8GemmConfig &config) : c(config) { replicate = 1; }

  void generate() {
    const int64_t nr = kVecs * kLanes;
    const int64_t panels = (c.n + nr - 1) / nr;
    const int64_t tail = c.n - (panels - 1) * nr;
    const int tailVecs = static_cast<int>((tail + kLanes - 1) / kLanes);
    const int tailLanes = static_cast<int>(tail - (tailVecs - 1) * kLanes);
    const int64_t kp = Int8GemmKernel::paddedK(c.k);

    prologue();
    mov(rax, ptr[rdi + 0]);  // A
    mov(rbx, ptr[rdi + 8]);  // packed W
    mov(rdx, ptr[rdi + 16]); // column block
    mov(r12, ptr[rdi + 32]); // residual
    mov(rcx, ptr[rdi + 40]); // C
    mov(r13, rsi);           // panel
    mov(rsi, ptr[rdi + 24]); // row block
    imul(r14, r13, kp * nr); // W panel: kp/4 groups of 48 x 4 bytes
    add(rbx, r14);
    imul(r14, r13, 3 * nr * 4);
    add(rdx, r14);
    imul(r14, r13, nr * 4);
    add(rcx, r14);
    add(r12, r14);
    // Row offsets of A in bytes: lda, 3 lda, 5 lda, 7 lda.
    mov(r8, c.lda);
    mov(r9, c.lda * 3);
    mov(r10, c.lda * 5);
    mov(r11, c.lda * 7);

    Label tailPanel, done;
    bool hasTail = tail != nr;
    if (hasTail) {
      cmp(r13, panels - 1);
      je(tailPanel, T_NEAR);
    }
    rowLoop(kVecs, kLanes);
    jmp(done, T_NEAR);
    if (hasTail) {
      L(tailPanel);
      rowLoop(tailVecs, tailLanes);
    }
    L(done);
    epilogueReturn(0);
    for (auto &[key, label] : micro) {
      L(*label);
      microKernel(std::get<0>(key), std::get<1>(key), std::get<2>(key));
      ret();
    }
    emitConstants();
  }

private:
  Int8GemmConfig c;
  std::map<std::tuple<int, int, int>, std::unique_ptr<Label>> micro;

  Label &microLabel(int rows, int vecs, int lastLanes) {
    auto &l = micro[{rows, vecs, lastLanes}];
    if (!l)
      l = std::make_unique<Label>();
    return *l;
  }

  Zmm acc(int r, int v) { return Zmm(r * kVecs + v); }
  Zmm bReg(int v) { return Zmm(24 + v); }
  Zmm aReg() { return Zmm(27); }
  Zmm temp(int i) { return Zmm(28 + i); }

  RegExp aRow(const Reg64 &base, int r) {
    switch (r) {
    case 0: return base;
    case 1: return base + r8;
    case 2: return base + r8 * 2;
    case 3: return base + r9;
    case 4: return base + r8 * 4;
    case 5: return base + r10;
    case 6: return base + r9 * 2;
    default: return base + r11;
    }
  }

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

  /// Four k (one dword of each A row) at byte offsets aOff and bOff.
  void kStep(int rows, int vecs, int64_t aOff, int64_t bOff) {
    for (int v = 0; v < vecs; ++v)
      vmovdqu32(bReg(v), ptr[r15 + bOff + v * kLanes * 4]);
    for (int r = 0; r < rows; ++r) {
      vpbroadcastd(aReg(), ptr[aRow(r14, r) + aOff]);
      for (int v = 0; v < vecs; ++v)
        vpdpbusd(acc(r, v), aReg(), bReg(v));
    }
  }

  void microKernel(int rows, int vecs, int lastLanes) {
    for (int r = 0; r < rows; ++r)
      for (int v = 0; v < vecs; ++v)
        vpxord(acc(r, v), acc(r, v), acc(r, v));
    mov(r14, rax);
    mov(r15, rbx);
    int64_t groups = Int8GemmKernel::paddedK(c.k) / 4;
    int64_t blocks = groups / kUnroll, rest = groups % kUnroll;
    if (blocks) {
      Label loop;
      mov(r13, blocks);
      L(loop);
      for (int u = 0; u < kUnroll; ++u)
        kStep(rows, vecs, u * 4, u * kPanelBytes);
      add(r14, kUnroll * 4);
      add(r15, kUnroll * kPanelBytes);
      dec(r13);
      jnz(loop, T_NEAR);
    }
    for (int u = 0; u < rest; ++u)
      kStep(rows, vecs, u * 4, u * kPanelBytes);

    // Epilogue: zero-point compensation, scale, bias, residual, activation.
    bool masked = lastLanes != kLanes;
    if (masked) {
      mov(r13d, (1u << lastLanes) - 1);
      kmovw(k1, r13d);
    }
    const int64_t sums = 0, scales = 48 * 4, biases = 96 * 4;
    for (int r = 0; r < rows; ++r) {
      for (int v = 0; v < vecs; ++v) {
        bool tailVec = masked && v == vecs - 1;
        Zmm x = acc(r, v);
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
          if (tailVec)
            vaddps(x | k1, x, rAddr);
          else
            vaddps(x, x, rAddr);
        }
        emitActivation(x, c.activation, temp(0), temp(1), temp(2), temp(3));
        emitActivation(x, c.output, temp(0), temp(1), temp(2), temp(3));
        Address cAddr = ptr[rcx + r * c.ldc * 4 + col];
        if (tailVec)
          vmovups(cAddr | k1, x);
        else
          vmovups(cAddr, x);
      }
    }
  }
};

/// The AVX2 form: A is 16-bit (u8 values), W s8 pairs widened at load;
/// tile 6 rows x 16 columns (12 accumulators, 2 weight vectors, the A
/// broadcast and one product register).
class Int8GemmAvx2Generator : public JitKernel {
public:
  static constexpr int kLanes = 8, kRows = 6, kVecs = 2, kUnroll = 4;
  static constexpr int64_t kPairBytes = kVecs * kLanes * 2; // 16 columns x 2 k

  explicit Int8GemmAvx2Generator(const Int8GemmConfig &config) : c(config) { replicate = 8; }

  void generate() {
    const int64_t nr = kVecs * kLanes;
    const int64_t panels = (c.n + nr - 1) / nr;
    const int64_t tail = c.n - (panels - 1) * nr;
    const int tailVecs = static_cast<int>((tail + kLanes - 1) / kLanes);
    const int tailLanes = static_cast<int>(tail - (tailVecs - 1) * kLanes);
    const int64_t kp = Int8GemmKernel::paddedK(c.k, Isa::Avx2);

    prologue();
    mov(rax, ptr[rdi + 0]);  // A (16-bit)
    mov(rbx, ptr[rdi + 8]);  // packed W
    mov(rdx, ptr[rdi + 16]); // column block
    mov(r12, ptr[rdi + 32]); // residual
    mov(rcx, ptr[rdi + 40]); // C
    mov(r13, rsi);           // panel
    mov(rsi, ptr[rdi + 24]); // row block
    imul(r14, r13, kp * nr); // W panel: kp/2 pairs of 16 x 2 bytes
    add(rbx, r14);
    imul(r14, r13, 3 * nr * 4);
    add(rdx, r14);
    imul(r14, r13, nr * 4);
    add(rcx, r14);
    add(r12, r14);
    // Row offsets of A in bytes: lda, 3 lda, 5 lda.
    mov(r8, c.lda);
    mov(r9, c.lda * 3);
    mov(r10, c.lda * 5);

    Label tailPanel, done;
    bool hasTail = tail != nr;
    if (hasTail) {
      cmp(r13, panels - 1);
      je(tailPanel, T_NEAR);
    }
    rowLoop(kVecs, kLanes);
    jmp(done, T_NEAR);
    if (hasTail) {
      L(tailPanel);
      rowLoop(tailVecs, tailLanes);
    }
    L(done);
    epilogueReturn(0);
    for (auto &[key, label] : micro) {
      L(*label);
      microKernel(std::get<0>(key), std::get<1>(key), std::get<2>(key));
      ret();
    }
    emitConstants();
  }

private:
  Int8GemmConfig c;
  std::map<std::tuple<int, int, int>, std::unique_ptr<Label>> micro;

  Label &microLabel(int rows, int vecs, int lastLanes) {
    auto &l = micro[{rows, vecs, lastLanes}];
    if (!l)
      l = std::make_unique<Label>();
    return *l;
  }

  Ymm acc(int r, int v) { return Ymm(r * kVecs + v); }
  Ymm bReg(int v) { return Ymm(12 + v); }
  Ymm aReg() { return Ymm(14); }
  Ymm product() { return Ymm(15); }
  /// Epilogue temporaries (the k-loop registers are free by then).
  Ymm temp(int i) { return Ymm(12 + i); }

  RegExp aRow(const Reg64 &base, int r) {
    switch (r) {
    case 0: return base;
    case 1: return base + r8;
    case 2: return base + r8 * 2;
    case 3: return base + r9;
    case 4: return base + r8 * 4;
    default: return base + r10;
    }
  }

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

  /// One pair of k: A's two 16-bit values (one dword) against 16 columns.
  void kStep(int rows, int vecs, int64_t aOff, int64_t bOff) {
    for (int v = 0; v < vecs; ++v)
      vpmovsxbw(bReg(v), ptr[r15 + bOff + v * kLanes * 2]);
    for (int r = 0; r < rows; ++r) {
      vpbroadcastd(aReg(), ptr[aRow(r14, r) + aOff]);
      for (int v = 0; v < vecs; ++v) {
        vpmaddwd(product(), aReg(), bReg(v));
        vpaddd(acc(r, v), acc(r, v), product());
      }
    }
  }

  void microKernel(int rows, int vecs, int lastLanes) {
    for (int r = 0; r < rows; ++r)
      for (int v = 0; v < vecs; ++v)
        vpxor(acc(r, v), acc(r, v), acc(r, v));
    mov(r14, rax);
    mov(r15, rbx);
    int64_t pairs = Int8GemmKernel::paddedK(c.k, Isa::Avx2) / 2;
    int64_t blocks = pairs / kUnroll, rest = pairs % kUnroll;
    if (blocks) {
      Label loop;
      mov(r13, blocks);
      L(loop);
      for (int u = 0; u < kUnroll; ++u)
        kStep(rows, vecs, u * 4, u * kPairBytes);
      add(r14, kUnroll * 4);
      add(r15, kUnroll * kPairBytes);
      dec(r13);
      jnz(loop, T_NEAR);
    }
    for (int u = 0; u < rest; ++u)
      kStep(rows, vecs, u * 4, u * kPairBytes);

    // Epilogue: zero-point compensation, scale, bias, residual, activation.
    bool masked = lastLanes != kLanes;
    std::vector<uint32_t> laneMask(kLanes, 0);
    for (int i = 0; i < lastLanes; ++i)
      laneMask[i] = 0xffffffffu;
    Address maskAddr = masked ? dataAddr(laneMask) : ptr[rip];
    const int64_t nr = kVecs * kLanes;
    const int64_t sums = 0, scales = nr * 4, biases = 2 * nr * 4;
    for (int r = 0; r < rows; ++r) {
      for (int v = 0; v < vecs; ++v) {
        bool tailVec = masked && v == vecs - 1;
        Ymm x = acc(r, v);
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
          if (tailVec) {
            vmovups(temp(1), maskAddr);
            vmaskmovps(temp(0), temp(1), rAddr);
            vaddps(x, x, temp(0));
          } else {
            vaddps(x, x, rAddr);
          }
        }
        emitActivation(x, c.activation, temp(0), temp(1), temp(2), temp(3));
        emitActivation(x, c.output, temp(0), temp(1), temp(2), temp(3));
        Address cAddr = ptr[rcx + r * c.ldc * 4 + col];
        if (tailVec) {
          vmovups(temp(0), maskAddr);
          vmaskmovps(cAddr, temp(0), x);
        } else {
          vmovups(cAddr, x);
        }
      }
    }
  }
};

} // namespace

std::unique_ptr<JitKernel> Int8GemmKernel::generate(const Int8GemmConfig &config) {
  std::unique_ptr<JitKernel> g;
  if (config.isa == Isa::Avx512) {
    auto v = std::make_unique<Int8GemmGenerator>(config);
    v->generate();
    g = std::move(v);
  } else {
    auto v = std::make_unique<Int8GemmAvx2Generator>(config);
    v->generate();
    g = std::move(v);
  }
  if (!g->finish())
    return nullptr;
  return g;
}

} // namespace mlir::nunc::x86
