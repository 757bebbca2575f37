//! Winnable deals on demand (`castle deal --winnable`): the next winnable deal at or after a
//! number, or one drawn at random, optionally of a difficulty tier.
//!
//! # Where a verdict comes from
//! The published tables of `data/tables/` (their bits compiled into the library, so the
//! binary and the Python module need no data directory) say, for the variants' own rules,
//! which deals of their ranges are winnable: there a deal is looked up. Beyond a table's
//! range, and for rule options no table has (another start rank, foundation return, sequence
//! moves), the deal is solved: it is winnable only when the solver returns a win that the
//! independent checker ([`crate::check::check_win`]) replays. A deal the solver's budget
//! does not decide is passed over, never called winnable, and counted in
//! [`Finder::undecided`].
//!
//! # Difficulty
//! A table's deals are graded in its tier file where it has one (a prefix of the range: see
//! docs/difficulty.md); any other winnable deal of the variant's own rules is graded by the
//! simple player's playouts ([`crate::difficulty`]) on the table's cuts, which gives the
//! tier the file would hold. Under other rule options there are no cuts: a tier cannot be
//! asked for.

use crate::check::{check_win, steps_of};
use crate::deal::{Deal, Numbering};
use crate::difficulty::{self, Cuts, Grade, Tier};
use crate::rules::{Rules, Variant};
use crate::solver::{Limits, Solver, Verdict};
use crate::winrates::winnable as bit;
use crate::{InputError, InputKind};
use rand::{Rng, SeedableRng};

/// A published table compiled in: its bits, and its tiers where it has them.
#[derive(Clone, Copy, Debug)]
pub struct Table {
    /// The variant (its own rules).
    pub variant: Variant,
    /// Whose numbers.
    pub numbering: Numbering,
    /// First deal.
    pub first: u64,
    /// Last deal.
    pub last: u64,
    /// One bit a deal ([`crate::winrates`]).
    pub bits: &'static [u8],
}

/// A tier file compiled in (see [`crate::difficulty`]): a range of a table's deals graded.
#[derive(Clone, Copy, Debug)]
pub struct Tiers {
    /// The variant (its own rules).
    pub variant: Variant,
    /// Whose numbers.
    pub numbering: Numbering,
    /// First deal graded.
    pub first: u64,
    /// Last deal graded.
    pub last: u64,
    /// Two bits a deal.
    pub tiers: &'static [u8],
    /// The cuts of the scores.
    pub cuts: Cuts,
}

macro_rules! table {
    ($v:ident, $n:ident, $first:literal, $last:literal, $file:literal) => {
        Table {
            variant: Variant::$v,
            numbering: Numbering::$n,
            first: $first,
            last: $last,
            bits: include_bytes!(concat!("../data/tables/", $file, ".bits")),
        }
    };
}

/// The published tables (the largest of each variant and numbering).
pub static TABLES: &[Table] = &[
    table!(
        BeleagueredCastle,
        Castle,
        1,
        100000,
        "beleaguered-castle-castle-1-100000"
    ),
    table!(
        StreetsAndAlleys,
        Castle,
        1,
        100000,
        "streets-and-alleys-castle-1-100000"
    ),
    table!(Citadel, Castle, 1, 100000, "citadel-castle-1-100000"),
    table!(Fortress, Castle, 1, 100000, "fortress-castle-1-100000"),
    table!(Castile, Castle, 1, 100000, "castile-castle-1-100000"),
    table!(
        BeleagueredCastle,
        Pysol,
        1,
        32000,
        "beleaguered-castle-pysol-1-32000"
    ),
    table!(
        StreetsAndAlleys,
        Pysol,
        1,
        32000,
        "streets-and-alleys-pysol-1-32000"
    ),
    table!(Citadel, Pysol, 1, 32000, "citadel-pysol-1-32000"),
];

include!("winnable_tiers.rs");

/// The table of a deal's rules and numbering, if one was published: the variant's own rules
/// only.
pub fn table(rules: &Rules, numbering: Numbering) -> Option<&'static Table> {
    if rules.options != rules.variant.rules().options {
        return None;
    }
    TABLES
        .iter()
        .find(|t| t.variant == rules.variant && t.numbering == numbering)
}

/// The tier file of a variant and numbering, if there is one.
pub fn tiers(variant: Variant, numbering: Numbering) -> Option<&'static Tiers> {
    TIERS
        .iter()
        .find(|t| t.variant == variant && t.numbering == numbering)
}

