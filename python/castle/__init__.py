"""castle: an exact solver for Beleaguered Castle-family patience games.

Every verdict is exact: "solvable" comes with a winning line that castle's independent
checker has replayed, "unsolvable" means every reachable position was searched, and
"unknown" means a budget ran out first (never a proof either way).

    >>> import castle
    >>> d = castle.deal("bc", 42)          # deal 42 of Beleaguered Castle
    >>> r = castle.solve(d)
    >>> r.verdict, len(r.moves)
    ('solvable', 72)
    >>> castle.verify(r)
    True

Many deals at once, into pandas:

    >>> import pandas as pd
    >>> df = pd.DataFrame(castle.batch(range(1, 1001)))
    >>> castle.stats(df)["win_rate"]

Winnable deals, by difficulty:

    >>> castle.winnable("citadel", 7)
    True
    >>> castle.winnable_deals("sa", 3, random_seed=1, difficulty="hard")
    [{'by': 'table', 'difficulty': 'hard', 'seed': 81162}, ...]
    >>> castle.difficulty(castle.deal("bc", 2))
    'hard'

Functions: deal, read_deal, solve, verify, batch, stats, wilson, variants, winnable,
winnable_deals, difficulty.
Classes: Deal, Result. Errors: InputError (bad input, a ValueError), VerifyError.
"""

from ._castle import (
    Deal,
    InputError,
    Result,
    VerifyError,
    __version__,
    batch,
    deal,
    difficulty,
    read_deal,
    solve,
    stats,
    variants,
    verify,
    wilson,
    winnable,
    winnable_deals,
)

__all__ = [
    "Deal",
    "InputError",
    "Result",
    "VerifyError",
    "__version__",
    "batch",
    "deal",
    "difficulty",
    "read_deal",
    "solve",
    "stats",
    "variants",
    "verify",
    "wilson",
    "winnable",
    "winnable_deals",
]
