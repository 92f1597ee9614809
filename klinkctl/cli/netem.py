"""`klinkctl netem apply | show | clear`: link-level delay with tc netem (klinkctl.netem)."""

from __future__ import annotations

from pathlib import Path

import click

from klinkctl.errors import KlinkError
from klinkctl.netem import control
from klinkctl.netem.spec import DISTRIBUTIONS, NetemSpec
from klinkctl.paths import resolve_state_dir
from klinkctl.stack import backends

state_dir_option = click.option(
    "--state-dir", type=click.Path(path_type=Path), default=None, envvar="KLINK_STATE_DIR",
    help="The stack's state dir (default ./.klink); what netem added is recorded there.")


@click.group()
def netem() -> None:
    """Link-level network delay with tc netem (needs root and a kernel with sch_netem).

    Local stack: the generator moves into a network namespace joined to the host by a veth pair that
    klinkctl creates, and netem goes on that veth, so nothing else on the host is touched. The compose
    stack's containers share the host's network, so the same holds for it. Where the kernel
    has no netem, use the generator-side delay models instead (`bench --delay exp:240ms`)."""


@netem.command("apply")
@state_dir_option
@click.option("--target", default=control.GENERATOR, show_default=True,
              help="`generator` (its own namespace + veth) or a host interface you name (both backends).")
@click.option("--delay", required=True, help="Added delay, e.g. 100ms.")
@click.option("--jitter", help="Delay variation, e.g. 30ms. [none]")
@click.option("--distribution", type=click.Choice(DISTRIBUTIONS), help="Shape of the jitter. [uniform]")
@click.option("--loss", help="Random packet loss, e.g. 0.1%. [none]")
def apply(state_dir: Path | None, target: str, delay: str, jitter: str | None, distribution: str | None,
          loss: str | None) -> None:
    """Probe for netem, then add it to TARGET (replacing what klinkctl added there before)."""
    qdisc = NetemSpec.parse(delay, jitter, distribution, loss).qdisc()
    resolved = resolve_state_dir(state_dir)
    stack = backends.detect(resolved)
    if stack is not None and stack.name == "remote" and target == control.GENERATOR:
        raise KlinkError("--target generator relays a Kafka broker on this machine, and the attached cluster's "
                         "(--backend remote) is elsewhere: name this machine's interface towards it instead")
    spec = stack.recorded_spec() if stack else None
    entry = control.apply_local(resolved, target, qdisc, spec.kafka_port if spec else None)
    where = f"the generator's veth {entry.device} (namespace {entry.namespace['namespace']})" if entry.namespace \
        else f"interface {entry.device}"
    click.echo(f"netem on {where}: {' '.join(qdisc)}")


@netem.command("show")
@state_dir_option
def show(state_dir: Path | None) -> None:
    """What klinkctl added, and what tc reports there now."""
    resolved = resolve_state_dir(state_dir)
    shown = control.show(resolved)
    if not shown:
        click.echo(f"no netem added by klinkctl in {resolved}")
    for entry, now in shown:
        click.echo(f"{entry.target} ({entry.device}): {' '.join(entry.qdisc)}\n  tc: {now}")


@netem.command("clear")
@state_dir_option
def clear(state_dir: Path | None) -> None:
    """Remove every qdisc, relay and namespace klinkctl added; nothing else."""
    resolved = resolve_state_dir(state_dir)
    cleared = control.clear(resolved)
    click.echo(f"removed netem from {', '.join(cleared)}" if cleared else f"nothing to clear in {resolved}")
