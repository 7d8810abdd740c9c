"""The portal's navigation: its sections in order, by the endpoint each opens. A leaf that
the permissions (which sections a role may open) and the page layout both read."""

from __future__ import annotations

from flask_babel import lazy_gettext as _l

# The portal's sections, in navigation order: (endpoint, label key).
SECTIONS = [
    ("tasks.index", _l("Taken")),
    ("series.index", _l("Reeksen")),
    ("planner.index", _l("Plan de week")),
    ("customers.index", _l("Klanten")),
    ("billing.index", _l("Facturatie")),
    ("questionnaires.index", _l("Vragenlijsten")),
    ("answers.index", _l("Antwoorden")),
    ("drivers.index", _l("Chauffeurs")),
    ("fleet.index", _l("Voertuigen")),
    ("hours.index", _l("Uren")),
    ("tacho.index", _l("Tachograaf")),
    ("messages.index", _l("Berichten")),
    ("admin.users", _l("Beheer")),
]

# Blueprints whose pages belong to another section of the navigation.
SECTION_OF_BLUEPRINT = {"driving": "tacho"}
