//! The full-screen board's input: keys, the mouse, and picking piles (a source, then a
//! destination) into the session's actions.

use super::{App, Prompt};
use crate::card::Card;
use crate::pile::Pile;
use crate::play::game::{view, Target};
use crate::play::session::Action;
use crate::rules::Variant;
use crossterm::event::{
    KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};

impl App {
    /// A pile picked by key or click: the source first, then the destination. The same pile
    /// twice moves its card where it does most good. The stock deals at once. With foundation
    /// return, `f` as the source picks a foundation card, and `f` again the next one.
    fn pick(&mut self, t: Target) {
        let board = self.s.board();
        let returns = self.s.game.rules().options.foundation_return;
        match (self.selected, t) {
            (_, Target::At(Pile::Stock)) => self.act(Action::Quick(Target::At(Pile::Stock))),
            (None | Some(Target::Home(_)), Target::At(Pile::Foundation) | Target::Home(_))
                if !returns =>
            {
                self.say(
                    "pick a pile first (cards on the foundations stay there in these rules)",
                    true,
                );
            }
            (Some(Target::Home(c)), Target::Home(d)) if c == d => {
                self.act(Action::Quick(Target::Home(c)));
            }
            (None | Some(Target::Home(_)), Target::Home(c)) => self.select(Target::Home(c)),
            (None | Some(Target::Home(_)), Target::At(Pile::Foundation)) => {
                // The foundation tops in turn, those that can move first.
                let legal = board.legal_steps();
                let mut tops: Vec<Card> = board
                    .foundations
                    .iter()
                    .filter_map(|p| p.last().copied())
                    .collect();
                tops.sort_by_key(|&c| {
                    !legal
                        .iter()
                        .any(|s| s.from == Pile::Foundation && s.card == c)
                });
                tops.dedup();
                let next = match self.selected {
                    Some(Target::Home(c)) => tops
                        .iter()
                        .position(|&d| d == c)
                        .map_or(0, |i| (i + 1) % tops.len()),
                    _ => 0,
                };
                match tops.get(next) {
                    Some(&c) => self.select(Target::Home(c)),
                    None => self.say("the foundations are empty", true),
                }
            }
            (None, t) => {
                let v = view(board);
                let empty = match t {
                    Target::At(Pile::Tableau(i)) => {
                        v.tableau.get(usize::from(i)).map_or(true, Vec::is_empty)
                    }
                    Target::At(Pile::Reserve(k)) => {
                        v.reserve.get(usize::from(k)).map_or(true, Option::is_none)
                    }
                    Target::At(Pile::Waste) => v.waste.is_empty(),
                    _ => false,
                };
                if empty {
                    let what = match t {
                        Target::At(Pile::Waste) => "the waste".to_string(),
                        t => t.name(),
                    };
                    self.say(format!("{what} is empty"), true);
                } else {
                    self.select(t);
                }
            }
            (Some(src), t) if src == t => self.act(Action::Quick(src)),
            (Some(src), t) => self.act(Action::Move(src, t, None)),
        }
    }

    fn select(&mut self, t: Target) {
        self.selected = Some(t);
        let what = match t {
            Target::Home(c) => format!("{c} on the foundations picked (f again: the next one)"),
            Target::At(Pile::Waste) => "the waste picked".to_string(),
            t => format!("{} picked", t.name()),
        };
        self.say(format!("{what}: now its destination"), false);
    }

    fn rank_step(&mut self, up: bool) {
        let v = self.s.game.rules().variant;
        if !v.has_start_rank() {
            self.say(
                format!("{v} has no start rank (only the Beleaguered Castle family has one)"),
                true,
            );
            return;
        }
        let r = self.s.game.rules().options.start_rank;
        let k = if up {
            r.saturating_add(1)
        } else {
            r.wrapping_sub(1)
        };
        if k > 12 {
            self.say("the start rank goes from 0 to 12", true);
        } else {
            self.act(Action::StartRank(k));
        }
    }

    fn next_variant(&mut self) {
        let v = self.s.game.rules().variant;
        let i = Variant::ALL.iter().position(|&x| x == v).unwrap_or(0);
        self.act(Action::Variant(Variant::ALL[(i + 1) % Variant::ALL.len()]));
    }

