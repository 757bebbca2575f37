//! The line mode: one command per line in, the board as text out after each, so that
//! scripts and tests can play. The coach decides each position on the spot with a node
//! budget only (no clock), so the same input always gives the same output.
//!
//! The board is printed in the project's deal text format (it reads back with `--deal`),
//! framed by `#` comment lines for the title and the status.

use super::coach::Mark;
use super::game::{view, Shape, Target};
use super::notation::TargetError;
use super::session::{Action, Reply, Session};
use crate::card::Card;
use crate::pile::Pile;
use crate::rules::UnknownVariant;
use crate::rules::{SequenceMoves, Variant};
use std::io::{self, BufRead, Write};

/// The commands of the line mode, for `help`.
pub const HELP: &str = "\
commands (one per line; piles are t1..tN or 1..N, cells r1..rK, the foundations f,
the stock s and the waste w):
  t3 f          move the top card of t3 to its foundation
  t1 t5         move the top card of t1 onto t5
  t1 t5 3       move a run of 3 cards (under --sequence-moves unlimited)
  t4 r2         move the top card of t4 to reserve cell r2; r2 t1 plays it back
  s w, deal     deal a card from the stock to the waste; w t3 plays the waste's top card
  f:5H t2       bring 5H back from the foundations (under --foundation-return)
  t3            move the top card of t3 where it does most good (home, onto a card, to a space)
  undo [N]      take back N moves (1); an automatic move counts as one
  redo [N]      make N undone moves again (1)
  hint          a move that keeps the deal winnable, or why there is none
  show [N]      play the next N moves (1) of the solver's winning line
  restart       back to the deal (the moves stay on the redo list)
  new [N]       deal number N, or the next number
  auto on|off   automatic safe moves to the foundations (on by default)
  rank K        start rank K (0..12) and deal again
  variant NAME  another variant, same deal number
  save FILE     save the game (the JSON of `castle solve --format json`)
  load FILE     load a saved game
  board         print the board
  moves         list the moves made
  legal         list the legal moves
  help          this list
  quit          stop (so does the end of the input)";

/// A line-mode command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// An action, done this many times (or until refused).
    Act(Action, usize),
    /// Print the board.
    Board,
    /// List the moves made.
    Moves,
    /// List the legal moves.
    Legal,
    /// Print the commands.
    Help,
    /// Stop.
    Quit,
}

