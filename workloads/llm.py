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

import itertools  # noqa: E402
import math  # noqa: E402
import os  # noqa: E402

_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

import _gpu_memory  # noqa: E402
import _protocol as P  # noqa: E402
import _stack  # noqa: E402

PRESETS = {
    "tiny": {"dim": 64, "layers": 2, "heads": 4, "kv_heads": 2, "ffn": 172, "vocab": 256, "rope_theta": 10000.0},
    # TinyLlama-1.1B's shape
    "1b": {"dim": 2048, "layers": 22, "heads": 32, "kv_heads": 4, "ffn": 5632, "vocab": 32000, "rope_theta": 10000.0},
    # Llama-3-8B's shape
    "8b": {"dim": 4096, "layers": 32, "heads": 32, "kv_heads": 8, "ffn": 14336, "vocab": 128256, "rope_theta": 500000.0},
}
DIM_ARGS = ("dim", "layers", "heads", "kv_heads", "ffn", "vocab")
NORM_EPS = 1e-5
INIT_STD = 0.02  # small, so activations and logits stay finite with random weights


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
    p.add_argument("--backend", choices=["torch", "numpy"], default=None, help="gpu: torch; cpu: torch, else numpy")
    p.add_argument("--model-path", default=None, help="local Hugging Face model folder (needs transformers)")
    p.add_argument("--no-verify", action="store_true", help="skip comparing graph tokens with eager tokens")
    args = p.parse_args(argv)
    gpu = args.device == "gpu"
    if gpu:
        P.gpu_index()  # validate GPU_OVERHEAD_GPU before anything is imported
    P.check_counts(args, 3 if gpu else 1, 20 if gpu else 5)
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


def configs(args):
    return [
        {"batch_size": b, "prompt_len": p, "output_len": o, "config": "b%d_p%d_o%d" % (b, p, o)}
        for b, p, o in itertools.product(args.batch_sizes, args.prompt_lens, args.output_lens)
    ]


def dtype_bytes(torch, dtype):
    return torch.empty((), dtype=dtype).element_size()


def kv_bytes_per_token(cfg, itemsize):
    """KV-cache bytes one token costs: K and V, every layer, every KV head."""
    head_dim = cfg["dim"] // cfg["heads"]
    return 2 * cfg["layers"] * cfg["kv_heads"] * head_dim * itemsize


def param_count(cfg):
    d, f, v = cfg["dim"], cfg["ffn"], cfg["vocab"]
    hd = d // cfg["heads"]
    per_layer = d * (cfg["heads"] + 2 * cfg["kv_heads"]) * hd + cfg["heads"] * hd * d + 3 * d * f + 2 * d
    return 2 * v * d + cfg["layers"] * per_layer + d


# ---- measurement common to every backend ------------------------------------------------------


