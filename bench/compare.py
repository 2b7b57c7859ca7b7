#!/usr/bin/env python3
"""nunc against nunc: one model compiled two ways, timed in alternation.

A kernel that is faster on its own (nunc-bench-gemm and friends run it
over and over with its operands warm) need not make a model faster: in a
model its weights come from memory and the layers around it take the
caches. This compiles one model with two nunc builds (--a, --b build
directories) or with two sets of `nunc compile` flags (--a-flags,
--b-flags), checks that both libraries give the same outputs (within
--tolerance of their scale), and runs them in `--rounds` rounds of `--runs`
inferences each, A then B, then B then A, so that the slow drifts of a
shared machine hit both alike. It prints each side's median, p10 and p90
over all runs, and the ratio B / A of each round's medians: their median,
their range, and in how many rounds B was faster.

Usage:
  python3 bench/compare.py resnet --a build-main --b build [--rounds 20]
  python3 bench/compare.py minilm --quantize int8 --tolerance 1 \
      --b-flags="--activations static --calibration calib/"   (flags after =;
      --tolerance 1: outputs that differ by design are not compared)
  python3 bench/compare.py path/to/model.onnx --shape x=1x64 ...
  ... [--threads 1] [--batch 1] [--seq 128] [--target native] [--runs 25]
  ... [--onnxruntime [--onnxruntime-model ORT.onnx]]   (onnxruntime in each
      round too, on the model file or the one given)
"""
import argparse
import os
import shlex
import subprocess
import sys
import tempfile
import time

import numpy as np


def _load_profile():
    # By path: `import profile` could be the standard library's module.
    import importlib.util
    spec = importlib.util.spec_from_file_location(
        "nunc_bench_profile", os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                           "profile.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_profile = _load_profile()
ROOT, harness = _profile.ROOT, _profile.harness
manifest_feeds, prepared_model = _profile.manifest_feeds, _profile.prepared_model


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    _profile.add_model_arguments(p)
    p.add_argument("--a", default=os.path.join(ROOT, "build"), help="build directory of A")
    p.add_argument("--b", default=None, help="build directory of B (default: A's)")
    p.add_argument("--a-flags", default="", help="extra `nunc compile` flags for A")
    p.add_argument("--b-flags", default="", help="extra `nunc compile` flags for B")
    p.add_argument("--rounds", type=int, default=20)
    p.add_argument("--runs", type=int, default=25, help="inferences per side and round")
    p.add_argument("--tolerance", type=float, default=1e-4,
                   help="largest |A - B| over the outputs' largest |A|")
    p.add_argument("--onnxruntime", action="store_true",
                   help="also time onnxruntime on the model file in each round (as given: "
                        "with --quantize, the f32 model) and print A and B over it")
    p.add_argument("--onnxruntime-model", default=None,
                   help="with --onnxruntime: the model onnxruntime runs instead (its int8 "
                        "model, e.g. build/bench/minilm_ort_int8.onnx from bench/run.py); "
                        "the same inputs")
    args = p.parse_args()
    b_build = args.b or args.a
    if b_build == args.a and args.a_flags == args.b_flags:
        sys.exit("A and B are the same: give --b or different --a-flags / --b-flags")
    with tempfile.TemporaryDirectory(prefix="nunc-compare-") as work:
        path, pins, feeds = prepared_model(args.model, work, args.batch, args.seq, args.shape)
        target = args.target or ("x86_64-avx512vnni" if args.quantize else "native")
        quant = ["--quantize", args.quantize] if args.quantize else []
        sides = {}
        for side, build, flags in (("A", args.a, args.a_flags), ("B", b_build, args.b_flags)):
            out = os.path.join(work, side)
            cmd = [os.path.join(build, "bin", "nunc"), "compile", path, "--target", target,
                   *pins, *quant, *shlex.split(flags), "-o", out]
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode != 0:
                sys.exit(f"{side}: {' '.join(cmd)}\n{r.stderr}")
            sides[side] = harness.build(out)
        if feeds is None:
            feeds = manifest_feeds(sides["A"][1])
        # As bench/run.py runs it: a batch split into items runs k at once.
        slots = {s: args.threads if m.get("batch_split", 1) > 1 else 1
                 for s, (_, m) in sides.items()}
        outs = {}
        for side, (exe, manifest) in sides.items():
            o, _, log = harness.run(exe, manifest, feeds, os.path.join(work, f"run{side}"),
                                    threads=args.threads, slots=slots[side])
            if o is None:
                sys.exit(f"{side} failed: {log}")
            outs[side] = o
        for name, a in outs["A"].items():
            a = a.astype(np.float64)
            diff = np.abs(outs["B"][name].astype(np.float64) - a).max()
            scale = max(np.abs(a).max(), 1e-30)
            if diff > args.tolerance * scale:
                sys.exit(f"output {name}: A and B differ by {diff:.3g} (scale {scale:.3g})")
        times = {"A": [], "B": []}
        sess = None
        if args.onnxruntime:
            import onnxruntime as ort
            so = ort.SessionOptions()
            so.intra_op_num_threads = args.threads
            so.inter_op_num_threads = 1
            sess = ort.InferenceSession(args.onnxruntime_model or path, so,
                                        providers=["CPUExecutionProvider"])
            times["onnxruntime"] = []
        ratios = []
        for r in range(args.rounds):
            if sess is not None:
                for _ in range(2):  # warm-up, as the sides' first two runs
                    sess.run(None, feeds)
                for _ in range(args.runs):
                    t0 = time.perf_counter()
                    sess.run(None, feeds)
                    times["onnxruntime"].append((time.perf_counter() - t0) * 1e3)
            order = ("A", "B") if r % 2 == 0 else ("B", "A")
            medians = {}
            for side in order:
                exe, manifest = sides[side]
                _, t, log = harness.run(exe, manifest, feeds, os.path.join(work, f"run{side}"),
                                        threads=args.threads, repeat=args.runs + 2,
                                        slots=slots[side])
                if t is None:
                    sys.exit(f"{side} failed: {log}")
                t = t[2:] * 1e3  # ms, without the first two (warm-up)
                times[side] += list(t)
                medians[side] = np.median(t)
            ratios.append(medians["B"] / medians["A"])
        print(f"{os.path.basename(path)} {target} {' '.join(pins + quant)}, "
              f"{args.threads} thread(s), {args.rounds} rounds x {args.runs} runs")
        for side, build, flags in (("A", args.a, args.a_flags), ("B", b_build, args.b_flags)):
            t = np.array(times[side])
            print(f"  {side} ({build}{' ' + flags if flags else ''}): median {np.median(t):.3f} ms,"
                  f" p10 {np.percentile(t, 10):.3f}, p90 {np.percentile(t, 90):.3f}")
        ratios = np.array(ratios)
        print(f"  B / A per round: median {np.median(ratios):.3f} "
              f"(min {ratios.min():.3f}, max {ratios.max():.3f}); "
              f"B faster in {int((ratios < 1).sum())} of {len(ratios)} rounds")
        if sess is not None:
            t = np.array(times["onnxruntime"])
            o = np.median(t)
            print(f"  onnxruntime: median {o:.3f} ms, p10 {np.percentile(t, 10):.3f}, "
                  f"p90 {np.percentile(t, 90):.3f}; A / onnxruntime "
                  f"{np.median(times['A']) / o:.3f}, B / onnxruntime "
                  f"{np.median(times['B']) / o:.3f}")


if __name__ == "__main__":
    main()
