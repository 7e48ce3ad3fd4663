//! The estimators' inputs, in obp's layout: a log of bandit rounds (action,
//! position, reward, propensity) and per-round tables over actions and
//! positions (the evaluated policy's `action_dist`, the reward model's q̂).
//! [`OpeInput::new`] checks everything once and reduces the tables to the
//! per-round terms every estimator is built from, so estimating cannot fail
//! on malformed data and costs one pass over n numbers, not over n × K.

use super::error::OpeError;

/// How far a round's action probabilities may sum from 1 (obp's `np.allclose`
/// defaults: rtol 1e-5 plus atol 1e-8 around 1).
const SUM_TOLERANCE: f64 = 1e-5 + 1e-8;

/// Rounds logged by the behaviour (logging) policy.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LoggedBandit {
    /// Action (item) chosen in each round, `0..n_actions`.
    pub action: Vec<usize>,
    /// Slot the action was shown in, `0..len_list` (all 0 for a single slot).
    pub position: Vec<usize>,
    /// Observed reward (a click is 1.0).
    pub reward: Vec<f64>,
    /// The logging policy's probability of the logged action (propensity
    /// score), in `(0, 1]`.
    pub pscore: Vec<f64>,
}

impl LoggedBandit {
    /// Number of logged rounds.
    pub fn n_rounds(&self) -> usize {
        self.action.len()
    }

    /// The on-policy value of the logging policy: its mean reward (NaN for
    /// an empty log).
    pub fn mean_reward(&self) -> f64 {
        self.reward.iter().sum::<f64>() / self.reward.len() as f64
    }

    /// Checks lengths, propensities and rewards; `n_actions` and `len_list`
    /// bound the actions and positions.
    ///
    /// # Errors
    /// [`OpeError`] naming the first bad field.
    pub fn validate(&self, n_actions: usize, len_list: usize) -> Result<(), OpeError> {
        let n = self.action.len();
        if n == 0 {
            return Err(OpeError::Empty { field: "action" });
        }
        for (field, len) in [
            ("position", self.position.len()),
            ("reward", self.reward.len()),
            ("pscore", self.pscore.len()),
        ] {
            if len != n {
                return Err(OpeError::Length {
                    field,
                    expected: n,
                    actual: len,
                });
            }
        }
        if let Some(i) = self.action.iter().position(|&a| a >= n_actions) {
            return Err(OpeError::value(
                "action",
                i,
                self.action[i],
                "must be below n_actions (the action_dist's second dimension)",
            ));
        }
        if let Some(i) = self.position.iter().position(|&p| p >= len_list) {
            return Err(OpeError::value(
                "position",
                i,
                self.position[i],
                "must be below len_list (the action_dist's third dimension)",
            ));
        }
        if let Some(i) = self
            .pscore
            .iter()
            .position(|&p| p.is_nan() || p <= 0.0 || p > 1.0)
        {
            return Err(OpeError::value(
                "pscore",
                i,
                self.pscore[i],
                "a propensity must lie in (0, 1]",
            ));
        }
        if let Some(i) = self.reward.iter().position(|r| !r.is_finite()) {
            return Err(OpeError::value(
                "reward",
                i,
                self.reward[i],
                "must be finite",
            ));
        }
        Ok(())
    }
}

/// A per-round table over actions and positions, `(n_rounds, n_actions,
/// len_list)`: obp's `action_dist` and `estimated_rewards_by_reg_model`.
///
/// It is built from obp's row-major `[round][action][position]` layout but
/// stored `[round][position][action]`: estimators read all actions at one
/// position, which is then one contiguous run. A table that is the same in
/// every round (a context-free policy) stores that round once.
#[derive(Debug, Clone, PartialEq)]
pub struct ActionTable {
    n_rounds: usize,
    n_actions: usize,
    len_list: usize,
    /// Distance between consecutive rounds in `values`: `n_actions *
    /// len_list`, or 0 when every round shares one block.
    round_stride: usize,
    /// `[round][position][action]`.
    values: Vec<f64>,
}

