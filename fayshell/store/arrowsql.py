"""Small helpers between Arrow, numpy and DuckDB SQL."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fayshell.store.relation import quote_ident

if TYPE_CHECKING:
    import numpy as np
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


def int_column(t: pa.Table, col: str) -> np.ndarray:
    """An integer column as int64 numpy (NULL becomes 0, as DuckDB's grouping of ids would)."""
    import numpy as np

    c = t.column(col)
    if c.null_count:
        c = c.fill_null(0)
    return np.asarray(c.to_numpy(), np.int64)


def valid_mask(col: pa.ChunkedArray | pa.Array) -> np.ndarray:
    """Which values of ``col`` are not NULL."""
    import numpy as np

    return np.asarray(col.is_valid().to_numpy(zero_copy_only=False), bool)
