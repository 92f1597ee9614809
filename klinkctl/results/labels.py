"""Policy labels: a run's scheduling policy with every scheduler setting that differs from the default, in the
Klink paper's names, e.g. ``klink[priority,C=2,f=0.9]``, ``rr[C=2]``, ``default``.

Two runs get the same label only when their policy and all scheduler settings are equal, so two variants never
share a name. ``default`` (plain Flink) ignores the scheduler settings and is always just ``default``.
"""

from __future__ import annotations

from typing import Any

from klinkctl.run.config import RunSpec

#: Scheduler settings in label order: bench setting -> its name in the paper (enforce shows its value alone,
#: strict_slack the word "strict", fill_cycle "fill"; aging, not in the paper, "age").
SCHEDULER_SETTINGS = {"enforce": "", "cores": "C", "confidence": "f", "cycle_ms": "r", "history": "h",
                      "memory_bound": "b", "strict_slack": "strict", "fill_cycle": "fill", "aging": "age"}
#: Each tail-latency technique's settings (per-record workloads, `--tail`) in label order, named as in its paper.
TAIL_SETTINGS = {"latency-balance": {"balance_period_ms": "period_ms", "balance_alpha": "α",
                                     "balance_threshold": "thres", "balance_unit": "unit"},
                 "replay": {"replay_period_ms": "period_ms"},
                 "replicate": {"replicate_fraction": "fraction"}}
#: A fixed-interval combiner's settings: ours (local-global) and Flink's mini-batch aggregation (minibatch).
FIXED_INTERVAL_SETTINGS = {"combiner_interval_ms": "λ_ms", "combiner_max_records": "n"}
#: The rides workload's combiner settings (seed adcom-edbt21.txt §3.2), per combiner, in label order.
COMBINER_SETTINGS = {"adcom": {"combiner_interval_ms": "λ0_ms", "adcom_band_low": "ρ_low", "adcom_band_high": "ρ_high",
                               "adcom_kp": "K_P", "adcom_ki": "K_I", "combiner_max_records": "n"},
                     "local-global": FIXED_INTERVAL_SETTINGS, "minibatch": FIXED_INTERVAL_SETTINGS}
DEFAULTS = {name: field.default for name, field in RunSpec.model_fields.items()}
UNSCHEDULED = "default"


def policy_label(bench: dict[str, Any]) -> str:
    """The label of a run's resolved bench settings (config.yaml's ``bench``); a missing setting (a run from
    before that setting existed) counts as its default."""
    policy = str(bench.get("policy") or UNSCHEDULED)
    label = policy if policy == UNSCHEDULED else _with_settings(policy, bench, SCHEDULER_SETTINGS)
    if bench.get("workload") == "rides":
        combiner = str(bench.get("combiner") or DEFAULTS["combiner"])
        combined = _with_settings(combiner, bench, COMBINER_SETTINGS.get(combiner, {}))
        return combined if label == UNSCHEDULED else f"{label}+{combined}"
    tail = str(bench.get("tail") or DEFAULTS["tail"])
    if tail == DEFAULTS["tail"]:
        return label
    technique = _with_settings(tail, bench, TAIL_SETTINGS.get(tail, {}))
    return technique if label == UNSCHEDULED else f"{label}+{technique}"


def _with_settings(name: str, bench: dict[str, Any], settings: dict[str, str]) -> str:
    """``name[setting=value,...]`` with every setting that differs from its default."""
    variant = [_setting(short, bench[key]) for key, short in settings.items()
               if key in bench and bench[key] != DEFAULTS[key]]
    return f"{name}[{','.join(variant)}]" if variant else name


def _setting(name: str, value: Any) -> str:
    if isinstance(value, bool):
        return name if value else f"{name}=false"
    text = f"{value:g}" if isinstance(value, float) else str(value)
    return f"{name}={text}" if name else text
