//! `castle._castle`: the native half of the `castle` Python package. Every function here is a
//! thin layer over the castle library: deals are dealt, read and printed by `castle::deal` and
//! `castle::formats`, solved by `castle::Solver` (its wins replayed by the independent checker
//! before they come back), batches run by `castle::batch::Batch` (the passes of `castle
//! batch`), and bad input raises `castle.InputError` with the library's own message.
//!
//! # Threads and Ctrl-C
//! A solve or a batch runs on a thread of its own while the calling thread waits without the
//! GIL, waking every [`POLL`] to run Python's signal handlers (`PyErr_CheckSignals`). When a
//! handler raises (Ctrl-C's `KeyboardInterrupt`), the solver's stop flag goes up
//! ([`castle::Solver::stop`]), the thread is joined, and the exception goes on: no thread is
//! left searching behind the caller's back.

use castle::batch::{Batch, BatchOptions, Row, RowFormat, Seeds};
use castle::deal::Numbering;
use castle::formats::ReadOptions;
use castle::report::{DealJson, OptionsJson, Report};
use castle::rules::{Rules, SequenceMoves, Variant};
use castle::solver::Limits;
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde_json::Value;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

pyo3::create_exception!(
    castle,
    InputError,
    PyValueError,
    "Bad input: a deal, card, rule or argument castle cannot take. The message is the one the\ncastle command prints: it names the file (or `<string>`), line, card or argument at fault."
);

pyo3::create_exception!(
    castle,
    VerifyError,
    PyValueError,
    "A move list that does not check out: an illegal move (the message names the first), or a\nverdict the moves do not bear out (`solvable` moves that do not win, or a won game called\nanything else)."
);

/// How often a waiting call runs Python's signal handlers.
const POLL: Duration = Duration::from_millis(50);

// The defaults and bounds the command line has too, from the one place they are defined.
use castle::defaults::{FOREVER_SECONDS, SHORT_NODES as SHORT_NODES_DEFAULT, SHORT_NODES_LONG};
const MAX_MEMORY_MIB: u64 = castle::defaults::MAX_MEMORY_MIB as u64;
const MAX_THREADS: u64 = castle::defaults::MAX_THREADS as u64;

/// An `InputError` with `msg`, every long word cut as the castle command cuts them (no
/// message echoes a megabyte of bad input).
fn input(msg: impl Into<String>) -> PyErr {
    InputError::new_err(castle::text::cut_words(&msg.into(), 200))
}

fn input_error(e: castle::InputError) -> PyErr {
    input(e.to_string())
}

/// A library error as a Python exception: bad input as `InputError`, a bug (a win that does
/// not replay) as `RuntimeError`, the rest as `OSError` or `RuntimeError`.
fn library_error(e: castle::Error) -> PyErr {
    match e {
        castle::Error::Input(e) => input_error(e),
        castle::Error::Io(e) => e.into(),
        castle::Error::Stdin(e) => e.into(),
        e => PyRuntimeError::new_err(format!("castle: {e}")),
    }
}

fn solve_error(e: castle::SolveError) -> PyErr {
    PyRuntimeError::new_err(format!("castle: {e}"))
}

// ---------------------------------------------------------------------------------------------
// Serde values to Python objects and back (the rows, reports and deals are serde structs).

/// A serde value as Python objects, through its JSON (`json.loads` keeps the fields in the
/// struct's order: a batch row's keys are the CSV's columns, in order).
fn serde_to_py<'py>(py: Python<'py>, x: &impl serde::Serialize) -> PyResult<Bound<'py, PyAny>> {
    let text = serde_json::to_string(x).map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
    json_to_py(py, &text)
}

fn json_to_py<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    py.import("json")?.call_method1("loads", (text,))
}

/// A Python value as JSON, for the rows `castle.stats` takes: `None`, bools, ints, floats
/// (NaN, as pandas writes a missing value, is null; a whole float is an integer), strings,
/// lists, tuples, dicts, and numpy scalars (through their `item()`).
fn from_py(o: &Bound<'_, PyAny>) -> PyResult<Value> {
    if o.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(b) = o.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if o.is_instance_of::<PyInt>() {
        if let Ok(u) = o.extract::<u64>() {
            return Ok(Value::from(u));
        }
        return Ok(Value::from(o.extract::<i64>()?));
    }
    if o.is_instance_of::<PyFloat>() {
        let f: f64 = o.extract()?;
        if f.is_nan() {
            return Ok(Value::Null);
        }
        if f.fract() == 0.0 && f.abs() < 9.0e15 {
            return Ok(Value::from(f as i64));
        }
        return Ok(serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number));
    }
    if let Ok(s) = o.cast::<PyString>() {
        return Ok(Value::String(s.to_cow()?.to_string()));
    }
    if let Ok(d) = o.cast::<PyDict>() {
        let mut m = serde_json::Map::new();
        for (k, v) in d.iter() {
            m.insert(k.str()?.to_cow()?.to_string(), from_py(&v)?);
        }
        return Ok(Value::Object(m));
    }
    if o.is_instance_of::<PyList>() || o.is_instance_of::<PyTuple>() {
        let items = o
            .try_iter()?
            .map(|x| from_py(&x?))
            .collect::<PyResult<Vec<_>>>()?;
        return Ok(Value::Array(items));
    }
    if o.hasattr("item")? {
        let item = o.call_method0("item")?;
        if !item.is(o) {
            return from_py(&item);
        }
    }
    Err(PyTypeError::new_err(format!(
        "cannot read a {} as a row value",
        o.get_type().name()?
    )))
}

// ---------------------------------------------------------------------------------------------
// Arguments.

fn parse_variant(name: &str) -> PyResult<Variant> {
    name.parse::<Variant>()
        .map_err(|e| input(format!("variant: {e}")))
}

fn parse_numbering(name: &str) -> PyResult<Numbering> {
    name.parse::<Numbering>()
        .map_err(|e| input(format!("numbering: {e}")))
}

/// The rules of `variant` with the rule options given (each `None` leaves the variant's own).
fn rules_of(
    variant: Variant,
    start_rank: Option<i64>,
    foundation_return: Option<bool>,
    sequence_moves: Option<&str>,
) -> PyResult<Rules> {
    let mut rules = variant.rules();
    if let Some(k) = start_rank {
        let k = u8::try_from(k)
            .map_err(|_| input(format!("start_rank must be between 0 and 12, not {k}")))?;
        rules = rules.with_start_rank(k).map_err(|e| input(e.to_string()))?;
    }
    if let Some(on) = foundation_return {
        rules = rules.with_foundation_return(on);
    }
    if let Some(s) = sequence_moves {
        rules = rules.with_sequence_moves(s.parse::<SequenceMoves>().map_err(input_error)?);
    }
    Ok(rules)
}

