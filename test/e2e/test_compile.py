"""End to end through `nunc compile`: each example model is compiled for
x86_64-avx512 and x86_64-avx2, linked into a C program, run, and compared
with onnxruntime (relative error <= 1e-4). Also: deterministic output,
run-time input checks, external weights, two models in one program."""
import json
import os
import subprocess

import numpy as np
import onnxruntime as ort
import pytest

import harness
from make_models import random_inputs

REL_TOL = 1e-4
TEXT_INPUTS = ("input_ids", "attention_mask", "token_type_ids")


def host_has(flag):
    with open("/proc/cpuinfo") as f:
        return flag in f.read().split()


TARGETS = [t for t, flag in (("x86_64-avx512", "avx512f"), ("x86_64-avx2", "avx2"))
           if host_has(flag)]


def pins(name, batch, seq):
    if name in ("minilm", "bert"):
        return [a for i in TEXT_INPUTS for a in ("--shape", f"{i}={batch}x{seq}")]
    if name == "mlp":
        return ["--shape", f"x={batch}x64"]
    return ["--shape", f"input={batch}x3x224x224"]


def compile_model(nunc, models, out, name, target, batch, seq, *extra):
    nunc("compile", os.path.join(models, f"{name}.onnx"), "--target", target,
         *pins(name, batch, seq), "-o", out, *extra)
    return harness.build(str(out))


def reference(models, name, feeds):
    sess = ort.InferenceSession(os.path.join(models, f"{name}.onnx"),
                                providers=["CPUExecutionProvider"])
    return {o.name: v for o, v in zip(sess.get_outputs(), sess.run(None, feeds))}


CASES = [("mlp", 3, None), ("minilm", 1, 128), ("minilm", 2, 17), ("bert", 1, 32),
         ("resnet", 1, None), ("mobilenet", 2, None), ("resnext", 1, None)]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name,batch,seq", CASES,
                         ids=[f"{n}-b{b}" + (f"-s{s}" if s else "") for n, b, s in CASES])
def test_compiled_library_matches_onnxruntime(nunc, models, tmp_path, target, name, batch, seq):
    exe, manifest = compile_model(nunc, models, tmp_path, name, target, batch, seq)
    if "avx512" in target:
        # The one-group convolutions of the CNNs with many panels build them
        # inside their GEMM tasks, but the 3x3 stride-1 ones over 56x56,
        # 28x28 and 14x14 run as Winograd F(2x2, 3x3); those of 7x7 planes
        # (48 + 1 positions) split their rows and take the last position as
        # dot products.
        convs = [k["kernel"] for k in manifest["kernels"] if k["kernel"].startswith("conv.")]
        assert (len(convs) > 0) == (name in ("resnet", "mobilenet", "resnext"))
        winograd = [k for k in convs if k.startswith("conv.winograd.avx512[")]
        # ResNet's layer1 (4 convs), layer2 and layer3 after their strided
        # first (3 and 1).
        assert len(winograd) == (8 if name == "resnet" else 0), convs
        for k in convs:
            if k in winograd:
                assert "3x3 kernel" in k and any(f"x{n}x" in k for n in (3136, 784, 196)), k
            elif "x49x" in k:
                assert k.startswith("conv.im2col+gemm.avx512[") and \
                    "row chunks, last 1 columns as dot products]" in k, k
            elif "x3136x" in k or "x12544x" in k:
                assert k.startswith("conv.panel-im2col+gemm.avx512["), k
    elif target == "x86_64-avx2":
        # The ymm GEMM builds its panels of 16 positions inside its tasks
        # too: from padded planes, or (1x1 stride-1 convs) from the input
        # itself by masked loads; only convs with few panels split their
        # rows and share an im2col pass.
        convs = [k["kernel"] for k in manifest["kernels"] if k["kernel"].startswith("conv.")]
        assert (len(convs) > 0) == (name in ("resnet", "mobilenet", "resnext"))
        for k in convs:
            assert k.startswith("conv.panel-im2col+gemm.avx2[") or (
                k.startswith("conv.im2col+gemm.avx2[") and "row chunks" in k), k
        # MobileNet's pointwise convs and ResNeXt's stride-1 1x1 convs read
        # their input as it is (ResNet's 1x1 convs have stride 2).
        reads = [k for k in convs if "panels from the input" in k]
        assert all("1x1 kernel" in k for k in reads), reads
        if name == "resnet":
            assert not reads, convs
        if name == "resnext":
            assert len(reads) >= 6, convs
        if name == "mobilenet":
            assert len(reads) == len(
                [k for k in convs if "1x1 kernel" in k and "row chunks" not in k]), convs
        assert name != "mobilenet" or len(reads) >= 14, convs
    feeds = random_inputs(name, batch, seq or 16, 1)
    for threads in (1, 2):
        outs, _, log = harness.run(exe, manifest, feeds, str(tmp_path / f"w{threads}"),
                                   threads=threads)
        assert outs is not None, log
        want = reference(models, name, feeds)
        for key, ref in want.items():
            err = float(np.abs(outs[key].astype(np.float64) - ref).max() /
                        max(np.abs(ref).max(), 1e-30))
            assert err <= REL_TOL, f"{name} {target} threads={threads} {key}: {err:.3g}"


