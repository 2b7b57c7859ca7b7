"""onnxruntime's fused attention ops (com.microsoft Attention, QAttention and
MultiHeadAttention) and QEmbedLayerNormalization, compiled by nunc and compared with
onnxruntime: node by node over every mask form, and as its transformer
optimizer and quantize_dynamic write them into MiniLM."""
import json
import os

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto as TP
from onnx import helper as h
from onnx import numpy_helper as nh

import harness
from make_models import random_inputs
from test_compile import host_has, pins

VNNI = host_has("avx512_vnni")
B, S, HIDDEN, HEADS = 2, 5, 8, 2


def opset_model(nodes, inputs, outputs, initializers):
    g = h.make_graph(nodes, "attention", inputs, outputs, initializers)
    model = h.make_model(g, opset_imports=[h.make_opsetid("", 17),
                                           h.make_opsetid("com.microsoft", 1)])
    model.ir_version = 8
    return model


def attention_ops_model(path):
    """One Attention per mask form and attribute, each with its own weights
    (as a model's layers have), three QAttentions after a DynamicQuantizeLinear,
    and a QEmbedLayerNormalization. Returns the fused-attention count nunc
    should reach: every Attention but the one whose V heads are narrower."""
    r = np.random.default_rng(3)
    inits, nodes, outputs = [], [], []

    def init(name, value):
        inits.append(nh.from_array(value, name))
        return name

    def weights(name, columns=3 * HIDDEN):
        return init(name, (r.standard_normal((HIDDEN, columns)) * 0.5).astype(np.float32))

    bias = init("bias", r.standard_normal(3 * HIDDEN).astype(np.float32))

    def attention(name, extra_inputs=(), op="Attention", inputs=None, **attrs):
        ins = inputs or ["x", weights(name + "_w"), bias, *extra_inputs]
        nodes.append(h.make_node(op, ins, ["y_" + name], name=name, domain="com.microsoft",
                                 num_heads=HEADS, **attrs))
        outputs.append("y_" + name)
        return nodes[-1]

    attention("none")
    attention("lengths", ["lengths"])
    attention("end_start", ["end_start"], mask_filter_value=-3.0)
    attention("raw2d", ["raw2d"], mask_filter_value=-2.5)
    attention("raw3d", ["raw3d"], scale=0.3)
    attention("dummy", ["dummy"])
    attention("causal", ["lengths"], unidirectional=1)
    attention("causal_raw", ["raw2d"], unidirectional=1, mask_filter_value=-20000.0)
    attention("attention_bias", ["raw2d", "", "attention_bias"])
    # The lowest float as the filter (what onnxruntime's optimizer writes
    # for exports that mask with it), on a mask with a row masked throughout.
    attention("lowest_filter", ["raw3d", "", "attention_bias"],
              mask_filter_value=float(np.finfo(np.float32).min))
    narrow_v = attention("narrow_v", inputs=["x", weights("narrow_v_w", 20)], scale=0.7)
    narrow_v.attribute.append(h.make_attribute("qkv_hidden_sizes", [8, 8, 4]))
    fused = 10

    nodes.append(h.make_node("DynamicQuantizeLinear", ["x"], ["xq", "xs", "xz"]))
    wq = init("wq", r.integers(-128, 128, (HIDDEN, 3 * HIDDEN)).astype(np.int8))
    attention("q_s8", op="QAttention",
              inputs=["xq", wq, bias, "xs", init("ws", np.array(0.02, np.float32)), "lengths",
                      "xz"])
    wu = init("wu", r.integers(0, 256, (HIDDEN, 3 * HIDDEN)).astype(np.uint8))
    scales = init("wus", (r.random(3 * HIDDEN) * 0.03 + 0.005).astype(np.float32))
    zeros = init("wuz", r.integers(100, 150, 3 * HIDDEN).astype(np.uint8))
    attention("q_u8_per_column", op="QAttention", unidirectional=1,
              inputs=["xq", wu, bias, "xs", scales, "raw2d", "xz", zeros])
    # s8 weights with zero points per column but one scale: the u8 weights
    # 128 higher.
    attention("q_s8_zero_points", op="QAttention",
              inputs=["xq", wq, bias, "xs", "ws", "", "xz",
                      init("wqz", r.integers(-3, 4, 3 * HIDDEN).astype(np.int8))])

    def quantized(name, shape):
        a = r.standard_normal(shape).astype(np.float32)
        lo, hi = min(a.min(), 0), max(a.max(), 0)
        scale = np.float32((hi - lo) / 255)
        zero = np.uint8(round(-lo / scale))
        q = np.clip(np.round(a / scale) + zero, 0, 255).astype(np.uint8)
        return (init(name, q), init(name + "_s", np.array(scale, np.float32)),
                init(name + "_z", np.array(zero, np.uint8)))

    tables = [quantized(n, s) for n, s in (("word", (30, HIDDEN)), ("pos", (9, HIDDEN)),
                                           ("seg", (2, HIDDEN)), ("gamma", (HIDDEN,)),
                                           ("beta", (HIDDEN,)))]
    nodes.append(h.make_node(
        "QEmbedLayerNormalization",
        ["ids", "segments"] + [t[0] for t in tables] + ["mask"] + [t[1] for t in tables]
        + [t[2] for t in tables], ["qeln", "qeln_mask_index"], name="qeln",
        domain="com.microsoft", epsilon=1e-5))
    outputs += ["qeln", "qeln_mask_index"]

    inputs = [h.make_tensor_value_info(n, t, s) for n, t, s in (
        ("x", TP.FLOAT, [B, S, HIDDEN]), ("lengths", TP.INT32, [B]),
        ("end_start", TP.INT32, [2 * B]), ("raw2d", TP.INT32, [B, S]),
        ("raw3d", TP.INT32, [B, S, S]), ("dummy", TP.INT32, [B, 1]),
        ("attention_bias", TP.FLOAT, [1, HEADS, S, S]), ("ids", TP.INT32, [B, S]),
        ("segments", TP.INT32, [B, S]), ("mask", TP.INT32, [B, S]))]
    outs = [h.make_tensor_value_info(n, TP.INT32 if n == "qeln_mask_index" else TP.FLOAT, None)
            for n in outputs]
    onnx.save(opset_model(nodes, inputs, outs, inits), path)
    return fused


