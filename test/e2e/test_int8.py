"""End to end through `nunc compile --quantize int8` (weights s8 per output
channel, activations u8 per row at run time, AVX-512 VNNI GEMMs): the int8
library stays close to the f32 model run by onnxruntime, the evaluator's
int8 semantics match the compiled kernels, and targets without int8 kernels
are refused with a clear error."""
import json
import os
import re
import shutil

import numpy as np
import pytest

import harness
from make_models import random_inputs
from test_compile import host_has, pins, reference

VNNI = host_has("avx512_vnni")


def assert_fused_projections(gemms, layers=6, hidden=384):
    """MiniLM's 36 MatMuls as GEMM kernels: per layer, Q, K and V in one
    GEMM of 3 x hidden columns (nunc-fuse-attention-projections), then the
    attention output, FFN1 and FFN2."""
    assert len(gemms) == 4 * layers, gemms
    fused = [k for k in gemms if f"x{3 * hidden}x{hidden}" in k]
    assert len(fused) == layers, gemms


def cosine(a, b):
    a, b = a.astype(np.float64).ravel(), b.astype(np.float64).ravel()
    return float(a @ b / np.linalg.norm(a) / np.linalg.norm(b))


@pytest.mark.skipif(not VNNI, reason="the host lacks AVX-512 VNNI")
@pytest.mark.parametrize("name,batch,seq", [("minilm", 1, 128), ("minilm", 2, 17),
                                            ("bert", 1, 32), ("mlp", 3, None)])
def test_int8_library_tracks_float(nunc, models, tmp_path, name, batch, seq):
    r = nunc("compile", os.path.join(models, f"{name}.onnx"), "--target", "x86_64-avx512vnni",
             "--quantize", "int8", *pins(name, batch, seq), "-o", tmp_path)
    coverage = {"minilm": "int8: 36 linear ops, 6 attentions on int8 codes, 1 embedding table\n",
                "bert": "int8: 72 linear ops, 12 attentions on int8 codes, 1 embedding table\n",
                "mlp": "int8: 2 linear ops, 0 embedding tables; 1 linear op left in f32"}[name]
    assert coverage in r.stderr, r.stderr
    manifest = json.loads((tmp_path / f"{name}.json").read_text())
    assert manifest["quantization"] == "int8-dynamic"
    kernels = [k["kernel"] for k in manifest["kernels"]]
    assert any(k.startswith("gemm.int8.avx512vnni") for k in kernels)
    if name != "mlp":  # the MLP's 128x10 head is below the pass's min-macs: it stays f32
        assert not any(k.startswith("gemm.avx512") for k in kernels), "a linear op stayed f32"
        # GEMM weights and the word-embedding table in s8: about a quarter
        # of the model's f32 bytes.
        import onnx
        from onnx import numpy_helper as nh
        f32_bytes = sum(nh.to_array(i).nbytes
                        for i in onnx.load(os.path.join(models, f"{name}.onnx")).graph.initializer)
        assert manifest["weight_bytes"] <= 0.3 * f32_bytes, (manifest["weight_bytes"], f32_bytes)
        # Each attention's Q K^T and P V on int8 codes (nunc-quantize-attention).
        attentions = [k for k in kernels if k.startswith("attention.")]
        assert attentions and all("] int8 products" in k for k in attentions), attentions
        gathers = [k for k in manifest["kernels"] if k["op"] == "nunc.gather"]
        hidden = {"minilm": 384, "bert": 768}[name]
        assert any(f"of {hidden} B from 30522" in k["kernel"] for k in gathers), gathers
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


@pytest.mark.skipif(not VNNI, reason="the host lacks AVX-512 VNNI")
def test_compiled_int8_cnn_equals_the_evaluator(nunc, models, tmp_path):
    """The int8 convolution kernels compute the evaluator's quantized_conv
    semantics exactly (the same u8 input, exact integer sums, the same f32
    operations after: bit for bit in the kernel test); through ResNet only
    the f32 global average pool sums in another order, and the classifier's
    per-row quantization scales by its max: a few ulp at the output."""
    feeds = random_inputs("resnet", 1, None, 8)
    np.savez(tmp_path / "in.npz", **feeds)
    common = [os.path.join(models, "resnet.onnx"), "--input", tmp_path / "in.npz",
              *pins("resnet", 1, None), "--quantize", "int8"]
    nunc("run", *common, "-o", tmp_path / "jit.npz")
    nunc("run", "--reference", *common, "-o", tmp_path / "ref.npz")
    a, b = np.load(tmp_path / "jit.npz"), np.load(tmp_path / "ref.npz")
    for key in a.files:
        np.testing.assert_allclose(a[key], b[key], rtol=1e-5, atol=1e-6 * np.abs(b[key]).max())


@pytest.mark.skipif(not host_has("avx2"), reason="the host lacks AVX2")
@pytest.mark.parametrize("target", ["x86_64-avx2", "x86_64-avx512"])
def test_int8_without_vnni_uses_the_avx2_kernels(nunc, models, tmp_path, target):
    """Targets without VNNI get the exact 16-bit AVX2 int8 GEMM: the same
    integers as the VNNI kernel, so the library follows the evaluator's int8
    semantics to float rounding, and fp32 to int8 accuracy. Their attention
    stays f32 (int8 products need AVX-512 VNNI): the evaluator's likewise."""
    nunc("compile", os.path.join(models, "minilm.onnx"), "--target", target,
         "--quantize", "int8", *pins("minilm", 1, 32), "-o", tmp_path / "out")
    manifest = json.loads((tmp_path / "out" / "minilm.json").read_text())
    gemms = [k["kernel"] for k in manifest["kernels"] if k["op"] == "nunc.quantized_linear"]
    assert_fused_projections(gemms)
    assert all(k.startswith("gemm.int8.avx2[") for k in gemms), gemms
    exe, man = harness.build(str(tmp_path / "out"))
    feeds = random_inputs("minilm", 1, 32, 4)
    outs, _, log = harness.run(exe, man, feeds, str(tmp_path / "w"), threads=2)
    assert outs is not None, log
    np.savez(tmp_path / "in.npz", **feeds)
    assert not any(" int8 products" in k["kernel"] for k in manifest["kernels"])
    nunc("run", "--reference", os.path.join(models, "minilm.onnx"), "--input",
         tmp_path / "in.npz", *pins("minilm", 1, 32), "--quantize", "int8", "--attention",
         "f32", "-o", tmp_path / "ref.npz")
    ref = np.load(tmp_path / "ref.npz")["last_hidden_state"]
    got = outs["last_hidden_state"]
    assert cosine(got, ref) >= 0.99999, cosine(got, ref)
    assert cosine(got, reference(models, "minilm", feeds)["last_hidden_state"]) >= 0.999


@pytest.mark.parametrize("target,flag,family", [("x86_64-amx", "amx_int8", "amx"),
                                                 ("x86_64-avxvnni", "avx_vnni", "avxvnni")])
def test_amx_and_avxvnni_targets(nunc, models, tmp_path, target, flag, family):
    """The AMX and AVX-VNNI targets put every int8 GEMM on their kernels. On a
    host with the feature the library gives bit for bit the outputs of the
    library whose integers and f32 code it shares: AMX the x86_64-avx512vnni
    one (same integers, same AVX-512 epilogue), AVX-VNNI the x86_64-avx2 one
    (same integers, same AVX2 f32 code around them; the AVX-512 library
    differs where an f32 difference moves a dynamic row quantization by a
    step; compiled with --attention f32 there, as AVX2 has no int8
    attention, while its default library, attention on int8 products, is
    checked against fp32). On a host without it, init refuses with the
    missing feature named (the kernels themselves are checked under
    emulation in the unit tests)."""
    twin = "x86_64-avx512vnni" if family == "amx" else "x86_64-avx2"
    if family == "amx" and not VNNI:
        pytest.skip("the host lacks AVX-512 VNNI (the AMX library's twin)")
    libs = {}
    # AVX2's attention stays f32 (no vpdpbusd): AVX-VNNI's twin keeps it too.
    twin_flags = ("--attention", "f32") if family == "avxvnni" else ()
    for t in (target, twin):
        nunc("compile", os.path.join(models, "minilm.onnx"), "--target", t, "--quantize", "int8",
             *pins("minilm", 1, 32), *(twin_flags if t == target else ()), "-o", tmp_path / t)
        libs[t] = harness.build(str(tmp_path / t))
    # The default AVX-VNNI library: attention on int8 products, ymm.
    if family == "avxvnni":
        nunc("compile", os.path.join(models, "minilm.onnx"), "--target", target, "--quantize",
             "int8", *pins("minilm", 1, 32), "-o", tmp_path / "int8-attention")
        kernels = [k["kernel"] for k in json.loads(
            (tmp_path / "int8-attention" / "minilm.json").read_text())["kernels"]]
        assert sum(k.startswith("attention.avxvnni[") and "] int8 products" in k
                   for k in kernels) == 6, kernels
        libs["int8-attention"] = harness.build(str(tmp_path / "int8-attention"))
    manifest = json.loads((tmp_path / target / "minilm.json").read_text())
    gemms = [k["kernel"] for k in manifest["kernels"] if k["op"] == "nunc.quantized_linear"]
    assert_fused_projections(gemms)
    assert all(k.startswith(f"gemm.int8.{family}[") for k in gemms), gemms
    feeds = random_inputs("minilm", 1, 32, 6)
    outs, _, log = harness.run(*libs[target], feeds, str(tmp_path / "w"))
    if not host_has(flag):
        assert outs is None and f"init 3 the CPU lacks: {family}" in log, log
        return
    assert outs is not None, log
    want, _, log = harness.run(*libs[twin], feeds, str(tmp_path / "v"))
    assert want is not None, log
    got = outs["last_hidden_state"]
    np.testing.assert_array_equal(got, want["last_hidden_state"])
    c = cosine(got, reference(models, "minilm", feeds)["last_hidden_state"])
    assert c >= 0.999, c
    if family == "avxvnni":
        outs, _, log = harness.run(*libs["int8-attention"], feeds, str(tmp_path / "i"))
        assert outs is not None, log
        c = cosine(outs["last_hidden_state"],
                   reference(models, "minilm", feeds)["last_hidden_state"])
        assert c >= 0.999, c


def test_int8_option_errors(nunc, models, tmp_path):
    r = nunc("compile", os.path.join(models, "mlp.onnx"), "--quantize", "int4",
             *pins("mlp", 1, None), "-o", tmp_path, check=False)
    assert r.returncode == 1 and "--quantize must be none or int8" in r.stderr
    r = nunc("compile", os.path.join(models, "mlp.onnx"), "--activations", "static",
             *pins("mlp", 1, None), "-o", tmp_path, check=False)
    assert r.returncode == 1 and "--activations static goes with --quantize int8" in r.stderr, r.stderr
    assert not (tmp_path / "libmlp.a").exists()
    for flags, message in ((("--quantize", "int8", "--attention", "int4"),
                            "--attention must be int8 or f32, got 'int4'"),
                           (("--attention", "f32"), "--attention goes with --quantize int8")):
        for command in ("compile", "run"):
            out = ("-o", tmp_path) if command == "compile" else ("--random-inputs",)
            r = nunc(command, os.path.join(models, "mlp.onnx"), *flags, *pins("mlp", 1, None),
                     *out, check=False)
            assert r.returncode == 1 and message in r.stderr, (command, r.stderr)
    assert not (tmp_path / "libmlp.a").exists()
    # An int8 GEMM has only x86 kernels, which need rows: an empty batch is
    # a located error, not a crash (an f32 GEMM takes the generic kernel).
    r = nunc("compile", os.path.join(models, "mlp.onnx"), "--quantize", "int8", "--target",
             "x86_64-avx512vnni", "--shape", "batch=0", "-o", tmp_path, check=False)
    assert r.returncode == 1 and 'node "/fc1/Gemm" (Gemm, opset 17)' in r.stderr and \
        "has no elements; this op's kernels need at least one" in r.stderr, r.stderr
    assert not (tmp_path / "libmlp.a").exists()
    # The same for convolutions, whose kernel planning split the empty batch
    # into tasks before that check (a division by zero); f32 ones take the
    # generic kernels.
    r = nunc("compile", os.path.join(models, "resnet.onnx"), "--quantize", "int8", "--target",
             "x86_64-avx512vnni", "--shape", "batch=0", "-o", tmp_path, check=False)
    assert r.returncode == 1 and 'node "/conv1/Conv" (Conv, opset 13)' in r.stderr and \
        "has no elements; this op's kernels need at least one" in r.stderr, r.stderr
    nunc("compile", os.path.join(models, "resnet.onnx"), "--target", "x86_64-avx512vnni",
         "--shape", "batch=0", "-o", tmp_path / "f32")


@pytest.mark.skipif(not VNNI, reason="the host lacks AVX-512 VNNI")
@pytest.mark.parametrize("name,batch,seq,extra", [
    ("mobilenet", 1, None, ()),   # dynamic ranges combined from every task's part
    ("resnet", 1, None, ()),
    ("minilm", 1, 32, ()),        # per-row dynamic quantization
    ("mobilenet", 2, None, ("--split-batch=false",)),
    ("mobilenet", 1, None, ("static",)),  # u8 codes between convs, integer depthwise
])
def test_int8_outputs_do_not_depend_on_the_thread_count(nunc, models, tmp_path, name, batch,
                                                        seq, extra):
    """A build pipeline's outputs must not change with the thread count: an
    int8 library's tasks split at compile time, and the parts they combine
    at run time (dynamic ranges: max and min) do not depend on which thread
    ran which task or in what order, so 1, 2 and 3 threads (more threads
    than cores: tasks taken out of turn) give the same bits."""
    if "static" in extra:
        write_samples(tmp_path / "calib", name, 4, batch, seq)
        extra = ("--activations", "static", "--calibration", tmp_path / "calib")
    nunc("compile", os.path.join(models, f"{name}.onnx"), "--target", "x86_64-avx512vnni",
         "--quantize", "int8", *pins(name, batch, seq), *extra, "-o", tmp_path / "out")
    exe, man = harness.build(str(tmp_path / "out"))
    if "--activations" in extra:
        assert any(k["kernel"].startswith("depthwise_conv.int8.") for k in man["kernels"])
    feeds = random_inputs(name, batch, seq, 11)
    runs = []
    for threads in (1, 2, 3):
        outs, _, log = harness.run(exe, man, feeds, str(tmp_path / f"w{threads}"),
                                   threads=threads, repeat=3)
        assert outs is not None, log
        runs.append(outs)
    for threads, outs in zip((2, 3), runs[1:]):
        for key in runs[0]:
            assert np.array_equal(outs[key], runs[0][key]), (key, threads)


@pytest.mark.parametrize("where,value", [("y", "inf"), ("x", "nan")])
def test_non_finite_scale_is_a_located_error(nunc, tmp_path, where, value):
    """A QDQ conv whose activation scale is inf or NaN (no quantizer writes
    one): a located error, exit 1, no library; 0 x inf would otherwise make
    the compiled arithmetic and the reference differ. A zero or negative
    scale still compiles."""
    import onnx
    from onnx import helper as h, numpy_helper as nh
    def model(path, x_scale, y_scale):
        w = np.random.default_rng(3).standard_normal((4, 3, 3, 3)).astype(np.float32)
        inits = [nh.from_array(np.array(x_scale, np.float32), "xs"),
                 nh.from_array(np.array(y_scale, np.float32), "ys"),
                 nh.from_array(np.array(128, np.uint8), "z"), nh.from_array(w, "w")]
        nodes = [h.make_node("QuantizeLinear", ["x", "xs", "z"], ["xq"], name="qx"),
                 h.make_node("DequantizeLinear", ["xq", "xs", "z"], ["xd"], name="dqx"),
                 h.make_node("Conv", ["xd", "w"], ["c"], name="conv", pads=[1, 1, 1, 1]),
                 h.make_node("QuantizeLinear", ["c", "ys", "z"], ["cq"], name="qy"),
                 h.make_node("DequantizeLinear", ["cq", "ys", "z"], ["y"], name="dqy")]
        g = h.make_graph(nodes, "g", [h.make_tensor_value_info("x", 1, [1, 3, 8, 8])],
                         [h.make_tensor_value_info("y", 1, [1, 4, 8, 8])], inits)
        onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 13)]), path)
    bad = str(tmp_path / "bad.onnx")
    model(bad, float(value) if where == "x" else 0.02, float(value) if where == "y" else 0.05)
    r = nunc("compile", bad, "--target", "x86_64-avx512vnni", "-o", tmp_path / "out",
             check=False)
    shown = {"inf": "inf", "nan": "NaN"}[value]
    assert r.returncode == 1 and f'node "q{where}" (QuantizeLinear, opset 13)' in r.stderr and \
        f"scale must be finite, got {shown}" in r.stderr, r.stderr
    assert not (tmp_path / "out" / "libbad.a").exists()
    for scale in (0.0, -0.02):
        ok = str(tmp_path / f"ok{scale}.onnx")
        model(ok, scale, 0.05)
        nunc("compile", ok, "--target", "x86_64-avx512vnni", "-o", tmp_path / f"o{scale}")


def test_quantize_linear_of_nan_is_the_lowest_code(nunc, tmp_path):
    """QuantizeLinear of NaN gives the lowest code of its type, as
    onnxruntime and the evaluator give, on every path: the generic kernel's
    u8, s8, u16, s16 and per-axis codes (its conversion of NaN was
    undefined: s8 and s16 gave 0), the Q/DQ pairs' f32 values and
    QLinearMatMul's requantization, compiled and in the evaluator. A QDQ
    model with u16 or symmetric s8 activations meets it: its mask constant
    dequantizes to -inf, 0 x -inf makes every score NaN, and the codes of
    the NaN probabilities decide the output (found by the fuzzer's
    --ort-quantize)."""
    import onnx
    from onnx import TensorProto as T, helper as h, numpy_helper as nh
    zero_points = {"u8": (np.uint8(7), T.UINT8), "s8": (np.int8(3), T.INT8),
                   "u16": (np.uint16(65535), T.UINT16), "s16": (np.int16(-5), T.INT16)}
    inits = [nh.from_array(np.array(0.05, np.float32), "s"),
             nh.from_array(np.array([0.05, 0.1, 0.2, 0.4], np.float32), "axis_s"),
             nh.from_array(np.array([1, 2, 3, 4], np.uint8), "axis_z")]
    nodes = [h.make_node("QuantizeLinear", ["x", "axis_s", "axis_z"], ["q_axis"], axis=1)]
    outputs = [h.make_tensor_value_info("q_axis", T.UINT8, [2, 4])]
    for name, (zp, element) in zero_points.items():
        inits.append(nh.from_array(np.array(zp), f"z_{name}"))
        nodes += [h.make_node("QuantizeLinear", ["x", "s", f"z_{name}"], [f"q_{name}"]),
                  h.make_node("DequantizeLinear", [f"q_{name}", "s", f"z_{name}"],
                              [f"fq_{name}"])]
        outputs += [h.make_tensor_value_info(f"q_{name}", element, [2, 4]),
                    h.make_tensor_value_info(f"fq_{name}", T.FLOAT, [2, 4])]
    g = h.make_graph(nodes, "g", [h.make_tensor_value_info("x", T.FLOAT, [2, 4])], outputs,
                     inits)
    model = h.make_model(g, opset_imports=[h.make_opsetid("", 21)])
    model.ir_version = 10
    path = str(tmp_path / "q.onnx")
    onnx.save(model, path)
    feeds = {"x": np.array([[np.nan, -np.inf, np.inf, 0.3], [-0.3, np.nan, 1e30, -1e30]],
                           np.float32)}
    np.savez(tmp_path / "in.npz", **feeds)
    nunc("run", path, "--input", tmp_path / "in.npz", "-o", tmp_path / "c.npz")
    nunc("run", "--reference", path, "--input", tmp_path / "in.npz", "-o", tmp_path / "r.npz")
    import onnxruntime as ort
    session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    want = dict(zip([o.name for o in session.get_outputs()], session.run(None, feeds)))
    compiled, evaluated = np.load(tmp_path / "c.npz"), np.load(tmp_path / "r.npz")
    for name, w in want.items():
        if w.dtype.kind in "iu":
            assert w[0, 0] == np.iinfo(w.dtype).min, (name, w)  # NaN
        np.testing.assert_array_equal(compiled[name], w, err_msg=name)
        np.testing.assert_array_equal(evaluated[name], w, err_msg=name)
    # QLinearMatMul with a zero y scale: a zero sum times inf is NaN, whose
    # code is the lowest too (the evaluator's cast of NaN was undefined: 0).
    for element, dtype in ((T.INT8, np.int8), (T.UINT8, np.uint8)):
        inits = [nh.from_array(np.array(0.1, np.float32), "as"),
                 nh.from_array(np.array(0, dtype), "az"),
                 nh.from_array(np.array([[1, -2, 3], [0, 0, 0], [4, 5, -6], [1, 1, 1]],
                                        np.int8), "b"),
                 nh.from_array(np.array(0.05, np.float32), "bs"),
                 nh.from_array(np.array(0, np.int8), "bz"),
                 nh.from_array(np.array(0.0, np.float32), "ys"),
                 nh.from_array(np.array(3, dtype), "yz")]
        g = h.make_graph([h.make_node("QLinearMatMul", ["a", "as", "az", "b", "bs", "bz", "ys",
                                                        "yz"], ["y"])], "g",
                         [h.make_tensor_value_info("a", element, [2, 4])],
                         [h.make_tensor_value_info("y", element, [2, 3])], inits)
        model = h.make_model(g, opset_imports=[h.make_opsetid("", 21)])
        model.ir_version = 10
        path = str(tmp_path / f"mm{element}.onnx")
        onnx.save(model, path)
        feeds = {"a": np.array([[0, 0, 0, 0], [1, 2, 3, 4]], dtype)}
        np.savez(tmp_path / "a.npz", **feeds)
        want = ort.InferenceSession(path, providers=["CPUExecutionProvider"]).run(None, feeds)[0]
        assert (want[0] == np.iinfo(dtype).min).all(), want
        for how in ((), ("--reference",)):
            nunc("run", *how, path, "--input", tmp_path / "a.npz", "-o", tmp_path / "y.npz")
            np.testing.assert_array_equal(np.load(tmp_path / "y.npz")["y"], want, err_msg=how)


@pytest.mark.skipif(not VNNI, reason="the host lacks AVX-512 VNNI")
def test_non_finite_calibration_values_are_located_errors(nunc, tmp_path):
    """A NaN in a calibration sample names the file, the input and where; an
    infinite value that reaches a quantized op's input (given, or made by
    the model: x * 1e30 * 1e30) names the op and the sample. Exit 1, no
    library, and no unreadable profile (a JSON file cannot hold inf)."""
    import onnx
    from onnx import helper as h, numpy_helper as nh
    w = nh.from_array(np.random.default_rng(5).standard_normal((64, 32)).astype(np.float32), "w")
    big = nh.from_array(np.array(1e30, np.float32), "big")
    nodes = [h.make_node("Mul", ["x", "big"], ["x1"], name="grow1"),
             h.make_node("Mul", ["x1", "big"], ["x2"], name="grow2"),
             h.make_node("MatMul", ["x2", "w"], ["y"], name="proj")]
    g = h.make_graph(nodes, "g", [h.make_tensor_value_info("x", 1, [4, 64])],
                     [h.make_tensor_value_info("y", 1, [4, 32])], [w, big])
    model = str(tmp_path / "grow.onnx")
    onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 17)]), model)
    calib = tmp_path / "calib"
    calib.mkdir()
    rng = np.random.default_rng(6)

    def compile_with(sample, *extra):
        np.savez(calib / "b.npz", x=sample)
        r = nunc("compile", model, "--target", "x86_64-avx512vnni", "--quantize", "int8",
                 "--activations", "static", "--calibration", calib,
                 "--save-calibration", tmp_path / "p.json", *extra, "-o", tmp_path / "out",
                 check=False)
        assert not (tmp_path / "out" / "libgrow.a").exists()
        return r

    np.savez(calib / "a.npz", x=rng.standard_normal((4, 64)).astype(np.float32) * 1e-31)
    x = rng.standard_normal((4, 64)).astype(np.float32)
    x[1, 3] = x[2, 5] = np.nan
    r = compile_with(x)
    assert r.returncode == 1 and f"error: {calib / 'b.npz'}: input 'x' holds 2 NaN of 256 " \
        "values (the first at flat index 67)" in r.stderr, r.stderr
    x = rng.standard_normal((4, 64)).astype(np.float32) * 1e-31
    x[0, 9] = -np.inf
    r = compile_with(x)
    assert r.returncode == 1 and 'node "proj" (MatMul, opset 17): calibration sample 1 (' \
        f"{calib / 'b.npz'}): its input holds 1 non-finite of 256 values (the first, -inf, " \
        "at flat index 9); int8 ranges need finite activations" in r.stderr, r.stderr
    assert not (tmp_path / "p.json").exists()
    # Made by the model from finite inputs: 1e-3 * 1e60 overflows.
    r = compile_with(np.full((4, 64), 1e-3, np.float32), "--calib-method", "mse")
    assert r.returncode == 1 and "(the first, inf, at flat index 0)" in r.stderr, r.stderr
    # Finite samples compile (and save the profile).
    np.savez(calib / "b.npz", x=rng.standard_normal((4, 64)).astype(np.float32) * 1e-31)
    nunc("compile", model, "--target", "x86_64-avx512vnni", "--quantize", "int8",
         "--activations", "static", "--calibration", calib,
         "--save-calibration", tmp_path / "p.json", "-o", tmp_path / "ok")
    assert json.loads((tmp_path / "p.json").read_text())["samples"] == 2


@pytest.mark.skipif(not VNNI, reason="the host lacks AVX-512 VNNI")
@pytest.mark.parametrize("per_channel", [False, True])
def test_qdq_one_dimensional_conv_equals_onnxruntime(nunc, tmp_path, per_channel):
    """onnxruntime's quantize_static of a 1-D conv network (conv + Relu, a
    residual conv, MaxPool): lifted to 2-D convs of height 1 with their
    Q/DQ pairs (nunc-conv1d-as-2d moves the pairs with them), every conv
    on the int8 convolution, and the outputs onnxruntime's bit for bit."""
    import onnx
    import onnxruntime as ort
    from onnx import helper as h, numpy_helper as nh
    from onnxruntime.quantization import CalibrationDataReader, QuantType, quantize_static
    r = np.random.default_rng(21)
    c, length = 16, 40

    def w(*shape):
        return (r.standard_normal(shape) * 0.2).astype(np.float32)
    nodes = [h.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1]),
             h.make_node("Relu", ["c1"], ["r1"]),
             h.make_node("Conv", ["r1", "w2", "b2"], ["c2"], pads=[2, 2], dilations=[2]),
             h.make_node("Add", ["c2", "x"], ["a"]),
             h.make_node("MaxPool", ["a"], ["y"], kernel_shape=[2], strides=[2])]
    g = h.make_graph(nodes, "tcn", [h.make_tensor_value_info("x", 1, [1, c, length])],
                     [h.make_tensor_value_info("y", 1, [1, c, length // 2])],
                     [nh.from_array(v, k) for k, v in
                      {"w1": w(c, c, 3), "b1": w(c), "w2": w(c, c, 3), "b2": w(c)}.items()])
    f32 = str(tmp_path / "tcn.onnx")
    onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 17)]), f32)

    class Reader(CalibrationDataReader):
        def __init__(self):
            self.items = iter([{"x": r.standard_normal((1, c, length)).astype(np.float32)}
                               for _ in range(8)])

        def get_next(self):
            return next(self.items, None)
    qdq = str(tmp_path / "tcn_qdq.onnx")
    quantize_static(f32, qdq, Reader(), activation_type=QuantType.QUInt8,
                    weight_type=QuantType.QInt8, per_channel=per_channel)
    res = nunc("compile", qdq, "--target", "x86_64-avx512vnni", "--explain",
               "-o", tmp_path / "out")
    convs = [s for s in res.stdout.splitlines() if "Conv" in s.split(";")[-1]]
    assert len(convs) == 2 and all("conv.int8.avx512vnni[" in s for s in convs), res.stdout
    feeds = {"x": r.standard_normal((1, c, length)).astype(np.float32)}
    want = ort.InferenceSession(qdq, providers=["CPUExecutionProvider"]).run(None, feeds)[0]
    exe, man = harness.build(str(tmp_path / "out"))
    outs, _, log = harness.run(exe, man, feeds, str(tmp_path / "w"))
    assert outs is not None, log
    np.testing.assert_array_equal(outs["y"], want)


def one_layer_model(path, m, k, n, seed, bias=True):
    import onnx
    from onnx import helper as h, numpy_helper as nh
    r = np.random.default_rng(seed)
    w = nh.from_array((r.standard_normal((k, n)) * 0.05).astype(np.float32), "w")
    b = nh.from_array(r.standard_normal(n).astype(np.float32), "b")
    nodes = [h.make_node("MatMul", ["x", "w"], ["mm" if bias else "y"])]
    if bias:
        nodes.append(h.make_node("Add", ["mm", "b"], ["y"]))
    g = h.make_graph(nodes, "one", [h.make_tensor_value_info("x", 1, [m, k])],
                     [h.make_tensor_value_info("y", 1, [m, n])], [w, b] if bias else [w])
    onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 17)]), path)


