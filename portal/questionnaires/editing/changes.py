"""The builder's edits to a draft definition: add, remove and move questions, change a
question's type, rename ids and options, edit options, drop fields that do not fit, tidy."""

from __future__ import annotations

import copy

from portal.questionnaires import engine
from portal.questionnaires.editing.document import (
    MAX_NODES,
    EditError,
    check_nesting,
    count_questions,
    dom_id,
    ids_in_use,
    list_of,
    question_at,
    questions_of,
    tree,
    walk,
)

ID_BASES = {
    "text": "tekst", "textarea": "toelichting", "number": "getal", "integer": "aantal",
    "boolean": "janee", "select": "keuze", "multiselect": "keuzes", "date": "datum",
    "time": "tijd", "datetime": "moment", "photo": "foto", "signature": "handtekening",
    "document_scan": "scan", "barcode": "barcode", "location": "locatie", "group": "groep",
    "calculated": "berekening", "info": "info",
}  # fmt: skip


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
    if qtype in engine.CHOICE_TYPES:
        question["options"] = ["Optie 1", "Optie 2"]
    if qtype == "group":
        question["questions"] = []
    return question


def add_question(doc: dict, parent: tuple[int, ...], qtype: str, label: str) -> tuple[int, ...]:
    """Append a new question to the definition or a group; its path."""
    if count_questions(doc) >= MAX_NODES:
        raise EditError("too_many", limit=MAX_NODES)
    items = list_of(doc, parent)
    question = new_question(doc, qtype, label)
    check_nesting(parent, question)
    items.append(question)
    return (*parent, len(items) - 1)


def remove_question(doc: dict, path: tuple[int, ...]) -> object:
    """Remove the question at path (a group with its questions); the removed question."""
    if not path:
        raise EditError("path")
    items = list_of(doc, path[:-1])
    if not 0 <= path[-1] < len(items):
        raise EditError("path")
    return items.pop(path[-1])


def move_to(doc: dict, path: tuple[int, ...], parent: tuple[int, ...], index: int) -> tuple:
    """Move the question at path to position index of parent's list; its new path."""
    if not path or not 0 <= path[-1] < len(list_of(doc, path[:-1])):
        raise EditError("path")
    if parent[: len(path)] == path:
        raise EditError("into_itself")
    target = list_of(doc, parent)
    if not 0 <= index <= len(target):
        raise EditError("path")
    moving = list_of(doc, path[:-1])[path[-1]]
    if path[:-1] != parent:
        check_nesting(parent, moving)
    source = list_of(doc, path[:-1])
    source.pop(path[-1])
    # The target's path may shift when the question left a list before it.
    new_parent = list(parent)
    if len(parent) >= len(path) and parent[: len(path) - 1] == path[:-1]:
        position = len(path) - 1
        if parent[position] > path[-1]:
            new_parent[position] -= 1
    target = list_of(doc, tuple(new_parent))
    if tuple(new_parent) == path[:-1] and index > path[-1]:
        index -= 1
    index = min(index, len(target))
    target.insert(index, moving)
    return (*new_parent, index)


def move(doc: dict, path: tuple[int, ...], direction: str) -> tuple[int, ...]:
    """Move one step: op (up), neer (down), in (into the group above), uit (out of its group)."""
    if not path:
        raise EditError("path")
    items = list_of(doc, path[:-1])
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
        return move_to(doc, path, group, len(questions_of(above)))
    if direction == "uit":
        if len(path) < 2:
            raise EditError("cannot_move")
        return move_to(doc, path, path[:-2], path[-2] + 1)
    raise EditError("direction")


def tidy_question(question: dict) -> None:
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
                tidy_question(question)
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
    keep_default = (old_type in engine.TEXT_TYPES and new_type in engine.TEXT_TYPES) or (
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
    if new_type in engine.CHOICE_TYPES and not question.get("options"):
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


def edit_option(question: dict, action: str, index: int | None) -> int | None:
    """Add, remove or move one option; a removed option is no longer a default either.
    The index of the option to focus next."""
    if action not in ("toevoegen", "verwijderen", "op", "neer"):
        raise EditError("action")
    before = list(question.get("options") or [])
    focus = option_edit(question, action, index if index is not None else -1)
    if action == "verwijderen" and 0 <= (index or 0) < len(before):
        removed = before[index]
        default = question.get("default_value")
        if default == removed:
            question.pop("default_value", None)
        elif isinstance(default, list):
            question["default_value"] = [v for v in default if v != removed] or None
            if question["default_value"] is None:
                del question["default_value"]
    return focus


def prune_fields(doc: dict, path: tuple[int, ...]) -> None:
    """Drop the fields the checker does not know or that do not fit the question's type (at
    the root path: the definition's own unknown fields)."""
    if path == ():
        for key in list(doc):
            if key not in engine.TOP_FIELDS:
                del doc[key]
        return
    question = question_at(doc, path)
    allowed = set(engine.fields_for(question.get("type")))
    for key in list(question):
        if key not in allowed:
            del question[key]
    for nested, keys in (
        ("validation", engine.validation_keys_for(question.get("type"))),
        ("visible_if", engine.CONDITION_FIELDS),
    ):
        if isinstance(question.get(nested), dict):
            question[nested] = {k: v for k, v in question[nested].items() if k in keys}
            if not question[nested]:
                del question[nested]


def focus_after_remove(doc: dict, path: tuple[int, ...]) -> dict:
    """Where focus lands after the question at path was removed: the question that took its
    place, else the one before, else the form that adds a question there."""
    siblings = path[:-1]
    holder = tree(doc)
    for index in siblings:
        holder = holder[index].children if index < len(holder) else []
    if holder:
        target = (*siblings, min(path[-1], len(holder) - 1))
        return {"kind": "card", "id": dom_id(target)}
    form_id = "add-" + (dom_id(siblings) if siblings else "q")
    return {"kind": "add", "id": form_id}
