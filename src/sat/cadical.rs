//! CaDiCaL, through the C interface of the solver that the `cadical` crate builds and links
//! (CaDiCaL 1.9.5). The crate's Rust API has no way to ask for a proof, so this module
//! declares the few C functions it needs itself: a solver, its options, a binary LRAT proof
//! written to a file, and a callback that stops it at a deadline or a raised flag.

use std::ffi::{c_char, c_int, c_void, CString};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

// The library the `cadical` crate compiles (its `links = "ccadical"`); naming the crate makes
// Cargo link it.
use cadical as _;

#[repr(C)]
struct CCaDiCaL {
    _private: [u8; 0],
}

extern "C" {
    fn ccadical_init() -> *mut CCaDiCaL;
    fn ccadical_release(s: *mut CCaDiCaL);
    fn ccadical_add(s: *mut CCaDiCaL, lit: c_int);
    fn ccadical_solve(s: *mut CCaDiCaL) -> c_int;
    fn ccadical_val(s: *mut CCaDiCaL, lit: c_int) -> c_int;
    fn ccadical_set_option(s: *mut CCaDiCaL, name: *const c_char, val: c_int);
    fn ccadical_trace_proof(s: *mut CCaDiCaL, file: *mut libc::FILE, name: *const c_char) -> c_int;
    fn ccadical_close_proof(s: *mut CCaDiCaL);
    fn ccadical_read_dimacs(
        s: *mut CCaDiCaL,
        path: *const c_char,
        vars: *mut c_int,
        strict: c_int,
    ) -> *const c_char;
    fn ccadical_set_terminate(
        s: *mut CCaDiCaL,
        state: *mut c_void,
        terminate: Option<extern "C" fn(*mut c_void) -> c_int>,
    );
}

/// When a solve stops without an answer.
pub struct Stop<'a> {
    /// The wall-clock deadline.
    pub deadline: Option<Instant>,
    /// A flag another thread may raise.
    pub flag: Option<&'a AtomicBool>,
}

