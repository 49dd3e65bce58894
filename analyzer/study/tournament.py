"""``analyzer tournament POOL.toml``: players rated on common seeds.

A pool file (the README's "Tournament" shows one) names a game, a table and the **entrants**
(each a policy with its parameters, as a scenario's ``[[seats]]``).

**Schedule.** A *seating* is the set of entrants at one table. With at least as many entrants as
seats it is every combination of ``players`` entrants when there are at most
``ALL_SEATINGS_MAX`` of them, else a balanced sample of ``seatings`` (each entrant in equally
many seatings, pairs spread as evenly as the draw allows); with fewer entrants than seats,
every multiset of entrants with at least two different ones. Each seating is played in every
*seat order*: its rotations (entrant ``k`` of the seating in seat ``(k + r) mod players``), or
with ``seat_orders = "all"`` every distinct order, so the turn order among them varies too. A
*deal* is one game seed: deal ``i`` is ``SeedSequence(seed, spawn_key=(i,))`` and every seat
order of every seating plays it (common random numbers, as a duplicate bridge tournament deals
the same hands to every table). So every entrant plays every seat equally often, on the same
deals as every other entrant. ``games`` per seating is rounded up to whole deals
(``deals × orders``).

The seat orders are the arms of one run of the study machinery (``analyzer.study.run``; seat
rotation off: the orders are the rotation), so the tournament has the runner's chunks,
backends, ``resume`` and ``target_ci`` (there: every entrant's win-rate interval, deals as the
unit: the ``half_width`` of its entry in ``analyzer.studies``). Ratings, win rates,
mean ranks and the head-to-head matrix come from ``analyzer.ratings`` in the report
(``analyzer.report.tournament``).
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Annotated, Any

import tomli_w
import typer

from analyzer import precision, runner
from analyzer.errors import OptionError
from analyzer.games import get_game
from analyzer.keywords import checked
from analyzer.model.base import GameSpec
from analyzer.model.logtext import plural
from analyzer.scenario import (
    Arm,
    Problems,
    Question,
    Scenario,
    Seat,
    check_rules,
    parse_head,
    parse_questions,
    parse_seat,
    read_toml,
    typed,
    with_overrides,
)
from analyzer.studies import StudyKind
from analyzer.study.run import Results, prepare

POOL_KEYS = ("name", "description", "game", "expansions", "players", "games", "seed", "rules",
             "entrants", "seatings", "seat_orders", "questions")
SEAT_ORDERS = ("rotations", "all")
ALL_SEATINGS_MAX = 60  # every seating is played up to this many; above, a balanced sample
MAX_ARMS = 2000  # seat orders in all (each is an arm of the run)
MAX_ENTRANTS = 100  # entrants of one pool: each plays in at least one of at most MAX_ARMS seatings
DEFAULT_BOOT = 1000  # bootstrap replicates of the report's intervals


@dataclass(frozen=True)
class Pool:
    """A validated tournament pool (``load_pool``).

    Attributes
    ----------
    entrants : tuple of Seat
        Name (unique), policy and parameters of each entrant, in file order.
    games : int
        Games per seating asked for; ``deals`` is what is played.
    seatings : int or None
        Seatings to sample when there are more than ``ALL_SEATINGS_MAX``; ``None``: the
        default (``default_sample``).
    seat_orders : {"rotations", "all"}
    """

    file: str
    name: str
    description: str
    game: str
    expansions: tuple[str, ...]
    players: int
    games: int
    seed: int
    rules: dict[str, Any]
    entrants: tuple[Seat, ...]
    seatings: int | None = None
    seat_orders: str = "rotations"
    questions: tuple[Question, ...] = ()

    @property
    def spec(self) -> GameSpec:
        """The game's ``GameSpec``."""
        return get_game(self.game)

    def to_dict(self) -> dict[str, Any]:
        """The pool as plain TOML-able data (entrants' parameters spelled out)."""
        return {"name": self.name, "game": self.game, "expansions": list(self.expansions),
                "players": self.players, "games": self.games, "seed": self.seed,
                "seat_orders": self.seat_orders,
                **({"description": self.description} if self.description else {}),
                **({"seatings": self.seatings} if self.seatings is not None else {}),
                "rules": dict(self.rules),
                "entrants": [{"name": e.name, "policy": e.policy, "params": dict(e.params)}
                             for e in self.entrants],
                **({"questions": [q.as_dict() for q in self.questions]} if self.questions
                   else {})}


