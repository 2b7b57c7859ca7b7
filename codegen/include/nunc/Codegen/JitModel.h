//===- JitModel.h - run a compiled model in this process ---------*- C++ -*-===//
//
// Links the objects of a generated lib<name>.a into this process with LLVM's
// JIT linker (the kernels' machine code is already in them; nothing is
// generated at run time), for `nunc run` and the compiled-path conformance
// tests. Libc and pthread come from the process.
//
//===----------------------------------------------------------------------===//

#ifndef NUNC_CODEGEN_JITMODEL_H
#define NUNC_CODEGEN_JITMODEL_H

#include "nunc/Codegen/CompileModel.h"

#include "llvm/Support/Error.h"

#include <memory>

namespace mlir::nunc {

class JitModel {
public:
  ~JitModel();
  /// Loads `model` (compiled with rodata weights) and initializes a context
  /// with `threads` threads.
  static llvm::Expected<std::unique_ptr<JitModel>> load(const CompiledModel &model,
                                                        llvm::StringRef name, int threads);
  /// Runs once: `io` holds the input buffers, then the output buffers.
  /// Returns the nunc_status; `detail` gets the library's error detail.
  int run(llvm::ArrayRef<void *> io, std::string *detail = nullptr);

private:
  JitModel() = default;
  struct Impl;
  std::unique_ptr<Impl> impl;
};

} // namespace mlir::nunc

#endif // NUNC_CODEGEN_JITMODEL_H
