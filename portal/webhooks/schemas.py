"""The API's shapes of webhooks: endpoints (the secret only when made or rotated), their
deliveries with every attempt, and what an admin sends to change them."""

from __future__ import annotations

import uuid
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from portal.events import EVENT_TYPES
from portal.schemas import InModel, Timestamp, not_null
from portal.types import iso
from portal.webhooks import failures
from portal.webhooks.models import URL_MAX, WebhookAttempt, WebhookDelivery, WebhookEndpoint

EventType = Literal[EVENT_TYPES]  # type: ignore[valid-type]


class WebhookEndpointIn(InModel):
    model_config = ConfigDict(title="WebhookEndpointBody")

    url: str = Field(
        max_length=URL_MAX,
        description="an https URL on a public host; no user name or password in it",
        examples=["https://tms.example.nl/rijplan"],
    )
    omschrijving: str = Field(default="", max_length=200)
    gebeurtenissen: list[EventType] = Field(min_length=1, description="the events it wants")


class WebhookEndpointUpdate(InModel):
    model_config = ConfigDict(title="WebhookEndpointUpdateBody")

    url: str | None = Field(default=None, max_length=URL_MAX, json_schema_extra=not_null)
    omschrijving: str | None = Field(default=None, max_length=200, json_schema_extra=not_null)
    gebeurtenissen: list[EventType] | None = Field(
        default=None, min_length=1, json_schema_extra=not_null
    )
    actief: bool | None = Field(
        default=None,
        description="false pauses it (its deliveries wait); true resumes it",
        json_schema_extra=not_null,
    )


class WebhookEndpointOut(BaseModel):
    model_config = ConfigDict(title="WebhookEndpoint")

    id: uuid.UUID
    url: str
    omschrijving: str
    gebeurtenissen: list[str]
    actief: bool
    gepauzeerd_op: Timestamp | None
    pauze_reden: str | None = Field(description="why the worker paused it, in English")
    pauze_code: str | None = Field(description="the stable code of pauze_reden")
    fouten_sinds: Timestamp | None = Field(description="every attempt failed since then")
    laatste_succes_op: Timestamp | None
    created_at: Timestamp


class WebhookSecretOut(WebhookEndpointOut):
    model_config = ConfigDict(title="WebhookEndpointWithSecret")

    geheim: str | None = Field(
        description="the signing secret, shown only in this answer: keep it to verify the "
        "Rijplan-Signature header. null when the answer is a replay of the request "
        "(`Idempotent-Replayed: true`): a secret is never shown twice; POST to "
        "`geheim_vernieuwen` for a new one"
    )
    geheim_vernieuwen: str = Field(
        description="where to POST for a new secret (the old one stops at once)",
        examples=["/api/v1/webhooks/0b5e4c2a-8f1d-4c1e-9a7b-2d3e4f5a6b7c/geheim"],
    )


class WebhookAttemptOut(BaseModel):
    model_config = ConfigDict(title="WebhookAttempt")

    poging: int
    at: Timestamp
    resultaat: Literal["sent", "retry", "failed"]
    http_status: int | None
    duur_ms: int
    antwoord: str | None = Field(description="the first bytes of the answer")
    fout: str | None
    fout_code: str | None


class WebhookDeliveryOut(BaseModel):
    model_config = ConfigDict(title="WebhookDelivery")

    id: uuid.UUID
    gebeurtenis_id: uuid.UUID = Field(description="the event's id: the same on every resend")
    type: str
    status: Literal["queued", "sent", "failed"]
    pogingen: int
    volgende_poging_op: Timestamp | None
    verzonden_op: Timestamp | None
    fout: str | None
    fout_code: str | None
    created_at: Timestamp
    log: list[WebhookAttemptOut]


class DeliveryQuery(BaseModel):
    model_config = ConfigDict(extra="forbid")

    status: Literal["queued", "sent", "failed"] | None = None
    limit: int = Field(default=50, ge=1, le=500)
    offset: int = Field(default=0, ge=0, le=1_000_000)


class ResendPeriod(InModel):
    model_config = ConfigDict(title="WebhookResendBody")

    van: Timestamp = Field(description="failed deliveries of events from this moment")
    tot: Timestamp = Field(description="up to (not including) this moment")


class ResendOut(BaseModel):
    model_config = ConfigDict(title="WebhookResendResult")

    aantal: int = Field(description="how many failed deliveries were queued again")


def serialize_endpoint(endpoint: WebhookEndpoint, secret: str | None = None) -> dict:
    data = {
        "id": str(endpoint.id),
        "url": endpoint.url,
        "omschrijving": endpoint.omschrijving,
        "gebeurtenissen": endpoint.event_types,
        "actief": endpoint.actief,
        "gepauzeerd_op": iso(endpoint.gepauzeerd_op),
        "pauze_reden": failures.english(endpoint.pauze_reden),
        "pauze_code": failures.code_of(endpoint.pauze_reden),
        "fouten_sinds": iso(endpoint.fouten_sinds),
        "laatste_succes_op": iso(endpoint.laatste_succes_op),
        "created_at": iso(endpoint.created_at),
    }
    if secret is not None:
        data["geheim"] = secret
        data["geheim_vernieuwen"] = f"/api/v1/webhooks/{endpoint.id}/geheim"
    return data


def serialize_delivery(delivery: WebhookDelivery, attempts: list[WebhookAttempt]) -> dict:
    return {
        "id": str(delivery.id),
        "gebeurtenis_id": str(delivery.gebeurtenis_id),
        "type": delivery.type,
        "status": delivery.status,
        "pogingen": delivery.pogingen,
        "volgende_poging_op": iso(delivery.volgende_poging_op),
        "verzonden_op": iso(delivery.verzonden_op),
        "fout": failures.english(delivery.fout),
        "fout_code": failures.code_of(delivery.fout),
        "created_at": iso(delivery.created_at),
        "log": [
            {
                "poging": a.poging,
                "at": iso(a.at),
                "resultaat": a.resultaat,
                "http_status": a.http_status,
                "duur_ms": a.duur_ms,
                "antwoord": a.antwoord,
                "fout": failures.english(a.fout),
                "fout_code": failures.code_of(a.fout),
            }
            for a in attempts
        ],
    }
