#!/usr/bin/env bash
# The cluster recipes of docs/cluster.md, run for real on one machine: a range split into 5
# shards, 4 of them run through GNU parallel and the 5th as a Slurm array task would run it
# (SLURM_ARRAY_TASK_ID set, the shard taken from it), merged with `castle stats` and compared
# with one unsharded run: the same summary, and every seed in exactly one shard.
# Usage: CASTLE=path/to/castle tests/it/shards.sh   (run by tests/it/shards.rs)
set -euo pipefail
castle=${CASTLE:?set CASTLE to the castle binary}
if ! command -v parallel >/dev/null 2>&1; then
    if [ -n "${CI:-}" ]; then
        echo "GNU parallel is missing (.ci/run installs it)" >&2
        exit 1
    fi
    echo "skipped: GNU parallel is not installed (apt-get install parallel)"
    exit 0
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
seeds=1..40
budget=(--max-nodes 200000 --threads 1 --quiet)   # one thread: the same nodes every run

parallel --will-cite --jobs 2 "$castle" batch --seeds "$seeds" --shard {}/5 --csv bc-{}.csv \
    "${budget[@]}" ::: 0 1 2 3

SLURM_ARRAY_TASK_ID=4 bash -c '"$0" batch --seeds "$1" --shard "$SLURM_ARRAY_TASK_ID/5" \
    --csv "bc-$SLURM_ARRAY_TASK_ID.csv" "${@:2}"' "$castle" "$seeds" "${budget[@]}"

"$castle" batch --seeds "$seeds" --csv whole.csv "${budget[@]}"

"$castle" stats bc-0.csv bc-1.csv bc-2.csv bc-3.csv bc-4.csv --format csv > merged-summary.csv
"$castle" stats whole.csv --format csv > whole-summary.csv
diff merged-summary.csv whole-summary.csv

# Every seed in exactly one shard, and the rows the same as the unsharded run's (the time
# columns, ms and cpu_ms, left out).
rows() { tail -q -n +2 "$@" | cut -d, -f1-9,11-14,16- | sort -t, -k1,1n; }
dups=$(tail -q -n +2 bc-?.csv | cut -d, -f1 | sort -n | uniq -d)
[ -z "$dups" ] || { echo "seeds in more than one shard: $dups" >&2; exit 1; }
diff <(rows bc-?.csv) <(rows whole.csv)
[ "$(rows bc-?.csv | wc -l)" -eq 40 ]
echo "ok: 5 shards (4 by GNU parallel, 1 as a Slurm array task) = one run of 40 deals"
