"""A driver's access in the portal: deactivate and reactivate, a new user_token, signing a
lost phone out (each after confirmation), and pairing a phone by a one-time code shown as QR
code and text.
"""

from __future__ import annotations

import uuid
from urllib.parse import quote, urlencode

import segno
from flask import current_app, flash, make_response, redirect, render_template, request, url_for
from flask_babel import format_datetime
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l

from portal.drivers import pairing, service, tokens
from portal.drivers.models import Driver
from portal.drivers.pages.kit import driver_route
from portal.errors import ValidationFailed
from portal.web.kit import current_actor, current_carrier_id

PAIRING_SCHEME = "rijplan://activate"

# --- access actions -------------------------------------------------------------------

CONFIRMATIONS = {
    "deactivate": {
        "title": _l("Chauffeur “%(naam)s” deactiveren?"),
        "text": _l(
            "De chauffeur kan daarna niet meer inloggen en de app op de telefoon wordt "
            "direct afgemeld. Taken, uren en gereden routes blijven bewaard. Je kunt de "
            "chauffeur later weer actief maken."
        ),
        "button": _l("Ja, deactiveer"),
        "danger": True,
    },
    "rotate": {
        "title": _l("Nieuwe user_token voor “%(naam)s”?"),
        "text": _l(
            "Adressen met de oude user_token werken daarna niet meer (404). De app krijgt "
            "de nieuwe bij de volgende keer dat hij zijn sleutel vernieuwt; koppelingen met "
            "eigen systemen moeten de nieuwe gebruiken."
        ),
        "button": _l("Ja, vernieuw de user_token"),
        "danger": True,
    },
    "sign_out": {
        "title": _l("Telefoon van “%(naam)s” afmelden?"),
        "text": _l(
            "Voor een verloren of gestolen telefoon: de app op die telefoon wordt direct "
            "afgemeld en kan niets meer ophalen of versturen. De chauffeur blijft actief; "
            "koppel daarna een nieuwe telefoon met een koppelcode."
        ),
        "button": _l("Ja, meld de telefoon af"),
        "danger": True,
    },
}


def _confirm(driver: Driver, kind: str, endpoint: str):
    spec = CONFIRMATIONS[kind]
    return render_template(
        "drivers/confirm.html",
        driver=driver,
        title=str(spec["title"]) % {"naam": driver.naam},
        text=spec["text"],
        button=spec["button"],
        danger=spec["danger"],
        action=url_for(endpoint, driver_id=driver.id),
    )


def _done(driver_id: uuid.UUID, text: str):
    flash(text)
    return redirect(url_for("drivers.show", driver_id=driver_id), code=303)


@driver_route("/chauffeurs/<uuid:driver_id>/deactiveren", methods=("GET", "POST"))
def deactivate(driver: Driver):
    """Deactivate a driver who left, after confirmation."""
    if request.method == "GET":
        return _confirm(driver, "deactivate", "drivers.deactivate")
    driver_id, naam = driver.id, driver.naam
    service.deactivate_driver(
        carrier_id=current_carrier_id(), driver_id=driver_id, actor=current_actor()
    )
    return _done(driver_id, _("Chauffeur “%(naam)s” is gedeactiveerd en afgemeld.", naam=naam))


@driver_route("/chauffeurs/<uuid:driver_id>/activeren", methods=("POST",))
def reactivate(driver: Driver):
    """Make a deactivated driver active again."""
    driver_id, naam = driver.id, driver.naam
    service.reactivate_driver(
        carrier_id=current_carrier_id(), driver_id=driver_id, actor=current_actor()
    )
    return _done(
        driver_id,
        _("Chauffeur “%(naam)s” is weer actief. Koppel de telefoon opnieuw.", naam=naam),
    )


@driver_route("/chauffeurs/<uuid:driver_id>/user-token", methods=("GET", "POST"))
def rotate_token(driver: Driver):
    """Give a driver a new user_token, after confirmation."""
    if request.method == "GET":
        return _confirm(driver, "rotate", "drivers.rotate_token")
    driver_id, naam = driver.id, driver.naam
    service.rotate_user_token(
        carrier_id=current_carrier_id(), driver_id=driver_id, actor=current_actor()
    )
    return _done(driver_id, _("“%(naam)s” heeft een nieuwe user_token.", naam=naam))


@driver_route("/chauffeurs/<uuid:driver_id>/afmelden", methods=("GET", "POST"))
def sign_out(driver: Driver):
    """Sign a driver's phone out (revoke its tokens), after confirmation."""
    if request.method == "GET":
        return _confirm(driver, "sign_out", "drivers.sign_out")
    driver_id, naam = driver.id, driver.naam
    tokens.sign_out_phone(
        carrier_id=current_carrier_id(), driver_id=driver_id, actor=current_actor()
    )
    return _done(driver_id, _("De telefoon van “%(naam)s” is afgemeld.", naam=naam))


# --- pairing --------------------------------------------------------------------------


def api_base_url() -> str:
    """The API's address as the phone reaches it: this portal's own, plus /api/v1."""
    return request.url_root.rstrip("/") + "/api/v1"


def pairing_payload(code: str, server: str) -> str:
    """What the pairing QR code holds: the code and the API address, as an app link."""
    return f"{PAIRING_SCHEME}?{urlencode({'code': code, 'server': server}, quote_via=quote)}"


def qr_svg(payload: str, title: str) -> str:
    """The QR code as inline SVG markup (no style attributes: the CSP holds)."""
    qr = segno.make(payload, error="m")
    return qr.svg_inline(
        scale=1, border=4, dark="#000", light="#fff", svgclass="qr-code", omitsize=True, title=title
    )


def _grouped(code: str) -> str:
    half = len(code) // 2
    return f"{code[:half]}-{code[half:]}"


@driver_route("/chauffeurs/<uuid:driver_id>/koppelen", methods=("GET", "POST"))
def pair(driver: Driver):
    """Pair a phone: a one-time code, shown once as QR code and text; earlier codes lapse."""
    if request.method == "GET" or not driver.actief:
        status = 200 if request.method == "GET" else 409
        return make_response(render_template("drivers/pair.html", driver=driver), status)
    driver_id = driver.id
    try:
        driver, code, expires_at = pairing.create_pairing_code(
            carrier_id=current_carrier_id(), driver_id=driver_id, actor=current_actor()
        )
    except ValidationFailed:
        driver = service.get_driver(carrier_id=current_carrier_id(), driver_id=driver_id)
        return make_response(render_template("drivers/pair.html", driver=driver), 409)
    naam = driver.naam
    server = api_base_url()
    payload = pairing_payload(code, server)
    ttl = current_app.config["ACTIVATION_CODE_TTL"]
    context = {
        "driver": driver,
        "code": code,
        "code_grouped": _grouped(code),
        "expires_at": expires_at,
        "expires_text": format_datetime(expires_at, "HH:mm"),
        "ttl_minutes": int(ttl.total_seconds() // 60),
        "server": server,
        "payload": payload,
        "qr": qr_svg(payload, _("Koppelcode voor %(naam)s", naam=naam)),
    }
    return render_template("drivers/pair.html", **context)
