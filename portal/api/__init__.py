"""The JSON API (/api/v1) for the driver app and carriers' integrations."""

from portal.api import (  # noqa: F401  (register routes)
    auth,
    customers,
    drivers,
    files,
    fleet,
    hours,
    hours_weeks,
    invoices,
    messages,
    openapi,
    proof,
    questionnaires,
    tacho,
    tariffs,
    tasks,
    tasks_completion,
    tasks_integration,
    webhooks,
)
from portal.api.core import bp

__all__ = ["bp"]
