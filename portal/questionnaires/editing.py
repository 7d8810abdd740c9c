"""The builder's edits to a draft definition, and reading the builder's and preview's forms.

Pure functions over the draft's JSON (no Flask, no database): the views load the draft,
apply one edit here and store the result. A draft may hold problems, so every function
copes with any JSON inside it; a question is addressed by its path of list positions
("0.2.1": the second question of the third question's group of the first question).
"""

from __future__ import annotations

import copy
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from portal.questionnaires import engine

MAX_PATH_DEPTH = engine.MAX_GROUP_DEPTH + 1
# The largest draft the builder works with: JSON nesting and question count. Beyond this an
# import is refused outright (the checker would only list problems, and the editor could not
# show such a tree usefully).
MAX_JSON_DEPTH = 40
MAX_NODES = engine.MAX_QUESTIONS

ID_BASES = {
    "text": "tekst", "textarea": "toelichting", "number": "getal", "integer": "aantal",
    "boolean": "janee", "select": "keuze", "multiselect": "keuzes", "date": "datum",
    "time": "tijd", "datetime": "moment", "photo": "foto", "signature": "handtekening",
    "document_scan": "scan", "barcode": "barcode", "location": "locatie", "group": "groep",
    "calculated": "berekening", "info": "info",
}  # fmt: skip
TEXT_TYPES = ("text", "textarea", "barcode")
CHOICE_TYPES = ("select", "multiselect")
FILE_TYPES = ("photo", "signature", "document_scan")
_NUMBER_RE = re.compile(r"[-+]?(\d+([.,]\d*)?|[.,]\d+)([eE][-+]?\d+)?")
_PATH_RE = re.compile(rf"\d{{1,4}}(\.\d{{1,4}}){{0,{MAX_PATH_DEPTH - 1}}}")
_PROBLEM_RE = re.compile(r"questions\[(\d+)\]")


class EditError(ValueError):
    """An edit that cannot be made; the message is for the author (Dutch msgid key)."""

    def __init__(self, code: str, **values: object) -> None:
        super().__init__(code)
        self.code = code
        self.values = values


# --- paths --------------------------------------------------------------------------------


def parse_path(text: object) -> tuple[int, ...]:
    """A question path from its text form; EditError("path") when it is not one."""
    if text == "":
        return ()
    if not isinstance(text, str) or not _PATH_RE.fullmatch(text):
        raise EditError("path")
    return tuple(int(part) for part in text.split("."))


def path_text(path: tuple[int, ...]) -> str:
    return ".".join(map(str, path))


def dom_id(path: tuple[int, ...]) -> str:
    return "q-" + "-".join(map(str, path))


def _questions(holder: object) -> list:
    """The questions list of the definition or a group, created when missing."""
    if not isinstance(holder, dict):
        raise EditError("path")
    value = holder.get("questions")
    if value is None:
        value = holder["questions"] = []
    if not isinstance(value, list):
        raise EditError("path")
    return value


def entry_at(doc: dict, path: tuple[int, ...]) -> object:
    """Whatever sits at path (a question, or a broken entry); EditError("path") if nothing."""
    if not path:
        raise EditError("path")
    holder: object = doc
    for index in path:
        items = holder.get("questions") if isinstance(holder, dict) else None
        # Never a negative index: Python would count it from the end, another question.
        if not isinstance(items, list) or not 0 <= index < len(items):
            raise EditError("path")
        holder = items[index]
    return holder


def question_at(doc: dict, path: tuple[int, ...]) -> dict:
    """The question at path; EditError("path") when there is none (or it is no object)."""
    holder = entry_at(doc, path)
    if not isinstance(holder, dict):
        raise EditError("path")
    return holder


def _list_of(doc: dict, parent: tuple[int, ...]) -> list:
    """The list holding the children of parent (the definition itself when parent is ())."""
    if not parent:
        return _questions(doc)
    group = question_at(doc, parent)
    if group.get("type") != "group":
        raise EditError("not_a_group")
    return _questions(group)


def _group_depth(question: object) -> int:
    """How many levels of groups a question is (0 for a plain question)."""
    depth, level = 0, [question]
    while level:
        groups = [q for q in level if isinstance(q, dict) and q.get("type") == "group"]
        if not groups:
            break
        depth += 1
        level = [c for g in groups if isinstance(g.get("questions"), list) for c in g["questions"]]
    return depth