@pytest.mark.skipif(not VNNI, reason="the host lacks AVX-512 VNNI")
@pytest.mark.parametrize("weight", ["QInt8", "QUInt8"])
@pytest.mark.parametrize("per_channel", [False, True])
def test_imported_quantize_dynamic_layer_matches_onnxruntime(nunc, tmp_path, per_channel, weight):
    """onnxruntime's own quantize_dynamic output (DynamicQuantizeLinear,
    MatMulInteger, Cast, Mul, Add) compiles onto the VNNI kernels and gives
    onnxruntime's numbers: the same u8 activations and s32 sums, the same
    scale product; bit-identical here, and the bar is one quantization unit
    (x_scale * w_scale). u8 weights (QUInt8, with zero points, which
    vpdpbusd multiplies as s8) run on the int8 kernel too: the codes minus
    128, and (128 - zw) times each row's sum of u8 codes added in the
    epilogue, the same integer sums."""
    from onnxruntime.quantization import QuantType, quantize_dynamic
    import onnxruntime as ort
    one_layer_model(str(tmp_path / "f32.onnx"), 64, 387, 129, 3)  # K, N not multiples of 4/48
    quantize_dynamic(str(tmp_path / "f32.onnx"), str(tmp_path / "q.onnx"),
                     weight_type=getattr(QuantType, weight), per_channel=per_channel)
    nunc("compile", tmp_path / "q.onnx", "--target", "x86_64-avx512vnni", "-o", tmp_path / "out")
    manifest = json.loads((tmp_path / "out" / "q.json").read_text())
    kernels = [k["kernel"] for k in manifest["kernels"]]
    if weight == "QInt8":
        assert kernels == ["gemm.int8.avx512vnni[64x129x387, dynamic tensor] +bias"], kernels
    else:
        assert kernels == ["gemm.int8.avx512vnni[64x129x387, dynamic tensor, u8 weights] +bias"], \
            kernels
    exe, man = harness.build(str(tmp_path / "out"))
    x = (np.random.default_rng(4).standard_normal((64, 387)) * 2).astype(np.float32)
    outs, _, log = harness.run(exe, man, {"x": x}, str(tmp_path / "w"))
    assert outs is not None, log
    ref = ort.InferenceSession(str(tmp_path / "q.onnx"),
                               providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    x_scale = (max(x.max(), 0) - min(x.min(), 0)) / 255
    import onnx
    from onnx import numpy_helper as nh
    scales = [nh.to_array(i) for i in onnx.load(str(tmp_path / "q.onnx")).graph.initializer
              if i.name.endswith("_scale")]
    unit = x_scale * float(np.max(scales[0]))
    diff = float(np.abs(outs["y"] - ref).max())
    assert diff <= unit, f"max difference {diff} > one unit {unit}"


def assert_minilm_tracks(models, tmp_path, q, feeds, min_cosine_q):
    """Builds and runs the library in tmp_path/out on feeds: its output has
    cosine >= min_cosine_q with onnxruntime running the quantized model q,
    and >= 0.999 with fp32."""
    import onnxruntime as ort
    exe, man = harness.build(str(tmp_path / "out"))
    outs, _, log = harness.run(exe, man, feeds, str(tmp_path / "w"))
    assert outs is not None, log
    got = outs["last_hidden_state"]
    ort_q = ort.InferenceSession(q, providers=["CPUExecutionProvider"]).run(None, feeds)[0]
    ort_f = reference(models, "minilm", feeds)["last_hidden_state"]
    assert cosine(got, ort_q) >= min_cosine_q, cosine(got, ort_q)
    assert cosine(got, ort_f) >= 0.999, cosine(got, ort_f)


@pytest.mark.skipif(not VNNI, reason="the host lacks AVX-512 VNNI")
def test_imported_quantize_dynamic_minilm(nunc, models, tmp_path):
    """The whole quantize_dynamic MiniLM runs on int8 kernels. Over six layers
    dynamic quantization amplifies float rounding (onnxruntime disagrees with
    itself between optimization levels by as much), so the check is cosine
    similarity with onnxruntime's int8 output and with fp32."""
    from onnxruntime.quantization import QuantType, quantize_dynamic
    src = os.path.join(models, "minilm.onnx")
    q = str(tmp_path / "minilm_q.onnx")
    quantize_dynamic(src, q, weight_type=QuantType.QInt8)
    # Batch 2: DynamicQuantizeLinear takes one range over both items, so the
    # batch runs whole (splitting it would change the numbers).
    r = nunc("compile", q, "--target", "x86_64-avx512vnni", *pins("minilm", 2, 32), "-o",
             tmp_path / "out")
    assert "runs the batch as a whole: nunc.quantized_linear at" in r.stderr, r.stderr
    assert "its input range is taken over the whole batch at run time" in r.stderr
    manifest = json.loads((tmp_path / "out" / "minilm_q.json").read_text())
    assert manifest["batch_split"] == 1
    kernels = [k["kernel"] for k in manifest["kernels"]]
    assert_fused_projections([k for k in kernels if k.startswith("gemm.int8.avx512vnni")])
    assert not any("matmul_integer" in k["op"] for k in manifest["kernels"])
    assert_minilm_tracks(models, tmp_path, q, random_inputs("minilm", 2, 32, 6), 0.999)


@pytest.mark.skipif(not VNNI, reason="the host lacks AVX-512 VNNI")
@pytest.mark.parametrize("target", ["x86_64-avx512vnni", "x86_64-avx2"])
def test_imported_quantize_dynamic_u8_weights_minilm(nunc, models, tmp_path, target):
    """quantize_dynamic with u8 weights (QUInt8: zero points). Its GEMMs run
    on the target's int8 kernel, Q, K and V as one (24): the codes minus 128
    as s8 weights, the row sums of the u8 activations times (128 - zw) added
    in the epilogue, MatMulInteger's integer sums exactly (the AVX2 one
    with 16-bit activations; the AVX-VNNI one is checked in the unit
    tests). Both track onnxruntime's int8 output and fp32."""
    from onnxruntime.quantization import QuantType, quantize_dynamic
    src = os.path.join(models, "minilm.onnx")
    q = str(tmp_path / "minilm_u8.onnx")
    quantize_dynamic(src, q, weight_type=QuantType.QUInt8)
    nunc("compile", q, "--target", target, *pins("minilm", 1, 32), "-o", tmp_path / "out")
    kernels = json.loads((tmp_path / "out" / "minilm_u8.json").read_text())["kernels"]
    assert not any(k["op"] == "nunc.matmul_integer" for k in kernels), kernels
    family = target.split("-")[1]
    linear = [k["kernel"] for k in kernels if k["op"] == "nunc.quantized_linear"]
    assert len(linear) == 24 and all(
        k.startswith(f"gemm.int8.{family}[") and "dynamic tensor, u8 weights" in k
        for k in linear), linear
    assert not any(k["op"] == "nunc.linear" for k in kernels), kernels
    assert_minilm_tracks(models, tmp_path, q, random_inputs("minilm", 1, 32, 7), 0.9995)


def first_outputs(libs, feeds, tmp_path):
    """Each library's (target: (exe, manifest)) first output on `feeds`."""
    outs = {}
    for t, (exe, man) in libs.items():
        got, _, log = harness.run(exe, man, feeds, str(tmp_path / f"w{t}"))
        assert got is not None, log
        outs[t] = next(iter(got.values()))
    return outs


def int8_cnn_source(models, tmp_path, model, source):
    """An example CNN as int8 (model path, compile flags): `--quantize int8`
    (source "int8", dynamic), with static grids calibrated on 8 samples
    ("static"), onnxruntime's quantize_dynamic model with u8 weights
    ("QUInt8") or its quantize_static QDQ model ("qdq": u8 activations, s8
    weights per channel)."""
    from onnxruntime.quantization import QuantFormat, QuantType, quantize_dynamic, \
        quantize_static
    path = os.path.join(models, f"{model}.onnx")
    if source == "int8":
        return path, ["--quantize", "int8"]
    if source == "static":
        write_samples(tmp_path / "calib", model, 8, 1, None)
        return path, ["--quantize", "int8", "--activations", "static", "--calibration",
                      tmp_path / "calib"]
    if source == "QUInt8":
        out = str(tmp_path / f"{model}_dyn.onnx")
        quantize_dynamic(path, out, weight_type=QuantType.QUInt8)
        return out, []
    out = str(tmp_path / f"{model}_qdq.onnx")
    quantize_static(path, out, Samples(random_inputs(model, 1, None, 40 + i) for i in range(4)),
                    quant_format=QuantFormat.QDQ, activation_type=QuantType.QUInt8,
                    weight_type=QuantType.QInt8, per_channel=True)
    return out, []


@pytest.mark.skipif(not VNNI, reason="the host lacks AVX-512 VNNI, which runs the "
                    "EVEX-encoded AVX-VNNI kernels")
@pytest.mark.parametrize("model,source", [("resnet", "int8"), ("mobilenet", "int8"),
                                          ("resnet", "QUInt8"), ("mobilenet", "QUInt8"),
                                          ("mobilenet", "qdq"), ("mobilenet", "static")])
def test_avxvnni_int8_cnn(nunc, models, tmp_path, model, source):
    """x86_64-avxvnni runs every one-group conv on its int8 convolution
    kernels (ymm: the channel-block quantizer, each GEMM task's im2col panel
    of the u8 blocks, the AVX-VNNI GEMM with the weights as rows): `--quantize int8` (dynamic per
    tensor, s8 weights), quantize_dynamic's QUInt8 model (u8 weights with
    zero points) and quantize_static's QDQ model (static grids). Its
    testing twin x86_64-avxvnni-evex (the same kernels, VNNI instructions
    EVEX-encoded) runs them here: the integers and the epilogue's f32 steps
    are those of the AVX-512 VNNI kernels, so the output follows that
    library's (the f32 code around the convs is AVX2's: a sum in another
    order can move a dynamic range, and so a code) and onnxruntime's.
    Nothing takes the generic path: quantize_dynamic's depthwise inputs are
    rounded to their dynamic grid by the ymm dynamic_fake_quantize kernel.
    Static grids (the QDQ model, `--activations static`) hand u8 codes to
    the depthwise convs, which run on the ymm integer depthwise kernel
    (depthwise_conv.int8.avxvnni) as on the AVX-512 VNNI one."""
    import onnxruntime as ort
    path, flags = int8_cnn_source(models, tmp_path, model, source)
    name = os.path.splitext(os.path.basename(path))[0]
    libs, convs = {}, {}
    for t in ("x86_64-avxvnni", "x86_64-avxvnni-evex", "x86_64-avx512vnni"):
        r = nunc("compile", path, "--target", t, *flags, *pins(model, 1, None), "-o",
                 tmp_path / t)
        if source == "static":
            assert "depthwise convolutions on u8 inputs" in r.stderr, r.stderr
        kernels = json.loads((tmp_path / t / f"{name}.json").read_text())["kernels"]
        convs[t] = [k["kernel"] for k in kernels if k["op"] == "nunc.quantized_conv"]
        depthwise = [k["kernel"] for k in kernels if k["kernel"].startswith("depthwise_conv")]
        if model == "mobilenet":
            family = "avx512vnni" if t == "x86_64-avx512vnni" else "avxvnni"
            integer = [k for k in depthwise if k.startswith(f"depthwise_conv.int8.{family}[")]
            assert len(integer) == (len(depthwise) if source in ("qdq", "static") else 0) \
                and len(depthwise) == 8, depthwise
        assert "generic" not in [k["kernel"] for k in kernels], kernels
        rounded = [k["kernel"] for k in kernels if k["op"] == "nunc.dynamic_fake_quantize"]
        assert len(rounded) == (8 if (model, source) == ("mobilenet", "QUInt8") else 0), rounded
        if t != "x86_64-avxvnni":
            libs[t] = harness.build(str(tmp_path / t))
    want_convs = {"resnet": 16, "mobilenet": 17}[model]
    for t in ("x86_64-avxvnni", "x86_64-avxvnni-evex"):
        assert len(convs[t]) == want_convs and all(
            k.startswith("conv.int8.avxvnni[") for k in convs[t]), convs[t]
        # Each GEMM task builds its panel (ResNet's convs but those of 7x7
        # planes, which join their 49th position as dot products to packed
        # panels of 16; MobileNet's stem, its pointwise convs reading the
        # blocks as they are). u8 weights join no columns.
        joined = 0 if source == "QUInt8" else 3
        assert sum("panel im2col" in k for k in convs[t]) == \
            {"resnet": 16 - joined, "mobilenet": 1}[model], convs[t]
        assert sum("last 1 columns as dot products" in k for k in convs[t]) == \
            {"resnet": joined, "mobilenet": 0 if source == "QUInt8" else 4}[model], convs[t]
        assert all(("u8 weights" in k) == (source == "QUInt8") for k in convs[t]), convs[t]
        assert all(("static" in k) == (source in ("qdq", "static")) for k in convs[t]), \
            convs[t]
        assert all(("row constants per call" in k) == (source == "int8") for k in convs[t]), \
            convs[t]
    assert convs["x86_64-avxvnni"] == convs["x86_64-avxvnni-evex"]
    assert len(convs["x86_64-avx512vnni"]) == want_convs
    f32 = ort.InferenceSession(os.path.join(models, f"{model}.onnx"),
                               providers=["CPUExecutionProvider"])
    for seed in (21, 22):
        feeds = random_inputs(model, 1, None, seed)
        outs = first_outputs(libs, feeds, tmp_path)
        ymm, zmm = outs["x86_64-avxvnni-evex"], outs["x86_64-avx512vnni"]
        assert cosine(ymm, zmm) >= 0.99999, cosine(ymm, zmm)
        want = f32.run(None, feeds)[0]
        assert cosine(ymm, want) >= min(0.998, cosine(zmm, want) - 1e-4), \
            (cosine(ymm, want), cosine(zmm, want))
    # Without AVX-VNNI the shipped library's init names what it lacks.
    exe, man = harness.build(str(tmp_path / "x86_64-avxvnni"))
    outs, _, log = harness.run(exe, man, feeds, str(tmp_path / "wv"))
    if not host_has("avx_vnni"):
        assert outs is None and "init 3 the CPU lacks: avxvnni" in log, log
    else:
        np.testing.assert_array_equal(next(iter(outs.values())), ymm)


@pytest.mark.skipif(not host_has("avx2"), reason="the host lacks AVX2")
@pytest.mark.parametrize("model,source", [("resnet", "int8"), ("mobilenet", "int8"),
                                          ("resnet", "QUInt8"), ("resnet", "qdq"),
                                          ("mobilenet", "qdq"), ("mobilenet", "static")])
def test_avx2_int8_cnn(nunc, models, tmp_path, model, source):
    """Targets without VNNI (x86_64-avx2, and x86_64-avx512, whose int8 code
    is AVX2's) run every one-group conv on the AVX2 int8 convolution: the
    AVX-VNNI form's channel blocks, im2col panels, tiles and epilogue, the
    products exact word products (vpmaddwd). With dynamic grids (depthwise
    convs f32 everywhere) x86_64-avx2's library equals x86_64-avxvnni-evex's
    bit for bit. With static ones the convs hand their u8 codes to the
    depthwise convs, whose f32 taps read them (no integer depthwise kernel
    without VNNI): f32 sums where the VNNI libraries' are integers. nunc's own int8 tracks the f32 model; imported models track
    onnxruntime running them."""
    import onnxruntime as ort
    path, flags = int8_cnn_source(models, tmp_path, model, source)
    name = os.path.splitext(os.path.basename(path))[0]
    targets = ["x86_64-avx2", "x86_64-avx512"] + (["x86_64-avxvnni-evex"] if VNNI else [])
    libs = {}
    want_convs = {"resnet": 16, "mobilenet": 17}[model]
    static = source in ("qdq", "static")
    for t in targets:
        nunc("compile", path, "--target", t, *flags, *pins(model, 1, None), "-o", tmp_path / t)
        kernels = json.loads((tmp_path / t / f"{name}.json").read_text())["kernels"]
        assert "generic" not in [k["kernel"] for k in kernels], kernels
        if t == "x86_64-avxvnni-evex":
            libs[t] = harness.build(str(tmp_path / t))
            continue
        convs = [k["kernel"] for k in kernels if k["op"] == "nunc.quantized_conv"]
        assert len(convs) == want_convs and all(
            k.startswith("conv.int8.avx2[") for k in convs), convs
        joined = 0 if source == "QUInt8" else 3
        assert sum("panel im2col" in k for k in convs) == \
            {"resnet": 16 - joined, "mobilenet": 1}[model], convs
        assert sum("last 1 columns as dot products" in k for k in convs) == \
            {"resnet": joined, "mobilenet": 4}[model], convs
        assert all(("u8 weights" in k) == (source == "QUInt8") for k in convs), convs
        assert all(("static" in k) == static for k in convs), convs
        # A dynamic input's row constants, broadcast by a step of their own
        # (s8 weights).
        assert all(("row constants per call" in k) == (source == "int8") for k in convs), convs
        depthwise = [k["kernel"] for k in kernels if k["kernel"].startswith("depthwise_conv")]
        assert not any(".int8." in k for k in depthwise), depthwise
        if model == "mobilenet":
            # u8 codes from the int8 convs into the depthwise convs with
            # static grids.
            u8_in = [k for k in depthwise if "u8 in" in k]
            assert len(depthwise) == 8 and len(u8_in) == (8 if static else 0), depthwise
        libs[t] = harness.build(str(tmp_path / t))
    f32 = ort.InferenceSession(os.path.join(models, f"{model}.onnx"),
                               providers=["CPUExecutionProvider"])
    quantized = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    for seed in (21, 22):
        feeds = random_inputs(model, 1, None, seed)
        outs = first_outputs(libs, feeds, tmp_path)
        # nunc's own quantization against the f32 model; an imported one
        # against onnxruntime running it.
        want = (f32 if source in ("int8", "static") else quantized).run(None, feeds)[0]
        bound = 0.998 if source in ("int8", "static") else 0.9999
        for t in ("x86_64-avx2", "x86_64-avx512"):
            assert cosine(outs[t], want) >= bound, (t, cosine(outs[t], want))
        if VNNI:
            vnni = outs["x86_64-avxvnni-evex"]
            if static:
                # Depthwise sums in f32 against integer ones.
                assert cosine(outs["x86_64-avx2"], vnni) >= 0.99999, \
                    cosine(outs["x86_64-avx2"], vnni)
            else:
                np.testing.assert_array_equal(outs["x86_64-avx2"], vnni)


@pytest.mark.skipif(shutil.which("qemu-x86_64") is None, reason="qemu-user is not installed")
@pytest.mark.parametrize("model,source", [("mobilenet", "f32"), ("mobilenet", "qdq"),
                                          ("resnet", "int8"), ("minilm", "int8")])
def test_avx2_libraries_run_on_a_cpu_without_avx512(nunc, models, tmp_path, model, source):
    """An x86_64-avx2 library holds no AVX-512 instruction: it runs on an
    emulated Haswell (qemu-user's TCG: AVX2 and FMA, no AVX-512, which it
    refuses with SIGILL), its init's CPU check passes there, and it gives
    the outputs it gives on this host. The hosts of the test suite have
    AVX-512, so nothing else would notice a kernel that encodes one (a ymm
    kernel reaching a register above 15, an EVEX-only instruction). The
    emulator's float steps are IEEE as the hardware's; its approximate
    reciprocals may differ in the last bits, hence a cosine."""
    path, flags = (os.path.join(models, f"{model}.onnx"), []) if source == "f32" else \
        int8_cnn_source(models, tmp_path, model, source) if model != "minilm" else \
        (os.path.join(models, "minilm.onnx"), ["--quantize", "int8"])
    seq = 32 if model == "minilm" else None
    nunc("compile", path, "--target", "x86_64-avx2", *flags, *pins(model, 1, seq), "-o",
         tmp_path / "out")
    exe, man = harness.build(str(tmp_path / "out"))
    feeds = random_inputs(model, 1, seq, 23)
    native, _, log = harness.run(exe, man, feeds, str(tmp_path / "native"))
    assert native is not None, log
    emulated, _, log = harness.run(exe, man, feeds, str(tmp_path / "emulated"),
                                   wrapper=("qemu-x86_64", "-cpu", "Haswell"))
    assert emulated is not None, log
    for name, want in native.items():
        got = emulated[name]
        assert np.all(np.isfinite(got)), name
        assert cosine(got, want) >= 0.99999, (name, cosine(got, want))


@pytest.mark.skipif(not VNNI, reason="the host lacks AVX-512 VNNI")
@pytest.mark.parametrize("model", ["resnet", "mobilenet"])
@pytest.mark.parametrize("weight", ["QInt8", "QUInt8"])
def test_imported_quantize_dynamic_cnn(nunc, models, tmp_path, weight, model):
    """quantize_dynamic's CNNs (DynamicQuantizeLinear, ConvInteger, Cast,
    Mul, then the BatchNormalization the f32 model had): every conv of one
    group runs on the int8 convolution kernels with per-tensor dynamic
    activations, the BN as its normalization in onnxruntime's f32 steps
    (the residual Add and Relu after it: ops of their own), u8 weights
    (QUInt8) with their zero points. ResNet's output is onnxruntime's bit
    for bit with s8 weights (with the BN folded into the scales and bias in
    double, an ulp moved a DynamicQuantizeLinear's range and every later
    code: cosine 0.99997), within an ulp with u8 ones (the classifier's
    sums). MobileNet's depthwise convs run f32 convolutions on the
    dequantized values (onnxruntime's ConvInteger sums integers), the BN
    folded into them, their inputs rounded to the dynamic grid by one
    dynamic_fake_quantize kernel each (after the Clip, an op of its own
    behind the normalization): no generic step, the output close to
    onnxruntime's."""
    from onnxruntime.quantization import QuantType, quantize_dynamic
    import onnxruntime as ort
    q = str(tmp_path / f"{model}_dyn.onnx")
    quantize_dynamic(os.path.join(models, f"{model}.onnx"), q,
                     weight_type=getattr(QuantType, weight))
    nunc("compile", q, "--target", "x86_64-avx512vnni", *pins(model, 1, None), "-o",
         tmp_path / "out")
    manifest = json.loads((tmp_path / "out" / f"{model}_dyn.json").read_text())
    ops = [k["op"] for k in manifest["kernels"]]
    kernels = [k["kernel"] for k in manifest["kernels"]]
    convs = [k["kernel"] for k in manifest["kernels"] if k["op"] == "nunc.quantized_conv"]
    rounded = [k for k in kernels if k.startswith("dynamic_fake_quantize.avx512")]
    assert len(convs) == {"resnet": 16, "mobilenet": 17}[model], convs
    assert all("dynamic tensor" in k for k in convs), convs
    assert all(("u8 weights" in k) == (weight == "QUInt8") for k in convs), convs
    assert "nunc.batch_norm" not in ops, ops
    assert all("+normalize" in k for k in convs), convs
    # MobileNet's 8 depthwise inputs, each an int8 conv's result.
    assert len(rounded) == {"resnet": 0, "mobilenet": 8}[model], rounded
    if weight == "QUInt8":
        # The classifier: an int8 GEMM with u8 weights too.
        gemms = [k["kernel"] for k in manifest["kernels"] if k["op"] == "nunc.quantized_linear"]
        assert len(gemms) == 1 and "u8 weights" in gemms[0], gemms
    assert "generic" not in kernels, kernels
    assert "nunc.conv_integer" not in ops, ops
    exe, man = harness.build(str(tmp_path / "out"))
    feeds = random_inputs(model, 1, None, 12)
    outs, _, log = harness.run(exe, man, feeds, str(tmp_path / "w"))
    assert outs is not None, log
    got = next(iter(outs.values()))
    ort_q = ort.InferenceSession(q, providers=["CPUExecutionProvider"]).run(None, feeds)[0]
    ort_f = next(iter(reference(models, model, feeds).values()))
    # onnxruntime's own int8 MobileNet is at cosine 0.9985 to fp32 here: its
    # 25 per-tensor roundings flip codes where f32 and integer sums differ.
    min_q, min_f = {"resnet": (0.9999, 0.999), "mobilenet": (0.9998, 0.998)}[model]
    assert cosine(got, ort_q) >= min_q, cosine(got, ort_q)
    if model == "resnet" and weight == "QInt8":
        np.testing.assert_array_equal(got, ort_q)
    elif model == "resnet":
        np.testing.assert_allclose(got, ort_q, rtol=2e-6, atol=2e-6)
    assert cosine(got, ort_f) >= min_f, (cosine(got, ort_f), cosine(ort_q, ort_f))


def write_samples(directory, name, count, batch, seq):
    directory.mkdir()
    for i in range(count):
        np.savez(directory / f"sample{i:02d}.npz", **random_inputs(name, batch, seq, 1000 + i))


@pytest.mark.skipif(not VNNI, reason="the host lacks AVX-512 VNNI")
@pytest.mark.parametrize("name,method", [("minilm", "minmax"), ("minilm", "percentile"),
                                         ("minilm", "mse"), ("minilm", "entropy"),
                                         ("bert", "minmax")])
def test_static_calibration_tracks_float(nunc, models, tmp_path, name, method):
    """Post-training static quantization on 32 calibration samples: the
    output stays within cosine 0.99 of fp32 (the bar), here well above."""
    write_samples(tmp_path / "calib", name, 32, 1, 32)
    nunc("compile", os.path.join(models, f"{name}.onnx"), "--target", "x86_64-avx512vnni",
         "--quantize", "int8", "--activations", "static", "--calibration", tmp_path / "calib",
         "--calib-method", method, "--save-calibration", tmp_path / "profile.json",
         *pins(name, 1, 32), "-o", tmp_path / "out")
    manifest = json.loads((tmp_path / "out" / f"{name}.json").read_text())
    assert manifest["quantization"] == "int8-static"
    assert all("static" in k["kernel"] for k in manifest["kernels"]
               if k["kernel"].startswith("gemm.int8"))
    layers = 6 if name == "minilm" else 12
    # u8 activations go from GEMM to GEMM: every GEMM reads u8 rows; Q, K
    # and V (one GEMM) read one quantize of the LayerNorm output, FFN1's
    # input gets its own, attention (on int8 products) writes the output
    # projection's u8 input, and FFN1 (+GELU) FFN2's.
    kernels = [k["kernel"] for k in manifest["kernels"]]
    assert sum("static, u8 in]" in k for k in kernels) == 4 * layers, kernels
    assert sum(k.startswith("quantize.avx512vnni[") for k in kernels) == 2 * layers, kernels
    assert sum(k.startswith("gemm.int8") and k.endswith("-> u8") for k in kernels) == layers
    assert sum(k.startswith("attention.avx512vnni[") and k.endswith("] int8 products +mask -> u8")
               for k in kernels) == layers, kernels
    profile = json.loads((tmp_path / "profile.json").read_text())
    assert profile["samples"] == 32 and profile["method"].startswith(method)
    assert len(profile["inputs"]) == 6 * layers  # q, k, v, out, ffn1, ffn2 per layer
    exe, man = harness.build(str(tmp_path / "out"))
    feeds = random_inputs(name, 1, 32, 7)  # not a calibration sample
    outs, _, log = harness.run(exe, man, feeds, str(tmp_path / "w"))
    assert outs is not None, log
    c = cosine(outs["last_hidden_state"], reference(models, name, feeds)["last_hidden_state"])
    assert c >= 0.995, f"cosine {c:.5f}"


def resnet_errors(models, tmp_path, build):
    """The ResNet library in tmp_path/build on three inputs that are not
    calibration samples: its mean relative L2 error against onnxruntime's
    fp32 output, and its lowest cosine."""
    exe, man = harness.build(str(tmp_path / build))
    errors, cosines = [], []
    for seed in (7, 8, 9):
        feeds = random_inputs("resnet", 1, None, seed)
        outs, _, log = harness.run(exe, man, feeds, str(tmp_path / "w"))
        assert outs is not None, log
        got = next(iter(outs.values()))
        want = next(iter(reference(models, "resnet", feeds).values()))
        errors.append(np.linalg.norm(got - want) / np.linalg.norm(want))
        cosines.append(cosine(got, want))
    return np.mean(errors), min(cosines)


@pytest.mark.skipif(not VNNI, reason="the host lacks AVX-512 VNNI")
@pytest.mark.parametrize("method", ["minmax", "entropy", "mse"])
def test_static_calibration_of_a_relu_cnn(nunc, models, tmp_path, method):
    """Static int8 on ResNet, whose conv inputs are Relu outputs, half of
    them exact zeros. The histogram methods leave the zeros out of the range
    choice (any range holds 0 exactly); counted, they made entropy clip each
    conv input to ~40 % of its observed maximum (per-layer SNR ~17 dB,
    output cosine 0.992 here). Bias correction (on by default) takes the
    mean output shift of the int8 weights back out of each conv's bias, with
    the profile's input channel means: the output moves closer to fp32 than
    the uncorrected build's."""
    calib = tmp_path / "calib"
    write_samples(calib, "resnet", 8, 1, None)
    common = ["--target", "x86_64-avx512vnni", "--quantize", "int8", "--activations", "static",
              "--calib-method", method, *pins("resnet", 1, None)]
    nunc("compile", os.path.join(models, "resnet.onnx"), *common, "--calibration", calib,
         "--save-calibration", tmp_path / "profile.json", "-o", tmp_path / "out")
    nunc("compile", os.path.join(models, "resnet.onnx"), *common, "--load-calibration",
         tmp_path / "profile.json", "--bias-correction=false", "-o", tmp_path / "plain")
    profile = json.loads((tmp_path / "profile.json").read_text())["inputs"]
    relu_fed = [r for k, r in profile.items() if k != "/conv1/Conv"]
    assert len(relu_fed) == 16 and all(r["lo"] == 0 for r in relu_fed), profile
    assert min(r["hi"] / r["max"] for r in relu_fed) > 0.5, profile
    # The stem's input is the image: its channel means are the samples'.
    images = np.concatenate([np.load(calib / f)["input"] for f in sorted(os.listdir(calib))])
    np.testing.assert_allclose(profile["/conv1/Conv"]["channel_mean"],
                               images.mean(axis=(0, 2, 3)), rtol=1e-4, atol=1e-6)
    # And their mean square, which estimates each grid's SNR.
    np.testing.assert_allclose(profile["/conv1/Conv"]["mean_square"],
                               np.mean(images.astype(np.float64) ** 2), rtol=1e-6)
    assert all(len(r["channel_mean"]) in (64, 128, 256, 512) for r in relu_fed)
    # A clipping method records what its ranges cut off (minmax cuts nothing).
    clipped = [r for r in profile.values() if r.get("clip_square", 0) > 0]
    if method == "minmax":
        assert not clipped, profile
    else:
        assert clipped and all(r["hi"] < r["max"] or r["lo"] > r["min"] for r in clipped), profile
    (error, worst_cosine), (plain_error, _) = (resnet_errors(models, tmp_path, b)
                                                for b in ("out", "plain"))
    assert worst_cosine >= 0.998, f"cosine {worst_cosine:.5f}"
    assert error < 0.8 * plain_error, (error, plain_error)


@pytest.mark.skipif(not VNNI, reason="the host lacks AVX-512 VNNI")
def test_dynamic_activations_with_calibration_samples(nunc, models, tmp_path):
    """With dynamic activations, --calibration samples only bring the channel
    means of bias correction: the convs still quantize their inputs per
    tensor at run time, and the output is closer to fp32 than without."""
    write_samples(tmp_path / "calib", "resnet", 8, 1, None)
    common = ["--target", "x86_64-avx512vnni", "--quantize", "int8", *pins("resnet", 1, None)]
    nunc("compile", os.path.join(models, "resnet.onnx"), *common, "--calibration",
         tmp_path / "calib", "--save-calibration", tmp_path / "profile.json", "-o",
         tmp_path / "out")
    nunc("compile", os.path.join(models, "resnet.onnx"), *common, "-o", tmp_path / "plain")
    manifest = json.loads((tmp_path / "out" / "resnet.json").read_text())
    assert manifest["quantization"] == "int8-dynamic"
    convs = [k["kernel"] for k in manifest["kernels"] if k["op"] == "nunc.quantized_conv"]
    assert len(convs) == 16 and all("dynamic tensor" in k for k in convs), convs
    profile = json.loads((tmp_path / "profile.json").read_text())
    assert len(profile["inputs"]) == 17 and all("channel_mean" in r
                                                for r in profile["inputs"].values())
    (error, _), (plain_error, _) = (resnet_errors(models, tmp_path, b) for b in ("out", "plain"))
    assert error < 0.8 * plain_error, (error, plain_error)


@pytest.mark.skipif(not VNNI, reason="the host lacks AVX-512 VNNI")
@pytest.mark.parametrize("name,int8_convs", [("resnet", 16), ("mobilenet", 17)])
def test_int8_cnn_tracks_float(nunc, models, tmp_path, name, int8_convs):
    """`--quantize int8` on the CNNs: one-group convolutions run on the int8
    convolution kernels (u8 activations per tensor at run time, s8 weights
    per output channel), depthwise ones stay f32; the kernels writing a
    conv's input measure its range as they store it. Over 200 random inputs the
    outputs stay closer to fp32 than those of onnxruntime's own static int8
    model (quantize_static, per channel) on every input, and within cosine
    0.998 (MobileNet, all of whose small 1x1 convs are int8, is at ~0.9988
    at worst; onnxruntime's model at ~0.997). Top-1: these classifiers have
    random weights, so their top two logits of 1000 lie ~1 % of the logit
    range apart and int8 noise flips some; nunc must agree with fp32 at least
    as often as onnxruntime's int8 model does on the same inputs."""
    from onnxruntime.quantization import QuantFormat, QuantType, quantize_static
    import onnxruntime as ort
    batch = 4
    r = nunc("compile", os.path.join(models, f"{name}.onnx"), "--target", "x86_64-avx512vnni",
             "--quantize", "int8", *pins(name, batch, None), "-o", tmp_path / "out")
    assert f"{int8_convs} convolutions" in r.stderr, r.stderr
    # One image at a time: each image's convs take their own input range.
    assert "runs the batch of 4 one item at a time" in r.stderr, r.stderr
    manifest = json.loads((tmp_path / "out" / f"{name}.json").read_text())
    kernels = [k["kernel"] for k in manifest["kernels"] if k["op"] == "nunc.quantized_conv"]
    assert len(kernels) == int8_convs and all(k.startswith("conv.int8.avx512vnni[") and
                                               "dynamic tensor" in k for k in kernels), kernels
    # Every conv but the stem (which reads the image) takes its input's range
    # from the kernel that wrote it (an int8 conv, depthwise conv or pool
    # marked +range), not from a range pass of its own.
    assert sum("dynamic tensor, producer's range]" in k for k in kernels) == int8_convs - 1
    # The stem and the other 112x112- and 56x56-plane convs with an im2col
    # (not 1x1; many panels, so no two tasks share one) build their panels
    # inside the GEMM tasks.
    big = [k for k in kernels if ("x12544x" in k or "x3136x" in k) and "1x1 kernel" not in k]
    assert big and all("kernel, panel im2col," in k for k in big), kernels
    qdq = str(tmp_path / "qdq.onnx")
    quantize_static(os.path.join(models, f"{name}.onnx"), qdq,
                    Samples(random_inputs(name, 1, None, 40 + i) for i in range(8)),
                    quant_format=QuantFormat.QDQ, activation_type=QuantType.QUInt8,
                    weight_type=QuantType.QInt8, per_channel=True)
    f32 = ort.InferenceSession(os.path.join(models, f"{name}.onnx"),
                               providers=["CPUExecutionProvider"])
    ort_int8 = ort.InferenceSession(qdq, providers=["CPUExecutionProvider"])
    exe, man = harness.build(str(tmp_path / "out"))
    nunc_agree = ort_agree = 0
    for i in range(50):
        feeds = random_inputs(name, batch, None, 2000 + i)
        outs, _, log = harness.run(exe, man, feeds, str(tmp_path / "w"))
        assert outs is not None, log
        got, want = next(iter(outs.values())), f32.run(None, feeds)[0]
        theirs = ort_int8.run(None, feeds)[0]
        assert cosine(got, want) >= max(0.998, cosine(theirs, want)), \
            (i, cosine(got, want), cosine(theirs, want))
        nunc_agree += int((got.argmax(1) == want.argmax(1)).sum())
        ort_agree += int((theirs.argmax(1) == want.argmax(1)).sum())
    assert nunc_agree >= ort_agree, (nunc_agree, ort_agree)


@pytest.mark.skipif(not VNNI, reason="the host lacks AVX-512 VNNI")
def test_int8_conv_input_range_with_and_without_its_producer(nunc, tmp_path):
    """An int8 conv after a conv whose epilogue measures the range of what it
    stores (Relu) reads that range; after one whose epilogue needs every
    register (Sigmoid) it measures the range itself. Both agree with the
    f32 model run by onnxruntime."""
    import onnx
    import onnxruntime as ort
    from onnx import helper as h, numpy_helper as nh
    r = np.random.default_rng(5)
    inits, nodes = [], []
    x = "x"
    for i, act in enumerate(["Relu", "Sigmoid", None]):
        cin = 8 if i == 0 else 16
        inits += [nh.from_array((r.standard_normal((16, cin, 3, 3)) * 0.2).astype(np.float32),
                                f"w{i}"),
                  nh.from_array((r.standard_normal(16) * 0.1).astype(np.float32), f"b{i}")]
        y = "y" if act is None else f"c{i}"
        nodes.append(h.make_node("Conv", [x, f"w{i}", f"b{i}"], [y], pads=[1, 1, 1, 1]))
        if act:
            nodes.append(h.make_node(act, [y], [f"a{i}"]))
            x = f"a{i}"
    g = h.make_graph(nodes, "chain", [h.make_tensor_value_info("x", 1, [1, 8, 20, 21])],
                     [h.make_tensor_value_info("y", 1, [1, 16, 20, 21])], inits)
    path = str(tmp_path / "chain.onnx")
    onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 17)]), path)
    r_ = nunc("compile", path, "--target", "x86_64-avx512vnni", "--quantize", "int8",
              "--explain", "-o", tmp_path / "out")
    convs = [line for line in r_.stdout.splitlines() if "conv.int8.avx512vnni[" in line]
    assert len(convs) == 3, r_.stdout
    assert "dynamic tensor]" in convs[0] and "+range" in convs[0], convs[0]   # the image
    assert "producer's range]" in convs[1] and "+range" not in convs[1], convs[1]
    assert "dynamic tensor]" in convs[2], convs[2]  # after Sigmoid: its own range pass
    exe, man = harness.build(str(tmp_path / "out"))
    feeds = {"x": r.standard_normal((1, 8, 20, 21)).astype(np.float32)}
    outs, _, log = harness.run(exe, man, feeds, str(tmp_path / "w"))
    assert outs is not None, log
    want = ort.InferenceSession(path, providers=["CPUExecutionProvider"]).run(None, feeds)[0]
    assert cosine(outs["y"], want) >= 0.999, cosine(outs["y"], want)


