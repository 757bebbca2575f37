#!/usr/bin/env bash
# docs/cluster.md's Slurm array script, run on a real one-node Slurm on this machine: munged,
# slurmctld and slurmd started here with a minimal slurm.conf in a temporary directory, in a
# private network namespace whose only interface is the loopback (nothing listens outside
# 127.0.0.0/8). Then:
#   1. the array script as the docs write it (only the range and the shard count made small:
#      4 shards of 1..40) is submitted, waited for, merged with `castle stats`, and compared
#      with one local batch of the same range (the same summary, the same rows but times);
#   2. the same over 1..2000, with array task 2 cancelled (scancel) while it runs, after its
#      first rows, and resubmitted alone: the batch resumes, and the merge again equals one
#      local batch, every seed in exactly one row.
# Every wait is bounded; every daemon started is stopped on exit.
# Usage: CASTLE=path/to/castle tests/it/slurm.sh   (run by tests/it/slurm.rs)
# Needs root, unshare, ip, and Debian's slurm-wlm and munge (.ci/run installs them).
set -euo pipefail
castle=${CASTLE:?set CASTLE to the castle binary}
docs=$(cd "$(dirname "$0")/../.." && pwd)/docs/cluster.md

skip() {
    if [ -n "${CI:-}" ]; then
        echo "cannot run Slurm here: $1 (.ci/run installs slurm-wlm and munge)" >&2
        exit 1
    fi
    echo "skipped: $1"
    exit 0
}
for tool in munged mungekey slurmctld slurmd sbatch squeue scancel scontrol unshare ip; do
    command -v "$tool" >/dev/null 2>&1 || skip "$tool is not installed (apt-get install slurm-wlm munge)"
done
[ "$(id -u)" -eq 0 ] || skip "not root (the daemons and the network namespace need root)"

# A network namespace of our own: only the loopback exists, so every port the daemons open
# is reachable from this machine alone, and no other Slurm or munge on the host is touched.
if [ -z "${CASTLE_SLURM_NETNS:-}" ]; then
    exec unshare --net env CASTLE_SLURM_NETNS=1 bash "$0" "$@"
fi
ip link set lo up
# slurmctld and slurmd resolve their listening address with AI_ADDRCONFIG, which ignores
# 127.0.0.1 itself: with no other address they cannot bind ("Address family not supported
# by protocol"). A second loopback address (on lo, in this namespace alone) is enough.
ip addr add 127.0.0.2/32 dev lo

