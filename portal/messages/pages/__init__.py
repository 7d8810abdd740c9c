"""The messages page (/berichten): compose a message to drivers, and the history."""

from portal.messages.pages.compose import bp

__all__ = ["bp"]
