"""onnxruntime's block-quantized MatMul (com.microsoft MatMulNBits) compiled
by nunc and compared with onnxruntime's own kernel (CPU).

MatMulNBits is what onnxruntime's weight-only quantizers write (its
MatMulNBitsQuantizer: 2-, 4- or 8-bit codes in blocks of block_size along K,
each block with a scale and an optional zero point; GPTQ's act order as
g_idx; HQQ's float zero points). nunc dequantizes the weight at import and
compiles the f32 MatMul (+ bias) it stands for, so:

- hand-packed nodes (codes packed low bits first, as the contrib op's spec
  says; K not a multiple of the block, packed zero points of 2, 4 and 8
  bits, float zero points, g_idx, bias, A of rank 2 and 3, float16 A) match
  onnxruntime within f32 summation order (rtol 1e-5 of the output's scale);
- accuracy_level 4 (onnxruntime may then quantize A to int8) is a hint
  nunc does not follow: its output matches level 0;
- the example MiniLM through MatMulNBitsQuantizer (4-bit, block 32, RTN)
  compiles, tracks onnxruntime's run of it, and with `--quantize int8` its
  dequantized weights become s8 again (the GEMMs run int8: `--explain`) with
  the accuracy of nunc's int8 on the original model;
- an A16W8 QDQ layer (u16 activations, s8 weights) through onnxruntime's
  EXTENDED optimizer, which writes its weight as an 8-bit MatMulNBits at
  accuracy_level 4 with a weight_prepacked attribute, compiles to the
  model's own values: onnxruntime's unoptimized run of the QDQ model;
- a B that is not an initializer is a located error (the other malformed
  forms: test/Import/bad-matmul-nbits.onnxtxt).

Every library runs on 1 and 2 threads.
"""
import zlib

import numpy as np
import onnx
import pytest
from onnx import TensorProto as TP
from onnx import helper as h
from onnx import numpy_helper as nh

import harness
from test_compile import host_has

CONTRIB = [h.make_opsetid("", 17), h.make_opsetid("com.microsoft", 1)]


def pack(codes, bits):
    """[rows][n] codes of `bits` bits -> [rows][n * bits / 8] bytes, low
    bits first (n a multiple of 8 / bits)."""
    per = 8 // bits
    v = codes.reshape(codes.shape[0], -1, per).astype(np.int64)
    out = np.zeros(v.shape[:2], np.int64)
    for j in range(per):
        out |= v[..., j] << (j * bits)
    return out.astype(np.uint8)