def _check_nesting(parent: tuple[int, ...], question: object) -> None:
    if len(parent) + _group_depth(question) > engine.MAX_GROUP_DEPTH:
        raise EditError("too_deep", depth=engine.MAX_GROUP_DEPTH)


# --- reading a draft ----------------------------------------------------------------------


@dataclass
class Item:
    """One question of a draft, ready for the editor."""

    path: tuple[int, ...]
    raw: object
    depth: int
    index: int
    siblings: int
    previous_is_group: bool
    children: list[Item] = field(default_factory=list)

    @property
    def question(self) -> dict:
        return self.raw if isinstance(self.raw, dict) else {}

    @property
    def is_object(self) -> bool:
        return isinstance(self.raw, dict)

    @property
    def qid(self) -> str:
        value = self.question.get("id")
        return value if isinstance(value, str) else ""

    @property
    def qtype(self) -> str | None:
        value = self.question.get("type")
        return value if isinstance(value, str) and value in engine.QUESTION_TYPES else None

    @property
    def label(self) -> str:
        value = self.question.get("label")
        return value if isinstance(value, str) else ""

    @property
    def text_path(self) -> str:
        return path_text(self.path)

    @property
    def dom_id(self) -> str:
        return dom_id(self.path)

    @property
    def is_group(self) -> bool:
        return self.qtype == "group"


def tree(doc: dict) -> list[Item]:
    """The draft's questions as a tree of Items (bounded by MAX_PATH_DEPTH)."""

    def build(items: object, parent: tuple[int, ...]) -> list[Item]:
        if not isinstance(items, list):
            return []
        result = []
        for index, raw in enumerate(items):
            previous = items[index - 1] if index else None
            item = Item(
                path=(*parent, index),
                raw=raw,
                depth=len(parent),
                index=index,
                siblings=len(items),
                previous_is_group=isinstance(previous, dict) and previous.get("type") == "group",
            )
            if item.is_group and len(item.path) < MAX_PATH_DEPTH:
                item.children = build(item.question.get("questions"), item.path)
            result.append(item)
        return result

    return build(doc.get("questions") if isinstance(doc, dict) else None, ())


def walk(items: list[Item]) -> list[Item]:
    """The Items of a tree in document order."""
    result: list[Item] = []
    pending = list(reversed(items))
    while pending:
        item = pending.pop()
        result.append(item)
        pending.extend(reversed(item.children))
    return result


def count_questions(doc: object) -> int:
    """How many questions (at every depth) a draft holds, counting up to a little past the limit."""
    count, pending = 0, [doc]
    while pending and count <= MAX_NODES:
        holder = pending.pop()
        items = holder.get("questions") if isinstance(holder, dict) else None
        if isinstance(items, list):
            count += len(items)
            pending.extend(items)
    return count


def json_depth(value: object) -> int:
    """How deeply a JSON value nests (iteratively: no recursion on hostile input)."""
    deepest, pending = 0, [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, dict):
            deepest = max(deepest, depth)
            pending.extend((child, depth + 1) for child in item.values())
        elif isinstance(item, list):
            deepest = max(deepest, depth)
            pending.extend((child, depth + 1) for child in item)
    return deepest


def ids_in_use(doc: dict) -> list[str]:
    """Every string id in the draft, in document order (duplicates included)."""
    return [item.qid for item in walk(tree(doc)) if item.qid]


def candidates(doc: dict, path: tuple[int, ...]) -> list[Item]:
    """The questions a visible_if at path may refer to: earlier ones that take an answer."""
    result, seen = [], set()
    for item in walk(tree(doc)):
        if item.path == path:
            break
        if item.qid and item.qid not in seen and item.qtype not in (None, "group", "info"):
            result.append(item)
        if item.qid:
            seen.add(item.qid)
    return result


def by_id(doc: dict) -> dict[str, dict]:
    """The first question with each id."""
    found: dict[str, dict] = {}
    for item in walk(tree(doc)):
        if item.qid and item.qid not in found:
            found[item.qid] = item.question
    return found


@dataclass
class Located:
    """Problems of a definition sorted to where the builder shows them."""

    general: list[tuple[str, engine.Problem]] = field(default_factory=list)  # (field, problem)
    by_path: dict[tuple[int, ...], list[tuple[str, engine.Problem]]] = field(default_factory=dict)

    def count(self) -> int:
        return len(self.general) + sum(len(items) for items in self.by_path.values())

    def at(self, path: tuple[int, ...]) -> list[tuple[str, engine.Problem]]:
        return self.by_path.get(path, [])

    def fields_at(self, path: tuple[int, ...]) -> set[str]:
        return {name for name, _ in self.at(path)}


