"""ai.onnx Attention (opsets 23-25) compiled by nunc for every target and
compared with onnxruntime: 3-D heads with a bool mask that masks one
query's every key (nunc's fused attention kernel), grouped query heads with
a past cache and a causal mask (the present key and value too; fused where
the value heads are as large as the key heads), softcap
with each qk_matmul_output mode, and nonpad_kv_seqlen with a causal sliding
window."""
import json

import numpy as np
import onnx
import pytest
from onnx import helper as h

import harness
from test_compile import host_has
from test_graph_ops import TARGETS, check_against_onnxruntime

F, I64, B = onnx.TensorProto.FLOAT, onnx.TensorProto.INT64, onnx.TensorProto.BOOL


def compiled(nunc, tmp_path, target, model, feeds, name, *flags):
    """Compiles `model` for `target` (with `flags`) and runs the library on
    `feeds`: returns its manifest's kernels and its outputs."""
    path = str(tmp_path / f"{name}.onnx")
    onnx.save(model, path)
    out = tmp_path / target
    nunc("compile", path, "--target", target, *flags, "-o", out)
    kernels = json.loads((out / f"{name}.json").read_text())["kernels"]
    exe, man = harness.build(str(out))
    got, _, log = harness.run(exe, man, feeds, str(tmp_path / "w"))
    assert got is not None, log
    return kernels, got


def attention_model():
    """Returns the model and its feeds."""
    r = np.random.default_rng(11)
    feeds, inputs = {}, []

    def inp(name, shape, elem=F, value=None):
        inputs.append(h.make_tensor_value_info(name, elem, shape))
        feeds[name] = value if value is not None else r.standard_normal(shape).astype(np.float32)

    n = h.make_node
    nodes, outs = [], []
    # 3-D, 2 heads of 8, a bool mask [B, 1, S, T]: batch 1's query 2 sees no key.
    inp("q3", [2, 5, 16]); inp("k3", [2, 7, 16]); inp("v3", [2, 7, 16])
    mask = r.random((2, 1, 5, 7)) > 0.3
    mask[:, :, :, 0] = True
    mask[1, 0, 2, :] = False
    inp("m3", [2, 1, 5, 7], B, mask)
    nodes.append(n("Attention", ["q3", "k3", "v3", "m3"], ["y3"], q_num_heads=2,
                   kv_num_heads=2))
    outs.append("y3")
    # 4-D grouped query heads (6 on 2), a past of 4, causal, a scale.
    inp("qg", [1, 6, 3, 8]); inp("kg", [1, 2, 3, 8]); inp("vg", [1, 2, 3, 4])
    inp("pk", [1, 2, 4, 8]); inp("pv", [1, 2, 4, 4])
    nodes.append(n("Attention", ["qg", "kg", "vg", "", "pk", "pv"], ["yg", "kp", "vp"],
                   is_causal=1, scale=0.2))
    outs += ["yg", "kp", "vp"]
    # 4-D grouped query heads (8 on 2) of one head size, a past of 3, causal:
    # the fused kernel's heads-first, grouped path.
    inp("qq", [1, 8, 5, 16]); inp("kq", [1, 2, 5, 16]); inp("vq", [1, 2, 5, 16])
    inp("pkq", [1, 2, 3, 16]); inp("pvq", [1, 2, 3, 16])
    nodes.append(n("Attention", ["qq", "kq", "vq", "", "pkq", "pvq"], ["yq"], is_causal=1))
    outs.append("yq")
    # 3-D grouped heads with softcap and a float mask; every qk_matmul_output mode.
    inp("qc", [2, 4, 24]); inp("kc", [2, 6, 12]); inp("vc", [2, 6, 10])
    inp("mc", [2, 1, 4, 6])
    for mode in range(4):
        nodes.append(n("Attention", ["qc", "kc", "vc", "mc"], [f"yc{mode}", "", "", f"qk{mode}"],
                       q_num_heads=4, kv_num_heads=2, softcap=1.5,
                       qk_matmul_output_mode=mode))
        outs += [f"yc{mode}", f"qk{mode}"]
    # 4-D with a static cache: keys past nonpad_kv_seqlen are padding; causal
    # from each item's length, a left window of 2.
    inp("qn", [2, 2, 3, 8]); inp("kn", [2, 2, 8, 8]); inp("vn", [2, 2, 8, 8])
    inp("lengths", [2], I64, np.array([5, 8], np.int64))
    nodes.append(n("Attention", ["qn", "kn", "vn", "", "", "", "lengths"], ["yn"], is_causal=1,
                   left_window_size=2))
    outs.append("yn")
    graph = h.make_graph(nodes, "attention", inputs,
                         [h.make_tensor_value_info(o, F, None) for o in outs])
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", 25)])
    model.ir_version = 10
    return model, feeds


