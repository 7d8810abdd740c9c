"""Vehicle capabilities (kenmerken): the defaults every carrier starts with, the parameters
each one takes (a tank's volume, a livestock vehicle's NVWA approval number, a cooled
body's temperature range), and what an activity type needs by default.

Pure: no tables. The carrier's catalogue (renamed, switched off, its own capabilities), the
vehicles' capabilities and the activity types' needs are stored through
portal/fleet/catalogue.py.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from flask_babel import lazy_gettext as _l


def N_(text: str) -> str:
    """Marks a default's name for translation; it is stored and sent as the Dutch text and
    translated where it shows (pages: gettext of the name)."""
    return text


@dataclass(frozen=True)
class Parameter:
    """A value a capability carries: a number within a range (with its unit) or a text."""

    name: str
    label: object  # a lazy text
    kind: str = "number"  # "number" or "text"
    unit: str | None = None
    minimum: float | None = None
    maximum: float | None = None
    max_length: int = 40
    required: bool = False


@dataclass(frozen=True)
class Default:
    code: str
    naam: str  # in Dutch; the pages translate it
    parameters: tuple[Parameter, ...] = field(default_factory=tuple)


TEMPERATURE = {"kind": "number", "unit": "°C", "minimum": -40, "maximum": 40}
DEFAULTS: tuple[Default, ...] = (
    Default(
        "mesttank",
        N_("Mesttank"),
        (Parameter("volume_m3", _l("Tankinhoud"), unit="m³", minimum=0.1, maximum=100),),
    ),
    Default(
        "vee",
        N_("Veevervoer (NVWA-erkend)"),
        (Parameter("nvwa_nummer", _l("NVWA-erkenningsnummer"), kind="text", required=True),),
    ),
    Default(
        "koeling",
        N_("Gekoeld"),
        (
            Parameter("temp_min", _l("Laagste temperatuur"), **TEMPERATURE),
            Parameter("temp_max", _l("Hoogste temperatuur"), **TEMPERATURE),
        ),
    ),
    Default("walking_floor", N_("Walking floor")),
    Default("kipper", N_("Kipper")),
    Default("adr", N_("ADR")),
    Default("kraan", N_("Kraan")),
    Default("kooiaap", N_("Kooiaap (meeneemheftruck)")),
)
BY_CODE = {d.code: d for d in DEFAULTS}
# What an activity type needs of its combination until the carrier says otherwise.
DEFAULT_NEEDS: dict[str, frozenset[str]] = {
    "mest_laden": frozenset({"mesttank"}),
    "mest_lossen": frozenset({"mesttank"}),
    "vee_transport": frozenset({"vee"}),
    "koel_transport": frozenset({"koeling"}),
}
MAX_NAAM = 100
MAX_CODE = 40
CODE = re.compile(r"^[a-z0-9][a-z0-9_]{0,39}$")


def parameters_of(code: str) -> tuple[Parameter, ...]:
    """The parameters a capability takes; a carrier's own capability takes none."""
    default = BY_CODE.get(code)
    return default.parameters if default else ()


def code_for(naam: str) -> str:
    """A code for a carrier's own capability, from its name ("Hooi-kar 2" → "hooi_kar_2")."""
    slug = re.sub(r"[^a-z0-9]+", "_", naam.strip().lower()).strip("_")
    return slug[:MAX_CODE] or "kenmerk"


def clean_parameters(code: str, values: dict | None, errors: list[dict]) -> dict:
    """A capability's parameters checked: known names, numbers in range, texts within their
    length, the required ones present, a temperature range low to high. Errors name the
    field `kenmerken.<code>.<parameter>`."""
    values = values if isinstance(values, dict) else {}
    known = {p.name: p for p in parameters_of(code)}
    clean: dict = {}
    for name in sorted(set(values) - set(known)):
        errors.append(_error(code, name, "unknown_parameter", "not a parameter of this capability"))
    for name, parameter in known.items():
        value = values.get(name)
        if isinstance(value, str):
            value = value.strip() or None
        if value is None:
            if parameter.required:
                errors.append(_error(code, name, "required", "is required"))
            continue
        checked = _checked(parameter, value)
        if checked is None:
            errors.append(_value_error(code, parameter))
        else:
            clean[name] = checked
    low, high = clean.get("temp_min"), clean.get("temp_max")
    if low is not None and high is not None and low > high:
        errors.append(
            _error(code, "temp_max", "range_order", "must not be below the lowest temperature")
        )
    return clean


def _checked(parameter: Parameter, value):
    if parameter.kind == "text":
        if not isinstance(value, str) or len(value) > parameter.max_length:
            return None
        return value
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    if not parameter.minimum <= value <= parameter.maximum:
        return None
    return float(value)


def _error(code: str, name: str, kind: str, message: str, **params) -> dict:
    error = {"field": f"kenmerken.{code}.{name}", "code": kind, "message": message}
    if params:
        error["params"] = params
    return error


def _value_error(code: str, parameter: Parameter) -> dict:
    if parameter.kind == "text":
        return _error(
            code,
            parameter.name,
            "too_long",
            f"a text of at most {parameter.max_length} characters",
            max=parameter.max_length,
        )
    low, high = f"{parameter.minimum:g}", f"{parameter.maximum:g}"
    return _error(
        code,
        parameter.name,
        "parameter_range",
        f"a number from {low} to {high}",
        min=low,
        max=high,
    )
