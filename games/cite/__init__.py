"""Cité, a dice-and-card survival game for 2-6 players (shared/rules/cite.md)."""