/// The cuts a variant's own rules are graded on (its castle-numbered table's; the cards, not
/// their numbers, make a deal's grade).
pub fn cuts(rules: &Rules) -> Option<Cuts> {
    if rules.options != rules.variant.rules().options {
        return None;
    }
    TIERS
        .iter()
        .find(|t| t.variant == rules.variant && t.numbering == Numbering::Castle)
        .or_else(|| TIERS.iter().find(|t| t.variant == rules.variant))
        .map(|t| t.cuts)
}

/// The tier of a winnable deal of the variant's own rules: from a tier file where it reaches,
/// else by the playouts on the cuts. `None` under other rule options.
pub fn tier_of(deal: &Deal, numbering: Numbering) -> Option<Tier> {
    if let (Some(seed), Some(t)) = (deal.seed, tiers(deal.rules.variant, numbering)) {
        if deal.rules.options == deal.rules.variant.rules().options
            && (t.first..=t.last).contains(&seed)
        {
            return difficulty::tier_at(t.tiers, t.first, t.last, seed);
        }
    }
    let cuts = cuts(&deal.rules)?;
    Some(cuts.tier(difficulty::grade(deal).score()))
}

/// How a deal was found winnable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum By {
    /// Its table's bit.
    Table,
    /// A win the solver found and the checker replayed.
    Solve,
}

impl By {
    /// `table` or `solve`.
    pub fn name(self) -> &'static str {
        match self {
            By::Table => "table",
            By::Solve => "solve",
        }
    }
}

/// A winnable deal found.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Found {
    /// Its number.
    pub seed: u64,
    /// Where the verdict came from.
    pub by: By,
    /// Its tier (`None` under rule options without cuts).
    pub tier: Option<Tier>,
    /// The simple player's grade, when it was computed (not for a tier read from a file).
    pub grade: Option<Grade>,
}

/// Node budget of a solve beyond the tables (a deal it does not decide is passed over).
pub const SOLVE_NODES: u64 = 5_000_000;
/// Numbers tried at most for one call (beyond it the search gives up with an error).
pub const MAX_TRIES: u64 = 1_000_000;

/// Finds winnable deals of one set of rules and numbering.
#[derive(Clone, Debug)]
pub struct Finder {
    /// The rules.
    pub rules: Rules,
    /// Whose numbers.
    pub numbering: Numbering,
    /// Only deals of this tier.
    pub difficulty: Option<Tier>,
    /// The solver of deals beyond the tables.
    pub solver: Solver,
    /// Deals the solver's budget left undecided (passed over).
    pub undecided: Vec<u64>,
}

impl Finder {
    /// A finder of winnable deals of `rules` numbered by `numbering`, of tier `difficulty`
    /// when given.
    ///
    /// # Errors
    /// A tier asked of rule options without cuts (no table of those rules).
    pub fn new(
        rules: Rules,
        numbering: Numbering,
        difficulty: Option<Tier>,
    ) -> Result<Finder, InputError> {
        if difficulty.is_some() && cuts(&rules).is_none() {
            return Err(InputError::new(
                InputKind::Rules,
                format!(
                    "a difficulty is graded on {}'s own rules only (its tiers are cut over its table): leave out the rule options",
                    rules.variant
                ),
            ));
        }
        let solver = Solver {
            limits: Limits {
                max_nodes: Some(SOLVE_NODES),
                max_seconds: None,
                memory_bytes: 512 << 20,
            },
            shorten: false,
            ..Solver::default()
        };
        Ok(Finder {
            rules,
            numbering,
            difficulty,
            solver,
            undecided: Vec::new(),
        })
    }