def test_output_is_deterministic(nunc, models, tmp_path):
    for d in ("a", "b"):
        nunc("compile", os.path.join(models, "minilm.onnx"), "--target", "x86_64-avx512",
             *pins("minilm", 1, 16), "-o", tmp_path / d)
        # A CNN too: its conv kernels embed per-panel tables.
        nunc("compile", os.path.join(models, "resnet.onnx"), "--target", "x86_64-avx512",
             *pins("resnet", 1, None), "-o", tmp_path / d)
    for f in ("libminilm.a", "minilm.h", "minilm.json", "libresnet.a", "resnet.h",
              "resnet.json"):
        assert (tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes(), f


def test_static_int8_output_is_deterministic(nunc, models, tmp_path):
    """Calibration (the evaluator over the samples, its histograms and
    ranges) and the static int8 kernels come out the same bytes each time."""
    samples = tmp_path / "samples"
    samples.mkdir()
    for i in range(2):
        np.savez(samples / f"s{i}.npz", **random_inputs("mobilenet", 1, None, i))
    for d in ("a", "b"):
        nunc("compile", os.path.join(models, "mobilenet.onnx"), "--target",
             "x86_64-avx512vnni", *pins("mobilenet", 1, None), "--quantize", "int8",
             "--activations", "static", "--calibration", samples, "--calib-method", "entropy",
             "-o", tmp_path / d)
    for f in ("libmobilenet.a", "mobilenet.h", "mobilenet.json"):
        assert (tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes(), f


def test_layers_share_identical_kernel_code(nunc, models, tmp_path):
    """Kernels that come out byte for byte the same (a transformer's layers:
    its LayerNorms, its attentions) are one copy of code under several
    symbols, and the library still computes the model."""
    out = tmp_path / "lib"
    exe, manifest = compile_model(nunc, models, out, "minilm", "x86_64-avx512", 1, 16)
    copies = harness.kernel_code_copies(out, manifest)
    kernels = [k["kernel"] for k in manifest["kernels"]]
    # Six layers: one copy each of the attention and LayerNorm kernels, and
    # of every other kernel they repeat.
    repeated = [k for k in copies if kernels.count(k[0]) >= 6]
    assert any(k[0].startswith("attention.") for k in repeated), copies
    assert any(k[0].startswith("layer_norm.") for k in repeated), copies
    assert all(len(copies[k]) == 1 for k in repeated), copies
    feeds = random_inputs("minilm", 1, 16, 3)
    outs, _, log = harness.run(exe, manifest, feeds, str(tmp_path / "w"))
    assert outs is not None, log
    want = reference(models, "minilm", feeds)
    for key, ref in want.items():
        err = float(np.abs(outs[key].astype(np.float64) - ref).max() / np.abs(ref).max())
        assert err <= REL_TOL, f"{key}: {err:.3g}"


def test_out_of_range_token_id_returns_invalid_input(nunc, models, tmp_path):
    exe, manifest = compile_model(nunc, models, tmp_path, "minilm", TARGETS[0], 1, 8)
    feeds = random_inputs("minilm", 1, 8, 0)
    feeds["input_ids"][0, 5] = 30522
    outs, _, log = harness.run(exe, manifest, feeds, str(tmp_path / "w"))
    assert outs is None
    assert log.startswith("run 2 ")  # NUNC_ERR_INVALID_INPUT
    assert "input 'input_ids' holds an index out of range [-30522, 30522)" in log
    assert 'node "/embeddings/word_embeddings/Gather"' in log
    feeds["input_ids"][0, 5] = -30523
    outs, _, log = harness.run(exe, manifest, feeds, str(tmp_path / "w"))
    assert outs is None and "run 2 " in log


def test_external_weights(nunc, models, tmp_path):
    out = tmp_path / "ext"
    nunc("compile", os.path.join(models, "mlp.onnx"), "--target", TARGETS[0],
         *pins("mlp", 2, None), "--weights", "external", "-o", out)
    manifest = json.loads((out / "mlp.json").read_text())
    assert manifest["weights"] == "external"
    assert (out / "mlp.weights").stat().st_size == manifest["weight_bytes"]
    header = (out / "mlp.h").read_text()
    assert "const void *weights" in header
    exe, manifest = harness.build(str(out))
    feeds = random_inputs("mlp", 2, 1, 0)
    outs, _, log = harness.run(exe, manifest, feeds, str(tmp_path / "w"), weights_dir=str(out))
    assert outs is not None, log
    np.testing.assert_allclose(outs["y"], reference(models, "mlp", feeds)["y"], rtol=1e-4,
                               atol=1e-6)
    # The library itself carries no weights.
    assert (out / "libmlp.a").stat().st_size < manifest["weight_bytes"]


def test_two_models_link_into_one_program(nunc, models, tmp_path):
    for name, model in (("first", "mlp"), ("second", "mlp")):
        nunc("compile", os.path.join(models, f"{model}.onnx"), "--target", TARGETS[0],
             *pins("mlp", 1, None), "--name", name, "-o", tmp_path)
    src = tmp_path / "both.c"
    src.write_text("""
#include <stdio.h>
#include <stdlib.h>
#include "first.h"
#include "second.h"
int main(void) {
  static first_ctx a; static second_ctx b;
  void *wa = aligned_alloc(64, 4096), *wb = aligned_alloc(64, 4096);
  if (first_init(&a, wa, NULL) || second_init(&b, wb, NULL)) return 1;
  float x[64], ya[10], yb[10];
  for (int i = 0; i < 64; ++i) x[i] = i / 64.0f;
  if (first_run(&a, x, ya) || second_run(&b, x, yb)) return 2;
  for (int i = 0; i < 10; ++i) if (ya[i] != yb[i]) return 3;
  printf("%s %.6f\\n", nunc_status_str(NUNC_OK), ya[0]);
  first_destroy(&a); second_destroy(&b);
  return 0;
}
""")
    exe = tmp_path / "both"
    subprocess.run(["gcc", "-O2", "-o", exe, src, "-I", tmp_path, tmp_path / "libfirst.a",
                    tmp_path / "libsecond.a", "-lpthread"], check=True)
    r = subprocess.run([exe], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.startswith("ok ")


def test_io_names_that_are_keywords_or_collide(nunc, tmp_path):
    """Graph I/O names become the run function's parameters: C and C++
    keywords (`int`, `class`, `new`), the `ctx` parameter's own name, and
    names that only differ in characters C drops ('a.b' and 'a_b', across
    the input and output lists) once gave a header that did not compile; so
    would a type or a macro the header uses (`uint8_t`, its own
    NAMES_BATCH_ITEMS). It must compile as C and C++ with -Wall -Werror, the
    manifest naming the same parameters, and the library computes the
    model."""
    from onnx import helper as h, TensorProto as T
    import onnx
    ins = ["a.b", "ctx", "int", "new", "uint8_t", "NAMES_BATCH_ITEMS"]
    outs = ["a_b", "class"]
    model = h.make_model(h.make_graph(
        [h.make_node("Sum", ins, ["a_b"]), h.make_node("Relu", ["a.b"], ["class"])], "g",
        [h.make_tensor_value_info(n, T.FLOAT, [4]) for n in ins],
        [h.make_tensor_value_info(n, T.FLOAT, [4]) for n in outs]),
        opset_imports=[h.make_opsetid("", 13)])
    onnx.save(model, str(tmp_path / "names.onnx"))
    out = tmp_path / "lib"
    nunc("compile", tmp_path / "names.onnx", "--target", TARGETS[0], "-o", out)
    src = tmp_path / "t.c"
    src.write_text('#include "names.h"\nint main(void) { return 0; }\n')
    for compiler in (["gcc", "-std=c11"], ["g++", "-x", "c++", "-std=c++17"]):
        subprocess.run([*compiler, "-Wall", "-Werror", "-c", src, "-I", out, "-o",
                        tmp_path / "t.o"], check=True)
    manifest = json.load(open(out / "names.json"))
    params = [io["c_name"] for io in manifest["inputs"] + manifest["outputs"]]
    assert params == ["a_b", "ctx_", "int_", "new_", "uint8_t_", "NAMES_BATCH_ITEMS_", "a_b_1",
                      "class_"], params
    header = (out / "names.h").read_text()
    assert "const float *ctx_," in header and "float *class_)" in header, header
    exe, man = harness.build(str(out))
    feeds = {n: np.float32([i - 1.5, 2, -3, 0.25]) for i, n in enumerate(ins)}
    got, _, log = harness.run(exe, man, feeds, str(tmp_path / "w"))
    assert got is not None, log
    np.testing.assert_array_equal(got["a_b"], sum(feeds.values()))
    np.testing.assert_array_equal(got["class"], np.maximum(feeds["a.b"], 0))


def test_explain_and_memory_plan(nunc, models, tmp_path):
    r = nunc("compile", os.path.join(models, "minilm.onnx"), "--target", TARGETS[0],
             *pins("minilm", 1, 16), "-o", tmp_path, "--explain", "--print-memory-plan")
    text = r.stdout
    assert "memory plan: arena" in text
    assert "gemm." in text and "attention." in text and "layer_norm." in text
    assert "on the generic path" in text
    manifest = json.loads((tmp_path / "minilm.json").read_text())
    assert manifest["arena_bytes"] > 0
    assert f"MINILM_WORKSPACE_SIZE ((size_t){manifest['arena_bytes']}u)" in (
        tmp_path / "minilm.h").read_text()


def test_dynamic_dims_must_be_pinned(nunc, models, tmp_path):
    r = nunc("compile", os.path.join(models, "minilm.onnx"), "--target", TARGETS[0], "-o",
             tmp_path, check=False)
    assert r.returncode == 1
    assert "pin these with --shape NAME=DIMS" in r.stderr
    # All three dynamic inputs in one error, with their symbolic dims.
    for name in ("input_ids", "attention_mask", "token_type_ids"):
        assert f"{name} [batch, sequence]" in r.stderr
    assert not (tmp_path / "libminilm.a").exists()
    # The error comes first: no word of batches or quantized ops before it.
    r = nunc("compile", os.path.join(models, "resnet.onnx"), "--target", TARGETS[0],
             "--quantize", "int8", "-o", tmp_path, check=False)
    assert r.returncode == 1
    assert r.stderr.startswith(os.path.join(models, "resnet.onnx") + ": error: every graph "
                               "input needs a static shape"), r.stderr
    assert "input [batch, 3, 224, 224]" in r.stderr
    # The inputs share the symbolic dims batch and sequence: pinning one input
    # pins the others.
    nunc("compile", os.path.join(models, "minilm.onnx"), "--target", TARGETS[0],
         "--shape", "input_ids=1x16", "-o", tmp_path)
    manifest = json.loads((tmp_path / "minilm.json").read_text())
    assert [i["shape"] for i in manifest["inputs"]] == [[1, 16]] * 3


@pytest.mark.parametrize("quantize", ["none", "int8-static"])
def test_embed_c_example_builds_with_cmake_and_runs(models, tmp_path, quantize):
    """examples/embed-c through find_package(nunc) + nunc_add_model(), in f32
    and in int8 with calibration samples (QUANTIZE, ACTIVATIONS, CALIBRATION)."""
    root = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
    bin_dir = os.environ.get("NUNC_BIN_DIR", os.path.join(root, "build", "bin"))
    config_dir = os.path.join(os.path.dirname(bin_dir), "cmake")
    build = tmp_path / "embed"
    extra = []
    if quantize != "none":
        calib = tmp_path / "calib"
        calib.mkdir()
        for i in range(4):
            np.savez(calib / f"s{i}.npz", **random_inputs("minilm", 1, 128, 500 + i))
        extra = ["-DQUANTIZE=int8", f"-DCALIBRATION={calib}"]
    subprocess.run(["cmake", "-S", os.path.join(root, "examples", "embed-c"), "-B", build,
                    f"-Dnunc_DIR={config_dir}", f"-DMODEL={os.path.join(models, 'minilm.onnx')}",
                    f"-DNUNC_TARGET={TARGETS[0]}", *extra], check=True, capture_output=True)
    subprocess.run(["cmake", "--build", build], check=True, capture_output=True)
    manifest = json.loads((build / "nunc" / "minilm" / "minilm.json").read_text())
    assert manifest["quantization"] == quantize
    r = subprocess.run([build / "embed_c"], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    first = [float(v) for v in r.stdout.splitlines()[0].split("=")[1].split()]
    # The same sentence through onnxruntime.
    ids = np.zeros((1, 128), np.int64)
    mask = np.zeros((1, 128), np.int64)
    for i in range(128):
        ids[0, i] = 101 if i == 0 else 102 if i == 119 else 0 if i > 119 else 1000 + (i * 37) % 20000
        mask[0, i] = i <= 119
    want = reference(models, "minilm", {"input_ids": ids, "attention_mask": mask,
                                        "token_type_ids": np.zeros((1, 128), np.int64)})
    tol = 1e-4 if quantize == "none" else 0.1  # int8: ~3 % of LayerNorm's unit scale
    np.testing.assert_allclose(first, want["last_hidden_state"][0, 0, :4], rtol=tol, atol=tol)


def test_runtime_code_stays_small(nunc, models, tmp_path):
    """The runtime object linked into every library stays under 64 KB of code."""
    nunc("compile", os.path.join(models, "mlp.onnx"), "--target", TARGETS[0],
         *pins("mlp", 1, None), "-o", tmp_path)
    lib = tmp_path / "libmlp.a"
    members = subprocess.run(["ar", "t", lib], check=True, capture_output=True,
                             text=True).stdout.split()
    assert "mlp_runtime.o" in members
    subprocess.run(["ar", "x", lib.resolve(), "mlp_runtime.o"], check=True, cwd=tmp_path)
    # Berkeley format: text data bss dec hex filename
    fields = subprocess.run(["size", tmp_path / "mlp_runtime.o"], check=True,
                            capture_output=True, text=True).stdout.splitlines()[1].split()
    text, data = int(fields[0]), int(fields[1])
    assert 0 < text + data < 64 * 1024, f"runtime code {text} B text, {data} B data"


SPLIT_CASES = [("mobilenet", 3, None), ("minilm", 2, 17)]


@pytest.mark.parametrize("name,batch,seq", SPLIT_CASES,
                         ids=[f"{n}-b{b}" for n, b, _ in SPLIT_CASES])
def test_split_batch_runs_each_item_like_batch_one(nunc, models, tmp_path, name, batch, seq):
    """A batch whose items no op mixes runs one item at a time
    (nunc-split-batch): the library gives, item for item, exactly the
    outputs of the batch-1 library (the same code on the same data) with
    the batch-1 library's arena, also with items side by side in workspace
    slots of their own; `--split-batch=false` runs each layer on
    the whole batch, with a batch-sized arena, and agrees with onnxruntime."""
    target = TARGETS[0]
    split, man = compile_model(nunc, models, tmp_path / "split", name, target, batch, seq)
    single, man1 = compile_model(nunc, models, tmp_path / "one", name, target, 1, seq)
    whole, manw = compile_model(nunc, models, tmp_path / "whole", name, target, batch, seq,
                                "--split-batch=false")
    assert man["batch_split"] == batch and man1["batch_split"] == 1
    assert manw["batch_split"] == 1
    assert man["arena_bytes"] == man1["arena_bytes"] < manw["arena_bytes"]
    assert [i["shape"][0] for i in man["inputs"] + man["outputs"]] == \
        [batch] * (len(man["inputs"]) + len(man["outputs"]))
    header = (tmp_path / "split" / f"{name}.h").read_text()
    first = man["inputs"][0]
    assert f"{first['c_name']}: {first['dtype']} [{', '.join(map(str, first['shape']))}]" in header
    feeds = random_inputs(name, batch, seq or 16, 5)
    want = reference(models, name, feeds)
    ones = []
    for i in range(batch):
        item = {k: v[i:i + 1] for k, v in feeds.items()}
        one, _, log = harness.run(single, man1, item, str(tmp_path / "w1"))
        assert one is not None, log
        ones.append(one)
    # Items in turn on 1 or 2 threads; side by side in 2 workspace slots (a
    # third slot's worth of workspace is left unused: 2 threads).
    for threads, slots in ((1, 1), (2, 1), (2, 2), (2, 3)):
        got, _, log = harness.run(split, man, feeds, str(tmp_path / "w"), threads=threads,
                                  slots=slots)
        assert got is not None, log
        for i in range(batch):
            for key in got:
                assert np.array_equal(got[key][i:i + 1], ones[i][key]), (key, i, threads, slots)
    got, _, log = harness.run(whole, manw, feeds, str(tmp_path / "ww"))
    assert got is not None, log
    for key, ref in want.items():
        err = float(np.abs(got[key].astype(np.float64) - ref).max() / np.abs(ref).max())
        assert err <= REL_TOL, (key, err)


def test_split_batch_checks_every_item(nunc, models, tmp_path):
    """Token ids are checked in every item of a split batch: a bad id in the
    last item fails the run, whether items run in turn or side by side."""
    exe, manifest = compile_model(nunc, models, tmp_path, "minilm", TARGETS[0], 3, 16)
    assert manifest["batch_split"] == 3
    feeds = random_inputs("minilm", 3, 16, 0)
    feeds["input_ids"][2, 15] = 30522
    for threads, slots in ((1, 1), (2, 2)):
        outs, _, log = harness.run(exe, manifest, feeds, str(tmp_path / "w"), threads=threads,
                                   slots=slots)
        assert outs is None and log.startswith("run 2 "), log
        assert "input 'input_ids' holds an index out of range" in log


def conv_output_matches(out, feeds, want, tmp_path):
    """The library compiled into `out` gives onnxruntime's y on 1 and 2
    threads."""
    exe, man = harness.build(str(out))
    for threads in (1, 2):
        outs, _, log = harness.run(exe, man, feeds, str(tmp_path / f"w{threads}"),
                                   threads=threads)
        assert outs is not None, log
        np.testing.assert_allclose(outs["y"], want, rtol=1e-4, atol=1e-5)


@pytest.mark.skipif("x86_64-avx512" not in TARGETS, reason="the host lacks AVX-512")
def test_winograd_convolution_matches_onnxruntime(nunc, tmp_path):
    """Relu(Conv3x3(x) + b + r) over planes wide enough for Winograd F(2x2,
    3x3): odd sides (half tiles at the bottom and right), tile rows of 12 and
    10 tiles and of 7 in pairs (the last one alone), channels that fill neither the k loop's unroll nor a row tile,
    two images; against onnxruntime on 1 and 2 threads. --winograd=false
    takes the im2col GEMM instead, and the two agree as closely."""
    import onnx
    from onnx import helper as h, numpy_helper as nh
    r = np.random.default_rng(13)
    for n, c, m, height, width in ((2, 9, 10, 21, 23), (1, 16, 16, 60, 20), (1, 12, 8, 13, 14)):
        w = (r.standard_normal((m, c, 3, 3)) * 0.2).astype(np.float32)
        b = (r.standard_normal(m) * 0.1).astype(np.float32)
        nodes = [h.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1] * 4),
                 h.make_node("Add", ["c", "r"], ["s"]), h.make_node("Relu", ["s"], ["y"])]
        g = h.make_graph(nodes, "wino",
                         [h.make_tensor_value_info("x", 1, [n, c, height, width]),
                          h.make_tensor_value_info("r", 1, [n, m, height, width])],
                         [h.make_tensor_value_info("y", 1, [n, m, height, width])],
                         [nh.from_array(w, "w"), nh.from_array(b, "b")])
        path = str(tmp_path / f"wino{height}x{width}.onnx")
        onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 17)]), path)
        feeds = {"x": r.standard_normal((n, c, height, width)).astype(np.float32),
                 "r": r.standard_normal((n, m, height, width)).astype(np.float32)}
        want = ort.InferenceSession(path, providers=["CPUExecutionProvider"]).run(None, feeds)[0]
        for flag, kind in (("--winograd=true", "conv.winograd.avx512["),
                           ("--winograd=false", "conv.panel-im2col+gemm.avx512[")):
            out = tmp_path / f"out{height}x{width}{flag[-4:]}"
            res = nunc("compile", path, "--target", "x86_64-avx512", "--explain", flag,
                       "-o", out)
            conv = [line for line in res.stdout.splitlines() if "nunc.fused_conv" in line]
            assert len(conv) == 1 and kind in conv[0] and "+residual relu" in conv[0], \
                res.stdout
            conv_output_matches(out, feeds, want, tmp_path)


