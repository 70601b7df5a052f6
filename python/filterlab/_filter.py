"""filterlab.Filter: one registered filter variant, built from keys, queried in
batches, serialized as the engine's filter blocks are."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _native
from ._keys import native_keys


def _check_spec_type(spec: Any) -> str:
    if not isinstance(spec, str):
        raise TypeError(f"spec: expected a str such as 'fastlocal:bpk=10', got {type(spec).__name__}")
    return spec


class Filter:
    """A membership filter of one registered variant (see ``filterlab.filters()``).

    ``Filter(spec, keys)`` builds it: ``spec`` is a spec string as the command line
    takes it (``"fastlocal:bpk=10"``, ``"binary_fuse:arity=4"``); ``keys`` is

    * a numpy array of an integer dtype: integer keys, each hashed as lsmbench's key
      of that number (8-byte big-endian number, '0' bytes up to 16 bytes) with the
      variant's own key hash; with ``hashed=True`` the values are already the
      64-bit hashes the filter consumes (a 32-bit variant refuses values that do not
      fit in 32 bits);
    * byte strings: a list of bytes or str (str as UTF-8), a numpy array of bytes or
      str, a pyarrow binary or string array (read in place), a pandas Series or Index.

    A key equal to the one just before it counts once, as in the engine's filter
    blocks. Building and querying release the GIL, so threads build and query
    filters in parallel.

    A bad spec, a wrong dtype or a key type the filter does not take raises
    ``ValueError`` with the message the command line gives for it.
    """

    __slots__ = ("_native",)

    def __init__(self, spec: str, keys: Any, *, hashed: bool = False) -> None:
        _check_spec_type(spec)
        kind, *arrays = native_keys(keys)
        if kind == "uint64":
            self._native = _native.build_uint64(spec, arrays[0], bool(hashed))
        elif hashed:
            raise ValueError("keys: hashed=True takes a uint64 array of hashes; got byte-string keys "
                             "(pass hashed=False to hash them with the variant's key hash)")
        else:
            self._native = _native.build_binary(spec, *arrays)

    @classmethod
    def _wrap(cls, native: _native.NativeFilter) -> Filter:
        f = cls.__new__(cls)
        f._native = native
        return f

    # --- queries ---------------------------------------------------------------------------------

    def may_contain(self, keys: Any) -> np.ndarray:
        """A numpy bool array: False where the key was certainly not added, True
        where it may have been. ``keys`` takes the forms ``Filter`` takes; a uint64
        array is read as this filter was built (integer keys, or hashes if
        ``hashed``). One C++ batched call over the whole array, GIL released."""
        kind, *arrays = native_keys(keys)
        if kind == "uint64":
            return self._native.may_contain_uint64(arrays[0])
        if self._native.hashed:
            raise ValueError("keys: this filter takes 64-bit hashes (it was built with hashed=True); "
                             "got byte-string keys")
        return self._native.may_contain_binary(*arrays)

    def __contains__(self, key: Any) -> bool:
        return bool(self.may_contain([key])[0])

    # --- what it is ------------------------------------------------------------------------------

    @property
    def spec(self) -> str:
        """The canonical spec, every parameter resolved (``fastlocal:bpk=10,probes=6,hash=64``)."""
        return self._native.spec

    @property
    def variant(self) -> str:
        """The registered variant's name."""
        return self._native.variant

    @property
    def layout(self) -> str:
        """The layout the serialized bytes name (``fastlocal:hash=64,probes=6,bytes=1280``)."""
        return self._native.layout

    @property
    def hash_bits(self) -> int:
        """Width of the hashes the filter consumes: 32 or 64."""
        return self._native.hash_bits

    @property
    def hashed(self) -> bool:
        """True if uint64 arrays are hashes, False if they are integer keys."""
        return self._native.hashed

    @property
    def num_keys(self) -> int | None:
        """Keys it was built from (a repeat of the key before counts once); None if read
        from bytes without ``num_keys``."""
        return self._native.num_keys

    @property
    def nbytes(self) -> int:
        """Bytes of filter data (the bit array, without the serialized trailer)."""
        return self._native.data_bytes

    @property
    def bits_per_key(self) -> float | None:
        """Actual bits per key, 8 * nbytes / num_keys (None when num_keys is unknown)."""
        n = self.num_keys
        return 8 * self.nbytes / n if n else None

    @property
    def fp_model_kind(self) -> str:
        """What ``model_fp`` promises: exact, empirical, lower_bound or upper_bound."""
        return self._native.fp_model_kind

    def model_fp(self, n: int | None = None) -> float:
        """The variant's analytic FP rate for a filter of ``n`` distinct keys (default:
        the keys it was built from), the model ``filterlab-sim model`` and ``fp`` report."""
        if n is None:
            n = self.num_keys
            if n is None:
                raise ValueError("model_fp: this filter was read from bytes without num_keys; pass n")
        return self._native.model_fp(int(n))

    def model_fp_range(self, queries: int, n: int | None = None) -> tuple[float, float, str]:
        """``(low, high, rule)``: where an FP rate measured with ``queries`` outside
        queries may fall around ``model_fp(n)``, by what the model promises (the
        tolerance every statistical test of the project uses, filters/fp_tolerance.h):
        4 binomial sigma plus 5% for an exact model, 15% for an empirical fit, one
        side only for a bound."""
        if n is None:
            n = self.num_keys
            if n is None:
                raise ValueError("model_fp_range: this filter was read from bytes without num_keys; pass n")
        return self._native.model_fp_range(int(n), int(queries))

    # --- bytes -----------------------------------------------------------------------------------

    def to_bytes(self) -> bytes:
        """The serialized filter: exactly the bytes of the engine's filter block for
        the same keys and spec (RocksDB's formats bit-exact where the variant has one)."""
        return self._native.serialize()

    @classmethod
    def from_bytes(cls, data: bytes | bytearray | memoryview, spec: str, *, hashed: bool = False,
                   num_keys: int | None = None) -> Filter:
        """Reads serialized filter bytes (``to_bytes``, an engine filter block). As the
        engine's table reader, ``spec`` supplies the key hash the filter was built with
        and must make hashes of the filter's width; ``num_keys`` (if known) gives
        ``bits_per_key`` and ``model_fp()``. Damaged bytes raise ValueError."""
        _check_spec_type(spec)
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise ValueError(f"data: expected bytes, got {type(data).__name__}")
        return cls._wrap(_native.open(bytes(data), spec, bool(hashed), None if num_keys is None else int(num_keys)))

    def __reduce__(self):
        # Pickles (Dask, multiprocessing) as its bytes with what from_bytes needs.
        return (_from_pickle, (self.to_bytes(), self.spec, self.hashed, self.num_keys))

    def __repr__(self) -> str:
        bpk = self.bits_per_key
        return (f"Filter({self.spec!r}, num_keys={self.num_keys}, "
                f"bits_per_key={'None' if bpk is None else f'{bpk:.3f}'}, nbytes={self.nbytes}"
                f"{', hashed=True' if self.hashed else ''})")


def _from_pickle(data: bytes, spec: str, hashed: bool, num_keys: int | None) -> Filter:
    return Filter.from_bytes(data, spec, hashed=hashed, num_keys=num_keys)
