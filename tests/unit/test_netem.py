"""tc netem: settings as users write them, the exact tc command lines, and what is refused before anything runs."""

import ipaddress

import pytest

from klinkctl import privileges
from klinkctl.errors import KlinkError
from klinkctl.netem import control, links
from klinkctl.netem.namespace import GeneratorNamespace
from klinkctl.netem.spec import NetemSpec, tc_delete, tc_replace, tc_show


@pytest.mark.parametrize("args, qdisc", [
    (("100ms",), "netem delay 100ms"),
    (("100ms", "30ms"), "netem delay 100ms 30ms"),
    (("0.1s", "30ms", "normal"), "netem delay 100ms 30ms distribution normal"),
    (("100ms", "30ms", "paretonormal", "0.1%"), "netem delay 100ms 30ms distribution paretonormal loss 0.1%"),
    (("250ms", None, None, "2"), "netem delay 250ms loss 2%"),
])
def test_settings_render_the_exact_tc_command(args, qdisc):
    rendered = tc_replace("klg0a1b2c", NetemSpec.parse(*args).qdisc())
    assert " ".join(rendered) == f"tc qdisc replace dev klg0a1b2c root {qdisc}"


def test_show_and_clear_touch_only_the_named_device():
    assert tc_show("eth0") == ["tc", "qdisc", "show", "dev", "eth0"]
    assert tc_delete("eth0") == ["tc", "qdisc", "del", "dev", "eth0", "root"]


@pytest.mark.parametrize("args, message", [
    (("soon",), "--delay must be a duration like 300ms"),
    (("100ms", None, "normal"), "--distribution shapes the jitter: give --jitter too"),
    (("100ms", "30ms", "gauss"), "--distribution must be one of normal, pareto, paretonormal"),
    (("10ms", "30ms"), r"--jitter \(30 ms\) must not exceed --delay \(10 ms\)"),
    (("10ms", None, None, "lots"), "--loss must be a percentage between 0 and 100"),
    (("10ms", None, None, "101%"), "--loss must be a percentage between 0 and 100"),
])
def test_bad_settings_are_one_line_errors(args, message):
    with pytest.raises(KlinkError, match=message):
        NetemSpec.parse(*args)


def test_a_missing_netem_qdisc_is_explained_and_points_to_the_generator_models():
    tc_said = (2, "Error: Specified qdisc kind is unknown.")
    with pytest.raises(KlinkError, match=r"this kernel has no netem qdisc .* use the generator-side delay models"):
        links.check(tc_said, "this kernel", "probing netem")


def test_permission_problems_name_root_and_net_admin():
    with pytest.raises(KlinkError, match=r"not permitted: tc needs root \(CAP_NET_ADMIN\)"):
        links.check((2, "RTNETLINK answers: Operation not permitted"), "interface lo", "applying netem")


def test_a_missing_capability_is_said_before_anything_runs(monkeypatch):
    monkeypatch.setattr(privileges, "children_get", lambda capability: capability == "CAP_NET_ADMIN")
    links.require_local_tools(namespace=False)  # a host interface: CAP_NET_ADMIN is enough
    with pytest.raises(KlinkError, match=r"a network namespace\) needs CAP_SYS_ADMIN: run as root, or grant it .*"
                                         r"--ambient-caps=\+sys_admin"):
        links.require_local_tools(namespace=True)


@pytest.mark.parametrize("previous, command", [
    (None, ["tc", "qdisc", "del", "dev", "eth1", "root"]),
    ({}, ["tc", "qdisc", "del", "dev", "eth1", "root"]),
    ({"kind": "fq_codel", "handle": "0:", "line": "qdisc fq_codel 0: root refcnt 2 limit 10240p"},
     ["tc", "qdisc", "del", "dev", "eth1", "root"]),
    ({"kind": "pfifo", "handle": "1:", "line": "qdisc pfifo 1: root refcnt 3 limit 77p"},
     ["tc", "qdisc", "replace", "dev", "eth1", "root", "handle", "1:", "pfifo", "limit", "77"]),
    ({"kind": "tbf", "handle": "5:", "line": "qdisc tbf 5: root rate 1Mbit burst 4Kb lat 400ms"},
     ["tc", "qdisc", "replace", "dev", "eth1", "root", "handle", "5:", "tbf", "rate", "1Mbit", "burst", "4Kb",
      "lat", "400ms"]),
])
def test_clear_puts_the_previous_root_qdisc_back(previous, command):
    assert control.restore_command("eth1", previous) == command


def test_the_namespace_names_fit_linux_limits_and_are_stable_per_state_dir(tmp_path):
    space = GeneratorNamespace.for_state_dir(tmp_path)
    assert space == GeneratorNamespace.for_state_dir(tmp_path)
    assert len(space.host_device) <= 15 and len(space.namespace_device) <= 15  # IFNAMSIZ
    assert space.subnet.prefixlen == 30 and space.subnet.subnet_of(ipaddress.ip_network("10.213.0.0/16"))
    assert space.setup_commands()[1] == ["ip", "link", "add", space.host_device, "type", "veth", "peer", "name",
                                         space.namespace_device, "netns", space.namespace]


def test_a_bare_netem_delay_is_refused_with_the_unit_to_add():
    with pytest.raises(KlinkError, match="--delay 100 has no unit; write 100ms or 100s"):
        NetemSpec.parse("100")