class Recorder:
    """Turns per-request timestamps into samples; keeps what the summary needs."""

    def __init__(self, proto):
        self.proto = proto
        self.iteration = 0
        self.per_config = []

    def begin(self, conf):
        self.cur = {"conf": conf, "ttft": [], "tpot": [], "e2e": [], "tps": [], "itl": []}

    def request(self, t0, stamps):
        """t0: request start; stamps[i]: time token i+1 was available on the host."""
        c = self.cur["conf"]
        self.iteration += 1
        it = self.iteration
        out = c["output_len"]
        ttft = (stamps[0] - t0) * 1e3
        e2e = (stamps[-1] - t0) * 1e3
        tpot = (e2e - ttft) / (out - 1)
        tps = c["batch_size"] * out / (e2e / 1e3)
        fields = {"config": c["config"], "batch_size": c["batch_size"], "prompt_len": c["prompt_len"], "output_len": out}
        # TTFT and TPOT are the gated questions; E2E = TTFT + TPOT·(n−1), tokens/s and ITL follow from them.
        self.proto.sample("ttft_ms", ttft, "ms", it, "lower", **fields)
        self.proto.sample("tpot_ms", tpot, "ms", it, "lower", **fields)
        self.proto.sample("e2e_ms", e2e, "ms", it, "lower", derived_from="ttft_ms,tpot_ms", **fields)
        self.proto.sample("tokens_per_s", tps, "tokens/s", it, "higher", derived_from="e2e_ms", **fields)
        for i in range(1, len(stamps)):
            gap = (stamps[i] - stamps[i - 1]) * 1e3
            self.cur["itl"].append(gap)
            self.proto.sample("itl_ms", gap, "ms", it, "lower", derived_from="tpot_ms", token=i + 1, **fields)
        self.cur["ttft"].append(ttft)
        self.cur["tpot"].append(tpot)
        self.cur["e2e"].append(e2e)
        self.cur["tps"].append(tps)

    def end(self, measured_s, energy_j, extra=None):
        c = self.cur
        conf = c["conf"]
        tokens = conf["batch_size"] * conf["output_len"] * len(c["e2e"])
        row = dict(conf)
        row.update(
            {
                "requests": len(c["e2e"]),
                "ttft_ms": P.describe(c["ttft"]),
                "tpot_ms": P.describe(c["tpot"]),
                "e2e_ms": P.describe(c["e2e"]),
                "tokens_per_s": P.describe(c["tps"]),
                "itl_ms": {
                    "n": len(c["itl"]),
                    "p50": P.percentile(c["itl"], 50),
                    "p90": P.percentile(c["itl"], 90),
                    "p99": P.percentile(c["itl"], 99),
                    "max": max(c["itl"]) if c["itl"] else None,
                },
                "measured_s": measured_s,
                "energy_j": energy_j,
                "output_tokens": tokens,
                "tokens_per_j": (tokens / energy_j) if energy_j else None,
            }
        )
        if extra:
            row.update(extra)
        self.per_config.append(row)

    def summary_facts(self):
        rows = self.per_config
        energies = [r["energy_j"] for r in rows]
        energy = sum(energies) if rows and all(e is not None for e in energies) else None
        measured = sum(r["measured_s"] for r in rows)
        facts = {"configs": rows, "measured_s": measured, "energy_j": energy}
        if energy:
            facts["tokens_per_j"] = sum(r["output_tokens"] for r in rows) / energy
        if len(rows) == 1:  # flat headline numbers for the common single-config run
            r = rows[0]
            facts.update(
                {
                    "ttft_ms_median": r["ttft_ms"].get("median"),
                    "tpot_ms_median": r["tpot_ms"].get("median"),
                    "tpot_cv_pct": r["tpot_ms"].get("cv_pct"),
                    "e2e_ms_median": r["e2e_ms"].get("median"),
                    "tokens_per_s_median": r["tokens_per_s"].get("median"),
                    "tokens_per_s_cv_pct": r["tokens_per_s"].get("cv_pct"),
                    "itl_ms_p50": r["itl_ms"]["p50"],
                    "itl_ms_p90": r["itl_ms"]["p90"],
                    "itl_ms_p99": r["itl_ms"]["p99"],
                }
            )
        return facts


def main(proto, argv):
    args = parse(argv)
    params = {
        "device": args.device,
        "preset": args.preset,
        "model": args.cfg,
        "dtype": args.dtype,
        "batch_sizes": args.batch_sizes,
        "prompt_lens": args.prompt_lens,
        "output_lens": args.output_lens,
        "decode_mode": args.decode_mode,
        "backend": args.backend,
        "model_path": args.model_path,
        "warmup": args.warmup,
        "iters": args.iters,
        "seed": args.seed,
    }
    proto.start(params)
    if args.backend == "numpy":
        return run_numpy(proto, args, time.perf_counter())
    t = time.perf_counter()
    torch = P.import_torch(required=args.device == "gpu" or args.backend == "torch" or args.model_path is not None)
    if torch is None:
        return run_numpy(proto, args, t)
    run_torch(proto, args, torch, t)


# ---- torch ----------------------------------------------------------------------------------------


def rms_norm(torch, x, w):
    xf = x.float()
    xf = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + NORM_EPS)
    return xf.to(x.dtype) * w


def rope(torch, x, cos, sin):
    """Rotate-half RoPE; x [B, H, T, hd], cos/sin [T, hd] (or [1, hd])."""
    half = x.shape[-1] // 2
    rot = torch.cat((-x[..., half:], x[..., :half]), dim=-1)
    return x * cos + rot * sin


