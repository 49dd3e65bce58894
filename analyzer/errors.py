"""Error classes shared by every module (how the CLI shows them: ``analyzer.cli``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


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

    The message reads ``FILE: FIELD: what is wrong (got VALUE; allowed: ...)``; an error made
    by ``of`` holds every problem of a file, one per line (``problems``).
    """

    problems: list[str] | None = None

    @classmethod
    def of(cls, lines: list[str]) -> ScenarioError:
        """One error for several problems: ``str(err)`` has one line each; ``problems`` lists
        them (the CLI prints each as its own ``analyzer: error:`` line)."""
        err = cls("\n".join(lines))
        err.problems = list(lines) if len(lines) > 1 else None
        return err


class OptionError(ScenarioError):
    """A bad keyword argument of an API call (``games``, ``jobs``, ``out``…); nothing was written.

    The message names keyword arguments, as a Python caller gives them: ``str(err)`` reads
    ``jobs: must be at least 1 (got 0)`` or ``scheduler: only used with backend='dask'``. The
    CLI prints the same line with its flags (``--scheduler: only used with --backend dask``)
    through ``render``.

    Parameters
    ----------
    option : str
        The keyword argument at fault.
    message : str
        What is wrong and what is allowed; ``{name}`` marks a mention of another keyword
        argument, filled from ``refs``.
    **refs
        ``name=value`` for each ``{name}`` in ``message``: ``value`` ``None`` names the
        argument alone (``out`` / ``--out``), ``True`` a flag set (``resume=True`` /
        ``--resume``), else the argument with that value (``backend='dask'`` /
        ``--backend dask``).
    """

    def __init__(self, option: str, message: str, **refs: Any):
        self.option = option
        self.message = message
        self.refs = refs
        super().__init__(self.render())

    def render(self, flag: Callable[[str], str] | None = None) -> str:
        """The message with keyword arguments (``flag=None``) or with ``flag(keyword)``, e.g.
        ``"--chunk-size"``, for each argument it names."""
        def mention(name: str, value: Any) -> str:
            if flag is None:
                return name if value is None else f"{name}={value!r}"
            return flag(name) if value is None or value is True else f"{flag(name)} {value}"

        text = self.message
        for name, value in self.refs.items():  # not str.format: a message may quote braces
            text = text.replace("{" + name + "}", mention(name, value))
        return f"{self.option if flag is None else flag(self.option)}: {text}"


class WriteFailed(AnalyzerError, OSError):
    """A file could not be written because of the disk or its permissions (full, over quota,
    read-only, not allowed); raised by ``analyzer.files`` for every file analyzer writes.

    ``str(err)`` is one line naming the file and the cause: ``cannot write reports/x/report.md
    (No space left on device)``. The write was atomic: the file is as it was before (or absent).
    Also an ``OSError`` (``errno``, ``strerror``, ``filename``: the final name, not the
    temporary one), so a caller that catches ``OSError`` still does.

    Parameters
    ----------
    path : str
        The file that was being written.
    cause : OSError
        The operating system's error.
    """

    def __init__(self, path: str, cause: OSError):
        OSError.__init__(self, cause.errno, cause.strerror or str(cause), str(path))

    def __str__(self) -> str:
        return f"cannot write {self.filename} ({self.strerror})"

    def __reduce__(self):  # rebuilt whole when it crosses a process boundary
        return type(self), (self.filename, OSError(self.errno, self.strerror))


class RunStopped(AnalyzerError):
    """A study stopped before its end with what it finished saved; a resume continues it.

    ``str(err)`` is one line: what stopped it, what is saved where (``saved``, in the study's
    own units: chunks of a run, generations of a tune, conditions of a robustness check) and
    how to resume: ``resume_with`` (default: the same call with ``resume=True``; the CLI sets
    its command).

    Parameters
    ----------
    what : str
        ``"interrupted"`` or what went wrong.
    saved : str
        E.g. ``"2 of 5 chunks saved in reports/x/chunks"``.
    """

    def __init__(self, what: str, saved: str):
        super().__init__(what)
        self.what, self.saved = what, saved
        self.resume_with = "the same call with resume=True"

    def __str__(self) -> str:
        return f"{self.what}: {self.saved}; resume with: {self.resume_with}"


class RunInterrupted(RunStopped):
    """Ctrl-C (or SIGTERM through the CLI) during a study; what is finished is saved."""


class WorkerDied(RunStopped):
    """Worker processes kept dying (killed, out of memory) after the runner's retries.

    The finished chunks are saved; the message says how many and how to resume.
    """


class IllegalChoice(ValueError):
    """A player chose an action the engine did not offer: a bug in the player, never a user error.

    Raised by a game's ``apply`` (``analyzer.model.forward``), never fixed or coerced.

    Parameters
    ----------
    seat : int
        The deciding seat (-1 when the game is over).
    kind : str
        The decision kind (``""`` when the game is over).
    action : Any
        What the player chose.
    legal : tuple
        The actions offered (the message shows the first 20).
    """

    def __init__(self, seat: int, kind: str, action: Any, legal: tuple = ()):
        self.seat = seat
        self.kind = kind
        self.action = action
        self.legal = legal
        if not kind:
            text = f"the game is over: no decision to answer with {action!r}"
        else:
            shown = ", ".join(map(repr, legal[:20])) + (f", … ({len(legal)} in all)" if len(legal) > 20 else "")
            text = f"seat {seat}: decision {kind!r}: choice {action!r} is not legal (legal: {shown})"
        super().__init__(text)

    def __reduce__(self):  # a worker process sends it back whole
        return type(self), (self.seat, self.kind, self.action, self.legal)


class HiddenInformation(LookupError):
    """A player asked its seat's view for something that seat may not see: a bug in the player.

    A view (``analyzer.model.forward.SeatView``) has no accessor for what its seat never sees
    (other hands, deck orders) and raises this where a rule option or the course of play decides
    whether the seat may see a value (another seat's holdings under a rule that hides them).
    """


class TurnCapExceeded(RuntimeError):
    """A game did not end within the hard cap of turns; the message names the seed to replay."""
