"""The messages page (/berichten, role planner), on the blueprint `messages` (`kit.bp`):
compose a message to one or more drivers, and the history of what was sent with each
recipient's status. Importing this package registers the routes (`compose`)."""

from portal.messages.pages import compose
from portal.messages.pages.kit import bp

__all__ = ["bp", "compose"]
