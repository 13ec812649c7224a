"""The encoder's forward pass in onnxruntime, with int8 weights (dynamic quantization, one scale per
output channel), where onnxruntime is installed: measured here about three times faster than the
numpy pass (:class:`kg.extract.encoder.BertEncoder`) for the same abstract, one thread each. The graph
ships as ``kg/models/learned_encoder.onnx`` beside the model's ``.npz``; without onnxruntime, or
without that file, the numpy pass runs instead (the same weights, in float32 from their int8 storage).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from pathlib import Path

import numpy as np

THREADS = 1  # one thread, as the cost target is measured


def available(path: Path) -> bool:
    return path.is_file() and importlib.util.find_spec("onnxruntime") is not None


class OnnxEncoder:
    """Same call as :class:`kg.extract.encoder.BertEncoder`: hidden states ``(len(ids), longest, hidden)``."""

    def __init__(self, path: Path, *, threads: int = THREADS) -> None:
        import onnxruntime

        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        self.session = onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])

    def __call__(self, ids: Sequence[Sequence[int]]) -> np.ndarray:
        length = max(len(seq) for seq in ids)
        batch = np.zeros((len(ids), length), dtype=np.int64)
        mask = np.zeros((len(ids), length), dtype=np.float32)
        for row, seq in enumerate(ids):
            batch[row, : len(seq)] = seq
            mask[row, : len(seq)] = 1
        return self.session.run(None, {"ids": batch, "mask": mask})[0]


def export(bert, path: Path) -> Path:
    """Write the torch encoder ``bert`` (:func:`kg.extract.bert_torch.bert_module`) as an int8 ONNX graph
    (training only: needs torch, onnx and onnxruntime)."""
    import tempfile

    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic

    bert = bert.eval()
    ids = torch.randint(1000, 20000, (1, 64))
    mask = torch.ones(1, 64)
    with tempfile.TemporaryDirectory() as tmp:
        full = Path(tmp) / "encoder.onnx"
        torch.onnx.export(
            bert,
            (ids, mask),
            str(full),
            input_names=["ids", "mask"],
            output_names=["hidden"],
            dynamic_axes={
                "ids": {0: "batch", 1: "pieces"},
                "mask": {0: "batch", 1: "pieces"},
                "hidden": {0: "batch", 1: "pieces"},
            },
            opset_version=17,
            dynamo=False,
        )
        quantize_dynamic(str(full), str(path), weight_type=QuantType.QInt8, per_channel=True)
    return path