    /// Whether deal `seed` is winnable (and of the tier asked for): `Some` with how it was
    /// found, `None` if it is lost, of another tier, or undecided by the solver's budget.
    ///
    /// # Errors
    /// A number the numbering cannot deal; a solver error.
    pub fn check(&mut self, seed: u64) -> Result<Option<Found>, crate::Error> {
        let deal = Deal::numbered(self.rules, self.numbering, seed)?;
        let by = match table(&self.rules, self.numbering)
            .and_then(|t| bit(t.bits, t.first, t.last, seed))
        {
            Some(false) => return Ok(None),
            Some(true) => By::Table,
            None => {
                let out = self.solver.solve(&deal)?;
                match out.verdict {
                    Verdict::Unsolvable => return Ok(None),
                    Verdict::Unknown => {
                        self.undecided.push(seed);
                        return Ok(None);
                    }
                    Verdict::Solvable => {
                        if check_win(&deal, &steps_of(&out.moves)).is_err() {
                            // The library checks every win it returns; a line that does not
                            // replay is never taken for a win.
                            self.undecided.push(seed);
                            return Ok(None);
                        }
                        By::Solve
                    }
                }
            }
        };
        let mut found = Found {
            seed,
            by,
            tier: None,
            grade: None,
        };
        let filed = tiers(self.rules.variant, self.numbering).filter(|t| {
            table(&self.rules, self.numbering).is_some() && (t.first..=t.last).contains(&seed)
        });
        if let Some(t) = filed {
            found.tier = difficulty::tier_at(t.tiers, t.first, t.last, seed);
        } else if let Some(c) = cuts(&self.rules) {
            let g = difficulty::grade(&deal);
            found.grade = Some(g);
            found.tier = Some(c.tier(g.score()));
        }
        match self.difficulty {
            Some(want) if found.tier != Some(want) => Ok(None),
            _ => Ok(Some(found)),
        }
    }

    /// The first `count` winnable deals at or after `start`.
    ///
    /// # Errors
    /// See [`Finder::check`]; [`MAX_TRIES`] numbers tried without finding them all.
    pub fn next_from(&mut self, start: u64, count: usize) -> Result<Vec<Found>, crate::Error> {
        let mut out = Vec::with_capacity(count);
        let mut seed = start;
        let mut tried = 0;
        while out.len() < count {
            if tried == MAX_TRIES {
                return Err(self.gave_up(out.len(), count).into());
            }
            if let Some(f) = self.check(seed)? {
                out.push(f);
            }
            tried += 1;
            seed = seed.checked_add(1).ok_or_else(|| {
                InputError::new(InputKind::Seeds, "no deal numbers are left after 2^64 - 1")
            })?;
        }
        Ok(out)
    }

    /// The range a random draw is made from: the table's, or `1..=100000` where there is none.
    pub fn draw_range(&self) -> (u64, u64) {
        table(&self.rules, self.numbering)
            .or_else(|| {
                TABLES
                    .iter()
                    .find(|t| t.variant == self.rules.variant && t.numbering == self.numbering)
            })
            .map_or((1, 100_000), |t| (t.first, t.last))
    }

    /// `count` different winnable deals drawn uniformly at random from
    /// [`Finder::draw_range`] (each draw uniform over the winnable deals of the range not yet
    /// drawn), the draws made by a generator seeded with `rng_seed`.
    ///
    /// # Errors
    /// See [`Finder::next_from`].
    pub fn random(&mut self, rng_seed: u64, count: usize) -> Result<Vec<Found>, crate::Error> {
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(rng_seed);
        let (lo, hi) = self.draw_range();
        let mut out: Vec<Found> = Vec::with_capacity(count);
        let mut tried = 0;
        while out.len() < count {
            if tried == MAX_TRIES {
                return Err(self.gave_up(out.len(), count).into());
            }
            tried += 1;
            let seed = rng.gen_range(lo..=hi);
            if out.iter().any(|f| f.seed == seed) {
                continue;
            }
            if let Some(f) = self.check(seed)? {
                out.push(f);
            }
        }
        Ok(out)
    }

    fn gave_up(&self, found: usize, count: usize) -> InputError {
        InputError::new(
            InputKind::Seeds,
            format!(
                "found {found} of {count} winnable deals of {}{} in {MAX_TRIES} numbers tried",
                self.rules.variant,
                self.difficulty.map_or(String::new(), |t| format!(" ({t})"))
            ),
        )
    }
}

/// Whether deal `seed` of `rules` is winnable: the table's bit, or a replayed win within
/// [`SOLVE_NODES`] (`None`: the budget did not decide it).
///
/// # Errors
/// See [`Finder::check`].
pub fn is_winnable(
    rules: Rules,
    numbering: Numbering,
    seed: u64,
) -> Result<Option<bool>, crate::Error> {
    let mut f = Finder::new(rules, numbering, None)?;
    let found = f.check(seed)?;
    Ok(if found.is_some() {
        Some(true)
    } else if f.undecided.is_empty() {
        Some(false)
    } else {
        None
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_table_is_compiled_in_whole() {
        for t in TABLES {
            assert_eq!(t.bits.len() as u64, (t.last - t.first + 1).div_ceil(8));
        }
        for t in TIERS {
            assert_eq!(t.tiers.len() as u64, (t.last - t.first + 1).div_ceil(4));
        }
    }
}
