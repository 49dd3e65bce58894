"""How often the labelled defaults acted (analyzer/report/guesses.py): shares of games with a
Wilson interval per counter and arm, the mean count per game, the share where any acted; the
clause each key finding carries and the sentence of the report's labelled-defaults line. On
synthetic records with known shares."""

from __future__ import annotations

import pandas as pd
import pytest
from statsmodels.stats.proportion import proportion_confint

from analyzer import stats
from analyzer.model.base import GuessCounter
from analyzer.report import answers, defaults_line, findings, guesses
from analyzer.report.document import Doc
from analyzer.report.findings import Finding
from analyzer.report.records import as_table

COUNTERS = (GuessCounter("acted_face", "tokens", "a guessed face was revealed (each reveal)",
                         "toy rule 1"),
            GuessCounter("acted_tie", "tie_rule", "a tie was split", "toy rule 2"),
            GuessCounter("acted_gone", "gone", "not in these records", "toy rule 3"))


def _games() -> pd.DataFrame:
    """10 games of `base`: faces in games 0-2 (counts 1, 2, 3), ties in games 2-6 (count 1):
    any in games 0-6 (7 of 10). 4 games of `v`: faces in game 0 only (count 4), a tie in
    every game, but `tie_rule` is not a labelled default of `v`."""
    rows = []
    for g in range(10):
        rows.append({"variant": "base", "game_id": g, "acted_face": [1, 2, 3][g] if g < 3 else 0,
                     "acted_tie": int(2 <= g <= 6)})
    for g in range(4):
        rows.append({"variant": "v", "game_id": g, "acted_face": 4 if g == 0 else 0,
                     "acted_tie": 1})
    return pd.DataFrame(rows)


RUN = {"defaults": {"base": [{"name": "tokens"}, {"name": "tie_rule"}],
                    "v": [{"name": "tokens"}]}}


def _measured():
    return guesses.measure(as_table(_games()), COUNTERS, RUN)


def test_shares_of_games_with_wilson_intervals_and_mean_counts():
    out = _measured()
    assert [c["column"] for c in out["counters"]] == ["acted_face", "acted_tie"]  # gone: absent
    base, v = out["arms"]
    assert base["variant"] == "base" and base["games"] == 10
    face, tie = base["counters"]
    want = stats.wilson(3, 10)
    assert (face["acted"], face["share"], face["lo"], face["hi"]) == (3, 0.3, want.lo, want.hi)
    assert face["mean"] == pytest.approx(0.6)  # (1 + 2 + 3) / 10
    assert tie["share"] == pytest.approx(0.5) and tie["mean"] == pytest.approx(0.5)
    anyone = stats.wilson(7, 10)
    assert base["any"] == {"acted": 7, "share": 0.7, "lo": anyone.lo, "hi": anyone.hi}
    assert v["counters"][1] == {"column": "acted_tie", "in_use": False}  # not a default in v
    assert v["any"]["acted"] == 1 and v["any"]["share"] == 0.25  # the ties of v do not count
    assert face["mean_lo"] >= 0.0  # a count's interval is clipped at 0


def test_a_schedule_of_tables_is_measured_as_one_arm_of_every_game():
    """A tournament's tables share their rules: pooled, the 14 games are one arm, counted with
    the first arm's labelled defaults (faces in 4 games, ties in 5 + 4)."""
    out = guesses.measure(as_table(_games()), COUNTERS, RUN, pooled=guesses.POOLED)
    (arm,) = out["arms"]
    assert arm["variant"] == guesses.POOLED and arm["games"] == 14
    face, tie = arm["counters"]
    assert face["acted"] == 4 and tie["acted"] == 9 and arm["any"]["acted"] == 11
    box = answers.caveats(out, {}, "appendix")
    assert "of every game of the run" in box and "`base`" not in box


def test_nothing_to_measure_without_counter_columns():
    assert guesses.measure(as_table(_games()), COUNTERS[2:], RUN) is None
    assert guesses.measure(as_table(_games()), (), RUN) is None


def test_a_finding_says_whether_its_arm_leans_on_defaults():
    out = _measured()
    lo, hi = proportion_confint(7, 10, method="wilson")  # independent of stats.wilson
    lean = guesses.lean(out, "base")
    assert (lean["lo"], lean["hi"]) == pytest.approx((lo, hi))
    assert {k: v for k, v in lean.items() if k not in ("lo", "hi")} == {
        "share": 0.7, "games": 10,
        "largest": {"column": "acted_tie", "what": "a tie was split", "share": 0.5}}
    assert guesses.lean(out, "v")["largest"] == {  # the tie is not a labelled default of v
        "column": "acted_face", "what": "a guessed face was revealed (each reveal)",
        "share": 0.25}
    assert guesses.lean(out, "v")["share"] == 0.25
    assert guesses.lean(out, "other") is None and guesses.lean(None, "base") is None
    assert guesses.short_what(out["counters"][0]["what"]) == "a guessed face was revealed"
    # a parenthesis inside the sentence goes, not the words after it ("a revolt tile" was all
    # that was left of Pyramidion's "a revolt tile (guessed strength and good) was drawn")
    assert guesses.short_what("a revolt tile (guessed strength and good) was drawn (each)") == \
        "a revolt tile was drawn"


