"""Portal access: sign-in and roles."""

from __future__ import annotations

from functools import wraps

from flask import abort
from flask_login import current_user, login_required


def role_required(*roles: str):
    """Signed in with one of roles (admin has every role); 403 otherwise."""

    def decorate(view):
        @wraps(view)
        @login_required
        def wrapper(*args, **kwargs):
            if not current_user.has_role(*roles):
                abort(403)
            return view(*args, **kwargs)

        return wrapper

    return decorate
