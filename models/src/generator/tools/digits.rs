//! A number within bounds, written one character at a time. Its integer
//! part goes digit by digit: which digit may come next so that some integer
//! in bounds stays reachable, when it may end, and how many digits it needs
//! at least. Decimals may follow only when every value with that integer
//! part is within the real bounds ([`Real`]), so any decimal digits are
//! then fine. Integer parts have at most [`MAX_DIGITS`] digits, so every
//! value fits an `i64` with room to spare.

/// Most digits of an integer (and of a number's integer part).
pub(crate) const MAX_DIGITS: u32 = 9;

/// Largest magnitude with [`MAX_DIGITS`] digits.
pub(crate) const LIMIT: i64 = 999_999_999;

/// Inclusive bounds of an integer, within ±[`LIMIT`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Bounds {
    pub(crate) lo: i64,
    pub(crate) hi: i64,
}

impl Bounds {
    /// Any integer of at most [`MAX_DIGITS`] digits.
    pub(crate) const ANY: Bounds = Bounds {
        lo: -LIMIT,
        hi: LIMIT,
    };

    /// Magnitudes allowed for a sign, inclusive (`None`: that sign is out).
    fn magnitudes(self, negative: bool) -> Option<(i64, i64)> {
        if negative {
            (self.lo <= -1).then(|| ((-self.hi).max(1), -self.lo))
        } else {
            (self.hi >= 0).then(|| (self.lo.max(0), self.hi))
        }
    }

    /// The shortest text of a value in bounds.
    pub(crate) fn shortest(self) -> String {
        if self.lo <= 0 && self.hi >= 0 {
            "0".into()
        } else if self.lo > 0 {
            self.lo.to_string()
        } else {
            self.hi.to_string()
        }
    }
}

/// The bounds of a `number` as declared (`±inf` when absent; `open`:
/// exclusive).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Real {
    pub(crate) lo: f64,
    pub(crate) lo_open: bool,
    pub(crate) hi: f64,
    pub(crate) hi_open: bool,
}

impl Real {
    /// No bounds.
    pub(crate) const ANY: Real = Real {
        lo: f64::NEG_INFINITY,
        lo_open: false,
        hi: f64::INFINITY,
        hi_open: false,
    };

    /// Whether `x` is within the bounds.
    pub(crate) fn contains(self, x: f64) -> bool {
        let above = if self.lo_open {
            x > self.lo
        } else {
            x >= self.lo
        };
        let below = if self.hi_open {
            x < self.hi
        } else {
            x <= self.hi
        };
        above && below
    }

    /// The integers within the bounds, clamped to [`MAX_DIGITS`] digits
    /// (`None`: there are none).
    pub(crate) fn integers(self) -> Option<Bounds> {
        let lo = if self.lo_open {
            self.lo.floor() + 1.0
        } else {
            self.lo.ceil()
        };
        let hi = if self.hi_open {
            self.hi.ceil() - 1.0
        } else {
            self.hi.floor()
        };
        let (lo, hi) = (lo.max(-LIMIT as f64), hi.min(LIMIT as f64));
        (lo <= hi).then_some(Bounds {
            lo: lo as i64,
            hi: hi as i64,
        })
    }

    /// Whether every value whose integer part is `d`, decimals included, is
    /// within the bounds: `[v, v+1)` for `v >= 0`, `(v-1, v]` below.
    pub(crate) fn holds_decimals_of(self, d: Draft) -> bool {
        let v = if d.negative {
            -d.magnitude
        } else {
            d.magnitude
        } as f64;
        if d.negative {
            v - 1.0 >= self.lo && self.contains(v)
        } else {
            self.contains(v) && v + 1.0 <= self.hi
        }
    }
}

/// The digits written so far: a sign and a magnitude.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Draft {
    negative: bool,
    magnitude: i64,
    digits: u32,
}

impl Draft {
    /// Whether a minus sign may come now.
    pub(crate) fn can_negate(self, b: Bounds) -> bool {
        self.digits == 0 && !self.negative && b.magnitudes(true).is_some()
    }

    /// After a minus sign.
    pub(crate) fn negated(self) -> Draft {
        Draft {
            negative: true,
            ..self
        }
    }

    /// Whether the number may end here.
    pub(crate) fn can_end(self, b: Bounds) -> bool {
        self.need(b) == Some(0)
    }

