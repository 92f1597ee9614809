import pytest

from klinkctl.delay import parse_delay
from klinkctl.errors import KlinkError
from klinkctl.run.config import BenchConfig, resolve
from klinkctl.units import duration_ms


@pytest.mark.parametrize("text, ms", [("300ms", 300), ("1.5s", 1500), ("2m", 120_000), ("10", 10_000), (3, 3000)])
def test_durations_as_people_write_them(text, ms):
    assert duration_ms(text, "--x") == ms


def test_a_bad_duration_names_the_option():
    with pytest.raises(KlinkError, match=r"--window must be a duration like 300ms, 10s or 2m, got 'soon'"):
        duration_ms("soon", "--window")


def test_constant_delay_specs():
    assert parse_delay("const:300ms").mean_ms == 300
    assert parse_delay("const:1.5s").spec == "const:1500ms"
    assert parse_delay("const:0").mean_ms == 0
    for bad in ("const:", "const:fast", "uniform", "300ms"):
        with pytest.raises(KlinkError, match="expected const:<duration>"):
            parse_delay(bad)


def test_defaults_then_file_then_command_line(tmp_path):
    config_file = tmp_path / "run.yaml"
    config_file.write_text("bench:\n  queries: 4\n  rate: 2000\n  window: 3s\n  watermark-bound: 500ms\n")
    config = resolve(config_file, {"workload": "ysb", "rate": "5000", "duration": None})
    assert config == BenchConfig(queries=4, rate=5000, window_ms=3000, watermark_bound_ms=500)


@pytest.mark.parametrize("overrides, message", [
    ({"rate": "0"}, "--rate must be greater than 0, got 0"),
    ({"rate": "-5"}, "--rate must be greater than 0, got -5"),
    ({"rate": "fast"}, "--rate must be a whole number, got 'fast'"),
    ({"queries": "0"}, "--queries must be greater than 0"),
    ({"warmup": "2m"}, r"--warmup \(120000 ms\) must be shorter than --duration \(60000 ms\)"),
    ({"policy": "edf"}, "unknown policy 'edf'; valid: default, rr, fcfs, hr, sbox, klink, klink-nomm"),
    ({"workload": "nyt"}, "unknown workload 'nyt'; valid: ysb"),
    ({"delay": "zipf"}, "malformed or unknown delay spec 'zipf'"),
])
def test_bad_values_are_one_clear_line(overrides, message):
    with pytest.raises(KlinkError, match=message):
        resolve(None, {"workload": "ysb", **overrides})


def test_config_file_errors(tmp_path):
    with pytest.raises(KlinkError, match="cannot read config"):
        resolve(tmp_path / "nope.yaml", {})
    broken = tmp_path / "broken.yaml"
    broken.write_text("rate: [1,\n")
    with pytest.raises(KlinkError, match="is not valid YAML"):
        resolve(broken, {})
    unknown = tmp_path / "unknown.yaml"
    unknown.write_text("speed: 3\n")
    with pytest.raises(KlinkError, match="unknown setting 'speed'"):
        resolve(unknown, {})
