//===- Header.cpp - the generated C header and JSON manifest --------------===//

#include "Header.h"

#include "mlir/Dialect/Quant/IR/QuantTypes.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::nunc;

/// The text of runtime/include/nunc/runtime.h (RuntimeHeader.cpp, generated).
extern const char *const nuncRuntimeHeaderText;

#ifndef NUNC_VERSION
#define NUNC_VERSION "0.0.0"
#endif

int mlir::nunc::onnxDataType(Type t) {
  if (t.isF32()) return 1;
  if (t.isF16()) return 10;
  if (t.isBF16()) return 16;
  if (t.isF64()) return 11;
  if (t.isInteger(1)) return 9;
  auto i = cast<IntegerType>(t);
  bool u = i.isUnsigned();
  switch (i.getWidth()) {
  case 8: return u ? 2 : 3;
  case 16: return u ? 4 : 5;
  case 32: return u ? 12 : 6;
  default: return u ? 13 : 7;
  }
}

static const char *cType(Type t) {
  if (t.isF32()) return "float";
  if (t.isF64()) return "double";
  if (t.isF16() || t.isBF16()) return "uint16_t";
  if (t.isInteger(1)) return "bool_byte";
  auto i = cast<IntegerType>(t);
  bool u = i.isUnsigned();
  switch (i.getWidth()) {
  case 8: return u ? "uint8_t" : "int8_t";
  case 16: return u ? "uint16_t" : "int16_t";
  case 32: return u ? "uint32_t" : "int32_t";
  default: return u ? "uint64_t" : "int64_t";
  }
}

static std::string dtypeName(Type t) {
  if (t.isF32()) return "float32";
  if (t.isF64()) return "float64";
  if (t.isF16()) return "float16";
  if (t.isBF16()) return "bfloat16";
  if (t.isInteger(1)) return "bool";
  auto i = cast<IntegerType>(t);
  return (i.isUnsigned() ? "uint" : "int") + std::to_string(i.getWidth());
}

std::string mlir::nunc::cIdentifier(llvm::StringRef s) {
  std::string out;
  for (char ch : s)
    out += (llvm::isAlnum(ch) || ch == '_') ? ch : '_';
  if (out.empty() || llvm::isDigit(out[0]))
    out = "_" + out;
  return out;
}

namespace {
/// Words a parameter name must not be in the header, which C and C++
/// programs include: C23's and C++'s keywords (and alternative operator
/// spellings), the types and macros it uses or its includes define, `ctx`
/// (the functions' first parameter), and the prefix of its own macros.
bool reservedInHeader(llvm::StringRef w, llvm::StringRef macroPrefix) {
  static const llvm::StringSet<> names = {
      "NULL", "errno", "size_t", "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t",
      "uint16_t", "uint32_t", "uint64_t", "uintptr_t", "intptr_t", "nunc_status",
      "nunc_io_desc", "nunc_options", "assert", "offsetof", "INT64_MAX", "SIZE_MAX"};
  if (names.contains(w) || w.starts_with("NUNC_") || w.starts_with(macroPrefix))
    return true;
  static const llvm::StringSet<> words = {
      "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool",
      "break", "case", "catch", "char", "char8_t", "char16_t", "char32_t", "class", "compl",
      "concept", "const", "consteval", "constexpr", "constinit", "const_cast", "continue",
      "co_await", "co_return", "co_yield", "ctx", "decltype", "default", "delete", "do",
      "double", "dynamic_cast", "else", "enum", "explicit", "export", "extern", "false",
      "float", "for", "friend", "goto", "if", "inline", "int", "long", "mutable", "namespace",
      "new", "noexcept", "not", "not_eq", "nullptr", "operator", "or", "or_eq", "private",
      "protected", "public", "register", "reinterpret_cast", "requires", "restrict", "return",
      "short", "signed", "sizeof", "static", "static_assert", "static_cast", "struct",
      "switch", "template", "this", "thread_local", "throw", "true", "try", "typedef",
      "typeid", "typename", "typeof", "typeof_unqual", "union", "unsigned", "using",
      "virtual", "void", "volatile", "wchar_t", "while", "xor", "xor_eq", "_Alignas",
      "_Alignof", "_Atomic", "_BitInt", "_Bool", "_Complex", "_Decimal128", "_Decimal32",
      "_Decimal64", "_Generic", "_Imaginary", "_Noreturn", "_Static_assert", "_Thread_local"};
  return words.contains(w);
}

struct Io {
  std::string name, param;
  RankedTensorType type;
};

std::vector<Io> ioOf(func::FuncOp func, bool inputs) {
  std::vector<Io> out;
  unsigned n = inputs ? func.getNumArguments() : func.getNumResults();
  for (unsigned i = 0; i < n; ++i) {
    StringAttr a = inputs ? func.getArgAttrOfType<StringAttr>(i, "nunc.name")
                          : func.getResultAttrOfType<StringAttr>(i, "nunc.name");
    Io io;
    io.name = a ? a.str() : (inputs ? "input" : "output") + std::to_string(i);
    io.type = ioType(func, i, inputs);
    out.push_back(io);
  }
  return out;
}

/// The inputs and the outputs, their parameter names C identifiers, none
/// reserved, all distinct (the run function takes both lists).
std::pair<std::vector<Io>, std::vector<Io>> ioLists(func::FuncOp func,
                                                    llvm::StringRef macroPrefix) {
  std::pair<std::vector<Io>, std::vector<Io>> lists{ioOf(func, true), ioOf(func, false)};
  llvm::StringSet<> taken;
  for (std::vector<Io> *list : {&lists.first, &lists.second})
    for (Io &io : *list) {
      std::string base = cIdentifier(io.name);
      if (reservedInHeader(base, macroPrefix))
        base += '_';
      io.param = base;
      for (int k = 1; !taken.insert(io.param).second; ++k)
        io.param = base + "_" + std::to_string(k);
    }
  return lists;
}

std::string shapeText(RankedTensorType t) {
  std::string s = "[";
  for (int64_t i = 0; i < t.getRank(); ++i)
    s += (i ? ", " : "") + std::to_string(t.getDimSize(i));
  return s + "]";
}
} // namespace

