"""The report's AdCom Figs. 4a, 5 and 6 (docs/combiner.md) on fake rides run directories: the tables they are
drawn from, and the one-line reason a figure is skipped."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from klinkctl.results import report_adcom
from klinkctl.results.report import MissingData
from klinkctl.results.report_figures import FIGURES, make_section
from klinkctl.results.runset import load_runset
from klinkctl.results.stats import t_interval
from tests.unit.test_compare import make_run

START = 1_795_741_300_000  # the generator's start_ms
SCALES = (0.9, 1.0, 1.1)  # the three repetitions' throughputs, relative
#: trips per 2 s window, fired at 3, 5, …, 21 s: 10 000/s, then 40 000/s (adcom) or 20 000/s (none) in windows 4-7
WINDOW_EVENTS = {"adcom": [20_000] * 4 + [80_000] * 4 + [20_000] * 2,
                 "none": [20_000] * 4 + [40_000] * 4 + [20_000] * 2}
SURGE = "surge:4x@8s+8s"


def rides_run(root, name, combiner, seed, throughput=None, **bench):
    """A completed rides run with ``combiner`` (its label is the series) and generator-summary.json's start."""
    run_dir = make_run(root, name, "default", [1000.0, 1100.0], throughput=throughput or {},
                       bench={"workload": "rides", "combiner": combiner, "seed": seed, "duration_ms": 24_000,
                              "rate_schedule": SURGE, **bench})
    (run_dir / "generator-summary.json").write_text(json.dumps({"start_ms": START}))
    return run_dir


def write_windows(run_dir, events, scale):
    """latency.csv of q00: one 2 s window fired every 2 s from 3 s after the start, ``events`` × ``scale`` trips."""
    fired = [START + 3000 + 2000 * index for index in range(len(events))]
    pd.DataFrame({"run": run_dir.name, "policy": "default", "query": "q00", "window_start": fired,
                  "window_end": fired, "swm": fired, "fired_at": fired, "output_at": fired, "swm_latency_ms": 1000,
                  "keys": 50, "events": [scale * value for value in events], "late_dropped": 0,
                  "warmup": False}).to_csv(run_dir / "latency.csv", index=False)
    sent = [10_000 if second < 8 or second >= 16 else 40_000 for second in range(24)]
    pd.DataFrame({"second": range(24), "sent": sent, "scheduled": sent, "behind_events": 0,
                  "max_lag_ms": 1.0}).to_csv(run_dir / "generator.csv", index=False)


@pytest.fixture
def surge_runs(tmp_path):
    for combiner, events in WINDOW_EVENTS.items():
        for seed, scale in enumerate(SCALES, start=1):
            write_windows(rides_run(tmp_path, f"{combiner}-{seed}", combiner, seed), events, scale)
    return load_runset(tmp_path, include_invalid=True)


def test_throughput_over_time_spreads_each_windows_trips_since_the_previous_firing(surge_runs):
    table = report_adcom.throughput_over_time(surge_runs)
    assert set(table["counted_at"]) == {report_adcom.WINDOWS}  # no throughput.csv: the archive leaves it out
    adcom = table[table["policy"] == "adcom"].set_index("second")
    assert list(adcom.index) == list(range(3, 21))  # between the first firing (3 s) and the last (21 s)
    # the window fired at 13 s counted 80 000 trips since 11 s: 40 000/s in seconds 11 and 12, mean over the runs
    assert adcom.loc[11, "mean"] == pytest.approx(40_000) and adcom.loc[6, "mean"] == pytest.approx(10_000)
    assert (adcom.loc[11, "ci_low"], adcom.loc[11, "ci_high"]) == \
        pytest.approx(t_interval([40_000 * scale for scale in SCALES], 0.95))
    none = table[table["policy"] == "none"].set_index("second")
    assert none.loc[11, "mean"] == pytest.approx(20_000) and none.loc[11, "n"] == 3
    assert adcom.loc[9, "offered_per_s"] == 40_000 and adcom.loc[5, "offered_per_s"] == 10_000
    assert report_adcom.surge_span(surge_runs) == (8.0, 16.0)


def test_throughput_over_time_counts_at_the_sources_when_every_run_kept_throughput_csv(tmp_path):
    run_dir = rides_run(tmp_path, "adcom-1", "adcom", 1)
    write_windows(run_dir, WINDOW_EVENTS["adcom"], 1.0)
    lag = 2500  # Flink's counters first show reads 2.5 s after the start: second 0 of the reads
    times = [START + lag + 1000 * index for index in range(6)]
    pd.DataFrame({"run": run_dir.name, "policy": "default", "time": times, "job_vertex": "q00/source",
                  "query": "q00", "records_in_per_s": [7, 10_000, 10_000, 40_000, 40_000, 10_000],
                  "records_out_per_s": 0}).to_csv(run_dir / "throughput.csv", index=False)
    table = report_adcom.throughput_over_time(load_runset(tmp_path, include_invalid=True)).set_index("second")
    assert set(table["counted_at"]) == {report_adcom.SOURCES}
    assert table["mean"].to_dict() == {0: 7, 1: 10_000, 2: 10_000, 3: 40_000, 4: 40_000, 5: 10_000}


