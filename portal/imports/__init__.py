"""The import kit: what the tasks import and the customers import share."""
