#!/usr/bin/env python3
"""Writes multi-node seed models for fuzz_models.py: the graphs nunc's
fusions and quantization passes match, small enough to compile in a
second or two.

- MiniLM- and BERT-shaped encoders (make_models.py's builder, 2 layers of
  width 32, and a MiniLM of width 64 whose linear ops and word table
  --quantize int8 takes) and what onnxruntime's quantize_dynamic and quantize_static
  (QDQ and QOperator) make of the MiniLM one;
- ai.onnx Attention, onnxruntime's Attention, QAttention and
  MultiHeadAttention ops, and an exported decoder layer and block (rotary
  embedding, past cache, grouped heads, causal mask, RMSNorm, SwiGLU);
- ResNet- and MobileNetV2-shaped classifiers (BatchNormalization, residual
  Adds, pools, Gemm) and small CNNs (depthwise, hard swish), and their QDQ
  and QOperator forms; a MobileNet twice as wide, whose 1x1 convs
  --quantize int8 takes (f32 only).

Inputs are pinned (batch 2, sequence 8 for the encoders) so that every
mutant can run with random inputs.

  make_seeds.py --out build/test/fuzz-seeds
"""
import argparse
import logging
import os
import sys

import numpy as np
import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, "..", "e2e"), os.path.join(HERE, "..", "..", "examples",
                                                               "models")]

import make_models  # noqa: E402
import test_attention_op  # noqa: E402
import test_int8  # noqa: E402
import test_onnxruntime_attention  # noqa: E402

BATCH, SEQ = 2, 8
TINY_ENCODERS = {
    "tiny_minilm": dict(make_models.TRANSFORMER_CONFIGS["minilm"], layers=2, hidden=32, heads=4,
                        ffn=64, vocab=40, max_pos=16),
    "tiny_bert": dict(make_models.TRANSFORMER_CONFIGS["bert"], layers=2, hidden=32, heads=4,
                      ffn=64, vocab=40, max_pos=16),
    # Wide enough for --quantize int8's defaults to take its linear ops (at
    # least 4096 multiply-adds a row) and its word table (65536 elements);
    # the tiny ones stay f32 there.
    "minilm_w64": dict(make_models.TRANSFORMER_CONFIGS["minilm"], layers=2, hidden=64, heads=4,
                       ffn=128, vocab=1024, max_pos=16),
}


def pin_inputs(model, dims):
    """Gives every symbolic input dim a value from `dims` (by name), and
    drops the outputs' symbolic dims' names, which no longer mean anything."""
    for v in model.graph.input:
        for d in v.type.tensor_type.shape.dim:
            if d.HasField("dim_param"):
                d.dim_value = dims[d.dim_param]
    for v in model.graph.output:
        for d in v.type.tensor_type.shape.dim:
            if d.HasField("dim_param") and d.dim_param in dims:
                d.dim_value = dims[d.dim_param]
    return model


def widen_index_tables(model, rows=16):
    """Repeats the rows of every table a graph input indexes (Gather's data,
    the embedding layer norms' word and segment tables) up to `rows`, so
    that the fuzzer's random integers (-4 to 11) stay in range."""
    inputs = {v.name for v in model.graph.input}
    tables = {t.name: t for t in model.graph.initializer}
    for n in model.graph.node:
        if n.op_type == "Gather":
            axis = next((a.i for a in n.attribute if a.name == "axis"), 0)
            pairs = [(1, 0)]
        elif n.op_type in ("EmbedLayerNormalization", "QEmbedLayerNormalization"):
            axis, pairs = 0, [(0, 2), (1, 4)]
        else:
            continue
        for index, table in pairs:
            if (len(n.input) > table and n.input[index] in inputs
                    and n.input[table] in tables):
                t = tables[n.input[table]]
                a = onnx.numpy_helper.to_array(t)
                if a.ndim and a.shape[axis] < rows:
                    a = np.take(a, np.arange(rows) % a.shape[axis], axis=axis)
                    t.CopyFrom(onnx.numpy_helper.from_array(a, t.name))
    return model


