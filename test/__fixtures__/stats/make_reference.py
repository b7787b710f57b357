#!/usr/bin/python3
"""Reference values for test/analyze/stats.test.ts, computed with SciPy (and statsmodels for Holm).

Run:  /usr/bin/python3 test/__fixtures__/stats/make_reference.py > test/__fixtures__/stats/reference.json
Recorded with the Debian packages python3-scipy 1.10.1, python3-numpy 1.24.2, python3-statsmodels 0.13.5.

Every data set is (baseline, candidate); tests call our functions as f(candidate, baseline), the order
the comparison uses, so signs line up with scipy.stats.ttest_ind(candidate, baseline).
Data are generated with fixed seeds and rounded to 6 decimals so the JSON holds them exactly.
"""
import json
import sys

import numpy as np
import scipy
import scipy.stats as st
import statsmodels
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.weightstats import ttost_ind

ALPHA = 0.05
MARGIN_PCT = 2.0


def r6(a):
    return [round(float(v), 6) for v in a]


def datasets():
    rs = np.random.RandomState(20240601)
    out = []
    out.append(('equal_n_equal_var', r6(rs.normal(100, 2, 10)), r6(rs.normal(101, 2, 10))))
    out.append(('unequal_n_unequal_var', r6(rs.normal(50, 1, 7)), r6(rs.normal(52, 5, 15))))
    # Integer-valued data: many ties (Mann-Whitney must use the tie-corrected normal approximation).
    out.append(('ties', [float(v) for v in rs.randint(10, 16, 12)], [float(v) for v in rs.randint(11, 17, 10)]))
    out.append(('tiny_n', [10.2, 10.9, 10.4], [11.1, 10.8, 11.6, 11.3]))
    out.append(('two_per_arm', [4.1, 4.3], [4.6, 4.2]))
    out.append(('large_n', r6(rs.normal(20, 3, 200)), r6(rs.normal(20.4, 3.5, 250))))
    # One arm of <= 8 without ties: SciPy's auto method is exact even though the other arm is large.
    out.append(('small_vs_large_exact', r6(rs.normal(5, 0.5, 6)), r6(rs.normal(5.3, 0.5, 25))))
    # Identical arms (same values, non-zero spread): t = 0, p = 1.
    same = r6(rs.normal(41.0, 0.05, 8))
    out.append(('identical_arms', same, list(same)))
    # A matmul-like timing: 41 ms with ~0.06% run-to-run spread, 8 runs per arm.
    out.append(('matmul_like', r6(rs.normal(41.0, 0.025, 8)), r6(rs.normal(41.01, 0.025, 8))))
    # Throughput (higher is better) with an outlier run in the candidate.
    cand = r6(rs.normal(48.8, 0.2, 9))
    cand[3] = 44.0
    out.append(('throughput_outlier', r6(rs.normal(48.8, 0.2, 9)), cand))
    return out


def welch_df(a, b):
    va, vb = np.var(a, ddof=1) / len(a), np.var(b, ddof=1) / len(b)
    return (va + vb) ** 2 / (va**2 / (len(a) - 1) + vb**2 / (len(b) - 1))


def describe(x):
    x = np.asarray(x)
    return {
        'n': int(len(x)),
        'mean': float(np.mean(x)),
        'median': float(np.median(x)),
        'sd': float(np.std(x, ddof=1)),
        'mad': float(st.median_abs_deviation(x, scale=1.0)),
        'min': float(np.min(x)),
        'max': float(np.max(x)),
        'p5': float(np.percentile(x, 5)),
        'p25': float(np.percentile(x, 25)),
        'p75': float(np.percentile(x, 75)),
        'p95': float(np.percentile(x, 95)),
    }


def outliers(x):
    x = np.asarray(x)
    q1, q3 = np.percentile(x, [25, 75])
    iqr = q3 - q1
    tukey = [int(i) for i in np.where((x < q1 - 1.5 * iqr) | (x > q3 + 1.5 * iqr))[0]]
    mad = st.median_abs_deviation(x, scale=1.0)
    madf = [] if mad == 0 else [int(i) for i in np.where(np.abs(x - np.median(x)) / (1.4826 * mad) > 3.5)[0]]
    return {'tukey': tukey, 'mad': madf}


def has_ties(a, b):
    xy = np.concatenate([a, b])
    return len(np.unique(xy)) < len(xy)


