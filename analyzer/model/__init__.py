"""The model layer: what every game is and the machinery the games share.

- ``base.py``: the game contract (``GameSpec``, rule options, policies' parameters, record
  columns); ``forward.py``: the forward model and its play loop (``play.py``, compiled);
- ``draws.py``: seeded draws; ``tables.py``: the built-in TOML content tables;
  ``content.py``: the priors of guessed content;
- ``treesearch.py`` and ``ismcts.py``: the generic search player; ``logtext.py``: game logs;
  ``copying.py``: the one way a game's position is copied (its fields listed once).

The games (``analyzer/games/<game>/``) build on this layer; it imports no game, no study and no
report.
"""

# The shared modules setup.py compiles with mypyc, as each game lists its own (read there with ast).
COMPILED_MODULES = ("play", "draws", "treesearch", "copying")
