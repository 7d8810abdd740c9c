"""The planners' tachograph pages (blueprint `tacho`): the list and the upload
(portal.tacho.upload_views) and one file's page (portal.tacho.file_views), on the blueprint
of portal.tacho.pages.files_kit. Importing this module registers their routes.
"""

from __future__ import annotations

from portal.tacho.pages import file, upload  # noqa: F401 (registers the routes)
from portal.tacho.pages.files_kit import bp

__all__ = ["bp"]
