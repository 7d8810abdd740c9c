"""The task page: every field, history, evidence, answers, and what blocks completion.

A blueprint of its own (`task_detail`), so the board and the task page can grow apart; both
use the same service. The page runs a fixed number of queries: the files of
all evidence and all answers come in one `files_by_id`, names and plates in one each.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal, InvalidOperation

from flask import Blueprint, render_template, url_for
from flask_babel import format_currency, format_datetime, ngettext
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l

from portal import problems
from portal.accounts.permissions import role_required
from portal.audit.service import ACTOR_LABELS
from portal.customers import service as customers
from portal.drivers import service as drivers
from portal.files import service as files
from portal.fleet import service as fleet
from portal.labels import activity_label
from portal.proof import service as proof
from portal.questionnaires import presenting
from portal.questionnaires import service as questionnaires
from portal.tasks import lifecycle, paper, service
from portal.tasks.conflicts import expected_duration
from portal.tasks.pages.forms import STATUS_LABELS
from portal.tasks.pages.trailer import trailer_section
from portal.types import utcnow
from portal.web import is_fragment
from portal.web.kit import current_carrier_id, parse_uuid

bp = Blueprint("task_detail", __name__)


FIELD_LABELS = {
    "status": _l("Status"),
    "chauffeur_id": _l("Chauffeur"),
    "vehicle_id": _l("Voertuig"),
    "type": _l("Soort werk"),
    "naam": _l("Naam"),
    "omschrijving": _l("Omschrijving"),
    "artikel": _l("Artikel"),
    "hoeveelheid": _l("Hoeveelheid"),
    "eenheid": _l("Eenheid"),
    "adres": _l("Adres"),
    "postcode": _l("Postcode"),
    "stad": _l("Plaats"),
    "land": _l("Land"),
    "contactpersoon": _l("Contactpersoon"),
    "telefoon": _l("Telefoon"),
    "telefoon_mobiel": _l("Mobiel"),
    "gepland_op": _l("Gepland voor"),
    "require_photos": _l("Foto's vereist"),
    "min_fotos": _l("Minimaal aantal foto's"),
    "max_fotos": _l("Maximaal aantal foto's"),
    "require_signature": _l("Handtekening vereist"),
    "require_document_scan": _l("Documentscan vereist"),
    "require_location": _l("Locatie vereist"),
    "photo_label": _l("Fotolabel"),
    "opmerkingen": _l("Opmerkingen"),
    "vdm_nummer": _l("VDM-nummer"),
    "agr_verplicht": _l("AGR-GPS verplicht"),
    "required_desinfectie": _l("Desinfectie vereist"),
    "required_temperatuur": _l("Vereiste temperatuur"),
    "kooiaap": _l("Kooiaap"),
    "locatie_lat": _l("Breedtegraad"),
    "locatie_lng": _l("Lengtegraad"),
    "activity_questionnaire_id": _l("Vragenlijst"),
    "gemeten_temperatuur": _l("Gemeten temperatuur"),
    "desinfectie_bevestigd": _l("Desinfectie bevestigd"),
    "afgerond_locatie": _l("Locatie chauffeur"),
    "bestanden": _l("Bestanden"),
    "vragenlijst": _l("Vragenlijst"),
    "bron": _l("Kopie van"),
    "bewijslink": _l("Link geldig tot"),
    "klant_id": _l("Klant"),
    "laad_naam": _l("Laadplaats"),
    "laad_adres": _l("Laadadres"),
    "laad_postcode": _l("Postcode laden"),
    "laad_stad": _l("Plaats laden"),
    "laad_land": _l("Land laden"),
    "los_naam": _l("Losplaats"),
    "los_adres": _l("Losadres"),
    "los_postcode": _l("Postcode lossen"),
    "los_stad": _l("Plaats lossen"),
    "los_land": _l("Land lossen"),
    "bedrag": _l("Bedrag zonder btw"),
    "btw_procent": _l("Btw (%)"),
    "handmatig": _l("Met de hand geprijsd"),
    "reden": _l("Reden"),
    "papieren_bon": _l("Scan van de bon"),
}
# Changes the history leaves out: what another change already says in words (the place's
# name), or coordinates copied with an address.
UNSHOWN = {"laadlocatie_id", "loslocatie_id", "laad_lat", "laad_lng", "los_lat", "los_lng"}
ACTION_LABELS = {
    "created": _l("Aangemaakt"),
    "updated": _l("Gewijzigd"),
    "status": _l("Status gewijzigd"),
    "reopened": _l("Heropend"),
    "evidence": _l("Bewijs toegevoegd"),
    "questionnaire_submitted": _l("Vragenlijst ingediend"),
    "duplicated": _l("Gekopieerd"),
    "archived": _l("Gearchiveerd"),
    "deleted": _l("Verwijderd"),
    "proof_shared": _l("Bewijs gedeeld"),
    "proof_revoked": _l("Bewijslink ingetrokken"),
    "priced_by_hand": _l("Prijs met de hand vastgelegd"),
    "price_by_tariff": _l("Prijs weer volgens tarief"),
    "completed_on_paper": _l("Afgerond op papieren afleverbon"),
}
SOORT_LABELS = {
    "photo": _l("Foto"),
    "signature": _l("Handtekening"),
    "document_scan": _l("Scan"),
}
TIME_FIELDS = ("gepland_op", "ontvangen_op", "gestart_op", "afgerond_op", "bewijslink")


@dataclass
class Change:
    label: str
    old: str | None
    new: str | None
    link: str | None = None
    link_text: str | None = None  # the link's words; none: "een andere taak"


@dataclass
class HistoryItem:
    at: datetime
    who: str
    via: str
    what: str
    changes: list[Change] = field(default_factory=list)


_number = presenting.number


def _moment(value) -> str:
    """An audit timestamp (ISO text) in the carrier's time zone."""
    try:
        parsed = datetime.fromisoformat(str(value))
    except ValueError:
        return str(value)
    if parsed.tzinfo is None:
        return str(value)
    return format_datetime(parsed, "d MMM yyyy HH:mm")


