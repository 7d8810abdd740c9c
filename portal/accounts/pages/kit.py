"""The accounts' blueprints, `accounts` (sign-in, sign-out, the language, password links) and
`admin` (/beheer, role admin only), and what the admin pages share: the service's errors and
the audit trail as the portal words them, and the templates' helpers.

The pages are portal.accounts.pages.users, keys (API keys) and settings (the carrier's
settings); portal.accounts.pages gathers them.
"""

from __future__ import annotations

import uuid

import orjson
from flask import Blueprint
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l

from portal.accounts import management
from portal.accounts.pages.forms import PROOF_DRIVER_LABELS, ROLE_HELP, ROLE_LABELS
from portal.audit.service import ACTOR_LABELS
from portal.errors import ValidationFailed
from portal.web.kit import current_carrier_id, errors_at_fields

bp = Blueprint("accounts", __name__)  # sign-in, sign-out, language, password links
admin_bp = Blueprint("admin", __name__, url_prefix="/beheer")

ROLES = ("admin",)

# The service's errors as the portal says them, by their code.
BOTH_OR_NEITHER = {
    "thuisbasis_lat": _l("Vul de breedtegraad ook in, of laat beide leeg."),
    "thuisbasis_lng": _l("Vul de lengtegraad ook in, of laat beide leeg."),
}
WORDING = {
    "email_in_use": _l("Dit e-mailadres heeft al een gebruiker bij deze transporteur."),
    "email_invalid": _l("Vul een geldig e-mailadres in."),
    "required": _l("Vul de naam in."),
    "no_scopes": _l("Kies minstens één recht."),
    "unknown_time_zone": _l(
        "Deze tijdzone kennen we niet. Kies er een uit de lijst, bijvoorbeeld Europe/Amsterdam."
    ),
    "postcode_format": _l(
        "Een Nederlandse postcode is vier cijfers en twee letters, bijvoorbeeld 7511 JE."
    ),
    "both_or_neither": lambda error: str(BOTH_OR_NEITHER[error["field"]]),
    "country_code": _l("Kies een land uit de lijst."),
}
# An error of the service without a code yet (tests/admin/test_service.py pins its form):
# its code, by field and message, until it carries it itself.
UNCODED = {("email", "already in use"): "email_in_use"}


def coded(errors: list[dict]) -> list[dict]:
    """The service's errors, each with its code."""
    return [
        item if "code" in item else {**item, "code": UNCODED.get((item["field"], item["message"]))}
        for item in errors
    ]


ACTIONS = {
    "invited": _l("Uitgenodigd"),
    "invited_again": _l("Nieuwe uitnodigingslink gemaakt"),
    "password_link": _l("Link voor een nieuw wachtwoord gemaakt"),
    "signed_up": _l("Wachtwoord gekozen via de uitnodiging"),
    "password_set": _l("Nieuw wachtwoord ingesteld via de link"),
    "updated": _l("Gewijzigd"),
    "deactivated": _l("Gedeactiveerd"),
    "reactivated": _l("Weer actief gemaakt"),
    "signed_out": _l("Overal afgemeld"),
    "created": _l("Aangemaakt"),
    "revoked": _l("Ingetrokken"),
    "settings_updated": _l("Instellingen gewijzigd"),
    "payroll_columns_updated": _l("Kolommen van de loonexport gewijzigd"),
}
FIELD_LABELS = {
    "naam": _l("Naam"),
    "email": _l("E-mailadres"),
    "rol": _l("Rol"),
    "actief": _l("Actief"),
    "tijdzone": _l("Tijdzone"),
    "thuisbasis_straat": _l("Straat en huisnummer"),
    "thuisbasis_postcode": _l("Postcode"),
    "thuisbasis_plaats": _l("Plaats"),
    "thuisbasis_land": _l("Land"),
    "thuisbasis_lat": _l("Breedtegraad"),
    "thuisbasis_lng": _l("Lengtegraad"),
    "scopes": _l("Rechten"),
}
# How a scope reads: its domain and what it allows. Scopes not named here show as they are.
SCOPE_DOMAINS = {
    "tasks": _l("Taken"),
    "vehicles": _l("Voertuigen"),
    "messages": _l("Berichten"),
    "tacho": _l("Tachograaf"),
    "hours": _l("Uren"),
    "drivers": _l("Chauffeurs"),
    "questionnaires": _l("Vragenlijsten"),
    "answers": _l("Antwoorden"),
    "billing": _l("Facturatie"),
    "files": _l("Bestanden"),
    "locations": _l("Locaties"),
    "webhooks": _l("Webhooks"),
    "customers": _l("Klanten"),
    "tariffs": _l("Tarieven"),
    "invoices": _l("Facturen"),
}
SCOPE_ACCESS = {"read": _l("lezen"), "write": _l("wijzigen")}


def apply_errors(form, error: ValidationFailed) -> list[str]:
    """Put the service's errors at the form's fields; the ones of no field come back."""
    return errors_at_fields(form, coded(error.errors), WORDING)


def scope_label(scope: str) -> str:
    domain, _sep, access = scope.partition(":")
    if domain in SCOPE_DOMAINS and access in SCOPE_ACCESS:
        return f"{SCOPE_DOMAINS[domain]}: {SCOPE_ACCESS[access]}"
    return scope


def scope_groups() -> list[tuple[str, list[str]]]:
    """The known scopes grouped by domain, in the order the model lists them."""
    groups: dict[str, list[str]] = {}
    for scope in management.known_scopes():
        groups.setdefault(scope.partition(":")[0], []).append(scope)
    return [(str(SCOPE_DOMAINS.get(domain, domain)), scopes) for domain, scopes in groups.items()]


def history_of(entity: str, entity_id: uuid.UUID) -> list[dict]:
    """An entity's audit trail as the admin pages show it."""
    items = []
    for entry in management.history(
        carrier_id=current_carrier_id(), entity=entity, entity_id=entity_id
    ):
        changes = orjson.loads(entry.changes or "{}")
        shown = []
        for name, pair in changes.items():
            if name in FIELD_LABELS and isinstance(pair, list) and len(pair) == 2:
                old, new = (_value(name, v) for v in pair)
                shown.append((str(FIELD_LABELS[name]), old, new))
        items.append(
            {
                "at": entry.at,
                "action": str(ACTIONS.get(entry.action, entry.action)),
                "who": entry.actor_label,
                "kind": str(ACTOR_LABELS.get(entry.actor_type, entry.actor_type)),
                "changes": shown,
            }
        )
    return items


def _value(name: str, value) -> str:
    if value is None or value == "":
        return "—"
    if name == "rol":
        return str(ROLE_LABELS.get(value, value))
    if name == "actief":
        return _("ja") if value else _("nee")
    if name == "bewijs_chauffeur":
        return str(PROOF_DRIVER_LABELS.get(value, value))
    if name == "scopes":
        return ", ".join(scope_label(s) for s in str(value).split())
    return str(value)


def page_context(**extra) -> dict:
    """What every admin template gets, and extra."""
    return {
        "role_labels": ROLE_LABELS,
        "role_help": ROLE_HELP,
        "scope_label": scope_label,
        "link_open": management.link_open,
        **extra,
    }
