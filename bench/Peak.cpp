//===- Peak.cpp - this machine's measured FMA / VNNI peak (one core) ------===//
//
// Independent FMA (or vpdpbusd) chains, more than latency x throughput, on
// registers only; prints GFLOP/s for AVX-512 (zmm) and AVX2 (ymm) fp32, and
// GOP/s (2 per multiply-add) for AVX-512 VNNI and for the AVX2 int8 form
// (`vpmaddwd` + `vpaddd` on ymm, "int8avx2"), AVX-VNNI (VEX `vpdpbusd` on
// ymm) and AMX (`tdpbusd` on four independent 16 x 16 tiles), best of
// several runs.
//
//===----------------------------------------------------------------------===//

#include <xbyak/xbyak.h>
#include <xbyak/xbyak_util.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

#include <sys/syscall.h>
#include <unistd.h>

enum class Op { Fma, Vnni, VexVnni, Maddwd };

template <typename Vmm, Op kOp = Op::Fma> struct FmaLoop : Xbyak::CodeGenerator {
  explicit FmaLoop(int chains, int64_t iterations) {
    int regs = kOp == Op::Maddwd ? 2 * chains + 2 : chains + 2;
    for (int i = 0; i < regs; ++i)
      vxorps(Vmm(i), Vmm(i), Vmm(i));
    mov(rax, iterations);
    Xbyak::Label loop;
    L(loop);
    for (int i = 0; i < chains; ++i) {
      if constexpr (kOp == Op::Vnni) {
        vpdpbusd(Vmm(i), Vmm(chains), Vmm(chains + 1), Xbyak::EvexEncoding);
      } else if constexpr (kOp == Op::VexVnni) {
        vpdpbusd(Vmm(i), Vmm(chains), Vmm(chains + 1), Xbyak::VexEncoding);
      } else if constexpr (kOp == Op::Maddwd) {
        // The AVX2 int8 GEMM's step: 16-bit pair products, then the s32 sum.
        vpmaddwd(Vmm(chains + 2 + i), Vmm(chains), Vmm(chains + 1));
        vpaddd(Vmm(i), Vmm(i), Vmm(chains + 2 + i));
      } else {
        vfmadd231ps(Vmm(i), Vmm(chains), Vmm(chains + 1));
      }
    }
    dec(rax);
    jnz(loop);
    vzeroupper();
    ret();
  }
};

/// Billions of operations per second; `opsPerLane` counts a multiply-add as 2.
template <typename Vmm, Op kOp = Op::Fma>
double measure(int chains, int lanes, int opsPerLane = 2) {
  const int64_t iterations = 20000000 / chains;
  FmaLoop<Vmm, kOp> code(chains, iterations);
  code.ready();
  auto fn = code.template getCode<void (*)()>();
  double best = 0;
  for (int rep = 0; rep < 7; ++rep) {
    auto t0 = std::chrono::steady_clock::now();
    fn();
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best = std::max(best, double(opsPerLane) * lanes * chains * iterations / s / 1e9);
  }
  return best;
}

/// tdpbusd into four independent C tiles from four source tiles (all 16
/// rows x 64 bytes), `iterations` times.
struct AmxLoop : Xbyak::CodeGenerator {
  explicit AmxLoop(int64_t iterations) {
    Xbyak::Label config, loop;
    ldtilecfg(ptr[rip + config]);
    for (int t = 0; t < 8; ++t)
      tilezero(Xbyak::Tmm(t));
    mov(rax, iterations);
    L(loop);
    tdpbusd(tmm0, tmm4, tmm6);
    tdpbusd(tmm1, tmm4, tmm7);
    tdpbusd(tmm2, tmm5, tmm6);
    tdpbusd(tmm3, tmm5, tmm7);
    dec(rax);
    jnz(loop);
    tilerelease();
    ret();
    align(64);
    L(config);
    uint8_t bytes[64] = {1};
    for (int t = 0; t < 8; ++t) {
      bytes[16 + 2 * t] = 64;
      bytes[48 + t] = 16;
    }
    for (uint8_t b : bytes)
      db(b);
  }
};

double measureAmx() {
  const int64_t iterations = 1000000;
  AmxLoop code(iterations);
  code.ready();
  auto fn = code.getCode<void (*)()>();
  double best = 0;
  for (int rep = 0; rep < 7; ++rep) {
    auto t0 = std::chrono::steady_clock::now();
    fn();
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best = std::max(best, 4.0 * 16 * 16 * 64 * 2 * iterations / s / 1e9);
  }
  return best;
}

int main() {
  Xbyak::util::Cpu cpu;
  if (cpu.has(Xbyak::util::Cpu::tAVX512F))
    std::printf("avx512 %.1f\n", measure<Xbyak::Zmm>(24, 16));
  if (cpu.has(Xbyak::util::Cpu::tAVX512_VNNI))
    std::printf("vnni %.1f\n", measure<Xbyak::Zmm, Op::Vnni>(24, 16, 8)); // 4 u8 x s8 per lane
  if (cpu.has(Xbyak::util::Cpu::tAVX2) && cpu.has(Xbyak::util::Cpu::tFMA))
    std::printf("avx2 %.1f\n", measure<Xbyak::Ymm>(12, 8));
  if (cpu.has(Xbyak::util::Cpu::tAVX_VNNI))
    std::printf("avxvnni %.1f\n", measure<Xbyak::Ymm, Op::VexVnni>(12, 8, 8));
  else if (cpu.has(Xbyak::util::Cpu::tAVX512_VNNI) && cpu.has(Xbyak::util::Cpu::tAVX512VL))
    // The ymm instruction EVEX-encoded: what x86_64-avxvnni-evex runs.
    std::printf("avxvnni-evex %.1f\n", measure<Xbyak::Ymm, Op::Vnni>(12, 8, 8));
  if (cpu.has(Xbyak::util::Cpu::tAMX_INT8) &&
      syscall(SYS_arch_prctl, 0x1023 /* ARCH_REQ_XCOMP_PERM */, 18 /* XTILEDATA */) == 0)
    std::printf("amx %.1f\n", measureAmx());
  if (cpu.has(Xbyak::util::Cpu::tAVX2))
    std::printf("int8avx2 %.1f\n", measure<Xbyak::Ymm, Op::Maddwd>(7, 8, 4)); // 2 s16 pairs
  return 0;
}
