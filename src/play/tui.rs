//! The full-screen board (ratatui on crossterm), laid out as the seed games lay it out: the
//! foundations in a middle column (two for courtyard's eight) and the tableau piles as wings
//! on both sides, each wing's top card on the outside, with the reserve cells, the stock and
//! the waste on a line above. Suits in colour, the cards that can move in bold and underlined,
//! the selected card reversed, the hinted card on yellow, a status line with the score and
//! the "winnable?" mark, a message line, and the keys at the bottom.
//!
//! The coach runs in a background [`Worker`]: the screen never waits for it. Hint and "show
//! me" asked before it has decided wait for its answer and then happen by themselves.

use super::coach::{Mark, Worker};
use super::game::{foundation_suit, source_name, view, Target, View, PILE_KEYS};
use super::session::{Action, Reply, Session};
use crate::card::Card;
use crate::check::{Board, Step};
use crate::rules::Variant;
use crossterm::event::{
    self, DisableMouseCapture, EnableMouseCapture, Event, KeyCode, KeyEvent, KeyEventKind,
    KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};
use crossterm::execute;
use crossterm::terminal::{
    disable_raw_mode, enable_raw_mode, EnterAlternateScreen, LeaveAlternateScreen,
};
use ratatui::backend::{Backend, CrosstermBackend};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};
use ratatui::{Frame, Terminal};
use std::collections::HashSet;
use std::io;
use std::time::Duration;

/// Columns between the wings: a pile key, the foundation, a pile key.
const CENTER: u16 = 12;

/// The smallest screen the board is drawn on (columns, rows).
const MIN_SIZE: (u16, u16) = (40, 14);

/// A file name being typed.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Prompt {
    Save(String),
    Load(String),
}

/// The full-screen game's state besides the session: selection, messages, the coach thread.
pub struct App {
    s: Session,
    worker: Option<Worker>,
    asked: Option<Board>,
    selected: Option<Target>,
    hint: Option<Step>,
    message: Option<(String, bool)>,
    pending: Option<Action>,
    prompt: Option<Prompt>,
    /// The first key of a two-key pile name (`r` of `r1`).
    typed: Option<char>,
    help: bool,
    hits: Vec<(Rect, Target)>,
    quit: bool,
}

fn face(c: Card) -> String {
    format!("{}{}", &c.to_string()[..1], c.suit().symbol())
}

fn suit_style(c: Card) -> Style {
    if c.suit().is_red() {
        Style::new().fg(Color::Red)
    } else {
        Style::new()
    }
}

fn key_style() -> Style {
    Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD)
}

/// A pile within `width` columns, each wing's top card on the outside: the left wing lists
/// top to bottom, the right wing bottom to top. Cards that do not fit are the bottom ones,
/// shown as `…` next to the middle column.
fn pile_spans(
    pile: &[Card],
    width: usize,
    left: bool,
    style: &dyn Fn(usize, Card) -> Style,
) -> Vec<Span<'static>> {
    if pile.is_empty() {
        return vec![Span::styled("·", Style::new().add_modifier(Modifier::DIM))];
    }
    let n = pile.len();
    let gap = usize::from(n * 3 - 1 <= width);
    let cell = 2 + gap;
    let shown = if n * cell - gap <= width {
        n
    } else {
        (width.saturating_sub(1 + gap) + gap) / cell
    };
    let first = n - shown;
    let sep = || Span::raw(" ".repeat(gap));
    let more = || Span::styled("…", Style::new().add_modifier(Modifier::DIM));
    let mut spans = Vec::new();
    let cards: Vec<(usize, Card)> = pile.iter().copied().enumerate().skip(first).collect();
    if left {
        for (k, &(i, c)) in cards.iter().rev().enumerate() {
            if k > 0 {
                spans.push(sep());
            }
            spans.push(Span::styled(face(c), style(i, c)));
        }
        if first > 0 {
            spans.push(sep());
            spans.push(more());
        }
    } else {
        if first > 0 {
            spans.push(more());
            spans.push(sep());
        }
        for (k, &(i, c)) in cards.iter().enumerate() {
            if k > 0 {
                spans.push(sep());
            }
            spans.push(Span::styled(face(c), style(i, c)));
        }
    }
    spans
}

/// The board's grid: piles in the left wing, foundation columns and rows, and rows in all.
/// The foundations take one column, or two when they outnumber the wings' rows
/// (courtyard's eight beside six rows).
fn grid(v: &View) -> (usize, usize, usize, usize) {
    let left_n = v.tableau.len().div_ceil(2);
    let nf = v.foundations.len().max(1);
    let fcols = if nf > left_n.max(1) { 2 } else { 1 };
    let frows = nf.div_ceil(fcols);
    (left_n, fcols, frows, left_n.max(frows).max(1))
}

/// Screen rows the board needs at its tightest: the line of cells, stock and waste (if
/// any), the foundations' key, and one row per pile row.
fn board_rows(v: &View, stock: bool) -> usize {
    let head = usize::from(!v.reserve.is_empty() || stock);
    head + 1 + grid(v).3
}