impl ActionTable {
    /// Wraps `values` laid out as `[round][action][position]`.
    ///
    /// # Errors
    /// [`OpeError::Length`] when `values` does not hold
    /// `n_rounds * n_actions * len_list` entries (`field` names the table),
    /// [`OpeError::Setting`] for a zero dimension.
    pub fn new(
        field: &'static str,
        n_rounds: usize,
        n_actions: usize,
        len_list: usize,
        values: Vec<f64>,
    ) -> Result<ActionTable, OpeError> {
        for (what, v) in [("n_actions", n_actions), ("len_list", len_list)] {
            if v == 0 {
                return Err(OpeError::Setting {
                    field: what,
                    value: "0".into(),
                    reason: "must be at least 1",
                });
            }
        }
        let expected = n_rounds * n_actions * len_list;
        if values.len() != expected {
            return Err(OpeError::Length {
                field,
                expected,
                actual: values.len(),
            });
        }
        let values = if len_list == 1 {
            values
        } else {
            let block = n_actions * len_list;
            let mut out = Vec::with_capacity(values.len());
            for round in values.chunks_exact(block) {
                for p in 0..len_list {
                    out.extend((0..n_actions).map(|a| round[a * len_list + p]));
                }
            }
            out
        };
        Ok(ActionTable {
            n_rounds,
            n_actions,
            len_list,
            round_stride: n_actions * len_list,
            values,
        })
    }

    /// The same `(n_actions, len_list)` block in every round, as obp tiles a
    /// context-free policy's distribution (stored once, not `n_rounds` times).
    ///
    /// # Errors
    /// As [`ActionTable::new`], for a block of the wrong size.
    pub fn tiled(
        field: &'static str,
        n_rounds: usize,
        n_actions: usize,
        len_list: usize,
        single_round: &[f64],
    ) -> Result<ActionTable, OpeError> {
        let one = ActionTable::new(field, 1, n_actions, len_list, single_round.to_vec())?;
        Ok(ActionTable {
            n_rounds,
            round_stride: 0,
            ..one
        })
    }

    /// `(n_rounds, n_actions, len_list)`.
    pub fn shape(&self) -> (usize, usize, usize) {
        (self.n_rounds, self.n_actions, self.len_list)
    }

    /// Entry for `round`, `action`, `position`.
    #[inline]
    pub fn get(&self, round: usize, action: usize, position: usize) -> f64 {
        self.values[round * self.round_stride + position * self.n_actions + action]
    }

    /// Every action's entry in `round` at `position`.
    #[inline]
    pub(crate) fn slot(&self, round: usize, position: usize) -> &[f64] {
        let start = round * self.round_stride + position * self.n_actions;
        &self.values[start..start + self.n_actions]
    }

    /// The distinct `(round or shared block, position)` runs over actions.
    fn slots(&self) -> std::slice::ChunksExact<'_, f64> {
        self.values.chunks_exact(self.n_actions)
    }

    fn check_finite(&self, field: &'static str) -> Result<(), OpeError> {
        match self.values.iter().position(|v| !v.is_finite()) {
            Some(i) => Err(OpeError::value(field, i, self.values[i], "must be finite")),
            None => Ok(()),
        }
    }
}

/// Everything an estimator reads, checked for consistency and reduced to
/// per-round terms (shared by all estimators, clips and resamples).
#[derive(Debug, Clone)]
pub struct OpeInput<'a> {
    pub(crate) log: &'a LoggedBandit,
    /// Importance weight `π_e(a_i|x_i, p_i) / pscore_i`, unclipped.
    pub(crate) weight: Vec<f64>,
    /// The reward model's terms, when q̂ was given.
    pub(crate) model: Option<ModelTerms>,
}

/// Per-round reward-model terms at the logged position `p_i`.
#[derive(Debug, Clone)]
pub(crate) struct ModelTerms {
    /// `Σ_a q̂(x_i,a,p_i) π_e(a|x_i,p_i) / Σ_a π_e(a|x_i,p_i)`: obp's
    /// `np.average` over actions, the direct method's term.
    pub(crate) direct: Vec<f64>,
    /// `q̂(x_i, a_i, p_i)`: the model's prediction for the logged action.
    pub(crate) factual: Vec<f64>,
}

