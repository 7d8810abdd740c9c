"""The planners' vehicle pages: the list, create and edit (`vehicles`), a vehicle's page with
its sessions and changes (`detail`), deactivation, activation and QR rotation after a
confirmation (`actions`), the printable QR stickers (`stickers`), and who drives what right
now, with the history per vehicle and per driver (`vehicle_sessions`).

Every page works without JavaScript; the list's filters refresh the table through htmx.
Each request loads, checks and acts through the fleet services, then commits once.

All routes are on one blueprint, `fleet` (`kit.bp`); importing this package registers them.
"""

from portal.fleet.pages import (  # noqa: F401 (registers the routes)
    actions,
    detail,
    stickers,
    vehicle_sessions,
    vehicles,
)
from portal.fleet.pages.kit import bp

__all__ = ["bp"]
