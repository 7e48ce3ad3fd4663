"""Dump obp 0.5.7's off-policy estimates as JSON fixtures for Ads-Bench.

Run once by a developer (see README.md); CI only reads the JSON. Every
array the Rust side needs is written with full float64 precision (Python's
repr), and every reference value is what obp itself returns on exactly
those arrays.

Usage: python generate.py OUT_DIR
"""

import json
import sys
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import KFold

import obp
from obp.dataset import OpenBanditDataset
from obp.ope import DirectMethod
from obp.ope import DoublyRobust
from obp.ope import InverseProbabilityWeighting
from obp.ope import RegressionModel
from obp.ope import SelfNormalizedDoublyRobust
from obp.ope import SelfNormalizedInverseProbabilityWeighting
from obp.policy import BernoulliTS
from obp.utils import estimate_confidence_interval_by_bootstrap

assert obp.version.__version__ == "0.5.7", obp.version.__version__

ALPHA = 0.05
N_ROUNDS = 200
N_BOOT = 200
BOOT_SEED = 7
# obp's OBD example (examples/obd): seed, cross-fitting folds, BTS simulations,
# logistic-regression hyperparameters (conf/hyperparams.yaml).
OBD_SEED = 12345
OBD_FOLDS = 3
OBD_N_SIM = 1_000_000
OBD_LOGREG = dict(max_iter=10000, C=100, random_state=12345)


def floats(a):
    return [float(x) for x in np.asarray(a, dtype=float).ravel()]


def ints(a):
    return [int(x) for x in np.asarray(a).ravel()]


def estimators(clip):
    """The estimators under test, by the name the Rust fixtures use."""
    return {
        "ipw": InverseProbabilityWeighting(),
        "ipw_clipped": InverseProbabilityWeighting(lambda_=clip),
        "snipw": SelfNormalizedInverseProbabilityWeighting(),
        "dm": DirectMethod(),
        "dr": DoublyRobust(),
        "dr_clipped": DoublyRobust(lambda_=clip),
        "sndr": SelfNormalizedDoublyRobust(),
    }


def bootstrap_indices(n):
    """The resample indices obp draws inside its bootstrap.

    `estimate_confidence_interval_by_bootstrap` calls
    `RandomState(seed).choice(samples, size=n)` once per resample, which is
    `randint(0, n, size=n)` on the same stream; drawing the same way here gives
    the exact index matrix behind obp's own interval.
    """
    rs = np.random.RandomState(BOOT_SEED)
    return np.array([rs.randint(0, n, size=n) for _ in range(N_BOOT)])


def evaluate(data, clip, indices):
    """obp's point estimates and its bootstrap intervals on `data`."""
    kwargs = dict(
        reward=data["reward"],
        action=data["action"],
        pscore=data["pscore"],
        position=data["position"],
        action_dist=data["action_dist"],
        estimated_rewards_by_reg_model=data["q_hat"],
    )
    estimates, intervals = {}, {}
    for name, est in estimators(clip).items():
        estimates[name] = float(est.estimate_policy_value(**kwargs))
        ci = est.estimate_interval(
            **kwargs, alpha=ALPHA, n_bootstrap_samples=N_BOOT, random_state=BOOT_SEED
        )
        # Same interval from the explicit indices: proves they are obp's.
        rounds = est._estimate_round_rewards(**kwargs)
        boot = np.array([np.mean(rounds[idx]) for idx in indices])
        check = {
            "mean": np.mean(boot),
            "lower": np.percentile(boot, 100 * (ALPHA / 2)),
            "upper": np.percentile(boot, 100 * (1.0 - ALPHA / 2)),
        }
        got = list(ci.values())
        assert got == [check["mean"], check["lower"], check["upper"]], (name, got, check)
        intervals[name] = {k: float(v) for k, v in check.items()}
    return estimates, intervals


def dense(a):
    return {"shape": list(a.shape), "dense": floats(a)}


def sparse(a):
    nz = np.argwhere(a != 0)
    return {
        "shape": list(a.shape),
        "sparse": [[int(i), int(j), int(k), float(a[i, j, k])] for i, j, k in nz],
    }


def softmax(z):
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def logged(rs, n, k, len_list, logging_probs, true_q):
    """Draw logged rounds from per-round logging distributions (n, k)."""
    action = np.array([rs.choice(k, p=p) for p in logging_probs])
    position = rs.randint(0, len_list, size=n)
    reward = rs.binomial(1, true_q[np.arange(n), action]).astype(float)
    pscore = logging_probs[np.arange(n), action]
    return action, position, reward, pscore