def load_pool(path: str | Path) -> Pool:
    """Read and validate a pool file (``params_file`` and ``*_file`` paths are read from its
    folder).

    Raises
    ------
    ScenarioError
        ``FILE: FIELD: what is wrong``: missing or malformed file, an unknown key, game, policy
        or parameter, fewer than two entrants, two entrants of one name, a bad ``seatings`` or
        ``seat_orders``, too many seat orders.
    """
    data, label = read_toml(path)
    return parse_pool(data, label, Path(path).parent)


@checked
def is_pool(path: str | Path) -> bool:
    """Whether the study file at ``path`` is a tournament pool (it names ``[[entrants]]``).

    Raises
    ------
    ScenarioError
        Missing, unreadable or malformed file.
    """
    data, _ = read_toml(path)
    return "entrants" in data


@checked
def validate_pool(path: str | Path) -> Pool:
    """Load a pool (``load_pool``) and check its questions' keys as ``tournament`` does before
    a game is played; nothing is played or written.

    Raises
    ------
    ScenarioError
        Every problem ``load_pool`` finds, or a question's key a tournament cannot have.
    """
    from analyzer.study import questions  # it imports this module (``of_file``)

    pool = load_pool(path)
    questions.check(as_scenario(pool, deals_for(pool.games, orders_per_seating(pool))),
                    "tournament")
    return pool


def parse_pool(data: dict[str, Any], file: str = "<pool>", base_dir: Path | None = None) -> Pool:
    """Validate pool data (as parsed from TOML); see ``load_pool``.

    Every problem is found, one line each (``Problems``), as for a scenario; the sizes
    (entrants, ``seatings``, seat orders) are bounded before any seating is drawn.
    """
    problems = Problems(file)
    fail, each = problems.fail, problems.check
    head = parse_head(data, base_dir, POOL_KEYS, problems)
    if head.spec is None or head.players is None or head.expansions is None:
        problems.raise_any()  # the rest needs the game, its player count and expansions
    with each():
        check_rules(head.spec, head.players, head.expansions, head.rules, "rules", fail)
    raw: list = []
    with each():
        raw = typed(data, "entrants", list, fail)
        if len(raw) < 2:
            fail("entrants", f"give at least two [[entrants]] to rate (got {len(raw)})")
        if len(raw) > MAX_ENTRANTS:
            fail("entrants", f"{len(raw)} entrants; at most {MAX_ENTRANTS}")
    entrants: list[Seat] = []
    for j, e in enumerate(raw[:MAX_ENTRANTS + 1]):
        with each():
            entrants.append(parse_seat(e, f"entrants[{j}]", head.spec, fail, base_dir))
    seen: dict[str, int] = {}
    for j, e in enumerate(entrants if len(entrants) == len(raw) else ()):
        with each():
            if e.name in seen:
                fail(f"entrants[{j}].name", f"{e.name!r} is also entrants[{seen[e.name]}]'s name; "
                                            "give each entrant its own name")
            seen[e.name] = j
    orders = "rotations"
    with each():
        orders = typed(data, "seat_orders", str, fail, default="rotations")
        if orders not in SEAT_ORDERS:
            fail("seat_orders", f"must be one of {', '.join(SEAT_ORDERS)} (got {orders!r})")
    sample = None
    with each():
        sample = typed(data, "seatings", int, fail, default=None)
        if sample is not None and sample < 1:
            fail("seatings", f"must be at least 1 (got {sample})")
        if sample is not None and sample > MAX_ARMS:  # before any seating is drawn
            fail("seatings", f"at most {MAX_ARMS} (each seating is at least one seat order to "
                             f"play; got {sample:,})")
    questions: tuple = ()
    with each():
        questions = parse_questions(data, fail)
    problems.raise_any()
    pool = Pool(file, head.name, head.description, head.spec.name, head.expansions, head.players,
                head.games, head.seed, dict(head.rules), tuple(entrants), sample, orders,
                questions)
    arms = _arms(len(entrants), head.players, sample, orders)
    if arms > MAX_ARMS:
        with each():
            fail("seat_orders" if orders == "all" else "seatings",
                 f"{arms} seat orders to play; at most {MAX_ARMS} (fewer entrants, fewer "
                 "seatings or seat_orders = \"rotations\")")
    problems.raise_any()
    return pool


