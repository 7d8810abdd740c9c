"""Reading a draft: question paths, the tree of its questions, and its problems located
at them. Pure functions over the draft's JSON; a draft may hold problems, so every function
copes with any JSON inside it."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from portal.questionnaires import engine

MAX_PATH_DEPTH = engine.MAX_GROUP_DEPTH + 1
# The largest draft the builder works with: JSON nesting and question count. Beyond this an
# import is refused outright (the checker would only list problems, and the editor could not
# show such a tree usefully).
MAX_JSON_DEPTH = 40
MAX_NODES = engine.MAX_QUESTIONS

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


def questions_of(holder: object) -> list:
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


def list_of(doc: dict, parent: tuple[int, ...]) -> list:
    """The list holding the children of parent (the definition itself when parent is ())."""
    if not parent:
        return questions_of(doc)
    group = question_at(doc, parent)
    if group.get("type") != "group":
        raise EditError("not_a_group")
    return questions_of(group)


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


def check_nesting(parent: tuple[int, ...], question: object) -> None:
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
