"""The nunc command line: inspect, import, --help and --version."""
import json
import os

import numpy as np
import onnx
import pytest


def test_version_and_help(nunc):
    assert nunc("--version").stdout.startswith("nunc ")
    for sub in ("import", "run", "inspect"):
        r = nunc(sub, "--help")
        assert f"nunc {sub}" in r.stdout or "USAGE" in r.stdout
    assert "--shape" in nunc("import", "--help").stdout
    assert "--random-inputs" in nunc("run", "--help").stdout
    r = nunc(check=False)
    assert r.returncode == 1 and "expected a subcommand" in r.stderr


def minilm_macs(batch, seq, hidden=384, ffn=1536, layers=6):
    per_layer = (4 * seq * hidden * hidden      # Q, K, V, output projections
                 + 2 * seq * seq * hidden       # Q K^T and P V over all heads
                 + 2 * seq * hidden * ffn)      # the two FFN matmuls
    return batch * layers * per_layer


def test_inspect_json_counts_parameters_and_macs(nunc, models):
    path = os.path.join(models, "minilm.onnx")
    pins = [a for s in ("input_ids", "attention_mask", "token_type_ids")
            for a in ("--shape", f"{s}=1x128")]
    info = json.loads(nunc("inspect", path, "--json", *pins).stdout)
    model = onnx.load(path)
    params = sum(int(np.prod(t.dims)) for t in model.graph.initializer)
    assert info["parameters"] >= params
    assert info["initializers"] == len(model.graph.initializer)
    assert info["nodes"] == len(model.graph.node)
    assert info["opsets"] == {"ai.onnx": 17}
    assert info["unsupported_ops"] == {}
    assert info["macs"] == minilm_macs(1, 128)
    assert info["inputs"][0] == {"name": "input_ids", "dtype": "int64",
                                 "shape": ["batch", "sequence"]}
    hist = {}
    for n in model.graph.node:
        hist[n.op_type] = hist.get(n.op_type, 0) + 1
    assert info["ops"] == hist
    # Without pins the MACs are unknown, not wrong.
    assert json.loads(nunc("inspect", path, "--json").stdout)["macs"] is None


def test_inspect_lists_unsupported_ops(nunc, tmp_path):
    m = onnx.helper.make_model(onnx.helper.make_graph(
        [onnx.helper.make_node("Foo", ["x"], ["a"], name="f1"),
         onnx.helper.make_node("Foo", ["a"], ["b"], name="f2"),
         onnx.helper.make_node("Relu", ["b"], ["y"])],
        "g", [onnx.helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [2])],
        [onnx.helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [2])]),
        opset_imports=[onnx.helper.make_opsetid("", 17)])
    onnx.save(m, tmp_path / "m.onnx")
    text = nunc("inspect", tmp_path / "m.onnx").stdout
    assert 'Foo x2 (first: node "f1")' in text
    info = json.loads(nunc("inspect", tmp_path / "m.onnx", "--json").stdout)
    assert info["unsupported_ops"] == {"Foo": {"count": 2, "first_node": "f1"}}
    r = nunc("import", tmp_path / "m.onnx", "-o", tmp_path / "m.mlir", check=False)
    assert r.returncode == 1
    assert "1 unsupported op type (2 nodes)" in r.stderr
    assert not (tmp_path / "m.mlir").exists()


def test_import_writes_text_and_bytecode_that_parse(nunc, models, tmp_path):
    path = os.path.join(models, "mlp.onnx")
    nunc("import", path, "-o", tmp_path / "mlp.mlir")
    nunc("import", path, "-o", tmp_path / "mlp.mlirbc")
    text = (tmp_path / "mlp.mlir").read_text()
    assert "func.func @main" in text and "nunc.gemm" in text
    assert (tmp_path / "mlp.mlirbc").read_bytes()[:4] == b"ML\xefR"
    opt = os.path.join(os.environ.get("NUNC_BIN_DIR", ""), "nunc-opt")
    import subprocess
    for f in ("mlp.mlir", "mlp.mlirbc"):
        r = subprocess.run([opt, str(tmp_path / f)], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
    # Deterministic: the same model imports to the same bytes.
    nunc("import", path, "-o", tmp_path / "again.mlir")
    assert (tmp_path / "again.mlir").read_bytes() == (tmp_path / "mlp.mlir").read_bytes()


def test_pinned_import_folds_shape_subgraphs(nunc, models, tmp_path):
    pins = [a for s in ("input_ids", "attention_mask", "token_type_ids")
            for a in ("--shape", f"{s}=1x128")]
    nunc("import", os.path.join(models, "minilm.onnx"), *pins, "--elide-weights",
         "-o", tmp_path / "m.mlir")
    text = (tmp_path / "m.mlir").read_text()
    assert "nunc.shape" not in text and "nunc.concat" not in text
    assert "tensor<1x128x12x32xf32>" in text
    assert "?" not in text.split("{-#")[0]


def test_run_says_when_the_workspace_cannot_be_allocated(tmp_path):
    """`nunc run` of a model whose arena (6 GB) the process may not map (its
    address space capped at 3 GB) names the workspace it could not allocate,
    instead of blaming the model's init (or crashing)."""
    import resource
    import subprocess
    from onnx import helper as h, numpy_helper as nh
    from conftest import _bin_dir
    nodes = [h.make_node("Expand", ["x", "s"], ["e"]), h.make_node("Exp", ["e"], ["f"]),
             h.make_node("ReduceSum", ["f"], ["y"], keepdims=0)]
    g = h.make_graph(nodes, "big", [h.make_tensor_value_info("x", 1, [1])],
                     [h.make_tensor_value_info("y", 1, None)],
                     [nh.from_array(np.array([1_500_000_000], np.int64), "s")])
    path = str(tmp_path / "big.onnx")
    onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 17)]), path)

    def cap():
        resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
    r = subprocess.run([os.path.join(_bin_dir(), "nunc"), "run", path, "--random-inputs"],
                       capture_output=True, text=True, preexec_fn=cap)
    assert r.returncode == 1, r.stderr
    import re
    m = re.search(r"error: cannot allocate the model's (\d+)-byte workspace", r.stderr)
    assert m and int(m.group(1)) >= 6_000_000_000, r.stderr
