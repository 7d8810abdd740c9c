"""The admin section (/beheer): the carrier's users, API keys and settings. Role admin only.

Secrets (a password link, an API key) are shown once, in the response to the POST that made
them; only their hashes are stored. Every change goes through accounts.management, which
audits it.
"""

from __future__ import annotations

import uuid
from zoneinfo import available_timezones

import orjson
from babel import Locale
from flask import (
    Blueprint,
    flash,
    make_response,
    redirect,
    render_template,
    request,
    url_for,
)
from flask_babel import get_locale
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_login import current_user, logout_user
from wtforms import SelectChoice

from portal.accounts import management
from portal.accounts.forms import (
    ROLE_HELP,
    ROLE_LABELS,
    ApiKeyForm,
    InviteForm,
    SettingsForm,
    UserForm,
)
from portal.accounts.models import ApiKey, User
from portal.accounts.permissions import landing_url, object_route, role_required
from portal.accounts.service import current_carrier_of
from portal.audit.service import ACTOR_LABELS
from portal.errors import ValidationFailed
from portal.unit_of_work import portal_write
from portal.web import errors_at_fields
from portal.web.kit import current_actor, current_carrier_id

bp = Blueprint("admin", __name__, url_prefix="/beheer")

ROLES = ("admin",)

# The service's {field, message} errors as the portal says them.
SERVICE_MESSAGES = {
    ("email", "already in use"): _l(
        "Dit e-mailadres heeft al een gebruiker bij deze transporteur."
    ),
    ("email", "not an email address"): _l("Vul een geldig e-mailadres in."),
    ("naam", "required"): _l("Vul de naam in."),
    ("scopes", "choose at least one"): _l("Kies minstens één recht."),
    ("tijdzone", "unknown time zone"): _l(
        "Deze tijdzone kennen we niet. Kies er een uit de lijst, bijvoorbeeld Europe/Amsterdam."
    ),
    ("thuisbasis_postcode", "not a Dutch postcode"): _l(
        "Een Nederlandse postcode is vier cijfers en twee letters, bijvoorbeeld 7511 JE."
    ),
    ("thuisbasis_lat", "give both or neither"): _l(
        "Vul de breedtegraad ook in, of laat beide leeg."
    ),
    ("thuisbasis_lng", "give both or neither"): _l(
        "Vul de lengtegraad ook in, of laat beide leeg."
    ),
    ("thuisbasis_land", "a two-letter country code"): _l("Kies een land uit de lijst."),
}

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
}
SCOPE_ACCESS = {"read": _l("lezen"), "write": _l("wijzigen")}


def _apply_errors(form, error: ValidationFailed) -> list[str]:
    return errors_at_fields(form, error.errors, SERVICE_MESSAGES)


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


def _history(entity: str, entity_id: uuid.UUID) -> list[dict]:
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
    if name == "scopes":
        return ", ".join(scope_label(s) for s in str(value).split())
    return str(value)


def _context(**extra) -> dict:
    return {
        "role_labels": ROLE_LABELS,
        "role_help": ROLE_HELP,
        "scope_label": scope_label,
        "link_open": management.link_open,
        **extra,
    }


# --- users ----------------------------------------------------------------------------


@bp.get("")
@role_required(*ROLES)
def users():
    """The carrier's users, their role and state; invite a new one."""
    people = management.list_users(carrier_id=current_carrier_id())
    admins = sum(1 for u in people if u.rol == "admin" and u.actief)
    return render_template("admin/users.html", **_context(users=people, active_admins=admins))


def _render_invite(form: InviteForm, status: int = 200, general=()):
    html = render_template("admin/invite.html", **_context(form=form, general=list(general)))
    return make_response(html, status)


@bp.route("/gebruikers/nieuw", methods=["GET", "POST"])
@role_required(*ROLES)
@portal_write
def invite():
    """Invite a user: they get a one-time link (shown here once) to choose a password."""
    form = InviteForm()
    if request.method == "GET":
        return _render_invite(form)
    if not form.validate():
        return _render_invite(form, 422)
    try:
        user, token = management.invite_user(
            carrier_id=current_carrier_id(),
            email=form.email.data,
            naam=form.naam.data,
            rol=form.rol.data,
            actor=current_actor(),
        )
    except ValidationFailed as error:
        return _render_invite(form, 422, _apply_errors(form, error))
    return _show_link(user, token, invitation=True)