GEMM_FORMS = {
    # name: (nodes, inputs, weights); y is the output.
    "gemm_transa": (lambda h: [h.make_node("Gemm", ["a", "w", "c"], ["y"], transA=1, transB=1,
                                           alpha=0.5, beta=2.0)],
                    {"a": [96, 7]}, {"w": (80, 96), "c": (80,)}),
    "gemm_column_c": (lambda h: [h.make_node("Gemm", ["a", "w", "c"], ["y"], beta=-1.5)],
                      {"a": [7, 96], "c": [7, 1]}, {"w": (96, 80)}),
    "gemm_runtime_b": (lambda h: [h.make_node("Gemm", ["a", "b"], ["y"], transA=1, alpha=0.25)],
                       {"a": [96, 7], "b": [96, 80]}, {}),
    "weight_first": (lambda h: [h.make_node("MatMul", ["w", "a"], ["y"])],
                     {"a": [2, 96, 17]}, {"w": (80, 96)}),
    "batched_weights": (lambda h: [h.make_node("MatMul", ["a", "w"], ["y"])],
                        {"a": [3, 17, 96]}, {"w": (3, 96, 80)}),
}


@pytest.mark.skipif("x86_64-avx512" not in TARGETS, reason="the host lacks AVX-512")
@pytest.mark.parametrize("form", sorted(GEMM_FORMS))
def test_gemm_and_matmul_forms_run_on_the_gemm_kernel(nunc, tmp_path, form):
    """Gemm with transA, with a C of one column, with B computed at run time,
    MatMul(W, x) with a constant W and MatMul(x, W) with one constant W per
    batch index run on the GEMM kernel (transposes, slices, Muls and Adds
    around it) instead of the generic kernel's scalar dot products (Gemm
    with transA was ~100x onnxruntime's time); f32 against onnxruntime, and
    --quantize int8 on the int8 GEMM kernel (but the run-time B)."""
    import onnx
    from onnx import helper as h, numpy_helper as nh
    make, inputs, weights = GEMM_FORMS[form]
    r = np.random.default_rng(7)
    inits = [nh.from_array((r.standard_normal(s) * 0.1).astype(np.float32), n)
             for n, s in weights.items()]
    g = h.make_graph(make(h), form, [h.make_tensor_value_info(n, 1, s) for n, s in inputs.items()],
                     [h.make_tensor_value_info("y", 1, None)], inits)
    path = str(tmp_path / f"{form}.onnx")
    onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 17)]), path)
    feeds = {n: r.standard_normal(s).astype(np.float32) for n, s in inputs.items()}
    want = ort.InferenceSession(path, providers=["CPUExecutionProvider"]).run(None, feeds)[0]
    for target in TARGETS:
        out = tmp_path / target
        res = nunc("compile", path, "--target", target, "--explain", "-o", out)
        steps = res.stdout.splitlines()
        assert not [s for s in steps if "nunc.gemm" in s], res.stdout
        if form != "gemm_runtime_b":  # (a MatMul of two run-time operands: generic rows)
            assert not [s for s in steps if "nunc.matmul" in s], res.stdout
            assert [s for s in steps if "nunc.linear" in s and "gemm." in s], res.stdout
        exe, man = harness.build(str(out))
        outs, _, log = harness.run(exe, man, feeds, str(tmp_path / f"w_{target}"))
        assert outs is not None, log
        np.testing.assert_allclose(outs["y"], want, rtol=1e-4, atol=1e-5)
    if form == "gemm_runtime_b" or not host_has("avx512_vnni"):
        return
    out = tmp_path / "int8"
    res = nunc("compile", path, "--target", "x86_64-avx512vnni", "--quantize", "int8",
               "--explain", "-o", out)
    assert [s for s in res.stdout.splitlines() if "gemm.int8.avx512vnni" in s], res.stdout
    exe, man = harness.build(str(out))
    outs, _, log = harness.run(exe, man, feeds, str(tmp_path / "w_int8"))
    assert outs is not None, log
    y = outs["y"].astype(np.float64).ravel()
    cosine = y @ want.ravel() / np.linalg.norm(y) / np.linalg.norm(want)
    assert cosine >= 0.999, cosine


