from pathlib import Path

import pytest

from klinkctl.cli.stack import up
from klinkctl.errors import KlinkError
from klinkctl.stack.spec import STACK_OPTIONS, StackSpec


def spec(**overrides) -> StackSpec:
    return StackSpec.build(state_dir=Path("/tmp/state"), **overrides)


def test_defaults_are_valid_and_bind_to_loopback():
    valid = spec()
    assert valid.host == "127.0.0.1"
    assert valid.bootstrap_servers == "127.0.0.1:9092"
    assert valid.rest_url == "http://127.0.0.1:8081"


@pytest.mark.parametrize("overrides, message", [
    ({"taskmanagers": 0}, "--taskmanagers must be at least 1, got 0"),
    ({"taskmanagers": -2}, "--taskmanagers must be at least 1, got -2"),
    ({"slots": 0}, "--slots must be at least 1"),
    ({"taskmanager_memory": "lots"}, "--tm-memory must look like 1024m or 2g"),
    ({"kafka_heap": "512"}, "--kafka-heap must look like 1024m or 2g"),
    ({"rest_port": 70000}, "--rest-port must be at most 65535, got 70000"),
    ({"rest_port": 9092}, "--rest-port and --kafka-port are both 9092"),
])
def test_bad_values_name_the_option_to_fix(overrides, message):
    with pytest.raises(KlinkError, match=message.replace("(", r"\(")):
        spec(**overrides)


def test_round_trips_through_its_record():
    original = spec(taskmanagers=3, extra_flink_config={"a.b": "c"})
    assert StackSpec.from_dict(original.to_dict()) == original


def test_an_older_record_loads_without_checking_this_machine_again():
    record = spec().to_dict()
    del record["taskmanager_cgroup_parent"]  # recorded by a klinkctl before --tm-cgroup
    record["taskmanager_cpus"] = "0-4095"  # cores this process may no longer run on: `down` must still work
    loaded = StackSpec.from_dict(record)
    assert (loaded.taskmanager_cpus, loaded.taskmanager_cgroup_parent) == ("0-4095", "")
    with pytest.raises(KlinkError, match="--tm-cpus names core"):
        StackSpec.build(**record)


def test_up_takes_every_stack_option_under_its_name_and_nothing_else():
    assert [p.opts[0] for p in up.params][3:] == [f"--{o.cli}" for o in STACK_OPTIONS] == [
        "--taskmanagers", "--slots", "--jm-memory", "--tm-memory", "--kafka-heap", "--tm-cpus", "--tm-cpu-quota",
        "--tm-quota", "--tm-interference", "--tm-link-rate", "--tm-cgroup", "--tm-gc", "--tm-jit", "--tm-jit-cpu", "--adaptive-partitioner", "--base-image",
        "--debian-mirror", "--host", "--kafka-port", "--kafka-controller-port", "--rpc-port", "--rest-port",
        "--control-port", "--flink-rest", "--kafka-bootstrap", "--stack-token"]


def test_up_waits_longer_for_taskmanagers_that_a_quota_leaves_less_than_half_a_core(tmp_path):
    from klinkctl.stack.local import FLINK_READY_TIMEOUT_S, taskmanager_ready_timeout_s
    def timeout(**options):
        return taskmanager_ready_timeout_s(StackSpec(state_dir=tmp_path, **options))
    assert timeout() == FLINK_READY_TIMEOUT_S
    assert timeout(taskmanager_cpu_quota=1.0) == FLINK_READY_TIMEOUT_S
    assert timeout(taskmanagers=2, taskmanager_cpu_quota=0.3) == pytest.approx(FLINK_READY_TIMEOUT_S * 0.5 / 0.15)
    assert timeout(taskmanagers=2, taskmanager_quotas="1=0.5,2=0.1") == pytest.approx(FLINK_READY_TIMEOUT_S * 5)