dir=$(mktemp -d)
chmod 700 "$dir"
stop() {
    # The daemons, by the pids they wrote, last started first; TERM, then KILL after 10 s.
    for name in slurmd slurmctld munged; do
        pid=$(cat "$dir/$name.pid" 2>/dev/null || true)
        [ -n "$pid" ] || continue
        kill "$pid" 2>/dev/null || continue
        for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$pid" 2>/dev/null || true
    done
}
fail() {
    echo "slurm.sh: $*" >&2
    for log in "$dir"/log/*.log; do echo "== $log" >&2; tail -n 20 "$log" >&2; done
    exit 1
}
trap 'stop; rm -rf "$dir"' EXIT
mkdir -p "$dir/munge" "$dir/state" "$dir/spool" "$dir/log" "$dir/bin" "$dir/run1" "$dir/run2"
chmod 700 "$dir/munge"
mungekey -c -k "$dir/munge/munge.key"
munged --socket="$dir/munge/munge.sock" --key-file="$dir/munge/munge.key" \
    --log-file="$dir/log/munged.log" --pid-file="$dir/munged.pid" \
    --seed-file="$dir/munge/munge.seed" --force
# The node is declared with 2 CPUs and 8 GiB (the docs' script asks --cpus-per-task=2
# --mem=8G); config_overrides keeps a smaller machine from being drained for it (memory is
# not enforced: no cgroups, task/none).
cat > "$dir/slurm.conf" <<CONF
ClusterName=castle-test
SlurmctldHost=localhost(127.0.0.1)
SlurmUser=root
SlurmctldPort=16817
SlurmdPort=16818
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.sock
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmdParameters=config_overrides
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
KillWait=10
MinJobAge=600
NodeName=localhost NodeAddr=127.0.0.1 CPUs=2 RealMemory=8192 State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$dir/slurm.conf"
slurmctld -i || fail "slurmctld did not start"
slurmd -N localhost || fail "slurmd did not start"
up=
for _ in $(seq 60); do
    if timeout 5 sinfo -h -o %T 2>/dev/null | grep -q idle; then up=1; break; fi
    sleep 1
done
[ -n "$up" ] || fail "the node did not come up within 60 s"

# The array script exactly as docs/cluster.md gives it (the code block after "A Slurm
# array"), with its range and shard count made small.
ln -s "$castle" "$dir/bin/castle"
export PATH="$dir/bin:$PATH"
script() { # RANGE -> the script on stdout
    awk '/A Slurm array/ {on=1} on && /```sh/ {inside=1; next} inside && /```/ {exit} inside {sub(/^  /, ""); print}' "$docs" |
        sed -e 's/--array=0-15/--array=0-3/' -e 's|/16"|/4"|' -e "s/1\.\.1000000/$1/"
}
script 1..40 > "$dir/array.sh"
grep -q 'castle batch --variant beleaguered-castle --seeds 1..40' "$dir/array.sh" ||
    fail "docs/cluster.md's array script is not where this test reads it: $(cat "$dir/array.sh")"
grep -q -- '--shard "$SLURM_ARRAY_TASK_ID/4"' "$dir/array.sh" || fail "no --shard in $(cat "$dir/array.sh")"

wait_done() { # JOB SECONDS: until no task of JOB is pending or running
    for _ in $(seq "$(($2 * 2))"); do
        [ -z "$(squeue -h -j "$1" 2>/dev/null)" ] && return 0
        sleep 0.5
    done
    fail "job $1 not done within $2 s: $(squeue -j "$1")"
}
states() { # JOB: the state of each of its tasks, one per line
    scontrol -o show job "$1" | grep -o 'JobState=[A-Z_]*' | cut -d= -f2 | sort | uniq -c |
        awk '{print $1, $2}'
}
rows() { tail -q -n +2 "$@" | cut -d, -f1-9,11-14,16- | sort -t, -k1,1n; }
same_as_local() { # DIR RANGE DEALS
    (cd "$1" && castle batch --variant beleaguered-castle --seeds "$2" --csv whole.csv --quiet)
    castle stats "$1"/bc-[0-3].csv --format csv > "$1/merged-summary.csv"
    castle stats "$1/whole.csv" --format csv > "$1/whole-summary.csv"
    diff "$1/merged-summary.csv" "$1/whole-summary.csv" || fail "$2: the merged summary differs"
    dups=$(tail -q -n +2 "$1"/bc-[0-3].csv | cut -d, -f1 | sort -n | uniq -d)
    [ -z "$dups" ] || fail "$2: seeds in more than one row: $dups"
    diff <(rows "$1"/bc-[0-3].csv) <(rows "$1/whole.csv") || fail "$2: the rows differ"
    [ "$(rows "$1"/bc-[0-3].csv | wc -l)" -eq "$3" ] || fail "$2: not $3 rows"
}

# 1. Four shards of 1..40.
job=$(cd "$dir/run1" && sbatch --parsable "$dir/array.sh") || fail "sbatch refused the script"
wait_done "$job" 180
[ "$(states "$job")" = "4 COMPLETED" ] || fail "job $job: $(states "$job")"
same_as_local "$dir/run1" 1..40 40
echo "ok: the docs' array script ran as 4 Slurm array tasks of 1..40; merged = one local batch"

# 2. Four shards of 1..2000; task 2 cancelled after its first rows, then resubmitted.
script 1..2000 > "$dir/array.sh"
job=$(cd "$dir/run2" && sbatch --parsable "$dir/array.sh") || fail "sbatch refused the script"
cancelled=
for _ in $(seq 1200); do
    state=$(squeue -h -j "${job}_2" -o %T 2>/dev/null || true)
    n=$( { tail -n +2 "$dir/run2/bc-2.csv" 2>/dev/null || true; } | wc -l)
    if [ "$state" = RUNNING ] && [ "$n" -ge 1 ]; then
        scancel "${job}_2"
        cancelled=$n
        break
    fi
    [ -z "$state" ] && [ -f "$dir/run2/bc-2.csv" ] && fail "task 2 ended before it could be cancelled"
    sleep 0.1
done
[ -n "$cancelled" ] || fail "task 2 never ran within 120 s"
wait_done "$job" 600
scontrol -o show job "${job}_2" | grep -q 'JobState=CANCELLED' ||
    fail "task 2 was not cancelled: $(scontrol -o show job "${job}_2")"
kept=$(tail -n +2 "$dir/run2/bc-2.csv" | wc -l)
[ "$kept" -lt 500 ] || fail "task 2 finished its 500 deals before the cancel took effect"
again=$(cd "$dir/run2" && sbatch --parsable --array=2 "$dir/array.sh") || fail "sbatch refused the resubmission"
wait_done "$again" 300
[ "$(states "$again")" = "1 COMPLETED" ] || fail "job $again: $(states "$again")"
same_as_local "$dir/run2" 1..2000 2000
echo "ok: array task 2 of 1..2000 cancelled with $kept of its 500 rows written, resubmitted, resumed: merged = one local batch, no row lost or doubled"
