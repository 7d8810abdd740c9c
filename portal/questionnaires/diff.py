"""What changed between two questionnaire definitions, question by question.

Pure (no Flask, no database). Questions are matched by their id wherever they sit, so a
question that moved into another group is one changed question (its `group` changed), not a
removal and an addition. Works on any JSON value, so a draft with problems compares too.
"""

from __future__ import annotations

from dataclasses import dataclass, field

TOP_FIELDS = ("title", "activity_type", "schema_version")
COMPARED_FIELDS = (
    "type", "label", "required", "readonly", "default_value", "unit", "max_files", "options",
    "validation.min", "validation.max", "validation.minlength", "validation.maxlength",
    "validation.regex", "visible_if.question_id", "visible_if.operator", "visible_if.value",
    "formula",
)  # fmt: skip
MAX_NODES = 5000  # a definition holds at most 500 questions; a broken draft is cut off here


@dataclass(frozen=True)
class FieldChange:
    """One field of a question (or of the definition) with its old and new value."""

    field: str
    old: object
    new: object


@dataclass(frozen=True)
class Node:
    """A question where it sits in one definition."""

    key: str  # its id, or "#<path>" for one without a usable (first) id
    id: str | None
    label: str
    type: str | None
    parent: str | None  # the key of the enclosing group
    index: int  # position within its list
    depth: int
    path: tuple[int, ...]
    question: dict


@dataclass(frozen=True)
class QuestionDiff:
    key: str
    status: str  # added, removed, changed or same
    old: Node | None
    new: Node | None
    changes: tuple[FieldChange, ...] = ()


@dataclass(frozen=True)
class Diff:
    top: tuple[FieldChange, ...]
    questions: dict[str, QuestionDiff] = field(default_factory=dict)
    old_nodes: tuple[Node, ...] = ()
    new_nodes: tuple[Node, ...] = ()

    def _with(self, status: str) -> list[QuestionDiff]:
        return [item for item in self.questions.values() if item.status == status]

    @property
    def added(self) -> list[QuestionDiff]:
        return sorted(self._with("added"), key=lambda item: item.new.path)

    @property
    def removed(self) -> list[QuestionDiff]:
        return sorted(self._with("removed"), key=lambda item: item.old.path)

    @property
    def changed(self) -> list[QuestionDiff]:
        return sorted(self._with("changed"), key=lambda item: item.new.path)

    @property
    def is_empty(self) -> bool:
        return not self.top and not any(q.status != "same" for q in self.questions.values())

    def status_of(self, key: str) -> str:
        item = self.questions.get(key)
        return item.status if item else "same"


def flatten(doc: object) -> list[Node]:
    """Every question of a definition in document order, with where it sits."""
    questions = doc.get("questions") if isinstance(doc, dict) else None
    nodes: list[Node] = []
    seen: set[str] = set()
    pending: list[tuple[object, str | None, int, int, tuple[int, ...]]] = [
        (q, None, i, 0, (i,)) for i, q in reversed(list(enumerate(questions)))
    ] if isinstance(questions, list) else []  # fmt: skip
    while pending and len(nodes) < MAX_NODES:
        raw, parent, index, depth, path = pending.pop()
        question = raw if isinstance(raw, dict) else {}
        qid = question.get("id")
        qid = qid if isinstance(qid, str) and qid else None
        key = qid if qid is not None and qid not in seen else "#" + ".".join(map(str, path))
        seen.add(key)
        label = question.get("label")
        qtype = question.get("type")
        nodes.append(
            Node(
                key=key,
                id=qid,
                label=label if isinstance(label, str) else "",
                type=qtype if isinstance(qtype, str) else None,
                parent=parent,
                index=index,
                depth=depth,
                path=path,
                question=question,
            )
        )
        children = question.get("questions")
        if isinstance(children, list):
            pending.extend(
                (child, key, i, depth + 1, (*path, i))
                for i, child in reversed(list(enumerate(children)))
            )
    return nodes