def one(name, base, cand):
    b = np.asarray(base)
    c = np.asarray(cand)
    res = {'name': name, 'baseline': base, 'candidate': cand}
    res['describe'] = {'baseline': describe(b), 'candidate': describe(c)}
    res['outliers'] = {'baseline': outliers(b), 'candidate': outliers(c)}

    # Welch: scipy.stats.ttest_ind(candidate, baseline, equal_var=False); df by Welch-Satterthwaite
    # (SciPy 1.10 does not return df), checked against the p value it implies.
    t = st.ttest_ind(c, b, equal_var=False)
    df = welch_df(c, b)
    if np.isfinite(t.statistic):
        assert abs(2 * st.t.sf(abs(t.statistic), df) - t.pvalue) <= 1e-9 * max(1.0, t.pvalue) + 1e-300
    res['welch'] = {
        't': float(t.statistic) if np.isfinite(t.statistic) else None,
        'p': float(t.pvalue) if np.isfinite(t.pvalue) else None,
        'df': float(df) if np.isfinite(df) else None,
    }

    # Mann-Whitney U: method='auto' (SciPy's rule), and 'asymptotic' always; 'exact' when there are no ties.
    mw = {}
    auto = st.mannwhitneyu(c, b, alternative='two-sided', method='auto', use_continuity=True)
    auto_method = 'exact' if (not has_ties(c, b) and (len(c) <= 8 or len(b) <= 8)) else 'normal'
    mw['auto'] = {'u': float(auto.statistic), 'p': float(auto.pvalue), 'method': auto_method}
    asym = st.mannwhitneyu(c, b, alternative='two-sided', method='asymptotic', use_continuity=True)
    mw['normal'] = {'u': float(asym.statistic), 'p': float(asym.pvalue)}
    if not has_ties(c, b):
        ex = st.mannwhitneyu(c, b, alternative='two-sided', method='exact')
        mw['exact'] = {'u': float(ex.statistic), 'p': float(ex.pvalue)}
    res['mann_whitney'] = mw

    # TOST on mean(c) - mean(b) within (low, high): two one-sided Welch tests with the baseline shifted.
    m = MARGIN_PCT / 100
    mb = float(np.mean(b))
    tost = {}
    for direction, low, high in (
        ('lower', -m * mb, m * mb),
        ('higher', mb / (1 + m) - mb, mb / (1 - m) - mb),
    ):
        p_low = st.ttest_ind(c, b + low, equal_var=False, alternative='greater').pvalue
        p_high = st.ttest_ind(c, b + high, equal_var=False, alternative='less').pvalue
        p_sm = ttost_ind(c, b, low, high, usevar='unequal')[0]
        if np.isfinite(p_low):
            assert abs(max(p_low, p_high) - p_sm) <= 1e-9, (name, p_low, p_high, p_sm)
        tost[direction] = {
            'low': low,
            'high': high,
            'p_lower': float(p_low) if np.isfinite(p_low) else None,
            'p_upper': float(p_high) if np.isfinite(p_high) else None,
            'p': float(max(p_low, p_high)) if np.isfinite(p_low) else None,
        }
    res['tost'] = tost

    # Minimum detectable difference (alpha two-sided, power 0.8) and the t-delta ratio interval,
    # both with scipy.stats.t quantiles at the Welch df.
    se = np.sqrt(np.var(c, ddof=1) / len(c) + np.var(b, ddof=1) / len(b))
    if se > 0:
        res['mde'] = float((st.t.ppf(1 - ALPHA / 2, df) + st.t.ppf(0.8, df)) * se)
        mc = float(np.mean(c))
        a_ = np.var(c, ddof=1) / (len(c) * mc**2)
        b_ = np.var(b, ddof=1) / (len(b) * mb**2)
        dfr = (a_ + b_) ** 2 / (a_**2 / (len(c) - 1) + b_**2 / (len(b) - 1))
        half = st.t.ppf(0.975, dfr) * np.sqrt(a_ + b_)
        res['t_delta_ratio'] = {'low': mc / mb * np.exp(-half), 'high': mc / mb * np.exp(half)}
    else:
        res['mde'] = 0.0
        res['t_delta_ratio'] = None

    # Percentile bootstrap of mean(c)/mean(b), arms resampled independently. Different RNG from ours,
    # so tests compare endpoints loosely (Monte Carlo error), not to 1e-3.
    if len(b) >= 2 and len(c) >= 2 and np.std(b) > 0:
        boot = st.bootstrap(
            (c, b),
            lambda x, y, axis=-1: np.mean(x, axis=axis) / np.mean(y, axis=axis),
            vectorized=True,
            paired=False,
            n_resamples=20000,
            method='percentile',
            random_state=np.random.RandomState(1),
        )
        res['bootstrap_ratio_of_means'] = {
            'low': float(boot.confidence_interval.low),
            'high': float(boot.confidence_interval.high),
        }
    return res


def main():
    sets = [one(*d) for d in datasets()]
    ps = [s['welch']['p'] for s in sets if s['welch']['p'] is not None] + [0.001, 0.02, 0.04, 0.3]
    holm = multipletests(ps, alpha=ALPHA, method='holm')[1]
    out = {
        'generator': 'test/__fixtures__/stats/make_reference.py',
        'versions': {'scipy': scipy.__version__, 'numpy': np.__version__, 'statsmodels': statsmodels.__version__},
        'alpha': ALPHA,
        'margin_pct': MARGIN_PCT,
        'datasets': sets,
        'holm': {'p': ps, 'adjusted': [float(v) for v in holm]},
    }
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write('\n')


if __name__ == '__main__':
    main()
