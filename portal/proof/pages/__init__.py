"""Proof of delivery in the portal, on one blueprint `proof` (`kit.bp`): the planner's
bundle page, PDF and share links (`planner`), and the shipper's pages behind a share link
(`shipper`). Importing this package registers the routes."""

from portal.proof.pages import planner, shipper
from portal.proof.pages.kit import bp

__all__ = ["bp", "planner", "shipper"]