@pytest.mark.skipif(not VNNI, reason="the host lacks AVX-512 VNNI")
def test_static_calibration_cnn(nunc, models, tmp_path):
    """Static PTQ of ResNet: each int8 conv quantizes its input with the
    calibrated (scale, zero point); the profile has the 16 convs' and the
    classifier's inputs."""
    calib = tmp_path / "calib"
    calib.mkdir()
    for i in range(8):
        np.savez(calib / f"sample{i}.npz", **random_inputs("resnet", 1, None, 300 + i))
    nunc("compile", os.path.join(models, "resnet.onnx"), "--target", "x86_64-avx512vnni",
         "--quantize", "int8", "--activations", "static", "--calibration", calib,
         "--save-calibration", tmp_path / "profile.json", *pins("resnet", 1, None), "-o",
         tmp_path / "out")
    manifest = json.loads((tmp_path / "out" / "resnet.json").read_text())
    convs = [k["kernel"] for k in manifest["kernels"] if k["op"] == "nunc.quantized_conv"]
    assert len(convs) == 16 and all("static" in k for k in convs), convs
    assert len(json.loads((tmp_path / "profile.json").read_text())["inputs"]) == 17
    exe, man = harness.build(str(tmp_path / "out"))
    feeds = random_inputs("resnet", 1, None, 9)
    outs, _, log = harness.run(exe, man, feeds, str(tmp_path / "w"))
    assert outs is not None, log
    c = cosine(next(iter(outs.values())), next(iter(reference(models, "resnet", feeds).values())))
    assert c >= 0.999, c


@pytest.mark.skipif(not VNNI, reason="the host lacks AVX-512 VNNI")
def test_static_calibration_of_mobilenet_runs_integer_depthwise_convs(nunc, models, tmp_path):
    """Static PTQ of MobileNet: each depthwise conv an int8 conv feeds gets
    its calibrated input grid as that conv's output grid (the conv writes
    u8 codes) and its filter rounded to s8 per channel, so it runs the
    integer depthwise kernel, where that grid keeps --min-handover-snr;
    dynamic activations keep it on the f32 kernel.
    On 10 random inputs the static library stays closer to fp32 than
    onnxruntime's static int8 model calibrated on the same samples."""
    from onnxruntime.quantization import QuantFormat, QuantType, quantize_static
    import onnxruntime as ort
    model = os.path.join(models, "mobilenet.onnx")
    samples = [random_inputs("mobilenet", 1, None, 300 + i) for i in range(8)]
    calib = tmp_path / "calib"
    calib.mkdir()
    for i, feeds in enumerate(samples):
        np.savez(calib / f"sample{i}.npz", **feeds)
    for mode in ("static", "dynamic"):
        r = nunc("compile", model, "--target", "x86_64-avx512vnni", "--quantize", "int8",
                 "--activations", mode, "--calibration", calib, *pins("mobilenet", 1, None),
                 "--report", tmp_path / f"{mode}.md", "-o", tmp_path / mode)
        kernels = json.loads((tmp_path / mode / "mobilenet.json").read_text())["kernels"]
        depthwise = [k["kernel"] for k in kernels if k["kernel"].startswith("depthwise_conv.")]
        assert len(depthwise) == 8, depthwise
        # The report measures each quantized layer: with static activations
        # the depthwise convs too (their input grid and s8 filter).
        layers = [l.split("|")[1].strip() for l in
                  (tmp_path / f"{mode}.md").read_text().splitlines() if l.startswith("| /")]
        names = [n for k in kernels if k["kernel"].startswith("depthwise_conv.")
                 for n in re.findall(r'node "([^"]*/Conv)"', k["node"])]
        assert len(names) == 8, names
        if mode == "static":
            assert "17 convolutions, 8 depthwise convolutions on u8 inputs, " in r.stderr, r.stderr
            assert "read f32 (input grid below" not in r.stderr, r.stderr
            assert all(k.startswith("depthwise_conv.int8.avx512vnni[") and "u8 in]" in k
                       for k in depthwise), depthwise
            convs = [k["kernel"] for k in kernels if k["op"] == "nunc.quantized_conv"]
            # The stem and the 7 expansions hand their codes to a depthwise conv.
            assert sum(k.endswith("-> u8") and "requantize" in k for k in convs) >= 8, convs
            assert len(layers) == 26 and set(names) <= set(layers), layers
        else:
            assert "8 convolutions stay f32" in r.stderr, r.stderr
            assert all(k.startswith("depthwise_conv.avx512[") and "u8 in" not in k
                       for k in depthwise), depthwise
            assert len(layers) == 18 and not set(names) & set(layers), layers
    # Its ReLU6 inputs fill their grids (42-46 dB, above the default 40):
    # above 50 dB none is handed over, and the depthwise convs keep f32 inputs.
    r = nunc("compile", model, "--target", "x86_64-avx512vnni", "--quantize", "int8",
             "--activations", "static", "--calibration", calib, *pins("mobilenet", 1, None),
             "--min-handover-snr", "50", "-o", tmp_path / "strict")
    assert "; 8 depthwise convolutions after an int8 one read f32 (input grid below " \
        "--min-handover-snr, or kept)" in r.stderr, r.stderr
    kernels = json.loads((tmp_path / "strict" / "mobilenet.json").read_text())["kernels"]
    depthwise = [k["kernel"] for k in kernels if k["kernel"].startswith("depthwise_conv.")]
    assert len(depthwise) == 8 and all(k.startswith("depthwise_conv.avx512[") and
                                       "u8 in" not in k for k in depthwise), depthwise
    qdq = str(tmp_path / "qdq.onnx")
    quantize_static(model, qdq, Samples(samples), quant_format=QuantFormat.QDQ,
                    activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8,
                    per_channel=True)
    f32 = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
    ort_int8 = ort.InferenceSession(qdq, providers=["CPUExecutionProvider"])
    exe, man = harness.build(str(tmp_path / "static"))
    for i in range(10):
        feeds = random_inputs("mobilenet", 1, None, 2000 + i)
        outs, _, log = harness.run(exe, man, feeds, str(tmp_path / "w"))
        assert outs is not None, log
        got, want = next(iter(outs.values())), f32.run(None, feeds)[0]
        theirs = ort_int8.run(None, feeds)[0]
        assert cosine(got, want) >= max(0.998, cosine(theirs, want)), \
            (i, cosine(got, want), cosine(theirs, want))


@pytest.mark.skipif(not VNNI, reason="the host lacks AVX-512 VNNI")
def test_calibration_of_a_split_batch(nunc, models, tmp_path):
    """Calibrating a batch-2 model that runs one item at a time: each batch
    sample counts as two one-item samples, so the minmax profile is the one
    the whole-batch build measures."""
    write_samples(tmp_path / "calib", "minilm", 3, 2, 16)
    common = [os.path.join(models, "minilm.onnx"), "--target", "x86_64-avx512vnni",
              "--quantize", "int8", "--activations", "static", "--calibration",
              tmp_path / "calib"]
    r = nunc("compile", *common, *pins("minilm", 2, 16), "--save-calibration",
             tmp_path / "split.json", "-o", tmp_path / "split")
    assert "runs the batch of 2 one item at a time" in r.stderr, r.stderr
    nunc("compile", *common, *pins("minilm", 2, 16), "--split-batch=false",
         "--save-calibration", tmp_path / "whole.json", "-o", tmp_path / "whole")
    split = json.loads((tmp_path / "split.json").read_text())
    whole = json.loads((tmp_path / "whole.json").read_text())
    assert split["inputs"] == whole["inputs"]
    assert split["samples"] == 6 and whole["samples"] == 3, (split["samples"], whole["samples"])


@pytest.mark.skipif(not VNNI, reason="the host lacks AVX-512 VNNI")
def test_saved_profile_rebuilds_identically(nunc, models, tmp_path):
    write_samples(tmp_path / "calib", "minilm", 4, 1, 16)
    common = [os.path.join(models, "minilm.onnx"), "--target", "x86_64-avx512vnni",
              "--quantize", "int8", "--activations", "static", *pins("minilm", 1, 16)]
    nunc("compile", *common, "--calibration", tmp_path / "calib", "--save-calibration",
         tmp_path / "p.json", "-o", tmp_path / "a")
    nunc("compile", *common, "--load-calibration", tmp_path / "p.json", "-o", tmp_path / "b")
    for f in ("libminilm.a", "minilm.h", "minilm.json"):
        assert (tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes(), f
    # Samples evaluated one, two or three at a time (7 of them: the threads
    # wait for the first ones to be consumed): the same profile (its sums
    # taken in sample order), with and without the histogram pass.
    write_samples(tmp_path / "seven", "minilm", 7, 1, 16)
    for method in ("minmax", "percentile"):
        for threads in (1, 2, 3):
            nunc("compile", *common, "--calibration", tmp_path / "seven", "--calib-method",
                 method, "--calibration-threads", str(threads), "--save-calibration",
                 tmp_path / f"{method}{threads}.json", "-o", tmp_path / f"{method}{threads}")
        for threads in (2, 3):
            assert (tmp_path / f"{method}1.json").read_bytes() == \
                (tmp_path / f"{method}{threads}.json").read_bytes(), (method, threads)


@pytest.mark.skipif(not VNNI, reason="the host lacks AVX-512 VNNI")
def test_smoothquant(nunc, models, tmp_path):
    """--smoothquant smooths the 12 LayerNorm outputs that linears read (Q/K/V
    and FFN1 of each layer; the embedding LayerNorm too) and saves the
    factors in the profile; a rebuild from the profile is byte-identical; the
    library still tracks f32 (these random weights have no outlier channels
    to gain from; test_real_model.py measures the gain) and the residuals
    keep the unsmoothed LayerNorm, so each smoothed one runs twice."""
    write_samples(tmp_path / "calib", "minilm", 8, 1, 16)
    common = [os.path.join(models, "minilm.onnx"), "--target", "x86_64-avx512vnni",
              "--quantize", "int8", "--activations", "static", *pins("minilm", 1, 16)]
    r = nunc("compile", *common, "--calibration", tmp_path / "calib", "--smoothquant=0.6",
             "--save-calibration", tmp_path / "p.json", "-o", tmp_path / "a")
    assert "smoothed 12 LayerNorm output(s) (SmoothQuant, alpha 0.6)" in r.stderr, r.stderr
    profile = json.loads((tmp_path / "p.json").read_text())
    norms = profile["smoothing"]["layer_norms"]
    assert profile["smoothing"]["alpha"] == 0.6 and len(norms) == 12, profile["smoothing"]
    assert all(len(f) == 384 and min(f) > 0 for f in norms.values())
    assert len(set(map(tuple, norms.values()))) == 12  # factors per LayerNorm
    nunc("compile", *common, "--load-calibration", tmp_path / "p.json", "-o", tmp_path / "b")
    for f in ("libminilm.a", "minilm.h", "minilm.json"):
        assert (tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes(), f
    kernels = [k["kernel"] for k in
               json.loads((tmp_path / "a" / "minilm.json").read_text())["kernels"]]
    assert sum(k.startswith("layer_norm.") for k in kernels) == 13 + 12, kernels
    feeds = random_inputs("minilm", 1, 16, 9)
    exe, man = harness.build(str(tmp_path / "a"))
    outs, _, log = harness.run(exe, man, feeds, str(tmp_path / "w"))
    assert outs is not None, log
    c = cosine(outs["last_hidden_state"], reference(models, "minilm", feeds)["last_hidden_state"])
    assert c >= 0.995, c
    # Without smoothing, the same profile's ranges would be the wrong ones:
    # a profile whose smoothing names another model's LayerNorm is refused.
    profile["smoothing"]["layer_norms"]["/no/such/LayerNorm"] = [1.0] * 384
    (tmp_path / "stale.json").write_text(json.dumps(profile))
    r = nunc("compile", *common, "--load-calibration", tmp_path / "stale.json", "-o",
             tmp_path / "c", check=False)
    assert r.returncode == 1 and "smoothing: no LayerNorm '/no/such/LayerNorm'" in r.stderr, \
        r.stderr
    for bad, message in ((["--smoothquant=1.5", "--calibration", tmp_path / "calib"],
                          "--smoothquant takes an alpha with 0 < alpha < 1, got '1.5'"),
                         (["--smoothquant", "--load-calibration", tmp_path / "p.json"],
                          "--smoothquant goes with --quantize int8 --activations static "
                          "--calibration")):
        r = nunc("compile", *common, *bad, "-o", tmp_path / "d", check=False)
        assert r.returncode == 1 and message in r.stderr, r.stderr


@pytest.mark.skipif(not VNNI, reason="the host lacks AVX-512 VNNI")
def test_static_activation_handover_per_target(nunc, models, tmp_path):
    """Each target hands u8 activations over in the rows its int8 GEMMs read
    (AMX and AVX-VNNI too: K = 384 and 1536 are whole tile rows and 8-byte
    groups); the AVX2 form reads 16-bit rows, so there every GEMM quantizes
    its own input. The AVX2 library (no handover) and the AVX-512 VNNI one
    compute the same model: outputs agree to float rounding."""
    write_samples(tmp_path / "calib", "minilm", 4, 1, 16)
    nunc("compile", os.path.join(models, "minilm.onnx"), "--target", "x86_64-avx512vnni",
         "--quantize", "int8", "--activations", "static", "--calibration", tmp_path / "calib",
         "--save-calibration", tmp_path / "p.json", *pins("minilm", 1, 16), "-o",
         tmp_path / "x86_64-avx512vnni")
    for target in ("x86_64-amx", "x86_64-avxvnni", "x86_64-avx2"):
        nunc("compile", os.path.join(models, "minilm.onnx"), "--target", target, "--quantize",
             "int8", "--activations", "static", "--load-calibration", tmp_path / "p.json",
             *pins("minilm", 1, 16), "-o", tmp_path / target)
    for target, family in (("x86_64-avx512vnni", "avx512vnni"), ("x86_64-amx", "amx"),
                           ("x86_64-avxvnni", "avxvnni"), ("x86_64-avx2", "avx2")):
        kernels = [k["kernel"] for k in
                   json.loads((tmp_path / target / "minilm.json").read_text())["kernels"]]
        gemms = [k for k in kernels if k.startswith(f"gemm.int8.{family}[")]
        assert_fused_projections(gemms)
        handover = family != "avx2"
        assert sum("u8 in]" in k for k in gemms) == (24 if handover else 0), (target, gemms)
        assert sum(k.endswith("-> u8") for k in gemms) == (6 if handover else 0), (target, gemms)
        # The attention kernel (AVX-512, and AVX-VNNI's ymm one) writes the
        # output projection's u8 input where u8 rows are handed over.
        assert sum(k.startswith("attention.") and k.endswith("-> u8")
                   for k in kernels) == (6 if handover else 0), (target, kernels)
        assert sum(k.startswith("quantize.") for k in kernels) == \
            (12 if handover else 0), (target, kernels)
        # The layers differ only in their weights and grids, which the
        # kernels read from their arguments: every kernel the six layers
        # repeat is one copy of code (the static grids of the GEMMs' u8
        # outputs, the attention's and the quantizers' are not in the code).
        manifest = json.loads((tmp_path / target / "minilm.json").read_text())
        copies = harness.kernel_code_copies(tmp_path / target, manifest)
        repeated = [k for k in copies if kernels.count(k[0]) >= 6]
        # LayerNorm, 4 GEMMs, attention, and the quantizers where u8 rows
        # are handed over; on AVX2 each GEMM's own quantize step.
        assert len(repeated) == (7 if handover else 10), (target, copies)
        assert all(len(copies[k]) == 1 for k in repeated), (target, copies)
    # AVX2's attention stays f32: against the AVX-512 VNNI library with f32
    # attention the same numbers but for the handover's rounding (a code
    # whose value lies within an ulp of a rounding boundary, about one in
    # 10^5: one in the K or V codes moves every row by ~1e-4 in cosine);
    # with int8 products (the default) each rounds its downstream u8 codes
    # its own way, as far apart as both are from f32.
    nunc("compile", os.path.join(models, "minilm.onnx"), "--target", "x86_64-avx512vnni",
         "--quantize", "int8", "--activations", "static", "--load-calibration",
         tmp_path / "p.json", "--attention", "f32", *pins("minilm", 1, 16), "-o",
         tmp_path / "f32-attention")
    kernels = [k["kernel"] for k in
               json.loads((tmp_path / "f32-attention" / "minilm.json").read_text())["kernels"]]
    assert sum(k.startswith("attention.avx512[") for k in kernels) == 6, kernels
    feeds = random_inputs("minilm", 1, 16, 8)
    outs = {}
    for target in ("x86_64-avx512vnni", "f32-attention", "x86_64-avx2"):
        exe, man = harness.build(str(tmp_path / target))
        outs[target], _, log = harness.run(exe, man, feeds, str(tmp_path / target / "w"))
        assert outs[target] is not None, log
    a, f, b = (outs[t]["last_hidden_state"]
               for t in ("x86_64-avx512vnni", "f32-attention", "x86_64-avx2"))
    assert cosine(f, b) >= 0.9998, cosine(f, b)
    assert cosine(a, b) >= 0.999, cosine(a, b)


def test_static_calibration_errors(nunc, models, tmp_path):
    base = ["compile", os.path.join(models, "minilm.onnx"), "--target", "x86_64-avx512vnni",
            "--quantize", "int8", *pins("minilm", 1, 8), "-o", tmp_path / "out"]

    def error(*extra):
        r = nunc(*base, *extra, check=False)
        assert r.returncode == 1
        return r.stderr

    assert "needs exactly one of --calibration" in error("--activations", "static")
    assert "unknown calibration method 'kl' (expected minmax, percentile[=P], mse or entropy)" \
        in error("--calib-method", "kl")
    assert "--calib-method chooses static activation ranges; it goes with --quantize int8 " \
        "--activations static" in error("--calib-method", "mse")
    # With dynamic activations a profile brings the means of bias correction.
    assert "cannot read the calibration profile" in error("--load-calibration",
                                                          tmp_path / "x.json")
    assert "--save-calibration writes the profile of the --calibration samples" in error(
        "--save-calibration", tmp_path / "p.json")
    assert "--bias-correction needs the channel means of --calibration samples or of a " \
        "--load-calibration profile" in error("--bias-correction=false")
    assert "--min-handover-snr goes with --quantize int8 --activations static" in error(
        "--min-handover-snr", "30")
    assert "--min-handover-snr takes a number of dB >= 0" in error(
        "--activations", "static", "--calibration", tmp_path / "x.npz", "--min-handover-snr=-1")
    r = nunc("compile", os.path.join(models, "minilm.onnx"), "--target", "x86_64-avx512vnni",
             "--calibration", tmp_path / "x.npz", "-o", tmp_path / "out", check=False)
    assert r.returncode == 1 and "--calibration, --load-calibration and --save-calibration go " \
        "with --quantize int8" in r.stderr, r.stderr
    (tmp_path / "stale.json").write_text(json.dumps(
        {"format": "nunc-calibration-1", "method": "minmax", "samples": 1, "inputs": {}}))
    assert "has no range for the input of linear op '/encoder/layer.0/attention/self/query" \
        "/MatMul'" in error("--activations", "static", "--load-calibration",
                             tmp_path / "stale.json")
    (tmp_path / "calib").mkdir()
    np.savez(tmp_path / "calib" / "bad.npz", input_ids=np.zeros((1, 8), np.int64))
    assert "has no array named 'attention_mask'" in error(
        "--activations", "static", "--calibration", tmp_path / "calib")
    # A file that is no .npz: named once, with what is wrong.
    (tmp_path / "garbage.npz").write_bytes(b"PK\x03\x04 not a zip")
    message = error("--activations", "static", "--calibration", tmp_path / "garbage.npz")
    assert f"error: {tmp_path / 'garbage.npz'}: not a .npz (zip) file" in message, message
    assert message.count("garbage.npz") == 1, message
    assert not (tmp_path / "out" / "libminilm.a").exists()
    # A batch of 2 run item by item takes samples of the batch or of one item.
    np.savez(tmp_path / "four.npz", **random_inputs("minilm", 4, 16, 1))
    r = nunc("compile", os.path.join(models, "minilm.onnx"), "--target", "x86_64-avx512vnni",
             "--quantize", "int8", *pins("minilm", 2, 16), "--activations", "static",
             "--calibration", tmp_path / "four.npz", "-o", tmp_path / "out", check=False)
    assert r.returncode == 1
    assert "four.npz: input 'input_ids' has shape [4, 16], expected [2, 16] (the batch) or " \
        "[1, 16] (one item)" in r.stderr, r.stderr


def kept_layers(report):
    """The report's layers kept in f32: {key: what kept it}."""
    lines = report.split("## Layers kept in f32\n\n")[1].split("\n\n")[0].splitlines()
    if lines == ["none"]:
        return {}
    return dict(re.fullmatch(r"- (.*) \((--[a-z0-9-]+)\)", l).groups() for l in lines)


def f32_layers(manifest):
    """The MatMuls on f32 GEMMs and the Softmaxes of f32 attentions."""
    kinds = {"gemm.avx512": "MatMul", "attention.avx512[": "Softmax"}
    return sorted(n for k in manifest["kernels"] for kind, node in kinds.items()
                  if k["kernel"].startswith(kind)
                  for n in re.findall(f'node "([^"]*/{node})"', k["node"]))


@pytest.mark.skipif(not VNNI, reason="the host lacks AVX-512 VNNI")
def test_report_and_accuracy_target(nunc, models, tmp_path):
    """--report writes per-layer SNR/cosine and output agreement (the 36
    int8 GEMMs and the 6 attentions on int8 products, named by their
    Softmax); --accuracy-target keeps the most sensitive layers in f32
    until the outputs reach it on the samples."""
    write_samples(tmp_path / "calib", "minilm", 2, 1, 16)
    common = [os.path.join(models, "minilm.onnx"), "--target", "x86_64-avx512vnni",
              "--quantize", "int8", "--calibration", tmp_path / "calib", *pins("minilm", 1, 16)]
    nunc("compile", *common, "--report", tmp_path / "all.md", "-o", tmp_path / "all")
    text = (tmp_path / "all.md").read_text()
    # Its samples evaluated one at a time (above: one per hardware thread):
    # the same report.
    nunc("compile", *common, "--report", tmp_path / "one.md", "--calibration-threads", "1",
         "-o", tmp_path / "one")
    assert (tmp_path / "one.md").read_text() == text
    assert "## Layers kept in f32\n\nnone" in text
    rows = [l for l in text.splitlines() if l.startswith("| /encoder/")]
    assert len(rows) == 42, text
    attentions = [float(l.split("|")[2]) for l in rows if "/attention/self/Softmax |" in l]
    assert len(attentions) == 6 and all(30 < snr < 80 for snr in attentions), rows
    base = float(next(l for l in text.splitlines()
                      if l.startswith("| last_hidden_state")).split("|")[2])
    assert 0.999 < base < 0.99999
    target = 1 - (1 - base) / 3  # needs some layers back in f32
    nunc("compile", *common, "--report", tmp_path / "mixed.md", "--accuracy-target",
         f"cos={target:.7f}", "-o", tmp_path / "mixed")
    text = (tmp_path / "mixed.md").read_text()
    kept = kept_layers(text)
    assert kept and all(k.startswith("/encoder/") and why == "--accuracy-target"
                        for k, why in kept.items()), text
    reached = float(next(l for l in text.splitlines()
                         if l.startswith("| last_hidden_state")).split("|")[2])
    assert reached >= target - 1e-6, (reached, target)
    manifest = json.loads((tmp_path / "mixed" / "minilm.json").read_text())
    # The f32 GEMMs compute exactly the kept MatMuls (a layer's Q, K and V
    # in one GEMM where all three were kept), the f32 attentions exactly the
    # kept Softmaxes.
    assert f32_layers(manifest) == sorted(kept), (f32_layers(manifest), kept)


@pytest.mark.skipif(not VNNI, reason="the host lacks AVX-512 VNNI")
def test_keep_f32_names_layers(nunc, models, tmp_path):
    """--keep-f32 leaves the layers it names (ONNX node names or globs over
    them) in f32, with --accuracy-target adding to them; names that match
    no layer are one error listing them all."""
    model = os.path.join(models, "minilm.onnx")
    common = [model, "--target", "x86_64-avx512vnni", *pins("minilm", 1, 16)]
    layer1 = ["/encoder/layer.1/attention/output/dense/MatMul",
              "/encoder/layer.1/attention/self/Softmax",
              "/encoder/layer.1/attention/self/key/MatMul",
              "/encoder/layer.1/attention/self/query/MatMul",
              "/encoder/layer.1/attention/self/value/MatMul",
              "/encoder/layer.1/intermediate/dense/MatMul",
              "/encoder/layer.1/output/dense/MatMul"]
    write_samples(tmp_path / "calib", "minilm", 2, 1, 16)
    r = nunc("compile", *common, "--quantize", "int8", "--calibration", tmp_path / "calib",
             "--keep-f32", "/encoder/layer.1/*,/embeddings/word_embeddings/Gather",
             "--keep-f32", "/encoder/layer.3/output/dense/MatMul",
             "--report", tmp_path / "kept.md", "-o", tmp_path / "kept")
    named = layer1 + ["/embeddings/word_embeddings/Gather", "/encoder/layer.3/output/dense/MatMul"]
    assert "--keep-f32 leaves 9 layers in f32" in r.stderr, r.stderr
    assert "int8: 29 linear ops, 5 attentions on int8 codes, 0 embedding tables" in r.stderr
    text = (tmp_path / "kept.md").read_text()
    assert kept_layers(text) == {k: "--keep-f32" for k in named}, text
    quantized_rows = [l.split("|")[1].strip() for l in text.splitlines() if l.startswith("| /")]
    assert len(quantized_rows) == 42 - 8 and not set(quantized_rows) & set(named), quantized_rows
    manifest = json.loads((tmp_path / "kept" / "minilm.json").read_text())
    assert f32_layers(manifest) == sorted(layer1 + named[-1:]), f32_layers(manifest)
    gathers = [k["kernel"] for k in manifest["kernels"] if k["op"] == "nunc.gather"]
    assert any("of 1536 B from 30522" in k for k in gathers), gathers  # f32 rows of 384

    # Every layer named: the int8 compile is the f32 one, bit for bit.
    nunc("compile", *common, "--quantize", "int8", "--keep-f32", "*", "-o", tmp_path / "all")
    nunc("compile", *common, "-o", tmp_path / "f32")
    feeds = random_inputs("minilm", 1, 16, 3)
    outs = {}
    for build in ("all", "f32", "kept"):
        exe, man = harness.build(str(tmp_path / build))
        got, _, log = harness.run(exe, man, feeds, str(tmp_path / f"w{build}"))
        assert got is not None, log
        outs[build] = got["last_hidden_state"]
    np.testing.assert_array_equal(outs["all"], outs["f32"])
    assert 0.999 < cosine(outs["kept"], outs["f32"]) < 1
    # nunc run takes it too.
    np.savez(tmp_path / "feeds.npz", **feeds)
    for build, flags in (("all", ("--quantize", "int8", "--keep-f32", "*")), ("f32", ())):
        nunc("run", model, *pins("minilm", 1, 16), "--input", tmp_path / "feeds.npz", *flags,
             "-o", tmp_path / f"run_{build}.npz")
    np.testing.assert_array_equal(np.load(tmp_path / "run_all.npz")["last_hidden_state"],
                                  np.load(tmp_path / "run_f32.npz")["last_hidden_state"])

    # With --accuracy-target: the named layers stay f32 and the search adds
    # the most sensitive of the others.
    base = float(next(l for l in text.splitlines()
                      if l.startswith("| last_hidden_state")).split("|")[2])
    target = 1 - (1 - base) / 3
    nunc("compile", *common, "--quantize", "int8", "--calibration", tmp_path / "calib",
         "--keep-f32", "/encoder/layer.1/*", "--accuracy-target", f"cos={target:.7f}",
         "--report", tmp_path / "mixed.md", "-o", tmp_path / "mixed")
    kept = kept_layers((tmp_path / "mixed.md").read_text())
    assert {k for k, why in kept.items() if why == "--keep-f32"} == set(layer1), kept
    searched = {k for k, why in kept.items() if why == "--accuracy-target"}
    assert searched and not searched & set(layer1), kept

    # Names that match nothing: one error naming them all, nothing written.
    r = nunc("compile", *common, "--quantize", "int8", "--keep-f32",
             "/encoder/layer.0/output/dense/MatMul,/no/such/MatMul,/encoder/layer.9/*",
             "-o", tmp_path / "bad", check=False)
    assert r.returncode == 1 and "--keep-f32: no MatMul, Gemm, Conv, attention or embedding " \
        "Gather layer is named '/no/such/MatMul', '/encoder/layer.9/*'" in r.stderr, r.stderr
    assert not (tmp_path / "bad").exists()
    r = nunc("compile", *common, "--keep-f32", "/encoder/layer.0/output/dense/MatMul",
             "-o", tmp_path / "bad", check=False)
    assert r.returncode == 1 and "--keep-f32 goes with --quantize int8" in r.stderr, r.stderr
    r = nunc("run", model, *pins("minilm", 1, 16), "--random-inputs", "--quantize", "int8",
             "--keep-f32", "/nope", check=False)
    assert r.returncode == 1 and "--keep-f32: no MatMul, Gemm, Conv, attention or embedding " \
        "Gather layer is named '/nope'" in r.stderr, r.stderr
    # A Gather of shapes or indices is no layer.
    r = nunc("compile", *common, "--quantize", "int8", "--keep-f32",
             "/encoder/layer.0/attention/self/Gather", "-o", tmp_path / "bad", check=False)
    assert r.returncode == 1 and "is named '/encoder/layer.0/attention/self/Gather'" in r.stderr, \
        r.stderr


class Samples:
    """An onnxruntime CalibrationDataReader over fixed feeds."""

    def __init__(self, feeds):
        self.feeds = list(feeds)

    def get_next(self):
        return self.feeds.pop() if self.feeds else None


@pytest.mark.skipif(not VNNI, reason="the host lacks AVX-512 VNNI")
@pytest.mark.parametrize("activation,weight,form,kernel", [
    ("QUInt8", "QInt8", "", "gemm.int8.avx512vnni[64x130x384, static, u8 in] +product codes +bias codes +requantize"),
    ("QInt8", "QInt8", "", "gemm.int8.avx512vnni[64x130x384, static, u8 in] +product codes +bias +requantize"),
    ("QUInt8", "QUInt8", "", "gemm.int8.avx512vnni[64x130x384, static, u8 in, u8 weights] +product codes +bias codes +requantize"),
    ("QUInt16", "QInt8", "", "gemm.int8.avx512vnni[64x130x384, static, u16 in] +rounded product +bias +requantize"),
    ("QInt16", "QInt8", "", "gemm.int8.avx512vnni[64x130x384, static, u16 in] +rounded product +bias +requantize"),
    ("QUInt8", "QInt8", "contrib", "gemm.int8.avx512vnni[64x130x384, static, u8 in] +product codes +bias codes +requantize"),
    ("QUInt16", "QInt8", "contrib", "gemm.int8.avx512vnni[64x130x384, static, u16 in] +rounded product +bias +requantize"),
    ("QUInt8", "QInt8", "f32 weight", "gemm.int8.avx512vnni[64x260x384, static, u8 in] +product codes +bias codes +requantize")])
def test_imported_qdq_layer_matches_onnxruntime(nunc, tmp_path, activation, weight, form,
                                                kernel):
    """A quantize_static (QDQ) layer: with 8-bit activations and s8 weights
    the MatMul runs on the VNNI kernel, reading the input quantized with the
    model's static activation quantization (a quantize step of its own),
    with the Q/DQ pairs after the MatMul and after its bias Add in the
    epilogue (product_quantization, output_quantization), u8 weights (zero
    point 128) too (a row-sum step sums each row's codes); 16-bit
    activations (u16, or s16 as the u16 grid 32768 higher) with s8 weights
    run the same kernel once per byte of the codes, reading both byte
    planes of their quantize step. Either way
    the output, requantized by the model's own Q/DQ, is within one unit of
    its scale from onnxruntime's; with u8 activations the MatMul and the
    bias Add compute as onnxruntime's QLinearMatMul and QLinearAdd
    (one_step_requantization: "+product codes +bias codes") and the
    output equals onnxruntime's bit for bit; with s8 activations (the
    pairs converted to u8 there) as its QLinearMatMul and an f32 bias Add
    (qlinear_product: "+product codes +bias"), bit for bit too. Other forms of the same model: "contrib"
    written with onnxruntime's own com.microsoft Q/DQ ops
    (UseQDQContribOps), which nunc takes as the ai.onnx ones; "f32 weight"
    with the weight kept in f32 behind its own QuantizeLinear ->
    DequantizeLinear (AddQDQPairToWeight, as TensorRT-style QDQ models
    are), which constant folding quantizes at compile time (a weight past
    its max-elements, 65536). The same kernels and results."""
    from onnxruntime.quantization import QuantFormat, QuantType, quantize_static
    import onnx
    from onnx import numpy_helper as nh
    one_layer_model(str(tmp_path / "f32.onnx"), 64, 384, 260 if form == "f32 weight" else 130, 8)
    r = np.random.default_rng(9)
    calib = [{"x": (r.standard_normal((64, 384)) * 2).astype(np.float32)} for _ in range(4)]
    quantize_static(str(tmp_path / "f32.onnx"), str(tmp_path / "q.onnx"), Samples(calib),
                    quant_format=QuantFormat.QDQ, activation_type=getattr(QuantType, activation),
                    weight_type=getattr(QuantType, weight),
                    extra_options={"UseQDQContribOps": form == "contrib",
                                   "AddQDQPairToWeight": form == "f32 weight"})
    graph = onnx.load(str(tmp_path / "q.onnx")).graph
    domains = {n.domain for n in graph.node if n.op_type.endswith("QuantizeLinear")}
    assert domains == ({"com.microsoft"} if form == "contrib" else {""}), domains
    f32_weights = [i.name for i in graph.initializer if i.data_type == onnx.TensorProto.FLOAT
                   and len(i.dims) == 2]
    assert len(f32_weights) == (form == "f32 weight"), f32_weights
    nunc("compile", tmp_path / "q.onnx", "--target", "x86_64-avx512vnni", "-o", tmp_path / "out")
    manifest = json.loads((tmp_path / "out" / "q.json").read_text())
    gemms = [k["kernel"] for k in manifest["kernels"] if k["op"].endswith("linear")]
    assert gemms == [kernel], manifest["kernels"]
    exe, man = harness.build(str(tmp_path / "out"))
    x = (r.standard_normal((64, 384)) * 2).astype(np.float32)
    outs, _, log = harness.run(exe, man, {"x": x}, str(tmp_path / "w"))
    assert outs is not None, log
    optimized, plain = onnxruntime_both_ways(str(tmp_path / "q.onnx"), {"x": x})
    inits = {i.name: nh.to_array(i) for i in onnx.load(str(tmp_path / "q.onnx")).graph.initializer}
    unit = float(inits["y_scale"])
    # onnxruntime without graph optimizations runs the Q/DQ ops as ONNX
    # defines them; its optimized 16-bit path is ~180 units off from that,
    # so only the 8-bit cases are held to the optimized onnxruntime too.
    # One unit, plus the float rounding of dequantized values (a 16-bit unit
    # is only ~1000 ulps of the outputs).
    bound = unit + 4 * float(np.spacing(np.abs(plain).max()))
    assert float(np.abs(outs["y"] - plain).max()) <= bound
    if "16" not in activation:
        assert float(np.abs(outs["y"] - optimized).max()) <= bound
        if "product codes" in kernel:
            np.testing.assert_array_equal(outs["y"], optimized)
    else:  # nunc run compiles for this host as nunc compile does
        r = nunc("run", tmp_path / "q.onnx", "--random-inputs", "-o", tmp_path / "run.npz",
                 "--explain")
        assert "gemm.int8.avx512vnni[64x130x384, static, u16 in]" in r.stderr, r.stderr


@pytest.mark.skipif(not VNNI, reason="the host lacks AVX-512 VNNI")
@pytest.mark.parametrize("target,form,activation", [
    ("x86_64-avx512vnni", "QDQ", "QUInt8"), ("x86_64-avxvnni-evex", "QDQ", "QUInt8"),
    ("x86_64-avx2", "QDQ", "QUInt8"), ("x86_64-avx512vnni", "QOperator", "QUInt8"),
    ("x86_64-avx512vnni", "QOperator", "QInt8")])
def test_imported_qdq_gelu_layer_equals_onnxruntime(nunc, tmp_path, target, form, activation):
    """A QDQ (u8) MatMul + bias + GELU as exporters write it (Div by sqrt 2,
    Erf, Add 1, Mul x, Mul 0.5): quantize_static quantizes the 1 and the 0.5
    as well, and onnxruntime runs the Add and the Muls as QLinearAdd /
    QLinearMul on their codes. nunc's epilogue computes each input code's
    GELU in those steps (gelu_qlinear_arithmetic, "gelu in qlinear steps",
    a lookup table: zmm permutes, ymm gathers): the outputs equal
    onnxruntime's bit for bit, where rounding f32 steps to the same grids
    put 172 of 8704 a step apart."""
    import onnx
    from onnxruntime.quantization import QuantFormat, QuantType, quantize_static
    from onnx import helper as h, numpy_helper as nh
    r = np.random.default_rng(31)
    m, k, n = 64, 96, 136
    inits = [nh.from_array((r.standard_normal((k, n)) * 0.12).astype(np.float32), "w"),
             nh.from_array((r.standard_normal(n) * 0.5).astype(np.float32), "b"),
             nh.from_array(np.array(1.4142135, np.float32), "sqrt2"),
             nh.from_array(np.array(1.0, np.float32), "one"),
             nh.from_array(np.array(0.5, np.float32), "half")]
    nodes = [h.make_node("MatMul", ["x", "w"], ["mm"]), h.make_node("Add", ["mm", "b"], ["pre"]),
             h.make_node("Div", ["pre", "sqrt2"], ["d"]), h.make_node("Erf", ["d"], ["e"]),
             h.make_node("Add", ["e", "one"], ["s"]), h.make_node("Mul", ["pre", "s"], ["p"]),
             h.make_node("Mul", ["p", "half"], ["y"])]
    g = h.make_graph(nodes, "gelu", [h.make_tensor_value_info("x", 1, [m, k])],
                     [h.make_tensor_value_info("y", 1, [m, n])], inits)
    onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 17)]), str(tmp_path / "f32.onnx"))
    calib = [{"x": r.standard_normal((m, k)).astype(np.float32)} for _ in range(4)]
    q = str(tmp_path / "q.onnx")
    quantize_static(str(tmp_path / "f32.onnx"), q, Samples(calib),
                    quant_format=getattr(QuantFormat, form),
                    activation_type=getattr(QuantType, activation), weight_type=QuantType.QInt8)
    nunc("compile", q, "--target", target, "-o", tmp_path / "out")
    kernels = json.loads((tmp_path / "out" / "q.json").read_text())["kernels"]
    gemms = [k["kernel"] for k in kernels if k["op"] == "nunc.quantized_linear"]
    assert len(gemms) == 1 and "+requantize gelu in qlinear steps" in gemms[0], kernels
    exe, man = harness.build(str(tmp_path / "out"))
    for i in range(3):
        x = (r.standard_normal((m, k)) * 1.2).astype(np.float32)
        outs, _, log = harness.run(exe, man, {"x": x}, str(tmp_path / f"w{i}"))
        assert outs is not None, log
        ort_q, _ = onnxruntime_both_ways(q, {"x": x})
        assert np.unique(ort_q).size > 100
        np.testing.assert_array_equal(outs["y"], ort_q)


