"""The payroll export in the portal (/uren/loonexport)."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("payroll", __name__, url_prefix="/uren/loonexport")
