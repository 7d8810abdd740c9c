"""Sections of the portal that are announced in the navigation but not built yet."""

from __future__ import annotations

from flask import Blueprint, render_template
from flask_babel import lazy_gettext as _l
from flask_login import login_required

bp = Blueprint("shell", __name__)

UPCOMING = {
    "admin": ("/beheer", _l("Beheer"), _l("Hier beheer je gebruikers en API-sleutels.")),
}


def _register(name: str, path: str, title, text):
    @login_required
    def view():
        return render_template("shell/not_built.html", title=title, text=text)

    bp.add_url_rule(path, name, view)


for _name, (_path, _title, _text) in UPCOMING.items():
    _register(_name, _path, _title, _text)
