#!/usr/bin/env python3
"""Generate synthetic ONNX test models for the nunc importer.

The graphs are built by hand with onnx.helper, but they follow the op
patterns and node/initializer naming that ``torch.onnx.export`` (and Hugging
Face Optimum on top of it) produce, so the importer's pattern matching can be
exercised without torch or network access. Weights are random but
deterministic (one ``np.random.default_rng(seed)`` per model), so repeated
runs give byte-identical files.

Usage:
    python3 make_models.py --out DIR [--models mlp,minilm,bert,resnet,mobilenet,resnext]
                           [--external-data] [--check]

Importable helpers: ``random_inputs(name, batch, seq, seed)`` and
``build_model(name)``; ``build_model("minilm", weights=...)`` takes real
weights instead (see real_minilm.py).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

MODEL_NAMES = ("mlp", "minilm", "bert", "resnet", "mobilenet", "resnext")
IR_VERSION = 8
F32_MIN = float(np.finfo(np.float32).min)  # -3.4028234663852886e+38

# Fixed per-model seeds.
SEEDS = {"mlp": 1, "minilm": 2, "bert": 3, "resnet": 4, "mobilenet": 5, "resnext": 6}

TRANSFORMER_CONFIGS = {
    # MiniLM-L6: opset 17, LayerNormalization op, float32-min attention mask.
    "minilm": dict(layers=6, hidden=384, heads=12, ffn=1536, vocab=30522,
                   max_pos=512, types=2, opset=17, ln_op=True,
                   mask_value=F32_MIN),
    # BERT-base: opset 11, decomposed LayerNorm, -10000 attention mask.
    "bert": dict(layers=12, hidden=768, heads=12, ffn=3072, vocab=30522,
                 max_pos=512, types=2, opset=11, ln_op=False,
                 mask_value=-10000.0),
}

IMAGE_SHAPE = (3, 224, 224)


# --------------------------------------------------------------------------
# Graph builder with torch-style naming
# --------------------------------------------------------------------------

class GraphBuilder:
    """Accumulates nodes and initializers, naming them like torch exports.

    Node names are ``<scope>/<OpType>`` with ``_<n>`` suffixes for repeats in
    the same scope; node outputs are ``<node name>_output_<i>``. Anonymous
    (constant-folded / transposed) initializers are named ``onnx::<Op>_<id>``.
    """

    def __init__(self, opset: int):
        self.opset = opset
        self.nodes: list[onnx.NodeProto] = []
        self.initializers: list[onnx.TensorProto] = []
        self._init_names: set[str] = set()
        self._counts: dict[tuple[str, str], int] = {}
        self._anon_id = 1000  # torch value ids look like onnx::MatMul_1234

    # -- naming ----------------------------------------------------------
    def _node_name(self, scope: str, op: str) -> str:
        key = (scope, op)
        n = self._counts.get(key, 0)
        self._counts[key] = n + 1
        return f"{scope}/{op}" if n == 0 else f"{scope}/{op}_{n}"

    # -- primitives ------------------------------------------------------
    def node(self, scope: str, op: str, inputs, n_out: int = 1,
             outputs=None, **attrs):
        name = self._node_name(scope, op)
        if outputs is None:
            outputs = [f"{name}_output_{i}" for i in range(n_out)]
        self.nodes.append(helper.make_node(op, list(inputs), list(outputs),
                                           name=name, **attrs))
        return outputs[0] if len(outputs) == 1 else outputs

    def init(self, name: str, arr: np.ndarray) -> str:
        assert name not in self._init_names, name
        self._init_names.add(name)
        self.initializers.append(numpy_helper.from_array(np.ascontiguousarray(arr), name))
        return name

    def anon_init(self, op: str, arr: np.ndarray) -> str:
        name = f"onnx::{op}_{self._anon_id}"
        self._anon_id += 1
        return self.init(name, arr)

    def const(self, scope: str, value) -> str:
        """A Constant node (torch emits these for Python scalars/tuples)."""
        arr = np.asarray(value)
        return self.node(scope, "Constant", [],
                         value=numpy_helper.from_array(arr))

    # -- opset-dependent helpers ----------------------------------------
    def unsqueeze(self, scope: str, x: str, axes) -> str:
        if self.opset >= 13:
            ax = self.const(scope, np.array(axes, dtype=np.int64))
            return self.node(scope, "Unsqueeze", [x, ax])
        return self.node(scope, "Unsqueeze", [x], axes=list(axes))

    def reduce_mean(self, scope: str, x: str, axes) -> str:
        assert self.opset < 18
        return self.node(scope, "ReduceMean", [x], axes=list(axes), keepdims=1)

    def dim(self, scope: str, x: str, index: int) -> str:
        """Shape(x) -> Gather(scalar index): dimension `index` as an int64 scalar."""
        shp = self.node(scope, "Shape", [x])
        idx = self.const(scope, np.array(index, dtype=np.int64))
        return self.node(scope, "Gather", [shp, idx], axis=0)

    def make_model(self, name: str, inputs, outputs, doc: str) -> onnx.ModelProto:
        graph = helper.make_graph(self.nodes, "main_graph", inputs, outputs,
                                  initializer=self.initializers)
        model = helper.make_model(
            graph,
            opset_imports=[helper.make_opsetid("", self.opset)],
            producer_name="pytorch",  # mimicked, see README
            producer_version="2.1.0",
            doc_string=doc,
        )
        model.ir_version = IR_VERSION
        model.model_version = 0
        return model


def _normal(rng, shape, std) -> np.ndarray:
    """float32 normal samples without float64 temporaries."""
    a = rng.standard_normal(shape, dtype=np.float32)
    a *= np.float32(std)
    return a


def _uniform(rng, shape, lo, hi) -> np.ndarray:
    a = rng.random(shape, dtype=np.float32)
    a *= np.float32(hi - lo)
    a += np.float32(lo)
    return a


# --------------------------------------------------------------------------
# mlp
# --------------------------------------------------------------------------

def build_mlp(seed: int):
    rng = np.random.default_rng(seed)
    g = GraphBuilder(opset=17)
    p = {}
    # fc1: Gemm with transB=1 (torch nn.Linear on a 2-D input).
    p["fc1.weight"] = _normal(rng, (128, 64), 1 / math.sqrt(64))
    p["fc1.bias"] = _normal(rng, (128,), 0.1)
    # fc2: MatMul + Add with the weight stored transposed ([in, out]).
    p["fc2.weight_t"] = _normal(rng, (128, 128), 1 / math.sqrt(128))
    p["fc2.bias"] = _normal(rng, (128,), 0.1)
    p["fc3.weight"] = _normal(rng, (10, 128), 1 / math.sqrt(128))
    p["fc3.bias"] = _normal(rng, (10,), 0.1)

    h = g.node("/fc1", "Gemm", ["x", g.init("fc1.weight", p["fc1.weight"]),
                                g.init("fc1.bias", p["fc1.bias"])],
               alpha=1.0, beta=1.0, transB=1)
    h = g.node("/relu", "Relu", [h])
    w2 = g.anon_init("MatMul", p["fc2.weight_t"])
    h = g.node("/fc2", "MatMul", [h, w2])
    h = g.node("/fc2", "Add", [h, g.init("fc2.bias", p["fc2.bias"])])
    h = g.node("/sigmoid", "Sigmoid", [h])
    g.node("/fc3", "Gemm", [h, g.init("fc3.weight", p["fc3.weight"]),
                            g.init("fc3.bias", p["fc3.bias"])],
           outputs=["y"], alpha=1.0, beta=1.0, transB=1)

    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 64])]
    outputs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 10])]
    model = g.make_model("mlp", inputs, outputs,
                         "nunc test model: MLP 64-128-128-10 (Gemm/MatMul+Add)")
    return model, p


def ref_mlp(p, feeds):
    x = feeds["x"].astype(np.float64)
    h = np.maximum(x @ p["fc1.weight"].T + p["fc1.bias"], 0)
    h = 1 / (1 + np.exp(-(h @ p["fc2.weight_t"] + p["fc2.bias"])))
    return h @ p["fc3.weight"].T + p["fc3.bias"]


# --------------------------------------------------------------------------
# BERT-style encoders (minilm, bert)
# --------------------------------------------------------------------------

def build_transformer(name: str, seed: int, weights=None):
    """The BERT encoder `name`, with random weights from `seed`, or with
    `weights` when given: a mapping from Hugging Face BertModel parameter
    names (``embeddings.word_embeddings.weight``,
    ``encoder.layer.0.attention.self.query.weight``, ...) to float32 arrays
    in torch layout (nn.Linear weights are [out, in]; they are transposed
    here, as torch.onnx.export does). The graph is the same either way; the
    rng is not touched when `weights` is given.
    """
    cfg = TRANSFORMER_CONFIGS[name]
    L, H, NH, FF = cfg["layers"], cfg["hidden"], cfg["heads"], cfg["ffn"]
    HD = H // NH
    opset = cfg["opset"]
    rng = np.random.default_rng(seed)
    g = GraphBuilder(opset=opset)
    p: dict[str, np.ndarray] = {}

    def given(key, shape):
        """weights[key] as float32, checked against the expected shape."""
        a = np.asarray(weights[key], dtype=np.float32)
        if a.shape != tuple(shape):
            raise ValueError(f"{key}: shape {list(a.shape)}, expected {list(shape)}")
        return a

    def ln_params(prefix):
        if weights is None:
            gam = _normal(rng, (H,), 0.1)
            gam += np.float32(1.0)
            p[prefix + ".weight"] = gam
            p[prefix + ".bias"] = _normal(rng, (H,), 0.05)
        else:
            p[prefix + ".weight"] = given(prefix + ".weight", (H,))
            p[prefix + ".bias"] = given(prefix + ".bias", (H,))
        return (g.init(prefix + ".weight", p[prefix + ".weight"]),
                g.init(prefix + ".bias", p[prefix + ".bias"]))

    def layer_norm(scope, x, prefix):
        gamma, beta = ln_params(prefix)
        if cfg["ln_op"]:
            return g.node(scope, "LayerNormalization", [x, gamma, beta],
                          axis=-1, epsilon=1e-12)
        # torch opset-11 decomposition of F.layer_norm.
        mean = g.reduce_mean(scope, x, [-1])
        d = g.node(scope, "Sub", [x, mean])
        if scope.startswith("/embeddings"):
            two = g.const(scope, np.array(2.0, dtype=np.float32))
        else:
            # encoder LayerNorms share a constant-folded scalar initializer.
            two = shared_scalar("Pow", 2.0)
        sq = g.node(scope, "Pow", [d, two])
        var = g.reduce_mean(scope, sq, [-1])
        eps = g.const(scope, np.array(1e-12, dtype=np.float32))
        ve = g.node(scope, "Add", [var, eps])
        sd = g.node(scope, "Sqrt", [ve])
        nrm = g.node(scope, "Div", [d, sd])
        y = g.node(scope, "Mul", [nrm, gamma])
        return g.node(scope, "Add", [y, beta])

    shared = {}

    def shared_scalar(op, value):
        key = (op, value)
        if key not in shared:
            shared[key] = g.anon_init(op, np.array(value, dtype=np.float32))
        return shared[key]

    def linear(scope, x, prefix, n_in, n_out, std):
        if weights is None:
            w = _normal(rng, (n_in, n_out), std)  # stored as W^T, like torch
            b = _normal(rng, (n_out,), 0.02)
        else:
            # nn.Linear keeps [out, in]; the export stores W^T = [in, out].
            w = np.ascontiguousarray(given(prefix + ".weight", (n_out, n_in)).T)
            b = given(prefix + ".bias", (n_out,))
        p[prefix + ".weight_t"] = w
        p[prefix + ".bias"] = b
        mm = g.node(scope, "MatMul", [x, g.anon_init("MatMul", w)])
        # torch exports the bias as the first Add operand.
        return g.node(scope, "Add", [g.init(prefix + ".bias", b), mm])

    def batch_seq_shape(scope, x, tail):
        """Shape/Gather/Unsqueeze/Concat computing [batch, seq, *tail]."""
        b = g.dim(scope, x, 0)
        s = g.dim(scope, x, 1)
        ub = g.unsqueeze(scope, b, [0])
        us = g.unsqueeze(scope, s, [0])
        tails = [g.const(scope, np.array([t], dtype=np.int64)) for t in tail]
        return g.node(scope, "Concat", [ub, us] + tails, axis=0)

    # ---- embeddings ----
    sc = "/embeddings"
    emb_shapes = {"word_embeddings": (cfg["vocab"], H),
                  "position_embeddings": (cfg["max_pos"], H),
                  "token_type_embeddings": (cfg["types"], H)}
    for key, shape in emb_shapes.items():
        p[key] = (_normal(rng, shape, 0.02) if weights is None
                  else given(f"embeddings.{key}.weight", shape))
    pos_buf = g.init("embeddings.position_ids",
                     np.arange(cfg["max_pos"], dtype=np.int64)[None, :])
    seq_len = g.dim(sc, "input_ids", 1)
    seq_1d = g.unsqueeze(sc, seq_len, [0])
    starts = g.const(sc, np.array([0], dtype=np.int64))
    axes = g.const(sc, np.array([1], dtype=np.int64))
    steps = g.const(sc, np.array([1], dtype=np.int64))
    pos_ids = g.node(sc, "Slice", [pos_buf, starts, seq_1d, axes, steps])

    we = g.node(sc + "/word_embeddings", "Gather",
                [g.init("embeddings.word_embeddings.weight", p["word_embeddings"]),
                 "input_ids"], axis=0)
    te = g.node(sc + "/token_type_embeddings", "Gather",
                [g.init("embeddings.token_type_embeddings.weight",
                        p["token_type_embeddings"]), "token_type_ids"], axis=0)
    emb = g.node(sc, "Add", [we, te])
    pe = g.node(sc + "/position_embeddings", "Gather",
                [g.init("embeddings.position_embeddings.weight",
                        p["position_embeddings"]), pos_ids], axis=0)
    emb = g.node(sc, "Add", [emb, pe])
    x = layer_norm(sc + "/LayerNorm", emb, "embeddings.LayerNorm")

    # ---- extended attention mask: (1 - mask[:, None, None, :]) * min ----
    m = g.unsqueeze("", "attention_mask", [1, 2])
    m = g.node("", "Cast", [m], to=TensorProto.FLOAT)
    one = g.const("", np.array(1.0, dtype=np.float32))
    m = g.node("", "Sub", [one, m])
    neg = g.const("", np.array(cfg["mask_value"], dtype=np.float32))
    ext_mask = g.node("", "Mul", [m, neg])

    std_h = 1 / math.sqrt(H)
    std_f = 1 / math.sqrt(FF)
    for i in range(L):
        ls = f"/encoder/layer.{i}"
        lp = f"encoder.layer.{i}"
        ss = ls + "/attention/self"
        q = linear(ss + "/query", x, lp + ".attention.self.query", H, H, std_h)
        k = linear(ss + "/key", x, lp + ".attention.self.key", H, H, std_h)
        v = linear(ss + "/value", x, lp + ".attention.self.value", H, H, std_h)

        def split_heads(t, perm):
            shape = batch_seq_shape(ss, t, [NH, HD])
            r = g.node(ss, "Reshape", [t, shape])
            return g.node(ss, "Transpose", [r], perm=perm)

        kt = split_heads(k, [0, 2, 3, 1])   # K^T directly: [b, h, d, s]
        vh = split_heads(v, [0, 2, 1, 3])
        qh = split_heads(q, [0, 2, 1, 3])
        scores = g.node(ss, "MatMul", [qh, kt])
        if opset >= 13 and i % 2 == 1:
            # odd layers: the scale as a Constant node, even: shared initializer
            scale = g.const(ss, np.array(math.sqrt(HD), dtype=np.float32))
        else:
            scale = shared_scalar("Div", math.sqrt(HD))
        scores = g.node(ss, "Div", [scores, scale])
        scores = g.node(ss, "Add", [scores, ext_mask])
        probs = g.node(ss, "Softmax", [scores], axis=-1)
        ctx = g.node(ss, "MatMul", [probs, vh])
        ctx = g.node(ss, "Transpose", [ctx], perm=[0, 2, 1, 3])
        shape = batch_seq_shape(ss, ctx, [H])
        ctx = g.node(ss, "Reshape", [ctx, shape])

        os_ = ls + "/attention/output"
        a = linear(os_ + "/dense", ctx, lp + ".attention.output.dense", H, H, std_h)
        a = g.node(os_, "Add", [a, x])
        a = layer_norm(os_ + "/LayerNorm", a, lp + ".attention.output.LayerNorm")

        ins = ls + "/intermediate"
        h = linear(ins + "/dense", a, lp + ".intermediate.dense", H, FF, std_h)
        act = ins + "/intermediate_act_fn"
        t = g.node(act, "Div", [h, g.const(act, np.array(1.4142135381698608, dtype=np.float32))])
        t = g.node(act, "Erf", [t])
        t = g.node(act, "Add", [t, g.const(act, np.array(1.0, dtype=np.float32))])
        t = g.node(act, "Mul", [h, t])
        t = g.node(act, "Mul", [t, g.const(act, np.array(0.5, dtype=np.float32))])

        ous = ls + "/output"
        o = linear(ous + "/dense", t, lp + ".output.dense", FF, H, std_f)
        o = g.node(ous, "Add", [o, a])
        x = layer_norm(ous + "/LayerNorm", o, lp + ".output.LayerNorm")

    # Rename the final tensor to the graph output.
    g.nodes[-1].output[0] = "last_hidden_state"

    dims = ["batch", "sequence"]
    inputs = [helper.make_tensor_value_info(n, TensorProto.INT64, dims)
              for n in ("input_ids", "attention_mask", "token_type_ids")]
    outputs = [helper.make_tensor_value_info(
        "last_hidden_state", TensorProto.FLOAT, ["batch", "sequence", H])]
    doc = (f"nunc test model: {name}, BERT encoder L={L} H={H} heads={NH} "
           f"FFN={FF}, opset {opset}, random weights")
    return g.make_model(name, inputs, outputs, doc), p


def _erf(x: np.ndarray) -> np.ndarray:
    return np.vectorize(math.erf, otypes=[np.float64])(x)


def ref_transformer(name, p, feeds):
    """float64 numpy reference of the BERT encoder (for --check)."""
    cfg = TRANSFORMER_CONFIGS[name]
    L, H, NH = cfg["layers"], cfg["hidden"], cfg["heads"]
    HD = H // NH
    ids, mask, tt = feeds["input_ids"], feeds["attention_mask"], feeds["token_type_ids"]
    B, S = ids.shape

    def ln(x, pre):
        mu = x.mean(-1, keepdims=True)
        var = ((x - mu) ** 2).mean(-1, keepdims=True)
        return (x - mu) / np.sqrt(var + 1e-12) * p[pre + ".weight"] + p[pre + ".bias"]

    def lin(x, pre):
        return x @ p[pre + ".weight_t"].astype(np.float64) + p[pre + ".bias"]

    x = (p["word_embeddings"][ids].astype(np.float64)
         + p["token_type_embeddings"][tt] + p["position_embeddings"][np.arange(S)][None])
    x = ln(x, "embeddings.LayerNorm")
    m = (1.0 - mask[:, None, None, :].astype(np.float64)) * cfg["mask_value"]
    for i in range(L):
        lp = f"encoder.layer.{i}"
        heads = lambda t: t.reshape(B, S, NH, HD).transpose(0, 2, 1, 3)
        q = heads(lin(x, lp + ".attention.self.query"))
        k = heads(lin(x, lp + ".attention.self.key"))
        v = heads(lin(x, lp + ".attention.self.value"))
        s = q @ k.transpose(0, 1, 3, 2) / math.sqrt(HD) + m
        s = np.exp(s - s.max(-1, keepdims=True))
        s /= s.sum(-1, keepdims=True)
        c = (s @ v).transpose(0, 2, 1, 3).reshape(B, S, H)
        a = ln(lin(c, lp + ".attention.output.dense") + x, lp + ".attention.output.LayerNorm")
        h = lin(a, lp + ".intermediate.dense")
        h = 0.5 * h * (1.0 + _erf(h / math.sqrt(2.0)))
        x = ln(lin(h, lp + ".output.dense") + a, lp + ".output.LayerNorm")
    return x


# --------------------------------------------------------------------------
# CNNs (resnet, mobilenet)
# --------------------------------------------------------------------------

class CnnBuilder:
    def __init__(self, seed: int, opset: int = 13):
        self.rng = np.random.default_rng(seed)
        self.g = GraphBuilder(opset=opset)
        self.params = 0

    def _p(self, name, arr):
        self.params += arr.size
        return self.g.init(name, arr)

    def conv(self, scope, x, wname, cin, cout, k, stride, pad, group=1, gain=2.0):
        fan_in = (cin // group) * k * k
        w = _normal(self.rng, (cout, cin // group, k, k), math.sqrt(gain / fan_in))
        # Zero-mean filters: the positive mean of ReLU/Clip outputs then does not
        # leak into the next layer as a per-channel offset. With BN statistics
        # that are random rather than calibrated, such offsets otherwise pile up
        # through the residual adds and the logits blow up.
        w -= w.mean(axis=(1, 2, 3), keepdims=True)
        return self.g.node(scope, "Conv", [x, self._p(wname, w)],
                           dilations=[1, 1], group=group, kernel_shape=[k, k],
                           pads=[pad] * 4, strides=[stride, stride])

    def bn(self, scope, x, prefix, c):
        r = self.rng
        gamma = _uniform(r, (c,), 0.5, 1.5)
        beta = _normal(r, (c,), 0.1)
        mean = _normal(r, (c,), 0.1)
        var = _uniform(r, (c,), 0.5, 1.5)
        ins = [x] + [self._p(f"{prefix}.{n}", a) for n, a in
                     (("weight", gamma), ("bias", beta),
                      ("running_mean", mean), ("running_var", var))]
        return self.g.node(scope, "BatchNormalization", ins,
                           epsilon=1e-5, momentum=0.9)

    def gemm(self, scope, x, prefix, n_in, n_out, output):
        w = _normal(self.rng, (n_out, n_in), 1 / math.sqrt(n_in))
        b = _normal(self.rng, (n_out,), 0.01)
        return self.g.node(scope, "Gemm", [x, self._p(prefix + ".weight", w),
                                           self._p(prefix + ".bias", b)],
                           outputs=[output], alpha=1.0, beta=1.0, transB=1)

    def resnet_stem(self):
        """torchvision ResNet's conv1 (7x7 stride 2), bn1, relu, maxpool."""
        x = self.conv("/conv1", "input", "conv1.weight", 3, 64, 7, 2, 3)
        x = self.bn("/bn1", x, "bn1", 64)
        x = self.g.node("/relu", "Relu", [x])
        return self.g.node("/maxpool", "MaxPool", [x], ceil_mode=0, dilations=[1, 1],
                           kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[2, 2])

    def resnet_shortcut(self, sc, pre, x, cin, cout, stride):
        """A block's identity, or its downsample (1x1 conv and BN) where the
        shape changes."""
        if stride == 1 and cin == cout:
            return x
        ds = sc + "/downsample"
        idn = self.conv(ds + "/downsample.0", x, pre + ".downsample.0.weight",
                        cin, cout, 1, stride, 0, gain=1.0)
        return self.bn(ds + "/downsample.1", idn, pre + ".downsample.1", cout)

    def resnet_head(self, x, cin):
        """Global average pool, flatten, the 1000-way fc."""
        x = self.g.node("/avgpool", "GlobalAveragePool", [x])
        x = self.g.node("", "Flatten", [x], axis=1)
        return self.gemm("/fc", x, "fc", cin, 1000, "logits")