@pytest.mark.skipif(not VNNI, reason="the host lacks AVX-512 VNNI")
def test_attention_ops_match_onnxruntime(nunc, tmp_path):
    """Every Attention mask form (none; key lengths, one with a key length
    of 0; end and start positions; raw [B, T] masks holding 2, 0 and -1,
    the first key of a row masked; raw [B, S, T] with a query row masked
    throughout; the [B, 1] one that masks nothing; unidirectional alone, and
    with masks whose filter is larger than its own value: a query whose
    keys up to it are all masked still attends to none after it, as in
    onnxruntime; the lowest float as mask_filter_value; attention_bias),
    the scale attribute, V heads narrower than Q's and K's
    (qkv_hidden_sizes), QAttention with s8 weights, with u8 weights and
    per-column scales and zero points, and with s8 weights, per-column zero
    points and one scale, and QEmbedLayerNormalization with a mask holding a
    2 (its mask index counts the ones): each equals onnxruntime within
    float rounding (a small mask_filter_value shows where it is added), on
    the AVX-512 VNNI and the AVX2 kernels. All but the narrow-V Attention
    become nunc's fused attention kernel with one GEMM for Q, K and V; the
    QAttentions' GEMMs are int8 (s8 weights with zero points as the u8
    weights 128 higher)."""
    path = str(tmp_path / "att.onnx")
    fused = attention_ops_model(path)
    r = np.random.default_rng(5)
    raw3d = r.integers(0, 2, (B, S, S)).astype(np.int32)
    raw3d[1, 2] = 0
    feeds = {"x": r.standard_normal((B, S, HIDDEN)).astype(np.float32),
             "lengths": np.array([3, 0], np.int32),
             "end_start": np.array([4, 5, 1, 0], np.int32),
             "raw2d": np.array([[0, 2, 0, 1, -1], [1, 1, 1, 1, 0]], np.int32),
             "raw3d": raw3d,
             "dummy": np.array([[0], [1]], np.int32),
             "attention_bias": r.standard_normal((1, HEADS, S, S)).astype(np.float32),
             "ids": r.integers(0, 30, (B, S)).astype(np.int32),
             "segments": r.integers(0, 2, (B, S)).astype(np.int32),
             "mask": np.array([[1, 1, 2, 0, 1], [1, 1, 1, 1, 1]], np.int32)}
    session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    want = dict(zip([o.name for o in session.get_outputs()], session.run(None, feeds)))
    np.testing.assert_array_equal(want["qeln_mask_index"], [3, 5])
    # The small mask_filter_values change the results: they are added.
    assert np.abs(want["y_end_start"] - want["y_none"]).max() > 0.1
    for target in ("x86_64-avx512vnni", "x86_64-avx2"):
        out = tmp_path / target
        nunc("compile", path, "--target", target, "-o", out)
        ops = [k["op"] for k in json.loads((out / "att.json").read_text())["kernels"]]
        assert ops.count("nunc.attention") == fused + 3, ops
        # One GEMM per fused attention; narrow V's three projections stay
        # apart.
        assert ops.count("nunc.quantized_linear") == 3, ops
        assert ops.count("nunc.linear") == fused + 3, ops
        exe, man = harness.build(str(out))
        outs, _, log = harness.run(exe, man, feeds, str(out / "w"))
        assert outs is not None, log
        assert sorted(outs) == sorted(want)
        for name, ref in want.items():
            np.testing.assert_allclose(outs[name], ref, rtol=1e-5,
                                       atol=2e-6 * np.abs(ref).max(),
                                       err_msg=f"{name} on {target}")