def test_math_comparison_and_logic_ops_match_onnxruntime(nunc, tmp_path):
    """Exp, Log, Sin, Cos, Softplus, Tanh, Abs, Reciprocal, Min / Max (three
    inputs, NaN in one), the comparisons and logic ops of a mask (Less,
    GreaterOrEqual, LessOrEqual, Not, And, Or, Xor, then Where), and Abs,
    Max and Greater on int64 and uint8, compiled for every target and
    against onnxruntime on values that reach their edges: |x| up to 1e30
    for sin / cos (no libm: within 2e-7), tiny tanh inputs (relative
    2e-7 near 0), softplus where exp overflows, NaN, inf, -0 and
    subnormals."""
    import onnx
    from onnx import helper as h
    f, b, i64, u8 = onnx.TensorProto.FLOAT, onnx.TensorProto.BOOL, onnx.TensorProto.INT64, \
        onnx.TensorProto.UINT8
    n = 67
    nodes = [h.make_node(op, ["x"], [op.lower()])
             for op in ("Exp", "Log", "Sin", "Cos", "Softplus", "Tanh", "Abs", "Reciprocal")]
    nodes += [h.make_node("Min", ["x", "y", "z"], ["min"]), h.make_node("Max", ["x", "y", "z"], ["max"]),
              h.make_node("Less", ["x", "y"], ["lt"]), h.make_node("GreaterOrEqual", ["x", "y"], ["ge"]),
              h.make_node("LessOrEqual", ["x", "z"], ["le"]), h.make_node("Not", ["lt"], ["nlt"]),
              h.make_node("And", ["ge", "le"], ["band"]), h.make_node("Or", ["lt", "le"], ["bor"]),
              h.make_node("Xor", ["ge", "le"], ["bxor"]),
              h.make_node("Where", ["bxor", "x", "y"], ["masked"]),
              h.make_node("Abs", ["i"], ["iabs"]), h.make_node("Max", ["i", "j"], ["imax"]),
              h.make_node("Greater", ["i", "j"], ["igt"]), h.make_node("Min", ["u", "v"], ["umin"]),
              h.make_node("Greater", ["u", "v"], ["ugt"])]
    outs = {"exp": f, "log": f, "sin": f, "cos": f, "softplus": f, "tanh": f, "abs": f,
            "reciprocal": f, "min": f, "max": f, "lt": b, "ge": b, "le": b, "nlt": b, "band": b,
            "bor": b, "bxor": b, "masked": f, "iabs": i64, "imax": i64, "igt": b, "umin": u8,
            "ugt": b}
    g = h.make_graph(nodes, "ops",
                     [h.make_tensor_value_info("x", f, [2, n]), h.make_tensor_value_info("y", f, [n]),
                      h.make_tensor_value_info("z", f, [2, 1]), h.make_tensor_value_info("i", i64, [n]),
                      h.make_tensor_value_info("j", i64, [1]), h.make_tensor_value_info("u", u8, [n]),
                      h.make_tensor_value_info("v", u8, [n])],
                     [h.make_tensor_value_info(k, t, None) for k, t in outs.items()])
    path = str(tmp_path / "ops.onnx")
    onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 17)]), path)
    r = np.random.default_rng(3)
    x = np.concatenate([r.uniform(-30, 30, n), np.geomspace(1e-9, 1e30, n) *
                        np.where(np.arange(n) % 2, -1, 1)]).reshape(2, n).astype(np.float32)
    x[0, :6] = [0, -0.0, np.inf, -np.inf, np.nan, 100]
    # Subnormals (log once took them as FLT_MIN: ln 3e-39 was -87.34).
    x[0, 6:11] = [3e-39, 1e-45, -1e-40, 1.1754942e-38, 1e-40]
    y = np.round(r.uniform(-30, 30, n)).astype(np.float32)
    y[7] = np.nan
    feeds = {"x": x, "y": y, "z": np.array([[1.5], [-2.0]], np.float32),
             "i": np.concatenate([[-2**63, 2**63 - 1, 0], r.integers(-1000, 1000, n - 3)]),
             "j": np.array([5], np.int64), "u": r.integers(0, 256, n).astype(np.uint8),
             "v": r.integers(0, 256, n).astype(np.uint8)}
    want = dict(zip(outs, ort.InferenceSession(path, providers=["CPUExecutionProvider"])
                    .run(None, feeds)))
    for target in TARGETS:
        out = tmp_path / target
        nunc("compile", path, "--target", target, "-o", out)
        exe, man = harness.build(str(out))
        got, _, log = harness.run(exe, man, feeds, str(tmp_path / f"w_{target}"))
        assert got is not None, log
        for k, w in want.items():
            a = got[k]
            assert a.shape == w.shape and a.dtype == w.dtype, (k, a.shape, a.dtype)
            if w.dtype != np.float32:
                np.testing.assert_array_equal(a, w, err_msg=f"{target} {k}")
                continue
            np.testing.assert_array_equal(np.isnan(a), np.isnan(w), err_msg=f"{target} {k}")
            # Past 1.2e-38 exp's polynomial flushes to 0 (softplus of x < -87).
            tol = {"sin": (0, 2e-7), "cos": (0, 2e-7), "tanh": (4e-7, 0),
                   "softplus": (4e-7, 1.2e-38), "exp": (4e-7, 1.2e-38)}.get(k, (4e-7, 0))
            np.testing.assert_allclose(a, w, rtol=tol[0], atol=tol[1], err_msg=f"{target} {k}")
        assert np.array_equal(np.signbit(got["abs"]), np.signbit(want["abs"]))
        assert np.signbit(got["sin"][0, 1]), "sin(-0) is -0"


