//! The portfolio's members by name (`--portfolio`, a plan's rows): which searches for a win
//! there are and the sets of them a solve runs. What each one searches is in
//! [`super::portfolio`]; the budgets a plan gives them, in [`super::plan`].

/// A member of the portfolio: a best-first pass with one evaluation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Member {
    /// Weighted A\*, `f = g + 5 h` with `h` the bound on the moves left (the best-first
    /// phase castle had alone before the portfolio).
    Bound,
    /// Greedy on the cards still out, those lying above a lower card, and the digging
    /// towards the next cards home; empty piles count in its favour.
    Disorder,
    /// Greedy on the digging towards the next cards home, then the bound.
    Dig,
    /// Weighted A\* with a heavier weight, `f = g/5 + 5 h`: nearly greedy on the bound.
    Greedy,
    /// Not a best-first pass: [`SWARM_SEARCHES`] depth-first searches with random move
    /// orders taking turns over one shared set of entered positions ([`super::swarm`]).
    Swarm,
    /// Greedy on the cards still out, breadth-first among positions with as many out: the
    /// fewest moves that bring the next card home, again and again (enforced hill-climbing,
    /// as planners call it).
    Home,
    /// Greedy on the cards still out with random tie-breaks, restarted with a new draw after
    /// [`RESTART_NODES`] positions times the next term of Luby's sequence: the time such a
    /// greedy search takes to a win depends wildly on how it breaks ties.
    Restarts,
    /// Greedy on the cards still out with random tie-breaks, restarted as
    /// [`Member::Restarts`] but every [`RELOCATE_RESTART_NODES`] positions times Luby's
    /// sequence, expanding with relocation moves
    /// ([`crate::state::Position::relocation_moves`]): bigger steps, each a dig that brings a
    /// card home, onto a parent or into an empty pile, as fc-solve's meta-moves do. Which
    /// dig a greedy search tries first among equals decides whether it wins at all (fc-solve's
    /// own best-first search on cards home wins one deal in 142,323 states with one order of
    /// its move functions and not in 3 million with another), so many short runs with fresh
    /// tie orders beat one long one: on the 150 streets-and-alleys and 100 beleaguered-castle
    /// deals of 13001..17000 that took the older members longest, at 200,000 positions each,
    /// breadth-first ties and no restarts won 67 and 50, these restarts 98 and 75
    /// (docs/performance-log.md).
    Relocate,
    /// The swarm's depth-first searches ([`Member::Swarm`]) over relocation moves, the moves
    /// home first and the rest in each search's random order, as fc-solve's `random-dfs` soft
    /// threads over its meta-moves (`-to [01][23468]`): on the same 21 deals, 8 at a million
    /// positions each, the most of any member. Its searches share one record of the
    /// positions entered, as fc-solve's soft threads share theirs ([`Swarm::sharing`]: on
    /// the 19 deals of `data/tuning/sa-unknown-at-10s.txt`, 2 million positions each, 4 won
    /// against none with a record per search).
    RelocateSwarm,
    /// Greedy on the cards still out over relocation moves, as [`Member::Relocate`] (but one
    /// run, never restarted, the deepest first on a tie), with novelty as its first key
    /// ([`Eval::novelty`], best-first width search): among positions with the same bound on
    /// the moves left, one that puts some card on a card (or at a pile's bottom) no position
    /// of that bound had it on goes before any that does not. On the 52 streets-and-alleys
    /// deals of `data/tuning`
    /// (left `unknown` at 10 s a deal), 2 million positions each, it wins 5, three of them
    /// (22144, 24582, 25664) in 537 to 16,060 positions, where the other members need
    /// 407,727 (`best-first`), 1,642,970 (`relocate`) and more than 2 million, and the
    /// schedule without it did not win them in 20 s (docs/performance-log.md).
    /// Partitioned by cards home instead of the bound it won 1; with single-card moves
    /// instead of relocation moves, 1 (and 0 partitioned by cards home).
    Novelty,
}

impl Member {
    /// Every member, in the order they take turns.
    pub const ALL: [Member; 10] = [
        Member::Bound,
        Member::Disorder,
        Member::Dig,
        Member::Greedy,
        Member::Swarm,
        Member::Home,
        Member::Restarts,
        Member::Relocate,
        Member::RelocateSwarm,
        Member::Novelty,
    ];

