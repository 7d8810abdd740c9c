"""Questionnaire engine: checks definitions, evaluates visibility and formulas, validates answers.

Pure functions over JSON values (no Flask, no database, no I/O), so the server's answer check
and the builder's live preview run the same rules and cannot disagree.

Problem codes are stable: duplicate_id, field_type, required_field, unknown_field,
invalid_value, field_not_allowed, type_unknown, schema_version, too_large, options_missing,
duplicate_option, min_gt_max, regex_invalid, unknown_reference, forward_reference,
enclosing_reference, reference_type, operator_unknown, operator_type, value_type,
not_an_option, out_of_range, pattern_mismatch, readonly_without_default, formula_syntax,
formula_unknown_id, formula_type, formula_cycle, required, unknown_question.

Each problem also names its reason, a finer stable key of MESSAGES, with the params its
wording needs: the English message comes from MESSAGES, the portal words the same reason and
params in the user's language (portal/problems.py).

The package by job: `vocabulary` (types, fields, operators, limits), `messages` (problems and
their wording), `values` (one value against its question), `formula` (the formula language),
`evaluation` (a formula's value), `checker` (definitions; `fields_check` one question's
fields) and `answers` (visibility and the answer check). The names the rest of the portal
uses are imported here.
"""

from portal.questionnaires.engine.answers import validate_answers, visible_questions
from portal.questionnaires.engine.checker import check_definition
from portal.questionnaires.engine.evaluation import evaluate_formula
from portal.questionnaires.engine.formula import (
    formula_references,
    parse_formula,
    rename_reference,
)
from portal.questionnaires.engine.messages import MESSAGES, FormulaError, Problem, english
from portal.questionnaires.engine.vocabulary import (
    BASIC_OPERATORS,
    CHOICE_TYPES,
    CONDITION_FIELDS,
    DATE_RE,
    DATETIME_RE,
    FILE_TYPES,
    FORMULA_OPERAND_TYPES,
    ID_RE,
    MAX_CONDITION_VALUES,
    MAX_FILES,
    MAX_FORMULA_DEPTH,
    MAX_FORMULA_LENGTH,
    MAX_GROUP_DEPTH,
    MAX_ID_LENGTH,
    MAX_LABEL_LENGTH,
    MAX_OPTION_LENGTH,
    MAX_OPTIONS,
    MAX_QUESTIONS,
    MAX_REGEX_LENGTH,
    MAX_REGEX_PROGRAM,
    MAX_SAFE_INTEGER,
    MAX_TEXT_LENGTH,
    MAX_TITLE_LENGTH,
    MAX_UNIT_LENGTH,
    NO_ANSWER_TYPES,
    NO_DEFAULT_TYPES,
    NUMERIC_TYPES,
    OPERATORS,
    OPERATORS_BY_TYPE,
    ORDERED_TYPES,
    QUESTION_FIELDS,
    QUESTION_TYPES,
    RANGE_TYPES,
    SCHEMA_VERSIONS,
    SLUG_RE,
    TEMPORAL_TYPES,
    TEXT_TYPES,
    TIME_RE,
    TOP_FIELDS,
    UUID_RE,
    VALIDATION_FIELDS,
    fields_for,
    operators_for,
    validation_keys_for,
)

__all__ = [
    "BASIC_OPERATORS",
    "CHOICE_TYPES",
    "CONDITION_FIELDS",
    "DATETIME_RE",
    "DATE_RE",
    "FILE_TYPES",
    "FORMULA_OPERAND_TYPES",
    "ID_RE",
    "MAX_CONDITION_VALUES",
    "MAX_FILES",
    "MAX_FORMULA_DEPTH",
    "MAX_FORMULA_LENGTH",
    "MAX_GROUP_DEPTH",
    "MAX_ID_LENGTH",
    "MAX_LABEL_LENGTH",
    "MAX_OPTIONS",
    "MAX_OPTION_LENGTH",
    "MAX_QUESTIONS",
    "MAX_REGEX_LENGTH",
    "MAX_REGEX_PROGRAM",
    "MAX_SAFE_INTEGER",
    "MAX_TEXT_LENGTH",
    "MAX_TITLE_LENGTH",
    "MAX_UNIT_LENGTH",
    "MESSAGES",
    "NO_ANSWER_TYPES",
    "NO_DEFAULT_TYPES",
    "NUMERIC_TYPES",
    "OPERATORS",
    "OPERATORS_BY_TYPE",
    "ORDERED_TYPES",
    "QUESTION_FIELDS",
    "QUESTION_TYPES",
    "RANGE_TYPES",
    "SCHEMA_VERSIONS",
    "SLUG_RE",
    "TEMPORAL_TYPES",
    "TEXT_TYPES",
    "TIME_RE",
    "TOP_FIELDS",
    "UUID_RE",
    "VALIDATION_FIELDS",
    "FormulaError",
    "Problem",
    "check_definition",
    "english",
    "evaluate_formula",
    "fields_for",
    "formula_references",
    "operators_for",
    "parse_formula",
    "rename_reference",
    "validate_answers",
    "validation_keys_for",
    "visible_questions",
]
