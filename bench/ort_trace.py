#!/usr/bin/env python3
"""Where a compiled QDQ model's codes first leave onnxruntime's.

Compiles the model with `nunc compile --print-lowered-ir` (the module as
the kernels take it), makes its function also return every tensor that
holds a quantization grid's codes or values (u8 results; f32 results of
ops with a u8 `output_quantization` and no later step, fake_quantize
ops, elementwise chains ending in one; a conv's normalized f32 values
rounded on the pair after them), runs that module
compiled (`nunc run`, the same kernels as the library) and onnxruntime
with the output of every QuantizeLinear exposed, and pairs each tensor
with the QuantizeLinear after the last ONNX node its op was fused from
(its location; a QOperator model's QLinearConv, QGemm, ... of its own).
One line per tensor, in order: its op, those codes' name, and how many
differ. The first line with
differences is the step to look at (a cut model would change the fusion
of its last step: this reads the full model's own steps).

Usage:
  python3 bench/ort_trace.py model_qdq.onnx --model mobilenet [--seed 5]
      [--target x86_64-avx512vnni] [--reference] [--work /tmp/ort_trace]
  python3 bench/ort_trace.py any_qdq.onnx --inputs feeds.npz  (static shapes)

--reference runs the lowered module in the evaluator instead (where the
evaluator and the kernels agree, as the tests check, the same codes).

The pairing goes by locations (the latest writer named whose codes are
as many as the tensor's): an op whose location does not name the node
whose pair it rounds to last (a rewrite that kept an earlier location) is
paired with an earlier one or reported as "not paired"; most codes off by
a lot point at such a pairing rather than at arithmetic.
"""
import argparse
import os
import re
import subprocess
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.join(ROOT, "examples", "models")]
from make_models import random_inputs  # noqa: E402

TEXT = ("minilm", "bert")
GRID = re.compile(r"output_quantization = !quant\.uniform<u8:f32, ([0-9.e+-]+)(?::(\d+))?>")
NORM_GRID = re.compile(r"norm_quantization = !quant\.uniform<u8:f32, ([0-9.e+-]+)(?::(\d+))?>")
ANY_GRID = re.compile(r"!quant\.uniform<u8:f32, ([0-9.e+-]+)(?::(\d+))?>")


