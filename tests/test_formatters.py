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
