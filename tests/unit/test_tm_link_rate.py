"""--tm-link-rate (a slower shuffle link for single TaskManagers, klinkctl.stack.tm_links): the rate parser, the
spec's checks, what the local backend gives each TaskManager and its relay, and what a run reports of the link."""

from pathlib import Path

import pandas as pd
import pytest
import yaml

from klinkctl.errors import KlinkError
from klinkctl.results.links import link_summary
from klinkctl.run.bench import write_resolved_config
from klinkctl.run.config import RunSpec
from klinkctl.stack import flink, tm_links
from klinkctl.stack.link_rate import LinkRate, parse_rate
from klinkctl.stack.spec import StackSpec


def spec(**overrides) -> StackSpec:
    return StackSpec.build(**{"state_dir": Path("/tmp/state"), "taskmanagers": 3, **overrides})


@pytest.mark.parametrize("written, bytes_per_s, normalised", [
    ("20mbit", 2_500_000, "20mbit"), ("20Mbit/s", 2_500_000, "20mbit"), ("1gbit", 125_000_000, "1gbit"),
    ("100kbit", 12_500, "100kbit"), ("800000bit", 100_000, "800000bit"), ("2.5MB/s", 2_500_000, "2.5MB/s"),
    ("512KiB/s", 524_288, "512KiB/s"), ("1 GB/s", 1e9, "1GB/s"), ("0.5MiB/s", 524_288, "0.5MiB/s"),
    ("+20.50Mbit/s", 2_562_500, "20.50mbit"), ("1000000000000000000000gbit", 1.25e29, "1000000000000000000000gbit"),
])
def test_a_rate_is_read_in_bits_or_bytes_per_second(written, bytes_per_s, normalised):
    assert parse_rate(written) == LinkRate(bytes_per_s, normalised)


def test_rates_are_read_per_taskmanager_and_recorded_one_way():
    shaped = spec(taskmanager_link_rates=" 3=2.5MB/s, 2=20Mbit/s")
    assert shaped.link_rate_of == {2: LinkRate(2.5e6, "20mbit"), 3: LinkRate(2.5e6, "2.5MB/s")}
    assert shaped.taskmanager_link_rates == "2=20mbit,3=2.5MB/s"
    assert StackSpec.from_dict(shaped.to_dict()).link_rate_of == shaped.link_rate_of
    assert spec().link_rate_of == {}


@pytest.mark.parametrize("overrides, message", [
    ({"taskmanager_link_rates": "4=20mbit"},
     "--tm-link-rate names taskmanager-4, but there are taskmanager-1..3 (--taskmanagers 3)"),
    ({"taskmanager_link_rates": "0=20mbit"}, "--tm-link-rate names taskmanager-0"),
    ({"taskmanager_link_rates": "2=20"}, "--tm-link-rate 2=20: a rate needs a unit: write 20mbit (bits per second) "
                                         "or 20MB/s (bytes per second)"),
    ({"taskmanager_link_rates": "2=0mbit"}, "--tm-link-rate 2=0mbit: a link's rate must be more than 0"),
    ({"taskmanager_link_rates": "2=0"}, "--tm-link-rate 2=0: a link's rate must be more than 0"),
    ({"taskmanager_link_rates": "2=-5MB/s"}, "--tm-link-rate 2=-5MB/s: a link's rate must be more than 0"),
    ({"taskmanager_link_rates": "2=50kbit"}, "--tm-link-rate 2=50kbit: a link's rate must be at least 100kbit"),
    ({"taskmanager_link_rates": "2=20mb/s"}, "--tm-link-rate 2=20mb/s: unknown unit 'mb/s'; use bits per second"),
    ({"taskmanager_link_rates": "2=20bps"}, "--tm-link-rate 2=20bps: unknown unit 'bps'"),
    ({"taskmanager_link_rates": "2=nan"}, "--tm-link-rate must be TaskManager=value pairs like 2=20mbit"),
    ({"taskmanager_link_rates": "2=1e400mbit"}, "--tm-link-rate 2=1e400mbit: unknown unit"),
    ({"taskmanager_link_rates": "2=9" + "9" * 400 + "mbit"}, "--tm-link-rate must be TaskManager=value pairs"),
    ({"taskmanager_link_rates": "20mbit"}, "--tm-link-rate must be TaskManager=value pairs like 2=20mbit"),
    ({"taskmanager_link_rates": "two=20mbit"}, "--tm-link-rate must be TaskManager=value pairs"),
    ({"taskmanager_link_rates": "2=20mbit,"}, "--tm-link-rate must be TaskManager=value pairs"),
    ({"taskmanager_link_rates": "2=1mbit,2=2mbit"}, "--tm-link-rate gives taskmanager-2 twice"),
    ({"taskmanager_link_rates": "1=20mbit", "taskmanagers": 1},
     "--tm-link-rate shapes what other TaskManagers fetch from a TaskManager, and with --taskmanagers 1 there are "
     "none: give --taskmanagers 2 or more"),
])
def test_bad_rates_are_refused_in_one_line_naming_the_option(overrides, message):
    with pytest.raises(KlinkError) as refused:
        spec(**overrides)
    assert str(refused.value).startswith(message) and "\n" not in str(refused.value)


