"""Configuration from the environment."""

from __future__ import annotations

import logging

import pytest

from portal import config, create_app
from portal.extensions import db


def test_production_requires_a_secret_key(monkeypatch, tmp_path):
    monkeypatch.setenv("RIJPLAN_ENV", "production")
    monkeypatch.delenv("SECRET_KEY", raising=False)
    monkeypatch.setenv("RIJPLAN_INSTANCE", str(tmp_path))
    with pytest.raises(config.ConfigError, match="SECRET_KEY"):
        config.load()


def test_development_generates_a_secret_key_once(monkeypatch, tmp_path):
    monkeypatch.delenv("RIJPLAN_ENV", raising=False)
    monkeypatch.delenv("SECRET_KEY", raising=False)
    monkeypatch.setenv("RIJPLAN_INSTANCE", str(tmp_path))
    first = config.load()
    assert first["SECRET_KEY"] == config.load()["SECRET_KEY"]
    assert len(first["SECRET_KEY"]) >= 40
    assert first["SQLALCHEMY_DATABASE_URI"] == f"sqlite:///{tmp_path / 'rijplan.sqlite'}"
    assert first["SESSION_COOKIE_SECURE"] is False


def test_production_cookies_are_secure(monkeypatch, tmp_path):
    monkeypatch.setenv("RIJPLAN_ENV", "production")
    monkeypatch.setenv("SECRET_KEY", "k" * 48)
    monkeypatch.setenv("RIJPLAN_INSTANCE", str(tmp_path))
    loaded = config.load()
    assert loaded["SESSION_COOKIE_SECURE"] is True and loaded["REMEMBER_COOKIE_SECURE"] is True


def test_plain_postgres_urls_use_psycopg(monkeypatch, tmp_path):
    monkeypatch.setenv("RIJPLAN_INSTANCE", str(tmp_path))
    monkeypatch.setenv("DATABASE_URL", "postgres://app@db/rijplan")
    monkeypatch.setenv("DATABASE_ADMIN_URL", "postgresql://owner@db/rijplan")
    loaded = config.load()
    assert loaded["SQLALCHEMY_DATABASE_URI"] == "postgresql+psycopg://app@db/rijplan"
    assert loaded["DATABASE_ADMIN_URL"] == "postgresql+psycopg://owner@db/rijplan"


def test_public_base_url_is_a_scheme_and_host(monkeypatch, tmp_path):
    monkeypatch.setenv("RIJPLAN_INSTANCE", str(tmp_path))
    monkeypatch.delenv("PUBLIC_BASE_URL", raising=False)
    assert config.load()["PUBLIC_BASE_URL"] is None
    monkeypatch.setenv("PUBLIC_BASE_URL", "https://rijplan.example.nl/")
    assert config.load()["PUBLIC_BASE_URL"] == "https://rijplan.example.nl"
    for wrong in ("rijplan.example.nl", "ftp://rijplan.example.nl", "https://x.nl/api/v1"):
        monkeypatch.setenv("PUBLIC_BASE_URL", wrong)
        with pytest.raises(config.ConfigError, match="PUBLIC_BASE_URL"):
            config.load()


def start(app, url: str, caplog) -> str:
    """Create an app on url and return what it logged at start."""
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="portal.web"):
        started = create_app(
            {
                **{k: app.config[k] for k in ("SECRET_KEY", "INSTANCE_PATH")},
                "SQLALCHEMY_DATABASE_URI": url,
            }
        )
    with started.app_context():
        db.engine.dispose()
    return caplog.text


@pytest.mark.postgres_only
def test_the_app_warns_when_its_role_bypasses_row_level_security(app, backend, caplog):
    assert "bypasses row-level security" in start(app, app.config["DATABASE_ADMIN_URL"], caplog)
    own = start(app, app.config["SQLALCHEMY_DATABASE_URI"], caplog)
    assert "bypasses row-level security" not in own


def test_production_tells_browsers_to_use_https_only(monkeypatch, tmp_path):
    monkeypatch.setenv("RIJPLAN_ENV", "production")
    monkeypatch.setenv("SECRET_KEY", "k" * 48)
    monkeypatch.setenv("RIJPLAN_INSTANCE", str(tmp_path))
    app = create_app({"SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path / 'x.sqlite'}"})
    try:
        for path in ("/login", "/api/v1/openapi.json", "/static/css/app.css"):
            response = app.test_client().get(path, base_url="https://localhost")
            hsts = response.headers.get("Strict-Transport-Security", "")
            assert hsts.startswith("max-age=31536000"), path
    finally:
        with app.app_context():
            db.engine.dispose()


def test_development_sends_no_hsts(client):
    assert "Strict-Transport-Security" not in client.get("/login").headers