class TorchLlama:
    """Weights as plain tensors (no autograd, no nn.Module): what the decode graph reads."""

    def __init__(self, torch, cfg, dtype, dev, seed, max_pos):
        import torch.nn.functional as F

        self.torch, self.F, self.cfg, self.dtype, self.dev = torch, F, cfg, dtype, dev
        d, h, kv = cfg["dim"], cfg["heads"], cfg["kv_heads"]
        self.hd = d // h
        self.groups = h // kv
        gen = torch.Generator(device=dev)
        gen.manual_seed(seed)

        def w(*shape):
            return torch.empty(shape, dtype=dtype, device=dev).normal_(0.0, INIT_STD, generator=gen)

        def ones(n):
            return torch.ones(n, dtype=dtype, device=dev)

        self.emb = w(cfg["vocab"], d)
        self.layers = []
        for _ in range(cfg["layers"]):
            self.layers.append(
                {
                    "n1": ones(d),
                    "wqkv": w((h + 2 * kv) * self.hd, d),  # q, k, v fused: one GEMM
                    "wo": w(d, h * self.hd),
                    "n2": ones(d),
                    "w13": w(2 * cfg["ffn"], d),  # gate and up fused
                    "w2": w(d, cfg["ffn"]),
                }
            )
        self.norm = ones(d)
        self.out = w(cfg["vocab"], d)
        inv = 1.0 / (cfg["rope_theta"] ** (torch.arange(0, self.hd, 2, device=dev, dtype=torch.float32) / self.hd))
        freqs = torch.outer(torch.arange(max_pos, device=dev, dtype=torch.float32), inv)
        ang = torch.cat((freqs, freqs), dim=-1)
        self.cos = ang.cos().to(dtype)
        self.sin = ang.sin().to(dtype)

    def _qkv(self, lw, x, B, T, cos, sin):
        c = self.cfg
        hd = self.hd
        qkv = self.F.linear(x, lw["wqkv"])
        q, k, v = qkv.split((c["heads"] * hd, c["kv_heads"] * hd, c["kv_heads"] * hd), dim=-1)
        q = q.view(B, T, c["heads"], hd).transpose(1, 2)
        k = k.view(B, T, c["kv_heads"], hd).transpose(1, 2)
        v = v.view(B, T, c["kv_heads"], hd).transpose(1, 2)
        return rope(self.torch, q, cos, sin), rope(self.torch, k, cos, sin), v

    def _mlp(self, lw, x):
        gate, up = self.F.linear(rms_norm(self.torch, x, lw["n2"]), lw["w13"]).chunk(2, dim=-1)
        return x + self.F.linear(self.F.silu(gate) * up, lw["w2"])

    def _logits(self, x):
        return self.F.linear(rms_norm(self.torch, x[:, -1], self.norm), self.out)

    def prefill(self, tokens, sess=None):
        """Causal pass over the prompt; with a session, fills its cache and next-token buffers."""
        torch, F, c = self.torch, self.F, self.cfg
        B, T = tokens.shape
        kvh, hd, G = c["kv_heads"], self.hd, self.groups
        x = F.embedding(tokens, self.emb)
        cos, sin = self.cos[:T], self.sin[:T]
        for i, lw in enumerate(self.layers):
            q, k, v = self._qkv(lw, rms_norm(torch, x, lw["n1"]), B, T, cos, sin)
            if sess is not None:
                sess.k[i][:, :, :T].copy_(k)
                sess.v[i][:, :, :T].copy_(v)
            # GQA by expanding the kv heads (a view until reshape) so the causal flash path applies
            kk = k.unsqueeze(2).expand(B, kvh, G, T, hd).reshape(B, c["heads"], T, hd)
            vv = v.unsqueeze(2).expand(B, kvh, G, T, hd).reshape(B, c["heads"], T, hd)
            o = F.scaled_dot_product_attention(q, kk, vv, is_causal=True)
            x = x + F.linear(o.transpose(1, 2).reshape(B, T, c["heads"] * hd), lw["wo"])
            x = self._mlp(lw, x)
        logits = self._logits(x)
        if sess is not None:
            sess.tok.copy_(torch.argmax(logits, dim=-1))
            sess.pos.fill_(T)
        return logits

    def decode_step(self, sess):
        """One token for every sequence, reading and writing only the session's static buffers.

        Nothing here depends on Python-side state that changes between steps (the position is
        the device tensor sess.pos), so a CUDA graph of this function can be replayed per token.
        """
        torch, F, c = self.torch, self.F, self.cfg
        B, S, hd = sess.B, sess.S, self.hd
        x = F.embedding(sess.tok.view(B, 1), self.emb)
        cos = self.cos.index_select(0, sess.pos)
        sin = self.sin.index_select(0, sess.pos)
        valid = (sess.arange <= sess.pos).view(1, 1, 1, S)
        for i, lw in enumerate(self.layers):
            q, k, v = self._qkv(lw, rms_norm(torch, x, lw["n1"]), B, 1, cos, sin)
            sess.k[i].index_copy_(2, sess.pos, k)
            sess.v[i].index_copy_(2, sess.pos, v)
            # GQA without copying the cache: the G query heads that share a kv head become G
            # query rows of it; all rows see the same positions 0..pos.
            qg = q.reshape(B, c["kv_heads"], self.groups, hd)
            o = F.scaled_dot_product_attention(qg, sess.k[i], sess.v[i], attn_mask=valid)
            x = x + F.linear(o.reshape(B, 1, c["heads"] * hd), lw["wo"])
            x = self._mlp(lw, x)
        logits = self._logits(x)
        sess.tok.copy_(torch.argmax(logits, dim=-1))
        sess.pos.add_(1)
        return logits