def test_pad_before_conv_matches_onnxruntime(nunc, tmp_path):
    """TensorFlow-style explicit padding (a Pad of zeros, then a VALID
    stride-2 conv) folds into the conv's pads (no pad step left); reflect,
    edge and wrap Pads (and one cropping with negative pads) run as steps
    of their own; f32 on every target and --quantize int8 against
    onnxruntime."""
    import onnx
    from onnx import helper as h, numpy_helper as nh
    r = np.random.default_rng(17)
    w = nh.from_array((r.standard_normal((8, 6, 3, 3)) * 0.2).astype(np.float32), "w")
    pz = nh.from_array(np.array([0, 0, 0, 1, 0, 0, 1, 2], np.int64), "pz")
    pr = nh.from_array(np.array([0, 0, 2, 1, 0, 0, 1, 2], np.int64), "pr")
    pc = nh.from_array(np.array([0, 0, -1, 2, 0, 0, 1, -2], np.int64), "pc")
    nodes = [h.make_node("Pad", ["x", "pz"], ["xz"]),
             h.make_node("Conv", ["xz", "w"], ["y"], strides=[2, 2]),
             h.make_node("Pad", ["x", "pr"], ["xr"], mode="reflect"),
             h.make_node("Conv", ["xr", "w"], ["yr"]),
             h.make_node("Pad", ["x", "pr"], ["xe"], mode="edge"),
             h.make_node("Pad", ["x", "pr"], ["xw"], mode="wrap"),
             h.make_node("Pad", ["x", "pc"], ["xc"])]
    outs = ["y", "yr", "xe", "xw", "xc"]
    g = h.make_graph(nodes, "pads", [h.make_tensor_value_info("x", 1, [1, 6, 13, 11])],
                     [h.make_tensor_value_info(o, 1, None) for o in outs], [w, pz, pr, pc])
    path = str(tmp_path / "pads.onnx")
    onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 19)]), path)
    feeds = {"x": r.standard_normal((1, 6, 13, 11)).astype(np.float32)}
    want = dict(zip(outs, ort.InferenceSession(path, providers=["CPUExecutionProvider"])
                    .run(None, feeds)))
    int8 = ["x86_64-avx512vnni"] if host_has("avx512_vnni") else []
    for target in TARGETS + int8:
        out = tmp_path / target
        extra = ["--quantize", "int8"] if target in int8 else []
        res = nunc("compile", path, "--target", target, "--explain", *extra, "-o", out)
        pads = [s for s in res.stdout.splitlines() if "nunc.pad" in s]
        assert len(pads) == 4 and not [s for s in pads if '"Pad#0"' in s], res.stdout
        exe, man = harness.build(str(out))
        got, _, log = harness.run(exe, man, feeds, str(tmp_path / f"w_{target}"))
        assert got is not None, log
        for k in outs:
            if extra and k in ("y", "yr"):
                c = got[k].ravel() @ want[k].ravel() / np.linalg.norm(got[k]) / np.linalg.norm(want[k])
                assert c >= 0.999, (k, c)
            else:
                np.testing.assert_allclose(got[k], want[k], rtol=1e-4, atol=1e-5, err_msg=k)


