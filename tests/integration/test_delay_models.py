"""The generator's delay and gap sampling (Java) matches the distribution klinkctl tests runs against (SciPy)."""

import subprocess

import numpy as np
import pytest
from scipy import stats

from klinkctl import catalog
from klinkctl.artifacts import GENERATOR_JAR, build_java_udfs
from klinkctl.delay import fit_report, parse_delay, parse_inter_event


@pytest.fixture(scope="module")
def generator_jar():
    build_java_udfs()
    return GENERATOR_JAR


def sample(jar, spec: str, n: int, seed: int = 5) -> np.ndarray:
    out = subprocess.run(["java", "-jar", str(jar), "--delay", spec, "--seed", str(seed), "--sample-delays", str(n)],
                         capture_output=True, text=True, check=True, timeout=120).stdout
    return np.array(out.split(), dtype=float)


@pytest.mark.parametrize("spec", [kind.example for kind in catalog.delay_kinds()])  # every model the generator has
def test_each_model_samples_its_distribution(generator_jar, spec):
    delays = sample(generator_jar, spec, 20_000)
    report = fit_report(parse_delay(spec), delays)
    assert report["ks_pvalue"] > 0.001, report  # a fixed seed: this either always passes or always fails
    assert report["observed_mean_ms"] == pytest.approx(report["requested_mean_ms"], rel=0.03, abs=1)


def test_the_same_seed_gives_the_same_delays_and_another_seed_does_not(generator_jar):
    a, b = sample(generator_jar, "exp:240ms", 1000, seed=1), sample(generator_jar, "exp:240ms", 1000, seed=1)
    assert np.array_equal(a, b)
    assert not np.array_equal(a, sample(generator_jar, "exp:240ms", 1000, seed=2))


def test_a_wrong_model_is_rejected_by_the_same_test(generator_jar):
    assert fit_report(parse_delay("exp:300ms"), sample(generator_jar, "exp:240ms", 20_000))["ks_pvalue"] < 1e-6


@pytest.mark.parametrize("spec, rate", [("gamma:2", 1000), ("gamma:0.5", 20_000), ("gamma:60", 500)])
def test_inter_event_gaps_sample_their_gamma_distribution(generator_jar, spec, rate):
    out = subprocess.run(["java", "-jar", str(generator_jar), "--gaps", spec, "--rate", str(rate), "--seed", "3",
                          "--sample-gaps", "20000"], capture_output=True, text=True, check=True, timeout=120).stdout
    gaps_ms = np.array(out.split(), dtype=float) / 1e6
    model = parse_inter_event(spec, rate)
    assert stats.kstest(gaps_ms, model.distribution.cdf).pvalue > 0.001  # fixed seed: always or never passes
    assert gaps_ms.mean() == pytest.approx(1000 / rate, rel=0.03)
