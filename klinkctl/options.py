"""Options declared once: each component declares its settings as a pydantic section (name, type, unit,
default, help, which workloads it applies to), and the Click options, the YAML parser (unknown keys refused
with a did-you-mean), `--help`, shell completion and docs/options.md are all made from those declarations.

A duration is declared with `duration=True`: its field holds whole milliseconds (`cycle_ms`), users write it
with a unit (`--cycle 120ms`, `cycle: 0.12s`); a bare number is refused, since seconds and milliseconds are
both plausible.
"""

from __future__ import annotations

import difflib
import functools
from collections.abc import Callable, Iterable, Mapping
from typing import Annotated, Any

import click
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, model_validator
from pydantic.fields import FieldInfo

from klinkctl.errors import KlinkError
from klinkctl.units import duration_ms


class Section(BaseModel):
    """A component's settings. Subclasses declare fields with `option(...)`; validation happens once, when
    the run spec is built."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    @model_validator(mode="before")
    @classmethod
    def _no_booleans_for_numbers(cls, values: Any) -> Any:
        """pydantic's lax mode reads `queries: true` as 1; a number option refuses a boolean instead."""
        options = _options_of(cls)
        for name, value in (values.items() if isinstance(values, dict) else ()):
            if isinstance(value, bool) and name in options and options[name].type_name in ("int", "number"):
                raise KlinkError(f"--{options[name].cli} must be a number, got {value!r}")
        return values

    @model_validator(mode="after")
    def _one_of_the_choices(self) -> Section:
        for name, option_ in _options_of(type(self)).items():
            choices, value = option_.choices, getattr(self, name)
            if choices and value not in choices:
                raise KlinkError(f"unknown {option_.cli} {value!r}; valid: {', '.join(choices)}")
        return self


@functools.cache
def _options_of(section: type[Section]) -> dict[str, Declared]:
    """A section's declared options by field name, read from its fields once per class."""
    return {o.name: o for o in declared(section)}


def option(default: Any, help: str, *, cli: str | None = None, duration: bool = False,
           choices: Callable[[], Iterable[str]] | Iterable[str] | None = None,
           workloads: Iterable[str] | None = None, flag: bool = False, **constraints: Any) -> Any:
    """A field of a Section. `cli` is the option's name as users write it (default: the field name with
    dashes, without `_ms` for durations); `choices` (or a function returning them, read when the CLI is made)
    are the only values allowed; `workloads` are the only workloads it applies to; `constraints` are pydantic's
    (ge, gt, le, lt)."""
    return Field(default, description=help, json_schema_extra={
        "cli": cli, "duration": duration, "choices": choices,
        "workloads": tuple(workloads) if workloads else None, "flag": flag}, **constraints)


class Declared:
    """One declared option, read back from its field."""

    def __init__(self, name: str, info: FieldInfo) -> None:
        extra = info.json_schema_extra or {}
        self.name, self.info = name, info
        self.duration: bool = bool(extra.get("duration"))
        self.workloads: tuple[str, ...] | None = extra.get("workloads")
        self.flag: bool = bool(extra.get("flag"))
        self._choices = extra.get("choices")
        self.cli: str = extra.get("cli") or (name.removesuffix("_ms") if self.duration else name).replace("_", "-")

    @property
    def choices(self) -> tuple[str, ...] | None:
        found = self._choices() if callable(self._choices) else self._choices
        return tuple(found) if found is not None else None

    @property
    def default(self) -> Any:
        return self.info.default

    @property
    def help(self) -> str:
        return self.info.description or ""

    @property
    def type_name(self) -> str:
        if self.duration:
            return "duration"
        if self.choices:
            return "|".join(self.choices)
        annotation = str(self.info.annotation)
        for name in ("bool", "int", "float"):
            if name in annotation:
                return "number" if name == "float" else name
        return "text"

    def default_text(self) -> str:
        if self.default is None:
            return ""
        if self.duration:
            return _duration_text(self.default)
        if isinstance(self.default, bool):
            return "on" if self.default else "off"
        return str(self.default)

    def click_type(self) -> click.ParamType:
        if self.duration:
            return DURATION
        if self.choices:
            return click.Choice(self.choices)
        return {"int": click.INT, "number": click.FLOAT}.get(self.type_name, click.STRING)

    def click_option(self) -> click.Option:
        text, shown = self.help, self.default_text()
        note = f" [{shown}]" if shown and not self.flag and not text.endswith("]") else ""
        if self.workloads:
            text = f"({', '.join(self.workloads)} only) {text}"
        if self.flag:
            return click.Option([f"--{self.cli}/--no-{self.cli}", self.name], default=None, help=text)
        return click.Option([f"--{self.cli}", self.name], type=self.click_type(), default=None, help=text + note)


def declared(*sections: type[Section]) -> list[Declared]:
    """Every option of these sections (each field declared with `option`), in declaration order, each once."""
    seen: dict[str, Declared] = {}
    for section in sections:
        for name, info in section.model_fields.items():
            if is_option(info):
                seen.setdefault(name, Declared(name, info))
    return list(seen.values())


