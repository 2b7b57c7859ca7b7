# lit configuration of nunc's FileCheck tests (Codegen/, Dialect/, Import/, Transforms/).
import os

import lit.formats
from lit.llvm import llvm_config

config.name = "nunc"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".onnxtxt", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.nunc_obj_root, "test")
# GoogleTest, conformance and end-to-end suites run through ctest instead.
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "unit", "e2e",
                   "conformance", "tools", "Inputs"]

llvm_config.with_system_environment(["HOME", "TMP", "TEMP", "PYTHONPATH"])
llvm_config.use_default_substitutions()
llvm_config.add_tool_substitutions(["nunc", "nunc-opt"], [config.nunc_tools_dir])
config.environment["PATH"] = os.pathsep.join(
    [config.nunc_tools_dir, config.llvm_tools_dir, config.environment["PATH"]])

onnx_from_text = os.path.join(config.test_source_root, "tools", "onnx_from_text.py")
# use_default_substitutions() registers lit's own %python; ours (the
# interpreter that has onnx) must win, so it goes first.
config.substitutions.insert(0, ("%python", config.python_executable))
config.substitutions.append(
    ("%onnx-from-text", f"{config.python_executable} {onnx_from_text}"))

# Host ISA features, for tests that run kernels only some x86 hosts have
# (`REQUIRES: avx512vnni`; CI's machine kinds have it).
try:
    with open("/proc/cpuinfo") as f:
        flags = next((l.split(":", 1)[1].split() for l in f if l.startswith("flags")), [])
except OSError:
    flags = []
if "avx512_vnni" in flags:
    config.available_features.add("avx512vnni")