@pytest.mark.parametrize("target,family,flag", [("x86_64-avx512vnni", "avx512", "avx512f"),
                                                ("x86_64-avx2", "avx2", "avx2")])
@pytest.mark.parametrize("n", [8, 16, 392, 768])
def test_layer_norm_between_pairs_equals_onnxruntime(nunc, tmp_path, target, family, flag, n):
    """A LayerNormalization reading a Q/DQ pair's values (as in a QDQ or
    QOperator transformer, where onnxruntime runs it in f32 between the
    pairs) rounds every step as onnxruntime's CPU kernel does
    (ordered_f32_arithmetic): its f32 outputs equal onnxruntime's bit for
    bit on rows of 8 to 768, on both ISAs' kernels, where the plain kernel's
    sums round a few ulps apart (a code apart on the next pair)."""
    if not host_has(flag):
        pytest.skip(f"the host lacks {flag}")
    import onnx
    import onnxruntime as ort
    from onnx import TensorProto, helper
    r = np.random.default_rng(n)
    rows = 67
    inits = [helper.make_tensor("s", TensorProto.FLOAT, [], [0.0137]),
             helper.make_tensor("zp", TensorProto.UINT8, [], [131]),
             helper.make_tensor("g", TensorProto.FLOAT, [n], r.standard_normal(n).tolist()),
             helper.make_tensor("b", TensorProto.FLOAT, [n], r.standard_normal(n).tolist())]
    nodes = [helper.make_node("QuantizeLinear", ["x", "s", "zp"], ["q"], name="quant"),
             helper.make_node("DequantizeLinear", ["q", "s", "zp"], ["d"], name="dequant"),
             helper.make_node("LayerNormalization", ["d", "g", "b"], ["y"], axis=-1,
                              epsilon=1e-12, name="norm")]
    graph = helper.make_graph(nodes, "ln", [helper.make_tensor_value_info(
        "x", TensorProto.FLOAT, [rows, n])], [helper.make_tensor_value_info(
            "y", TensorProto.FLOAT, [rows, n])], inits)
    path = str(tmp_path / "ln.onnx")
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    nunc("compile", path, "--target", target, "-o", tmp_path / "out")
    manifest = json.loads((tmp_path / "out" / "ln.json").read_text())
    norms = [k["kernel"] for k in manifest["kernels"] if k["op"] == "nunc.layer_norm"]
    assert len(norms) == 1 and re.fullmatch(
        rf"layer_norm\.{family}\[\d+x{n}\] \+bias \+ordered f32 steps", norms[0]), norms
    exe, man = harness.build(str(tmp_path / "out"))
    x = (r.standard_normal((rows, n)) * 0.8 + 0.3).astype(np.float32)
    outs, _, log = harness.run(exe, man, {"x": x}, str(tmp_path / "w"))
    assert outs is not None, log
    want = ort.InferenceSession(path, providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    np.testing.assert_array_equal(outs["y"], want)


@pytest.mark.parametrize("target,family,flag", [("x86_64-avx512vnni", "avx512", "avx512f"),
                                                ("x86_64-avx2", "avx2", "avx2")])
def test_reduce_mean_between_pairs_equals_onnxruntime(nunc, tmp_path, target, family, flag):
    """A ReduceMean over the last axis reading a Q/DQ pair's values (a
    decomposed LayerNorm's mean in a QDQ or QOperator BERT, which
    onnxruntime runs in f32 between the pairs) sums each row as
    onnxruntime's kernel does (ordered_f32_arithmetic: Eigen's SSE packets):
    its means equal onnxruntime's bit for bit on rows of 8 to 772, where a
    sum in another order is an ulp off on most rows of magnitude-varied
    data."""
    if not host_has(flag):
        pytest.skip(f"the host lacks {flag}")
    import onnx
    import onnxruntime as ort
    from onnx import TensorProto, helper
    for n in (8, 12, 20, 388, 768, 772):
        r = np.random.default_rng(n)
        rows = 67
        inits = [helper.make_tensor("s", TensorProto.FLOAT, [], [0.0137]),
                 helper.make_tensor("zp", TensorProto.UINT8, [], [131])]
        nodes = [helper.make_node("QuantizeLinear", ["x", "s", "zp"], ["q"], name="quant"),
                 helper.make_node("DequantizeLinear", ["q", "s", "zp"], ["d"], name="dequant"),
                 helper.make_node("ReduceMean", ["d"], ["y"], axes=[-1], name="mean")]
        graph = helper.make_graph(nodes, "mean", [helper.make_tensor_value_info(
            "x", TensorProto.FLOAT, [rows, n])], [helper.make_tensor_value_info(
                "y", TensorProto.FLOAT, [rows, 1])], inits)
        path = str(tmp_path / f"mean{n}.onnx")
        onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)
        out = tmp_path / f"out{n}"
        nunc("compile", path, "--target", target, "-o", out)
        manifest = json.loads((out / f"mean{n}.json").read_text())
        means = [k["kernel"] for k in manifest["kernels"] if k["op"] == "nunc.reduce_mean"]
        assert len(means) == 1 and re.fullmatch(
            rf"reduce_mean\.{family}\[\d+ rows of {n}\] \+ordered f32 steps", means[0]), means
        exe, man = harness.build(str(out))
        x = (r.standard_normal((rows, n)) * np.exp(r.uniform(-1, 1.5, (rows, 1))) + 0.3)
        x = x.astype(np.float32)
        outs, _, log = harness.run(exe, man, {"x": x}, str(tmp_path / f"w{n}"))
        assert outs is not None, log
        want = ort.InferenceSession(path, providers=["CPUExecutionProvider"]).run(
            None, {"x": x})[0]
        np.testing.assert_array_equal(outs["y"], want, err_msg=f"rows of {n}")


@pytest.mark.skipif(not host_has("avx512f"), reason="the host lacks AVX-512")
@pytest.mark.parametrize("codes", ["u8", "s8"])
def test_qlinear_mul_by_a_constant_equals_onnxruntime(nunc, tmp_path, codes):
    """com.microsoft.QLinearMul of activation codes by a constant of codes
    that broadcasts (an unfused LayerNorm's scale in a QOperator model)
    computes its codes as onnxruntime's kernel does: nunc.mul's codes
    (round(fl(fl(va vb) r) + zc)), equal bit for bit on 67 x 129 random
    inputs, u8 and s8 codes alike."""
    import onnx
    import onnxruntime as ort
    from onnx import TensorProto, helper
    r = np.random.default_rng(7)
    t = TensorProto.UINT8 if codes == "u8" else TensorProto.INT8
    lo, hi = (0, 255) if codes == "u8" else (-128, 127)
    n = 129
    inits = [helper.make_tensor("s", TensorProto.FLOAT, [], [0.0213]),
             helper.make_tensor("z", t, [], [lo + 131]),
             helper.make_tensor("g", t, [n], r.integers(lo, hi + 1, n).tolist()),
             helper.make_tensor("gs", TensorProto.FLOAT, [], [0.0071]),
             helper.make_tensor("gz", t, [], [lo + 90]),
             helper.make_tensor("ys", TensorProto.FLOAT, [], [0.0167]),
             helper.make_tensor("yz", t, [], [lo + 120])]
    nodes = [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"], name="quant"),
             helper.make_node("QLinearMul", ["q", "s", "z", "g", "gs", "gz", "ys", "yz"], ["m"],
                              domain="com.microsoft", name="scale"),
             helper.make_node("DequantizeLinear", ["m", "ys", "yz"], ["y"], name="dequant")]
    graph = helper.make_graph(nodes, "mul", [helper.make_tensor_value_info(
        "x", TensorProto.FLOAT, [67, n])], [helper.make_tensor_value_info(
            "y", TensorProto.FLOAT, [67, n])], inits)
    path = str(tmp_path / "mul.onnx")
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                      helper.make_opsetid("com.microsoft", 1)]),
              path)
    nunc("compile", path, "--target", "x86_64-avx512", "-o", tmp_path / "out")
    kernels = [k["kernel"] for k in json.loads((tmp_path / "out" / "mul.json").read_text())[
        "kernels"] if k["op"] == "nunc.mul"]
    assert len(kernels) == 1 and kernels[0].endswith("+codes multiplied in one step"), kernels
    exe, man = harness.build(str(tmp_path / "out"))
    x = (r.standard_normal((67, n)) * 1.5).astype(np.float32)
    outs, _, log = harness.run(exe, man, {"x": x}, str(tmp_path / "w"))
    assert outs is not None, log
    want = ort.InferenceSession(path, providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    np.testing.assert_array_equal(outs["y"], want)


def onnxruntime_both_ways(model, feeds):
    """The first output of onnxruntime with and without its graph
    optimizations: how far onnxruntime's own results on a QDQ model drift."""
    import onnxruntime as ort
    plain = ort.SessionOptions()
    plain.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    return [ort.InferenceSession(model, *opts, providers=["CPUExecutionProvider"])
            .run(None, feeds)[0] for opts in ((), (plain,))]


def qdq_minilm_outputs(q, tmp_path):
    """The output of the MiniLM library in tmp_path/out (model q) on one
    random input at batch 1, seq 16; onnxruntime's with and without graph
    optimizations; q's initializers; the input."""
    import onnx
    from onnx import numpy_helper as nh
    exe, man = harness.build(str(tmp_path / "out"))
    feeds = random_inputs("minilm", 1, 16, 3)
    outs, _, log = harness.run(exe, man, feeds, str(tmp_path / "w"))
    assert outs is not None, log
    ort_q, ort_plain = onnxruntime_both_ways(q, feeds)
    inits = {i.name: nh.to_array(i) for i in onnx.load(q).graph.initializer}
    return outs["last_hidden_state"], ort_q, ort_plain, inits, feeds


def assert_qdq_minilm_tracks_onnxruntime(q, models, tmp_path, f32_output=False, exact=False):
    """The QDQ MiniLM library in tmp_path/out agrees with onnxruntime's run of
    model q at least as well as onnxruntime agrees with itself across
    optimization levels (within one unit of the output grid, and cosine),
    and stays within cosine 0.99 of fp32 (or as close as onnxruntime's run
    of it, where that is further). `f32_output`: the model leaves its
    last LayerNorm unquantized (QOperator; only MatMuls quantized), so there
    is no output grid to count units on, only the cosines. `exact`: equal to
    onnxruntime's optimized run bit for bit (every step as its kernels
    compute it)."""
    got, ort_q, ort_plain, inits, feeds = qdq_minilm_outputs(q, tmp_path)
    if exact:
        np.testing.assert_array_equal(got, ort_q)
    assert ("last_hidden_state_scale" not in inits) == f32_output
    if not f32_output:
        unit = float(inits["last_hidden_state_scale"])

        def within_one_unit(a, b):
            return float((np.abs(a - b) <= unit * 1.001).mean())

        assert within_one_unit(got, ort_q) >= within_one_unit(ort_q, ort_plain) - 0.05
    assert cosine(got, ort_q) >= cosine(ort_q, ort_plain) - 0.001, cosine(got, ort_q)
    # (Where onnxruntime's own run of the model is further from fp32 - s8
    # symmetric grids saturate the attention's masked scores - as far.)
    f32 = reference(models, "minilm", feeds)["last_hidden_state"]
    assert cosine(got, f32) >= min(0.99, cosine(ort_q, f32) - 0.001)


def qdq_minilm(nunc, models, tmp_path, name, samples=8, **options):
    """quantize_static's QDQ MiniLM (u8 activations and s8 weights unless
    `options` say otherwise), calibrated on `samples` random inputs, as
    tmp_path/<name>.onnx, compiled for x86_64-avx512vnni at batch 1, seq 16
    into tmp_path/out: the model's path and the library's manifest."""
    from onnxruntime.quantization import QuantFormat, QuantType, quantize_static
    q = str(tmp_path / f"{name}.onnx")
    quantize_static(os.path.join(models, "minilm.onnx"), q,
                    Samples(random_inputs("minilm", 1, 16, 20 + i) for i in range(samples)),
                    **{"quant_format": QuantFormat.QDQ, "activation_type": QuantType.QUInt8,
                       "weight_type": QuantType.QInt8, **options})
    nunc("compile", q, "--target", "x86_64-avx512vnni", *pins("minilm", 1, 16), "-o",
         tmp_path / "out")
    return q, json.loads((tmp_path / "out" / f"{name}.json").read_text())


@pytest.mark.skipif(not VNNI, reason="the host lacks AVX-512 VNNI")
def test_imported_qdq_minilm(nunc, models, tmp_path):
    """quantize_static's QDQ MiniLM: every MatMul with a constant weight runs
    on the VNNI kernel with the model's static input quantization; attention
    fuses with the grids of its five Q/DQ pairs (Q K^T, scaled, masked,
    softmax, P V) and reads the u8 codes the Q, K and V GEMMs write on the
    grids of their pairs (Q K^T and P V as vpdpbusd), GELU with its three, the pairs repeated after Reshape and
    Transpose go, every other Q/DQ pair is one fake_quantize pass, the
    embedding tables stay s8.
    A whole QDQ graph rounds every activation to a coarse grid, so a 1-ulp
    float difference anywhere (sum order in LayerNorm, softmax) can move a
    value to the next grid point, and that spreads: onnxruntime itself, run
    with and without its graph optimizations, agrees on only ~2/3 of the
    outputs to within one unit (cosine ~0.9988). nunc computes each step
    as onnxruntime's kernels do (QLinearMatMul / QLinearAdd for the GEMMs'
    products, biases and residuals, its QLinearSoftmax in attention, its
    LayerNorm kernel's f32 steps) and its outputs equal onnxruntime's
    optimized run bit for bit."""
    q, manifest = qdq_minilm(nunc, models, tmp_path, "minilm_qdq")
    kernels = [k["kernel"] for k in manifest["kernels"]]
    assert sum(k.startswith("gemm.int8.avx512vnni") and "static" in k for k in kernels) == 36
    assert [k["op"] for k in manifest["kernels"] if k["op"] == "nunc.quantize_linear"] == []
    # The one DequantizeLinear left is of the gathered word-embedding rows.
    assert [k["op"] for k in manifest["kernels"]].count("nunc.dequantize_linear") == 1
    # Computed as onnxruntime runs it (QLinearMatMul, the Div, QLinearAdd,
    # QLinearSoftmax, QLinearMatMul).
    assert sum(k.startswith("attention.avx512vnni[") and
               k.endswith(" u8 q k v +mask +5 grids +qlinear steps -> u8")
               for k in kernels) == 6, kernels
    assert sum(k.startswith("gemm.int8.avx512vnni[16x384x384, static, u8 in]") and
               k.endswith("+product codes +bias codes -> u8") for k in kernels) == 18, kernels
    assert not any(k["op"] in ("nunc.softmax", "nunc.matmul", "nunc.transpose")
                   for k in manifest["kernels"]), kernels
    # GELU with the grids of its three pairs runs in FFN1's epilogue, after
    # the grid of the pair between them, in onnxruntime's QLinearAdd /
    # QLinearMul steps on its constants' codes, and writes FFN2's u8 input:
    # no GELU pass, no quantize pass over its output.
    assert sum(k.startswith("gemm.int8.avx512vnni[16x1536x384, static, u8 in]") and
               k.endswith("+requantize gelu in qlinear steps -> u8") for k in kernels) == 6, \
        kernels
    assert not any(k["op"] == "nunc.gelu" for k in manifest["kernels"]), kernels
    assert sum(k.startswith("quantize.avx512vnni[16x1536,") for k in kernels) == 0, kernels
    assert not any(k["op"] in ("nunc.erf", "nunc.div") for k in manifest["kernels"]), kernels
    # Left: the embeddings' pairs, and per layer the pairs on the two
    # LayerNorm results the residual Adds read.
    assert sum(k.startswith("elementwise.fake_quantize") for k in kernels) <= 8 + 2 * 6
    # Only the gathered embedding rows are dequantized: no table-sized arena.
    assert manifest["arena_bytes"] < 1 << 20, manifest["arena_bytes"]
    # The LayerNorms between pairs round as onnxruntime's kernel does.
    assert sum(k == "layer_norm.avx512[16x384] +bias +ordered f32 steps"
               for k in kernels) == 13, kernels
    assert_qdq_minilm_tracks_onnxruntime(q, models, tmp_path, exact=True)
    # AVX-VNNI takes the codes too (the ymm kernel, unit-tested EVEX-encoded
    # where the host lacks AVX-VNNI); plain AVX-512 keeps f32 values.
    for target, family in (("x86_64-avxvnni", "avxvnni"), ("x86_64-avx512", None)):
        nunc("compile", q, "--target", target, *pins("minilm", 1, 16), "-o", tmp_path / target)
        kernels = [k["kernel"] for k in json.loads(
            (tmp_path / target / "minilm_qdq.json").read_text())["kernels"]]
        attention = [k for k in kernels if k.startswith("attention.")]
        assert len(attention) == 6, kernels
        assert all((" u8 q k v " in k) == bool(family) for k in attention), attention
        if family:
            assert all(k.startswith(f"attention.{family}[") for k in attention), attention


@pytest.mark.skipif(not VNNI, reason="the host lacks AVX-512 VNNI")
def test_imported_qdq_minilm_symmetric_activations(nunc, models, tmp_path):
    """quantize_static's QDQ MiniLM with symmetric activations
    (ActivationSymmetric: u8 grids with zero point 128) quantizes GELU's
    constants too (1 -> 0.99608, 0.5 -> 0.49804): the GELU still runs in
    FFN1's epilogue, with those constants, and the output tracks
    onnxruntime's as the asymmetric model's does (above)."""
    q, manifest = qdq_minilm(nunc, models, tmp_path, "minilm_qdq_sym",
                             extra_options={"ActivationSymmetric": True})
    kernels = [k["kernel"] for k in manifest["kernels"]]
    assert sum(k.startswith("gemm.int8.avx512vnni[16x1536x384, static, u8 in]") and
               k.endswith("gelu in qlinear steps -> u8") for k in kernels) == 6, kernels
    assert not any(k["op"] in ("nunc.erf", "nunc.div", "nunc.gelu")
                   for k in manifest["kernels"]), kernels
    assert_qdq_minilm_tracks_onnxruntime(q, models, tmp_path, exact=True)


@pytest.mark.skipif(not VNNI, reason="the host lacks AVX-512 VNNI")
@pytest.mark.parametrize("variant", ["plain", "symmetric", "reduce_range"])
def test_imported_qdq_minilm_signed_activations(nunc, models, tmp_path, variant):
    """quantize_static's QDQ MiniLM with s8 activations (QInt8; also with
    symmetric grids and per-channel weights, or reduce_range): its pairs
    hold the u8 codes of the same grids (nunc-unsign-quantize-dequantize),
    so attention reads the u8 codes of Q, K and V and FFN1 writes FFN2's,
    as with u8 activations. onnxruntime converts only single-reader pairs
    to u8 and runs no s8 QLinearMatMul on x86: Q, K, V and FFN1 (their
    LayerNorm's pair has several readers) are f32 MatMuls on the
    dequantized values there, summed as MLAS's sgemm does
    (f32_product_k_block), the output projection and FFN2 QLinearMatMuls
    with their bias Adds in f32 (qlinear_product), and the embeddings' Adds
    QLinearAdds of u8 codes; so computed, the output equals onnxruntime's
    bit for bit."""
    from onnxruntime.quantization import QuantType
    options = {"plain": {},
               "symmetric": {"per_channel": True, "extra_options": {
                   "ActivationSymmetric": True, "WeightSymmetric": True}},
               "reduce_range": {"per_channel": True, "reduce_range": True}}[variant]
    q, manifest = qdq_minilm(nunc, models, tmp_path, "minilm_qdq_s8",
                             activation_type=QuantType.QInt8, **options)
    kernels = [k["kernel"] for k in manifest["kernels"]]
    assert sum(k.startswith("attention.avx512vnni[") and
               k.endswith(" u8 q k v +mask +5 grids +qlinear steps -> u8")
               for k in kernels) == 6, kernels
    # (The GELU's Muls are f32 ops in onnxruntime here: its input's pair has
    # two readers and stays s8.)
    assert sum(k.startswith("gemm.int8.avx512vnni[16x1536x384, static, u8 in]") and
               k.endswith("+requantize gelu on grids -> u8") for k in kernels) == 6, kernels
    assert sum(k.startswith("gemm.int8.avx512vnni[16x") and
               "+rounded f32 product (k blocks of 128) +bias" in k for k in kernels) == 24, kernels
    assert sum(k.startswith("gemm.int8.avx512vnni[16x384x") and
               "+product codes +bias +rounded sum +residual" in k for k in kernels) == 12, kernels
    assert [k["op"] for k in manifest["kernels"] if k["op"] == "nunc.quantize_linear"] == []
    assert_qdq_minilm_tracks_onnxruntime(q, models, tmp_path, exact=True)


@pytest.mark.skipif(not VNNI, reason="the host lacks AVX-512 VNNI")
def test_imported_qdq_minilm_matmuls_only(nunc, models, tmp_path):
    """quantize_static's QDQ MiniLM with only its MatMuls quantized
    (op_types_to_quantize=["MatMul"]): the pairs of Q, K and V sit on the
    head splits, before Q K^T and P V; they move into the epilogues of the
    GEMMs that make Q, K and V, and attention fuses (it ran as generic
    transposes and matmuls) and reads those GEMMs' u8 codes, tracking
    onnxruntime as the full QDQ model does (above)."""
    q, manifest = qdq_minilm(nunc, models, tmp_path, "minilm_qdq_mm",
                             op_types_to_quantize=["MatMul"])
    kernels = [k["kernel"] for k in manifest["kernels"]]
    assert sum(k.startswith("attention.avx512vnni[") and " u8 q k v " in k
               for k in kernels) == 6, kernels
    assert sum(k.startswith("gemm.int8.avx512vnni") for k in kernels) == 36, kernels
    assert not any(k["op"] in ("nunc.matmul", "nunc.transpose", "nunc.softmax")
                   for k in manifest["kernels"]), kernels
    assert_qdq_minilm_tracks_onnxruntime(q, models, tmp_path, f32_output=True)


@pytest.mark.skipif(not VNNI, reason="the host lacks AVX-512 VNNI")
def test_imported_qdq_minilm_u8_weights(nunc, models, tmp_path):
    """quantize_static's QDQ MiniLM with u8 weights (weight_type QUInt8, zero
    points): all 36 MatMuls on the int8 GEMM with static activations and
    their u8 weights, reading u8 rows as the s8 model's do (one quantize
    for Q, K and V, FFN1 writing FFN2's codes), each summing its rows' codes
    for the weights' zero points in a row-sum step; the output tracks
    onnxruntime's bit for bit as the s8 model's does (above)."""
    from onnxruntime.quantization import QuantType
    q, manifest = qdq_minilm(nunc, models, tmp_path, "minilm_qdq_u8",
                             weight_type=QuantType.QUInt8)
    gemms = [k["kernel"] for k in manifest["kernels"] if k["op"] == "nunc.quantized_linear"]
    assert len(gemms) == 36 and all(
        k.startswith("gemm.int8.avx512vnni[") and "static, u8 in, u8 weights]" in k
        for k in gemms), gemms
    assert sum(k.endswith("gelu in qlinear steps -> u8") for k in gemms) == 6, gemms
    # Per layer: the quantize Q, K and V share and the second LayerNorm's;
    # none over the attention's or FFN1's output (they write the codes).
    assert [k["op"] for k in manifest["kernels"]].count("nunc.quantize") == 12
    assert not any(k["op"] in ("nunc.linear", "nunc.matmul")
                   for k in manifest["kernels"]), manifest["kernels"]
    assert_qdq_minilm_tracks_onnxruntime(q, models, tmp_path, exact=True)
    # AMX sums the handed-over rows the same way; AVX-VNNI has no row-sum
    # step, so each such GEMM keeps quantizing its own input there.
    for target, family, u8_in in (("x86_64-amx", "amx", 36), ("x86_64-avxvnni", "avxvnni", 0)):
        nunc("compile", q, "--target", target, *pins("minilm", 1, 16), "-o", tmp_path / target)
        gemms = [k["kernel"] for k in json.loads(
            (tmp_path / target / "minilm_qdq_u8.json").read_text())["kernels"]
                 if k["op"] == "nunc.quantized_linear"]
        assert len(gemms) == 36 and all(
            k.startswith(f"gemm.int8.{family}[") and "u8 weights]" in k for k in gemms), gemms
        assert sum(", u8 in, " in k for k in gemms) == u8_in, gemms


@pytest.mark.skipif(not VNNI, reason="the host lacks AVX-512 VNNI")
@pytest.mark.parametrize("name", ["minilm", "mobilenet"])
@pytest.mark.parametrize("weight", ["QInt4", "QUInt4"])
@pytest.mark.parametrize("activation", ["QUInt8", "QInt8"])
def test_imported_qdq_4bit_weights(nunc, models, tmp_path, name, weight, activation):
    """quantize_static's QDQ models with 4-bit weights (weight_type QInt4 /
    QUInt4, opset 21: INT4 / UINT4 initializers, two codes a byte): the
    codes import one a byte (nunc.four_bit_codes), so the weight MatMuls
    and convs are int8 GEMMs and convolutions with static activations.
    onnxruntime has no 4-bit QLinear kernels: it runs each as an f32 MatMul
    or Conv on the dequantized values (a u8 model's bias Add after it a
    QLinearAdd of the product's code), and nunc-one-step-requantization
    has nunc compute them so (f32 products in MLAS's k blocks; the
    product's code as QuantizeLinear's). With u8 activations the output
    equals onnxruntime's bit for bit; with s8 ones (quantize_static's
    default) within a step of the output grid (bit for bit on the inputs
    tried but one element of a u4 MobileNet)."""
    from onnxruntime.quantization import QuantFormat, QuantType, quantize_static
    import onnx
    import onnxruntime as ort
    text = name == "minilm"
    seq = 16 if text else None
    q = str(tmp_path / f"{name}_w4.onnx")
    quantize_static(os.path.join(models, f"{name}.onnx"), q,
                    Samples(random_inputs(name, 1, seq, 20 + i) for i in range(4)),
                    quant_format=QuantFormat.QDQ, activation_type=getattr(QuantType, activation),
                    weight_type=getattr(QuantType, weight), per_channel=not text)
    model = onnx.load(q)
    four_bit = onnx.TensorProto.INT4 if weight == "QInt4" else onnx.TensorProto.UINT4
    assert sum(t.data_type == four_bit for t in model.graph.initializer) >= 10
    nunc("compile", q, "--target", "x86_64-avx512vnni", *pins(name, 1, seq), "-o",
         tmp_path / "out")
    kernels = json.loads((tmp_path / "out" / f"{name}_w4.json").read_text())["kernels"]
    if text:
        gemms = [k["kernel"] for k in kernels if k["op"] == "nunc.quantized_linear"]
        assert len(gemms) == 36 and all(k.startswith("gemm.int8.avx512vnni[") and
                                        "f32 product" in k for k in gemms), gemms
    else:
        convs = [k["kernel"] for k in kernels if k["op"] == "nunc.quantized_conv"]
        assert len(convs) == 17 and all(k.startswith("conv.int8.avx512vnni[") and
                                        "f32 products" in k for k in convs), convs
    assert not any(k["op"] in ("nunc.linear", "nunc.matmul", "nunc.conv") for k in kernels)
    inits = {i.name: onnx.numpy_helper.to_array(i) for i in model.graph.initializer}
    out_name = model.graph.output[0].name
    step = float(inits[out_name + "_scale"])
    exe, man = harness.build(str(tmp_path / "out"))
    sess = ort.InferenceSession(q, providers=["CPUExecutionProvider"])
    for seed in (5, 6):
        feeds = random_inputs(name, 1, seq, seed)
        outs, _, log = harness.run(exe, man, feeds, str(tmp_path / f"w{seed}"))
        assert outs is not None, log
        got, want = outs[out_name], sess.run(None, feeds)[0]
        if activation == "QUInt8":
            np.testing.assert_array_equal(got, want)
        steps = np.abs(got.astype(np.float64) - want) / step
        assert steps.max() <= 1.001 and np.mean(steps < 0.5) >= 0.99, \
            (seed, steps.max(), np.mean(steps < 0.5))


@pytest.mark.skipif(not VNNI, reason="the host lacks AVX-512 VNNI")
def test_imported_qdq_minilm_a16w8(nunc, models, tmp_path):
    """quantize_static's A16W8 MiniLM (activation_type QUInt16, s8 weights,
    onnxruntime's contrib Q/DQ ops): all 36 MatMuls run on the int8 GEMM
    with the static u16 input grid, once per byte of the codes, each
    after a quantize step writing both byte planes. onnxruntime has no
    16-bit kernels (it dequantizes and runs f32 MatMuls), and its
    optimized run drops some of the model's Q/DQ rounding: hundreds of
    16-bit units off its own unoptimized run, the model as ONNX defines
    it. nunc stays within a few units of that one, and as close to fp32."""
    from onnxruntime.quantization import QuantType
    q, manifest = qdq_minilm(nunc, models, tmp_path, "minilm_a16", samples=4,
                             activation_type=QuantType.QUInt16,
                             extra_options={"UseQDQContribOps": True})
    gemms = [k["kernel"] for k in manifest["kernels"] if k["op"] == "nunc.quantized_linear"]
    assert len(gemms) == 36 and all(
        k.startswith("gemm.int8.avx512vnni[") and ", static, u16 in]" in k for k in gemms), gemms
    assert not any(k["op"] in ("nunc.linear", "nunc.matmul")
                   for k in manifest["kernels"]), manifest["kernels"]
    got, ort_q, ort_plain, inits, feeds = qdq_minilm_outputs(q, tmp_path)
    unit = float(inits["last_hidden_state_scale"])
    assert float(np.abs(got - ort_plain).max()) <= 16 * unit, np.abs(got - ort_plain).max() / unit
    assert float(np.abs(ort_q - ort_plain).max()) > 16 * unit  # what the bound is held against
    fp32 = reference(models, "minilm", feeds)["last_hidden_state"]
    assert cosine(got, fp32) >= cosine(ort_plain, fp32) - 1e-5, (cosine(got, fp32),
                                                                 cosine(ort_plain, fp32))
    # AMX targets run them on the AVX-512 VNNI kernel; targets without the
    # u16 form keep f32 GEMMs on the rounded values.
    for target, int8 in (("x86_64-amx", 36), ("x86_64-avxvnni", 0), ("x86_64-avx512", 0)):
        nunc("compile", q, "--target", target, *pins("minilm", 1, 16), "-o", tmp_path / target)
        kernels = json.loads((tmp_path / target / "minilm_a16.json").read_text())["kernels"]
        assert sum(k["kernel"].startswith("gemm.int8.avx512vnni[") and ", u16 in]" in k["kernel"]
                   for k in kernels) == int8, kernels
        assert sum(k["op"] == "nunc.linear" for k in kernels) == 36 - int8, kernels


@pytest.mark.skipif(not VNNI, reason="the host lacks AVX-512 VNNI")
@pytest.mark.parametrize("weight", ["QInt8", "QUInt8"])
@pytest.mark.parametrize("per_channel", [False, True])
def test_imported_qlinear_matmul_matches_onnxruntime(nunc, tmp_path, per_channel, weight):
    """quantize_static in QOperator format (QuantizeLinear, QLinearMatMul,
    DequantizeLinear): the QLinearMatMul runs on the VNNI kernel with no
    standalone quantize pass over its input, and its u8 output is within one
    unit of onnxruntime's (onnxruntime requantizes with sa*sW/sy in one step,
    nunc rounds the f32 product first; they differ on near-ties); so do u8
    weights (zero points), as a QDQ model's do."""
    from onnxruntime.quantization import QuantFormat, QuantType, quantize_static
    import onnx
    import onnxruntime as ort
    from onnx import numpy_helper as nh
    one_layer_model(str(tmp_path / "f32.onnx"), 64, 387, 129, 8, bias=False)
    r = np.random.default_rng(9)
    calib = [{"x": (r.standard_normal((64, 387)) * 2).astype(np.float32)} for _ in range(4)]
    quantize_static(str(tmp_path / "f32.onnx"), str(tmp_path / "q.onnx"), Samples(calib),
                    quant_format=QuantFormat.QOperator, activation_type=QuantType.QUInt8,
                    weight_type=getattr(QuantType, weight), per_channel=per_channel)
    ops = [n.op_type for n in onnx.load(str(tmp_path / "q.onnx")).graph.node]
    assert ops == ["QuantizeLinear", "QLinearMatMul", "DequantizeLinear"], ops
    nunc("compile", tmp_path / "q.onnx", "--target", "x86_64-avx512vnni", "-o", tmp_path / "out")
    manifest = json.loads((tmp_path / "out" / "q.json").read_text())
    steps = [(k["op"], k["kernel"]) for k in manifest["kernels"]]
    # Quantize x, the VNNI GEMM, requantize its result to y's grid in the
    # epilogue: one step (plus the kernel's own input quantization).
    u8 = ", u8 weights" if weight == "QUInt8" else ""
    assert steps == [("nunc.quantized_linear",
                      f"gemm.int8.avx512vnni[64x129x387, static{u8}] +requantize")], steps
    exe, man = harness.build(str(tmp_path / "out"))
    x = (r.standard_normal((64, 387)) * 2).astype(np.float32)
    outs, _, log = harness.run(exe, man, {"x": x}, str(tmp_path / "w"))
    assert outs is not None, log
    ref = ort.InferenceSession(str(tmp_path / "q.onnx"),
                               providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    inits = {i.name: nh.to_array(i) for i in onnx.load(str(tmp_path / "q.onnx")).graph.initializer}
    unit = float(inits["y_scale"])
    diff = np.abs(outs["y"] - ref) / unit
    assert float(diff.max()) <= 1.001, float(diff.max())
    assert float((diff > 0.5).mean()) < 0.01  # a unit off only on near-ties


def random_initializers(seed):
    """A list of initializers and const(name, *shape, scale=0.3), which adds
    a normal random f32 one to it and returns its name."""
    from onnx import numpy_helper
    r = np.random.default_rng(seed)
    inits = []

    def const(name, *shape, scale=0.3):
        inits.append(numpy_helper.from_array(
            (r.standard_normal(shape) * scale).astype(np.float32), name))
        return name
    return inits, const


def assert_small_cnn_within_a_unit(tmp_path, seed, near_ties):
    """The library in tmp_path/out, on 3 inputs [1, 5, 19, 23] from `seed`
    on, is within one unit (the last DequantizeLinear's scale) of
    onnxruntime's run of tmp_path/q.onnx, and a unit off on at most a
    `near_ties` fraction of the outputs (rounding ties). Returns the
    largest |output| in units."""
    import onnx
    import onnxruntime as ort
    from onnx import numpy_helper as nh
    exe, man = harness.build(str(tmp_path / "out"))
    model = onnx.load(str(tmp_path / "q.onnx"))
    inits = {i.name: nh.to_array(i) for i in model.graph.initializer}
    unit = float(inits[[n for n in model.graph.node if n.op_type == "DequantizeLinear"][-1].input[1]])
    session = ort.InferenceSession(str(tmp_path / "q.onnx"), providers=["CPUExecutionProvider"])
    largest = 0.0
    for i in range(3):
        x = np.random.default_rng(seed + i).standard_normal((1, 5, 19, 23)).astype(np.float32)
        outs, _, log = harness.run(exe, man, {"x": x}, str(tmp_path / f"w{i}"))
        assert outs is not None, log
        ref = session.run(None, {"x": x})[0]
        diff = np.abs(outs["y"] - ref) / unit
        assert float(diff.max()) <= 1.001, float(diff.max())
        assert float((diff > 0.5).mean()) < near_ties, float((diff > 0.5).mean())
        largest = max(largest, float(np.abs(ref).max()) / unit)
    return largest


def save_small_cnn(path, name, seed, body):
    """A 3x3 conv + bias and Relu from x [1, 5, 19, 23] to r1 [1, 24, 19,
    23], then the nodes body(const, helper) from r1 to y [1, 17, 10, 12]:
    channel counts that are not multiples of the kernels' blocks."""
    import onnx
    from onnx import TensorProto, helper
    inits, const = random_initializers(seed)
    nodes = [
        helper.make_node("Conv", ["x", const("w1", 24, 5, 3, 3), const("b1", 24, scale=1)],
                         ["c1"], pads=[1, 1, 1, 1], name="conv1"),
        helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
        *body(const, helper)]
    graph = helper.make_graph(
        nodes, name, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 5, 19, 23])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 17, 10, 12])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.save(model, path)


