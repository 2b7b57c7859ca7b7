//===- AmxEmulator.cpp - AMX tile instructions emulated on SIGILL ---------===//

#include "AmxEmulator.h"

#include <csignal>
#include <cstring>
#include <ucontext.h>

namespace nunc_test {

namespace {

struct TileState {
  bool configured = false;
  uint8_t rows[8] = {};
  uint16_t colsb[8] = {};
  uint8_t data[8][16][64] = {};
} tiles;

int64_t emulated = 0;

/// x86 register number (with the REX/VEX extension bit) -> gregs index.
greg_t &gpr(ucontext_t *uc, int reg) {
  static const int map[16] = {REG_RAX, REG_RCX, REG_RDX, REG_RBX, REG_RSP, REG_RBP,
                              REG_RSI, REG_RDI, REG_R8,  REG_R9,  REG_R10, REG_R11,
                              REG_R12, REG_R13, REG_R14, REG_R15};
  return uc->uc_mcontext.gregs[map[reg]];
}

struct Decoded {
  int opcode = 0, pp = 0, vvvv = 0, reg = 0, rm = 0;
  bool memory = false;
  uint8_t *address = nullptr; // memory operand: base + disp (no index)
  int64_t stride = 0;         // memory operand: the index register's value
  int length = 0;
};

/// Decodes a 3-byte-VEX instruction in map 0F38 at `p`; false if it is not
/// one this emulator knows.
bool decode(const uint8_t *p, ucontext_t *uc, Decoded &d) {
  if (p[0] != 0xc4 || (p[1] & 0x1f) != 0x02)
    return false;
  int r = !(p[1] & 0x80), x = !(p[1] & 0x40), b = !(p[1] & 0x20);
  d.vvvv = (~p[2] >> 3) & 0xf;
  d.pp = p[2] & 3;
  d.opcode = p[3];
  int modrm = p[4], mod = modrm >> 6;
  d.reg = ((modrm >> 3) & 7) | (r << 3);
  int rmLow = modrm & 7;
  const uint8_t *q = p + 5;
  if (mod == 3) {
    d.rm = rmLow | (b << 3);
    d.length = 5;
    return true;
  }
  d.memory = true;
  int64_t base = 0;
  if (rmLow == 4) { // SIB
    int sib = *q++, scale = sib >> 6, index = ((sib >> 3) & 7) | (x << 3), baseReg = sib & 7;
    if (index != 4)
      d.stride = static_cast<int64_t>(gpr(uc, index)) << scale;
    if (baseReg == 5 && mod == 0) {
      int32_t disp;
      std::memcpy(&disp, q, 4);
      q += 4;
      base = disp;
    } else {
      base = gpr(uc, baseReg | (b << 3));
    }
  } else if (rmLow == 5 && mod == 0) { // rip-relative
    int32_t disp;
    std::memcpy(&disp, q, 4);
    q += 4;
    d.length = static_cast<int>(q - p);
    d.address = const_cast<uint8_t *>(p) + d.length + disp;
    return true;
  } else {
    base = gpr(uc, rmLow | (b << 3));
  }
  if (mod == 1) {
    base += static_cast<int8_t>(*q++);
  } else if (mod == 2) {
    int32_t disp;
    std::memcpy(&disp, q, 4);
    q += 4;
    base += disp;
  }
  d.address = reinterpret_cast<uint8_t *>(base);
  d.length = static_cast<int>(q - p);
  return true;
}

void zeroTile(int t) { std::memset(tiles.data[t], 0, sizeof tiles.data[t]); }

/// Applies the instruction; false if it is not a tile instruction.
bool execute(const Decoded &d) {
  switch (d.opcode) {
  case 0x49:
    if (d.pp == 0 && d.memory) { // LDTILECFG m512
      const uint8_t *cfg = d.address;
      tiles.configured = cfg[0] == 1;
      for (int t = 0; t < 8; ++t) {
        std::memcpy(&tiles.colsb[t], cfg + 16 + 2 * t, 2);
        tiles.rows[t] = cfg[48 + t];
        zeroTile(t);
      }
      return true;
    }
    if (d.pp == 0 && !d.memory) { // TILERELEASE
      tiles = TileState();
      return true;
    }
    if (d.pp == 3 && !d.memory) { // TILEZERO tmm
      zeroTile(d.reg);
      return true;
    }
    return false;
  case 0x4b:
    if (!d.memory || (d.pp != 3 && d.pp != 2))
      return false;
    for (int row = 0; row < tiles.rows[d.reg]; ++row) {
      uint8_t *mem = d.address + row * d.stride;
      if (d.pp == 3) // TILELOADD tmm, [base + stride]
        std::memcpy(tiles.data[d.reg][row], mem, tiles.colsb[d.reg]);
      else // TILESTORED [base + stride], tmm
        std::memcpy(mem, tiles.data[d.reg][row], tiles.colsb[d.reg]);
    }
    if (d.pp == 3)
      for (int row = tiles.rows[d.reg]; row < 16; ++row)
        std::memset(tiles.data[d.reg][row], 0, 64);
    return true;
  case 0x5e: { // TDPBUSD tmm1 (reg) += tmm2 (rm, u8) . tmm3 (vvvv, s8)
    if (d.pp != 1 || d.memory)
      return false;
    int c = d.reg, a = d.rm, bt = d.vvvv;
    for (int m = 0; m < tiles.rows[c]; ++m)
      for (int n = 0; n < tiles.colsb[c] / 4; ++n) {
        int32_t sum;
        std::memcpy(&sum, &tiles.data[c][m][4 * n], 4);
        for (int k = 0; k < tiles.colsb[a] / 4; ++k)
          for (int i = 0; i < 4; ++i)
            sum += int32_t(tiles.data[a][m][4 * k + i]) *
                   int32_t(static_cast<int8_t>(tiles.data[bt][k][4 * n + i]));
        std::memcpy(&tiles.data[c][m][4 * n], &sum, 4);
      }
    return true;
  }
  }
  return false;
}

void onSigill(int sig, siginfo_t *, void *context) {
  auto *uc = static_cast<ucontext_t *>(context);
  auto *pc = reinterpret_cast<const uint8_t *>(uc->uc_mcontext.gregs[REG_RIP]);
  Decoded d;
  if (!decode(pc, uc, d) || !execute(d)) {
    // Not ours: die as the instruction would have.
    signal(sig, SIG_DFL);
    return;
  }
  ++emulated;
  uc->uc_mcontext.gregs[REG_RIP] += d.length;
}

} // namespace

bool installAmxEmulator() {
  static const bool installed = [] {
    struct sigaction sa = {};
    sa.sa_sigaction = onSigill;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    return sigaction(SIGILL, &sa, nullptr) == 0;
  }();
  return installed;
}

int64_t emulatedAmxInstructions() { return emulated; }

} // namespace nunc_test