def test_one_dimensional_convolutions_run_on_the_conv_kernels(nunc, tmp_path):
    """A 1-D conv network (a temporal block: conv + BatchNormalization +
    Relu, a dilated conv with a residual Add, MaxPool, ConvTranspose, a
    depthwise conv, AveragePool) runs its convs and pools on the 2-D
    kernels with height 1 (nunc-conv1d-as-2d; a 256-channel conv1d was 40x
    onnxruntime's time on the generic loops), BatchNormalization, Relu and
    the residual fused; against onnxruntime on every target, and
    --quantize int8 on the int8 convolution."""
    import onnx
    from onnx import helper as h, numpy_helper as nh
    r = np.random.default_rng(11)
    c, length = 24, 37

    def w(*shape):
        return (r.standard_normal(shape) * 0.2).astype(np.float32)
    nodes = [h.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1]),
             h.make_node("BatchNormalization", ["c1", "s", "b", "m", "v"], ["n1"]),
             h.make_node("Relu", ["n1"], ["r1"]),
             h.make_node("Conv", ["r1", "w2"], ["c2"], pads=[2, 2], dilations=[2]),
             h.make_node("Add", ["c2", "x"], ["a"]),
             h.make_node("Relu", ["a"], ["r2"]),
             h.make_node("MaxPool", ["r2"], ["p"], kernel_shape=[3], strides=[2], pads=[1, 1]),
             h.make_node("ConvTranspose", ["p", "wt", "bt"], ["t"], strides=[2]),
             h.make_node("Conv", ["t", "wd"], ["d"], group=c, pads=[1, 1], strides=[2]),
             h.make_node("AveragePool", ["d"], ["y"], kernel_shape=[2], strides=[2])]
    inits = {"w1": w(c, c, 3), "b1": w(c), "s": 1 + w(c), "b": w(c), "m": w(c),
             "v": 1 + np.abs(w(c)), "w2": w(c, c, 3), "wt": w(c, c, 2), "bt": w(c),
             "wd": w(c, 1, 3)}
    g = h.make_graph(nodes, "tcn", [h.make_tensor_value_info("x", 1, [2, c, length])],
                     [h.make_tensor_value_info("y", 1, None)],
                     [nh.from_array(v, k) for k, v in inits.items()])
    path = str(tmp_path / "tcn.onnx")
    onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 17)]), path)
    feeds = {"x": r.standard_normal((2, c, length)).astype(np.float32)}
    want = ort.InferenceSession(path, providers=["CPUExecutionProvider"]).run(None, feeds)[0]
    int8 = ["x86_64-avx512vnni"] if host_has("avx512_vnni") else []
    for target in TARGETS + int8:
        out = tmp_path / target
        extra = ["--quantize", "int8"] if target in int8 else []
        res = nunc("compile", path, "--target", target, "--explain", *extra, "-o", out)
        steps = res.stdout.splitlines()
        # (The ConvTranspose's col2im is generic at any rank.)
        assert [s for s in steps if s.startswith("generic")] == \
            [s for s in steps if "nunc.col2im" in s], res.stdout
        assert len([s for s in steps if "Relu" in s and "BatchNormalization" in s]) == 1, \
            res.stdout
        assert len([s for s in steps if "+residual relu" in s]) == 1, res.stdout
        if extra:
            assert len([s for s in steps if "conv.int8.avx512vnni[" in s]) >= 2, res.stdout
        exe, man = harness.build(str(out))
        outs, _, log = harness.run(exe, man, feeds, str(tmp_path / f"w_{target}"))
        assert outs is not None, log
        if extra:
            y = outs["y"].astype(np.float64).ravel()
            assert y @ want.ravel() / np.linalg.norm(y) / np.linalg.norm(want) >= 0.999
        else:
            np.testing.assert_allclose(outs["y"], want, rtol=1e-4, atol=1e-5)


