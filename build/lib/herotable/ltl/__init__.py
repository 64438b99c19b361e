"""Larger Than Life rules (R-LTL-1 … R-LTL-19)."""
