"""Winnable deals and their difficulty from Python: every deal castle.winnable_deals returns
is solved again by castle.solve and its win replayed by castle.verify; castle.winnable agrees
with the published table's bits (read here from data/tables, not through the library) and
with `castle deal --winnable`; bad arguments are InputErrors naming the argument."""

import json
import subprocess

import pytest

import castle
from conftest import REPO, castle_command

GAMES = ["beleaguered-castle", "streets-and-alleys", "citadel", "fortress", "castile"]


def table_bit(name, seed):
    bits = (REPO / "data" / "tables" / f"{name}-castle-1-100000.bits").read_bytes()
    i = seed - 1
    return bool(bits[i // 8] >> (i % 8) & 1)


def won_by_a_fresh_solve(variant, seed, numbering="castle"):
    r = castle.solve(castle.deal(variant, seed, numbering), max_nodes=5_000_000)
    return r.verdict == "solvable" and castle.verify(r)


@pytest.mark.parametrize("game", GAMES)
def test_every_deal_picked_is_won(game):
    picked = castle.winnable_deals(game, 3, random_seed=11)
    picked += castle.winnable_deals(game, 2, difficulty="easy")
    picked += castle.winnable_deals(game, 2, start=100_001)
    assert [p["by"] for p in picked[-2:]] == ["solve", "solve"]
    for p in picked:
        assert won_by_a_fresh_solve(game, p["seed"]), p
        assert p["difficulty"] in ("easy", "medium", "hard")
    assert all(p["difficulty"] == "easy" for p in picked[3:5])
    assert castle.winnable_deals(game, 3, random_seed=11) == picked[:3]


@pytest.mark.parametrize("game", GAMES)
def test_winnable_is_the_tables_bit(game):
    for seed in range(1, 30):
        assert castle.winnable(game, seed) == table_bit(game, seed), seed


def test_pysol_numbers_across_the_tables_end():
    for p in castle.winnable_deals("citadel", 3, start=31999, numbering="pysol"):
        assert won_by_a_fresh_solve("citadel", p["seed"], "pysol"), p


def test_difficulty_is_the_commands():
    cmd = castle_command()
    out = subprocess.run(
        [cmd, "deal", "-v", "sa", "--winnable", "--count", "5", "--format", "json"],
        check=True, capture_output=True, text=True,
    ).stdout
    rows = [json.loads(line) for line in out.splitlines()]
    assert [r["seed"] for r in rows] == [p["seed"] for p in castle.winnable_deals("sa", 5)]
    for r in rows:
        assert castle.difficulty(castle.deal("sa", r["seed"])) == r["difficulty"]


def test_rule_options_are_solved_and_have_no_difficulty():
    picked = castle.winnable_deals("fortress", 2, foundation_return=True)
    for p in picked:
        assert p["by"] == "solve" and p["difficulty"] is None
    assert castle.difficulty(castle.deal("bc", 1, start_rank=12)) is None


def test_bad_arguments_name_themselves():
    with pytest.raises(castle.InputError, match="difficulty"):
        castle.winnable_deals("bc", 1, difficulty="extreme")
    with pytest.raises(castle.InputError, match="count"):
        castle.winnable_deals("bc", 0)
    with pytest.raises(castle.InputError, match="difficulty"):
        castle.winnable_deals("bc", 1, difficulty="hard", start_rank=3)
    with pytest.raises(castle.InputError, match="variant"):
        castle.winnable("nope", 1)
