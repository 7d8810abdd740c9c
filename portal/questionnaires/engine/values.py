"""One value against its question: an answer's (or a default's) shape and validation rules,
and a visible_if condition's value and whether it holds."""

from __future__ import annotations

import functools
from datetime import UTC, date, datetime, time

import re2

from portal.questionnaires.engine.messages import number_error, number_issue
from portal.questionnaires.engine.vocabulary import (
    DATE_RE,
    DATETIME_RE,
    FILE_TYPES,
    MAX_CONDITION_VALUES,
    MAX_FILES,
    MAX_TEXT_LENGTH,
    NUMERIC_TYPES,
    TEMPORAL_TYPES,
    TEXT_TYPES,
    TIME_RE,
    UUID_RE,
    is_int,
    json_kind,
)


def is_empty(value: object) -> bool:
    """No answer: null, a blank string, an empty list or object."""
    if value is None:
        return True
    if isinstance(value, str):
        return not value.strip()
    return isinstance(value, (list, dict)) and not value


_RE2_OPTIONS = re2.Options()
_RE2_OPTIONS.log_errors = False  # a builder typing a regex must not spam the server log


@functools.lru_cache(maxsize=256)
def compile_regex(pattern: str) -> tuple[object | None, str | None]:
    """The compiled RE2 pattern, or None and the reason it does not compile."""
    try:
        return re2.compile(pattern, _RE2_OPTIONS), None
    except UnicodeError:  # lone surrogates cannot be encoded as UTF-8 for RE2
        return None, "the pattern holds characters that are not valid Unicode"
    except (re2.error, ValueError, TypeError) as exc:
        reason = exc.args[0] if exc.args else "invalid pattern"
        if isinstance(reason, bytes):
            reason = reason.decode("utf-8", "replace")
        return None, str(reason)[:200]


def _regex_fullmatch(pattern: str, text: str) -> bool:
    """Whether the whole text matches; a pattern that does not compile matches nothing."""
    compiled, _ = compile_regex(pattern)
    if compiled is None:
        return False
    try:
        return compiled.fullmatch(text) is not None
    except (UnicodeError, ValueError, TypeError):  # e.g. lone surrogates cannot be UTF-8
        return False


def _temporal(qtype: str, value: object) -> object | None:
    """A date, time or (UTC-aware) datetime parsed from an ISO 8601 string, or None."""
    if not isinstance(value, str) or len(value) > 40:
        return None
    pattern = {"date": DATE_RE, "time": TIME_RE, "datetime": DATETIME_RE}[qtype]
    if not pattern.fullmatch(value):
        return None
    try:
        if qtype == "date":
            return date.fromisoformat(value)
        if qtype == "time":
            return time.fromisoformat(value)
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    # Naive and aware datetimes cannot be compared; a naive one is taken as UTC.
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def check_value(question: dict, value: object, *, rules: bool = True) -> tuple[object, list]:
    """(normalised value, [(code, reason, params)]) for one answer to a question."""
    # With rules False only the shape counts (for visible_if values), not validation or max_files.
    qtype = question.get("type")
    rule = question.get("validation") if rules else None
    rule = rule if isinstance(rule, dict) else {}
    options = question.get("options")
    options = options if isinstance(options, list) else None

    if qtype in NUMERIC_TYPES or qtype == "calculated":
        if qtype == "calculated" and isinstance(value, bool):
            return value, []
        issue = number_issue(value, integer=qtype == "integer")
        if issue:
            return None, [issue]
        return value, _range_problems(value, rule, counted=False)
    if qtype == "boolean":
        if not isinstance(value, bool):
            return None, [("value_type", "not_a_boolean", {"type": json_kind(value)})]
        return value, []
    if qtype in TEXT_TYPES or qtype == "select":
        return _text_value(qtype, value, rule, options)
    if qtype == "multiselect":
        return _choices_value(value, rule, options)
    if qtype in TEMPORAL_TYPES:
        if _temporal(qtype, value) is None:
            return None, [("value_type", f"{qtype}_invalid", {})]
        return value, []
    if qtype in FILE_TYPES:
        limit = question.get("max_files") if rules else None
        return _files_value(value, limit, rules=rules)
    if qtype == "location":
        return _location_value(value)
    return None, [("value_type", "takes_no_answer", {})]


def _text_value(qtype: str, value: object, rule: dict, options: list | None):
    """A text's (or a single choice's) value."""
    if not isinstance(value, str):
        return None, [("value_type", "not_a_string", {"type": json_kind(value)})]
    if len(value) > MAX_TEXT_LENGTH:
        return None, [("too_large", "text_too_long", {"limit": MAX_TEXT_LENGTH})]
    if qtype == "select":
        if options is not None and value not in options:
            return None, [("not_an_option", "not_an_option", {"value": value})]
        return value, []
    return value, _text_problems(value, rule)


def _choices_value(value: object, rule: dict, options: list | None):
    """A multiselect's choices: each an option, none twice, as many as the rule allows."""
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        return None, [("value_type", "not_an_option_list", {})]
    if len(set(value)) != len(value):
        return None, [("value_type", "option_chosen_twice", {})]
    unknown = [item for item in value if options is not None and item not in options]
    if unknown:
        return None, [("not_an_option", "not_an_option", {"value": unknown[0]})]
    return list(value), _range_problems(len(value), rule, counted=True)


def _files_value(value: object, limit: object, *, rules: bool):
    """A file question's file ids (lower case), none twice, at most its max_files."""
    if not isinstance(value, list) or not all(
        isinstance(item, str) and UUID_RE.fullmatch(item) for item in value
    ):
        return None, [("value_type", "files_invalid", {})]
    files = [item.lower() for item in value]
    if len(set(files)) != len(files):
        return None, [("value_type", "file_listed_twice", {})]
    limit = min(limit, MAX_FILES) if is_int(limit) else MAX_FILES
    if rules and len(files) > limit:
        return None, [("out_of_range", "too_many_files", {"limit": limit})]
    return files, []


