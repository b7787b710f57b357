"""The torch backend of llm.py: our Llama-style decoder (RMSNorm, RoPE, GQA through SDPA, SwiGLU, static
KV cache), decode captured in a CUDA graph when it can be; a local Hugging Face model goes to _llm_hf."""

import sys
import time

import _gpu_memory
import _protocol as P
import _stack
import _stats as S
import _torchutil as TU
from _llm_common import INIT_STD, NORM_EPS, Recorder, configs, param_count
from _llm_hf import run_hf, sdpa_flag


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

    # Decode attention backends to try, in order. PyTorch picks an SDPA backend per call from what the inputs
    # allow; pinning one (the first that runs these shapes) makes every process use the same kernels, so a
    # per-process choice cannot become a per-process speed (issue 18: two TPOT modes on some H200s). cuDNN
    # first: it is what PyTorch 2.11 picks by itself on Hopper (2.97 ms/token on an H200); the efficient
    # backend ran the same decode at 3.61 ms (docs/evidence/2026-11-23-h200-fast.md).
    DECODE_SDPA = ("CUDNN_ATTENTION", "EFFICIENT_ATTENTION", "MATH")

    def decode_attention(self):
        pinned = getattr(self, "decode_sdpa", None)
        if pinned is None:
            import contextlib

            return contextlib.nullcontext()
        from torch.nn.attention import sdpa_kernel

        return sdpa_kernel([pinned])

    def pin_decode_attention(self, sess):
        """Choose the decode attention backend once, before capture: the first of DECODE_SDPA that runs the
        session's shapes. Returns its name (None: no pinning API in this torch, or CPU)."""
        self.decode_sdpa = None
        if self.dev.type != "cuda":
            return None
        try:
            from torch.nn.attention import SDPBackend, sdpa_kernel
        except ImportError:
            return None
        c = self.cfg
        qg = self.torch.zeros((sess.B, c["kv_heads"], self.groups, self.hd), dtype=self.dtype, device=self.dev)
        valid = (sess.arange <= 0).view(1, 1, 1, sess.S)
        for name in self.DECODE_SDPA:
            backend = getattr(SDPBackend, name, None)
            if backend is None:
                continue
            try:
                with sdpa_kernel([backend]):
                    self.F.scaled_dot_product_attention(qg, sess.k[0], sess.v[0], attn_mask=valid)
                self.torch.cuda.synchronize()
            except RuntimeError:
                continue
            self.decode_sdpa = backend
            return name.lower()
        return None

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
            with self.decode_attention():
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
        self.prefill_graph = None

    def _graph_of(self, fn, warmups):
        """(graph, its static output): fn() captured in a CUDA graph after warm-ups on a side stream, as
        PyTorch documents. The output tensor is refreshed by every replay."""
        torch = self.model.torch
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(warmups):
                fn()
        torch.cuda.current_stream().wait_stream(side)
        torch.cuda.synchronize()
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            out = fn()
        torch.cuda.synchronize()
        return graph, out

    def capture_prefill(self, prompt_dev):
        """Capture the prefill of the static prompt buffer in a CUDA graph: TTFT then times the GPU's work and
        one launch, not Python's eager dispatch of ~800 kernels, whose speed differed from process to process
        (an H200: host-timed TTFT CV 0.49% over 12 processes eager, 0.18% as a graph; event-timed GPU work
        0.24%; docs/evidence/2026-11-23-ttft-variance.md)."""
        self.prefill_graph, self.prefill_logits = self._graph_of(lambda: self.model.prefill(prompt_dev, self), 2)

    def prefill(self, prompt_dev, use_graph):
        if use_graph:
            self.prefill_graph.replay()
        else:
            self.model.prefill(prompt_dev, self)

    def capture(self):
        """Capture decode_step in a CUDA graph, from position 0."""
        self.pos.zero_()
        self.graph, self.graph_logits = self._graph_of(lambda: self.model.decode_step(self), 3)

    def step(self, use_graph):
        if use_graph:
            self.graph.replay()
        else:
            self.model.decode_step(self)


# Tokens the graph verification decodes, eagerly and through the graph: 15 replays cover the position
# handling a bad capture gets wrong, while a whole eager request cost 1.5-2 s of every process on an H200.
VERIFY_TOKENS = 16