def _image_io():
    inputs = [helper.make_tensor_value_info("input", TensorProto.FLOAT,
                                            ["batch", *IMAGE_SHAPE])]
    outputs = [helper.make_tensor_value_info("logits", TensorProto.FLOAT,
                                             ["batch", 1000])]
    return inputs, outputs


RESNET_BLOCKS = (2, 2, 1, 1)  # BasicBlocks per stage (ResNet-18 is 2,2,2,2)


def build_resnet(seed: int):
    cb = CnnBuilder(seed)
    g = cb.g
    x = cb.resnet_stem()
    cin = 64
    for si, (cout, nblocks) in enumerate(zip((64, 128, 256, 512), RESNET_BLOCKS)):
        stage = f"layer{si + 1}"
        for bi in range(nblocks):
            stride = 2 if (si > 0 and bi == 0) else 1
            sc = f"/{stage}/{stage}.{bi}"
            pre = f"{stage}.{bi}"
            h = cb.conv(sc + "/conv1", x, pre + ".conv1.weight", cin, cout, 3, stride, 1)
            h = cb.bn(sc + "/bn1", h, pre + ".bn1", cout)
            h = g.node(sc + "/relu", "Relu", [h])
            h = cb.conv(sc + "/conv2", h, pre + ".conv2.weight", cout, cout, 3, 1, 1)
            h = cb.bn(sc + "/bn2", h, pre + ".bn2", cout)
            idn = cb.resnet_shortcut(sc, pre, x, cin, cout, stride)
            h = g.node(sc, "Add", [h, idn])
            x = g.node(sc + "/relu_1", "Relu", [h])
            cin = cout
    cb.resnet_head(x, 512)
    inputs, outputs = _image_io()
    model = g.make_model("resnet", inputs, outputs,
                         f"nunc test model: ResNet (BasicBlocks {RESNET_BLOCKS}), "
                         "Conv+BatchNormalization, random weights")
    return model, None


