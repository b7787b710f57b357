"""Descriptive statistics for a workload's summary line (the runner does the real analysis)."""

import math


def percentile(values, q):
    """Linear-interpolation percentile (numpy's default), q in [0, 100]."""
    if not values:
        return None
    s = sorted(values)
    if len(s) == 1:
        return float(s[0])
    pos = (len(s) - 1) * q / 100.0
    lo = int(math.floor(pos))
    hi = min(lo + 1, len(s) - 1)
    return float(s[lo] + (s[hi] - s[lo]) * (pos - lo))


def describe(values):
    if not values:
        return {"n": 0}
    n = len(values)
    mean = sum(values) / n
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1)) if n > 1 else 0.0
    return {
        "n": n,
        "mean": mean,
        "median": percentile(values, 50),
        "sd": sd,
        "cv_pct": (100.0 * sd / mean) if mean else None,
        "min": min(values),
        "max": max(values),
        "p90": percentile(values, 90),
        "p99": percentile(values, 99),
    }
