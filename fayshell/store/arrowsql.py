"""Small helpers between Arrow types and DuckDB SQL."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fayshell.store.relation import quote_ident

if TYPE_CHECKING:
    import pyarrow as pa

_SIMPLE = {
    "int8": "TINYINT",
    "int16": "SMALLINT",
    "int32": "INTEGER",
    "int64": "BIGINT",
    "uint8": "UTINYINT",
    "uint16": "USMALLINT",
    "uint32": "UINTEGER",
    "uint64": "UBIGINT",
    "float": "FLOAT",
    "double": "DOUBLE",
    "string": "VARCHAR",
    "large_string": "VARCHAR",
    "bool": "BOOLEAN",
}


def duck_type(t: pa.DataType) -> str:
    """The DuckDB column type for an Arrow type."""
    import pyarrow as pa

    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return duck_type(t.value_type) + "[]"
    if pa.types.is_dictionary(t):
        return duck_type(t.value_type)
    name = str(t)
    if name not in _SIMPLE:
        raise ValueError(f"no DuckDB type for Arrow {t}")
    return _SIMPLE[name]


def as_bigint(expr: str) -> str:
    """An integer expression as BIGINT, 64-bit unsigned values wrapped to two's complement."""
    return (
        f"CAST(CASE WHEN CAST({expr} AS HUGEINT) >= 9223372036854775808 "
        f"THEN CAST({expr} AS HUGEINT) - 18446744073709551616 "
        f"ELSE CAST({expr} AS HUGEINT) END AS BIGINT)"
    )


def q(name: str) -> str:
    """A quoted identifier."""
    return quote_ident(name)
