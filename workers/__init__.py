"""Celery app and tasks that run bot searches on worker machines."""