def _multisets(n_entrants: int, players: int) -> list[tuple[int, ...]]:
    """Every seating of fewer entrants than seats: the multisets of two or more entrants, in
    lexicographic order."""
    return [c for c in itertools.combinations_with_replacement(range(n_entrants), players)
            if len(set(c)) > 1]


def _arms(n_entrants: int, players: int, sample: int | None, mode: str) -> int:
    """How many arms ``schedule`` makes (seat orders of every seating), counted without drawing
    a seating: ``players`` rotations each, or with ``all`` each seating's distinct
    permutations."""
    if n_entrants < players or math.comb(n_entrants, players) <= ALL_SEATINGS_MAX:
        drawn = seatings(n_entrants, players)  # few: at most ALL_SEATINGS_MAX, or players <= 6
    else:  # a sample of distinct entrants: only its size matters
        drawn = [tuple(range(players))] * (default_sample(n_entrants, players) if sample is None
                                           else sample)
    if mode != "all":
        return len(drawn) * players
    return sum(math.factorial(players) // math.prod(math.factorial(c.count(e)) for e in set(c))
               for c in drawn)


def default_sample(n_entrants: int, players: int) -> int:
    """Seatings drawn by default when not all are played: the smallest number ``>= 30`` that
    puts every entrant in equally many seatings (``m · players`` a multiple of the entrants)."""
    step = n_entrants // math.gcd(n_entrants, players)
    return step * math.ceil(30 / step)


def seatings(n_entrants: int, players: int, sample: int | None = None,
             seed: int = 0) -> list[tuple[int, ...]]:
    """The seatings of a tournament: sorted tuples of ``players`` entrant indices.

    Parameters
    ----------
    n_entrants, players : int
        ``n_entrants >= 2``.
    sample : int, optional
        How many to draw when there are more than ``ALL_SEATINGS_MAX`` combinations (default
        ``default_sample``).
    seed : int
        Seed of the draw (the pool's seed): the same pool gives the same seatings.

    Returns
    -------
    list of tuple of int
        All combinations (``n_entrants >= players``) or all multisets with two or more
        different entrants (``n_entrants < players``), in lexicographic order; or a balanced
        draw: each seating takes the entrants seated least often so far (then those that met
        the others least, then at random), so entrant counts differ by at most one and are
        equal when ``sample · players`` is a multiple of ``n_entrants``.
    """
    if n_entrants < players:
        return _multisets(n_entrants, players)
    if math.comb(n_entrants, players) <= ALL_SEATINGS_MAX:
        return list(itertools.combinations(range(n_entrants), players))
    m = default_sample(n_entrants, players) if sample is None else sample
    rng = random.Random(seed)
    count = [0] * n_entrants
    met = [[0] * n_entrants for _ in range(n_entrants)]
    out: list[tuple[int, ...]] = []
    for _ in range(m):
        for _attempt in range(100):  # a seating already drawn is drawn again, other ties
            noise = [rng.random() for _ in range(n_entrants)]
            chosen: list[int] = []
            for _seat in range(players):
                best = min((e for e in range(n_entrants) if e not in chosen),
                           key=lambda e: (count[e], sum(met[e][c] for c in chosen), noise[e]))
                chosen.append(best)
            seating = tuple(sorted(chosen))
            if seating not in out:
                break
        out.append(seating)
        for e in seating:
            count[e] += 1
            for f in seating:
                if f != e:
                    met[e][f] += 1
    return out


