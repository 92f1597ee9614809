"""The exceptions users see: a single line saying what is wrong and how to fix it, and the exit code it ends
klinkctl with (README.md, "Exit codes")."""

from enum import IntEnum


class ExitCode(IntEnum):
    """klinkctl's exit codes, each meaning one thing a script can act on."""

    OK = 0
    ERROR = 1  # the OS refused (a full disk, a permission, a vanished file)
    USAGE = 2  # a bad command line or an invalid setting; nothing was started (Click's usage errors are 2 too)
    RUN_FAILED = 3  # a run ended other than completed (bench, smoke, a capacity search's run)
    SWEEP_INCOMPLETE = 4  # a sweep ran to its end but some of its runs failed
    STACK_NOT_RUNNING = 5  # no stack, or not all of it, is running where one is needed
    INTERRUPTED = 130  # Ctrl-C or SIGTERM (128 + SIGINT, as shells report it)


def one_line(error: BaseException) -> str:
    """An unexpected exception as one line for summary.json and the user: its type and its message."""
    text = " ".join(str(error).split()) or "no message"
    return f"{type(error).__name__}: {text}"[:300]


class KlinkError(Exception):
    """A user-facing error. The CLI prints its message on one line and exits with ``exit_code``: by default
    the input was wrong (a setting, a file, a path)."""

    exit_code = ExitCode.USAGE


class RunNotCompleted(KlinkError):
    """A run did not complete (failed, interrupted inside the run, or its output was wrong)."""

    exit_code = ExitCode.RUN_FAILED


class SweepIncomplete(KlinkError):
    """A sweep ended with runs that failed; --resume reruns them."""

    exit_code = ExitCode.SWEEP_INCOMPLETE


class StackNotRunning(KlinkError):
    """The stack a command needs is not (entirely) running."""

    exit_code = ExitCode.STACK_NOT_RUNNING


class ComponentFailed(StackNotRunning):
    """A stack component did not start; names the component and the log file to read."""

    def __init__(self, component: str, reason: str, log_file: str | None = None) -> None:
        where = f" (see {log_file})" if log_file else ""
        super().__init__(f"{component} failed to start: {reason}{where}")
        self.component = component
        self.log_file = log_file
