"""The study kinds (``analyzer simulate``, ``compare``, ``sweep``, ``ablate``, ``tournament``,
``tune``, ``robustness``, ``balance``), one module each, and the run path they share
(``analyzer.study.run``)."""
