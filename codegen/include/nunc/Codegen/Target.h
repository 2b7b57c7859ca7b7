//===- Target.h - code generation targets -----------------------*- C++ -*-===//

#ifndef NUNC_CODEGEN_TARGET_H
#define NUNC_CODEGEN_TARGET_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlir::nunc {

/// Vector width of the f32 kernels.
enum class Isa { Avx2, Avx512 };

/// The int8 GEMM family a target uses (docs/int8.md).
enum class Int8Isa {
  Avx2,       // 16-bit A, vpmaddwd + vpaddd (exact), ymm
  AvxVnni,    // u8 A, VEX vpdpbusd, ymm
  Avx512Vnni, // u8 A, EVEX vpdpbusd, zmm
  Amx,        // u8 A, tdpbusd tiles, AVX-512 epilogue
};
inline const char *int8IsaName(Int8Isa isa) {
  switch (isa) {
  case Int8Isa::Avx2: return "avx2";
  case Int8Isa::AvxVnni: return "avxvnni";
  case Int8Isa::Avx512Vnni: return "avx512vnni";
  case Int8Isa::Amx: return "amx";
  }
  return "?";
}

struct TargetInfo {
  std::string name;        // "x86_64-avx512"
  Isa isa = Isa::Avx512;
  /// The int8 GEMMs' instructions.
  Int8Isa int8 = Int8Isa::Avx2;
  /// AvxVnni kernels with vpdpbusd / vpdpwssd EVEX-encoded (the testing
  /// target x86_64-avxvnni-evex).
  bool evexVnni = false;
  std::string llvmCpu;     // CPU for llvm::TargetMachine
  std::string llvmFeatures;
  uint32_t runtimeFeatures = 0; // NUNC_CPU_* bits the library checks at init
  std::vector<std::string> featureNames;
};

/// The int8 convolution kernels of a target's int8 family (every family
/// has them): AVX-512 VNNI's, which AMX targets use too, AVX-VNNI's, or the
/// 16-bit AVX2 form's (ymm).
inline Int8Isa int8ConvolutionIsa(Int8Isa isa) {
  return isa == Int8Isa::Amx ? Int8Isa::Avx512Vnni : isa;
}

/// Whether a target of this int8 family reads static u16 inputs (A16W8 QDQ
/// models; Int8GemmConfig::u16Input): the AVX-512 VNNI kernel, which AMX
/// targets use for them too.
inline bool readsU16Inputs(Int8Isa isa) {
  return isa == Int8Isa::Avx512Vnni || isa == Int8Isa::Amx;
}
inline bool hasU16InputGemms(const TargetInfo &t) { return readsU16Inputs(t.int8); }

/// The targets `nunc compile --target` accepts, in the order --help lists them.
std::vector<std::string> targetNames();

/// Resolves a target name ("native" picks the build host's best).
llvm::Expected<TargetInfo> resolveTarget(llvm::StringRef name);

} // namespace mlir::nunc

#endif // NUNC_CODEGEN_TARGET_H
