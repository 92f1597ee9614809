"""Every bench option, in the order `--help` lists them: each component's own declared section; docs/options.md
adds the stack's (klinkctl.stack.spec). Light on purpose (no NumPy/SciPy), since the CLI is made from it on every
start."""

from __future__ import annotations

from klinkctl.generator import GeneratorOptions
from klinkctl.options import declared
from klinkctl.run.load import LoadOptions
from klinkctl.run.scheduler_control import SchedulerOptions
from klinkctl.sampling import SamplerOptions
from klinkctl.sim.options import SimOptions
from klinkctl.stack.spec import STACK_OPTIONS
from klinkctl.workloads.options import WORKLOAD_SECTIONS

#: The components' sections a run's spec is made of (klinkctl.run.config.RunSpec), in --help order.
SECTIONS = (*WORKLOAD_SECTIONS, GeneratorOptions, SchedulerOptions, SamplerOptions, LoadOptions, SimOptions)
OPTIONS = declared(*SECTIONS)


def markdown() -> str:
    """docs/options.md, made from the declarations (tests/unit/test_options.py keeps the file current)."""
    from klinkctl.options import markdown_table

    return ("# Bench options\n\nGenerated from the declarations (`python -m klinkctl.run.declared > docs/options.md`);"
            " the same names work as keys of a `--config` YAML file and of a sweep's `fixed:`, `grid:` and `variants:`."
            " Durations need a unit (`300ms`, `2s`, `1m`); a bare number is refused.\n\n" + markdown_table(OPTIONS)
            + "\n## Stack options (`klinkctl up`)\n\nThe stack the runs run on, started by `klinkctl up`; not bench "
              "settings, so not keys of a `--config` file or a sweep.\n\n"
            + markdown_table(STACK_OPTIONS))


if __name__ == "__main__":
    print(markdown(), end="")
