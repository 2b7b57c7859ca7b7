"""Builds and runs a C program that links a nunc-generated library.

The program is written from the library's manifest: it reads each input from
a raw file, runs the model `repeat` times on a context with `threads`
threads, writes the outputs to raw files and prints the status. Used by the
end-to-end tests and the benchmark (it is how an embedded user calls nunc).
"""
import json
import os
import re
import subprocess
import numpy as np

C_TYPES = {"float32": "float", "float64": "double", "int64": "int64_t", "int32": "int32_t",
           "int8": "int8_t", "uint8": "uint8_t", "int16": "int16_t", "uint16": "uint16_t",
           "uint32": "uint32_t", "uint64": "uint64_t", "bool": "uint8_t",
           "float16": "uint16_t", "bfloat16": "uint16_t"}
NP_TYPES = {"float32": np.float32, "float64": np.float64, "int64": np.int64,
            "int32": np.int32, "int8": np.int8, "uint8": np.uint8, "int16": np.int16,
            "uint16": np.uint16, "uint32": np.uint32, "uint64": np.uint64, "bool": np.bool_,
            "float16": np.float16}


def write_driver(manifest, path):
    name = manifest["name"]
    ins, outs = manifest["inputs"], manifest["outputs"]
    external = manifest["weights"] == "external"
    lines = [
        "#define _GNU_SOURCE", "#include <stdio.h>", "#include <stdlib.h>", "#include <string.h>",
        "#include <time.h>", f'#include "{name}.h"',
        "static void *slurp(const char *path, size_t bytes) {",
        "  void *p = aligned_alloc(64, bytes ? (bytes + 63) / 64 * 64 : 64);",
        "  FILE *f = fopen(path, \"rb\"); if (!f) { perror(path); exit(3); }",
        "  if (bytes && fread(p, 1, bytes, f) != bytes) { fprintf(stderr, \"short %s\\n\", path); exit(3); }",
        "  fclose(f); return p; }",
        "static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t);",
        "  return t.tv_sec + t.tv_nsec * 1e-9; }",
        "int main(int argc, char **argv) {",
        "  /* argv: dir threads repeat */",
        "  const char *dir = argv[1]; int threads = atoi(argv[2]); int repeat = atoi(argv[3]);",
        "  char path[4096];",
        f"  static {name}_ctx ctx;",
        "  /* NUNC_WORKSPACE_SLOTS=k: a workspace for k items at once (split batches) */",
        '  const char *slots_env = getenv("NUNC_WORKSPACE_SLOTS");',
        "  size_t slots = slots_env && atoi(slots_env) > 0 ? (size_t)atoi(slots_env) : 1;",
        f"  size_t ws_bytes = {name}_workspace_size() * slots;",
        "  void *ws = aligned_alloc(64, ws_bytes ? (ws_bytes + 63) / 64 * 64 : 64);",
        "  nunc_options opt = {0}; opt.num_threads = threads; opt.workspace_bytes = ws_bytes;",
    ]
    if external:
        lines += [f'  snprintf(path, sizeof path, "%s/{name}.weights", argv[4]);',
                  "  FILE *wf = fopen(path, \"rb\"); fseek(wf, 0, SEEK_END); long wn = ftell(wf); fclose(wf);",
                  "  void *weights = slurp(path, wn);",
                  f"  nunc_status st = {name}_init(&ctx, ws, weights, &opt);"]
    else:
        lines += [f"  nunc_status st = {name}_init(&ctx, ws, &opt);"]
    lines += [f'  if (st) {{ printf("init %d %s\\n", st, {name}_error_detail(&ctx) ? {name}_error_detail(&ctx) : ""); return 1; }}']
    for i, io in enumerate(ins):
        lines.append(f'  snprintf(path, sizeof path, "%s/in{i}.bin", dir); void *in{i} = slurp(path, {io["bytes"]});')
    for j, io in enumerate(outs):
        lines.append(f"  void *out{j} = aligned_alloc(64, {max(io['bytes'], 1) + 63} / 64 * 64);")
    # (A graph may have no inputs, or even no outputs.)
    args = "".join([f", ({C_TYPES[io['dtype']]} *)in{i}" for i, io in enumerate(ins)] +
                   [f", ({C_TYPES[io['dtype']]} *)out{j}" for j, io in enumerate(outs)])
    lines += [
        "  double *times = malloc(sizeof(double) * (repeat > 0 ? repeat : 1));",
        "  for (int r = 0; r < repeat; ++r) {",
        "    double t0 = now();",
        f"    st = {name}_run(&ctx{args});",
        "    times[r] = now() - t0;",
        f'    if (st) {{ printf("run %d %s\\n", st, {name}_error_detail(&ctx) ? {name}_error_detail(&ctx) : ""); return 2; }}',
        "  }",
    ]
    for j, io in enumerate(outs):
        lines += [f'  snprintf(path, sizeof path, "%s/out{j}.bin", dir);',
                  f"  {{ FILE *f = fopen(path, \"wb\"); fwrite(out{j}, 1, {io['bytes']}, f); fclose(f); }}"]
    lines += ['  snprintf(path, sizeof path, "%s/times.bin", dir);',
              "  { FILE *f = fopen(path, \"wb\"); fwrite(times, sizeof(double), repeat, f); fclose(f); }",
              f"  {name}_destroy(&ctx);", '  printf("ok\\n");', "  return 0; }"]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def build(out_dir, cc="gcc"):
    """Compiles the driver for the library in out_dir; returns the program path."""
    manifest = json.load(open(next(os.path.join(out_dir, f) for f in os.listdir(out_dir)
                                   if f.endswith(".json"))))
    name = manifest["name"]
    src = os.path.join(out_dir, "driver.c")
    exe = os.path.join(out_dir, "driver")
    write_driver(manifest, src)
    cmd = [cc, "-O2", "-std=c11", "-o", exe, src, "-I", out_dir,
           os.path.join(out_dir, f"lib{name}.a"), "-lpthread"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{r.stdout}{r.stderr}")
    return exe, manifest


def run(exe, manifest, feeds, work_dir, threads=1, repeat=1, weights_dir=None, slots=1,
        wrapper=(), timeout=None):
    """Runs the program on feeds (dict name -> array); returns (outputs, times, stdout).
    slots > 1 gives the library a workspace for that many items at once; `wrapper`
    is a command the program runs under (an emulator)."""
    os.makedirs(work_dir, exist_ok=True)
    for i, io in enumerate(manifest["inputs"]):
        # (np.ascontiguousarray would make a 0-d input 1-d.)
        arr = np.asarray(feeds[io["name"]], dtype=NP_TYPES[io["dtype"]], order="C")
        assert list(arr.shape) == io["shape"], (io["name"], arr.shape, io["shape"])
        arr.tofile(os.path.join(work_dir, f"in{i}.bin"))
    args = [*wrapper, exe, work_dir, str(threads), str(repeat)]
    if weights_dir:
        args.append(weights_dir)
    env = dict(os.environ, NUNC_WORKSPACE_SLOTS=str(slots))
    r = subprocess.run(args, capture_output=True, text=True, env=env, timeout=timeout)
    if r.returncode != 0:
        return None, None, r.stdout + r.stderr
    outs = {}
    for j, io in enumerate(manifest["outputs"]):
        outs[io["name"]] = np.fromfile(os.path.join(work_dir, f"out{j}.bin"),
                                       dtype=NP_TYPES[io["dtype"]]).reshape(io["shape"])
    times = np.fromfile(os.path.join(work_dir, "times.bin"), dtype=np.float64)
    return outs, times, r.stdout


def onnxruntime_outputs(model, feeds):
    """onnxruntime's (CPU) outputs of a ModelProto: {name: array}."""
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.log_severity_level = 3
    sess = ort.InferenceSession(model.SerializeToString(), options,
                                providers=["CPUExecutionProvider"])
    return {o.name: v for o, v in zip(sess.get_outputs(), sess.run(None, feeds))}


def run_threads(exe, manifest, feeds, work_dir, threads=(1, 2)):
    """The program's outputs with each thread count: {threads: {name: array}}."""
    results = {}
    for n in threads:
        outs, _, log = run(exe, manifest, feeds, os.path.join(str(work_dir), f"w{n}"), threads=n)
        assert outs is not None, log
        results[n] = outs
    return results


def kernel_symbols(archive, name):
    """The kernel symbols of a library's archive and the addresses of their
    code, from nm: {(step index, prelude step or None): address}, for
    <name>_k<i> and its prelude kernels <name>_k<i>_quantize, ... (kernels
    whose bytes are the same share one address; the generic kernels'
    _impl functions are left out)."""
    nm = subprocess.run(["nm", str(archive)], capture_output=True, text=True,
                        check=True).stdout
    symbols = {}
    for line in nm.splitlines():
        parts = line.split()
        m = re.fullmatch(re.escape(name) + r"_k(\d+)(?:_(\w+))?", parts[-1]) \
            if len(parts) == 3 else None
        if m and m.group(2) != "impl":
            symbols[(int(m.group(1)), m.group(2))] = parts[0]
    return symbols


def kernel_code_copies(out_dir, manifest):
    """For each kernel description in the manifest (and prelude step), the
    distinct addresses of its calls' code in the library:
    {(description, prelude step or None): set of addresses}."""
    name = manifest["name"]
    copies = {}
    for (index, step), address in kernel_symbols(os.path.join(str(out_dir), f"lib{name}.a"),
                                                 name).items():
        copies.setdefault((manifest["kernels"][index]["kernel"], step), set()).add(address)
    return copies

