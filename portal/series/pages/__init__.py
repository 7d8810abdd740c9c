"""The pages of recurring work: templates (the list, a task saved as one, edit, delete after
a confirmation) and series (the list, a new one from a template with a live preview of its
next occurrences, its occurrences, its change and its end after a confirmation).

All routes are on one blueprint, `series` (`kit.bp`); importing this package registers them.
"""

from portal.series.pages import series, task_templates
from portal.series.pages.kit import bp

__all__ = ["bp", "series", "task_templates"]
