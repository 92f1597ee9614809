"""Which capabilities the programs klinkctl starts will hold (issue 20, item 6: least privilege)."""

import pytest

from klinkctl import privileges
from klinkctl.errors import KlinkError

ROOT = "CapInh:\t0000000000000000\nCapPrm:\t000001ffffffffff\nCapEff:\t000001ffffffffff\n" \
       "CapBnd:\t000001ffffffffff\nCapAmb:\t0000000000000000\n"
ROOT_WITHOUT_NET_ADMIN = ROOT.replace("CapBnd:\t000001ffffffffff", "CapBnd:\t000001ffffffefff")
USER = "CapInh:\t0000000000000000\nCapPrm:\t0000000000000000\nCapEff:\t0000000000000000\n" \
       "CapBnd:\t000001ffffffffff\nCapAmb:\t0000000000000000\n"
USER_WITH_AMBIENT_SYS_NICE = USER.replace("CapAmb:\t0000000000000000", "CapAmb:\t0000000000800000")


@pytest.mark.parametrize("status, uid, capability, expected", [
    (ROOT, 0, "CAP_NET_ADMIN", True),
    (ROOT_WITHOUT_NET_ADMIN, 0, "CAP_NET_ADMIN", False),  # e.g. root in a container without NET_ADMIN
    (ROOT_WITHOUT_NET_ADMIN, 0, "CAP_SYS_NICE", True),
    (USER, 1000, "CAP_SYS_NICE", False),  # the bounding set allows it, but nothing grants it
    (USER_WITH_AMBIENT_SYS_NICE, 1000, "CAP_SYS_NICE", True),
    (USER_WITH_AMBIENT_SYS_NICE, 1000, "CAP_NET_ADMIN", False),
])
def test_children_get_a_capability_as_root_or_from_the_ambient_set(status, uid, capability, expected):
    assert privileges.children_get(capability, status, uid) is expected


def test_what_is_missing_is_named_with_how_to_grant_it(monkeypatch):
    monkeypatch.setattr(privileges, "children_get", lambda capability: capability == "CAP_NET_ADMIN")
    privileges.require(("CAP_NET_ADMIN",), "netem on a host interface")
    with pytest.raises(KlinkError) as raised:
        privileges.require(("CAP_NET_ADMIN", "CAP_SYS_ADMIN"), "netem on the generator")
    message = str(raised.value)
    assert "\n" not in message and message.startswith("netem on the generator needs CAP_SYS_ADMIN: run as root")
    assert "--inh-caps=+sys_admin --ambient-caps=+sys_admin" in message
