//===- Archive.h - lib<name>.a: the model, runtime and weights -*- C++ -*-===//

#ifndef NUNC_CODEGEN_ARCHIVE_H
#define NUNC_CODEGEN_ARCHIVE_H

#include "mlir/IR/Location.h"
#include "mlir/Support/LLVM.h"

#include <string>

namespace mlir::nunc {

/// The runtime object compiled into nunc, with its `nunc_rt_` symbols
/// renamed to `<name>_rt_` so that libraries of different models (and nunc
/// versions) link into one program.
FailureOr<std::string> renamedRuntime(llvm::StringRef name, Location loc);

/// A relocatable x86-64 ELF object that holds the weights as the hidden
/// global object `symbol`, in section `.rodata.<symbol>` aligned to 64
/// bytes. `buffer` is a WeightBlob's: 64 bytes of room for the ELF header,
/// then the data (a multiple of 64 bytes). Written in place: assembling
/// the weights (`.incbin`) copied them through a temporary file and the
/// assembler's buffers, most of a large model's compile time.
std::string weightsObject(llvm::StringRef symbol, std::string buffer);

} // namespace mlir::nunc

#endif // NUNC_CODEGEN_ARCHIVE_H