def _location_value(value: object):
    """A location: {lat, lng}, numbers on the globe."""
    if not isinstance(value, dict) or set(value) != {"lat", "lng"}:
        return None, [("value_type", "location_invalid", {})]
    lat, lng = value["lat"], value["lng"]
    if number_error(lat) or number_error(lng):
        return None, [("value_type", "location_not_numbers", {})]
    if not (-90 <= lat <= 90 and -180 <= lng <= 180):
        return None, [("out_of_range", "location_out_of_range", {})]
    return {"lat": lat, "lng": lng}, []


def _range_problems(amount: float | int, rule: dict, *, counted: bool) -> list:
    """min/max problems for a number (or, counted, a multiselect's number of choices)."""
    low, high = rule.get("min"), rule.get("max")
    if number_error(low) is None and amount < low:
        return [("out_of_range", "too_few_chosen" if counted else "below_min", {"min": low})]
    if number_error(high) is None and amount > high:
        return [("out_of_range", "too_many_chosen" if counted else "above_max", {"max": high})]
    return []


def _text_problems(text: str, rule: dict) -> list:
    """minlength/maxlength/regex problems for a string."""
    problems = []
    low, high, pattern = rule.get("minlength"), rule.get("maxlength"), rule.get("regex")
    if is_int(low) and len(text) < low:
        problems.append(("out_of_range", "too_short", {"min": low}))
    if is_int(high) and len(text) > high:
        problems.append(("out_of_range", "too_long", {"max": high}))
    if isinstance(pattern, str) and not _regex_fullmatch(pattern, text):
        problems.append(("pattern_mismatch", "pattern_mismatch", {}))
    return problems


def condition_value(ref: dict, operator: str, value: object) -> tuple[object, tuple | None]:
    """(fresh normalised value, None) when a visible_if value fits, else (None, issue)."""
    rtype = ref.get("type")
    said = {"operator": operator}
    if operator in ("empty", "not_empty"):
        return None, None if value is None else ("value_type", "condition_value_not_null", said)
    if value is None:
        return None, ("value_type", "condition_value_needed", said)
    if operator in ("in", "not_in"):
        if not isinstance(value, list) or not value:
            return None, ("value_type", "condition_list_needed", said)
        if len(value) > MAX_CONDITION_VALUES:
            limit = {"limit": MAX_CONDITION_VALUES}
            return None, ("too_large", "condition_too_many_values", limit)
        items = [_compared(ref, item, scalar=True) for item in value]
        return [item for item, _ in items], next((p for _, p in items if p), None)
    if operator == "contains" and rtype != "multiselect":
        if isinstance(value, str):
            return value, None
        return None, ("value_type", "condition_not_a_string", {})
    if operator in ("gt", "gte", "lt", "lte") and rtype == "calculated":
        issue = number_issue(value)
        return (None, issue) if issue else (value, None)
    return _compared(ref, value, scalar=operator == "contains")


def _compared(ref: dict, value: object, *, scalar: bool = False) -> tuple[object, tuple | None]:
    """A compared value normalised like an answer to the question, or its problem."""
    # A scalar compared with a multiselect is one option; an integer compares with any number.
    rtype = ref.get("type")
    if rtype == "integer" or (scalar and rtype == "multiselect"):
        ref = {**ref, "type": "number" if rtype == "integer" else "select"}
    normalised, problems = check_value(ref, value, rules=False)
    return (None, problems[0]) if problems else (normalised, None)


def _ordered_key(qtype: str, value: object) -> object | None:
    """A comparable form of a value for gt/gte/lt/lte, or None."""
    if qtype in TEMPORAL_TYPES:
        return _temporal(qtype, value)
    return value if number_error(value) is None else None


def _same(qtype: str, left: object, right: object) -> bool:
    """eq semantics: dates and times by their moment, choices as sets, bool never equals 1."""
    if qtype in TEMPORAL_TYPES:
        left_key, right_key = _temporal(qtype, left), _temporal(qtype, right)
        if left_key is not None and right_key is not None:
            return left_key == right_key
    if isinstance(left, bool) or isinstance(right, bool):
        return left is right
    if (
        isinstance(left, list)
        and isinstance(right, list)
        and all(isinstance(item, str) for item in (*left, *right))
    ):
        return len(left) == len(right) and set(left) == set(right)
    return left == right


def condition_holds(condition: dict, ref_type: str, answer: object) -> bool:
    """Whether a visible_if condition holds for the referenced question's (cleaned) answer."""
    # A missing answer makes every comparison false (neq and not_in too); only `empty` holds.
    operator, target = condition.get("operator"), condition.get("value")
    if operator in ("empty", "not_empty"):
        return is_empty(answer) == (operator == "empty")
    if is_empty(answer):
        return False
    if operator in ("eq", "neq"):
        return _same(ref_type, answer, target) == (operator == "eq")
    if operator in ("in", "not_in"):
        if not isinstance(target, list):
            return False
        chosen = answer if isinstance(answer, list) else [answer]  # multiselect: any chosen
        hit = any(_same(ref_type, item, candidate) for item in chosen for candidate in target)
        return hit == (operator == "in")
    if operator == "contains":
        return isinstance(target, str) and isinstance(answer, (str, list)) and target in answer
    left, right = _ordered_key(ref_type, answer), _ordered_key(ref_type, target)
    if left is None or right is None:
        return False
    return {"gt": left > right, "gte": left >= right, "lt": left < right, "lte": left <= right}.get(
        operator, False
    )
