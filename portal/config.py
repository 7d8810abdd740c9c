"""Configuration: the only module that reads the environment."""

from __future__ import annotations

import os
import secrets
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlsplit

import orjson

ROOT = Path(__file__).resolve().parent.parent


class ConfigError(RuntimeError):
    """The environment does not describe a runnable configuration."""


def instance_path() -> Path:
    """Folder for the SQLite file, the generated secret key and local file storage."""
    return Path(os.environ.get("RIJPLAN_INSTANCE") or ROOT / "instance").resolve()


def _secret_key(folder: Path, production: bool) -> str:
    key = os.environ.get("SECRET_KEY")
    if key:
        return key
    if production:
        raise ConfigError("SECRET_KEY is required when RIJPLAN_ENV=production")
    # Development: generate once and keep it, so sessions survive a restart.
    path = folder / "secret_key"
    if not path.exists():
        folder.mkdir(parents=True, exist_ok=True)
        path.write_text(secrets.token_urlsafe(48))
        path.chmod(0o600)
    return path.read_text().strip()


def _normalise_db_url(url: str) -> str:
    # psycopg 3 is the driver; accept the plain scheme people copy from elsewhere.
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


def _public_base_url(value: str) -> str | None:
    """The site's public origin (https://rijplan.example.nl), for absolute URLs in API answers;
    None: the host each request came to."""
    value = value.strip().rstrip("/")
    if not value:
        return None
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.path or parts.query:
        raise ConfigError(
            f"PUBLIC_BASE_URL must be a scheme and host like https://rijplan.example.nl, "
            f"not {value!r}"
        )
    return value


def load(overrides: dict | None = None) -> dict:
    """Build the Flask config mapping from the environment (and test overrides)."""
    folder = instance_path()
    production = os.environ.get("RIJPLAN_ENV", "development") == "production"
    cfg = {
        "RIJPLAN_ENV": "production" if production else "development",
        "INSTANCE_PATH": str(folder),
        "SECRET_KEY": None,
        **_database(folder),
        **_requests(production),
        **_accounts(),
        **_files(),
        **_outbound(),
    }
    if overrides:
        cfg.update(overrides)
    if cfg["SECRET_KEY"] is None:
        cfg["SECRET_KEY"] = _secret_key(Path(cfg["INSTANCE_PATH"]), production)
    return cfg


def _database(folder: Path) -> dict:
    """The database: the app's, the admin's, a replica's, and how the engine connects."""
    database_url = _normalise_db_url(
        os.environ.get("DATABASE_URL") or f"sqlite:///{folder / 'rijplan.sqlite'}"
    )
    admin_url = os.environ.get("DATABASE_ADMIN_URL")
    replica_url = os.environ.get("DATABASE_REPLICA_URL")
    return {
        "SQLALCHEMY_DATABASE_URI": database_url,
        "DATABASE_ADMIN_URL": _normalise_db_url(admin_url) if admin_url else None,
        # A streaming replica for reads that tolerate a little lag (portal/replica.py).
        "DATABASE_REPLICA_URL": _normalise_db_url(replica_url) if replica_url else None,
        # Where each worker LISTENs for change notices (portal/change_feed.py); unset: the
        # app's own database; "" switches the feed off.
        "CHANGE_FEED_URL": os.environ.get("CHANGE_FEED_URL"),
        "REPLICA_RETRY_SECONDS": float(os.environ.get("RIJPLAN_REPLICA_RETRY_SECONDS", "5")),
        "SQLALCHEMY_ENGINE_OPTIONS": _engine_options(),
    }


def _engine_options() -> dict:
    engine_options: dict = {
        # No `SELECT 1` per checkout: reads.install_liveness_check looks at the socket
        # instead, and reads.read retries a read once on a connection that broke.
        "pool_pre_ping": False,
        # JSON columns (a tachograph day's changes: a board reads thousands) through orjson.
        "json_serializer": lambda value: orjson.dumps(value).decode(),
        "json_deserializer": orjson.loads,
    }
    if os.environ.get("DATABASE_PGBOUNCER") == "1":
        # pgbouncer in transaction mode: no server-side prepared statements.
        engine_options["connect_args"] = {"prepare_threshold": None}
    return engine_options


def _requests(production: bool) -> dict:
    """Requests and sessions: sizes, logs, cookies, languages, proxies, compression."""
    return {
        "MAX_CONTENT_LENGTH": int(os.environ.get("RIJPLAN_MAX_UPLOAD_MB", "25")) * 1024 * 1024,
        # Operations (portal/ops): JSON or text logs set up by the app (else left as whoever
        # runs it set them up), and the bearer token /metrics asks for (unset: no /metrics).
        "LOG_FORMAT": os.environ.get("RIJPLAN_LOG_FORMAT") or None,
        "LOG_LEVEL": os.environ.get("RIJPLAN_LOG_LEVEL") or None,
        "METRICS_TOKEN": os.environ.get("RIJPLAN_METRICS_TOKEN") or None,
        "SESSION_COOKIE_SECURE": production,
        "SESSION_COOKIE_HTTPONLY": True,
        "SESSION_COOKIE_SAMESITE": "Lax",
        "REMEMBER_COOKIE_SECURE": production,
        "REMEMBER_COOKIE_HTTPONLY": True,
        "PERMANENT_SESSION_LIFETIME": timedelta(hours=12),
        "WTF_CSRF_TIME_LIMIT": None,  # bound to the session, which expires by itself
        "BABEL_DEFAULT_LOCALE": "nl",
        "BABEL_DEFAULT_TIMEZONE": "Europe/Amsterdam",
        "BABEL_TRANSLATION_DIRECTORIES": str(ROOT / "translations"),
        "LANGUAGES": ("nl", "en"),
        # How many proxies in front of the app (the TLS proxy: 1) may say who the client is
        # (X-Forwarded-For, -Proto, -Host, -Port). 0 (default): none; the app is reached
        # directly and such headers are a client's claim, ignored.
        "TRUSTED_PROXIES": int(os.environ.get("RIJPLAN_TRUSTED_PROXIES", "0")),
        "COMPRESS_MIMETYPES": ["application/json", "application/problem+json", "text/html"],
        "COMPRESS_LEVEL": 1,
        "COMPRESS_MIN_SIZE": 1024,
        "COMPRESS_ALGORITHM": ["gzip"],
    }


