"""Small wording helpers shared by the games' replay logs."""

from __future__ import annotations


def plural(n: int, word: str, many: str | None = None) -> str:
    """``"1 cube"``, ``"3 cubes"``: ``n`` and ``word`` in the right number (``many`` if irregular)."""
    return f"{n} {word if n == 1 else (many or word + 's')}"


def seats_line(policies) -> str:
    """The replay-log header line naming the policy in each seat (policy objects or names)."""
    return "policies: " + ", ".join(
        f"seat {p} {pol if isinstance(pol, str) else getattr(pol, 'name', type(pol).__name__)}"
        for p, pol in enumerate(policies))