fn seed_of(o: &Bound<'_, PyAny>) -> PyResult<u64> {
    if o.is_instance_of::<PyBool>() || !o.is_instance_of::<PyInt>() {
        return Err(input(format!(
            "a deal number is an int, not {}",
            o.repr()?.to_cow()?
        )));
    }
    o.extract::<u64>().map_err(|_| {
        input(format!(
            "deal number {} is out of range (0 to 18446744073709551615)",
            o.repr().map(|r| r.to_string()).unwrap_or_default()
        ))
    })
}

/// The budgets of a solve: `max_seconds` as the CLI's `--max-seconds` (a positive number;
/// infinity, or more than a century, is none), `memory_mib` as its `--memory`.
fn limits_of(
    max_seconds: Option<f64>,
    max_nodes: Option<u64>,
    memory_mib: u64,
) -> PyResult<Limits> {
    let max_seconds = match max_seconds {
        Some(s) if s.is_nan() || s <= 0.0 => {
            return Err(input(format!(
                "max_seconds must be a positive number of seconds, not {s}"
            )))
        }
        Some(s) => (s <= FOREVER_SECONDS).then_some(s),
        None => None,
    };
    if memory_mib == 0 {
        return Err(input("memory_mib must be at least 1 (MiB)"));
    }
    if memory_mib > MAX_MEMORY_MIB {
        return Err(input(format!(
            "memory_mib {memory_mib} is more than any machine has (at most {MAX_MEMORY_MIB} MiB)"
        )));
    }
    Ok(Limits {
        max_nodes,
        max_seconds,
        memory_bytes: usize::try_from(memory_mib << 20).unwrap_or(usize::MAX),
    })
}

fn threads_of(n: u64) -> PyResult<usize> {
    if n == 0 || n > MAX_THREADS {
        return Err(input(format!(
            "threads must be between 1 and {MAX_THREADS}, not {n}"
        )));
    }
    Ok(n as usize)
}

/// Text given as `str`, `bytes`, or a path (`os.PathLike`, read from the file): the text and
/// the name messages give it.
fn text_of(source: &Bound<'_, PyAny>, what: &str) -> PyResult<(String, String)> {
    let py = source.py();
    if let Ok(s) = source.cast::<PyString>() {
        return Ok((s.to_cow()?.to_string(), "<string>".to_string()));
    }
    if let Ok(b) = source.cast::<PyBytes>() {
        let origin = "<bytes>".to_string();
        let text = castle::text::decode(b.as_bytes().to_vec(), &origin).map_err(input_error)?;
        return Ok((text, origin));
    }
    if source.hasattr("__fspath__")? {
        let path: std::path::PathBuf = py
            .import("os")?
            .call_method1("fspath", (source,))?
            .extract()?;
        let origin = path.display().to_string();
        let bytes =
            std::fs::read(&path).map_err(|e| input(format!("{origin}: cannot read: {e}")))?;
        let text = castle::text::decode(bytes, &origin).map_err(input_error)?;
        return Ok((text, origin));
    }
    Err(PyTypeError::new_err(format!(
        "{what}: give the text (str or bytes) or a path (pathlib.Path), not {}",
        source.get_type().name()?
    )))
}

// ---------------------------------------------------------------------------------------------
// Running on a thread of its own, Ctrl-C stopping it.

/// Runs `job` on a thread of its own and waits for it without the GIL, running Python's
/// signal handlers every [`POLL`]. When a handler raises, `stop` goes up, the thread is
/// joined (the job must end soon after: the solver reads the flag every few milliseconds),
/// and the exception is returned.
fn run_stoppable<T: Send + 'static>(
    py: Python<'_>,
    stop: &AtomicBool,
    job: impl FnOnce() -> T + Send + 'static,
) -> PyResult<T> {
    let (tx, rx) = std::sync::mpsc::channel();
    let handle = std::thread::Builder::new()
        .name("castle-solve".to_string())
        .spawn(move || {
            let _ = tx.send(job());
        })?;
    let rx = Mutex::new(rx);
    loop {
        let got = py.detach(|| lock(&rx).recv_timeout(POLL));
        match got {
            Ok(v) => {
                join(py, handle)?;
                return Ok(v);
            }
            Err(RecvTimeoutError::Timeout) => {
                if let Err(e) = py.check_signals() {
                    stop.store(true, Ordering::Relaxed);
                    let _ = join(py, handle);
                    return Err(e);
                }
            }
            Err(RecvTimeoutError::Disconnected) => {
                join(py, handle)?;
                return Err(PyRuntimeError::new_err(
                    "castle: the solve ended without a result",
                ));
            }
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Joins a thread without the GIL; its panic becomes a `RuntimeError`.
fn join(py: Python<'_>, handle: JoinHandle<()>) -> PyResult<()> {
    py.detach(|| handle.join()).map_err(|panic| {
        let what = panic
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| panic.downcast_ref::<&str>().copied())
            .unwrap_or("no message");
        PyRuntimeError::new_err(format!("castle: internal error (a panic): {what}"))
    })
}

// ---------------------------------------------------------------------------------------------
// Deals.

/// A deal: the cards of every pile at the start of a game, and the rules it is played by.
///
/// `str(deal)` is castle's text format (what `castle deal` prints, and what `castle solve
/// --deal FILE` and `castle.read_deal` read back). The piles are lists of card names (`"QD"`,
/// `"TS"`), bottom card first: `deal.tableau[0][-1]` is the top card of t1. `to_dict()` and
/// `to_json()` give the JSON of `castle deal --format json`.
#[pyclass(name = "Deal", module = "castle", frozen, eq)]
#[derive(Clone)]
struct PyDeal {
    deal: castle::Deal,
    numbering: Numbering,
}

impl PartialEq for PyDeal {
    fn eq(&self, other: &Self) -> bool {
        self.deal == other.deal
    }
}

#[pymethods]
impl PyDeal {
    /// The variant's name (`beleaguered-castle`, `streets-and-alleys`, ...).
    #[getter]
    fn variant(&self) -> &'static str {
        self.deal.rules.variant.name()
    }

    /// The deal number, or None for a deal read from text.
    #[getter]
    fn seed(&self) -> Option<u64> {
        self.deal.seed
    }

    /// Whose deal numbers `seed` is: `castle` or `pysol` (None without a seed).
    #[getter]
    fn numbering(&self) -> Option<&'static str> {
        self.deal.seed.map(|_| self.numbering.name())
    }

    /// The rule options: `start_rank`, `foundation_return`, `sequence_moves`.
    #[getter]
    fn options<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        serde_to_py(py, &OptionsJson::of(&self.deal))
    }

    /// Tableau piles t1..tN, each a list of card names, bottom to top.
    #[getter]
    fn tableau(&self) -> Vec<Vec<String>> {
        DealJson::of(&self.deal).tableau
    }

    /// Foundation piles in suit order C, D, H, S (twice with two decks), each ace to top.
    #[getter]
    fn foundations(&self) -> Vec<Vec<String>> {
        DealJson::of(&self.deal).foundations
    }

    /// The cards in the reserve cells (empty for games without cells).
    #[getter]
    fn reserve(&self) -> Vec<String> {
        DealJson::of(&self.deal).reserve
    }

    /// The stock, next card first (empty for games without one).
    #[getter]
    fn stock(&self) -> Vec<String> {
        DealJson::of(&self.deal).stock
    }

    /// The waste, bottom to top (empty for games without one).
    #[getter]
    fn waste(&self) -> Vec<String> {
        DealJson::of(&self.deal).waste
    }

    /// The JSON of `castle deal --format json` (pretty-printed, keys sorted).
    fn to_json(&self) -> PyResult<String> {
        let mut out = Vec::new();
        castle::report::write_deal(&mut out, &self.deal, self.numbering).map_err(library_error)?;
        Ok(String::from_utf8(out)?.trim_end().to_string())
    }

    /// The deal as a dict: `variant`, `seed`, `numbering` (with a seed), `options` and
    /// `deal` (`tableau`, `foundations`, `reserve`, `stock`, `waste`), as `to_json()`.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        json_to_py(py, &self.to_json()?)
    }

    fn __str__(&self) -> String {
        castle::formats::write_text_numbered(&self.deal, self.numbering)
    }

    fn __repr__(&self) -> String {
        match self.deal.seed {
            Some(s) if self.numbering == Numbering::Castle => {
                format!("<castle.Deal {} {s}>", self.deal.rules.variant)
            }
            Some(s) => format!(
                "<castle.Deal {} {s} ({} numbering)>",
                self.deal.rules.variant,
                self.numbering.name()
            ),
            None => format!("<castle.Deal {} (read)>", self.deal.rules.variant),
        }
    }
}