class TorchSession:
    """Static KV cache and input buffers for one (batch, max length); the graph replays on them."""

    def __init__(self, model, B, S):
        torch = model.torch
        c = model.cfg
        self.model, self.B, self.S = model, B, S
        shape = (B, c["kv_heads"], S, model.hd)
        self.k = [torch.zeros(shape, dtype=model.dtype, device=model.dev) for _ in range(c["layers"])]
        self.v = [torch.zeros(shape, dtype=model.dtype, device=model.dev) for _ in range(c["layers"])]
        self.tok = torch.zeros(B, dtype=torch.long, device=model.dev)
        self.pos = torch.zeros(1, dtype=torch.long, device=model.dev)
        self.arange = torch.arange(S, dtype=torch.long, device=model.dev)
        self.graph = None

    def capture(self):
        """Capture decode_step in a CUDA graph (warm-up on a side stream first, as PyTorch documents)."""
        torch = self.model.torch
        self.pos.zero_()
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(3):
                self.model.decode_step(self)
        torch.cuda.current_stream().wait_stream(side)
        torch.cuda.synchronize()
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            self.graph_logits = self.model.decode_step(self)  # static output, refreshed per replay
        torch.cuda.synchronize()
        self.graph = graph

    def step(self, use_graph):
        if use_graph:
            self.graph.replay()
        else:
            self.model.decode_step(self)


