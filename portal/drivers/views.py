"""Drivers in the portal (blueprint `drivers`): the list, the driver form, the driver page
with its access actions (pairing a phone by QR code, a new user_token, signing a phone out,
deactivating), the map of last known positions and a driver's track of a day.

Every route loads, checks and acts through the drivers service, then commits once. Pages
work without JavaScript; htmx narrows the list and refreshes the map's positions. Importing
this module registers the routes of list_views, access_views and map_views, on the blueprint
of portal.drivers.driver_kit.
"""

from __future__ import annotations

from portal.drivers import access_views, list_views, map_views  # noqa: F401 (registers routes)
from portal.drivers.driver_kit import bp

__all__ = ["bp"]