def small_cnn(path, seed):
    """3x3 conv + bias, Relu, a strided depthwise conv, a 1x1 conv + bias."""
    save_small_cnn(path, "small_cnn", seed, lambda const, helper: [
        helper.make_node("Conv", ["r1", const("w2", 24, 1, 3, 3)], ["c2"], pads=[1, 1, 1, 1],
                         group=24, strides=[2, 2], name="depthwise"),
        helper.make_node("Conv", ["c2", const("w3", 17, 24, 1, 1), const("b3", 17, scale=1)],
                         ["y"], name="pointwise")])


@pytest.mark.skipif(not VNNI, reason="the host lacks AVX-512 VNNI")
@pytest.mark.parametrize("activation,weight,per_channel,kernels", [
    ("QUInt8", "QInt8", True, ["conv.int8.avx512vnni", "depthwise_conv.int8.avx512vnni",
                               "conv.int8.avx512vnni"]),
    # s8 activations: the pairs hold u8 codes of the same grids
    # (nunc-unsign-quantize-dequantize), so the same kernels.
    ("QInt8", "QInt8", False, ["conv.int8.avx512vnni", "depthwise_conv.int8.avx512vnni",
                               "conv.int8.avx512vnni"]),
    # u8 weights with zero points: the same int8 convolutions; the depthwise
    # conv sums the filter codes' steps too (past s8: steps plus an offset).
    ("QUInt8", "QUInt8", False, ["conv.int8.avx512vnni", "depthwise_conv.int8.avx512vnni",
                                "conv.int8.avx512vnni"])])
def test_imported_qlinear_conv_matches_onnxruntime(nunc, tmp_path, activation, weight,
                                                   per_channel, kernels):
    """quantize_static in QOperator format on a CNN (QuantizeLinear,
    QLinearConv, DequantizeLinear): each QLinearConv takes the QDQ route, so
    s8 weights and u8 ones with zero points run on the int8 convolution
    kernel (the depthwise one writing the next conv's u8 input; the Relu
    and the grid between the first conv and it, one elementwise chain, are
    looked up in that conv's epilogue by the code of its output grid, and
    with u8 activations written as the codes of the chain's last grid, which
    the depthwise conv reads in integers; the first conv's codes before
    that lookup as QLinearConv's, in one step), and the output is within
    one unit of onnxruntime's."""
    from onnxruntime.quantization import QuantFormat, QuantType, quantize_static
    import onnx
    small_cnn(str(tmp_path / "f32.onnx"), 3)
    r = np.random.default_rng(4)
    calib = [{"x": r.standard_normal((1, 5, 19, 23)).astype(np.float32)} for _ in range(8)]
    quantize_static(str(tmp_path / "f32.onnx"), str(tmp_path / "q.onnx"), Samples(calib),
                    quant_format=QuantFormat.QOperator,
                    activation_type=getattr(QuantType, activation),
                    weight_type=getattr(QuantType, weight), per_channel=per_channel,
                    op_types_to_quantize=["Conv"])
    model = onnx.load(str(tmp_path / "q.onnx"))
    ops = [n.op_type for n in model.graph.node]
    assert ops.count("QLinearConv") == 3 and "Conv" not in ops, ops
    nunc("compile", tmp_path / "q.onnx", "--target", "x86_64-avx512vnni", "-o", tmp_path / "out")
    manifest = json.loads((tmp_path / "out" / "q.json").read_text())
    assert [k["kernel"].split("[")[0] for k in manifest["kernels"]] == kernels, \
        [k["kernel"] for k in manifest["kernels"]]
    assert manifest["kernels"][0]["kernel"].endswith(
        "+requantize in one step +lookup of 256 codes -> u8"), \
        manifest["kernels"][0]
    assert_small_cnn_within_a_unit(tmp_path, 10, near_ties=0.01)


def small_cnn_qdq(tmp_path, build, seed, calib_seed):
    """tmp_path/f32.onnx from build(path, seed) (a save_small_cnn model) and
    tmp_path/q.onnx, quantize_static's QDQ model of it (u8 activations
    calibrated on 8 normal inputs, s8 weights per channel)."""
    from onnxruntime.quantization import QuantFormat, QuantType, quantize_static
    build(str(tmp_path / "f32.onnx"), seed)
    r = np.random.default_rng(calib_seed)
    calib = [{"x": r.standard_normal((1, 5, 19, 23)).astype(np.float32)} for _ in range(8)]
    quantize_static(str(tmp_path / "f32.onnx"), str(tmp_path / "q.onnx"), Samples(calib),
                    quant_format=QuantFormat.QDQ, activation_type=QuantType.QUInt8,
                    weight_type=QuantType.QInt8, per_channel=True)


def wide_depthwise_cnn(path, seed):
    """PP-LCNet's block shape: a 3x3 conv + Relu, a 5x5 depthwise conv
    (stride 1) + Relu, a 1x1 conv + Relu, a 5x5 depthwise conv at stride 2
    + Relu, a 1x1 conv + bias."""
    save_small_cnn(path, "wide_depthwise_cnn", seed, lambda const, helper: [
        helper.make_node("Conv", ["r1", const("w2", 24, 1, 5, 5, scale=0.1),
                                  const("b2", 24, scale=0.5)], ["c2"], pads=[2, 2, 2, 2],
                         group=24, name="depthwise1"),
        helper.make_node("Relu", ["c2"], ["r2"], name="relu2"),
        helper.make_node("Conv", ["r2", const("w3", 24, 24, 1, 1), const("b3", 24, scale=1)],
                         ["c3"], name="pointwise1"),
        helper.make_node("Relu", ["c3"], ["r3"], name="relu3"),
        helper.make_node("Conv", ["r3", const("w4", 24, 1, 5, 5, scale=0.1),
                                  const("b4", 24, scale=0.5)], ["c4"], pads=[2, 2, 2, 2],
                         group=24, strides=[2, 2], name="depthwise2"),
        helper.make_node("Relu", ["c4"], ["r4"], name="relu4"),
        helper.make_node("Conv", ["r4", const("w5", 17, 24, 1, 1), const("b5", 17, scale=1)],
                         ["y"], name="pointwise2")])


@pytest.mark.skipif(not VNNI, reason="the host lacks AVX-512 VNNI")
def test_imported_qdq_5x5_depthwise_convs_run_in_integers(nunc, tmp_path):
    """quantize_static's QDQ model of a CNN with 5x5 depthwise convs: each
    takes the integer depthwise kernel (two dwords of taps a filter row) on
    the u8 codes the conv before it writes, and hands its own codes to the
    next conv; the output is within one unit of onnxruntime's (ties in the
    code-unit epilogues move a code by one)."""
    small_cnn_qdq(tmp_path, wide_depthwise_cnn, 5, 6)
    nunc("compile", tmp_path / "q.onnx", "--target", "x86_64-avx512vnni", "-o", tmp_path / "out")
    kernels = [k["kernel"] for k in
               json.loads((tmp_path / "out" / "q.json").read_text())["kernels"]]
    depthwise = [k for k in kernels if k.startswith("depthwise_conv")]
    assert len(depthwise) == 2 and all(
        k.startswith("depthwise_conv.int8.avx512vnni[") and "5x5" in k and ", u8 in]" in k
        and k.endswith("-> u8") for k in depthwise), kernels
    assert sum(k.startswith("conv.int8.avx512vnni[") for k in kernels) == 3, kernels
    # Not a saturated or empty output:
    assert assert_small_cnn_within_a_unit(tmp_path, 30, near_ties=0.02) > 20


@pytest.mark.skipif(not VNNI, reason="the host lacks AVX-512 VNNI")
def test_run_compiles_a_qdq_model_as_nunc_compile_does(nunc, tmp_path):
    """`nunc run` (compiled for this machine) takes nunc compile's pipeline
    from the imported graph: the same kernels (the integer depthwise convs
    on their filters' s8 grid, codes in one step) and, bit for bit, the
    library's outputs. (It once folded the quantized weights first: other
    kernels, two units off onnxruntime on a fifth of the outputs.)"""
    small_cnn_qdq(tmp_path, wide_depthwise_cnn, 5, 6)
    out = tmp_path / "out"
    compiled = nunc("compile", tmp_path / "q.onnx", "--explain", "-o", out).stdout
    run = nunc("run", tmp_path / "q.onnx", "--explain", "--random-inputs", "--seed=3",
               "-o", tmp_path / "run.npz").stderr

    def kernels(text):
        return [line.split(";")[0].split()[2:] for line in text.splitlines()
                if line.startswith("kernel ")]
    assert kernels(run) == kernels(compiled) and len(kernels(run)) == 5, run
    assert sum("+requantize in one step -> u8" in line and "depthwise_conv.int8" in line
               for line in run.splitlines()) == 2, run
    x = {"x": np.random.default_rng(3).uniform(-1, 1, (1, 5, 19, 23)).astype(np.float32)}
    exe, man = harness.build(str(out))
    got, _, log = harness.run(exe, man, x, str(tmp_path / "w"))
    assert got is not None, log
    np.savez(tmp_path / "x.npz", **x)
    nunc("run", tmp_path / "q.onnx", "--input", tmp_path / "x.npz", "-o", tmp_path / "x_run.npz")
    np.testing.assert_array_equal(np.load(tmp_path / "x_run.npz")["y"], got["y"])


def hard_swish_block_cnn(path, seed):
    """PP-LCNetV3's blocks, as paddle2onnx writes them: after a depthwise
    conv and after a pointwise one, a learnable affine (Mul, Add by
    scalars), hard-swish decomposed as x * clip(x + 3, 0, 6) / 6 and the
    affine again; then a 1x1 conv + bias."""
    import onnx
    from onnx import numpy_helper
    extra = [numpy_helper.from_array(np.array(v, np.float32), n) for n, v in
             (("three", 3.0), ("zero", 0.0), ("six", 6.0))]

    def block(helper, p, x, y, s1, t1, s2, t2):
        extra.extend(numpy_helper.from_array(np.array([v], np.float32), p + n) for n, v in
                     (("s1", s1), ("t1", t1), ("s2", s2), ("t2", t2)))
        return [helper.make_node("Mul", [x, p + "s1"], [p + "a1"], name=p + "scale1"),
                helper.make_node("Add", [p + "a1", p + "t1"], [p + "a2"], name=p + "shift1"),
                helper.make_node("Add", [p + "a2", "three"], [p + "h1"], name=p + "plus3"),
                helper.make_node("Clip", [p + "h1", "zero", "six"], [p + "h2"], name=p + "clip"),
                helper.make_node("Mul", [p + "a2", p + "h2"], [p + "h3"], name=p + "times"),
                helper.make_node("Div", [p + "h3", "six"], [p + "h4"], name=p + "over6"),
                helper.make_node("Mul", [p + "h4", p + "s2"], [p + "a3"], name=p + "scale2"),
                helper.make_node("Add", [p + "a3", p + "t2"], [y], name=p + "shift2")]

    def body(const, helper):
        return [
            helper.make_node("Conv", ["r1", const("w2", 24, 1, 3, 3)], ["c2"],
                             pads=[1, 1, 1, 1], group=24, strides=[2, 2], name="depthwise"),
            *block(helper, "d_", "c2", "b2", 1.3, -0.2, 0.8, 0.1),
            helper.make_node("Conv", ["b2", const("w3", 17, 24, 1, 1), const("b3", 17, scale=1)],
                             ["c3"], name="pointwise"),
            *block(helper, "p_", "c3", "e3", 0.9, 0.3, 1.1, -0.1),
            helper.make_node("Conv", ["e3", const("w4", 17, 17, 1, 1), const("b4", 17, scale=1)],
                             ["y"], name="last")]
    save_small_cnn(path, "hard_swish_block_cnn", seed, body)
    model = onnx.load(path)
    model.graph.initializer.extend(extra)
    onnx.save(model, path)


@pytest.mark.skipif(not VNNI, reason="the host lacks AVX-512 VNNI")
def test_imported_qdq_elementwise_chain_runs_in_one_pass(nunc, tmp_path):
    """quantize_static's QDQ model of PP-LCNet blocks keeps a Q/DQ pair
    after each of the affine and hard-swish ops: nunc runs each block as one
    elementwise chain, a lookup of the 256 values its input can take (the
    evaluator's own values of the chain): after the f32 depthwise conv the
    chain's first step rounds its input; after the int8 pointwise conv the
    conv's epilogue does. On AVX-512 targets the convs look the values up
    themselves (output_table, no chain), the depthwise conv's written as
    the codes the int8 conv after it reads; on ymm targets (AVX-VNNI, AVX2)
    the int8 pointwise conv does (a gather), and the depthwise conv's chain
    stays. The same values as a kernel
    pass per op (--elementwise-chains=false), and within one unit of
    onnxruntime's output."""
    import onnx
    small_cnn_qdq(tmp_path, hard_swish_block_cnn, 8, 9)
    ops = [n.op_type for n in onnx.load(str(tmp_path / "q.onnx")).graph.node]
    assert ops.count("QuantizeLinear") >= 18, ops  # a pair after every op of the blocks
    outs = {}
    targets = ("x86_64-avx512vnni", "x86_64-avx512", "x86_64-avx2", "x86_64-avxvnni-evex")
    for chains, target in ((c, t) for t in targets for c in ("true", "false")):
        out = tmp_path / (("out" if chains == "true" else "per_op") +
                          ("" if target == "x86_64-avx512vnni" else target[6:]))
        nunc("compile", tmp_path / "q.onnx", "--target", target,
             f"--elementwise-chains={chains}", "-o", out)
        kernels = [k["kernel"] for k in json.loads((out / "q.json").read_text())["kernels"]]
        chain = [k for k in kernels if k.startswith("elementwise.chain")]
        if target in ("x86_64-avxvnni-evex", "x86_64-avx2") and chains == "true":
            # The depthwise conv's chain stays a pass (ymm depthwise kernels
            # have no table); AVX-VNNI's integer taps read the first conv's
            # codes, AVX2's f32 taps too.
            family = "avx2" if target == "x86_64-avx2" else "avxvnni"
            assert len(chain) == 1 and chain[0].startswith("elementwise.chain.avx2["), kernels
            assert sum(k.startswith(f"conv.int8.{family}[17x120x24, 1x1 kernel") and
                       k.endswith("+lookup of 256 codes") for k in kernels) == 1, kernels
            depthwise = ("depthwise_conv.int8.avxvnni[1x24x19x23" if family == "avxvnni"
                         else "depthwise_conv.avx2[1x24x19x23")
            assert sum(k.startswith(depthwise) and ", u8 in]" in k for k in kernels) == 1, \
                kernels
        elif chains == "true":
            # Both chains in the convs' epilogues: the depthwise conv's
            # (integer taps on the first conv's codes; f32 taps on
            # x86_64-avx512) table written as the next int8 conv's input
            # codes.
            family = "avx2" if target == "x86_64-avx512" else "avx512vnni"
            depthwise = ("depthwise_conv.avx512[1x24x19x23" if family == "avx2"
                         else "depthwise_conv.int8.avx512vnni[1x24x19x23")
            assert not chain, kernels
            assert sum(k.startswith(depthwise) and
                       k.endswith("+lookup of 256 codes -> u8") for k in kernels) == 1, kernels
            assert sum(k.startswith(f"conv.int8.{family}[17x120x24, 1x1 kernel") and
                       "u8 in]" in k and k.endswith("+lookup of 256 codes")
                       for k in kernels) == 1, kernels
            assert not any(k.startswith(("elementwise.mul", "elementwise.add",
                                         "elementwise.div")) for k in kernels), kernels
        else:
            assert not chain and sum(k.startswith("elementwise.") for k in kernels) >= 14, kernels
        exe, man = harness.build(str(out))
        # Inputs up to 10x the calibration's: the grids' ends saturate too.
        for i, scale in enumerate((1, 3, 10)):
            x = (np.random.default_rng(30 + i).standard_normal((1, 5, 19, 23)) *
                 scale).astype(np.float32)
            outs[chains, target, i], _, log = harness.run(exe, man, {"x": x},
                                                          str(out / f"w{i}"))
            assert outs[chains, target, i] is not None, log
    for target in targets:
        for i in range(3):
            np.testing.assert_array_equal(outs["true", target, i]["y"],
                                          outs["false", target, i]["y"])
    assert assert_small_cnn_within_a_unit(tmp_path, 30, near_ties=0.02) > 20


@pytest.mark.skipif(not host_has("avx512f"), reason="the host lacks AVX-512")
def test_elementwise_chain_lookup_needs_an_input_of_few_values(nunc, tmp_path):
    """A chain is a lookup only where its input can take at most 256 values:
    not after a 16-bit grid (65536 codes), nor when a step reads the input
    again past the rounding (x * round(x)); those chains run their steps,
    with onnxruntime's results."""
    import onnx
    import onnxruntime as ort
    from onnx import TensorProto, helper, numpy_helper

    def init(name, value, dtype=np.float32):
        return numpy_helper.from_array(np.array(value, dtype), name)
    inits = [init("s16", 0.001), init("z16", 0, np.int16), init("s8", 0.05),
             init("z8", 128, np.uint8), init("m", [1.5]), init("t", [-0.25])]
    nodes = [helper.make_node("QuantizeLinear", ["x", "s16", "z16"], ["q16"]),
             helper.make_node("DequantizeLinear", ["q16", "s16", "z16"], ["d16"]),
             helper.make_node("Mul", ["d16", "m"], ["m16"]),
             helper.make_node("Add", ["m16", "t"], ["y16"]),
             helper.make_node("QuantizeLinear", ["x", "s8", "z8"], ["q8"]),
             helper.make_node("DequantizeLinear", ["q8", "s8", "z8"], ["d8"]),
             helper.make_node("Mul", ["d8", "x"], ["xx"]),
             helper.make_node("Add", ["xx", "t"], ["y8"])]
    graph = helper.make_graph(
        nodes, "chains", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 9, 11])],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, [1, 4, 9, 11])
         for n in ("y16", "y8")], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    model.ir_version = 10
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, str(tmp_path / "chains.onnx"))
    nunc("compile", tmp_path / "chains.onnx", "--target", "x86_64-avx512", "-o", tmp_path / "out")
    kernels = [k["kernel"] for k in
               json.loads((tmp_path / "out" / "chains.json").read_text())["kernels"]]
    assert kernels == ["elementwise.chain.avx512[396 x 1: fake_quantize mul add]"] * 2, kernels
    exe, man = harness.build(str(tmp_path / "out"))
    session = ort.InferenceSession(str(tmp_path / "chains.onnx"),
                                   providers=["CPUExecutionProvider"])
    x = (np.random.default_rng(11).standard_normal((1, 4, 9, 11)) * 8).astype(np.float32)
    outs, _, log = harness.run(exe, man, {"x": x}, str(tmp_path / "w"))
    assert outs is not None, log
    for name, want in zip(("y16", "y8"), session.run(None, {"x": x})):
        np.testing.assert_allclose(outs[name], want, rtol=1e-6, atol=1e-6, err_msg=name)


