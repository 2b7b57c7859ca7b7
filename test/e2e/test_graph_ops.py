"""Ops that exported graphs hold around the big kernels (masks, position
ids, heads, normalizations, Einsum), compiled for every target, linked,
run and compared with onnxruntime; run-time index checks of
GatherElements; f64 exp and log (no libm) against numpy's libm."""
import numpy as np
import onnx
import pytest
from onnx import helper as h, numpy_helper as nh

import harness

F, D, I64, I32, B = (onnx.TensorProto.FLOAT, onnx.TensorProto.DOUBLE, onnx.TensorProto.INT64,
                     onnx.TensorProto.INT32, onnx.TensorProto.BOOL)


def host_has(flag):
    with open("/proc/cpuinfo") as f:
        return flag in f.read().split()


TARGETS = [t for t, flag in (("x86_64-avx512", "avx512f"), ("x86_64-avx2", "avx2"))
           if host_has(flag)]


def compile_and_run(nunc, tmp_path, model, feeds, target, name="m"):
    path = str(tmp_path / f"{name}.onnx")
    onnx.save(model, path)
    out = tmp_path / f"{name}_{target}"
    nunc("compile", path, "--target", target, "-o", out)
    exe, man = harness.build(str(out))
    got, _, log = harness.run(exe, man, feeds, str(tmp_path / f"w_{name}_{target}"))
    return got, log


def check_against_onnxruntime(got, want, rtol=2e-6, atol=1e-6):
    for k, w in want.items():
        a = got[k]
        assert a.shape == w.shape and a.dtype == w.dtype, (k, a.shape, w.shape, a.dtype, w.dtype)
        if not np.issubdtype(w.dtype, np.floating):
            np.testing.assert_array_equal(a, w, err_msg=k)
        else:
            np.testing.assert_allclose(a, w, rtol=rtol, atol=atol, err_msg=k)


EINSUMS = [  # equation, operand shapes (a name starting with W: a constant)
    ("bhqd,bhkd->bhqk", [("q", [2, 3, 5, 8]), ("k", [2, 3, 7, 8])]),
    ("bsd,df->bsf", [("x", [2, 5, 8]), ("W1", [8, 6])]),
    ("...ij,...jk->...ik", [("a", [2, 1, 3, 4]), ("b", [1, 5, 4, 6])]),
    ("ii->i", [("sq", [4, 4])]),
    ("bii", [("sq3", [3, 4, 4])]),
    ("ij,jk", [("m", [3, 4]), ("n", [4, 5])]),
    ("i,j->ij", [("u", [3]), ("v", [5])]),
    ("abc,cd,de->abe", [("t", [2, 3, 4]), ("W2", [4, 5]), ("W3", [5, 6])]),
    ("ijk->kji", [("t3", [2, 3, 4])]),
    ("ij->", [("m2", [3, 4])]),
    ("bij,bjk->bk", [("p", [2, 3, 4]), ("r", [2, 4, 5])]),
]


@pytest.mark.parametrize("target", TARGETS)
def test_einsum_equations_match_onnxruntime(nunc, tmp_path, target):
    """Attention scores, a weight contraction (on the GEMM kernel),
    ellipses broadcasting size-1 dims, diagonals and traces, implicit
    outputs, an outer product, three operands, a transpose, a full sum and a
    contraction that sums a label of one side."""
    r = np.random.default_rng(5)
    inputs, inits, nodes, outs, feeds = {}, [], [], [], {}
    for i, (eq, operands) in enumerate(EINSUMS):
        for name, shape in operands:
            value = r.standard_normal(shape).astype(np.float32)
            if name.startswith("W"):
                inits.append(nh.from_array(value, name))
            elif name not in inputs:
                inputs[name] = h.make_tensor_value_info(name, F, shape)
                feeds[name] = value
        nodes.append(h.make_node("Einsum", [n for n, _ in operands], [f"e{i}"], equation=eq))
        outs.append(h.make_tensor_value_info(f"e{i}", F, None))
    model = h.make_model(h.make_graph(nodes, "einsum", list(inputs.values()), outs, inits),
                         opset_imports=[h.make_opsetid("", 17)])
    want = harness.onnxruntime_outputs(model, feeds)
    got, log = compile_and_run(nunc, tmp_path, model, feeds, target)
    assert got is not None, log
    check_against_onnxruntime(got, want, rtol=1e-5, atol=1e-5)


def composite_model():
    n = h.make_node
    c = lambda name, value: n("Constant", [], [name], value=nh.from_array(np.asarray(value), name))
    nodes = [
        n("Dropout", ["x"], ["drop", "mask"]),
        n("LogSoftmax", ["big"], ["lsm"], axis=1), n("Hardmax", ["x"], ["hmax"]),
        c("k", np.array(1, np.int64)), n("Trilu", ["x", "k"], ["triu"]),
        n("Trilu", ["x"], ["tril"], upper=0),
        c("ax", np.array([1], np.int64)),
        n("ReduceL1", ["x", "ax"], ["l1"], keepdims=0), n("ReduceL2", ["x", "ax"], ["l2"]),
        n("ReduceSumSquare", ["x", "ax"], ["ssq"], keepdims=0),
        n("ReduceLogSum", ["pos", "ax"], ["lsum"], keepdims=0),
        n("ReduceLogSumExp", ["big", "ax"], ["lse"], keepdims=0),
        n("ReduceProd", ["x", "ax"], ["prod"], keepdims=0),
        n("LpNormalization", ["x"], ["lp"], p=2),
        n("MeanVarianceNormalization", ["img"], ["mvn"]),
        n("LRN", ["img"], ["lrn"], size=3, alpha=1e-3, beta=0.75, bias=2.0),
        n("IsNaN", ["special"], ["isnan"]), n("IsInf", ["special"], ["isinf"]),
        n("IsInf", ["special"], ["isneginf"], detect_positive=0),
        c("depth", np.array(6, np.int64)), c("onoff", np.array([-1.0, 3.0], np.float32)),
        n("OneHot", ["labels", "depth", "onoff"], ["onehot"], axis=0),
        n("Shrink", ["x"], ["shrink"], lambd=0.5, bias=0.25),
        n("Size", ["img"], ["size"]),
        c("cax", np.array(1, np.int32)),
        n("CumSum", ["x", "cax"], ["csum"]),
        n("CumSum", ["ids", "cax"], ["csum_ex_rev"], exclusive=1, reverse=1),
        n("GatherElements", ["x", "gi"], ["gel"], axis=1),
        c("topk", np.array([3], np.int64)),
        n("TopK", ["ties", "topk"], ["tv", "ti"]),
        n("TopK", ["ties", "topk"], ["sv", "si"], largest=0, axis=0),
    ]
    ins = [h.make_tensor_value_info("x", F, [4, 7]), h.make_tensor_value_info("big", F, [4, 7]),
           h.make_tensor_value_info("pos", F, [4, 7]),
           h.make_tensor_value_info("img", F, [2, 5, 3, 4]),
           h.make_tensor_value_info("special", F, [6]),
           h.make_tensor_value_info("labels", I64, [5]),
           h.make_tensor_value_info("ids", I64, [2, 9]),
           h.make_tensor_value_info("gi", I64, [4, 3]),
           h.make_tensor_value_info("ties", F, [5, 6])]
    names = [o for node in nodes if node.op_type != "Constant" for o in node.output]
    typed = onnx.shape_inference.infer_shapes(h.make_model(
        h.make_graph(nodes, "composite", ins, []), opset_imports=[h.make_opsetid("", 18)]))
    types = {v.name: v.type.tensor_type.elem_type for v in typed.graph.value_info}
    outs = [h.make_tensor_value_info(o, types[o], None) for o in names]
    return h.make_model(h.make_graph(nodes, "composite", ins, outs),
                        opset_imports=[h.make_opsetid("", 18)])


