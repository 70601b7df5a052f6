"""What `Filter` and `Filter.may_contain` accept as keys, turned into the two
forms the C++ side takes: a C-contiguous uint64 array (integer keys, or hashes
with hashed=True), or byte strings as (offsets, data) buffers — Arrow's own
layout, so a pyarrow binary or string array is passed without a copy.

Accepted: numpy arrays of an integer dtype (non-negative values), of bytes or
str (dtype S, U or object); pandas Series and Index; pyarrow arrays and chunked
arrays of binary, string or integer type; lists and tuples of bytes, str or
int. str keys are their UTF-8 bytes (as in an Arrow string array). Anything
else is a ValueError naming what was given and what is allowed."""

from __future__ import annotations

from typing import Any

import numpy as np

ALLOWED = ("allowed: a numpy array of an integer dtype (integer keys, or 64-bit hashes with hashed=True), "
           "of bytes or str; a pandas Series or Index; a pyarrow binary, string or integer array; "
           "a list of bytes, str or int")

# ("uint64", values) or ("binary", offsets, data)
NativeKeys = tuple


def _pyarrow():
    import pyarrow as pa

    return pa


def _is_pyarrow(obj: Any) -> bool:
    return type(obj).__module__.startswith("pyarrow")


def _is_pandas(obj: Any) -> bool:
    return type(obj).__module__.startswith("pandas")


def native_keys(keys: Any, what: str = "keys") -> NativeKeys:
    """keys as ("uint64", array) or ("binary", offsets, data); ``what`` names the
    argument in error messages."""
    if isinstance(keys, np.ndarray):
        return _from_numpy(keys, what)
    if _is_pyarrow(keys):
        return _from_arrow(keys, what)
    if _is_pandas(keys):
        return _from_pandas(keys, what)
    if isinstance(keys, (list, tuple)):
        return _from_sequence(keys, what)
    if isinstance(keys, (bytes, bytearray, memoryview, str, int, np.integer)):
        raise ValueError(f"{what}: got one key ({type(keys).__name__}), not a collection of keys; "
                         f"pass [key] for one key ({ALLOWED})")
    raise ValueError(f"{what}: got {type(keys).__module__}.{type(keys).__qualname__}; {ALLOWED}")


def _from_numpy(a: np.ndarray, what: str) -> NativeKeys:
    if a.ndim != 1:
        raise ValueError(f"{what}: a numpy array of shape {a.shape}; keys must be one-dimensional")
    kind = a.dtype.kind
    if kind == "u":
        return ("uint64", np.ascontiguousarray(a, dtype=np.uint64))
    if kind == "i":
        if a.size and a.min() < 0:
            i = int(np.argmax(a < 0))
            raise ValueError(f"{what}: integer key {int(a[i])} at index {i} is negative; integer keys are "
                             f"0..2^64-1 (numpy dtype {a.dtype})")
        return ("uint64", np.ascontiguousarray(a, dtype=np.uint64))
    if kind in "SUO":
        return _from_sequence(a.tolist(), what)
    raise ValueError(f"{what}: a numpy array of dtype {a.dtype}; {ALLOWED}")


def _from_pandas(s: Any, what: str) -> NativeKeys:
    import pandas as pd

    if not isinstance(s, (pd.Series, pd.Index)):
        raise ValueError(f"{what}: got pandas {type(s).__name__}; {ALLOWED} (a DataFrame: pass one column, df['key'])")
    if isinstance(s.dtype, np.dtype):
        return _from_numpy(s.to_numpy(), what)
    # Extension dtypes (Arrow-backed, nullable integers, pandas strings): through Arrow.
    return _from_arrow(_pyarrow().array(s), what)


def _from_arrow(arr: Any, what: str) -> NativeKeys:
    pa = _pyarrow()
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    if not isinstance(arr, pa.Array):
        raise ValueError(f"{what}: got pyarrow {type(arr).__name__}; {ALLOWED}")
    if arr.null_count:
        first = int(np.argmax(arr.is_null().to_numpy(zero_copy_only=False)))
        raise ValueError(f"{what}: the array has {arr.null_count} nulls (the first at index {first}); "
                         f"a key cannot be null")
    t = arr.type
    if pa.types.is_integer(t):
        return _from_numpy(arr.to_numpy(zero_copy_only=False), what)
    if hasattr(pa.types, "is_binary_view") and (pa.types.is_binary_view(t) or pa.types.is_string_view(t)):
        arr = arr.cast(pa.large_binary())
        t = arr.type
    if pa.types.is_binary(t) or pa.types.is_string(t):
        offset_type = np.int32
    elif pa.types.is_large_binary(t) or pa.types.is_large_string(t):
        offset_type = np.int64
    else:
        raise ValueError(f"{what}: a pyarrow array of type {t}; {ALLOWED}")
    _, offsets_buf, data_buf = arr.buffers()
    offsets = np.frombuffer(offsets_buf, dtype=offset_type)[arr.offset:arr.offset + len(arr) + 1]
    data = np.frombuffer(data_buf, dtype=np.uint8) if data_buf is not None else np.zeros(0, np.uint8)
    if len(offsets) == 0:  # an empty array may have no offsets buffer content
        offsets = np.zeros(1, dtype=offset_type)
    return ("binary", offsets, data)


def _from_sequence(seq: list | tuple, what: str) -> NativeKeys:
    if len(seq) == 0:
        return ("uint64", np.zeros(0, dtype=np.uint64))
    first = seq[0]
    if isinstance(first, (int, np.integer)) and not isinstance(first, bool):
        for i, k in enumerate(seq):
            if not isinstance(k, (int, np.integer)) or isinstance(k, bool):
                raise ValueError(f"{what}: key {i} is {type(k).__name__}, but key 0 is an integer; "
                                 f"keys must all be integers or all bytes/str")
            if not 0 <= k < 2**64:
                raise ValueError(f"{what}: integer key {k} at index {i} is out of range; integer keys are 0..2^64-1")
        return ("uint64", np.array(seq, dtype=np.uint64))
    parts = []
    for i, k in enumerate(seq):
        if isinstance(k, str):
            parts.append(k.encode("utf-8"))
        elif isinstance(k, (bytes, bytearray, memoryview)):
            parts.append(bytes(k))
        else:
            raise ValueError(f"{what}: key {i} is {type(k).__name__}; keys must all be bytes/str, or all integers "
                             f"({ALLOWED})")
    lengths = np.fromiter(map(len, parts), dtype=np.int64, count=len(parts))
    offsets = np.zeros(len(parts) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    data = np.frombuffer(b"".join(parts), dtype=np.uint8)
    return ("binary", offsets, data)
