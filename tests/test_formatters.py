"""The report's one p-value format and one parameter-value format (issue #31, step 4)."""

import math

import numpy as np
import pytest

from analyzer.report.document import p_text, param_text


@pytest.mark.parametrize("p, cell, phrase", [
    (0.04213, "0.042", "p = 0.042"),
    (1.0, "1.000", "p = 1.000"),
    (0.001, "0.001", "p = 0.001"),
    (0.000999, "< 0.001", "p < 0.001"),
    (0.0, "< 0.001", "p < 0.001"),
    (np.float64(0.5), "0.500", "p = 0.500"),
    (None, "–", "p –"),
    (math.nan, "–", "p –"),
    ("not a number", "–", "p –"),
])
def test_p_text_cell_and_phrase(p, cell, phrase):
    assert p_text(p) == cell
    assert p_text(p, phrase=True) == phrase


@pytest.mark.parametrize("v, text", [
    (0.123456, "0.1235"), (12345.0, "1.234e+04"), (np.float64(2.5), "2.5"),
    (3, "3"), ("greedy", "greedy"), (True, "True"),
])
def test_param_text(v, text):
    assert param_text(v) == text


def test_value_text_is_the_one_value_format():
    """Issue #34 / #31: one value formatter (``document.value_text``) that every section's
    numbers with intervals go through."""
    from analyzer.report.document import num, number, pct, signed, span, value_text
    from analyzer.report.findings import Finding

    assert value_text(0.1, 0.046, 0.154, "pp", 100, 1, True) == "+10.0 pp [+4.6, +15.4]"
    assert value_text(0.253, 0.241, 0.265, "%", 100, 1) == "25.3 % [24.1, 26.5]"
    assert value_text(0.0, 0.0, 0.0, "pp", 100, 1, True) == "+0.0 pp (same in every game)"
    assert value_text(0.5, 0.5, 0.5, "%", 100, 1, no_spread=False) == "50.0 % [50.0, 50.0]"
    assert value_text(1.5, None, None, "points", digits=2) == "1.50 points"
    assert value_text(math.nan, 0.0, 1.0) == value_text(None) == number("x") == "–"
    # the sections' formatters are this one
    assert pct(0.253, 0.241, 0.265) == value_text(0.253, 0.241, 0.265, "%", 100, 1)
    assert num(12.345, 12.01, 12.67) == "12.35 [12.01, 12.67]"
    assert span(1.2, 0.4, 2.0, 1, " pp") == "+1.2 pp [+0.4, +2.0]"
    assert signed({"diff": 0.012, "lo": 0.004, "hi": 0.02, "significant": True}, 100, " pp",
                  2) == "+1.20 pp [+0.40, +2.00] *"
    f = Finding("x", 0.1, 0.046, 0.154, "pp", 100, 1, True, 0.0, games=100)
    assert f.value_text() == value_text(0.1, 0.046, 0.154, "pp", 100, 1, True)
