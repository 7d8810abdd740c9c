"""The admin's service: invitations and password links, roles with the last-admin rule,
API keys (scopes, revoke, last use) and the carrier's settings; every change audited."""

from __future__ import annotations

from datetime import timedelta

import pytest
from factories import create_api_key, create_user, in_carrier
from sqlalchemy import select

from portal.accounts import management, service
from portal.accounts.models import SCOPES, ApiKey, User
from portal.audit.models import AuditEntry
from portal.audit.service import Actor
from portal.errors import NotFound, ValidationFailed
from portal.extensions import db
from portal.tenancy import carrier_scope

ADMIN = Actor("user", None, "Els Beheer")


def audit_actions(app, carrier, entity_id) -> list[str]:
    def read():
        return [
            e.action
            for e in db.session.scalars(
                select(AuditEntry)
                .where(AuditEntry.transporteur_id == carrier.id, AuditEntry.entity_id == entity_id)
                .order_by(AuditEntry.at, AuditEntry.id)
            )
        ]

    return in_carrier(app, carrier.id, read)


def invite(app, carrier, rol="planner", email="nieuw@example.nl"):
    return in_carrier(
        app,
        carrier.id,
        lambda: management.invite_user(
            carrier_id=carrier.id, email=email, naam="Nieuw Mens", rol=rol, actor=ADMIN
        ),
        lambda pair: (pair[0].id, pair[1]),
    )


def test_an_invited_user_has_no_password_until_the_link_sets_one(app, carrier):
    user_id, token = invite(app, carrier)
    with app.app_context():
        with pytest.raises(service.InvalidCredentials):
            service.authenticate_user(email="nieuw@example.nl", password="", ip=None)
        db.session.rollback()
        user = management.use_link(token=token, password="een lang wachtwoord")
        db.session.commit()
        assert user.id == user_id
        signed_in = service.authenticate_user(
            email="nieuw@example.nl", password="een lang wachtwoord", ip=None
        )
        assert signed_in.id == user_id
        db.session.commit()
    assert audit_actions(app, carrier, user_id) == ["invited", "signed_up"]


def test_the_link_is_stored_hashed_and_works_once(app, carrier):
    user_id, token = invite(app, carrier)

    def stored():
        return db.session.scalar(select(User.link_hash).where(User.id == user_id))

    assert in_carrier(app, carrier.id, stored) == service.sha256(token)
    with app.app_context():
        management.use_link(token=token, password="een lang wachtwoord")
        db.session.commit()
        with pytest.raises(NotFound):
            management.use_link(token=token, password="nog een wachtwoord")
    assert in_carrier(app, carrier.id, stored) is None


def test_an_expired_link_is_refused_and_says_it_expired(app, carrier):
    user_id, token = invite(app, carrier)

    def age():
        user = db.session.scalar(select(User).where(User.id == user_id))
        user.link_verloopt_op = user.link_verloopt_op - timedelta(days=8)

    in_carrier(app, carrier.id, age)
    with app.app_context():
        assert management.find_link(token).expired
        with pytest.raises(NotFound):
            management.use_link(token=token, password="een lang wachtwoord")


def test_a_new_link_replaces_the_previous_one(app, carrier):
    user_id, first = invite(app, carrier)
    second = in_carrier(
        app,
        carrier.id,
        lambda: management.new_password_link(carrier_id=carrier.id, user_id=user_id, actor=ADMIN),
    )
    with app.app_context():
        assert management.find_link(first).user is None
        assert management.find_link(second).user.id == user_id


