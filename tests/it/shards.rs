//! Runs `tests/it/shards.sh`: the cluster recipes (GNU parallel, a Slurm array task) on one
//! machine, merged with `castle stats` and compared with one unsharded run. The script skips,
//! saying so, when GNU parallel is not installed outside CI.

#[test]
fn shards_through_gnu_parallel_and_slurm_merge_to_one_run() {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/it/shards.sh");
    let out = std::process::Command::new("bash")
        .arg(script)
        .env("CASTLE", env!("CARGO_BIN_EXE_castle"))
        .output()
        .expect("bash runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    println!("{stdout}");
    assert!(
        out.status.success(),
        "tests/it/shards.sh failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("ok: ") || stdout.contains("skipped: "),
        "{stdout}"
    );
}
