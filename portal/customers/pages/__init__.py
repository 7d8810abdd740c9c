"""The planners' customer pages: the list with search, a customer's page with its places,
create and edit with errors at the field, places added, changed and removed, deactivation
and deletion after a confirmation, and the import of customers from a file.

All routes are on one blueprint, `customers` (`kit.bp`); importing this package registers
them: the customers (`customers`), their places (`places`) and the import
(`portal.customers.pages.importing`).
"""

from portal.customers.pages import customers, importing, places
from portal.customers.pages.kit import bp

__all__ = ["bp", "customers", "importing", "places"]
