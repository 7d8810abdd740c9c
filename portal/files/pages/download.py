"""Signed, expiring downloads of stored files.

The download needs no sign-in and no Authorization header: the link's signature is the
permission (it goes into <img src> and the driver app). It is therefore deliberately not
behind login_required.
"""

from __future__ import annotations

import time
import uuid

from flask import Blueprint, abort, request, send_file

from portal.files import service

bp = Blueprint("files", __name__)


@bp.get("/bestanden/<uuid:carrier_id>/<uuid:file_id>")
def download(carrier_id: uuid.UUID, file_id: uuid.UUID):
    """Stream a file for a valid signed link: 403 for a missing, altered or expired signature
    (decided before anything is looked up, so it tells nothing about what exists), 404 for a
    file that is not the carrier's."""
    exp, sig = request.args.get("exp", ""), request.args.get("sig", "")
    if not (exp.isascii() and exp.isdigit() and len(exp) <= 12) or not sig:
        abort(403)
    expires = int(exp)
    file, stream = service.open_signed(carrier_id=carrier_id, file_id=file_id, exp=expires, sig=sig)
    response = send_file(
        stream,
        mimetype=file.content_type,
        download_name=service.download_name(file),
        # A PDF can carry JavaScript: saved, not opened in the site's origin. Images show.
        as_attachment=file.content_type == "application/pdf",
        conditional=True,
        etag=file.sha256,
        max_age=None,
    )
    if response.status_code == 200:
        response.content_length = file.grootte
    response.headers["X-Content-Type-Options"] = "nosniff"
    # Whatever a stored file turns out to hold, it runs no script and loads nothing.
    response.headers["Content-Security-Policy"] = "default-src 'none'; sandbox"
    # Cacheable by the browser until the link expires, never by shared caches.
    response.cache_control.no_cache = None
    response.cache_control.no_store = None
    response.cache_control.private = True
    response.cache_control.max_age = max(0, expires - int(time.time()))
    return response