fn width_of(spans: &[Span]) -> usize {
    spans.iter().map(Span::width).sum()
}

impl App {
    /// The app on a session; `worker` answers for the coach (none: the coach is off).
    pub fn new(s: Session, worker: Option<Worker>) -> App {
        App {
            s,
            worker,
            asked: None,
            selected: None,
            hint: None,
            message: None,
            pending: None,
            prompt: None,
            typed: None,
            help: false,
            hits: Vec::new(),
            quit: false,
        }
    }

    /// The session.
    pub fn session(&self) -> &Session {
        &self.s
    }

    /// True once the player has asked to quit.
    pub fn quitting(&self) -> bool {
        self.quit
    }

    /// Takes in the coach's answers and sends it the position if it needs one. Never waits.
    /// True if anything on the screen may have changed.
    pub fn tick(&mut self) -> bool {
        let mut changed = false;
        if let Some(w) = &self.worker {
            for (b, k) in w.answers() {
                self.s.coach.learn(b, k);
                changed = true;
            }
            let board = self.s.board();
            if self.s.coach.needs(board) && self.asked.as_ref() != Some(board) {
                w.ask(board);
                self.asked = Some(board.clone());
            }
        }
        if let Some(a) = self.pending.clone() {
            if self.s.coach.known(self.s.board()).is_some() {
                self.pending = None;
                self.act(a);
                changed = true;
            }
        }
        changed
    }

    fn say(&mut self, text: impl Into<String>, error: bool) {
        self.message = Some((text.into(), error));
    }

    /// Does an action and shows its reply.
    pub fn act(&mut self, a: Action) {
        self.hint = None;
        self.pending = None;
        self.selected = None;
        match self.s.act(&a) {
            Reply::Done(lines) => {
                if a == Action::Hint {
                    self.hint = self
                        .s
                        .coach
                        .known(self.s.board())
                        .and_then(|k| k.plan.first().cloned());
                }
                self.say(lines.join(" · "), false);
            }
            Reply::Refused(why) => self.say(why, true),
            Reply::Wait => {
                self.say("the coach is still thinking; it will answer here", false);
                self.pending = Some(a);
            }
        }
    }

    /// A pile picked by key or click: the source first, then the destination. The same pile
    /// twice moves its card where it does most good. The stock deals at once. With foundation
    /// return, `f` as the source picks a foundation card, and `f` again the next one.
    fn pick(&mut self, t: Target) {
        let board = self.s.board();
        let returns = self.s.game.rules().options.foundation_return;
        match (self.selected, t) {
            (_, Target::Stock) => self.act(Action::Quick(Target::Stock)),
            (None | Some(Target::Home(_)), Target::Foundation | Target::Home(_)) if !returns => {
                self.say(
                    "pick a pile first (cards on the foundations stay there in these rules)",
                    true,
                );
            }
            (Some(Target::Home(c)), Target::Home(d)) if c == d => {
                self.act(Action::Quick(Target::Home(c)));
            }
            (None | Some(Target::Home(_)), Target::Home(c)) => self.select(Target::Home(c)),
            (None | Some(Target::Home(_)), Target::Foundation) => {
                // The foundation tops in turn, those that can move first.
                let legal = board.legal_steps();
                let mut tops: Vec<Card> = board
                    .foundations
                    .iter()
                    .filter_map(|p| p.last().copied())
                    .collect();
                tops.sort_by_key(|&c| !legal.iter().any(|s| s.from == "f" && s.card == c));
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
                    Target::Pile(i) => v.tableau.get(i).map_or(true, Vec::is_empty),
                    Target::Cell(k) => v.reserve.get(k).map_or(true, Option::is_none),
                    Target::Waste => v.waste.is_empty(),
                    _ => false,
                };
                if empty {
                    let what = match t {
                        Target::Waste => "the waste".to_string(),
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
            Target::Waste => "the waste picked".to_string(),
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
            (Some(Target::Foundation), MouseButton::Right) => {}
            (Some(Target::Home(_)), MouseButton::Right)
                if !self.s.game.rules().options.foundation_return => {}
            (Some(t), MouseButton::Right) => self.act(Action::Quick(t)),
            _ => self.selected = None,
        }
    }

    fn status(&self, v: &View) -> Line<'static> {
        let (m, a) = self.s.game.moves_made();
        let mark = self.s.mark();
        let mark_style = match mark {
            Mark::Yes => Style::new().fg(Color::Green).add_modifier(Modifier::BOLD),
            Mark::Won => Style::new().fg(Color::Green).add_modifier(Modifier::BOLD),
            Mark::No => Style::new().fg(Color::Red).add_modifier(Modifier::BOLD),
            Mark::Unknown => Style::new().fg(Color::Yellow),
            Mark::Thinking | Mark::Off => Style::new().add_modifier(Modifier::DIM),
        };
        let mark_word = match mark {
            Mark::Thinking => "…",
            m => m.word(),
        };
        Line::from(vec![
            Span::styled("castle ", Style::new().add_modifier(Modifier::BOLD)),
            Span::raw(format!(
                "{} · home {}/{} · moves {} ({a} automatic) · auto {} · winnable: ",
                self.s.title(),
                v.home(),
                v.total(),
                m + a,
                if self.s.game.auto() { "on" } else { "off" },
            )),
            Span::styled(mark_word.to_string(), mark_style),
        ])
    }

    /// The key label of a pile, reversed when it is picked.
    fn label(&self, t: Target) -> Span<'static> {
        let k = t.keys().unwrap_or_else(|| "?".to_string());
        let st = if self.selected == Some(t) {
            key_style().add_modifier(Modifier::REVERSED)
        } else {
            key_style()
        };
        Span::styled(k, st)
    }

