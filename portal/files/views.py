"""Signed, expiring downloads of stored files."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("files", __name__)
