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

Functions: deal, read_deal, solve, verify, batch, stats, wilson, variants.
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
    read_deal,
    solve,
    stats,
    variants,
    verify,
    wilson,
)

__all__ = [
    "Deal",
    "InputError",
    "Result",
    "VerifyError",
    "__version__",
    "batch",
    "deal",
    "read_deal",
    "solve",
    "stats",
    "variants",
    "verify",
    "wilson",
]