@pytest.mark.parametrize("target", TARGETS)
def test_attention_op_matches_onnxruntime(nunc, tmp_path, target):
    model, feeds = attention_model()
    want = harness.onnxruntime_outputs(model, feeds)
    # The fully masked query gives 0 (onnxruntime and ONNX's reference agree).
    np.testing.assert_array_equal(want["y3"][1, 2], 0)
    kernels, got = compiled(nunc, tmp_path, target, model, feeds, "att")
    ops = [k["op"] for k in kernels]
    # Fused: the 3-D one with as many key as query heads, the grouped one
    # with a past, and the one with nonpad_kv_seqlen (heads first); not
    # the one whose value heads are smaller, nor those with softcap.
    assert ops.count("nunc.attention") == 3, ops
    check_against_onnxruntime(got, want, rtol=1e-5, atol=2e-6)


@pytest.mark.parametrize("target", TARGETS)
def test_nan_scores_make_their_rows_nan(nunc, tmp_path, target):
    """A NaN in a key (a score NaN) makes the rows that see it NaN, as in
    onnxruntime, where the fused kernel's exponential and mask bounds once
    stepped over NaN and gave finite rows: without a mask (6 keys, the
    softmax in registers), causal over 300 keys (chunked rows), and with a
    float mask (the mask's base-2 bound); the other item stays finite."""
    r = np.random.default_rng(51)
    nodes, inputs, feeds = [], [], {}
    for i, (keys, dim, causal, masked) in enumerate(
            [(6, 16, 0, False), (300, 64, 1, False), (40, 32, 0, True)]):
        names = [f"{x}{i}" for x in "qkv"]
        shapes = [[2, 2, 4, dim], [2, 2, keys, dim], [2, 2, keys, dim]]
        for n, sh in zip(names, shapes):
            feeds[n] = r.uniform(-1, 1, sh).astype(np.float32)
        # (Key 2: causal rows see it or skip it in the first chunk, which
        # the kernel computes; a chunk skipped whole would leave it out.)
        feeds[names[1]][0, 1, 2, 5] = np.nan
        if masked:
            names.append(f"m{i}")
            shapes.append([4, keys])
            feeds[names[3]] = np.where(r.random((4, keys)) < 0.3, np.finfo(np.float32).min,
                                       0).astype(np.float32)
        inputs += [h.make_tensor_value_info(n, F, sh) for n, sh in zip(names, shapes)]
        nodes.append(h.make_node("Attention", names, [f"y{i}"], is_causal=causal))
    model = h.make_model(
        h.make_graph(nodes, "nan_keys", inputs,
                     [h.make_tensor_value_info(f"y{i}", F, None) for i in range(3)]),
        opset_imports=[h.make_opsetid("", 23)])
    model.ir_version = 10
    want = harness.onnxruntime_outputs(model, feeds)
    kernels, got = compiled(nunc, tmp_path, target, model, feeds, "nan_keys")
    assert [k["op"] for k in kernels].count("nunc.attention") == 3, kernels
    for name, w in want.items():
        assert np.isnan(w[0, 1]).any() and not np.isnan(w[1]).any(), name
        np.testing.assert_array_equal(np.isnan(got[name]), np.isnan(w), err_msg=name)
    check_against_onnxruntime(got, want, rtol=1e-5, atol=2e-6)