def run_torch(proto, args, torch, t_imports):
    gpu = args.device == "gpu"
    if args.model_path:
        try:
            import transformers  # noqa: F401
        except ImportError as e:
            raise P.WorkloadError("missing_backend", "--model-path needs transformers, which is not importable (%s)" % P.short(e))
    proto.phase("imports", t_imports, time.perf_counter())

    t = time.perf_counter()
    dev = P.torch_cuda_init(torch, P.gpu_index()) if gpu else torch.device("cpu")
    proto.phase("device_init", t, time.perf_counter())
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}[args.dtype]
    torch.set_grad_enabled(False)
    confs = configs(args)
    env = P.torch_env(torch, dev)
    env["numpy"] = (sys.modules.get("numpy") and sys.modules["numpy"].__version__) or None

    if args.model_path:
        return run_hf(proto, args, torch, dev, dtype, confs, env)

    # First kernel: weights on the device, then one forward pass (cuBLAS handles, attention and
    # elementwise kernel modules load here).
    t = time.perf_counter()
    max_pos = max(c["prompt_len"] + c["output_len"] for c in confs)
    model = TorchLlama(torch, args.cfg, dtype, dev, args.seed, max_pos)
    probe = torch.zeros((1, min(8, max_pos)), dtype=torch.long, device=dev)
    logits = model.prefill(probe)
    P.sync(torch, dev)
    proto.phase("first_kernel", t, time.perf_counter())
    logits_finite = bool(torch.isfinite(logits.float()).all().item())

    want_graph = gpu and args.decode_mode == "graph"
    energy = P.NvmlEnergy(env.get("device_uuid"), dev.index) if gpu else None
    rec = Recorder(proto)
    gen = torch.Generator()
    gen.manual_seed(args.seed + 1)
    mode_used, mode_reason, verify_rows = [], [], []
    capture_s = 0.0
    warmup_s = 0.0
    env_sent = False
    for conf in confs:
        B, Pl, O = conf["batch_size"], conf["prompt_len"], conf["output_len"]
        sess = TorchSession(model, B, Pl + O)
        prompt_dev = torch.zeros((B, Pl), dtype=torch.long, device=dev)
        use_graph, reason = False, None
        t = time.perf_counter()
        if want_graph:
            try:
                sess.capture()
                use_graph = True
            except Exception as e:  # eager fallback, named in the events
                reason = "graph capture failed: %s: %s" % (type(e).__name__, str(e).strip().splitlines()[0] if str(e).strip() else "")
                print("llm: " + reason + "; decoding eagerly", file=sys.stderr)
                sess.graph = None
                try:
                    torch.cuda.synchronize()
                except Exception:
                    pass
        elif gpu:
            reason = "--decode-mode eager"
        else:
            reason = "cpu"
        capture_s += time.perf_counter() - t

        def prompt():
            host = torch.randint(0, args.cfg["vocab"], (B, Pl), generator=gen)
            return host.pin_memory() if gpu else host

        def request(p_host, graph_on, collect=None):
            P.sync(torch, dev)
            t0 = time.perf_counter()
            prompt_dev.copy_(p_host, non_blocking=True)
            model.prefill(prompt_dev, sess)
            P.sync(torch, dev)
            stamps = [time.perf_counter()]
            if collect is not None:
                collect.append(sess.tok.clone())
            for _ in range(O - 1):
                sess.step(graph_on)
                P.sync(torch, dev)
                stamps.append(time.perf_counter())
                if collect is not None:
                    collect.append(sess.tok.clone())
            return t0, stamps

        t = time.perf_counter()
        verified = None
        if use_graph and not args.no_verify:
            # Same prompt eagerly and through the graph: the tokens must agree, else the graph
            # baked in something it should not have and we decode eagerly instead.
            p_host = prompt()
            eager_toks, graph_toks = [], []
            request(p_host, False, eager_toks)
            request(p_host, True, graph_toks)
            verified = all(bool(torch.equal(a, b)) for a, b in zip(eager_toks, graph_toks))
            if not verified:
                use_graph = False
                reason = "graph tokens differ from eager tokens"
                print("llm: " + reason + "; decoding eagerly", file=sys.stderr)
        for _ in range(args.warmup):
            request(prompt(), use_graph)
        warmup_s += time.perf_counter() - t
        mode = "cuda-graph" if use_graph else "eager"
        mode_used.append(mode)
        mode_reason.append(reason)
        verify_rows.append(verified)

        if not env_sent:
            env.update(
                {
                    "backend": "torch",
                    "decode_mode": mode,
                    "decode_mode_reason": reason,
                    "sdpa_flash": _flag(torch, "flash_sdp_enabled"),
                    "sdpa_mem_efficient": _flag(torch, "mem_efficient_sdp_enabled"),
                    "timer": "perf_counter_after_sync",
                }
            )
            proto.env(env)
            proto.stack(_stack.collect(torch, dev))
            env_sent = True
            if gpu:
                # After the first configuration's warm-up, its KV cache still allocated.
                proto.memory(_gpu_memory.collect(torch, dev, env.get("device_uuid"), kv_bytes_per_token(args.cfg, dtype_bytes(torch, dtype))))

        prompts = [prompt() for _ in range(args.iters)]
        rec.begin(conf)
        P.sync(torch, dev)
        e0 = energy.read_mj() if energy else None
        proto.region("start")
        t_meas = time.perf_counter()
        for p_host in prompts:
            t0, stamps = request(p_host, use_graph)
            rec.request(t0, stamps)
        P.sync(torch, dev)
        measured_s = time.perf_counter() - t_meas
        proto.region("end")
        e1 = energy.read_mj() if energy else None
        energy_j, energy_why = P.energy_result(energy, e0, e1, measured_s)
        rec.end(measured_s, energy_j, {"decode_mode": mode, "graph_verified": verified, "energy_unavailable_reason": energy_why})
        sess.graph = None
        del sess
        if gpu:
            torch.cuda.empty_cache()

    facts = rec.summary_facts()
    modes = sorted(set(mode_used))
    facts.update(
        {
            "backend": "torch",
            "decode_mode": modes[0] if len(modes) == 1 else "mixed",
            "decode_mode_reason": next((r for r in mode_reason if r), None),
            "graph_verified": all(v for v in verify_rows) if all(v is not None for v in verify_rows) else None,
            "preset": args.preset,
            "model": args.cfg,
            "params": param_count(args.cfg),
            "weight_bytes": param_count(args.cfg) * torch.empty((), dtype=dtype).element_size(),
            "dtype": args.dtype,
            "logits_finite": logits_finite,
            "capture_s": capture_s,
            "warmup_s": warmup_s,
            "energy_source": "nvml" if facts.get("energy_j") is not None else None,
            "energy_unavailable_reason": next((r["energy_unavailable_reason"] for r in rec.per_config if r["energy_unavailable_reason"]), None),
            "device_name": env.get("device_name", "cpu"),
        }
    )
    proto.summary(facts)


