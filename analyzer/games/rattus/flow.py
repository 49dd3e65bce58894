"""Rattus's checkpoints for the quality findings (``analyzer/model/flow.py``, issue #36).

A round is one turn of every seat (docs/rules/rattus.md §7); the final round (§10.2) and the
end are the last checkpoint. The visible score is the score if the game ended now, before the
last plague (§10.4: cubes in regions and the palace, region-card and diplomat points); the
estimate is the search player's leaf (``heuristic_returns`` at ``leaf_scale``). Nobody is
eliminated.
"""

from __future__ import annotations

from analyzer.games.rattus.engine import HEURISTIC_SCALE
from analyzer.games.rattus.metrics import final_scores
from analyzer.games.rattus.search import RattusIsmcts
from analyzer.model.flow import Flow

_LEAF = RattusIsmcts()

FLOW = Flow(
    rounds_done=lambda g: g.state.turns // g.cfg.n_players,
    scores=lambda g: final_scores(g.state)[0],
    estimate=_LEAF.leaf_returns,
    # the estimate's own scale: a seat this many points ahead is e times as likely to win
    close_margin=HEURISTIC_SCALE,
    round_name="round of turns",
)
