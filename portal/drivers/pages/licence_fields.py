"""The driver form's licence categories: filled from the record, checked with the service's
rules (so every error shows at once, at its field) and saved."""

from __future__ import annotations

import uuid

from flask_babel import lazy_gettext as _l

from portal.drivers import licences
from portal.drivers.pages.forms import DriverForm, expiry_field
from portal.errors import ValidationFailed
from portal.web.kit import errors_at_fields

# The licence rules' errors as the form words them, by their code.
WORDING = {
    "rijbewijs_categorie_onbekend": _l("Onbekende categorie: %(categorieen)s."),
    "rijbewijs_vereist": _l(
        "%(categorie)s staat alleen op een rijbewijs met %(vereist)s; vink %(vereist)s ook aan."
    ),
    "rijbewijs_geldig_tot_ongeldig": _l("Kies een datum tussen 2000 en 2099."),
}


def fill(form: DriverForm, *, carrier_id: uuid.UUID, driver_id: uuid.UUID) -> None:
    """The form's categories and dates as recorded."""
    held = licences.recorded_licences(carrier_id=carrier_id, driver_ids={driver_id})[driver_id]
    form.rijbewijs_categorieen.data = list(held)
    for category, expiry in held.items():
        form[expiry_field(category)].data = expiry


def check(form: DriverForm) -> bool:
    """The licence rules over what the form holds; their errors at the fields."""
    try:
        licences.check_licences(form.licences())
    except ValidationFailed as error:
        errors_at_fields(form, error.errors, WORDING)
        return False
    return True


def recorded(*, carrier_id: uuid.UUID, driver_id: uuid.UUID) -> dict:
    """A driver's categories with their expiry dates, in the licence's order."""
    return licences.recorded_licences(carrier_id=carrier_id, driver_ids={driver_id})[driver_id]
