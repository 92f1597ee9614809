"""No input ends in a traceback (issue 20, item 5): every option of `bench`, `capacity` and `up`, and every
key of a sweep file, driven with random and hostile strings, either is accepted or is refused with exit 2 and
one line. Nothing starts: the step after validation (the stack) is replaced by a sentinel."""

from __future__ import annotations

import click
import pytest
import yaml
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings, strategies as st

from klinkctl.cli import bench as bench_cli, main, simulate as simulate_cli, stack as stack_cli
from klinkctl.cli.capacity import capacity_command
from klinkctl.errors import KlinkError
from klinkctl.stack import backends, running
from klinkctl.workloads.options import WORKLOADS

ACCEPTED = "validation passed; the stack would start now"

SPECIAL = ["", " ", "-", "--5", "²", "nan", "inf", "-inf", "1e400", "0", "-1", "0.0", "1/0", "None", "null", "true",
           "[]", "{}", "0x10", "1_000", "٣", "10s", "-5s", "0ms", "9" * 40, "\x00", "const:", "uniform:5-1s",
           "pareto:1ms:0.1", "lognormal:1ms:50", "zipf:0:0-0ms", "gamma:1e308:1e308ms", "preset:XX", "0-1", "1,2,3",
           "../../etc", "klink[priority]"]
HOSTILE = st.one_of(
    st.text(max_size=40),
    st.sampled_from(SPECIAL),
    st.integers(min_value=-10**20, max_value=10**20).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
)


@pytest.fixture(autouse=True)
def nothing_starts(monkeypatch):
    def refuse(*_args, **_kwargs):
        raise KlinkError(ACCEPTED)

    monkeypatch.setattr(running, "ensure_stack", refuse)
    monkeypatch.setattr(backends, "create", refuse)


def options(command: click.Command, skip: set[str]) -> list[str]:
    return sorted(opt for param in command.params if isinstance(param, click.Option) and not param.is_flag
                  for opt in param.opts if opt.startswith("--") and opt not in skip)


def assert_clean(result) -> None:
    assert not (result.exception and not isinstance(result.exception, SystemExit)), repr(result.exception)
    if result.exit_code != 0:
        lines = [line for line in result.output.strip().splitlines() if line.strip()]
        assert result.exit_code == 2, result.output
        assert lines and (lines[-1].startswith("error:") or lines[-1].startswith("Error:")), result.output


BENCH_OPTIONS = options(bench_cli.bench, {"--state-dir", "--results", "--config"})
UP_OPTIONS = options(stack_cli.up, {"--state-dir", "--backend"})
CAPACITY_OPTIONS = options(capacity_command(bench_cli.bench, simulate_cli.simulate),
                           {"--state-dir", "--results", "--config", "--out"})


@pytest.mark.parametrize("option", BENCH_OPTIONS)
def test_every_bench_option_takes_every_special_value_cleanly(option):
    for workload in ("ysb", "kmeans", "rides", "average", "bigrams"):
        for value in SPECIAL:
            assert_clean(CliRunner().invoke(main, ["bench", workload, f"{option}={value}"]))


@pytest.mark.parametrize("option", UP_OPTIONS)
def test_every_up_option_takes_every_special_value_cleanly(option):
    for value in SPECIAL:
        assert_clean(CliRunner().invoke(main, ["up", f"{option}={value}"]))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(workload=st.sampled_from(WORKLOADS),
       option=st.sampled_from(BENCH_OPTIONS),
       value=HOSTILE)
def test_every_bench_option_is_accepted_or_refused_in_one_line(workload, option, value):
    assert_clean(CliRunner().invoke(main, ["bench", workload, f"{option}={value}"]))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(option=st.sampled_from(UP_OPTIONS), value=HOSTILE)
def test_every_up_option_is_accepted_or_refused_in_one_line(option, value):
    assert_clean(CliRunner().invoke(main, ["up", f"{option}={value}"]))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(option=st.sampled_from(CAPACITY_OPTIONS), value=HOSTILE)