def _show_link(user: User, token: str, *, invitation: bool):
    """The page that shows a password link once; never cached, never shown again."""
    link = url_for("accounts.password_link", token=token, _external=True)
    html = render_template(
        "admin/link.html",
        **_context(user=user, link=link, invitation=invitation, expires=user.link_verloopt_op),
    )
    response = make_response(html, 201 if invitation else 200)
    response.headers["Cache-Control"] = "no-store"
    return response


def user_route(rule: str, methods: tuple[str, ...] = ("GET",)):
    """An admin's route of one user (another carrier's id: 404 whatever the method)."""

    def load(user_id: uuid.UUID):
        return management.get_user(carrier_id=current_carrier_id(), user_id=user_id)

    return object_route(bp, rule, load, methods=methods, roles=ROLES)


def _render_user(user: User, form: UserForm, status: int = 200, problem: str | None = None):
    html = render_template(
        "admin/user.html",
        **_context(
            user=user,
            form=form,
            problem=problem,
            history=_history("user", user.id),
            is_self=user.id == current_user.id,
        ),
    )
    return make_response(html, status)


LAST_ADMIN = _l(
    "Dit is de laatste actieve beheerder van de transporteur. Maak eerst iemand anders "
    "beheerder; anders kan niemand meer gebruikers, API-sleutels en instellingen beheren."
)


@user_route("/gebruikers/<uuid:user_id>", methods=("GET", "POST"))
def user(user: User):
    """A user's page: name and role, access (link, sign out, deactivate) and history."""
    if request.method == "GET":
        return _render_user(user, UserForm(obj=user))
    form = UserForm()
    if not form.validate():
        return _render_user(user, form, 422)
    user_id, was_self = user.id, user.id == current_user.id
    try:
        management.update_user(
            carrier_id=current_carrier_id(),
            user_id=user_id,
            naam=form.naam.data,
            rol=form.rol.data,
            actor=current_actor(),
        )
    except management.LastAdmin:
        user = management.get_user(carrier_id=current_carrier_id(), user_id=user_id)
        form.rol.errors = [str(LAST_ADMIN)]
        return _render_user(user, form, 409)
    except ValidationFailed as error:
        user = management.get_user(carrier_id=current_carrier_id(), user_id=user_id)
        _apply_errors(form, error)
        return _render_user(user, form, 422)
    flash(_("De gegevens zijn opgeslagen."))
    if was_self and not current_user.has_role("admin"):
        # An admin who gave up the role can no longer open /beheer.
        return redirect(landing_url(current_user), code=303)
    return redirect(url_for("admin.user", user_id=user_id), code=303)


CONFIRMATIONS = {
    "deactivate": {
        "title": _l("“%(naam)s” deactiveren?"),
        "text": _l(
            "Deze gebruiker wordt overal afgemeld en kan niet meer inloggen. Wat de gebruiker "
            "deed blijft bewaard. Je kunt de gebruiker later weer actief maken."
        ),
        "button": _l("Ja, deactiveren"),
        "danger": True,
    },
    "password": {
        "title": _l("Link voor een nieuw wachtwoord maken voor “%(naam)s”?"),
        "text": _l(
            "Je krijgt een eenmalige link om aan de gebruiker te geven. Een eerdere link "
            "werkt dan niet meer. Het huidige wachtwoord blijft werken tot er een nieuw is "
            "gekozen."
        ),
        "button": _l("Link maken"),
        "danger": False,
    },
    "invite_again": {
        "title": _l("Nieuwe uitnodigingslink maken voor “%(naam)s”?"),
        "text": _l("De vorige uitnodigingslink werkt dan niet meer."),
        "button": _l("Nieuwe link maken"),
        "danger": False,
    },
    "sign_out": {
        "title": _l("“%(naam)s” overal afmelden?"),
        "text": _l(
            "Alle sessies van deze gebruiker eindigen, op elke computer en telefoon. "
            "Inloggen met het wachtwoord kan daarna gewoon weer."
        ),
        "button": _l("Ja, overal afmelden"),
        "danger": True,
    },
}


def _confirm(user: User, kind: str, endpoint: str, status: int = 200, problem=None):
    spec = CONFIRMATIONS[kind]
    html = render_template(
        "admin/confirm.html",
        title=str(spec["title"]) % {"naam": user.naam or user.email},
        text=spec["text"],
        button=spec["button"],
        danger=spec["danger"],
        action=url_for(endpoint, user_id=user.id),
        back=url_for("admin.user", user_id=user.id),
        problem=problem,
    )
    return make_response(html, status)


