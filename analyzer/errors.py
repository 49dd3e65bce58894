"""Error classes shared by every module.

``AnalyzerError`` is the root of everything a *user* can cause (a bad scenario, a bad data
table, a bad command-line value). The CLI catches it in one place, prints its one-line message
to stderr and exits with code 2. Anything else is a bug and keeps its traceback.
"""

from __future__ import annotations


class AnalyzerError(Exception):
    """Root of the errors a user can cause; the CLI prints ``str(err)`` and exits 2."""


class RuleError(AnalyzerError, ValueError):
    """A rule option, content choice or data table a game cannot accept.

    Raised by a game's ``make_config`` and by policy construction. ``field`` is the dotted
    path inside the scenario's ``[rules]`` table (or ``params.<name>`` for a policy); the
    scenario loader prefixes it with the file name and section.

    Parameters
    ----------
    field : str
        Where the bad value sits, e.g. ``"players"`` or ``"seats[1].policy"``.
    message : str
        What is wrong and what is allowed, e.g. ``"unknown card 'jester' (allowed: ...)"``.
    """

    def __init__(self, field: str, message: str):
        self.field = field
        self.message = message
        super().__init__(f"{field}: {message}" if field else message)


class ScenarioError(AnalyzerError, ValueError):
    """A scenario file (or a command-line override of it) that cannot be run.

    The message reads ``FILE: FIELD: what is wrong (got VALUE; allowed: ...)``.
    """


class IllegalChoice(ValueError):
    """A policy chose an option the engine did not offer. This is a bug, never a user error.

    The message names the seat, the decision kind, the choice and the legal options.
    """


class TurnCapExceeded(RuntimeError):
    """A game did not end within the hard cap of turns; the message names the seed to replay."""