def test_window_strides_past_the_plane_keep_the_arena_small(nunc, tmp_path):
    """A depthwise conv, MaxPool and AveragePool whose H stride (2^31 - 1,
    found by the fuzzer) steps past the plane after one output row, at
    stride 2 in W: their split-row buffers are sized by the rows one block
    reads, not by blocks of rows the plane does not have (the arena was
    3.8 TB, and the library could not be initialized)."""
    import onnx
    from onnx import helper as h, numpy_helper as nh
    r = np.random.default_rng(5)
    c, big = 24, 2**31 - 1
    w = nh.from_array((r.standard_normal((c, 1, 5, 5)) * 0.2).astype(np.float32), "w")
    b = nh.from_array(r.standard_normal(c).astype(np.float32), "b")
    nodes = [h.make_node("Conv", ["x", "w", "b"], ["d"], group=c, pads=[2, 2, 2, 2],
                         strides=[big, 2]),
             h.make_node("MaxPool", ["x"], ["m"], kernel_shape=[3, 3], pads=[1, 1, 1, 1],
                         strides=[big, 2]),
             h.make_node("AveragePool", ["x"], ["a"], kernel_shape=[3, 3], pads=[1, 1, 1, 1],
                         strides=[big, 2], count_include_pad=1)]
    g = h.make_graph(nodes, "strides", [h.make_tensor_value_info("x", 1, [1, c, 19, 23])],
                     [h.make_tensor_value_info(n, 1, None) for n in "dma"], [w, b])
    path = str(tmp_path / "strides.onnx")
    onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 17)]), path)
    feeds = {"x": r.standard_normal((1, c, 19, 23)).astype(np.float32)}
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    want = dict(zip("dma", sess.run(None, feeds)))
    assert want["d"].shape == (1, c, 1, 12)
    for target in TARGETS:
        out = tmp_path / target
        res = nunc("compile", path, "--target", target, "--explain", "-o", out)
        assert not [s for s in res.stdout.splitlines() if s.startswith("generic")], res.stdout
        exe, man = harness.build(str(out))
        assert man["arena_bytes"] < 1 << 20, man["arena_bytes"]
        outs, _, log = harness.run(exe, man, feeds, str(tmp_path / f"w_{target}"))
        assert outs is not None, log
        for n in "dma":
            np.testing.assert_allclose(outs[n], want[n], rtol=1e-4, atol=1e-5)


@pytest.mark.skipif("x86_64-avx512" not in TARGETS, reason="the host lacks AVX-512")
def test_conv_reading_its_input_keeps_it_until_done(nunc, tmp_path):
    """Relu(Conv1x1(x) + x) and the same with Conv3x3: the 1x1 conv's GEMM
    tasks copy their panels straight from x while other tasks already
    store results (the plan never writes over an operand that is also the
    residual); the padded 3x3 conv copies x first. Both against onnxruntime on 1 and 2 threads, with a
    last panel of 1 or 4 columns (49, 100 positions: row chunks sharing a
    packed im2col, the columns as dot products) or of 25 (121 positions).
    The 3x3 convs over 10x10 and 11x11 also as Winograd (the default there;
    these GEMM forms with --winograd=false), x as its residual too."""
    import onnx
    from onnx import helper as h, numpy_helper as nh
    r = np.random.default_rng(9)
    # 24 channels: three 8-row tiles the small planes split into chunks; 20
    # (not whole tiles): no chunks.
    for kernel, size, c in ((1, 7, 24), (1, 10, 24), (1, 11, 20), (3, 7, 24), (3, 10, 24),
                            (3, 11, 20)):
        w = (r.standard_normal((c, c, kernel, kernel)) * 0.2).astype(np.float32)
        b = (r.standard_normal(c) * 0.1).astype(np.float32)
        nodes = [h.make_node("Conv", ["x", "w", "b"], ["c"], pads=[kernel // 2] * 4),
                 h.make_node("Add", ["c", "x"], ["s"]), h.make_node("Relu", ["s"], ["y"])]
        g = h.make_graph(nodes, "res", [h.make_tensor_value_info("x", 1, [1, c, size, size])],
                         [h.make_tensor_value_info("y", 1, [1, c, size, size])],
                         [nh.from_array(w, "w"), nh.from_array(b, "b")])
        path = str(tmp_path / f"res{kernel}_{size}.onnx")
        onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 17)]), path)
        feeds = {"x": r.standard_normal((1, c, size, size)).astype(np.float32)}
        want = ort.InferenceSession(path, providers=["CPUExecutionProvider"]).run(None, feeds)[0]
        winograd = kernel == 3 and size > 7
        for flag in ("--winograd=false", "--winograd=true") if winograd else ("--winograd=false",):
            out = tmp_path / f"out{kernel}_{size}{flag[-4:]}"
            res = nunc("compile", path, "--target", "x86_64-avx512", "--explain", flag, "-o", out)
            conv = [line for line in res.stdout.splitlines() if "nunc.fused_conv" in line]
            assert len(conv) == 1 and "+residual relu" in conv[0], res.stdout
            # 11x11 (20 channels): panels from x itself (1x1) or from its
            # padded copy (3x3); 7x7 and 10x10: row chunks sharing one im2col
            # pass.
            if flag == "--winograd=true":
                assert "conv.winograd.avx512[" in conv[0], conv[0]
            elif size == 11:
                assert "conv.panel-im2col+gemm" in conv[0], conv[0]
                assert ("panels from the input" in conv[0]) == (kernel == 1), conv[0]
            else:
                assert "conv.im2col+gemm" in conv[0] and "row chunks" in conv[0], conv[0]
            conv_output_matches(out, feeds, want, tmp_path)