/// Deal number `seed` of a variant, the same on every machine and in every release (as
/// `castle deal --variant VARIANT --seed SEED`).
///
/// Args:
///     variant: a variant name or alias: "beleaguered-castle" ("bc"), "streets-and-alleys"
///         ("sa"), "citadel", "fortress", "castile", "courtyard".
///     seed: the deal number (0 to 2**64 - 1; PySolFC numbers start at 1).
///     numbering: "castle" (castle's own shuffle) or "pysol" (PySolFC's game numbers, for
///         beleaguered-castle, streets-and-alleys and citadel: the deal PySolFC shows for
///         that game number).
///     start_rank: the foundations start holding A..start_rank of every suit (0 to 12;
///         beleaguered-castle, streets-and-alleys and citadel only).
///     foundation_return: the top card of a foundation may come back to the tableau.
///     sequence_moves: "single" (one card per move) or "unlimited" (runs move as one).
///
/// Returns:
///     A Deal.
///
/// Raises:
///     InputError: an unknown variant or numbering, or a rule the variant does not take.
#[pyfunction]
#[pyo3(
    signature = (variant="bc", seed=None, numbering="castle", *, start_rank=None, foundation_return=None, sequence_moves=None),
    text_signature = "(variant='bc', seed=42, numbering='castle', *, start_rank=None, foundation_return=None, sequence_moves=None)"
)]
fn deal(
    variant: &str,
    seed: Option<&Bound<'_, PyAny>>,
    numbering: &str,
    start_rank: Option<i64>,
    foundation_return: Option<bool>,
    sequence_moves: Option<&str>,
) -> PyResult<PyDeal> {
    let variant = parse_variant(variant)?;
    let numbering = parse_numbering(numbering)?;
    let rules = rules_of(variant, start_rank, foundation_return, sequence_moves)?;
    let seed = match seed {
        Some(s) => seed_of(s)?,
        None => 42,
    };
    let deal = castle::Deal::numbered(rules, numbering, seed)
        .map_err(|e| input(e.with_flag(format!("seed {seed}")).to_string()))?;
    Ok(PyDeal { deal, numbering })
}

/// Reads a deal as `castle solve --deal FILE` does: castle's text format, an fc-solve board,
/// or JSON (castle's deal or solve report, or Solvitaire's layout), detected from the text.
///
/// Args:
///     source: the text (str or bytes), or a path (pathlib.Path) to read it from. A str is
///         always the text itself, never a file name.
///     variant: the variant, when the text does not say (an fc-solve board never does:
///         without it, beleaguered-castle). A text that names another variant is an error.
///     start_rank, foundation_return, sequence_moves: rule options on top of the text's
///         (as `castle.deal`).
///     format: "text", "fcs" or "json" instead of detecting it.
///
/// Returns:
///     A Deal (its `seed` is the text's, if it gives one).
///
/// Raises:
///     InputError: the message names the line and card at fault, as the castle command's.
#[pyfunction]
#[pyo3(signature = (source, variant=None, *, start_rank=None, foundation_return=None, sequence_moves=None, format=None))]
fn read_deal(
    source: &Bound<'_, PyAny>,
    variant: Option<&str>,
    start_rank: Option<i64>,
    foundation_return: Option<bool>,
    sequence_moves: Option<&str>,
    format: Option<&str>,
) -> PyResult<PyDeal> {
    let (text, origin) = text_of(source, "read_deal")?;
    let start_rank = start_rank
        .map(|k| {
            u8::try_from(k)
                .map_err(|_| input(format!("start_rank must be between 0 and 12, not {k}")))
        })
        .transpose()?;
    let opts = ReadOptions {
        variant: variant.map(parse_variant).transpose()?,
        start_rank,
        foundation_return,
        sequence_moves: sequence_moves
            .map(|s| s.parse::<SequenceMoves>().map_err(input_error))
            .transpose()?,
        format: format
            .map(|f| {
                f.parse::<castle::formats::Format>()
                    .map_err(|e| input(format!("format: {e}")))
            })
            .transpose()?,
    };
    let deal = castle::formats::read_deal(&text, &origin, opts).map_err(input_error)?;
    let numbering = numbering_in(&text);
    Ok(PyDeal { deal, numbering })
}

