"""The WSGI entry point: gunicorn wsgi:app, flask --app wsgi ..."""

from portal import create_app

app = create_app()
