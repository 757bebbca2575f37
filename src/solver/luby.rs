//! Luby's restart sequence, which the probes and the restarted portfolio members draw their
//! run lengths from: within a log factor of the best fixed cut-off for any distribution of
//! run times (Luby, Sinclair and Zuckerman, 1993).

/// Term `i` (from 1) of Luby's sequence: 1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8, ...
pub fn luby(i: u64) -> u64 {
    let mut i = i;
    loop {
        // The smallest k with i <= 2^k - 1.
        let k = 64 - i.leading_zeros();
        if i == (1 << k) - 1 {
            return 1 << (k - 1);
        }
        i -= (1 << (k - 1)) - 1;
    }
}

#[cfg(test)]
mod tests {
    use super::luby;

    #[test]
    fn luby_sequence() {
        let first: Vec<u64> = (1..=16).map(luby).collect();
        assert_eq!(first, [1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8, 1]);
        assert_eq!(luby(1023), 512);
        assert_eq!(luby(1024), 1);
    }
}
