// The tier files of `data/tables/` and their cuts (`data/tables/tiers.csv`; written by
// `castle tiers`, docs/difficulty.md).

/// The published tier files.
pub static TIERS: &[Tiers] = &[];