    /// The line above the wings, in pieces (each with the pile it shows, for clicks): the
    /// reserve cells, the stock (its next card and how many are left) and the waste (its top
    /// cards, the playable one last). `None` when the game has none of them.
    fn head_line(
        &self,
        v: &View,
        movable: &HashSet<String>,
    ) -> Option<Vec<(Vec<Span<'static>>, Option<Target>)>> {
        let stock = self.s.game.rules().stock;
        if v.reserve.is_empty() && !stock {
            return None;
        }
        let dim = Style::new().add_modifier(Modifier::DIM);
        let gap = || (vec![Span::raw("   ")], None);
        let mut parts = Vec::new();
        for (k, c) in v.reserve.iter().enumerate() {
            let t = Target::Cell(k);
            let mut sp = vec![self.label(t), Span::raw(" ")];
            match c {
                Some(c) => {
                    sp.push(Span::raw("["));
                    sp.push(Span::styled(
                        face(*c),
                        self.card_style(t, true, *c, movable),
                    ));
                    sp.push(Span::raw("]"));
                }
                None => sp.push(Span::styled("[  ]", dim)),
            }
            if k > 0 {
                parts.push(gap());
            }
            parts.push((sp, Some(t)));
        }
        if stock {
            if !parts.is_empty() {
                parts.push(gap());
            }
            let mut sp = vec![self.label(Target::Stock), Span::raw(" ")];
            match v.next_stock() {
                Some(c) => {
                    sp.push(Span::raw("["));
                    sp.push(Span::styled(face(c), suit_style(c)));
                    sp.push(Span::raw(format!("] {} left", v.stock.len())));
                }
                None => sp.push(Span::styled("[  ] empty", dim)),
            }
            parts.push((sp, Some(Target::Stock)));
            parts.push(gap());
            let t = Target::Waste;
            let mut sp = vec![self.label(t), Span::raw(" ")];
            if v.waste.is_empty() {
                sp.push(Span::styled("[  ]", dim));
            } else {
                const SHOWN: usize = 5;
                let first = v.waste.len().saturating_sub(SHOWN);
                if first > 0 {
                    sp.push(Span::styled(format!("{first}… "), dim));
                }
                for (i, &c) in v.waste.iter().enumerate().skip(first) {
                    let top = i + 1 == v.waste.len();
                    if top {
                        sp.push(Span::raw("["));
                        sp.push(Span::styled(face(c), self.card_style(t, true, c, movable)));
                        sp.push(Span::raw("]"));
                    } else {
                        sp.push(Span::styled(
                            face(c),
                            suit_style(c).add_modifier(Modifier::DIM),
                        ));
                        sp.push(Span::raw(" "));
                    }
                }
            }
            parts.push((sp, Some(t)));
        }
        Some(parts)
    }

