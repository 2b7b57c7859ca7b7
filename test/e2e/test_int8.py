"""End to end through `nunc compile --quantize int8` (weights s8 per output
channel, activations u8 per row at run time, AVX-512 VNNI GEMMs): the int8
library stays close to the f32 model run by onnxruntime, the evaluator's
int8 semantics match the compiled kernels, and targets without int8 kernels
are refused with a clear error."""
import json
import os

import numpy as np
import pytest

import harness
from make_models import random_inputs
from test_compile import host_has, pins, reference

VNNI = host_has("avx512_vnni")


def cosine(a, b):
    a, b = a.astype(np.float64).ravel(), b.astype(np.float64).ravel()
    return float(a @ b / np.linalg.norm(a) / np.linalg.norm(b))


@pytest.mark.skipif(not VNNI, reason="the host lacks AVX-512 VNNI")
@pytest.mark.parametrize("name,batch,seq", [("minilm", 1, 128), ("minilm", 2, 17),
                                            ("bert", 1, 32), ("mlp", 3, None)])
def test_int8_library_tracks_float(nunc, models, tmp_path, name, batch, seq):
    nunc("compile", os.path.join(models, f"{name}.onnx"), "--target", "x86_64-avx512vnni",
         "--quantize", "int8", *pins(name, batch, seq), "-o", tmp_path)
    manifest = json.loads((tmp_path / f"{name}.json").read_text())
    assert manifest["quantization"] == "int8-dynamic"
    kernels = [k["kernel"] for k in manifest["kernels"]]
    assert any(k.startswith("gemm.int8.avx512vnni") for k in kernels)
    if name != "mlp":  # the MLP's 64x10 head is below the pass's min-macs: it stays f32
        assert not any(k.startswith("gemm.avx512") for k in kernels), "a linear op stayed f32"
    exe, man = harness.build(str(tmp_path))
    feeds = random_inputs(name, batch, seq or 16, 2)
    for threads in (1, 2):
        outs, _, log = harness.run(exe, man, feeds, str(tmp_path / f"w{threads}"),
                                   threads=threads)
        assert outs is not None, log
        for key, ref in reference(models, name, feeds).items():
            c = cosine(outs[key], ref)
            assert c >= 0.999, f"{name} {key} threads={threads}: cosine {c:.5f}"


@pytest.mark.skipif(not VNNI, reason="the host lacks AVX-512 VNNI")
def test_compiled_int8_matches_the_evaluator(nunc, models, tmp_path):
    """`nunc run` compiles and runs in-process; --reference evaluates the same
    quantized semantics; they agree up to the kernels' float rounding."""
    feeds = random_inputs("mlp", 4, 16, 5)
    np.savez(tmp_path / "in.npz", **feeds)
    common = [os.path.join(models, "mlp.onnx"), "--input", tmp_path / "in.npz",
              *pins("mlp", 4, None)]
    nunc("run", *common, "--quantize", "int8", "-o", tmp_path / "jit.npz")
    nunc("run", "--reference", *common, "--quantize", "int8", "-o", tmp_path / "ref.npz")
    a, b = np.load(tmp_path / "jit.npz"), np.load(tmp_path / "ref.npz")
    for key in a.files:
        np.testing.assert_allclose(a[key], b[key], rtol=1e-4, atol=1e-4 * np.abs(b[key]).max())


def test_int8_needs_a_vnni_target(nunc, models, tmp_path):
    r = nunc("compile", os.path.join(models, "mlp.onnx"), "--target", "x86_64-avx2",
             "--quantize", "int8", *pins("mlp", 1, None), "-o", tmp_path, check=False)
    assert r.returncode == 1
    assert "--quantize int8 needs the x86_64-avx512vnni target" in r.stderr
    r = nunc("compile", os.path.join(models, "mlp.onnx"), "--quantize", "int4",
             *pins("mlp", 1, None), "-o", tmp_path, check=False)
    assert r.returncode == 1 and "--quantize must be none or int8" in r.stderr
    assert not (tmp_path / "libmlp.a").exists()
