"""llm on the CPU: the tiny preset (NumPy where torch is absent), metrics and the decoder's maths."""

import importlib.util
import os
import unittest

from workloads.tests._util import WORKLOADS, WorkloadTestCase, has_module, run_workload, skip_without_compute

try:
    import numpy as np
except ImportError:  # the subprocess tests still run
    np = None


def load(name):
    spec = importlib.util.spec_from_file_location("wl_" + name, os.path.join(WORKLOADS, name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


LLM_METRICS = ("ttft_ms", "tpot_ms", "e2e_ms", "tokens_per_s")


@skip_without_compute
class LlmCpuTest(WorkloadTestCase):
    def test_tiny_default(self):
        run = run_workload("llm.py", ["--device", "cpu", "--iters", "3"])
        self.assertProtocol(run, "llm")
        params = run.events[0]["params"]
        self.assertEqual(params["preset"], "tiny")
        self.assertEqual((params["batch_sizes"], params["prompt_lens"], params["output_lens"]), ([2], [16], [8]))
        for metric in LLM_METRICS:
            self.assertEqual([s["iteration"] for s in run.samples(metric)], [1, 2, 3], metric)
        self.assertEqual(len(run.samples("itl_ms")), 3 * 7)
        self.assertEqual(sorted({s["token"] for s in run.samples("itl_ms")}), list(range(2, 9)))
        by_it = {}
        for s in run.of("sample"):
            if s.get("per_process"):
                continue
            by_it.setdefault(s["iteration"], {}).setdefault(s["metric"], []).append(s["value"])
        for it, m in by_it.items():
            ttft, e2e, tpot, tps = m["ttft_ms"][0], m["e2e_ms"][0], m["tpot_ms"][0], m["tokens_per_s"][0]
            self.assertAlmostEqual(tpot, (e2e - ttft) / 7, places=6)
            self.assertAlmostEqual(tps, 2 * 8 / (e2e / 1e3), places=3)
            self.assertAlmostEqual(sum(m["itl_ms"]), e2e - ttft, places=6)
            self.assertLess(ttft, e2e)
        summ = run.summary
        self.assertEqual(summ["decode_mode"], "eager")
        self.assertEqual(run.env["decode_mode"], "eager")
        self.assertTrue(summ["logits_finite"])
        self.assertIsNone(summ["energy_j"])
        self.assertEqual(summ["configs"][0]["config"], "b2_p16_o8")
        self.assertEqual(summ["configs"][0]["requests"], 3)
        self.assertEqual(summ["configs"][0]["itl_ms"]["n"], 21)
        self.assertIsNotNone(summ["tpot_ms_median"])
        self.assertEqual(summ["params"], load("llm").param_count(load("llm").PRESETS["tiny"]))

    def test_several_configs(self):
        run = run_workload(
            "llm.py",
            ["--device", "cpu", "--iters", "2", "--warmup", "0", "--batch-sizes", "1,2", "--prompt-lens", "4", "--output-lens", "2,3"],
        )
        self.assertProtocol(run, "llm")
        configs = [c["config"] for c in run.summary["configs"]]
        self.assertEqual(configs, ["b1_p4_o2", "b1_p4_o3", "b2_p4_o2", "b2_p4_o3"])
        tpot = run.samples("tpot_ms")
        self.assertEqual(len(tpot), 8)
        self.assertEqual([s["iteration"] for s in tpot], list(range(1, 9)))  # unique within the process
        self.assertEqual([s["config"] for s in tpot[:2]], ["b1_p4_o2"] * 2)
        self.assertEqual(tpot[-1]["batch_size"], 2)
        self.assertNotIn("tpot_ms_median", run.summary)  # flat headline only for one config
        # Tail metrics: one p90 and one p99 per process and configuration, iteration = the configuration's index.
        for metric in ("ttft_p90_ms", "ttft_p99_ms", "tpot_p90_ms", "tpot_p99_ms", "itl_p90_ms", "itl_p99_ms"):
            tail = run.samples(metric)
            self.assertEqual([s["iteration"] for s in tail], [0, 1, 2, 3], metric)
            self.assertTrue(all(s["per_process"] is True and s["better"] == "lower" for s in tail), metric)
            self.assertEqual([s["config"] for s in tail], configs, metric)
            self.assertNotIn("derived_from", tail[0])
        for i, c in enumerate(run.summary["configs"]):
            self.assertAlmostEqual(run.samples("itl_p99_ms")[i]["value"], c["itl_ms"]["p99"], places=9)
            p90 = run.samples("tpot_p90_ms")[i]["value"]
            self.assertLessEqual(p90, run.samples("tpot_p99_ms")[i]["value"])

    def test_explicit_dims(self):
        run = run_workload(
            "llm.py",
            ["--device", "cpu", "--iters", "1", "--dim", "32", "--layers", "1", "--heads", "4", "--kv-heads", "1", "--ffn", "48", "--vocab", "50", "--prompt-lens", "3", "--output-lens", "2"],
        )
        self.assertProtocol(run, "llm")
        self.assertEqual(run.summary["model"]["kv_heads"], 1)
        self.assertEqual(run.summary["model"]["vocab"], 50)

    def test_numpy_backend_needs_fp32(self):
        if not has_module("numpy"):
            self.skipTest("numpy is not importable")
        run = run_workload("llm.py", ["--device", "cpu", "--backend", "numpy", "--dtype", "bf16"])
        self.assertError(run, "llm", "bad_args", 2)


@unittest.skipIf(np is None, "numpy is not importable")
class NumpyDecoderTest(unittest.TestCase):
    """The static-cache decode must give the logits a full recompute gives."""

    def test_incremental_equals_full_recompute(self):
        llm = load("llm")
        cfg = dict(llm.PRESETS["tiny"], kv_heads=2, heads=4)
        B, Pl, O = 2, 5, 4
        model = llm.NumpyLlama(np, cfg, seed=3, max_pos=Pl + O)
        rng = np.random.default_rng(0)
        prompt = rng.integers(0, cfg["vocab"], (B, Pl))
        sess = llm.NumpySession(np, model, B, Pl + O)
        logits = [model.forward(prompt, sess, 0)]
        seq = prompt
        for step in range(O - 1):
            tok = logits[-1].argmax(-1)
            seq = np.concatenate([seq, tok[:, None]], axis=1)
            logits.append(model.forward(tok[:, None], sess, Pl + step))
        for k in range(O):
            full = model.forward(seq[:, : Pl + k], llm.NumpySession(np, model, B, Pl + O), 0)
            np.testing.assert_allclose(logits[k], full, rtol=1e-4, atol=1e-5)
        self.assertTrue(np.isfinite(logits[-1]).all())
        self.assertGreater(float(np.abs(logits[-1]).max()), 0)


if __name__ == "__main__":
    unittest.main()
