"""
The C++ half of filterlab: the filter registry, filters built and queried over numpy buffers, and the simulator's commands. Use the `filterlab` package, which accepts lists, pandas and pyarrow data.
"""

from collections.abc import Sequence
from typing import Annotated, overload

import numpy
from numpy.typing import NDArray


class NativeFilter:
    """A built or deserialized filter with the policy of its spec."""

    @property
    def spec(self) -> str:
        """The canonical spec of the policy (every parameter resolved)."""

    @property
    def variant(self) -> str:
        """The variant name."""

    @property
    def layout(self) -> str:
        """
        The filter's layout as its serialized form names it, e.g. 'fastlocal:hash=64,probes=6,bytes=1280'.
        """

    @property
    def hash_bits(self) -> int:
        """Width of the hashes the filter consumes: 32 or 64."""

    @property
    def data_bytes(self) -> int:
        """Bytes of filter data (the bit array, without the trailer)."""

    @property
    def num_keys(self) -> int | None:
        """
        Keys the filter holds (repeats of the key before counted once), or None if unknown.
        """

    @property
    def hashed(self) -> bool:
        """
        True if uint64 arrays are the policy's hashes, False if they are integer keys.
        """

    @property
    def fp_model_kind(self) -> str:
        """What the model promises: exact, empirical, lower_bound or upper_bound."""

    def model_fp(self, n: int) -> float:
        """The policy's model FP rate for a filter of n distinct keys."""

    def model_fp_range(self, n: int, queries: int) -> tuple:
        """
        (low, high, rule): where a rate measured with `queries` outside queries may fall around the model for n keys, by the model's kind (filters/fp_tolerance.h).
        """

    def may_contain_uint64(self, values: Annotated[NDArray[numpy.uint64], dict(shape=(None,), order='C', device='cpu', writable=False)]) -> Annotated[NDArray[numpy.bool_], dict(shape=(None,))]:
        """Query uint64 keys (or hashes, if built hashed); the GIL is released."""

    @overload
    def may_contain_binary(self, offsets: Annotated[NDArray[numpy.int64], dict(shape=(None,), order='C', device='cpu', writable=False)], data: Annotated[NDArray[numpy.uint8], dict(shape=(None,), order='C', device='cpu', writable=False)]) -> Annotated[NDArray[numpy.bool_], dict(shape=(None,))]:
        """
        Query the byte-string keys data[offsets[i]:offsets[i+1]]; the GIL is released.
        """

    @overload
    def may_contain_binary(self, offsets: Annotated[NDArray[numpy.int32], dict(shape=(None,), order='C', device='cpu', writable=False)], data: Annotated[NDArray[numpy.uint8], dict(shape=(None,), order='C', device='cpu', writable=False)]) -> Annotated[NDArray[numpy.bool_], dict(shape=(None,))]: ...

    def serialize(self) -> bytes:
        """The serialized filter: the bytes of the engine's filter block."""

def build_uint64(spec: str, values: Annotated[NDArray[numpy.uint64], dict(shape=(None,), order='C', device='cpu', writable=False)], hashed: bool) -> NativeFilter:
    """
    Build from uint64 integer keys, or hashes if hashed; the GIL is released.
    """

@overload
def build_binary(spec: str, offsets: Annotated[NDArray[numpy.int64], dict(shape=(None,), order='C', device='cpu', writable=False)], data: Annotated[NDArray[numpy.uint8], dict(shape=(None,), order='C', device='cpu', writable=False)]) -> NativeFilter:
    """
    Build from the byte-string keys data[offsets[i]:offsets[i+1]]; the GIL is released.
    """

@overload
def build_binary(spec: str, offsets: Annotated[NDArray[numpy.int32], dict(shape=(None,), order='C', device='cpu', writable=False)], data: Annotated[NDArray[numpy.uint8], dict(shape=(None,), order='C', device='cpu', writable=False)]) -> NativeFilter: ...

def open(data: bytes, spec: str, hashed: bool, num_keys: int | None) -> NativeFilter:
    """Read serialized filter bytes, querying with spec's key hash."""

def variants() -> list:
    """Every registered variant as a dict, sorted by name."""

def run_sim(command: str, args: Sequence[str]) -> tuple:
    """
    Run a filterlab-sim command in-process: (records as JSON texts, help text).
    """

def check_spec(spec: str) -> str:
    """
    The canonical form of a point or range filter spec, or ValueError with the registry's reason.
    """

