"""The events as the OpenAPI document describes them (its top-level `webhooks`): the
envelope every delivery posts, with each type's `data` in the API's own shapes."""

from __future__ import annotations

import uuid
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from portal.fleet.schemas import VehicleSessionOut
from portal.hours.schemas import WeekApprovalOut
from portal.messages.schemas import NotificationOut
from portal.questionnaires.schemas import AnswerSessionOut
from portal.schemas import Timestamp
from portal.tasks.schemas import BillingLineOut, TaskOut


class TaskStatusChangeEventData(BaseModel):
    model_config = ConfigDict(title="TaskStatusChangeEventData")

    van: str = Field(description="the status before")
    naar: str = Field(description="the status now")
    taak: TaskOut


class ProofLink(BaseModel):
    model_config = ConfigDict(title="ProofLink")

    url: str = Field(description="the proof of delivery, for a shipper without an account")
    pdf: str = Field(description="the same as a PDF")
    verloopt_op: Timestamp


class TaskCompletedEventData(BaseModel):
    model_config = ConfigDict(title="TaskCompletedEventData")

    taak: TaskOut
    facturatieregel: BillingLineOut | None
    bewijs: ProofLink


class TaskDeletedEventData(BaseModel):
    model_config = ConfigDict(title="TaskDeletedEventData")

    taak: TaskOut = Field(description="the task as it was")
    gearchiveerd: bool = Field(description="true: it held work and was archived instead")


class TestEventData(BaseModel):
    model_config = ConfigDict(title="TestEventData")

    bericht: str


def _envelope(event_type: str, data_type, title: str, what: str):
    class Envelope(BaseModel):
        model_config = ConfigDict(title=title)

        id: uuid.UUID = Field(description="the event's id: deduplicate by it")
        type: Literal[event_type]  # type: ignore[valid-type]
        created_at: Timestamp
        transporteur_id: uuid.UUID
        data: data_type

    Envelope.__doc__ = what
    Envelope.__name__ = title
    return Envelope


EVENTS = {
    "taak.aangemaakt": _envelope("taak.aangemaakt", TaskOut, "TaskCreatedEvent", "A task made."),
    "taak.gewijzigd": _envelope(
        "taak.gewijzigd", TaskOut, "TaskChangedEvent", "A task's fields changed (once per change)."
    ),
    "taak.status_gewijzigd": _envelope(
        "taak.status_gewijzigd",
        TaskStatusChangeEventData,
        "TaskStatusChangedEvent",
        "A task moved.",
    ),
    "taak.afgerond": _envelope(
        "taak.afgerond",
        TaskCompletedEventData,
        "TaskCompletedEvent",
        "A task completed, with its billing line and a link to its proof of delivery.",
    ),
    "taak.verwijderd": _envelope(
        "taak.verwijderd", TaskDeletedEventData, "TaskDeletedEvent", "A task deleted or archived."
    ),
    "antwoorden.ingediend": _envelope(
        "antwoorden.ingediend",
        AnswerSessionOut,
        "AnswersSubmittedEvent",
        "A driver submitted a questionnaire's answers.",
    ),
    "bericht.gelezen": _envelope(
        "bericht.gelezen", NotificationOut, "MessageReadEvent", "A driver read a message."
    ),
    "voertuigsessie.actief": _envelope(
        "voertuigsessie.actief",
        VehicleSessionOut,
        "VehicleSessionActiveEvent",
        "A driver scanned a vehicle's sticker: the session is active.",
    ),
    "werkweek.goedgekeurd": _envelope(
        "werkweek.goedgekeurd",
        WeekApprovalOut,
        "WeekApprovedEvent",
        "A planner approved a driver's week.",
    ),
    "webhook.test": _envelope(
        "webhook.test", TestEventData, "TestEvent", "A test an admin sent to one endpoint."
    ),
}


HEADERS = {
    "Rijplan-Event-Id": "the event's id (the same on every attempt): deduplicate by it",
    "Rijplan-Event-Type": "the event's type",
    "Rijplan-Delivery-Attempt": "1 for the first attempt, then 2, 3, ...",
    "Rijplan-Signature": "t=<unix seconds>,v1=<hex HMAC-SHA256 of '<t>.<raw body>' keyed "
    "with the endpoint's secret>",
}


def openapi_webhooks(schema) -> dict:
    """The OpenAPI document's `webhooks`: what a registered endpoint receives, per event type
    (schema(model, mode) gives the reference to a model's component)."""
    return {
        event_type: {
            "post": {
                "summary": model.__doc__,
                "operationId": "webhook_" + event_type.replace(".", "_"),
                "parameters": [
                    {
                        "name": name,
                        "in": "header",
                        "required": True,
                        "description": text,
                        "schema": {"type": "string"},
                    }
                    for name, text in HEADERS.items()
                ],
                "requestBody": {
                    "required": True,
                    "content": {"application/json": {"schema": schema(model, "serialization")}},
                },
                "responses": {
                    "2XX": {"description": "Received; any other answer is retried or fails"}
                },
            }
        }
        for event_type, model in EVENTS.items()
    }
