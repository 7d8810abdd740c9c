"""The task page: every field, history, evidence, answers, and what blocks completion.

A second views module of the tasks domain so the board (views.py) and the task page can
grow apart; both use the same service."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("task_detail", __name__)