@bp.context_processor
def _helpers():
    return {
        "osm_url": presenting.osm_url,
        "fmt_number": _number,
        "soort_labels": SOORT_LABELS,
        "field_labels": FIELD_LABELS,
    }


@bp.route("/taken/<uuid:task_id>")
@role_required("planner")
def show(task_id: uuid.UUID):
    carrier_id = current_carrier_id()
    task = service.get_task(carrier_id=carrier_id, task_id=task_id, archived=True)
    entries = service.history(carrier_id=carrier_id, task_id=task.id)
    evidence = lifecycle.evidence_of(carrier_id=carrier_id, task_id=task.id)
    sessions = questionnaires.sessions_for_task(carrier_id=carrier_id, task_id=task.id)
    loaded = presenting.load(
        carrier_id=carrier_id,
        sessions=sessions,
        extra_revision_ids={task.activity_questionnaire_id},
    )
    changes = [(entry, _parse(entry.changes) or {}) for entry in entries]
    answer_files = presenting.answer_file_ids(sessions, loaded)
    file_ids = {row.bestand_id for row in evidence} | answer_files
    stored = files.files_by_id(carrier_id=carrier_id, file_ids=file_ids)
    links = {file_id: presenting.file_link(row) for file_id, row in stored.items()}
    names, customer_names, plates = _names_in(task, changes)
    finished = task.status in ("afgerond", "geannuleerd")
    blockers = (
        []
        if finished
        else _blockers(lifecycle.completion_blockers(carrier_id=carrier_id, task=task))
    )
    pinned = loaded.definitions.get(task.activity_questionnaire_id) or {}
    context = {
        "task": task,
        "status_labels": STATUS_LABELS,
        "driver_name": names.get(task.chauffeur_id),
        "plate": plates.get(task.vehicle_id),
        "customer_name": customer_names.get(task.klant_id),
        "history": [_history_item(e, c, names, plates, links) for e, c in changes],
        **_evidence_links(evidence, answer_files, stored, links),
        "blockers": blockers,
        "temperature_over": temperature_over(task),
        "expected_min": expected_duration(task.type, task.duur_min),
        "sessions": [presenting.session_view(s, answers, loaded, links) for s, answers in sessions],
        "pinned_title": pinned.get("title"),
        **_proof_and_actions(task, finished, links),
        **trailer_section(task),
    }
    if is_fragment():
        return render_template("tasks/_detail_body.html", **context)
    return render_template("tasks/detail.html", **context)