def nbits_model(rng, k, n, bits, block, a_shape, zero_points=None, g_idx=False, bias=False,
                dtype=np.float32, level=0):
    """g_idx: True (K entries) or "padded" (K rounded up to whole blocks, as
    onnxruntime also takes)."""
    """One MatMulNBits node "mm" with random codes and scales; returns the
    model and the f64 weight [K][N] it stands for."""
    blocks = -(-k // block)
    codes = rng.integers(0, 2 ** bits, (n, k))
    padded = np.zeros((n, blocks * block), np.int64)
    padded[:, :k] = codes
    b = pack(padded, bits).reshape(n, blocks, block * bits // 8)
    scales = (rng.random((n, blocks)) * 0.1 + 0.01).astype(dtype)
    inits = {"B": b, "scales": scales.reshape(-1)}
    ins = ["A", "B", "scales"]
    zp = np.full((n, blocks), 2.0 ** (bits - 1))
    if zero_points == "packed":
        zq = rng.integers(0, 2 ** bits, (n, blocks))
        per = 8 // bits
        row = np.zeros((n, -(-blocks // per) * per), np.int64)
        row[:, :blocks] = zq
        inits["zero_points"] = pack(row, bits).reshape(-1)
        zp = zq.astype(np.float64)
    elif zero_points == "float":
        zf = (rng.random((n, blocks)) * 2 ** bits).astype(dtype)
        inits["zero_points"] = zf.reshape(-1)
        zp = zf.astype(np.float64)
    ins.append("zero_points" if zero_points else "")
    block_of = np.arange(k) // block
    if g_idx:
        block_of = rng.permutation(np.arange(k) % blocks)
        stored = block_of
        if g_idx == "padded":
            stored = np.concatenate([block_of, np.zeros(blocks * block - k, np.int64)])
        inits["g_idx"] = stored.astype(np.int32)
    ins.append("g_idx" if g_idx else "")
    if bias:
        inits["bias"] = rng.standard_normal(n).astype(dtype)
    ins.append("bias" if bias else "")
    while ins[-1] == "":
        ins.pop()
    elem = TP.FLOAT if dtype == np.float32 else TP.FLOAT16
    node = h.make_node("MatMulNBits", ins, ["y"], name="mm", domain="com.microsoft", K=k, N=n,
                       bits=bits, block_size=block, accuracy_level=level)
    g = h.make_graph([node], "nbits", [h.make_tensor_value_info("A", elem, a_shape)],
                     [h.make_tensor_value_info("y", elem, None)],
                     [nh.from_array(v, name) for name, v in inits.items()])
    model = h.make_model(g, opset_imports=CONTRIB)
    model.ir_version = 8
    w = (codes - zp[:, block_of]) * scales.astype(np.float64)[:, block_of]
    return model, w.T


def compile_and_run(nunc, tmp_path, model, feeds, *options):
    """{threads: outputs} of the compiled model, and nunc's result."""
    path = tmp_path / "model.onnx"
    onnx.save(model, str(path))
    r = nunc("compile", path, "-o", tmp_path / "out", *options)
    exe, manifest = harness.build(str(tmp_path / "out"))
    return harness.run_threads(exe, manifest, feeds, tmp_path), r


CASES = {
    # bits, block, K, N, A's shape, zero points, g_idx, bias
    "4bit": (4, 32, 64, 48, [3, 64], None, False, False),
    "4bit_k_not_a_multiple_packed_zp_bias_rank3": (4, 16, 100, 17, [2, 5, 100], "packed", False,
                                                   True),
    "8bit_packed_zp": (8, 32, 96, 33, [1, 96], "packed", False, False),
    "2bit_packed_zp_odd_blocks": (2, 64, 130, 7, [4, 130], "packed", False, True),
    "4bit_float_zp": (4, 128, 256, 64, [1, 7, 256], "float", False, False),
    "4bit_g_idx": (4, 16, 64, 24, [5, 64], None, True, True),
    "4bit_g_idx_float_zp": (4, 32, 96, 9, [2, 96], "float", True, False),
    "4bit_g_idx_padded": (4, 32, 100, 9, [2, 100], None, "padded", True),
}


@pytest.mark.parametrize("case", list(CASES))
def test_matches_onnxruntime(nunc, tmp_path, case):
    bits, block, k, n, a_shape, zp, g_idx, bias = CASES[case]
    rng = np.random.default_rng(zlib.crc32(case.encode()))
    model, w = nbits_model(rng, k, n, bits, block, a_shape, zp, g_idx, bias)
    feeds = {"A": rng.standard_normal(a_shape).astype(np.float32)}
    want = harness.onnxruntime_outputs(model, feeds)["y"]
    # onnxruntime computes what the spec says: the f64 product with the
    # dequantized weight (a check of this test's packing, too).
    exact = feeds["A"].astype(np.float64) @ w
    if bias:
        exact = exact + nh.to_array(
            next(t for t in model.graph.initializer if t.name == "bias"))
    scale = np.abs(exact).max()
    assert np.abs(want - exact).max() <= 1e-5 * scale
    results, _ = compile_and_run(nunc, tmp_path, model, feeds)
    for threads, outs in results.items():
        got = outs["y"]
        assert got.shape == want.shape and got.dtype == want.dtype
        err = np.abs(got.astype(np.float64) - want).max()
        assert err <= 1e-5 * scale, f"{threads} threads: max |nunc - ort| {err:.3g} of {scale:.3g}"


def test_g_idx_with_packed_zero_points(nunc, tmp_path):
    """g_idx picks each row's block, for its scale and its zero point, as the
    contrib op's spec says. onnxruntime 1.32 reads no uint8 zero point when
    g_idx is given (its output is that of zero point 2^(bits - 1)), so the
    reference here is the spec's f64 product."""
    rng = np.random.default_rng(5)
    model, w = nbits_model(rng, 64, 24, 4, 16, [5, 64], "packed", g_idx=True, bias=False)
    feeds = {"A": rng.standard_normal((5, 64)).astype(np.float32)}
    exact = feeds["A"].astype(np.float64) @ w
    results, _ = compile_and_run(nunc, tmp_path, model, feeds)
    for outs in results.values():
        err = np.abs(outs["y"] - exact).max()
        assert err <= 1e-5 * np.abs(exact).max(), err


def test_accuracy_level_4_is_a_hint(nunc, tmp_path):
    """onnxruntime may run level 4 with A quantized to int8; nunc computes the
    f32 product either way, as onnxruntime does at level 0."""
    rng = np.random.default_rng(7)
    model, _ = nbits_model(rng, 128, 40, 4, 32, [3, 128], "packed", level=4)
    feeds = {"A": rng.standard_normal((3, 128)).astype(np.float32)}
    level0 = onnx.ModelProto()
    level0.CopyFrom(model)
    for a in level0.graph.node[0].attribute:
        if a.name == "accuracy_level":
            a.i = 0
    want = harness.onnxruntime_outputs(level0, feeds)["y"]
    results, _ = compile_and_run(nunc, tmp_path, model, feeds)
    for outs in results.values():
        np.testing.assert_allclose(outs["y"], want, rtol=1e-5, atol=1e-5 * np.abs(want).max())


def test_float16_a(nunc, tmp_path):
    rng = np.random.default_rng(11)
    model, _ = nbits_model(rng, 64, 16, 4, 32, [3, 64], "packed", bias=True, dtype=np.float16)
    feeds = {"A": rng.standard_normal((3, 64)).astype(np.float16)}
    want = harness.onnxruntime_outputs(model, feeds)["y"]
    results, _ = compile_and_run(nunc, tmp_path, model, feeds)
    for outs in results.values():
        assert outs["y"].dtype == np.float16
        # Both round the f32 (nunc) or f16 (onnxruntime) sums to f16.
        np.testing.assert_allclose(outs["y"].astype(np.float32), want.astype(np.float32),
                                   rtol=2e-3, atol=2e-3 * np.abs(want).max())


def test_b_must_be_an_initializer(nunc, tmp_path):
    node = h.make_node("MatMulNBits", ["A", "B", "scales"], ["y"], name="mm",
                       domain="com.microsoft", K=32, N=4, bits=4, block_size=32)
    g = h.make_graph([node], "nbits",
                     [h.make_tensor_value_info("A", TP.FLOAT, [1, 32]),
                      h.make_tensor_value_info("B", TP.UINT8, [4, 1, 16])],
                     [h.make_tensor_value_info("y", TP.FLOAT, None)],
                     [nh.from_array(np.ones(4, np.float32), "scales")])
    model = h.make_model(g, opset_imports=CONTRIB)
    model.ir_version = 8
    onnx.save(model, str(tmp_path / "m.onnx"))
    r = nunc("compile", tmp_path / "m.onnx", "-o", tmp_path / "out", check=False)
    assert r.returncode == 1
    assert ('node "mm" (com.microsoft.MatMulNBits, opset 1): error: MatMulNBits needs B as an '
            'initializer') in r.stderr


@pytest.fixture(scope="module")
def minilm_4bit(models, tmp_path_factory):
    """The example MiniLM with every MatMul (constant weight) quantized by
    onnxruntime's MatMulNBitsQuantizer: 4 bits, block 32, symmetric RTN."""
    from onnxruntime.quantization.matmul_nbits_quantizer import (
        DefaultWeightOnlyQuantConfig, MatMulNBitsQuantizer)
    model = onnx.load(f"{models}/minilm.onnx")
    config = DefaultWeightOnlyQuantConfig(block_size=32, is_symmetric=True, bits=4)
    quantizer = MatMulNBitsQuantizer(model, algo_config=config)
    quantizer.process()
    q = quantizer.model.model
    assert sum(n.op_type == "MatMulNBits" for n in q.graph.node) == 36
    path = tmp_path_factory.mktemp("minilm4") / "minilm_4bit.onnx"
    onnx.save(q, str(path))
    return path


def minilm_feeds(seq=16):
    rng = np.random.default_rng(3)
    return {"input_ids": rng.integers(0, 30522, (1, seq)).astype(np.int64),
            "attention_mask": np.ones((1, seq), np.int64),
            "token_type_ids": np.zeros((1, seq), np.int64)}


def cosine(a, b):
    a, b = a.astype(np.float64).ravel(), b.astype(np.float64).ravel()
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def test_minilm_4bit_f32(nunc, tmp_path, minilm_4bit):
    feeds = minilm_feeds()
    want = harness.onnxruntime_outputs(onnx.load(str(minilm_4bit)), feeds)
    results, _ = compile_and_run(nunc, tmp_path, onnx.load(str(minilm_4bit)), feeds,
                                 "--shape", "batch=1", "--shape", "sequence=16")
    for threads, outs in results.items():
        for name, ref in want.items():
            err = np.abs(outs[name] - ref).max()
            assert err <= 1e-4 * np.abs(ref).max(), f"{name}, {threads} threads: {err:.3g}"


def test_minilm_4bit_int8(nunc, tmp_path, minilm_4bit):
    feeds = minilm_feeds()
    want = harness.onnxruntime_outputs(onnx.load(str(minilm_4bit)), feeds)
    results, r = compile_and_run(nunc, tmp_path, onnx.load(str(minilm_4bit)), feeds,
                                 "--shape", "batch=1", "--shape", "sequence=16",
                                 "--quantize", "int8", "--explain")
    assert r.stdout.count("gemm.int8") >= 24, r.stdout[-3000:]
    for threads, outs in results.items():
        for name, ref in want.items():
            assert cosine(outs[name], ref) >= 0.99, f"{name}, {threads} threads"


@pytest.mark.parametrize("symmetric", [True, False])
def test_minilm_4bit_qdq_blocks(nunc, tmp_path, models, symmetric):
    """MatMulNBitsQuantizer in QDQ form (quant_format QDQ): each weight an
    INT4 / UINT4 initializer behind a DequantizeLinear with block_size 32
    along K (opset 21). nunc dequantizes those at import, as it does
    MatMulNBits' blocks: f32 MatMuls, within 1e-4 of onnxruntime's run of
    the model as written (graph optimizations off). Its optimized run
    fuses each pair into a MatMulNBits of accuracy level 4 (its session
    option's default: A quantized to 8 bits), ~1 % of the output's range
    away from both."""
    from onnxruntime.quantization import QuantFormat
    from onnxruntime.quantization.matmul_nbits_quantizer import (
        DefaultWeightOnlyQuantConfig, MatMulNBitsQuantizer)
    model = onnx.load(f"{models}/minilm.onnx")
    config = DefaultWeightOnlyQuantConfig(block_size=32, is_symmetric=symmetric, bits=4,
                                          quant_format=QuantFormat.QDQ)
    quantizer = MatMulNBitsQuantizer(model, algo_config=config)
    quantizer.process()
    q = quantizer.model.model
    blocked = [n for n in q.graph.node if n.op_type == "DequantizeLinear" and
               any(a.name == "block_size" and a.i == 32 for a in n.attribute)]
    assert len(blocked) == 36
    four_bit = TP.INT4 if symmetric else TP.UINT4
    assert sum(t.data_type == four_bit for t in q.graph.initializer) >= 36
    import onnxruntime as ort
    feeds = minilm_feeds()
    plain = ort.SessionOptions()
    plain.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    plain.log_severity_level = 3
    sess = ort.InferenceSession(q.SerializeToString(), plain, providers=["CPUExecutionProvider"])
    want = dict(zip([o.name for o in sess.get_outputs()], sess.run(None, feeds)))
    results, r = compile_and_run(nunc, tmp_path, q, feeds, "--shape", "batch=1",
                                 "--shape", "sequence=16", "--explain")
    assert "dequantize_linear" not in r.stderr + r.stdout
    for threads, outs in results.items():
        for name, ref in want.items():
            err = np.abs(outs[name] - ref).max()
            assert err <= 1e-4 * np.abs(ref).max(), f"{name}, {threads} threads: {err:.3g}"


@pytest.mark.skipif(not host_has("avx512_vnni"), reason="the host lacks AVX-512 VNNI")
@pytest.mark.parametrize("per_channel", [False, True])
def test_a16w8_through_onnxruntime_extended_optimizer(nunc, tmp_path, per_channel):
    """quantize_static's A16W8 layer saved by onnxruntime's EXTENDED graph
    optimizer: the s8 weight and its DequantizeLinear become MatMulNBits
    (bits 8, accuracy_level 4, weight_prepacked 0) between the u16 Q/DQ
    pairs. Its blocks share each column's scale, so nunc keeps the codes
    and runs the int8 GEMM with the u16 input, as for the QDQ model itself;
    the output is within one step of its u16 grid of onnxruntime's run of
    the QDQ model as ONNX defines it (optimizations off; the GEMM's
    requantizing epilogue may round a near-tie the other way). onnxruntime's
    own run of the optimized model is further off (measured 0.011 of 3.3,
    ~200 steps: at level 4 it quantizes A to 8 bits)."""
    from onnxruntime.quantization import QuantFormat, QuantType, quantize_static
    import onnxruntime as ort
    from test_int8 import Samples, one_layer_model
    one_layer_model(str(tmp_path / "f32.onnx"), 8, 128, 64, 8, bias=True)
    r = np.random.default_rng(9)
    calib = [{"x": r.standard_normal((8, 128)).astype(np.float32)} for _ in range(4)]
    quantize_static(str(tmp_path / "f32.onnx"), str(tmp_path / "q.onnx"), Samples(calib),
                    quant_format=QuantFormat.QDQ, activation_type=QuantType.QUInt16,
                    weight_type=QuantType.QInt8, per_channel=per_channel,
                    extra_options={"UseQDQContribOps": True})
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
    so.optimized_model_filepath = str(tmp_path / "opt.onnx")
    ort.InferenceSession(str(tmp_path / "q.onnx"), so, providers=["CPUExecutionProvider"])
    optimized = onnx.load(str(tmp_path / "opt.onnx"))
    nbits = [n for n in optimized.graph.node if n.op_type == "MatMulNBits"]
    assert len(nbits) == 1 and h.get_attribute_value(
        next(a for a in nbits[0].attribute if a.name == "bits")) == 8, optimized.graph.node
    plain = ort.SessionOptions()
    plain.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    feeds = {"x": r.standard_normal((8, 128)).astype(np.float32)}
    defined = ort.InferenceSession(str(tmp_path / "q.onnx"), plain,
                                   providers=["CPUExecutionProvider"]).run(None, feeds)[0]
    results, r = compile_and_run(nunc, tmp_path, optimized, feeds, "--explain")
    assert "gemm.int8.avx512vnni[8x64x128, static, u16 in]" in r.stdout, r.stdout
    inits = {t.name: nh.to_array(t) for t in optimized.graph.initializer}
    out_dq = next(n for n in optimized.graph.node if n.output[0] == optimized.graph.output[0].name)
    step = float(inits[out_dq.input[1]])
    for outs in results.values():
        got = next(iter(outs.values()))
        assert np.abs(got - defined).max() <= step * 1.001, np.abs(got - defined).max() / step