def locate(problems: list[engine.Problem]) -> Located:
    """Put each problem at its question (by the path the checker gives) and field."""
    located = Located()
    for problem in problems:
        rest, path = problem.path, []
        while True:
            match = _PROBLEM_RE.match(rest)
            if not match:
                break
            path.append(int(match.group(1)))
            rest = rest[match.end() :].lstrip(".")
        name = re.sub(r"\[\d+\]$", "", rest)
        if path:
            located.by_path.setdefault(tuple(path), []).append((name, problem))
        else:
            located.general.append((name or "questions", problem))
    return located


# --- editing ------------------------------------------------------------------------------


def _unique_id(doc: dict, base: str) -> str:
    used = set(ids_in_use(doc))
    number = 1
    while f"{base}_{number}" in used:
        number += 1
    return f"{base}_{number}"


def new_question(doc: dict, qtype: str, label: str) -> dict:
    """A new question of a type, with an unused id."""
    if qtype not in engine.QUESTION_TYPES:
        raise EditError("type")
    question: dict = {"id": _unique_id(doc, ID_BASES[qtype]), "type": qtype, "label": label}
    if qtype in CHOICE_TYPES:
        question["options"] = ["Optie 1", "Optie 2"]
    if qtype == "group":
        question["questions"] = []
    return question


def add_question(doc: dict, parent: tuple[int, ...], qtype: str, label: str) -> tuple[int, ...]:
    """Append a new question to the definition or a group; its path."""
    if count_questions(doc) >= MAX_NODES:
        raise EditError("too_many", limit=MAX_NODES)
    items = _list_of(doc, parent)
    question = new_question(doc, qtype, label)
    _check_nesting(parent, question)
    items.append(question)
    return (*parent, len(items) - 1)


def remove_question(doc: dict, path: tuple[int, ...]) -> object:
    """Remove the question at path (a group with its questions); the removed question."""
    if not path:
        raise EditError("path")
    items = _list_of(doc, path[:-1])
    if not 0 <= path[-1] < len(items):
        raise EditError("path")
    return items.pop(path[-1])


def move_to(doc: dict, path: tuple[int, ...], parent: tuple[int, ...], index: int) -> tuple:
    """Move the question at path to position index of parent's list; its new path."""
    if not path or not 0 <= path[-1] < len(_list_of(doc, path[:-1])):
        raise EditError("path")
    if parent[: len(path)] == path:
        raise EditError("into_itself")
    target = _list_of(doc, parent)
    if not 0 <= index <= len(target):
        raise EditError("path")
    moving = _list_of(doc, path[:-1])[path[-1]]
    if path[:-1] != parent:
        _check_nesting(parent, moving)
    source = _list_of(doc, path[:-1])
    source.pop(path[-1])
    # The target's path may shift when the question left a list before it.
    new_parent = list(parent)
    if len(parent) >= len(path) and parent[: len(path) - 1] == path[:-1]:
        position = len(path) - 1
        if parent[position] > path[-1]:
            new_parent[position] -= 1
    target = _list_of(doc, tuple(new_parent))
    if tuple(new_parent) == path[:-1] and index > path[-1]:
        index -= 1
    index = min(index, len(target))
    target.insert(index, moving)
    return (*new_parent, index)


def move(doc: dict, path: tuple[int, ...], direction: str) -> tuple[int, ...]:
    """Move one step: op (up), neer (down), in (into the group above), uit (out of its group)."""
    if not path:
        raise EditError("path")
    items = _list_of(doc, path[:-1])
    index = path[-1]
    if not 0 <= index < len(items):
        raise EditError("path")
    if direction == "op":
        if index == 0:
            raise EditError("cannot_move")
        return move_to(doc, path, path[:-1], index - 1)
    if direction == "neer":
        if index >= len(items) - 1:
            raise EditError("cannot_move")
        return move_to(doc, path, path[:-1], index + 2)
    if direction == "in":
        above = items[index - 1] if index else None
        if not (isinstance(above, dict) and above.get("type") == "group"):
            raise EditError("cannot_move")
        group = (*path[:-1], index - 1)
        return move_to(doc, path, group, len(_questions(above)))
    if direction == "uit":
        if len(path) < 2:
            raise EditError("cannot_move")
        return move_to(doc, path, path[:-2], path[-2] + 1)
    raise EditError("direction")


