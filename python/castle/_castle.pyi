"""Type stubs of castle's native module (re-exported by `castle`)."""

import os
from typing import Any, Dict, Iterable, Iterator, List, Optional, Tuple, Union

__version__: str

class InputError(ValueError):
    """Bad input: the message is the one the castle command prints."""

class VerifyError(ValueError):
    """A move list that does not check out (the first illegal move, or a wrong verdict)."""

Source = Union[str, bytes, "os.PathLike[str]"]

class Deal:
    """A deal: `str(deal)` is castle's text format; piles are lists of card names."""

    @property
    def variant(self) -> str: ...
    @property
    def seed(self) -> Optional[int]: ...
    @property
    def numbering(self) -> Optional[str]: ...
    @property
    def options(self) -> Dict[str, Any]: ...
    @property
    def tableau(self) -> List[List[str]]: ...
    @property
    def foundations(self) -> List[List[str]]: ...
    @property
    def reserve(self) -> List[str]: ...
    @property
    def stock(self) -> List[str]: ...
    @property
    def waste(self) -> List[str]: ...
    def to_json(self) -> str: ...
    def to_dict(self) -> Dict[str, Any]: ...
    def __eq__(self, other: object) -> bool: ...

class Result:
    """What a solve found: verdict, moves (for a win), and what it cost."""

    @property
    def verdict(self) -> str: ...
    @property
    def solvable(self) -> bool: ...
    @property
    def moves(self) -> List[Dict[str, Any]]: ...
    @property
    def nodes(self) -> int: ...
    @property
    def states(self) -> int: ...
    @property
    def seconds(self) -> float: ...
    @property
    def cpu_seconds(self) -> Optional[float]: ...
    @property
    def phase(self) -> Optional[str]: ...
    @property
    def limit(self) -> Optional[str]: ...
    @property
    def score(self) -> Optional[int]: ...
    @property
    def deal(self) -> Deal: ...
    def to_json(self) -> str: ...
    def to_dict(self) -> Dict[str, Any]: ...

class BatchRows(Iterator[Dict[str, Any]]):
    """The rows of a running castle.batch, as dicts, in the order deals are decided."""

    def __iter__(self) -> "BatchRows": ...
    def __next__(self) -> Dict[str, Any]: ...
    def close(self) -> None: ...

def deal(
    variant: str = "bc",
    seed: int = 42,
    numbering: str = "castle",
    *,
    start_rank: Optional[int] = None,
    foundation_return: Optional[bool] = None,
    sequence_moves: Optional[str] = None,
) -> Deal: ...
def read_deal(
    source: Source,
    variant: Optional[str] = None,
    *,
    start_rank: Optional[int] = None,
    foundation_return: Optional[bool] = None,
    sequence_moves: Optional[str] = None,
    format: Optional[str] = None,
) -> Deal: ...
def solve(
    deal_or_seed: Union[Deal, int, Source],
    variant: Optional[str] = None,
    *,
    max_seconds: Optional[float] = None,
    max_nodes: Optional[int] = None,
    memory_mib: int = 4096,
    threads: int = 1,
    short: Union[bool, int] = False,
    numbering: str = "castle",
) -> Result: ...
def verify(result_or_json: Union[Result, Dict[str, Any], Source]) -> bool: ...
def batch(
    seeds: Union[range, Iterable[int], int, str],
    variant: str = "bc",
    *,
    threads: Optional[int] = None,
    max_seconds: Optional[float] = None,
    max_nodes: Optional[int] = None,
    memory_mib: int = 4096,
    numbering: str = "castle",
    one_pass: bool = False,
    start_rank: Optional[int] = None,
    foundation_return: Optional[bool] = None,
    sequence_moves: Optional[str] = None,
) -> BatchRows: ...
def stats(rows: Any, by_group: bool = False) -> Any:
    """A summary dict (or, with by_group, a list of them)."""
def wilson(k: int, n: int) -> Tuple[float, float]: ...
def variants() -> List[Tuple[str, List[str], str]]: ...
def winnable(
    variant: str,
    seed: int,
    numbering: str = "castle",
    *,
    start_rank: Optional[int] = None,
    foundation_return: Optional[bool] = None,
    sequence_moves: Optional[str] = None,
) -> Optional[bool]: ...
def difficulty(deal: Deal) -> Optional[str]: ...
def winnable_deals(
    variant: str,
    count: int = 1,
    *,
    start: Optional[int] = None,
    random_seed: Optional[int] = None,
    difficulty: Optional[str] = None,
    numbering: str = "castle",
    start_rank: Optional[int] = None,
    foundation_return: Optional[bool] = None,
    sequence_moves: Optional[str] = None,
) -> List[Dict[str, Any]]: ...