@pytest.mark.parametrize("form,message", [
    ("past", "Attention with a past state (past, past_present_share_buffer, "
             "past_sequence_length) is not supported"),
    ("rotary", "Attention with do_rotary is not supported"),
    ("index3b2", "Attention's 1-D mask_index must have batch_size (2) or 2 * batch_size "
                 "elements, got 8 (3 * batch_size + 2 is not supported)"),
    ("sizes", "Attention: Q, K and V hidden sizes 8, 4, 12 must be positive multiples of "
              "num_heads (2), Q's equal to K's, summing to the weights' 24 columns"),
    ("dynamic", "Attention with this mask needs the batch and sequence dims when compiling; "
                "pin them with --shape"),
    ("qscale", "QAttention input #4 (the weight's scale) must have 1 or 24 elements"),
    ("bias", "Attention's bias must have the weights' 24 columns, got 'tensor<25xf32>'"),
    ("mask", "Attention's 2-D mask_index must be [batch, key sequence] for input "
             "'tensor<2x5x8xf32>', got 'tensor<2x7xi32>'"),
    ("attention_bias", "Attention's attention_bias must be [batch or 1, num_heads or 1, "
                       "sequence, key sequence] for input 'tensor<2x5x8xf32>' and 2 heads, got "
                       "'tensor<2x5x5xf32>'"),
])
def test_attention_forms_nunc_refuses(nunc, tmp_path, form, message):
    """Each refused form is a located error at its node, exit code 1."""
    w = nh.from_array(np.zeros((HIDDEN, 3 * HIDDEN), np.float32), "w")
    x = h.make_tensor_value_info("x", TP.FLOAT, [B, S, HIDDEN])
    lengths = h.make_tensor_value_info("lengths", TP.INT32, [B])
    inputs, attrs, op = ["x", "w"], {}, "Attention"
    graph_inputs, inits = [x], [w]
    if form == "past":
        graph_inputs.append(h.make_tensor_value_info("past", TP.FLOAT, [2, B, HEADS, 3, 4]))
        inputs += ["", "", "past"]
    elif form == "rotary":
        attrs["do_rotary"] = 1
    elif form == "index3b2":
        graph_inputs.append(h.make_tensor_value_info("index", TP.INT32, [3 * B + 2]))
        inputs += ["", "index"]
    elif form == "sizes":
        attrs["qkv_hidden_sizes"] = [8, 4, 12]
    elif form == "dynamic":
        graph_inputs = [h.make_tensor_value_info("x", TP.FLOAT, ["batch", "seq", HIDDEN]),
                        lengths]
        inputs += ["", "lengths"]
    elif form == "bias":
        inits.append(nh.from_array(np.zeros(3 * HIDDEN + 1, np.float32), "b"))
        inputs.append("b")
    elif form == "mask":
        graph_inputs.append(h.make_tensor_value_info("m", TP.INT32, [B, S + 2]))
        inputs += ["", "m"]
    elif form == "attention_bias":
        graph_inputs.append(h.make_tensor_value_info("ab", TP.FLOAT, [B, S, S]))
        inputs += ["", "", "", "ab"]
    elif form == "qscale":
        op = "QAttention"
        graph_inputs = [h.make_tensor_value_info("x", TP.UINT8, [B, S, HIDDEN])]
        inits = [nh.from_array(np.zeros((HIDDEN, 3 * HIDDEN), np.int8), "w"),
                 nh.from_array(np.zeros(3 * HIDDEN, np.float32), "b"),
                 nh.from_array(np.array(0.1, np.float32), "s"),
                 nh.from_array(np.ones(5, np.float32), "ws")]
        inputs = ["x", "w", "b", "s", "ws"]
    node = h.make_node(op, inputs, ["y"], name="att", domain="com.microsoft",
                       num_heads=HEADS, **attrs)
    path = str(tmp_path / "bad.onnx")
    onnx.save(opset_model([node], graph_inputs,
                          [h.make_tensor_value_info("y", TP.FLOAT, None)], inits), path)
    r = nunc("compile", path, "--target", "x86_64-avx512", "-o", tmp_path / "out", check=False)
    assert r.returncode == 1, r.stderr
    assert f'node "att" (com.microsoft.{op}, opset 1): error: {message}' in r.stderr, r.stderr