def _flag(torch, name):
    try:
        return bool(getattr(torch.backends.cuda, name)())
    except Exception:
        return None


def run_hf(proto, args, torch, dev, dtype, confs, env):
    """A local Hugging Face causal LM, decoded eagerly with its own KV cache."""
    from transformers import AutoConfig, AutoModelForCausalLM

    t = time.perf_counter()
    try:
        AutoConfig.from_pretrained(args.model_path, local_files_only=True)
    except Exception as e:
        raise P.WorkloadError("bad_args", "--model-path %r is not a loadable model: %s" % (args.model_path, e))
    try:
        model = AutoModelForCausalLM.from_pretrained(args.model_path, dtype=dtype, local_files_only=True)
    except TypeError:  # transformers < 4.56 names it torch_dtype
        model = AutoModelForCausalLM.from_pretrained(args.model_path, torch_dtype=dtype, local_files_only=True)
    model.to(dev).eval()
    vocab = int(model.config.vocab_size)
    probe = torch.zeros((1, 8), dtype=torch.long, device=dev)
    logits = model(input_ids=probe).logits
    P.sync(torch, dev)
    proto.phase("first_kernel", t, time.perf_counter())
    logits_finite = bool(torch.isfinite(logits.float()).all().item())
    gpu = dev.type == "cuda"
    reason = "transformers model: eager decode"
    env.update({"backend": "transformers", "transformers": sys.modules["transformers"].__version__, "decode_mode": "eager", "decode_mode_reason": reason, "timer": "perf_counter_after_sync"})
    proto.env(env)
    proto.stack(_stack.collect(torch, dev))
    energy = P.NvmlEnergy(env.get("device_uuid"), dev.index) if gpu else None
    gen = torch.Generator()
    gen.manual_seed(args.seed + 1)
    rec = Recorder(proto)
    for conf in confs:
        B, Pl, O = conf["batch_size"], conf["prompt_len"], conf["output_len"]

        def request(p_host):
            P.sync(torch, dev)
            t0 = time.perf_counter()
            ids = p_host.to(dev, non_blocking=True)
            out = model(input_ids=ids, use_cache=True)
            past = out.past_key_values
            nxt = out.logits[:, -1].argmax(-1, keepdim=True)
            P.sync(torch, dev)
            stamps = [time.perf_counter()]
            for _ in range(O - 1):
                out = model(input_ids=nxt, past_key_values=past, use_cache=True)
                past = out.past_key_values
                nxt = out.logits[:, -1].argmax(-1, keepdim=True)
                P.sync(torch, dev)
                stamps.append(time.perf_counter())
            return t0, stamps

        def prompt():
            host = torch.randint(0, vocab, (B, Pl), generator=gen)
            return host.pin_memory() if gpu else host

        for _ in range(args.warmup):
            request(prompt())
        prompts = [prompt() for _ in range(args.iters)]
        rec.begin(conf)
        e0 = energy.read_mj() if energy else None
        proto.region("start")
        t_meas = time.perf_counter()
        for p_host in prompts:
            t0, stamps = request(p_host)
            rec.request(t0, stamps)
        measured_s = time.perf_counter() - t_meas
        proto.region("end")
        e1 = energy.read_mj() if energy else None
        energy_j, energy_why = P.energy_result(energy, e0, e1, measured_s)
        rec.end(measured_s, energy_j, {"decode_mode": "eager", "energy_unavailable_reason": energy_why})
    facts = rec.summary_facts()
    facts.update(
        {
            "backend": "transformers",
            "decode_mode": "eager",
            "decode_mode_reason": reason,
            "model_path": args.model_path,
            "model_type": getattr(model.config, "model_type", None),
            "params": sum(p.numel() for p in model.parameters()),
            "dtype": args.dtype,
            "logits_finite": logits_finite,
            "energy_source": "nvml" if facts.get("energy_j") is not None else None,
            "energy_unavailable_reason": next((r["energy_unavailable_reason"] for r in rec.per_config if r["energy_unavailable_reason"]), None),
            "device_name": env.get("device_name", "cpu"),
        }
    )
    proto.summary(facts)