def run_torch(proto, args, torch, t_imports):
    gpu = args.device == "gpu"
    if args.model_path:
        try:
            import transformers  # noqa: F401
        except ImportError as e:
            raise P.WorkloadError("missing_backend", "--model-path needs transformers, which is not importable (%s)" % P.short(e))
    proto.phase("imports", t_imports, time.perf_counter())

    t = time.perf_counter()
    dev = TU.torch_cuda_init(torch, TU.gpu_index()) if gpu else torch.device("cpu")
    proto.phase("device_init", t, time.perf_counter())
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}[args.dtype]
    torch.set_grad_enabled(False)
    confs = configs(args)
    env = TU.torch_env(torch, dev)
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
    TU.sync(torch, dev)
    proto.phase("first_kernel", t, time.perf_counter())
    logits_finite = bool(torch.isfinite(logits.float()).all().item())

    want_graph = gpu and args.decode_mode == "graph"
    want_prefill_graph = gpu and args.prefill_mode == "graph"
    energy = TU.NvmlEnergy(env.get("device_uuid"), dev.index) if gpu else None
    rec = Recorder(proto)
    gen = torch.Generator()
    gen.manual_seed(args.seed + 1)
    mode_used, mode_reason, verify_rows = [], [], []
    prefill_used, prefill_reason = [], []
    capture_s = 0.0
    warmup_s = 0.0
    facts_s = 0.0  # env, stack and GPU-memory facts: part of the `prepare` phase
    env_sent = False
    for conf in confs:
        B, Pl, O = conf["batch_size"], conf["prompt_len"], conf["output_len"]
        sess = TorchSession(model, B, Pl + O)
        prompt_dev = torch.zeros((B, Pl), dtype=torch.long, device=dev)
        t = time.perf_counter()
        sdpa_decode = model.pin_decode_attention(sess)
        use_graph, reason = capture_or_why(torch, gpu, want_graph, sess.capture, "--decode-mode eager", "decoding")
        if not use_graph:
            sess.graph = None
        use_pgraph, preason = capture_or_why(
            torch, gpu, want_prefill_graph, lambda: sess.capture_prefill(prompt_dev), "--prefill-mode eager", "prefilling"
        )
        if not use_pgraph:
            sess.prefill_graph = None
        capture_s += time.perf_counter() - t

        def prompt():
            host = torch.randint(0, args.cfg["vocab"], (B, Pl), generator=gen)
            return host.pin_memory() if gpu else host

        def request(p_host, graph_on, pgraph_on, collect=None, tokens=None):
            TU.sync(torch, dev)
            t0 = time.perf_counter()
            prompt_dev.copy_(p_host, non_blocking=True)
            sess.prefill(prompt_dev, pgraph_on)
            TU.sync(torch, dev)
            stamps = [time.perf_counter()]
            if collect is not None:
                collect.append(sess.tok.clone())
            for _ in range((tokens or O) - 1):
                sess.step(graph_on)
                TU.sync(torch, dev)
                stamps.append(time.perf_counter())
                if collect is not None:
                    collect.append(sess.tok.clone())
            return t0, stamps

        t = time.perf_counter()
        verified = None
        if (use_graph or use_pgraph) and not args.no_verify:
            # Same prompt eagerly and through the graphs: the tokens (the prefill's first, then the decode's)
            # must agree, else a graph baked in something it should not have and we run eagerly instead.
            p_host = prompt()
            eager_toks, graph_toks = [], []
            n = min(O, VERIFY_TOKENS)
            request(p_host, False, False, eager_toks, n)
            request(p_host, use_graph, use_pgraph, graph_toks, n)
            verified = all(bool(torch.equal(a, b)) for a, b in zip(eager_toks, graph_toks))
            if not verified:
                why = "graph tokens differ from eager tokens"
                reason = why if use_graph else reason
                preason = why if use_pgraph else preason
                use_graph = use_pgraph = False
                print("llm: " + why + "; prefilling and decoding eagerly", file=sys.stderr)
        for _ in range(args.warmup):
            request(prompt(), use_graph, use_pgraph)
        warmup_s += time.perf_counter() - t
        mode = "cuda-graph" if use_graph else "eager"
        pmode = "cuda-graph" if use_pgraph else "eager"
        mode_used.append(mode)
        mode_reason.append(reason)
        prefill_used.append(pmode)
        prefill_reason.append(preason)
        verify_rows.append(verified)

        if not env_sent:
            t = time.perf_counter()
            env.update(
                {
                    "backend": "torch",
                    "decode_mode": mode,
                    "decode_mode_reason": reason,
                    "prefill_mode": pmode,
                    "prefill_mode_reason": preason,
                    "sdpa_decode": sdpa_decode,
                    "sdpa_flash": sdpa_flag(torch, "flash_sdp_enabled"),
                    "sdpa_mem_efficient": sdpa_flag(torch, "mem_efficient_sdp_enabled"),
                    "timer": "perf_counter_after_sync",
                }
            )
            proto.env(env)
            stack = _stack.collect(torch, dev)
            # How the requests ran: compared between the arms like any stack fact, so an arm whose graph
            # failed (eager fallback) is named in "Why the arms differ" and not only on stderr.
            stack["llm"] = {"prefill": pmode, "decode": mode, "sdpa_decode": sdpa_decode}
            proto.stack(stack)
            env_sent = True
            if gpu:
                # After the first configuration's warm-up, its KV cache still allocated.
                kv = kv_bytes_per_token(args.cfg, torch.empty((), dtype=dtype).element_size())
                proto.memory(_gpu_memory.collect(torch, dev, env.get("device_uuid"), kv))
            facts_s = time.perf_counter() - t

        prompts = [prompt() for _ in range(args.iters)]
        measured_s, e0, e1 = rec.measure(
            conf, prompts, lambda p_host: request(p_host, use_graph, use_pgraph), sync=lambda: TU.sync(torch, dev), energy=energy
        )
        energy_j, energy_why = TU.energy_result(energy, e0, e1, measured_s)
        extra = {"decode_mode": mode, "prefill_mode": pmode, "graph_verified": verified, "energy_unavailable_reason": energy_why}
        rec.end(measured_s, energy_j, extra)
        sess.graph = None
        sess.prefill_graph = None
        del sess
        if gpu:
            torch.cuda.empty_cache()

    facts = rec.summary_facts()
    modes = sorted(set(mode_used))
    pmodes = sorted(set(prefill_used))
    facts.update(
        {
            "backend": "torch",
            "decode_mode": modes[0] if len(modes) == 1 else "mixed",
            "decode_mode_reason": next((r for r in mode_reason if r), None),
            "prefill_mode": pmodes[0] if len(pmodes) == 1 else "mixed",
            "prefill_mode_reason": next((r for r in prefill_reason if r), None),
            "graph_verified": all(v for v in verify_rows) if all(v is not None for v in verify_rows) else None,
            "preset": args.preset,
            "model": args.cfg,
            "params": param_count(args.cfg),
            "weight_bytes": param_count(args.cfg) * torch.empty((), dtype=dtype).element_size(),
            "dtype": args.dtype,
            "logits_finite": logits_finite,
            "capture_s": capture_s,
            "warmup_s": warmup_s,
            "facts_s": facts_s,
            "energy_source": "nvml" if facts.get("energy_j") is not None else None,
            "energy_unavailable_reason": next((r["energy_unavailable_reason"] for r in rec.per_config if r["energy_unavailable_reason"]), None),
            "device_name": env.get("device_name", "cpu"),
        }
    )
    proto.summary(facts)


def capture_or_why(torch, gpu, wanted, capture, flag, doing):
    """Runs capture() when a graph is wanted: (True, None), or (False, why not) — a failed capture falls back
    to eager work, named in the events and on stderr."""
    if not wanted:
        return False, (flag if gpu else "cpu")
    try:
        capture()
        return True, None
    except Exception as e:
        text = str(e).strip()
        why = "graph capture failed: %s: %s" % (type(e).__name__, text.splitlines()[0] if text else "")
        print("llm: %s; %s eagerly" % (why, doing), file=sys.stderr)
        try:
            torch.cuda.synchronize()
        except Exception:
            pass
        return False, why


def kv_bytes_per_token(cfg, itemsize):
    """KV-cache bytes one token costs: K and V, every layer, every KV head."""
    head_dim = cfg["dim"] // cfg["heads"]
    return 2 * cfg["layers"] * cfg["kv_heads"] * head_dim * itemsize
