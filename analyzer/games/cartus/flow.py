"""Rattus Cartus's checkpoints for the quality findings (``analyzer/model/flow.py``, issue #36).

A round is phases A–E of docs/rules/cartus.md §4; the end (§7) is the last checkpoint. The
visible score is the VP if the game were scored now (§7, ``scoring.outcome``); the estimate
is the search player's leaf (``heuristic_returns`` at ``leaf_scale`` and ``leaf_rats``). A
seat the plague kills at the end (§7.1) is out: Cartus eliminates, at its end only.
"""

from __future__ import annotations

from analyzer.games.cartus import scoring
from analyzer.games.cartus.search import CartusIsmcts
from analyzer.model.flow import Flow

_LEAF = CartusIsmcts()


def _scores(st):
    out = st.outcome if st.outcome is not None else scoring.outcome(st)
    return out.scores


def _out(st):
    if st.outcome is None:
        return (False,) * st.n
    return tuple(not a for a in st.outcome.alive)


FLOW = Flow(
    rounds_done=lambda st: st.round - 1,
    scores=_scores,
    estimate=_LEAF.leaf_returns,
    # the search leaf's scale (leaf_scale, VP): a seat this many VP ahead is e times as likely
    close_margin=_LEAF.leaf_scale,
    out=_out,
    round_name="round",
)