# ---- numpy (CPU, no torch) -------------------------------------------------------------------------


class NumpyLlama:
    """The same decoder in NumPy (fp32), for CPU runs where torch is absent."""

    def __init__(self, np, cfg, seed, max_pos):
        self.np, self.cfg = np, cfg
        d, h, kv = cfg["dim"], cfg["heads"], cfg["kv_heads"]
        self.hd = d // h
        self.groups = h // kv
        rng = np.random.default_rng(seed)

        def w(*shape):
            return (rng.standard_normal(shape, dtype=np.float32) * INIT_STD).astype(np.float32)

        self.emb = w(cfg["vocab"], d)
        self.layers = [
            {
                "n1": np.ones(d, np.float32),
                "wqkv": w((h + 2 * kv) * self.hd, d),
                "wo": w(d, h * self.hd),
                "n2": np.ones(d, np.float32),
                "w13": w(2 * cfg["ffn"], d),
                "w2": w(d, cfg["ffn"]),
            }
            for _ in range(cfg["layers"])
        ]
        self.norm = np.ones(d, np.float32)
        self.out = w(cfg["vocab"], d)
        inv = 1.0 / (cfg["rope_theta"] ** (np.arange(0, self.hd, 2, dtype=np.float32) / self.hd))
        freqs = np.outer(np.arange(max_pos, dtype=np.float32), inv)
        ang = np.concatenate((freqs, freqs), axis=-1)
        self.cos, self.sin = np.cos(ang).astype(np.float32), np.sin(ang).astype(np.float32)

    def _rms(self, x, w):
        np = self.np
        return (x / np.sqrt((x * x).mean(-1, keepdims=True) + NORM_EPS)) * w

    def _rope(self, x, cos, sin):
        half = x.shape[-1] // 2
        rot = self.np.concatenate((-x[..., half:], x[..., :half]), axis=-1)
        return x * cos + rot * sin

    def _attend(self, q, k, v, mask):
        """q [B, KV, Lq, hd], k/v [B, KV, S, hd], mask [Lq, S] bool (True = attend)."""
        np = self.np
        s = (q @ k.transpose(0, 1, 3, 2)) / math.sqrt(self.hd)
        s = np.where(mask, s, np.float32(-np.inf))
        s = s - s.max(-1, keepdims=True)
        p = np.exp(s)
        p /= p.sum(-1, keepdims=True)
        return p @ v

    def _silu(self, x):
        return x / (1.0 + self.np.exp(-x))

    def forward(self, tokens, sess, start):
        """Tokens [B, T] at positions start..start+T-1; writes the cache; returns last logits."""
        np, c = self.np, self.cfg
        B, T = tokens.shape
        H, KV, hd, G = c["heads"], c["kv_heads"], self.hd, self.groups
        x = self.emb[tokens]
        cos, sin = self.cos[start : start + T], self.sin[start : start + T]
        end = start + T
        # query row (g, t) at position start+t sees keys 0..start+t
        qpos = np.tile(np.arange(start, end), G)
        mask = np.arange(end)[None, :] <= qpos[:, None]
        for i, lw in enumerate(self.layers):
            h = self._rms(x, lw["n1"]) @ lw["wqkv"].T
            q = h[..., : H * hd].reshape(B, T, H, hd).transpose(0, 2, 1, 3)
            k = h[..., H * hd : (H + KV) * hd].reshape(B, T, KV, hd).transpose(0, 2, 1, 3)
            v = h[..., (H + KV) * hd :].reshape(B, T, KV, hd).transpose(0, 2, 1, 3)
            q, k = self._rope(q, cos, sin), self._rope(k, cos, sin)
            sess.k[i][:, :, start:end] = k
            sess.v[i][:, :, start:end] = v
            qg = q.reshape(B, KV, G * T, hd)  # heads kv*G+g -> rows (g, t) of kv head kv
            o = self._attend(qg, sess.k[i][:, :, :end], sess.v[i][:, :, :end], mask)
            o = o.reshape(B, KV, G, T, hd).reshape(B, H, T, hd).transpose(0, 2, 1, 3).reshape(B, T, H * hd)
            x = x + o @ lw["wo"].T
            gu = self._rms(x, lw["n2"]) @ lw["w13"].T
            gate, up = gu[..., : c["ffn"]], gu[..., c["ffn"] :]
            x = x + (self._silu(gate) * up) @ lw["w2"].T
        return self._rms(x[:, -1], self.norm) @ self.out.T


