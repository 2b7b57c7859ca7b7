//===- Target.cpp - code generation targets -------------------------------===//

#include "nunc/Codegen/Target.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/TargetParser/Host.h"

namespace mlir::nunc {

// Feature bits of the runtime's CPU check (runtime/src/runtime_internal.h).
enum : uint32_t {
  kAvx2 = 1u << 0, kFma = 1u << 1, kAvx512F = 1u << 2, kAvx512BW = 1u << 3,
  kAvx512VL = 1u << 4, kAvx512DQ = 1u << 5, kAvx512Vnni = 1u << 6, kAvxVnni = 1u << 7,
  kAmx = 1u << 8, kF16C = 1u << 9
};

std::vector<std::string> targetNames() {
  return {"x86_64-amx",   "x86_64-avx512vnni", "x86_64-avx512",
          "x86_64-avxvnni", "x86_64-avx2",     "native"};
}

static TargetInfo avx512() {
  TargetInfo t;
  t.name = "x86_64-avx512";
  t.isa = Isa::Avx512;
  // Skylake-SP is the oldest CPU the target promises; tune for it.
  t.llvmCpu = "skylake-avx512";
  t.llvmFeatures = "+avx512f,+avx512bw,+avx512vl,+avx512dq,+avx2,+fma,+f16c";
  t.runtimeFeatures = kAvx2 | kFma | kF16C | kAvx512F | kAvx512BW | kAvx512VL | kAvx512DQ;
  t.featureNames = {"avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512vl", "avx512dq"};
  return t;
}

static TargetInfo avx512vnni() {
  TargetInfo t = avx512();
  t.name = "x86_64-avx512vnni";
  t.int8 = Int8Isa::Avx512Vnni;
  t.llvmCpu = "cascadelake";
  t.llvmFeatures += ",+avx512vnni";
  t.runtimeFeatures |= kAvx512Vnni;
  t.featureNames.push_back("avx512vnni");
  return t;
}

/// Sapphire Rapids and later: int8 GEMMs on AMX tiles, everything else as
/// on x86_64-avx512vnni.
static TargetInfo amx() {
  TargetInfo t = avx512vnni();
  t.name = "x86_64-amx";
  t.int8 = Int8Isa::Amx;
  t.llvmCpu = "sapphirerapids";
  t.llvmFeatures += ",+amx-tile,+amx-int8";
  t.runtimeFeatures |= kAmx;
  t.featureNames.push_back("amx");
  return t;
}

static TargetInfo avx2() {
  TargetInfo t;
  t.name = "x86_64-avx2";
  t.isa = Isa::Avx2;
  t.llvmCpu = "haswell";
  t.llvmFeatures = "+avx2,+fma,+f16c";
  t.runtimeFeatures = kAvx2 | kFma | kF16C;
  t.featureNames = {"avx2", "fma", "f16c"};
  return t;
}

/// Alder Lake-class CPUs without AVX-512: AVX2 kernels, VEX vpdpbusd int8.
static TargetInfo avxvnni() {
  TargetInfo t = avx2();
  t.name = "x86_64-avxvnni";
  t.int8 = Int8Isa::AvxVnni;
  t.llvmCpu = "alderlake";
  t.llvmFeatures += ",+avxvnni";
  t.runtimeFeatures |= kAvxVnni;
  t.featureNames.push_back("avxvnni");
  return t;
}

/// For tests (not listed): x86_64-avxvnni's kernels with their VNNI
/// instructions EVEX-encoded, so that hosts with AVX-512 VNNI but no
/// AVX-VNNI (AMD Zen 4) run them end to end. The library checks for
/// AVX-512 VNNI (+VL) instead of AVX-VNNI; LLVM compiles the glue for
/// plain AVX2, so that nothing else encodes an AVX-VNNI instruction.
static TargetInfo avxvnniEvex() {
  TargetInfo t = avx2();
  t.name = "x86_64-avxvnni-evex";
  t.int8 = Int8Isa::AvxVnni;
  t.evexVnni = true;
  t.runtimeFeatures |= kAvx512F | kAvx512VL | kAvx512Vnni;
  t.featureNames.insert(t.featureNames.end(), {"avx512f", "avx512vl", "avx512vnni"});
  return t;
}

llvm::Expected<TargetInfo> resolveTarget(llvm::StringRef name) {
  if (name == "x86_64-amx")
    return amx();
  if (name == "x86_64-avxvnni")
    return avxvnni();
  if (name == "x86_64-avxvnni-evex")
    return avxvnniEvex();
  if (name == "x86_64-avx512vnni")
    return avx512vnni();
  if (name == "x86_64-avx512")
    return avx512();
  if (name == "x86_64-avx2")
    return avx2();
  if (name == "native") {
    llvm::StringMap<bool> host = llvm::sys::getHostCPUFeatures();
    auto has = [&](const char *f) { return host.lookup(f); };
    TargetInfo t;
    if (has("avx512f") && has("avx512bw") && has("avx512vl") && has("avx512dq"))
      t = !has("avx512vnni")                       ? avx512()
          : has("amx-tile") && has("amx-int8") ? amx()
                                               : avx512vnni();
    else if (has("avx2") && has("fma") && has("f16c"))
      t = has("avxvnni") ? avxvnni() : avx2();
    else
      return llvm::createStringError("the build host has neither AVX-512 nor AVX2+FMA; "
                                     "no x86 target fits it");
    return t;
  }
  std::string known;
  for (const std::string &n : targetNames())
    known += (known.empty() ? "" : ", ") + n;
  return llvm::createStringError("unknown target '" + name + "' (known: " + known + ")");
}

} // namespace mlir::nunc
