"""analyzer: Monte-Carlo strategy analysis for Rattus (+ Africanus), Rattus Cartus and Pyramidion.

The Python API mirrors the CLI: ``analyzer.api.simulate(...)`` etc.
"""

__version__ = "0.1.0"
