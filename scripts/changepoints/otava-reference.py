#!/usr/bin/env python3
"""Record Apache Otava's change points for this project's tests (run by hand; needs numpy and scipy).

    python3 scripts/changepoints/otava-reference.py --otava DIR --out FILE [--commit SHA]

DIR is a checkout of apache/otava (its `otava/analysis.py` and `otava/change_point_divisive/` are
imported from there, never copied here). Writes FILE: seeded synthetic series of our own with Otava's
change points, p-values and magnitudes for several settings — recorded outputs of the real tool, which
`test/analyze/changepoints-otava.test.ts` compares our port with. Otava's own tests are extracted by
scripts/changepoints/otava-tests-extract.py (stdlib only) into test/__fixtures__/changepoints/otava-tests.json.
"""
import argparse
import json
import random
import subprocess
import sys


def synthetic_series():
    """Deterministic series: steps, two steps, drift, noise, a spike, a revert; values near 100 or 1."""
    rng = random.Random(20261123)
    out = []

    def noise(n, mean, sd):
        return [rng.gauss(mean, sd) for _ in range(n)]

    for i in range(4):
        out.append(("step-%d" % i, noise(40, 100, 1) + noise(40, 100 * (1.03 + 0.01 * i), 1)))
    for i in range(3):
        out.append(("two-steps-%d" % i, noise(30, 50, 0.4) + noise(30, 52, 0.4) + noise(40, 49, 0.4)))
    for i in range(3):
        out.append(("drift-%d" % i, [100 + 0.05 * k + rng.gauss(0, 0.5) for k in range(120)]))
    for i in range(6):
        out.append(("noise-%d" % i, noise(100, 10, 0.2)))
    out.append(("spike", noise(30, 1, 0.01) + [1.5] + noise(30, 1, 0.01)))
    out.append(("revert", noise(25, 20, 0.1) + noise(20, 21, 0.1) + noise(25, 20, 0.1)))
    out.append(("short", noise(8, 5, 0.05) + noise(8, 5.5, 0.05)))
    return out


SETTINGS = [
    {"window": 50, "maxP": 0.001, "minMagnitude": 0.02},
    {"window": 50, "maxP": 0.001, "minMagnitude": 0.0},
    {"window": 30, "maxP": 0.01, "minMagnitude": 0.0},
    {"window": 10, "maxP": 0.05, "minMagnitude": 0.0},
]


def run_otava(compute_change_points, series, s):
    cps, _ = compute_change_points(
        list(series), window_len=s["window"], max_pvalue=s["maxP"], min_magnitude=s["minMagnitude"]
    )
    return [
        {
            "index": int(c.index),
            "pValue": float(c.stats.pvalue),
            "magnitude": float(c.stats.change_magnitude()),
            "meanBefore": float(c.stats.mean_1),
            "meanAfter": float(c.stats.mean_2),
        }
        for c in cps
    ]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--otava", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--commit", help="Otava commit, when DIR is an export rather than a git checkout")
    a = ap.parse_args()
    sys.path.insert(0, a.otava)
    from otava.analysis import compute_change_points  # noqa: E402

    commit = a.commit or subprocess.run(
        ["git", "-C", a.otava, "rev-parse", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    if not commit:
        sys.exit("DIR is not a git checkout: give its commit with --commit")
    series = synthetic_series()
    cases = []
    for name, values in series:
        for s in SETTINGS:
            cases.append({"name": name, **s, "series": values, "otava": run_otava(compute_change_points, values, s)})
    doc = {"about": "Apache Otava's compute_change_points on seeded synthetic series; written by "
                    "scripts/changepoints/otava-reference.py", "otava_commit": commit, "cases": cases}
    with open(a.out, "w") as f:
        json.dump(doc, f)
        f.write("\n")


main()