/// The numbering a deal text names (`numbering: pysol` in the text format, `"numbering":
/// "pysol"` in JSON); castle's otherwise.
fn numbering_in(text: &str) -> Numbering {
    let named = text.lines().any(|l| {
        let l = l
            .split('#')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        (l.starts_with("numbering:") && l.ends_with("pysol"))
            || (l.contains("\"numbering\"") && l.contains("\"pysol\""))
    });
    if named {
        Numbering::Pysol
    } else {
        Numbering::Castle
    }
}

/// The deal a solve is asked for: a Deal, a deal number (of `variant`), or a deal's text.
fn deal_arg(
    deal_or_seed: &Bound<'_, PyAny>,
    variant: Option<&str>,
    numbering: &str,
) -> PyResult<PyDeal> {
    if let Ok(d) = deal_or_seed.cast::<PyDeal>() {
        let d = d.get().clone();
        if let Some(v) = variant {
            let v = parse_variant(v)?;
            if v != d.deal.rules.variant {
                return Err(input(format!(
                    "variant {v} given for a {} deal",
                    d.deal.rules.variant
                )));
            }
        }
        return Ok(d);
    }
    if deal_or_seed.is_instance_of::<PyInt>() && !deal_or_seed.is_instance_of::<PyBool>() {
        let variant = parse_variant(variant.unwrap_or("bc"))?;
        let numbering = parse_numbering(numbering)?;
        let seed = seed_of(deal_or_seed)?;
        let deal = castle::Deal::numbered(variant.rules(), numbering, seed)
            .map_err(|e| input(e.with_flag(format!("seed {seed}")).to_string()))?;
        return Ok(PyDeal { deal, numbering });
    }
    if deal_or_seed.is_instance_of::<PyString>()
        || deal_or_seed.is_instance_of::<PyBytes>()
        || deal_or_seed.hasattr("__fspath__")?
    {
        return read_deal(deal_or_seed, variant, None, None, None, None);
    }
    Err(PyTypeError::new_err(format!(
        "give a castle.Deal, a deal number (int) or a deal's text, not {}",
        deal_or_seed.get_type().name()?
    )))
}

// ---------------------------------------------------------------------------------------------
// Solving.

/// What a solve found: the verdict, the winning moves (for `solvable`), and what it cost.
///
/// `verdict` is "solvable" (the moves win; castle's independent checker replayed them before
/// this object was made), "unsolvable" (every reachable position was searched: a proof), or
/// "unknown" (a budget ran out first, named by `limit`: never a proof either way).
/// `to_json()` is the JSON report of `castle solve --format json`, which `castle verify`
/// and `castle.verify` read.
#[pyclass(name = "Result", module = "castle", frozen)]
struct SolveResult {
    report: Report,
    deal: PyDeal,
}

#[pymethods]
impl SolveResult {
    /// "solvable", "unsolvable" or "unknown".
    #[getter]
    fn verdict(&self) -> &str {
        &self.report.verdict
    }

    /// True for "solvable".
    #[getter]
    fn solvable(&self) -> bool {
        self.report.verdict == "solvable"
    }

    /// The winning line (empty unless solvable): one dict per move, {"card": "5H", "from":
    /// "t3", "to": "f"}, with "count" for a run moved as one (unlimited sequence moves).
    /// Piles are t1..tN, r1..rK (cells), f (the card's foundation), s (stock), w (waste);
    /// automatic foundation moves and courtyard's fills are included.
    #[getter]
    fn moves<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        serde_to_py(py, &self.report.moves)
    }

    /// Positions whose moves the search generated.
    #[getter]
    fn nodes(&self) -> u64 {
        self.report.nodes
    }

    /// Distinct positions stored at the end.
    #[getter]
    fn states(&self) -> u64 {
        self.report.states
    }

    /// Wall-clock seconds.
    #[getter]
    fn seconds(&self) -> f64 {
        self.report.seconds
    }

    /// CPU seconds (user and system).
    #[getter]
    fn cpu_seconds(&self) -> Option<f64> {
        self.report.cpu_seconds
    }

    /// The phase that decided the deal ("quick", "complete", "probe", "quotient", a
    /// portfolio member such as "best-first:dig", "layered"); None for unknown.
    #[getter]
    fn phase(&self) -> Option<&str> {
        self.report.phase.as_deref()
    }

    /// For unknown: the budget that ran out ("nodes", "seconds", "memory", "stopped").
    #[getter]
    fn limit(&self) -> Option<&str> {
        self.report.limit.as_deref()
    }

    /// Cards on the foundations at the best point any searched line reached (all of them
    /// for a win).
    #[getter]
    fn score(&self) -> Option<u8> {
        self.report.score
    }

    /// The deal solved.
    #[getter]
    fn deal(&self) -> PyDeal {
        self.deal.clone()
    }

    /// The JSON report of `castle solve --format json` (one line).
    fn to_json(&self) -> PyResult<String> {
        serde_json::to_string(&self.report).map_err(|e| PyRuntimeError::new_err(e.to_string()))
    }

    /// The JSON report as a dict.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        serde_to_py(py, &self.report)
    }

    fn __str__(&self) -> String {
        let r = &self.report;
        match r.verdict.as_str() {
            "solvable" => format!("solvable: won in {} moves", r.moves.len()),
            "unknown" => format!(
                "unknown: the {} budget ran out",
                r.limit.as_deref().unwrap_or("?")
            ),
            v => v.to_string(),
        }
    }

    fn __repr__(&self) -> String {
        let r = &self.report;
        let what = match r.verdict.as_str() {
            "solvable" => format!("solvable, {} moves", r.moves.len()),
            "unknown" => format!("unknown ({})", r.limit.as_deref().unwrap_or("?")),
            v => v.to_string(),
        };
        format!(
            "<castle.Result {what}: {} nodes, {:.3} s>",
            r.nodes, r.seconds
        )
    }
}

