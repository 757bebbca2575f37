//! The error of the library's commands ([`Error`]): what `verify`, `batch`, `bench`, `stats`,
//! `analyze` and the renderers can fail with, and how the command-line tool tells bad input
//! (exit 2) and a closed pipe (success) from a failure (exit 1).

use crate::solver::SolveError;
use crate::InputError;

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
