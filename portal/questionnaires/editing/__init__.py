"""The builder's rules for a draft definition: reading it, editing it, and reading the
builder's and preview's forms.

Pure functions over the draft's JSON (no Flask, no database): the views load the draft,
apply one edit here and store the result. A draft may hold problems, so every function
copes with any JSON inside it; a question is addressed by its path of list positions
("0.2.1": the second question of the third question's group of the first question).

The package by job: `document` (paths, the question tree, problems located), `changes` (the
edits) and `fields` (the forms' values); the names the rest of the portal uses are imported
here.
"""

from portal.questionnaires.editing.changes import (
    ID_BASES,
    add_question,
    change_type,
    edit_option,
    focus_after_remove,
    move,
    move_to,
    new_question,
    option_edit,
    prune_fields,
    remove_question,
    rename_option,
    rename_references,
    tidy,
)
from portal.questionnaires.editing.document import (
    MAX_JSON_DEPTH,
    MAX_NODES,
    MAX_PATH_DEPTH,
    EditError,
    Item,
    Located,
    by_id,
    candidates,
    count_questions,
    dom_id,
    entry_at,
    ids_in_use,
    json_depth,
    locate,
    parse_path,
    path_text,
    question_at,
    tree,
    walk,
)
from portal.questionnaires.editing.fields import (
    answer_value,
    apply_fields,
    condition_value,
    follow_changes,
    fresh_condition,
    parse_flag,
    parse_number,
    scalar,
)

__all__ = [
    "ID_BASES",
    "MAX_JSON_DEPTH",
    "MAX_NODES",
    "MAX_PATH_DEPTH",
    "EditError",
    "Item",
    "Located",
    "add_question",
    "answer_value",
    "apply_fields",
    "by_id",
    "candidates",
    "change_type",
    "condition_value",
    "count_questions",
    "dom_id",
    "edit_option",
    "entry_at",
    "focus_after_remove",
    "follow_changes",
    "fresh_condition",
    "ids_in_use",
    "json_depth",
    "locate",
    "move",
    "move_to",
    "new_question",
    "option_edit",
    "parse_flag",
    "parse_number",
    "parse_path",
    "path_text",
    "prune_fields",
    "question_at",
    "remove_question",
    "rename_option",
    "rename_references",
    "scalar",
    "tidy",
    "tree",
    "walk",
]