@pytest.mark.skipif(not VNNI, reason="the host lacks AVX-512 VNNI")
def test_qlinear_conv_on_a_u8_input(nunc, tmp_path):
    """A QLinearConv whose u8 input is the graph's own: its dequantized
    values lie on the input's grid, so the int8 kernel quantizes them back
    exactly; a bias, stride and uneven padding. Checked
    against ONNX's reference implementation and onnxruntime."""
    import onnx
    import onnxruntime as ort
    from onnx import TensorProto, helper, numpy_helper
    from onnx.reference import ReferenceEvaluator
    r = np.random.default_rng(7)
    m, c = 9, 6
    inits = [numpy_helper.from_array(np.float32(0.02), "sx"),
             numpy_helper.from_array(np.uint8(117), "zx"),
             numpy_helper.from_array(r.integers(-127, 128, (m, c, 3, 3)).astype(np.int8), "w"),
             numpy_helper.from_array((r.random(m) * 0.01 + 0.002).astype(np.float32), "sw"),
             numpy_helper.from_array(np.zeros(m, np.int8), "zw"),
             numpy_helper.from_array(np.float32(0.35), "sy"),
             numpy_helper.from_array(np.uint8(131), "zy"),
             numpy_helper.from_array(r.integers(-3000, 3000, m).astype(np.int32), "b")]
    node = helper.make_node("QLinearConv", ["xq", "sx", "zx", "w", "sw", "zw", "sy", "zy", "b"],
                            ["y"], pads=[1, 0, 1, 2], strides=[2, 1], name="qconv")
    graph = helper.make_graph(
        [node], "qconv", [helper.make_tensor_value_info("xq", TensorProto.UINT8, [1, c, 11, 13])],
        [helper.make_tensor_value_info("y", TensorProto.UINT8, [1, m, 6, 13])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, str(tmp_path / "qconv.onnx"))
    nunc("compile", tmp_path / "qconv.onnx", "--target", "x86_64-avx512vnni", "-o",
         tmp_path / "out")
    manifest = json.loads((tmp_path / "out" / "qconv.json").read_text())
    # The integer graph input and output are dequantized and quantized by
    # generic steps; the convolution is the int8 kernel.
    assert [(k["op"], k["kernel"].split("[")[0]) for k in manifest["kernels"]] == [
        ("nunc.dequantize_linear", "generic"),
        ("nunc.quantized_conv", "conv.int8.avx512vnni"),
        ("nunc.quantize_linear", "generic")], [k["kernel"] for k in manifest["kernels"]]
    exe, man = harness.build(str(tmp_path / "out"))
    x = r.integers(0, 256, (1, c, 11, 13)).astype(np.uint8)
    outs, _, log = harness.run(exe, man, {"xq": x}, str(tmp_path / "w"))
    assert outs is not None, log
    got = outs["y"].astype(np.int32)
    for ref in (ReferenceEvaluator(model).run(None, {"xq": x})[0],
                ort.InferenceSession(str(tmp_path / "qconv.onnx"),
                                     providers=["CPUExecutionProvider"]).run(None, {"xq": x})[0]):
        diff = np.abs(got - ref.astype(np.int32))
        assert diff.max() <= 1, diff.max()
        assert (diff > 0).mean() < 0.01
    assert len(np.unique(got)) > 50  # the outputs span the grid, not a saturated corner


def assert_tracks_onnxruntime(qdq_model, name, tmp_path, exact=False):
    """The library in tmp_path/out on one image agrees with onnxruntime's
    run of the same QDQ model at least as well as onnxruntime agrees with
    itself across optimization levels (see the MiniLM case); `exact`: on
    three images, bit for bit."""
    exe, man = harness.build(str(tmp_path / "out"))
    if exact:
        import onnxruntime as ort
        sess = ort.InferenceSession(qdq_model, providers=["CPUExecutionProvider"])
        for seed in (5, 6, 7):
            feeds = random_inputs(name, 1, None, seed)
            outs, _, log = harness.run(exe, man, feeds, str(tmp_path / f"w{seed}"))
            assert outs is not None, log
            got, want = next(iter(outs.values())), sess.run(None, feeds)[0]
            assert np.array_equal(got, want), (seed, np.mean(got == want),
                                               np.abs(got - want).max())
    feeds = random_inputs(name, 1, None, 5)
    outs, _, log = harness.run(exe, man, feeds, str(tmp_path / "w"))
    assert outs is not None, log
    got = next(iter(outs.values()))
    ort_q, ort_plain = onnxruntime_both_ways(qdq_model, feeds)
    assert cosine(got, ort_q) >= min(0.9995, cosine(ort_q, ort_plain) - 0.001), \
        (cosine(got, ort_q), cosine(ort_q, ort_plain))


@pytest.mark.skipif(not VNNI, reason="the host lacks AVX-512 VNNI")
@pytest.mark.parametrize("weight", ["QInt8", "QUInt8"])
@pytest.mark.parametrize("name,int8_convs,depthwise,conv_pairs,code_adds",
                         [("resnet", 16, 0, 6, 6), ("mobilenet", 17, 8, 4, 2)])
def test_imported_qdq_cnn(nunc, models, tmp_path, name, int8_convs, depthwise, conv_pairs,
                          code_adds, weight):
    """quantize_static's QDQ CNNs: every one-group conv (its input a Q/DQ
    pair, its weight a dequantized s8 constant) becomes an int8 convolution
    with static activations. These exports keep BatchNormalization after the
    convs, so quantize_static puts a Q/DQ pair on each side of every BN:
    after an int8 conv, the pairs and the BN run in that conv's epilogue,
    which writes the u8 codes of the last pair's grid where a depthwise
    conv reads them; after a depthwise conv, the BN kernel rounds its
    input and its result itself (one pass, no generic step). The next conv reads the
    rounded result as its u8 input. The classifier's Gemm (transB, weights
    per row) runs on the int8 GEMM, its input quantized to its pair's grid
    and its output pair in the epilogue. The residual Adds between pairs
    add the codes as onnxruntime's QLinearAdd (nunc-one-step-requantization;
    a pair on a branch that the Add alone reads is rounded in the Add); the
    pooling between pairs sums the codes and rounds its mean to the pair
    after it as onnxruntime's QLinearGlobalAveragePool (the pair after the
    Reshape of the pooled values repeats the pooling's grid and is the
    classifier's input quantization). Each conv's own pair computes as
    onnxruntime's QLinearConv, the BNs as its BatchNormalization: the output
    equals onnxruntime's bit for bit. u8 weights (QUInt8, zero points) take
    the same kernels."""
    from onnxruntime.quantization import QuantFormat, QuantType, quantize_static
    q = str(tmp_path / f"{name}_qdq.onnx")
    quantize_static(os.path.join(models, f"{name}.onnx"), q,
                    Samples(random_inputs(name, 1, None, 40 + i) for i in range(2)),
                    quant_format=QuantFormat.QDQ, activation_type=QuantType.QUInt8,
                    weight_type=getattr(QuantType, weight))
    nunc("compile", q, "--target", "x86_64-avx512vnni", *pins(name, 1, None), "-o",
         tmp_path / "out")
    manifest = json.loads((tmp_path / "out" / f"{name}_qdq.json").read_text())
    kernels = manifest["kernels"]
    convs = [k["kernel"] for k in kernels if k["op"] == "nunc.quantized_conv"]
    assert len(convs) == int8_convs and all(k.startswith("conv.int8.avx512vnni[") and
                                            "static" in k for k in convs), convs
    assert all(("u8 weights" in k) == (weight == "QUInt8") for k in convs), convs
    # Each conv's own pair computes as onnxruntime's QLinearConv before the
    # BatchNormalization (nunc-one-step-requantization).
    assert all(k.endswith(("+requantize in one step +normalize +requantize",
                           "+requantize in one step +normalize +requantize -> u8"))
               for k in convs), convs
    # Each depthwise (f32) conv reads the u8 codes of the int8 conv before
    # it, not their f32 values, and so does an int8 conv right after another
    # (nunc-fuse-conv-activation-quantization).
    assert sum(k.endswith("-> u8") for k in convs) == depthwise + conv_pairs, convs
    assert sum(", static, u8 in]" in k for k in convs) == conv_pairs, convs
    assert sum(k["op"] == "nunc.conv" for k in kernels) == 0
    # The depthwise convs take the integer kernel on the model's filter
    # grid: s8 steps (QInt8), or u8 codes (QUInt8, one zero point per
    # tensor) whose steps leave s8 as steps k1 + d per channel (`+filter
    # offsets`).
    dw = [k["kernel"] for k in kernels if k["op"] == "nunc.fused_conv"]
    assert len(dw) == depthwise and all(
        k.startswith("depthwise_conv.int8.avx512vnni[") and ", u8 in]" in k and
        ("+filter offsets" in k) == (weight == "QUInt8") for k in dw), dw
    norms = [k["kernel"] for k in kernels if k["op"] == "nunc.batch_norm"]
    assert len(norms) == depthwise and all(
        k.startswith("elementwise.batch_norm.avx512[") and
        k.endswith("+rounded input +requantize") for k in norms), norms
    assert not any(k["op"] == "nunc.fake_quantize" for k in kernels), kernels
    pools = [k["kernel"] for k in kernels if k["op"] == "nunc.global_average_pool"]
    assert len(pools) == 1 and pools[0].endswith("+codes averaged in one step"), pools
    assert not any(k["op"] == "nunc.elementwise_chain" for k in kernels), kernels
    adds = [k["kernel"] for k in kernels if k["op"] == "nunc.add"]
    assert len(adds) == code_adds and all(k.endswith(" +codes added in one step")
                                          for k in adds), adds
    linear = [k["kernel"] for k in kernels if k["op"].endswith("linear")]
    assert len(linear) == 1 and linear[0].startswith("gemm.int8.avx512vnni[1x1000x") and \
        linear[0].endswith("+bias +requantize"), linear
    assert_tracks_onnxruntime(q, name, tmp_path, exact=True)


@pytest.mark.skipif(not VNNI, reason="the host lacks AVX-512 VNNI")
@pytest.mark.parametrize("name,weight_per_channel,target,f32_convs", [
    ("resnet", False, "x86_64-avx512vnni", 9), ("resnet", True, "x86_64-avx2", 9),
    ("mobilenet", True, "x86_64-avx512vnni", 2), ("mobilenet", False, "x86_64-avxvnni-evex", 2)])
def test_imported_qdq_s8_cnn(nunc, models, tmp_path, name, weight_per_channel, target, f32_convs):
    """quantize_static's default QDQ CNNs (s8 activations): onnxruntime
    converts a Q/DQ pair to u8 only where it has one reader, and runs a conv
    whose input pair has several (a residual block's first conv and its
    downsample, sharing the input with the residual Add) as an f32 Conv on
    the dequantized values, MLAS's im2col and sgemm. nunc computes those
    convs so (quantized_conv's f32_product_k_block: "f32 products (k
    blocks of N)"), the others as QLinearConv, and the residual Adds whose
    operand pair is shared in f32: the output equals onnxruntime's bit for
    bit on three images, on zmm and ymm targets alike (the exact integer
    sums put ~1 code in 40000 a step apart, 2-3 steps at the logits)."""
    from onnxruntime.quantization import QuantFormat, quantize_static
    q = str(tmp_path / f"{name}_qdq.onnx")
    quantize_static(os.path.join(models, f"{name}.onnx"), q,
                    Samples(random_inputs(name, 1, None, 40 + i) for i in range(2)),
                    quant_format=QuantFormat.QDQ, per_channel=weight_per_channel)
    r = nunc("compile", q, "--target", target, *pins(name, 1, None), "-o", tmp_path / "out")
    kernels = json.loads((tmp_path / "out" / f"{name}_qdq.json").read_text())["kernels"]
    convs = [k["kernel"] for k in kernels if k["op"] == "nunc.quantized_conv"]
    f32 = [k for k in convs if re.search(r", f32 products \(k blocks of \d+\)\]", k)]
    assert len(f32) == f32_convs and all("in one step" not in k for k in f32), convs
    # The price is said, with the way out.
    assert f"{f32_convs} int8 steps sum f32 products" in r.stderr, r.stderr
    assert "--one-step-requantization=false sums integers" in r.stderr, r.stderr
    assert all("+requantize in one step" in k for k in convs if k not in f32), convs
    assert_tracks_onnxruntime(q, name, tmp_path, exact=True)


@pytest.mark.skipif(not VNNI, reason="the host lacks AVX-512 VNNI")
@pytest.mark.parametrize("target", ["x86_64-avx512vnni", "x86_64-avxvnni-evex", "x86_64-avx2"])
def test_qdq_s8_conv_with_a_shared_input_equals_onnxruntime(nunc, tmp_path, target):
    """A QDQ conv with s8 activations whose input pair a Relu reads too:
    onnxruntime keeps the pair s8 and runs the conv in f32 (MLAS: FMA
    chains over blocks of 128 k of the im2col order, K = 1152 here, the
    blocks' sums added in order, then the bias). nunc's conv computes it so
    (f32 dequantized input and weights, the f32 GEMM in those blocks, the
    int8 conv's epilogue on its products): bit for bit on six inputs; the
    exact integer sum (--one-step-requantization=false) puts a few of their
    300000 codes a step apart."""
    import onnx
    import onnxruntime as ort
    from onnx import helper as h, numpy_helper as nh
    from onnxruntime.quantization import QuantFormat, quantize_static
    r = np.random.default_rng(11)
    c, m, size = 128, 64, 28
    inits = [nh.from_array((r.standard_normal((m, c, 3, 3)) * 0.05).astype(np.float32), "w"),
             nh.from_array((r.standard_normal(m) * 0.2).astype(np.float32), "b")]
    nodes = [h.make_node("Conv", ["x", "w", "b"], ["y"], pads=[1, 1, 1, 1]),
             h.make_node("Relu", ["x"], ["z"])]
    g = h.make_graph(nodes, "shared", [h.make_tensor_value_info("x", 1, [1, c, size, size])],
                     [h.make_tensor_value_info("y", 1, [1, m, size, size]),
                      h.make_tensor_value_info("z", 1, [1, c, size, size])], inits)
    f32, q = str(tmp_path / "f32.onnx"), str(tmp_path / "shared.onnx")
    onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 17)]), f32)
    quantize_static(f32, q, Samples({"x": r.standard_normal((1, c, size, size))
                                     .astype(np.float32)} for _ in range(2)),
                    quant_format=QuantFormat.QDQ)
    sess = ort.InferenceSession(q, providers=["CPUExecutionProvider"])
    inputs = [{"x": r.standard_normal((1, c, size, size)).astype(np.float32)} for _ in range(6)]
    wants = [sess.run(["y"], feeds)[0] for feeds in inputs]
    differ = {}
    for one_step in ("true", "false"):
        out = tmp_path / f"out_{one_step}"
        res = nunc("compile", q, "--target", target, "--explain",
                   f"--one-step-requantization={one_step}", "-o", out)
        conv = [line for line in res.stdout.splitlines() if "nunc.quantized_conv" in line]
        assert len(conv) == 1 and (("f32 products (k blocks of 128)" in conv[0])
                                   == (one_step == "true")), conv
        exe, man = harness.build(str(out))
        differ[one_step] = 0
        for i, (feeds, want) in enumerate(zip(inputs, wants)):
            outs, _, log = harness.run(exe, man, feeds, str(tmp_path / f"w_{one_step}_{i}"))
            assert outs is not None, log
            assert np.unique(want).size > 100
            differ[one_step] += int((outs["y"] != want).sum())
    assert differ["true"] == 0, differ
    assert differ["false"] > 0, differ  # the inputs hold a boundary case


@pytest.mark.skipif(not VNNI, reason="the host lacks AVX-512 VNNI")
def test_grouped_int8_convs_equal_the_evaluator(nunc, tmp_path):
    """Grouped quantized_convs of random geometry (2-8 groups of 4-12
    channels and 1-16 filters, kernels 1-5, strides 1-2, dilations, uneven
    padding, one or two images, static or dynamic input) run by the int8
    convolution a group at a time equal the reference evaluator bit for
    bit."""
    r = np.random.default_rng(26)

    def dense(a):
        return np.array2string(a, separator=", ", threshold=10**9,
                               max_line_width=10**9).replace("\n", "")
    tested = set()
    while len(tested) < 20:
        groups, cg = int(r.choice([2, 3, 4, 8])), int(r.choice([4, 8, 12]))
        mg, k = int(r.choice([1, 2, 5, 8, 16])), int(r.choice([1, 3, 5]))
        stride, dil = int(r.choice([1, 2])), int(r.choice([1, 1, 2]))
        h, w = int(r.integers(4, 16)), int(r.integers(4, 16))
        pads = [int(r.integers(0, k)) for _ in range(4)]
        batch, dynamic = int(r.choice([1, 2])), bool(r.integers(0, 2))
        c, m = cg * groups, mg * groups
        oh = (h + pads[0] + pads[2] - dil * (k - 1) - 1) // stride + 1
        ow = (w + pads[1] + pads[3] - dil * (k - 1) - 1) // stride + 1
        if oh <= 0 or ow <= 0:
            continue
        scales = ", ".join("%.6e" % s for s in r.uniform(0.004, 0.009, m))
        wt = f"tensor<{m}x{cg}x{k}x{k}x!quant.uniform<i8:f32:0, {{{scales}}}>>"
        bias = ", ".join("%.4f" % b for b in r.uniform(-0.3, 0.3, m))
        static = ("" if dynamic else
                  'activation_quantization = "static", input_quantization = '
                  '!quant.uniform<u8:f32, 0.03:120>, ')
        x_t, y_t = f"tensor<{batch}x{c}x{h}x{w}xf32>", f"tensor<{batch}x{m}x{oh}x{ow}xf32>"
        path = tmp_path / f"grouped{len(tested)}.mlir"
        path.write_text(f"""func.func @main(%x: {x_t} {{nunc.name = "x"}}) -> ({y_t} {{nunc.name = "y"}}) {{
  %i = nunc.constant dense<{dense(r.integers(-127, 128, size=(m, cg, k, k)))}> : tensor<{m}x{cg}x{k}x{k}xi8>
  %w = quant.scast %i : tensor<{m}x{cg}x{k}x{k}xi8> to {wt}
  %b = nunc.constant dense<[{bias}]> : tensor<{m}xf32>
  %y = nunc.quantized_conv %x, %w bias %b : tensor<{m}xf32> {{activation = "relu", {static}dilations = array<i64: {dil}, {dil}>, group = {groups} : i64, kernel_shape = array<i64: {k}, {k}>, pads = array<i64: {pads[0]}, {pads[1]}, {pads[2]}, {pads[3]}>, strides = array<i64: {stride}, {stride}>}} : {x_t}, {wt} -> {y_t}
  return %y : {y_t}
}}
""")
        outs = []
        for ref in ([], ["--reference"]):
            out = tmp_path / f"y{len(tested)}{len(outs)}.npz"
            nunc("run", path, "--random-inputs", "--seed", "1", "-o", out, *ref)
            outs.append(np.load(out)["y"])
        case = (groups, cg, mg, k, stride, dil, h, w, *pads, batch, dynamic)
        assert np.unique(outs[1]).size > 3, case
        np.testing.assert_array_equal(outs[0], outs[1], err_msg=str(case))
        tested.add(case)


def grouped_bottleneck(groups, batch, size, stride, seed):
    """A ResNeXt-style block: 1x1 conv, Relu, 3x3 conv of `groups` groups,
    Relu, 1x1 conv, with the residual Add and Relu at stride 1."""
    from onnx import helper as h, numpy_helper as nh
    r = np.random.default_rng(seed)
    c, width = 64, 128

    def weight(*shape):
        return (r.standard_normal(shape) * np.sqrt(2.0 / np.prod(shape[1:]))).astype(np.float32)

    def bias(n):
        return (r.standard_normal(n) * 0.1).astype(np.float32)
    inits = [nh.from_array(weight(width, c, 1, 1), "w1"), nh.from_array(bias(width), "b1"),
             nh.from_array(weight(width, width // groups, 3, 3), "w2"),
             nh.from_array(bias(width), "b2"),
             nh.from_array(weight(c, width, 1, 1), "w3"), nh.from_array(bias(c), "b3")]
    nodes = [h.make_node("Conv", ["x", "w1", "b1"], ["a"]), h.make_node("Relu", ["a"], ["ar"]),
             h.make_node("Conv", ["ar", "w2", "b2"], ["g"], group=groups, pads=[1] * 4,
                         strides=[stride] * 2, name="grouped"),
             h.make_node("Relu", ["g"], ["gr"]), h.make_node("Conv", ["gr", "w3", "b3"], ["o"])]
    if stride == 1:
        nodes += [h.make_node("Add", ["o", "x"], ["s"]), h.make_node("Relu", ["s"], ["y"])]
    else:
        nodes.append(h.make_node("Relu", ["o"], ["y"]))
    out = size // stride
    graph = h.make_graph(nodes, "resnext_block",
                         [h.make_tensor_value_info("x", 1, [batch, c, size, size])],
                         [h.make_tensor_value_info("y", 1, [batch, c, out, out])], inits)
    return h.make_model(graph, opset_imports=[h.make_opsetid("", 17)]), r


@pytest.mark.skipif(not VNNI, reason="the host lacks AVX-512 VNNI")
@pytest.mark.parametrize("fmt,groups,batch,size,stride,target", [
    ("qdq", 32, 1, 14, 1, "x86_64-avx512vnni"),
    ("qdq-s8", 8, 2, 28, 2, "x86_64-avx512vnni"),
    ("qop", 8, 1, 7, 1, "x86_64-avxvnni-evex"),
    ("dynamic", 8, 2, 14, 2, "x86_64-avxvnni-evex"),
    ("dynamic", 4, 1, 14, 1, "x86_64-avx2")])
def test_grouped_int8_conv_equals_onnxruntime(nunc, tmp_path, fmt, groups, batch, size, stride,
                                              target):
    """A ResNeXt block's grouped 3x3 conv (groups of 4 to 16 channels) in a
    quantize_static model (QDQ with u8 or s8 activations, QOperator) or a
    quantize_dynamic one: nunc's int8 convolution runs it a group at a
    time, the same integer sums as onnxruntime's QLinearConv / ConvInteger,
    so the outputs are onnxruntime's bit for bit, batches run whole
    (--split-batch=false) as well as an item at a time. Before, the grouped
    conv ran a generic f32 loop on the dequantized values, some codes a
    step apart."""
    import onnx
    import onnxruntime as ort
    from onnxruntime.quantization import (QuantFormat, QuantType, quantize_dynamic,
                                          quantize_static)
    model, r = grouped_bottleneck(groups, batch, size, stride, seed=groups + size)
    shape = [batch, 64, size, size]
    f32, q = str(tmp_path / "f32.onnx"), str(tmp_path / "q.onnx")
    onnx.save(model, f32)
    if fmt == "dynamic":
        quantize_dynamic(f32, q, weight_type=QuantType.QInt8)
    else:
        quantize_static(f32, q, Samples({"x": r.standard_normal(shape).astype(np.float32)}
                                        for _ in range(2)),
                        quant_format=QuantFormat.QOperator if fmt == "qop" else QuantFormat.QDQ,
                        activation_type=QuantType.QInt8 if fmt == "qdq-s8" else QuantType.QUInt8,
                        per_channel=True)
    sess = ort.InferenceSession(q, providers=["CPUExecutionProvider"])
    inputs = [{"x": r.standard_normal(shape).astype(np.float32)} for _ in range(3)]
    wants = [sess.run(["y"], feeds)[0] for feeds in inputs]
    for split in ("true", "false") if batch > 1 else ("true",):
        out = tmp_path / f"out_{split}"
        res = nunc("compile", q, "--target", target, "--explain", f"--split-batch={split}",
                   "-o", out)
        grouped = [line for line in res.stdout.splitlines() if f"group {groups} of {groups}" in line]
        assert len(grouped) == 1 and "conv.int8" in grouped[0], res.stdout
        assert "generic" not in res.stdout.split("steps,")[0], res.stdout
        exe, man = harness.build(str(out))
        for i, (feeds, want) in enumerate(zip(inputs, wants)):
            outs, _, log = harness.run(exe, man, feeds, str(tmp_path / f"w_{split}_{i}"))
            assert outs is not None, log
            assert np.unique(want).size > 50
            np.testing.assert_array_equal(outs["y"], want)


@pytest.mark.skipif(not VNNI, reason="the host lacks AVX-512 VNNI")
def test_qdq_conv_before_batch_norm_rounds_as_onnxruntime(nunc, tmp_path):
    """An export that keeps BatchNormalization after its conv gets a Q/DQ
    pair on each side of the BN from quantize_static: onnxruntime runs the
    conv and its pair as QLinearConv (one multiply by fl(s_x s_w / s_y)),
    then the BN on the dequantized codes. nunc's conv epilogue computes the
    first pair the same way (nunc-one-step-requantization), so the output
    equals onnxruntime's bit for bit, per-channel weights and all; with
    --one-step-requantization=false it rounds the f32 result, scaled sum
    plus bias, by an exact division: a code apart where the two straddle a
    rounding boundary (at most one step of the last grid)."""
    import onnx
    import onnxruntime as ort
    from onnx import helper as h, numpy_helper as nh
    from onnxruntime.quantization import QuantFormat, QuantType, quantize_static
    r = np.random.default_rng(7)
    c, m, size = 32, 64, 56
    inits = [nh.from_array((r.standard_normal((m, c, 3, 3)) * 0.1).astype(np.float32), "w"),
             nh.from_array((r.standard_normal(m) * 0.1).astype(np.float32), "b"),
             nh.from_array(r.uniform(0.5, 1.5, m).astype(np.float32), "gamma"),
             nh.from_array((r.standard_normal(m) * 0.1).astype(np.float32), "beta"),
             nh.from_array((r.standard_normal(m) * 0.1).astype(np.float32), "mean"),
             nh.from_array(r.uniform(0.5, 1.5, m).astype(np.float32), "var")]
    nodes = [h.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
             h.make_node("BatchNormalization", ["c", "gamma", "beta", "mean", "var"], ["n"]),
             h.make_node("Relu", ["n"], ["y"])]
    g = h.make_graph(nodes, "conv_bn", [h.make_tensor_value_info("x", 1, [1, c, size, size])],
                     [h.make_tensor_value_info("y", 1, [1, m, size, size])], inits)
    f32, q = str(tmp_path / "f32.onnx"), str(tmp_path / "conv_bn.onnx")
    onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 17)]), f32)
    quantize_static(f32, q, Samples({"x": r.standard_normal((1, c, size, size))
                                     .astype(np.float32)} for _ in range(2)),
                    quant_format=QuantFormat.QDQ, activation_type=QuantType.QUInt8,
                    weight_type=QuantType.QInt8, per_channel=True)
    sess = ort.InferenceSession(q, providers=["CPUExecutionProvider"])
    inputs = [{"x": r.standard_normal((1, c, size, size)).astype(np.float32)} for _ in range(3)]
    wants = [sess.run(None, feeds)[0] for feeds in inputs]
    step = float(nh.to_array(next(i for i in onnx.load(q).graph.initializer
                                  if i.name == "y_scale")))
    differ = {}
    for one_step in ("true", "false"):
        out = tmp_path / f"out_{one_step}"
        res = nunc("compile", q, "--target", "x86_64-avx512vnni", "--explain",
                   f"--one-step-requantization={one_step}", "-o", out)
        conv = [line for line in res.stdout.splitlines() if "conv.int8.avx512vnni[" in line]
        assert len(conv) == 1 and (("+requantize in one step +normalize +requantize" in conv[0])
                                   == (one_step == "true")), conv
        exe, man = harness.build(str(out))
        differ[one_step] = 0
        for i, (feeds, want) in enumerate(zip(inputs, wants)):
            outs, _, log = harness.run(exe, man, feeds, str(tmp_path / f"w_{one_step}_{i}"))
            assert outs is not None, log
            got = outs["y"]
            assert np.abs(got - want).max() <= step * 1.001, (one_step, i)
            differ[one_step] += int((got != want).sum())
    assert differ["true"] == 0, differ
    assert differ["false"] > 0, differ  # the inputs hold a boundary case


@pytest.mark.skipif(not VNNI, reason="the host lacks AVX-512 VNNI")
@pytest.mark.parametrize("activation,reduce_range", [("QUInt8", False), ("QInt8", False),
                                                     ("QUInt8", True)])
def test_imported_qdq_mobilenet_runs_its_blocks_in_u8(nunc, models, tmp_path, activation,
                                                      reduce_range):
    """quantize_static's QDQ MobileNet made as onnxruntime's documentation
    says (quant_pre_process first, which folds each BatchNormalization into
    its conv): every inverted-residual block hands u8 codes from the
    expansion conv to the depthwise conv and from the depthwise conv to the
    projection, and a projection without a residual Add after it to the
    next expansion (nunc-fuse-conv-activation-quantization), where f32
    tensors 4x their size went between them. The output equals onnxruntime's
    as in test_imported_qdq_cnn. With s8 activations (QInt8) the pairs hold
    the u8 codes of the same grids (nunc-unsign-quantize-dequantize): the
    same kernels, but for the two convs onnxruntime runs in f32. With reduce_range (7-bit weights, max |w| / 64) the
    depthwise filters' grid is found all the same (integer taps)."""
    from onnxruntime.quantization import QuantFormat, QuantType, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process
    pre, q = str(tmp_path / "pre.onnx"), str(tmp_path / "mobilenet_qdq.onnx")
    quant_pre_process(os.path.join(models, "mobilenet.onnx"), pre)
    quantize_static(pre, q, Samples(random_inputs("mobilenet", 1, None, 40 + i) for i in range(2)),
                    quant_format=QuantFormat.QDQ, activation_type=getattr(QuantType, activation),
                    weight_type=QuantType.QInt8, per_channel=True, reduce_range=reduce_range)
    r = nunc("compile", q, "--target", "x86_64-avx512vnni", *pins("mobilenet", 1, None), "-o",
             tmp_path / "out")
    arena = int(re.search(r"arena (\d+) B", r.stderr).group(1))
    kernels = json.loads((tmp_path / "out" / "mobilenet_qdq.json").read_text())["kernels"]
    depthwise = [k["kernel"] for k in kernels if k["op"] == "nunc.fused_conv"]
    assert len(depthwise) == 8 and all(
        k.startswith("depthwise_conv.int8.avx512vnni[") and ", u8 in]" in k and
        k.endswith("-> u8") for k in depthwise), depthwise
    # 8 expansions hand codes to depthwise convs, 8 projections take them
    # from one; 4 projections hand them on to the next block's expansion.
    convs = [k["kernel"] for k in kernels if k["op"] == "nunc.quantized_conv"]
    assert sum(k.endswith("-> u8") for k in convs) == 12, convs
    assert sum(bool(re.search(r", static, u8 in[,\]]", k)) for k in convs) == 12, convs
    # Each of them requantizes as onnxruntime's QLinearConv does
    # (nunc-one-step-requantization), and so does every other conv: those
    # before a residual Add write their grid's values (its pair folded into
    # the next conv's input grid and the Add of codes), the last one the
    # values the pooling averages as codes. With s8 activations the two
    # projections whose output pair the residual Add reads too, and the
    # two expansions reading that pair, compute in f32 as onnxruntime's
    # Conv there (f32 products in MLAS's k blocks).
    f32 = [k for k in convs if re.search(r", f32 products \(k blocks of \d+\)\]", k)]
    assert len(f32) == (4 if activation == "QInt8" else 0), convs
    assert all("+requantize in one step" in k for k in convs if k not in f32), convs
    assert all("+requantize in one step -> u8" in k for k in convs
               if k.endswith("-> u8") and k not in f32), convs
    assert all(k.endswith("+requantize in one step -> u8") for k in depthwise), depthwise
    assert not any(k["op"] == "nunc.conv" for k in kernels), kernels
    pools = [k["kernel"] for k in kernels if k["op"] == "nunc.global_average_pool"]
    assert len(pools) == 1 and pools[0].endswith("+codes averaged in one step"), pools
    # The largest f32 tensors are gone: 96 x 112 x 112 f32 alone is 4.8 MB
    # (with s8 activations the f32 convs' scratch holds their products,
    # 144 x 56 x 56 f32: 1.8 MB).
    assert arena < (3 << 20 if activation == "QUInt8" else 7 << 19), arena
    # Every step computes as onnxruntime's kernels do: bit for bit.
    assert_tracks_onnxruntime(q, "mobilenet", tmp_path, exact=True)


@pytest.mark.skipif(not VNNI, reason="the host lacks AVX-512 VNNI")
def test_imported_qdq_mobilenet_on_ymm_equals_onnxruntime(nunc, models, tmp_path):
    """The AVX-VNNI kernels (x86_64-avxvnni-evex: the same ymm code with
    EVEX-encoded vpdpbusd, for AVX-512 VNNI hosts) compute the
    preprocessed QDQ MobileNet's steps as onnxruntime does too: the ymm
    integer depthwise kernel in one step, the pooling of codes; bit for
    bit on three images."""
    from onnxruntime.quantization import QuantFormat, QuantType, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process
    pre, q = str(tmp_path / "pre.onnx"), str(tmp_path / "mobilenet_qdq.onnx")
    quant_pre_process(os.path.join(models, "mobilenet.onnx"), pre)
    quantize_static(pre, q, Samples(random_inputs("mobilenet", 1, None, 40 + i) for i in range(2)),
                    quant_format=QuantFormat.QDQ, activation_type=QuantType.QUInt8,
                    weight_type=QuantType.QInt8, per_channel=True)
    nunc("compile", q, "--target", "x86_64-avxvnni-evex", *pins("mobilenet", 1, None), "-o",
         tmp_path / "out")
    kernels = json.loads((tmp_path / "out" / "mobilenet_qdq.json").read_text())["kernels"]
    depthwise = [k["kernel"] for k in kernels if k["op"] == "nunc.fused_conv"]
    assert len(depthwise) == 8 and all(
        k.startswith("depthwise_conv.int8.avxvnni[") and
        k.endswith("+requantize in one step -> u8") for k in depthwise), depthwise
    pools = [k["kernel"] for k in kernels if k["op"] == "nunc.global_average_pool"]
    assert len(pools) == 1 and pools[0].startswith("global_average_pool.avx2[") and \
        pools[0].endswith("+codes averaged in one step"), pools
    assert_tracks_onnxruntime(q, "mobilenet", tmp_path, exact=True)


@pytest.mark.skipif(not VNNI, reason="the host lacks AVX-512 VNNI")
@pytest.mark.parametrize("activation", ["QUInt8", "QInt8"])
def test_imported_qdq_bert(nunc, models, tmp_path, activation):
    """The BERT example is an opset-11 export: its LayerNorms are ReduceMean,
    Sub, Pow, Sqrt, Div, Mul, Add, and quantize_static puts Q/DQ pairs
    inside them (on the variance, var + eps, the normalized values, times
    gamma, plus beta), so they stay unfused: their means run on the
    row-reduction kernel, Pow(d, 2) as d * d on the elementwise one (the
    generic pow once gave NaN for negative bases and the whole output was
    noise). The only generic steps are the gathered embedding rows'
    dequantize and the mask's cast. With s8 activations (Q, K, V and FFN1
    summed in f32 as onnxruntime does, see the s8 MiniLM) and with u8 ones
    (the FFN1 epilogues' GELU in onnxruntime's QLinearAdd / QLinearMul
    steps on its constants' codes; rounding f32 steps to the same grids put
    86 of layer 11's 24576 codes a step apart) the output equals
    onnxruntime's bit for bit."""
    from onnxruntime.quantization import QuantFormat, QuantType, quantize_static
    q = str(tmp_path / "bert_qdq.onnx")
    quantize_static(os.path.join(models, "bert.onnx"), q,
                    Samples(random_inputs("bert", 1, 8, 20 + i) for i in range(2)),
                    quant_format=QuantFormat.QDQ, activation_type=getattr(QuantType, activation),
                    weight_type=QuantType.QInt8)
    nunc("compile", q, "--target", "x86_64-avx512vnni", *pins("bert", 1, 8), "-o",
         tmp_path / "out")
    manifest = json.loads((tmp_path / "out" / "bert_qdq.json").read_text())
    kernels = manifest["kernels"]
    assert sum(k["kernel"].startswith("gemm.int8.avx512vnni") for k in kernels) == 72
    assert sorted(k["op"] for k in kernels if k["kernel"] == "generic") == [
        "nunc.cast", "nunc.dequantize_linear"], [k for k in kernels if k["kernel"] == "generic"]
    means = [k["kernel"] for k in kernels if k["op"] == "nunc.reduce_mean"]
    # Their means sum as onnxruntime's ReduceMean does (Eigen's SSE packets).
    assert len(means) == 2 * 25 and all(
        k == "reduce_mean.avx512[8 rows of 768] +ordered f32 steps" for k in means), means
    assert not any(k["op"] == "nunc.pow" for k in kernels)
    f32_products = sum("+rounded f32 product (k blocks of 128)" in k["kernel"] for k in kernels)
    assert f32_products == (48 if activation == "QInt8" else 0), f32_products
    # (A QDQ s8 model runs the GELU's Muls in f32: the input's pair has two
    # readers and stays s8 in onnxruntime.)
    qlinear_gelus = sum("+requantize gelu in qlinear steps" in k["kernel"] for k in kernels)
    assert qlinear_gelus == (12 if activation == "QUInt8" else 0), qlinear_gelus
    exe, man = harness.build(str(tmp_path / "out"))
    feeds = random_inputs("bert", 1, 8, 3)
    outs, _, log = harness.run(exe, man, feeds, str(tmp_path / "w"))
    assert outs is not None, log
    got = outs["last_hidden_state"]
    assert np.isfinite(got).all()
    ort_q, _ = onnxruntime_both_ways(q, feeds)
    np.testing.assert_array_equal(got, ort_q)