    /// The board's lines within `area`, and the screen rectangle of each pile.
    fn board_lines(&self, v: &View, area: Rect) -> (Vec<Line<'static>>, Vec<(Rect, Target)>) {
        let n = v.tableau.len();
        let (left_n, fcols, frows, rows) = grid(v);
        let center = CENTER + 5 * (fcols as u16 - 1);
        let lw = area.width.saturating_sub(center) / 2;
        let rw = area.width.saturating_sub(center + lw);
        let board = self.s.board();
        let movable: HashSet<String> = board.legal_steps().iter().map(source_name).collect();
        let head = self.head_line(v, &movable);
        let head_rows = 1 + usize::from(head.is_some());
        let height = usize::from(area.height);
        let gap = if height >= head_rows + rows * 2 { 2 } else { 1 };
        // A third of the spare rows above the board, the rest below.
        let spare = height.saturating_sub(head_rows + rows * gap);
        let mut lines = vec![Line::raw(""); spare / 3];
        let mut hits = Vec::new();
        // Reserve cells, stock and waste, centred above the wings.
        if let Some(parts) = head {
            let width: usize = parts.iter().map(|(sp, _)| width_of(sp)).sum();
            let mut x = usize::from(area.width).saturating_sub(width) / 2;
            let y = area.y + lines.len() as u16;
            let mut spans = vec![Span::raw(" ".repeat(x))];
            for (sp, t) in parts {
                let w = width_of(&sp);
                if let Some(t) = t {
                    hits.push((Rect::new(area.x + x as u16, y, w as u16, 1), t));
                }
                x += w;
                spans.extend(sp);
            }
            lines.push(Line::from(spans));
        }
        let label_y = area.y + lines.len() as u16;
        let f_at = lw + 5 + 2 * (fcols as u16 - 1);
        lines.push(Line::from(vec![
            Span::raw(" ".repeat(usize::from(f_at))),
            Span::styled("f", key_style()),
        ]));
        hits.push((Rect::new(area.x + f_at, label_y, 1, 1), Target::Foundation));
        let first_row_y = area.y + lines.len() as u16;
        for r in 0..rows {
            let y = first_row_y + (r * gap) as u16;
            let mut spans: Vec<Span<'static>> = Vec::new();
            // The left wing, right-aligned against the middle.
            if r < left_n {
                let t = Target::Pile(r);
                let pile = &v.tableau[r];
                let ps = pile_spans(pile, usize::from(lw.saturating_sub(1)), true, &|i, c| {
                    self.card_style(t, i + 1 == pile.len(), c, &movable)
                });
                let pad = usize::from(lw).saturating_sub(width_of(&ps) + 1);
                spans.push(Span::raw(" ".repeat(pad)));
                spans.extend(ps);
                spans.push(Span::raw(" "));
                spans.push(self.label(t));
                spans.push(Span::raw(" "));
                hits.push((Rect::new(area.x, y, lw + 2, 1), t));
            } else {
                spans.push(Span::raw(" ".repeat(usize::from(lw + 2))));
            }
            // The foundations of this row.
            for c in 0..fcols {
                spans.push(Span::raw(" "));
                let p = c * frows + r;
                if r >= frows || p >= v.foundations.len() {
                    spans.push(Span::raw("    "));
                    continue;
                }
                let x = area.x + lw + 3 + 5 * c as u16;
                match v.foundations[p].last() {
                    Some(&top) => {
                        let t = Target::Home(top);
                        let st = self
                            .card_style(t, true, top, &movable)
                            .add_modifier(Modifier::BOLD);
                        spans.push(Span::raw("["));
                        spans.push(Span::styled(face(top), st));
                        spans.push(Span::raw("]"));
                        hits.push((Rect::new(x, y, 4, 1), t));
                    }
                    None => {
                        let s = foundation_suit(p, v.foundations.len()).map_or(' ', |s| s.symbol());
                        spans.push(Span::styled(
                            format!("[ {s}]"),
                            Style::new().add_modifier(Modifier::DIM),
                        ));
                        hits.push((Rect::new(x, y, 4, 1), Target::Foundation));
                    }
                }
            }
            spans.push(Span::raw(" "));
            // The right wing.
            let ri = left_n + r;
            if ri < n {
                let t = Target::Pile(ri);
                let pile = &v.tableau[ri];
                spans.push(Span::raw(" "));
                spans.push(self.label(t));
                spans.push(Span::raw(" "));
                spans.extend(pile_spans(
                    pile,
                    usize::from(rw.saturating_sub(1)),
                    false,
                    &|i, c| self.card_style(t, i + 1 == pile.len(), c, &movable),
                ));
                hits.push((Rect::new(area.x + lw + center - 4, y, rw + 4, 1), t));
            }
            lines.push(Line::from(spans));
            if gap == 2 && r + 1 < rows {
                lines.push(Line::raw(""));
            }
        }
        (lines, hits)
    }

    /// A card's style: its suit's colour; under the top card dimmed; the top card bold and
    /// underlined when it can move, reversed when picked, on yellow when hinted.
    fn card_style(&self, t: Target, top: bool, c: Card, movable: &HashSet<String>) -> Style {
        let mut st = suit_style(c);
        if !top {
            return st.add_modifier(Modifier::DIM);
        }
        if movable.contains(&t.name()) {
            st = st.add_modifier(Modifier::BOLD | Modifier::UNDERLINED);
        }
        if self.selected == Some(t) {
            st = st.add_modifier(Modifier::REVERSED);
        }
        if self
            .hint
            .as_ref()
            .is_some_and(|h| source_name(h) == t.name())
        {
            st = st.bg(Color::Yellow).fg(Color::Black);
        }
        st
    }

    /// The keys of the piles this game has: (keys, what they pick).
    fn pile_keys(&self) -> Vec<(String, String)> {
        let shape = self.s.game.shape();
        let n = shape.piles.clamp(1, PILE_KEYS.len());
        let mut v = vec![(
            format!("{}..{}", PILE_KEYS[0], PILE_KEYS[n - 1]),
            format!("pick pile t1..t{n} (first the source, then the destination)"),
        )];
        if shape.cells > 0 {
            v.push((
                format!("r1..r{}", shape.cells),
                "pick a reserve cell (r, then its number)".to_string(),
            ));
        }
        if self.s.game.rules().options.foundation_return {
            v.push((
                "f".into(),
                "the foundations; as the source, a foundation card (f again: the next)".into(),
            ));
        } else {
            v.push(("f".into(), "the foundations, as the destination".into()));
        }
        if shape.stock {
            v.push(("s".into(), "deal a card from the stock to the waste".into()));
            v.push(("w".into(), "pick the waste's top card".into()));
        }
        v
    }

