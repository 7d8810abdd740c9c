"""Task templates and series: the only door to taak_sjablonen and taak_reeksen (the
occurrences are planning.py's). Carrier first, keyword-only; flush and raise, never commit."""

from __future__ import annotations

import re
import uuid
from datetime import date, datetime, time

from pydantic import ValidationError
from sqlalchemy import exists, func, select

from portal.accounts.service import carrier_zone
from portal.audit import service as audit
from portal.audit.service import Actor
from portal.customers import service as customers
from portal.drivers import service as drivers
from portal.errors import Conflict, DomainError, NotFound, ValidationFailed
from portal.extensions import db
from portal.fleet import service as fleet
from portal.series import rules
from portal.series.models import TaskSeries, TaskTemplate
from portal.tasks import service as tasks
from portal.tasks.request_schemas import TaskUpdate

# The fields of a task a template does not keep: who and when are the series' (or the next
# task's), the questionnaire follows the activity type, and these have columns of their own.
NOT_KEPT = {
    "chauffeur_id", "vehicle_id", "gepland_op", "activity_questionnaire_id", "type", "naam",
    "klant_id", "duur_min",
}  # fmt: skip
KEPT = tuple(name for name in tasks.EDITABLE if name not in NOT_KEPT)
CAPABILITY_CODE = re.compile(r"^[a-z0-9_]{1,40}$")
TEMPLATE_COLUMNS = ("naam", "type", "klant_id", "duur_min", "capaciteiten", "velden")
SERIES_COLUMNS = (
    "naam", "patroon", "weekdagen", "om_weken", "startdatum", "einddatum", "tijd",
    "chauffeur_id", "vehicle_id", "feestdagen", "sjabloon_id",
)  # fmt: skip
# What changes the dates a series makes (the rest changes its tasks).
RULE_COLUMNS = ("patroon", "weekdagen", "om_weken", "startdatum", "einddatum", "feestdagen")


def _error(field: str, code: str, message: str, **params) -> dict:
    found = {"field": field, "code": code, "message": message}
    return {**found, "params": params} if params else found


# --- templates ------------------------------------------------------------------------


def list_templates(*, carrier_id: uuid.UUID) -> list[TaskTemplate]:
    """The carrier's templates by name."""
    return list(
        db.session.scalars(
            select(TaskTemplate)
            .where(TaskTemplate.transporteur_id == carrier_id)
            .order_by(TaskTemplate.naam)
        )
    )


def get_template(*, carrier_id: uuid.UUID, template_id: uuid.UUID) -> TaskTemplate:
    """The carrier's template; NotFound when absent or another carrier's."""
    found = db.session.scalar(
        select(TaskTemplate).where(
            TaskTemplate.transporteur_id == carrier_id, TaskTemplate.id == template_id
        )
    )
    if found is None:
        raise NotFound("template not found")
    return found


def kept_fields(task) -> dict:
    """What a template keeps of a task (its route, address and demands), as JSON values."""
    values = {name: getattr(task, name) for name in KEPT}
    values = {name: value for name, value in values.items() if value not in (None, False)}
    return TaskUpdate.model_validate(values).model_dump(mode="json", exclude_none=True)


def task_data(template: TaskTemplate) -> dict:
    """The data of a new task from a template (without driver, vehicle and time)."""
    fields = TaskUpdate.model_validate(template.velden or {}).model_dump(exclude_unset=True)
    data = {**fields, "type": template.type, "naam": template.naam}
    if template.klant_id is not None:
        data["klant_id"] = template.klant_id
    if template.duur_min is not None:
        data["duur_min"] = template.duur_min
    return data


