import pytest

from klinkctl.delay import parse_delay
from klinkctl import privileges
from klinkctl.errors import KlinkError
from klinkctl.run.config import RunSpec, resolve
from klinkctl.units import duration_ms


@pytest.mark.parametrize("text, ms", [("300ms", 300), ("1.5s", 1500), ("2m", 120_000), ("0", 0), (0, 0)])
def test_durations_as_people_write_them(text, ms):
    assert duration_ms(text, "--x") == ms


def test_a_bad_duration_names_the_option():
    with pytest.raises(KlinkError, match=r"--window must be a duration like 300ms, 10s or 2m, got 'soon'"):
        duration_ms("soon", "--window")


def test_constant_delay_specs():
    assert parse_delay("const:300ms").mean_ms == 300
    assert parse_delay("const:1.5s").spec == "const:1500ms"
    assert parse_delay("const:0").mean_ms == 0
    with pytest.raises(KlinkError, match="a delay 300 has no unit; write 300ms or 300s"):
        parse_delay("const:300")  # a bare number is refused here too (the generator would read ms)
    for bad in ("const:", "const:fast", "uniform", "300ms"):
        with pytest.raises(KlinkError, match="expected one of const:<d>"):
            parse_delay(bad)


@pytest.mark.parametrize("spec, canonical, mean", [
    ("uniform:0-2s", "uniform:0ms-2000ms", 1000),
    ("normal:300ms:50ms", "normal:300ms:50ms", 300),
    ("exp:240ms", "exp:240ms", 240),
    ("gamma:60:4ms", "gamma:60:4ms", 240),
    ("lognormal:200ms:0.5", "lognormal:200ms:0.5", 226.6),
    ("pareto:100ms:3", "pareto:100ms:3", 150),
])
def test_random_delay_specs_and_their_means(spec, canonical, mean):
    model = parse_delay(spec)
    assert model.spec == canonical
    assert parse_delay(model.spec) == model or parse_delay(model.spec).spec == canonical
    assert model.mean_ms == pytest.approx(mean, rel=0.01)


def test_zipf_delay_lives_in_its_range_with_most_mass_at_the_low_end():
    model = parse_delay("zipf:0.99:0-2s")
    assert model.spec == "zipf:0.99:0ms-2000ms"
    assert model.quantile_ms(0.001) == 0 and model.quantile_ms(1.0) == 2000
    assert model.quantile_ms(0.5) < 300


@pytest.mark.parametrize("bad", ["uniform:2s-1s", "normal:300ms", "exp:0", "gamma:0:4ms", "zipf:0.99",
                                 "pareto:100ms:-1", "lognormal:0:1", "poisson:3"])
def test_bad_delay_parameters_show_the_expected_forms(bad):
    with pytest.raises(KlinkError, match=r"malformed delay spec .*expected one of const:<d> \(const:300ms\)"):
        parse_delay(bad)


def test_fit_report_accepts_samples_from_the_model_and_rejects_others():
    import numpy as np
    from klinkctl.delay import fit_report
    model = parse_delay("exp:240ms")
    rng = np.random.default_rng(1)
    good = fit_report(model, np.round(rng.exponential(240, 20_000)))
    assert good["ks_pvalue"] > 0.01 and good["observed_mean_ms"] == pytest.approx(240, rel=0.03)
    bad = fit_report(model, np.round(rng.exponential(300, 20_000)))
    assert bad["ks_pvalue"] < 1e-6
    constant = fit_report(parse_delay("const:300ms"), np.full(1000, 300.0))
    assert constant["ks_statistic"] == 0.0


def test_defaults_then_file_then_command_line(tmp_path):
    config_file = tmp_path / "run.yaml"
    config_file.write_text("bench:\n  queries: 4\n  rate: 2000\n  window: 3s\n  watermark-bound: 500ms\n")
    config = resolve(config_file, {"workload": "ysb", "rate": "5000", "duration": None})
    assert config == RunSpec(queries=4, rate=5000, window_ms=3000, watermark_bound_ms=500)