@pytest.mark.parametrize("target", TARGETS)
def test_composite_and_selection_ops_match_onnxruntime(nunc, tmp_path, target):
    """Dropout (and its mask), LogSoftmax on values where exp overflows,
    Hardmax, Trilu, the L1 / L2 / log-sum-exp / product reductions, Lp and
    mean-variance normalization, LRN, IsNaN / IsInf, OneHot with negative
    and out-of-range labels, Shrink, Size, CumSum (int64, exclusive and
    reverse), GatherElements with negative indices and TopK on ties."""
    r = np.random.default_rng(7)
    x = r.standard_normal((4, 7)).astype(np.float32)
    x[2] = 0  # a zero row: LpNormalization's 0 / 0
    feeds = {
        "x": x, "big": (r.standard_normal((4, 7)) * 300).astype(np.float32),
        "pos": r.uniform(0.1, 3, (4, 7)).astype(np.float32),
        "img": r.standard_normal((2, 5, 3, 4)).astype(np.float32),
        "special": np.array([0, np.nan, np.inf, -np.inf, -1, 3e38], np.float32),
        "labels": np.array([0, 5, -1, 7, -6]),
        "ids": r.integers(-1000, 1000, (2, 9)),
        "gi": r.integers(-7, 7, (4, 3)),
        "ties": np.round(r.standard_normal((5, 6))).astype(np.float32),
    }
    model = composite_model()
    want = harness.onnxruntime_outputs(model, feeds)
    got, log = compile_and_run(nunc, tmp_path, model, feeds, target)
    assert got is not None, log
    check_against_onnxruntime(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("target", TARGETS)
def test_roberta_position_ids_and_bad_gather_elements_index(nunc, tmp_path, target):
    """RoBERTa's position ids (cumsum of the non-padding mask, times the
    mask, plus the padding index) index a position table; a GatherElements
    index out of range is an error naming the input, not a read out of
    bounds."""
    n = h.make_node
    table = np.random.default_rng(3).standard_normal((40, 8)).astype(np.float32)
    nodes = [
        n("Constant", [], ["pad"], value=nh.from_array(np.array(1, np.int64), "pad")),
        n("Constant", [], ["one"], value=nh.from_array(np.array(1, np.int32), "one")),
        n("Equal", ["input_ids", "pad"], ["is_pad"]), n("Not", ["is_pad"], ["keep"]),
        n("Cast", ["keep"], ["mask"], to=I32), n("CumSum", ["mask", "one"], ["run"]),
        n("Mul", ["run", "mask"], ["inc"]), n("Cast", ["inc"], ["inc64"], to=I64),
        n("Add", ["inc64", "pad"], ["position_ids"]),
        n("Gather", ["table", "position_ids"], ["positions"]),
        n("GatherElements", ["scores", "choice"], ["picked"], axis=1),
    ]
    model = h.make_model(h.make_graph(
        nodes, "roberta_positions",
        [h.make_tensor_value_info("input_ids", I64, [2, 10]),
         h.make_tensor_value_info("scores", F, [2, 5]),
         h.make_tensor_value_info("choice", I64, [2, 3])],
        [h.make_tensor_value_info("position_ids", I64, None),
         h.make_tensor_value_info("positions", F, None),
         h.make_tensor_value_info("picked", F, None)], [nh.from_array(table, "table")]),
        opset_imports=[h.make_opsetid("", 17)])
    ids = np.array([[0, 31, 7, 9, 2, 1, 1, 1, 1, 1], [0, 5, 1, 8, 2, 4, 6, 2, 1, 1]])
    feeds = {"input_ids": ids,
             "scores": np.arange(10, dtype=np.float32).reshape(2, 5),
             "choice": np.array([[0, -1, 4], [2, 2, -5]])}
    want = harness.onnxruntime_outputs(model, feeds)
    got, log = compile_and_run(nunc, tmp_path, model, feeds, target)
    assert got is not None, log
    check_against_onnxruntime(got, want)
    feeds["choice"] = np.array([[0, 5, 1], [0, 0, 0]])
    got, log = compile_and_run(nunc, tmp_path, model, feeds, target, name="bad")
    assert got is None
    assert "input 'choice' holds an index out of range [-5, 5)" in log, log


@pytest.mark.parametrize("target", TARGETS)
def test_f64_exp_log_and_tanh_are_within_two_ulp_of_libm(nunc, tmp_path, target):
    """Exp, Log and Tanh of f64 without libm (the library links without
    -lm; Tanh and Pow of f64 once called libm's tanh, exp and log): within
    2 ulp of numpy's (libm's) over the whole range, subnormal results and
    inputs, 0, inf and NaN included. f64 Erf is refused where it is."""
    x = np.concatenate([np.linspace(-745.2, 709.8, 4001), np.geomspace(1e-320, 1e308, 2001),
                        -np.geomspace(1e-300, 1e300, 201), np.linspace(-1.5, 1.5, 1001),
                        [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, 2.0, 0.5, 1e-310, -1.0]])
    model = h.make_model(h.make_graph(
        [h.make_node("Exp", ["x"], ["exp"]), h.make_node("Log", ["x"], ["log"]),
         h.make_node("Tanh", ["x"], ["tanh"])], "f64",
        [h.make_tensor_value_info("x", D, [x.size])],
        [h.make_tensor_value_info(o, D, None) for o in ("exp", "log", "tanh")]),
        opset_imports=[h.make_opsetid("", 17)])
    got, log = compile_and_run(nunc, tmp_path, model, {"x": x}, target)
    assert got is not None, log
    erf = h.make_model(h.make_graph(
        [h.make_node("Erf", ["x"], ["y"], name="the_erf")], "erf",
        [h.make_tensor_value_info("x", D, [4])], [h.make_tensor_value_info("y", D, None)]),
        opset_imports=[h.make_opsetid("", 17)])
    onnx.save(erf, str(tmp_path / "erf.onnx"))
    r = nunc("compile", tmp_path / "erf.onnx", "--target", target, "-o", tmp_path / "erf",
             check=False)
    assert r.returncode == 1 and 'node "the_erf" (Erf, opset 17)' in r.stderr, r.stderr
    assert "erf of f64" in r.stderr, r.stderr
    with np.errstate(all="ignore"):
        want = {"exp": np.exp(x), "log": np.log(x), "tanh": np.tanh(x)}
    for k, w in want.items():
        a = got[k]
        np.testing.assert_array_equal(np.isnan(a), np.isnan(w), err_msg=k)
        finite = np.isfinite(w)
        np.testing.assert_array_equal(a[~finite & ~np.isnan(w)], w[~finite & ~np.isnan(w)],
                                      err_msg=k)
        ulp = np.abs(a[finite] - w[finite]) / np.spacing(np.abs(w[finite]))
        assert ulp.max() <= 2, (k, ulp.max(), x[finite][ulp.argmax()])


@pytest.mark.parametrize("target", TARGETS)
def test_mod_bitwise_and_shifts(nunc, tmp_path, target):
    """Mod of integers (both signs, both fmods, broadcast) and float fmod
    (quotients up to 2^200 and subnormal remainders, so each remainder is
    exact; inf, NaN and 0 operands) against onnxruntime; float Mod without
    fmod against numpy's remainder (onnxruntime refuses it); the bitwise
    ops and unsigned shifts against onnxruntime; signed shifts (negative
    amounts and ones past the width) as ONNX defines them."""
    r = np.random.default_rng(9)
    n = h.make_node
    ints = {
        "i8": r.integers(-128, 128, (3, 40)).astype(np.int8),
        "j8": r.choice([-128, -7, -3, -1, 1, 2, 5, 127], (40,)).astype(np.int8),
        "i32": r.integers(-2**31, 2**31, (3, 40)).astype(np.int32),
        "j32": r.choice([-2**31, -1000, -1, 1, 3, 2**31 - 1], (3, 40)).astype(np.int32),
        "u16": r.integers(0, 2**16, (40,)).astype(np.uint16),
        "v16": r.integers(1, 2**16, (40,)).astype(np.uint16),
    }
    big = np.float32(2.0) ** r.integers(-149, 127, 60).astype(np.float32)
    # (Also remainders of values whose double overflows: 1.5 x 2^127 and
    # 3.4e38 in f32, 1.5 x 2^1023 and 1.7e308 in f64.)
    x32 = np.concatenate([(r.standard_normal(60) * big).astype(np.float32),
                          np.float32([0, -0.0, 5, -5, np.inf, -np.inf, np.nan, 7, 1e30, 3e-39,
                                      1.5 * 2.0 ** 127, -3.4e38, 3.4e38])])
    y32 = np.concatenate([(r.standard_normal(60) * 1e-3).astype(np.float32),
                          np.float32([3, 3, 0, np.inf, 2, 2, 1, np.nan, 3.7, 1e-45, 1, 3e-3,
                                      3.3e38])])
    x64 = np.concatenate([r.standard_normal(40) * 2.0 ** r.integers(-1000, 1000, 40),
                          [1e300, -1e-300, 7.5, 1.5 * 2.0 ** 1023, 1.7e308]])
    y64 = np.concatenate([r.standard_normal(40), [3.0, 7e-310, -2.0, 1.0, 1.6e308]])
    u8 = r.integers(0, 256, (50,)).astype(np.uint8)
    s8 = r.integers(0, 10, (50,)).astype(np.uint8)
    u32 = r.integers(0, 2**32, (50,), dtype=np.uint64).astype(np.uint32)
    s32 = r.integers(0, 40, (50,)).astype(np.uint32)
    i16 = r.integers(-2**15, 2**15, (50,)).astype(np.int16)
    t16 = r.integers(-20, 20, (50,)).astype(np.int16)
    feeds = dict(ints, x32=x32, y32=y32, x64=x64, y64=y64, u8=u8, s8=s8, u32=u32, s32=s32,
                 i16=i16, t16=t16)
    ort_nodes = [
        n("Mod", ["i8", "j8"], ["mod8"]), n("Mod", ["i8", "j8"], ["fmod8"], fmod=1),
        n("Mod", ["i32", "j32"], ["mod32"]), n("Mod", ["i32", "j32"], ["fmod32"], fmod=1),
        n("Mod", ["u16", "v16"], ["modu16"]),
        n("Mod", ["x32", "y32"], ["fmodf"], fmod=1), n("Mod", ["x64", "y64"], ["fmodd"], fmod=1),
        n("BitwiseAnd", ["i32", "j32"], ["and32"]), n("BitwiseOr", ["u16", "v16"], ["or16"]),
        n("BitwiseXor", ["i8", "j8"], ["xor8"]), n("BitwiseNot", ["u32"], ["not32"]),
        n("BitwiseNot", ["i16"], ["not16"]),
        n("BitShift", ["u8", "s8"], ["shl8"], direction="LEFT"),
        n("BitShift", ["u32", "s32"], ["shr32"], direction="RIGHT"),
    ]
    own_nodes = [n("Mod", ["x32", "y32"], ["pymodf"]),
                 n("BitShift", ["i16", "t16"], ["sshl"], direction="LEFT"),
                 n("BitShift", ["i16", "t16"], ["sshr"], direction="RIGHT")]

    def model(nodes):
        used = {i for node in nodes for i in node.input}
        ins = [h.make_tensor_value_info(k, h.np_dtype_to_tensor_dtype(v.dtype), v.shape)
               for k, v in feeds.items() if k in used]
        outs = [h.make_empty_tensor_value_info(o) for node in nodes for o in node.output]
        return h.make_model(h.make_graph(nodes, "bits", ins, outs),
                            opset_imports=[h.make_opsetid("", 18)])

    ort_model = model(ort_nodes)
    want = harness.onnxruntime_outputs(
        ort_model, {i.name: feeds[i.name] for i in ort_model.graph.input})
    with np.errstate(all="ignore"):
        want["pymodf"] = np.mod(x32, y32)
    w = 16
    amount = t16.astype(np.int64)
    inside = (amount >= 0) & (amount < w)
    safe = np.where(inside, amount, 0)
    want["sshl"] = np.where(inside, (i16.astype(np.int64) << safe).astype(np.int16), 0)
    want["sshl"] = want["sshl"].astype(np.int16)
    want["sshr"] = np.where(inside, i16 >> safe.astype(np.int16),
                            np.where(i16 < 0, -1, 0)).astype(np.int16)
    got, log = compile_and_run(nunc, tmp_path, model(ort_nodes + own_nodes), feeds, target)
    assert got is not None, log
    for k, wv in want.items():
        a = got[k]
        assert a.dtype == wv.dtype and a.shape == wv.shape, (k, a.dtype, wv.dtype)
        if np.issubdtype(wv.dtype, np.floating):
            # Exact: remainders are exact, and signs of zeros count.
            np.testing.assert_array_equal(np.isnan(a), np.isnan(wv), err_msg=k)
            ok = ~np.isnan(wv)
            np.testing.assert_array_equal(a[ok], wv[ok], err_msg=k)
            np.testing.assert_array_equal(np.signbit(a[ok]), np.signbit(wv[ok]), err_msg=k)
        else:
            np.testing.assert_array_equal(a, wv, err_msg=k)


def exact_power(x, e, dtype):
    """numpy's power on Python ints (wrapping at the type's width) for
    e >= 0; for e < 0, the truncated 1 / x^-e (C's pow, then the saturating
    conversion: 0^-n gives the type's largest value)."""
    info = np.iinfo(dtype)
    out = []
    for a, b in zip(x.tolist(), e.tolist()):
        if b >= 0:
            v = pow(a, b, 2 ** info.bits)
            if info.min < 0 and v > info.max:
                v -= 2 ** info.bits
        elif a == 0:
            v = info.max
        elif abs(a) == 1:
            v = a ** (-b) if a == -1 else 1
        else:
            v = 0
        out.append(v)
    return np.array(out, dtype)


@pytest.mark.parametrize("target", TARGETS)
def test_pow_and_casts_to_64_bit_integers(nunc, tmp_path, target):
    """Integer Pow is exact (6^10 once came out 60466175 through exp and
    log; 3^39 needs more than a double's 53 bits) and wraps around at the
    type's width as numpy does; a negative exponent truncates 1 / x^n.
    Float Pow takes C's special cases (onnxruntime calls std::pow): -inf to
    a fractional power, signed zeros to odd powers, 1 to a NaN power and -1
    to an infinite one (the exp / log form once gave NaN or +inf there).
    Floats at or past 2^63 (2^64) cast to int64 (uint64) give the largest
    value, as in the evaluator, not the overflow's INT64_MIN. Compiled and
    reference evaluator alike (the evaluator calls std::pow)."""
    x64 = np.array([6, 3, -3, 2, 7, -2, 1, -1, 0, 5, 2, 3, -5, 0], np.int64)
    e64 = np.array([10, 39, 39, 63, 30, 7, -5, -3, -1, 2, 64, 0, 27, 0], np.int64)
    x32 = np.array([6, -7, 2, 3, 1, -1, 10, 0, 12], np.int32)
    e8 = np.array([10, 11, 31, 20, -2, -7, 9, 3, 127], np.int8)
    x16 = np.array([3, -3, 2, 255, 7], np.int16)
    e32 = np.array([9, 10, 15, 2, 40], np.uint32)
    u8 = np.array([2, 3, 255, 16, 0], np.uint8)
    e16 = np.array([7, 5, 2, 2, 0], np.int16)
    f32 = np.float32([9.3e18, -9.3e18, 2.0 ** 63, 1e30, -np.inf, np.nan, 12345.7, -2.5, 9.2e18])
    f64 = np.array([2.0 ** 63, 2.0 ** 63 - 1024, 1.9e19, 2.0 ** 64, -1.0, np.inf, 3e3])
    inf, nan = np.inf, np.nan
    base = [-inf, -1, 1, -inf, inf, -0.0, 0.5, -1, 0.0, -0.0, -0.0, -2, -inf, -inf, -inf, 2,
            1, -1, 0, -0.0, nan, 3, -8, 1.5, 1e-3, 7.25, -inf, inf]
    power = [-0.5, inf, nan, 3, -2, -3, -inf, -inf, -3, 3, 2, 0.5, 2, -2, 0.5, 10, -inf, 2, 0,
             nan, 0, -2, 1 / 3, 2.5, 0.37, -1.5, nan, nan]
    # An integer base to a float power: exact where the power is whole in
    # [0, 2^62] (6^10.0 is 60466176, not the exp / log form's 60466175),
    # else C's pow truncated toward 0.
    xi = np.array([6, 3, 2, 2, 5, 2, -3, 7], np.int64)
    ef = np.float32([10, 39, 0.5, -1, 2, 62, 3, 2.5])
    feeds = dict(x64=x64, e64=e64, x32=x32, e8=e8, x16=x16, e32=e32, u8=u8, e16=e16,
                 f32=f32, f64=f64, fb=np.float32(base), fp=np.float32(power),
                 db=np.float64(base), dp=np.float64(power), xi=xi, ef=ef)
    n = h.make_node
    nodes = [n("Pow", ["x64", "e64"], ["p64"]), n("Pow", ["x32", "e8"], ["p32"]),
             n("Pow", ["x16", "e32"], ["p16"]), n("Pow", ["u8", "e16"], ["pu8"]),
             n("Cast", ["f32"], ["c64"], to=I64), n("Cast", ["f64"], ["c64d"], to=I64),
             n("Cast", ["f64"], ["cu64"], to=onnx.TensorProto.UINT64),
             n("Pow", ["fb", "fp"], ["pf"]), n("Pow", ["db", "dp"], ["pd"]),
             n("Pow", ["xi", "ef"], ["pif"])]
    ins = [h.make_tensor_value_info(k, h.np_dtype_to_tensor_dtype(v.dtype), v.shape)
           for k, v in feeds.items()]
    outs = [h.make_empty_tensor_value_info(node.output[0]) for node in nodes]
    model = h.make_model(h.make_graph(nodes, "pow", ins, outs),
                         opset_imports=[h.make_opsetid("", 18)])
    i64 = np.iinfo(np.int64)
    want = {
        "p64": exact_power(x64, e64, np.int64), "p32": exact_power(x32, e8, np.int32),
        "p16": exact_power(x16, e32, np.int16), "pu8": exact_power(u8, e16, np.uint8),
        "c64": np.array([i64.max, i64.min, i64.max, i64.max, i64.min, 0, 12345, -2,
                         int(np.float32(9.2e18))], np.int64),
        "c64d": np.array([i64.max, 2 ** 63 - 1024, i64.max, i64.max, -1, i64.max, 3000],
                         np.int64),
        "cu64": np.array([2 ** 63, 2 ** 63 - 1024, 2 ** 64 - 1, 2 ** 64 - 1, 0, 2 ** 64 - 1,
                          3000], np.uint64),
    }
    want["pif"] = np.array([6 ** 10, 3 ** 39, 1, 0, 25, 2 ** 62, -27, int(7 ** 2.5)], np.int64)
    with np.errstate(all="ignore"):
        want["pf"] = np.power(feeds["fb"], feeds["fp"])
        want["pd"] = np.power(feeds["db"], feeds["dp"])
    assert want["p64"][0] == 60466176 and want["p64"][1] == 4052555153018976267
    got, log = compile_and_run(nunc, tmp_path, model, feeds, target)
    assert got is not None, log
    path = str(tmp_path / "m.onnx")
    np.savez(tmp_path / "in.npz", **feeds)
    nunc("run", "--reference", path, "--input", tmp_path / "in.npz", "-o", tmp_path / "ref.npz")
    reference = np.load(tmp_path / "ref.npz")
    for k, wv in want.items():
        for source, a in (("compiled", got[k]), ("reference", reference[k])):
            assert a.dtype == wv.dtype, (k, source, a.dtype)
            if wv.dtype.kind != "f":
                np.testing.assert_array_equal(a, wv, err_msg=f"{k} ({source})")
                continue
            # Within a few ulp (exp / log), the special cases exactly,
            # signs of zeros and infinities included.
            np.testing.assert_allclose(a, wv, rtol=2e-6, err_msg=f"{k} ({source})")
            exact = np.isinf(wv) | (wv == 0)
            np.testing.assert_array_equal(np.signbit(a[exact]), np.signbit(wv[exact]),
                                          err_msg=f"{k} ({source})")


@pytest.mark.parametrize("target", TARGETS)
def test_cumprod_swish_and_swiglu(nunc, tmp_path, target):
    """CumProd (f32 and int32, exclusive and reverse, a negative axis)
    against onnxruntime; Swish and SwiGLU with alpha 0.5 (which onnxruntime
    1.32 does not run at opset 26 and 28) against their definitions in
    numpy."""
    r = np.random.default_rng(15)
    n = h.make_node
    c = lambda name, value: n("Constant", [], [name], value=nh.from_array(np.asarray(value), name))
    x = r.uniform(0.5, 1.5, (3, 5, 4)).astype(np.float32)
    i = r.integers(-3, 4, (4, 6)).astype(np.int32)
    feeds = {"x": x, "i": i}
    nodes = [c("a1", np.array(1, np.int64)), c("am1", np.array(-1, np.int64)),
             n("CumProd", ["x", "a1"], ["cp"]),
             n("CumProd", ["x", "am1"], ["cp_ex_rev"], exclusive=1, reverse=1),
             n("CumProd", ["i", "am1"], ["cp_int"], reverse=1)]
    ins = [h.make_tensor_value_info("x", F, list(x.shape)),
           h.make_tensor_value_info("i", I32, list(i.shape))]
    outs = [h.make_empty_tensor_value_info(o) for o in ("cp", "cp_ex_rev", "cp_int")]
    ort_model = h.make_model(h.make_graph(nodes, "cum", ins, outs),
                             opset_imports=[h.make_opsetid("", 26)])
    want = harness.onnxruntime_outputs(ort_model, feeds)
    b = r.standard_normal(x.shape).astype(np.float32)
    want["sw"] = (x * (1 / (1 + np.exp(-0.5 * x.astype(np.float64))))).astype(np.float32)
    want["glu"] = (want["sw"].astype(np.float64) * b).astype(np.float32)
    model = h.make_model(h.make_graph(
        nodes + [n("Swish", ["x"], ["sw"], alpha=0.5),
                 n("SwiGLU", ["x", "b"], ["glu"], alpha=0.5)], "cum",
        ins + [h.make_tensor_value_info("b", F, list(b.shape))],
        outs + [h.make_empty_tensor_value_info(o) for o in ("sw", "glu")]),
        opset_imports=[h.make_opsetid("", 28)])
    got, log = compile_and_run(nunc, tmp_path, model, dict(feeds, b=b), target)
    assert got is not None, log
    check_against_onnxruntime(got, want, rtol=1e-5, atol=1e-6)


def recurrent_model(r, op, T, batch, inputs, hidden, direction="forward", lens=None,
                    layout=0, **attrs):
    gates = {"LSTM": 4, "GRU": 3, "RNN": 1}[op]
    dirs = 2 if direction == "bidirectional" else 1
    scale = 1 / np.sqrt(hidden)
    inits = [nh.from_array((r.standard_normal((dirs, gates * hidden, inputs)) * scale)
                           .astype(np.float32), "W"),
             nh.from_array((r.standard_normal((dirs, gates * hidden, hidden)) * scale)
                           .astype(np.float32), "R"),
             nh.from_array((r.standard_normal((dirs, 2 * gates * hidden)) * 0.1)
                           .astype(np.float32), "B")]
    names = ["x", "W", "R", "B", "lens" if lens is not None else "", "h0"]
    ins = [h.make_tensor_value_info("x", F, [batch, T, inputs] if layout else [T, batch, inputs]),
           h.make_tensor_value_info("h0", F, [batch, dirs, hidden] if layout
                                    else [dirs, batch, hidden])]
    if lens is not None:
        inits.append(nh.from_array(np.asarray(lens, np.int32), "lens"))
    outs = ["y", "yh"]
    if op == "LSTM":
        names.append("c0")
        ins.append(h.make_tensor_value_info("c0", F, [batch, dirs, hidden] if layout
                                            else [dirs, batch, hidden]))
        outs.append("yc")
        if attrs.pop("peepholes", False):
            inits.append(nh.from_array(r.standard_normal((dirs, 3 * hidden)).astype(np.float32),
                                       "P"))
            names.append("P")
    node = h.make_node(op, names, outs, hidden_size=hidden, direction=direction, layout=layout,
                       **attrs)
    return h.make_model(h.make_graph([node], op.lower(), ins,
                                     [h.make_tensor_value_info(o, F, None) for o in outs], inits),
                        opset_imports=[h.make_opsetid("", 14)])


RECURRENT = [
    ("LSTM", dict(direction="bidirectional", lens=[7, 3, 5], peepholes=True)),
    ("LSTM", dict(clip=0.8, input_forget=1)),
    ("GRU", dict(direction="bidirectional", linear_before_reset=1)),
    ("GRU", dict(direction="reverse", lens=[2, 7, 4])),
    ("RNN", dict(direction="bidirectional", activations=["Relu", "LeakyRelu"],
                 activation_alpha=[0.1])),
]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("op,attrs", RECURRENT, ids=[f"{op}-{i}" for i, (op, _) in
                                                     enumerate(RECURRENT)])
def test_recurrent_layers_match_onnxruntime(nunc, tmp_path, target, op, attrs):
    """LSTM (peepholes, per-item lengths in both directions; clip and
    coupled input-forget gates), GRU (PyTorch's linear_before_reset, and
    reverse with lengths) and RNN (other activations), unrolled over 7
    steps of a batch of 3, against onnxruntime (which refuses layout 1:
    ONNX's node tests cover it); every recurrent MatMul a linear op."""
    r = np.random.default_rng(11)
    T, batch, inputs, hidden = 7, 3, 20, 16
    layout = attrs.get("layout", 0)
    model = recurrent_model(r, op, T, batch, inputs, hidden, **dict(attrs))
    dirs = 2 if attrs.get("direction") == "bidirectional" else 1
    state = (batch, dirs, hidden) if layout else (dirs, batch, hidden)
    feeds = {"x": r.standard_normal((batch, T, inputs) if layout else (T, batch, inputs))
             .astype(np.float32),
             "h0": r.standard_normal(state).astype(np.float32)}
    if op == "LSTM":
        feeds["c0"] = r.standard_normal(state).astype(np.float32)
    want = harness.onnxruntime_outputs(model, feeds)
    got, log = compile_and_run(nunc, tmp_path, model, feeds, target)
    assert got is not None, log
    check_against_onnxruntime(got, want, rtol=1e-5, atol=2e-6)
    explain = nunc("compile", str(tmp_path / "m.onnx"), "--target", target, "-o",
                   tmp_path / "explain", "--explain").stdout
    assert "nunc.matmul" not in explain, explain


@pytest.mark.parametrize("target", TARGETS)
def test_recurrent_batch_major_layout_with_initial_states(nunc, tmp_path, target):
    """layout 1 (batch-major X, Y and states; onnxruntime refuses it) with
    given initial states for a batch of 2 in both directions: the same
    numbers as the layout-0 model run by onnxruntime, transposed."""
    for op in ("LSTM", "GRU"):
        r = np.random.default_rng(13)
        T, batch, inputs, hidden = 5, 2, 12, 16
        seq = recurrent_model(r, op, T, batch, inputs, hidden, direction="bidirectional")
        r = np.random.default_rng(13)
        bat = recurrent_model(r, op, T, batch, inputs, hidden, direction="bidirectional",
                              layout=1)
        x = r.standard_normal((T, batch, inputs)).astype(np.float32)
        h0 = r.standard_normal((2, batch, hidden)).astype(np.float32)
        feeds = {"x": x, "h0": h0}
        batch_feeds = {"x": x.transpose(1, 0, 2), "h0": h0.transpose(1, 0, 2)}
        if op == "LSTM":
            c0 = r.standard_normal((2, batch, hidden)).astype(np.float32)
            feeds["c0"], batch_feeds["c0"] = c0, c0.transpose(1, 0, 2)
        want = harness.onnxruntime_outputs(seq, feeds)
        got, log = compile_and_run(nunc, tmp_path, bat, batch_feeds, target, name=op)
        assert got is not None, log
        np.testing.assert_allclose(got["y"], want["y"].transpose(2, 0, 1, 3), rtol=1e-5,
                                   atol=2e-6)
        for k in ("yh", "yc") if op == "LSTM" else ("yh",):
            np.testing.assert_allclose(got[k], want[k].transpose(1, 0, 2), rtol=1e-5,
                                       atol=2e-6)


@pytest.mark.parametrize("target", TARGETS)
def test_scatter_gather_nd_and_slice_views(nunc, tmp_path, target):
    """GatherND (batch_dims 1), ScatterND (add, a repeated index),
    ScatterElements (max, negative indices) and integer Shrink against
    onnxruntime; contiguous slices of one tensor (views into it) read by
    one step and slices of a graph input (copies) that a later step reads
    again: no step overwrites what another still reads. An index tuple out
    of range is an error naming the input."""
    n = h.make_node
    c = lambda name, v: n("Constant", [], [name], value=nh.from_array(np.asarray(v), name))
    nodes = [
        n("GatherND", ["data", "nd_idx"], ["gnd"], batch_dims=1),
        n("ScatterND", ["data", "snd_idx", "snd_upd"], ["snd"], reduction="add"),
        n("ScatterElements", ["data", "se_idx", "se_upd"], ["sel"], axis=1, reduction="max"),
        n("Shrink", ["ints"], ["ishrink"], lambd=1.5, bias=1.0),
        c("s0", [0]), c("e16", [16]), c("ax1", [1]), c("ax0", [0]), c("one", [1]),
        c("two", [2]), c("three", [3]),
        n("Slice", ["row", "s0", "e16", "ax1"], ["a"]), n("Exp", ["a"], ["ea"]),
        n("Add", ["a", "ea"], ["sum"]),
        n("Relu", ["q"], ["rq"]), n("Slice", ["rq", "s0", "two", "ax0"], ["lo"]),
        n("Slice", ["rq", "one", "three", "ax0"], ["hi"]), n("Sub", ["hi", "lo"], ["diff"]),
        n("Slice", ["rq", "s0", "one", "ax0"], ["first"]), n("Sub", ["lo", "first"], ["off"]),
    ]
    ins = [h.make_tensor_value_info("data", F, [2, 4, 3]),
           h.make_tensor_value_info("nd_idx", I64, [2, 2, 2]),
           h.make_tensor_value_info("snd_idx", I64, [3, 2]),
           h.make_tensor_value_info("snd_upd", F, [3, 3]),
           h.make_tensor_value_info("se_idx", I64, [2, 2, 3]),
           h.make_tensor_value_info("se_upd", F, [2, 2, 3]),
           h.make_tensor_value_info("ints", I32, [8]),
           h.make_tensor_value_info("row", F, [1, 32]), h.make_tensor_value_info("q", F, [3, 16])]
    outs = [h.make_tensor_value_info(o, t, None) for o, t in
            (("gnd", F), ("snd", F), ("sel", F), ("ishrink", I32), ("sum", F), ("diff", F),
             ("off", F))]
    model = h.make_model(h.make_graph(nodes, "scatter", ins, outs),
                         opset_imports=[h.make_opsetid("", 18)])
    r = np.random.default_rng(17)
    feeds = {"data": r.standard_normal((2, 4, 3)).astype(np.float32),
             "nd_idx": np.array([[[0, 1], [3, -1]], [[-4, 0], [2, 2]]]),
             "snd_idx": np.array([[1, 2], [0, -1], [1, 2]]),
             "snd_upd": r.standard_normal((3, 3)).astype(np.float32),
             "se_idx": np.array([[[0, -1, 3], [2, 2, 0]], [[-4, 1, 1], [3, 0, 2]]]),
             "se_upd": r.standard_normal((2, 2, 3)).astype(np.float32),
             "ints": np.array([-3, -2, -1, 0, 1, 2, 3, 100], np.int32),
             "row": r.standard_normal((1, 32)).astype(np.float32),
             "q": r.standard_normal((3, 16)).astype(np.float32)}
    want = harness.onnxruntime_outputs(model, feeds)
    got, log = compile_and_run(nunc, tmp_path, model, feeds, target)
    assert got is not None, log
    check_against_onnxruntime(got, want, rtol=1e-6, atol=1e-6)
    feeds["snd_idx"] = np.array([[1, 2], [2, 0], [0, 0]])
    got, log = compile_and_run(nunc, tmp_path, model, feeds, target, name="bad")
    assert got is None
    assert "input 'snd_idx' holds an index tuple out of range ([-2, 2), [-4, 4))" in log, log


@pytest.mark.parametrize("target", TARGETS)
def test_rms_normalization_and_rotary_embedding_match_onnxruntime(nunc, tmp_path, target):
    """Opset 23's RMSNormalization (last axis; f16 data stashed in f32; both
    on the LayerNorm kernel's rms form) and RotaryEmbedding (4-D with
    position ids, halves; 3-D with num_heads, interleaved, a partial rotary
    dim; no position ids) against onnxruntime; a position id past the
    caches is an error, not a read out of bounds."""
    n = h.make_node
    batch, heads, seq, head, hidden = 2, 4, 6, 16, 64
    r = np.random.default_rng(23)
    angles = np.arange(32)[:, None] / 10000 ** (np.arange(8)[None] / 8)
    nodes = [n("RMSNormalization", ["x", "gamma"], ["rms"], epsilon=1e-6),
             n("RMSNormalization", ["xh", "gammah"], ["rmsh"]),
             n("RotaryEmbedding", ["q", "cos", "sin", "pos"], ["rot4"]),
             n("RotaryEmbedding", ["x", "cos4", "sin4"], ["rot3"], interleaved=1, num_heads=heads,
               rotary_embedding_dim=8)]
    inits = [nh.from_array(r.standard_normal(hidden).astype(np.float32), "gamma"),
             nh.from_array(r.standard_normal(hidden).astype(np.float16), "gammah"),
             nh.from_array(np.cos(angles).astype(np.float32), "cos"),
             nh.from_array(np.sin(angles).astype(np.float32), "sin"),
             nh.from_array(np.cos(angles[:seq, :4])[None].repeat(batch, 0).astype(np.float32),
                           "cos4"),
             nh.from_array(np.sin(angles[:seq, :4])[None].repeat(batch, 0).astype(np.float32),
                           "sin4")]
    ins = [h.make_tensor_value_info("x", F, [batch, seq, hidden]),
           h.make_tensor_value_info("xh", onnx.TensorProto.FLOAT16, [batch, seq, hidden]),
           h.make_tensor_value_info("q", F, [batch, heads, seq, head]),
           h.make_tensor_value_info("pos", I64, [batch, seq])]
    outs = [h.make_tensor_value_info("rms", F, None),
            h.make_tensor_value_info("rmsh", onnx.TensorProto.FLOAT16, None),
            h.make_tensor_value_info("rot4", F, None), h.make_tensor_value_info("rot3", F, None)]
    model = h.make_model(h.make_graph(nodes, "llama_bits", ins, outs, inits),
                         opset_imports=[h.make_opsetid("", 23)])
    feeds = {"x": r.standard_normal((batch, seq, hidden)).astype(np.float32),
             "xh": r.standard_normal((batch, seq, hidden)).astype(np.float16),
             "q": r.standard_normal((batch, heads, seq, head)).astype(np.float32),
             "pos": np.array([np.arange(seq), np.arange(seq) + 20])}
    want = harness.onnxruntime_outputs(model, feeds)
    got, log = compile_and_run(nunc, tmp_path, model, feeds, target)
    assert got is not None, log
    check_against_onnxruntime({k: v for k, v in got.items() if k != "rmsh"},
                              {k: v for k, v in want.items() if k != "rmsh"}, rtol=1e-5,
                              atol=1e-5)
    np.testing.assert_allclose(got["rmsh"].astype(np.float32), want["rmsh"].astype(np.float32),
                               rtol=2e-3, atol=2e-3)
    # The f32 RMSNormalization runs on the LayerNorm kernel (rms); the f16
    # one, whose body casts to its f32 stash and back, does too.
    explain = nunc("compile", str(tmp_path / "m.onnx"), "--target", target, "-o",
                   tmp_path / "explain", "--explain").stdout
    assert explain.count("layer_norm.") == 2 and explain.count("] rms") == 2, explain
    assert "nunc.reduce_mean" not in explain and "nunc.sqrt" not in explain, explain
    feeds["pos"] = np.array([np.arange(seq), np.arange(seq) + 30])
    got, log = compile_and_run(nunc, tmp_path, model, feeds, target, name="bad")
    assert got is None
    assert "input 'pos' holds an index out of range [-32, 32)" in log, log


@pytest.mark.parametrize("target", TARGETS)
def test_inverse_and_hyperbolic_trig(nunc, tmp_path, target):
    """Tan, Asin, Acos, Atan, Sinh, Cosh, Asinh, Acosh and Atanh over their
    domains, densely where the kernels' reductions and branches meet, and at
    their edges (tiny values and signed zeros, the poles and domain ends,
    where sinh and cosh overflow, past the domains: NaN, acosh of large
    negative values too), within 4 ulps of numpy's f64 values rounded to
    the type (f32; the hyperbolic ones in f64 too, 5 ulps); NaN,
    infinities and the signs of zeros exactly."""
    r = np.random.default_rng(23)
    tiny = [0, -0.0, 1e-30, -1e-30, 1e-8, 3e-5, -3e-5, 1e-3, np.nan]

    def values(lo, hi, edges, dense=()):
        return np.concatenate([r.uniform(lo, hi, 300), edges] +
                              [np.linspace(a, b, 1500) for a, b in dense])

    domains = {
        "Tan": (np.tan, values(-1.5, 1.5, tiny + [10, -100, 1000, 1.5, -1.55])),
        "Atan": (np.arctan, values(-50, 50, tiny + [1e10, -1e30, np.inf, -np.inf, 1, -1])),
        "Asin": (np.arcsin, values(-1, 1, tiny + [1, -1, 0.9999999, -0.9999999, 1.5, -2],
                                   [(0.39, 0.43)])),
        "Acos": (np.arccos, values(-1, 1, tiny + [1, -1, 0.9999999, -0.9999999, 1.5, -2],
                                   [(0.68, 0.70), (-1, -0.99)])),
        "Sinh": (np.sinh, values(-10, 10, tiny + [0.99, 1, 1.01, 88, 89.4, 90, -89, np.inf],
                                 [(1.3, 2.2)])),
        "Cosh": (np.cosh, values(-10, 10, tiny + [0.99, 1, 1.01, 88, 89.4, 90, -89, -np.inf])),
        "Asinh": (np.arcsinh, values(-100, 100, tiny + [4095, 4097, 2.0**28 + 1, 1e20, -1e30,
                                                         3e38, -np.inf])),
        "Acosh": (np.arccosh, values(1, 100, [1, 1.0000001, 1.001, 4095, 4097, 2.0**28 + 1,
                                              1e20, 3e38, np.inf, 0.5, -1, np.nan, -5000,
                                              -1e10, -1e30, -3e38, -np.inf])),
        "Atanh": (np.arctanh, values(-1, 1, tiny + [1, -1, 0.9999999, -0.9999999, 0.5, 1.5],
                                     [(-0.5, -0.4), (0.4, 0.6)])),
    }
    hyperbolic = ("Sinh", "Cosh", "Asinh", "Acosh", "Atanh")
    feeds, nodes = {}, []
    for op, (_, x) in domains.items():
        feeds[f"x_{op}"] = x.astype(np.float32)
        nodes.append(h.make_node(op, [f"x_{op}"], [f"y_{op}"]))
        if op in hyperbolic:
            feeds[f"x64_{op}"] = x.astype(np.float64)
            nodes.append(h.make_node(op, [f"x64_{op}"], [f"y64_{op}"]))
    model = h.make_model(
        h.make_graph(nodes, "trig", [h.make_tensor_value_info(k, h.np_dtype_to_tensor_dtype(
            v.dtype), v.shape) for k, v in feeds.items()],
                     [h.make_empty_tensor_value_info(o) for node in nodes for o in node.output]),
        opset_imports=[h.make_opsetid("", 17)])
    got, log = compile_and_run(nunc, tmp_path, model, feeds, target)
    assert got is not None, log
    for op, (fn, _) in domains.items():
        for width, name in ((np.float32, f"y_{op}"), (np.float64, f"y64_{op}")):
            if name not in got:
                continue
            x = feeds[name.replace("y", "x", 1)]
            with np.errstate(all="ignore"):
                want = fn(x.astype(np.float64)).astype(width)
            a = got[name]
            assert a.dtype == width, (name, a.dtype)
            np.testing.assert_array_equal(np.isnan(a), np.isnan(want), err_msg=name)
            finite = np.isfinite(want)
            np.testing.assert_array_equal(a[~finite & ~np.isnan(want)],
                                          want[~finite & ~np.isnan(want)], err_msg=name)
            np.testing.assert_array_equal(np.signbit(a[want == 0]), np.signbit(want[want == 0]),
                                          err_msg=name)
            ulps = np.abs(a[finite].astype(np.float64) - want[finite]) / np.spacing(
                np.abs(want[finite]))
            bound = 4 if width == np.float32 else 5
            assert ulps.max() <= bound, (name, ulps.max(), x[finite][np.argmax(ulps)])