def bool_mask(model, name="attention_mask"):
    """The int64 mask input becomes a bool one, cast to int64 first: random
    bools are 0 and 1, where random integers would make every row NaN
    through MiniLM's (1 - mask) * f32_min."""
    for v in model.graph.input:
        if v.name == name:
            v.name = name + "_bool"
            v.type.tensor_type.elem_type = onnx.TensorProto.BOOL
            model.graph.node.insert(0, onnx.helper.make_node(
                "Cast", [v.name], [name], to=onnx.TensorProto.INT64, name="mask_cast"))
    return model


def encoder(name):
    make_models.TRANSFORMER_CONFIGS.setdefault(name, TINY_ENCODERS[name])
    model, _ = make_models.build_transformer(name, seed=7)
    return bool_mask(widen_index_tables(pin_inputs(model, {"batch": BATCH, "sequence": SEQ})))


def encoder_feeds(count, seed):
    r = np.random.default_rng(seed)
    return [{"input_ids": r.integers(0, 40, (BATCH, SEQ)).astype(np.int64),
             "attention_mask_bool": r.random((BATCH, SEQ)) < 0.8,
             "token_type_ids": r.integers(0, 16, (BATCH, SEQ)).astype(np.int64)}
            for _ in range(count)]


def cnn_feeds(count, seed):
    r = np.random.default_rng(seed)
    return [{"x": r.standard_normal((1, 5, 19, 23)).astype(np.float32)} for _ in range(count)]