class NumpySession:
    def __init__(self, np, model, B, S):
        c = model.cfg
        shape = (B, c["kv_heads"], S, model.hd)
        self.k = [np.zeros(shape, np.float32) for _ in range(c["layers"])]
        self.v = [np.zeros(shape, np.float32) for _ in range(c["layers"])]


def run_numpy(proto, args, t_imports):
    if args.device != "cpu":
        raise P.WorkloadError("bad_args", "the NumPy decoder runs on the CPU only: add --device cpu")
    try:
        import numpy as np
    except ImportError as e:
        raise P.WorkloadError("missing_backend", "neither torch nor numpy is importable (%s)" % P.short(e))
    proto.phase("imports", t_imports, time.perf_counter())
    if args.dtype != "fp32":
        raise P.WorkloadError("bad_args", "the NumPy decoder runs in fp32 only, got --dtype %s" % args.dtype)
    if args.decode_mode == "graph":
        reason = "numpy backend: no CUDA graphs"
    else:
        reason = "--decode-mode eager"
    t = time.perf_counter()
    proto.phase("device_init", t, time.perf_counter())
    confs = configs(args)
    t = time.perf_counter()
    max_pos = max(c["prompt_len"] + c["output_len"] for c in confs)
    model = NumpyLlama(np, args.cfg, args.seed, max_pos)
    probe_len = min(8, max_pos)
    logits = model.forward(np.zeros((1, probe_len), dtype=np.int64), NumpySession(np, model, 1, probe_len), 0)
    proto.phase("first_kernel", t, time.perf_counter())
    proto.env({"backend": "numpy", "numpy": np.__version__, "torch": None, "cuda": None, "device_name": "cpu", "decode_mode": "eager", "decode_mode_reason": reason, "timer": "perf_counter"})
    proto.stack(_stack.collect(np=np))
    rng = np.random.default_rng(args.seed + 1)
    rec = Recorder(proto)
    for conf in confs:
        B, Pl, O = conf["batch_size"], conf["prompt_len"], conf["output_len"]
        sess = NumpySession(np, model, B, Pl + O)

        def request(prompt):
            t0 = time.perf_counter()
            tok = model.forward(prompt, sess, 0).argmax(-1)
            stamps = [time.perf_counter()]
            for step in range(O - 1):
                tok = model.forward(tok.reshape(B, 1), sess, Pl + step).argmax(-1)
                stamps.append(time.perf_counter())
            return t0, stamps

        for _ in range(args.warmup):
            request(rng.integers(0, args.cfg["vocab"], (B, Pl)))
        prompts = [rng.integers(0, args.cfg["vocab"], (B, Pl)) for _ in range(args.iters)]
        rec.begin(conf)
        proto.region("start")
        t_meas = time.perf_counter()
        for prompt in prompts:
            t0, stamps = request(prompt)
            rec.request(t0, stamps)
        measured_s = time.perf_counter() - t_meas
        proto.region("end")
        rec.end(measured_s, None, {"decode_mode": "eager", "energy_unavailable_reason": "cpu"})
    facts = rec.summary_facts()
    facts.update(
        {
            "backend": "numpy",
            "decode_mode": "eager",
            "decode_mode_reason": reason,
            "preset": args.preset,
            "model": args.cfg,
            "params": param_count(args.cfg),
            "weight_bytes": param_count(args.cfg) * 4,
            "dtype": "fp32",
            "logits_finite": bool(np.isfinite(logits).all()),
            "energy_source": None,
            "energy_unavailable_reason": "cpu",
            "device_name": "cpu",
        }
    )
    proto.summary(facts)


if __name__ == "__main__":
    P.run(P.Protocol("llm", *_T0), main)