def test_key_findings_carry_the_clause_and_summary_records_the_numbers(tmp_path, monkeypatch):
    doc = Doc(tmp_path)
    f = Finding("x {value}", 0.1, 0.05, 0.15, "pp", 100, 1, True, 0.0, games=40,
                example_variant="v", key="k")
    figure = Finding("a share {value}", 0.4, 0.3, 0.5, "%", 100, games=40, key="fig")
    results = {"guesses": _measured()}
    monkeypatch.setattr(findings, "collect", lambda *args, **kwargs: [f, figure])
    out = findings.section(doc, results, {}, pd.DataFrame(), run_dir=tmp_path)
    text = "\n".join(b[1] for b in doc.blocks if b[0] == "p")
    # no default acts in clearly more of `v`'s games than of the base's (faces: 25 % against
    # 30 %), so neither finding names a caveat: they are said once, in the Answers' box
    assert "caveat" not in text and "Leans on" not in text and "guessed face" not in text
    rec = {r["key"]: r for r in out["findings"]}
    assert rec["k"]["defaults_acted"]["share"] == 0.25
    assert rec["fig"]["defaults_acted"]["largest"]["column"] == "acted_tie"


def _acted(base: float, mine: float, run_wide: float = 1.0) -> dict:
    """Counted defaults of a run of `base` and `five`: `faces` acted in ``run_wide`` of
    every arm's games, `regions` in ``base`` of the base's and ``mine`` of `five`'s."""
    def arm(variant, regions):
        return {"variant": variant, "games": 100,
                "any": {"acted": 100, "share": 1.0, "lo": 0.96, "hi": 1.0},
                "counters": [{"column": "acted_face", "in_use": True, "acted": 100,
                              "share": run_wide},
                             {"column": "acted_region", "in_use": True, "acted": 1,
                              "share": regions}]}
    return {"counters": [{"column": "acted_face", "default": "faces", "what": "a guessed face "
                          "was revealed", "section": "toy rule 1"},
                         {"column": "acted_region", "default": "regions", "what": "a stand-in "
                          "region was entered", "section": "toy rule 2"}],
            "arms": [arm("base", base), arm("five", mine)]}


CAVEATS = (("faces", "guessed faces"), ("regions", "the stand-in regions"))


@pytest.mark.parametrize(("variant", "base", "mine", "run_wide", "kept"), [
    ("base", 0.0, 0.0, 1.0, ["regions"]),  # faces in every game: the box's; regions: rare
    ("five", 0.0, 0.95, 1.0, ["regions"]),  # a 5-player arm on stand-in regions: its own
    ("five", 0.95, 0.95, 0.92, []),  # both in nearly every game of the run: the box's
    ("base", 0.0, 0.0, 0.5, ["faces", "regions"]),  # faces in half the games: said
])
def test_a_finding_keeps_only_the_caveats_of_its_own(variant, base, mine, run_wide, kept):
    f = Finding("x {value}", 0.1, 0.0, 0.2, "pp", 100, 1, True, 0.0, games=100,
                example_variant=variant, caveats=CAVEATS)
    own = findings.own_caveats(f, _acted(base, mine, run_wide))
    assert [name for name, _ in own.caveats] == kept
    assert ("guessed faces" in own.sentence()) == ("faces" in kept)
    assert findings.own_caveats(f, None) == f  # nothing counted: every caveat is said


def test_an_arm_that_leans_on_a_default_more_than_the_base_says_so_once(tmp_path, monkeypatch):
    """The generic clause names only what acts in clearly more of the arm's games, and not when
    the sentence already says it."""
    doc = Doc(tmp_path)
    f = Finding("five {value}", 0.1, 0.05, 0.15, "pp", 100, 1, True, 0.0, games=100,
                example_variant="five", key="k")
    acted = _acted(0.0, 0.95)
    clause = guesses.specific_clause(acted, "five", "base")
    said = Finding("said {value}" + clause, 0.2, 0.15, 0.25, "pp", 100, 1, True, 0.0, games=100,
                   example_variant="five", key="s")
    monkeypatch.setattr(findings, "collect", lambda *args, **kwargs: [f, said])
    findings.section(doc, {"guesses": acted}, {}, pd.DataFrame(), run_dir=tmp_path)
    text = "\n".join(b[1] for b in doc.blocks if b[0] == "p")
    assert text.count("a stand-in region was entered") == 2  # once per finding, no more
    assert "Its own caveat: in 95.0 % of these games a stand-in region was entered" in text
    assert "guessed face" not in text  # every game of the run: the box's


def test_the_defaults_line_ends_with_the_share_of_games_where_a_default_acted():
    d = [{"name": "tokens", "value": 1, "section": ""}]
    line = defaults_line({"base": d}, {"tie_rule"}, _measured())
    anyone = stats.wilson(7, 10)
    assert (f"a labelled default decided something in 70.0 % [{100 * anyone.lo:.1f}, "
            f"{100 * anyone.hi:.1f}] of the games of `base` (most often: a tie was split, "
            "50.0 %)") in line
    assert "Counted where they act (2 of them)" in line
    assert "decided something" not in defaults_line({"base": d}, {"tie_rule"})


def test_the_appendix_table_has_a_row_per_counter_and_the_any_row(tmp_path):
    doc = Doc(tmp_path)
    guesses.section(doc, _measured(), lambda text: text)
    (table,) = [b[1] for b in doc.blocks if b[0] == "table"]
    assert list(table["labelled default"]) == ["`tokens`", "`tie_rule`", "any of them"]
    assert table["base: games where it acted"].iloc[0].startswith("30.0 % [")
    assert table["v: games where it acted"].iloc[1] == "not a default here"
    assert table["base: games where it acted"].iloc[2].startswith("70.0 % [")
    assert table["base: count per game"].iloc[0].startswith("0.60 [")
