"""A pytest-benchmark suite for gpu-overhead-action's `commands` (route: a tool's result file).

Small CPU steps of an inference pipeline (NumPy and the standard library): pytest-benchmark times each test
for several rounds, and `--benchmark-json` writes every round's time into the run's own folder (`{out}`),
which the action reads with `command-formats: NAME=pytest-benchmark` (seconds, lower is better).

    - uses: org/gpu-overhead-action@v1  # or a full commit SHA (README, "Pinning")
      with:
        image: nvcr.io/nvidia/pytorch:25.10-py3@sha256:…
        commands: |
          pyb: python3 -B -m pytest -q -p no:cacheprovider examples/workloads/test_bench.py --benchmark-storage={out}/s --benchmark-json={out}/pyb.json
        command-formats: |
          pyb=pytest-benchmark

Nothing is written beside the tests (the container sees the workspace read-only; natively it is your checkout):
`-B` (no bytecode), `-p no:cacheprovider` (no .pytest_cache) and `--benchmark-storage` in `{out}` (pytest-benchmark
creates its storage folder at start even when nothing is saved); the JSON goes to `{out}`, the run's own folder.
"""

import json
import re

import numpy as np

rng = np.random.default_rng(0)
LOGITS = rng.standard_normal((32, 512)).astype(np.float32)
HIDDEN = rng.standard_normal((64, 256)).astype(np.float32)
TEXT = " ".join(["The container ran the same model, with the same weights, on the same data."] * 40)


def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def layer_norm(x, eps=1e-5):
    mu = x.mean(axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(x.var(axis=-1, keepdims=True) + eps)


def tokenize(text):
    vocab = {}
    return [vocab.setdefault(w, len(vocab)) for w in re.findall(r"\w+|[^\w\s]", text.lower())]


def test_softmax(benchmark):
    p = benchmark(softmax, LOGITS)
    assert np.allclose(p.sum(axis=-1), 1.0, atol=1e-4)


def test_layer_norm(benchmark):
    y = benchmark(layer_norm, HIDDEN)
    assert abs(float(y.mean())) < 1e-3


def test_tokenize(benchmark):
    ids = benchmark(tokenize, TEXT)
    assert len(ids) > 500


def test_json_roundtrip(benchmark):
    batch = {"inputs": [{"id": i, "tokens": list(range(64))} for i in range(32)]}
    assert benchmark(lambda: json.loads(json.dumps(batch))) == batch
