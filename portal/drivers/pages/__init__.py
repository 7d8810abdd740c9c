"""Drivers in the portal (blueprint `drivers`): the list, the driver form, the driver page
with its access actions (pairing a phone by QR code, a new user_token, signing a phone out,
deactivating), the map of last known positions and a driver's track of a day.

Every route loads, checks and acts through the drivers service, then commits once. Pages
work without JavaScript; htmx narrows the list and refreshes the map's positions. Importing
this package registers the routes of roster (the list, the form, the driver's page), access
(access actions and pairing) and map (the map and a day's track), on the blueprint of kit.
"""

from __future__ import annotations

from portal.drivers.pages import access, map, roster  # noqa: F401 (registers routes)
from portal.drivers.pages.kit import bp

__all__ = ["bp"]