def locations(ir):
    """#locN -> [(op type, node name)] of the ONNX nodes it names."""
    defs = dict(re.findall(r"^(#loc\d*) = loc\((.*)\)$", ir, flags=re.M))
    memo = {}

    def nodes(ref):
        if ref in memo:
            return memo[ref]
        body = defs.get(ref, "")
        out = []
        single = re.match(r'fused<#nunc\.onnx_node<"(\w+)", \d+(?:, "[\w.]*")?>>\[#loc, (#loc\d+)\]$',
                          body)
        if single:
            name = re.match(r'"(.*)"$', defs.get(single.group(2), ""))
            out = [(single.group(1), name.group(1) if name else "")]
        elif body.startswith("fused["):
            for part in re.findall(r"#loc\d+", body):
                out += nodes(part)
        memo[ref] = out
        return out

    return nodes


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("model")
    p.add_argument("--model", dest="name", default="mobilenet",
                   help="example model whose random inputs to feed")
    p.add_argument("--seed", type=int, default=5)
    p.add_argument("--inputs", help="a .npz of the model's inputs (any model of static "
                                    "shapes) instead of the example model's random ones")
    p.add_argument("--seq", type=int, default=16, help="encoders' sequence length")
    p.add_argument("--target", default="x86_64-avx512vnni")
    p.add_argument("--reference", action="store_true")
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--work", default="/tmp/ort_trace")
    args = p.parse_args()
    import onnx
    import onnxruntime as ort

    os.makedirs(args.work, exist_ok=True)
    nunc = os.path.join(args.build, "bin", "nunc")
    pins = (["--shape", "batch=1", "--shape", f"sequence={args.seq}"] if args.name in TEXT
            else ["--shape", "input=1x3x224x224"])
    if args.inputs:
        pins = []
    lowered = os.path.join(args.work, "lowered.mlir")
    subprocess.run([nunc, "compile", args.model, "--target", args.target, *pins, "-o",
                    os.path.join(args.work, "out"), "--print-lowered-ir", lowered],
                   check=True, capture_output=True)
    ir = open(lowered).read()
    nodes_of = locations(ir)

    model = onnx.load(args.model)
    graph = model.graph
    order = {n.name: i for i, n in enumerate(graph.node)}
    by_name = {n.name: n for n in graph.node}
    producer = {o: n for n in graph.node for o in n.output}
    readers = {}
    for n in graph.node:
        for i in n.input:
            readers.setdefault(i, []).append(n)

    def quantize_after(names):
        """The node writing the codes after the last of the op's ONNX nodes:
        a QuantizeLinear reading a compute node's output or feeding one of
        its DequantizeLinears, or a QOperator node (QLinearConv, QGemm, ...)
        of its own."""
        found = []
        for kind, name in names:
            node = by_name.get(name)
            if node is None:
                continue
            if kind.startswith(("QLinear", "QGemm")):
                found.append(node)
            elif kind == "DequantizeLinear":
                q = producer.get(node.input[0])
                src = producer.get(q.input[0]) if q is not None else None
                if q is not None and q.op_type == "QuantizeLinear" and src is not None and \
                        src.name in {n for _, n in names}:
                    found.append(q)
            elif kind != "QuantizeLinear":
                found += [r for r in readers.get(node.output[0], [])
                          if r.op_type == "QuantizeLinear"]
        return sorted(found, key=lambda q: order[q.name], reverse=True)

    # The tensors to return: (value, type, op, quantize node, grid of f32 values).
    picked, normalized_values = [], set()
    for line in ir.splitlines():
        m = re.match(r"\s+(%\d+) = (nunc\.\w+) .*-> (tensor<[^>]*(?:<[^>]*>)?>) loc\((#loc\d+)\)$",
                     line)
        if not m:
            continue
        value, op, type_, loc = m.groups()
        grid = None
        if "u8:f32" not in type_:
            if not type_.endswith("xf32>"):
                continue
            if op == "nunc.fake_quantize":
                g = ANY_GRID.search(line)
            elif op == "nunc.elementwise_chain":
                steps = re.findall(r"\{[^{}]*\}", line)
                g = ANY_GRID.search(steps[-1]) if steps and \
                    'op = "fake_quantize"' in steps[-1] else None
            elif " norm " in line and "norm_quantization" in line:
                g = NORM_GRID.search(line)
                normalized_values.add(value)
                if "output_table" in line or "u8_output" in line:
                    g = None
            elif " norm " in line:
                # Normalized f32 values (a QDQ export's BatchNormalization
                # after the conv's pair): their readers round them to the
                # pair after the BN, the writer's grid.
                g = "writer"
            else:
                g = GRID.search(line)
                if " norm " in line or "output_table" in line or "u8_output" in line:
                    g = None
            if not g:
                continue
            grid = g if g == "writer" else (float(g.group(1)), int(g.group(2) or 0))
        writers = quantize_after(nodes_of(loc))
        if writers:
            picked.append((value, type_, op, writers, grid))
    if not picked:
        sys.exit("no quantized tensors found in the lowered module")

    # The function also returns them.
    head = re.search(r"(func\.func @\w+\(.*?\)) -> \((.*?)\) (?:attributes .*? )?\{\n", ir, re.S)
    results = head.group(2) + "".join(
        f', {t} {{nunc.name = "t{v[1:]}"}}' for v, t, *_ in picked)
    ir = ir.replace(head.group(0), head.group(0).replace(head.group(2), results, 1), 1)
    ret = re.search(r"\n(\s+)return (.*) : (.*?)( loc\(#loc\d*\))?\n", ir)
    ir = ir.replace(ret.group(0), "\n" + ret.group(1) + "return " + ret.group(2) + ", " +
                    ", ".join(v for v, *_ in picked) + " : " + ret.group(3) + ", " +
                    ", ".join(t for _, t, *_ in picked) + (ret.group(4) or "") + "\n", 1)
    traced = os.path.join(args.work, "traced.mlir")
    open(traced, "w").write(ir)

    feeds = (dict(np.load(args.inputs)) if args.inputs else
             random_inputs(args.name, 1, args.seq if args.name in TEXT else None, args.seed))
    inputs, outputs = os.path.join(args.work, "in.npz"), os.path.join(args.work, "out.npz")
    np.savez(inputs, **feeds)
    subprocess.run([nunc, "run", traced, "--input", inputs, "-o", outputs,
                    *(["--reference"] if args.reference else [])], check=True)
    ours = np.load(outputs)

    # onnxruntime's own optimized graph, run as it is with the codes
    # exposed: exposing them in the model itself would change what it runs
    # (a QDQ s8 model's pair with a graph output is no longer converted to
    # u8, its conv no longer a QLinearConv).
    optimized = os.path.join(args.work, "optimized.onnx")
    options = ort.SessionOptions()
    options.log_severity_level = 3
    options.intra_op_num_threads = 1
    options.optimized_model_filepath = optimized
    ort.InferenceSession(args.model, options, providers=["CPUExecutionProvider"])
    opt = onnx.load(optimized)
    # Each tensor's codes' type: its writer's (last) 8-bit zero point's,
    # through layout ops (a QLinearConv's NHWC Transposes); else u8. (A pair
    # onnxruntime converted to u8 holds the s8 codes + 128.)
    types = {i.name: i.data_type for i in opt.graph.initializer
             if i.data_type in (onnx.TensorProto.UINT8, onnx.TensorProto.INT8)}
    opt_producer = {o: n for n in opt.graph.node for o in n.output}

    def code_type(name):
        node = opt_producer.get(name)
        while node is not None:
            zps = [types[i] for i in node.input if i in types]
            if zps:
                return zps[-1]
            node = opt_producer.get(node.input[0]) if node.input else None
        return onnx.TensorProto.UINT8

    # A writer's codes there: the output of its node (names survive, a
    # converted pair's tensors do not), else the input of its
    # DequantizeLinear reader (a Q fused into a QLinearConv), else the
    # output of the QLinear op fused from the node it quantizes (through a
    # Relu or Clip the fusion dropped; after its Transpose back to NCHW
    # where one follows), else the tensor of its name.
    opt_nodes = {n.name: n for n in opt.graph.node}
    opt_readers = {}
    for n in opt.graph.node:
        for i in n.input:
            opt_readers.setdefault(i, []).append(n)

    def codes_in_optimized(q):
        node = opt_nodes.get(q.name)
        if node is not None and node.op_type == q.op_type:
            return node.output[0]
        for r in readers.get(q.output[0], []):
            dq = opt_nodes.get(r.name)
            if dq is not None and dq.op_type == "DequantizeLinear":
                return dq.input[0]
        src = producer.get(q.input[0]) if q.op_type == "QuantizeLinear" else None
        while src is not None and src.op_type in ("Relu", "Clip"):
            src = producer.get(src.input[0])
        if src is not None:
            for n in opt.graph.node:
                if n.op_type.startswith("QLinear") and (
                        n.name == src.name or n.name.startswith(src.name + "_token")):
                    after = [t for t in opt_readers.get(n.output[0], [])
                             if t.op_type == "Transpose"]
                    return after[0].output[0] if after else n.output[0]
        return q.output[0] if q.output[0] in opt_producer else None

    exposed = {o.name for o in opt.graph.output}
    codes_of = {}
    for q in {q.output[0]: q for *_, writers, _ in picked for q in writers}.values():
        name = codes_in_optimized(q)
        if name is None:
            continue
        codes_of[q.output[0]] = name
        if name not in exposed:
            opt.graph.output.append(onnx.helper.make_tensor_value_info(name, code_type(name),
                                                                       None))
            exposed.add(name)
    options = ort.SessionOptions()
    options.log_severity_level = 3
    options.intra_op_num_threads = 1
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    sess = ort.InferenceSession(opt.SerializeToString(), options,
                                providers=["CPUExecutionProvider"])
    names = [o.name for o in sess.get_outputs()]
    values = dict(zip(names, sess.run(None, feeds)))
    theirs = {q: values[name] for q, name in codes_of.items()}
    first = None
    inits = {i.name: onnx.numpy_helper.to_array(i) for i in graph.initializer}
    for value, _, op, writers, grid in picked:
        got = ours[f"t{value[1:]}"]
        # The last writer of as many codes (a location may also name the
        # next layer's input pair, which a handover took); a normalization's
        # values: the pair right after the BN.
        candidates = writers
        if grid == "writer" or value in normalized_values:
            after_norm = [w for w in writers if w.op_type == "QuantizeLinear" and getattr(
                producer.get(w.input[0]), "op_type", "") == "BatchNormalization"]
            candidates = after_norm + writers
        candidates = [w for w in candidates if w.output[0] in theirs]
        if not candidates:
            print(f"{op:24s} {writers[0].output[0][:72]:72s} not in onnxruntime's optimized "
                  "graph")
            continue
        q = next((w for w in candidates if theirs[w.output[0]].size == got.size and
                  (grid != "writer" or w.op_type == "QuantizeLinear")), None)
        if q is None:
            print(f"{op:24s} {writers[0].output[0][:72]:72s} not paired (sizes differ)")
            continue
        if grid == "writer":
            zp = int(inits[q.input[2]]) if len(q.input) > 2 and q.input[2] in inits else 0
            got = np.clip(np.rint(got.astype(np.float32) / np.float32(inits[q.input[1]])) + zp,
                          0, 255)
        elif grid is not None:
            got = np.rint(got.astype(np.float64) / grid[0]) + grid[1]
        want = theirs[q.output[0]].astype(np.int64)
        if theirs[q.output[0]].dtype == np.int8:
            # s8 activations: nunc holds the u8 codes of the same grids
            # (code + 128), and their grids' zero points are the s8 ones.
            want = want + 128
            if grid == "writer":
                got = got + 128
        # (Codes onnxruntime keeps channels-last between its NHWC ops, a
        # QLinearAdd's too: back to NCHW where the shapes say so.)
        if want.ndim == 4 and got.ndim == 4 and want.shape != got.shape and \
                want.shape == (got.shape[0], got.shape[2], got.shape[3], got.shape[1]):
            want = want.transpose(0, 3, 1, 2)
        got = got.astype(np.int64).reshape(want.shape)
        differ = int((got != want).sum())
        print(f"{op:24s} {q.output[0][:72]:72s} {differ} of {want.size} differ"
              + (f" (max {np.abs(got - want).max()})" if differ else ""))
        if differ and first is None:
            first = q.output[0]
    print("first differing:", first or "none")


if __name__ == "__main__":
    main()
