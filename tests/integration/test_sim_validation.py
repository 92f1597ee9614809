"""The simulator against the real stack (docs/simulator.md, "Validation"): every validation's simulate sweep is run
again and compared with the real sweep kept in docs/data. The policies must rank alike, and every cell the committed
table (docs/data/sim-validation.csv) has within ±20 % must still be: a change to the model that loses agreement
fails here."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from klinkctl.sim.validation import TABLE, TOLERANCE, VALIDATIONS, same_ranking, validate

COMMITTED = pd.read_csv(TABLE)


@pytest.mark.parametrize("validation", VALIDATIONS, ids=[v.name for v in VALIDATIONS])
def test_the_simulator_still_agrees_with_the_real_stack(validation, tmp_path: Path) -> None:
    table = validate(validation, tmp_path)
    assert same_ranking(table), table[["variant", "mean_ms_real", "mean_ms_sim"]].to_string()
    committed = COMMITTED[COMMITTED["validation"] == validation.name]
    assert len(table) == len(committed)
    for (_, now), (_, then) in zip(table.iterrows(), committed.iterrows()):
        if then["within"]:
            assert now["within"], (f"{now['variant']}: the simulated mean/p99 moved {now['mean_error']:+.0%}/"
                                   f"{now['p99_error']:+.0%} from the real ones, beyond ±{TOLERANCE:.0%}")