    /// The phase name of a win it found, in every output (the JSON report's `phase`).
    pub const fn phase(self) -> &'static str {
        match self {
            Member::Bound => "best-first",
            Member::Disorder => "best-first:disorder",
            Member::Dig => "best-first:dig",
            Member::Greedy => "best-first:greedy",
            Member::Swarm => "swarm",
            Member::Home => "best-first:home",
            Member::Restarts => "best-first:restarts",
            Member::Relocate => "best-first:relocate",
            Member::RelocateSwarm => "swarm:relocate",
            Member::Novelty => "best-first:novelty",
        }
    }

    /// Its name (`--portfolio` takes these).
    pub const fn name(self) -> &'static str {
        match self {
            Member::Bound => "best-first",
            Member::Disorder => "disorder",
            Member::Dig => "dig",
            Member::Greedy => "greedy",
            Member::Swarm => "swarm",
            Member::Home => "home",
            Member::Restarts => "restarts",
            Member::Relocate => "relocate",
            Member::RelocateSwarm => "relocate-swarm",
            Member::Novelty => "novelty",
        }
    }

    /// The parts the shares are counted in ([`super::plan::MemberPlan::share`]).
    pub const SHARES: u64 = 4;

    /// The member of this name (or of its short name without the `best-first` prefix).
    pub fn from_name(name: &str) -> Option<Member> {
        Member::ALL
            .into_iter()
            .find(|m| m.name() == name || (name == "bound" && *m == Member::Bound))
    }
}

/// Written as its `--portfolio` name (a plan file names members so).
impl serde::Serialize for Member {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> serde::Deserialize<'de> for Member {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Member, D::Error> {
        let name = <String as serde::Deserialize>::deserialize(d)?;
        Member::from_name(&name).ok_or_else(|| {
            let names: Vec<&str> = Member::ALL.iter().map(|m| m.name()).collect();
            serde::de::Error::custom(format!(
                "no portfolio member `{name}` (members: {})",
                names.join(", ")
            ))
        })
    }
}

/// A set of members (bit `i`: [`Member::ALL`]`[i]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Members(pub u16);

impl Members {
    /// Every member.
    pub const ALL: Members = Members((1 << Member::ALL.len()) - 1);

    /// The members a solve runs unless told otherwise: every one.
    pub const DEFAULT: Members = Members::ALL;
    /// The best-first member alone (castle's search before the portfolio).
    pub const BOUND: Members = Members(1);

    /// The members in the set, in turn order.
    pub fn iter(self) -> impl Iterator<Item = Member> {
        Member::ALL
            .into_iter()
            .enumerate()
            .filter(move |(i, _)| self.0 >> i & 1 == 1)
            .map(|(_, m)| m)
    }

    /// Parses a comma-separated list of member names (`all` for every one, `default` for
    /// [`Members::DEFAULT`]).
    ///
    /// # Errors
    /// A name that is not a member's ([`crate::InputKind::Usage`], the names listed).
    pub fn parse(list: &str) -> Result<Members, crate::InputError> {
        let mut set = 0u16;
        for name in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            if name == "all" {
                set |= Members::ALL.0;
                continue;
            }
            if name == "default" {
                set |= Members::DEFAULT.0;
                continue;
            }
            let i = Member::ALL
                .iter()
                .position(|m| Some(*m) == Member::from_name(name))
                .ok_or_else(|| {
                    let names: Vec<&str> = Member::ALL.iter().map(|m| m.name()).collect();
                    crate::InputError::new(
                        crate::InputKind::Usage,
                        format!(
                            "`{name}` is not a member ({}, default, all)",
                            names.join(", ")
                        ),
                    )
                })?;
            set |= 1 << i;
        }
        Ok(Members(set))
    }
}

/// Positions of the shortest run of the restarts member (see [`Member::Restarts`]).
pub const RESTART_NODES: u64 = 5_000;

/// Positions of the shortest run of the relocating greedy member (see [`Member::Relocate`]):
/// on the tuning sets of that member's doc (streets-and-alleys, beleaguered-castle wins of
/// 200,000 positions each), runs of 100 won 89 and 78, of 300 98 and 75, of 1,000 88 and 73,
/// of 3,000 84 and 71, of 10,000 73 and 72.
pub const RELOCATE_RESTART_NODES: u64 = 300;
