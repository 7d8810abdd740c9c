"""The planners' customer pages: the list with search, a customer's page with its places,
create and edit with errors at the field, places added, changed and removed, deactivation
and deletion after a confirmation.

All routes are on one blueprint, `customers` (`common.bp`); importing this package registers
them: the customers (`customers`) and their places (`places`).
"""

from portal.customers.views import customers, places
from portal.customers.views.common import bp

__all__ = ["bp", "customers", "places"]
