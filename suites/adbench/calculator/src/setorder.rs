//! The order CPython iterates a set of ints in. CPython's set is a hash
//! table, so `print({3, 1, 2})` shows `{1, 2, 3}`; ints hash to themselves,
//! which makes that order deterministic, and agents see it. This replays
//! CPython 3.11's `set_add_entry` and table resizing (setobject.c) over
//! the set's elements in insertion order. Sets holding other keys keep
//! insertion order: CPython randomises string hashes per process, so no
//! snippet can rely on their order.

use num_bigint::{BigInt, BigUint, Sign};
use num_traits::ToPrimitive;

use super::value::{Dict, Key, Value};

const MIN_SIZE: usize = 8;
const LINEAR_PROBES: usize = 9;
const PERTURB_SHIFT: u32 = 5;
/// CPython's modulus for hashing ints: 2**61 - 1.
const HASH_MODULUS: i128 = (1 << 61) - 1;

/// `hash(i)` for an int, as CPython computes it.
fn int_hash(i: i64) -> i64 {
    let m = (i as i128).abs() % HASH_MODULUS;
    let h = if i < 0 { -m } else { m } as i64;
    if h == -1 {
        -2
    } else {
        h
    }
}

/// `hash(n)` for an int past 64 bits.
fn big_hash(n: &BigInt) -> i64 {
    let m = (n.magnitude() % BigUint::from(HASH_MODULUS as u64))
        .to_i64()
        .unwrap_or(0);
    let h = if n.sign() == Sign::Minus { -m } else { m };
    if h == -1 {
        -2
    } else {
        h
    }
}

/// Places `slot_value` into the first free slot of CPython's probe sequence.
fn insert(table: &mut [Option<usize>], hash: i64, slot_value: usize) {
    let mask = table.len() - 1;
    let mut perturb = hash as u64;
    let mut i = (hash as u64 as usize) & mask;
    loop {
        let probes = if i + LINEAR_PROBES <= mask {
            LINEAR_PROBES
        } else {
            0
        };
        if let Some(free) = table[i..=i + probes].iter_mut().find(|slot| slot.is_none()) {
            *free = Some(slot_value);
            return;
        }
        perturb >>= PERTURB_SHIFT;
        i = (i
            .wrapping_mul(5)
            .wrapping_add(1)
            .wrapping_add(perturb as usize))
            & mask;
    }
}

/// The slot order of ints added one by one to an empty CPython set.
fn cpython_order(hashes: &[i64]) -> Vec<usize> {
    let mut table: Vec<Option<usize>> = vec![None; MIN_SIZE];
    let mut used = 0usize;
    for (index, &hash) in hashes.iter().enumerate() {
        insert(&mut table, hash, index);
        used += 1;
        let mask = table.len() - 1;
        if used * 5 >= mask * 3 {
            let min_used = if used > 50_000 { used * 2 } else { used * 4 };
            let mut size = MIN_SIZE;
            while size <= min_used {
                size <<= 1;
            }
            let mut grown = vec![None; size];
            for index in table.iter().flatten() {
                insert(&mut grown, hashes[*index], *index);
            }
            table = grown;
        }
    }
    table.into_iter().flatten().collect()
}

/// A set's elements in the order CPython would iterate them.
pub fn iteration_order(set: &Dict) -> Vec<Value> {
    let hashes: Option<Vec<i64>> = set
        .keys()
        .map(|k| match k {
            Key::Int(i) => Some(int_hash(*i)),
            Key::Big(b) => Some(big_hash(b)),
            _ => None,
        })
        .collect();
    let elements: Vec<&Value> = set.values().map(|(k, _)| k).collect();
    match hashes {
        Some(hashes) => cpython_order(&hashes)
            .into_iter()
            .map(|i| elements[i].clone())
            .collect(),
        None => elements.into_iter().cloned().collect(),
    }
}
