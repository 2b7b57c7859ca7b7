//===- ImporterErrorTest.cpp - the importer's answers to bad models -------===//
//
// Models are built with the protobuf classes (so that we can write what the
// text syntax cannot: bad paths, absurd sizes, corrupt data) and imported
// through the C++ API; every failure must be a located diagnostic.
//
//===----------------------------------------------------------------------===//

#include "OnnxProtoIO.h"
#include "nunc/Dialect/Nunc/NuncOps.h"
#include "nunc/Dialect/Nunc/NuncUtils.h"
#include "nunc/Import/OnnxImporter.h"
#include "nunc/Import/OnnxModelInfo.h"
#include "nunc/Pipeline/Pipeline.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <fstream>

using namespace mlir;
using namespace mlir::nunc;
using ::testing::HasSubstr;
using ::testing::Not;

namespace {

class ModelBuilder {
public:
  explicit ModelBuilder(int64_t opset) {
    model.set_ir_version(8);
    auto *o = model.add_opset_import();
    o->set_domain("");
    o->set_version(opset);
    model.mutable_graph()->set_name("g");
  }
  ModelBuilder &input(const std::string &name, std::vector<int64_t> dims,
                      int type = onnx::TensorProto::FLOAT) {
    valueInfo(model.mutable_graph()->add_input(), name, dims, type);
    return *this;
  }
  ModelBuilder &output(const std::string &name) {
    model.mutable_graph()->add_output()->set_name(name);
    return *this;
  }
  onnx::NodeProto &node(const std::string &op, std::vector<std::string> inputs,
                        std::vector<std::string> outputs, const std::string &name = "") {
    onnx::NodeProto *n = model.mutable_graph()->add_node();
    n->set_op_type(op);
    n->set_name(name);
    for (auto &i : inputs)
      n->add_input(i);
    for (auto &o : outputs)
      n->add_output(o);
    return *n;
  }
  onnx::TensorProto &initializer(const std::string &name, std::vector<int64_t> dims,
                                 std::vector<float> data) {
    onnx::TensorProto *t = model.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    for (int64_t d : dims)
      t->add_dims(d);
    t->set_raw_data(std::string(reinterpret_cast<const char *>(data.data()),
                                data.size() * sizeof(float)));
    return *t;
  }
  /// Writes the model into a fresh directory; returns the model's path.
  std::string save(const std::string &file = "model.onnx") {
    if (dir.empty()) {
      llvm::SmallString<128> d;
      llvm::sys::fs::createUniqueDirectory("nunc-import", d);
      dir = std::string(d);
    }
    std::string path = dir + "/" + file;
    std::ofstream os(path, std::ios::binary);
    model.SerializeToOstream(&os);
    return path;
  }

  onnx::ModelProto model;
  std::string dir;

private:
  static void valueInfo(onnx::ValueInfoProto *vi, const std::string &name,
                        std::vector<int64_t> dims, int type) {
    vi->set_name(name);
    auto *t = vi->mutable_type()->mutable_tensor_type();
    t->set_elem_type(type);
    auto *s = t->mutable_shape();
    for (int64_t d : dims) {
      if (d < 0)
        s->add_dim()->set_dim_param("N");
      else
        s->add_dim()->set_dim_value(d);
    }
  }
};

/// Imports `path`; returns the diagnostics as nunc prints them ("" if none)
/// and whether a module came back.
std::pair<bool, std::string> import(const std::string &path, ImportOptions options = {}) {
  DialectRegistry registry;
  registerNuncDialects(registry);
  MLIRContext ctx(registry);
  std::string text;
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
    text += describeLocation(d.getLocation()) + ": " + d.str() + "\n";
    return success();
  });
  OwningOpRef<ModuleOp> m = importOnnxModel(&ctx, path, options);
  return {static_cast<bool>(m), text};
}

void addAttr(onnx::NodeProto &n, const std::string &name, int64_t value) {
  auto *a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(value);
}

} // namespace

TEST(ImporterErrors, ValidModelCarriesNodeLocations) {
  ModelBuilder b(17);
  b.input("x", {2, 3}).output("y");
  b.node("Relu", {"x"}, {"y"}, "/block/Relu");
  std::string path = b.save();
  DialectRegistry registry;
  registerNuncDialects(registry);
  MLIRContext ctx(registry);
  OwningOpRef<ModuleOp> m = importOnnxModel(&ctx, path, {});
  ASSERT_TRUE(m);
  std::string where;
  m->walk([&](ReluOp op) { where = describeLocation(op.getLoc()); });
  EXPECT_EQ(where, path + ": node \"/block/Relu\" (Relu, opset 17)");
}

