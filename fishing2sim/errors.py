"""The one base class of every error the user can cause: a bad experiment, deck, tune or
strategy file, a bad argument, a strategy that fails while it plays, a report folder that is
not ours. The command line prints such an error as one line and exits with code 2, with no
traceback (fishing2sim/cli.py); the Python API raises it as it is. Each subclass also keeps
the built-in class it always had (ValueError, OSError, ...), so older callers' ``except``
clauses still catch it."""
from __future__ import annotations

__all__ = ["Fishing2simError", "InputError"]


class Fishing2simError(Exception):
    """A problem with what the user gave, named with where it is: one line, exit code 2."""


class InputError(Fishing2simError, ValueError):
    """A bad argument of a command or of an API function (a player count, a seed, ...)."""
