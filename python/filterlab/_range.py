"""filterlab.RangeFilter: one registered range-filter variant
(filters/range/range_filter.h), built from keys in any order, asked about
ranges and points in batches, serialized as the engine's range filter blocks."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _native
from ._keys import native_keys

_KEY_TYPES = ("uint64", "bytes")
# RangeFilterHandle::CheckKeyType's message (python/src/range_filter_handle.cc).
_KEY_TYPE_MISMATCH = "this range filter holds {held} keys, so it is queried with {held} values; got {given} ones"


def _check_spec_type(spec: Any) -> str:
    if not isinstance(spec, str):
        raise TypeError(f"spec: expected a str such as 'grafite:bpk=16', got {type(spec).__name__}")
    return spec


def _is_scalar(x: Any) -> bool:
    return isinstance(x, (int, np.integer, bytes, str)) and not isinstance(x, bool)


def _binary(keys: Any, what: str) -> tuple[np.ndarray, np.ndarray]:
    """keys as (int64 offsets, uint8 data), the form the range calls take."""
    kind, *arrays = native_keys(keys, what)
    if kind != "binary":
        raise ValueError(f"{what}: {_KEY_TYPE_MISMATCH.format(held='byte-string', given='uint64')}")
    offsets, data = arrays
    return np.ascontiguousarray(offsets, dtype=np.int64), data


class RangeFilter:
    """A range filter of one registered variant (see ``filterlab.range_filters()``):
    asked whether the keys it was built from may hold a key in ``[lo, hi]`` (both ends
    inclusive), it answers False only when none does.

    ``RangeFilter(spec, keys)`` builds it: ``spec`` is a range-filter spec as
    ``filterlab-sim rangefp --filter`` takes it (``"grafite:bpk=16"``,
    ``"surf:suffix=real,bits=8"``); ``keys`` are in any order, repeats counting once
    (they are sorted and de-duplicated into a copy, unless they already ascend
    strictly, the order the C++ build takes), and are either

    * integers: a numpy array of an integer dtype (non-negative), a list of int, a
      pandas or pyarrow integer column: the key values themselves, in numeric order
      (not hashed: a range filter needs their order). Queries are then integers;
    * byte strings, for a variant whose key types include ``bytes`` (``surf``,
      ``prefix_bloom``): a list of bytes or str (str as UTF-8), a numpy bytes/str
      array, a pyarrow binary or string array, in bytewise order. Queries are then byte
      strings. An integer-only variant (``grafite``, ``bucketing``, ``rosetta``)
      refuses them unless ``bytes_as_uint64=True``: each string is then keyed by its
      first 8 bytes, big-endian, zero-padded, as the engine's range filter blocks key
      such a variant (strings sharing those bytes merge); queries are byte strings,
      mapped the same way.

    Building and querying release the GIL. A bad spec, a wrong dtype, a key type the
    variant does not take, or a range with ``hi < lo`` raises ``ValueError`` with
    the message the command line and the C++ interface give.
    """

    __slots__ = ("_native",)

    def __init__(self, spec: str, keys: Any, *, bytes_as_uint64: bool = False) -> None:
        _check_spec_type(spec)
        kind, *arrays = native_keys(keys)
        if kind == "uint64":
            self._native = _native.build_range_uint64(spec, arrays[0])
        else:
            offsets, data = arrays
            self._native = _native.build_range_binary(spec, np.ascontiguousarray(offsets, dtype=np.int64), data,
                                                      bool(bytes_as_uint64))

    @classmethod
    def _wrap(cls, native: _native.NativeRangeFilter) -> RangeFilter:
        f = cls.__new__(cls)
        f._native = native
        return f

    # --- queries ---------------------------------------------------------------------------------

    def may_contain_range(self, lo: Any, hi: Any) -> np.ndarray | bool:
        """A numpy bool array, one answer per range ``[lo[i], hi[i]]`` (both ends
        inclusive): False where no key lies in the range, True where one may. ``lo`` and
        ``hi`` are arrays of equal length in the filter's key type (integers, or byte
        strings in bytewise order); two scalars give one bool. ``hi[i] < lo[i]`` is a
        ValueError naming the first such range. One C++ call over all ranges, GIL
        released."""
        if _is_scalar(lo) and _is_scalar(hi):
            return bool(self.may_contain_range([lo], [hi])[0])
        if self._native.key_type == "bytes":
            lo_offsets, lo_data = _binary(lo, "lo")
            hi_offsets, hi_data = _binary(hi, "hi")
            return self._native.may_contain_range_binary(lo_offsets, lo_data, hi_offsets, hi_data)
        return self._native.may_contain_range_uint64(self._uint64(lo, "lo"), self._uint64(hi, "hi"))

    def may_contain(self, keys: Any) -> np.ndarray:
        """Point queries: a numpy bool array, False where the key was certainly not
        built in. ``keys`` in the filter's key type; one C++ call, GIL released."""
        if self._native.key_type == "bytes":
            return self._native.may_contain_binary(*_binary(keys, "keys"))
        return self._native.may_contain_uint64(self._uint64(keys, "keys"))

    def __contains__(self, key: Any) -> bool:
        return bool(self.may_contain([key])[0])

    @staticmethod
    def _uint64(values: Any, what: str) -> np.ndarray:
        kind, *arrays = native_keys(values, what)
        if kind != "uint64":
            raise ValueError(f"{what}: {_KEY_TYPE_MISMATCH.format(held='uint64', given='byte-string')}")
        return arrays[0]

    # --- what it is ------------------------------------------------------------------------------

    @property
    def spec(self) -> str | None:
        """The canonical spec, every parameter resolved; None when read from bytes
        without ``spec``."""
        return self._native.spec

    @property
    def variant(self) -> str:
        """The registered variant's name."""
        return self._native.variant

    @property
    def layout(self) -> str:
        """The layout the serialized bytes name (``grafite:keys=1000,...``)."""
        return self._native.layout

    @property
    def key_type(self) -> str:
        """``"uint64"`` or ``"bytes"``: the keys it was built from and the queries it takes."""
        return self._native.key_type

    @property
    def native_key_types(self) -> str:
        """The variant's native key types: ``uint64``, ``bytes`` or ``uint64,bytes``."""
        return self._native.native_key_types

    @property
    def num_keys(self) -> int:
        """Distinct keys it holds (repeats counted once)."""
        return self._native.num_keys

    @property
    def nbytes(self) -> int:
        """Bytes of filter data (without the serialized checksum and trailer)."""
        return self._native.data_bytes

    @property
    def bits_per_key(self) -> float:
        """What it spends: 8 * nbytes / num_keys (0 for no keys)."""
        return self._native.bits_per_key

    @property
    def fp_model_kind(self) -> str:
        """What ``model_fp`` gives: ``exact`` (a derived model), ``upper_bound`` (a
        proven bound: Grafite's) or ``empirical`` (no model: NaN)."""
        return self._native.fp_model_kind

    def model_fp(self, range_length: int = 1, n: int | None = None) -> float:
        """The variant's model FP rate (or its bound, by ``fp_model_kind``) for an
        empty range of ``range_length`` values whose position does not depend on the
        keys, among ``n`` keys (default: the keys it holds); NaN for a variant without
        a model. ``RangeFilterPolicy::ModelFpRate``."""
        if n is None:
            n = self.num_keys
        return self._native.model_fp(int(n), int(range_length))

    def query_model_fp(self, lo: Any, hi: Any, keys: Any) -> np.ndarray:
        """The model FP (or bound) of each query ``[lo[i], hi[i]]`` for this built
        filter, given the integer ``keys`` it was built from (any order): the realized
        sizes and, where the model depends on where a query falls (prefix Bloom), the
        keys near it. Its mean over empty queries is ``filterlab-sim rangefp``'s
        ``model_fp``. NaN for a variant without a model."""
        if self.key_type == "bytes":
            raise ValueError("query_model_fp: this range filter holds byte-string keys; the per-query model "
                             "(RangeFilter::QueryModelFp) is defined over uint64 keys")
        return self._native.query_model_fp(self._uint64(keys, "keys"), self._uint64(lo, "lo"),
                                           self._uint64(hi, "hi"))

    # --- bytes -----------------------------------------------------------------------------------

    def to_bytes(self) -> bytes:
        """The serialized filter (the variant's bytes, a checksum and the trailer naming
        its layout): the bytes of the engine's range filter block for the same keys."""
        return self._native.serialize()

    @classmethod
    def from_bytes(cls, data: bytes | bytearray | memoryview, spec: str | None = None, *,
                   key_type: str = "uint64") -> RangeFilter:
        """Reads serialized range-filter bytes (``to_bytes``, an engine range filter
        block): the layout they carry names the variant. ``spec`` (optional, of the same
        variant) gives ``model_fp``; ``key_type`` says what the filter was built from
        (``"uint64"`` or ``"bytes"``), which the bytes do not record. Damaged bytes raise
        ValueError."""
        if spec is not None:
            _check_spec_type(spec)
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise ValueError(f"data: expected bytes, got {type(data).__name__}")
        if key_type not in _KEY_TYPES:
            raise ValueError(f"key_type: got {key_type!r}; allowed: 'uint64', 'bytes'")
        return cls._wrap(_native.open_range(bytes(data), spec, key_type))

    def __reduce__(self):
        # Pickles (Dask, multiprocessing) as its bytes with what from_bytes needs.
        return (_from_pickle, (self.to_bytes(), self.spec, self.key_type))

    def __repr__(self) -> str:
        return (f"RangeFilter({self.spec or self.layout!r}, num_keys={self.num_keys}, "
                f"bits_per_key={self.bits_per_key:.3f}, key_type={self.key_type!r})")


def _from_pickle(data: bytes, spec: str | None, key_type: str) -> RangeFilter:
    return RangeFilter.from_bytes(data, spec, key_type=key_type)