def skew_runs(root, x, values, surge=True):
    """Three repetitions of none and adcom per value of ``x``; adcom reads 1 000 × value more than none."""
    for value in values:
        for combiner, extra in (("none", 0), ("adcom", 1000 * value)):
            for seed, scale in enumerate(SCALES, start=1):
                read = scale * (30_000 + extra)
                throughput = {"flink_source_records_per_s": read / 2,
                              **({"during_surge": {"read_events_per_s": read}} if surge else {})}
                rides_run(root, f"{combiner}-{x}-{value}-{seed}", combiner, seed, throughput, **{x: value})
    return load_runset(root, include_invalid=True)


def test_throughput_vs_skew_is_the_mean_read_during_the_surge_per_combiner_and_exponent(tmp_path):
    runset = skew_runs(tmp_path, "key_skew", (0.5, 1.2))
    table = report_adcom.throughput_vs_skew(runset)
    surge = table[table["metric"] == "surge_read_per_s"].set_index(["policy", "key_skew"])
    assert surge.loc[("adcom", 1.2), "mean"] == pytest.approx(31_200)
    assert (surge.loc[("none", 0.5), "ci_low"], surge.loc[("none", 0.5), "ci_high"]) == \
        pytest.approx(t_interval([30_000 * scale for scale in SCALES], 0.95))
    span = table[table["metric"] == "flink_source_records_per_s"].set_index(["policy", "key_skew"])
    assert span.loc[("adcom", 0.5), "mean"] == pytest.approx(15_250) and set(table["n"]) == {3}
    section = make_section(next(spec for spec in FIGURES if spec.key == "5"), runset, tmp_path)
    assert section.skipped is None and (tmp_path / "fig5_throughput_vs_key_skew.png").is_file()
    assert len(section.figure.axes) == 2  # a row per throughput, no panels: the combiner is the series


def test_throughput_vs_parallelism_without_a_surge_plots_the_sources_rate(tmp_path):
    runset = skew_runs(tmp_path, "combiner_parallelism", (1, 2, 4), surge=False)
    table = report_adcom.throughput_vs_parallelism(runset)
    assert set(table["metric"]) == {"flink_source_records_per_s"}  # steady runs: no during_surge
    means = table.set_index(["policy", "combiner_parallelism"])["mean"]
    assert means[("adcom", 4)] == pytest.approx(17_000) and means[("none", 1)] == pytest.approx(15_000)
    section = make_section(next(spec for spec in FIGURES if spec.key == "6"), runset, tmp_path)
    assert section.skipped is None and section.stem == "fig6_throughput_vs_combiner_parallelism"


def test_each_adcom_figure_says_in_one_line_what_its_runs_lack(tmp_path, surge_runs):
    with pytest.raises(MissingData, match="combiner_parallelism is 2 in every rides run"):
        report_adcom.throughput_vs_parallelism(skew_runs(tmp_path / "one", "combiner_parallelism", (2,)))
    other = tmp_path / "ysb"
    make_run(other, "ysb-1", "default", [100.0], bench={"workload": "ysb", "seed": 1, "key_skew": 0.0})
    ysb = load_runset(other, include_invalid=True)
    for table, missing in ((report_adcom.throughput_vs_skew, "no rides run sets key_skew"),
                           (report_adcom.throughput_over_time, "no rides run has generator-summary.json")):
        with pytest.raises(MissingData, match=missing):
            table(ysb)
    skipped = make_section(next(spec for spec in FIGURES if spec.key == "4a"), ysb, tmp_path)
    assert skipped.skipped.startswith("no rides run has") and "\n" not in skipped.skipped


def test_the_throughput_over_time_figure_has_a_line_and_band_per_combiner_and_the_surge_shaded(surge_runs, tmp_path):
    section = make_section(next(spec for spec in FIGURES if spec.key == "4a"), surge_runs, tmp_path)
    ax = section.figure.axes[0]
    labels = [text.get_text() for text in ax.get_legend().get_texts()]
    assert labels == ["surge [8 s, 16 s)", "offered (generator.csv)", "adcom", "none"]
    assert len(ax.collections) == 2  # the bands
    shown = section.table.set_index("policy")
    assert shown.loc["adcom", "mean_max"] == pytest.approx(40_000) and np.isclose(shown.loc["none", "mean_max"], 20_000)
