"""Proof of delivery in the portal: the planner's bundle page, PDF and share links, and the
shipper's pages behind a share link (`kit.bp`, the blueprint `proof`)."""

from portal.proof.pages.kit import bp

__all__ = ["bp"]