extern "C" fn terminate(state: *mut c_void) -> c_int {
    // SAFETY: `state` is the `Stop` that `solve` passed, alive for the whole call.
    let stop = unsafe { &*(state as *const Stop<'_>) };
    let late = stop.deadline.is_some_and(|d| Instant::now() >= d);
    let raised = stop.flag.is_some_and(|f| f.load(Ordering::Relaxed));
    c_int::from(late || raised)
}

/// A CaDiCaL solver.
pub struct Cadical {
    ptr: *mut CCaDiCaL,
    proof: Option<*mut libc::FILE>,
}

/// What a solve found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answer {
    /// A model exists.
    Sat,
    /// None exists (and the proof, if one was asked for, says why).
    Unsat,
    /// Stopped first.
    Stopped,
}

impl Cadical {
    /// A new solver; with `proof`, every step of its reasoning goes to that file as binary
    /// LRAT (see [`crate::certificate::lrat`]).
    ///
    /// # Errors
    /// A proof file that cannot be made.
    pub fn new(proof: Option<&Path>) -> std::io::Result<Cadical> {
        // SAFETY: a fresh solver; released in `drop`.
        let ptr = unsafe { ccadical_init() };
        let mut s = Cadical { ptr, proof: None };
        s.option("quiet", 1);
        if let Some(path) = proof {
            s.option("lrat", 1);
            s.option("binary", 1);
            let name = CString::new(path.to_string_lossy().as_bytes())
                .map_err(|_| std::io::Error::other("a proof path with a NUL byte"))?;
            // SAFETY: both strings are NUL-terminated and live through the call.
            let file = unsafe { libc::fopen(name.as_ptr(), c"wb".as_ptr()) };
            if file.is_null() {
                return Err(std::io::Error::last_os_error());
            }
            // SAFETY: the solver is still configuring (no clause added); CaDiCaL writes to
            // `file` until `close_proof`, and `drop` closes it after that.
            unsafe { ccadical_trace_proof(s.ptr, file, name.as_ptr()) };
            s.proof = Some(file);
        }
        Ok(s)
    }

    fn option(&mut self, name: &str, value: i32) {
        let name = CString::new(name).expect("option names have no NUL");
        // SAFETY: a valid solver and a NUL-terminated name.
        unsafe { ccadical_set_option(self.ptr, name.as_ptr(), value) };
    }

    /// Adds the clauses of `cnf` through a DIMACS file written in `dir` (removed after): read
    /// from a file, CaDiCaL numbers the clauses 1, 2, ... in order before it derives any,
    /// as an LRAT proof's checker numbers them. (Added one by one, a clause it strengthens
    /// on arrival takes the next number, and the later clauses' numbers shift.)
    ///
    /// # Errors
    /// The file cannot be written, or CaDiCaL cannot read it (a bug).
    pub fn add_via_file(&mut self, cnf: &super::cnf::Cnf, dir: &Path) -> std::io::Result<()> {
        let mut file = tempfile::Builder::new()
            .prefix("castle-cnf-")
            .tempfile_in(dir)?;
        {
            let mut w = std::io::BufWriter::new(file.as_file_mut());
            cnf.write_dimacs(&mut w)?;
            std::io::Write::flush(&mut w)?;
        }
        let name = CString::new(file.path().to_string_lossy().as_bytes())
            .map_err(|_| std::io::Error::other("a path with a NUL byte"))?;
        let mut vars: c_int = 0;
        // SAFETY: a valid solver, a NUL-terminated path, `vars` lives through the call.
        let err = unsafe { ccadical_read_dimacs(self.ptr, name.as_ptr(), &mut vars, 1) };
        if !err.is_null() {
            // SAFETY: CaDiCaL returns a NUL-terminated message it owns.
            let msg = unsafe { std::ffi::CStr::from_ptr(err) }.to_string_lossy();
            return Err(std::io::Error::other(format!(
                "CaDiCaL cannot read the CNF: {msg}"
            )));
        }
        Ok(())
    }

    /// Adds the clauses of `flat` (DIMACS literals, each clause ended by a 0).
    pub fn add_flat(&mut self, flat: &[i32]) {
        for &l in flat {
            // SAFETY: a valid solver; literals are nonzero DIMACS literals or the 0 that
            // ends a clause.
            unsafe { ccadical_add(self.ptr, l) };
        }
    }

    /// Solves until an answer or `stop`.
    pub fn solve(&mut self, stop: &Stop<'_>) -> Answer {
        let state = stop as *const Stop<'_> as *mut c_void;
        // SAFETY: `stop` outlives the call; the callback is removed before returning.
        let r = unsafe {
            ccadical_set_terminate(self.ptr, state, Some(terminate));
            let r = ccadical_solve(self.ptr);
            ccadical_set_terminate(self.ptr, std::ptr::null_mut(), None);
            r
        };
        match r {
            10 => Answer::Sat,
            20 => Answer::Unsat,
            _ => Answer::Stopped,
        }
    }

    /// The value of `lit` in the model of the last `Sat` answer.
    pub fn value(&self, lit: i32) -> bool {
        // SAFETY: a valid solver after a satisfiable solve.
        unsafe { ccadical_val(self.ptr, lit) > 0 }
    }

    /// Ends the proof: CaDiCaL flushes and closes the file.
    pub fn close_proof(&mut self) {
        if let Some(file) = self.proof.take() {
            // SAFETY: a valid solver tracing to `file`; CaDiCaL flushes its buffer, then the
            // file is closed here (CaDiCaL does not close a FILE it was given).
            unsafe {
                ccadical_close_proof(self.ptr);
                libc::fclose(file);
            }
        }
    }
}

impl Drop for Cadical {
    fn drop(&mut self) {
        self.close_proof();
        // SAFETY: the solver was made by `ccadical_init` and is released once.
        unsafe { ccadical_release(self.ptr) };
    }
}

// SAFETY: the solver is owned by this value and used from one thread at a time.
unsafe impl Send for Cadical {}
