"""What every LLM backend shares: the presets, the request configurations, the parameter count and the
Recorder that turns per-request timestamps into TTFT/TPOT/ITL/E2E samples."""

import itertools
import time

import _stats as S


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
# Per-process tail percentiles of TTFT, TPOT and ITL (src/config/tail-metrics.ts: LLM_TAIL_METRICS).
TAIL_PERCENTILES = (90, 99)



def configs(args):
    return [
        {"batch_size": b, "prompt_len": p, "output_len": o, "config": "b%d_p%d_o%d" % (b, p, o)}
        for b, p, o in itertools.product(args.batch_sizes, args.prompt_lens, args.output_lens)
    ]


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

    def measure(self, conf, prompts, request, sync=None, energy=None):
        """Runs one configuration's measured requests inside the marked region, a sample set per request.

        request(prompt) -> (t0, stamps); sync() waits for the device before the region opens and before the
        clock stops; energy: an NVML energy counter, read just outside the region. Returns (measured_s, e0, e1).
        """
        self.begin(conf)
        if sync:
            sync()
        e0 = energy.read_mj() if energy else None
        self.proto.region("start")
        if self.proto.turns:
            return self._measure_in_turns(prompts, request, sync, energy)
        t_meas = time.perf_counter()
        for prompt in prompts:
            t0, stamps = request(prompt)
            self.request(t0, stamps)
        if sync:
            sync()
        measured_s = time.perf_counter() - t_meas
        self.proto.region("end")
        e1 = energy.read_mj() if energy else None
        return measured_s, e0, e1

    def _measure_in_turns(self, prompts, request, sync, energy):
        """Each request in a turn of its own (Protocol.take_turn). The device's energy counter also counts the
        other process's requests, so time and energy are summed over this process's own turns only."""
        measured_s, mj, counted = 0.0, 0, energy is not None
        for prompt in prompts:
            self.proto.take_turn(self.iteration + 1)
            e0 = energy.read_mj() if energy else None
            t = time.perf_counter()
            t0, stamps = request(prompt)
            if sync:
                sync()
            measured_s += time.perf_counter() - t
            e1 = energy.read_mj() if energy else None
            if e0 is None or e1 is None or e1 < e0:
                counted = False
            else:
                mj += e1 - e0
            self.request(t0, stamps)
        self.proto.region("end")
        # TU.energy_result takes (before, after) counter readings: the sum over own turns, counted from 0.
        return measured_s, (0 if counted else None), (mj if counted else None)

    def end(self, measured_s, energy_j, extra=None):
        c = self.cur
        conf = c["conf"]
        tokens = conf["batch_size"] * conf["output_len"] * len(c["e2e"])
        row = dict(conf)
        row.update(
            {
                "requests": len(c["e2e"]),
                "ttft_ms": S.describe(c["ttft"]),
                "tpot_ms": S.describe(c["tpot"]),
                "e2e_ms": S.describe(c["e2e"]),
                "tokens_per_s": S.describe(c["tps"]),
                "itl_ms": {
                    "n": len(c["itl"]),
                    "p50": S.percentile(c["itl"], 50),
                    "p90": S.percentile(c["itl"], 90),
                    "p99": S.percentile(c["itl"], 99),
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
        self.tail_samples(len(self.per_config))
        self.per_config.append(row)

    def tail_samples(self, index):
        """The process's p90 and p99 of TTFT, TPOT and ITL over this configuration's requests: one value per
        process (`per_process`), its iteration the configuration's index. They are tail metrics: shown, and
        gated only where gate-metrics names them (src/config/tail-metrics.ts)."""
        c = self.cur
        conf = c["conf"]
        fields = {
            "config": conf["config"],
            "batch_size": conf["batch_size"],
            "prompt_len": conf["prompt_len"],
            "output_len": conf["output_len"],
        }
        for name, values in (("ttft", c["ttft"]), ("tpot", c["tpot"]), ("itl", c["itl"])):
            for q in TAIL_PERCENTILES:
                v = S.percentile(values, q)
                if v is None:
                    continue
                self.proto.sample("%s_p%d_ms" % (name, q), v, "ms", index, "lower", per_process=True, **fields)

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
