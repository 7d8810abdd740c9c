"""The planner's pages: "Plan de week" / "Plan de dag" (proposals: start one for a period,
watch it solve, see it as a diff and accept it entirely or per task) and the task form's
panel of suggested drivers. Importing this package registers the routes on `bp`."""

from __future__ import annotations

from portal.planner.pages import proposals, suggestions  # noqa: F401 (registers the routes)
from portal.planner.pages.kit import bp

__all__ = ["bp"]
