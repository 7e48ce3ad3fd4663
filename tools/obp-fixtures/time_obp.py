"""Time obp 0.5.7's estimate_policy_value at n = 10,000 rounds, on the same
two shapes as `cargo bench -p adfarm-adsbench --bench ope` (K = 10 in one
slot; OBD's 80 items in 3 positions), for comparison.

Usage (same venv and PYTHONPATH as generate.py): python time_obp.py
"""

import timeit

import numpy as np
from obp.ope import DirectMethod
from obp.ope import DoublyRobust
from obp.ope import InverseProbabilityWeighting
from obp.ope import SelfNormalizedDoublyRobust
from obp.ope import SelfNormalizedInverseProbabilityWeighting

N = 10_000


def shape(k, len_list):
    rs = np.random.RandomState(42)
    w = 0.1 + rs.uniform(size=(N, k, len_list))
    pi = w / w.sum(axis=1, keepdims=True)
    return dict(
        reward=(rs.uniform(size=N) < 0.3).astype(float),
        action=rs.randint(0, k, size=N),
        position=rs.randint(0, len_list, size=N),
        pscore=np.full(N, 1.0 / k),
        action_dist=pi,
        estimated_rewards_by_reg_model=rs.uniform(size=(N, k, len_list)),
    )


for k, len_list in [(10, 1), (80, 3)]:
    data = shape(k, len_list)
    print(f"K = {k}, positions = {len_list}: median ms per estimate_policy_value")
    for est in [
        InverseProbabilityWeighting(),
        SelfNormalizedInverseProbabilityWeighting(),
        DirectMethod(),
        DoublyRobust(),
        SelfNormalizedDoublyRobust(),
    ]:
        runs = timeit.repeat(lambda: est.estimate_policy_value(**data), number=1, repeat=50)
        print(f"  {est.estimator_name:6s} {1e3 * sorted(runs)[len(runs) // 2]:8.3f}")
