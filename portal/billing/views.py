"""The billing export in the portal."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("billing", __name__)
