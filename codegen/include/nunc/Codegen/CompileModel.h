//===- CompileModel.h - nunc IR to a static library --------------*- C++ -*-===//
//
// Turns the fused, static @main of a module into lib<name>.a (kernels, glue,
// weights and the runtime), <name>.h and the <name>.json manifest.
//
//===----------------------------------------------------------------------===//

#ifndef NUNC_CODEGEN_COMPILEMODEL_H
#define NUNC_CODEGEN_COMPILEMODEL_H

#include "nunc/Codegen/Target.h"
#include "nunc/Dialect/Nunc/NuncOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace mlir::nunc {

/// Bytes of a generated library's context (<name>_ctx): NUNC_RT_CTX_BYTES in
/// runtime/src/runtime_internal.h, which checks the runtime's context fits.
constexpr size_t kRuntimeContextBytes = 12288;

struct CompileOptions {
  std::string name;            // symbol prefix, a C identifier
  TargetInfo target;
  bool externalWeights = false; // <name>.weights beside the library
  std::string sourceName;      // for the manifest
  std::string quantization = "none"; // for the manifest: "none" or "int8-dynamic"
  bool printMemoryPlan = false;
  /// 3x3 stride-1 f32 convolutions on planes wide enough run as Winograd
  /// F(2x2, 3x3) (AVX-512) instead of an im2col GEMM.
  bool winograd = true;
  /// Runs of elementwise ops become one nunc.elementwise_chain each, one
  /// kernel pass (nunc-fuse-elementwise-chains).
  bool elementwiseChains = true;
  /// Static int8 convs writing u8 codes requantize in one multiply
  /// (nunc-one-step-requantization).
  bool oneStepRequantization = true;
  llvm::raw_ostream *planStream = nullptr;
  /// Where to print the module as the kernels take it (after the code
  /// generator's own passes), for compiler developers; null: not printed.
  llvm::raw_ostream *loweredIrStream = nullptr;
};

/// How one step of the model was compiled.
struct KernelChoice {
  std::string op;       // "nunc.linear"
  std::string node;     // describeLocation of the op
  std::string kernel;   // "gemm.avx512[128x384x384] bias gelu" or "generic"
  bool generic = false;
  int64_t tasks = 1;
};

/// One member of lib<name>.a.
struct ObjectFile {
  std::string name;  // <name>.o, <name>_runtime.o, <name>_weights.o
  std::string bytes; // a relocatable ELF object
};

struct CompiledModel {
  std::vector<ObjectFile> objects; // lib<name>.a's members (writeArchive)
  std::string header;       // <name>.h
  std::string manifest;     // <name>.json
  std::string weights;      // <name>.weights bytes (external weights only)
  int64_t arenaBytes = 0, weightBytes = 0;
  std::vector<KernelChoice> kernels;
};

/// Compiles `module` (nunc dialect, shapes static). Diagnostics go to the
/// context.
FailureOr<CompiledModel> compileModel(ModuleOp module, const CompileOptions &options);

/// Whether `target`'s attention kernel multiplies this attention's int8
/// codes (nunc.attention's int8_products: the VNNI targets;
/// nunc-quantize-attention's rule when compiling for `target`).
bool takesInt8Attention(AttentionOp op, const TargetInfo &target);

/// Writes lib<name>.a (the model's objects, with a symbol index) to `os`,
/// member by member. Deterministic: no timestamps, uids or modes.
llvm::Error writeArchive(const CompiledModel &model, llvm::raw_ostream &os);

} // namespace mlir::nunc

#endif // NUNC_CODEGEN_COMPILEMODEL_H
