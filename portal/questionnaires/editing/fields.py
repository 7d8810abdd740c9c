"""Reading the builder's and the preview's forms: numbers, flags and answers as JSON, a
question's fields and its visible_if, and what follows from a changed id or option."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping

from portal.questionnaires import engine
from portal.questionnaires.editing.changes import (
    change_type,
    rename_option,
    rename_references,
    tidy_question,
)
from portal.questionnaires.editing.document import (
    by_id,
    candidates,
    ids_in_use,
    question_at,
    tree,
    walk,
)

_NUMBER_RE = re.compile(r"[-+]?(\d+([.,]\d*)?|[.,]\d+)([eE][-+]?\d+)?")


def parse_number(text: str, *, integer: bool = False) -> object:
    """A JSON number from what an author typed (a decimal comma too); the text itself when it
    is no number, so the checker names the problem; None when empty."""
    text = text.strip()
    if not text:
        return None
    if len(text) > 40 or not _NUMBER_RE.fullmatch(text):
        return text
    if "," in text and "." not in text:
        text = text.replace(",", ".")
    if re.fullmatch(r"[-+]?\d+", text) and len(text.lstrip("+-")) <= 16:
        return int(text)
    try:
        number = float(text)
    except ValueError:
        return text
    if not math.isfinite(number):
        return text
    if integer and number.is_integer() and abs(number) <= engine.MAX_SAFE_INTEGER:
        return int(number)
    return number


def parse_flag(text: str) -> object:
    return {"ja": True, "nee": False}.get(text.strip().lower()) if text.strip() else None


def scalar(qtype: str | None, text: str) -> object:
    """One value typed for a question of qtype, as JSON (None when empty)."""
    if qtype in ("number", "integer", "calculated"):
        return parse_number(text, integer=qtype == "integer")
    if qtype == "boolean":
        flag = parse_flag(text)
        return flag if flag is not None or not text.strip() else text
    return text if text.strip() else None


def answer_value(question: dict, form: Mapping, name: str) -> object:
    """A question's answer (or default) from a form, by its type (None when empty)."""
    qtype = question.get("type")
    if qtype == "multiselect":
        chosen = [value for value in form.getlist(name) if value]
        return chosen or None
    if qtype == "location":
        lat = parse_number(form.get(f"{name}.lat", ""))
        lng = parse_number(form.get(f"{name}.lng", ""))
        return None if lat is None and lng is None else {"lat": lat, "lng": lng}
    if qtype in ("datetime",):
        text = form.get(name, "").strip()
        return text or None
    return scalar(qtype, form.get(name, ""))


def condition_value(ref: dict | None, operator: str, form: Mapping) -> object:
    """The value of a visible_if from the builder's form, shaped by the question it tests."""
    if operator in ("empty", "not_empty"):
        return None
    rtype = ref.get("type") if ref else None
    if operator in ("in", "not_in"):
        if rtype in ("select", "multiselect", "boolean"):
            values = [scalar(rtype if rtype == "boolean" else "text", v) for v in
                      form.getlist("visible_if.value") if v]  # fmt: skip
        else:
            text = form.get("visible_if.value", "")
            values = [scalar(rtype, part) for part in text.split(";") if part.strip()]
        return values or None
    if rtype == "multiselect" and operator in ("eq", "neq"):
        return [v for v in form.getlist("visible_if.value") if v] or None
    if rtype == "multiselect" or operator == "contains":
        return scalar("text", form.get("visible_if.value", ""))
    return scalar(rtype, form.get("visible_if.value", ""))


