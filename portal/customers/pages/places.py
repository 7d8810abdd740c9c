"""A customer's places: add, change and remove (after a confirmation)."""

from __future__ import annotations

from flask import make_response, render_template, request, url_for
from flask_babel import gettext as _

from portal.customers import service
from portal.customers.models import Customer, CustomerPlace
from portal.customers.pages.forms import ConfirmForm, PlaceForm
from portal.customers.pages.kit import (
    WORDING,
    customer_route,
    done,
    helpers,
    place_route,
)
from portal.customers.rules import PLACE_FIELDS
from portal.errors import ValidationFailed
from portal.web.kit import current_actor, current_carrier_id, errors_at_fields


def _render_form(form, customer: Customer, place: CustomerPlace | None, status=200, errors=()):
    if place:
        action = url_for("customers.edit_place", klant_id=customer.id, locatie_id=place.id)
    else:
        action = url_for("customers.new_place", klant_id=customer.id)
    html = render_template(
        "customers/place_form.html",
        form=form,
        customer=customer,
        place=place,
        action=action,
        back=url_for("customers.show", klant_id=customer.id),
        errors=list(errors),
    )
    return make_response(html, status)


@customer_route("/klanten/<uuid:klant_id>/locaties/nieuw", methods=("GET", "POST"))
def new_place(customer: Customer):
    """A new loading or unloading place of the customer."""
    form = PlaceForm(request.form if request.method == "POST" else None)
    if request.method == "GET":
        return _render_form(form, customer, None)
    if not form.validate():
        return _render_form(form, customer, None, 422)
    try:
        place = service.add_place(
            carrier_id=current_carrier_id(),
            customer_id=customer.id,
            data=form.place_data(),
            actor=current_actor(),
        )
    except ValidationFailed as error:
        return _render_form(
            form, customer, None, 422, errors_at_fields(form, error.errors, WORDING)
        )
    return done(customer.id, _("Locatie %(naam)s is toegevoegd.", naam=place.naam))


@place_route(
    "/klanten/<uuid:klant_id>/locaties/<uuid:locatie_id>/bewerken", methods=("GET", "POST")
)
def edit_place(customer: Customer, place: CustomerPlace):
    """Change a place of the customer."""
    form = PlaceForm(request.form if request.method == "POST" else None)
    if request.method == "GET":
        for name in PLACE_FIELDS:
            form[name].data = getattr(place, name)
        return _render_form(form, customer, place)
    if not form.validate():
        return _render_form(form, customer, place, 422)
    try:
        saved = service.update_place(
            carrier_id=current_carrier_id(),
            customer_id=customer.id,
            place_id=place.id,
            data=form.place_data(),
            actor=current_actor(),
        )
    except ValidationFailed as error:
        return _render_form(
            form, customer, place, 422, errors_at_fields(form, error.errors, WORDING)
        )
    return done(customer.id, _("Locatie %(naam)s is opgeslagen.", naam=saved.naam))


@place_route(
    "/klanten/<uuid:klant_id>/locaties/<uuid:locatie_id>/verwijderen", methods=("GET", "POST")
)
def remove_place(customer: Customer, place: CustomerPlace):
    """Remove a place of the customer after a confirmation."""
    if request.method == "GET":
        html = render_template(
            "customers/confirm.html",
            kind="remove_place",
            customer=customer,
            place=place,
            form=ConfirmForm(),
            action=url_for("customers.remove_place", klant_id=customer.id, locatie_id=place.id),
            back=url_for("customers.show", klant_id=customer.id),
            **helpers(),
        )
        return make_response(html)
    name = place.naam
    service.remove_place(
        carrier_id=current_carrier_id(),
        customer_id=customer.id,
        place_id=place.id,
        actor=current_actor(),
    )
    return done(customer.id, _("Locatie %(naam)s is verwijderd.", naam=name))
