"""Names of the product's own codes as people read them; any domain may import this (it
needs no request, no blueprint and no database)."""

from __future__ import annotations

from flask_babel import lazy_gettext as _l

# Activity types the product knows by name; others show their slug made readable.
ACTIVITY_LABELS = {
    "mest_laden": _l("Mest laden"),
    "mest_lossen": _l("Mest lossen"),
    "voer_leveren": _l("Voer leveren"),
    "vee_transport": _l("Veetransport"),
    "koel_transport": _l("Gekoeld transport"),
}


def activity_label(value: str | None) -> str:
    """An activity type as people read it: translated where the product knows it, else the
    slug made readable ("kalveren_halen" reads "Kalveren halen")."""
    if not value:
        return ""
    if value in ACTIVITY_LABELS:
        return str(ACTIVITY_LABELS[value])
    return value.replace("_", " ").replace("-", " ").capitalize()
