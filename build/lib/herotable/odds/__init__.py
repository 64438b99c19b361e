"""Exact odds for Larger Than Life and Conviction: exchanges, checks, whole duels, melees and the advisor."""
