"""The DuckDB store: the session database, relations, schema, trace loader and derived tables."""