@pytest.mark.parametrize("target", TARGETS)
def test_attention_op_mask_shapes_match_onnx_reference(nunc, tmp_path, target):
    """Masks onnxruntime 1.32 refuses (its mask needs the query length in
    dim -2), against ONNX's reference implementation: a key padding mask
    [B, 1, 1, T] on 3-D heads that masks batch 1's every key (each of its
    queries gives 0), a per-head mask [H, S, T] on 3-D heads that masks
    one head's query whole, and a window that holds no key for the queries
    past the last key (S > T; the fused kernel's path)."""
    from onnx.reference import ReferenceEvaluator
    r = np.random.default_rng(12)
    pad = np.ones((2, 1, 1, 6), bool)
    pad[0, 0, 0, 4:] = False
    pad[1] = False
    per_head = r.standard_normal((3, 4, 6)).astype(np.float32)
    per_head[1, 2, :] = -np.inf
    feeds = {"q": r.standard_normal((2, 4, 12)).astype(np.float32),
             "k": r.standard_normal((2, 6, 12)).astype(np.float32),
             "v": r.standard_normal((2, 6, 12)).astype(np.float32),
             "q2": r.standard_normal((2, 4, 12)).astype(np.float32),
             "pad": pad, "per_head": per_head,
             "qw": r.standard_normal((2, 5, 12)).astype(np.float32),
             "kw": r.standard_normal((2, 2, 12)).astype(np.float32),
             "vw": r.standard_normal((2, 2, 12)).astype(np.float32)}
    nodes = [h.make_node("Attention", ["q", "k", "v", "pad"], ["y_pad"], q_num_heads=3,
                         kv_num_heads=3),
             h.make_node("Attention", ["q2", "k", "v", "per_head"], ["y_head"], q_num_heads=3,
                         kv_num_heads=3),
             h.make_node("Attention", ["qw", "kw", "vw"], ["y_window"], q_num_heads=3,
                         kv_num_heads=3, left_window_size=0)]
    outs = ("y_pad", "y_head", "y_window")
    inputs = [h.make_tensor_value_info(k, h.np_dtype_to_tensor_dtype(v.dtype), v.shape)
              for k, v in feeds.items()]
    model = h.make_model(h.make_graph(nodes, "masks", inputs,
                                      [h.make_tensor_value_info(o, F, None) for o in outs]),
                         opset_imports=[h.make_opsetid("", 25)])
    model.ir_version = 10
    want = dict(zip(outs, ReferenceEvaluator(model).run(None, feeds)))
    np.testing.assert_array_equal(want["y_pad"][1], 0)
    np.testing.assert_array_equal(want["y_head"][:, 2, 4:8], 0)
    np.testing.assert_array_equal(want["y_window"][:, 2:], 0)
    assert np.abs(want["y_window"][:, :2]).min() > 0
    kernels, got = compiled(nunc, tmp_path, target, model, feeds, "masks")
    ops = [k["op"] for k in kernels]
    # All three fused; the per-head mask's (its masked rows zeroed per head,
    # before the heads merge) leaves its result heads first.
    assert ops.count("nunc.attention") == 3, ops
    check_against_onnxruntime(got, want, rtol=1e-5, atol=2e-6)


