"""Imports every domain's models so the metadata (and Alembic) sees all tables."""

from portal.accounts.models import ActivationCode, ApiKey, Carrier, LoginAttempt, RefreshToken, User
from portal.audit.models import AuditEntry
from portal.billing.models import BillingExport, BillingLine
from portal.drivers.models import Driver
from portal.files.models import StoredFile
from portal.fleet.models import Vehicle
from portal.idempotency.models import IdempotencyRecord
from portal.questionnaires.models import (
    ActivityQuestionnaire,
    Answer,
    AnswerSession,
    QuestionnaireDraft,
)
from portal.tasks.models import Task, TaskEvidence

__all__ = [
    "ActivationCode",
    "ActivityQuestionnaire",
    "Answer",
    "AnswerSession",
    "ApiKey",
    "AuditEntry",
    "BillingExport",
    "BillingLine",
    "Carrier",
    "Driver",
    "IdempotencyRecord",
    "LoginAttempt",
    "QuestionnaireDraft",
    "RefreshToken",
    "StoredFile",
    "Task",
    "TaskEvidence",
    "User",
    "Vehicle",
]

# Tables holding one carrier's rows: each has row-level security on PostgreSQL.
TENANT_TABLES = tuple(
    table.name for table in Task.metadata.sorted_tables if "transporteur_id" in table.c
)