def is_option(info: FieldInfo) -> bool:
    """Whether a field was declared with `option` (a section may hold other fields, e.g. a path set by code)."""
    return isinstance(info.json_schema_extra, dict) and "duration" in info.json_schema_extra


def _duration_text(ms: int) -> str:
    return f"{ms // 1000}s" if ms and ms % 1000 == 0 else f"{ms}ms"


class DurationType(click.ParamType):
    name = "duration"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value  # already milliseconds (a default, or a value set by code)
        try:
            return duration_ms(value, f"--{param.name if param else 'duration'}")
        except KlinkError as error:
            self.fail(str(error).split(" ", 1)[1] if str(error).startswith("--") else str(error), param, ctx)


DURATION = DurationType()


def click_options(options: list[Declared], skip: Iterable[str] = ()) -> Callable[[Callable], Callable]:
    """A decorator adding every option (but `skip`) to a Click command, in declaration order."""
    skipped = set(skip)

    def decorate(command: Callable) -> Callable:
        params = getattr(command, "__click_params__", [])
        params.extend(reversed([o.click_option() for o in options if o.name not in skipped]))
        command.__click_params__ = params
        return command
    return decorate


def from_user(raw: Mapping[Any, Any], options: list[Declared], source: str) -> dict[str, Any]:
    """Settings as users write them (`watermark-bound: 1s`, `cycle_ms: 120`) -> field values; durations parsed
    here, every other value left to the section's types. Unknown keys are refused with a did-you-mean."""
    by_key = {o.cli: o for o in options} | {o.name.replace("_", "-"): o for o in options}
    values: dict[str, Any] = {}
    for key, value in raw.items():
        found = by_key.get(str(key).replace("_", "-"))
        if found is None:
            raise KlinkError(f"unknown setting {key!r} in {source}{_did_you_mean(str(key), [o.cli for o in options])}")
        if found.duration and str(key).replace("_", "-") == found.cli:
            value = duration_ms(value, f"--{found.cli}")
        elif found.type_name == "text" and value is not None and not isinstance(value, str):
            value = str(value)  # YAML reads `generator-cpus: 0` as the number 0
        values[found.name] = value
    return values


def _did_you_mean(key: str, names: list[str]) -> str:
    close = difflib.get_close_matches(key.replace("_", "-"), names, n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else f"; valid: {', '.join(sorted(names))}"


def whole_number(value: object, what: str, minimum: int | None = None) -> int:
    """A whole number (at least `minimum`) as users write it, e.g. a sweep file's `repetitions`; one line if not."""
    if isinstance(value, bool):
        raise KlinkError(f"{what} must be a whole number, got {value!r}")
    try:
        return TypeAdapter(Annotated[int, Field(ge=minimum)]).validate_python(value)
    except ValidationError as error:
        raise KlinkError(f"{what} {_complaint(error.errors()[0])}") from None


_TYPE_WORDS = {"int": "a whole number", "float": "a number", "finite": "a finite number", "bool": "true or false",
               "string": "text"}
_BOUND_WORDS = {"greater_than": "greater than {gt}", "greater_than_equal": "at least {ge}", "less_than": "less than {lt}",
                "less_than_equal": "at most {le}"}


def one_line(error: ValidationError, options: list[Declared]) -> str:
    """pydantic's first complaint, in the words of the option users wrote: `--rate must be greater than 0, got 0`."""
    first = error.errors()[0]
    name = str(first["loc"][0]) if first["loc"] else ""
    return f"{next((f'--{o.cli}' for o in options if o.name == name), name)} {_complaint(first)}"


def _complaint(first: dict) -> str:
    kind, shown = first["type"], first.get("input")
    if kind in _BOUND_WORDS:
        bounds = {k: _number(v) for k, v in first.get("ctx", {}).items()}
        return f"must be {_BOUND_WORDS[kind].format(**bounds)}, got {shown}"
    words = next((w for prefix, w in _TYPE_WORDS.items() if kind.startswith(prefix)), None)
    return f"must be {words}, got {shown!r}" if words else f"is invalid: {first['msg']}"


def _number(value: object) -> object:
    """A bound as users read it: whole numbers in full (16777216, not 1.67772e+07), fractions short (0.1)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return f"{value:g}" if isinstance(value, float) else value


def markdown_table(options: list[Declared]) -> str:
    """docs/options.md's table."""
    rows = ["| option | type | default | applies to | meaning |", "|---|---|---|---|---|"]
    for o in options:
        meaning = o.help.replace("|", "\\|")
        rows.append(f"| `--{o.cli}` | {o.type_name.replace('|', ', ')} | {o.default_text() or '–'} | "
                    f"{', '.join(o.workloads) if o.workloads else 'all'} | {meaning} |")
    return "\n".join(rows) + "\n"
