"""The carrier's pay rule sets in the portal (/uren/regels)."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("rulesets", __name__, url_prefix="/uren/regels")