def decoder_layer_model(batch=2, seq=5, past=6, heads=8, kv_heads=2, head_dim=16, block=False):
    """A decoder's attention as torch exports it (opset 17): Q, K and V
    projections split into heads, a rotary embedding on Q and K (heads
    first), the past concatenated, repeat_kv (Unsqueeze, Expand, Reshape),
    scaled_dot_product_attention's sqrt(scale) on Q and on K^T, a causal
    mask, the heads merged and projected. With `block`, the whole decoder
    block around it (Llama's): RMSNorm (Pow, ReduceMean, Add, Sqrt, Div,
    Mul), the attention, the residual, RMSNorm, a SwiGLU MLP 3x as wide
    (SiLU as x Sigmoid(x)), the residual. Returns the model and its feeds."""
    r = np.random.default_rng(21)
    e, ekv, total, group = heads * head_dim, kv_heads * head_dim, past + seq, heads // kv_heads
    inits, nodes = [], []

    def const(name, value):
        inits.append(onnx.numpy_helper.from_array(np.asarray(value), name))
        return name

    def node(op, inputs, **attrs):
        out = f"t{len(nodes)}"
        nodes.append(h.make_node(op, inputs, [out], **attrs))
        return out

    half = head_dim // 2
    angles = np.arange(past, total)[:, None] / 10000 ** (np.arange(half) / half)
    cos = const("cos", np.cos(np.concatenate([angles, angles], 1)).astype(np.float32))
    sin = const("sin", np.sin(np.concatenate([angles, angles], 1)).astype(np.float32))

    def rotary(x):
        lo = node("Slice", [x, const(f"s0_{x}", [0]), const(f"s1_{x}", [half]),
                            const(f"sa_{x}", [3])])
        hi = node("Slice", [x, const(f"s2_{x}", [half]), const(f"s3_{x}", [head_dim]),
                            const(f"sb_{x}", [3])])
        rotated = node("Concat", [node("Neg", [hi]), lo], axis=-1)
        return node("Add", [node("Mul", [x, cos]), node("Mul", [rotated, sin])])

    def rms_norm(x, name):
        mean = node("ReduceMean", [node("Pow", [x, const(f"two_{name}", np.float32(2))])],
                    axes=[-1], keepdims=1)
        root = node("Sqrt", [node("Add", [mean, const(f"eps_{name}", np.float32(1e-6))])])
        scale = const(f"g_{name}", (1 + 0.1 * r.standard_normal(e)).astype(np.float32))
        return node("Mul", [node("Mul", [x, node("Div", [const(f"one_{name}", np.float32(1)),
                                                          root])]), scale])

    attention_in = rms_norm("x", "attention") if block else "x"

    def project(width, n_heads, name):
        w = const(f"w{name}", (r.standard_normal((e, width)) / np.sqrt(e)).astype(np.float32))
        split = node("Reshape", [node("MatMul", [attention_in, w]),
                                 const(f"shape_{name}", [batch, seq, n_heads, head_dim])])
        return node("Transpose", [split], perm=[0, 2, 1, 3])

    q = rotary(project(e, heads, "q"))
    k = node("Concat", ["past_key", rotary(project(ekv, kv_heads, "k"))], axis=2)
    v = node("Concat", ["past_value", project(ekv, kv_heads, "v")], axis=2)
    nodes[-1].output[0] = "present_value"
    v = "present_value"
    # (present_key: an Identity, the Concat's result being read twice.)
    nodes.append(h.make_node("Identity", [k], ["present_key"]))

    def repeat(x):
        expanded = node("Expand", [node("Unsqueeze", [x, const(f"ax_{x}", [2])]),
                                   const(f"ex_{x}", [batch, kv_heads, group, total, head_dim])])
        return node("Reshape", [expanded, const(f"rs_{x}", [batch, heads, total, head_dim])])

    root = const("sqrt_scale", np.float32(1 / np.sqrt(np.sqrt(head_dim))))
    scores = node("MatMul", [node("Mul", [q, root]),
                             node("Mul", [node("Transpose", [repeat(k)], perm=[0, 1, 3, 2]),
                                          root])])
    causal = np.triu(np.full((seq, total), -np.inf, np.float32), past + 1)
    probs = node("Softmax", [node("Add", [scores, const("causal", causal)])], axis=-1)
    merged = node("Reshape", [node("Transpose", [node("MatMul", [probs, repeat(v)])],
                                   perm=[0, 2, 1, 3]), const("merged", [batch, seq, e])])
    wo = const("wo", (r.standard_normal((e, e)) / np.sqrt(e)).astype(np.float32))
    if block:
        hidden = node("Add", ["x", node("MatMul", [merged, wo])])
        normed = rms_norm(hidden, "mlp")
        f = 3 * e

        def weight(name, rows, cols):
            return const(name, (r.standard_normal((rows, cols)) / np.sqrt(rows)).astype(np.float32))

        gate = node("MatMul", [normed, weight("wg", e, f)])
        up = node("MatMul", [normed, weight("wu", e, f)])
        swiglu = node("Mul", [node("Mul", [gate, node("Sigmoid", [gate])]), up])
        nodes.append(h.make_node("Add", [hidden, node("MatMul", [swiglu, weight("wd", f, e)])],
                                 ["y"]))
    else:
        nodes.append(h.make_node("MatMul", [merged, wo], ["y"]))
    inputs = [h.make_tensor_value_info("x", F, [batch, seq, e]),
              h.make_tensor_value_info("past_key", F, [batch, kv_heads, past, head_dim]),
              h.make_tensor_value_info("past_value", F, [batch, kv_heads, past, head_dim])]
    outputs = [h.make_tensor_value_info(o, F, None) for o in ("y", "present_key", "present_value")]
    model = h.make_model(h.make_graph(nodes, "decoder", inputs, outputs, inits),
                         opset_imports=[h.make_opsetid("", 17)])
    model.ir_version = 8
    feeds = {"x": r.standard_normal((batch, seq, e)).astype(np.float32),
             "past_key": r.standard_normal((batch, kv_heads, past, head_dim)).astype(np.float32),
             "past_value": r.standard_normal((batch, kv_heads, past, head_dim)).astype(np.float32)}
    return model, feeds


