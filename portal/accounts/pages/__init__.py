"""The accounts domain's portal pages.

Sign-in, sign-out, the language switch and one-time password links (blueprint `accounts`,
`sign_in`); the admin section (/beheer, blueprint `admin`, role admin only): the carrier's
users (`users`), API keys (`keys`) and settings (`settings`).

Secrets (a password link, an API key) are shown once, in the response to the POST that made
them; only their hashes are stored. Every change goes through accounts.management, which
audits it. Importing this package registers every route; the blueprints are `kit`'s.
"""

from __future__ import annotations

from portal.accounts.pages import keys, settings, sign_in, users  # noqa: F401 (registers routes)
from portal.accounts.pages.kit import admin_bp, bp

__all__ = ["admin_bp", "bp"]
