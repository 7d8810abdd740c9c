"""The planners' customer pages: the list with search, create and edit, a customer's page
with its places, deactivation and deletion after a confirmation."""

from __future__ import annotations

from flask import flash, make_response, redirect, render_template, request, url_for
from flask_babel import get_locale
from flask_babel import gettext as _

from portal import countries
from portal.accounts.permissions import role_required
from portal.customers import service, vies
from portal.customers.models import Customer
from portal.customers.pages.forms import ConfirmForm, CustomerFilterForm, CustomerForm
from portal.customers.pages.kit import WORDING, bp, customer_route, done, helpers
from portal.customers.rules import CUSTOMER_FIELDS
from portal.errors import Conflict, ValidationFailed
from portal.unit_of_work import portal_write, refused
from portal.web import is_fragment
from portal.web.kit import Pager, current_actor, current_carrier_id, errors_at_fields

PAGE_SIZE = 50  # customers per page of the list


def _cities(places) -> str:
    """The cities of a customer's places, each once, in the order of the places."""
    return ", ".join(dict.fromkeys(p.stad for p in places if p.stad))


@bp.route("/klanten")
@role_required("planner")
def index():
    """The carrier's customers by name: search in name, debtor number and city, paged."""
    carrier_id = current_carrier_id()
    form = CustomerFilterForm(request.args)
    form.validate()
    status = form.clean("status")
    search = (form.clean("q") or "").strip()
    pager = Pager.asked(PAGE_SIZE)
    result = service.find_customers(
        carrier_id=carrier_id,
        filters=service.CustomerFilters(
            search=search or None,
            actief={"actief": True, "inactief": False}.get(status),
            limit=PAGE_SIZE,
            offset=pager.offset,
        ),
    )
    pager = pager.counted(result.total)
    places = service.places_by_customer(
        carrier_id=carrier_id, customer_ids={c.id for c in result.customers}
    )
    args = {k: v for k, v in (("q", search), ("status", status if status != "actief" else "")) if v}
    context = {
        "form": form,
        "customers": result.customers,
        "places": places,
        "cities": _cities,
        "total": result.total,
        "pager": pager,
        "page_args": args,
        "filtered": bool(args),
        "clear_url": url_for("customers.index"),
        **helpers(),
    }
    if is_fragment():
        response = make_response(render_template("customers/_list.html", **context))
        response.headers["HX-Push-Url"] = pager.url("customers.index", **args)
        return response
    return render_template("customers/index.html", **context)


# --- create and edit ------------------------------------------------------------------


def _form(formdata=None) -> CustomerForm:
    form = CustomerForm(formdata)
    form.set_choices(countries.choices(get_locale() or "nl"))
    return form


def _render_form(form: CustomerForm, customer: Customer | None, status: int = 200, errors=()):
    if customer:
        action = url_for("customers.edit", klant_id=customer.id)
        back = url_for("customers.show", klant_id=customer.id)
    else:
        action, back = url_for("customers.new"), url_for("customers.index")
    html = render_template(
        "customers/form.html",
        form=form,
        customer=customer,
        action=action,
        back=back,
        errors=list(errors),
    )
    return make_response(html, status)


@bp.route("/klanten/nieuw", methods=["GET", "POST"])
@role_required("planner")
@portal_write
def new():
    """A new customer."""
    form = _form(request.form if request.method == "POST" else None)
    if request.method == "GET":
        form.factuur_land.data = "NL"
        return _render_form(form, None)
    if not form.validate():
        return _render_form(form, None, 422)
    try:
        customer = service.create_customer(
            carrier_id=current_carrier_id(), data=form.customer_data(), actor=current_actor()
        )
    except ValidationFailed as error:
        return _render_form(form, None, 422, errors_at_fields(form, error.errors, WORDING))
    return done(
        customer.id,
        _("Klant %(naam)s is toegevoegd. Voeg de laad- en losadressen toe.", naam=customer.naam),
    )


@customer_route("/klanten/<uuid:klant_id>/bewerken", methods=("GET", "POST"))
def edit(customer: Customer):
    """Edit a customer's details."""
    form = _form(request.form if request.method == "POST" else None)
    if request.method == "GET":
        for name in CUSTOMER_FIELDS:
            form[name].data = getattr(customer, name)
        form.factuur_land.data = customer.factuur_land or "NL"
        form.btw_categorie.data = customer.btw_categorie or ""
        return _render_form(form, customer)
    if not form.validate():
        return _render_form(form, customer, 422)
    try:
        saved = service.update_customer(
            carrier_id=current_carrier_id(),
            customer_id=customer.id,
            data=form.customer_data(),
            actor=current_actor(),
        )
    except ValidationFailed as error:
        return _render_form(form, customer, 422, errors_at_fields(form, error.errors, WORDING))
    return done(saved.id, _("Klant %(naam)s is opgeslagen.", naam=saved.naam))