@pytest.mark.parametrize("overrides, message", [
    ({"rate": "0"}, "--rate must be greater than 0, got 0"),
    ({"rate": "-5"}, "--rate must be greater than 0, got -5"),
    ({"rate": "fast"}, "--rate must be a whole number, got 'fast'"),
    ({"queries": "0"}, "--queries must be greater than 0"),
    ({"warmup": "2m"}, r"--warmup \(120000 ms\) must be shorter than --duration \(60000 ms\)"),
    ({"policy": "edf"}, "unknown policy 'edf'; valid: default, rr, fcfs, hr, sbox, klink, klink-nomm"),
    ({"workload": "tpch"}, "unknown workload 'tpch'; valid: ysb, nyt, lrb"),
    ({"delay": "zipf"}, "malformed delay spec 'zipf'"),
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


def test_scheduler_parameters_from_file_and_command_line_reach_the_agent_by_their_paper_names(tmp_path):
    config_file = tmp_path / "run.yaml"
    config_file.write_text("bench:\n  policy: klink\n  cycle: 80ms\n  history: 100\n  confidence: 0.9\n")
    config = resolve(config_file, {"memory_bound": "0.7", "cores": "1"})
    assert config.scheduler_params() == {"r": 80, "h": 100, "f": 0.9, "b": 0.7, "C": 1}
    assert "C" not in resolve(None, {}).scheduler_params()  # default: every core of the TaskManager


@pytest.mark.parametrize("overrides, message", [
    ({"confidence": "1"}, "--confidence must be less than 1, got 1"),
    ({"confidence": "high"}, "--confidence must be a number, got 'high'"),
    ({"memory_bound": "0"}, "--memory-bound must be greater than 0, got 0"),
    ({"cores": "0"}, "--cores must be at least 1"),
    ({"history": "0"}, "--history must be at least 1, got 0"),
    ({"cycle": "0ms"}, "--cycle must be greater than 0"),
])
def test_out_of_range_scheduler_parameters_are_refused(overrides, message):
    with pytest.raises(KlinkError, match=message):
        resolve(None, overrides)


def test_cpu_lists_must_name_cores_of_this_machine():
    from klinkctl.cpus import parse_cpu_list, pinned
    assert parse_cpu_list("0", "--tm-cpus") == (0,)
    assert pinned(["java"], "0", "--generator-cpus") == ["taskset", "-c", "0", "java"]
    assert pinned(["java"], "", "--generator-cpus") == ["java"]
    with pytest.raises(KlinkError, match="--tm-cpus names core"):
        parse_cpu_list("999", "--tm-cpus")
    with pytest.raises(KlinkError, match="--generator-cpus must be a list of cores like 1 or 0,2"):
        resolve(None, {"generator_cpus": "one"})


def test_strict_slack_reaches_the_agent_only_when_asked_for(tmp_path):
    assert "strict" not in resolve(None, {"policy": "klink"}).scheduler_params()
    assert resolve(None, {"policy": "klink", "strict_slack": True}).scheduler_params()["strict"] == "true"
    config_file = tmp_path / "strict.yaml"
    config_file.write_text("policy: klink\nstrict-slack: yes\n")
    assert resolve(config_file, {"strict_slack": None}).strict_slack is True
    config_file.write_text("strict-slack: maybe\n")
    with pytest.raises(KlinkError, match="--strict-slack must be true or false, got 'maybe'"):
        resolve(config_file, {})


def test_a_core_list_written_as_a_bare_number_in_yaml_still_pins(tmp_path):
    config_file = tmp_path / "pinned.yaml"
    config_file.write_text("generator-cpus: 0\n")  # YAML: the integer 0, which must not read as "not pinned"
    assert resolve(config_file, {}).generator_cpus == "0"


def test_priority_enforcement_reaches_the_agent_only_when_asked_for_and_needs_cap_sys_nice(monkeypatch):
    assert "enforce" not in resolve(None, {"policy": "klink"}).scheduler_params()
    monkeypatch.setattr(privileges, "children_get", lambda capability: capability == "CAP_SYS_NICE")
    assert resolve(None, {"policy": "klink", "enforce": "priority"}).scheduler_params()["enforce"] == "priority"
    with pytest.raises(KlinkError, match="unknown enforce 'freeze'; valid: pause, priority"):
        resolve(None, {"enforce": "freeze"})
    monkeypatch.setattr(privileges, "children_get", lambda capability: False)
    with pytest.raises(KlinkError, match="needs CAP_SYS_NICE .* or use --enforce pause"):
        resolve(None, {"policy": "klink", "enforce": "priority"})


def test_pack_bytes_is_refused_beyond_what_one_producer_request_holds():
    assert resolve(None, {"pack_bytes": "0"}).pack_bytes == 0
    with pytest.raises(KlinkError, match="--pack-bytes must be at most 524288, got 600000"):
        resolve(None, {"pack_bytes": "600000"})
