"""analyzer: Monte-Carlo strategy analysis of board games (one package per game in
``analyzer/games/``; ``analyzer list games``).

The Python API mirrors the CLI: ``analyzer.api.simulate(...)`` etc.
"""

__version__ = "0.1.0"