@pytest.mark.parametrize("seq,past,block", [(5, 6, False), (1, 9, False), (5, 6, True)])
@pytest.mark.parametrize("target", TARGETS)
def test_exported_decoder_attention_is_fused(nunc, tmp_path, target, seq, past, block):
    """Prefill (5 tokens) and one step; a step's query heads are the rows of
    their key head's task. The whole decoder block too."""
    model, feeds = decoder_layer_model(seq=seq, past=past, block=block)
    want = harness.onnxruntime_outputs(model, feeds)
    kernels, got = compiled(nunc, tmp_path, target, model, feeds, "decoder")
    ops = [k["op"] for k in kernels]
    # One fused attention: heads-first Q, K and V, key heads not repeated;
    # no Softmax or Expand left.
    assert ops.count("nunc.attention") == 1, ops
    assert "nunc.softmax" not in ops and "nunc.expand" not in ops, ops
    assert ("as rows of their key head's task" in json.dumps(kernels)) == (seq == 1), kernels
    check_against_onnxruntime(got, want, rtol=1e-4, atol=2e-5)


@pytest.mark.skipif(not host_has("avx512_vnni"), reason="the host lacks AVX-512 VNNI")
@pytest.mark.parametrize("seq,past", [(5, 6), (1, 9)])
def test_int8_decoder_attention_on_int8_products(nunc, tmp_path, seq, past):
    """`--quantize int8` of the decoder block: its heads-first, grouped
    attention (8 query heads on 2 key heads) runs on int8 products too,
    each task quantizing its own key and value head (a step: a task per key
    head), and the block stays within int8's accuracy of onnxruntime fp32."""
    model, feeds = decoder_layer_model(seq=seq, past=past, block=True)
    want = harness.onnxruntime_outputs(model, feeds)
    kernels, got = compiled(nunc, tmp_path, "x86_64-avx512vnni", model, feeds, "decoder",
                            "--quantize", "int8")
    attention = [k["kernel"] for k in kernels if k["op"] == "nunc.attention"]
    assert len(attention) == 1 and "] int8 products" in attention[0], attention
    assert "KV=2 heads-first" in attention[0], attention
    # A step's task per key head quantizes its K and V once for its query
    # heads (each on a Q step of its own), as the f32 kernel transposes K once.
    assert ("as rows of their key head's task" in attention[0]) == (seq == 1), attention
    # Prefill: each block of rows skips the keys the causal mask leaves none
    # of its rows (their probabilities' codes are 0).
    assert ("rows skip the keys it masks" in attention[0]) == (seq > 1), attention
    a, b = (np.asarray(x, np.float64).ravel() for x in (got["y"], want["y"]))
    cos = a @ b / np.linalg.norm(a) / np.linalg.norm(b)
    assert cos >= 0.999, cos