def apply_fields(doc: dict, path: tuple[int, ...], form: Mapping) -> dict:
    """Set the fields of the question at path that the form holds (listed in `velden`);
    answers what changed: {"id": (old, new)} and/or {"options": (old, new)}."""
    question = question_at(doc, path)
    present = {name for name in form.get("velden", "").split(",") if name}
    changed: dict = {}
    if "type" in present and form.get("type") and form["type"] != question.get("type"):
        change_type(question, form["type"])
        # The rest of the form was made for the old type: keep only what every type shares.
        present &= {"label", "id", "required", "readonly", "unit", "visible_if"}
    qtype = question.get("type")
    present &= {*engine.fields_for(qtype), "type"}
    for name in ("label", "unit", "formula"):
        if name in present:
            question[name] = form.get(name, "").strip() if name != "label" else form.get(name, "")
            if name != "label" and not question[name]:
                del question[name]
    if "id" in present:
        old, new = question.get("id"), form.get("id", "").strip()
        question["id"] = new
        if old != new:
            changed["id"] = (old, new)
    for name in ("required", "readonly"):
        if name in present:
            question[name] = form.get(name) in ("1", "on", "true")
    if "max_files" in present:
        question["max_files"] = parse_number(form.get("max_files", ""), integer=True)
    if "options" in present:
        old_options = question.get("options")
        question["options"] = [value for value in form.getlist("options")]
        changed["options"] = (old_options, question["options"])
    if "default_value" in present:
        question["default_value"] = answer_value(question, form, "default_value")
    if "validation" in present:
        rule = question.get("validation") if isinstance(question.get("validation"), dict) else {}
        for key in engine.validation_keys_for(qtype):
            text = form.get(f"validation.{key}", "")
            counts = key in ("minlength", "maxlength") or qtype == "multiselect"
            rule[key] = (text or None) if key == "regex" else parse_number(text, integer=counts)
        rule = {k: v for k, v in rule.items() if v is not None}
        question["validation"] = rule or None
    if "visible_if" in present:
        question["visible_if"] = _condition(doc, question, form)
    tidy_question(question)
    return changed


def _condition(doc: dict, question: dict, form: Mapping) -> dict | None:
    if form.get("visible_if.mode") != "als":
        return None
    previous = question.get("visible_if") if isinstance(question.get("visible_if"), dict) else {}
    ref_id = form.get("visible_if.question_id", "").strip()
    if not ref_id and not previous:
        # Just switched on: the nearest earlier question is the likeliest to depend on.
        earlier = candidates(doc, _path_of(doc, question))
        ref_id = earlier[-1].qid if earlier else ""
    ref = by_id(doc).get(ref_id)
    if previous.get("question_id") != ref_id:
        return fresh_condition(ref_id, ref)
    fitting = engine.operators_for(ref.get("type")) if ref else engine.OPERATORS
    operator = form.get("visible_if.operator", "")
    if operator not in fitting:
        return fresh_condition(ref_id, ref)
    if form.get("visible_if.has_value") or operator in ("empty", "not_empty"):
        value = condition_value(ref, operator, form)
    else:
        # The form held no value input (it had "is ingevuld"): keep the old value if it fits.
        kept = previous.get("value")
        fits = (operator in ("in", "not_in")) == isinstance(kept, list)
        value = kept if fits else None
    return {"question_id": ref_id, "operator": operator, "value": value}


def fresh_condition(ref_id: str, ref: dict | None) -> dict:
    """A visible_if on a newly chosen question, with the likeliest comparison."""
    rtype = ref.get("type") if ref else None
    options = ref.get("options") if ref else None
    first = options[0] if isinstance(options, list) and options else None
    if rtype == "boolean":
        return {"question_id": ref_id, "operator": "eq", "value": True}
    if rtype == "select":
        return {"question_id": ref_id, "operator": "eq", "value": first}
    if rtype == "multiselect":
        return {"question_id": ref_id, "operator": "contains", "value": first}
    if rtype in engine.FILE_TYPES or rtype == "location":
        return {"question_id": ref_id, "operator": "not_empty", "value": None}
    return {"question_id": ref_id, "operator": "eq", "value": None}


def _path_of(doc: dict, question: dict) -> tuple[int, ...]:
    for item in walk(tree(doc)):
        if item.raw is question:
            return item.path
    return ()


def follow_changes(doc: dict, path: tuple[int, ...], changed: dict) -> None:
    """After apply_fields: keep references pointing at a renamed id or option."""
    if "id" in changed:
        old, new = changed["id"]
        used = ids_in_use(doc)
        if (
            isinstance(old, str)
            and old
            and old not in used
            and used.count(new) == 1
            and re.fullmatch(r"[A-Za-z0-9_.-]{1,100}", new)
        ):
            rename_references(doc, old, new)
    if "options" in changed:
        old, new = changed["options"]
        if isinstance(old, list) and len(old) == len(new):
            for before, after in zip(old, new, strict=True):
                if before != after and isinstance(before, str) and old.count(before) == 1:
                    rename_option(doc, question_at(doc, path), before, after)
