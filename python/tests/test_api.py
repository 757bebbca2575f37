"""The castle Python API: deals, solves, verification, batches and statistics.

Known answers come from outside the code under test: positions whose verdict is forced (four
kings and nothing else; a position with no legal move), the castle command itself (the
bindings must say what it says), and a Wilson interval computed here from its formula.
"""

import json
import math
import pathlib
import threading
import time

import pytest

import castle
from conftest import need_module, os_threads, run_castle

# Four kings left (the foundations start at queens): each goes home, so the deal is won in
# exactly four moves, every one a king to its foundation.
KINGS = castle.deal("bc", 1, start_rank=12)

# Tens and queens buried under jacks and kings, the foundations at nines: no top card goes
# home (they need tens), a jack needs a queen on top and a king goes on nothing, and no pile
# is empty. No legal move at all: lost.
DEAD_TEXT = """\
variant: beleaguered-castle
start-rank: 9
foundations: 9C 9D 9H 9S
t1: TC JD
t2: TD JC
t3: TH JS
t4: TS JH
t5: QC KD
t6: QD KC
t7: QH KS
t8: QS KH
"""

# Courtyard deal 4 is `unknown` after 2 s (castle batch -v courtyard --seeds 1..20 -j 1
# --max-seconds 2): a search of it is still going after any small budget.
HARD = castle.deal("courtyard", 4)


def wilson(k, n, z=1.959963984540054):
    """The 95% Wilson score interval, from its formula."""
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (max(0.0, centre - half), min(1.0, centre + half))


# --- deals -----------------------------------------------------------------------------------


def test_a_numbered_deal_is_the_castle_commands():
    for variant, seed in [("bc", 42), ("sa", 7), ("citadel", 3), ("courtyard", 9)]:
        d = castle.deal(variant, seed)
        _, out, _ = run_castle("deal", "-v", variant, "--seed", seed, "--format", "json")
        assert d.to_dict() == json.loads(out)
        assert json.loads(d.to_json()) == json.loads(out)
        assert d.seed == seed and d.numbering == "castle"


def test_deal_fields():
    d = castle.deal("bc", 42)
    assert d.variant == "beleaguered-castle"
    assert len(d.tableau) == 8 and all(len(p) == 6 for p in d.tableau)
    assert d.foundations == [["AC"], ["AD"], ["AH"], ["AS"]]
    assert d.options == {"start_rank": 1, "foundation_return": False, "sequence_moves": "single"}
    assert (d.reserve, d.stock, d.waste) == ([], [], [])
    cards = [c for p in d.tableau for c in p] + [c for f in d.foundations for c in f]
    assert len(set(cards)) == 52
    assert repr(d) == "<castle.Deal beleaguered-castle 42>"
    assert castle.deal("streets-and-alleys", 5) == castle.deal("sa", 5)
    assert castle.deal("bc", 5) != castle.deal("bc", 6)
    # The default deal is deal 42 of Beleaguered Castle.
    assert castle.deal() == castle.deal("bc", 42)
    c = castle.deal("castile", 1)
    assert len(c.reserve) == 2
    y = castle.deal("courtyard", 1)
    assert len(y.stock) + sum(map(len, y.tableau)) == 104


def test_rule_options():
    assert [len(f) for f in KINGS.foundations] == [12, 12, 12, 12]
    assert sorted(c for p in KINGS.tableau for c in p) == ["KC", "KD", "KH", "KS"]
    d = castle.deal("bc", 3, foundation_return=True, sequence_moves="unlimited")
    assert d.options == {
        "start_rank": 1,
        "foundation_return": True,
        "sequence_moves": "unlimited",
    }
    assert castle.read_deal(str(d)) == d


def test_text_and_json_read_back_to_the_same_deal():
    for variant in ["bc", "sa", "citadel", "fortress", "castile", "courtyard"]:
        d = castle.deal(variant, 11)
        assert castle.read_deal(str(d)) == d
        assert castle.read_deal(d.to_json()) == d
        assert castle.read_deal(str(d).encode()) == d
    p = castle.deal("citadel", 40000, numbering="pysol")
    again = castle.read_deal(str(p))
    assert again == p and again.numbering == "pysol"
    assert repr(p) == "<castle.Deal citadel 40000 (pysol numbering)>"


