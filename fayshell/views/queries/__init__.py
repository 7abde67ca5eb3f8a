"""The query layer: SQL issued to DuckDB, dataclasses returned. No textual here.

Every function takes a DuckDB connection (a cursor of its own, owned by the feed) as its first
argument and is synchronous: the feed runs it in a worker thread so the UI never waits on it.
"""