/// Solves a deal exactly, as `castle solve`: a winning line (replayed by castle's
/// independent checker before it is returned), a proof that none exists, or "unknown"
/// when a budget ran out first.
///
/// The search runs on a thread of its own without the GIL; Ctrl-C stops it within a few
/// milliseconds and raises KeyboardInterrupt, leaving no thread behind.
///
/// Args:
///     deal_or_seed: a Deal, a deal number (dealt as `castle.deal(variant, n, numbering)`),
///         or a deal's text (as `castle.read_deal`).
///     variant: the variant of a deal number ("bc" when not given); for a Deal, it must be
///         the deal's own.
///     max_seconds: time budget in seconds (None: none).
///     max_nodes: node budget (None: none).
///     memory_mib: memory budget of the whole solve, in MiB.
///     threads: threads searching this one deal (the verdict does not depend on it).
///     short: after a win, search longer for a shorter one: True for castle solve --short's
///         budget (1,000,000 positions), an int for that many; False (the default) still
///         shortens the win with a small search (20,000 positions), as castle solve does.
///     numbering: "castle" or "pysol", for a deal number.
///     salt: other random draws for the searches for a win, as castle solve --salt (0: the
///         usual search); a deal left unknown by a budget may be won with another salt. The
///         verdict never depends on it.
///
/// Returns:
///     A Result: .verdict, .moves, .nodes, .states, .seconds, .phase, .limit, .to_json().
///
/// Raises:
///     InputError: a bad deal, variant or budget.
///     KeyboardInterrupt: Ctrl-C while it searched.
#[pyfunction]
#[pyo3(
    signature = (deal_or_seed, variant=None, *, max_seconds=None, max_nodes=None, memory_mib=castle::defaults::MEMORY_MIB as u64, threads=1, short=None, numbering="castle", salt=0),
    text_signature = "(deal_or_seed, variant=None, *, max_seconds=None, max_nodes=None, memory_mib=4096, threads=1, short=False, numbering='castle', salt=0)"
)]
#[allow(clippy::too_many_arguments)]
fn solve(
    py: Python<'_>,
    deal_or_seed: &Bound<'_, PyAny>,
    variant: Option<&str>,
    max_seconds: Option<f64>,
    max_nodes: Option<u64>,
    memory_mib: u64,
    threads: u64,
    short: Option<&Bound<'_, PyAny>>,
    numbering: &str,
    salt: u64,
) -> PyResult<SolveResult> {
    let d = deal_arg(deal_or_seed, variant, numbering)?;
    let short = match short {
        None => SHORT_NODES_DEFAULT,
        Some(s) if s.is_instance_of::<PyBool>() => {
            if s.is_truthy()? {
                SHORT_NODES_LONG
            } else {
                SHORT_NODES_DEFAULT
            }
        }
        Some(s) => match s.extract::<u64>() {
            Ok(n) if n > 0 => n,
            _ => {
                return Err(input(format!(
                    "short must be True, False or a positive number of positions, not {}",
                    s.repr()?
                )))
            }
        },
    };
    let stop = Arc::new(AtomicBool::new(false));
    let solver = castle::Solver {
        limits: limits_of(max_seconds, max_nodes, memory_mib)?,
        threads: threads_of(threads)?,
        short: Some(short),
        salt,
        stop: Some(Arc::clone(&stop)),
        ..castle::Solver::default()
    };
    let deal = d.deal.clone();
    let out = run_stoppable(py, &stop, move || {
        solver.solve(&deal).map(|out| (out, deal))
    })?;
    let (out, deal) = out.map_err(solve_error)?;
    let report = Report::new(&deal, &out).numbered(d.numbering);
    Ok(SolveResult { report, deal: d })
}

// ---------------------------------------------------------------------------------------------
// Verifying.

/// Replays a solve report on castle's independent checker, as `castle verify`: every move
/// must be legal, and the verdict must agree with the moves (`solvable` exactly when they
/// win).
///
/// Args:
///     result_or_json: a castle.Result, its JSON (a str, as `castle solve --format json`
///         prints it), its dict (`Result.to_dict()`), or a path to a report file.
///
/// Returns:
///     True when the report checks out.
///
/// Raises:
///     VerifyError: the first illegal move, or a verdict the moves do not bear out.
///     InputError: not a solve report (the message names the line), or a bad card or deal.
#[pyfunction]
fn verify(py: Python<'_>, result_or_json: &Bound<'_, PyAny>) -> PyResult<bool> {
    let (text, origin) = if let Ok(r) = result_or_json.cast::<SolveResult>() {
        (r.get().to_json()?, "<result>".to_string())
    } else if result_or_json.is_instance_of::<PyDict>() {
        let v = from_py(result_or_json)?;
        (v.to_string(), "<dict>".to_string())
    } else {
        text_of(result_or_json, "verify")?
    };
    let mut out = Vec::new();
    let ok = py
        .detach(|| castle::verify::verify_report(&mut out, &text, &origin))
        .map_err(library_error)?;
    if ok {
        Ok(true)
    } else {
        Err(VerifyError::new_err(
            String::from_utf8_lossy(&out).trim_end().to_string(),
        ))
    }
}

// ---------------------------------------------------------------------------------------------
// Batches.

/// What the batch thread hands the iterator.
enum Msg {
    Row(Row),
    /// The batch ended: how (an error's message, already a Python exception's text).
    End(Result<(), BatchFailure>),
}

enum BatchFailure {
    Input(String),
    Other(String),
}

/// The batch's CSV output, read back into rows as each line comes (the batch writes each
/// row whole and flushes it; the first line is the header, whose names the rows are read by).
struct RowSink {
    tx: std::sync::mpsc::Sender<Msg>,
    header: Option<Vec<u8>>,
    buf: Vec<u8>,
}

impl Write for RowSink {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.buf.extend_from_slice(bytes);
        while let Some(end) = self.buf.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.buf.drain(..=end).collect();
            let Some(header) = &self.header else {
                self.header = Some(line);
                continue;
            };
            let mut csv = header.clone();
            csv.extend_from_slice(&line);
            let rows = castle::batch::rows_from_bytes(csv, "<batch>")
                .map_err(|e| std::io::Error::other(e.to_string()))?;
            for row in rows {
                self.tx
                    .send(Msg::Row(row))
                    .map_err(|_| std::io::Error::other("the rows' reader went away"))?;
            }
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The rows of a running `castle.batch`, as dicts, in the order the deals are decided.
#[pyclass(name = "BatchRows", module = "castle")]
struct BatchRows {
    rx: Mutex<Receiver<Msg>>,
    stop: Arc<AtomicBool>,
    thread: Mutex<Option<JoinHandle<()>>>,
}

impl BatchRows {
    /// Raises the stop flag (the batch starts no deal and writes no row after it, and the
    /// deals in flight end within milliseconds) and joins the batch's thread.
    fn halt(&self, py: Python<'_>) -> PyResult<()> {
        self.stop.store(true, Ordering::Relaxed);
        match lock(&self.thread).take() {
            Some(h) => join(py, h),
            None => Ok(()),
        }
    }
}

#[pymethods]
impl BatchRows {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        loop {
            if lock(&self.thread).is_none() {
                return Ok(None);
            }
            let got = py.detach(|| lock(&self.rx).recv_timeout(POLL));
            match got {
                Ok(Msg::Row(row)) => return serde_to_py(py, &row).map(Some),
                Ok(Msg::End(end)) => {
                    self.halt(py)?;
                    return match end {
                        Ok(()) => Ok(None),
                        Err(BatchFailure::Input(m)) => Err(input(m)),
                        Err(BatchFailure::Other(m)) => Err(PyRuntimeError::new_err(m)),
                    };
                }
                Err(RecvTimeoutError::Timeout) => {
                    if let Err(e) = py.check_signals() {
                        self.halt(py)?;
                        return Err(e);
                    }
                }
                Err(RecvTimeoutError::Disconnected) => {
                    self.halt(py)?;
                    return Ok(None);
                }
            }
        }
    }