@pytest.mark.skipif(not VNNI, reason="the host lacks AVX-512 VNNI")
def test_imported_qoperator_bert_s8(nunc, models, tmp_path):
    """quantize_static's QOperator BERT with s8 activations (QLinearMatMul,
    QLinearAdd, QLinearMul on s8 codes; its decomposed LayerNorms' beta
    Adds are s8 QLinearAdds whose sum the next layer's QLinearMatMuls and
    the residual QLinearAdd read: their readers' grids in u8 and s8 storage
    are one grid, so the Add computes as the s8 QLinearAdd, where it was an
    f32 Add: 6-7 steps apart at seq 16), its GELUs in the s8 QLinear steps:
    the output equals onnxruntime's bit for bit."""
    from onnxruntime.quantization import QuantFormat, QuantType, quantize_static
    q = str(tmp_path / "bert_qop.onnx")
    quantize_static(os.path.join(models, "bert.onnx"), q,
                    Samples(random_inputs("bert", 1, 16, 40 + i) for i in range(2)),
                    quant_format=QuantFormat.QOperator, activation_type=QuantType.QInt8,
                    weight_type=QuantType.QInt8)
    nunc("compile", q, "--target", "x86_64-avx512vnni", *pins("bert", 1, 16), "-o",
         tmp_path / "out")
    kernels = [k["kernel"] for k in
               json.loads((tmp_path / "out" / "bert_qop.json").read_text())["kernels"]]
    assert sum("+requantize gelu in qlinear steps" in k for k in kernels) == 12, kernels
    exe, man = harness.build(str(tmp_path / "out"))
    for seed in (5, 6):
        feeds = random_inputs("bert", 1, 16, seed)
        outs, _, log = harness.run(exe, man, feeds, str(tmp_path / f"w{seed}"))
        assert outs is not None, log
        ort_q, _ = onnxruntime_both_ways(q, feeds)
        np.testing.assert_array_equal(outs["last_hidden_state"], ort_q)


@pytest.mark.skipif(not VNNI, reason="the host lacks AVX-512 VNNI")
def test_int8_convs_with_joined_columns_and_their_ranges(nunc, tmp_path):
    """Conv -> Relu -> Conv -> Relu -> Conv on 22x22 (484 = 10 panels + 4
    positions) and 7x7 (49 = 48 + 1) planes: a conv whose tasks build their
    own panels (no last columns joined then) and convs joining the last
    columns as dot products, each writing the partial ranges the next conv
    reads (one slot per task in the sidecar). Against onnxruntime's f32."""
    import onnx
    import onnxruntime as ort
    from onnx import helper as h, numpy_helper as nh
    r = np.random.default_rng(12)
    for size in (22, 7):
        inits, nodes, x = [], [], "x"
        for i in range(3):
            cin = 8 if i == 0 else 32
            inits += [nh.from_array((r.standard_normal((32, cin, 3, 3)) * 0.15)
                                    .astype(np.float32), f"w{i}"),
                      nh.from_array((r.standard_normal(32) * 0.1).astype(np.float32), f"b{i}")]
            y = "y" if i == 2 else f"c{i}"
            nodes.append(h.make_node("Conv", [x, f"w{i}", f"b{i}"], [y], pads=[1, 1, 1, 1]))
            if i < 2:
                nodes.append(h.make_node("Relu", [y], [f"r{i}"]))
                y = f"r{i}"
            x = y
        g = h.make_graph(nodes, "chain", [h.make_tensor_value_info("x", 1, [1, 8, size, size])],
                         [h.make_tensor_value_info("y", 1, [1, 32, size, size])], inits)
        path = str(tmp_path / f"chain{size}.onnx")
        onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 17)]), path)
        out = tmp_path / f"out{size}"
        res = nunc("compile", path, "--target", "x86_64-avx512vnni", "--quantize", "int8",
                   "--explain", "-o", out)
        convs = [line for line in res.stdout.splitlines() if "conv.int8.avx512vnni[" in line]
        assert len(convs) == 3, res.stdout
        assert all("producer's range]" in c for c in convs[1:]), convs
        assert all("+range" in c for c in convs[:2]), convs
        if size == 22:
            assert all("panel im2col" in c and "dot products" not in c for c in convs), convs
        else:
            assert all("last 1 columns as dot products" in c for c in convs), convs
        exe, man = harness.build(str(out))
        feeds = {"x": r.standard_normal((1, 8, size, size)).astype(np.float32)}
        want = ort.InferenceSession(path, providers=["CPUExecutionProvider"]).run(None, feeds)[0]
        for threads in (1, 2):
            outs, _, log = harness.run(exe, man, feeds, str(tmp_path / f"w{size}_{threads}"),
                                       threads=threads)
            assert outs is not None, log
            assert cosine(outs["y"], want) >= 0.999, (size, threads, cosine(outs["y"], want))


def qoperator_contrib_model(path):
    """One graph with each com.microsoft op that quantize_static writes in
    QOperator format, on awkward shapes: u8 activations, s8 weights."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    r = np.random.default_rng(11)

    def c(name, value):
        return numpy_helper.from_array(np.asarray(value), name)
    inits = [c("sx", np.float32(0.05)), c("zx", np.uint8(120)),
             c("sy", np.float32(0.03)), c("zy", np.uint8(90)),
             c("sz", np.float32(0.2)), c("zz", np.uint8(131)),
             c("so", np.float32(0.07)), c("zo", np.uint8(128)),
             c("s_sig", np.float32(1 / 256)), c("z0", np.uint8(0)),
             c("s_soft", np.float32(1 / 255)),
             c("sa", np.float32(0.04)), c("za", np.uint8(100)),
             c("wt", r.integers(-127, 128, (5, 17)).astype(np.int8)),
             c("swt", (r.random(5) * 0.02 + 0.005).astype(np.float32)),
             c("zwt", np.zeros(5, np.int8)),
             c("bias", r.integers(-2000, 2000, 5).astype(np.int32)),
             c("s_gemm", np.float32(0.25)), c("z_gemm", np.uint8(128)),
             c("w", r.integers(-127, 128, (17, 7)).astype(np.int8)),
             c("sw", np.float32(0.01)), c("zw", np.int8(0))]
    ms = "com.microsoft"
    nodes = [
        helper.make_node("QLinearAdd", ["x", "sx", "zx", "y", "sy", "zy", "so", "zo"], ["add"],
                         domain=ms, name="add"),
        helper.make_node("QLinearMul", ["x", "sx", "zx", "z", "sz", "zz", "so", "zo"], ["mul"],
                         domain=ms, name="mul"),
        helper.make_node("QLinearSigmoid", ["x", "sx", "zx", "s_sig", "z0"], ["sigmoid"],
                         domain=ms, name="sigmoid"),
        helper.make_node("QLinearLeakyRelu", ["x", "sx", "zx", "sy", "zy"], ["leaky"],
                         domain=ms, alpha=0.1, name="leaky"),
        helper.make_node("QLinearSoftmax", ["x", "sx", "zx", "s_soft", "z0"], ["softmax"],
                         domain=ms, opset=13, axis=-1, name="softmax"),
        helper.make_node("QLinearSoftmax", ["x", "sx", "zx", "s_soft", "z0"], ["softmax12"],
                         domain=ms, opset=12, axis=2, name="softmax12"),
        helper.make_node("QLinearGlobalAveragePool", ["x", "sx", "zx", "sy", "zy"], ["gap"],
                         domain=ms, name="gap"),
        helper.make_node("QLinearAveragePool", ["x", "sx", "zx", "sy", "zy"], ["pool"],
                         domain=ms, kernel_shape=[2, 3], strides=[2, 1], pads=[0, 1, 1, 0],
                         name="pool"),
        helper.make_node("QLinearConcat", ["so", "zo", "x", "sx", "zx", "y", "sy", "zy"],
                         ["concat"], domain=ms, axis=1, name="concat"),
        helper.make_node("QGemm", ["a", "sa", "za", "wt", "swt", "zwt", "bias", "s_gemm", "z_gemm"],
                         ["gemm"], domain=ms, transB=1, name="gemm"),
        helper.make_node("QGemm", ["a", "sa", "za", "w", "sw", "zw"], ["gemm_f32"], domain=ms,
                         alpha=0.5, name="gemm_f32"),
    ]
    u8 = TensorProto.UINT8
    graph = helper.make_graph(
        nodes, "qoperator",
        [helper.make_tensor_value_info("x", u8, [2, 3, 5, 7]),
         helper.make_tensor_value_info("y", u8, [2, 3, 5, 7]),
         helper.make_tensor_value_info("z", u8, [7]),
         helper.make_tensor_value_info("a", u8, [4, 17])],
        [helper.make_tensor_value_info("add", u8, [2, 3, 5, 7]),
         helper.make_tensor_value_info("mul", u8, [2, 3, 5, 7]),
         helper.make_tensor_value_info("sigmoid", u8, [2, 3, 5, 7]),
         helper.make_tensor_value_info("leaky", u8, [2, 3, 5, 7]),
         helper.make_tensor_value_info("softmax", u8, [2, 3, 5, 7]),
         helper.make_tensor_value_info("softmax12", u8, [2, 3, 5, 7]),
         helper.make_tensor_value_info("gap", u8, [2, 3, 1, 1]),
         helper.make_tensor_value_info("pool", u8, [2, 3, 3, 6]),
         helper.make_tensor_value_info("concat", u8, [2, 6, 5, 7]),
         helper.make_tensor_value_info("gemm", u8, [4, 5]),
         helper.make_tensor_value_info("gemm_f32", TensorProto.FLOAT, [4, 7])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13),
                                                    helper.make_opsetid(ms, 1)])
    model.ir_version = 8
    onnx.save(model, path)


def optimizer_contrib_model(path, error=None):
    """One graph with each com.microsoft op onnxruntime's graph optimizer
    fuses MiniLM into (what a model saved with `optimized_model_filepath`
    holds), on awkward shapes. `error` swaps in a form nunc rejects:
    "transBatch" (FusedMatMul with transBatchA)."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    r = np.random.default_rng(12)

    def c(name, value):
        return numpy_helper.from_array(np.asarray(value), name)
    inits = [c("w", r.integers(-127, 128, (17, 7)).astype(np.int8)),
             c("sw", (r.random(7) * 0.02 + 0.005).astype(np.float32)),
             c("zw", np.zeros(7, np.int8)),
             c("bias", r.standard_normal(7).astype(np.float32)),
             c("wu", r.integers(0, 256, (17, 7)).astype(np.uint8)),
             c("swu", np.float32(0.01)), c("zwu", np.uint8(131)),
             c("zwc", r.integers(100, 160, 7).astype(np.uint8)),
             c("sa", np.float32(0.04)), c("zs", np.int8(-9)),
             c("gb", r.standard_normal(40).astype(np.float32)),
             c("gamma", (r.random(16) + 0.5).astype(np.float32)),
             c("we", r.standard_normal((50, 16)).astype(np.float32)),
             c("pe", r.standard_normal((20, 16)).astype(np.float32)),
             c("se", r.standard_normal((2, 16)).astype(np.float32)),
             c("cw", (r.standard_normal((6, 3, 3, 3)) * 0.3).astype(np.float32)),
             c("cb", r.standard_normal(6).astype(np.float32)),
             c("gw", r.standard_normal((9, 17)).astype(np.float32)),
             c("gc", r.standard_normal(9).astype(np.float32)),
             c("beta", r.standard_normal(16).astype(np.float32)),
             c("sbias", r.standard_normal(16).astype(np.float32)),
             c("gamma5", (r.random((4, 5)) + 0.5).astype(np.float32))]
    ms = "com.microsoft"
    nodes = [
        helper.make_node("DynamicQuantizeMatMul", ["x", "w", "sw", "zw", "bias"], ["dqmm"],
                         domain=ms, name="dqmm"),
        helper.make_node("DynamicQuantizeMatMul", ["x", "wu", "swu", "zwu"], ["dqmm_u8"],
                         domain=ms, name="dqmm_u8"),
        helper.make_node("DynamicQuantizeMatMul", ["x", "wu", "sw", "zwc", "bias"],
                         ["dqmm_u8c"], domain=ms, name="dqmm_u8c"),
        helper.make_node("DynamicQuantizeLinear", ["x"], ["xq", "xs", "xz"], name="dql"),
        helper.make_node("MatMulIntegerToFloat", ["xq", "w", "xs", "sw", "xz", "zw", "bias"],
                         ["mitf"], domain=ms, name="mitf"),
        helper.make_node("MatMulIntegerToFloat", ["a", "w", "sa", "sw"], ["mitf_nozp"],
                         domain=ms, name="mitf_nozp"),
        helper.make_node("MatMulIntegerToFloat", ["s8", "w", "sa", "sw", "zs"], ["mitf_s8"],
                         domain=ms, name="mitf_s8"),
        helper.make_node("FusedMatMul", ["p", "q"], ["fmm"], domain=ms, transB=1, alpha=0.125,
                         name="fmm", **({"transBatchA": 1} if error == "transBatch" else {})),
        helper.make_node("FusedMatMul", ["pt", "qt"], ["fmm_t"], domain=ms, transA=1, name="fmm_t"),
        helper.make_node("Gelu", ["g"], ["gelu"], domain=ms, name="gelu"),
        helper.make_node("FastGelu", ["g", "gb"], ["fastgelu"], domain=ms, name="fastgelu"),
        helper.make_node("FastGelu", ["g"], ["fastgelu_nobias"], domain=ms, name="fastgelu_nb"),
        helper.make_node("BiasGelu", ["g", "gb"], ["biasgelu"], domain=ms, name="biasgelu"),
        # A large epsilon, then the default (1e-12) on rows of variance
        # ~1e-6: each visible in the result.
        helper.make_node("SkipLayerNormalization", ["h", "skip", "gamma", "beta", "sbias"],
                         ["sln", "sln_mean", "sln_inv_std", "sln_sum"], domain=ms,
                         epsilon=1e-2, name="sln"),
        helper.make_node("SkipLayerNormalization", ["h2", "skip2", "gamma"], ["sln2"], domain=ms,
                         name="sln2"),
        helper.make_node("EmbedLayerNormalization",
                         ["ids", "seg", "we", "pe", "se", "gamma", "beta", "mask"],
                         ["eln", "eln_mask_index", "eln_sum"], domain=ms, epsilon=1e-5,
                         name="eln"),
        helper.make_node("EmbedLayerNormalization",
                         ["ids", "", "we", "pe", "", "gamma", "beta", "", "pos"],
                         ["eln2", "eln2_mask_index"], domain=ms, name="eln2"),
        helper.make_node("FusedConv", ["img", "cw", "cb", "zsum"], ["fconv"], domain=ms,
                         activation="Clip", activation_params=[-0.5, 1.5], pads=[1, 1, 1, 1],
                         strides=[1, 1], name="fconv"),
        helper.make_node("FusedConv", ["img", "cw"], ["fconv_leaky"], domain=ms,
                         activation="LeakyRelu", activation_params=[0.2], strides=[2, 2],
                         name="fconv_leaky"),
        helper.make_node("FusedGemm", ["x", "gw", "gc"], ["fgemm"], domain=ms, transB=1,
                         alpha=0.5, activation="LeakyRelu", activation_alpha=0.1, name="fgemm"),
        helper.make_node("FusedGemm", ["x", "gw"], ["fgemm_sig"], domain=ms, transB=1,
                         activation="Sigmoid", name="fgemm_sig"),
        # CLIP's QuickGelu (its alpha, and 1: SiLU), the RMSNorms of
        # LLaMA/T5-style exports: onnxruntime's SimplifiedLayerNormalization
        # (its default domain) and SkipSimplifiedLayerNormalization.
        helper.make_node("QuickGelu", ["g"], ["quickgelu"], domain=ms, name="quickgelu"),
        helper.make_node("QuickGelu", ["g"], ["quickgelu_silu"], domain=ms, alpha=1.0,
                         name="quickgelu_silu"),
        helper.make_node("SimplifiedLayerNormalization", ["h", "gamma"], ["rms", "rms_inv"],
                         epsilon=1e-2, name="rms"),
        helper.make_node("SimplifiedLayerNormalization", ["pt", "gamma5"], ["rms_axis"], axis=1,
                         name="rms_axis"),
        helper.make_node("SkipSimplifiedLayerNormalization", ["h", "skip", "gamma", "sbias"],
                         ["srms", "srms_mean" if error == "rmsMean" else "", "srms_inv",
                          "srms_sum"], domain=ms, epsilon=1e-2, name="srms"),
        helper.make_node("SkipSimplifiedLayerNormalization", ["h2", "skip2", "gamma"], ["srms2"],
                         domain=ms, name="srms2"),
    ]
    f32, u8 = TensorProto.FLOAT, TensorProto.UINT8
    outputs = [("dqmm", [4, 7]), ("dqmm_u8", [4, 7]), ("dqmm_u8c", [4, 7]), ("mitf", [4, 7]),
               ("mitf_nozp", [4, 7]), ("mitf_s8", [4, 7]), ("fmm", [2, 3, 5, 6]),
               ("fmm_t", [3, 5, 6]), ("gelu", [3, 40]), ("fastgelu", [3, 40]),
               ("fastgelu_nobias", [3, 40]), ("biasgelu", [3, 40]), ("sln", [2, 5, 16]),
               ("sln_mean", [2, 5, 1]), ("sln_inv_std", [2, 5, 1]), ("sln_sum", [2, 5, 16]),
               ("sln2", [2, 5, 16]), ("eln", [2, 5, 16]), ("eln_sum", [2, 5, 16]),
               ("eln2", [2, 5, 16]), ("fconv", [2, 6, 7, 9]), ("fconv_leaky", [2, 6, 3, 4]),
               ("fgemm", [4, 9]), ("fgemm_sig", [4, 9]), ("quickgelu", [3, 40]),
               ("quickgelu_silu", [3, 40]), ("rms", [2, 5, 16]), ("rms_inv", [2, 5, 1]),
               ("rms_axis", [3, 4, 5]), ("srms", [2, 5, 16]), ("srms_inv", [2, 5, 1]),
               ("srms_sum", [2, 5, 16]), ("srms2", [2, 5, 16])]
    graph = helper.make_graph(
        nodes, "optimized",
        [helper.make_tensor_value_info("x", f32, [4, 17]),
         helper.make_tensor_value_info("a", u8, [4, 17]),
         helper.make_tensor_value_info("s8", TensorProto.INT8, [4, 17]),
         helper.make_tensor_value_info("p", f32, [2, 3, 5, 4]),
         helper.make_tensor_value_info("q", f32, [2, 3, 6, 4]),
         helper.make_tensor_value_info("pt", f32, [3, 4, 5]),
         helper.make_tensor_value_info("qt", f32, [3, 4, 6]),
         helper.make_tensor_value_info("g", f32, [3, 40]),
         helper.make_tensor_value_info("h", f32, [2, 5, 16]),
         helper.make_tensor_value_info("skip", f32, [2, 5, 16]),
         helper.make_tensor_value_info("h2", f32, [2, 5, 16]),
         helper.make_tensor_value_info("skip2", f32, [2, 5, 16]),
         helper.make_tensor_value_info("ids", TensorProto.INT32, [2, 5]),
         helper.make_tensor_value_info("seg", TensorProto.INT32, [2, 5]),
         helper.make_tensor_value_info("mask", TensorProto.INT32, [2, 5]),
         helper.make_tensor_value_info("pos", TensorProto.INT32, [2, 5]),
         helper.make_tensor_value_info("img", f32, [2, 3, 7, 9]),
         helper.make_tensor_value_info("zsum", f32, [2, 6, 7, 9])],
        [helper.make_tensor_value_info(name, f32, shape) for name, shape in outputs] +
        [helper.make_tensor_value_info(name, TensorProto.INT32, [2])
         for name in ("eln_mask_index", "eln2_mask_index")], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                    helper.make_opsetid(ms, 1)])
    model.ir_version = 8
    onnx.save(model, path)


@pytest.mark.skipif(not VNNI, reason="the host lacks AVX-512 VNNI")
def test_imported_optimizer_contrib_ops_match_onnxruntime(nunc, tmp_path):
    """The com.microsoft ops of onnxruntime's graph optimizer, each imported
    as the ai.onnx ops it fused: the int8 MatMuls (s8 and u8 weights, zero
    points per tensor and per column, with and without bias; s8 and u8
    inputs) equal onnxruntime's up to the float rounding of their scales,
    the rest within float rounding (FastGelu is the tanh approximation on
    both sides; SkipLayerNormalization's epsilon, given or the default,
    shows in its outputs; EmbedLayerNormalization with segments and a mask,
    and with position ids and neither, its mask index exactly; FusedConv
    with its sum input and Clip or LeakyRelu, FusedGemm with LeakyRelu or
    Sigmoid; QuickGelu; the RMSNorms SimplifiedLayerNormalization, over the
    last dim or two, and SkipSimplifiedLayerNormalization, with the bias and
    all its outputs but the mean it has none of, and on rows of tiny values
    where its default epsilon shows). A rejected form gives a located
    error."""
    import onnxruntime as ort
    path = str(tmp_path / "opt.onnx")
    optimizer_contrib_model(path)
    nunc("compile", path, "--target", "x86_64-avx512vnni", "-o", tmp_path / "out")
    manifest = json.loads((tmp_path / "out" / "opt.json").read_text())
    kernels = {k["op"] for k in manifest["kernels"]}
    assert "nunc.quantized_linear" in kernels, manifest["kernels"]
    exe, man = harness.build(str(tmp_path / "out"))
    session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    r = np.random.default_rng(31)
    feeds = {"x": r.standard_normal((4, 17)).astype(np.float32),
             "a": r.integers(0, 256, (4, 17)).astype(np.uint8),
             "s8": r.integers(-128, 128, (4, 17)).astype(np.int8),
             "p": r.standard_normal((2, 3, 5, 4)).astype(np.float32),
             "q": r.standard_normal((2, 3, 6, 4)).astype(np.float32),
             "pt": r.standard_normal((3, 4, 5)).astype(np.float32),
             "qt": r.standard_normal((3, 4, 6)).astype(np.float32),
             "g": (r.standard_normal((3, 40)) * 3).astype(np.float32),
             "h": r.standard_normal((2, 5, 16)).astype(np.float32),
             "skip": r.standard_normal((2, 5, 16)).astype(np.float32),
             "h2": (r.standard_normal((2, 5, 16)) * 1e-3).astype(np.float32),
             "skip2": (r.standard_normal((2, 5, 16)) * 1e-4).astype(np.float32),
             "ids": r.integers(0, 50, (2, 5)).astype(np.int32),
             "seg": r.integers(0, 2, (2, 5)).astype(np.int32),
             "mask": np.array([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]], np.int32),
             "pos": r.integers(0, 20, (2, 5)).astype(np.int32),
             "img": r.standard_normal((2, 3, 7, 9)).astype(np.float32),
             "zsum": r.standard_normal((2, 6, 7, 9)).astype(np.float32)}
    outs, _, log = harness.run(exe, man, feeds, str(tmp_path / "w"))
    assert outs is not None, log
    want = dict(zip([o.name for o in session.get_outputs()], session.run(None, feeds)))
    assert sorted(outs) == sorted(want)
    for name, ref in want.items():
        if ref.dtype == np.int32:  # mask_index: the mask's ones per row, 0 without a mask
            np.testing.assert_array_equal(outs[name], ref, err_msg=name)
            continue
        np.testing.assert_allclose(outs[name], ref, rtol=1e-5, atol=2e-5 * np.abs(ref).max(),
                                   err_msg=name)
        assert len(np.unique(ref)) >= min(10, ref.size), name
    np.testing.assert_array_equal(want["eln_mask_index"], [3, 5])
    bad = str(tmp_path / "bad.onnx")
    optimizer_contrib_model(bad, "transBatch")
    r = nunc("compile", bad, "--target", "x86_64-avx512vnni", "-o", tmp_path / "bad", check=False)
    assert r.returncode == 1 and 'node "fmm" (com.microsoft.FusedMatMul, opset 1)' in r.stderr \
        and "FusedMatMul with transBatchA or transBatchB is not supported" in r.stderr, r.stderr
    optimizer_contrib_model(bad, "rmsMean")
    r = nunc("compile", bad, "--target", "x86_64-avx512vnni", "-o", tmp_path / "bad", check=False)
    assert r.returncode == 1 and \
        'node "srms" (com.microsoft.SkipSimplifiedLayerNormalization, opset 1)' in r.stderr \
        and "output #1 (mean) has no value" in r.stderr, r.stderr


@pytest.mark.skipif(not VNNI, reason="the host lacks AVX-512 VNNI")
def test_onnxruntime_optimized_minilm_compiles_as_the_original(nunc, models, tmp_path):
    """MiniLM as onnxruntime's graph optimizer saves it (fp32: FusedMatMul,
    BiasGelu; its quantize_dynamic model: also DynamicQuantizeMatMul,
    MatMulIntegerToFloat, Gelu, SkipLayerNormalization) compiles to the
    kernels of the model it came from, with the same outputs; so does its
    transformer optimizer's model (EmbedLayerNormalization,
    SkipLayerNormalization with the bias, BiasGelu), but for the two Casts
    of the ids to int32 it adds."""
    import onnxruntime as ort
    from onnxruntime.quantization import QuantType, quantize_dynamic
    src = os.path.join(models, "minilm.onnx")
    dyn = str(tmp_path / "minilm_dyn.onnx")
    quantize_dynamic(src, dyn, weight_type=QuantType.QInt8)
    feeds = random_inputs("minilm", 2, 7, 5)
    for name, model in (("f32", src), ("dyn", dyn)):
        so = ort.SessionOptions()
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
        so.optimized_model_filepath = str(tmp_path / f"{name}_opt.onnx")
        ort.InferenceSession(model, so, providers=["CPUExecutionProvider"])
        import onnx
        contrib = {n.op_type for n in onnx.load(so.optimized_model_filepath).graph.node
                   if n.domain == "com.microsoft"}
        assert {"FusedMatMul"} <= contrib, contrib
        if name == "dyn":
            assert {"DynamicQuantizeMatMul", "MatMulIntegerToFloat",
                    "SkipLayerNormalization"} <= contrib, contrib
        libs = []
        for tag, path in (("orig", model), ("opt", so.optimized_model_filepath)):
            out = tmp_path / f"{name}_{tag}"
            nunc("compile", path, "--target", "x86_64-avx512vnni", *pins("minilm", 2, 7),
                 "-o", out)
            lib = os.path.splitext(os.path.basename(path))[0]
            kernels = sorted(k["kernel"] for k in json.loads(
                (out / f"{lib}.json").read_text())["kernels"])
            exe, man = harness.build(str(out))
            outs, _, log = harness.run(exe, man, feeds, str(out / "w"))
            assert outs is not None, log
            libs.append((kernels, outs["last_hidden_state"]))
        assert libs[0][0] == libs[1][0], (libs[0][0], libs[1][0])
        np.testing.assert_allclose(libs[1][1], libs[0][1], rtol=1e-5, atol=1e-5)
    # Its CNNs (FusedConv, FusedGemm) and its opset-11 BERT (a
    # LayerNormalization it writes into opset 11) likewise.
    for name, shapes, dims in (("mobilenet", ["--shape", "batch=1"], (1, 3, 224, 224)),
                               ("bert", ["--shape", "batch=1", "--shape", "sequence=16"], None)):
        so = ort.SessionOptions()
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
        so.optimized_model_filepath = str(tmp_path / f"{name}_opt.onnx")
        ort.InferenceSession(os.path.join(models, f"{name}.onnx"), so,
                             providers=["CPUExecutionProvider"])
        nunc("compile", so.optimized_model_filepath, "--target", "x86_64-avx512vnni", *shapes,
             "-o", tmp_path / f"{name}_opt")
        exe, man = harness.build(str(tmp_path / f"{name}_opt"))
        feed = ({"input": np.random.default_rng(2).standard_normal(dims).astype(np.float32)}
                if dims else random_inputs("bert", 1, 16, 2))
        outs, _, log = harness.run(exe, man, feed, str(tmp_path / f"{name}_opt" / "w"))
        assert outs is not None, log
        want = ort.InferenceSession(so.optimized_model_filepath,
                                    providers=["CPUExecutionProvider"]).run(None, feed)[0]
        got = list(outs.values())[0]
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4 * np.abs(want).max())
    from onnxruntime.transformers import optimizer
    tf = str(tmp_path / "minilm_tf.onnx")
    optimizer.optimize_model(src, model_type="bert", num_heads=12, hidden_size=384,
                             opt_level=0).save_model_to_file(tf)
    import onnx
    contrib = {n.op_type for n in onnx.load(tf).graph.node if n.domain == "com.microsoft"}
    assert {"EmbedLayerNormalization", "SkipLayerNormalization", "BiasGelu"} <= contrib, contrib
    nunc("compile", tf, "--target", "x86_64-avx512vnni", *pins("minilm", 2, 7), "-o",
         tmp_path / "tf")
    kernels = sorted(k["kernel"] for k in json.loads(
        (tmp_path / "tf" / "minilm_tf.json").read_text())["kernels"])
    original = sorted(k["kernel"] for k in json.loads(
        (tmp_path / "f32_orig" / "minilm.json").read_text())["kernels"])
    assert [k for k in kernels if k != "generic"] == [k for k in original if k != "generic"]
    assert kernels.count("generic") == original.count("generic") + 2
    exe, man = harness.build(str(tmp_path / "tf"))
    outs, _, log = harness.run(exe, man, feeds, str(tmp_path / "tf" / "w"))
    assert outs is not None, log
    np.testing.assert_allclose(outs["last_hidden_state"], ort.InferenceSession(
        tf, providers=["CPUExecutionProvider"]).run(None, feeds)[0], rtol=1e-4, atol=1e-4)


def test_imported_qoperator_contrib_ops_match_onnxruntime(nunc, tmp_path):
    """onnxruntime's com.microsoft quantized ops, each imported as its QDQ
    form: every 8-bit output within one unit of onnxruntime's (which uses
    integer shortcuts: rescaled integer sums, an exp table), off by one
    only on near-ties; QGemm's f32 output within float rounding.
    QLinearSoftmax's table rounds down where the f32 definition rounds to
    nearest (onnxruntime is one unit lower on ~17 % of these values): nunc
    keeps the definition, so it is checked against that, and against
    onnxruntime for the direction of the difference."""
    import onnxruntime as ort
    path = str(tmp_path / "qop.onnx")
    qoperator_contrib_model(path)
    nunc("compile", path, "--target", "x86_64-avx512vnni", "-o", tmp_path / "out")
    exe, man = harness.build(str(tmp_path / "out"))
    session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    for seed in range(2):
        r = np.random.default_rng(30 + seed)
        feeds = {"x": r.integers(0, 256, (2, 3, 5, 7)).astype(np.uint8),
                 "y": r.integers(0, 256, (2, 3, 5, 7)).astype(np.uint8),
                 "z": r.integers(0, 256, 7).astype(np.uint8),
                 "a": r.integers(0, 256, (4, 17)).astype(np.uint8)}
        outs, _, log = harness.run(exe, man, feeds, str(tmp_path / f"w{seed}"))
        assert outs is not None, log
        want = dict(zip([o.name for o in session.get_outputs()], session.run(None, feeds)))
        for name, ref in want.items():
            got = outs[name]
            assert got.dtype == ref.dtype and got.shape == ref.shape, (name, got.dtype, got.shape)
            if name == "gemm_f32":
                np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-4 * np.abs(ref).max())
                continue
            diff = np.abs(got.astype(np.int32) - ref.astype(np.int32))
            assert diff.max() <= 1, (name, diff.max())
            assert len(np.unique(ref)) > 3, name  # not a saturated corner
            if name.startswith("softmax"):
                assert (ref <= got).all(), name
                x = (feeds["x"].astype(np.float32) - 120) * np.float32(0.05)
                if name == "softmax12":  # opset 12: over dims 2 and 3 together
                    x = x.reshape(2, 3, 35)
                e = np.exp(x - x.max(-1, keepdims=True))
                ref = np.clip(np.rint(e / e.sum(-1, keepdims=True) * 255), 0, 255)
                diff = np.abs(got.astype(np.int32) - ref.reshape(got.shape).astype(np.int32))
                assert diff.max() <= 1, (name, diff.max())
            assert (diff > 0).mean() <= 0.05, (name, (diff > 0).mean())


