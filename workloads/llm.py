#!/usr/bin/env python3
"""LLM inference: a Llama-style decoder with seeded random weights, prefill + greedy decode.

Plain torch (RMSNorm, RoPE, grouped-query attention through scaled_dot_product_attention,
SwiGLU, a static KV cache). Decode is captured in a CUDA graph (static cache, device-side
position) so it is not bound by kernel launches; eager when capture fails or on request, and
the mode used is named (decode_mode). Each measured request reports TTFT, TPOT, ITL per token,
E2E and output tokens/s. Offline: no download; --model-path loads a local Hugging Face model
when transformers is importable. --device cpu runs the tiny preset, in NumPy when torch is absent.
"""

import sys
import time

_T0 = (time.time(), time.perf_counter())
sys.dont_write_bytecode = True

import os  # noqa: E402

_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

import _protocol as P  # noqa: E402
import _torchutil as TU  # noqa: E402
# The three backends (torch, Hugging Face through torch, NumPy) live in their own modules; their building
# blocks are named here too, for the tests that load this file as a module.
from _llm_common import DIM_ARGS, PRESETS, param_count  # noqa: E402,F401
from _llm_numpy import NumpyLlama, NumpySession, run_numpy  # noqa: E402,F401
from _llm_torch import TorchLlama, TorchSession, run_torch  # noqa: E402,F401

# The start event's parameters, in this order: each the command-line argument of the same name, but the
# model's resolved shape (args.cfg) is recorded as "model".
PARAMS = ("device", "preset", "cfg", "dtype", "batch_sizes", "prompt_lens", "output_lens", "decode_mode", "prefill_mode",
          "backend", "model_path", "warmup", "iters", "seed")
PARAM_NAMES = {"cfg": "model"}


def parse(argv):
    p = P.make_parser("llm", __doc__.splitlines()[0])
    p.add_argument("--preset", choices=sorted(PRESETS), default=None, help="gpu: 1b, cpu: tiny")
    for name in DIM_ARGS:
        p.add_argument("--" + name.replace("_", "-"), type=int, default=None, help="overrides the preset")
    p.add_argument("--rope-theta", type=float, default=None)
    p.add_argument("--dtype", choices=["bf16", "fp16", "fp32"], default=None, help="gpu: bf16, cpu: fp32")
    p.add_argument("--batch-sizes", type=P.int_list, default=None, help="comma list (gpu 8, cpu 2)")
    p.add_argument("--prompt-lens", type=P.int_list, default=None, help="comma list (gpu 512, cpu 16)")
    p.add_argument("--output-lens", type=P.int_list, default=None, help="comma list, each >= 2 (gpu 128, cpu 8)")
    p.add_argument("--decode-mode", choices=["graph", "eager"], default="graph", help="graph falls back to eager")
    p.add_argument("--prefill-mode", choices=["graph", "eager"], default="graph", help="graph falls back to eager")
    p.add_argument("--backend", choices=["torch", "numpy"], default=None, help="gpu: torch; cpu: torch, else numpy")
    p.add_argument("--model-path", default=None, help="local Hugging Face model folder (needs transformers)")
    p.add_argument("--no-verify", action="store_true", help="skip comparing graph tokens with eager tokens")
    args = p.parse_args(argv)
    gpu = args.device == "gpu"
    if gpu:
        TU.gpu_index()  # validate GPU_OVERHEAD_GPU before anything is imported
    # Two whole warm-up requests on a GPU after the (short) graph verification: the first measured
    # requests were as fast as the rest after that on an H100 and an H200 (docs/evidence/2026-11-23-*).
    P.check_counts(args, 2 if gpu else 1, 20 if gpu else 5)
    args.preset = args.preset or ("1b" if gpu else "tiny")
    cfg = dict(PRESETS[args.preset])
    for name in DIM_ARGS:
        v = getattr(args, name)
        if v is not None:
            if v < 1:
                raise P.WorkloadError("bad_args", "--%s must be >= 1, got %d" % (name.replace("_", "-"), v))
            cfg[name] = v
    if args.rope_theta is not None:
        cfg["rope_theta"] = args.rope_theta
    if cfg["dim"] % cfg["heads"]:
        raise P.WorkloadError("bad_args", "--dim %d is not a multiple of --heads %d" % (cfg["dim"], cfg["heads"]))
    if cfg["heads"] % cfg["kv_heads"]:
        raise P.WorkloadError("bad_args", "--heads %d is not a multiple of --kv-heads %d" % (cfg["heads"], cfg["kv_heads"]))
    if (cfg["dim"] // cfg["heads"]) % 2:
        raise P.WorkloadError("bad_args", "head size dim/heads = %d must be even (RoPE)" % (cfg["dim"] // cfg["heads"]))
    args.cfg = cfg
    args.dtype = args.dtype or ("bf16" if gpu else "fp32")
    args.batch_sizes = args.batch_sizes or ([8] if gpu else [2])
    args.prompt_lens = args.prompt_lens or ([512] if gpu else [16])
    args.output_lens = args.output_lens or ([128] if gpu else [8])
    if min(args.output_lens) < 2:
        raise P.WorkloadError("bad_args", "--output-lens must be >= 2 (TPOT needs two tokens), got %s" % args.output_lens)
    if args.backend == "numpy" and gpu:
        raise P.WorkloadError("bad_args", "--backend numpy runs on the CPU only: add --device cpu")
    if args.model_path is not None:
        if args.backend == "numpy":
            raise P.WorkloadError("bad_args", "--model-path needs --backend torch")
        if not os.path.isdir(args.model_path):
            raise P.WorkloadError("bad_args", "--model-path %r is not a folder" % args.model_path)
    return args


def main(proto, argv):
    args = parse(argv)
    params = {PARAM_NAMES.get(name, name): getattr(args, name) for name in PARAMS}
    proto.start(params)
    if args.backend == "numpy":
        return run_numpy(proto, args, time.perf_counter())
    t = time.perf_counter()
    required = args.device == "gpu" or args.backend == "torch" or args.model_path is not None
    torch = TU.import_torch(required=required)
    if torch is not None and not hasattr(torch.nn.functional, "scaled_dot_product_attention"):
        # torch < 2.0 (e.g. Debian's 1.13): no fused attention to measure; NumPy serves the CPU default.
        if required:
            raise P.WorkloadError("missing_backend", "the llm workload needs torch >= 2.0 (scaled_dot_product_attention); found torch %s" % torch.__version__)
        torch = None
    if torch is None:
        return run_numpy(proto, args, t)
    run_torch(proto, args, torch, t)



if __name__ == "__main__":
    P.run(P.Protocol("llm", *_T0), main)
