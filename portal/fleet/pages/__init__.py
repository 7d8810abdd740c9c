"""The planners' vehicle pages: the list, create and edit (`vehicles`), a vehicle's page with
its sessions and changes (`detail`), deactivation, activation and QR rotation after a
confirmation (`actions`), couplings of a vehicle for a day and uncoupling
(`couplings`), the printable QR stickers (`stickers`), who drives what right
now, with the history per vehicle and per driver (`vehicle_sessions`), and the carrier's
capability catalogue with what each activity type needs (`capabilities`).

Every page works without JavaScript; the list's filters refresh the table through htmx.
Each request loads, checks and acts through the fleet services, then commits once.

All routes are on one blueprint, `fleet` (`kit.bp`); importing this package registers them.
"""

from portal.fleet.pages import (  # noqa: F401 (registers the routes)
    actions,
    capabilities,
    couplings,
    detail,
    stickers,
    vehicle_sessions,
    vehicles,
)
from portal.fleet.pages.kit import bp

__all__ = ["bp"]
