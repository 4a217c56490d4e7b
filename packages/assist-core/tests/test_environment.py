"""The environment table: every variable assist reads is one row, named once."""

from __future__ import annotations

from assist.core import environment
from assist.core.environment import VARIABLES, Variable, markdown


def test_every_variable_of_the_module_is_a_row_of_the_table_once() -> None:
    defined = [value for value in vars(environment).values() if isinstance(value, Variable)]
    assert sorted(variable.name for variable in defined) == sorted(v.name for v in VARIABLES)
    assert len({variable.name for variable in VARIABLES}) == len(VARIABLES)


def test_every_variable_is_ours_or_ambients_and_says_what_it_does_and_takes() -> None:
    for variable in VARIABLES:
        assert variable.name.startswith(("ASSIST_", "AMBIENT_")), variable.name
        assert variable.meaning and variable.form


def test_the_documented_table_has_a_row_per_variable_with_its_meaning() -> None:
    rows = markdown().splitlines()[2:]
    assert len(rows) == len(VARIABLES)
    for row, variable in zip(rows, VARIABLES, strict=True):
        assert row.startswith(f"| `{variable.name}` | {variable.meaning} |")
