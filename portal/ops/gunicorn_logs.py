"""gunicorn's own log lines as JSON (gunicorn.conf.py: `logger_class`): each access line one
object with the method, path, status, bytes, duration and the request id the app answered,
and gunicorn's error log in the same shape as the app's (logs.py)."""

from __future__ import annotations

import logging

from gunicorn import glogging

from portal.ops import logs


class JsonLogger(glogging.Logger):
    def setup(self, cfg):
        super().setup(cfg)
        for log in (self.error_log, self.access_log):
            for handler in log.handlers:
                handler.setFormatter(logs.json_formatter())
                if not any(isinstance(f, logs.RequestIdFilter) for f in handler.filters):
                    handler.addFilter(logs.RequestIdFilter())

    def access(self, resp, req, environ, request_time):
        if not self.access_log_enabled:
            return
        headers = dict(resp.headers) if hasattr(resp, "headers") else {}
        answered = {name.lower(): value for name, value in headers.items()}
        status = getattr(resp, "status_code", None) or str(resp.status).split(" ", 1)[0]
        self.access_log.log(
            logging.INFO,
            "request",
            extra={
                "request_id": answered.get("x-request-id", "-"),
                "method": environ.get("REQUEST_METHOD"),
                "path": environ.get("PATH_INFO"),
                "query": environ.get("QUERY_STRING") or None,
                "status": int(status),
                "bytes": getattr(resp, "sent", None),
                "duration_ms": round(request_time.total_seconds() * 1000, 1),
                "remote": environ.get("REMOTE_ADDR"),
                "agent": environ.get("HTTP_USER_AGENT"),
            },
        )