def _clean_template(carrier_id: uuid.UUID, data: dict, template_id=None) -> dict:
    """The template's columns checked; ValidationFailed with every error at its field."""
    clean = {name: data[name] for name in TEMPLATE_COLUMNS if name in data}
    errors = []
    naam = (clean.get("naam") or "").strip() if "naam" in clean or template_id is None else None
    if naam is not None:
        if not naam:
            errors.append(_error("naam", "required", "required"))
        elif len(naam) > 200:
            errors.append(_error("naam", "too_long", "at most 200 characters"))
        elif _name_taken(carrier_id, naam, template_id):
            errors.append(_error("naam", "sjabloon_naam_bestaat", "a template has this name"))
        clean["naam"] = naam
    if "type" in clean or template_id is None:
        kind = clean.get("type") or ""
        if not re.fullmatch(r"[a-z0-9_-]{1,64}", kind):
            errors.append(_error("type", "required", "an activity type such as mest_laden"))
    duur = clean.get("duur_min")
    if duur is not None and not (isinstance(duur, int) and 0 < duur <= 1440):
        errors.append(_error("duur_min", "sjabloon_duur", "1 to 1440 minutes"))
    codes = clean.get("capaciteiten")
    if codes is not None:
        if not all(isinstance(c, str) and CAPABILITY_CODE.match(c) for c in codes):
            errors.append(_error("capaciteiten", "sjabloon_kenmerk", "capability codes"))
        clean["capaciteiten"] = sorted(set(codes))
    if "velden" in clean:
        clean["velden"] = _clean_fields(clean["velden"] or {}, errors)
    if clean.get("klant_id") is not None:
        try:
            customers.get_customer(carrier_id=carrier_id, customer_id=clean["klant_id"])
        except NotFound:
            errors.append(_error("klant_id", "unknown_customer", "no such customer"))
    if errors:
        raise ValidationFailed(errors)
    return clean


def _clean_fields(fields: dict, errors: list[dict]) -> dict:
    unknown = sorted(set(fields) - set(KEPT))
    for name in unknown:
        errors.append(_error(f"velden.{name}", "sjabloon_veld", "not kept by a template"))
    try:
        parsed = TaskUpdate.model_validate({k: v for k, v in fields.items() if k in KEPT})
    except ValidationError as error:
        for item in error.errors():
            where = ".".join(str(part) for part in item["loc"]) or "velden"
            errors.append(_error(f"velden.{where}", "sjabloon_veld", item["msg"]))
        return {}
    return parsed.model_dump(mode="json", exclude_unset=True)


def _name_taken(carrier_id: uuid.UUID, naam: str, template_id) -> bool:
    where = [TaskTemplate.transporteur_id == carrier_id, TaskTemplate.naam == naam]
    if template_id is not None:
        where.append(TaskTemplate.id != template_id)
    return bool(db.session.scalar(select(exists().where(*where))))


def create_template(*, carrier_id: uuid.UUID, data: dict, actor: Actor) -> TaskTemplate:
    """A new template; ValidationFailed at the fields."""
    clean = {"capaciteiten": [], "velden": {}, **_clean_template(carrier_id, data)}
    template = TaskTemplate(id=uuid.uuid4(), transporteur_id=carrier_id, **clean)
    db.session.add(template)
    db.session.flush()
    _record(
        carrier_id, actor, "task_template", template.id, "created", {"naam": [None, clean["naam"]]}
    )
    return template


def template_from_task(
    *, carrier_id: uuid.UUID, task_id: uuid.UUID, data: dict, actor: Actor
) -> TaskTemplate:
    """A template saved from a task: its type, customer, duration and kept fields; data gives
    the name and the capabilities it needs."""
    task = tasks.get_task(carrier_id=carrier_id, task_id=task_id, archived=True)
    base = {
        "naam": task.naam,
        "type": task.type,
        "klant_id": task.klant_id,
        "duur_min": task.duur_min,
        "velden": kept_fields(task),
    }
    return create_template(carrier_id=carrier_id, data={**base, **data}, actor=actor)


def update_template(
    *, carrier_id: uuid.UUID, template_id: uuid.UUID, data: dict, actor: Actor
) -> TaskTemplate:
    """Change a template; series made from it use it for occurrences made from now on."""
    template = get_template(carrier_id=carrier_id, template_id=template_id)
    clean = _clean_template(carrier_id, data, template_id)
    changes = _apply(template, clean)
    if changes:
        db.session.flush()
        _record(carrier_id, actor, "task_template", template.id, "updated", changes)
    return template