class NativeRangeFilter:
    """A built or deserialized range filter."""

    @property
    def spec(self) -> str | None:
        """
        The canonical spec of the policy, or None when read from bytes without a spec.
        """

    @property
    def variant(self) -> str:
        """The variant name."""

    @property
    def layout(self) -> str:
        """
        The filter's layout as its serialized form names it (every parameter its reader needs).
        """

    @property
    def num_keys(self) -> int:
        """Distinct keys the filter holds."""

    @property
    def data_bytes(self) -> int:
        """Bytes of filter data (without the checksum and trailer)."""

    @property
    def bits_per_key(self) -> float:
        """8 * data_bytes / num_keys: what the filter spends (0 for no keys)."""

    @property
    def key_type(self) -> str:
        """'uint64' or 'bytes': the keys it holds and the queries it answers."""

    @property
    def native_key_types(self) -> str:
        """The variant's native key types: 'uint64', 'bytes' or 'uint64,bytes'."""

    @property
    def fp_model_kind(self) -> str:
        """
        What model_fp promises: exact, upper_bound or empirical (no model: NaN).
        """

    def may_contain_range_uint64(self, lo: Annotated[NDArray[numpy.uint64], dict(shape=(None,), order='C', device='cpu', writable=False)], hi: Annotated[NDArray[numpy.uint64], dict(shape=(None,), order='C', device='cpu', writable=False)]) -> Annotated[NDArray[numpy.bool_], dict(shape=(None,))]:
        """Query the inclusive ranges [lo[i], hi[i]]; the GIL is released."""

    def may_contain_range_binary(self, lo_offsets: Annotated[NDArray[numpy.int64], dict(shape=(None,), order='C', device='cpu', writable=False)], lo_data: Annotated[NDArray[numpy.uint8], dict(shape=(None,), order='C', device='cpu', writable=False)], hi_offsets: Annotated[NDArray[numpy.int64], dict(shape=(None,), order='C', device='cpu', writable=False)], hi_data: Annotated[NDArray[numpy.uint8], dict(shape=(None,), order='C', device='cpu', writable=False)]) -> Annotated[NDArray[numpy.bool_], dict(shape=(None,))]:
        """
        Query the byte-string ranges between lo and hi keys (offsets into data); the GIL is released.
        """

    def may_contain_uint64(self, keys: Annotated[NDArray[numpy.uint64], dict(shape=(None,), order='C', device='cpu', writable=False)]) -> Annotated[NDArray[numpy.bool_], dict(shape=(None,))]:
        """Point queries on uint64 keys; the GIL is released."""

    def may_contain_binary(self, offsets: Annotated[NDArray[numpy.int64], dict(shape=(None,), order='C', device='cpu', writable=False)], data: Annotated[NDArray[numpy.uint8], dict(shape=(None,), order='C', device='cpu', writable=False)]) -> Annotated[NDArray[numpy.bool_], dict(shape=(None,))]:
        """Point queries on byte-string keys; the GIL is released."""

    def model_fp(self, n: int, range_length: int) -> float:
        """
        The policy's model (or bound) FP rate for an empty range of range_length values among n keys.
        """

    def query_model_fp(self, keys: Annotated[NDArray[numpy.uint64], dict(shape=(None,), order='C', device='cpu', writable=False)], lo: Annotated[NDArray[numpy.uint64], dict(shape=(None,), order='C', device='cpu', writable=False)], hi: Annotated[NDArray[numpy.uint64], dict(shape=(None,), order='C', device='cpu', writable=False)]) -> Annotated[NDArray[numpy.float64], dict(shape=(None,))]:
        """
        The filter's per-query model FP for each [lo[i], hi[i]], given the keys it was built from.
        """

    def serialize(self) -> bytes:
        """
        The serialized filter: data, checksum and trailer (an engine range filter block).
        """

def build_range_uint64(spec: str, keys: Annotated[NDArray[numpy.uint64], dict(shape=(None,), order='C', device='cpu', writable=False)]) -> NativeRangeFilter:
    """
    Build a range filter from uint64 keys in any order; the GIL is released.
    """

def build_range_binary(spec: str, offsets: Annotated[NDArray[numpy.int64], dict(shape=(None,), order='C', device='cpu', writable=False)], data: Annotated[NDArray[numpy.uint8], dict(shape=(None,), order='C', device='cpu', writable=False)], map_to_uint64: bool) -> NativeRangeFilter:
    """
    Build a range filter from the byte strings data[offsets[i]:offsets[i+1]] in any order; the GIL is released.
    """

def open_range(data: bytes, spec: str | None, key_type: str) -> NativeRangeFilter:
    """Read serialized range filter bytes; spec (optional) gives the model."""

def range_variants() -> list:
    """Every registered range variant as a dict, sorted by name."""
