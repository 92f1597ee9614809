"""Progress: library code reports short lines, the CLI decides how to show them; and how long is left."""

from collections.abc import Callable

#: Called with a short human-readable line while something slow happens.
Progress = Callable[[str], None]


def no_progress(_: str) -> None:
    pass


def eta_s(remaining_estimate_s: float, done_actual_s: float, done_estimate_s: float) -> float:
    """Time left: the estimates still ahead, scaled by how far off the finished runs' estimates were."""
    scale = done_actual_s / done_estimate_s if done_estimate_s > 0 and done_actual_s > 0 else 1.0
    return max(0.0, remaining_estimate_s) * scale
