"""End to end: `nunc run --reference` on the example models matches
onnxruntime on the same inputs (relative error <= 1e-4, measured as
max|nunc - ort| / max|ort| over each output)."""
import os
import subprocess
import sys

import numpy as np
import onnxruntime as ort
import pytest

from make_models import random_inputs

REL_TOL = 1e-4

CASES = [
    ("mlp", 1, None), ("mlp", 4, None),
    ("minilm", 1, 128), ("minilm", 4, 32), ("minilm", 2, 7),
    ("bert", 1, 128), ("bert", 2, 17),
    ("resnet", 1, None), ("resnet", 2, None),
    ("mobilenet", 1, None),
]


def relative_error(ours, ref):
    return float(np.abs(ours.astype(np.float64) - ref).max() /
                 max(np.abs(ref).max(), 1e-30))


def run_both(nunc, models, tmp_path, name, batch, seq, seed=0):
    feeds = random_inputs(name, batch, seq or 16, seed)
    path = os.path.join(models, f"{name}.onnx")
    inputs = tmp_path / "in.npz"
    outputs = tmp_path / "out.npz"
    np.savez(inputs, **feeds)
    nunc("run", "--reference", path, "--input", inputs, "-o", outputs)
    got = np.load(outputs)
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    want = sess.run(None, feeds)
    return got, {o.name: w for o, w in zip(sess.get_outputs(), want)}


@pytest.mark.parametrize("name,batch,seq", CASES,
                         ids=[f"{n}-b{b}" + (f"-s{s}" if s else "") for n, b, s in CASES])
def test_matches_onnxruntime(nunc, models, tmp_path, name, batch, seq):
    got, want = run_both(nunc, models, tmp_path, name, batch, seq)
    assert sorted(got.files) == sorted(want)
    for key, ref in want.items():
        assert got[key].shape == ref.shape, key
        assert got[key].dtype == ref.dtype, key
        err = relative_error(got[key], ref)
        assert err <= REL_TOL, f"{name} {key}: relative error {err:.3g}"


def test_external_data_model_gives_the_same_outputs(nunc, models, tmp_path):
    script = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "models",
                          "make_models.py")
    ext = tmp_path / "ext"
    subprocess.run([sys.executable, script, "--out", ext, "--models", "minilm",
                    "--external-data"], check=True, stdout=subprocess.DEVNULL)
    assert (ext / "minilm.onnx.data").exists()
    feeds = random_inputs("minilm", 1, 16, 3)
    np.savez(tmp_path / "in.npz", **feeds)
    nunc("run", "--reference", ext / "minilm.onnx", "--input", tmp_path / "in.npz",
         "-o", tmp_path / "a.npz")
    nunc("run", "--reference", os.path.join(models, "minilm.onnx"), "--input",
         tmp_path / "in.npz", "-o", tmp_path / "b.npz")
    a, b = np.load(tmp_path / "a.npz"), np.load(tmp_path / "b.npz")
    np.testing.assert_array_equal(a["last_hidden_state"], b["last_hidden_state"])


def test_random_inputs_are_deterministic(nunc, models, tmp_path):
    args = ["run", "--reference", os.path.join(models, "minilm.onnx"), "--random-inputs",
            "--seed", "7", "--int-range", "0:2"]
    for s in ("input_ids", "attention_mask", "token_type_ids"):
        args += ["--shape", f"{s}=1x8"]
    nunc(*args, "-o", tmp_path / "a.npz")
    nunc(*args, "-o", tmp_path / "b.npz")
    assert (tmp_path / "a.npz").read_bytes() == (tmp_path / "b.npz").read_bytes()


def test_out_of_range_token_id_is_an_error_not_a_read(nunc, models, tmp_path):
    feeds = random_inputs("minilm", 1, 8, 0)
    feeds["input_ids"][0, 3] = 30522  # one past the vocabulary
    np.savez(tmp_path / "in.npz", **feeds)
    r = nunc("run", "--reference", os.path.join(models, "minilm.onnx"), "--input",
             tmp_path / "in.npz", "-o", tmp_path / "out.npz", check=False)
    assert r.returncode == 1
    assert 'node "/embeddings/word_embeddings/Gather" (Gather, opset 17)' in r.stderr
    assert "index 30522 is out of range for axis 0 of size 30522" in r.stderr
    assert not (tmp_path / "out.npz").exists()


def test_missing_and_extra_inputs_are_named(nunc, models, tmp_path):
    feeds = random_inputs("minilm", 1, 8, 0)
    del feeds["token_type_ids"]
    np.savez(tmp_path / "in.npz", **feeds)
    r = nunc("run", "--reference", os.path.join(models, "minilm.onnx"), "--input",
             tmp_path / "in.npz", check=False)
    assert r.returncode == 1 and "no array named 'token_type_ids'" in r.stderr
    feeds = random_inputs("mlp", 1, 8, 0)
    feeds["bogus"] = np.zeros(2, np.float32)
    np.savez(tmp_path / "in2.npz", **feeds)
    r = nunc("run", "--reference", os.path.join(models, "mlp.onnx"), "--input",
             tmp_path / "in2.npz", check=False)
    assert r.returncode == 1 and "'bogus', which is not an input" in r.stderr
