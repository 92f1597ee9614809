"""Thesis delay presets and inter-event generation gap models: values, parsing, and how bench applies them."""

import pytest

from klinkctl.delay import PRESETS, parse_delay, parse_inter_event
from klinkctl.errors import KlinkError
from klinkctl.run.config import RunSpec, resolve


def test_presets_are_the_thesis_settings():
    # Aion thesis Ch. 4: network delay model first, then the inter-event generation delay model
    assert {name: (p.network, p.inter_event) for name, p in PRESETS.items()} == {
        "CC": ("const:150ms", "const:1ms"),
        "GG": ("gamma:60:4ms", "gamma:2:0.5ms"),
        "EC": ("exp:240ms", "const:1ms"),
        "EG": ("exp:240ms", "gamma:2:0.5ms"),
    }
    assert parse_delay("preset:GG").mean_ms == pytest.approx(240)  # k·θ = 60 · 4 ms
    assert parse_inter_event("gamma:2:0.5ms", 1000).mean_ms == pytest.approx(1.0)


@pytest.mark.parametrize("name, network, gaps", [("CC", "const:150ms", "const:1ms"), ("GG", "gamma:60:4ms", "gamma:2:0.5ms"),
                                                 ("EC", "exp:240ms", "const:1ms"), ("eg", "exp:240ms", "gamma:2:0.5ms")])
def test_a_preset_at_the_thesis_rate_gives_exactly_the_thesis_models(name, network, gaps):
    config = resolve(None, {"delay": f"preset:{name}", "rate": "1000"})
    assert (config.network_delay.spec, config.gaps.spec) == (network, gaps)


def test_at_other_rates_a_preset_keeps_the_gap_shape_and_follows_the_rate():
    gaps = resolve(None, {"delay": "preset:EG", "rate": "20000"}).gaps
    assert (gaps.spec, gaps.generator_arg) == ("gamma:2:0.025ms", "gamma:2")
    assert gaps.mean_ms == pytest.approx(0.05)


@pytest.mark.parametrize("spec, rate, canonical, generator_arg", [
    ("const", 1000, "const:1ms", "const"), ("const", 4000, "const:0.25ms", "const"),
    ("gamma:2", 1000, "gamma:2:0.5ms", "gamma:2"), ("gamma:0.5", 100, "gamma:0.5:20ms", "gamma:0.5"),
    ("const:1ms", 1000, "const:1ms", "const"), ("gamma:4:0.25ms", 1000, "gamma:4:0.25ms", "gamma:4"),
])
def test_inter_event_specs(spec, rate, canonical, generator_arg):
    model = parse_inter_event(spec, rate)
    assert (model.spec, model.generator_arg) == (canonical, generator_arg)
    assert model.mean_ms == pytest.approx(1000 / rate)


@pytest.mark.parametrize("spec, rate, message", [
    ("poisson", 1000, r"malformed inter-event spec 'poisson' \(unknown model\); expected const, gamma:<k>"),
    ("gamma:0", 1000, r"'0' must be > 0"),
    ("gamma:2:1ms", 1000, r"mean gap of 2 ms = 500 events/s, but --rate asks for 1000; give the shape only"),
    ("const:1ms", 2000, r"mean gap of 1 ms = 1000 events/s, but --rate asks for 2000"),
    ("gamma:1:2:3", 1000, r"needs gamma:<k> or gamma:<k>:<theta>"),
])
def test_bad_inter_event_specs_say_what_is_expected(spec, rate, message):
    with pytest.raises(KlinkError, match=message):
        parse_inter_event(spec, rate)


def test_bench_refuses_a_preset_together_with_its_own_inter_event_model():
    with pytest.raises(KlinkError, match=r"--delay preset:EG sets the inter-event model too; drop --inter-event"):
        resolve(None, {"delay": "preset:EG", "inter_event": "gamma:3"})
    with pytest.raises(KlinkError, match=r"unknown delay preset 'XY'; valid: preset:CC, preset:GG, preset:EC, preset:EG"):
        resolve(None, {"delay": "preset:XY"})


def test_bench_defaults_to_the_exact_schedule_and_accepts_gaps_from_a_config_file(tmp_path):
    assert RunSpec().gaps.generator_arg == "const"
    config_file = tmp_path / "bursty.yaml"
    config_file.write_text("rate: 2000\ninter-event: gamma:2\ndelay: exp:240ms\n")
    config = resolve(config_file, {})
    assert (config.gaps.spec, config.network_delay.spec) == ("gamma:2:0.25ms", "exp:240ms")
