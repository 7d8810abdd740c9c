"""The admin section (/beheer, blueprint `admin`): the carrier's users, API keys and settings.
Role admin only.

Secrets (a password link, an API key) are shown once, in the response to the POST that made
them; only their hashes are stored. Every change goes through accounts.management, which
audits it. Importing this module registers the routes of admin_user_views, admin_key_views and
admin_settings_views, on the blueprint of portal.accounts.admin_kit.
"""

from __future__ import annotations

from portal.accounts import (  # noqa: F401 (registers the routes)
    admin_key_views,
    admin_settings_views,
    admin_user_views,
)
from portal.accounts.admin_kit import bp

__all__ = ["bp"]