    /// Stops the batch: no row after this one (the deals in flight are dropped), and its
    /// threads end. Dropping the iterator does the same.
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        self.halt(py)
    }
}

impl Drop for BatchRows {
    /// A batch whose iterator goes away (a loop left early, an exception) stops, and its
    /// thread is joined: it does not search on for no one. (PyO3 does not call a `__del__`
    /// of a Rust class; its `Drop` runs when Python frees the object. The join holds the GIL,
    /// which is safe: the batch thread never takes it, and its deals end within milliseconds
    /// of the flag.)
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(h) = lock(&self.thread).take() {
            let _ = h.join();
        }
    }
}

/// The seeds of `castle.batch`: a range with step 1 stays a range (any length), a str is
/// read as `castle batch --seeds` reads it ("1..1000,5000"), an int is one seed, and any
/// other iterable of ints is collected (each seed once).
fn seeds_of(seeds: &Bound<'_, PyAny>) -> PyResult<Vec<(u64, u64)>> {
    let py = seeds.py();
    if let Ok(s) = seeds.cast::<PyString>() {
        // The message the command line prints for the same text (`--seeds `9..2`: ...`).
        return Seeds::parse(&s.to_cow()?).map_err(|e| input_error(e.with_flag("--seeds")));
    }
    if seeds.is_instance_of::<PyInt>() {
        let s = seed_of(seeds)?;
        return Ok(vec![(s, s)]);
    }
    let range = py.import("builtins")?.getattr("range")?;
    if seeds.is_instance(&range)? && seeds.getattr("step")?.extract::<i64>()? == 1 {
        let start = seeds.getattr("start")?;
        let stop = seeds.getattr("stop")?;
        let (a, b): (i128, i128) = (start.extract()?, stop.extract()?);
        if a >= b {
            return Ok(Vec::new());
        }
        let first =
            u64::try_from(a).map_err(|_| input(format!("seeds: {a} is not a deal number")))?;
        let last = u64::try_from(b - 1)
            .map_err(|_| input(format!("seeds: {} is not a deal number", b - 1)))?;
        return Ok(vec![(first, last)]);
    }
    let mut list = Vec::new();
    for s in seeds.try_iter().map_err(|_| {
        PyTypeError::new_err(
            "seeds: give a range, an iterable of ints, an int or a str such as \"1..1000\"",
        )
    })? {
        list.push(seed_of(&s?).map_err(|e| input(format!("seeds: {}", e.value(py))))?);
    }
    list.sort_unstable();
    list.dedup();
    let mut ranges: Vec<(u64, u64)> = Vec::new();
    for s in list {
        match ranges.last_mut() {
            Some((_, b)) if b.checked_add(1) == Some(s) => *b = s,
            _ => ranges.push((s, s)),
        }
    }
    Ok(ranges)
}

/// Solves many numbered deals on several threads, as `castle batch`, yielding one row per
/// deal (a dict of the batch CSV's columns) as each is decided: so
/// `pandas.DataFrame(castle.batch(range(1, 1001)))` is a table of 1000 deals.
///
/// Deals are solved in passes, as castle batch does: every deal first with a small node
/// budget, the ones left with a larger one, and the last few one at a time on every
/// thread; rows come in the order deals are decided, not in seed order. Ctrl-C (or
/// leaving the loop, or `.close()`) stops the batch: the rows yielded are all there is,
/// and its threads end.
///
/// Args:
///     seeds: a range, an iterable of ints, an int, or a str as castle batch --seeds takes
///         it ("1..1000,5000"). Each seed is solved once.
///     variant, numbering, start_rank, foundation_return, sequence_moves: as `castle.deal`.
///     threads: worker threads (None: one per core).
///     max_seconds: time budget of each deal (None: none).
///     max_nodes: node budget of each deal (None: none; the passes' own budgets below it
///         still apply).
///     memory_mib: memory budget of the whole batch (shared by the workers), in MiB.
///     one_pass: solve each deal once with the budgets, instead of in passes.
///     salt: as `solve`'s, for every deal.
///     certify: build each lost deal's certificate and check it with the independent
///         checker before its row is yielded (its `certified` column; castle batch --certify).
///
/// Yields:
///     dicts with the columns of castle batch's CSV: seed, variant, start_rank,
///     foundation_return, sequence_moves, verdict, moves (None unless solvable), nodes,
///     states, ms, score, limit, numbering, phase, cpu_ms, pass, certified (None unless
///     certify and lost).
///
/// Raises:
///     InputError: bad seeds, variant or budget (before any deal is solved).
#[pyfunction]
#[pyo3(signature = (seeds, variant="bc", *, threads=None, max_seconds=None, max_nodes=None, memory_mib=castle::defaults::MEMORY_MIB as u64, numbering="castle", one_pass=false, start_rank=None, foundation_return=None, sequence_moves=None, salt=0, certify=false))]
#[allow(clippy::too_many_arguments)]
fn batch(
    seeds: &Bound<'_, PyAny>,
    variant: &str,
    threads: Option<u64>,
    max_seconds: Option<f64>,
    max_nodes: Option<u64>,
    memory_mib: u64,
    numbering: &str,
    one_pass: bool,
    start_rank: Option<i64>,
    foundation_return: Option<bool>,
    sequence_moves: Option<&str>,
    salt: u64,
    certify: bool,
) -> PyResult<BatchRows> {
    let variant = parse_variant(variant)?;
    let rules = rules_of(variant, start_rank, foundation_return, sequence_moves)?;
    let numbering = parse_numbering(numbering)?;
    let ranges = seeds_of(seeds)?;
    // Every seed of a range deals the same way; its ends tell whether they can (as castle
    // batch checks them).
    for &seed in ranges.iter().flat_map(|(a, b)| [a, b]) {
        castle::Deal::numbered(rules, numbering, seed)
            .map_err(|e| input(e.with_flag("seeds").to_string()))?;
    }
    let threads = match threads {
        Some(n) => threads_of(n)?,
        None => std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(MAX_THREADS as usize),
    };
    let stop = Arc::new(AtomicBool::new(false));
    let solver = castle::Solver {
        limits: limits_of(max_seconds, max_nodes, memory_mib)?,
        salt,
        stop: Some(Arc::clone(&stop)),
        ..castle::Solver::default()
    };
    let (tx, rx) = std::sync::mpsc::channel();
    let empty = ranges.is_empty();
    let opts = BatchOptions {
        rules,
        numbering,
        seeds: Seeds {
            ranges,
            shard: 0,
            shards: 1,
        },
        solver,
        threads,
        csv: None,
        format: RowFormat::Csv,
        winnable_only: None,
        retry_unknown: false,
        one_pass,
        pass_nodes: castle::batch::passes::PASS_NODES.to_vec(),
        certificates: None,
        certify,
    };
    let flag = Arc::clone(&stop);
    let thread = std::thread::Builder::new()
        .name("castle-batch".to_string())
        .spawn(move || {
            let mut sink = RowSink {
                tx: tx.clone(),
                header: None,
                buf: Vec::new(),
            };
            let end = if empty {
                Ok(())
            } else {
                Batch::open(opts)
                    .map_err(|e| BatchFailure::Input(e.to_string()))
                    .and_then(|b| {
                        b.run(&mut sink, &flag, &mut |_| {})
                            .map(|_| ())
                            .map_err(|e| match e {
                                castle::Error::Input(e) => BatchFailure::Input(e.to_string()),
                                e => BatchFailure::Other(format!("castle: {e}")),
                            })
                    })
            };
            let _ = tx.send(Msg::End(end));
        })?;
    Ok(BatchRows {
        rx: Mutex::new(rx),
        stop,
        thread: Mutex::new(Some(thread)),
    })
}