    /// After digit `d`, if some value in bounds can still be reached
    /// (no leading zero, no `-0`).
    pub(crate) fn pushed(self, d: u8, b: Bounds) -> Option<Draft> {
        let leading_zero = self.digits > 0 && self.magnitude == 0;
        let negative_zero = d == 0 && self.negative && self.digits == 0;
        if d > 9 || self.digits >= MAX_DIGITS || leading_zero || negative_zero {
            return None;
        }
        let next = Draft {
            negative: self.negative,
            magnitude: self.magnitude * 10 + i64::from(d),
            digits: self.digits + 1,
        };
        next.need(b).map(|_| next)
    }

    /// Fewest further digits that reach a value in bounds (`None`: none do).
    pub(crate) fn need(self, b: Bounds) -> Option<u32> {
        let (lo, hi) = b.magnitudes(self.negative)?;
        (0..=MAX_DIGITS - self.digits).find(|&k| {
            let scale = 10i64.pow(k);
            let (from, to) = if self.digits == 0 {
                match k {
                    0 => return false,
                    1 => (i64::from(self.negative), 9),
                    _ => (scale / 10, scale - 1),
                }
            } else if self.magnitude == 0 && k > 0 {
                return false;
            } else {
                (self.magnitude * scale, self.magnitude * scale + scale - 1)
            };
            from <= hi && to >= lo
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(text: &str, b: Bounds) -> Option<Draft> {
        let mut d = Draft::default();
        for c in text.chars() {
            d = if c == '-' {
                d.can_negate(b).then(|| d.negated())?
            } else {
                d.pushed(c.to_digit(10)? as u8, b)?
            };
        }
        Some(d)
    }

    #[test]
    fn only_values_in_bounds_can_be_written() {
        let b = Bounds { lo: 10, hi: 99 };
        assert!(write("0", b).is_none(), "0 cannot grow (leading zero)");
        assert!(write("-", b).is_none());
        let one = write("1", b).expect("1 may start 10..19");
        assert!(!one.can_end(b));
        assert_eq!(one.need(b), Some(1));
        assert!(write("15", b).unwrap().can_end(b));
        assert!(write("150", b).is_none());
        assert_eq!(Draft::default().need(b), Some(2));
    }

    #[test]
    fn signs_zero_and_the_digit_cap() {
        let b = Bounds { lo: -5, hi: 3 };
        assert!(write("-5", b).unwrap().can_end(b));
        assert!(write("-6", b).is_none());
        assert!(write("-0", b).is_none(), "no negative zero");
        assert!(write("0", b).unwrap().can_end(b));
        assert!(write("4", b).is_none());
        assert!(write("03", Bounds::ANY).is_none(), "no leading zero");
        assert!(write("999999999", Bounds::ANY)
            .unwrap()
            .can_end(Bounds::ANY));
        assert!(
            write("1000000000", Bounds::ANY).is_none(),
            "at most nine digits"
        );
        let positive = Bounds { lo: 1, hi: 5 };
        assert!(!Draft::default().can_negate(positive));
    }

    #[test]
    fn decimals_follow_an_integer_part_whose_whole_unit_is_in_bounds() {
        let r = Real {
            lo: 0.0,
            lo_open: true,
            hi: 100.0,
            hi_open: true,
        };
        let b = r.integers().unwrap();
        assert_eq!(b, Bounds { lo: 1, hi: 99 });
        assert!(r.holds_decimals_of(write("3", b).unwrap()), "3.5");
        assert!(r.holds_decimals_of(write("99", b).unwrap()), "99.x < 100");
        let half = Real { hi: 99.5, ..r };
        assert!(!half.holds_decimals_of(write("99", b).unwrap()), "99.7");
        let neg = Real {
            lo: -2.0,
            ..Real::ANY
        };
        let any = Bounds::ANY;
        assert!(neg.holds_decimals_of(write("-1", any).unwrap()), "-1.5");
        assert!(!neg.holds_decimals_of(write("-2", any).unwrap()), "-2.5");
        assert!(Real::ANY.contains(1e300));
        let none = Real {
            lo: 0.2,
            hi: 0.8,
            ..Real::ANY
        };
        assert_eq!(none.integers(), None);
    }

    #[test]
    fn shortest_value_in_bounds() {
        assert_eq!(Bounds::ANY.shortest(), "0");
        assert_eq!(Bounds { lo: 120, hi: 4000 }.shortest(), "120");
        assert_eq!(Bounds { lo: -300, hi: -7 }.shortest(), "-7");
    }
}
