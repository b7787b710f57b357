#!/usr/bin/python3
"""Reference p values for test/analyze/mann-whitney.test.ts, computed with SciPy.

Run:  python3 test/__fixtures__/stats/make_mwu_reference.py > test/__fixtures__/stats/mwu_reference.json
Tied small samples use SciPy's exact permutation distribution (method=PermutationMethod(n_resamples=inf),
which enumerates every arrangement); the rest use method='auto' (exact without ties for n <= 8, else the
asymptotic normal approximation with tie and continuity corrections). Each case is (baseline, candidate)
and SciPy is called as mannwhitneyu(candidate, baseline), the order our comparison uses.
"""
import json
import numpy as np
import scipy
import scipy.special
import scipy.stats as st


def cases():
    rs = np.random.RandomState(20261123)
    q = lambda a, res: [float(round(v / res) * res) for v in a]  # noqa: E731  timer quantisation
    out = [
        ('constant_arms_n3', [1.0] * 3, [1.0300001] * 3),
        ('constant_arms_n5', [1.0] * 5, [1.0300001] * 5),
        ('timer_1ms_n3', [41.0, 42.0, 41.0], [42.0, 42.0, 41.0]),
        ('timer_1ms_n5', [41.0, 42.0, 41.0, 41.0, 42.0], [42.0, 42.0, 43.0, 42.0, 42.0]),
        ('ties_6_vs_5', q(rs.normal(10, 1, 6), 0.5), q(rs.normal(10.8, 1, 5), 0.5)),
        ('ties_8_vs_8', q(rs.normal(100, 1, 8), 1.0), q(rs.normal(101, 1, 8), 1.0)),
        ('ties_2_vs_2', [1.0, 2.0], [2.0, 3.0]),
        ('all_tied', [5.0] * 4, [5.0] * 4),
    ]
    perm = list(out)
    auto = [
        ('separated_50_vs_50', [float(v) for v in range(50)], [float(v) for v in range(100, 150)]),
        ('separated_200_vs_200', [float(v) for v in range(200)], [float(v) for v in range(1000, 1200)]),
        ('ties_30_vs_40_normal', q(rs.normal(10, 1, 30), 0.5), q(rs.normal(10.5, 1, 40), 0.5)),
        ('no_ties_7_vs_20_exact', [round(float(v), 6) for v in rs.normal(5, 1, 7)],
         [round(float(v), 6) for v in rs.normal(5.8, 1, 20)]),
    ]
    return perm, auto


def main():
    perm, auto = cases()
    res = []
    for name, b, c in perm:
        r = st.mannwhitneyu(c, b, alternative='two-sided', method=st.PermutationMethod(n_resamples=np.inf))
        res.append({'name': name, 'baseline': b, 'candidate': c, 'method': 'permutation',
                    'u': float(r.statistic), 'p': float(r.pvalue)})
    for name, b, c in auto:
        r = st.mannwhitneyu(c, b, alternative='two-sided', method='auto')
        res.append({'name': name, 'baseline': b, 'candidate': c, 'method': 'scipy-auto',
                    'u': float(r.statistic), 'p': float(r.pvalue)})
    # Beyond the smallest double: SciPy's p is 0; the log of the same normal tail from scipy.special.log_ndtr.
    n = 2000
    u = n * n
    sigma = np.sqrt(n * n / 12 * (2 * n + 1))
    z = (u - n * n / 2 - 0.5) / sigma
    log10_p = float((np.log(2) + scipy.special.log_ndtr(-z)) / np.log(10))
    res.append({'name': 'separated_2000_vs_2000', 'baseline_range': [0, n], 'candidate_range': [10 * n, 11 * n],
                'method': 'log_ndtr', 'u': float(u), 'p': 0.0, 'log10_p': log10_p})
    print(json.dumps({'generator': 'test/__fixtures__/stats/make_mwu_reference.py',
                      'versions': {'scipy': scipy.__version__, 'numpy': np.__version__},
                      'cases': res}, indent=1))


main()