def test_read_deal_from_a_file_and_in_fc_solve_format(tmp):
    d = castle.deal("sa", 12)
    f = tmp / "deal.txt"
    f.write_text(str(d))
    assert castle.read_deal(f) == d
    board = "\n".join(" ".join(p) for p in d.tableau) + "\n"
    read = castle.read_deal(board, "sa")
    assert read.tableau == d.tableau and read.seed is None
    assert repr(read) == "<castle.Deal streets-and-alleys (read)>"
    assert castle.read_deal(board, "sa", format="fcs") == read


def test_bad_input_is_an_input_error_with_the_commands_message(tmp):
    assert issubclass(castle.InputError, ValueError)
    bad = str(castle.deal("bc", 42)).replace("QD", "1X", 1)
    f = tmp / "bad.txt"
    f.write_text(bad)
    with pytest.raises(castle.InputError) as e:
        castle.read_deal(f)
    code, _, err = run_castle("solve", "--deal", f, check=False)
    assert code == 2
    assert err.strip() == f"castle: {e.value}"
    assert f"{f}: line " in str(e.value)
    with pytest.raises(castle.InputError, match=r"<string>: line \d+"):
        castle.read_deal(bad)
    # Rules and numbers the library refuses, in its words.
    code, _, err = run_castle("deal", "--seed", "1", "--start-rank", "13", check=False)
    with pytest.raises(castle.InputError) as e:
        castle.deal("bc", 1, start_rank=13)
    assert code == 2 and str(e.value) in err
    with pytest.raises(castle.InputError, match="unknown variant `nope`"):
        castle.deal("nope", 1)
    with pytest.raises(castle.InputError, match="start at 1"):
        castle.deal("bc", 0, numbering="pysol")
    with pytest.raises(castle.InputError, match="not a deal numbering"):
        castle.deal("bc", 1, numbering="windows")
    with pytest.raises(castle.InputError, match="not a sequence-moves rule"):
        castle.deal("bc", 1, sequence_moves="all")
    with pytest.raises(castle.InputError, match="out of range"):
        castle.deal("bc", -1)
    with pytest.raises(castle.InputError, match="the file is empty"):
        castle.read_deal("  \n")
    with pytest.raises(TypeError):
        castle.read_deal(42)


# --- solving ---------------------------------------------------------------------------------


def test_four_kings_are_won_in_four_moves():
    r = castle.solve(KINGS)
    assert r.verdict == "solvable" and r.solvable
    assert sorted(m["card"] for m in r.moves) == ["KC", "KD", "KH", "KS"]
    assert all(m["to"] == "f" and m["from"].startswith("t") for m in r.moves)
    assert r.score == 52 and r.limit is None and r.phase is not None
    assert r.deal == KINGS
    assert castle.verify(r)


def test_a_position_with_no_move_is_lost():
    r = castle.solve(castle.read_deal(DEAD_TEXT))
    assert r.verdict == "unsolvable" and not r.solvable
    assert r.moves == [] and r.limit is None
    assert r.score == 36
    assert castle.verify(r)
    # Its text solves the same.
    assert castle.solve(DEAD_TEXT).verdict == "unsolvable"


def test_a_solve_is_the_castle_commands():
    for variant, seed in [("bc", 42), ("bc", 4), ("sa", 3), ("citadel", 5)]:
        r = castle.solve(seed, variant)
        _, out, _ = run_castle("solve", "-v", variant, "--seed", seed, "--format", "json")
        cli = json.loads(out)
        mine = r.to_dict()
        for key in ["verdict", "moves", "nodes", "states", "phase", "limit", "deal", "spent"]:
            assert mine[key] == cli[key], (variant, seed, key)
        assert json.loads(r.to_json()) == mine
        assert r.moves == cli["moves"] and r.nodes == cli["nodes"]


