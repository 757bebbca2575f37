//! The README's examples run: every line of a ```sh block that starts with `castle ` is run,
//! in order, with the built binary in place of `castle`, in a fresh directory that holds only a
//! link to the repository's `data/` (so an example may read `data/...` and write files that
//! a later example reads). Each must exit 0. Lines whose comment says `(long)` or
//! `(interactive)` are skipped: a user can run them, a test cannot wait for them.

use std::path::Path;
use std::process::Command;

/// The `castle ...` lines of the README's ```sh blocks, and whether each is skipped.
fn examples(readme: &str) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    let mut in_sh = false;
    for line in readme.lines() {
        let t = line.trim();
        if t.starts_with("```") {
            in_sh = !in_sh && t == "```sh";
            continue;
        }
        if in_sh && t.starts_with("castle ") {
            let comment = t.split_once(" # ").map_or("", |(_, c)| c);
            let skip = comment.contains("(long)") || comment.contains("(interactive)");
            out.push((t.to_string(), skip));
        }
    }
    out
}

#[test]
fn readme_examples_run() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    let lines = examples(&readme);
    let run: Vec<&String> = lines.iter().filter(|(_, s)| !s).map(|(l, _)| l).collect();
    assert!(run.len() >= 15, "too few README examples found: {lines:?}");

    let dir = tempfile::tempdir().expect("temp dir");
    std::os::unix::fs::symlink(root.join("data"), dir.path().join("data")).expect("link data/");
    let bin = assert_cmd::cargo::cargo_bin("castle");
    let bin = format!("'{}'", bin.display().to_string().replace('\'', r"'\''"));
    for line in run {
        // The shell gives the examples their redirections and quoting, as a user's would.
        let command = format!("{bin}{}", &line["castle".len()..]);
        let out = Command::new("sh")
            .arg("-c")
            .arg(&command)
            .current_dir(dir.path())
            .env("NO_COLOR", "1")
            .output()
            .expect("run sh");
        assert!(
            out.status.success(),
            "README example failed ({}): {line}\nstderr: {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn the_example_finder_reads_only_sh_blocks() {
    let text = "```sh\ncastle deal --seed 1   # one\ncastle bench   # (long)\n```\n\
                ```text\ncastle solve --seed 2\n```\ncastle solve --seed 3\n";
    assert_eq!(
        examples(text),
        vec![
            ("castle deal --seed 1   # one".to_string(), false),
            ("castle bench   # (long)".to_string(), true),
        ]
    );
}
