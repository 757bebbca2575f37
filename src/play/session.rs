//! A session: the game and the coach, driven by [`Action`]s. Both front ends (the line mode
//! and the full-screen board) turn their input into actions and show the [`Reply`]; only
//! when the coach is asked differs (on the spot, or by a background thread).

use super::coach::{hint_text, Coach, Mark};
use super::game::{Entry, Game, Played, Target};
use crate::check::{Board, Step};
use crate::deal::{Deal, Numbering};
use crate::rules::{Rules, SequenceMoves, Variant};
use crate::solver::Verdict;
use std::path::{Path, PathBuf};

/// Something the player asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// Move from the first pile to the second: exactly this many cards, or (`None`) the
    /// longest run that may go ([`Game::step_of`]).
    Move(Target, Target, Option<usize>),
    /// Move the card (or run) of a pile where it does most good; the stock deals.
    Quick(Target),
    /// Take back one move.
    Undo,
    /// Make one undone move again.
    Redo,
    /// Show a move that keeps the deal winnable.
    Hint,
    /// Play the next move of the solver's winning line.
    Show,
    /// Back to the deal as dealt.
    Restart,
    /// A new game: the given deal number, or the next one.
    New(Option<u64>),
    /// Automatic safe moves on or off (`None` toggles).
    Auto(Option<bool>),
    /// Deal again with this start rank.
    StartRank(u8),
    /// Deal again in this variant (with its own start rank, and the rule options of the game
    /// now).
    Variant(Variant),
    /// Save the game to a file.
    Save(PathBuf),
    /// Load a game from a file.
    Load(PathBuf),
}

/// The answer to an action.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reply {
    /// Done; lines to show.
    Done(Vec<String>),
    /// Refused, with a one-line reason; nothing changed.
    Refused(String),
    /// The coach has not decided this position yet: ask again when it has.
    Wait,
}

/// The game and the coach.
#[derive(Clone, Debug)]
pub struct Session {
    /// The game.
    pub game: Game,
    /// The coach.
    pub coach: Coach,
    /// The coach's node budget, for messages.
    pub budget: Option<u64>,
}