T, VALUE = 7, 12  # MultiHeadAttention's key length and a wider value


def multi_head_attention_model(path):
    """One MultiHeadAttention per form, on a query x [B, S, HIDDEN], keys
    and values kv [B, T, HIDDEN] (cross-attention) and a wider value
    [B, T, VALUE]; returns the nodes' names."""
    r = np.random.default_rng(4)
    inits, nodes = [], []

    def mha(name, q, k, v, extra=(), value=HIDDEN, **attrs):
        # Each node its own bias, as each layer has (without, nodes on the
        # same inputs would share their scores after CSE).
        bias = ""
        if extra is not None:
            bias = "bias_" + name
            inits.append(nh.from_array(
                r.standard_normal(2 * HIDDEN + value).astype(np.float32), bias))
        nodes.append(h.make_node("MultiHeadAttention", [q, k, v, bias, *(extra or ())],
                                 ["y_" + name], name=name, domain="com.microsoft",
                                 num_heads=HEADS, **attrs))

    mha("self", "x", "x", "x")
    mha("cross", "x", "kv", "kv", extra=None)
    mha("cross_wide_value", "x", "kv", "wide", value=VALUE, scale=0.4)
    mha("key_lengths", "x", "kv", "kv", ["key_lengths"], mask_filter_value=-3.0)
    mha("raw2d", "x", "kv", "kv", ["raw2d"], mask_filter_value=-2.5)
    mha("raw3d", "x", "kv", "wide", ["raw3d"], value=VALUE, scale=0.3)
    mha("attention_bias", "x", "kv", "kv", ["raw2d", "attention_bias"])
    mha("causal", "x", "x", "x", ["self_raw2d"], unidirectional=1, mask_filter_value=-20000.0)
    names = [n.name for n in nodes]
    inputs = [h.make_tensor_value_info(n, t, sh) for n, t, sh in (
        ("x", TP.FLOAT, [B, S, HIDDEN]), ("kv", TP.FLOAT, [B, T, HIDDEN]),
        ("wide", TP.FLOAT, [B, T, VALUE]), ("key_lengths", TP.INT32, [B]),
        ("raw2d", TP.INT32, [B, T]), ("raw3d", TP.INT32, [B, S, T]),
        ("attention_bias", TP.FLOAT, [1, HEADS, S, T]), ("self_raw2d", TP.INT32, [B, S]))]
    outs = [h.make_tensor_value_info("y_" + n, TP.FLOAT, None) for n in names]
    onnx.save(opset_model(nodes, inputs, outs, inits), path)
    return names