def test_budgets_end_a_solve_as_unknown():
    r = castle.solve(HARD, max_nodes=5000)
    assert (r.verdict, r.limit, r.phase, r.moves) == ("unknown", "nodes", None, [])
    _, out, _ = run_castle("solve", "-v", "courtyard", "--seed", 4, "--max-nodes", 5000, "-f", "json")
    assert r.nodes == json.loads(out)["nodes"]
    r = castle.solve(HARD, max_seconds=0.3)
    assert (r.verdict, r.limit) == ("unknown", "seconds")
    assert "unknown" in repr(r)
    r = castle.solve(HARD, memory_mib=16, max_nodes=20000)
    assert r.verdict == "unknown"
    for bad in [
        dict(max_seconds=0),
        dict(max_seconds=-1),
        dict(max_seconds=float("nan")),
        dict(memory_mib=0),
        dict(threads=0),
        dict(threads=1000),
        dict(short=-3),
    ]:
        with pytest.raises(castle.InputError):
            castle.solve(KINGS, **bad)


def test_solve_arguments():
    # A number and its deal solve alike (but for the clocks).
    a, b = castle.solve(42).to_dict(), castle.solve(castle.deal("bc", 42)).to_dict()
    for k in ["seconds", "cpu_seconds"]:
        a.pop(k), b.pop(k)
    assert a == b
    with pytest.raises(castle.InputError, match="variant streets-and-alleys given"):
        castle.solve(castle.deal("bc", 1), "sa")
    with pytest.raises(TypeError):
        castle.solve(4.5)
    p = castle.solve(17, "sa", numbering="pysol")
    assert p.deal == castle.deal("sa", 17, numbering="pysol")
    assert p.to_dict()["numbering"] == "pysol"
    # Two threads: the same verdict.
    assert castle.solve(4, threads=2).verdict == castle.solve(4).verdict == "unsolvable"


def test_another_salt_is_another_search_for_a_win():
    # sa 66 at 50,000 nodes: the usual search stops unknown; salt 1 wins it, as the command
    # does, and its line replays.
    r = castle.solve(66, "sa", max_nodes=50000)
    assert r.verdict == "unknown"
    s = castle.solve(66, "sa", max_nodes=50000, salt=1)
    _, out, _ = run_castle("solve", "-v", "sa", "--seed", 66, "--max-nodes", 50000, "--salt", 1, "-f", "json")
    assert s.verdict == "solvable" and s.moves == json.loads(out)["moves"]
    castle.verify(s)
    rows = list(castle.batch([66], "sa", threads=1, max_nodes=50000, one_pass=True, salt=1))
    assert [r["verdict"] for r in rows] == ["solvable"]


def test_short_searches_on_for_a_shorter_win():
    plain = castle.solve(42)
    short = castle.solve(42, short=True)
    assert len(short.moves) <= len(plain.moves)
    assert short.to_dict()["short"]["nodes"] > plain.to_dict()["short"]["nodes"]
    assert castle.verify(short)
    assert castle.solve(42, short=5000).to_dict()["short"]["nodes"] <= 5000 * 5


def test_the_search_lets_other_python_threads_run():
    done = []
    t = threading.Thread(target=lambda: done.append(castle.solve(HARD, max_seconds=2)))
    t.start()
    time.sleep(0.2)
    # The solve holds no GIL: this thread counts on while it searches.
    n, start = 0, time.monotonic()
    while time.monotonic() - start < 0.5:
        n += 1
    assert t.is_alive() and n > 1000
    t.join()
    assert done[0].verdict == "unknown"


# --- verifying -------------------------------------------------------------------------------


def test_verify_takes_a_result_its_json_its_dict_or_a_file(tmp):
    r = castle.solve(42)
    assert castle.verify(r) is True
    assert castle.verify(r.to_json()) is True
    assert castle.verify(r.to_dict()) is True
    f = tmp / "report.json"
    f.write_text(r.to_json())
    assert castle.verify(f) is True
    # The castle command reads the report too.
    _, out, _ = run_castle("verify", f)
    assert out.startswith("ok: 72 moves replay to a won game")


