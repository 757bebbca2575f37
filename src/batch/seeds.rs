//! Which deals a batch solves: seed ranges, shards, parsing `--seeds` and `--shard`.

use crate::text::Cut;
use crate::{InputError, InputKind, Origin};

/// Which seeds a batch covers: the seeds of some ranges, every `n`-th of them in increasing
/// order from the `k`-th (shard `k/n`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seeds {
    /// Inclusive ranges, disjoint, not adjacent, in increasing order (see [`Seeds::parse`]).
    pub ranges: Vec<(u64, u64)>,
    /// Shard index, `0..count`.
    pub shard: u64,
    /// Number of shards (1: no sharding).
    pub shards: u64,
}

impl Seeds {
    /// The seeds `first..=last`, unsharded.
    pub fn range(first: u64, last: u64) -> Seeds {
        Seeds {
            ranges: vec![(first, last)],
            shard: 0,
            shards: 1,
        }
    }

    /// Parses a comma-separated list of ranges `A..B` (inclusive; `A..=B` too) and single
    /// numbers, as `1..1000,2024,5000..5010`: sorted, overlaps and repeats merged.
    ///
    /// # Errors
    /// A [`InputKind::Seeds`] error whose origin is the item at fault, quoted (the command
    /// line adds its flag: ``--seeds `9..2`: the range is empty``).
    pub fn parse(s: &str) -> Result<Vec<(u64, u64)>, InputError> {
        let mut ranges = Vec::new();
        for item in s.split(',') {
            let quoted = || Origin::Text(format!("`{}`", Cut(item.trim())));
            let bad = || {
                InputError::new(
                    InputKind::Seeds,
                    "expected ranges like 1..1000 (inclusive) or numbers, separated by commas",
                )
                .at(quoted())
            };
            let (a, b) = match item.split_once("..") {
                Some((a, b)) => (a, b.strip_prefix('=').unwrap_or(b)),
                None => (item, item),
            };
            let a: u64 = a.trim().parse().map_err(|_| bad())?;
            let b: u64 = b.trim().parse().map_err(|_| bad())?;
            if a > b {
                return Err(InputError::new(
                    InputKind::Seeds,
                    format!("the range is empty ({a} > {b})"),
                )
                .at(quoted()));
            }
            ranges.push((a, b));
        }
        ranges.sort_unstable();
        let mut merged: Vec<(u64, u64)> = Vec::with_capacity(ranges.len());
        for (a, b) in ranges {
            match merged.last_mut() {
                Some(last) if a <= last.1.saturating_add(1) => last.1 = last.1.max(b),
                _ => merged.push((a, b)),
            }
        }
        Ok(merged)
    }

    /// Parses `K/N` (shard K of N, K = 0..N-1).
    ///
    /// # Errors
    /// A [`InputKind::Seeds`] error whose origin is the text, quoted.
    pub fn parse_shard(s: &str) -> Result<(u64, u64), InputError> {
        let bad = || {
            InputError::new(InputKind::Seeds, "expected K/N with 0 <= K < N, like 0/4")
                .at(Origin::Text(format!("`{}`", Cut(s))))
        };
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let k: u64 = k.trim().parse().map_err(|_| bad())?;
        let n: u64 = n.trim().parse().map_err(|_| bad())?;
        if n == 0 || k >= n {
            return Err(bad());
        }
        Ok((k, n))
    }

    /// How many seeds the ranges hold, before sharding (2^64 does not fit a `u64`).
    fn total(&self) -> u128 {
        self.ranges
            .iter()
            .map(|&(a, b)| u128::from(b - a) + 1)
            .sum()
    }

    /// How many seeds there are (counted, not listed: the ranges may hold 2^64 of them, which
    /// saturates).
    pub fn count(&self) -> u64 {
        let (total, shard, shards) = (
            self.total(),
            u128::from(self.shard),
            u128::from(self.shards),
        );
        if shard >= total {
            0
        } else {
            u64::try_from((total - 1 - shard) / shards + 1).unwrap_or(u64::MAX)
        }
    }

    /// Whether `seed` is one of the seeds.
    pub fn contains(&self, seed: u64) -> bool {
        // Its place among the ranges' seeds, in increasing order.
        let mut before = 0u128;
        for &(a, b) in &self.ranges {
            if seed < a {
                return false;
            }
            if seed <= b {
                let i = before + u128::from(seed - a);
                return i % u128::from(self.shards) == u128::from(self.shard);
            }
            before += u128::from(b - a) + 1;
        }
        false
    }

    /// The seeds, in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = u64> + '_ {
        self.clone().into_seeds()
    }

    /// The seeds, in increasing order, owning the ranges (for a thread of its own).
    pub(super) fn into_seeds(self) -> impl Iterator<Item = u64> + Send + 'static {
        let (shard, shards) = (u128::from(self.shard), u128::from(self.shards));
        self.ranges
            .into_iter()
            .flat_map(|(a, b)| a..=b)
            .scan(0u128, |i, seed| {
                let at = *i;
                *i += 1;
                Some((at, seed))
            })
            .filter(move |(i, _)| i % shards == shard)
            .map(|(_, seed)| seed)
    }
}
