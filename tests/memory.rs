//! `--memory` is a bound on the whole process: the release binary, run as a child on a deal
//! that needs far more than the budget (the hard lost deal of `data/bench`, which the exact
//! search proves near 600 MiB; the suit-blind quotient is off, as it proves the deal in a few
//! MiB), must keep its peak resident set within 10% of the budget plus a fixed allowance, and
//! must have grown to most of it (else the budget never bound and the test proved nothing).
//! The peak is the kernel's (`wait4`'s `ru_maxrss`), not the solver's own account, so
//! whatever the account misses shows here. The runs are cut by nodes, not seconds, so the
//! table reaches its budget however busy the machine.
//!
//! A test binary of its own, not a module of `tests/it`: Linux records the spawning process's
//! high-water mark in the child's `ru_maxrss` when the child execs (posix_spawn shares the
//! parent's memory until then), so the parent must stay small. In the one binary of the other
//! tests, big solves in other threads made `--memory 64` read as a 180 MiB peak.

#![cfg(target_os = "linux")]

use std::process::{Command, Stdio};

/// What the process holds outside the solve's account, whatever the budget: the binary's
/// resident set at start (4.3 MiB measured, `/usr/bin/time -v castle --version`), the
/// threads' stacks, the deal, the allocator's bookkeeping. Fixed, not proportional.
const ALLOWANCE_MIB: f64 = 8.0;

/// Runs `castle solve --no-quotient` on the hard lost deal with `--memory mib` for at most
/// `nodes`; returns its peak resident set in MiB and its standard output.
// The child is reaped by `wait4` below, which also gives its peak resident set.
#[allow(clippy::zombie_processes)]
fn peak_mib(mib: usize, nodes: u64) -> (f64, String) {
    let deal = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/data/bench/hard-unsolvable.fcs"
    );
    let child = Command::new(env!("CARGO_BIN_EXE_castle"))
        .args(["solve", "--deal", deal, "-q", "--no-quotient", "--memory"])
        .arg(mib.to_string())
        .arg("--max-nodes")
        .arg(nodes.to_string())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start castle");
    let pid = child.id() as libc::pid_t;
    let mut stdout = child.stdout.expect("a pipe");
    let mut text = String::new();
    std::io::Read::read_to_string(&mut stdout, &mut text).expect("read the child's output");
    let mut status = 0;
    // SAFETY: `rusage` is plain data the call fills in; `pid` is our child, not yet reaped
    // (the `Child` was consumed above, so nothing else waits for it).
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(r, pid, "wait4 failed");
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "castle failed with status {status}: {text}"
    );
    // Linux reports `ru_maxrss` in KiB.
    (usage.ru_maxrss as f64 / 1024.0, text)
}

/// `nodes`: enough for the table to reach the budget (measured: 8 M nodes peak at 73.4 MiB
/// with `--memory 64`, 11 CPU s; 25 M at 262.2 MiB with `--memory 256`, 36 CPU s).
fn check(mib: usize, nodes: u64) {
    let (peak, text) = peak_mib(mib, nodes);
    // Cut short by the nodes or the budget, or proved lost: never a win.
    assert!(
        text.lines()
            .any(|l| l.starts_with("unknown:") || l.starts_with("unsolvable")),
        "verdict: {text}"
    );
    let bound = 1.10 * mib as f64 + ALLOWANCE_MIB;
    eprintln!("--memory {mib}: peak {peak:.1} MiB, bound {bound:.1} MiB");
    assert!(
        peak <= bound,
        "--memory {mib}: peak resident {peak:.1} MiB > {bound:.1} MiB"
    );
    assert!(
        peak >= 0.75 * mib as f64,
        "--memory {mib}: peak resident {peak:.1} MiB, the budget never bound"
    );
}

#[test]
fn memory_64_bounds_the_process() {
    check(64, 8_000_000);
}

#[test]
fn memory_256_bounds_the_process() {
    check(256, 25_000_000);
}
