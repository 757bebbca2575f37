//! Runs `tests/it/slurm.sh`: docs/cluster.md's Slurm array script on a real one-node Slurm
//! (munged, slurmctld and slurmd on the loopback of a private network namespace), merged with
//! `castle stats` and compared with one local batch; then an array task cancelled while it
//! runs and resubmitted, with no row lost or doubled. It starts daemons and needs root and
//! Debian's slurm-wlm and munge, so it runs only with `CASTLE_SLURM=1` (as `.ci/run` sets
//! it, after installing them); otherwise it says so and passes.

#[test]
fn the_docs_slurm_array_runs_on_a_real_slurm_and_survives_a_cancel() {
    if std::env::var("CASTLE_SLURM").as_deref() != Ok("1") {
        eprintln!("skipped: set CASTLE_SLURM=1 to start a one-node Slurm (tests/it/slurm.sh)");
        return;
    }
    let stdout = crate::common::run_script("slurm.sh");
    assert!(
        stdout.contains("no row lost or doubled") || stdout.contains("skipped: "),
        "{stdout}"
    );
}
