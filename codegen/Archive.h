//===- Archive.h - lib<name>.a: the model object and the runtime -*- C++ -*-===//

#ifndef NUNC_CODEGEN_ARCHIVE_H
#define NUNC_CODEGEN_ARCHIVE_H

#include "mlir/IR/Location.h"
#include "mlir/Support/LLVM.h"

#include <string>

namespace mlir::nunc {

/// The runtime object files compiled into nunc, with their `nunc_rt_`
/// symbols renamed to `<name>_rt_` so that libraries of different models (and
/// nunc versions) link into one program, archived together with the model's
/// object. Deterministic: no timestamps, uids or modes.
FailureOr<std::string> writeModelArchive(llvm::StringRef name, llvm::StringRef modelObject,
                                         Location loc);

} // namespace mlir::nunc

#endif // NUNC_CODEGEN_ARCHIVE_H
