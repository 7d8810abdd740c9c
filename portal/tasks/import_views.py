"""CSV import of tasks: upload, preview with errors at the cell, import of the valid rows."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("task_import", __name__)
