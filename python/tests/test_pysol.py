"""castle's PySolFC numbering against pysol_cards, the PySolFC deal generator on PyPI.

pysol_cards deals a game number as PySolFC does (`pysol_cards.deal_game.Game`, with the
PySolFC generators: Microsoft's LCG for small numbers, the Mersenne Twister above) and prints
the board in fc-solve's format: an optional `Foundations:` line (`H-2`: hearts up to the
two), then the piles t1..t8, bottom card first. Cards are rank and suit letters (`TS`), as
castle's. castle's own numbering (src/pysol.rs) must deal the same piles and foundations
for games 1..1000 of all three games.
"""

import pytest

import castle
from conftest import need_module

GAMES = {
    "beleaguered-castle": "beleaguered_castle",
    "streets-and-alleys": "streets_and_alleys",
    "citadel": "citadel",
}
RANKS = "A23456789TJQK"


def pysol_board(game_id, number):
    cards = need_module("pysol_cards.cards")
    deal_game = need_module("pysol_cards.deal_game")
    random_base = need_module("pysol_cards.random_base")
    game = deal_game.Game(
        game_id=game_id,
        game_num=number,
        which_deals=random_base.RandomBase.DEALS_PYSOLFC,
        max_rank=13,
    )
    text = game.calc_layout_string(cards.CardRenderer(print_ts=True))
    heights = {s: 0 for s in "CDHS"}
    piles = []
    for line in text.splitlines():
        if line.startswith("Foundations:"):
            for f in line.split()[1:]:
                suit, rank = f.split("-")
                heights[suit] = RANKS.index(rank) + 1
        else:
            piles.append(line.split())
    return piles, [heights[s] for s in "CDHS"]


@pytest.mark.parametrize("variant", sorted(GAMES))
def test_pysol_numbers_deal_as_pysol_cards(variant):
    for number in range(1, 1001):
        piles, heights = pysol_board(GAMES[variant], number)
        d = castle.deal(variant, number, numbering="pysol")
        assert d.tableau == piles, (variant, number)
        assert [len(f) for f in d.foundations] == heights, (variant, number)
        # Foundations hold each suit from its ace up.
        for suit, pile in zip("CDHS", d.foundations):
            assert pile == [r + suit for r in RANKS[: len(pile)]]