def template_in_use(*, carrier_id: uuid.UUID, template_id: uuid.UUID) -> int:
    """How many series are made from the template."""
    return db.session.scalar(
        select(func.count())
        .select_from(TaskSeries)
        .where(TaskSeries.transporteur_id == carrier_id, TaskSeries.sjabloon_id == template_id)
    )


def delete_template(*, carrier_id: uuid.UUID, template_id: uuid.UUID, actor: Actor) -> None:
    """Delete a template no series is made from; Conflict (sjabloon_in_gebruik) otherwise."""
    template = get_template(carrier_id=carrier_id, template_id=template_id)
    used = template_in_use(carrier_id=carrier_id, template_id=template_id)
    if used:
        raise Conflict(
            f"{used} series are made from this template.", code="sjabloon_in_gebruik", reeksen=used
        )
    db.session.delete(template)
    db.session.flush()
    _record(
        carrier_id, actor, "task_template", template_id, "deleted", {"naam": [template.naam, None]}
    )


def customer_in_use(carrier_id: uuid.UUID, customer_id: uuid.UUID) -> bool:
    """Whether a template names the customer (customers.usage_checks)."""
    where = (TaskTemplate.transporteur_id == carrier_id, TaskTemplate.klant_id == customer_id)
    return bool(db.session.scalar(select(exists().where(*where))))


def detach_place(carrier_id: uuid.UUID, place_id: uuid.UUID) -> None:
    """A customer's place is removed: templates keep the address they copied from it."""
    for template in list_templates(carrier_id=carrier_id):
        fields = dict(template.velden or {})
        found = [k for k in ("laadlocatie_id", "loslocatie_id") if fields.get(k) == str(place_id)]
        if found:
            template.velden = {k: v for k, v in fields.items() if k not in found}
    db.session.flush()


# --- series ---------------------------------------------------------------------------


def list_series(*, carrier_id: uuid.UUID, ended: bool = False) -> list[TaskSeries]:
    """The carrier's series by name (the ended ones only when asked)."""
    stmt = select(TaskSeries).where(TaskSeries.transporteur_id == carrier_id)
    if not ended:
        stmt = stmt.where(TaskSeries.beeindigd_op.is_(None))
    return list(db.session.scalars(stmt.order_by(TaskSeries.naam, TaskSeries.startdatum)))


def get_series(*, carrier_id: uuid.UUID, series_id: uuid.UUID, lock: bool = False) -> TaskSeries:
    """The carrier's series; NotFound when absent or another carrier's."""
    stmt = select(TaskSeries).where(
        TaskSeries.transporteur_id == carrier_id, TaskSeries.id == series_id
    )
    if lock:
        stmt = stmt.with_for_update().execution_options(populate_existing=True)
    found = db.session.scalar(stmt)
    if found is None:
        raise NotFound("series not found")
    return found


def rule_of(series) -> rules.Rule:
    """The recurrence rule of a series (or of a dict with its columns)."""
    get = series.get if isinstance(series, dict) else lambda name: getattr(series, name)
    weekdays = get("weekdagen")
    if isinstance(weekdays, str):
        weekdays = rules.weekdays_of(weekdays)
    return rules.Rule(
        patroon=get("patroon"),
        weekdagen=tuple(weekdays or ()),
        om_weken=get("om_weken") or 1,
        startdatum=get("startdatum"),
        einddatum=get("einddatum"),
        feestdagen=get("feestdagen"),
    )


def clean_series(carrier_id: uuid.UUID, data: dict, current: TaskSeries | None = None) -> dict:
    """A series' columns checked, merged over the current ones; ValidationFailed at the
    fields (a rule that yields nothing or too much: reeks_leeg, reeks_te_vaak)."""
    merged = {name: getattr(current, name) for name in SERIES_COLUMNS} if current else {}
    merged.update({name: data[name] for name in SERIES_COLUMNS if name in data})
    merged.setdefault("patroon", "wekelijks")
    merged.setdefault("om_weken", 1)
    merged.setdefault("feestdagen", "overslaan")
    weekdays = merged.get("weekdagen") or ()
    if isinstance(weekdays, str):
        weekdays = rules.weekdays_of(weekdays)
    errors = _series_field_errors(carrier_id, merged, weekdays)
    if errors:
        raise ValidationFailed(errors)
    merged["weekdagen"] = rules.weekdays_text(weekdays)
    errors = rules.rule_errors(rule_of(merged))
    if errors:
        raise ValidationFailed(errors)
    return merged