def test_a_reset_keeps_the_old_password_until_the_new_one_is_set(app, carrier, planner):
    token = in_carrier(
        app,
        carrier.id,
        lambda: management.new_password_link(
            carrier_id=carrier.id, user_id=planner.id, actor=ADMIN
        ),
    )
    with app.app_context():
        assert service.authenticate_user(
            email=planner.email, password="correct-horse-battery", ip=None
        )
        db.session.commit()
        before = db.session.scalar(select(User.session_version).where(User.id == planner.id))
        management.use_link(token=token, password="een nieuw wachtwoord")
        db.session.commit()
        with carrier_scope(db.session, carrier.id):
            after = db.session.scalar(select(User.session_version).where(User.id == planner.id))
        assert after == before + 1  # other sessions end
        with pytest.raises(service.InvalidCredentials):
            service.authenticate_user(
                email=planner.email, password="correct-horse-battery", ip=None
            )
    assert audit_actions(app, carrier, planner.id) == ["password_link", "password_set"]


def test_a_link_of_a_deactivated_user_no_longer_works(app, carrier):
    user_id, token = invite(app, carrier)
    in_carrier(
        app,
        carrier.id,
        lambda: management.deactivate_user(carrier_id=carrier.id, user_id=user_id, actor=ADMIN),
    )
    with app.app_context():
        assert management.find_link(token).user is None


def test_an_invitation_checks_email_name_role_and_uniqueness(app, carrier, planner):
    with app.app_context(), carrier_scope(db.session, carrier.id):
        with pytest.raises(ValidationFailed) as error:
            management.invite_user(
                carrier_id=carrier.id, email="geen-adres", naam=" ", rol="baas", actor=ADMIN
            )
        fields = {e["field"] for e in error.value.errors}
        assert fields == {"email", "naam", "rol"}
        with pytest.raises(ValidationFailed) as taken:
            management.invite_user(
                carrier_id=carrier.id,
                email=planner.email.upper(),
                naam="Dubbel",
                rol="planner",
                actor=ADMIN,
            )
        assert taken.value.errors == [{"field": "email", "message": "already in use"}]


def test_the_last_active_admin_can_not_be_demoted_or_deactivated(app, carrier):
    admin = create_user(app, carrier, "admin")
    with (
        app.app_context(),
        carrier_scope(db.session, carrier.id),
        pytest.raises(management.LastAdmin),
    ):
        management.update_user(
            carrier_id=carrier.id, user_id=admin.id, naam="Els", rol="planner", actor=ADMIN
        )
        db.session.rollback()
        with pytest.raises(management.LastAdmin):
            management.deactivate_user(carrier_id=carrier.id, user_id=admin.id, actor=ADMIN)


def test_with_a_second_admin_the_first_may_be_demoted(app, carrier):
    first = create_user(app, carrier, "admin")
    second = create_user(app, carrier, "admin")
    in_carrier(
        app,
        carrier.id,
        lambda: management.update_user(
            carrier_id=carrier.id, user_id=first.id, naam="Eerste", rol="author", actor=ADMIN
        ),
    )
    with (
        app.app_context(),
        carrier_scope(db.session, carrier.id),
        pytest.raises(management.LastAdmin),
    ):
        management.deactivate_user(carrier_id=carrier.id, user_id=second.id, actor=ADMIN)
    assert audit_actions(app, carrier, first.id) == ["updated"]


def test_a_deactivated_admin_does_not_count_as_the_other_admin(app, carrier):
    first = create_user(app, carrier, "admin")
    second = create_user(app, carrier, "admin")
    in_carrier(
        app,
        carrier.id,
        lambda: management.deactivate_user(carrier_id=carrier.id, user_id=second.id, actor=ADMIN),
    )
    with (
        app.app_context(),
        carrier_scope(db.session, carrier.id),
        pytest.raises(management.LastAdmin),
    ):
        management.update_user(
            carrier_id=carrier.id, user_id=first.id, naam="x", rol="planner", actor=ADMIN
        )


def test_an_admin_may_not_deactivate_themselves(app, carrier):
    admin = create_user(app, carrier, "admin")
    create_user(app, carrier, "admin")
    me = Actor("user", admin.id, "Ik")
    with (
        app.app_context(),
        carrier_scope(db.session, carrier.id),
        pytest.raises(management.SelfChange),
    ):
        management.deactivate_user(carrier_id=carrier.id, user_id=admin.id, actor=me)