def _tidy(question: dict) -> None:
    """Drop empty fields so the draft reads like what an author wrote."""
    for key in list(question):
        if question[key] is None or (key in ("required", "readonly") and question[key] is False):
            del question[key]


def tidy(doc: object) -> object:
    """A copy of a definition without null fields and false flags (same meaning, less noise)."""
    doc = copy.deepcopy(doc)
    pending = [doc]
    while pending:
        holder = pending.pop()
        items = holder.get("questions") if isinstance(holder, dict) else None
        if not isinstance(items, list):
            continue
        for question in items:
            if isinstance(question, dict):
                _tidy(question)
                for nested in ("validation", "visible_if"):
                    if isinstance(question.get(nested), dict) and nested == "validation":
                        rule = {k: v for k, v in question[nested].items() if v is not None}
                        if rule:
                            question[nested] = rule
                        else:
                            del question[nested]
                pending.append(question)
    return doc


def change_type(question: dict, new_type: str) -> None:
    """Give a question another type, dropping the fields that do not fit it."""
    if new_type not in engine.QUESTION_TYPES:
        raise EditError("type")
    old_type = question.get("type")
    if old_type == new_type:
        return
    if old_type == "group" and question.get("questions"):
        raise EditError("group_not_empty")
    allowed = set(engine.fields_for(new_type))
    keep_default = (old_type in TEXT_TYPES and new_type in TEXT_TYPES) or (
        old_type == "integer" and new_type == "number"
    )
    for key in list(question):
        if key in engine.QUESTION_FIELDS and key not in allowed:
            del question[key]
    if not keep_default:
        question.pop("default_value", None)
    rule = question.get("validation")
    if isinstance(rule, dict):
        fitting = engine.validation_keys_for(new_type)
        rule = {k: v for k, v in rule.items() if k in fitting}
        if rule:
            question["validation"] = rule
        else:
            question.pop("validation", None)
    question["type"] = new_type
    if new_type in CHOICE_TYPES and not question.get("options"):
        question["options"] = ["Optie 1", "Optie 2"]
    if new_type == "group":
        question.setdefault("questions", [])


def rename_references(doc: dict, old: str, new: str) -> None:
    """Point every visible_if and formula that used id old at new."""
    for item in walk(tree(doc)):
        question = item.question
        condition = question.get("visible_if")
        if isinstance(condition, dict) and condition.get("question_id") == old:
            condition["question_id"] = new
        if isinstance(question.get("formula"), str):
            question["formula"] = engine.rename_reference(question["formula"], old, new)


def rename_option(doc: dict, question: dict, old: str, new: str) -> None:
    """Follow a renamed option in the question's default and in conditions that test it."""
    default = question.get("default_value")
    if default == old:
        question["default_value"] = new
    elif isinstance(default, list):
        question["default_value"] = [new if value == old else value for value in default]
    qid = question.get("id")
    if not isinstance(qid, str):
        return
    for item in walk(tree(doc)):
        condition = item.question.get("visible_if")
        if not (isinstance(condition, dict) and condition.get("question_id") == qid):
            continue
        value = condition.get("value")
        if value == old:
            condition["value"] = new
        elif isinstance(value, list):
            condition["value"] = [new if v == old else v for v in value]


def option_edit(question: dict, action: str, index: int) -> int | None:
    """Add, remove or move an option; the index of the option to focus next."""
    options = question.get("options")
    if not isinstance(options, list):
        options = question["options"] = []
    if action == "toevoegen":
        # A new option starts empty (its field shows a placeholder), so what the author types
        # is the option; an empty one already there is offered instead of a second.
        for position, option in enumerate(options):
            if option == "":
                return position
        if len(options) >= engine.MAX_OPTIONS:
            raise EditError("too_many_options", limit=engine.MAX_OPTIONS)
        options.append("")
        return len(options) - 1
    if not 0 <= index < len(options):
        raise EditError("path")
    if action == "verwijderen":
        options.pop(index)
        return min(index, len(options) - 1) if options else None
    if action == "op" and index > 0:
        options[index - 1], options[index] = options[index], options[index - 1]
        return index - 1
    if action == "neer" and index < len(options) - 1:
        options[index + 1], options[index] = options[index], options[index + 1]
        return index + 1
    raise EditError("cannot_move")


# --- reading the builder's forms ----------------------------------------------------------


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
    _tidy(question)
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
    if rtype in FILE_TYPES or rtype == "location":
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