int64_t mlir::nunc::batchSplit(func::FuncOp func) {
  auto n = func->getAttrOfType<IntegerAttr>("nunc.batch_split");
  return n ? n.getInt() : 1;
}

RankedTensorType mlir::nunc::ioType(func::FuncOp func, unsigned i, bool input) {
  auto type = cast<RankedTensorType>(input ? func.getArgumentTypes()[i]
                                           : func.getResultTypes()[i]);
  // Quantized values cross the boundary as their integer codes.
  if (auto q = dyn_cast<quant::QuantizedType>(type.getElementType()))
    type = type.clone(IntegerType::get(func.getContext(), q.getStorageTypeIntegralWidth(),
                                       q.isSigned() ? IntegerType::Signed
                                                    : IntegerType::Unsigned));
  int64_t n = batchSplit(func);
  if (n == 1)
    return type;
  SmallVector<int64_t> shape(type.getShape());
  shape[0] *= n;
  return type.clone(shape);
}

std::string mlir::nunc::generateHeader(func::FuncOp func, const CompileOptions &options,
                                       int64_t workspaceBytes) {
  std::string s;
  llvm::raw_string_ostream os(s);
  const std::string &n = options.name;
  std::string guard = llvm::StringRef(n).upper() + "_H";
  std::string upper = llvm::StringRef(n).upper();
  auto [ins, outs] = ioLists(func, upper + "_");
  os << "/* " << n << ".h - generated by nunc " << NUNC_VERSION << " from "
     << options.sourceName << " for " << options.target.name << ". Do not edit.\n"
     << " *\n"
     << " * Usage:\n"
     << " *   static " << n << "_ctx ctx;                      (any storage, 64-byte aligned)\n"
     << " *   void *ws = aligned_alloc(64, " << upper << "_WORKSPACE_SIZE);  (or a static buffer)\n"
     << " *   nunc_options opt = {.num_threads = 1};\n"
     << " *   " << n << "_init(&ctx, ws, " << (options.externalWeights ? "weights, " : "")
     << "&opt);\n"
     << " *   " << n << "_run(&ctx, inputs..., outputs...);   (repeat; no allocation inside)\n"
     << " *   " << n << "_destroy(&ctx);\n"
     << " * Contexts are independent: use one per thread that runs the model.\n"
     << " */\n";
  os << "#ifndef " << guard << "\n#define " << guard << "\n\n";
  os << nuncRuntimeHeaderText << "\n";
  os << "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";
  os << "/* Bytes of workspace " << n << "_init needs (a compile-time constant). */\n";
  os << "#define " << upper << "_WORKSPACE_SIZE ((size_t)" << workspaceBytes << "u)\n\n";
  int64_t items = batchSplit(func);
  os << "/* Items of the batch, run one at a time (1: the batch runs whole). With\n"
     << " * k > 1 threads, a workspace of k x " << upper << "_WORKSPACE_SIZE bytes (and\n"
     << " * nunc_options.workspace_bytes set to that) runs k items at once, one per\n"
     << " * thread; with the minimum, every thread works on each item in turn. */\n";
  os << "#define " << upper << "_BATCH_ITEMS " << items << "\n\n";
  os << "/* Caller-owned context; opaque. */\n";
  os << "typedef struct " << n << "_ctx {\n  unsigned char opaque[" << kRuntimeContextBytes
     << "];\n} "
     << "__attribute__((aligned(64))) " << n << "_ctx;\n\n";
  os << "size_t " << n << "_workspace_size(void);\n\n";
  if (options.externalWeights)
    os << "/* `weights`: the contents of " << n
       << ".weights, 64-byte aligned, alive until " << n << "_destroy. */\n";
  os << "nunc_status " << n << "_init(" << n << "_ctx *ctx, void *workspace, "
     << (options.externalWeights ? "const void *weights, " : "")
     << "const nunc_options *options);\n\n";
  os << "/* Inputs and outputs are dense, row-major buffers:\n";
  for (const Io &io : ins)
    os << " *   input  " << io.param << ": " << dtypeName(io.type.getElementType()) << " "
       << shapeText(io.type) << (io.param != io.name ? "  (\"" + io.name + "\")" : "")
       << "\n";
  for (const Io &io : outs)
    os << " *   output " << io.param << ": " << dtypeName(io.type.getElementType()) << " "
       << shapeText(io.type) << (io.param != io.name ? "  (\"" + io.name + "\")" : "")
       << "\n";
  os << " * The run also works in the output buffers, so they must not overlap each\n"
     << " * other or the inputs; they hold the results once it returns NUNC_OK.\n"
     << " * NUNC_ERR_INVALID_INPUT means the data is out of range (e.g. a token id);\n"
     << " * " << n << "_error_detail(ctx) says which input and node. */\n";
  os << "nunc_status " << n << "_run(" << n << "_ctx *ctx";
  auto ctype = [](Type t) {
    std::string c = cType(t);
    return c == "bool_byte" ? std::string("uint8_t") : c;
  };
  for (const Io &io : ins)
    os << ",\n    const " << ctype(io.type.getElementType()) << " *" << io.param;
  for (const Io &io : outs)
    os << ",\n    " << ctype(io.type.getElementType()) << " *" << io.param;
  os << ");\n\n";
  os << "/* " << n << "_run with the inputs, then the outputs, in one array (for tools). */\n";
  os << "nunc_status " << n << "_run_io(" << n << "_ctx *ctx, void *const *io);\n\n";
  os << "void " << n << "_destroy(" << n << "_ctx *ctx);\n";
  os << "const nunc_io_desc *" << n << "_inputs(size_t *count);\n";
  os << "const nunc_io_desc *" << n << "_outputs(size_t *count);\n";
  os << "/* Why the last init or run failed (NULL when it did not). */\n";
  os << "const char *" << n << "_error_detail(const " << n << "_ctx *ctx);\n";
  os << "\n#ifdef __cplusplus\n}\n#endif\n#endif /* " << guard << " */\n";
  return s;
}

