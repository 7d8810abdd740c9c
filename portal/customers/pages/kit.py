"""What the customer pages share: the blueprint, loading a customer or place for a route,
the words for the service's errors at the form's fields, and how places are shown."""

from __future__ import annotations

import uuid

from flask import Blueprint, flash, redirect, url_for
from flask_babel import get_locale
from flask_babel import lazy_gettext as _l

from portal import countries
from portal.accounts.permissions import object_route
from portal.customers import service
from portal.customers.pages.forms import VAT_TREATMENTS
from portal.customers.words import MESSAGES, SOORT_LABELS
from portal.web.kit import current_carrier_id

bp = Blueprint("customers", __name__)


def customer_route(rule: str, methods: tuple[str, ...] = ("GET",)):
    """A planner's route of one customer (another carrier's id: 404 whatever the method)."""

    def load(klant_id: uuid.UUID):
        return service.get_customer(carrier_id=current_carrier_id(), customer_id=klant_id)

    return object_route(bp, rule, load, methods=methods)


def place_route(rule: str, methods: tuple[str, ...] = ("GET",)):
    """A planner's route of one place of a customer: the view gets (customer, place)."""

    def load(klant_id: uuid.UUID, locatie_id: uuid.UUID):
        carrier_id = current_carrier_id()
        customer = service.get_customer(carrier_id=carrier_id, customer_id=klant_id)
        place = service.get_place(carrier_id=carrier_id, customer_id=klant_id, place_id=locatie_id)
        return customer, place

    return object_route(bp, rule, load, methods=methods)


def done(customer_id: uuid.UUID, text: str, category: str = "info"):
    flash(text, category)
    return redirect(url_for("customers.show", klant_id=customer_id), code=303)


# The rules' codes as a planner reads them at the form's field (web.kit.errors_at_fields);
# a code without words of its own asks to check the field.
WORDING = {**MESSAGES, "choice": _l("Controleer dit veld.")}


def place_line(place) -> str:
    """Where a place is, on one line: 'Hengelosestraat 12, 7468 AB Enter'."""
    town = " ".join(part for part in (place.postcode, place.stad) if part)
    parts = [part for part in (place.adres, town) if part]
    if place.land and place.land != "NL":
        parts.append(place.land)
    return ", ".join(parts)


def _country_name(code: str) -> str:
    return countries.name(code, get_locale() or "nl")


def helpers() -> dict:
    """What the templates use to show customers and places."""
    return {
        "soort_labels": SOORT_LABELS,
        "place_line": place_line,
        "country_name": _country_name,
        "vat_treatments": VAT_TREATMENTS,
    }
