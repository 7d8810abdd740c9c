"""Portal forms of sign-in and language."""

from __future__ import annotations

from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import EmailField, HiddenField, PasswordField, SelectChoice, SelectField
from wtforms.validators import DataRequired, Length


class LoginForm(FlaskForm):
    email = EmailField(_l("E-mailadres"), validators=[DataRequired(), Length(max=254)])
    password = PasswordField(_l("Wachtwoord"), validators=[DataRequired(), Length(max=1024)])
    next = HiddenField()


class LanguageForm(FlaskForm):
    taal = SelectField(choices=[SelectChoice("nl", "Nederlands"), SelectChoice("en", "English")])
    next = HiddenField()


class LogoutForm(FlaskForm):
    pass
