//===- Target.h - code generation targets -----------------------*- C++ -*-===//

#ifndef NUNC_CODEGEN_TARGET_H
#define NUNC_CODEGEN_TARGET_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlir::nunc {

enum class Isa { Avx2, Avx512 };

struct TargetInfo {
  std::string name;        // "x86_64-avx512"
  Isa isa = Isa::Avx512;
  /// AVX-512 VNNI: int8 GEMMs (vpdpbusd).
  bool vnni = false;
  std::string llvmCpu;     // CPU for llvm::TargetMachine
  std::string llvmFeatures;
  uint32_t runtimeFeatures = 0; // NUNC_CPU_* bits the library checks at init
  std::vector<std::string> featureNames;
};

/// The targets `nunc compile --target` accepts, in the order --help lists them.
std::vector<std::string> targetNames();

/// Resolves a target name ("native" picks the build host's best).
llvm::Expected<TargetInfo> resolveTarget(llvm::StringRef name);

} // namespace mlir::nunc

#endif // NUNC_CODEGEN_TARGET_H
