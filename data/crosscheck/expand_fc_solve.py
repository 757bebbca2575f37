#!/usr/bin/env python3
"""Turns a win printed by fc-solve for a beleaguered-castle deal into castle's solve JSON.

    fc-solve -g beleaguered_castle -mi 12000000 -p -t -sam BOARD > OUT
    python3 expand_fc_solve.py OUT SEED CASTLE > beleaguered-castle-SEED-fc-solve.json

BOARD is `castle deal -v bc --seed SEED --format fcs`. fc-solve moves a run of n cards as
one move when empty piles allow it; this script plays each such move as single-card moves
through the empty piles (the usual halving: the top half to an empty pile, the rest to the
target with one pile fewer, the half back on top), so the line has single moves only and
`castle verify` checks every one. It asserts that fc-solve's first board is castle's deal.
"""
import json
import re
import subprocess
import sys

fc_out, seed, castle = sys.argv[1], sys.argv[2], sys.argv[3]
lines = open(fc_out).read().splitlines()
i = 0
while not lines[i].startswith(": "):
    i += 1
piles = []
while i < len(lines) and lines[i].startswith(":"):
    piles.append(lines[i][1:].split())
    i += 1
report = json.loads(subprocess.run(
    [castle, "solve", "-v", "bc", "--seed", seed, "--format", "json", "--max-nodes", "1", "-q"],
    capture_output=True, text=True, check=False).stdout)
assert report["deal"]["tableau"] == piles, "fc-solve's board is not castle's deal"
moves = []


def single(a, b):
    card = piles[a].pop()
    if b == "f":
        moves.append({"card": card, "from": f"t{a + 1}", "to": "f"})
    else:
        piles[b].append(card)
        moves.append({"card": card, "from": f"t{a + 1}", "to": f"t{b + 1}"})


def run(n, a, b, empties):
    if n == 1:
        single(a, b)
        return
    assert empties, f"no empty pile for a {n}-card move"
    e, rest = empties[0], empties[1:]
    k = n // 2
    run(k, a, e, rest)
    run(n - k, a, b, rest)
    run(k, e, b, rest)


for line in lines:
    m = re.match(r"Move (\d+) cards from stack (\d) to stack (\d)", line)
    if m:
        n, a, b = map(int, m.groups())
        run(n, a, b, [j for j in range(8) if not piles[j] and j not in (a, b)])
        continue
    m = re.match(r"Move a card from stack (\d) to the foundations", line)
    if m:
        single(int(m.group(1)), "f")
        continue
    assert not line.startswith("Move"), f"cannot read: {line}"
report.update(verdict="solvable", moves=moves, nodes=0, states=0, seconds=0.0, limit=None,
              source="fc-solve 5.0.0 default search (not castle): its win, runs expanded into "
                     "single moves; nodes, states and seconds are not measured here")
print(json.dumps(report))
