"""Sections of the portal that are announced in the navigation but not built yet."""

from __future__ import annotations

from flask import Blueprint, render_template
from flask_babel import lazy_gettext as _l
from flask_login import login_required

bp = Blueprint("shell", __name__)

UPCOMING = {
    "questionnaires": (
        "/vragenlijsten",
        _l("Vragenlijsten"),
        _l("Hier bouw je per activiteit de vragenlijst die de chauffeur invult."),
    ),
    "drivers": (
        "/chauffeurs",
        _l("Chauffeurs"),
        _l("Hier beheer je chauffeurs en koppel je hun telefoon met een QR-code."),
    ),
    "vehicles": (
        "/voertuigen",
        _l("Voertuigen"),
        _l("Hier beheer je voertuigen en zie je wie ermee rijdt."),
    ),
    "hours": (
        "/uren",
        _l("Uren"),
        _l("Hier zie je werkdagen en uren per chauffeur en keur je weken goed."),
    ),
    "tacho": (
        "/tachograaf",
        _l("Tachograaf"),
        _l("Hier upload en vind je tachograafbestanden van kaarten en voertuigen."),
    ),
    "messages": ("/berichten", _l("Berichten"), _l("Hier stuur je berichten naar chauffeurs.")),
    "admin": ("/beheer", _l("Beheer"), _l("Hier beheer je gebruikers en API-sleutels.")),
}


def _register(name: str, path: str, title, text):
    @login_required
    def view():
        return render_template("shell/not_built.html", title=title, text=text)

    bp.add_url_rule(path, name, view)


for _name, (_path, _title, _text) in UPCOMING.items():
    _register(_name, _path, _title, _text)