impl<'a> OpeInput<'a> {
    /// Checks `log` against the evaluated policy's `action_dist` (each round
    /// and position a probability distribution over actions) and, when given,
    /// the reward model's `estimated_rewards` (q̂, same shape; needed by DM, DR
    /// and SNDR).
    ///
    /// # Errors
    /// [`OpeError`] naming the first bad field.
    pub fn new(
        log: &'a LoggedBandit,
        action_dist: &'a ActionTable,
        estimated_rewards: Option<&'a ActionTable>,
    ) -> Result<OpeInput<'a>, OpeError> {
        let (n, k, l) = action_dist.shape();
        if log.n_rounds() != n {
            return Err(OpeError::Length {
                field: "action_dist",
                expected: log.n_rounds(),
                actual: n,
            });
        }
        log.validate(k, l)?;
        // One pass: range and sum of each round's run over actions.
        for (j, slot) in action_dist.slots().enumerate() {
            let mut sum = 0.0;
            for &p in slot {
                if !(0.0..=1.0).contains(&p) {
                    return Err(OpeError::value(
                        "action_dist",
                        j / l,
                        p,
                        "a probability must lie in [0, 1]",
                    ));
                }
                sum += p;
            }
            if (sum - 1.0).abs() > SUM_TOLERANCE {
                return Err(OpeError::value(
                    "action_dist",
                    j / l,
                    sum,
                    "each round's probabilities over actions must sum to 1 at every position",
                ));
            }
        }
        if let Some(q) = estimated_rewards {
            if q.shape() != action_dist.shape() {
                return Err(OpeError::Shape {
                    field: "estimated_rewards",
                    expected: action_dist.shape(),
                    actual: q.shape(),
                });
            }
            q.check_finite("estimated_rewards")?;
        }
        let rounds = 0..n;
        let weight = rounds
            .clone()
            .map(|i| action_dist.get(i, log.action[i], log.position[i]) / log.pscore[i])
            .collect();
        let model = estimated_rewards.map(|q| {
            let (direct, factual) = rounds
                .map(|i| {
                    let (a, p) = (log.action[i], log.position[i]);
                    let (num, den) = weighted_sum(q.slot(i, p), action_dist.slot(i, p));
                    (num / den, q.get(i, a, p))
                })
                .unzip();
            ModelTerms { direct, factual }
        });
        Ok(OpeInput { log, weight, model })
    }

    /// The log.
    pub fn log(&self) -> &'a LoggedBandit {
        self.log
    }

    /// Number of rounds.
    pub fn n_rounds(&self) -> usize {
        self.log.n_rounds()
    }

    /// Whether a reward model's q̂ was given (DM, DR and SNDR need one).
    pub fn has_reward_model(&self) -> bool {
        self.model.is_some()
    }
}

