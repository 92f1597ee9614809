"""`klinkctl netem apply / show / clear`: what is applied where, recorded in <state dir>/netem.json so that
`clear` removes exactly what klinkctl added and `bench` knows to run the generator in its namespace."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from klinkctl.errors import KlinkError
from klinkctl.netem.links import Runner, check, on_host, probe_netem_on_this_host, require_local_tools
from klinkctl.netem.namespace import GeneratorNamespace
from klinkctl.netem.relay_process import stop_relays
from klinkctl.netem.spec import tc_delete, tc_replace, tc_show
from klinkctl.stack.processes import ManagedProcess
from klinkctl.files import write_json

STATE_FILE = "netem.json"
#: The local backend's target: the generator, in a namespace of its own.
GENERATOR = "generator"


@dataclass
class Applied:
    """One qdisc klinkctl added: on the generator's veth or on a host interface (the compose backend's containers
    share the host's network, so both apply to it as they are)."""

    target: str
    device: str
    qdisc: list[str]
    namespace: dict | None = None  # GeneratorNamespace.to_dict() when klinkctl created it
    relays: list[dict] | None = None  # ManagedProcess dicts
    previous: dict | None = None  # a host interface's root qdisc before klinkctl's (previous_qdisc), for `clear`

    def to_dict(self) -> dict:
        return {k: v for k, v in vars(self).items() if v is not None}


class NetemState:
    def __init__(self, state_dir: Path) -> None:
        self.path = Path(state_dir) / STATE_FILE

    def load(self) -> list[Applied]:
        if not self.path.is_file():
            return []
        try:
            return [Applied(**entry) for entry in json.loads(self.path.read_text())["applied"]]
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise KlinkError(f"cannot read {self.path} ({error}); remove what it lists by hand, then the file")

    def save(self, applied: list[Applied]) -> None:
        if not applied:
            self.path.unlink(missing_ok=True)
            return
        write_json(self.path, {"applied": [a.to_dict() for a in applied]})


def generator_namespace(state_dir: Path) -> GeneratorNamespace | None:
    """The namespace `bench` must run the generator in, if netem was applied to the generator."""
    for applied in NetemState(state_dir).load():
        if applied.target == GENERATOR and applied.namespace:
            return GeneratorNamespace.for_state_dir(state_dir)
    return None


def apply_local(state_dir: Path, target: str, qdisc: list[str], kafka_port: int | None, probe: bool = True) -> Applied:
    """netem (or, for tests, any qdisc with probe=False) on the generator's veth or on a named interface.
    The probe comes first: where netem is missing nothing is created. The generator's namespace needs the
    stack's Kafka port (None = no stack recorded)."""
    require_local_tools(namespace=target == GENERATOR)
    state = NetemState(state_dir)
    applied = state.load()
    if target == GENERATOR and probe:  # first: where netem is missing, that is the news
        probe_netem_on_this_host()
    if target == GENERATOR and kafka_port is None:
        raise KlinkError(f"no stack recorded in {state_dir}; start it first with `klinkctl up`")
    if target == GENERATOR:
        entry = _on_generator_namespace(state_dir, qdisc, kafka_port, applied)
    else:  # no probe: `tc qdisc replace` with a kind the kernel lacks fails and changes nothing
        check(on_host(["ip", "link", "show", target]), f"interface {target}", "finding the interface")
        earlier = next((a for a in applied if a.target == target), None)
        previous = earlier.previous if earlier else previous_qdisc(target)
        check(on_host(tc_replace(target, qdisc)), f"interface {target}", "applying the qdisc")
        entry = Applied(target, target, qdisc, previous=previous)
    state.save([a for a in applied if a.target != target] + [entry])
    return entry


def previous_qdisc(device: str) -> dict:
    """The root qdisc a host interface has now: {kind, handle, line} ({} if none, e.g. the link is down)."""
    line = next((text for text in on_host(tc_show(device))[1].splitlines() if " root " in f"{text} "), "")
    if not line:
        return {}
    _, kind, handle, *_ = line.split()  # qdisc pfifo 7: root refcnt 3 limit 77p
    return {"kind": kind, "handle": handle, "line": line}


def _was_kernel_default(previous: dict | None) -> bool:
    """No qdisc recorded, or the one the kernel attaches by itself (handle 0:): deleting ours brings it back."""
    return not previous or previous.get("handle") in (None, "0:")


def restore_command(device: str, previous: dict | None) -> list[str]:
    """What puts the previous root qdisc back: deleting ours when it was the kernel's default, else re-adding
    it from tc's description (`limit 77p` read back as `limit 77`)."""
    if _was_kernel_default(previous):
        return tc_delete(device)
    words = previous["line"].split()
    after_root = words[words.index("root") + 1:]
    if after_root[:1] == ["refcnt"]:
        after_root = after_root[2:]
    options = [re.sub(r"^(\d+)p$", r"\1", word) if before == "limit" else word
               for before, word in zip(["", *after_root], after_root)]
    return ["tc", "qdisc", "replace", "dev", device, "root", "handle", previous["handle"], previous["kind"], *options]


def _on_generator_namespace(state_dir: Path, qdisc: list[str], kafka_port: int, applied: list[Applied]) -> Applied:
    space = GeneratorNamespace.for_state_dir(state_dir)
    previous = next((a for a in applied if a.target == GENERATOR), None)
    if previous is None:
        space.setup()
    try:
        check(space.run(tc_replace(space.namespace_device, qdisc)), f"the generator's veth {space.namespace_device}",
              "applying the qdisc")
        relays = previous.relays if previous else [r.to_dict() for r in space.start_relays(kafka_port, state_dir / "logs")]
    except KlinkError:
        if previous is None:
            space.teardown()
        raise
    return Applied(GENERATOR, space.namespace_device, qdisc, space.to_dict(), relays)


def show(state_dir: Path) -> list[tuple[Applied, str]]:
    """Each recorded qdisc with what tc reports for its device now."""
    return [(entry, _runner(entry, state_dir)(tc_show(entry.device))[1])
            for entry in NetemState(state_dir).load()]


def clear(state_dir: Path) -> list[str]:
    """Removes every qdisc, relay and namespace klinkctl recorded, and nothing else."""
    state = NetemState(state_dir)
    cleared = []
    for entry in state.load():
        done = entry.device
        if entry.namespace:
            stop_relays([ManagedProcess.from_dict(r) for r in entry.relays or []])
            GeneratorNamespace.for_state_dir(state_dir).teardown()
        else:
            done = _restore_host_interface(entry)
        cleared.append(f"{entry.target} ({done})")
    state.save([])
    return cleared


def _restore_host_interface(entry: Applied) -> str:
    """Puts the interface's previous root qdisc back; says what it did (or what the user must redo)."""
    code, output = on_host(restore_command(entry.device, entry.previous))
    if _was_kernel_default(entry.previous):
        return f"{entry.device}, the kernel's default qdisc back"
    if code == 0:
        return f"{entry.device}, previous qdisc {entry.previous['kind']} {entry.previous['handle']} restored"
    on_host(tc_delete(entry.device))
    reason = output.splitlines()[-1] if output else f"exit code {code}"
    return (f"{entry.device}; the previous qdisc could not be re-added ({reason}), re-add it by hand: "
            f"{entry.previous['line']}")


def _runner(entry: Applied, state_dir: Path) -> Runner:
    return GeneratorNamespace.for_state_dir(state_dir).run if entry.namespace else on_host