    /// The keys, wrapped at item boundaries to `width` columns.
    fn keys_text(&self, width: u16) -> Vec<Line<'static>> {
        let shape = self.s.game.shape();
        let n = shape.piles.clamp(1, PILE_KEYS.len());
        let mut items: Vec<(String, &str)> = vec![(
            format!("{}-{}", PILE_KEYS[0], PILE_KEYS[n - 1]),
            "pick a pile, then where to",
        )];
        if shape.cells > 0 {
            items.push((format!("r1-r{}", shape.cells), "cell"));
        }
        items.push(("f".into(), "foundation"));
        if shape.stock {
            items.push(("s".into(), "deal"));
            items.push(("w".into(), "waste"));
        }
        items.extend(
            [
                ("Enter", "best move"),
                ("u", "undo"),
                ("y", "redo"),
                ("h", "hint"),
                ("p", "show me"),
                ("a", "auto"),
                ("R", "restart"),
                ("N", "new"),
                ("S", "save"),
                ("L", "load"),
            ]
            .map(|(k, w)| (k.to_string(), w)),
        );
        if self.s.game.rules().variant.has_start_rank() {
            items.push(("<>".into(), "start rank"));
        }
        items.extend(
            [
                ("v", "variant"),
                ("Esc", "cancel"),
                ("?", "help"),
                ("q", "quit"),
            ]
            .map(|(k, w)| (k.to_string(), w)),
        );
        let width = usize::from(width.max(20));
        let mut lines = Vec::new();
        let mut spans: Vec<Span<'static>> = Vec::new();
        let mut used = 0;
        for (k, what) in items {
            let w = k.chars().count() + 1 + what.chars().count();
            if used > 0 && used + 3 + w > width {
                lines.push(Line::from(std::mem::take(&mut spans)));
                used = 0;
            }
            if used > 0 {
                spans.push(Span::raw(" · "));
                used += 3;
            }
            spans.push(Span::styled(k, key_style()));
            spans.push(Span::raw(format!(" {what}")));
            used += w;
        }
        lines.push(Line::from(spans));
        lines
    }

    fn help_text(&self) -> Vec<Line<'static>> {
        let mut rows = self.pile_keys();
        rows.extend(
            [
                (
                    "same pile / Enter",
                    "move the picked card where it does most good",
                ),
                ("Esc", "drop the pick, the hint and the message"),
                ("u  Backspace  ^Z", "undo (an automatic move counts as one)"),
                ("y  ^Y", "redo"),
                ("h", "hint: a move that keeps the deal winnable"),
                ("p", "show me: play the solver's next move"),
                ("a", "automatic safe moves to the foundations on/off"),
                ("R", "restart the deal (redo replays the game)"),
                ("N", "new game: the next deal number"),
                ("S / L", "save / load a game (solve-report JSON)"),
                ("< >", "start rank down / up, and deal again"),
                ("v", "next variant, same deal number"),
                (
                    "mouse",
                    "click a pile, then its destination; right-click: best move",
                ),
                ("q  ^C", "quit"),
            ]
            .map(|(k, t)| (k.to_string(), t.to_string())),
        );
        if !self.s.game.rules().variant.has_start_rank() {
            rows.retain(|(k, _)| k != "< >");
        }
        let mut v: Vec<Line<'static>> = rows
            .into_iter()
            .map(|(k, t)| {
                Line::from(vec![
                    Span::styled(format!("{k:>18}  "), key_style()),
                    Span::raw(t),
                ])
            })
            .collect();
        v.push(Line::raw(""));
        if self.s.game.rules().stock {
            v.push(Line::raw(
                "  an emptied pile is filled at once from the waste (or the stock): undo takes",
            ));
            v.push(Line::raw("  the fill back with the move that emptied it."));
        }
        v.push(Line::raw(
            "  winnable: yes / no come from the solver; unknown means its budget ran out.",
        ));
        v.push(Line::raw("  any key closes this help"));
        v
    }

    /// Draws the whole screen.
    pub fn draw(&mut self, f: &mut Frame) {
        let area = f.area();
        if area.width < MIN_SIZE.0 || area.height < MIN_SIZE.1 {
            f.render_widget(
                Paragraph::new(format!(
                    "castle play: the terminal is {}x{}; make it at least {}x{} (q quits)",
                    area.width, area.height, MIN_SIZE.0, MIN_SIZE.1
                ))
                .wrap(Wrap { trim: true }),
                area,
            );
            self.hits.clear();
            return;
        }
        let v = view(self.s.board());
        let mut keys_text = self.keys_text(area.width);
        // On a short screen the board comes first: the keys shrink to the help key.
        if usize::from(area.height)
            < 3 + keys_text.len() + board_rows(&v, self.s.game.rules().stock)
        {
            keys_text = vec![Line::from(vec![
                Span::styled("?", key_style()),
                Span::raw(" keys · "),
                Span::styled("q", key_style()),
                Span::raw(" quit"),
            ])];
        }
        let [top, board, msg, keys] = Layout::vertical([
            Constraint::Length(2),
            Constraint::Min(4),
            Constraint::Length(1),
            Constraint::Length(keys_text.len() as u16),
        ])
        .areas(area);
        f.render_widget(
            Paragraph::new(self.status(&v)).wrap(Wrap { trim: true }),
            top,
        );
        let (lines, hits) = self.board_lines(&v, board);
        self.hits = hits;
        f.render_widget(Paragraph::new(lines), board);
        let message = match &self.prompt {
            Some(Prompt::Save(t)) => Line::from(vec![
                Span::styled("save to: ", key_style()),
                Span::raw(t.clone()),
                Span::styled("█", Style::new().add_modifier(Modifier::SLOW_BLINK)),
                Span::raw("  (Enter saves, Esc cancels)"),
            ]),
            Some(Prompt::Load(t)) => Line::from(vec![
                Span::styled("load from: ", key_style()),
                Span::raw(t.clone()),
                Span::styled("█", Style::new().add_modifier(Modifier::SLOW_BLINK)),
                Span::raw("  (Enter loads, Esc cancels)"),
            ]),
            None => match &self.message {
                Some((m, true)) => Line::styled(m.clone(), Style::new().fg(Color::Red)),
                Some((m, false)) => Line::raw(m.clone()),
                None => Line::raw(""),
            },
        };
        f.render_widget(Paragraph::new(message), msg);
        f.render_widget(Paragraph::new(keys_text), keys);
        if self.help {
            let text = self.help_text();
            let h = (text.len() as u16 + 2).min(area.height);
            let w = 84.min(area.width);
            let r = Rect::new(
                area.x + (area.width - w) / 2,
                area.y + (area.height - h) / 2,
                w,
                h,
            );
            f.render_widget(Clear, r);
            f.render_widget(
                Paragraph::new(text).block(Block::default().borders(Borders::ALL).title(" keys ")),
                r,
            );
        }
    }

    /// Runs the event loop on `terminal` until the player quits.
    ///
    /// # Errors
    /// A terminal failure.
    pub fn event_loop<B: Backend>(&mut self, terminal: &mut Terminal<B>) -> io::Result<()> {
        let mut dirty = true;
        while !self.quit {
            dirty |= self.tick();
            if dirty {
                terminal.draw(|f| self.draw(f))?;
                dirty = false;
            }
            if event::poll(Duration::from_millis(100))? {
                match event::read()? {
                    Event::Key(k) => self.key(k),
                    Event::Mouse(m) => self.mouse(m),
                    _ => {}
                }
                dirty = true;
            }
        }
        Ok(())
    }
}

