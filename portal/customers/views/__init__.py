"""The planners' customer pages: the list with search, a customer's page with its places,
create and edit with errors at the field, places added, changed and removed, deactivation
and deletion after a confirmation, and the import of customers from a file.

All routes are on one blueprint, `customers` (`common.bp`); importing this package registers
them: the customers (`customers`), their places (`places`) and the import
(`portal.customers.import_views`).
"""

from portal.customers import import_views
from portal.customers.views import customers, places
from portal.customers.views.common import bp

__all__ = ["bp", "customers", "import_views", "places"]
