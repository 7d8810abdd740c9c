"""The planners' vehicle pages: the list, create and edit, a vehicle's page with its sessions,
deactivation and QR rotation after a confirmation, the printable QR stickers, and who drives
what right now (with the history per vehicle and per driver).

Every page works without JavaScript; the list's filters refresh the table through htmx.
Each request loads, checks and acts through the fleet services, then commits once.

All routes are on one blueprint, `fleet` (`kit.bp`); importing this package registers
them: the vehicles (`vehicles`) and their sessions (`vehicle_sessions`).
"""

from portal.fleet.pages import vehicle_sessions, vehicles
from portal.fleet.pages.kit import bp, driver_page_url, since

__all__ = ["bp", "driver_page_url", "since", "vehicle_sessions", "vehicles"]