def _value(question: dict, name: str) -> object:
    """A compared field's value, with absent, null and false flags read alike."""
    if "." in name:
        outer, inner = name.split(".", 1)
        holder = question.get(outer)
        return holder.get(inner) if isinstance(holder, dict) else None
    value = question.get(name)
    if name in ("required", "readonly"):
        return value if not (value is None or value is False) else False
    return value


def _equal(a: object, b: object) -> bool:
    """JSON equality: true is not 1, but 1 is 1.0."""
    try:
        if isinstance(a, bool) or isinstance(b, bool):
            return type(a) is type(b) and a == b
        if isinstance(a, (int, float)) and isinstance(b, (int, float)):
            return a == b
        if isinstance(a, list) and isinstance(b, list):
            return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b, strict=True))
        if isinstance(a, dict) and isinstance(b, dict):
            return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
        return type(a) is type(b) and a == b
    except RecursionError:
        return False


def _stable(old: list[str], new: list[str]) -> set[str]:
    """The keys that keep their relative order (a longest common subsequence)."""
    if len(old) * len(new) > 1_000_000:
        return set(old) & set(new)
    lengths = [[0] * (len(new) + 1) for _ in range(len(old) + 1)]
    for i in range(len(old) - 1, -1, -1):
        for j in range(len(new) - 1, -1, -1):
            lengths[i][j] = (
                lengths[i + 1][j + 1] + 1
                if old[i] == new[j]
                else max(lengths[i + 1][j], lengths[i][j + 1])
            )
    kept: set[str] = set()
    i = j = 0
    while i < len(old) and j < len(new):
        if old[i] == new[j]:
            kept.add(old[i])
            i, j = i + 1, j + 1
        elif lengths[i + 1][j] >= lengths[i][j + 1]:
            i += 1
        else:
            j += 1
    return kept


def compare(old: object, new: object) -> Diff:
    """The differences from definition old to definition new."""
    top = tuple(
        FieldChange(name, _field(old, name), _field(new, name))
        for name in TOP_FIELDS
        if not _equal(_field(old, name), _field(new, name))
    )
    old_nodes, new_nodes = flatten(old), flatten(new)
    old_by_key = {node.key: node for node in old_nodes}
    new_by_key = {node.key: node for node in new_nodes}
    moved: set[str] = set()
    siblings_old: dict[str | None, list[str]] = {}
    siblings_new: dict[str | None, list[str]] = {}
    for node in old_nodes:
        other = new_by_key.get(node.key)
        if other is not None and other.parent == node.parent:
            siblings_old.setdefault(node.parent, []).append(node.key)
    for node in new_nodes:
        other = old_by_key.get(node.key)
        if other is not None and other.parent == node.parent:
            siblings_new.setdefault(node.parent, []).append(node.key)
    for parent, keys in siblings_old.items():
        moved |= set(keys) - _stable(keys, siblings_new.get(parent, []))

    questions: dict[str, QuestionDiff] = {}
    for node in new_nodes:
        before = old_by_key.get(node.key)
        if before is None:
            questions[node.key] = QuestionDiff(node.key, "added", None, node)
            continue
        changes = [
            FieldChange(name, _value(before.question, name), _value(node.question, name))
            for name in COMPARED_FIELDS
            if not _equal(_value(before.question, name), _value(node.question, name))
        ]
        if before.parent != node.parent:
            changes.append(FieldChange("group", _group_id(before.parent), _group_id(node.parent)))
        elif node.key in moved:
            changes.append(FieldChange("position", before.index + 1, node.index + 1))
        status = "changed" if changes else "same"
        questions[node.key] = QuestionDiff(node.key, status, before, node, tuple(changes))
    for node in old_nodes:
        if node.key not in new_by_key:
            questions[node.key] = QuestionDiff(node.key, "removed", node, None)
    return Diff(top, questions, tuple(old_nodes), tuple(new_nodes))


def _field(doc: object, name: str) -> object:
    return doc.get(name) if isinstance(doc, dict) else None


def _group_id(key: str | None) -> str | None:
    """A group's id as people read it (None: the top level)."""
    return None if key is None or key.startswith("#") else key
