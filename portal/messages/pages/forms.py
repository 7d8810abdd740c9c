"""Portal form of messages: compose one message to one or more drivers."""

from __future__ import annotations

import uuid

from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from wtforms import (
    BooleanField,
    Field,
    SelectChoice,
    SelectMultipleField,
    StringField,
    TextAreaField,
)
from wtforms.validators import DataRequired, Length, ValidationError

from portal.messages.models import TEXT_MAX, TITLE_MAX
from portal.validators import PortalForm

STATUS_LABELS = {
    "queued": _l("In wachtrij"),
    "sent": _l("Verzonden"),
    "failed": _l("Mislukt"),
    "read": _l("Gelezen"),
}


def _strip(value):
    return value.strip() if isinstance(value, str) else value


class ComposeForm(PortalForm):
    """Recipients (chosen, or every active driver), a title and the text. Set the drivers
    with set_drivers first."""

    ontvangers = SelectMultipleField(_l("Aan"), choices=[], validate_choice=False)
    alle = BooleanField(_l("Alle actieve chauffeurs"))
    titel = StringField(
        _l("Titel"),
        filters=[_strip],
        validators=[
            DataRequired(_l("Geef het bericht een titel.")),
            Length(max=TITLE_MAX, message=_l("Hoogstens %(max)d tekens; nu %(length)d.")),
        ],
    )
    tekst = TextAreaField(
        _l("Bericht"),
        filters=[_strip],
        validators=[
            DataRequired(_l("Schrijf wat je de chauffeur wilt laten weten.")),
            Length(max=TEXT_MAX, message=_l("Hoogstens %(max)d tekens; nu %(length)d.")),
        ],
    )

    def set_drivers(self, drivers) -> None:
        self.ontvangers.choices = [SelectChoice(str(d.id), d.naam) for d in drivers]

    def validate_ontvangers(self, field: Field) -> None:
        if self.alle.data:
            if not field.choices:
                raise ValidationError(_("Er zijn geen actieve chauffeurs."))
            return
        if not field.data:
            raise ValidationError(_("Kies minstens één chauffeur."))
        known = {choice.value for choice in field.choices}
        if any(value not in known for value in field.data):
            raise ValidationError(_("Een gekozen chauffeur is niet (meer) actief. Kies opnieuw."))

    @property
    def chauffeur_ids(self) -> list[uuid.UUID]:
        """The recipients: every active driver, or those chosen."""
        values = (
            [choice.value for choice in self.ontvangers.choices]
            if self.alle.data
            else self.ontvangers.data
        )
        return [uuid.UUID(value) for value in values]
