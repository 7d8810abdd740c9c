"""Signed, expiring downloads of stored files (`download.bp`, the blueprint `files`)."""

from portal.files.pages.download import bp

__all__ = ["bp"]
