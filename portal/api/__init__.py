"""The JSON API (/api/v1) for the driver app and carriers' integrations."""

from portal.api import (  # noqa: F401  (register routes)
    auth,
    couplings,
    customers,
    drivers,
    files,
    fleet,
    fleet_capabilities,
    hours,
    hours_weeks,
    invoices,
    messages,
    openapi,
    planner,
    planning,
    proof,
    questionnaires,
    series,
    tacho,
    tariffs,
    tasks,
    tasks_completion,
    tasks_integration,
    webhooks,
)
from portal.api.core import bp

__all__ = ["bp"]
