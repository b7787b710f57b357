#!/usr/bin/env python3
"""Record Apache Otava's change points for this project's tests (run by hand; needs numpy and scipy).

    python3 scripts/changepoints/otava-reference.py --otava DIR --out FILE [--tests-out FILE] [--commit SHA]

DIR is a checkout of apache/otava (its `otava/analysis.py` and `otava/change_point_divisive/` are
imported from there, never copied here). Writes FILE: seeded synthetic series of our own with Otava's
change points, p-values and magnitudes for several settings — recorded outputs of the real tool, which
`test/analyze/changepoints-otava.test.ts` compares our port with. With --tests-out it also extracts the
series and expected change points of Otava's own tests (tests/tigerbeetle_test.py, analysis_test.py,
series_test.py, change_point_divisive_test.py) into a JSON file with their source path and commit; that
file is data taken from Otava's repository, so it is kept outside this repository (shared/).
"""
import argparse
import ast
import json
import random
import re
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


def literal_after(src, pattern):
    m = re.search(pattern, src, re.S)
    if not m:
        sys.exit("pattern not found: " + pattern)
    return ast.literal_eval(m.group(1))


def otava_tests(otava_dir):
    def read(p):
        with open(f"{otava_dir}/{p}") as f:
            return f.read()

    cases = []
    tb = read("tests/tigerbeetle_test.py")
    series = literal_after(tb, r"return (\[.*?\])\n")
    for m in re.finditer(
        r"def (test_\w+)\(\):\n    series = _get_series\(\)\n    cps, weak_cps = compute_change_points\(series, "
        r"window_len=(\d+), max_pvalue=([\d.]+), min_magnitude=([\d.]+)\)\n    indexes = .*?\n"
        r"(?:    print\(cps\)\n)?    assert indexes == (\[.*?\])",
        tb,
    ):
        cases.append({
            "source": "tests/tigerbeetle_test.py::" + m.group(1), "series": series,
            "window": int(m.group(2)), "maxP": float(m.group(3)), "minMagnitude": float(m.group(4)),
            "expected": ast.literal_eval(m.group(5)),
        })
    an = read("tests/analysis_test.py")
    single = literal_after(an, r"def test_single_series\(\):\n    series = (\[.*?\])\n")
    cases.append({"source": "tests/analysis_test.py::test_single_series", "series": single,
                  "window": 10, "maxP": 0.0001, "minMagnitude": 0.0, "expected": [10]})
    st = read("tests/series_test.py")
    s1 = literal_after(st, r"def test_change_point_detection\(\):\n    series_1 = (\[.*?\])\n")
    s2 = literal_after(st, r"def test_change_point_detection\(\):\n    series_1 = .*?\n    series_2 = (\[.*?\])\n")
    z = literal_after(st, r"def test_div_by_zero\(\):\n    series_1 = (\[.*?\])\n")
    # Series.analyze() defaults (otava/series.py AnalysisOptions): window 50, p 0.001, min magnitude 0.
    d = {"window": 50, "maxP": 0.001}
    cases += [
        {"source": "tests/series_test.py::test_change_point_detection series1", "series": s1, **d, "minMagnitude": 0.0, "expected": [6]},
        {"source": "tests/series_test.py::test_change_point_detection series2", "series": s2, **d, "minMagnitude": 0.0, "expected": [4]},
        {"source": "tests/series_test.py::test_change_point_min_magnitude series1", "series": s1, **d, "minMagnitude": 0.2, "expected": [6]},
        {"source": "tests/series_test.py::test_change_point_min_magnitude series2", "series": s2, **d, "minMagnitude": 0.2, "expected": []},
        {"source": "tests/series_test.py::test_div_by_zero (2 change points, the first at 3)", "series": z, **d, "minMagnitude": 0.0, "expectedCount": 2, "expectedFirst": 3},
    ]
    cpd = read("tests/change_point_divisive_test.py")
    seq = literal_after(cpd, r"SEQUENCE = np\.array\((\[.*?\])\)")
    # test_ttest: the detector alone (one window, no merge) at p 0.01.
    cases.append({"source": "tests/change_point_divisive_test.py::test_ttest (detector only)", "series": seq,
                  "detectorOnly": True, "maxP": 0.01, "expected": [5, 8]})
    return cases


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--otava", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--tests-out")
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
    if a.tests_out:
        tests = {"about": "Series and expected change points from Apache Otava's tests (Apache-2.0), "
                          "extracted by scripts/changepoints/otava-reference.py",
                 "repository": "apache/otava", "commit": commit, "cases": otava_tests(a.otava)}
        with open(a.tests_out, "w") as f:
            json.dump(tests, f, indent=1)
            f.write("\n")


main()
