"""The JSON API (/api/v1) for the driver app and carriers' integrations."""

from portal.api import auth, files, openapi, questionnaires, tasks  # noqa: F401  (register routes)
from portal.api.core import bp

__all__ = ["bp"]