# ResNeXt-50 (32x4d) bottlenecks per stage, shortened (torchvision's: 3, 4, 6, 3).
RESNEXT_BLOCKS = (1, 1, 1, 1)
RESNEXT_GROUPS, RESNEXT_GROUP_WIDTH = 32, 4


def build_resnext(seed: int):
    """torchvision's resnext50_32x4d layout (Bottleneck: 1x1, grouped 3x3 of
    32 groups, 1x1 with 4x expansion; the stride on the 3x3), shortened to
    RESNEXT_BLOCKS."""
    cb = CnnBuilder(seed)
    g = cb.g
    x = cb.resnet_stem()
    cin = 64
    for si, (planes, nblocks) in enumerate(zip((64, 128, 256, 512), RESNEXT_BLOCKS)):
        stage = f"layer{si + 1}"
        width = planes * RESNEXT_GROUP_WIDTH * RESNEXT_GROUPS // 64
        cout = planes * 4
        for bi in range(nblocks):
            stride = 2 if (si > 0 and bi == 0) else 1
            sc = f"/{stage}/{stage}.{bi}"
            pre = f"{stage}.{bi}"
            h = cb.conv(sc + "/conv1", x, pre + ".conv1.weight", cin, width, 1, 1, 0)
            h = cb.bn(sc + "/bn1", h, pre + ".bn1", width)
            h = g.node(sc + "/relu", "Relu", [h])
            h = cb.conv(sc + "/conv2", h, pre + ".conv2.weight", width, width, 3, stride, 1,
                        group=RESNEXT_GROUPS)
            h = cb.bn(sc + "/bn2", h, pre + ".bn2", width)
            h = g.node(sc + "/relu_1", "Relu", [h])
            h = cb.conv(sc + "/conv3", h, pre + ".conv3.weight", width, cout, 1, 1, 0, gain=1.0)
            h = cb.bn(sc + "/bn3", h, pre + ".bn3", cout)
            idn = cb.resnet_shortcut(sc, pre, x, cin, cout, stride)
            h = g.node(sc, "Add", [h, idn])
            x = g.node(sc + "/relu_2", "Relu", [h])
            cin = cout
    cb.resnet_head(x, cin)
    inputs, outputs = _image_io()
    model = g.make_model("resnext", inputs, outputs,
                         f"nunc test model: ResNeXt (32x4d Bottlenecks {RESNEXT_BLOCKS}), "
                         "grouped Conv+BatchNormalization, random weights")
    return model, None


