"""The planners' tachograph pages, on two blueprints of portal.tacho.pages.kit.

`bp` (blueprint `tacho`): the files: their list and the upload (upload) and one file's page
(file).

`driving_bp` (blueprint `driving`, EU 561/2006): every driver's remaining driving time now
(remaining), the infringements over a period with their export for the driver's signature
(infringements), one driver's 28 days, card and app side by side with the differences named,
and one day in detail (driver_days), the download deadlines of cards and vehicle units
(deadlines), and the carrier's exemptions from EU 561/2006 (exemptions).

Every figure comes from portal.tacho.driving (which reads a fixed number of queries however
many drivers or days) and is worded by portal.tacho.wording. Pages work without JavaScript:
the day bars are SVG drawn on the server, filters and navigation are links and GET forms,
the card number form posts and redirects. Importing this package registers the routes.
"""

from __future__ import annotations

from portal.tacho.pages import (  # noqa: F401 (registers the routes)
    deadlines,
    driver_days,
    exemptions,
    file,
    infringements,
    remaining,
    upload,
)
from portal.tacho.pages.kit import bp, driving_bp

__all__ = ["bp", "driving_bp"]