def _names_in(task, changes: list) -> tuple[dict, dict, dict]:
    """The names of the drivers and customers the task and its history name (drivers' and
    customers' ids do not collide: one dict), the customers' alone, and the plates."""
    carrier_id = current_carrier_id()
    driver_ids = {task.chauffeur_id} | _ids_in(changes, "chauffeur_id")
    vehicle_ids = {task.vehicle_id} | _ids_in(changes, "vehicle_id")
    names = drivers.names_by_id(carrier_id=carrier_id, driver_ids=driver_ids)
    # Customers' names by id too (ids do not collide): the history names the customer.
    customer_names = customers.names_by_id(
        carrier_id=carrier_id, customer_ids={task.klant_id} | _ids_in(changes, "klant_id")
    )
    names = {**names, **customer_names}
    plates = fleet.plates_by_id(carrier_id=carrier_id, vehicle_ids=vehicle_ids)
    return names, customer_names, plates


def _evidence_links(evidence, answer_files: set, stored: dict, links: dict) -> dict:
    """The links to the task's photos, signatures (a signature given in the answers too:
    it counts for completion) and scans."""
    kinds = {file_id: row.soort for file_id, row in stored.items()}
    photos = [links[r.bestand_id] for r in evidence if r.soort == "photo" and r.bestand_id in links]
    signed = [r.bestand_id for r in evidence if r.soort == "signature"]
    signed += sorted(f for f in answer_files if kinds.get(f) == "signature" and f not in signed)
    signatures = [links[f] for f in signed if f in links]
    scans = [
        links[r.bestand_id]
        for r in evidence
        if r.soort == "document_scan" and r.bestand_id in links
    ]
    return {"photos": photos, "signatures": signatures, "scans": scans}


def _proof_and_actions(task, finished: bool, links: dict) -> dict:
    """The task's proof links (once completed), the paper note and its scan, and whether
    (where) it can be completed on paper or edited."""
    return {
        "proof_links": proof.links_for(carrier_id=current_carrier_id(), task_id=task.id)
        if task.status == "afgerond"
        else [],
        "proof_now": utcnow(),
        "paper_url": url_for("task_paper.complete", task_id=task.id)
        if paper.can_complete_on_paper(task)
        else None,
        "paper_scan": links.get(task.papieren_bon_id) if task.papieren_bon_id else None,
        "edit_url": url_for("tasks.edit", task_id=task.id)
        if not finished and task.gearchiveerd_op is None
        else None,
    }


_parse = presenting.parse_json


def _ids_in(changes: list, name: str) -> set[uuid.UUID]:
    found = set()
    for _entry, change in changes:
        if isinstance(change, dict) and isinstance(change.get(name), list):
            found |= {u for u in (parse_uuid(str(v)) for v in change[name]) if u is not None}
    return found


# --- completion ------------------------------------------------------------------------


def temperature_over(task) -> float | None:
    """How many degrees the measured temperature is above the required one, if it is.

    The required temperature is the warmest the load may be (a cold chain: 4 °C means 4 °C
    or colder), so a measurement above it is a deviation and one below it is not."""
    measured, required = task.gemeten_temperatuur, task.required_temperatuur
    if measured is None or required is None or measured <= required:
        return None
    return round(measured - required, 1)