# MobileNetV2 inverted-residual settings (expand t, out c, repeats n, stride s),
# a shortened version of torchvision's table (8 blocks instead of 17).
MOBILENET_SETTINGS = ((1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 2, 2),
                      (6, 64, 1, 2), (6, 160, 1, 2), (6, 320, 1, 1))


def build_mobilenet(seed: int):
    cb = CnnBuilder(seed)
    g = cb.g
    relu6 = {}

    def clip(scope, x):
        # torch exports ReLU6 (hardtanh 0..6) as Clip(x, min, max) at opset >= 11.
        # The stem uses Constant nodes; the rest share constant-folded initializers.
        if not relu6:
            relu6["min"] = g.anon_init("Clip", np.array(0.0, dtype=np.float32))
            relu6["max"] = g.anon_init("Clip", np.array(6.0, dtype=np.float32))
            lo = g.const(scope, np.array(0.0, dtype=np.float32))
            hi = g.const(scope, np.array(6.0, dtype=np.float32))
        else:
            lo, hi = relu6["min"], relu6["max"]
        return g.node(scope, "Clip", [x, lo, hi])

    def conv_bn_act(scope, pre, x, cin, cout, k, stride, group=1, act=True):
        """torchvision Conv2dNormActivation: <pre>.0 Conv, .1 BN, .2 ReLU6."""
        base = scope.rsplit("/", 1)[-1]
        h = cb.conv(f"{scope}/{base}.0", x, pre + ".0.weight", cin, cout, k,
                    stride, (k - 1) // 2, group=group)
        h = cb.bn(f"{scope}/{base}.1", h, pre + ".1", cout)
        return clip(f"{scope}/{base}.2", h) if act else h

    x = conv_bn_act("/features/features.0", "features.0", "input", 3, 32, 3, 2)
    cin = 32
    idx = 1
    for t, c, n, s in MOBILENET_SETTINGS:
        for r in range(n):
            stride = s if r == 0 else 1
            fs = f"/features/features.{idx}"
            fp = f"features.{idx}"
            hidden = cin * t
            h = x
            j = 0
            if t != 1:
                h = conv_bn_act(f"{fs}/conv/conv.{j}", f"{fp}.conv.{j}", h, cin, hidden, 1, 1)
                j += 1
            h = conv_bn_act(f"{fs}/conv/conv.{j}", f"{fp}.conv.{j}", h, hidden, hidden,
                            3, stride, group=hidden)
            j += 1
            h = cb.conv(f"{fs}/conv/conv.{j}", h, f"{fp}.conv.{j}.weight", hidden, c,
                        1, 1, 0, gain=1.0)
            h = cb.bn(f"{fs}/conv/conv.{j + 1}", h, f"{fp}.conv.{j + 1}", c)
            if stride == 1 and cin == c:
                h = g.node(fs, "Add", [x, h])
            x = h
            cin = c
            idx += 1
    x = conv_bn_act(f"/features/features.{idx}", f"features.{idx}", x, cin, 1280, 1, 1)
    x = g.node("", "GlobalAveragePool", [x])
    # x.view(x.size(0), -1): Shape/Gather/Unsqueeze/Concat -> Reshape
    b = g.dim("", x, 0)
    ub = g.unsqueeze("", b, [0])
    shape = g.node("", "Concat", [ub, g.const("", np.array([-1], dtype=np.int64))], axis=0)
    x = g.node("", "Reshape", [x, shape])
    cb.gemm("/classifier/classifier.1", x, "classifier.1", 1280, 1000, "logits")
    inputs, outputs = _image_io()
    model = g.make_model("mobilenet", inputs, outputs,
                         "nunc test model: MobileNetV2-like (inverted residuals, "
                         "depthwise Conv, Clip as ReLU6), random weights")
    return model, None


# --------------------------------------------------------------------------
# public helpers
# --------------------------------------------------------------------------

def build_model(name: str, seed: int | None = None, weights=None):
    """Return (ModelProto, params-or-None) for one of MODEL_NAMES.

    `weights` (text models only): Hugging Face BertModel parameters to use
    instead of random ones; see build_transformer.
    """
    seed = SEEDS[name] if seed is None else seed
    if weights is not None and name not in TRANSFORMER_CONFIGS:
        raise ValueError(f"weights= is only supported for {sorted(TRANSFORMER_CONFIGS)}")
    if name == "mlp":
        return build_mlp(seed)
    if name in TRANSFORMER_CONFIGS:
        return build_transformer(name, seed, weights)
    if name == "resnet":
        return build_resnet(seed)
    if name == "mobilenet":
        return build_mobilenet(seed)
    if name == "resnext":
        return build_resnext(seed)
    raise ValueError(f"unknown model {name!r}; expected one of {MODEL_NAMES}")


def random_inputs(name: str, batch: int = 2, seq: int = 16, seed: int = 0) -> dict:
    """Random feeds for model `name` (seq is ignored by non-text models).

    Text models: token ids uniform in [0, vocab); attention_mask ones, with
    row b (b >= 1) having some trailing zeros (at least one token stays
    unmasked); token_type_ids 0 for the first half of each row, 1 after.
    """
    rng = np.random.default_rng(seed)
    if name == "mlp":
        return {"x": rng.standard_normal((batch, 64), dtype=np.float32)}
    if name in TRANSFORMER_CONFIGS:
        cfg = TRANSFORMER_CONFIGS[name]
        ids = rng.integers(0, cfg["vocab"], size=(batch, seq), dtype=np.int64)
        mask = np.ones((batch, seq), dtype=np.int64)
        for b in range(1, batch):
            pad = min(seq - 1, (b * seq) // (2 * batch) + 1)
            mask[b, seq - pad:] = 0
        tt = np.zeros((batch, seq), dtype=np.int64)
        tt[:, seq // 2:] = 1
        return {"input_ids": ids, "attention_mask": mask, "token_type_ids": tt}
    if name in ("resnet", "mobilenet", "resnext"):
        return {"input": rng.standard_normal((batch, *IMAGE_SHAPE), dtype=np.float32)}
    raise ValueError(f"unknown model {name!r}; expected one of {MODEL_NAMES}")


def param_count(model: onnx.ModelProto) -> int:
    """Number of floating-point initializer elements."""
    n = 0
    for t in model.graph.initializer:
        if t.data_type in (TensorProto.FLOAT, TensorProto.FLOAT16,
                           TensorProto.BFLOAT16, TensorProto.DOUBLE):
            n += math.prod(t.dims)
    return n


def save(model: onnx.ModelProto, out_dir: str, name: str, external: bool) -> list[str]:
    path = os.path.join(out_dir, f"{name}.onnx")
    data_name = f"{name}.onnx.data"
    data_path = os.path.join(out_dir, data_name)
    # onnx appends to an existing external-data file, so always start clean
    # (and do not leave a stale one beside an all-in-one model).
    if os.path.exists(data_path):
        os.remove(data_path)
    if external:
        onnx.save_model(model, path, save_as_external_data=True,
                        all_tensors_to_one_file=True, location=data_name,
                        size_threshold=1024, convert_attribute=False)
        os.chmod(data_path, 0o644)  # onnx creates it 0600
        return [path, data_path]
    onnx.save_model(model, path)
    return [path]


# --------------------------------------------------------------------------
# --check
# --------------------------------------------------------------------------

ALLOWED_OPS = set("""Add Sub Mul Div Pow Sqrt Erf Tanh Relu Sigmoid Clip Where
Equal Cast MatMul Gemm ReduceMean ReduceSum Softmax LayerNormalization Gather
Reshape Transpose Unsqueeze Squeeze Concat Slice Expand Shape ConstantOfShape
Constant Identity Flatten Conv BatchNormalization MaxPool AveragePool
GlobalAveragePool""".split())


def check(name: str, model: onnx.ModelProto, params, path: str) -> None:
    import onnxruntime as ort

    ops = {n.op_type for n in model.graph.node}
    bad = ops - ALLOWED_OPS
    assert not bad, f"{name}: ops outside the allowed set: {sorted(bad)}"
    names = [n.name for n in model.graph.node]
    assert len(set(names)) == len(names), f"{name}: duplicate node names"

    # Large models must be checked by path (>2 GB protobuf limit / memory).
    onnx.checker.check_model(path, full_check=True)

    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.log_severity_level = 3
    sess = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    text = name in TRANSFORMER_CONFIGS
    feeds = random_inputs(name, batch=1 if name in ("resnet", "mobilenet", "resnext") else 2,
                          seq=16, seed=123)
    (out,) = sess.run(None, feeds)
    assert np.all(np.isfinite(out)), f"{name}: non-finite output"
    msg = (f"  check {name}: ops={len(ops)} nodes={len(model.graph.node)} "
           f"out{list(out.shape)} mean={out.mean():.4f} std={out.std():.4f} "
           f"max|y|={np.abs(out).max():.3f}")
    ref = None
    if name == "mlp":
        ref = ref_mlp(params, feeds)
    elif text:
        ref = ref_transformer(name, params, feeds)
        assert out.shape == (2, 16, TRANSFORMER_CONFIGS[name]["hidden"])
        assert 0.3 < out.std() < 3.0, f"{name}: hidden states not O(1)"
    else:
        assert out.shape == (1, 1000)
        assert np.abs(out).max() < 1e3, f"{name}: logits too large"
    if ref is not None:
        err = float(np.abs(out - ref).max())
        msg += f" max|ort-numpy|={err:.2e}"
        assert err < 1e-3 * max(1.0, float(np.abs(ref).max())), f"{name}: mismatch vs numpy"
    print(msg, flush=True)


# --------------------------------------------------------------------------
# main
# --------------------------------------------------------------------------

def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, help="output directory")
    ap.add_argument("--models", default=",".join(MODEL_NAMES),
                    help="comma-separated subset of: " + ",".join(MODEL_NAMES))
    ap.add_argument("--external-data", action="store_true",
                    help="store initializers >= 1 KiB in <name>.onnx.data")
    ap.add_argument("--check", action="store_true",
                    help="also run onnx.checker and onnxruntime (slow)")
    args = ap.parse_args(argv)

    names = [m.strip() for m in args.models.split(",") if m.strip()]
    for n in names:
        if n not in MODEL_NAMES:
            ap.error(f"unknown model {n!r}; expected some of {','.join(MODEL_NAMES)}")
    os.makedirs(args.out, exist_ok=True)

    for n in names:
        t0 = time.perf_counter()
        model, params = build_model(n)
        nparams = param_count(model)
        files = save(model, args.out, n, args.external_data)
        size = sum(os.path.getsize(f) for f in files)
        dt = time.perf_counter() - t0
        print(f"{n:10s} {size / 1e6:9.2f} MB  {nparams:>11,d} params  "
              f"{dt:5.1f} s  {' + '.join(os.path.basename(f) for f in files)}",
              flush=True)
        if args.check:
            check(n, model, params, files[0])
        del model, params
    return 0


if __name__ == "__main__":
    sys.exit(main())
