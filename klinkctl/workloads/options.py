"""The job's settings: those every workload reads, and each workload's own (declared here, light, so that the
CLI is made without importing the workloads' NumPy/pandas code)."""

from __future__ import annotations

from klinkctl import catalog
from klinkctl.options import Section, option

#: The workloads java-udfs declares (io.klink.workloads.Workloads, through the catalog).
WORKLOADS = catalog.workloads()
SLIDING = ("nyt", "lrb")
#: A workload's own defaults, under the file and the command line (NYT: DEBS-style 2 s windows sliding by 1 s;
#: LRB: the paper's segment statistics over 5 s sliding by 3 s; kMeans: 3 s tumbling windows, the thesis'; a
#: sampler's sub-streams must divide NYT's 1 s slide, so 500 ms there).
WORKLOAD_DEFAULTS: dict[str, dict[str, int]] = {"nyt": {"window_ms": 2000, "slide_ms": 1000, "substream_ms": 500},
                                                "lrb": {"window_ms": 5000, "slide_ms": 3000},
                                                "kmeans": {"window_ms": 3000}}


class JobOptions(Section):
    workload: str = option("ysb", "The benchmark workload.", choices=WORKLOADS)
    queries: int = option(1, "Independent query pipelines, each with its own topic.", gt=0)
    window_ms: int = option(10_000, "Window size (ysb: tumbling, the paper's variant 3s; nyt: sliding, 2s; lrb: the "
                            "sliding segment statistics, 5s; kmeans: tumbling, 3s).", duration=True, gt=0)
    slide_ms: int = option(0, "Slide of sliding windows (lrb's toll window is as long); 0 = tumbling. "
                           "[nyt 1s; lrb 3s]", duration=True, ge=0, workloads=SLIDING)
    watermark_bound_ms: int = option(1000, "Bounded out-of-orderness B of the watermarks.", duration=True, ge=0)
    marker_interval_ms: int = option(200, "Blocking latency marker period per source; 0 = no markers (to "
                                     "measure their overhead).", duration=True, ge=0)
    watermark_interval_ms: int = option(200, "How often sources emit watermarks.", duration=True, gt=0)
    accuracy: bool = option(False, "Write error.csv: each window's relative error against exact results computed "
                            "from the generated events (always on with a sampler; ysb, nyt, kmeans).", flag=True)


class YsbOptions(Section):
    campaigns: int = option(100, "ysb: campaigns (window keys).", gt=0)
    ads_per_campaign: int = option(10, "ysb: ads per campaign.", gt=0)


class NytOptions(Section):
    data: str = option("", "Replay this DEBS 2015 trip CSV (17 columns; first 500 000 rows, cyclically) instead "
                       "of synthetic trips.", workloads=("nyt",))


class LrbOptions(Section):
    stressed: bool = option(False, "The toll window (the query's last) is a third of --slide, so its deadlines "
                            "come 3x as often (the paper's stressed LRB).", workloads=("lrb",), flag=True)
    accidents: float | None = option(None, "Accidents started per minute per query (seeded; 0 = none). [2]",
                                     workloads=("lrb",), ge=0, le=1000)


class KmeansOptions(Section):
    k: int = option(5, "Clusters each window's k-means finds.", workloads=("kmeans",), gt=0)
    kmeans_iterations: int = option(20, "Lloyd iterations per window at most.", workloads=("kmeans",), gt=0)


WORKLOAD_SECTIONS = (JobOptions, YsbOptions, NytOptions, LrbOptions, KmeansOptions)