/// A line of the line mode that is no command.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CommandError {
    /// Not a command word, nor pile names.
    #[error("unknown command `{0}` (`help` lists the commands)")]
    Unknown(String),
    /// A count that is not a positive number (`undo 0`).
    #[error("{what}: `{arg}` is not a count (1, 2, ...)")]
    NotACount {
        /// The command.
        what: &'static str,
        /// The argument.
        arg: String,
    },
    /// Words after the command's argument.
    #[error("{what}: too many words: `{rest}`")]
    TooManyWords {
        /// The command.
        what: String,
        /// The words too many.
        rest: String,
    },
    /// `new` with something that is not a deal number.
    #[error("new: `{0}` is not a deal number")]
    NotADealNumber(String),
    /// `auto` with something that is not `on` or `off`.
    #[error("auto: `{0}` is not `on` or `off`")]
    NotOnOff(String),
    /// `rank` alone.
    #[error("rank: give the start rank (0..12)")]
    NoStartRank,
    /// `rank` with something that is not a number.
    #[error("rank: `{0}` is not a start rank (0..12)")]
    NotAStartRank(String),
    /// `variant` alone.
    #[error("variant: give a variant name (`castle variants` lists them)")]
    NoVariant,
    /// `variant` with an unknown name.
    #[error("variant: {0}")]
    Variant(#[from] UnknownVariant),
    /// `save` or `load` alone.
    #[error("{0}: give a file name")]
    NoFileName(String),
    /// `deal` in a game without a stock.
    #[error("{0}: this game has no stock")]
    NoStock(String),
    /// A move's card count that is not a positive number.
    #[error("`{0}` is not a number of cards (1, 2, ...)")]
    NotACardCount(String),
    /// A pile word that names no pile here.
    #[error(transparent)]
    Pile(#[from] TargetError),
}

fn count(arg: Option<&str>, what: &'static str) -> Result<usize, CommandError> {
    match arg {
        None => Ok(1),
        Some(a) => {
            a.parse::<usize>()
                .ok()
                .filter(|&n| n >= 1)
                .ok_or_else(|| CommandError::NotACount {
                    what,
                    arg: a.to_string(),
                })
        }
    }
}

fn no_more(words: &[&str], what: &str) -> Result<(), CommandError> {
    if words.len() > 2 {
        return Err(CommandError::TooManyWords {
            what: what.to_string(),
            rest: words[2..].join(" "),
        });
    }
    Ok(())
}

/// Reads one line, naming piles of a board of this shape. `Ok(None)` for a blank line or a
/// `#` comment.
///
/// # Errors
/// What is wrong with the line, in one line.
pub fn parse(line: &str, shape: Shape) -> Result<Option<Command>, CommandError> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return Ok(None);
    }
    let words: Vec<&str> = line.split_whitespace().filter(|w| *w != "->").collect();
    let Some(first) = words.first() else {
        return Err(CommandError::Unknown(line.to_string()));
    };
    let head = first.to_ascii_lowercase();
    let arg = words.get(1).copied();
    // The rest of the line after the command word, spaces and all (for file names).
    let rest = line
        .split_once(char::is_whitespace)
        .map_or("", |(_, r)| r)
        .trim();
    let cmd = match head.as_str() {
        "undo" | "u" => {
            no_more(&words, "undo")?;
            Command::Act(Action::Undo, count(arg, "undo")?)
        }
        "redo" => {
            no_more(&words, "redo")?;
            Command::Act(Action::Redo, count(arg, "redo")?)
        }
        "hint" => Command::Act(Action::Hint, 1),
        "show" => {
            no_more(&words, "show")?;
            Command::Act(Action::Show, count(arg, "show")?)
        }
        "restart" => Command::Act(Action::Restart, 1),
        "new" => {
            no_more(&words, "new")?;
            let n = match arg {
                None => None,
                Some(a) => Some(
                    a.parse::<u64>()
                        .map_err(|_| CommandError::NotADealNumber(a.to_string()))?,
                ),
            };
            Command::Act(Action::New(n), 1)
        }
        "auto" => {
            no_more(&words, "auto")?;
            let on = match arg.map(str::to_ascii_lowercase).as_deref() {
                None => None,
                Some("on") => Some(true),
                Some("off") => Some(false),
                Some(a) => return Err(CommandError::NotOnOff(a.to_string())),
            };
            Command::Act(Action::Auto(on), 1)
        }
        "rank" | "start-rank" => {
            no_more(&words, "rank")?;
            let a = arg.ok_or(CommandError::NoStartRank)?;
            let k = a
                .parse::<u8>()
                .map_err(|_| CommandError::NotAStartRank(a.to_string()))?;
            Command::Act(Action::StartRank(k), 1)
        }
        "variant" => {
            no_more(&words, "variant")?;
            let a = arg.ok_or(CommandError::NoVariant)?;
            let v = a.parse::<Variant>()?;
            Command::Act(Action::Variant(v), 1)
        }
        "save" | "load" => {
            if rest.is_empty() {
                return Err(CommandError::NoFileName(head));
            }
            let path = rest.into();
            if head == "save" {
                Command::Act(Action::Save(path), 1)
            } else {
                Command::Act(Action::Load(path), 1)
            }
        }
        "deal" | "draw" => {
            if words.len() > 1 {
                return Err(CommandError::TooManyWords {
                    what: head,
                    rest: words[1..].join(" "),
                });
            }
            if !shape.stock {
                return Err(CommandError::NoStock(head));
            }
            Command::Act(
                Action::Move(Target::At(Pile::Stock), Target::At(Pile::Waste), Some(1)),
                1,
            )
        }
        "board" => Command::Board,
        "moves" => Command::Moves,
        "legal" => Command::Legal,
        "help" | "?" => Command::Help,
        "quit" | "exit" | "q" => Command::Quit,
        _ => {
            let pile = |w: &str| Target::parse(w, shape);
            match words[..] {
                [from] => match pile(from) {
                    Ok(t) => Command::Act(Action::Quick(t), 1),
                    Err(_) => return Err(CommandError::Unknown(from.to_string())),
                },
                [from, to] | [from, to, _] => match (pile(from), pile(to)) {
                    (Ok(f), Ok(t)) => {
                        let n = match words.get(2) {
                            None => 1,
                            Some(n) => n
                                .parse::<usize>()
                                .ok()
                                .filter(|&n| n >= 1)
                                .ok_or_else(|| CommandError::NotACardCount(n.to_string()))?,
                        };
                        // A foundation card named only by `f` is the one that fits.
                        let n = (f != Target::At(Pile::Foundation) || n > 1).then_some(n);
                        Command::Act(Action::Move(f, t, n), 1)
                    }
                    (Err(e), _) | (_, Err(e)) => {
                        // Two words that are no pile names at all: not a move.
                        let like_pile = |w: &str| {
                            w.len() <= 3
                                && w.starts_with(|c: char| "trfswTRFSW0123456789".contains(c))
                                || w.to_ascii_lowercase().starts_with("f:")
                        };
                        if !like_pile(from) && !like_pile(to) {
                            return Err(CommandError::Unknown(line.to_string()));
                        }
                        return Err(e.into());
                    }
                },
                _ => return Err(CommandError::Unknown(line.to_string())),
            }
        }
    };
    Ok(Some(cmd))
}