def seat_orders(seating: tuple[int, ...], mode: str = "rotations") -> list[tuple[int, ...]]:
    """The seat orders a seating is played in: entrant at each seat.

    ``"rotations"``: order ``r`` seats entrant ``seating[(s - r) mod n]`` at seat ``s`` (each
    entrant once in every seat); ``"all"``: every distinct permutation, in lexicographic order.
    """
    n = len(seating)
    if mode == "all":
        return sorted(set(itertools.permutations(seating)))
    return [tuple(seating[(s - r) % n] for s in range(n)) for r in range(n)]


@dataclass(frozen=True)
class Table:
    """One arm of the tournament: a seating played in one seat order.

    ``arm`` is its ``variant`` name in the records (``s03-1``: seating 3, order 1), ``who`` the
    entrant index at each seat."""

    arm: str
    seating: int
    order: int
    who: tuple[int, ...]


def schedule(pool: Pool) -> list[Table]:
    """Every arm of the pool's tournament, seatings in order, then their seat orders."""
    out = []
    for k, seating in enumerate(seatings(len(pool.entrants), pool.players, pool.seatings,
                                         pool.seed)):
        for r, who in enumerate(seat_orders(seating, pool.seat_orders)):
            out.append(Table(f"s{k:02d}-{r}", k, r, who))
    return out


def orders_per_seating(pool: Pool) -> int:
    """Seat orders of the first seating (every seating has as many with ``rotations``)."""
    return sum(1 for t in schedule(pool) if t.seating == 0)


