"""Analyses over the store: Compare-Node (which node is not like the others)."""

from __future__ import annotations
