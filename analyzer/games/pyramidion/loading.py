"""Phase 7, loading boats (docs/rules/pyramidion.md §5 phase 7): which loads are legal and how a
load is paid. Pure functions of the state; the engine adds the record keeping and the log."""

# Loop style (compiled with mypyc; the same in every compiled module): the builtins sum, max, min,
# any and all wherever one of them does the job; a loop is written out only where one pass does
# more (several results at once, float terms computed on the way, an index found) or needs i64.

from __future__ import annotations

from analyzer.games.pyramidion.config import ORDINARY, STATUE
from analyzer.games.pyramidion.state import State


def load_options(st: State, p: int) -> tuple:
    """Legal loads for seat ``p`` (§5 phase 7, fixed notes).

    Returns
    -------
    tuple of (int, tuple of int)
        ``(boat id, sites whose unused slave-driver tiles are used)`` for each boat on display
        (by number) and each usable count of tiles per kind (the lowest sites of a kind first):
        a tile only for a kind the boat needs, only while the supply holds that good, at most
        as many as units of that kind. The rest must be payable with own goods first, statues
        for what is lacking; boats that cannot be paid are left out.
    """
    cfg = st.cfg
    g = st.goods[p]
    statues = g[STATUE]
    limited = cfg.supply_limited
    tiles: list[list[int]] = [[] for _ in range(ORDINARY)]
    if p in st.sd_owner:
        for s in range(cfg.n_sites):
            if st.sd_owner[s] == p and not st.sd_used[s]:
                k = cfg.site_kind[s]
                if not limited or st.supply[k] > 0:
                    tiles[k].append(s)
    out = []
    items, plain = cfg.boat_need_items, cfg.boat_plain_load
    for b in sorted(st.display):
        # kinds without a usable tile are paid with own goods, then statues: a fixed shortfall
        short = 0
        tiled = []
        for k, nk in items[b]:
            if tiles[k]:
                tiled.append((k, nk))
            elif nk > g[k]:
                short += nk - g[k]
        if short > statues:
            continue
        if not tiled:
            out.append(plain[b])
            continue
        combos: list[tuple[tuple[int, ...], int]] = [((), short)]  # (sites used, statues needed so far)
        for k, nk in tiled:
            avail = tiles[k]
            cap = min(nk, len(avail))
            if limited:
                cap = min(cap, st.supply[k])
            nxt = []
            for used, short in combos:
                for t in range(cap + 1):
                    sh = short + max(0, nk - t - g[k])
                    if sh <= statues:
                        nxt.append((used + tuple(avail[:t]), sh))
            combos = nxt
            if not combos:
                break
        for used, _ in combos:
            out.append((b, tuple(sorted(used))))
    return tuple(out)


def pay_boat(st: State, p: int, b: int, used: tuple) -> None:
    """Pay boat ``b`` for seat ``p`` (§5 phase 7): each used tile's good comes from the supply
    and goes straight back (net zero) and marks the tile used; the rest is paid with the
    player's goods of each kind, then statues, all returned to the supply.

    Raises
    ------
    AssertionError
        The load was not payable (an engine bug: only offered loads are applied).
    """
    cfg = st.cfg
    need = list(cfg.boat_need[b])
    for s in used:
        st.sd_used[s] = True
        need[cfg.site_kind[s]] -= 1
    g = st.goods[p]
    for k in range(ORDINARY):
        r = need[k]
        if r:
            pay = min(r, g[k])
            g[k] -= pay
            st.supply[k] += pay
            if r > pay:
                g[STATUE] -= r - pay
                st.supply[STATUE] += r - pay
    if g[STATUE] < 0:
        raise AssertionError("load paid with statues the player does not have")