/// `(Σ q·w, Σ w)` over equal-length slices, in four independent lanes so
/// the additions pipeline (and vectorise) instead of forming one chain.
#[inline]
fn weighted_sum(q: &[f64], w: &[f64]) -> (f64, f64) {
    let (mut num, mut den) = ([0.0; 4], [0.0; 4]);
    let (qc, wc) = (q.chunks_exact(4), w.chunks_exact(4));
    let (q_rest, w_rest) = (qc.remainder(), wc.remainder());
    for (q4, w4) in qc.zip(wc) {
        for j in 0..4 {
            num[j] += q4[j] * w4[j];
            den[j] += w4[j];
        }
    }
    let mut n = (num[0] + num[1]) + (num[2] + num[3]);
    let mut d = (den[0] + den[1]) + (den[2] + den[3]);
    for (qa, wa) in q_rest.iter().zip(w_rest) {
        n += qa * wa;
        d += wa;
    }
    (n, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log() -> LoggedBandit {
        LoggedBandit {
            action: vec![0, 1],
            position: vec![0, 0],
            reward: vec![1.0, 0.0],
            pscore: vec![0.5, 0.5],
        }
    }

    fn uniform(n: usize) -> ActionTable {
        ActionTable::new("action_dist", n, 2, 1, vec![0.5; n * 2]).unwrap()
    }

    #[test]
    fn a_tiled_table_repeats_one_block() {
        let t = ActionTable::tiled("action_dist", 3, 2, 2, &[0.1, 0.2, 0.9, 0.8]).unwrap();
        assert_eq!(t.shape(), (3, 2, 2));
        for round in 0..3 {
            assert_eq!(t.get(round, 1, 0), 0.9);
            assert_eq!(t.get(round, 0, 1), 0.2);
        }
        let err = ActionTable::tiled("action_dist", 3, 2, 2, &[0.5; 3]).unwrap_err();
        assert!(matches!(
            err,
            OpeError::Length {
                field: "action_dist",
                expected: 4,
                ..
            }
        ));
        let l = LoggedBandit {
            action: vec![1, 0, 1],
            position: vec![0, 1, 1],
            reward: vec![0.0; 3],
            pscore: vec![0.5; 3],
        };
        assert!(OpeInput::new(&l, &t, None).is_ok());
    }

    #[test]
    fn a_zero_or_too_large_propensity_is_named() {
        for bad in [0.0, -0.1, 1.5, f64::NAN] {
            let mut l = log();
            l.pscore[1] = bad;
            let err = OpeInput::new(&l, &uniform(2), None).unwrap_err();
            assert!(
                matches!(
                    err,
                    OpeError::Value {
                        field: "pscore",
                        index: 1,
                        ..
                    }
                ),
                "{err}"
            );
            assert!(err.to_string().contains("(0, 1]"), "{err}");
        }
    }

    #[test]
    fn mismatched_lengths_name_the_field() {
        let mut l = log();
        l.reward.pop();
        let err = OpeInput::new(&l, &uniform(2), None).unwrap_err();
        assert_eq!(
            err,
            OpeError::Length {
                field: "reward",
                expected: 2,
                actual: 1
            }
        );
        let err = OpeInput::new(&log(), &uniform(3), None).unwrap_err();
        assert!(matches!(
            err,
            OpeError::Length {
                field: "action_dist",
                ..
            }
        ));
        let err = ActionTable::new("estimated_rewards", 2, 2, 1, vec![0.0; 3]).unwrap_err();
        assert!(err
            .to_string()
            .contains("`estimated_rewards` has 3 entries, expected 4"));
    }

    #[test]
    fn out_of_range_actions_positions_and_distributions_are_rejected() {
        let mut l = log();
        l.action[0] = 2;
        let err = OpeInput::new(&l, &uniform(2), None).unwrap_err();
        assert!(matches!(
            err,
            OpeError::Value {
                field: "action",
                index: 0,
                ..
            }
        ));
        let mut l = log();
        l.position[1] = 1;
        let err = OpeInput::new(&l, &uniform(2), None).unwrap_err();
        assert!(matches!(
            err,
            OpeError::Value {
                field: "position",
                index: 1,
                ..
            }
        ));
        let skewed = ActionTable::new("action_dist", 2, 2, 1, vec![0.5, 0.5, 0.5, 0.6]).unwrap();
        let err = OpeInput::new(&log(), &skewed, None).unwrap_err();
        assert!(matches!(
            err,
            OpeError::Value {
                field: "action_dist",
                index: 1,
                ..
            }
        ));
        let q = ActionTable::new("estimated_rewards", 2, 1, 2, vec![0.0; 4]).unwrap();
        let err = OpeInput::new(&log(), &uniform(2), Some(&q)).unwrap_err();
        assert!(matches!(
            err,
            OpeError::Shape {
                field: "estimated_rewards",
                ..
            }
        ));
        let empty = LoggedBandit::default();
        let none = ActionTable::new("action_dist", 0, 2, 1, vec![]).unwrap();
        let err = OpeInput::new(&empty, &none, None).unwrap_err();
        assert_eq!(err, OpeError::Empty { field: "action" });
    }
}