    /// A key press.
    pub fn key(&mut self, k: KeyEvent) {
        if k.kind == KeyEventKind::Release {
            return;
        }
        let ctrl = k.modifiers.contains(KeyModifiers::CONTROL);
        if let Some(p) = &mut self.prompt {
            let (Prompt::Save(text) | Prompt::Load(text)) = p;
            match k.code {
                KeyCode::Esc => {
                    self.prompt = None;
                    self.say("cancelled", false);
                }
                KeyCode::Enter => {
                    let path = text.trim().to_string();
                    let action = match p {
                        Prompt::Save(_) => Action::Save(path.into()),
                        Prompt::Load(_) => Action::Load(path.into()),
                    };
                    self.prompt = None;
                    self.act(action);
                }
                KeyCode::Backspace => {
                    text.pop();
                }
                KeyCode::Char('c') if ctrl => self.prompt = None,
                KeyCode::Char('u') if ctrl => text.clear(),
                KeyCode::Char(_) if ctrl => {}
                KeyCode::Char(c) => text.push(c),
                _ => {}
            }
            return;
        }
        if self.help {
            self.help = false;
            if !matches!(k.code, KeyCode::Char('q')) {
                return;
            }
        }
        let shape = self.s.game.shape();
        // The second key of a cell's name (`r` then its number).
        if let Some(first) = self.typed.take() {
            if let KeyCode::Char(c) = k.code {
                match Target::of_keys(&format!("{first}{c}"), shape) {
                    Some(t) => self.pick(t),
                    None => self.say(
                        format!("there is no cell r{c} (r1..r{})", shape.cells),
                        true,
                    ),
                }
            } else {
                self.say("cancelled", false);
            }
            return;
        }
        match k.code {
            KeyCode::Char('c') if ctrl => self.quit = true,
            KeyCode::Char('z') if ctrl => self.act(Action::Undo),
            KeyCode::Char('y') if ctrl => self.act(Action::Redo),
            KeyCode::Char('q') => self.quit = true,
            KeyCode::Esc => {
                self.typed = None;
                self.selected = None;
                self.hint = None;
                self.message = None;
            }
            KeyCode::Enter | KeyCode::Char(' ') => match self.selected {
                Some(src) => self.act(Action::Quick(src)),
                None => self.say("pick a pile first", true),
            },
            KeyCode::Char('u') | KeyCode::Backspace => self.act(Action::Undo),
            KeyCode::Char('y') => self.act(Action::Redo),
            KeyCode::Char('h') => self.act(Action::Hint),
            KeyCode::Char('p') => self.act(Action::Show),
            KeyCode::Char('a') => self.act(Action::Auto(None)),
            KeyCode::Char('R') => self.act(Action::Restart),
            KeyCode::Char('N') => self.act(Action::New(None)),
            KeyCode::Char('S') => {
                self.prompt = Some(Prompt::Save(self.s.default_save_name()));
            }
            KeyCode::Char('L') => {
                self.prompt = Some(Prompt::Load(self.s.default_save_name()));
            }
            KeyCode::Char('<') => self.rank_step(false),
            KeyCode::Char('>') => self.rank_step(true),
            KeyCode::Char('v') => self.next_variant(),
            KeyCode::Char('?') => self.help = true,
            KeyCode::Char('r') if shape.cells > 0 => {
                self.typed = Some('r');
                self.say(
                    format!("r: now the cell's number (1..{})", shape.cells),
                    false,
                );
            }
            KeyCode::Char(c) => match Target::of_keys(&c.to_string(), shape) {
                Some(t) => self.pick(t),
                None => self.say(format!("`{c}` does nothing here (? lists the keys)"), true),
            },
            _ => {}
        }
    }

    /// A mouse event: a left click picks the pile under it, a right click moves its card
    /// where it does most good.
    pub fn mouse(&mut self, m: MouseEvent) {
        let button = match m.kind {
            MouseEventKind::Down(b) => b,
            _ => return,
        };
        if self.prompt.is_some() {
            return;
        }
        self.help = false;
        let hit = self
            .hits
            .iter()
            .find(|(r, _)| {
                m.column >= r.x
                    && m.column < r.x + r.width
                    && m.row >= r.y
                    && m.row < r.y + r.height
            })
            .map(|&(_, t)| t);
        match (hit, button) {
            (Some(t), MouseButton::Left) => self.pick(t),
            (Some(Target::At(Pile::Foundation)), MouseButton::Right) => {}
            (Some(Target::Home(_)), MouseButton::Right)
                if !self.s.game.rules().options.foundation_return => {}
            (Some(t), MouseButton::Right) => self.act(Action::Quick(t)),
            _ => self.selected = None,
        }
    }
}
