//! Runs `tests/it/shards.sh`: the cluster recipes (GNU parallel, a Slurm array task) on one
//! machine, merged with `castle stats` and compared with one unsharded run. The script skips,
//! saying so, when GNU parallel is not installed outside CI.

#[test]
fn shards_through_gnu_parallel_and_slurm_merge_to_one_run() {
    let stdout = crate::common::run_script("shards.sh");
    assert!(
        stdout.contains("ok: ") || stdout.contains("skipped: "),
        "{stdout}"
    );
}
