//! Saving and loading a game: the JSON of `castle solve --format json` (the deal, its
//! options and the moves so far, which `castle verify` replays), with a `play` object for
//! what the contract has no place for (automatic moves, the redo list, the switch).

use super::{fill_step, Entry, Game};
use crate::check::Step;
use crate::deal::Numbering;
use crate::formats;
use crate::report::{MoveJson, Report};
use crate::solver::Verdict;
use crate::{InputError, InputKind};
use serde_json::Value;

impl Game {
    /// The game as the JSON of `castle solve --format json`: the deal, its options and the
    /// moves so far, which `castle verify` replays. The verdict is `solvable` when the moves
    /// win, else `unknown` (no search was made: `limit` is null). An extra `play` object
    /// keeps what the contract has no place for: which moves were automatic (1-based move
    /// numbers), the moves that redo would bring back (next first, with which of them were
    /// automatic) and the automatic-move switch; readers of the contract ignore it. The
    /// deal's `numbering` is the contract's own field.
    pub fn to_json(&self) -> String {
        let mv = |s: &Step| MoveJson {
            card: s.card.to_string(),
            from: s.from,
            to: s.to,
            count: (s.count > 1).then_some(s.count),
        };
        let verdict = if self.is_won() {
            Verdict::Solvable
        } else {
            Verdict::Unknown
        };
        let report = Report::line(
            &self.deal,
            verdict,
            self.done.iter().map(|e| mv(&e.step)).collect(),
        )
        .numbered(self.numbering);
        let mut v = serde_json::to_value(&report).unwrap_or(Value::Null);
        let automatic: Vec<usize> = self
            .done
            .iter()
            .enumerate()
            .filter(|(_, e)| e.auto)
            .map(|(i, _)| i + 1)
            .collect();
        let redo: Vec<MoveJson> = self.undone.iter().rev().map(|e| mv(&e.step)).collect();
        let redo_automatic: Vec<usize> = self
            .undone
            .iter()
            .rev()
            .enumerate()
            .filter(|(_, e)| e.auto)
            .map(|(i, _)| i + 1)
            .collect();
        if let Value::Object(m) = &mut v {
            m.insert(
                "play".to_string(),
                serde_json::json!({
                    "automatic": automatic,
                    "redo": redo,
                    "redo_automatic": redo_automatic,
                    "auto": self.auto,
                }),
            );
        }
        let mut s = serde_json::to_string_pretty(&v).unwrap_or_default();
        s.push('\n');
        s
    }

    /// A game saved by [`Game::to_json`], or any `castle solve --format json` report (its
    /// moves are replayed, and its deal numbering kept: castle's when the file names none).
    /// `origin` names the file in messages.
    ///
    /// # Errors
    /// An [`InputError`] naming the file and the field or move at fault.
    pub fn from_json(text: &str, origin: &str) -> Result<Game, InputError> {
        let deal = formats::read_json_deal(text, origin)?;
        let report: Report = serde_json::from_str(text).map_err(|e| {
            InputError::new(
                InputKind::Report,
                format!("not a saved game (the JSON of `castle solve --format json`): {e}"),
            )
            .at(origin)
            .on_line(e.line())
        })?;
        let steps = report.steps(origin)?;
        // Files saved before the numbering was kept have none: castle's, the only one then.
        let numbering = match &report.numbering {
            Some(n) => n
                .parse::<Numbering>()
                .map_err(|e| e.at(origin).map_message(|m| format!("numbering: {m}")))?,
            None => Numbering::Castle,
        };
        let v: Value = serde_json::from_str(text).map_err(|e| {
            InputError::new(InputKind::Report, format!("invalid JSON: {e}")).at(origin)
        })?;
        let play = v.get("play");
        let numbers = |field: &str| -> Vec<u64> {
            play.and_then(|p| p.get(field))
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_u64).collect())
                .unwrap_or_default()
        };
        let automatic = numbers("automatic");
        let redo_automatic = numbers("redo_automatic");
        let auto = play
            .and_then(|p| p.get("auto"))
            .and_then(Value::as_bool)
            .unwrap_or(true);
        let redo: Vec<MoveJson> = match play.and_then(|p| p.get("redo")) {
            Some(r) => serde_json::from_value(r.clone()).map_err(|e| {
                InputError::new(InputKind::Report, format!("play.redo: {e}")).at(origin)
            })?,
            None => Vec::new(),
        };
        let mut g = Game::unplayed(deal, auto).numbered(numbering);
        for (i, s) in steps.into_iter().enumerate() {
            g.board.play(&s).map_err(|why| {
                InputError::new(
                    InputKind::Move,
                    format!("move {} ({s}) is illegal: {why}", i + 1),
                )
                .at(origin)
            })?;
            let auto = automatic.contains(&(i as u64 + 1));
            g.done.push(Entry { step: s, auto });
        }
        let redo_report = Report {
            moves: redo,
            ..report
        };
        let redo = redo_report
            .steps(origin)
            .map_err(|e| e.map_message(|m| format!("play.redo: {m}")))?;
        let mut trial = g.board.clone();
        for (i, s) in redo.iter().enumerate() {
            trial.play(s).map_err(|why| {
                InputError::new(
                    InputKind::Move,
                    format!("play.redo move {} ({s}) is illegal: {why}", i + 1),
                )
                .at(origin)
            })?;
        }
        g.undone = redo
            .into_iter()
            .enumerate()
            .map(|(i, step)| Entry {
                step,
                auto: redo_automatic.contains(&(i as u64 + 1)),
            })
            .rev()
            .collect();
        // A report cut short may wait for a fill: make it, as play always does.
        while let Some(s) = fill_step(&g.board) {
            if g.board.play(&s).is_err() {
                break;
            }
            g.record(s, true);
        }
        Ok(g)
    }
}
