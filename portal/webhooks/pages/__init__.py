"""The admin pages of webhooks (/beheer/webhooks, role admin), all on the blueprint
`webhooks` (`kit.bp`); importing this package registers them: the endpoints and their
settings (`endpoints`), and sending again, test events and one delivery (`deliveries`)."""

from portal.webhooks.pages import deliveries, endpoints
from portal.webhooks.pages.kit import bp

__all__ = ["bp", "deliveries", "endpoints"]
