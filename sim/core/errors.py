"""Errors that mean "the user asked for something impossible", not "the program is broken".

The CLI prints such an error as one line, ``error: <message>``, and exits with code 2. Any other
exception is a bug and keeps its traceback.

Other modules mark their own error classes as user errors by inheriting from `UserError`, e.g.::

    class CardDataError(UserError, ValueError):
        '''A card TOML file is invalid.'''

or, if they must not import this module, by setting the class attribute ``user_error = True``.
"""

from __future__ import annotations


class UserError(Exception):
    """Base class of errors caused by user input (options, card data, output paths).

    The message must be a single, self-contained line: it is all the user sees.
    """

    user_error = True


class ClusterLost(UserError):
    """The Dask cluster stopped serving a run: its scheduler or the connection to it was lost,
    or workers kept dying on a chunk (`sim.core.dask_backend`). A fault, not a bug: a resumable
    run keeps its staging, even before its first chunk, so that ``--resume`` finishes it."""


def is_user_error(exc: BaseException) -> bool:
    """True if `exc` should be reported as a one-line user error rather than a traceback.

    Recognises `UserError` subclasses, any class with ``user_error = True``, and (so that the
    engine's errors work whichever base class they picked) classes named CardDataError,
    StrategyError or RunDirError anywhere in the exception's class hierarchy.
    """
    if getattr(exc, "user_error", False) is True:
        return True
    return any(cls.__name__ in _USER_ERROR_NAMES for cls in type(exc).__mro__)


_USER_ERROR_NAMES = frozenset({"UserError", "CardDataError", "StrategyError", "RunDirError"})


def one_line(exc: BaseException) -> str:
    """The exception's message collapsed onto one line (never empty)."""
    text = " ".join(part.strip() for part in str(exc).splitlines() if part.strip())
    return text or type(exc).__name__