TEST(ImporterErrors, ListsEveryUnsupportedOpOnceWithCounts) {
  ModelBuilder b(17);
  b.input("x", {2}).output("z");
  b.node("Foo", {"x"}, {"a"}, "f1");
  b.node("Foo", {"a"}, {"b"}, "f2");
  b.node("GroupQueryAttention", {"b"}, {"c"}, "attn").set_domain("com.microsoft");
  b.node("Relu", {"c"}, {"z"}, "r");
  auto [ok, diag] = import(b.save());
  EXPECT_FALSE(ok);
  EXPECT_THAT(diag, HasSubstr("2 unsupported op types (3 nodes)"));
  EXPECT_THAT(diag, HasSubstr("Foo x2 (first: node \"f1\")"));
  EXPECT_THAT(diag, HasSubstr("com.microsoft.GroupQueryAttention x1 (first: node \"attn\")"));
  // One diagnostic, not one per node.
  EXPECT_EQ(std::count(diag.begin(), diag.end(), '\n'), 3);
}

TEST(ImporterErrors, UnsupportedOpsetsAreRefused) {
  for (int64_t opset : {5, 99}) {
    ModelBuilder b(opset);
    b.input("x", {2}).output("y");
    b.node("Relu", {"x"}, {"y"});
    auto [ok, diag] = import(b.save());
    EXPECT_FALSE(ok);
    EXPECT_THAT(diag, HasSubstr("unsupported ai.onnx opset " + std::to_string(opset)));
  }
}

TEST(ImporterErrors, ExternalDataMustStayInTheModelFolder) {
  for (const std::string &location : {std::string("../weights.bin"),
                                      std::string("/etc/passwd"),
                                      std::string("sub/../../weights.bin")}) {
    ModelBuilder b(17);
    b.input("x", {4}).output("y");
    onnx::TensorProto &w = b.initializer("w", {4}, {1, 2, 3, 4});
    w.clear_raw_data();
    w.set_data_location(onnx::TensorProto::EXTERNAL);
    auto *e = w.add_external_data();
    e->set_key("location");
    e->set_value(location);
    b.node("Add", {"x", "w"}, {"y"});
    auto [ok, diag] = import(b.save());
    EXPECT_FALSE(ok) << location;
    EXPECT_THAT(diag, HasSubstr("initializer 'w'")) << diag;
    EXPECT_THAT(diag, testing::AnyOf(HasSubstr("outside the model's folder"),
                                     HasSubstr("absolute path")))
        << diag;
  }
}

TEST(ImporterErrors, ExternalDataThroughASymlinkOutOfTheFolderIsRefused) {
  ModelBuilder b(17);
  b.input("x", {4}).output("y");
  onnx::TensorProto &w = b.initializer("w", {4}, {1, 2, 3, 4});
  w.clear_raw_data();
  w.set_data_location(onnx::TensorProto::EXTERNAL);
  auto *e = w.add_external_data();
  e->set_key("location");
  e->set_value("link.bin");
  b.node("Add", {"x", "w"}, {"y"});
  std::string path = b.save();
  llvm::SmallString<128> outside;
  llvm::sys::fs::createTemporaryFile("nunc-outside", "bin", outside);
  std::ofstream(std::string(outside), std::ios::binary) << std::string(16, '\0');
  ASSERT_FALSE(llvm::sys::fs::create_link(outside, b.dir + "/link.bin"));
  auto [ok, diag] = import(path);
  EXPECT_FALSE(ok);
  EXPECT_THAT(diag, HasSubstr("resolves outside the model's folder"));
}

TEST(ImporterErrors, ExternalDataInsideTheFolderLoads) {
  ModelBuilder b(17);
  b.input("x", {4}).output("y");
  onnx::TensorProto &w = b.initializer("w", {4}, {1, 2, 3, 4});
  std::string bytes = w.raw_data();
  w.clear_raw_data();
  w.set_data_location(onnx::TensorProto::EXTERNAL);
  for (auto [k, v] : {std::pair<std::string, std::string>{"location", "w.bin"},
                      {"offset", "4"}, {"length", "16"}}) {
    auto *e = w.add_external_data();
    e->set_key(k);
    e->set_value(v);
  }
  b.node("Add", {"x", "w"}, {"y"});
  std::string path = b.save();
  std::ofstream(b.dir + "/w.bin", std::ios::binary) << "PAD!" << bytes;
  auto [ok, diag] = import(path);
  EXPECT_TRUE(ok) << diag;
  // Asking for more bytes than the file has is an error, not a short read.
  w.mutable_external_data(1)->set_value("8");
  path = b.save();
  auto [ok2, diag2] = import(path);
  EXPECT_FALSE(ok2);
  EXPECT_THAT(diag2, HasSubstr("which has only 20"));
}

