"""The admin pages of webhooks (/beheer/webhooks)."""

from portal.webhooks.pages.endpoints import bp

__all__ = ["bp"]
