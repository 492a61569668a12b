"""Tournaments: the pure core (model, schedule, report) and the service runner."""