def _deactivation_problem(user: User) -> str | None:
    if user.id == current_user.id:
        return _("Je kunt jezelf niet deactiveren. Een andere beheerder kan dat.")
    if user.rol == "admin" and user.actief:
        people = management.list_users(carrier_id=current_carrier_id())
        if not any(u.rol == "admin" and u.actief and u.id != user.id for u in people):
            return str(LAST_ADMIN)
    return None


@user_route("/gebruikers/<uuid:user_id>/deactiveren", methods=("GET", "POST"))
def deactivate(user: User):
    """Deactivate a user, after confirmation; never yourself, never the last admin."""
    if request.method == "GET":
        return _confirm(user, "deactivate", "admin.deactivate", problem=_deactivation_problem(user))
    user_id, naam = user.id, user.naam
    try:
        management.deactivate_user(
            carrier_id=current_carrier_id(), user_id=user_id, actor=current_actor()
        )
    except (management.LastAdmin, management.SelfChange):
        user = management.get_user(carrier_id=current_carrier_id(), user_id=user_id)
        return _confirm(
            user, "deactivate", "admin.deactivate", 409, problem=_deactivation_problem(user)
        )
    flash(_("“%(naam)s” is gedeactiveerd en overal afgemeld.", naam=naam))
    return redirect(url_for("admin.user", user_id=user_id), code=303)


@user_route("/gebruikers/<uuid:user_id>/activeren", methods=("POST",))
def reactivate(user: User):
    """Make a deactivated user active again."""
    user_id, naam = user.id, user.naam
    management.reactivate_user(
        carrier_id=current_carrier_id(), user_id=user_id, actor=current_actor()
    )
    flash(_("“%(naam)s” is weer actief.", naam=naam))
    return redirect(url_for("admin.user", user_id=user_id), code=303)


@user_route("/gebruikers/<uuid:user_id>/wachtwoordlink", methods=("GET", "POST"))
def password_link(user: User):
    """A new one-time link (an invitation again, or a password reset), shown once."""
    kind = "invite_again" if user.invited else "password"
    if not user.actief:
        problem = _("Deze gebruiker is gedeactiveerd. Maak de gebruiker eerst weer actief.")
        status = 409 if request.method == "POST" else 200
        return _confirm(user, kind, "admin.password_link", status, problem=problem)
    if request.method == "GET":
        return _confirm(user, kind, "admin.password_link")
    invitation = user.invited
    token = management.new_password_link(
        carrier_id=current_carrier_id(), user_id=user.id, actor=current_actor()
    )
    return _show_link(user, token, invitation=invitation)


@user_route("/gebruikers/<uuid:user_id>/afmelden", methods=("GET", "POST"))
def sign_out(user: User):
    """End every session of a user, after confirmation (yourself included)."""
    if request.method == "GET":
        return _confirm(user, "sign_out", "admin.sign_out")
    user_id, naam, is_self = user.id, user.naam, user.id == current_user.id
    management.end_user_sessions(
        carrier_id=current_carrier_id(), user_id=user_id, actor=current_actor()
    )
    if is_self:
        logout_user()
        return redirect(url_for("accounts.login"), code=303)
    flash(_("“%(naam)s” is overal afgemeld.", naam=naam))
    return redirect(url_for("admin.user", user_id=user_id), code=303)


# --- API keys -------------------------------------------------------------------------


@bp.get("/api-sleutels")
@role_required(*ROLES)
def api_keys():
    """The carrier's API keys: prefix, scopes, created, last used, revoked."""
    keys = management.list_api_keys(carrier_id=current_carrier_id())
    return render_template("admin/api_keys.html", **_context(keys=keys))


def _scope_choices() -> list[SelectChoice]:
    return [SelectChoice(scope, scope_label(scope)) for scope in management.known_scopes()]


