//! Running fc-solve as a child process: finding the executable ([`fc_solve_path`]), and
//! [`run`]ning it with its board on standard input, a time limit, an optional address-space
//! cap, its output drained and its peak resident memory measured.

use super::FC_SOLVE_ENV;
use std::path::{Path, PathBuf};

/// The fc-solve executable: [`FC_SOLVE_ENV`] if set (a path, or a name looked up on `PATH`;
/// empty means none), else `fc-solve` on `PATH`. `None` if there is no such executable file.
pub fn fc_solve_path() -> Option<PathBuf> {
    match std::env::var_os(FC_SOLVE_ENV) {
        Some(v) if v.is_empty() => None,
        Some(v) => find_executable(Path::new(&v)),
        None => find_executable(Path::new("fc-solve")),
    }
}

pub(super) fn find_executable(name: &Path) -> Option<PathBuf> {
    if name.components().count() > 1 {
        return is_executable(name).then(|| name.to_path_buf());
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| is_executable(p))
}

fn is_executable(p: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(p) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        meta.is_file() && meta.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    {
        meta.is_file()
    }
}

pub(super) use sys::run;

/// How the child ended.
pub enum Exit {
    Code(i32),
    Signal(i32),
}

/// A finished run: its output, how it ended, and what it cost.
pub struct Finished {
    pub stdout: String,
    pub stderr: String,
    pub exit: Exit,
    pub timed_out: bool,
    pub seconds: f64,
    pub peak_rss_bytes: Option<u64>,
}

#[cfg(unix)]
mod sys {
    //! Running the child: stdin written, stdout and stderr drained on threads, `wait4`
    //! polled for its exit and its resource usage.
    use std::io::{Read, Write};
    use std::os::unix::process::CommandExt;
    use std::path::{Path, PathBuf};
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};

    use super::{Exit, Finished};

    fn drain(r: Option<impl Read + Send + 'static>) -> std::thread::JoinHandle<String> {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            if let Some(mut r) = r {
                let _ = r.read_to_end(&mut buf);
            }
            String::from_utf8_lossy(&buf).into_owned()
        })
    }

    /// The peak resident memory (`VmHWM`) in a `/proc/*/status` file, in bytes.
    fn hwm(status_file: &Path) -> Option<u64> {
        let s = std::fs::read_to_string(status_file).ok()?;
        let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
        let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kb * 1024)
    }

    /// `wait4` on `pid`, retrying on `EINTR`: `Some((status, rusage))` once it has exited.
    fn wait4(pid: libc::pid_t, block: bool) -> std::io::Result<Option<(i32, libc::rusage)>> {
        loop {
            let mut status = 0;
            // SAFETY: rusage is plain old data; all zeroes is a valid value.
            let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
            let flags = if block { 0 } else { libc::WNOHANG };
            // SAFETY: both pointers are to live locals of the right types.
            let r = unsafe { libc::wait4(pid, &mut status, flags, &mut ru) };
            if r == pid {
                return Ok(Some((status, ru)));
            }
            if r == 0 {
                return Ok(None);
            }
            let e = std::io::Error::last_os_error();
            if e.kind() != std::io::ErrorKind::Interrupted {
                return Err(e);
            }
        }
    }

    pub fn run(
        exe: &Path,
        args: &[&str],
        input: &str,
        timeout: Duration,
        max_memory_bytes: Option<u64>,
    ) -> std::io::Result<Finished> {
        let mut cmd = Command::new(exe);
        cmd.args(args)
            .env("FREECELL_SOLVER_QUIET", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(cap) = max_memory_bytes {
            let limit = libc::rlimit {
                rlim_cur: cap as libc::rlim_t,
                rlim_max: cap as libc::rlim_t,
            };
            // SAFETY: the closure runs in the forked child before exec, where only
            // async-signal-safe calls are sound: it makes one `setrlimit` system call on a
            // value copied into the closure, allocates nothing, takes no lock, and touches
            // no state shared with the parent's other threads.
            unsafe {
                cmd.pre_exec(move || {
                    if libc::setrlimit(libc::RLIMIT_AS, &limit) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                    Ok(())
                });
            }
        }
        let t0 = Instant::now();
        let mut child = cmd.spawn()?;
        let pid = child.id() as libc::pid_t;
        // The child's `ru_maxrss` is at least this process's resident memory when it was
        // spawned (Linux keeps the larger of the pre-exec address space's peak, a copy or
        // the very image of this process, and the program's own); read after spawn
        // returns, i.e. after the exec, this bounds that part.
        let parent_peak = hwm(Path::new("/proc/self/status"));
        let status_file = PathBuf::from(format!("/proc/{pid}/status"));
        let mut sampled: Option<u64> = None;
        let out = drain(child.stdout.take());
        let err = drain(child.stderr.take());
        if let Some(mut stdin) = child.stdin.take() {
            // A child that dies before reading its board shows in its exit status.
            let _ = stdin.write_all(input.as_bytes());
        }
        let mut pause = Duration::from_millis(1);
        let mut timed_out = false;
        let (status, ru) = loop {
            if let Some(done) = wait4(pid, false)? {
                break done;
            }
            // Its own peak so far (gone once it has exited, so sampled while it runs; not in
            // the first milliseconds, while the program is still being loaded).
            if t0.elapsed() >= Duration::from_millis(2) {
                sampled = sampled.max(hwm(&status_file));
            }
            if t0.elapsed() >= timeout {
                // Not yet reaped, so the pid is still this child's.
                let _ = child.kill();
                timed_out = true;
                match wait4(pid, true)? {
                    Some(done) => break done,
                    None => unreachable!("a blocking wait4 returns only when the child exits"),
                }
            }
            std::thread::sleep(pause.min(timeout.saturating_sub(t0.elapsed())));
            pause = (pause * 2).min(Duration::from_millis(20));
        };
        let seconds = t0.elapsed().as_secs_f64();
        // The child was reaped by wait4 above; `child` is dropped without waiting on it.
        drop(child);
        let exit = if libc::WIFSIGNALED(status) {
            Exit::Signal(libc::WTERMSIG(status))
        } else {
            Exit::Code(libc::WEXITSTATUS(status))
        };
        // Linux reports ru_maxrss in kilobytes. Above this process's own peak it can only be
        // the child's; otherwise it may be ours, and the child's peak is the last sample.
        let reported = u64::try_from(ru.ru_maxrss).ok().map(|kb| kb * 1024);
        let peak = match (reported, parent_peak) {
            (Some(r), Some(p)) if r > p => Some(r),
            _ => sampled,
        };
        Ok(Finished {
            stdout: out.join().unwrap_or_default(),
            stderr: err.join().unwrap_or_default(),
            exit,
            timed_out,
            seconds,
            peak_rss_bytes: peak,
        })
    }
}

#[cfg(not(unix))]
mod sys {
    //! fc-solve runs need Unix process control (`wait4`, `setrlimit`).
    use std::path::Path;
    use std::time::Duration;

    use super::Finished;

    pub fn run(
        _: &Path,
        _: &[&str],
        _: &str,
        _: Duration,
        _: Option<u64>,
    ) -> std::io::Result<Finished> {
        Err(std::io::Error::new(
            std::io::ErrorKind::Unsupported,
            "fc-solve runs need a Unix system",
        ))
    }
}