std::string mlir::nunc::generateManifest(func::FuncOp func, const CompileOptions &options,
                                         const CompiledModel &model) {
  auto lists = ioLists(func, llvm::StringRef(options.name).upper() + "_");
  auto ioJson = [&](bool inputs) {
    llvm::json::Array arr;
    for (const Io &io : inputs ? lists.first : lists.second) {
      llvm::json::Array shape;
      for (int64_t d : io.type.getShape())
        shape.push_back(d);
      arr.push_back(llvm::json::Object{
          {"name", io.name},
          {"c_name", io.param},
          {"dtype", dtypeName(io.type.getElementType())},
          {"shape", std::move(shape)},
          {"bytes", io.type.getNumElements() * (io.type.getElementType().isInteger(1)
                                                    ? 1
                                                    : (int64_t)(io.type.getElementTypeBitWidth() / 8))}});
    }
    return arr;
  };
  llvm::json::Array kernels;
  int generic = 0;
  for (const KernelChoice &k : model.kernels) {
    generic += k.generic;
    kernels.push_back(llvm::json::Object{{"op", k.op},
                                         {"node", k.node},
                                         {"kernel", k.kernel},
                                         {"generic", k.generic},
                                         {"tasks", k.tasks}});
  }
  llvm::json::Array features;
  for (const std::string &f : options.target.featureNames)
    features.push_back(f);
  llvm::json::Object root{
      {"name", options.name},
      {"nunc_version", NUNC_VERSION},
      {"source", options.sourceName},
      {"target", options.target.name},
      {"quantization", options.quantization},
      {"cpu_features", std::move(features)},
      {"inputs", ioJson(true)},
      {"outputs", ioJson(false)},
      {"arena_bytes", model.arenaBytes},
      {"batch_split", batchSplit(func)},
      {"weight_bytes", model.weightBytes},
      {"weights", options.externalWeights ? "external" : "rodata"},
      {"kernels", std::move(kernels)},
      {"generic_kernels", generic}};
  std::string s;
  llvm::raw_string_ostream(s) << llvm::formatv("{0:2}", llvm::json::Value(std::move(root)))
                              << "\n";
  return s;
}
