"""The planners' driving-time pages (EU 561/2006, blueprint `driving`): every driver's
remaining driving time now, the infringements over a period with their export for the
driver's signature, one driver's 28 days (card and app side by side, the differences named),
one day in detail, and the download deadlines of cards and vehicle units.

Every figure comes from portal.tacho.driving (which reads a fixed number of queries however
many drivers or days) and is worded by portal.tacho.wording. Pages work without JavaScript:
the day bars are SVG drawn on the server, filters and navigation are links and GET forms,
the card number form posts and redirects. Importing this module registers the routes, on the
blueprint of portal.tacho.pages.kit.
"""

from __future__ import annotations

from portal.tacho.pages import (  # noqa: F401 (registers the routes)
    deadlines,
    driver_days,
    infringements,
    remaining,
)
from portal.tacho.pages.kit import bp

__all__ = ["bp"]