def test_verify_names_the_first_illegal_move():
    r = castle.solve(KINGS).to_dict()
    # A king onto another king's pile: not a legal move.
    first = r["moves"][0]
    other = next(f"t{i + 1}" for i, p in enumerate(KINGS.tableau) if p and f"t{i + 1}" != first["from"])
    r["moves"][0] = {"card": first["card"], "from": first["from"], "to": other}
    assert issubclass(castle.VerifyError, ValueError)
    with pytest.raises(castle.VerifyError, match="move 1"):
        castle.verify(r)
    # A verdict the moves do not bear out.
    won = castle.solve(KINGS).to_dict()
    won["verdict"] = "unsolvable"
    with pytest.raises(castle.VerifyError, match="replay to a won game, but the verdict says"):
        castle.verify(won)
    short = castle.solve(KINGS).to_dict()
    short["moves"].pop()
    with pytest.raises(castle.VerifyError, match="still off the foundations"):
        castle.verify(short)
    with pytest.raises(castle.InputError, match="not a solve report"):
        castle.verify('{"hello": 1}')
    with pytest.raises(castle.InputError, match="the file is empty"):
        castle.verify("")


# --- batches and statistics -----------------------------------------------------------------


def test_a_batch_gives_the_rows_of_castle_batch(tmp):
    rows = list(castle.batch(range(1, 31), threads=2))
    assert sorted(r["seed"] for r in rows) == list(range(1, 31))
    _, out, _ = run_castle("batch", "--seeds", "1..30", "-j", "2")
    header, *lines = out.strip().splitlines()
    assert list(rows[0]) == header.split(",")
    cli = {int(line.split(",")[0]): line.split(",")[5] for line in lines}
    assert {r["seed"]: r["verdict"] for r in rows} == cli
    for r in rows:
        assert r["variant"] == "beleaguered-castle" and r["numbering"] == "castle"
        assert (r["moves"] is None) == (r["verdict"] != "solvable")
        assert r["pass"] >= 1 and r["nodes"] > 0


def test_batch_seeds():
    seeds = lambda s, **kw: sorted(r["seed"] for r in castle.batch(s, threads=1, **kw))  # noqa: E731
    assert seeds("1..3,9") == [1, 2, 3, 9]
    assert seeds([5, 3, 3]) == [3, 5]
    assert seeds(7) == [7]
    assert seeds(range(4, 10, 3)) == [4, 7]
    assert seeds(range(5, 5)) == []
    assert seeds([2], variant="sa", numbering="pysol") == [2]
    rows = list(castle.batch([1, 2], "bc", start_rank=12, threads=1))
    assert {r["verdict"] for r in rows} == {"solvable"} and rows[0]["start_rank"] == 12
    with pytest.raises(castle.InputError, match="--seeds `9..2`"):
        castle.batch("9..2")
    with pytest.raises(castle.InputError, match="seeds"):
        castle.batch([1, -2])
    with pytest.raises(castle.InputError, match="start at 1"):
        castle.batch(range(0, 3), numbering="pysol")
    with pytest.raises(castle.InputError):
        castle.batch(range(1, 3), threads=0)


def test_leaving_a_batch_early_stops_its_threads():
    before = os_threads()
    rows = castle.batch("1..100000", "courtyard", threads=2, max_seconds=600)
    first = next(rows)
    assert first["variant"] == "courtyard"
    rows.close()
    assert list(rows) == []
    wait_for_threads(before)
    it = castle.batch("1..100000", "courtyard", threads=2, max_seconds=600)
    for _ in it:
        break
    del it
    wait_for_threads(before)


def wait_for_threads(before):
    """Waits until the process has no more threads than `before` (a pool's threads end a
    moment after it is dropped); fails after 10 s."""
    if before is None:
        return
    for _ in range(200):
        if os_threads() <= before:
            return
        time.sleep(0.05)
    assert os_threads() <= before


