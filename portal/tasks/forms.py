"""Portal forms of tasks."""

from __future__ import annotations

from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import IntegerField, SelectChoice, SelectField, StringField
from wtforms.validators import Length, NumberRange, Optional

from portal.tasks.models import STATUSES

STATUS_LABELS = {
    "gepland": _l("Gepland"),
    "ontvangen": _l("Ontvangen"),
    "gestart": _l("Gestart"),
    "afgerond": _l("Afgerond"),
    "geannuleerd": _l("Geannuleerd"),
}


class TaskFilterForm(FlaskForm):
    """The task list's filters, read from the query string (GET: no CSRF token)."""

    class Meta:
        csrf = False

    q = StringField(_l("Zoeken"), validators=[Optional(), Length(max=100)])
    status = SelectField(
        _l("Status"),
        choices=[SelectChoice("", _l("Alle statussen"))]
        + [SelectChoice(s, STATUS_LABELS[s]) for s in STATUSES],
        validators=[Optional()],
    )
    pagina = IntegerField(validators=[Optional(), NumberRange(min=1, max=100_000)], default=1)