def test_every_capacity_option_is_accepted_or_refused_in_one_line(option, value):
    assert_clean(CliRunner().invoke(main, ["capacity", "ysb", f"{option}={value}"]))


SWEEP_KEYS = sorted({opt[2:] for opt in BENCH_OPTIONS})


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(key=st.sampled_from(SWEEP_KEYS), value=HOSTILE, where=st.sampled_from(["fixed", "grid", "top"]))
def test_every_sweep_key_is_accepted_or_refused_in_one_line(tmp_path_factory, key, value, where):
    document: dict = {"workload": "ysb", "fixed": {"duration": "10s", "warmup": "2s"}}
    if where == "fixed":
        document["fixed"][key] = value
    elif where == "grid":
        document["grid"] = {key: [value, "1"]}
    else:
        document[key] = value
    path = tmp_path_factory.mktemp("sweep") / "s.yaml"
    path.write_text(yaml.safe_dump(document))
    assert_clean(CliRunner().invoke(main, ["sweep", str(path), "--dry-run"]))


@pytest.mark.parametrize("args, message", [
    (["bench", "ysb", "--delay", "pareto:100ms:0.5"], "has no finite mean"),
    (["bench", "ysb", "--delay", "lognormal:200ms:5"], "more than 10 minutes late"),
    (["bench", "ysb", "--k", "3"], "--k applies to the kmeans workload only, not ysb"),
    (["bench", "nyt", "--kmeans-iterations", "3"], "applies to the kmeans workload only"),
    (["bench", "ysb", "--tail", "latency-balance"], "--tail applies to the exclamation and ysb-records workloads only, not ysb"),
    (["bench", "ysb-records", "--tail", "replay"], "ysb-records's filter drops most of them"),
    (["bench", "ysb-records", "--stages", "5"], "--stages applies to the exclamation workload only"),
    (["bench", "ysb", "--combiner", "adcom"], "--combiner applies to the rides workload only, not ysb"),
    (["bench", "nyt", "--adcom-kp", "5"], "--adcom-kp applies to the rides workload only, not nyt"),
    (["bench", "rides", "--combiner", "adcom", "--adcom-band-high", "1.2"], "--adcom-band-high"),
    (["bench", "rides", "--combiner", "adcom", "--adcom-band-low", "0"], "--adcom-band-low"),
    (["bench", "rides", "--combiner", "adcom", "--adcom-kp", "-1"], "--adcom-kp"),
    (["bench", "rides", "--combiner", "adcom", "--adcom-ki", "-0.5"], "--adcom-ki"),
    (["bench", "rides", "--adcom-band-low", "0.9", "--adcom-band-high", "0.6"], "must not exceed --adcom-band-high"),
    (["bench", "ysb", "--rate=--5"], "Invalid value for '--rate': '--5' is not a valid integer"),
    (["bench", "ysb", "--rate", "²"], "Invalid value for '--rate': '²' is not a valid integer"),
    (["up", "--host", "not a host"], "--host 'not a host' is not an address of this machine"),
])
def test_inputs_that_used_to_crash_or_mislead_are_refused(args, message):
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2 and message in result.output, result.output


def test_a_non_loopback_host_is_warned_about_before_anything_starts():
    result = CliRunner().invoke(main, ["up", "--host", "0.0.0.0"])
    assert "warning: --host 0.0.0.0 exposes Flink's REST API" in result.output
    assert ACCEPTED in result.output


@pytest.mark.parametrize("option", ["--data", "--capacity", "--config", "--state-dir"])
def test_a_nul_byte_in_a_path_is_refused_in_one_line(option):
    result = CliRunner().invoke(main, ["bench", "nyt", f"{option}=a\x00b"])
    assert result.exit_code == 2 and "NUL byte" in result.output
    assert_clean(result)
