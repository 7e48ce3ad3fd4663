//! Ridge regression of a reward on a context, the per-arm model both
//! bandits keep and the OPE gate's reward model: `A = λI + Σ x xᵀ`,
//! `b = Σ r x`, `θ̂ = A⁻¹ b`. Contexts are a handful of features, so every
//! query factors `A` afresh (Cholesky, d³/6 flops) rather than keeping an
//! inverse that rank-one updates would let drift.

use serde::{Deserialize, Serialize};

/// One arm's ridge regression over `d` features.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ridge {
    /// `λI + Σ x xᵀ`, row-major `d × d`.
    a: Vec<f64>,
    /// `Σ r x`.
    b: Vec<f64>,
    /// Observations taken.
    n: u64,
}

impl Ridge {
    /// A model over `d` features with penalty `lambda` (> 0: `A` stays
    /// positive definite).
    pub fn new(d: usize, lambda: f64) -> Ridge {
        let mut a = vec![0.0; d * d];
        for i in 0..d {
            a[i * d + i] = lambda;
        }
        Ridge {
            a,
            b: vec![0.0; d],
            n: 0,
        }
    }

    /// Features.
    pub fn dim(&self) -> usize {
        self.b.len()
    }

    /// Observations taken.
    pub fn observations(&self) -> u64 {
        self.n
    }

    /// Takes the reward `r` observed at context `x`.
    pub fn update(&mut self, x: &[f64], r: f64) {
        let d = self.dim();
        for i in 0..d {
            for j in 0..d {
                self.a[i * d + j] += x[i] * x[j];
            }
            self.b[i] += r * x[i];
        }
        self.n += 1;
    }

    /// The lower-triangular Cholesky factor of `A`, row-major.
    fn cholesky(&self) -> Vec<f64> {
        let d = self.dim();
        let mut l = vec![0.0; d * d];
        for i in 0..d {
            for j in 0..=i {
                let mut s = self.a[i * d + j];
                for k in 0..j {
                    s -= l[i * d + k] * l[j * d + k];
                }
                l[i * d + j] = if i == j {
                    // λ > 0 keeps the pivot positive; the floor guards
                    // rounding on a near-singular A.
                    s.max(1e-12).sqrt()
                } else {
                    s / l[j * d + j]
                };
            }
        }
        l
    }

    /// `L⁻¹ v` by forward substitution.
    fn forward(l: &[f64], v: &[f64]) -> Vec<f64> {
        let d = v.len();
        let mut y = vec![0.0; d];
        for i in 0..d {
            let s: f64 = (0..i).map(|k| l[i * d + k] * y[k]).sum();
            y[i] = (v[i] - s) / l[i * d + i];
        }
        y
    }

    /// `θ̂ = A⁻¹ b`, the posterior mean (ridge estimate).
    pub fn theta(&self) -> Vec<f64> {
        let d = self.dim();
        let l = self.cholesky();
        let y = Ridge::forward(&l, &self.b);
        let mut z = vec![0.0; d];
        for i in (0..d).rev() {
            let s: f64 = (i + 1..d).map(|k| l[k * d + i] * z[k]).sum();
            z[i] = (y[i] - s) / l[i * d + i];
        }
        z
    }

    /// The predicted reward `xᵀθ̂` and the width `√(xᵀA⁻¹x)` at `x`.
    pub fn predict(&self, x: &[f64]) -> (f64, f64) {
        let l = self.cholesky();
        let y = Ridge::forward(&l, x);
        let width = y.iter().map(|v| v * v).sum::<f64>().sqrt();
        (dot(x, &self.theta()), width)
    }
}

/// `Σ xᵢ yᵢ`.
pub fn dot(x: &[f64], y: &[f64]) -> f64 {
    x.iter().zip(y).map(|(a, b)| a * b).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recovers_a_noiseless_linear_reward_and_narrows_with_data() {
        let truth = [0.5, -2.0, 1.5];
        let mut m = Ridge::new(3, 1e-6);
        let (_, wide) = m.predict(&[1.0, 0.0, 0.0]);
        for i in 0..30 {
            let t = f64::from(i);
            let x = [1.0, (t * 0.7).sin(), (t * 1.3).cos()];
            m.update(&x, dot(&x, &truth));
        }
        for (got, want) in m.theta().iter().zip(truth) {
            assert!((got - want).abs() < 1e-4, "{got} vs {want}");
        }
        let (mean, narrow) = m.predict(&[1.0, 0.5, -0.5]);
        assert!((mean - (0.5 - 1.0 - 0.75)).abs() < 1e-4, "{mean}");
        assert!(narrow < wide / 3.0, "{narrow} vs {wide}");
        assert_eq!(m.observations(), 30);
    }

    #[test]
    fn with_no_data_the_width_is_the_prior_s() {
        // A = λI: xᵀA⁻¹x = |x|²/λ.
        let m = Ridge::new(2, 4.0);
        let (mean, width) = m.predict(&[3.0, 4.0]);
        assert_eq!(mean, 0.0);
        assert!((width - 2.5).abs() < 1e-12, "{width}");
    }
}
