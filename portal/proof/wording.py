"""The bundle's facts worded for people, in the current language: the rows the PDF and the
printable page both show, so the two say the same."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from zoneinfo import ZoneInfo

from babel.dates import format_datetime
from flask_babel import format_decimal
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l

from portal.labels import activity_label, unit

DASH = "—"
# Each status's row of the status times: the moment it was reached. "Ingepland op" (when the
# plan was made) is not "Gepland voor" (the moment planned), which the task's rows show.
STATUS_MOMENTS = {
    "gepland": _l("Ingepland op"),
    "ontvangen": _l("Ontvangen op"),
    "gestart": _l("Gestart op"),
    "afgerond": _l("Afgerond op"),
    "geannuleerd": _l("Geannuleerd op"),
}
MOMENT = "EEE d MMM yyyy HH:mm"


def when(iso: str | None, zone: ZoneInfo, locale: str, fmt=format_datetime) -> str:
    """An ISO moment of the facts in the carrier's zone, independent of who asks."""
    if not iso:
        return DASH
    return fmt(datetime.fromisoformat(iso), MOMENT, tzinfo=zone, locale=locale)


def number(value) -> str:
    return format_decimal(value) if isinstance(value, int | float) else str(value)


def _or_dash(value) -> str:
    return DASH if value is None or value == "" else str(value)


def coordinates(point) -> str:
    return f"{point[0]:.6f}, {point[1]:.6f}" if point else DASH


def task_rows(facts: dict, moment: Callable[[str | None], str]) -> list[tuple[str, str]]:
    """What, where, when, who delivered (as the carrier names drivers to shippers) and which
    vehicle; no remarks of the office."""
    task = facts["taak"]
    amount = (
        f"{number(task['hoeveelheid'])} {unit(task['eenheid'])}".strip()
        if task["hoeveelheid"] is not None
        else DASH
    )
    place = " ".join(v for v in (task["postcode"], task["stad"]) if v) or DASH
    rows = [
        (_("Taak"), task["naam"]),
        (_("Soort werk"), activity_label(task["type"])),
        (_("Omschrijving"), _or_dash(task["omschrijving"])),
        (_("Artikel"), _or_dash(task["artikel"])),
        (_("Hoeveelheid"), amount),
        (_("VDM-nummer"), _or_dash(task["vdm_nummer"])),
        (_("Adres"), _or_dash(task["adres"])),
        (_("Postcode en plaats"), place + (f" ({task['land']})" if task["land"] else "")),
        (_("Locatie"), coordinates(task["locatie"])),
        (_("Contactpersoon"), _or_dash(task["contactpersoon"])),
        (_("Gepland voor"), moment(task["gepland_op"])),
        (_("Afgerond op"), moment(task["afgerond_op"])),
        (_("Chauffeur"), _or_dash(task["chauffeur"])),
        (_("Voertuig"), _or_dash(task["kenteken"])),
    ]
    return rows


def status_rows(facts: dict, moment: Callable[[str | None], str]) -> list[tuple[str, str]]:
    """Each status the task went through with the moment it was reached."""
    rows = []
    for item in facts["statussen"]:
        if item.get("heropend"):
            label = _("Heropend op")
        else:
            label = str(STATUS_MOMENTS.get(item["status"], item["status"]))
        rows.append((label, moment(item["op"])))
    return rows


def completion_rows(facts: dict) -> list[tuple[str, str]]:
    """Where it was completed, and the measured temperature and disinfection."""
    done = facts["afronding"]
    if done["locatie"]:
        place = coordinates(done["locatie"])
        if done["afstand_m"] is not None:
            place += " · " + _("%(m)s m van het adres van de taak", m=number(done["afstand_m"]))
        elif not facts["taak"]["locatie"]:
            place += " · " + _("de taak heeft geen coördinaten om mee te vergelijken")
    else:
        place = _("Geen locatie vastgelegd")
    measured, required = done["temperatuur_gemeten"], done["temperatuur_vereist"]
    if measured is not None:
        temperature = _("gemeten %(t)s °C", t=number(measured))
        if required is not None:
            temperature += " · " + _("vereist %(t)s °C", t=number(required))
            if measured > required:
                temperature += " · " + _("AFWIJKING")
    elif required is not None:
        temperature = _("niet gemeten (vereist %(t)s °C)", t=number(required))
    else:
        temperature = _("Geen temperatuur gevraagd of gemeten")
    if done["desinfectie_bevestigd"]:
        disinfection = _("bevestigd")
    elif done["desinfectie_vereist"]:
        disinfection = _("niet bevestigd")
    else:
        disinfection = _("Niet gevraagd")
    rows = [
        (_("Locatie bij afronding"), place),
        (_("Temperatuur"), temperature),
        (_("Desinfectie"), disinfection),
    ]
    if done.get("papieren_bon"):
        rows.insert(0, (_("Afgerond op papier"), paper_note(done["papieren_bon"])))
    return rows


def paper_note(part: str) -> str:
    return _("de afleverbon is op papier ingevuld en gescand: %(part)s", part=part)


def scan_caption(part_name: str, number: int, facts: dict) -> str:
    """A scan's caption: the paper delivery note a task was completed on says so."""
    if part_name == facts["afronding"].get("papieren_bon"):
        return _("Papieren afleverbon")
    return _("Scan %(n)s", n=number)


def signer_caption(signer: str | None) -> str:
    if signer:
        return _("Getekend door %(name)s", name=signer)
    return _("Naam van de ondertekenaar niet vastgelegd")


def session_title(session: dict, moment: Callable[[str | None], str]) -> str:
    title = _("%(title)s, revisie %(num)s", title=session["titel"], num=session["revisie"] or "?")
    if session["ingediend_op"]:
        title += " · " + _("ingediend op %(when)s", when=moment(session["ingediend_op"]))
    else:
        title += " · " + _("niet ingediend")
    return title


def answer_text(item: dict) -> str:
    if item["delen"]:
        return ", ".join(item["delen"])
    if item["locatie"]:
        return coordinates(item["locatie"])
    text = item["tekst"] if item["tekst"] is not None else DASH
    return f"{text} {unit(item['eenheid'])}" if item["eenheid"] and text != DASH else text


def answer_rows(session: dict) -> list[tuple[str, str]]:
    """Question and answer per row; a group heading as a row of its own."""
    rows = []
    for item in session["antwoorden"]:
        label = "   " * item["diepte"] + item["vraag"]
        rows.append((label, "" if item["kop"] else answer_text(item)))
    return rows
