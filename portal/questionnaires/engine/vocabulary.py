"""The definition's vocabulary: schema versions, question types, fields, operators, limits,
which fields and comparisons fit which type, and what kind a JSON value is."""

from __future__ import annotations

import re

SCHEMA_VERSIONS = {1}
QUESTION_TYPES = (
    "text", "textarea", "number", "integer", "boolean", "select", "multiselect", "date", "time",
    "datetime", "photo", "signature", "document_scan", "barcode", "location", "group",
    "calculated", "info",
)  # fmt: skip
OPERATORS = (
    "eq", "neq", "gt", "gte", "lt", "lte", "in", "not_in", "contains", "empty", "not_empty",
)  # fmt: skip
QUESTION_FIELDS = (
    "id", "type", "label", "required", "default_value", "readonly", "unit", "max_files",
    "options", "validation", "visible_if", "questions", "formula",
)  # fmt: skip

MAX_QUESTIONS = 500
MAX_GROUP_DEPTH = 5
MAX_FORMULA_LENGTH = 2000
MAX_FORMULA_DEPTH = 50
MAX_ID_LENGTH = 100
MAX_TITLE_LENGTH = 200
MAX_LABEL_LENGTH = 2000
MAX_UNIT_LENGTH = 50
MAX_OPTIONS = 200
MAX_OPTION_LENGTH = 200
MAX_REGEX_LENGTH = 1000
# Steps of a compiled RE2 pattern: a postcode or plate is 10-20, \w{500} is 1,504; (.*a){300}
# is 3,304 and takes ms per long answer, (.*a){1000} is 11,004 and takes 0.4 s.
MAX_REGEX_PROGRAM = 2000
MAX_FILES = 50
MAX_TEXT_LENGTH = 10_000
MAX_CONDITION_VALUES = 200
# Integers beyond 2^53 lose precision in the builder's JavaScript and overflow orjson.
MAX_SAFE_INTEGER = 2**53 - 1

TOP_FIELDS = ("schema_version", "questionnaire_id", "title", "activity_type", "questions")
VALIDATION_FIELDS = ("min", "max", "minlength", "maxlength", "regex")
CONDITION_FIELDS = ("question_id", "operator", "value")

TEXT_TYPES = ("text", "textarea", "barcode")
CHOICE_TYPES = ("select", "multiselect")
FILE_TYPES = ("photo", "signature", "document_scan")
NUMERIC_TYPES = ("number", "integer")
TEMPORAL_TYPES = ("date", "time", "datetime")
NO_ANSWER_TYPES = ("group", "info")
RANGE_TYPES = ("number", "integer", "multiselect")
FORMULA_OPERAND_TYPES = ("number", "integer", "calculated", "boolean")
NO_DEFAULT_TYPES = ("group", "info", "calculated", *FILE_TYPES)
ORDERED_TYPES = (*NUMERIC_TYPES, *TEMPORAL_TYPES, "calculated")
BASIC_OPERATORS = ("eq", "neq", "empty", "not_empty")
OPERATORS_BY_TYPE = {
    **{t: (*BASIC_OPERATORS, "in", "not_in", "gt", "gte", "lt", "lte") for t in ORDERED_TYPES},
    **{t: (*BASIC_OPERATORS, "in", "not_in", "contains") for t in (*TEXT_TYPES, "multiselect")},
    "select": (*BASIC_OPERATORS, "in", "not_in"),
    "boolean": (*BASIC_OPERATORS, "in", "not_in"),
    **{t: BASIC_OPERATORS for t in (*FILE_TYPES, "location")},
}

ID_RE = re.compile(r"[A-Za-z0-9_.-]{1,100}")
SLUG_RE = re.compile(r"[a-z0-9_-]{1,64}")
DATE_RE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
TIME_RE = re.compile(r"[0-9]{2}:[0-9]{2}(:[0-9]{2})?")
DATETIME_RE = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]{1,9})?)?"
    r"(Z|[+-][0-9]{2}:[0-9]{2})?"
)
UUID_RE = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")


def json_kind(value: object) -> str:
    """The JSON name of a value's type, for messages (a param: {type!t})."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "list"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def is_int(value: object) -> bool:
    """A JSON integer (bool is not one)."""
    return isinstance(value, int) and not isinstance(value, bool)


def operators_for(qtype: object) -> tuple[str, ...]:
    """The visible_if operators that fit a question of this type (none for group and info)."""
    return OPERATORS_BY_TYPE.get(qtype, ()) if isinstance(qtype, str) else ()


def fields_for(qtype: object) -> tuple[str, ...]:
    """The Question fields a question of this type may carry, in QUESTION_FIELDS order."""
    if not isinstance(qtype, str) or qtype not in QUESTION_TYPES:
        return ("id", "type", "label")
    allowed = {"id", "type", "label", "unit", "visible_if"}
    if qtype not in NO_ANSWER_TYPES:
        allowed |= {"required", "readonly"}
    if qtype not in NO_DEFAULT_TYPES:
        allowed.add("default_value")
    if qtype in FILE_TYPES:
        allowed.add("max_files")
    if qtype in CHOICE_TYPES:
        allowed.add("options")
    if validation_keys_for(qtype):
        allowed.add("validation")
    if qtype == "group":
        allowed.add("questions")
    if qtype == "calculated":
        allowed.add("formula")
    return tuple(name for name in QUESTION_FIELDS if name in allowed)


def validation_keys_for(qtype: object) -> tuple[str, ...]:
    """The ValidationRule fields that apply to a question of this type."""
    keys: tuple[str, ...] = ()
    if qtype in RANGE_TYPES:
        keys += ("min", "max")
    if qtype in TEXT_TYPES:
        keys += ("minlength", "maxlength", "regex")
    return keys