// ---------------------------------------------------------------------------------------------
// Statistics.

/// The rows `castle.stats` was given, as batch rows.
fn rows_of(rows: &Bound<'_, PyAny>) -> PyResult<Vec<Row>> {
    if rows.is_instance_of::<PyString>() || rows.hasattr("__fspath__")? {
        let path: std::path::PathBuf = rows
            .py()
            .import("os")?
            .call_method1("fspath", (rows,))?
            .extract()?;
        return castle::stats::read_rows(&path).map_err(input_error);
    }
    // A pandas DataFrame: its records.
    let rows = if rows.hasattr("to_dict")? && rows.hasattr("columns")? {
        rows.call_method1("to_dict", ("records",))?
    } else {
        rows.clone()
    };
    let mut out = Vec::new();
    for (i, r) in rows.try_iter()?.enumerate() {
        let mut v = from_py(&r?)?;
        // `limit` and `phase` are empty strings when there is nothing to say; a CSV cell
        // left empty comes back from pandas (`read_csv`) as NaN, that is null.
        if let Value::Object(m) = &mut v {
            for key in ["limit", "phase"] {
                if let Some(x) = m.get_mut(key).filter(|x| x.is_null()) {
                    *x = Value::String(String::new());
                }
            }
        }
        let row: Row =
            serde_json::from_value(v).map_err(|e| input(format!("rows: row {}: {e}", i + 1)))?;
        out.push(row);
    }
    Ok(out)
}

/// Summarises batch rows as `castle stats` does: deals, winnable, unsolvable, unknown, the
/// win rate and its 95% Wilson interval (win_rate_low counts unknowns as losses,
/// win_rate_high as wins), and quantiles of solution lengths and nodes. A seed seen twice is
/// counted once (a decided row beats an unknown one); seeds whose rows disagree are left
/// out and listed in "conflicts".
///
/// Args:
///     rows: the rows of castle.batch (dicts), a pandas DataFrame of them, or the path of a
///         castle batch CSV (or JSON lines) file.
///     by_group: return a list with one summary per variant and rule options, instead of
///         one summary (which needs every row to be of one group).
///
/// Returns:
///     A dict: variant, start_rank, foundation_return, sequence_moves, numbering, deals,
///     winnable, unsolvable, unknown, win_rate, win_rate_low, win_rate_high, len_min,
///     len_median, len_p99, len_max, nodes_min, nodes_median, nodes_p99, nodes_max,
///     duplicates, conflicts (the seeds left out). With by_group, a list of them.
///
/// Raises:
///     InputError: no rows, a row that is not a batch row, or rows of several groups
///         without by_group.
#[pyfunction]
#[pyo3(signature = (rows, by_group=false))]
fn stats<'py>(
    py: Python<'py>,
    rows: &Bound<'py, PyAny>,
    by_group: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let rows = rows_of(rows)?;
    let m = castle::stats::merge(rows);
    let summaries = castle::stats::summary_rows(&m);
    let one = |s: &castle::stats::SummaryRow| -> PyResult<Bound<'py, PyAny>> {
        let d = serde_to_py(py, s)?;
        let group = m
            .groups
            .keys()
            .find(|g| {
                m.rows.get(*g).and_then(|r| r.first()).is_some_and(|r| {
                    r.variant == s.variant
                        && r.start_rank == s.start_rank
                        && r.foundation_return == s.foundation_return
                        && r.sequence_moves == s.sequence_moves
                        && r.numbering == s.numbering
                })
            })
            .cloned()
            .unwrap_or_default();
        let conflicts: Vec<u64> = m
            .conflicts
            .iter()
            .filter(|(g, _, _)| *g == group)
            .map(|(_, seed, _)| *seed)
            .collect();
        d.set_item("duplicates", m.duplicates)?;
        d.set_item("conflicts", conflicts)?;
        Ok(d)
    };
    if by_group {
        let items = summaries.iter().map(one).collect::<PyResult<Vec<_>>>()?;
        return Ok(PyList::new(py, items)?.into_any());
    }
    match &summaries[..] {
        [] => Err(input("stats: no rows")),
        [s] => one(s),
        several => Err(input(format!(
            "stats: the rows are of {} groups ({}); give one group's rows, or by_group=True",
            several.len(),
            m.groups.keys().cloned().collect::<Vec<_>>().join("; ")
        ))),
    }
}

/// The 95% Wilson score interval of `k` successes in `n` trials, as (low, high): the
/// interval castle stats gives win rates.
#[pyfunction]
fn wilson(k: u64, n: u64) -> PyResult<(f64, f64)> {
    if k > n {
        return Err(input(format!("wilson: {k} successes in {n} trials")));
    }
    Ok(castle::stats::wilson(k, n))
}