fn restore() -> io::Result<()> {
    disable_raw_mode()?;
    execute!(io::stdout(), DisableMouseCapture, LeaveAlternateScreen)
}

/// Plays `s` full-screen on the terminal, and puts the terminal back afterwards (also after
/// a panic).
///
/// # Errors
/// A terminal failure.
pub fn run(s: Session) -> io::Result<()> {
    let worker = s.coach.solver().map(|&solver| Worker::spawn(solver));
    enable_raw_mode()?;
    let mut stdout = io::stdout();
    if let Err(e) = execute!(stdout, EnterAlternateScreen, EnableMouseCapture) {
        let _ = restore();
        return Err(e);
    }
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let _ = restore();
        hook(info);
    }));
    let result = Terminal::new(CrosstermBackend::new(stdout)).and_then(|mut terminal| {
        let r = App::new(s, worker).event_loop(&mut terminal);
        let _ = terminal.show_cursor();
        r
    });
    restore()?;
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::play::coach::{coach_solver, Coach};
    use crate::play::game::Game;
    use crate::Deal;
    use ratatui::backend::TestBackend;

    fn screen(app: &mut App, w: u16, h: u16) -> String {
        let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
        t.draw(|f| app.draw(f)).unwrap();
        let buf = t.backend().buffer().clone();
        let mut s = String::new();
        for y in 0..h {
            for x in 0..w {
                s.push_str(buf[(x, y)].symbol());
            }
            s.push('\n');
        }
        s
    }

    fn app(seed: u64) -> App {
        app_of(crate::Variant::BeleagueredCastle, seed)
    }

    fn app_of(v: crate::Variant, seed: u64) -> App {
        let deal = Deal::from_seed(v.rules(), seed);
        let s = Session::new(
            Game::new(deal, false),
            Coach::new(coach_solver(100_000, None)),
            Some(100_000),
        );
        App::new(s, None)
    }

    fn press(app: &mut App, c: char) {
        app.key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE));
    }

    /// Presses the keys that pick `t` (`r` then `1` for a cell).
    fn pick(app: &mut App, t: Target) {
        for c in t.keys().unwrap().chars() {
            press(app, c);
        }
    }

    fn click(app: &mut App, t: Target, button: MouseButton) {
        let (r, _) = *app.hits.iter().find(|(_, h)| *h == t).unwrap();
        app.mouse(MouseEvent {
            kind: MouseEventKind::Down(button),
            column: r.x + r.width / 2,
            row: r.y,
            modifiers: KeyModifiers::NONE,
        });
    }

    #[test]
    fn the_screen_shows_the_wings_the_foundations_and_the_keys() {
        let mut a = app(42);
        let text = screen(&mut a, 100, 24);
        assert!(text.contains("[A♣]"), "{text}");
        assert!(text.contains("[A♠]"));
        assert!(text.contains("undo"));
        assert!(text.contains("winnable:"));
        // Every top card is on the screen; narrow screens squeeze the piles but keep them.
        for p in &a.session().board().tableau {
            assert!(text.contains(&face(*p.last().unwrap())));
        }
        let narrow = screen(&mut a, 60, 24);
        for p in &a.session().board().tableau {
            assert!(narrow.contains(&face(*p.last().unwrap())), "{narrow}");
        }
    }

    #[test]
    fn keys_move_cards_and_illegal_moves_change_nothing() {
        let mut a = app(42);
        let legal = a.session().board().legal_steps();
        let s = legal.iter().find(|s| s.to != "f").unwrap().clone();
        let shape = a.session().game.shape();
        pick(&mut a, Target::parse(&s.from, shape).unwrap());
        pick(&mut a, Target::parse(&s.to, shape).unwrap());
        assert_eq!(a.session().game.history().len(), 1);
        press(&mut a, 'u');
        assert_eq!(a.session().game.history().len(), 0);
        press(&mut a, 'y');
        assert_eq!(a.session().game.history().len(), 1);
        // An illegal pair: a pile onto one whose top is not one rank higher.
        let board = a.session().board().clone();
        let bad = (0..8)
            .flat_map(|i| (0..8).map(move |j| (i, j)))
            .find(|&(i, j)| {
                i != j
                    && !board.tableau[i].is_empty()
                    && !board
                        .legal_steps()
                        .iter()
                        .any(|s| s.from == Target::Pile(i).name() && s.to == Target::Pile(j).name())
            })
            .unwrap();
        pick(&mut a, Target::Pile(bad.0));
        pick(&mut a, Target::Pile(bad.1));
        assert_eq!(a.session().board(), &board);
        assert!(a.message.as_ref().unwrap().1, "an error is shown");
        press(&mut a, 'q');
        assert!(a.quitting());
    }

    #[test]
    fn a_click_picks_the_pile_under_it() {
        let mut a = app(42);
        let _ = screen(&mut a, 100, 24);
        for i in 0..8 {
            click(&mut a, Target::Pile(i), MouseButton::Left);
            assert_eq!(a.selected, Some(Target::Pile(i)));
            a.key(KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE));
            assert_eq!(a.selected, None);
        }
        // The foundations are no source without foundation return.
        click(&mut a, Target::Foundation, MouseButton::Left);
        assert_eq!(a.selected, None);
        assert!(a.message.as_ref().unwrap().1);
    }

    #[test]
    fn castile_shows_its_cells_and_r_then_a_number_picks_one() {
        let mut a = app_of(crate::Variant::Castile, 2);
        let text = screen(&mut a, 100, 24);
        let v = view(a.session().board());
        for c in v.reserve.iter().flatten() {
            assert!(text.contains(&format!("[{}]", face(*c))), "{text}");
        }
        assert!(text.contains("r1") && text.contains("r2") && text.contains(" cell"));
        assert!(!text.contains("start rank"), "{text}");
        for p in &v.tableau {
            assert!(text.contains(&face(*p.last().unwrap())), "{text}");
        }
        // Both cells are full: t1 to r1 is refused, and the board stays.
        let board = a.session().board().clone();
        pick(&mut a, Target::Pile(0));
        pick(&mut a, Target::Cell(0));
        assert_eq!(a.session().board(), &board);
        assert!(a.message.as_ref().unwrap().0.contains("already holds"));
        // A cell card that can move goes by `r` and its number, then a destination.
        let s = board
            .legal_steps()
            .into_iter()
            .find(|s| s.from.starts_with('r'))
            .unwrap();
        let shape = a.session().game.shape();
        pick(&mut a, Target::parse(&s.from, shape).unwrap());
        assert!(a.selected.is_some());
        pick(&mut a, Target::parse(&s.to, shape).unwrap());
        assert_eq!(a.session().game.history()[0].step, s);
        // `r` then a cell that does not exist.
        press(&mut a, 'r');
        press(&mut a, '7');
        assert!(a.message.as_ref().unwrap().0.contains("no cell r7"));
        // Clicks on the cells' line pick them.
        let _ = screen(&mut a, 100, 24);
        let full = (0..2)
            .find(|&k| a.session().board().reserve[k].is_some())
            .unwrap();
        click(&mut a, Target::Cell(full), MouseButton::Left);
        assert_eq!(a.selected, Some(Target::Cell(full)));
    }

    #[test]
    fn courtyard_shows_stock_waste_and_eight_foundations_and_s_deals() {
        let mut a = app_of(crate::Variant::Courtyard, 1);
        let text = screen(&mut a, 100, 24);
        let next = a.session().board().stock[0];
        assert!(
            text.contains(&format!("[{}] 92 left", face(next))),
            "{text}"
        );
        // Eight empty foundations in two columns, and an empty waste.
        assert_eq!(text.matches("[  ]").count(), 9, "{text}");
        assert!(text.contains(" deal") && text.contains(" waste"));
        press(&mut a, 's');
        assert_eq!(a.session().board().waste, vec![next]);
        let text = screen(&mut a, 100, 24);
        assert!(text.contains("91 left"), "{text}");
        // A click on the stock deals too.
        click(&mut a, Target::Stock, MouseButton::Left);
        assert_eq!(a.session().board().waste.len(), 2);
        // `w` picks the waste; a pile it does not fit refuses it and nothing changes.
        let board = a.session().board().clone();
        press(&mut a, 'w');
        assert_eq!(a.selected, Some(Target::Waste));
        let top = *board.waste.last().unwrap();
        let j = (0..12)
            .find(|&j| {
                board.tableau[j]
                    .last()
                    .is_some_and(|&c| !board.rules().builds_on(top, c))
            })
            .unwrap();
        pick(&mut a, Target::Pile(j));
        assert_eq!(a.session().board(), &board);
        // The stock is no destination.
        pick(&mut a, Target::Pile(0));
        press(&mut a, 's');
        assert_eq!(
            a.session().board().waste.len(),
            3,
            "s deals whatever is picked"
        );
        // A sending home that empties a pile is filled at once.
        let before = a.session().game.history().len();
        if let Some(s) = a
            .session()
            .board()
            .legal_steps()
            .into_iter()
            .find(|s| s.to == "f" && s.from.starts_with('t'))
        {
            let from = Target::parse(&s.from, a.session().game.shape()).unwrap();
            let alone = a.session().board().tableau[match from {
                Target::Pile(i) => i,
                _ => unreachable!(),
            }]
            .len()
                == 1;
            pick(&mut a, from);
            press(&mut a, 'f');
            let h = a.session().game.history();
            assert!(h.len() > before);
            if alone {
                assert!(h.iter().any(|e| e.auto && e.step.from == "w"));
            }
        }
    }

    #[test]
    fn every_variant_draws_and_v_cycles_through_all_six() {
        let mut a = app(1);
        let mut seen = Vec::new();
        for _ in 0..6 {
            let v = a.session().game.rules().variant;
            seen.push(v);
            for (w, h) in [(100, 30), (60, 20)] {
                let text = screen(&mut a, w, h);
                assert!(text.contains("winnable"), "{v} {w}x{h}: {text}");
                for p in &a.session().board().tableau {
                    assert!(
                        text.contains(&face(*p.last().unwrap())),
                        "{v} {w}x{h}: {text}"
                    );
                }
            }
            let _ = screen(&mut a, MIN_SIZE.0, MIN_SIZE.1);
            press(&mut a, '<');
            press(&mut a, 'v');
        }
        assert_eq!(seen, crate::Variant::ALL);
        assert_eq!(
            a.session().game.rules().variant,
            crate::Variant::BeleagueredCastle
        );
    }

    #[test]
    fn foundation_return_picks_a_foundation_card_with_f() {
        let rules = crate::Variant::Fortress
            .rules()
            .with_foundation_return(true);
        let text = "variant: fortress\nfoundations: QC QD QH 9S\nt1: KC\nt2: KD\nt3: KH JS\nt4: KS TS QS\nt5:\nt6:\nt7:\nt8:\nt9:\nt10:\n";
        let mut deal = crate::formats::read_deal(text, "test", Default::default()).unwrap();
        deal.rules = rules;
        let s = Session::new(Game::new(deal, true), Coach::new(None), None);
        let mut a = App::new(s, None);
        assert!(a.session().game.history().is_empty(), "no automatic moves");
        press(&mut a, 'f');
        let Some(Target::Home(first)) = a.selected else {
            panic!("{:?}", a.selected)
        };
        press(&mut a, 'f');
        let Some(Target::Home(second)) = a.selected else {
            panic!("{:?}", a.selected)
        };
        assert_ne!(first, second);
        // QC goes back onto KC: pick it by cycling, then t1.
        while a.selected != Some(Target::Home("QC".parse().unwrap())) {
            press(&mut a, 'f');
        }
        pick(&mut a, Target::Pile(0));
        assert_eq!(a.session().board().tableau[0].len(), 2);
        let _ = screen(&mut a, 100, 24);
        click(
            &mut a,
            Target::Home("QD".parse().unwrap()),
            MouseButton::Left,
        );
        assert_eq!(a.selected, Some(Target::Home("QD".parse().unwrap())));
    }

    #[test]
    fn hint_waits_for_the_coach_and_then_answers() {
        let mut a = app(42);
        let s = coach_solver(100_000, None).unwrap();
        a.worker = Some(Worker::spawn(s));
        press(&mut a, 'h');
        let t0 = std::time::Instant::now();
        while !a.message.as_ref().is_some_and(|m| m.0.starts_with("hint")) {
            a.tick();
            assert!(t0.elapsed().as_secs() < 60, "the coach never answered");
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}
