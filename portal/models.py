"""Imports every domain's models so the metadata (and Alembic) sees all tables."""

from portal.accounts.models import ApiKey, Carrier, LoginAttempt, User
from portal.audit.models import AuditEntry
from portal.billing.models import BillingExport, BillingLine, Invoice, Tariff
from portal.customers.models import Customer, CustomerPlace
from portal.drivers.models import (
    ActivationCode,
    Driver,
    DriverLicence,
    DriverLocation,
    RefreshToken,
)
from portal.files.models import StoredFile
from portal.fleet.coupling_models import Coupling
from portal.fleet.models import (
    ActivityNeeds,
    CapabilityEntry,
    Vehicle,
    VehicleCapability,
    VehicleSession,
)
from portal.hours.models import Activity, WeekApproval, WorkDay
from portal.hours.pay_models import HoursCorrection, PayrollExport, PayrollExportWeek, RuleSet
from portal.idempotency.models import IdempotencyRecord
from portal.messages.models import DeliveryAttempt, Message, PushSubscription
from portal.planner.models import Proposal, ProposalLine
from portal.proof.models import ProofLink
from portal.questionnaires.models import (
    ActivityQuestionnaire,
    Answer,
    AnswerSession,
    QuestionnaireDraft,
)
from portal.series.models import SeriesOccurrence, TaskSeries, TaskTemplate
from portal.tacho.models import DrivingRulesExemption, TachoFile
from portal.tasks.models import Task, TaskEvidence
from portal.webhooks.models import WebhookAttempt, WebhookDelivery, WebhookEndpoint, WebhookEvent

__all__ = [
    "ActivationCode",
    "Activity",
    "ActivityNeeds",
    "ActivityQuestionnaire",
    "Answer",
    "AnswerSession",
    "ApiKey",
    "AuditEntry",
    "BillingExport",
    "BillingLine",
    "CapabilityEntry",
    "Carrier",
    "Coupling",
    "Customer",
    "CustomerPlace",
    "DeliveryAttempt",
    "Driver",
    "DriverLicence",
    "DriverLocation",
    "DrivingRulesExemption",
    "HoursCorrection",
    "IdempotencyRecord",
    "Invoice",
    "LoginAttempt",
    "Message",
    "PayrollExport",
    "PayrollExportWeek",
    "ProofLink",
    "Proposal",
    "ProposalLine",
    "PushSubscription",
    "QuestionnaireDraft",
    "RefreshToken",
    "RuleSet",
    "SeriesOccurrence",
    "StoredFile",
    "TachoFile",
    "Tariff",
    "Task",
    "TaskEvidence",
    "TaskSeries",
    "TaskTemplate",
    "User",
    "Vehicle",
    "VehicleCapability",
    "VehicleSession",
    "WebhookAttempt",
    "WebhookDelivery",
    "WebhookEndpoint",
    "WebhookEvent",
    "WeekApproval",
    "WorkDay",
]

# Tables holding one carrier's rows: each has row-level security on PostgreSQL.
TENANT_TABLES = tuple(
    table.name for table in Task.metadata.sorted_tables if "transporteur_id" in table.c
)
