#!/usr/bin/env python3
"""nunc vs onnxruntime on the example models (MiniLM, BERT-base, ResNet, MobileNet).

One run of this script measures both engines on the same machine, same
thread counts, alternating them in --blocks blocks of runs (default 4), and
writes bench/RESULTS.md:
  latency p50/p90/p99 (ms) and throughput at batch 1 (seq 128 and 32) and
  batch 4 (seq 128) for the encoders, batch 1 and 4 of 224x224 images for the
  CNNs, 1 and 2 threads; cold start (process start to first
  output for nunc's C program, session creation to first output for
  onnxruntime); peak RSS; library size; compile time; the GEMM kernel's
  GFLOP/s on the models' GEMM shapes against this machine's measured FMA
  peak, and the window kernels' (depthwise, pool) on the CNNs' shapes; the
  cross-core round trip around every 2-thread row (nunc-bench-crosscore),
  and 2 threads sharing one core against 1 thread. Int8 rows: `nunc compile --quantize int8` against onnxruntime's
  `quantize_dynamic` model (CNNs: its `quantize_static` model of the
  `quant_pre_process` output); qdq rows: onnxruntime's `quantize_static`
  (QDQ) model (CNNs pre-processed), compiled by nunc and run by
  onnxruntime; int8-static rows (b1; the encoders at s128): `nunc compile
  --quantize int8 --activations static` calibrated on 8 random inputs,
  against onnxruntime's `quantize_dynamic` model (CNNs: its
  `quantize_static` model, as in their int8 rows); dyn and dyn-u8 rows (not
  in the default set): onnxruntime's `quantize_dynamic` model (QInt8 /
  QUInt8 weights) on both engines; qdq-s8 rows (not in the default set):
  its `quantize_static` QDQ model with its default s8 activations on both
  engines. Ratios nunc/ORT are the result;
  absolute times hold for this machine.

Usage: python3 bench/run.py [--build build] [--runs 200] [--models minilm,bert,resnet,mobilenet]
"""
import argparse
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(ROOT, "examples", "models"))
sys.path.insert(0, os.path.join(ROOT, "test", "e2e"))
import harness  # noqa: E402
from make_models import random_inputs  # noqa: E402

# (batch, seq) per model; CNNs take 224x224 images, seq is None.
CONFIGS = {"minilm": [(1, 128), (1, 32), (4, 128)], "bert": [(1, 128), (1, 32), (4, 128)],
           "resnet": [(1, None), (4, None)], "mobilenet": [(1, None), (4, None)],
           "resnext": [(1, None), (4, None)]}
INPUTS = ("input_ids", "attention_mask", "token_type_ids")
HIDDEN = {"minilm": (384, 1536, 6), "bert": (768, 3072, 12)}
# (heads, head dim) for nunc-bench-attention.
HEADS = {"minilm": (12, 32), "bert": (12, 64)}
# The CNNs' window-kernel shapes (C, H, W, kernel, stride, pad) for
# nunc-bench-window: MobileNet's 3x3 depthwise convs, ResNet's max pool.
WINDOWS = {"mobilenet": ("depthwise", [(32, 112, 112, 3, 1, 1), (96, 112, 112, 3, 2, 1),
                                       (144, 56, 56, 3, 1, 1), (144, 56, 56, 3, 2, 1),
                                       (192, 28, 28, 3, 1, 1), (192, 28, 28, 3, 2, 1),
                                       (384, 14, 14, 3, 2, 1), (960, 7, 7, 3, 1, 1)]),
           "resnet": ("max", [(64, 112, 112, 3, 2, 1)])}


def shape_pins(name, batch, seq):
    if seq is None:
        return ["--shape", f"input={batch}x3x224x224"]
    return ["--shape", f"batch={batch}", "--shape", f"sequence={seq}"]


def config_label(batch, seq):
    return f"{batch}x{seq}" if seq is not None else f"{batch}x3x224x224"


