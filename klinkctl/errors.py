"""The one exception type users see: a single line saying what is wrong and how to fix it."""


def one_line(error: BaseException) -> str:
    """An unexpected exception as one line for summary.json and the user: its type and its message."""
    text = " ".join(str(error).split()) or "no message"
    return f"{type(error).__name__}: {text}"[:300]


class KlinkError(Exception):
    """A user-facing error. The CLI prints its message on one line and exits non-zero."""

    exit_code = 2


class ComponentFailed(KlinkError):
    """A stack component did not start; names the component and the log file to read."""

    def __init__(self, component: str, reason: str, log_file: str | None = None) -> None:
        where = f" (see {log_file})" if log_file else ""
        super().__init__(f"{component} failed to start: {reason}{where}")
        self.component = component
        self.log_file = log_file