@pytest.mark.parametrize("length", [200, 100])
@pytest.mark.parametrize("target", TARGETS)
def test_causal_attention_skips_masked_keys(nunc, tmp_path, target, length):
    """Causal grouped attention (8 heads of 16 on 2): the fused kernel skips
    the keys the causal mask leaves no row, and still equals onnxruntime.
    S = T = 200: rows take several chunks of keys; 100: on AVX-512 a row
    fits the registers, and each block of rows computes only the vectors
    of 16 keys it sees."""
    r = np.random.default_rng(31)
    shapes = {"q": [1, 8, length, 16], "k": [1, 2, length, 16], "v": [1, 2, length, 16]}
    feeds = {n: r.standard_normal(s).astype(np.float32) for n, s in shapes.items()}
    node = h.make_node("Attention", ["q", "k", "v"], ["y"], is_causal=1)
    model = h.make_model(h.make_graph([node], "causal",
                                      [h.make_tensor_value_info(n, F, s)
                                       for n, s in shapes.items()],
                                      [h.make_tensor_value_info("y", F, None)]),
                         opset_imports=[h.make_opsetid("", 23)])
    model.ir_version = 10
    want = harness.onnxruntime_outputs(model, feeds)
    kernels, got = compiled(nunc, tmp_path, target, model, feeds, "causal")
    assert [k["op"] for k in kernels] == ["nunc.attention"], kernels
    assert "rows skip the keys it masks" in json.dumps(kernels), kernels
    check_against_onnxruntime(got, want, rtol=1e-5, atol=2e-6)


@pytest.mark.parametrize("keys", [20, 300])
@pytest.mark.parametrize("target", TARGETS)
def test_constant_mask_that_masks_one_items_row_whole(nunc, tmp_path, target, keys):
    """A constant per-item mask (the lowest float past key 5) that also
    masks item 1's query row 2 whole: onnxruntime averages that row's
    values (a softmax of equal logits), and the fused kernel must not take
    the other item's 5 keys for it. 20 keys: P V trimmed; 300: the scores'
    chunks skipped too."""
    r = np.random.default_rng(41)
    b, heads, s, d = 2, 2, 4, 16
    lowest = np.finfo(np.float32).min
    mask = np.zeros((b, 1, s, keys), np.float32)
    mask[:, 0, :, 5:] = lowest
    mask[1, 0, 2, :] = lowest
    shapes = {"q": [b, heads, s, d], "k": [b, heads, keys, d], "v": [b, heads, keys, d]}
    feeds = {n: r.standard_normal(sh).astype(np.float32) for n, sh in shapes.items()}
    inits = [onnx.numpy_helper.from_array(mask, "mask"),
             onnx.numpy_helper.from_array(np.float32(0.25), "scale")]
    n = h.make_node
    nodes = [n("Transpose", ["k"], ["kt"], perm=[0, 1, 3, 2]), n("MatMul", ["q", "kt"], ["s"]),
             n("Mul", ["s", "scale"], ["scaled"]), n("Add", ["scaled", "mask"], ["logits"]),
             n("Softmax", ["logits"], ["p"], axis=-1), n("MatMul", ["p", "v"], ["y"])]
    model = h.make_model(h.make_graph(nodes, "masked", [h.make_tensor_value_info(k, F, v)
                                                        for k, v in shapes.items()],
                                      [h.make_tensor_value_info("y", F, None)], inits),
                         opset_imports=[h.make_opsetid("", 17)])
    model.ir_version = 8
    want = harness.onnxruntime_outputs(model, feeds)
    np.testing.assert_allclose(want["y"][1, :, 2], feeds["v"][1].mean(1), atol=1e-5)
    kernels, got = compiled(nunc, tmp_path, target, model, feeds, "masked")
    assert [k["op"] for k in kernels] == ["nunc.attention"], kernels
    check_against_onnxruntime(got, want, rtol=1e-5, atol=2e-6)