# --- one customer ---------------------------------------------------------------------


@customer_route("/klanten/<uuid:klant_id>")
def show(customer: Customer):
    """A customer: its details and its places."""
    places = service.list_places(carrier_id=current_carrier_id(), customer_id=customer.id)
    return render_template("customers/show.html", customer=customer, places=places, **helpers())


@customer_route("/klanten/<uuid:klant_id>/vies", methods=("POST",))
def check_vies(customer: Customer):
    """Ask VIES whether the customer's VAT number is valid; the answer is kept with its date."""
    try:
        checked = vies.check_customer(
            carrier_id=current_carrier_id(), customer_id=customer.id, actor=current_actor()
        )
    except ValidationFailed:
        return refused(
            done(
                customer.id,
                _("Alleen een btw-nummer uit de EU kan in VIES gecontroleerd worden."),
                "error",
            )
        )
    except vies.Unavailable:
        return refused(
            done(
                customer.id,
                _(
                    "VIES geeft nu geen antwoord. Probeer het later opnieuw; de vorige uitkomst "
                    "blijft staan."
                ),
                "error",
            )
        )
    if checked.vies_status == "geldig":
        return done(
            customer.id, _("VIES kent %(nummer)s als geldig btw-nummer.", nummer=checked.btw_nummer)
        )
    return done(
        customer.id,
        _(
            "VIES kent %(nummer)s niet als geldig btw-nummer: btw verleggen kan dan niet.",
            nummer=checked.btw_nummer,
        ),
        "warning",
    )


# --- deactivate, activate, delete -----------------------------------------------------


def _confirm(customer: Customer, kind: str):
    carrier_id = current_carrier_id()
    endpoint = {"deactivate": "customers.deactivate", "delete": "customers.delete"}[kind]
    html = render_template(
        "customers/confirm.html",
        kind=kind,
        customer=customer,
        places=len(service.list_places(carrier_id=carrier_id, customer_id=customer.id)),
        in_use=service.in_use(carrier_id=carrier_id, customer_id=customer.id),
        form=ConfirmForm(),
        action=url_for(endpoint, klant_id=customer.id),
        back=url_for("customers.show", klant_id=customer.id),
    )
    return make_response(html)


@customer_route("/klanten/<uuid:klant_id>/deactiveren", methods=("GET", "POST"))
def deactivate(customer: Customer):
    """Deactivate a customer after a confirmation: no new work, its places and history stay."""
    if request.method == "GET":
        return _confirm(customer, "deactivate")
    customer_id, name = customer.id, customer.naam
    service.set_active(
        carrier_id=current_carrier_id(),
        customer_id=customer_id,
        actief=False,
        actor=current_actor(),
    )
    return done(customer_id, _("Klant %(naam)s is gedeactiveerd.", naam=name))


@customer_route("/klanten/<uuid:klant_id>/activeren", methods=("POST",))
def activate(customer: Customer):
    """Make a deactivated customer active again."""
    customer_id, name = customer.id, customer.naam
    service.set_active(
        carrier_id=current_carrier_id(), customer_id=customer_id, actief=True, actor=current_actor()
    )
    return done(customer_id, _("Klant %(naam)s is weer actief.", naam=name))


@customer_route("/klanten/<uuid:klant_id>/verwijderen", methods=("GET", "POST"))
def delete(customer: Customer):
    """Delete a customer nothing refers to, with its places, after a confirmation."""
    if request.method == "GET":
        return _confirm(customer, "delete")
    customer_id, name = customer.id, customer.naam
    try:
        service.delete_customer(
            carrier_id=current_carrier_id(), customer_id=customer_id, actor=current_actor()
        )
    except Conflict:
        return refused(
            done(
                customer_id,
                _("Klant %(naam)s is in gebruik en kan niet weg: deactiveer hem.", naam=name),
                "error",
            )
        )
    flash(_("Klant %(naam)s is verwijderd.", naam=name))
    return redirect(url_for("customers.index"), code=303)