def test_deactivating_ends_sessions_and_is_audited(app, carrier, planner):
    def run():
        before = management.get_user(carrier_id=carrier.id, user_id=planner.id).session_version
        user = management.deactivate_user(carrier_id=carrier.id, user_id=planner.id, actor=ADMIN)
        return before, user.session_version, user.actief

    before, after, actief = in_carrier(app, carrier.id, run)
    assert after == before + 1 and not actief
    in_carrier(
        app,
        carrier.id,
        lambda: management.reactivate_user(carrier_id=carrier.id, user_id=planner.id, actor=ADMIN),
    )
    assert audit_actions(app, carrier, planner.id) == ["deactivated", "reactivated"]


def test_another_carriers_user_is_not_found(app, carrier, other_carrier):
    foreign = create_user(app, other_carrier, "admin")
    with app.app_context(), carrier_scope(db.session, carrier.id):
        for call in (
            lambda: management.get_user(carrier_id=carrier.id, user_id=foreign.id),
            lambda: management.deactivate_user(
                carrier_id=carrier.id, user_id=foreign.id, actor=ADMIN
            ),
            lambda: management.new_password_link(
                carrier_id=carrier.id, user_id=foreign.id, actor=ADMIN
            ),
            lambda: management.end_user_sessions(
                carrier_id=carrier.id, user_id=foreign.id, actor=ADMIN
            ),
        ):
            with pytest.raises(NotFound):
                call()


# --- API keys -------------------------------------------------------------------------


def test_a_key_gets_exactly_the_scopes_chosen_and_creation_is_audited(app, carrier):
    chosen = [SCOPES[-1], SCOPES[0]]
    key_id, plain, scopes = in_carrier(
        app,
        carrier.id,
        lambda: management.issue_api_key(
            carrier_id=carrier.id, naam="TMS", scopes=chosen, actor=ADMIN
        ),
        lambda pair: (pair[0].id, pair[1], pair[0].scopes),
    )
    assert scopes.split() == [SCOPES[0], SCOPES[-1]]  # in the model's order
    with app.app_context():
        assert service.authenticate_api_key(plain).id == key_id
    assert audit_actions(app, carrier, key_id) == ["created"]


def test_a_key_needs_at_least_one_known_scope(app, carrier):
    with app.app_context(), carrier_scope(db.session, carrier.id):
        with pytest.raises(ValidationFailed) as none:
            management.issue_api_key(carrier_id=carrier.id, naam="TMS", scopes=[], actor=ADMIN)
        assert none.value.errors[0]["field"] == "scopes"
        with pytest.raises(ValidationFailed) as unknown:
            management.issue_api_key(
                carrier_id=carrier.id, naam="TMS", scopes=["alles:mag"], actor=ADMIN
            )
        assert unknown.value.errors[0]["field"] == "scopes"


def test_a_revoked_key_stops_working(app, carrier, api_key):
    in_carrier(
        app,
        carrier.id,
        lambda: management.revoke_api_key(carrier_id=carrier.id, key_id=api_key.id, actor=ADMIN),
    )
    with app.app_context():
        assert service.authenticate_api_key(api_key.key) is None
    assert audit_actions(app, carrier, api_key.id) == ["revoked"]


def test_last_use_is_recorded_at_most_once_a_minute(app, carrier, api_key, monkeypatch):
    from datetime import UTC, datetime

    moments = iter(
        [
            datetime(2026, 11, 24, 9, 0, 0, tzinfo=UTC),
            datetime(2026, 11, 24, 9, 0, 30, tzinfo=UTC),
            datetime(2026, 11, 24, 9, 1, 5, tzinfo=UTC),
        ]
    )
    monkeypatch.setattr(service, "utcnow", lambda: next(moments))

    def last_used():
        return db.session.scalar(select(ApiKey.laatst_gebruikt_op).where(ApiKey.id == api_key.id))

    seen = []
    for _ in range(3):
        with app.app_context():
            service.authenticate_api_key(api_key.key)
            db.session.rollback()  # the request itself commits nothing
        seen.append(in_carrier(app, carrier.id, last_used))
    assert seen[0] == datetime(2026, 11, 24, 9, 0, 0, tzinfo=UTC)
    assert seen[1] == seen[0]  # 30 s later: no write
    assert seen[2] == datetime(2026, 11, 24, 9, 1, 5, tzinfo=UTC)


