"""Options declared once (klinkctl.options): the CLI, YAML parsing, completion and docs/options.md all come from the
components' declarations."""

from __future__ import annotations

from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from klinkctl.cli import main
from klinkctl.cli.bench import bench
from klinkctl.cli.simulate import simulate
from klinkctl.sim.options import SIM_OPTION_NAMES
from klinkctl.errors import KlinkError
from klinkctl.run.config import resolve, user_settings
from klinkctl.run.declared import OPTIONS, markdown
from klinkctl.units import duration_ms

DOCS = Path(__file__).resolve().parents[2] / "docs" / "options.md"


def test_docs_options_md_is_made_from_the_declarations():
    assert DOCS.read_text() == markdown(), "regenerate: python -m klinkctl.run.declared > docs/options.md"


def test_each_option_is_declared_once_under_one_name():
    names, cli = [o.name for o in OPTIONS], [o.cli for o in OPTIONS]
    assert len(set(names)) == len(names) and len(set(cli)) == len(cli)


def test_bench_has_exactly_the_declared_options_with_their_types():
    params = {p.name: p for p in bench.params}
    for declared in OPTIONS:
        if declared.name == "workload":
            continue  # bench's argument
        if declared.name in SIM_OPTION_NAMES:
            assert declared.name not in params  # a simulated machine's options: simulate's, not bench's
            assert declared.name in {p.name for p in simulate.params}
            continue
        assert params[declared.name].opts[0] == f"--{declared.cli}"
        if declared.duration:
            assert params[declared.name].type.name == "duration"


def test_completion_offers_the_declared_choices():
    policy = next(p for p in bench.params if p.name == "policy")
    context = click.Context(bench)
    offered = [item.value for item in policy.type.shell_complete(context, policy, "kl")]
    assert offered == ["klink", "klink-nomm"]


@pytest.mark.parametrize("value, ms", [("300ms", 300), ("1.5s", 1500), ("2m", 120_000), ("0", 0), (0, 0)])
def test_durations_carry_a_unit(value, ms):
    assert duration_ms(value, "--cycle") == ms


@pytest.mark.parametrize("value", ["120", 120, "1.5", 2.0])
def test_a_bare_number_is_refused_with_the_unit_to_add(value):
    with pytest.raises(KlinkError, match=f"--cycle {value} has no unit; write {value}ms or {value}s"):
        duration_ms(value, "--cycle")


def test_a_bare_number_is_refused_on_the_command_line_and_in_a_config_file(tmp_path):
    result = CliRunner().invoke(main, ["bench", "ysb", "--cycle", "120", "--state-dir", str(tmp_path / "s")])
    assert result.exit_code == 2 and result.output.strip().splitlines() == [
        "error: Invalid value for '--cycle': 120 has no unit; write 120ms or 120s"]
    config = tmp_path / "c.yaml"
    config.write_text("watermark-bound: 1000\n")
    with pytest.raises(KlinkError, match="--watermark-bound 1000 has no unit; write 1000ms or 1000s"):
        resolve(config, {})
    assert not (tmp_path / "s").exists()


def test_an_unknown_key_gets_a_did_you_mean():
    with pytest.raises(KlinkError, match="unknown setting 'watermark-bond' in x.yaml; did you mean 'watermark-bound'"):
        user_settings({"watermark-bond": "1s"}, "x.yaml")


def test_a_field_name_carries_its_unit_and_takes_milliseconds():
    assert user_settings({"cycle_ms": 80, "cycle": "1s"}, "x") == {"cycle_ms": 1000}
    assert resolve(None, {"cycle_ms": 80}).cycle_ms == 80


def test_flags_can_be_turned_off_on_the_command_line_over_a_config_file(tmp_path):
    config = tmp_path / "c.yaml"
    config.write_text("strict-slack: true\n")
    assert resolve(config, {}).strict_slack is True
    assert resolve(config, {"strict_slack": False}).strict_slack is False


def test_a_boolean_is_not_a_number(tmp_path):
    config = tmp_path / "c.yaml"
    config.write_text("queries: true\n")
    with pytest.raises(KlinkError, match="--queries must be a number, got True"):
        resolve(config, {})


@pytest.mark.parametrize("value, message", [(0, "must be at least 1, got 0"), ("many", "must be a whole number, got 'many'"),
                                            (True, "must be a whole number, got True"), ("3", None)])
def test_whole_numbers_of_other_files_are_checked_by_the_same_library(value, message):
    from klinkctl.options import whole_number

    if message is None:
        assert whole_number(value, "repetitions", minimum=1) == 3
    else:
        with pytest.raises(KlinkError, match=f"repetitions {message}"):
            whole_number(value, "repetitions", minimum=1)
