"""Progress callbacks: library code reports short lines, the CLI decides how to show them."""

from collections.abc import Callable

#: Called with a short human-readable line while something slow happens.
Progress = Callable[[str], None]


def no_progress(_: str) -> None:
    pass
