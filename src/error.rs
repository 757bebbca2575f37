//! The error of the library's commands ([`Error`]): what `verify`, `batch`, `bench`, `stats`,
//! `analyze` and the renderers can fail with, and how the command-line tool tells bad input
//! (exit 2) and a closed pipe (success) from a failure (exit 1).

use crate::solver::SolveError;

/// What a command of the library can fail with.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Bad input: a file, card or flag at fault (exit code 2).
    #[error(transparent)]
    Input(#[from] InputError),
    /// A solve that could not return its outcome (a bug; see [`SolveError`]).
    #[error(transparent)]
    Solve(#[from] SolveError),
    /// Writing the output failed (a closed pipe is the reader's choice, not a failure).
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// Writing JSON failed.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    /// Writing a CSV file failed (the message names the file; `source` says why).
    #[error("{path}: cannot write CSV")]
    Csv {
        /// The file.
        path: String,
        /// What went wrong.
        source: csv::Error,
    },
    /// Drawing or writing a picture (`stats --plot`) failed.
    #[error("{path}: cannot draw the picture: {message}")]
    Plot {
        /// The file.
        path: String,
        /// What went wrong.
        message: String,
    },
    /// Reading standard input failed.
    #[error("reading standard input")]
    Stdin(#[source] std::io::Error),
    /// A certificate of a lost deal could not be built (an internal error) or written.
    #[error("certificate: {0}")]
    Certificate(String),
}

impl Error {
    /// True for bad input (the command-line tool exits with code 2).
    pub fn is_input(&self) -> bool {
        matches!(self, Error::Input(_))
    }

    /// True when the output's reader went away (`castle solve ... | head`): not a failure.
    pub fn is_broken_pipe(&self) -> bool {
        let pipe = |k: Option<std::io::ErrorKind>| k == Some(std::io::ErrorKind::BrokenPipe);
        match self {
            Error::Io(e) => pipe(Some(e.kind())),
            Error::Json(e) => pipe(e.io_error_kind()),
            Error::Csv { source, .. } => match source.kind() {
                csv::ErrorKind::Io(e) => pipe(Some(e.kind())),
                _ => false,
            },
            _ => false,
        }
    }
}

/// Where bad input came from: a file, standard input, or text handed to the library with a
/// label of its own (`<bytes>`, a test's name).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// A file, by the path given.
    File(std::path::PathBuf),
    /// Standard input, written `<stdin>`.
    Stdin,
    /// In-memory text, by its label (written as given, like `<bytes>`).
    Text(String),
}

impl Origin {
    /// The origin a label stands for: `<stdin>` and `-` are standard input, another label in
    /// angle brackets (`<bytes>`) is in-memory text, anything else a file's path. The library's
    /// readers take such labels (`origin: &str`) and name them in messages.
    pub fn of_label(label: &str) -> Origin {
        match label {
            "<stdin>" | "-" => Origin::Stdin,
            _ if label.starts_with('<') && label.ends_with('>') => Origin::Text(label.to_string()),
            _ => Origin::File(label.into()),
        }
    }
}

impl From<&str> for Origin {
    fn from(label: &str) -> Origin {
        Origin::of_label(label)
    }
}

impl From<&String> for Origin {
    fn from(label: &String) -> Origin {
        Origin::of_label(label)
    }
}

impl From<&std::path::Path> for Origin {
    fn from(path: &std::path::Path) -> Origin {
        if path.as_os_str() == "-" {
            Origin::Stdin
        } else {
            Origin::File(path.to_path_buf())
        }
    }
}

impl From<&std::path::PathBuf> for Origin {
    fn from(path: &std::path::PathBuf) -> Origin {
        Origin::from(path.as_path())
    }
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Origin::File(p) => write!(f, "{}", p.display()),
            Origin::Stdin => f.write_str("<stdin>"),
            Origin::Text(label) => f.write_str(label),
        }
    }
}

/// What is wrong with a piece of input ([`InputError::kind`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum InputKind {
    /// A deal: its layout, its card counts, a missing pile, a deal that cannot be dealt.
    Deal,
    /// A token that is not a card (or a card where none fits).
    Card,
    /// A name that is not a pile (or not one of this board).
    Pile,
    /// A move that cannot be read, or that the rules refuse (a report, a typed line, a save).
    Move,
    /// A variant, a rule option or a deal numbering.
    Rules,
    /// Seed ranges and shards.
    Seeds,
    /// A document that is not what it should be: a solve report, batch rows, a saved game, an
    /// index of tables, fc-solve's output.
    Report,
    /// Bytes that are not UTF-8 text, or too many of them.
    Text,
    /// A file that cannot be read, written, locked or created.
    File,
    /// Options that do not go together, or a value out of range.
    Usage,
}

/// Bad input from a person or a file: what is wrong ([`InputKind`]), where (the [`Origin`]
/// and line, where known) and the message, plus the command-line flag it came in by, which
/// only the command line adds ([`InputError::with_flag`]). The command-line tool exits with
/// code 2 for these.
///
/// It reads `FLAG ORIGIN: line N: MESSAGE`, each part present or not:
///
/// ```
/// use castle::{InputError, InputKind};
/// let e = InputError::new(InputKind::Card, "`1X` is not a card").at("deal.txt").on_line(3);
/// assert_eq!(e.to_string(), "deal.txt: line 3: `1X` is not a card");
/// let e = InputError::new(InputKind::Seeds, "the range is empty").with_flag("--seeds");
/// assert_eq!(e.to_string(), "--seeds: the range is empty");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputError {
    /// What is wrong.
    pub kind: InputKind,
    /// The file or stream at fault, if the input came from one.
    pub origin: Option<Origin>,
    /// The 1-based line at fault, where known.
    pub line: Option<usize>,
    /// The command-line flag (and its value, like `--plot out.png`) the input came in by:
    /// added by the command line, never by the library.
    pub flag: Option<String>,
    /// What is wrong, in words (without the origin, line or flag).
    pub message: String,
}

