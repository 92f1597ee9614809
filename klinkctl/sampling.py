"""The sampler in front of each query's window (java-udfs/klink-sampler, thesis Ch. 4): its settings."""

from __future__ import annotations

from klinkctl import catalog
from klinkctl.options import Section, option
from klinkctl.workloads.options import LATE

#: Samplers (the catalog's, from io.klink.sampler.Samplers); `none` = the job's bounded-out-of-orderness
#: watermarks, every event counted.
SAMPLERS = ("none", *catalog.samplers())
#: Workloads whose exact window results the harness computes from the generated events (accuracy, samplers).
ACCURACY_WORKLOADS = ("ysb", "nyt", "kmeans", "rides", *LATE)
#: Workloads whose results are always checked against exact ones (late-event windows: docs/late-state.md).
EXACT_WORKLOADS = LATE


class SamplerOptions(Section):
    """The sampler's 1 - delta is the scheduler's --confidence."""

    sampler: str = option("none", "Sampling / stream progress in front of each window (ysb, nyt, kmeans): "
                          f"{', '.join(SAMPLERS[1:])}, or none (the job's bounded-out-of-orderness watermarks).",
                          choices=SAMPLERS)
    error: float = option(0.05, "Sampler: relative error target r_thr of each window's result.", gt=0, lt=1)
    substream_ms: int = option(600, "Sampler: sub-stream length f, a divisor of --window (nyt: and of --slide). "
                               "[nyt: 500ms]", duration=True, cli="substream", ge=0)
    substream_history: int = option(50, "Sampler: sub-streams m its estimates look back over.", ge=1)