fn cards(cs: &[Card]) -> String {
    cs.iter().map(Card::to_string).collect::<Vec<_>>().join(" ")
}

/// The board as text: a title comment, the position in the deal text format (it reads back
/// with `--deal`; the cells, stock and waste carry a comment on their order), and the status
/// as comments (`# winnable: yes|no|unknown|won|off`).
pub fn board_text(s: &Session) -> String {
    let v = view(s.board());
    let rules = s.game.rules();
    let mut out = format!("# {}\n", s.title());
    out += &format!("variant: {}\n", rules.variant.name());
    if rules.variant.has_start_rank() {
        out += &format!("start-rank: {}\n", rules.options.start_rank);
    }
    if rules.options.foundation_return {
        out += "foundation-return: yes\n";
    }
    if rules.options.sequence_moves != SequenceMoves::Single {
        out += &format!("sequence-moves: {}\n", rules.options.sequence_moves.name());
    }
    let tops: Vec<Card> = v
        .foundations
        .iter()
        .filter_map(|f| f.last().copied())
        .collect();
    out += &format!("foundations: {}\n", dash(&cards(&tops)));
    if !v.reserve.is_empty() {
        let cells: Vec<String> = v
            .reserve
            .iter()
            .map(|c| c.map_or("-".to_string(), |c| c.to_string()))
            .collect();
        let names: Vec<String> = (0..v.reserve.len())
            .map(|k| Pile::Reserve(k as u8).to_string())
            .collect();
        out += &format!("reserve: {}  # {}\n", cells.join(" "), names.join(" "));
    }
    if rules.stock {
        // The deal format lists the stock next card first; the view keeps it last.
        let stock: Vec<Card> = v.stock.iter().rev().copied().collect();
        out += &format!("stock: {}", dash(&cards(&stock)));
        out += &match stock.first() {
            Some(c) => format!("  # {}, next {c}\n", how_many(stock.len())),
            None => "  # empty\n".to_string(),
        };
        out += &format!("waste: {}", dash(&cards(&v.waste)));
        out += &match v.waste.last() {
            Some(c) => format!("  # {}, top {c}\n", how_many(v.waste.len())),
            None => "  # empty\n".to_string(),
        };
    }
    for (i, p) in v.tableau.iter().enumerate() {
        let line = format!("{}: {}", Pile::Tableau(i as u8), cards(p));
        out += line.trim_end();
        out.push('\n');
    }
    let (m, a) = s.game.moves_made();
    out += &format!(
        "# home {}/{}, moves {} ({a} automatic), auto {}, redo {}\n",
        v.home(),
        v.total(),
        m + a,
        if s.game.auto() { "on" } else { "off" },
        s.game.redo_len()
    );
    let mark = s.mark();
    out += &match (mark, s.budget) {
        (Mark::Unknown, Some(n)) => format!("# winnable: unknown (not decided within {n} nodes)\n"),
        _ => format!("# winnable: {}\n", mark.word()),
    };
    out
}