def synthetic_case(name, seed, k=10, len_list=1, kind="uniform", cube=False, deficient=False):
    rs = np.random.RandomState(seed)
    n = N_ROUNDS
    x = rs.normal(size=(n, 3))
    theta = rs.normal(size=(3, k))
    true_q = 1.0 / (1.0 + np.exp(-(x @ rs.normal(size=(3, k)) * 0.5)))
    logging_probs = softmax(x @ theta)
    if cube:
        # Cubing sharpens the logging policy: rare actions get huge weights.
        logging_probs = logging_probs**3
        logging_probs /= logging_probs.sum(axis=1, keepdims=True)
    if deficient:
        # The logger never shows the upper half of the actions.
        logging_probs[:, k // 2 :] = 0.0
        logging_probs /= logging_probs.sum(axis=1, keepdims=True)
    action, position, reward, pscore = logged(rs, n, k, len_list, logging_probs, true_q)
    # A noisy reward model, per position.
    q_hat = np.clip(
        true_q[:, :, None] + rs.normal(scale=0.1, size=(n, k, len_list)), 0.01, 0.99
    )
    score = x @ rs.normal(size=(3, k))
    if kind == "uniform":
        action_dist = np.full((n, k, len_list), 1.0 / k)
    elif kind == "epsilon_greedy":
        eps = 0.1
        action_dist = np.full((n, k, len_list), eps / k)
        best = score.argmax(axis=1)
        action_dist[np.arange(n), best, :] += 1.0 - eps
    elif kind == "deterministic":
        action_dist = np.zeros((n, k, len_list))
        action_dist[np.arange(n), score.argmax(axis=1), :] = 1.0
    else:
        raise ValueError(kind)
    data = dict(
        reward=reward, action=action, pscore=pscore, position=position,
        action_dist=action_dist, q_hat=q_hat,
    )
    encoded = dict(action_dist=dense(action_dist), q_hat=dense(q_hat))
    return name, data, encoded


def large_action_case(name, seed, k=1000):
    """K = 1000: too many actions for dense JSON, so the arrays are built
    from compact parts that decode to bit-identical values in Rust
    (products of two float64 are correctly rounded on both sides)."""
    rs = np.random.RandomState(seed)
    n = N_ROUNDS
    logging_probs = softmax(rs.normal(size=(n, k)))
    true_q = np.full((n, k), 0.2)
    action, position, reward, pscore = logged(rs, n, k, 1, logging_probs, true_q)
    q_rows = rs.uniform(0.2, 1.0, size=n)
    q_actions = rs.uniform(0.05, 0.5, size=k)
    q_hat = np.multiply.outer(q_rows, q_actions)[:, :, None]
    # The evaluated policy spreads its mass over five actions per round; in
    # every other round the logged action is one of them, so weights are
    # not all zero.
    action_dist = np.zeros((n, k, 1))
    for i in range(n):
        top = rs.choice(k, size=5, replace=False)
        if i % 2 == 0 and action[i] not in top:
            top[0] = action[i]
        action_dist[i, top, 0] = softmax(rs.normal(size=(1, 5)))[0]
    data = dict(
        reward=reward, action=action, pscore=pscore, position=position,
        action_dist=action_dist, q_hat=q_hat,
    )
    encoded = dict(
        action_dist=sparse(action_dist),
        q_hat={"shape": [n, k, 1], "outer": {"rows": floats(q_rows), "actions": floats(q_actions)}},
    )
    return name, data, encoded


def write(path, obj):
    path.write_text(json.dumps(obj, separators=(",", ":")) + "\n")
    print(f"{path}: {path.stat().st_size} bytes")


def synthetic(out):
    indices = bootstrap_indices(N_ROUNDS)
    write(out / "resample_indices.json", {"n_rounds": N_ROUNDS, "seed": BOOT_SEED, "indices": indices.tolist()})
    cases = [
        synthetic_case("uniform", 1, kind="uniform"),
        synthetic_case("epsilon_greedy", 2, kind="epsilon_greedy"),
        synthetic_case("deterministic", 3, kind="deterministic"),
        synthetic_case("positions", 4, len_list=3, kind="epsilon_greedy"),
        synthetic_case("cubed_propensities", 5, kind="epsilon_greedy", cube=True),
        synthetic_case("deficient_support", 6, kind="uniform", deficient=True),
        large_action_case("k1000", 7),
    ]
    for name, data, encoded in cases:
        clip = 5.0
        estimates, intervals = evaluate(data, clip, indices)
        write(
            out / f"{name}.json",
            {
                "case": name,
                "obp_version": "0.5.7",
                "alpha": ALPHA,
                "clip": clip,
                "action": ints(data["action"]),
                "position": ints(data["position"]),
                "reward": floats(data["reward"]),
                "pscore": floats(data["pscore"]),
                **encoded,
                "estimates": estimates,
                "intervals": intervals,
            },
        )


def obd(out):
    """The classic OBD experiment: BTS's value from the random policy's logs."""
    ds = OpenBanditDataset(behavior_policy="random", campaign="all")
    bf = ds.obtain_batch_bandit_feedback()
    n, k, len_list = bf["n_rounds"], bf["n_actions"], ds.len_list
    # obp sorts the rows by timestamp; the shipped CSV is already in that
    # order, so row i here is row i of the file (the Rust loader checks it).
    assert (ds.data.index.values == np.arange(n)).all()

    bts = BernoulliTS(
        n_actions=k, len_list=len_list, is_zozotown_prior=True, campaign="all",
        random_state=OBD_SEED,
    )
    single = bts.compute_batch_action_dist(n_sim=OBD_N_SIM)  # (1, k, len_list)
    action_dist = np.tile(single, (n, 1, 1))

    # obp's RegressionModel.fit_predict with cross-fitting, reproduced fold by
    # fold so each fold's logistic regressions can be dumped in factored form.
    reg = RegressionModel(
        n_actions=k, len_list=len_list, action_context=ds.action_context,
        base_model=LogisticRegression(**OBD_LOGREG),
    )
    q_hat = reg.fit_predict(
        context=bf["context"], action=bf["action"], reward=bf["reward"],
        position=bf["position"], pscore=bf["pscore"], n_folds=OBD_FOLDS,
        random_state=OBD_SEED,
    )
    ctx_dim = bf["context"].shape[1]
    context_logit = np.zeros((n, len_list))
    action_logit = np.zeros((OBD_FOLDS, len_list, k))
    fold_of_row = np.zeros(n, dtype=int)
    kf = KFold(n_splits=OBD_FOLDS, shuffle=True, random_state=OBD_SEED)
    for f, (train, test) in enumerate(kf.split(bf["context"])):
        reg.fit(
            context=bf["context"][train], action=bf["action"][train],
            reward=bf["reward"][train], position=bf["position"][train],
            pscore=bf["pscore"][train],
        )
        fold_of_row[test] = f
        for p in range(len_list):
            m = reg.base_model_list[p]
            w = m.coef_[0]
            context_logit[test, p] = bf["context"][test] @ w[:ctx_dim]
            action_logit[f, p] = ds.action_context @ w[ctx_dim:] + m.intercept_[0]
    logit = context_logit[:, None, :] + action_logit[fold_of_row].transpose(0, 2, 1)
    rebuilt = 1.0 / (1.0 + np.exp(-logit))
    err = np.max(np.abs(rebuilt - q_hat) / q_hat)
    assert err < 1e-12, err
    print(f"factored q_hat reproduces obp's within {err:.2e} relative")
    # Rows sharing user features share their context logits: store each once.
    context_table, context_of_row = np.unique(context_logit, axis=0, return_inverse=True)

    est = estimators(np.inf)
    kwargs = dict(
        reward=bf["reward"], action=bf["action"], pscore=bf["pscore"],
        position=bf["position"], action_dist=action_dist,
        estimated_rewards_by_reg_model=q_hat,
    )
    estimates = {
        name: float(est[name].estimate_policy_value(**kwargs))
        for name in ["ipw", "snipw", "dm", "dr", "sndr"]
    }
    on_policy = float(
        OpenBanditDataset.calc_on_policy_policy_value_estimate(
            behavior_policy="bts", campaign="all"
        )
    )
    write(
        out / "obd_random_all_bts.json",
        {
            "obp_version": "0.5.7",
            "behavior_policy": "random",
            "evaluation_policy": "bts",
            "campaign": "all",
            "n_rounds": int(n),
            "n_actions": int(k),
            "len_list": int(len_list),
            "n_sim": OBD_N_SIM,
            "bts_action_dist": floats(single[0]),  # (k, len_list), same for every round
            "fold_of_row": ints(fold_of_row),
            "context_of_row": ints(context_of_row),
            "context_logit": floats(context_table),  # (distinct contexts, len_list)
            "action_logit": floats(action_logit),  # (folds, len_list, k)
            "estimates": estimates,
            "on_policy_value": on_policy,
        },
    )
    rel = {name: abs(v - on_policy) / on_policy for name, v in estimates.items()}
    print("on-policy value of bts:", on_policy)
    for name, v in estimates.items():
        print(f"{name:6s} {v:.6f}  relative-ee {rel[name]:.6f}")


if __name__ == "__main__":
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    synthetic(out)
    obd(out)