/// The variants castle plays, as (name, aliases, summary) tuples (as `castle variants`).
#[pyfunction]
fn variants() -> Vec<(&'static str, Vec<&'static str>, &'static str)> {
    Variant::ALL
        .iter()
        .map(|v| (v.name(), v.aliases().to_vec(), v.summary()))
        .collect()
}

// Winnable deals and their difficulty.

/// Whether deal `seed` of a variant is winnable: its published table's bit where the table
/// reaches, else the solver's verdict with a win the checker replays (as `castle deal
/// --winnable`).
///
/// Args:
///     variant: the variant's name or alias.
///     seed: the deal number.
///     numbering: "castle" or "pysol" (PySolFC's game numbers).
///     start_rank, foundation_return, sequence_moves: rule options (as `castle.deal`); rules
///         no table has are solved.
///
/// Returns:
///     True or False; None when the solver's budget (5,000,000 nodes) did not decide.
///
/// Raises:
///     InputError: an unknown variant or numbering, or a deal number the numbering lacks.
#[pyfunction]
#[pyo3(signature = (variant, seed, numbering="castle", *, start_rank=None, foundation_return=None, sequence_moves=None))]
fn winnable(
    py: Python<'_>,
    variant: &str,
    seed: &Bound<'_, PyAny>,
    numbering: &str,
    start_rank: Option<i64>,
    foundation_return: Option<bool>,
    sequence_moves: Option<&str>,
) -> PyResult<Option<bool>> {
    let rules = rules_of(
        parse_variant(variant)?,
        start_rank,
        foundation_return,
        sequence_moves,
    )?;
    let numbering = parse_numbering(numbering)?;
    let seed = seed_of(seed)?;
    py.detach(|| castle::winnable::is_winnable(rules, numbering, seed))
        .map_err(library_error)
}

/// The difficulty of a winnable deal: "easy", "medium" or "hard" (docs/difficulty.md: how
/// often a stated simple player wins it, cut in thirds over the variant's table).
///
/// Args:
///     deal: a Deal of a variant's own rules (a numbered one, or one read from a file).
///
/// Returns:
///     The tier; None for a deal under rule options (no tiers are cut for them). The deal
///     is not checked to be winnable here: see `castle.winnable`.
#[pyfunction]
fn difficulty(py: Python<'_>, deal: &PyDeal) -> Option<&'static str> {
    let (d, n) = (deal.deal.clone(), deal.numbering);
    py.detach(|| castle::winnable::tier_of(&d, n))
        .map(castle::difficulty::Tier::name)
}

/// Winnable deal numbers of a variant, as `castle deal --winnable --count N`: the first
/// `count` at or after `start`, or (with `random_seed`) drawn at random from the table's
/// range.
///
/// Args:
///     variant: the variant's name or alias.
///     count: how many.
///     start: the first number to look at (default 1; not with random_seed).
///     random_seed: draw at random, reproducibly from this seed.
///     difficulty: "easy", "medium" or "hard": only deals of that tier.
///     numbering, start_rank, foundation_return, sequence_moves: as `castle.winnable`.
///
/// Returns:
///     A list of dicts: seed, difficulty (None under rule options), by ("table" or "solve").
///
/// Raises:
///     InputError: bad arguments (named), or a difficulty asked under rule options.
#[pyfunction]
#[pyo3(signature = (variant, count=1, *, start=None, random_seed=None, difficulty=None, numbering="castle", start_rank=None, foundation_return=None, sequence_moves=None))]
#[allow(clippy::too_many_arguments)]
fn winnable_deals<'py>(
    py: Python<'py>,
    variant: &str,
    count: i64,
    start: Option<&Bound<'_, PyAny>>,
    random_seed: Option<&Bound<'_, PyAny>>,
    difficulty: Option<&str>,
    numbering: &str,
    start_rank: Option<i64>,
    foundation_return: Option<bool>,
    sequence_moves: Option<&str>,
) -> PyResult<Bound<'py, PyAny>> {
    let rules = rules_of(
        parse_variant(variant)?,
        start_rank,
        foundation_return,
        sequence_moves,
    )?;
    let numbering = parse_numbering(numbering)?;
    let count = usize::try_from(count)
        .ok()
        .filter(|&c| c > 0)
        .ok_or_else(|| input(format!("count must be at least 1, not {count}")))?;
    let tier = difficulty
        .map(|t| {
            t.parse::<castle::difficulty::Tier>()
                .map_err(|e| input(format!("difficulty: {e}")))
        })
        .transpose()?;
    let start = start.map(seed_of).transpose()?;
    let random_seed = random_seed.map(seed_of).transpose()?;
    if start.is_some() && random_seed.is_some() {
        return Err(input("give start or random_seed, not both"));
    }
    let mut finder = castle::winnable::Finder::new(rules, numbering, tier)
        .map_err(|e| input(format!("difficulty: {e}")))?;
    let found = py
        .detach(|| match random_seed {
            Some(r) => finder.random(r, count),
            None => finder.next_from(start.unwrap_or(1), count),
        })
        .map_err(library_error)?;
    let rows: Vec<Value> = found
        .iter()
        .map(|f| {
            serde_json::json!({
                "seed": f.seed,
                "difficulty": f.tier.map(castle::difficulty::Tier::name),
                "by": f.by.name(),
            })
        })
        .collect();
    serde_to_py(py, &rows)
}

/// castle: an exact solver for Beleaguered Castle-family patience games (native module).
#[pymodule]
fn _castle(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("InputError", py.get_type::<InputError>())?;
    m.add("VerifyError", py.get_type::<VerifyError>())?;
    m.add_class::<PyDeal>()?;
    m.add_class::<SolveResult>()?;
    m.add_class::<BatchRows>()?;
    m.add_function(wrap_pyfunction!(deal, m)?)?;
    m.add_function(wrap_pyfunction!(read_deal, m)?)?;
    m.add_function(wrap_pyfunction!(solve, m)?)?;
    m.add_function(wrap_pyfunction!(verify, m)?)?;
    m.add_function(wrap_pyfunction!(batch, m)?)?;
    m.add_function(wrap_pyfunction!(stats, m)?)?;
    m.add_function(wrap_pyfunction!(wilson, m)?)?;
    m.add_function(wrap_pyfunction!(variants, m)?)?;
    m.add_function(wrap_pyfunction!(winnable, m)?)?;
    m.add_function(wrap_pyfunction!(difficulty, m)?)?;
    m.add_function(wrap_pyfunction!(winnable_deals, m)?)?;
    Ok(())
}
