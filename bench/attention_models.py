#!/usr/bin/env python3
"""Writes the attention shapes of LLM-style decoders as ONNX models, for
bench/compare.py (nunc against onnxruntime in the same run):

  attention_mha.onnx      ai.onnx Attention (opset 23), 4-D, 8 heads of 64,
                          S = T = 256
  attention_gqa.onnx      the same with 8 query heads on 2 key heads, causal
  decoder_prefill.onnx    a torch-exported decoder attention layer (the e2e
                          test's decoder_layer_model: projections, rotary
                          embedding, past, repeat_kv, SDPA scaling), 8 heads
                          of 64 on 2, S 128 after a past of 128
  decoder_step.onnx       the same, one token after a past of 255
  block_prefill.onnx      the whole decoder block (RMSNorm, that attention,
                          RMSNorm, a SwiGLU MLP 1536 wide, residuals), S 128
                          after a past of 128
  block_step.onnx         the same, one token after a past of 255

Usage: python3 bench/attention_models.py OUT_DIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import helper as h

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path[:0] = [os.path.join(ROOT, "test", "e2e"), os.path.join(ROOT, "examples", "models")]
from test_attention_op import decoder_layer_model  # noqa: E402

F = onnx.TensorProto.FLOAT


def attention_op_model(heads, kv_heads, seq, head_dim, causal):
    shapes = {"q": [1, heads, seq, head_dim], "k": [1, kv_heads, seq, head_dim],
              "v": [1, kv_heads, seq, head_dim]}
    node = h.make_node("Attention", ["q", "k", "v"], ["y"], is_causal=int(causal))
    graph = h.make_graph([node], "attention",
                         [h.make_tensor_value_info(n, F, s) for n, s in shapes.items()],
                         [h.make_tensor_value_info("y", F, None)])
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", 23)])
    model.ir_version = 10
    return model


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    models = {
        "attention_mha": attention_op_model(8, 8, 256, 64, False),
        "attention_gqa": attention_op_model(8, 2, 256, 64, True),
        "decoder_prefill": decoder_layer_model(1, 128, 128, 8, 2, 64)[0],
        "decoder_step": decoder_layer_model(1, 1, 255, 8, 2, 64)[0],
        "block_prefill": decoder_layer_model(1, 128, 128, 8, 2, 64, block=True)[0],
        "block_step": decoder_layer_model(1, 1, 255, 8, 2, 64, block=True)[0],
    }
    for name, model in models.items():
        onnx.save(model, os.path.join(out, name + ".onnx"))
        print(os.path.join(out, name + ".onnx"))


if __name__ == "__main__":
    main()