def stats(times):
    t = np.array(times) * 1e3
    return {"p50": float(np.percentile(t, 50)), "p90": float(np.percentile(t, 90)),
            "p99": float(np.percentile(t, 99)), "min": float(t.min()), "max": float(t.max()),
            "n": len(t)}


ORT_SCRIPT = r"""
import json, sys, time
import numpy as np
path, feeds_path, threads, runs, warmup = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
feeds = dict(np.load(feeds_path))
import onnxruntime as ort
t0 = time.perf_counter()
so = ort.SessionOptions()
so.intra_op_num_threads = threads
so.inter_op_num_threads = 1
so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
sess = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
sess.run(None, feeds)
cold = time.perf_counter() - t0
for _ in range(warmup):
    sess.run(None, feeds)
times = []
for _ in range(runs):
    a = time.perf_counter(); sess.run(None, feeds); times.append(time.perf_counter() - a)
# VmHWM, not ru_maxrss: Linux carries ru_maxrss across exec, so a child of a
# large benchmark process would report the parent's peak.
hwm = [l for l in open("/proc/self/status") if l.startswith("VmHWM:")][0]
print(json.dumps({"cold": cold, "times": times, "rss_kb": int(hwm.split()[1])}))
"""


def run_ort(model, feeds_path, threads, runs, warmup):
    r = subprocess.run([sys.executable, "-c", ORT_SCRIPT, model, feeds_path, str(threads),
                        str(runs), str(warmup)], capture_output=True, text=True, check=True)
    return json.loads(r.stdout)


def one_core():
    """Pins a child to one CPU: two threads then share one core (another
    process or the hypervisor taking the other core)."""
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})


def oversubscribed(exe, work, ort_path, feeds_path, runs, warmup):
    """p50 of nunc and onnxruntime with 2 threads pinned to one core (ms)."""
    subprocess.run([exe, work, "2", str(runs + warmup)], check=True, capture_output=True,
                   preexec_fn=one_core)
    nunc_times = np.fromfile(os.path.join(work, "times.bin"), dtype=np.float64)[warmup:]
    r = subprocess.run([sys.executable, "-c", ORT_SCRIPT, ort_path, feeds_path, "2", str(runs),
                        str(warmup)], capture_output=True, text=True, check=True,
                       preexec_fn=one_core)
    return stats(nunc_times)["p50"], stats(json.loads(r.stdout)["times"])["p50"]


def crosscore(build):
    """Cross-core cache-line round trip (ns) now: ~60 when this VM's two
    vCPUs sit close, ~330 when the host has moved them apart."""
    r = subprocess.run([os.path.join(build, "bin", "nunc-bench-crosscore")],
                       capture_output=True, text=True, check=True)
    return float(r.stdout.split()[1])


def run_nunc(exe, manifest, feeds, work, threads, runs):
    """Runs the C driver; returns (times, peak rss kb, wall of a cold process)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    # A batch split into items gets a workspace slot per thread, as the
    # header says for batch throughput: each thread runs its own items.
    slots = threads if manifest.get("batch_split", 1) > 1 else 1
    outs, times, log = harness.run(exe, manifest, feeds, work, threads=threads, repeat=runs,
                                   slots=slots)
    if outs is None:
        raise RuntimeError(log)
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return list(times), max(rss, before)


def stale(derived, source):
    """Whether a model made from `source` must be made again: the example
    models are written anew every run."""
    return not os.path.exists(derived) or os.path.getmtime(derived) < os.path.getmtime(source)


def cosine(a, b):
    a, b = np.asarray(a, np.float64).ravel(), np.asarray(b, np.float64).ravel()
    return float(a @ b / np.linalg.norm(a) / np.linalg.norm(b))


def int8_accuracy(exe, manifest, feeds, work, fp32_model, ort_int8_model):
    """Output cosine similarity against onnxruntime fp32: nunc's int8 library,
    and onnxruntime's own int8 model for comparison."""
    import onnxruntime as ort
    outs, _, log = harness.run(exe, manifest, feeds, work)
    if outs is None:
        raise RuntimeError(log)
    ref = ort.InferenceSession(fp32_model, providers=["CPUExecutionProvider"]).run(None, feeds)
    q = ort.InferenceSession(ort_int8_model, providers=["CPUExecutionProvider"]).run(None, feeds)
    first = next(iter(outs))
    return cosine(outs[first], ref[0]), cosine(q[0], ref[0])