def image_cnn(name, seed, width=8):
    """A ResNet- or MobileNetV2-shaped classifier of a [1, 3, 16, 16] image
    as torch exports it: Conv + BatchNormalization + Relu (or Clip 0..6),
    MaxPool, residual Adds (a strided 1x1 shortcut), an inverted residual
    with a depthwise conv and a linear bottleneck, GlobalAveragePool,
    Flatten, Gemm. `width`: the first conv's channels (the rest scale with
    it; at 16 --quantize int8 takes MobileNet's 1x1 convs, at least 512
    multiply-adds a position)."""
    w1, w2, w3 = width, 2 * width, 3 * width
    from onnx import TensorProto, helper
    r = np.random.default_rng(seed)
    inits, nodes = [], []

    def const(value):
        tname = f"c{len(inits)}"
        inits.append(onnx.numpy_helper.from_array(np.asarray(value, np.float32), tname))
        return tname

    def node(op, inputs, **attrs):
        out = f"t{len(nodes)}"
        nodes.append(helper.make_node(op, inputs, [out], name=f"{op.lower()}{len(nodes)}",
                                      **attrs))
        return out

    def conv_bn(x, cin, cout, k, stride=1, group=1, act="relu"):
        w = r.standard_normal((cout, cin // group, k, k)) * np.sqrt(2 / (cin // group * k * k))
        y = node("Conv", [x, const(w)], kernel_shape=[k, k], strides=[stride, stride],
                 pads=[k // 2] * 4, group=group)
        y = node("BatchNormalization", [y, const(1 + 0.1 * r.standard_normal(cout)),
                                        const(0.1 * r.standard_normal(cout)),
                                        const(0.1 * r.standard_normal(cout)),
                                        const(0.5 + r.random(cout))], epsilon=1e-5)
        if act == "relu":
            y = node("Relu", [y])
        elif act == "relu6":
            y = node("Clip", [y, const(0.0), const(6.0)])
        return y

    x = "x"
    if name.startswith("tiny_resnet"):
        h = node("MaxPool", [conv_bn(x, 3, w1, 3, 2)], kernel_shape=[3, 3], strides=[2, 2],
                 pads=[1, 1, 1, 1])
        b = conv_bn(conv_bn(h, w1, w1, 3), w1, w1, 3, act=None)
        h = node("Relu", [node("Add", [b, h])])
        b = conv_bn(conv_bn(h, w1, w2, 3, 2), w2, w2, 3, act=None)
        h = node("Relu", [node("Add", [b, conv_bn(h, w1, w2, 1, 2, act=None)])])
        c = w2
    else:
        h = conv_bn(x, 3, w1, 3, 2, act="relu6")
        b = conv_bn(conv_bn(conv_bn(h, w1, w3, 1, act="relu6"), w3, w3, 3, group=w3,
                            act="relu6"), w3, w1, 1, act=None)
        h = node("Add", [h, b])
        h = conv_bn(conv_bn(conv_bn(h, w1, w3, 1, act="relu6"), w3, w3, 3, 2, group=w3,
                            act="relu6"), w3, w1 * 3 // 2, 1, act=None)
        h = node("HardSwish", [conv_bn(h, w1 * 3 // 2, w2, 1, act=None)])
        c = w2
    h = node("Flatten", [node("GlobalAveragePool", [h])], axis=1)
    node("Gemm", [h, const(0.3 * r.standard_normal((10, c))), const(r.standard_normal(10))],
         transB=1)
    nodes[-1].output[0] = "logits"
    graph = helper.make_graph(
        nodes, name, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 16, 16])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, 10])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
    model.ir_version = 8
    return model


def quantized(src, dst, feeds, fmt, per_channel):
    from onnxruntime.quantization import QuantFormat, QuantType, quantize_static
    quantize_static(src, dst, test_int8.Samples(feeds),
                    quant_format=QuantFormat.QDQ if fmt == "qdq" else QuantFormat.QOperator,
                    activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8,
                    per_channel=per_channel)


def write_seeds(out):
    from onnxruntime.quantization import QuantType, quantize_dynamic
    os.makedirs(out, exist_ok=True)
    written = []

    def save(model, name):
        path = os.path.join(out, name + ".onnx")
        onnx.save(model, path)
        written.append(path)
        return path

    for name in TINY_ENCODERS:
        save(encoder(name), name)
    minilm = os.path.join(out, "tiny_minilm.onnx")
    quantize_dynamic(minilm, os.path.join(out, "tiny_minilm_dynamic.onnx"),
                     weight_type=QuantType.QInt8)
    quantized(minilm, os.path.join(out, "tiny_minilm_qdq.onnx"), encoder_feeds(4, 1), "qdq",
              per_channel=True)
    quantized(minilm, os.path.join(out, "tiny_minilm_qoperator.onnx"), encoder_feeds(4, 2),
              "qoperator", per_channel=False)
    written += [os.path.join(out, f"tiny_minilm_{k}.onnx")
                for k in ("dynamic", "qdq", "qoperator")]

    save(test_attention_op.attention_model()[0], "attention23")
    save(test_attention_op.decoder_layer_model()[0], "decoder_layer")
    save(test_attention_op.decoder_layer_model(seq=3, past=2, block=True)[0], "decoder_block")
    path = os.path.join(out, "contrib_attention.onnx")
    test_onnxruntime_attention.attention_ops_model(path)
    onnx.save(widen_index_tables(onnx.load(path)), path)
    written.append(path)
    path = os.path.join(out, "multi_head_attention.onnx")
    test_onnxruntime_attention.multi_head_attention_model(path)
    written.append(path)

    for name in ("tiny_resnet", "tiny_mobilenet"):
        src = save(image_cnn(name, 9), name)
        r = np.random.default_rng(4)
        feeds = [{"x": r.standard_normal((1, 3, 16, 16)).astype(np.float32)} for _ in range(4)]
        for fmt, per_channel in (("qdq", True), ("qoperator", False)):
            dst = os.path.join(out, f"{name}_{fmt}.onnx")
            quantized(src, dst, feeds, fmt, per_channel)
            written.append(dst)

    save(image_cnn("tiny_mobilenet", 9, width=16), "mobilenet_w16")

    for build in (test_int8.small_cnn, test_int8.hard_swish_block_cnn,
                  test_int8.wide_depthwise_cnn):
        name = build.__name__
        src = os.path.join(out, name + ".onnx")
        build(src, 5)
        written.append(src)
        for fmt, per_channel in (("qdq", True), ("qoperator", False)):
            dst = os.path.join(out, f"{name}_{fmt}.onnx")
            quantized(src, dst, cnn_feeds(4, 3), fmt, per_channel)
            written.append(dst)
    return written


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", required=True)
    args = p.parse_args()
    logging.disable(logging.WARNING)  # (quantize_static's advice to pre-process)
    for path in write_seeds(args.out):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