fn list(steps: &[Step]) -> String {
    steps
        .iter()
        .map(Step::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Moves taken back or made again, each marked when it was automatic.
fn entries(es: &[Entry]) -> String {
    es.iter()
        .map(|e| format!("{}{}", e.step, if e.auto { " (automatic)" } else { "" }))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The lines that report a move and its automatic moves.
fn played_lines(p: &Played) -> Vec<String> {
    let mut v = vec![p.step.to_string()];
    if !p.auto.is_empty() {
        v.push(format!("automatic: {}", list(&p.auto)));
    }
    v
}

impl Session {
    /// A session on `game`.
    pub fn new(game: Game, coach: Coach, budget: Option<u64>) -> Session {
        Session {
            game,
            coach,
            budget,
        }
    }

    /// The board now.
    pub fn board(&self) -> &Board {
        self.game.board()
    }

    /// The "winnable?" mark of the position now.
    pub fn mark(&self) -> Mark {
        self.coach.mark(self.game.board())
    }

    /// A name for the save file: `castle-VARIANT-SEED.json` (`castle-VARIANT-pysol-SEED.json`
    /// for PySolFC's numbers, another deal).
    pub fn default_save_name(&self) -> String {
        let d = self.game.deal();
        let v = d.rules.variant.name();
        match (d.seed, self.game.numbering()) {
            (Some(s), Numbering::Castle) => format!("castle-{v}-{s}.json"),
            (Some(s), n) => format!("castle-{v}-{}-{s}.json", n.name()),
            (None, _) => format!("castle-{v}.json"),
        }
    }

    /// One line on the deal: `beleaguered-castle deal 42, start rank 1`, with the numbering
    /// when it is not castle's (`deal 67 (PySolFC's game number)`) and the rule options that
    /// are on (`foundation return`, `runs move as one`).
    pub fn title(&self) -> String {
        let d = self.game.deal();
        let which = match (d.seed, self.game.numbering()) {
            (Some(s), Numbering::Pysol) => format!("deal {s} (PySolFC's game number)"),
            (Some(s), Numbering::Castle) => format!("deal {s}"),
            (None, _) => "a deal from a file".to_string(),
        };
        let o = d.rules.options;
        let mut t = format!("{} {which}", d.rules.variant.name());
        if d.rules.variant.has_start_rank() {
            t += &format!(", start rank {}", o.start_rank);
        }
        if o.foundation_return {
            t += ", foundation return";
        }
        if o.sequence_moves == SequenceMoves::Unlimited {
            t += ", runs move as one";
        }
        t
    }

    /// After forward moves: let the coach carry what it knew, and say so if the game is won.
    fn after(&mut self, before: &Board, played: &[Step], mut lines: Vec<String>) -> Reply {
        let after = self.game.board().clone();
        self.coach.follow(before, played, &after);
        if self.game.is_won() {
            let (m, a) = self.game.moves_made();
            lines.push(format!(
                "won: every card is home, in {} moves ({a} automatic)",
                m + a
            ));
        }
        Reply::Done(lines)
    }

    /// Deal `seed` of `rules` in the game's numbering; where that numbering has no such deal
    /// (PySolFC's numbers cover bc, sa and citadel, each at its own start rank, from 1),
    /// castle's, with a note that says so.
    fn numbered_deal(&self, rules: Rules, seed: u64) -> (Deal, Numbering, Option<String>) {
        let numbering = self.game.numbering();
        match Deal::numbered(rules, numbering, seed) {
            Ok(deal) => (deal, numbering, None),
            Err(e) => {
                let why = e.message;
                let note = format!("dealt in castle's numbering: {why}");
                (Deal::from_seed(rules, seed), Numbering::Castle, Some(note))
            }
        }
    }

    /// A new game of `seed` of `rules` (see [`Session::numbered_deal`]).
    fn fresh(&mut self, rules: Rules, seed: u64, what: String) -> Reply {
        let auto = self.game.auto();
        let (deal, numbering, note) = self.numbered_deal(rules, seed);
        self.game = Game::new(deal, auto).numbered(numbering);
        let mut lines = vec![format!("{what}: {}", self.title())];
        lines.extend(note);
        let made: Vec<Step> = self.game.history().iter().map(|e| e.step).collect();
        if !made.is_empty() {
            lines.push(format!("automatic: {}", list(&made)));
        }
        Reply::Done(lines)
    }

    /// Does what the player asked.
    pub fn act(&mut self, action: &Action) -> Reply {
        let before = self.game.board().clone();
        match action {
            Action::Move(from, to, n) => match self.game.play(*from, *to, *n) {
                Ok(p) => {
                    let lines = played_lines(&p);
                    self.after(&before, &p.all(), lines)
                }
                Err(why) => Reply::Refused(why.to_string()),
            },
            Action::Quick(from) => match self.game.quick(*from) {
                Ok(p) => {
                    let lines = played_lines(&p);
                    self.after(&before, &p.all(), lines)
                }
                Err(why) => Reply::Refused(why.to_string()),
            },
            Action::Undo => match self.game.undo() {
                Some(es) => Reply::Done(vec![format!("undone: {}", entries(&es))]),
                None => Reply::Refused("nothing to undo".to_string()),
            },
            Action::Redo => match self.game.redo() {
                Some(es) => {
                    let line = format!("redone: {}", entries(&es));
                    let steps: Vec<Step> = es.into_iter().map(|e| e.step).collect();
                    self.after(&before, &steps, vec![line])
                }
                None => Reply::Refused("nothing to redo".to_string()),
            },
            Action::Hint | Action::Show => self.coached(action == &Action::Show),
            Action::Restart => {
                let made = self.game.restart();
                let mut lines = vec![format!("restarted: {}", self.title())];
                if !made.is_empty() {
                    lines.push(format!("automatic: {}", list(&made)));
                }
                Reply::Done(lines)
            }
            Action::New(n) => {
                let rules = *self.game.rules();
                let seed =
                    n.unwrap_or_else(|| self.game.deal().seed.map_or(1, |s| s.wrapping_add(1)));
                self.fresh(rules, seed, "new game".to_string())
            }
            Action::Auto(on) => {
                let on = on.unwrap_or(!self.game.auto());
                let made = self.game.set_auto(on);
                let mut lines = vec![format!("automatic moves {}", if on { "on" } else { "off" })];
                if !made.is_empty() {
                    lines.push(format!("automatic: {}", list(&made)));
                }
                self.after(&before, &made, lines)
            }
            Action::StartRank(k) => match self.game.rules().with_start_rank(*k) {
                Ok(rules) => {
                    let seed = self.game.deal().seed.unwrap_or(1);
                    self.fresh(rules, seed, format!("start rank {k}, new game"))
                }
                Err(e) => Reply::Refused(e.to_string().replace("--start-rank", "the start rank")),
            },
            Action::Variant(v) => {
                let seed = self.game.deal().seed.unwrap_or(1);
                let o = self.game.rules().options;
                let rules = v
                    .rules()
                    .with_foundation_return(o.foundation_return)
                    .with_sequence_moves(o.sequence_moves);
                self.fresh(rules, seed, format!("variant {v}, new game"))
            }
            Action::Save(path) => self.save(path),
            Action::Load(path) => self.load(path),
        }
    }

    fn coached(&mut self, show: bool) -> Reply {
        if self.game.is_won() {
            return Reply::Refused("the game is won".to_string());
        }
        if self.coach.solver().is_none() {
            return Reply::Refused("the coach is off (--coach-nodes 0)".to_string());
        }
        let Some(k) = self.coach.known(self.game.board()).cloned() else {
            return Reply::Wait;
        };
        if !show {
            return Reply::Done(vec![hint_text(&k, self.budget)]);
        }
        match (k.verdict, k.plan.first()) {
            (Verdict::Solvable, Some(s)) => {
                let before = self.game.board().clone();
                match self.game.play_step(s) {
                    Ok(p) => {
                        let mut lines = played_lines(&p);
                        lines[0] = format!("solver: {}", lines[0]);
                        self.after(&before, &p.all(), lines)
                    }
                    Err(why) => Reply::Refused(format!("the solver's move is refused: {why}")),
                }
            }
            _ => Reply::Refused(hint_text(&k, self.budget).replacen("hint: ", "show: ", 1)),
        }
    }

    fn save(&self, path: &Path) -> Reply {
        match std::fs::write(path, self.game.to_json()) {
            Ok(()) => Reply::Done(vec![format!(
                "saved to {} ({} moves)",
                path.display(),
                self.game.history().len()
            )]),
            Err(e) => Reply::Refused(format!("{}: cannot write: {e}", path.display())),
        }
    }

    fn load(&mut self, path: &Path) -> Reply {
        let origin = path.display().to_string();
        // At most `MAX_FILE_BYTES`: `load /dev/full` must not read for ever.
        let read = std::fs::File::open(path)
            .and_then(|f| crate::text::read_capped(f, &origin))
            .map_err(|e| format!("{origin}: cannot read: {e}"))
            .and_then(|r| r.map_err(|e| e.to_string()))
            .and_then(|b| crate::text::decode(b, &origin).map_err(|e| e.to_string()));
        let text = match read {
            Ok(t) => t,
            Err(e) => return Reply::Refused(e),
        };
        match Game::from_json(&text, &origin) {
            Ok(g) => {
                self.game = g;
                Reply::Done(vec![format!(
                    "loaded {origin}: {}, {} moves",
                    self.title(),
                    self.game.history().len()
                )])
            }
            Err(e) => Reply::Refused(e.to_string()),
        }
    }
}