TEST(ImporterErrors, AbsurdAndInconsistentTensorSizes) {
  ModelBuilder b(17);
  b.input("x", {4}).output("y");
  onnx::TensorProto &w = b.initializer("w", {4}, {1, 2, 3, 4});
  w.clear_dims();
  for (int i = 0; i < 4; ++i)
    w.add_dims(1000000);
  b.node("Add", {"x", "w"}, {"y"});
  auto [ok, diag] = import(b.save());
  EXPECT_FALSE(ok);
  EXPECT_THAT(diag, HasSubstr("absurd size"));

  w.clear_dims();
  w.add_dims(5);
  auto [ok2, diag2] = import(b.save());
  EXPECT_FALSE(ok2);
  EXPECT_THAT(diag2, HasSubstr("has 16 bytes of data, but its dims need 20"));

  w.clear_dims();
  w.add_dims(-4);
  auto [ok3, diag3] = import(b.save());
  EXPECT_FALSE(ok3);
  EXPECT_THAT(diag3, HasSubstr("negative dim"));
}

TEST(ImporterErrors, AttributeProblemsNameTheNode) {
  ModelBuilder b(17);
  b.input("x", {2, 3}).output("y");
  onnx::NodeProto &n = b.node("Softmax", {"x"}, {"y"}, "/sm");
  auto *a = n.add_attribute();
  a->set_name("axis");
  a->set_type(onnx::AttributeProto::FLOAT);
  a->set_f(1.0f);
  auto [ok, diag] = import(b.save());
  EXPECT_FALSE(ok);
  EXPECT_THAT(diag, HasSubstr("node \"/sm\" (Softmax, opset 17): attribute 'axis' must be "
                              "an int, got FLOAT"));

  n.clear_attribute();
  addAttr(n, "axes", 1);
  auto [ok2, diag2] = import(b.save());
  EXPECT_FALSE(ok2);
  EXPECT_THAT(diag2, HasSubstr("unexpected attribute 'axes' for Softmax at opset 17"));

  n.clear_attribute();
  addAttr(n, "axis", 5);
  auto [ok3, diag3] = import(b.save());
  EXPECT_FALSE(ok3);
  EXPECT_THAT(diag3, HasSubstr("node \"/sm\" (Softmax, opset 17)"));
}

TEST(ImporterErrors, ImpossibleShapesAreLocated) {
  ModelBuilder b(17);
  b.input("a", {2, 3}).input("b", {4, 5}).output("y");
  b.node("MatMul", {"a", "b"}, {"y"}, "/mm");
  auto [ok, diag] = import(b.save());
  EXPECT_FALSE(ok);
  EXPECT_THAT(diag, HasSubstr("node \"/mm\" (MatMul, opset 17): MatMul inner dims differ"));
}

TEST(ImporterErrors, MissingValuesAndCycles) {
  ModelBuilder b(17);
  b.input("x", {2}).output("y");
  b.node("Add", {"x", "nowhere"}, {"y"}, "/add");
  auto [ok, diag] = import(b.save());
  EXPECT_FALSE(ok);
  EXPECT_THAT(diag, HasSubstr("input 'nowhere' is not produced"));

  ModelBuilder c(17);
  c.input("x", {2}).output("y");
  c.node("Add", {"x", "q"}, {"p"});
  c.node("Relu", {"p"}, {"q"});
  c.node("Relu", {"p"}, {"y"});
  auto [ok2, diag2] = import(c.save());
  EXPECT_FALSE(ok2);
  EXPECT_THAT(diag2, HasSubstr("cycle"));
}

