"""Approval rules: the calls a user has said run without asking, or never run."""