def test_generic_kernels_bake_their_own_indices(nunc, tmp_path):
    """Two Slices of one tensor with the same types but different starts
    (the halves of a [2, 4] input), and two ReduceSums with the same types
    but different axes (a [3, 3] input, keepdims 0), on the generic path
    for every target: each gets code for its own indices, not the first
    one's (the kernels bake them in, so they are part of what makes two
    kernels the same)."""
    import onnx
    from onnx import helper as h, numpy_helper as nh
    ints = lambda name, v: nh.from_array(np.array(v, np.int64), name)
    nodes = [h.make_node("Slice", ["x", "s0", "s2", "a1"], ["lo"]),
             h.make_node("Slice", ["x", "s2", "s4", "a1"], ["hi"]),
             h.make_node("ReduceSum", ["m", "a0"], ["rows"], keepdims=0),
             h.make_node("ReduceSum", ["m", "a1"], ["cols"], keepdims=0)]
    g = h.make_graph(nodes, "idx", [h.make_tensor_value_info("x", 1, [2, 4]),
                                    h.make_tensor_value_info("m", 1, [3, 3])],
                     [h.make_tensor_value_info(n, 1, None) for n in ("lo", "hi", "rows", "cols")],
                     [ints("s0", [0]), ints("s2", [2]), ints("s4", [4]), ints("a0", [0]),
                      ints("a1", [1])])
    path = str(tmp_path / "idx.onnx")
    onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 17)]), path)
    r = np.random.default_rng(4)
    feeds = {"x": r.standard_normal((2, 4)).astype(np.float32),
             "m": r.standard_normal((3, 3)).astype(np.float32)}
    session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    want = dict(zip([o.name for o in session.get_outputs()], session.run(None, feeds)))
    for target in TARGETS:
        out = tmp_path / target
        nunc("compile", path, "--target", target, "-o", out)
        exe, man = harness.build(str(out))
        outs, _, log = harness.run(exe, man, feeds, str(out / "w"))
        assert outs is not None, log
        for name, ref in want.items():
            np.testing.assert_allclose(outs[name], ref, rtol=1e-6, atol=1e-6, err_msg=name)


def test_range_of_the_pinned_sequence_length_folds(nunc, tmp_path):
    """Position ids as exports with dynamic axes write them, Range(0,
    Shape(ids)[1], 1) into a Gather: with the dims pinned the Range folds to
    a constant (no kernel of its own) and the library matches onnxruntime."""
    import onnx
    from onnx import helper as h, numpy_helper as nh
    table = np.random.default_rng(0).standard_normal((16, 4)).astype(np.float32)
    nodes = [h.make_node("Shape", ["ids"], ["shape"]),
             h.make_node("Gather", ["shape", "one"], ["seq"], axis=0),
             h.make_node("Range", ["zero", "seq", "one"], ["positions"]),
             h.make_node("Gather", ["table", "positions"], ["pe"], axis=0),
             h.make_node("Gather", ["table", "ids"], ["we"], axis=0),
             h.make_node("Add", ["we", "pe"], ["y"])]
    g = h.make_graph(nodes, "range", [h.make_tensor_value_info("ids", 7, ["b", "s"])],
                     [h.make_tensor_value_info("y", 1, None)],
                     [nh.from_array(table, "table"), nh.from_array(np.array(0, np.int64), "zero"),
                      nh.from_array(np.array(1, np.int64), "one")])
    path = str(tmp_path / "range.onnx")
    onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 17)]), path)
    out = tmp_path / "out"
    nunc("compile", path, "--target", TARGETS[0], "--shape", "b=2", "--shape", "s=5", "-o", out)
    ops = [k["op"] for k in json.loads((out / "range.json").read_text())["kernels"]]
    assert "nunc.range" not in ops, ops
    feeds = {"ids": np.random.default_rng(1).integers(0, 16, (2, 5)).astype(np.int64)}
    exe, man = harness.build(str(out))
    outs, _, log = harness.run(exe, man, feeds, str(out / "w"))
    assert outs is not None, log
    want = ort.InferenceSession(path, providers=["CPUExecutionProvider"]).run(None, feeds)[0]
    np.testing.assert_array_equal(outs["y"], want)


# op: (its inputs, outputs and attributes; the graph inputs as (name, ONNX
# type, dims); what the error must say). "pads" comes from a Concat node.
RUN_TIME_SIZES = {
    "Range": (["s", "l", "d"], ["y"], {}, [(n, 1, []) for n in "sld"],
              "Range's length follows from its start, limit and delta"),
    "Split": (["x", "sizes"], ["a", "b"], {"axis": 1}, [("x", 1, [2, 6]), ("sizes", 7, [2])],
              "a Split's sizes, are run-time values"),
    "ReduceSum": (["x", "axes"], ["y"], {"keepdims": 0}, [("x", 1, [2, 3, 4]), ("axes", 7, [1])],
                  "its shape follows from the values of graph input 'axes', which are known "
                  "only"),
    "Pad": (["x", "pads"], ["y"], {}, [("x", 1, [2, 3]), ("p", 7, [2])],
            'its shape follows from the values of the output of node "concat"'),
    "Expand": (["x", "shape"], ["y"], {}, [("x", 1, [3, 1]), ("shape", 7, [2])],
               "the values of graph input 'shape'"),
}


@pytest.mark.parametrize("op", list(RUN_TIME_SIZES))
def test_sizes_from_run_time_values_are_a_located_error(nunc, tmp_path, op):
    """A Range of run-time floats, a Split by run-time sizes, a reduction
    over run-time axes, a Pad by computed pads or an Expand to a run-time
    shape has shapes only its inputs' values decide: the compile error names
    the node and says which values must be constants (nunc compiles static
    shapes)."""
    import onnx
    from onnx import helper as h
    ins, outputs, attrs, graph_inputs, why = RUN_TIME_SIZES[op]
    nodes = [h.make_node("Concat", ["p", "p"], ["pads"], name="concat", axis=0)] \
        if "pads" in ins else []
    nodes.append(h.make_node(op, ins, outputs, name="node", **attrs))
    inputs = [h.make_tensor_value_info(n, t, dims) for n, t, dims in graph_inputs]
    g = h.make_graph(nodes, "sizes", inputs,
                     [h.make_tensor_value_info(o, 1, None) for o in outputs])
    path = str(tmp_path / "sizes.onnx")
    onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 17)]), path)
    r = nunc("compile", path, "--target", TARGETS[0], "-o", tmp_path / "out", check=False)
    assert r.returncode == 1, r.stderr
    assert f'node "node" ({op}, opset 17): error: cannot compile a tensor' in r.stderr, r.stderr
    assert why in r.stderr, r.stderr
