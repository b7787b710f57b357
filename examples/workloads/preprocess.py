"""A whole-process step for gpu-overhead-action's `commands`, timed by hyperfine (route: a tool's result file).

Tokenizes a small synthetic corpus and writes nothing: one process start, imports and the work, as a
pre-processing step of a pipeline runs. hyperfine starts it several times per run and `--export-json` writes
each time into the run's own folder (`{out}`), which the action reads with `command-formats: NAME=hyperfine`
(seconds, lower is better: start-up included, which is what hyperfine measures).

    - uses: org/gpu-overhead-action@v1  # or a full commit SHA (README, "Pinning")
      with:
        image: nvcr.io/nvidia/pytorch:25.10-py3@sha256:…
        commands: |
          prep: hyperfine -N --warmup 1 --runs 5 --export-json {out}/hyperfine.json "python3 examples/workloads/preprocess.py"
        command-formats: |
          prep=hyperfine
"""

import json
import re
import sys

WORDS = "the model reads a batch of text and writes tokens for the next step of the pipeline".split()


def main(lines=2000):
    vocab = {}
    batch = []
    for i in range(lines):
        line = " ".join(WORDS[(i + k) % len(WORDS)] for k in range(12)) + f", sample {i}."
        batch.append([vocab.setdefault(t, len(vocab)) for t in re.findall(r"\w+|[^\w\s]", line.lower())])
    out = json.dumps({"vocab": len(vocab), "tokens": sum(map(len, batch))})
    return out


if __name__ == "__main__":
    print(main(int(sys.argv[1]) if len(sys.argv) > 1 else 2000))