def cold_start_nunc(exe, manifest, feeds, work, threads):
    """Exec to first output of a process that runs the model once."""
    harness.run(exe, manifest, feeds, work, threads=threads, repeat=1)  # write inputs
    best = []
    for _ in range(5):
        t0 = time.perf_counter()
        subprocess.run([exe, work, str(threads), "1"], check=True, capture_output=True)
        best.append(time.perf_counter() - t0)
    return float(np.median(best))


def child_rss(cmd):
    r = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, capture_output=True, text=True)
    return int(r.stderr.strip().splitlines()[-1])


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--runs", type=int, default=200)
    p.add_argument("--warmup", type=int, default=10)
    p.add_argument("--blocks", type=int, default=4,
                   help="alternations of onnxruntime and nunc the runs are split into")
    p.add_argument("--models", default="minilm,bert,resnet,mobilenet")
    p.add_argument("--threads", default="1,2")
    p.add_argument("--target", default="native",
                   help="nunc's target (int8 rows: x86_64-avx512vnni unless named)")
    p.add_argument("--out", default=os.path.join(ROOT, "bench", "RESULTS.md"))
    p.add_argument("--no-int8", action="store_true",
                   help="skip the int8 and qdq rows")
    p.add_argument("--modes", default="fp32,int8,int8-static,qdq",
                   help="which rows to measure: fp32, int8 (nunc PTQ vs ORT quantize_dynamic), "
                        "int8-static (nunc PTQ with static calibrated activations vs ORT "
                        "quantize_dynamic; CNNs: quantize_static), "
                        "qdq (ORT quantize_static model on both "
                        "engines), qop (the same in QOperator format: QLinearConv, "
                        "QLinearMatMul and the com.microsoft QLinear ops; not in the default "
                        "set), dyn / dyn-u8 (ORT quantize_dynamic model with QInt8 / QUInt8 "
                        "weights on both engines; not in the default set), qdq-a16 (ORT "
                        "quantize_static QDQ model with u16 activations and s8 weights on both "
                        "engines; encoders; not in the default set), qdq-s8 (ORT quantize_static "
                        "QDQ model with its default s8 activations on both engines; not in the "
                        "default set)")
    args = p.parse_args()
    nunc = os.path.join(args.build, "bin", "nunc")
    work = os.path.join(args.build, "bench")
    os.makedirs(work, exist_ok=True)
    models = args.models.split(",")
    threads_list = [int(t) for t in args.threads.split(",")]
    subprocess.run([sys.executable, os.path.join(ROOT, "examples", "models", "make_models.py"),
                    "--out", work, "--models", ",".join(models)], check=True,
                   stdout=subprocess.DEVNULL)

    peak = dict(line.split() for line in subprocess.run(
        [os.path.join(args.build, "bin", "nunc-bench-peak")], capture_output=True, text=True,
        check=True).stdout.splitlines())
    vnni = "vnni" in peak and not args.no_int8
    rows, extra, windows, crowded, attention = [], [], [], [], []
    # mode: "" (fp32), "int8" (nunc PTQ vs ORT quantize_dynamic), "qdq" (ORT's
    # quantize_static QDQ model on both engines, batch 1 seq 128 only).
    modes = args.modes.split(",")
    jobs = [(name, "") for name in models] if "fp32" in modes else []
    if vnni:
        from onnxruntime.quantization import (QuantFormat, QuantType, quantize_dynamic,
                                              quantize_static)
        from onnxruntime.quantization.shape_inference import quant_pre_process
        jobs += [(name, "int8") for name in models if "int8" in modes]
        jobs += [(name, "int8-static") for name in models if "int8-static" in modes]
        jobs += [(name, fmt) for fmt in ("qdq", "qdq-s8", "qop", "dyn", "dyn-u8")
                 for name in models
                 if fmt in modes]
        jobs += [(name, "qdq-a16") for name in models if "qdq-a16" in modes and name in HIDDEN]

    class Samples:
        def __init__(self, feeds):
            self.feeds = list(feeds)

        def get_next(self):
            return self.feeds.pop() if self.feeds else None

    for name, mode in jobs:
        int8 = mode != ""
        path = os.path.join(work, f"{name}.onnx")
        ort_path = path
        cnn = name not in HIDDEN
        if mode in ("int8", "int8-static") and not cnn:
            ort_path = os.path.join(work, f"{name}_ort_int8.onnx")
            if stale(ort_path, path):
                quantize_dynamic(path, ort_path, weight_type=QuantType.QInt8)
        if mode in ("dyn", "dyn-u8"):
            weight = QuantType.QUInt8 if mode == "dyn-u8" else QuantType.QInt8
            ort_path = os.path.join(work, f"{name}_ort_{mode.replace('-', '_')}.onnx")
            if stale(ort_path, path):
                quantize_dynamic(path, ort_path, weight_type=weight)
        if mode == "qdq-a16":
            ort_path = os.path.join(work, f"{name}_ort_qdq_a16.onnx")
            if stale(ort_path, path):
                quantize_static(path, ort_path,
                                Samples(random_inputs(name, 1, 128, 100 + i) for i in range(8)),
                                quant_format=QuantFormat.QDQ, activation_type=QuantType.QUInt16,
                                weight_type=QuantType.QInt8,
                                extra_options={"UseQDQContribOps": True})
        if mode in ("qdq", "qdq-s8", "qop") or (mode in ("int8", "int8-static") and cnn):
            # onnxruntime's int8 CNN is its static QDQ model (quantize_dynamic
            # leaves convolutions to ConvInteger, far slower), made as its
            # documentation says: quant_pre_process first (folds each
            # BatchNormalization into its conv), which makes onnxruntime's
            # own int8 CNN about twice as fast as quantizing the export.
            fmt = mode if mode in ("qop", "qdq-s8") else "qdq"
            ort_path = os.path.join(work, f"{name}_ort_{fmt.replace('-', '_')}.onnx")
            source_model = path
            if cnn:
                source_model = os.path.join(work, f"{name}_pre.onnx")
                ort_path = os.path.join(work, f"{name}_ort_{fmt.replace('-', '_')}_pre.onnx")
                if stale(source_model, path):
                    quant_pre_process(path, source_model)
            if stale(ort_path, source_model):
                quantize_static(source_model, ort_path,
                                Samples(random_inputs(name, 1, 128, 100 + i) for i in range(8)),
                                quant_format=QuantFormat.QOperator if fmt == "qop"
                                else QuantFormat.QDQ,
                                activation_type=QuantType.QInt8 if fmt == "qdq-s8"
                                else QuantType.QUInt8,
                                weight_type=QuantType.QInt8, per_channel=cnn)
        configs = (CONFIGS[name] if mode in ("", "int8")
                   else [(1, None if cnn else 128)])
        for batch, seq in configs:
            out = os.path.join(work, f"{name}{'_' + mode if mode else ''}_b{batch}_s{seq}")
            shutil.rmtree(out, ignore_errors=True)  # a library of another name would stay
            pins = shape_pins(name, batch, seq)
            quant = ["--quantize", "int8"] if mode.startswith("int8") else []
            if mode == "int8-static":
                calib = os.path.join(work, f"{name}_calib_b{batch}_s{seq}")
                os.makedirs(calib, exist_ok=True)
                for i in range(8):
                    np.savez(os.path.join(calib, f"{i}.npz"),
                             **random_inputs(name, batch, seq, 100 + i))
                quant += ["--activations", "static", "--calibration", calib]
            # int8 rows: the AVX-512 VNNI target unless one is named.
            target = "x86_64-avx512vnni" if int8 and args.target == "native" else args.target
            source = (ort_path if mode in ("qdq", "qdq-s8", "qop", "dyn", "dyn-u8", "qdq-a16")
                      else path)
            lib_name = os.path.splitext(os.path.basename(source))[0]
            t0 = time.perf_counter()
            r = subprocess.run([nunc, "compile", source, "--target", target, *pins, *quant,
                                "-o", out], capture_output=True, text=True, check=True)
            compile_s = time.perf_counter() - t0
            exe, manifest = harness.build(out)
            lib = os.path.join(out, f"lib{lib_name}.a")
            feeds = random_inputs(name, batch, seq, 0)
            feeds_path = os.path.join(out, "feeds.npz")
            np.savez(feeds_path, **feeds)
            for threads in threads_list:
                # Alternate ORT and nunc in --blocks blocks, so drift (this
                # machine kind changes speed by ~30 % for seconds at a time)
                # hits both alike.
                blocks = max(1, min(args.blocks, args.runs))
                rtt0 = crosscore(args.build) if threads > 1 else None
                nunc_times, ort_times, ort_runs = [], [], []
                for b in range(blocks):
                    share = args.runs * (b + 1) // blocks - args.runs * b // blocks
                    o = run_ort(ort_path, feeds_path, threads, share, args.warmup)
                    n, _ = run_nunc(exe, manifest, feeds, os.path.join(out, "w"), threads,
                                    share + args.warmup)
                    ort_times += o["times"]
                    nunc_times += n[args.warmup:]
                    ort_runs.append(o)
                rtt1 = crosscore(args.build) if threads > 1 else None
                ns, os_ = stats(nunc_times), stats(ort_times)
                row = {"model": name + (" " + mode if mode else ""), "batch": batch, "seq": seq,
                       "threads": threads,
                       "nunc": ns, "ort": os_, "ratio": ns["p50"] / os_["p50"],
                       "throughput_nunc": batch / (ns["p50"] / 1e3),
                       "throughput_ort": batch / (os_["p50"] / 1e3),
                       "rtt": f"{rtt0:.0f} / {rtt1:.0f}" if rtt0 else ""}
                if int8 and threads == threads_list[0]:
                    row["cos_nunc"], row["cos_ort"] = int8_accuracy(
                        exe, manifest, feeds, os.path.join(out, "w"), path, ort_path)
                if threads == threads_list[0]:
                    row["cold_nunc"] = cold_start_nunc(exe, manifest, feeds,
                                                       os.path.join(out, "w"), threads)
                    row["cold_ort"] = min(o["cold"] for o in ort_runs)
                    row["rss_nunc_mb"] = child_rss([exe, os.path.join(out, "w"), str(threads),
                                                    "3"]) / 1024
                    row["rss_ort_mb"] = max(o["rss_kb"] for o in ort_runs) / 1024
                    row["lib_mb"] = os.path.getsize(lib) / 2**20
                    row["compile_s"] = compile_s
                if (threads == 1 and 2 in threads_list and mode in ("", "int8")
                        and (batch, seq) == configs[0]):
                    n2, o2 = oversubscribed(exe, os.path.join(out, "w"), ort_path, feeds_path,
                                            max(20, args.runs // 4), args.warmup)
                    crowded.append((row["model"], config_label(batch, seq), n2 / ns["p50"],
                                    o2 / os_["p50"]))
                rows.append(row)
                print(f"{row['model']} {config_label(batch, seq)} t{threads}: nunc p50 {ns['p50']:.2f} ms, "
                      f"ORT p50 {os_['p50']:.2f} ms, ratio {row['ratio']:.3f}", flush=True)
        # Window-kernel efficiency on the CNN's shapes (fp32 runs only).
        if name in WINDOWS and not mode and "avx512" in peak:
            kind, shapes = WINDOWS[name]
            g = subprocess.run([os.path.join(args.build, "bin", "nunc-bench-window"), kind] +
                               [str(v) for s in shapes for v in s], capture_output=True,
                               text=True, check=True).stdout.split("\n")
            for line in filter(None, g):
                k, c, hh, ww, kk, ss, pp, gf, gbs, _ = line.split()
                windows.append((name, k, f"{c}x{hh}x{ww} {kk}x{kk}/{ss}", float(gf), float(gbs),
                                float(gf) / float(peak["avx512"])))
        # Fused attention on the model's shapes (f32 in fp32 and int8 runs; a
        # QDQ model's rounds its intermediates to five grids).
        if name in HEADS and mode in ("", "qdq") and "avx512" in peak:
            heads, dim = HEADS[name]
            g = subprocess.run([os.path.join(args.build, "bin", "nunc-bench-attention")] +
                               (["qdq"] if mode else []) +
                               [str(v) for s in (128, 32) for v in (s, s, heads, dim)],
                               capture_output=True, text=True, check=True).stdout.split("\n")
            for line in filter(None, g):
                ss, tt, hh, dd, gf, us, _ = line.split()
                attention.append((name + (" qdq" if mode else ""), f"{ss}x{tt}", f"{hh}x{dd}",
                                  float(gf), float(us), float(gf) / float(peak["avx512"])))
        # GEMM efficiency on the model's shapes (batch 1, seq 128).
        if name not in HIDDEN or mode in ("qdq", "qdq-s8", "qop", "int8-static", "dyn", "dyn-u8",
                                          "qdq-a16"):
            continue
        h, f, _ = HIDDEN[name]
        isas = (["vnni", "vnni+cold"] + (["avxvnni"] if "avxvnni" in peak else []) +
                ["int8avx2"]) if int8 else ["avx512" if "avx512" in peak else "avx2"]
        shapes = [(128, h, h), (128, f, h), (128, h, f)]
        # The best of five runs, as the peak is the best of its runs: this
        # machine's GEMMs lose ~30 % for seconds at a time (other tenants),
        # while the register-only peak loop keeps its rate.
        for isa in isas:
            best = {}
            for _ in range(5):
                g = subprocess.run([os.path.join(args.build, "bin", "nunc-bench-gemm"), isa] +
                                   [str(v) for s in shapes for v in s], capture_output=True,
                                   text=True, check=True).stdout.split("\n")
                for line in filter(None, g):
                    m, n, k, gf = line.split()
                    best[f"{m}x{n}x{k}"] = max(best.get(f"{m}x{n}x{k}", 0.0), float(gf))
            for shape, gf in best.items():
                extra.append((name, isa, shape, gf, gf / float(peak[isa.split("+")[0]])))

    cpu = subprocess.run(["sh", "-c", "grep -m1 'model name' /proc/cpuinfo | cut -d: -f2"],
                         capture_output=True, text=True).stdout.strip()
    import onnxruntime
    with open(args.out, "w") as f:
        f.write("# nunc vs onnxruntime\n\n")
        f.write(f"Measured {time.strftime('%Y-%m-%d')} by `bench/run.py --runs {args.runs}` on "
                f"{cpu} ({os.cpu_count()} cores), {platform.platform()}; onnxruntime "
                f"{onnxruntime.__version__} (ORT_ENABLE_ALL, same intra-op threads); nunc "
                f"target `{args.target}`. Measured FMA peak of one core: "
                + ", ".join(f"{k} {v} {'GOP/s' if 'int8' in k or 'vnni' in k else 'GFLOP/s'}"
                            for k, v in peak.items()) + ". Rows marked int8 compare "
                "`nunc compile --quantize int8` ("
                + ("x86_64-avx512vnni" if args.target == "native" else args.target) +
                "; weights and embedding "
                "tables s8, activations u8 per row (linear) or per tensor (convolutions) at "
                "run time) with onnxruntime running its own `quantize_dynamic` (QInt8 "
                "weights) model, or for the CNNs its `quantize_static` QDQ model (per-channel "
                "weights; made from the `quant_pre_process` output, BatchNormalization folded, "
                "as onnxruntime's documentation says); rows marked qdq run onnxruntime's "
                "`quantize_static` QDQ model (u8 activations, s8 weights, calibrated on 8 "
                "random inputs; CNNs pre-processed likewise) on both engines, rows marked "
                "qop the same in QOperator format (QLinearConv, QLinearMatMul and "
                "onnxruntime's com.microsoft QLinear ops), rows marked dyn / dyn-u8 "
                "onnxruntime's `quantize_dynamic` model with QInt8 / QUInt8 weights on both "
                "engines, rows marked qdq-a16 its `quantize_static` QDQ model with u16 "
                "activations (A16W8, its com.microsoft Q/DQ ops) on both engines, rows marked "
                "qdq-s8 its `quantize_static` QDQ model with its default s8 activations "
                "(CNNs pre-processed, per-channel weights) on both engines; the "
                "int8-static rows compile with `--activations static` (u8 activations per tensor, "
                "calibrated on 8 random inputs; u8 handed from GEMM to GEMM) against the same "
                "onnxruntime model as the int8 rows (`quantize_dynamic`; CNNs: `quantize_static`); "
                "the other rows are fp32 on both sides.\n\n")
        f.write("Latency in ms (p50 / p90 / p99 over the runs after warm-up); ratio = nunc p50 "
                "/ ORT p50 (lower is better). nunc runs a batch of several items one item at "
                "a time (`nunc-split-batch`, where no op mixes items); with 2 threads its "
                "workspace then has room for 2 items (`nunc_options.workspace_bytes`), so "
                "each thread runs its own items.\n\n")
        f.write("Cross-core RTT: a cache line's round trip between the two cores "
                "(`nunc-bench-crosscore`) before / after a 2-thread row; ~60 ns normally, "
                "~330 ns while the host keeps this VM's vCPUs apart, when every 2-thread "
                "run that passes data between threads slows down.\n\n")
        f.write("| model | input | threads | nunc p50 / p90 / p99 | ORT p50 / p90 / p99 "
                "| ratio | nunc items/s | ORT items/s | cross-core RTT (ns) |\n"
                "|---|---|---|---|---|---|---|---|---|\n")
        for r in rows:
            n, o = r["nunc"], r["ort"]
            f.write(f"| {r['model']} | {config_label(r['batch'], r['seq'])} | {r['threads']} | "
                    f"{n['p50']:.2f} / {n['p90']:.2f} / {n['p99']:.2f} | "
                    f"{o['p50']:.2f} / {o['p90']:.2f} / {o['p99']:.2f} | **{r['ratio']:.3f}** | "
                    f"{r['throughput_nunc']:.1f} | {r['throughput_ort']:.1f} | {r['rtt']} |\n")
        f.write("\nCold start: nunc from exec of its C program to the first output (includes "
                "init and the first run); ORT from session creation to the first output, "
                "Python import excluded. Peak RSS: maximum resident set of the whole process.\n")
        f.write("\n| model | input | cold start nunc / ORT (ms) | ratio | peak RSS nunc / ORT "
                "(MB) | library (MB) | compile (s) |\n|---|---|---|---|---|---|---|\n")
        for r in rows:
            if "cold_nunc" not in r:
                continue
            f.write(f"| {r['model']} | {config_label(r['batch'], r['seq'])} | {r['cold_nunc']*1e3:.1f} / "
                    f"{r['cold_ort']*1e3:.1f} | {r['cold_nunc']/r['cold_ort']:.3f} | "
                    f"{r['rss_nunc_mb']:.0f} / {r['rss_ort_mb']:.0f} | {r['lib_mb']:.1f} | "
                    f"{r['compile_s']:.1f} |\n")
        acc = [r for r in rows if "cos_nunc" in r]
        if acc:
            f.write("\nint8 accuracy: cosine similarity of the output with onnxruntime fp32 "
                    "on the benchmark's inputs (qdq, qop: both engines run the same "
                    "quantized model).\n\n| model | input | nunc int8 | "
                    "onnxruntime int8 |\n|---|---|---|---|\n")
            for r in acc:
                f.write(f"| {r['model']} | {config_label(r['batch'], r['seq'])} | "
                        f"{r['cos_nunc']:.5f} | {r['cos_ort']:.5f} |\n")
        f.write("\nGEMM kernels (one thread, bias epilogue) on the models' GEMM shapes; "
                "GFLOP/s for fp32, GOP/s for int8 (vnni; int8avx2 is the exact 16-bit "
                "kernel of targets without VNNI, against the measured `vpmaddwd` + `vpaddd` "
                "peak; avxvnni, where the host has AVX-VNNI, the ymm VEX `vpdpbusd` kernel "
                "of `x86_64-avxvnni` against its own peak; vnni+cold reads its weights from copies rotated past L2, as a model "
                "run does, where the others reuse one copy). Each row is the best of five runs "
                "(each the median of many calls), as the peak is the best of its runs:\n\n"
                "| model | kernel | M x N x K | G(FL)OP/s | of measured peak |\n"
                "|---|---|---|---|---|\n")
        for name, isa, shape, gf, frac in extra:
            f.write(f"| {name} | {isa} | {shape} | {gf:.1f} | {frac*100:.0f} % |\n")
        if windows:
            f.write("\nWindow kernels (one thread, AVX-512; depthwise with bias and clip) on "
                    "the CNNs' shapes (`nunc-bench-window`): GFLOP/s counting 2 per tap of a "
                    "depthwise conv and 1 per tap of a pool, GB/s of f32 input read and output "
                    "written once:\n\n"
                    "| model | kernel | C x H x W, window/stride | GFLOP/s | GB/s | of FMA peak |\n"
                    "|---|---|---|---|---|---|\n")
            for name, kind, shape, gf, gbs, frac in windows:
                f.write(f"| {name} | {kind} | {shape} | {gf:.1f} | {gbs:.1f} | {frac*100:.0f} % |\n")
        if attention:
            f.write("\nFused attention (one thread, AVX-512, key-padding mask, all heads of one "
                    "item, one scratch slot; `nunc-bench-attention`; qdq: with a quantize_static "
                    "model's five grids): GFLOP/s counting Q K^T and P V (4 S T D a "
                    "head; the softmax and the grids are timed, not counted):\n\n"
                    "| model | S x T | heads x dim | GFLOP/s | us | of FMA peak |\n"
                    "|---|---|---|---|---|---|\n")
            for name, st, hd, gf, us, frac in attention:
                f.write(f"| {name} | {st} | {hd} | {gf:.1f} | {us:.1f} | {frac*100:.0f} % |\n")
        if crowded:
            f.write("\nTwo threads sharing one core (the process pinned to one CPU, as when "
                    "another process or the hypervisor holds the other core): p50 over the "
                    "1-thread p50 of the same engine (1.0 = no loss; a pool that spins while "
                    "its partner waits for the core loses up to 2x):\n\n"
                    "| model | input | nunc | onnxruntime |\n|---|---|---|---|\n")
            for name, label, n, o in crowded:
                f.write(f"| {name} | {label} | {n:.2f} | {o:.2f} |\n")
    json.dump(rows, open(os.path.join(work, "results.json"), "w"), indent=1)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