fn how_many(n: usize) -> String {
    if n == 1 {
        "1 card".to_string()
    } else {
        format!("{n} cards")
    }
}

fn dash(s: &str) -> &str {
    if s.is_empty() {
        "-"
    } else {
        s
    }
}

fn say(out: &mut impl Write, reply: &Reply) -> io::Result<bool> {
    match reply {
        Reply::Done(lines) => {
            for l in lines {
                writeln!(out, "{l}")?;
            }
            Ok(true)
        }
        Reply::Refused(why) => {
            // A refusal may quote the line it refuses: long ones are cut.
            writeln!(out, "error: {}", crate::text::cut_quoted(why, '`'))?;
            Ok(false)
        }
        Reply::Wait => Ok(false),
    }
}

/// Plays commands from `input` until `quit` or its end, writing to `out`.
///
/// # Errors
/// Only failures to read the input or write the output; bad commands are answered with an
/// `error:` line and the session goes on.
pub fn run(s: &mut Session, input: impl BufRead, out: &mut impl Write) -> io::Result<()> {
    s.coach.think(&s.board().clone());
    write!(out, "{}", board_text(s))?;
    out.flush()?;
    for line in input.lines() {
        let line = line?;
        let cmd = match parse(&line, s.game.shape()) {
            Ok(None) => continue,
            Ok(Some(c)) => c,
            Err(e) => {
                writeln!(
                    out,
                    "error: {}",
                    crate::text::cut_quoted(&e.to_string(), '`')
                )?;
                out.flush()?;
                continue;
            }
        };
        writeln!(out)?;
        match &cmd {
            Command::Quit => break,
            Command::Help => writeln!(out, "{HELP}")?,
            Command::Board => {}
            Command::Moves => {
                if s.game.history().is_empty() {
                    writeln!(out, "no moves made")?;
                }
                for (i, e) in s.game.history().iter().enumerate() {
                    writeln!(
                        out,
                        "{}. {}{}",
                        i + 1,
                        e.step,
                        if e.auto { " (automatic)" } else { "" }
                    )?;
                }
            }
            Command::Legal => {
                let steps = s.board().legal_steps();
                if steps.is_empty() {
                    writeln!(out, "no legal move")?;
                }
                for st in steps {
                    writeln!(out, "{st}")?;
                }
            }
            Command::Act(action, n) => {
                for _ in 0..*n {
                    let mut reply = s.act(action);
                    if reply == Reply::Wait {
                        s.coach.think(&s.board().clone());
                        reply = s.act(action);
                    }
                    let done = say(out, &reply)?;
                    if !done || (s.game.is_won() && *action == Action::Show) {
                        break;
                    }
                }
            }
        }
        if !matches!(cmd, Command::Help | Command::Quit) {
            s.coach.think(&s.board().clone());
            write!(out, "{}", board_text(s))?;
        }
        out.flush()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::play::coach::{coach_solver, Coach};
    use crate::play::game::Game;
    use crate::Deal;

    const EIGHT: Shape = Shape {
        piles: 8,
        cells: 0,
        stock: false,
    };

    /// A target by pile name (tests only: the name is known good).
    fn at(name: &str) -> Target {
        Target::At(name.parse().expect("a pile name"))
    }

    #[test]
    fn commands_parse_and_junk_is_named() {
        let p = |l: &str| parse(l, EIGHT);
        let mv = |f, t, n| Ok(Some(Command::Act(Action::Move(f, t, n), 1)));
        assert_eq!(p("t3 f"), mv(at("t3"), at("f"), Some(1)));
        assert_eq!(p("1 -> T5"), mv(at("t1"), at("t5"), Some(1)));
        assert_eq!(p("undo 3"), Ok(Some(Command::Act(Action::Undo, 3))));
        assert_eq!(p("  "), Ok(None));
        assert_eq!(p("# note"), Ok(None));
        assert_eq!(
            p("save my game.json"),
            Ok(Some(Command::Act(Action::Save("my game.json".into()), 1)))
        );
        assert!(p("t9 f").unwrap_err().to_string().contains("t9"));
        assert!(p("frobnicate")
            .unwrap_err()
            .to_string()
            .contains("unknown command"));
        assert!(p("undo x").is_err());
        assert!(p("undo 0").is_err());
        assert!(p("auto maybe").is_err());
        assert!(p("rank").is_err());
        assert!(p("variant chess").is_err());
        assert!(p("save").is_err());
        assert!(p("t1 t2 t3").is_err());
        assert!(p("t1 t2 0").is_err());
        assert!(p("deal").unwrap_err().to_string().contains("no stock"));
        assert!(p("s w").is_err());
        assert!(p("r1 t2").unwrap_err().to_string().contains("not a pile"));
        // Nothing panics on junk.
        for junk in [
            "->",
            "-> ->",
            "é",
            "-> é€ x",
            "save  ",
            "t",
            "t-1 f",
            "99999999999999999999 f",
            "f: t1",
            "r t1",
            "t1 t2 99999999999999999999999",
        ] {
            assert!(p(junk).is_err(), "{junk}");
        }
    }

    #[test]
    fn cells_stock_waste_runs_and_foundation_cards_parse() {
        let shape = Shape {
            piles: 12,
            cells: 2,
            stock: true,
        };
        let p = |l: &str| parse(l, shape);
        let mv = |f, t, n| Ok(Some(Command::Act(Action::Move(f, t, n), 1)));
        let deal = mv(at("s"), at("w"), Some(1));
        assert_eq!(p("s w"), deal);
        assert_eq!(p("deal"), deal);
        assert_eq!(p("w t3"), mv(at("w"), at("t3"), Some(1)));
        assert_eq!(p("r1 t2"), mv(at("r1"), at("t2"), Some(1)));
        assert_eq!(p("t4 r2"), mv(at("t4"), at("r2"), Some(1)));
        assert_eq!(p("t3 t5 3"), mv(at("t3"), at("t5"), Some(3)));
        assert_eq!(p("t12 f"), mv(at("t12"), at("f"), Some(1)));
        let five = "5H".parse().unwrap();
        assert_eq!(p("f:5H t2"), mv(Target::Home(five), at("t2"), Some(1)));
        assert_eq!(p("f t2"), mv(at("f"), at("t2"), None));
        assert_eq!(p("s"), Ok(Some(Command::Act(Action::Quick(at("s")), 1))));
        assert!(p("r3 t1").unwrap_err().to_string().contains("r1..r2"));
        assert!(p("t13 t1").is_err());
    }

    #[test]
    fn the_board_text_reads_back_as_a_deal() {
        for v in crate::Variant::ALL {
            for rules in [
                v.rules(),
                v.rules()
                    .with_foundation_return(true)
                    .with_sequence_moves(SequenceMoves::Unlimited),
            ] {
                let deal = Deal::from_seed(rules, 42);
                let mut g = Game::new(deal.clone(), false);
                // A few moves, so the cells and the waste hold something where they can.
                for _ in 0..3 {
                    let legal = g.board().legal_steps();
                    if let Some(st) = legal
                        .iter()
                        .find(|st| st.from == "s" || matches!(st.to, Pile::Reserve(_)))
                        .or(legal.first())
                    {
                        g.play_step(&st.clone()).unwrap();
                    }
                }
                let s = Session::new(g, Coach::new(None), None);
                let text = board_text(&s);
                let back = crate::formats::read_deal(&text, "board", Default::default())
                    .unwrap_or_else(|e| panic!("{e}\n{text}"));
                assert_eq!(back, s.board().to_deal(), "{text}");
                assert!(text.contains("# winnable: off"));
            }
        }
    }

    #[test]
    fn a_session_goes_on_after_bad_lines() {
        let deal = Deal::from_seed(crate::Variant::BeleagueredCastle.rules(), 2);
        let mut s = Session::new(
            Game::new(deal, false),
            Coach::new(coach_solver(50_000, None)),
            Some(50_000),
        );
        let input = "nonsense\nt1 t1\nhint\nundo\nquit\nt1 f\n";
        let mut out = Vec::new();
        run(&mut s, input.as_bytes(), &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("error: unknown command `nonsense`"), "{text}");
        assert!(text.contains("error: a card cannot move onto its own pile"));
        assert!(text.contains("hint: "));
        assert!(text.contains("error: nothing to undo"));
        // Nothing after quit ran.
        assert_eq!(text.matches("# winnable:").count(), 4);
    }
}
