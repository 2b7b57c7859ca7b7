//===- AmxEmulator.h - AMX tile instructions emulated on SIGILL -*- C++ -*-===//
//
// Lets the AMX int8 GEMM run, and be checked, on hosts without AMX (this
// project's CI machines are AMD Zen 4): a SIGILL handler decodes the tile
// instructions the kernels use (LDTILECFG, TILERELEASE, TILEZERO, TILELOADD,
// TILESTORED, TDPBUSD; VEX-encoded, as the Intel SDM defines them), applies
// them to a software tile state through the interrupted context's registers,
// and resumes after the instruction. Everything else runs natively. One tile
// state for the process: single-threaded use only.
//
//===----------------------------------------------------------------------===//

#ifndef NUNC_TEST_UNIT_AMXEMULATOR_H
#define NUNC_TEST_UNIT_AMXEMULATOR_H

#include <cstdint>

namespace nunc_test {

/// Installs the handler (once). Returns false if it could not be installed.
bool installAmxEmulator();

/// Tile instructions emulated so far (lets a test prove the emulator ran).
int64_t emulatedAmxInstructions();

} // namespace nunc_test

#endif // NUNC_TEST_UNIT_AMXEMULATOR_H
