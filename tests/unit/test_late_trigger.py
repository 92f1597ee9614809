"""Fig. 9's comparison (klinkctl/late_trigger.py over io.klink.workloads.late.StalenessFigure): the late arrivals
are the delay model on [0, T], normalised; uniform arrivals make every trigger equal, skewed ones favour AION's;
bad input is one line."""

from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner

from klinkctl import late_trigger
from klinkctl.errors import KlinkError

needs_jar = pytest.mark.skipif(not late_trigger.WORKLOADS_JAR.is_file(), reason="klink-workloads.jar not built")


def test_cdf_points_are_the_delay_distribution_within_the_lateness_normalised():
    points = late_trigger.cdf_points("uniform:0-999ms", 2000, cells=4)
    assert points == pytest.approx([0, 0.5, 1, 1, 1], abs=1e-3)  # every whole ms in [0, 999]; none after 1 s
    lognormal = late_trigger.cdf_points("lognormal:1s:1", 10_000, cells=10)
    assert lognormal[0] == 0 and lognormal[-1] == 1 and np.all(np.diff(lognormal) >= 0)
    assert lognormal[1] == pytest.approx(0.5 / 0.98931, rel=1e-3)  # F(median) / F(10 median), Φ(ln 10) = 0.98931
    with pytest.raises(KlinkError, match="no delay falls within"):
        late_trigger.cdf_points("uniform:20s-30s", 10_000)


@needs_jar
def test_uniform_arrivals_make_the_triggers_equal_and_lognormal_ones_favour_aion():
    curves, fewest = late_trigger.compute(("uniform:0-10s", "lognormal:1s:1"), 10_000, 5, (0.05,))
    uniform = curves[curves["distribution"] == "uniform"].pivot(index="executions", columns="trigger",
                                                                values="max_staleness")
    assert uniform["deltat"].to_numpy() == pytest.approx(1 / np.arange(1, 6) ** 2, rel=1e-3)
    assert uniform["aion"].to_numpy() == pytest.approx(uniform["deltat"].to_numpy(), rel=1e-3)
    counts = fewest.set_index(["distribution", "trigger"])["executions"]
    assert counts["uniform", "aion"] == counts["uniform", "deltat"] == 5  # 1/5² <= 0.05 < 1/4²
    assert counts["lognormal", "aion"] < counts["lognormal", "deltat"]
    assert "| lognormal | 0.05 |" in late_trigger.tables(curves, fewest)


@pytest.mark.parametrize("args, message", [
    (["--bound", "1.5"], "--bound in (0, 1]"),
    (["--delay", "lognormal:oops"], "malformed delay spec"),
    (["--lateness", "-1s"], "--lateness"),
])
def test_bad_input_is_one_line(args, message, monkeypatch, tmp_path):
    monkeypatch.setattr(late_trigger, "WORKLOADS_JAR", tmp_path)  # exists; nothing may reach Java anyway
    result = CliRunner().invoke(late_trigger.main, args)
    assert result.exit_code != 0
    assert len(result.output.strip().splitlines()) == 1 and message in result.output, result.output
