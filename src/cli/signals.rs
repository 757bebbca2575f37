//! Ctrl-C and SIGTERM for `castle batch` and `castle solve`: a flag the batch looks at between
//! rows, so that it stops with every row written whole and says how to go on, and that ends a
//! solve's search `unknown` (stopped), a layered search on disk keeping its last checkpoint. The handlers only store to
//! atomics (signal-hook's `flag` module); a second signal ends the process at once (the rows
//! are flushed one by one, so a batch resumes from there too).

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

/// The interrupt flag and which signal set it.
#[derive(Debug, Default)]
pub struct Interrupt {
    /// Set by the first SIGINT or SIGTERM.
    pub flag: Arc<AtomicBool>,
    signal: Arc<AtomicUsize>,
}

/// SIGINT's number, for the exit code when the signal is not known.
const SIGINT: usize = 2;

impl Interrupt {
    /// Sets [`Interrupt::flag`] on SIGINT and SIGTERM from now on (elsewhere than on unix,
    /// a flag nothing sets).
    pub fn on_signals() -> std::io::Result<Interrupt> {
        let i = Interrupt::default();
        #[cfg(unix)]
        for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
            use signal_hook::flag;
            // Registered first, so it runs first: a signal that finds the flag already set
            // (the second) ends the process with the shell's code for that signal.
            flag::register_conditional_shutdown(sig, 128 + sig, Arc::clone(&i.flag))?;
            flag::register_usize(sig, Arc::clone(&i.signal), sig as usize)?;
            flag::register(sig, Arc::clone(&i.flag))?;
        }
        Ok(i)
    }

    /// The exit code of a run the signal stopped: 128 plus its number, as a shell reports a
    /// process the signal killed (130 for Ctrl-C, 143 for SIGTERM).
    pub fn exit_code(&self) -> u8 {
        let sig = match self.signal.load(Ordering::Relaxed) {
            0 => SIGINT,
            s => s,
        };
        u8::try_from(128 + sig).unwrap_or(130)
    }
}