TEST(ImporterErrors, ShapePinsAreChecked) {
  ModelBuilder b(17);
  b.input("x", {-1, 3}).output("y");
  b.node("Relu", {"x"}, {"y"});
  std::string path = b.save();
  ImportOptions pins;
  EXPECT_EQ(parseShapePin("x=2x3", pins), "");
  EXPECT_TRUE(import(path, pins).first);
  ImportOptions wrongRank;
  parseShapePin("x=2", wrongRank);
  EXPECT_THAT(import(path, wrongRank).second, HasSubstr("has 1 dims, but the input has rank 2"));
  ImportOptions contradicts;
  parseShapePin("x=2x4", contradicts);
  EXPECT_THAT(import(path, contradicts).second,
              HasSubstr("sets dim 1 to 4, but the model fixes it at 3"));
  ImportOptions unknown;
  parseShapePin("z=1", unknown);
  EXPECT_THAT(import(path, unknown).second, HasSubstr("'z', which is not a graph input"));
  ImportOptions bad;
  EXPECT_THAT(parseShapePin("x=2xq", bad), HasSubstr("bad dim 'q'"));
  EXPECT_THAT(parseShapePin("x", bad), HasSubstr("expected --shape NAME=DIMS"));
}

TEST(ImporterErrors, PaddleUnknownDimsAreDynamic) {
  // paddle2onnx writes dim_value -1 for an unknown dim; onnxruntime reads it
  // as dynamic. Other negative dims stay errors.
  ModelBuilder b(17);
  b.input("x", {2, 3}).output("y");
  b.node("Relu", {"x"}, {"y"});
  auto *dims = b.model.mutable_graph()->mutable_input(0)->mutable_type()
                   ->mutable_tensor_type()->mutable_shape();
  dims->mutable_dim(0)->set_dim_value(-1);
  std::string path = b.save();
  ImportOptions pins;
  EXPECT_EQ(parseShapePin("x=5x3", pins), "");
  auto [ok, diag] = import(path, pins);
  EXPECT_TRUE(ok) << diag;
  ImportOptions contradicts;
  parseShapePin("x=5x4", contradicts);
  EXPECT_THAT(import(path, contradicts).second,
              HasSubstr("sets dim 1 to 4, but the model fixes it at 3"));
  // ... and so are the dims it names "?", each its own (not one symbol).
  dims->mutable_dim(0)->set_dim_param("?");
  dims->mutable_dim(1)->set_dim_param("?");
  std::string named = b.save();
  EXPECT_TRUE(import(named, pins).first);
  dims->mutable_dim(1)->set_dim_value(3);
  dims->mutable_dim(0)->set_dim_value(-3);
  auto [ok2, diag2] = import(b.save(), pins);
  EXPECT_FALSE(ok2);
  EXPECT_THAT(diag2, HasSubstr("graph input/output 'x' has a negative dim -3"));
}

TEST(ImporterErrors, GarbageAndTruncatedFiles) {
  ModelBuilder b(17);
  b.input("x", {2}).output("y");
  b.node("Relu", {"x"}, {"y"});
  b.initializer("w", {64}, std::vector<float>(64, 1.f));
  std::string path = b.save();
  std::string bytes;
  b.model.SerializeToString(&bytes);
  std::ofstream(path, std::ios::binary) << bytes.substr(0, bytes.size() - 30);
  auto [ok, diag] = import(path);
  EXPECT_FALSE(ok);
  EXPECT_THAT(diag, HasSubstr(path + ": not a valid ONNX model"));
  std::ofstream(path, std::ios::binary) << "\xff\xff\xff\xff garbage";
  EXPECT_THAT(import(path).second, HasSubstr("not a valid ONNX model"));
  std::ofstream(path, std::ios::binary).close();
  EXPECT_THAT(import(path).second, HasSubstr("the file is empty"));
  EXPECT_THAT(import(path + ".missing").second, HasSubstr("cannot open"));
}

TEST(ModelInfo, SummarizesEvenUnsupportedModels) {
  ModelBuilder b(17);
  b.input("x", {-1, 4}).output("y");
  b.initializer("w", {4}, {1, 2, 3, 4});
  b.node("Add", {"x", "w"}, {"a"});
  b.node("Foo", {"a"}, {"y"}, "/foo");
  llvm::Expected<OnnxModelInfo> info = readOnnxModelInfo(b.save());
  ASSERT_TRUE(static_cast<bool>(info)) << llvm::toString(info.takeError());
  EXPECT_EQ(info->parameterCount, 4);
  EXPECT_EQ(info->numNodes, 2);
  EXPECT_EQ(info->opHistogram["Add"], 1);
  EXPECT_EQ(info->unsupportedOps["Foo"], 1);
  EXPECT_EQ(info->firstUnsupportedNode["Foo"], "/foo");
  ASSERT_EQ(info->inputs.size(), 1u);
  EXPECT_EQ(info->inputs[0].dimNames[0], "N");
}