impl InputError {
    /// An error of `kind` saying `message`, with no origin or line.
    pub fn new(kind: InputKind, message: impl Into<String>) -> InputError {
        InputError {
            kind,
            origin: None,
            line: None,
            flag: None,
            message: message.into(),
        }
    }

    /// The same error, from `origin` (a label as the readers take them, a path, an
    /// [`Origin`]).
    #[must_use]
    pub fn at(mut self, origin: impl Into<Origin>) -> InputError {
        self.origin = Some(origin.into());
        self
    }

    /// The same error, at 1-based line `line`.
    #[must_use]
    pub fn on_line(mut self, line: usize) -> InputError {
        self.line = Some(line);
        self
    }

    /// The same error, as the value of command-line flag `flag` (the command line's context;
    /// a flag already named is kept).
    #[must_use]
    pub fn with_flag(mut self, flag: impl Into<String>) -> InputError {
        if self.flag.is_none() {
            self.flag = Some(flag.into());
        }
        self
    }

    /// The same error with its message changed by `f` (say, to add a hint).
    #[must_use]
    pub fn map_message(mut self, f: impl FnOnce(String) -> String) -> InputError {
        self.message = f(self.message);
        self
    }
}

impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut head = false;
        if let Some(flag) = &self.flag {
            f.write_str(flag)?;
            head = true;
        }
        if let Some(origin) = &self.origin {
            if head {
                f.write_str(" ")?;
            }
            write!(f, "{origin}")?;
            head = true;
        }
        if let Some(line) = self.line {
            if head {
                f.write_str(": ")?;
            }
            write!(f, "line {line}")?;
            head = true;
        }
        if head {
            f.write_str(": ")?;
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for InputError {}

impl From<crate::pile::PileError> for InputError {
    fn from(e: crate::pile::PileError) -> InputError {
        InputError::new(InputKind::Pile, e.to_string())
    }
}

impl From<crate::card::CardParseError> for InputError {
    fn from(e: crate::card::CardParseError) -> InputError {
        InputError::new(InputKind::Card, e.to_string())
    }
}

impl From<crate::rules::OptionError> for InputError {
    fn from(e: crate::rules::OptionError) -> InputError {
        InputError::new(InputKind::Rules, e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::{read_deal, write_text, ReadOptions};
    use crate::{Deal, Variant};

    /// A deal file with a bad card on its third line: the error carries the file, line 3
    /// and the card kind, and prints them as the command line always has.
    #[test]
    fn a_bad_card_names_the_file_the_line_and_the_kind() {
        let text = write_text(&Deal::from_seed(Variant::BeleagueredCastle.rules(), 1));
        let mut lines: Vec<String> = text.lines().map(String::from).collect();
        assert!(lines[2].starts_with("seed:"), "{}", lines[2]);
        // Line 3 of the file: a pile with a token that is no card.
        lines[2] = "t1: KS 1X QS".to_string();
        lines.retain(|l| !l.starts_with("t1: ") || l.contains("1X"));
        let e = read_deal(&lines.join("\n"), "deals/one.txt", ReadOptions::default()).unwrap_err();
        assert_eq!(e.kind, InputKind::Card);
        assert_eq!(e.origin, Some(Origin::File("deals/one.txt".into())));
        assert_eq!(e.line, Some(3));
        assert_eq!(e.flag, None);
        assert!(e.message.contains("1X"), "{}", e.message);
        assert_eq!(
            e.to_string(),
            format!("deals/one.txt: line 3: {}", e.message)
        );
    }

    #[test]
    fn origins_come_from_labels_and_paths() {
        assert_eq!(Origin::of_label("<stdin>"), Origin::Stdin);
        assert_eq!(Origin::of_label("-"), Origin::Stdin);
        assert_eq!(
            Origin::of_label("<bytes>"),
            Origin::Text("<bytes>".to_string())
        );
        assert_eq!(Origin::of_label("a.json"), Origin::File("a.json".into()));
        assert_eq!(Origin::from(std::path::Path::new("-")), Origin::Stdin);
        for o in ["<stdin>", "<bytes>", "a.json"] {
            assert_eq!(Origin::of_label(o).to_string(), o);
        }
    }

    /// Each part is written only when present: flag, origin, line, message.
    #[test]
    fn reads_flag_origin_line_message() {
        let e = || InputError::new(InputKind::Move, "move 1 is illegal");
        assert_eq!(e().to_string(), "move 1 is illegal");
        assert_eq!(e().on_line(4).to_string(), "line 4: move 1 is illegal");
        assert_eq!(
            e().with_flag("--after").to_string(),
            "--after: move 1 is illegal"
        );
        assert_eq!(
            e().at("<stdin>").on_line(2).to_string(),
            "<stdin>: line 2: move 1 is illegal"
        );
        assert_eq!(
            e().at("out.svg").with_flag("--plot").to_string(),
            "--plot out.svg: move 1 is illegal"
        );
        // The first flag named stays.
        let twice = e().with_flag("--after").with_flag("--seeds");
        assert_eq!(twice.flag.as_deref(), Some("--after"));
        // Typed errors of the parts keep their kind.
        let p: InputError = "x9".parse::<crate::pile::Pile>().unwrap_err().into();
        assert_eq!(p.kind, InputKind::Pile);
        let c: InputError = "1X".parse::<crate::Card>().unwrap_err().into();
        assert_eq!(c.kind, InputKind::Card);
    }
}