def test_a_busy_key_writes_nothing_within_the_minute(app, carrier, api_key, count_queries):
    with app.app_context():
        service.authenticate_api_key(api_key.key)
        db.session.commit()
    with app.app_context(), count_queries() as q:
        service.authenticate_api_key(api_key.key)
        db.session.rollback()
    assert not [s for s in q.statements if s.lstrip().upper().startswith("UPDATE")]


def test_scopes_are_read_when_asked_so_new_ones_appear(monkeypatch):
    monkeypatch.setattr("portal.accounts.management.SCOPES", (*SCOPES, "drivers:read"))
    assert "drivers:read" in management.known_scopes()


# --- settings -------------------------------------------------------------------------


def settings(**changes):
    base = {"naam": "Van der Berg", "tijdzone": "Europe/Amsterdam"}
    return management.CarrierSettings(**{**base, **changes})


def test_settings_are_saved_normalised_and_audited(app, carrier):
    def run():
        c = management.update_settings(
            carrier_id=carrier.id,
            settings=settings(
                naam="Van der Berg Agro",
                tijdzone="Europe/Brussels",
                thuisbasis_straat="Hengelosestraat 12",
                thuisbasis_postcode="7511je",
                thuisbasis_plaats="Enschede",
                thuisbasis_land="nl",
                thuisbasis_lat=52.22,
                thuisbasis_lng=6.89,
            ),
            actor=ADMIN,
        )
        return (c.naam, c.tijdzone, c.thuisbasis_postcode, c.thuisbasis_land)

    assert in_carrier(app, carrier.id, run) == (
        "Van der Berg Agro",
        "Europe/Brussels",
        "7511 JE",
        "NL",
    )
    assert audit_actions(app, carrier, carrier.id) == ["settings_updated"]


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"tijdzone": "Europe/Enschede"}, "tijdzone"),
        ({"tijdzone": "../../etc/passwd"}, "tijdzone"),
        ({"naam": "  "}, "naam"),
        ({"thuisbasis_land": "NL", "thuisbasis_postcode": "75111"}, "thuisbasis_postcode"),
        ({"thuisbasis_lat": 52.0}, "thuisbasis_lng"),
        ({"thuisbasis_lat": 91.0, "thuisbasis_lng": 6.0}, "thuisbasis_lat"),
    ],
)
def test_bad_settings_are_refused_at_their_field(app, carrier, changes, field):
    with app.app_context(), carrier_scope(db.session, carrier.id):
        with pytest.raises(ValidationFailed) as error:
            management.update_settings(
                carrier_id=carrier.id, settings=settings(**changes), actor=ADMIN
            )
        assert field in {e["field"] for e in error.value.errors}


def test_a_foreign_postcode_is_kept_as_typed(app, carrier):
    def run():
        return management.update_settings(
            carrier_id=carrier.id,
            settings=settings(thuisbasis_land="DE", thuisbasis_postcode="48529"),
            actor=ADMIN,
        ).thuisbasis_postcode

    assert in_carrier(app, carrier.id, run) == "48529"


def test_the_key_list_shows_the_carriers_own_keys_only(app, carrier, other_carrier):
    create_api_key(app, other_carrier)
    own = create_api_key(app, carrier)
    keys = in_carrier(
        app,
        carrier.id,
        lambda: management.list_api_keys(carrier_id=carrier.id),
        lambda rows: [k.id for k in rows],
    )
    assert keys == [own.id]