def _blockers(missing: list[dict]) -> list[str]:
    """What lifecycle.completion_blockers finds, said in the planner's language (by code)."""
    return [problems.say(m.get("code", ""), m.get("params"), m.get("message", "")) for m in missing]


# --- history ---------------------------------------------------------------------------


def _files_added(ids, links: dict) -> str:
    """'2 foto's, 1 handtekening' for the file ids an evidence entry added."""
    ids = ids if isinstance(ids, list) else [ids]
    counts: dict[str, int] = {}
    for file_id in ids:
        shown = links.get(parse_uuid(str(file_id)))
        kind = shown.soort if shown else ""
        counts[kind] = counts.get(kind, 0) + 1
    said = []
    for kind, count in counts.items():
        if kind == "photo":
            said.append(ngettext("%(num)s foto", "%(num)s foto's", count))
        elif kind == "signature":
            said.append(ngettext("%(num)s handtekening", "%(num)s handtekeningen", count))
        elif kind == "document_scan":
            said.append(ngettext("%(num)s scan", "%(num)s scans", count))
        else:
            said.append(ngettext("%(num)s bestand", "%(num)s bestanden", count))
    return ", ".join(said)


def _history_item(entry, changes, names: dict, plates: dict, links: dict) -> HistoryItem:
    system = entry.actor_type == "system"
    item = HistoryItem(
        at=entry.at,
        who=_("het systeem") if system else entry.actor_label,
        via="" if system else str(ACTOR_LABELS.get(entry.actor_type, entry.actor_type)),
        what=str(ACTION_LABELS.get(entry.action, entry.action)),
    )
    if not isinstance(changes, dict):
        return item
    for name, pair in changes.items():
        old, new = pair if isinstance(pair, list) and len(pair) == 2 else (None, pair)
        if entry.action in ("archived", "deleted") and name == "status":
            continue
        label = str(FIELD_LABELS.get(name, name))
        if name == "bron":
            source = parse_uuid(str(new))
            link = url_for("task_detail.show", task_id=source) if source else None
            item.changes.append(Change(label, None, str(new), link))
            continue
        if name == "bestanden":
            item.changes.append(Change(label, None, _files_added(new, links)))
            continue
        if name == "papieren_bon":
            shown = links.get(parse_uuid(str(new)))
            text = shown.name if shown else _("bestand niet gevonden")
            item.changes.append(Change(label, None, text, shown.url if shown else None, text))
            continue
        if name in UNSHOWN or (name == "chauffeur_id" and old is None and new is None):
            continue
        item.changes.append(
            Change(label, _display(name, old, names, plates), _display(name, new, names, plates))
        )
    return item


def _display(name: str, value, names: dict, plates: dict) -> str | None:
    if value is None:
        return None
    if name == "status":
        return str(STATUS_LABELS.get(value, value))
    if name == "chauffeur_id":
        return names.get(parse_uuid(str(value))) or _("onbekende chauffeur")
    if name == "vehicle_id":
        return plates.get(parse_uuid(str(value))) or _("onbekend voertuig")
    if name == "klant_id":
        return names.get(parse_uuid(str(value))) or _("onbekende klant")
    if name == "bedrag":
        try:
            return format_currency(Decimal(str(value)), "EUR")
        except InvalidOperation:
            return str(value)
    if name == "handmatig":
        return _("ja") if value else _("nee")
    if name == "type":
        return activity_label(value)
    if name in TIME_FIELDS:
        return _moment(value)
    if name == "afgerond_locatie" and isinstance(value, list) and len(value) == 2:
        return ", ".join(_coordinate(v) for v in value)
    if name in ("gemeten_temperatuur", "required_temperatuur") and isinstance(value, int | float):
        return f"{_number(value)} °C"
    if name == "activity_questionnaire_id":
        return _("revisie %(id)s", id=str(value)[:8])
    if isinstance(value, bool | int | float):
        return _number(value)
    return str(value)


def _coordinate(value) -> str:
    return f"{value:.6f}" if isinstance(value, int | float) else str(value)
