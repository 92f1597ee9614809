from pathlib import Path

import pytest

from klinkctl.errors import KlinkError
from klinkctl.stack.spec import StackSpec


def spec(**overrides) -> StackSpec:
    return StackSpec(state_dir=Path("/tmp/state"), **overrides)


def test_defaults_are_valid_and_bind_to_loopback():
    valid = spec().validate()
    assert valid.host == "127.0.0.1"
    assert valid.bootstrap_servers == "127.0.0.1:9092"
    assert valid.rest_url == "http://127.0.0.1:8081"


@pytest.mark.parametrize("overrides, message", [
    ({"taskmanagers": 0}, "--taskmanagers must be at least 1, got 0"),
    ({"taskmanagers": -2}, "--taskmanagers must be at least 1, got -2"),
    ({"slots": 0}, "--slots must be at least 1"),
    ({"taskmanager_memory": "lots"}, "--tm-memory must look like 1024m or 2g"),
    ({"kafka_heap": "512"}, "--kafka-heap must look like 1024m or 2g"),
    ({"rest_port": 70000}, "--rest-port must be a port between 1 and 65535"),
    ({"rest_port": 9092}, "--rest-port and --kafka-port are both 9092"),
])
def test_bad_values_name_the_option_to_fix(overrides, message):
    with pytest.raises(KlinkError, match=message.replace("(", r"\(")):
        spec(**overrides).validate()


def test_round_trips_through_its_record():
    original = spec(taskmanagers=3, extra_flink_config={"a.b": "c"})
    assert StackSpec.from_dict(original.to_dict()) == original
