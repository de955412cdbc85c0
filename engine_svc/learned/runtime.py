"""Which runtime runs the policy/value net: ONNX Runtime when it is installed
(measured about 5x numpy's forward passes at batch 1 and 3.7x at batch 8,
docs/results/learned.md), else numpy. ``C4_NET_RUNTIME`` chooses:
``auto`` (the default), ``onnxruntime`` or ``numpy``."""

from __future__ import annotations

import os
from functools import lru_cache
from importlib.util import find_spec
from typing import TYPE_CHECKING, Union

import numpy as np

from .weights import WeightsError

if TYPE_CHECKING:
    from .onnxnet import OnnxPolicyValueNet
    from .pvnet import PolicyValueNet

PvNet = Union["PolicyValueNet", "OnnxPolicyValueNet"]
RUNTIMES = ("onnxruntime", "numpy")


@lru_cache(maxsize=1)  # asked at every player made; what is installed does not change in a process
def onnx_installed() -> bool:
    return find_spec("onnxruntime") is not None and find_spec("onnx") is not None


def chosen_runtime() -> str:
    """The runtime ``C4_NET_RUNTIME`` names; a bad name or a missing runtime raises WeightsError."""
    want = os.environ.get("C4_NET_RUNTIME", "auto").strip() or "auto"
    if want == "auto":
        return "onnxruntime" if onnx_installed() else "numpy"
    if want not in RUNTIMES:
        raise WeightsError(f"C4_NET_RUNTIME={want!r}: expected auto, onnxruntime or numpy")
    if want == "onnxruntime" and not onnx_installed():
        raise WeightsError("C4_NET_RUNTIME=onnxruntime, but onnxruntime and onnx are not both installed")
    return want


def make_pv(meta: dict, arrays: dict[str, np.ndarray], runtime: str) -> PvNet:
    """A pv net over checked weights in ``runtime``; both answer ``forward(planes)`` alike."""
    if runtime == "onnxruntime":
        from .onnxnet import OnnxPolicyValueNet

        return OnnxPolicyValueNet(meta, arrays)
    from .pvnet import PolicyValueNet

    return PolicyValueNet(meta, arrays)
