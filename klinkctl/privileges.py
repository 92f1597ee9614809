"""What the features that change the host need, checked before anything starts (docs/reliability.md,
"Privileges"): a Linux capability, not root as such.

klinkctl does its privileged work in child processes (tc and ip for netem, the TaskManager's JVM for
`--enforce priority`), so a capability counts only if those children get it: as root (uid 0 keeps its
capabilities across exec) or, for any other user, in klinkctl's ambient set, e.g.

    sudo setpriv --reuid="$USER" --regid="$USER" --init-groups --inh-caps=+net_admin,+sys_admin \\
        --ambient-caps=+net_admin,+sys_admin klinkctl netem apply --delay 50ms
"""

from __future__ import annotations

import os
from pathlib import Path

from klinkctl.errors import KlinkError

#: Bit numbers from linux/capability.h.
CAPABILITY_BITS = {"CAP_NET_ADMIN": 12, "CAP_SYS_NICE": 23, "CAP_SYS_ADMIN": 21}
STATUS_FILE = Path("/proc/self/status")


def capability_sets(status_text: str) -> dict[str, int]:
    """The capability masks of a /proc/<pid>/status text: {"CapEff": …, "CapAmb": …, …}."""
    sets = {}
    for line in status_text.splitlines():
        name, _, value = line.partition(":")
        if name.startswith("Cap"):
            sets[name] = int(value.strip(), 16)
    return sets


def children_get(capability: str, status_text: str | None = None, uid: int | None = None) -> bool:
    """Whether the programs klinkctl starts hold `capability` (root with it in its bounding set, or anyone
    with it in the ambient set)."""
    sets = capability_sets(status_text if status_text is not None else STATUS_FILE.read_text())
    bit = 1 << CAPABILITY_BITS[capability]
    uid = os.geteuid() if uid is None else uid
    if uid == 0 and sets.get("CapBnd", 0) & bit:
        return True
    return bool(sets.get("CapAmb", 0) & bit)


def require(capabilities: tuple[str, ...], feature: str) -> None:
    """One line that names what is missing and how to grant it, before anything is touched."""
    missing = [capability for capability in capabilities if not children_get(capability)]
    if missing:
        names = ",".join("+" + capability.removeprefix("CAP_").lower() for capability in missing)
        raise KlinkError(f"{feature} needs {' and '.join(missing)}: run as root, or grant it to klinkctl's children "
                         f"with `sudo setpriv --reuid=$USER --regid=$USER --init-groups --inh-caps={names} "
                         f"--ambient-caps={names} klinkctl …` (docs/reliability.md, \"Privileges\")")