def test_each_shaped_taskmanager_binds_one_free_port_and_is_advertised_under_another():
    ports = tm_links.pick_ports(spec(taskmanager_link_rates="2=20mbit,3=40mbit", host="127.0.0.1"))
    assert sorted(ports) == [2, 3]
    assert len({port for link in ports.values() for port in (link.advertised, link.bound)}) == 4
    assert tm_links.flink_properties(ports[2]) == {"taskmanager.data.bind-port": ports[2].bound,
                                                   "taskmanager.data.port": ports[2].advertised}
    assert tm_links.flink_properties(ports.get(1)) == {}


def test_its_taskmanager_gets_the_ports_as_dynamic_properties(tmp_path, monkeypatch):
    started = {}
    monkeypatch.setattr(flink, "flink_home", lambda: tmp_path)
    flink.start_taskmanager(spec(state_dir=tmp_path), 2, lambda name, argv, *_: started.setdefault(name, argv),
                            confined_here=False, properties={"taskmanager.data.port": 41000})
    assert started["taskmanager-2"][-4:] == ["-D", "taskmanager.resource-id=taskmanager-2",
                                             "-D", "taskmanager.data.port=41000"]


def test_its_relay_forwards_the_advertised_port_to_the_bound_one_at_the_rate(tmp_path, monkeypatch):
    launched = {}
    monkeypatch.setattr(tm_links, "start_relay", lambda name, argv, log, port: launched.update(
        name=name, argv=argv, log=log, port=port))
    shaped = spec(state_dir=tmp_path, taskmanager_link_rates="2=20mbit")
    tm_links.start_relays(shaped, {2: tm_links.LinkPorts(advertised=41001, bound=41002)})
    assert launched["name"] == "tm-link-2" and launched["port"] == 41001
    assert launched["argv"][-6:] == ["127.0.0.1:41001", "127.0.0.1:41002", "--rate", "2500000.0", "--counters",
                                     str(tmp_path / "logs" / "tm-link-2" / "counters.json")]
    assert "klinkctl" in " ".join(launched["argv"])  # ../shared/tools/leftovers finds it


def test_status_and_runs_read_the_relays_counters(tmp_path):
    shaped = spec(state_dir=tmp_path, taskmanager_link_rates="2=20mbit")
    assert tm_links.describe(shaped, "tm-link-2") == "shuffle link of taskmanager-2: 20mbit each way"
    tm_links.counters_file(shaped, 2).parent.mkdir(parents=True)
    tm_links.counters_file(shaped, 2).write_text('{"time_ms": 5, "bytes_to_clients": 3000000, "bytes_to_target": 7}')
    assert tm_links.describe(shaped, "tm-link-2").endswith("; 3.0 MB sent to other TaskManagers")
    assert tm_links.describe(shaped, "taskmanager-2") is None
    assert tm_links.link_rows(shaped) == [{"taskmanager": "taskmanager-2", "counted_at": 5, "time_ms": 5,
                                           "bytes_to_clients": 3000000, "bytes_to_target": 7}]


def test_the_run_config_records_the_rates(tmp_path):
    write_resolved_config(tmp_path, "run-1", RunSpec(), spec(state_dir=tmp_path, taskmanager_link_rates="2=20mbit"))
    assert yaml.safe_load((tmp_path / "config.yaml").read_text())["stack"]["taskmanager_link_rates"] == "2=20mbit"


def test_a_run_reports_what_crossed_each_link_in_its_measured_span():
    # the sampler reads each relay's counters once a second; a second read of the same counters adds nothing
    counted_at = [0, 1000, 1000, 2000, 3000, 4000, 5000]
    sent = [0, 1_000_000, 1_000_000, 3_000_000, 5_000_000, 6_000_000, 9_000_000]
    links = pd.DataFrame({"taskmanager": "taskmanager-2", "counted_at": counted_at, "rate_bytes_per_s": 2e6,
                          "bytes_to_clients": sent, "bytes_to_target": [n // 100 for n in sent]})
    summary = link_summary(links, (1000, 4000))["taskmanager-2"]
    assert summary == {"rate_bytes_per_s": 2e6, "seconds": 3.0, "bytes_to_clients": 5_000_000,
                       "bytes_to_target": 50_000, "mean_bytes_per_s_to_clients": pytest.approx(5e6 / 3),
                       "peak_bytes_per_s_to_clients": 2e6, "utilisation": pytest.approx(5 / 6),
                       "seconds_at_rate_fraction": pytest.approx(2 / 3)}
    assert link_summary(pd.DataFrame(), (1000, 4000)) is None and link_summary(links, None) is None
