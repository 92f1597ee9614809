"""The klinkctl command line: commands parse their arguments, call the library and print; nothing else lives
in this package, and nothing in the library imports it."""

from __future__ import annotations

import sys

import click

from klinkctl import __version__, prereqs
from klinkctl.cli import archive, bench, capacity, compare, netem, report, simulate, stack, sweep
from klinkctl.cli.output import printable
from klinkctl.errors import ExitCode, KlinkError


class KlinkGroup(click.Group):
    """Turns KlinkError (and an OS error: a full disk, a permission) into one line on stderr and its exit code
    (klinkctl.errors.ExitCode), never a traceback."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        ctx.meta["klinkctl.argv"] = list(args)
        return super().parse_args(ctx, args)

    def invoke(self, ctx: click.Context):
        try:
            if any("\x00" in arg for arg in ctx.meta.get("klinkctl.argv", ())):  # no path or value holds one
                raise KlinkError("an argument contains a NUL byte (\\x00), which no path or value may hold; remove it")
            return super().invoke(ctx)
        except KlinkError as error:
            if getattr(error, "details", ""):  # what to do about it, e.g. what a cluster's operator must add
                click.echo(error.details, err=True)
            click.echo(f"error: {printable(str(error))}", err=True)
            sys.exit(error.exit_code)
        except click.UsageError as error:  # a command's option of the wrong type or choice: one line too
            click.echo(f"error: {printable(error.format_message())}", err=True)
            sys.exit(error.exit_code)
        except OSError as error:  # a full disk, a permission, a vanished file: the OS's words, in one line
            where = f" ({error.filename})" if getattr(error, "filename", None) else ""
            click.echo(f"error: {printable((error.strerror or str(error)) + where)}", err=True)
            sys.exit(ExitCode.ERROR)
        except KeyboardInterrupt:
            click.echo("interrupted", err=True)
            sys.exit(ExitCode.INTERRUPTED)


@click.group(cls=KlinkGroup)
@click.version_option(__version__, prog_name="klinkctl")
def main() -> None:
    """Latency experiments for scheduling and sampling policies on a real Flink + Kafka stack."""
    prereqs.check_python()


for command in (stack.up, stack.status, stack.down, stack.smoke, bench.bench,
                capacity.capacity_command(bench.bench, simulate.simulate), sweep.sweep, simulate.simulate, compare.compare,
                report.report, archive.archive_command, netem.netem):
    main.add_command(command)
