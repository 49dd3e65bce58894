"""Pyramidion's checkpoints for the quality findings (``analyzer/model/flow.py``, issue #36).

A round is the eight phases of docs/rules/pyramidion.md §5; the end (§6) is the last
checkpoint. The visible score is each seat's VP; the estimate is the search player's leaf
(``heuristic_returns`` at ``leaf_good``, ``leaf_tile``, ``leaf_scale``). Nobody is eliminated.
"""

from __future__ import annotations

from analyzer.games.pyramidion.engine import LEAF_SCALE
from analyzer.games.pyramidion.search import PyramidionIsmcts
from analyzer.model.flow import Flow

_LEAF = PyramidionIsmcts()

FLOW = Flow(
    rounds_done=lambda g: g.st.round - 1,
    scores=lambda g: g.st.vp,
    estimate=_LEAF.leaf_returns,
    # the estimate's own scale: a seat this many VP ahead is e times as likely to win
    close_margin=LEAF_SCALE,
    round_name="round",
)
