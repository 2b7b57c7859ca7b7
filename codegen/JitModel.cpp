//===- JitModel.cpp - run a compiled model in this process ----------------===//

#include "nunc/Codegen/JitModel.h"
#include "nunc/runtime.h"

#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/Object/Archive.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"

#include <cstdlib>

namespace mlir::nunc {

struct JitModel::Impl {
  std::unique_ptr<llvm::orc::LLJIT> jit;
  using InitFn = int (*)(void *, void *, const void *);
  using RunFn = int (*)(void *, void *const *);
  using DestroyFn = void (*)(void *);
  using DetailFn = const char *(*)(void *);
  RunFn run = nullptr;
  DestroyFn destroy = nullptr;
  DetailFn detail = nullptr;
  void *ctx = nullptr, *workspace = nullptr;
};

JitModel::~JitModel() {
  if (impl && impl->ctx && impl->destroy)
    impl->destroy(impl->ctx);
  if (impl) {
    std::free(impl->ctx);
    std::free(impl->workspace);
  }
}

llvm::Expected<std::unique_ptr<JitModel>> JitModel::load(const CompiledModel &model,
                                                         llvm::StringRef name, int threads) {
  static bool initialized = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    return true;
  }();
  (void)initialized;
  auto jit = llvm::orc::LLJITBuilder().create();
  if (!jit)
    return jit.takeError();
  char prefix = (*jit)->getDataLayout().getGlobalPrefix();
  auto process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(prefix);
  if (!process)
    return process.takeError();
  (*jit)->getMainJITDylib().addGenerator(std::move(*process));

  for (const ObjectFile &object : model.objects)
    if (llvm::Error e = (*jit)->addObjectFile(
            llvm::MemoryBuffer::getMemBufferCopy(object.bytes, object.name)))
      return std::move(e);

  auto lookup = [&](llvm::StringRef suffix) -> llvm::Expected<void *> {
    auto sym = (*jit)->lookup((name + suffix).str());
    if (!sym)
      return sym.takeError();
    return sym->toPtr<void *>();
  };
  auto init = lookup("_init"), run = lookup("_run_io"), destroy = lookup("_destroy"),
       detail = lookup("_error_detail"), size = lookup("_workspace_size");
  for (auto *e : {&init, &run, &destroy, &detail, &size})
    if (!*e)
      return e->takeError();

  std::unique_ptr<JitModel> m(new JitModel());
  m->impl = std::make_unique<Impl>();
  m->impl->jit = std::move(*jit);
  m->impl->run = reinterpret_cast<Impl::RunFn>(*run);
  m->impl->destroy = reinterpret_cast<Impl::DestroyFn>(*destroy);
  m->impl->detail = reinterpret_cast<Impl::DetailFn>(*detail);
  int64_t bytes = reinterpret_cast<int64_t (*)()>(*size)();
  m->impl->workspace = std::aligned_alloc(64, std::max<int64_t>(64, (bytes + 63) / 64 * 64));
  m->impl->ctx = std::aligned_alloc(64, kRuntimeContextBytes);
  if (!m->impl->workspace || !m->impl->ctx) {
    m->impl->destroy = nullptr; // (never initialized)
    return llvm::createStringError(
        m->impl->workspace ? llvm::Twine("cannot allocate the model's context")
                           : "cannot allocate the model's " + llvm::Twine(bytes) +
                                 "-byte workspace");
  }
  nunc_options options = {};
  options.num_threads = threads;
  int status = reinterpret_cast<Impl::InitFn>(*init)(m->impl->ctx, m->impl->workspace, &options);
  if (status != 0) {
    const char *why = m->impl->detail(m->impl->ctx);
    std::string text = why ? why : "";
    m->impl->destroy = nullptr;
    return llvm::createStringError("initializing the model failed (status " +
                                   llvm::Twine(status) + "): " + text);
  }
  return m;
}

int JitModel::run(llvm::ArrayRef<void *> io, std::string *detail) {
  int status = impl->run(impl->ctx, io.data());
  if (status != 0 && detail) {
    const char *why = impl->detail(impl->ctx);
    *detail = why ? why : "";
  }
  return status;
}

} // namespace mlir::nunc