def test_multi_head_attention_matches_onnxruntime(nunc, tmp_path):
    """MultiHeadAttention (what onnxruntime's transformer optimizer writes
    where Q, K and V come from different inputs): self- and cross-attention
    (7 keys for 5 queries), query/key/value biases, a value wider than the
    query, the scale attribute, key_padding_mask as key lengths (one of 0),
    raw [B, T] and [B, S, T] masks with small filters, attention_bias,
    unidirectional with a padding mask: each equals onnxruntime within float
    rounding on the AVX-512 and AVX2 kernels, all but the wider values on
    nunc's fused attention."""
    path = str(tmp_path / "mha.onnx")
    names = multi_head_attention_model(path)
    r = np.random.default_rng(6)
    raw3d = r.integers(0, 2, (B, S, T)).astype(np.int32)
    raw3d[0, 1] = 0
    feeds = {"x": r.standard_normal((B, S, HIDDEN)).astype(np.float32),
             "kv": r.standard_normal((B, T, HIDDEN)).astype(np.float32),
             "wide": r.standard_normal((B, T, VALUE)).astype(np.float32),
             "key_lengths": np.array([4, 0], np.int32),
             "raw2d": np.array([[0, 2, 0, 1, -1, 1, 1], [1, 1, 1, 1, 0, 0, 1]], np.int32),
             "raw3d": raw3d,
             "attention_bias": r.standard_normal((1, HEADS, S, T)).astype(np.float32),
             "self_raw2d": np.array([[1, 1, 0, 1, 1], [0, 1, 1, 1, 1]], np.int32)}
    session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    want = dict(zip([o.name for o in session.get_outputs()], session.run(None, feeds)))
    for target in ("x86_64-avx512", "x86_64-avx2"):
        out = tmp_path / target
        nunc("compile", path, "--target", target, "-o", out)
        ops = [k["op"] for k in json.loads((out / "mha.json").read_text())["kernels"]]
        # All but the two with a wider value (one head dim for Q, K and V
        # in nunc's attention) on the fused kernel.
        assert ops.count("nunc.attention") == len(names) - 2, ops
        exe, man = harness.build(str(out))
        outs, _, log = harness.run(exe, man, feeds, str(out / "w"))
        assert outs is not None, log
        for name, ref in want.items():
            np.testing.assert_allclose(outs[name], ref, rtol=1e-5,
                                       atol=2e-6 * np.abs(ref).max(),
                                       err_msg=f"{name} on {target}")


@pytest.mark.parametrize("form,message", [
    ("packed", "MultiHeadAttention with packed QKV or KV (no key or value) is not supported"),
    ("past", "MultiHeadAttention with a past state (past_key, past_value, "
             "past_sequence_length, cache_indirection) is not supported"),
    ("per_head_key", "MultiHeadAttention's key and value must be 3-D (batch, sequence, "
                     "hidden), got 'tensor<2x2x7x4xf32>' and 'tensor<2x2x7x4xf32>' (4-D "
                     "per-head key and value are not supported)"),
    ("causal_cross", "MultiHeadAttention with unidirectional needs keys as long as the "
                     "queries, got 7 keys for 5 queries"),
    ("present", "output #1 ('present_key') of MultiHeadAttention is not supported"),
    ("key_size", "MultiHeadAttention: query and key hidden sizes 8 and 6 must be equal, and "
                 "they and value's 6 positive multiples of num_heads (2)"),
    ("dynamic_mask", "MultiHeadAttention's key_padding_mask must be int32 of a known shape (pin "
                     "the model's dims with --shape), got 'tensor<?x?xi32>'"),
])
def test_multi_head_attention_forms_nunc_refuses(nunc, tmp_path, form, message):
    """Each refused form is a located error at its node, exit code 1."""
    x = h.make_tensor_value_info("x", TP.FLOAT, [B, S, HIDDEN])
    kv = h.make_tensor_value_info("kv", TP.FLOAT, [B, T, HIDDEN])
    graph_inputs, inputs, attrs, outputs = [x, kv], ["x", "kv", "kv"], {}, ["y"]
    if form == "packed":
        inputs = ["x"]
    elif form == "past":
        graph_inputs.append(h.make_tensor_value_info("past", TP.FLOAT, [B, HEADS, 3, 4]))
        inputs += ["", "", "", "past", "past"]
    elif form == "per_head_key":
        graph_inputs[1] = h.make_tensor_value_info("kv", TP.FLOAT, [B, HEADS, T, 4])
    elif form == "causal_cross":
        attrs["unidirectional"] = 1
    elif form == "present":
        outputs.append("present_key")
    elif form == "key_size":
        graph_inputs[1] = h.make_tensor_value_info("kv", TP.FLOAT, [B, T, 6])
    elif form == "dynamic_mask":
        graph_inputs = [h.make_tensor_value_info("x", TP.FLOAT, ["b", "s", HIDDEN]),
                        h.make_tensor_value_info("kv", TP.FLOAT, ["b", "t", HIDDEN]),
                        h.make_tensor_value_info("m", TP.INT32, ["b", "t"])]
        inputs += ["", "m"]
    node = h.make_node("MultiHeadAttention", inputs, outputs, name="att",
                       domain="com.microsoft", num_heads=HEADS, **attrs)
    path = str(tmp_path / "bad.onnx")
    onnx.save(opset_model([node], graph_inputs,
                          [h.make_tensor_value_info(o, TP.FLOAT, None) for o in outputs], []),
              path)
    r = nunc("compile", path, "--target", "x86_64-avx512", "-o", tmp_path / "out", check=False)
    assert r.returncode == 1, r.stderr
    assert f'node "att" (com.microsoft.MultiHeadAttention, opset 1): error: {message}' \
        in r.stderr, r.stderr


