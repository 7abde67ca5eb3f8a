"""Small helpers between Arrow, numpy and DuckDB SQL."""

from __future__ import annotations

from types import ModuleType
from typing import TYPE_CHECKING, TypeAlias

from fayshell.store.relation import quote_ident

if TYPE_CHECKING:
    import numpy as np
    import pyarrow as pa

    ArrowColumn: TypeAlias = pa.Array | pa.ChunkedArray

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
    import pyarrow as pa

    c = t.column(col)
    if c.null_count:
        c = _kernels().call_function("coalesce", [c, pa.scalar(0, c.type)])
    return np.asarray(c.to_numpy(), np.int64)


def valid_mask(col: pa.ChunkedArray | pa.Array) -> np.ndarray:
    """Which values of ``col`` are not NULL."""
    import numpy as np

    valid = _kernels().call_function("is_valid", [col])
    return np.asarray(valid.to_numpy(zero_copy_only=False), bool)


def _kernels() -> ModuleType:
    """Arrow's compute kernels: ``pyarrow._compute`` when it is there, as importing
    ``pyarrow.compute`` builds a wrapper for each of its hundreds of kernels (0.1 s of a fresh
    process, on the way to the first answer of ``fayshell -c``)."""
    try:
        import pyarrow._compute as kernels
    except ImportError:  # a pyarrow without it: the public module
        import pyarrow.compute as kernels
    return kernels


def take(col: ArrowColumn, indices: object) -> ArrowColumn:
    """``col``'s values at ``indices`` (a NULL index gives NULL)."""
    return _kernels().call_function("take", [col, indices])


def filter_rows(t: pa.Table, mask: pa.Array) -> pa.Table:
    """The rows of ``t`` where ``mask`` is true."""
    return _kernels().call_function("filter", [t, mask])


def cast(col: ArrowColumn, typ: pa.DataType) -> ArrowColumn:
    """``col`` as ``typ``, checked (an overflow raises)."""
    k = _kernels()
    return k.call_function("cast", [col], k.CastOptions.safe(typ))


def one_chunk(col: ArrowColumn) -> pa.Array:
    """``col`` as one array."""
    import pyarrow as pa

    return col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col
