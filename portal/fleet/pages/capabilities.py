"""The carrier's capability catalogue (add, rename, switch off after a confirmation, switch on)
and, beside it, what each activity type needs of its vehicle combination."""

from __future__ import annotations

from flask import flash, make_response, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l

from portal.accounts.permissions import object_route, role_required
from portal.errors import NotFound, ValidationFailed
from portal.fleet import catalogue
from portal.fleet.capabilities import DEFAULT_NEEDS
from portal.fleet.pages.forms import CapabilityForm, ConfirmForm
from portal.fleet.pages.kit import bp
from portal.labels import activity_label
from portal.questionnaires import service as questionnaires
from portal.unit_of_work import portal_write, refused
from portal.web.kit import current_actor, current_carrier_id, errors_at_fields

WORDING = {
    "required": _l("Vul een naam in."),
    "too_long": _l("Hoogstens %(max)s tekens."),
    "capability_exists": _l("Het kenmerk “%(naam)s” staat al in de lijst."),
}
HERE = "fleet.capabilities"


def _item(code: str):
    for item in catalogue.catalogue(carrier_id=current_carrier_id()):
        if item.code == code:
            return item
    raise NotFound("capability not found")


def capability_route(rule: str, methods: tuple[str, ...] = ("GET",)):
    """A route of one capability of the catalogue: unknown (another carrier's own) is 404
    whatever the method, before a POST's CSRF token is checked."""
    return object_route(bp, rule, _item, methods=methods)


def _page(add_form=None, rename: dict | None = None, status: int = 200):
    carrier_id = current_carrier_id()
    items = catalogue.catalogue(carrier_id=carrier_id)
    forms = rename or {}
    for item in items:
        forms.setdefault(item.code, CapabilityForm(prefix=item.code, naam=_(item.naam)))
    html = render_template(
        "fleet/capabilities.html",
        items=items,
        add_form=add_form or CapabilityForm(prefix="nieuw"),
        rename_forms=forms,
        counts=catalogue.vehicles_with(carrier_id=carrier_id),
    )
    return make_response(html, status)


@bp.route("/voertuigen/kenmerken", methods=["GET", "POST"])
@role_required("planner")
@portal_write
def capabilities():
    """The catalogue; POST adds a capability of the carrier's own."""
    if request.method == "GET":
        return _page()
    form = CapabilityForm(request.form, prefix="nieuw")
    if not form.validate():
        return _page(add_form=form, status=422)
    try:
        item = catalogue.add_capability(
            carrier_id=current_carrier_id(), naam=form.naam.data, actor=current_actor()
        )
    except ValidationFailed as error:
        errors_at_fields(form, error.errors, WORDING)
        return _page(add_form=form, status=422)
    flash(_("Kenmerk “%(naam)s” is toegevoegd.", naam=item.naam), "info")
    return redirect(url_for(HERE), code=303)


@capability_route("/voertuigen/kenmerken/<code>/naam", methods=("POST",))
def rename_capability(item):
    code = item.code
    form = CapabilityForm(request.form, prefix=code)
    if not form.validate():
        return _page(rename={code: form}, status=422)
    try:
        catalogue.change_capability(
            carrier_id=current_carrier_id(), code=code, naam=form.naam.data, actor=current_actor()
        )
    except ValidationFailed as error:
        errors_at_fields(form, error.errors, WORDING)
        return _page(rename={code: form}, status=422)
    flash(_("“%(old)s” heet nu “%(new)s”.", old=_(item.naam), new=form.naam.data.strip()), "info")
    return redirect(url_for(HERE), code=303)


@capability_route("/voertuigen/kenmerken/<code>/uitzetten", methods=("GET", "POST"))
def switch_off_capability(item):
    """Switch a capability off, after a confirmation that counts the vehicles having it."""
    code = item.code
    if request.method == "GET":
        count = catalogue.vehicles_with(carrier_id=current_carrier_id()).get(code, 0)
        html = render_template(
            "fleet/capability_confirm.html",
            item=item,
            count=count,
            form=ConfirmForm(),
            back=url_for(HERE),
        )
        return make_response(html)
    catalogue.change_capability(
        carrier_id=current_carrier_id(), code=code, actief=False, actor=current_actor()
    )
    flash(_("Kenmerk “%(naam)s” is uitgezet.", naam=_(item.naam)), "info")
    return redirect(url_for(HERE), code=303)


@capability_route("/voertuigen/kenmerken/<code>/aanzetten", methods=("POST",))
def switch_on_capability(item):
    code = item.code
    catalogue.change_capability(
        carrier_id=current_carrier_id(), code=code, actief=True, actor=current_actor()
    )
    flash(_("Kenmerk “%(naam)s” staat weer aan.", naam=_(item.naam)), "info")
    return redirect(url_for(HERE), code=303)


# --- what activity types need ---------------------------------------------------------------


def _activity_types() -> list[str]:
    carrier_id = current_carrier_id()
    known = questionnaires.activity_types(carrier_id=carrier_id)
    stored = catalogue.needs_types(carrier_id=carrier_id)
    return sorted(set(known) | set(DEFAULT_NEEDS) | set(stored), key=activity_label)


@bp.route("/voertuigen/kenmerken/activiteiten", methods=["GET", "POST"])
@role_required("planner")
@portal_write
def activity_needs():
    """Per activity type the capabilities its combination needs; POST saves one type's."""
    carrier_id = current_carrier_id()
    types = _activity_types()
    if request.method == "POST":
        kind = request.form.get("activity_type", "")
        if kind not in types or not ConfirmForm(request.form).validate():
            return refused(redirect(url_for("fleet.activity_needs"), code=303))
        try:
            catalogue.set_needs(
                carrier_id=carrier_id,
                activity_type=kind,
                kenmerken=request.form.getlist("kenmerk"),
                actor=current_actor(),
            )
        except ValidationFailed:
            flash(_("Kies kenmerken uit de lijst."), "error")
            return refused(redirect(url_for("fleet.activity_needs"), code=303))
        flash(_("Opgeslagen wat “%(type)s” nodig heeft.", type=activity_label(kind)), "info")
        return redirect(url_for("fleet.activity_needs") + f"#needs-{kind}", code=303)
    return render_template(
        "fleet/activity_needs.html",
        types=types,
        needs=catalogue.needed_capabilities(carrier_id=carrier_id, activity_types=types),
        items=catalogue.catalogue(carrier_id=carrier_id, active_only=True),
        form=ConfirmForm(),
        activity_label=activity_label,
    )