def transformer_optimized_minilm(models, tmp_path, multi_head=False):
    """MiniLM through onnxruntime's transformer optimizer with its Attention
    fusion (or, `multi_head`, MultiHeadAttention after separate Q, K and V
    MatMuls): its basic graph optimizations first (what optimize_model's
    opt_level 1 runs, here without the torch it would import), and the
    mask's Unsqueeze written as the two single-axis Unsqueezes of older
    exports, the form that fusion matches."""
    from onnxruntime.transformers import optimizer
    from onnxruntime.transformers.fusion_options import FusionOptions
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
    so.optimized_model_filepath = str(tmp_path / "basic.onnx")
    ort.InferenceSession(os.path.join(models, "minilm.onnx"), so,
                         providers=["CPUExecutionProvider"])
    model = onnx.load(so.optimized_model_filepath)
    nodes = []
    for n in model.graph.node:
        if n.op_type == "Unsqueeze" and n.input[0] == "attention_mask":
            model.graph.initializer.extend([nh.from_array(np.array([1], np.int64), "mask_axis1"),
                                            nh.from_array(np.array([2], np.int64), "mask_axis2")])
            nodes += [h.make_node("Unsqueeze", ["attention_mask", "mask_axis1"], ["mask_1"]),
                      h.make_node("Unsqueeze", ["mask_1", "mask_axis2"], [n.output[0]])]
        else:
            nodes.append(n)
    del model.graph.node[:]
    model.graph.node.extend(nodes)
    split = str(tmp_path / "split_mask.onnx")
    onnx.save(model, split)
    options = FusionOptions("bert")
    options.use_multi_head_attention = multi_head
    optimized = optimizer.optimize_model(split, model_type="bert", num_heads=12,
                                         hidden_size=384, opt_level=0,
                                         optimization_options=options)
    fused = {k: v for k, v in optimized.get_fused_operator_statistics().items() if v}
    op = "MultiHeadAttention" if multi_head else "Attention"
    assert fused.get(op) == 6 and fused.get("EmbedLayerNormalization") == 1, fused
    path = str(tmp_path / f"minilm_{'multi_head' if multi_head else 'attention'}.onnx")
    optimized.save_model_to_file(path)
    return path


def compiled_minilm(nunc, tmp_path, model, tag, feeds, *flags):
    """A MiniLM variant compiled for batch 2, sequence 7 and run on `feeds`:
    (its kernels, last_hidden_state)."""
    out = tmp_path / tag
    nunc("compile", model, "--target", "x86_64-avx512vnni", *pins("minilm", 2, 7), *flags,
         "-o", out)
    lib = os.path.splitext(os.path.basename(model))[0]
    kernels = [k["kernel"] for k in json.loads((out / f"{lib}.json").read_text())["kernels"]]
    exe, man = harness.build(str(out))
    outs, _, log = harness.run(exe, man, feeds, str(out / "w"))
    assert outs is not None, log
    return kernels, outs["last_hidden_state"]