@bp.route("/api-sleutels/nieuw", methods=["GET", "POST"])
@role_required(*ROLES)
@portal_write
def new_api_key():
    """Create a key with the scopes chosen; the key is shown once, on the response."""
    form = ApiKeyForm()
    form.scopes.choices = _scope_choices()
    status = 200
    general: list[str] = []
    if request.method == "POST":
        if form.validate():
            try:
                key, plain = management.issue_api_key(
                    carrier_id=current_carrier_id(),
                    naam=form.naam.data,
                    scopes=form.scopes.data,
                    actor=current_actor(),
                )
            except ValidationFailed as error:
                general = _apply_errors(form, error)
                status = 422
            else:
                html = render_template(
                    "admin/api_key_created.html", **_context(key=key, plain=plain)
                )
                response = make_response(html, 201)
                response.headers["Cache-Control"] = "no-store"
                return response
        else:
            status = 422
    html = render_template(
        "admin/api_key_form.html",
        **_context(form=form, groups=scope_groups(), general=general),
    )
    return make_response(html, status)


def key_route(rule: str, methods: tuple[str, ...] = ("GET",)):
    def load(key_id: uuid.UUID):
        return management.get_api_key(carrier_id=current_carrier_id(), key_id=key_id)

    return object_route(bp, rule, load, methods=methods, roles=ROLES)


@key_route("/api-sleutels/<uuid:key_id>/intrekken", methods=("GET", "POST"))
def revoke_api_key(key: ApiKey):
    """Revoke a key, after confirmation: integrations using it stop working at once."""
    if request.method == "GET":
        html = render_template(
            "admin/confirm.html",
            title=_("API-sleutel “%(naam)s” intrekken?", naam=key.naam),
            text=_(
                "Koppelingen die deze sleutel (%(prefix)s…) gebruiken, krijgen meteen geen "
                "toegang meer. Dit kan niet ongedaan worden gemaakt; je kunt wel een nieuwe "
                "sleutel maken.",
                prefix=key.prefix,
            ),
            button=_("Ja, intrekken"),
            danger=True,
            action=url_for("admin.revoke_api_key", key_id=key.id),
            back=url_for("admin.api_keys"),
            problem=None,
        )
        return html
    naam = key.naam
    management.revoke_api_key(carrier_id=current_carrier_id(), key_id=key.id, actor=current_actor())
    flash(_("API-sleutel “%(naam)s” is ingetrokken.", naam=naam))
    return redirect(url_for("admin.api_keys"), code=303)


# --- the carrier's settings -----------------------------------------------------------


def _countries() -> list[SelectChoice]:
    """Countries by their name in the user's language (Babel's CLDR data), NL first."""
    locale = get_locale() or Locale("nl")
    names = {
        code: name
        for code, name in locale.territories.items()
        if len(code) == 2 and code.isalpha() and code not in ("ZZ", "XA", "XB")
    }
    first = ["NL", "BE", "DE"]
    rest = sorted((c for c in names if c not in first), key=lambda c: names[c])
    return [SelectChoice("", "—")] + [SelectChoice(c, names[c]) for c in first + rest]


def _render_settings(form: SettingsForm, status: int = 200, general=()):
    carrier = current_carrier_of(current_carrier_id())
    html = render_template(
        "admin/settings.html",
        **_context(
            form=form,
            general=list(general),
            zones=sorted(available_timezones()),
            history=_history("carrier", carrier.id),
        ),
    )
    return make_response(html, status)


@bp.route("/instellingen", methods=["GET", "POST"])
@role_required(*ROLES)
@portal_write
def settings():
    """The carrier's name, time zone and home base address."""
    carrier = current_carrier_of(current_carrier_id())
    form = SettingsForm(obj=carrier if request.method == "GET" else None)
    form.thuisbasis_land.choices = _countries()
    if request.method == "GET":
        if not carrier.thuisbasis_land:
            form.thuisbasis_land.data = "NL"
        return _render_settings(form)
    if not form.validate():
        return _render_settings(form, 422)
    try:
        management.update_settings(
            carrier_id=current_carrier_id(),
            settings=management.CarrierSettings(
                naam=form.naam.data,
                tijdzone=(form.tijdzone.data or "").strip(),
                thuisbasis_straat=form.thuisbasis_straat.data,
                thuisbasis_postcode=form.thuisbasis_postcode.data,
                thuisbasis_plaats=form.thuisbasis_plaats.data,
                thuisbasis_land=form.thuisbasis_land.data,
                thuisbasis_lat=form.thuisbasis_lat.data,
                thuisbasis_lng=form.thuisbasis_lng.data,
            ),
            actor=current_actor(),
        )
    except ValidationFailed as error:
        general = _apply_errors(form, error)
        return _render_settings(form, 422, general)
    flash(_("De instellingen zijn opgeslagen."))
    return redirect(url_for("admin.settings"), code=303)