def test_stats_summarise_rows_as_castle_stats(tmp):
    rows = list(castle.batch(range(1, 41), threads=2))
    s = castle.stats(rows)
    won = sum(r["verdict"] == "solvable" for r in rows)
    lost = sum(r["verdict"] == "unsolvable" for r in rows)
    assert (s["deals"], s["winnable"], s["unsolvable"]) == (40, won, lost)
    assert s["unknown"] == 40 - won - lost
    low, high = wilson(won, 40)[0], wilson(won + s["unknown"], 40)[1]
    assert s["win_rate"] == pytest.approx(won / 40)
    assert s["win_rate_low"] == pytest.approx(low) and s["win_rate_high"] == pytest.approx(high)
    lengths = sorted(r["moves"] for r in rows if r["moves"] is not None)
    assert (s["len_min"], s["len_max"]) == (lengths[0], lengths[-1])
    assert (s["duplicates"], s["conflicts"]) == (0, [])
    # Seen twice, counted once.
    again = castle.stats(rows + rows)
    assert again["deals"] == 40 and again["duplicates"] == 40
    # The castle command's summary of the same rows, from its CSV.
    f = tmp / "rows.csv"
    run_castle("batch", "--seeds", "1..40", "-j", "2", "--csv", f)
    _, out, _ = run_castle("stats", "--format", "json", f)
    cli = json.loads(out)
    mine = castle.stats(f)
    for key, value in cli.items():
        if not key.startswith(("nodes_", "len_")):
            assert mine[key] == value, key
    assert castle.stats(pathlib.Path(f))["deals"] == 40


def test_stats_of_several_groups():
    rows = list(castle.batch(range(1, 6), threads=1)) + list(
        castle.batch(range(1, 6), "sa", threads=1)
    )
    with pytest.raises(castle.InputError, match="2 groups"):
        castle.stats(rows)
    groups = castle.stats(rows, by_group=True)
    assert sorted(g["variant"] for g in groups) == ["beleaguered-castle", "streets-and-alleys"]
    assert all(g["deals"] == 5 for g in groups)
    with pytest.raises(castle.InputError, match="no rows"):
        castle.stats([])
    with pytest.raises(castle.InputError, match="row 1"):
        castle.stats([{"seed": 1}])


def test_a_batch_into_pandas(tmp):
    pd = need_module("pandas")
    df = pd.DataFrame(castle.batch(range(1, 21), threads=2))
    assert len(df) == 20 and set(df["seed"]) == set(range(1, 21))
    assert {"seed", "verdict", "moves", "nodes", "phase", "pass"} <= set(df.columns)
    rows = df.to_dict("records")
    assert castle.stats(df) == castle.stats(rows)
    assert castle.stats(df)["deals"] == 20
    # Saved by pandas and read back (empty cells come back as NaN): the same summary.
    f = tmp / "rows.csv"
    df.to_csv(f, index=False)
    assert castle.stats(pd.read_csv(f)) == castle.stats(rows)


def test_wilson_and_variants():
    for k, n in [(0, 10), (7, 10), (10, 10), (695, 1000), (0, 0)]:
        assert castle.wilson(k, n) == pytest.approx(wilson(k, n))
    with pytest.raises(castle.InputError):
        castle.wilson(5, 3)
    names = [v[0] for v in castle.variants()]
    assert names[:3] == ["beleaguered-castle", "streets-and-alleys", "citadel"]
    assert "bc" in castle.variants()[0][1]


def test_the_module_documents_itself():
    assert "exact" in castle.__doc__
    for f in [castle.deal, castle.read_deal, castle.solve, castle.verify, castle.batch, castle.stats]:
        assert f.__doc__ and len(f.__doc__) > 200, f.__name__
    assert castle.solve.__text_signature__.startswith("(deal_or_seed, variant=None, *")
    assert "short=False" in castle.solve.__text_signature__
    assert "seed=42" in castle.deal.__text_signature__
    assert castle.__version__
    stubs = pathlib.Path(castle.__file__).parent
    assert (stubs / "py.typed").exists() and (stubs / "_castle.pyi").exists()