def main_kernels(kernels):
    return sorted(k for k in kernels if k.startswith(("gemm", "attention", "layer_norm")))


@pytest.mark.skipif(not VNNI, reason="the host lacks AVX-512 VNNI")
def test_transformer_optimized_minilm_with_attention(nunc, models, tmp_path):
    """MiniLM as onnxruntime's transformer optimizer writes it with its six
    Attention ops (fed EmbedLayerNormalization's mask index: key lengths)
    compiles to the GEMM, attention and LayerNorm kernels of the model it
    came from, with its outputs; quantize_dynamic's model of it
    (QAttention, QEmbedLayerNormalization) runs all 24 GEMMs in int8 and
    tracks onnxruntime's own run of it."""
    from onnxruntime.quantization import QuantType, quantize_dynamic
    path = transformer_optimized_minilm(models, tmp_path)
    dyn = str(tmp_path / "minilm_attention_dyn.onnx")
    quantize_dynamic(path, dyn, weight_type=QuantType.QInt8,
                     extra_options={"DefaultTensorType": TP.FLOAT})
    contrib = {n.op_type for n in onnx.load(dyn).graph.node if n.domain == "com.microsoft"}
    assert {"QAttention", "QEmbedLayerNormalization"} <= contrib, contrib
    # A padded row: its keys past the mask's ones get no attention.
    feeds = random_inputs("minilm", 2, 7, 5)
    feeds["attention_mask"][1, 4:] = 0

    def compiled(model, tag):
        kernels, got = compiled_minilm(nunc, tmp_path, model, tag, feeds)
        want = ort.InferenceSession(model, providers=["CPUExecutionProvider"]).run(None, feeds)[0]
        return kernels, got, want

    original, _, _ = compiled(os.path.join(models, "minilm.onnx"), "original")
    kernels, got, want = compiled(path, "attention")
    assert main_kernels(kernels) == main_kernels(original)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * np.abs(want).max())
    kernels, got, want = compiled(dyn, "attention_dyn")
    gemms = [k for k in kernels if k.startswith("gemm")]
    assert len(gemms) == 24 and all(k.startswith("gemm.int8.avx512vnni") for k in gemms), kernels
    assert sum(k.startswith("attention") for k in kernels) == 6, kernels
    cos = float((got * want).sum() / np.linalg.norm(got) / np.linalg.norm(want))
    assert cos > 0.99999 and np.abs(got - want).max() < 0.02 * np.abs(want).max(), \
        (cos, np.abs(got - want).max())


@pytest.mark.skipif(not VNNI, reason="the host lacks AVX-512 VNNI")
def test_transformer_optimized_minilm_with_multi_head_attention(nunc, models, tmp_path):
    """The same optimizer with use_multi_head_attention writes six
    MultiHeadAttention ops after separate Q, K and V MatMuls (their biases
    in the op): nunc compiles it to the original model's kernels (one Q/K/V
    GEMM, the attention kernel) with onnxruntime's outputs, and with
    `--quantize int8` to the int8 GEMMs."""
    path = transformer_optimized_minilm(models, tmp_path, multi_head=True)
    feeds = random_inputs("minilm", 2, 7, 5)
    feeds["attention_mask"][1, 4:] = 0
    want = ort.InferenceSession(path, providers=["CPUExecutionProvider"]).run(None, feeds)[0]

    def compiled(model, tag, *flags):
        return compiled_minilm(nunc, tmp_path, model, tag, feeds, *flags)

    original, _ = compiled(os.path.join(models, "minilm.onnx"), "original")
    kernels, got = compiled(path, "multi_head")
    assert main_kernels(kernels) == main_kernels(original)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * np.abs(want).max())
    kernels, got = compiled(path, "multi_head_int8", "--quantize", "int8")
    gemms = [k for k in kernels if k.startswith("gemm")]
    assert len(gemms) == 24 and all(k.startswith("gemm.int8.avx512vnni") for k in gemms), kernels
    assert sum(k.startswith("attention") for k in kernels) == 6, kernels
    cos = float((got * want).sum() / np.linalg.norm(got) / np.linalg.norm(want))
    assert cos > 0.999, cos
