"""A fixed batch of the mutation fuzzer (test/fuzz/fuzz_models.py): ONNX's
backend node test models, and the multi-node seeds of test/fuzz/make_seeds.py
(encoders and their onnxruntime-quantized forms, attention ops, a decoder,
small CNNs), broken at the protobuf level, each run compiled and through
the reference evaluator. Every mutant must end in outputs that agree
or a clear error; a crash, a hang, an exit without a message, a compiled
refusal of a model the evaluator runs (shapes from run-time values aside)
or a compiled result the evaluator does not give fails. Every 4th mutant
(by index), where it runs, is also compiled as a library, linked into a C
program and run (see the batches below); the multi-node mutants also run
on two threads, whose outputs must be one thread's bits; a batch of
multi-node mutants compiles with static int8 activations, calibrated on
its inputs, and runs the library against the evaluator on the module
compile lowered; another also checks what onnxruntime's quantizers make of
each mutant that passes (QDQ, QOperator, dynamic). Deterministic (fixed seeds); run the script with other
seeds and more iterations to search further."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
FUZZER = os.path.join(ROOT, "test", "fuzz", "fuzz_models.py")
MAKE_SEEDS = os.path.join(ROOT, "test", "fuzz", "make_seeds.py")


def node_tests_dir():
    """The node test data that test/conformance writes into the build tree."""
    bin_dir = os.environ.get("NUNC_BIN_DIR", os.path.join(ROOT, "build", "bin"))
    d = os.path.join(os.path.dirname(bin_dir), "test", "conformance", "node")
    assert os.path.isdir(d), f"no node test data in {d} (the build's nunc-node-test-data writes it)"
    return d


@pytest.fixture(scope="module")
def multi_node_seeds(tmp_path_factory):
    d = tmp_path_factory.mktemp("seeds")
    r = subprocess.run([sys.executable, MAKE_SEEDS, "--out", str(d)], capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    return str(d)


# Every 4th mutant (every one with int8-static) also runs as a library
# compiled for `link`: this machine (bit for bit nunc run's), with the batch
# split as compile does by default, or for the AVX2 target's own kernels
# (against the evaluator on the module compile lowered).
@pytest.mark.parametrize("seeds,mode,seed,iterations,link", [
    ("node", "f32", 11, 1200, "native"), ("node", "int8", 12, 400, "native"),
    ("multi-node", "f32", 13, 600, "native+split"),
    ("multi-node", "int8", 14, 300, "x86_64-avx2"),
    ("multi-node", "int8-static", 15, 400, "native"),
    ("multi-node", "ort-quantize", 16, 150, "native")])
def test_mutated_models_end_cleanly(nunc, tmp_path, request, seeds, mode, seed, iterations,
                                    link):
    exe = os.path.join(os.environ.get("NUNC_BIN_DIR", os.path.join(ROOT, "build", "bin")),
                       "nunc")
    seed_dir = (node_tests_dir() if seeds == "node"
                else request.getfixturevalue("multi_node_seeds"))
    cmd = [sys.executable, FUZZER, "--nunc", exe, "--seeds", seed_dir,
           "--iterations", str(iterations), "--seed", str(seed), "--timeout", "60",
           "--out", str(tmp_path / "defects")]
    if mode == "ort-quantize":
        cmd.append("--ort-quantize")
    elif mode != "f32":
        cmd.append(f"--quantize={mode}")
    cmd.append(f"--link-target={link}")
    if mode != "int8-static":  # (which links every mutant)
        cmd.append("--link-every=4")
    if seeds == "multi-node":  # (their GEMMs, attention and convs split into tasks)
        cmd.append("--threads=2")
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=1500)
    assert r.returncode == 0, (
        f"{r.stdout[-6000:]}\n{r.stderr[-3000:]}\n(mutants and transcripts in "
        f"{tmp_path / 'defects'}; rerun one with {FUZZER} --replay DIR)")
    assert f"{iterations} mutants, 0 defects" in r.stdout, r.stdout[-2000:]
    if mode == "ort-quantize":  # (a quantizer that refused them all would check nothing)
        checked = int(r.stdout.rsplit("(", 1)[1].split()[0])
        assert checked >= iterations // 5, r.stdout[-2000:]