@pytest.mark.skipif(not VNNI, reason="the host lacks AVX-512 VNNI")
@pytest.mark.parametrize("name,int8_convs", [("resnet", 16), ("mobilenet", 25)])
def test_imported_qoperator_cnn(nunc, models, tmp_path, name, int8_convs):
    """quantize_static's CNNs in QOperator format (QLinearConv, QLinearAdd,
    QLinearGlobalAveragePool, QGemm; MaxPool and Flatten/Reshape on u8):
    after nunc-qoperator-to-qdq nothing takes a generic step. Every conv is
    an int8 convolution (the depthwise ones the integer depthwise kernel on
    u8 planes), the classifier the int8 GEMM; every step computes as
    onnxruntime's kernel for it, so the output equals onnxruntime's bit for
    bit. (Preprocessed as onnxruntime's documentation has it: the
    BatchNormalizations fold into the convs first.)"""
    from onnxruntime.quantization import QuantFormat, QuantType, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process
    import onnx
    pre, q = str(tmp_path / "pre.onnx"), str(tmp_path / f"{name}_qop.onnx")
    quant_pre_process(os.path.join(models, f"{name}.onnx"), pre)
    quantize_static(pre, q,
                    Samples(random_inputs(name, 1, None, 40 + i) for i in range(2)),
                    quant_format=QuantFormat.QOperator, activation_type=QuantType.QUInt8,
                    weight_type=QuantType.QInt8)
    ops = {(n.domain, n.op_type) for n in onnx.load(q).graph.node}
    assert {("com.microsoft", "QLinearAdd"), ("com.microsoft", "QLinearGlobalAveragePool"),
            ("com.microsoft", "QGemm"), ("", "QLinearConv")} <= ops, ops
    r = nunc("compile", q, "--target", "x86_64-avx512vnni", *pins(name, 1, None), "-o",
             tmp_path / "out")
    assert "f32 products" not in r.stderr, r.stderr  # every step on integer sums
    kernels = json.loads((tmp_path / "out" / f"{name}_qop.json").read_text())["kernels"]
    assert not [k for k in kernels if k["kernel"] == "generic"], kernels
    convs = [k["kernel"] for k in kernels if k["op"] in ("nunc.quantized_conv", "nunc.fused_conv")]
    assert len(convs) == int8_convs and all(
        k.startswith("conv.int8.avx512vnni[") and "static" in k or
        k.startswith("depthwise_conv.int8.avx512vnni[") and "u8 in" in k for k in convs), convs
    linear = [k["kernel"] for k in kernels if k["op"].endswith("linear")]
    assert len(linear) == 1 and linear[0].startswith("gemm.int8.avx512vnni[1x1000x"), linear
    assert_tracks_onnxruntime(q, name, tmp_path, exact=True)


@pytest.mark.skipif(not VNNI, reason="the host lacks AVX-512 VNNI")
@pytest.mark.parametrize("activation,per_channel,symmetric", [
    ("QUInt8", False, False), ("QInt8", False, False), ("QInt8", True, False),
    ("QInt8", False, True)])
def test_imported_qoperator_minilm(nunc, models, tmp_path, activation, per_channel, symmetric):
    """quantize_static's MiniLM in QOperator format (QLinearMatMul,
    QLinearAdd, QLinearMul, QLinearSoftmax; Reshape and Transpose on u8)
    reaches the kernels of the QDQ one: the 36 weight MatMuls on the VNNI
    GEMM with static inputs, attention fused with its five grids (on the
    u8 codes of Q, K and V), and its output equals onnxruntime's bit for
    bit (see the QDQ case). With s8 activations too (the quantizer's
    default): onnxruntime runs the QLinear ops on s8 codes, and nunc's
    GEMMs add the bias's and the residual's codes as s8 (signed_codes).
    With symmetric s8 grids (ActivationSymmetric) the mask's lowest float
    dequantizes to -inf (code -127 times 3.4e38 / 127): the mask's
    QLinearMul multiplies codes, as onnxruntime's does, instead of forming
    0 x -inf = NaN for every unmasked position (which masked them all);
    batch 2 has padding in its second row."""
    from onnxruntime.quantization import QuantFormat, QuantType, quantize_static
    import onnx
    q = str(tmp_path / "minilm_qop.onnx")
    quantize_static(os.path.join(models, "minilm.onnx"), q,
                    Samples(random_inputs("minilm", 1, 16, 20 + i) for i in range(8)),
                    quant_format=QuantFormat.QOperator,
                    activation_type=getattr(QuantType, activation),
                    weight_type=QuantType.QInt8, per_channel=per_channel,
                    extra_options={"ActivationSymmetric": symmetric})
    model = onnx.load(q)
    assert {n.op_type for n in model.graph.node} >= {"QLinearMatMul", "QLinearAdd",
                                                    "QLinearSoftmax"}
    nunc("compile", q, "--target", "x86_64-avx512vnni", *pins("minilm", 1, 16), "-o",
         tmp_path / "out")
    manifest = json.loads((tmp_path / "out" / "minilm_qop.json").read_text())
    kernels = [k["kernel"] for k in manifest["kernels"]]
    assert sum(k.startswith("gemm.int8.avx512vnni") and "static" in k for k in kernels) == 36
    # As onnxruntime's QLinearMatMul, QLinearAdd and QLinearSoftmax compute.
    codes = "+s8 bias codes" if activation == "QInt8" else "+bias codes"
    assert sum(k.startswith("gemm.int8.avx512vnni") and codes in k and "+product codes" in k
               for k in kernels) == 36, kernels
    assert sum(k.startswith("attention.avx512vnni[") and
               k.endswith(" u8 q k v +mask +5 grids +qlinear steps -> u8")
               for k in kernels) == 6, kernels
    assert not any(k["op"] in ("nunc.softmax", "nunc.matmul", "nunc.transpose",
                               "nunc.qlinear_matmul") for k in manifest["kernels"]), kernels
    # Every LayerNorm (between pairs, or reading the last one's codes) in
    # onnxruntime's f32 steps.
    assert sum(k.startswith("layer_norm.avx512[16x384] +bias +ordered f32 steps")
               for k in kernels) == 13, kernels
    # The output is the last LayerNorm's f32 result (QOperator leaves
    # LayerNormalization unquantized), bit for bit onnxruntime's.
    assert_qdq_minilm_tracks_onnxruntime(q, models, tmp_path, f32_output=True, exact=True)
    if symmetric:
        nunc("compile", q, "--target", "x86_64-avx512vnni", *pins("minilm", 2, 16), "-o",
             tmp_path / "b2")
        exe, man = harness.build(str(tmp_path / "b2"))
        feeds = random_inputs("minilm", 2, 16, 4)
        assert feeds["attention_mask"][1].min() == 0
        outs, _, log = harness.run(exe, man, feeds, str(tmp_path / "w2"))
        assert outs is not None, log
        want = onnxruntime_both_ways(q, feeds)[0]
        np.testing.assert_array_equal(outs["last_hidden_state"], want)


def leaky_cnn(path, seed):
    """LeakyRelu (alphas 0.1 and 0.2) after a 3x3 conv, a depthwise conv,
    a 1x1 conv with a residual Add, and a Gemm; awkward channel counts."""
    import onnx
    from onnx import TensorProto, helper
    c0, c1, c2 = 5, 24, 17
    inits, const = random_initializers(seed)
    inits.append(onnx.numpy_helper.from_array(np.array([1, -1], np.int64), "flat"))
    nodes = [
        helper.make_node("Conv", ["x", const("w1", c1, c0, 3, 3), const("b1", c1, scale=1)],
                         ["c1"], pads=[1, 1, 1, 1], name="conv1"),
        helper.make_node("LeakyRelu", ["c1"], ["r1"], alpha=0.1, name="leaky1"),
        helper.make_node("Conv", ["r1", const("w2", c1, 1, 3, 3)], ["c2"], pads=[1, 1, 1, 1],
                         group=c1, strides=[2, 2], name="depthwise"),
        helper.make_node("LeakyRelu", ["c2"], ["r2"], alpha=0.2, name="leaky2"),
        helper.make_node("Conv", ["r2", const("w3", c1, c1, 1, 1), const("b3", c1, scale=1)],
                         ["c3"], name="pointwise"),
        helper.make_node("Add", ["c3", "r2"], ["s3"], name="residual"),
        helper.make_node("LeakyRelu", ["s3"], ["r3"], alpha=0.1, name="leaky3"),
        helper.make_node("GlobalAveragePool", ["r3"], ["p"], name="pool"),
        helper.make_node("Reshape", ["p", "flat"], ["f"], name="flatten"),
        helper.make_node("Gemm", ["f", const("w4", c2, c1), const("b4", c2, scale=1)], ["g"],
                         transB=1, name="fc"),
        helper.make_node("LeakyRelu", ["g"], ["y"], alpha=0.2, name="leaky4")]
    graph = helper.make_graph(
        nodes, "leaky_cnn",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, c0, 19, 23])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, c2])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.save(model, path)


def pooling_cnn(path, seed, shared=""):
    """AveragePools between convs: a 3x2 window of stride 3x2 (PaddleOCR's
    recognizer has one), a padded 3x3 of stride 2 whose border windows
    count fewer taps, and a 2x3 of stride 1x3 (the generic path); awkward
    sizes. `shared`: "both", the first pool's input and output have other
    readers too (a GlobalAveragePool, a MaxPool: outputs g and m);
    "output", its output only (the MaxPool)."""
    import onnx
    from onnx import TensorProto, helper
    inits, const = random_initializers(seed)
    more = ([helper.make_node("GlobalAveragePool", ["r1"], ["g"], name="gap")]
            if shared == "both" else []) + \
        ([helper.make_node("MaxPool", ["p1"], ["m"], kernel_shape=[2, 2], name="max")]
         if shared else [])
    nodes = more + [
        helper.make_node("Conv", ["x", const("w1", 12, 5, 3, 3), const("b1", 12, scale=1)],
                         ["c1"], pads=[1, 1, 1, 1], name="conv1"),
        helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
        helper.make_node("AveragePool", ["r1"], ["p1"], kernel_shape=[3, 2], strides=[3, 2],
                         name="pool1"),
        helper.make_node("Conv", ["p1", const("w2", 12, 12, 1, 1), const("b2", 12)], ["c2"],
                         name="conv2"),
        helper.make_node("AveragePool", ["c2"], ["p2"], kernel_shape=[3, 3], strides=[2, 2],
                         pads=[1, 1, 1, 1], name="pool2"),
        helper.make_node("Conv", ["p2", const("w3", 12, 12, 1, 1)], ["c3"], name="conv3"),
        helper.make_node("AveragePool", ["c3"], ["p3"], kernel_shape=[2, 3], strides=[1, 3],
                         name="pool3"),
        helper.make_node("Conv", ["p3", const("w4", 7, 12, 1, 1), const("b4", 7)], ["y"],
                         name="conv4")]
    graph = helper.make_graph(
        nodes, "pooling_cnn",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 5, 19, 23])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 7, 2, 2])] +
        ([helper.make_tensor_value_info("g", TensorProto.FLOAT, [1, 12, 1, 1])]
         if shared == "both" else []) +
        ([helper.make_tensor_value_info("m", TensorProto.FLOAT, [1, 12, 5, 10])]
         if shared else []), inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.save(model, path)


def float_weights_between_pairs(path, seed):
    """A QDQ graph whose Conv (then a Relu), ConvTranspose and Gemm keep f32
    weights and biases between their input's pair and their output's, as
    quantizers other than onnxruntime's (or its QOperator form around a
    ConvTranspose) leave them; awkward sizes (7 channels in, 9 out)."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    inits, const = random_initializers(seed)
    for name, value in (("s", 0.05), ("s_y", 0.08), ("s_t", 0.04)):
        inits.append(numpy_helper.from_array(np.array(value, np.float32), name))
    for name, value in (("z", 131), ("z_y", 120), ("z_t", 100)):
        inits.append(numpy_helper.from_array(np.array(value, np.uint8), name))

    def pair(x, s, z, y):
        return [helper.make_node("QuantizeLinear", [x, s, z], [y + "_q"], name=y + "_quantize"),
                helper.make_node("DequantizeLinear", [y + "_q", s, z], [y], name=y + "_dequantize")]
    nodes = pair("x", "s", "z", "xd") + pair("t", "s", "z", "td") + [
        helper.make_node("Conv", ["xd", const("w1", 9, 7, 3, 3), const("b1", 9)], ["c"],
                         pads=[1, 1, 1, 1], name="conv"),
        helper.make_node("Relu", ["c"], ["r"], name="relu"),
        helper.make_node("ConvTranspose", ["xd", const("w2", 7, 9, 2, 2), const("b2", 9)],
                         ["ct"], strides=[2, 2], name="conv_transpose"),
        helper.make_node("Gemm", ["td", const("w3", 9, 33), const("b3", 9)], ["g"], transB=1,
                         name="gemm")] + \
        pair("r", "s_y", "z_y", "y") + pair("ct", "s_t", "z_t", "u") + pair("g", "s_y", "z_y", "v")
    graph = helper.make_graph(
        nodes, "float_weights",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 7, 11, 13]),
         helper.make_tensor_value_info("t", TensorProto.FLOAT, [3, 33])],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in "yuv"], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.save(model, path)


def with_float_weights(src, dst):
    """The QDQ model `src` with each Conv's and Gemm's dequantized weight
    and bias replaced by their f32 values (an activation-only QDQ model, as
    quantizers that leave weights alone write them)."""
    import onnx
    from onnx import numpy_helper
    model = onnx.load(src)
    graph = model.graph
    inits = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    producer = {o: n for n in graph.node for o in n.output}
    dropped = set()
    for node in graph.node:
        if node.op_type not in ("Conv", "Gemm"):
            continue
        for k in range(1, len(node.input)):
            dq = producer.get(node.input[k])
            if dq is None or dq.op_type != "DequantizeLinear" or dq.input[0] not in inits:
                continue
            q, s = inits[dq.input[0]].astype(np.float64), inits[dq.input[1]].astype(np.float64)
            z = inits[dq.input[2]].astype(np.float64) if len(dq.input) > 2 and dq.input[2] else 0
            axis = next((a.i for a in dq.attribute if a.name == "axis"), 1)
            shape = [1] * q.ndim
            if s.size > 1:
                shape[axis] = -1
            values = ((q - np.reshape(z, shape if np.size(z) > 1 else ())) *
                      np.reshape(s, shape)).astype(np.float32)
            graph.initializer.append(numpy_helper.from_array(values, dq.output[0] + "_f32"))
            node.input[k] = dq.output[0] + "_f32"
            dropped.add(dq.name)
    kept = [n for n in graph.node if n.name not in dropped]
    del graph.node[:]
    graph.node.extend(kept)
    onnx.save(model, dst)


@pytest.mark.skipif(not VNNI, reason="the host lacks AVX-512 VNNI")
@pytest.mark.parametrize("model", ["float_weights", "mobilenet", "mobilenet_f32_weights"])
def test_qdq_float_weights_and_biases_as_onnxruntime(nunc, models, tmp_path, model):
    """onnxruntime quantizes a QDQ model's f32 weights and biases between
    pairs when it loads it (WeightBiasQuantization): weights to s8 on one
    asymmetric grid, biases to s32 on the input's scale times the weight's.
    nunc does too (nunc-quantize-float-weights-and-biases): the Conv and
    Gemm then run on the int8 kernels (s8 weights with a zero point as u8
    ones) and every output equals onnxruntime's bit for bit, as does the
    MobileNet quantize_static writes with QuantizeBias=False (its default s8
    activations, per-channel weights, f32 biases: onnxruntime runs the convs
    whose pairs it leaves s8 in f32 with the quantized biases) and a
    MobileNet QDQ model that keeps every weight and bias f32 (whose convs
    all become int8 ones). With --onnxruntime-rewrites=false
    nunc keeps the model's f32 values, which onnxruntime does not compute
    (44 % and 15 % of MobileNet's logits equal)."""
    import onnxruntime as ort
    from onnxruntime.quantization import QuantFormat, QuantType, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process
    q = str(tmp_path / f"{model}.onnx")
    if model == "float_weights":
        float_weights_between_pairs(q, 12)
        shapes, pinned = {"x": (1, 7, 11, 13), "t": (3, 33)}, []
        feeds = [{k: np.random.default_rng(30 + seed + i).standard_normal(v).astype(np.float32)
                  for i, (k, v) in enumerate(shapes.items())} for seed in range(3)]
    else:
        pre, qdq = str(tmp_path / "pre.onnx"), str(tmp_path / "qdq.onnx")
        quant_pre_process(os.path.join(models, "mobilenet.onnx"), pre)
        f32_weights = model == "mobilenet_f32_weights"
        quantize_static(pre, qdq if f32_weights else q,
                        Samples(random_inputs("mobilenet", 1, None, 40 + i) for i in range(2)),
                        quant_format=QuantFormat.QDQ,
                        activation_type=QuantType.QUInt8 if f32_weights else QuantType.QInt8,
                        weight_type=QuantType.QInt8, per_channel=True,
                        extra_options={"QuantizeBias": f32_weights})
        if f32_weights:
            with_float_weights(qdq, q)
        pinned = pins("mobilenet", 1, None)
        feeds = [random_inputs("mobilenet", 1, None, 5 + seed) for seed in range(2)]
    sess = ort.InferenceSession(q, providers=["CPUExecutionProvider"])
    wants = [dict(zip([o.name for o in sess.get_outputs()], sess.run(None, f))) for f in feeds]
    equal = {}
    for flag in ("true", "false"):
        out = tmp_path / f"out_{flag}"
        nunc("compile", q, "--target", "x86_64-avx512vnni", *pinned,
             f"--onnxruntime-rewrites={flag}", "-o", out)
        kernels = json.loads((out / f"{model}.json").read_text())["kernels"]
        convs = [k["kernel"] for k in kernels if k["op"] in ("nunc.quantized_conv",
                                                              "nunc.quantized_linear")]
        if flag == "true" and model == "float_weights":
            # The Conv, the ConvTranspose's GEMM (onnxruntime runs it in f32 on
            # the dequantized weights: the generic col2im adds its columns)
            # and the Gemm: the int8 kernels with u8 weights.
            assert sum("u8 weights" in k for k in convs) >= 2, kernels
        if model == "mobilenet_f32_weights":
            # Every conv and the classifier in int8 (f32 ones with =false).
            f32 = [k["kernel"] for k in kernels if k["op"] in ("nunc.conv", "nunc.linear")]
            assert (len(f32) == 0) == (flag == "true"), kernels
        exe, man = harness.build(str(out))
        equal[flag] = []
        for i, (f, want) in enumerate(zip(feeds, wants)):
            outs, _, log = harness.run(exe, man, f, str(out / f"w{i}"))
            assert outs is not None, log
            equal[flag] += [np.array_equal(outs[k], v) for k, v in want.items()]
    assert all(equal["true"]), equal
    assert not all(equal["false"]), equal
    if model == "float_weights":
        # The u8-weight GEMMs and convolutions of the ymm targets alike.
        for target in ("x86_64-avxvnni-evex", "x86_64-avx2"):
            out = tmp_path / target
            nunc("compile", q, "--target", target, "-o", out)
            exe, man = harness.build(str(out))
            for i, (f, want) in enumerate(zip(feeds, wants)):
                outs, _, log = harness.run(exe, man, f, str(out / f"w{i}"))
                assert outs is not None, log
                for k, v in want.items():
                    assert np.array_equal(outs[k], v), (target, i, k)


@pytest.mark.skipif(not VNNI, reason="the host lacks AVX-512 VNNI")
@pytest.mark.parametrize("storage,grids", [
    ("u8", [(0.02, 128), (0.03, 120)]), ("s8", [(0.0235, 10), (0.031, -100)]),
    ("u8", [(0.02, 128), (0.03, 120), (0.025, 110)]), ("u8", [(0.02, 128), (0.02, 128)])])
def test_qdq_pairs_in_a_row_as_onnxruntime(nunc, tmp_path, storage, grids):
    """Q/DQ pairs in a row before a conv (a requantization some converters
    write): onnxruntime's DoubleQDQPairsRemover rounds once, to the grid
    over the pairs' common range, when it loads the model; nunc does too
    (nunc-remove-double-qdq-pairs): bit for bit on five inputs, u8 and s8,
    a chain of three, and the same grid twice. With
    --onnxruntime-rewrites=false nunc rounds twice, as the model is written
    (about half of the codes equal onnxruntime's where the grids differ)."""
    import onnx
    import onnxruntime as ort
    from onnx import TensorProto, helper, numpy_helper
    r = np.random.default_rng(0)
    codes = np.uint8 if storage == "u8" else np.int8
    inits = [numpy_helper.from_array(np.array(0.05, np.float32), "sy"),
             numpy_helper.from_array(np.array(128, np.uint8), "zy"),
             numpy_helper.from_array(r.integers(-127, 128, (8, 4, 3, 3)).astype(np.int8), "wq"),
             numpy_helper.from_array(np.array(0.01, np.float32), "ws")]
    nodes, prev = [], "x"
    for i, (scale, zero) in enumerate(grids):
        inits += [numpy_helper.from_array(np.array(scale, np.float32), f"s{i}"),
                  numpy_helper.from_array(np.array(zero, codes), f"z{i}")]
        nodes += [helper.make_node("QuantizeLinear", [prev, f"s{i}", f"z{i}"], [f"q{i}"]),
                  helper.make_node("DequantizeLinear", [f"q{i}", f"s{i}", f"z{i}"], [f"d{i}"])]
        prev = f"d{i}"
    nodes += [helper.make_node("DequantizeLinear", ["wq", "ws"], ["w"]),
              helper.make_node("Conv", [prev, "w"], ["c"], pads=[1, 1, 1, 1]),
              helper.make_node("QuantizeLinear", ["c", "sy", "zy"], ["cq"]),
              helper.make_node("DequantizeLinear", ["cq", "sy", "zy"], ["y"])]
    graph = helper.make_graph(nodes, "pairs", [helper.make_tensor_value_info(
        "x", TensorProto.FLOAT, [1, 4, 9, 9])], [helper.make_tensor_value_info(
            "y", TensorProto.FLOAT, None)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    path = str(tmp_path / "pairs.onnx")
    onnx.save(model, path)
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    xs = [np.random.default_rng(10 + i).normal(0, 1.5, (1, 4, 9, 9)).astype(np.float32)
          for i in range(5)]
    wants = [sess.run(None, {"x": x})[0] for x in xs]
    equal = {}
    for flag in ("true", "false"):
        out = tmp_path / flag
        nunc("compile", path, "--target", "x86_64-avx512vnni", f"--onnxruntime-rewrites={flag}",
             "-o", out)
        exe, man = harness.build(str(out))
        equal[flag] = []
        for i, (x, want) in enumerate(zip(xs, wants)):
            outs, _, log = harness.run(exe, man, {"x": x}, str(out / f"w{i}"))
            assert outs is not None, log
            equal[flag].append(np.array_equal(outs["y"], want))
    assert all(equal["true"]), equal
    if len(set(grids)) > 1:
        assert not any(equal["false"]), equal


@pytest.mark.skipif(not VNNI, reason="the host lacks AVX-512 VNNI")
@pytest.mark.parametrize("activation,shared", [("QUInt8", ""), ("QInt8", ""),
                                                ("QUInt8", "both"), ("QInt8", "both"),
                                                ("QInt8", "output")])
def test_qdq_average_pool_rounds_as_onnxruntime(nunc, tmp_path, activation, shared):
    """A QDQ model's AveragePool between pairs runs as onnxruntime's
    QLinearAveragePool: f32 sums of the window's values, a division by the
    count, the zero point added before the rounding. Windows of codes make
    exact ties, which a product by the reciprocal or QuantizeLinear's
    rounding (the zero point added after) move a code (3 % of PaddleOCR
    rec's pool). The output equals onnxruntime's bit for bit, u8 and s8
    activations; the window kernel's pools and the generic one alike. With
    s8 activations onnxruntime converts a pair of one reader to u8 and
    rounds with the u8 zero point; `shared` pairs stay s8 (their zero point
    128 lower: ties of fl(y / s + zp) move); with the output's pair shared
    alone onnxruntime runs MLAS's f32 AveragePool (column sums first, a
    division), then the pair: the generic kernel in that order."""
    import onnxruntime as ort
    from onnxruntime.quantization import QuantFormat, QuantType, quantize_static
    path, q = str(tmp_path / "pool.onnx"), str(tmp_path / "pool_qdq.onnx")
    pooling_cnn(path, 8, shared)
    r = np.random.default_rng(9)
    calib = [{"x": r.standard_normal((1, 5, 19, 23)).astype(np.float32)} for _ in range(4)]
    quantize_static(path, q, Samples(calib), quant_format=QuantFormat.QDQ,
                    activation_type=getattr(QuantType, activation),
                    weight_type=QuantType.QInt8, per_channel=True)
    nunc("compile", q, "--target", "x86_64-avx512vnni", "-o", tmp_path / "out")
    kernels = json.loads((tmp_path / "out" / "pool_qdq.json").read_text())["kernels"]
    pools = [k["kernel"] for k in kernels if k["op"] == "nunc.average_pool"]
    assert len(pools) == 3, kernels
    mixed = shared == "output" and activation == "QInt8"
    assert sum(k.startswith("average_pool.avx512[") and k.endswith(" +divide +requantize")
               for k in pools) == 2 - mixed and pools.count("generic") == 1 + mixed, pools
    exe, man = harness.build(str(tmp_path / "out"))
    sess = ort.InferenceSession(q, providers=["CPUExecutionProvider"])
    for seed in range(3):
        x = np.random.default_rng(20 + seed).standard_normal((1, 5, 19, 23)).astype(np.float32)
        outs, _, log = harness.run(exe, man, {"x": x}, str(tmp_path / f"w{seed}"))
        assert outs is not None, log
        for name, want in zip([o.name for o in sess.get_outputs()], sess.run(None, {"x": x})):
            got = outs[name]
            assert np.array_equal(got, want), (name, seed, np.mean(got == want),
                                               np.abs(got - want).max())


def softmax_classifier(path, seed):
    """Softmaxes after GEMMs: a classifier's last op over 9 classes, and
    one over axis 1 of a [3, 4, 6] product (strided rows)."""
    import onnx
    from onnx import TensorProto, helper
    inits, const = random_initializers(seed)
    inits.append(onnx.numpy_helper.from_array(np.array([3, 4, 6], np.int64), "shape"))
    nodes = [
        helper.make_node("Gemm", ["x", const("w1", 9, 20, scale=1), const("b1", 9)], ["g"],
                         transB=1, name="fc"),
        helper.make_node("Softmax", ["g"], ["y"], axis=-1, name="classes"),
        helper.make_node("MatMul", ["x", const("w2", 20, 24)], ["m"], name="product"),
        helper.make_node("Reshape", ["m", "shape"], ["r"], name="reshape"),
        helper.make_node("Softmax", ["r"], ["z"], axis=1, name="rows")]
    graph = helper.make_graph(
        nodes, "softmax_classifier",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 20])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 9]),
         helper.make_tensor_value_info("z", TensorProto.FLOAT, [3, 4, 6])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.save(model, path)


@pytest.mark.skipif(not VNNI, reason="the host lacks AVX-512 VNNI")
@pytest.mark.parametrize("activation", ["QUInt8", "QInt8"])
def test_qdq_softmax_in_qlinear_steps(nunc, tmp_path, activation):
    """A QDQ model's Softmax between pairs runs as onnxruntime's
    QLinearSoftmax: an exp table of the input codes, the row's f32 sum,
    floor(1 / s_y) for 1 / s_y (254 on the usual 1/255 grid: a code below
    the rounded probability on a third or so of the outputs here), after
    a quantized GEMM's output grid as after a pair. The outputs equal
    onnxruntime's bit for bit (u8 and s8 activations; the last axis and
    axis 1)."""
    import onnxruntime as ort
    from onnxruntime.quantization import QuantFormat, QuantType, quantize_static
    path, q = str(tmp_path / "softmax.onnx"), str(tmp_path / "softmax_qdq.onnx")
    softmax_classifier(path, 11)
    r = np.random.default_rng(12)
    calib = [{"x": r.standard_normal((3, 20)).astype(np.float32)} for _ in range(4)]
    quantize_static(path, q, Samples(calib), quant_format=QuantFormat.QDQ,
                    activation_type=getattr(QuantType, activation),
                    weight_type=QuantType.QInt8, per_channel=True)
    nunc("compile", q, "--target", "x86_64-avx512vnni", "-o", tmp_path / "out")
    kernels = json.loads((tmp_path / "out" / "softmax_qdq.json").read_text())["kernels"]
    assert [k["kernel"] for k in kernels if k["op"] == "nunc.softmax"] == ["generic"] * 2, kernels
    exe, man = harness.build(str(tmp_path / "out"))
    sess = ort.InferenceSession(q, providers=["CPUExecutionProvider"])
    lower = 0
    for seed in range(3):
        x = np.random.default_rng(30 + seed).standard_normal((3, 20)).astype(np.float32)
        outs, _, log = harness.run(exe, man, {"x": x}, str(tmp_path / f"w{seed}"))
        assert outs is not None, log
        for name, want in zip(["y", "z"], sess.run(None, {"x": x})):
            got = outs[name]
            assert np.array_equal(got, want), (name, seed, np.mean(got == want),
                                               np.abs(got - want).max())
        # floor(1 / s_y) is not 1 / s_y: codes below the rounded probability.
        y = outs["y"].astype(np.float64)
        lower += int(np.sum(np.rint(y * 255) < np.rint(y / y.sum(-1, keepdims=True) * 255)))
    assert lower > 0


@pytest.mark.skipif(not VNNI, reason="the host lacks AVX-512 VNNI")
@pytest.mark.parametrize("mode", ["f32", "int8", "qoperator"])
def test_leaky_relu_runs_in_the_epilogues(nunc, tmp_path, mode):
    """LeakyRelu folds into the epilogue of the conv, depthwise conv,
    residual conv and GEMM before it (activation leaky_relu with its alpha),
    in f32 and in nunc's int8: no LeakyRelu step is left. In onnxruntime's
    QOperator model each QLinearLeakyRelu has grids on both sides (as
    onnxruntime runs it, a separate op): it stays an elementwise step
    between fake_quantize passes, and nothing takes the generic path.
    Outputs track onnxruntime's."""
    import onnxruntime as ort
    path = str(tmp_path / "leaky.onnx")
    leaky_cnn(path, 5)
    r = np.random.default_rng(6)
    model, flags = path, []
    if mode == "int8":
        flags = ["--quantize", "int8"]
    elif mode == "qoperator":
        from onnxruntime.quantization import QuantFormat, QuantType, quantize_static
        model = str(tmp_path / "leaky_qop.onnx")
        calib = [{"x": r.standard_normal((1, 5, 19, 23)).astype(np.float32)} for _ in range(8)]
        quantize_static(path, model, Samples(calib), quant_format=QuantFormat.QOperator,
                        activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8,
                        per_channel=True)
        assert "QLinearLeakyRelu" in {n.op_type for n in __import__("onnx").load(model).graph.node}
    nunc("compile", model, "--target", "x86_64-avx512vnni", *flags, "-o", tmp_path / "out")
    name = os.path.splitext(os.path.basename(model))[0]
    kernels = json.loads((tmp_path / "out" / f"{name}.json").read_text())["kernels"]
    assert not any(k["kernel"] == "generic" for k in kernels), kernels
    if mode != "qoperator":
        assert not any(k["op"] == "nunc.leaky_relu" for k in kernels), kernels
        fused = [k for k in kernels if k["op"] in ("nunc.fused_conv", "nunc.quantized_conv",
                                                   "nunc.linear", "nunc.quantized_linear")]
        assert len(fused) == 4, kernels
    exe, man = harness.build(str(tmp_path / "out"))
    want_f32 = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    want_q = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
    for seed in range(3):
        x = np.random.default_rng(20 + seed).standard_normal((1, 5, 19, 23)).astype(np.float32)
        outs, _, log = harness.run(exe, man, {"x": x}, str(tmp_path / f"w{seed}"))
        assert outs is not None, log
        got, ref = outs["y"], want_f32.run(None, {"x": x})[0]
        assert (ref < 0).any() and (ref > 0).any()  # both sides of the slope
        if mode == "f32":
            np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-4 * np.abs(ref).max())
        else:
            assert cosine(got, ref) >= 0.999, cosine(got, ref)
            if mode == "qoperator":
                theirs = want_q.run(None, {"x": x})[0]
                assert cosine(got, theirs) >= 0.9995, cosine(got, theirs)
