"""The torch decoder against the NumPy one, and the CUDA graphs (prefill, decode) against eager work.

Skipped where torch is absent (CI); run on a machine with torch (and a GPU for the graph tests):
    python3 -m unittest workloads.tests.test_llm_torch -v
"""

import importlib.util
import os
import unittest

from workloads.tests._util import WORKLOADS

try:
    import numpy as np
    import torch
except ImportError:
    torch = None


def load(name):
    spec = importlib.util.spec_from_file_location("wl_" + name, os.path.join(WORKLOADS, name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def torch_from_numpy(llm, npm, dev, dtype, max_pos):
    """A TorchLlama holding exactly the NumPy model's weights."""
    tm = llm.TorchLlama(torch, npm.cfg, dtype, dev, seed=0, max_pos=max_pos)

    def t(a):
        return torch.from_numpy(np.ascontiguousarray(a)).to(device=dev, dtype=dtype)

    tm.emb, tm.norm, tm.out = t(npm.emb), t(npm.norm), t(npm.out)
    for tl, nl in zip(tm.layers, npm.layers):
        for k in tl:
            tl[k] = t(nl[k])
    return tm


@unittest.skipIf(torch is None, "torch (and numpy) not importable")
class TorchDecoderTest(unittest.TestCase):
    B, PL, O = 2, 6, 5

    def setUp(self):
        torch.set_grad_enabled(False)
        self.llm = load("llm")
        self.cfg = dict(self.llm.PRESETS["tiny"])
        self.npm = self.llm.NumpyLlama(np, self.cfg, seed=1, max_pos=self.PL + self.O)
        self.prompt = np.random.default_rng(2).integers(0, self.cfg["vocab"], (self.B, self.PL))

    def numpy_reference(self):
        """Logits per step and the tokens fed at each step (its own greedy choices)."""
        sess = self.llm.NumpySession(np, self.npm, self.B, self.PL + self.O)
        logits = [self.npm.forward(self.prompt, sess, 0)]
        fed = []
        for step in range(self.O - 1):
            tok = logits[-1].argmax(-1)
            fed.append(tok)
            logits.append(self.npm.forward(tok[:, None], sess, self.PL + step))
        return logits, fed

    def torch_run(self, dev, dtype, use_graph, feed=None):
        """Prefill + decode; with feed, each step's input token is forced (teacher forcing), so
        a near-tie in a tiny random model cannot send two implementations down different paths."""
        tm = torch_from_numpy(self.llm, self.npm, dev, dtype, self.PL + self.O)
        sess = self.llm.TorchSession(tm, self.B, self.PL + self.O)
        prompt = torch.from_numpy(self.prompt).to(dev)
        if use_graph:
            sess.capture()
            sess.capture_prefill(prompt)  # the prefill of this static prompt buffer, as the workload does
            sess.prefill(prompt, True)
            first = sess.prefill_logits
        else:
            first = tm.prefill(prompt, sess)
        logits = [first.float().cpu().numpy().copy()]
        toks = [sess.tok.cpu().numpy().copy()]
        for step in range(self.O - 1):
            if feed is not None:
                sess.tok.copy_(torch.from_numpy(feed[step]).to(dev))
            if use_graph:
                sess.graph.replay()
                out = sess.graph_logits
            else:
                out = tm.decode_step(sess)
            logits.append(out.float().cpu().numpy().copy())
            toks.append(sess.tok.cpu().numpy().copy())
        self.assertEqual(int(sess.pos.item()), self.PL + self.O - 1)
        return logits, toks

    def assertSameChoices(self, logits, toks):
        """Greedy tokens agree wherever the reference's top two logits are clearly apart."""
        top2 = np.sort(logits, axis=-1)[:, -2:]
        clear = (top2[:, 1] - top2[:, 0]) > 1e-3
        np.testing.assert_array_equal(toks[clear], logits.argmax(-1)[clear])

    def test_cpu_fp32_matches_numpy(self):
        ref, fed = self.numpy_reference()
        got, toks = self.torch_run(torch.device("cpu"), torch.float32, False, feed=fed)
        for k in range(self.O):
            np.testing.assert_allclose(got[k], ref[k], rtol=1e-4, atol=1e-5)
            self.assertSameChoices(ref[k], toks[k])

    @unittest.skipUnless(torch is not None and torch.cuda.is_available(), "no CUDA GPU")
    def test_gpu_fp32_eager_and_graph_match_numpy(self):
        torch.set_float32_matmul_precision("highest")
        ref, fed = self.numpy_reference()
        dev = torch.device("cuda", 0)
        eager, _ = self.torch_run(dev, torch.float32, False, feed=fed)
        graph, _ = self.torch_run(dev, torch.float32, True, feed=fed)
        for k in range(self.O):
            np.testing.assert_allclose(eager[k], ref[k], rtol=1e-3, atol=1e-4)
            np.testing.assert_allclose(graph[k], eager[k], rtol=1e-5, atol=1e-6)

    @unittest.skipUnless(torch is not None and torch.cuda.is_available(), "no CUDA GPU")
    def test_gpu_bf16_graph_tokens_equal_eager(self):
        dev = torch.device("cuda", 0)
        _, eager = self.torch_run(dev, torch.bfloat16, False)
        _, graph = self.torch_run(dev, torch.bfloat16, True)
        for a, b in zip(eager, graph):
            np.testing.assert_array_equal(a, b)


if __name__ == "__main__":
    unittest.main()
