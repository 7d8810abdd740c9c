"""Stored answers of idempotent writes keep no secret

Revision ID: c0d1c0de0320
Revises: c0d1c0de0310
Create Date: 2026-11-28 13:20:00

An answer that showed a webhook's signing secret (registering an endpoint, a new secret) was
kept whole in `idempotency_records` for a week, so a retry with its Idempotency-Key showed the
secret again, even after the endpoint was deleted. From now on such answers are kept with the
secret null (`@write`, the operation's `reveals`); this blanks it in those already stored and
adds where to ask for a new one, as new answers have it. No schema change.
"""

from __future__ import annotations

import json

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "c0d1c0de0320"
down_revision = "c0d1c0de0310"
branch_labels = None
depends_on = None

SECRET_PREFIX = "whsec_"


def upgrade():
    bind = op.get_bind()
    postgres = bind.dialect.name == "postgresql"
    if postgres:  # the owner reads and writes every carrier's records for this step only
        op.execute("ALTER TABLE idempotency_records NO FORCE ROW LEVEL SECURITY")
    found = bind.execute(
        sa.text(
            "SELECT id, response_body FROM idempotency_records WHERE response_body LIKE :shown"
        ),
        {"shown": f"%{SECRET_PREFIX}%"},
    ).all()
    for record_id, body in found:
        bind.execute(
            sa.text("UPDATE idempotency_records SET response_body = :body WHERE id = :id"),
            {"body": redacted(body), "id": record_id},
        )
    if postgres:
        op.execute("ALTER TABLE idempotency_records FORCE ROW LEVEL SECURITY")


def redacted(body: str) -> str:
    """The stored answer without the secret: an endpoint's `geheim` null, with where to ask for
    a new one; anything else that holds a secret is kept as an empty object."""
    try:
        document = json.loads(body)
    except ValueError:
        return "{}"
    if not isinstance(document, dict):
        return "{}"
    if isinstance(document.get("geheim"), str):
        document["geheim"] = None
        if "id" in document:
            document["geheim_vernieuwen"] = f"/api/v1/webhooks/{document['id']}/geheim"
    text = json.dumps(document, separators=(",", ":"), ensure_ascii=False)
    return "{}" if SECRET_PREFIX in text else text


def downgrade():
    pass  # a secret once blanked is not brought back