def _series_field_errors(carrier_id: uuid.UUID, merged: dict, weekdays) -> list[dict]:
    errors = []
    naam = (merged.get("naam") or "").strip()
    merged["naam"] = naam
    if not naam or len(naam) > 200:
        errors.append(_error("naam", "required", "a name of at most 200 characters"))
    if merged.get("patroon") not in ("wekelijks", "eerste_werkdag"):
        errors.append(_error("patroon", "reeks_patroon", "wekelijks or eerste_werkdag"))
    if merged.get("feestdagen") not in ("overslaan", "volgende_werkdag"):
        errors.append(_error("feestdagen", "reeks_feestdagen", "overslaan or volgende_werkdag"))
    if not all(isinstance(d, int) and 0 <= d <= 6 for d in weekdays):
        errors.append(_error("weekdagen", "reeks_geen_dagen", "weekdays 0 (Monday) to 6"))
    if not isinstance(merged.get("startdatum"), date):
        errors.append(_error("startdatum", "required", "a first day"))
    if not isinstance(merged.get("tijd"), time):
        errors.append(_error("tijd", "required", "a time of day"))
    try:
        get_template(carrier_id=carrier_id, template_id=merged.get("sjabloon_id"))
    except NotFound:
        errors.append(_error("sjabloon_id", "reeks_geen_sjabloon", "no such template"))
    errors.extend(_reference_errors(carrier_id, merged))
    return errors


def _reference_errors(carrier_id: uuid.UUID, merged: dict) -> list[dict]:
    errors = []
    driver_id, vehicle_id = merged.get("chauffeur_id"), merged.get("vehicle_id")
    if driver_id and not drivers.names_by_id(carrier_id=carrier_id, driver_ids={driver_id}):
        errors.append(_error("chauffeur_id", "unknown_driver", "no such driver"))
    if vehicle_id and not fleet.plates_by_id(carrier_id=carrier_id, vehicle_ids={vehicle_id}):
        errors.append(_error("vehicle_id", "unknown_vehicle", "no such vehicle"))
    return errors


def create_series(*, carrier_id: uuid.UUID, data: dict, actor: Actor) -> TaskSeries:
    """A new series (its occurrences are made by planning.plan)."""
    clean = clean_series(carrier_id, data)
    series = TaskSeries(id=uuid.uuid4(), transporteur_id=carrier_id, **clean)
    db.session.add(series)
    db.session.flush()
    _record(carrier_id, actor, "task_series", series.id, "created", {"naam": [None, series.naam]})
    return series


def _apply(obj, clean: dict) -> dict:
    changes = {}
    for name, value in clean.items():
        old = getattr(obj, name)
        if old != value:
            changes[name] = [old, value]
            setattr(obj, name, value)
    return changes


def _record(carrier_id, actor, entity: str, entity_id, action: str, changes: dict) -> None:
    audit.record(
        carrier_id=carrier_id,
        actor=actor,
        entity=entity,
        entity_id=entity_id,
        action=action,
        changes={
            k: [str(v) if v is not None else None for v in pair] for k, pair in changes.items()
        },
    )


class SeriesChanged(DomainError):
    """The If-Match version is stale: someone changed the series meanwhile."""

    status = 412
    title = "Precondition failed"

    def __init__(self, version: int):
        super().__init__(
            f"The series changed meanwhile (version {version}).", code="reeks_gewijzigd"
        )


def apply_changes(carrier_id: uuid.UUID, actor: Actor, series: TaskSeries, clean: dict) -> dict:
    """Set the series' changed columns, flush and audit; the changes {field: [old, new]}."""
    changes = _apply(series, clean)
    if changes:
        db.session.flush()
        _record(carrier_id, actor, "task_series", series.id, "updated", changes)
    return changes


def today(carrier_id: uuid.UUID) -> date:
    """The carrier's date now (in its time zone)."""
    return datetime.now(carrier_zone(carrier_id)).date()
