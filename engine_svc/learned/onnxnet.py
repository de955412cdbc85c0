"""The policy/value net's forward pass in ONNX Runtime, built from the shipped weights.

The graph is made when the net loads, from the same ``.npz`` arrays the numpy
runtime (:mod:`.pvnet`) reads, so one file ships and both runtimes run the
same weights: Conv 3x3 (pads 1) + Relu stem, B residual blocks (Conv, Relu,
Conv, Add, Relu), policy head (Conv 1x1, Relu, Flatten, Gemm) and value head
(Conv 1x1, Relu, Flatten, Gemm, Relu, Gemm, Tanh). Flatten keeps (channel,
row, column) order per position, as the trainer's reshape does. One thread,
sequential execution: a move's search is one core's work (docs/learned.md
has the measured speed of both runtimes).
"""

from __future__ import annotations

import numpy as np

OPSET = 17


def graph_bytes(meta: dict, arrays: dict[str, np.ndarray]) -> bytes:
    """The serialized ONNX model of a pv net with these weights."""
    from onnx import TensorProto, checker, helper, numpy_helper

    init, nodes = [], []

    def weight(name: str) -> str:
        init.append(numpy_helper.from_array(np.asarray(arrays[name], dtype=np.float32), name))
        return name

    def op(kind: str, inputs: list[str], out: str, **attrs) -> str:
        nodes.append(helper.make_node(kind, inputs, [out], **attrs))
        return out

    def conv(x: str, layer: str, k: int) -> str:
        return op("Conv", [x, weight(layer + ".w"), weight(layer + ".b")], layer + ".out",
                  kernel_shape=[k, k], pads=[k // 2] * 4)

    def dense(x: str, layer: str) -> str:
        return op("Gemm", [x, weight(layer + ".w"), weight(layer + ".b")], layer + ".out", transB=1)

    x = op("Relu", [conv("planes", "stem", 3)], "stem.relu")
    for i in range(int(meta["blocks"])):
        y = op("Relu", [conv(x, f"block{i}.conv1", 3)], f"block{i}.relu1")
        y = op("Add", [x, conv(y, f"block{i}.conv2", 3)], f"block{i}.add")
        x = op("Relu", [y], f"block{i}.relu2")
    p = op("Flatten", [op("Relu", [conv(x, "policy.conv", 1)], "policy.relu")], "policy.flat", axis=1)
    op("Identity", [dense(p, "policy.fc")], "logits")
    v = op("Flatten", [op("Relu", [conv(x, "value.conv", 1)], "value.relu")], "value.flat", axis=1)
    v = op("Relu", [dense(v, "value.fc1")], "value.fc1.relu")
    op("Tanh", [dense(v, "value.fc2")], "value")
    graph = helper.make_graph(
        nodes, "pv", [helper.make_tensor_value_info("planes", TensorProto.FLOAT, ["n", 2, 6, 7])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["n", 7]),
         helper.make_tensor_value_info("value", TensorProto.FLOAT, ["n", 1])], init)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    checker.check_model(model)
    return model.SerializeToString()


class OnnxPolicyValueNet:
    """``forward(planes)`` -> (policy logits (n, 7), value (n,) in [-1, 1]), as :class:`.pvnet.PolicyValueNet`."""

    runtime = "onnxruntime"

    def __init__(self, meta: dict, arrays: dict[str, np.ndarray]):
        import onnxruntime as ort

        self.meta = meta
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.log_severity_level = 3  # errors only: no start-up notices in the services' logs
        self.session = ort.InferenceSession(graph_bytes(meta, arrays), options, providers=["CPUExecutionProvider"])

    def forward(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        logits, value = self.session.run(None, {"planes": np.ascontiguousarray(x, dtype=np.float32)})
        return logits, value[:, 0]