def deals_for(games: int, orders: int) -> int:
    """Deals (game seeds) that give at least ``games`` games per seating of ``orders`` seat
    orders."""
    return -(-games // orders)


def as_scenario(pool: Pool, deals: int) -> Scenario:
    """The pool as a scenario whose arms are the seat orders of its schedule, without seat
    rotation, ``deals`` games each."""
    tables = schedule(pool)
    arms = tuple(Arm(t.arm, dict(pool.rules), tuple(pool.entrants[e] for e in t.who),
                     " vs ".join(pool.entrants[e].name for e in t.who))
                 for t in tables)
    return Scenario(pool.file, pool.name, pool.game, pool.expansions, pool.players, deals,
                    pool.seed, False, arms, pool.description, pool.questions)


def pool_toml(pool: Pool) -> str:
    """The pool as TOML (entrants' parameters spelled out), for the run's ``pool.toml``;
    ``load_pool`` reads it back to an equal pool."""
    return tomli_w.dumps(pool.to_dict())


@checked
def tournament(path_or_pool: str | Path | Pool, *, games: int | None = None,
               seed: int | None = None, bootstrap: Bootstrap = DEFAULT_BOOT,
               target_ci: TargetCi = None, **run_options: Any) -> Results:
    """Run a tournament and write its report (``analyzer tournament``).

    Parameters
    ----------
    path_or_pool : str, Path or Pool
    games : int, optional
        Games per seating (overrides the pool's ``games``), rounded up to whole deals.
    seed : int, optional
        Root seed (overrides the pool's ``seed``); also seeds a sampled schedule and the
        bootstrap.
    bootstrap : int
        Bootstrap replicates of the report's intervals, 0..100,000 (0: no intervals).
    target_ci : float, optional
        Stop once every entrant's win-rate interval, deals as the unit, is within
        ``±target_ci``, or at ``games``.
    **run_options
        ``jobs``, ``backend``, ``scheduler``, ``out`` (default ``reports/<pool name>``),
        ``chunk_size`` (deals per chunk; default about 250 games per chunk), ``resume``,
        ``force``, ``progress``, ``csv``: as for ``analyzer.api.simulate``.

    Returns
    -------
    analyzer.api.Results
        ``summary["results"]["tournament"]`` holds the rating table and the head-to-head
        matrix.

    Raises
    ------
    ScenarioError
        A bad pool file (names the file and field); nothing is written.
    OptionError
        A bad keyword argument (``games``, ``seed``, ``bootstrap`` or any ``api.simulate``
        refuses); nothing is written.
    """
    pool = path_or_pool if isinstance(path_or_pool, Pool) else load_pool(path_or_pool)
    probe = with_overrides(as_scenario(pool, 1), games=games, seed=seed)  # checks both
    pool = replace(pool, games=probe.games if games is not None else pool.games,
                   seed=probe.seed)
    if not 0 <= bootstrap <= 100_000:
        raise OptionError("bootstrap", f"must be in 0..100,000 (got {bootstrap})")
    tables = schedule(pool)
    orders = orders_per_seating(pool)
    deals = deals_for(pool.games, orders)
    scenario = as_scenario(pool, deals)
    if run_options.get("chunk_size") is None:
        run_options["chunk_size"] = max(1, -(-runner.DEFAULT_CHUNK_SIZE // len(tables)))
    n_seatings, n = 1 + max(t.seating for t in tables), len(pool.entrants)
    study = {
        "kind": "tournament", "bootstrap": bootstrap, "boot_seed": pool.seed,
        "entrants": pool.to_dict()["entrants"],
        "seatings": n_seatings, "seat_orders": pool.seat_orders, "orders": orders,
        "all_seatings": n_seatings == (math.comb(n, pool.players) if n >= pool.players
                                       else len(_multisets(n, pool.players))),
        "games_asked": pool.games, "pool_file": pool.file,
        "tables": [{"arm": t.arm, "seating": t.seating, "order": t.order,
                    "seats": [pool.entrants[e].name for e in t.who]} for t in tables],
    }
    run = prepare(scenario, "tournament", target_ci=target_ci,
                  **run_options).settle()  # --time: deals
    with run.session():
        return run.play(study=study, files={"pool.toml": pool_toml(pool)})


def tell(run: Any, results: Any, res: Any, say: Callable[[str], None]) -> None:
    """The games played, the ratings (best first) and where the report is."""
    rows = results["ratings"]
    say(f"{plural(run.games, 'deal')} x {len(run.arms)} tables = {results['games']} games"
        + (f" ({precision.target_text(tc, 'deals')})" if (tc := run.target_ci) else ""))
    width = max(len(r["entrant"]) for r in rows)
    for i, r in enumerate(rows, 1):
        # --bootstrap 0 asks for no replicates: the ratings then have no interval.
        interval = ("" if r["rating_lo"] is None or r["rating_hi"] is None
                    else f" [{r['rating_lo']:+.2f}, {r['rating_hi']:+.2f}]")
        say(f"{i:>3}. {r['entrant']:<{width}}  rating {r['rating']:+.2f}"
            f"{interval}  win rate {100 * r['win_rate']:.1f} %")
    if results.get("reliability"):
        say(results["reliability"])


Bootstrap = Annotated[int, typer.Option(
    help="Bootstrap replicates of the report's intervals (resampled deals).")]
TargetCi = Annotated[float | None, typer.Option(
    help="Stop once every entrant's win-rate interval (deals as the unit) is within ± this "
         "share, or at --games.")]

KIND = StudyKind(
    "tournament", "tournament", tournament, ("pool", Annotated[Path, typer.Argument(
        help="Pool TOML file: game, players, games, seed, [rules] and [[entrants]].")]),
    tell=tell, own_report="analyzer.report.tournament", results=("tournament",),
    half_width="analyzer.precision:entrant_half_width",
    answers="analyzer.report.answers:tournament", families={
        "rating_gap": ("the best-rated entrant's rating minus the next one's", "log-strength")}, as_written=True,
    entrants=True, game_keys=False,
    flag_help={"games": "Games per seating (overrides the file; rounded up to whole deals).",
               "chunk_size": "Deals per chunk (default: about 250 games per chunk; never "
                             "changes results)."},
    help="""Rate players on common seeds: Plackett–Luce ratings, win rates, mean ranks and a
    head-to-head matrix, each with a 95% bootstrap interval over deals (in reports/NAME).

    Every seating of the entrants (or a balanced sample) plays every seat order on the same
    deals (game seeds), so every entrant plays every seat equally often on the same deals.

    Examples:

      analyzer tournament scenarios/rattus-ladder.toml

      analyzer tournament my-pool.toml --games 400 --jobs 2 --out /tmp/ladder

      analyzer tournament my-pool.toml --resume   # after Ctrl-C
    """)
