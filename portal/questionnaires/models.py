"""Questionnaire revisions (the seed's ActivityQuestionnaire) and the answers to them."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import (
    CheckConstraint,
    ForeignKeyConstraint,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    Uuid,
    text,
)
from sqlalchemy.orm import Mapped, mapped_column

from portal.extensions import db
from portal.tenancy import CarrierScoped
from portal.types import UTCDateTime, utcnow


class ActivityQuestionnaire(CarrierScoped, db.Model):
    """One published, immutable revision of a questionnaire for an activity type.

    `definition` holds the canonical JSON text of the QuestionnaireDefinition: it is
    serialised once when published and spliced into responses as it is.
    """

    __tablename__ = "activity_questionnaires"
    __table_args__ = (
        UniqueConstraint(
            "transporteur_id",
            "questionnaire_id",
            "revisie",
            name="uq_activity_questionnaires_revisie",
        ),
        # At most one active revision per (carrier, activity type).
        Index(
            "uq_activity_questionnaires_active",
            "transporteur_id",
            "activity_type",
            unique=True,
            postgresql_where=text("is_active"),
            sqlite_where=text("is_active"),
        ),
    )

    activity_type: Mapped[str] = mapped_column(String(64))
    questionnaire_id: Mapped[str] = mapped_column(String(100))
    revisie: Mapped[int] = mapped_column(Integer, default=1)
    definition: Mapped[str] = mapped_column(Text)
    is_active: Mapped[bool] = mapped_column(default=False)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, onupdate=utcnow)


class AnswerSession(CarrierScoped, db.Model):
    """A driver filling in one questionnaire revision, for a task or an activity alone."""

    __tablename__ = "answer_sessions"
    __table_args__ = (
        ForeignKeyConstraint(
            ["transporteur_id", "activity_questionnaire_id"],
            ["activity_questionnaires.transporteur_id", "activity_questionnaires.id"],
        ),
        ForeignKeyConstraint(["transporteur_id", "taak_id"], ["taken.transporteur_id", "taken.id"]),
        ForeignKeyConstraint(
            ["transporteur_id", "chauffeur_id"], ["chauffeurs.transporteur_id", "chauffeurs.id"]
        ),
        CheckConstraint("status IN ('open', 'ingediend')", name="status"),
        Index("ix_answer_sessions_taak", "transporteur_id", "taak_id"),
        Index("ix_answer_sessions_chauffeur", "transporteur_id", "chauffeur_id", "created_at"),
        # One session per task and revision: two phones (or a retried request) answering
        # the same task continue one session instead of splitting the answers.
        Index(
            "uq_answer_sessions_task_revision",
            "transporteur_id",
            "taak_id",
            "activity_questionnaire_id",
            unique=True,
            postgresql_where=text("taak_id IS NOT NULL"),
            sqlite_where=text("taak_id IS NOT NULL"),
        ),
    )

    activity_questionnaire_id: Mapped[uuid.UUID] = mapped_column(Uuid)
    activity_type: Mapped[str] = mapped_column(String(64))
    taak_id: Mapped[uuid.UUID | None] = mapped_column(Uuid)
    chauffeur_id: Mapped[uuid.UUID | None] = mapped_column(Uuid)
    status: Mapped[str] = mapped_column(String(16), default="open")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, onupdate=utcnow)
    ingediend_op: Mapped[datetime | None] = mapped_column(UTCDateTime)


class Answer(CarrierScoped, db.Model):
    """The answer to one question of a session; `waarde` is JSON text."""

    __tablename__ = "answers"
    __table_args__ = (
        ForeignKeyConstraint(
            ["transporteur_id", "answer_session_id"],
            ["answer_sessions.transporteur_id", "answer_sessions.id"],
        ),
        UniqueConstraint("transporteur_id", "answer_session_id", "question_id"),
    )

    answer_session_id: Mapped[uuid.UUID] = mapped_column(Uuid)
    question_id: Mapped[str] = mapped_column(String(100))
    waarde: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, onupdate=utcnow)


class QuestionnaireDraft(CarrierScoped, db.Model):
    """The author's working copy of a questionnaire, one per questionnaire_id.

    Unlike a revision it may hold problems (the builder shows them at their question) and
    changes with every autosave; `versie` guards against two tabs overwriting each other.
    Publishing turns it into a revision and removes it.
    """

    __tablename__ = "questionnaire_drafts"
    __table_args__ = (
        UniqueConstraint(
            "transporteur_id", "questionnaire_id", name="uq_questionnaire_drafts_questionnaire"
        ),
        ForeignKeyConstraint(
            ["transporteur_id", "gewijzigd_door"], ["gebruikers.transporteur_id", "gebruikers.id"]
        ),
    )

    questionnaire_id: Mapped[str] = mapped_column(String(100))
    # The revision this draft started from (null for a new questionnaire); not a foreign key
    # on purpose: it is a remark, and revisions are never deleted anyway.
    basis_revisie_id: Mapped[uuid.UUID | None] = mapped_column(Uuid)
    definition: Mapped[str] = mapped_column(Text)
    versie: Mapped[int] = mapped_column(Integer, default=1)
    gewijzigd_door: Mapped[uuid.UUID | None] = mapped_column(Uuid)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, onupdate=utcnow)