def _accounts() -> dict:
    """Sign-in: tokens' lifetimes and the throttling of failed sign-ins."""
    return {
        "ACCESS_TOKEN_TTL": timedelta(minutes=15),
        "REFRESH_TOKEN_TTL": timedelta(days=60),
        "REFRESH_TOKEN_GRACE": timedelta(seconds=120),
        "ACTIVATION_CODE_TTL": timedelta(minutes=30),
        # Failed sign-ins per window (accounts/service.py: throttling): per account from one
        # address or known device, per account from anywhere, per address.
        "LOGIN_THROTTLE": (5, timedelta(minutes=15)),
        "LOGIN_THROTTLE_ACCOUNT": (20, timedelta(minutes=15)),
        "LOGIN_THROTTLE_IP": (30, timedelta(minutes=15)),
    }


def _files() -> dict:
    """Stored files: where (a folder or S3) and how they are served."""
    return {
        # Stored files: "local" (a folder; default <instance>/bestanden) or "s3" (S3-compatible).
        "FILE_STORAGE": os.environ.get("FILE_STORAGE", "local"),
        "FILE_STORAGE_PATH": os.environ.get("FILE_STORAGE_PATH") or None,
        "FILE_MAX_BYTES": int(os.environ.get("FILE_MAX_BYTES", str(15 * 1024 * 1024))),
        "FILE_URL_TTL": int(os.environ.get("FILE_URL_TTL", "300")),  # signed URLs, seconds
        # Where the site is reached from outside (scheme and host): signed file URLs in API
        # answers are made absolute on it. Empty: on the host each request came to.
        "PUBLIC_BASE_URL": _public_base_url(os.environ.get("PUBLIC_BASE_URL", "")),
        "S3_BUCKET": os.environ.get("S3_BUCKET") or None,
        "S3_ENDPOINT_URL": os.environ.get("S3_ENDPOINT_URL") or None,
        "S3_REGION": os.environ.get("S3_REGION") or None,
        "S3_ACCESS_KEY_ID": os.environ.get("S3_ACCESS_KEY_ID") or None,
        "S3_SECRET_ACCESS_KEY": os.environ.get("S3_SECRET_ACCESS_KEY") or None,
        "S3_PREFIX": os.environ.get("S3_PREFIX", ""),
    }


def _outbound() -> dict:
    """What the app asks of others: VIES, Web Push, webhook receivers, map tiles."""
    return {
        # The EU's VIES service, asked about a customer's VAT number for reverse charge
        "VIES_URL": os.environ.get(
            "VIES_URL", "https://ec.europa.eu/taxation_customs/vies/rest-api/check-vat-number"
        ),
        "VIES_TIMEOUT": float(os.environ.get("VIES_TIMEOUT", "10")),
        # Web Push for messages to drivers: the VAPID key pair's private half (from
        # `flask generate-vapid-keys`) and a contact push services can reach (mailto: or https).
        "VAPID_PRIVATE_KEY": os.environ.get("VAPID_PRIVATE_KEY", "").strip() or None,
        "VAPID_SUBJECT": os.environ.get("VAPID_SUBJECT", "").strip() or None,
        "WEBPUSH_TTL": int(os.environ.get("WEBPUSH_TTL", str(24 * 3600))),  # seconds kept
        "WEBPUSH_TIMEOUT": float(os.environ.get("WEBPUSH_TIMEOUT", "10")),
        # Development only: allow push endpoints on http and private addresses (a local push
        # server). Never in production: the worker posts to whatever a phone registers.
        "WEBPUSH_ALLOW_PRIVATE": os.environ.get("WEBPUSH_ALLOW_PRIVATE") == "1",
        # Webhooks: seconds a receiver has to answer (the whole exchange), and, for
        # development only, endpoints on http and private addresses (a receiver on this
        # machine). Never in production: the worker posts to whatever an admin registers.
        "WEBHOOKS_TIMEOUT": float(os.environ.get("WEBHOOKS_TIMEOUT", "10")),
        "WEBHOOKS_ALLOW_PRIVATE": os.environ.get("WEBHOOKS_ALLOW_PRIVATE") == "1",
        # The drivers' map: a tile server URL template ({z}/{x}/{y}, optionally {s}); empty
        # means no background tiles (markers on a plain background, positions in a table).
        "MAP_TILE_URL": os.environ.get("MAP_TILE_URL", "").strip(),
        "MAP_TILE_ATTRIBUTION": os.environ.get("MAP_TILE_ATTRIBUTION", "").strip(),
    }
