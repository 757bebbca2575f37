//! The full-screen board (ratatui on crossterm), laid out as the seed games lay it out: the
//! foundations in a middle column and the tableau piles as wings on both sides, each wing's
//! top card on the outside. Suits in colour, the cards that can move in bold and underlined,
//! the selected card reversed, the hinted card on yellow, a status line with the score and
//! the "winnable?" mark, a message line, and the keys at the bottom.
//!
//! The coach runs in a background [`Worker`]: the screen never waits for it. Hint and "show
//! me" asked before it has decided wait for its answer and then happen by themselves.

use super::coach::{Mark, Worker};
use super::game::{foundation_suit, view, Target, View, PILE_KEYS};
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
    /// twice moves its card where it does most good.
    fn pick(&mut self, t: Target) {
        match self.selected {
            None => {
                if t == Target::Foundation {
                    self.say(
                        "pick a pile first (cards on the foundations stay there)",
                        true,
                    );
                } else if let Target::Pile(i) = t {
                    if view(self.s.board())
                        .tableau
                        .get(i)
                        .is_some_and(Vec::is_empty)
                    {
                        self.say(format!("{} is empty", t.name()), true);
                    } else {
                        self.selected = Some(t);
                        self.say(format!("{} picked: now its destination", t.name()), false);
                    }
                }
            }
            Some(src) if src == t => self.act(Action::Quick(src)),
            Some(src) => self.act(Action::Move(src, t)),
        }
    }

    fn rank_step(&mut self, up: bool) {
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
        let piles = view(self.s.board()).tableau.len();
        match k.code {
            KeyCode::Char('c') if ctrl => self.quit = true,
            KeyCode::Char('z') if ctrl => self.act(Action::Undo),
            KeyCode::Char('y') if ctrl => self.act(Action::Redo),
            KeyCode::Char('q') => self.quit = true,
            KeyCode::Esc => {
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
            KeyCode::Char(c) => match Target::of_key(c, piles) {
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
            (Some(t @ Target::Pile(_)), MouseButton::Right) => self.act(Action::Quick(t)),
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

    /// The board's lines within `area`, and the screen rectangle of each pile.
    fn board_lines(&self, v: &View, area: Rect) -> (Vec<Line<'static>>, Vec<(Rect, Target)>) {
        let n = v.tableau.len();
        let left_n = n.div_ceil(2);
        let rows = left_n.max(v.foundations.len()).max(1);
        let lw = area.width.saturating_sub(CENTER) / 2;
        let rw = area.width.saturating_sub(CENTER + lw);
        let extras = !v.reserve.is_empty() || !v.stock.is_empty() || !v.waste.is_empty();
        let head = 1 + usize::from(extras);
        let height = usize::from(area.height);
        let gap = if height >= head + rows * 2 { 2 } else { 1 };
        // A third of the spare rows above the board, the rest below.
        let spare = height.saturating_sub(head + rows * gap);
        let mut lines = vec![Line::raw(""); spare / 3];
        let mut hits = Vec::new();
        // Reserve cells, stock and waste (none in the variants built so far) above the wings.
        if extras {
            let mut spans = Vec::new();
            for (i, c) in v.reserve.iter().enumerate() {
                spans.push(Span::styled(format!("r{} ", i + 1), key_style()));
                spans.push(match c {
                    Some(c) => Span::styled(format!("[{}] ", face(*c)), suit_style(*c)),
                    None => Span::raw("[  ] "),
                });
            }
            if !v.stock.is_empty() || !v.waste.is_empty() {
                spans.push(Span::raw(format!("stock {} ", v.stock.len())));
                if let Some(&c) = v.waste.last() {
                    spans.push(Span::raw("waste "));
                    spans.push(Span::styled(face(c), suit_style(c)));
                }
            }
            lines.push(Line::from(spans));
        }
        lines.push(Line::from(vec![
            Span::raw(" ".repeat(usize::from(lw + 3))),
            Span::styled("  f", key_style()),
        ]));
        let board = self.s.board();
        let movable: HashSet<String> = board.legal_steps().into_iter().map(|s| s.from).collect();
        let first_row_y = area.y + lines.len() as u16;
        let label = |t: Target| -> Span<'static> {
            let k = t.key().map_or("?".to_string(), |c| c.to_string());
            let st = if self.selected == Some(t) {
                key_style().add_modifier(Modifier::REVERSED)
            } else {
                key_style()
            };
            Span::styled(k, st)
        };
        for r in 0..rows {
            let y = first_row_y + (r * gap) as u16;
            let mut spans: Vec<Span<'static>> = Vec::new();
            // The left wing, right-aligned against the middle.
            if r < left_n {
                let t = Target::Pile(r);
                let pile = &v.tableau[r];
                let ps = pile_spans(pile, usize::from(lw.saturating_sub(1)), true, &|i, c| {
                    self.card_style(t, pile, i, c, &movable)
                });
                let pad = usize::from(lw).saturating_sub(width_of(&ps) + 1);
                spans.push(Span::raw(" ".repeat(pad)));
                spans.extend(ps);
                spans.push(Span::raw(" "));
                spans.push(label(t));
                spans.push(Span::raw(" "));
                hits.push((Rect::new(area.x, y, lw + 2, 1), t));
            } else {
                spans.push(Span::raw(" ".repeat(usize::from(lw + 2))));
            }
            // The foundation of this row.
            spans.push(Span::raw(" "));
            match v.foundations.get(r) {
                Some(f) => match f.last() {
                    Some(&c) => {
                        spans.push(Span::raw("["));
                        spans.push(Span::styled(
                            face(c),
                            suit_style(c).add_modifier(Modifier::BOLD),
                        ));
                        spans.push(Span::raw("]"));
                    }
                    None => {
                        let s = foundation_suit(r, v.foundations.len()).map_or(' ', |s| s.symbol());
                        spans.push(Span::styled(
                            format!("[ {s}]"),
                            Style::new().add_modifier(Modifier::DIM),
                        ));
                    }
                },
                None => spans.push(Span::raw("    ")),
            }
            spans.push(Span::raw(" "));
            // The right wing.
            let ri = left_n + r;
            if ri < n {
                let t = Target::Pile(ri);
                let pile = &v.tableau[ri];
                spans.push(Span::raw(" "));
                spans.push(label(t));
                spans.push(Span::raw(" "));
                spans.extend(pile_spans(
                    pile,
                    usize::from(rw.saturating_sub(1)),
                    false,
                    &|i, c| self.card_style(t, pile, i, c, &movable),
                ));
                hits.push((Rect::new(area.x + lw + 8, y, rw + 4, 1), t));
            }
            lines.push(Line::from(spans));
            if gap == 2 && r + 1 < rows {
                lines.push(Line::raw(""));
            }
        }
        let frows = v.foundations.len().max(1);
        hits.push((
            Rect::new(
                area.x + lw + 2,
                first_row_y.saturating_sub(1),
                6,
                (frows * gap) as u16 + 1,
            ),
            Target::Foundation,
        ));
        (lines, hits)
    }

    fn card_style(
        &self,
        t: Target,
        pile: &[Card],
        i: usize,
        c: Card,
        movable: &HashSet<String>,
    ) -> Style {
        let top = i + 1 == pile.len();
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
        if self.hint.as_ref().is_some_and(|h| h.from == t.name()) {
            st = st.bg(Color::Yellow).fg(Color::Black);
        }
        st
    }

    /// The keys, wrapped at item boundaries to `width` columns.
    fn keys_text(&self, width: u16) -> Vec<Line<'static>> {
        let n = view(self.s.board()).tableau.len().clamp(1, PILE_KEYS.len());
        let piles = format!("{}-{}", PILE_KEYS[0], PILE_KEYS[n - 1]);
        let items: [(&str, &str); 17] = [
            (&piles, "pick a pile, then where to"),
            ("f", "foundation"),
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
            ("<>", "start rank"),
            ("v", "variant"),
            ("Esc", "cancel"),
            ("?", "help"),
            ("q", "quit"),
        ];
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
            spans.push(Span::styled(k.to_string(), key_style()));
            spans.push(Span::raw(format!(" {what}")));
            used += w;
        }
        lines.push(Line::from(spans));
        lines
    }

    fn help_text(&self) -> Vec<Line<'static>> {
        let n = view(self.s.board()).tableau.len().clamp(1, PILE_KEYS.len());
        let rows = [
            (
                format!("{}..{}", PILE_KEYS[0], PILE_KEYS[n - 1]),
                "pick pile t1..t".to_string()
                    + &n.to_string()
                    + " (first the source, then the destination)",
            ),
            ("f".into(), "the foundations, as a destination".into()),
            (
                "same pile / Enter".into(),
                "move the picked card where it does most good".into(),
            ),
            (
                "Esc".into(),
                "drop the pick, the hint and the message".into(),
            ),
            (
                "u  Backspace  ^Z".into(),
                "undo (an automatic move counts as one)".into(),
            ),
            ("y  ^Y".into(), "redo".into()),
            (
                "h".into(),
                "hint: a move that keeps the deal winnable".into(),
            ),
            ("p".into(), "show me: play the solver's next move".into()),
            (
                "a".into(),
                "automatic safe moves to the foundations on/off".into(),
            ),
            (
                "R".into(),
                "restart the deal (redo replays the game)".into(),
            ),
            ("N".into(), "new game: the next deal number".into()),
            (
                "S / L".into(),
                "save / load a game (solve-report JSON)".into(),
            ),
            ("< >".into(), "start rank down / up, and deal again".into()),
            ("v".into(), "next variant, same deal number".into()),
            (
                "mouse".into(),
                "click a pile, then its destination; right-click: best move".into(),
            ),
            ("q  ^C".into(), "quit".into()),
        ];
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
        let keys_text = self.keys_text(area.width);
        let [top, board, msg, keys] = Layout::vertical([
            Constraint::Length(2),
            Constraint::Min(4),
            Constraint::Length(1),
            Constraint::Length(keys_text.len() as u16),
        ])
        .areas(area);
        let v = view(self.s.board());
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
        let deal = Deal::from_seed(crate::Variant::BeleagueredCastle.rules(), seed);
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
        let from = Target::parse(&s.from, 8).unwrap().key().unwrap();
        let to = Target::parse(&s.to, 8).unwrap().key().unwrap();
        press(&mut a, from);
        press(&mut a, to);
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
        press(&mut a, Target::Pile(bad.0).key().unwrap());
        press(&mut a, Target::Pile(bad.1).key().unwrap());
        assert_eq!(a.session().board(), &board);
        assert!(a.message.as_ref().unwrap().1, "an error is shown");
        press(&mut a, 'q');
        assert!(a.quitting());
    }

    #[test]
    fn a_click_picks_the_pile_under_it() {
        let mut a = app(42);
        let _ = screen(&mut a, 100, 24);
        let (r, t) = a.hits[0];
        a.mouse(MouseEvent {
            kind: MouseEventKind::Down(MouseButton::Left),
            column: r.x + 1,
            row: r.y,
            modifiers: KeyModifiers::NONE,
        });
        assert_eq!(a.selected, Some(t));
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
