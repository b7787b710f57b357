"""The Hugging Face backend of llm.py: a local causal LM (--model-path), decoded eagerly with its own KV cache."""

import sys
import time

import _protocol as P
import _stack
import _torchutil as TU
from _llm_common import Recorder


def sdpa_flag(torch, name):
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
    TU.sync(torch, dev)
    proto.phase("first_kernel", t, time.perf_counter())
    logits_finite = bool(torch.isfinite(logits.float()).all().item())
    gpu = dev.type == "cuda"
    reason = "transformers model: eager decode"
    env.update({"backend": "transformers", "transformers": sys.modules["transformers"].__version__, "decode_mode": "eager", "decode_mode_reason": reason, "prefill_mode": "eager", "timer": "perf_counter_after_sync"})
    proto.env(env)
    proto.stack(_stack.collect(torch, dev))
    energy = TU.NvmlEnergy(env.get("device_uuid"), dev.index) if gpu else None
    gen = torch.Generator()
    gen.manual_seed(args.seed + 1)
    rec = Recorder(proto)
    for conf in confs:
        B, Pl, O = conf["batch_size"], conf["prompt_len"], conf["output_len"]

        def request(p_host):
            TU.sync(torch, dev)
            t0 = time.perf_counter()
            ids = p_host.to(dev, non_blocking=True)
            out = model(input_ids=ids, use_cache=True)
            past = out.past_key_values
            nxt = out.logits[:, -1].argmax(-1, keepdim=True)
            TU.sync(torch, dev)
            stamps = [time.perf_counter()]
            for _ in range(O - 1):
                out = model(input_ids=nxt, past_key_values=past, use_cache=True)
                past = out.past_key_values
                nxt = out.logits[:, -1].argmax(-1, keepdim=True)
                TU.sync(torch, dev)
                stamps.append(time.perf_counter())
            return t0, stamps

        def prompt():
            host = torch.randint(0, vocab, (B, Pl), generator=gen)
            return host.pin_memory() if gpu else host

        for _ in range(args.warmup):
            request(prompt())
        prompts = [prompt() for _ in range(args.iters)]
        measured_s, e0, e1 = rec.measure(conf, prompts, request, energy=energy)
        energy_j, energy_why = TU.energy_result(energy, e0, e1, measured_s)
        rec.end(measured_s, energy_j, {"decode_mode": "eager", "prefill_mode": "eager", "energy_unavailable_reason": energy_why})
    facts = rec.summary_facts()
    facts.update(
        {
            "backend": "transformers",
            "decode_mode": "eager",
            "prefill_mode": "eager",
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
