"""The NumPy backend of llm.py (CPU, no torch): the same decoder shape in float32."""

import math
import time

import _protocol as P
import _stack
import _stats as S
from _llm_common import INIT_STD, NORM_EPS, Recorder, configs, param_count


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
    proto.env({"backend": "numpy", "numpy": np.__version__, "torch": None, "cuda": None, "device_name": "cpu", "decode_mode": "eager", "decode_mode_reason": reason, "prefill_mode": "eager", "timer": "perf_counter"})
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
        measured_s, _, _ = rec.measure(conf, prompts, request)
        rec.end(measured_s, None, {"decode_mode": "eager", "prefill_mode": "eager", "energy_unavailable_reason": "cpu"})
    facts = rec.summary_facts()
    facts.update(
        {
            "backend": "numpy",
            "decode_mode": "eager",
            "prefill_mode": "eager",
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
