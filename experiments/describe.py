"""Reading a binary's self-description (`BINARY --describe`, common/flags.h):
{"program", "summary", "commands": [{"command", "summary", "flags": [...],
"fields": [...]}]}. Descriptions are cached beside the build in
BUILD/.describe-cache.json, keyed by the binary's path, size and mtime, so a
rebuilt binary is asked again and an unchanged one costs nothing."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

CACHE_NAME = ".describe-cache.json"

# In this process: (path, size, mtime_ns) -> description.
_memo: dict[tuple, dict] = {}


class DescribeError(Exception):
    """The binary is missing or did not describe itself."""


def _stamp(binary: Path) -> tuple:
    st = binary.stat()
    return (str(binary), st.st_size, st.st_mtime_ns)


def _cache_file(binary: Path) -> Path:
    """The build dir's cache: the nearest parent holding CMakeCache.txt, else the binary's own dir."""
    for parent in binary.resolve().parents:
        if (parent / "CMakeCache.txt").exists():
            return parent / CACHE_NAME
    return binary.resolve().parent / CACHE_NAME


def _read_cache(path: Path) -> dict:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return {}


def _write_cache(path: Path, cache: dict) -> None:
    """Best effort: a read-only build dir only loses the cache."""
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(json.dumps(cache))
        os.replace(tmp, path)
    except OSError:
        tmp.unlink(missing_ok=True)


def describe(binary: Path) -> dict:
    """The program description of `binary` (cached per size and mtime)."""
    binary = Path(binary)
    try:
        stamp = _stamp(binary)
    except OSError as e:
        raise DescribeError(f"{binary} does not exist ({e.strerror}); build it (./filterlab build) or point "
                            "FILTERLAB_BUILD at a build dir") from None
    if stamp in _memo:
        return _memo[stamp]
    cache_path = _cache_file(binary)
    cache = _read_cache(cache_path)
    entry = cache.get(stamp[0])
    if entry and [entry.get("size"), entry.get("mtime_ns")] == list(stamp[1:]):
        _memo[stamp] = entry["description"]
        return entry["description"]
    try:
        out = subprocess.run([str(binary), "--describe"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise DescribeError(f"cannot run {binary} --describe: {e}") from None
    try:
        desc = json.loads(out.stdout)
        ok = out.returncode == 0 and isinstance(desc, dict) and isinstance(desc.get("commands"), list)
    except ValueError:
        ok = False
    if not ok:
        raise DescribeError(f"{binary} --describe gave no description (exit {out.returncode}; the runner needs "
                            f"binaries that describe their flags: rebuild with ./filterlab build): "
                            f"{(out.stderr or out.stdout).strip()[:300]}")
    cache[stamp[0]] = {"size": stamp[1], "mtime_ns": stamp[2], "description": desc}
    _write_cache(cache_path, cache)
    _memo[stamp] = desc
    return desc


def command_description(binary: Path, command: str | None) -> dict:
    """One command's description; command=None: the program's only command."""
    commands = describe(binary)["commands"]
    if command is None:
        if len(commands) != 1:
            raise DescribeError(f"{binary} --describe lists {len(commands)} commands; the runner expected one")
        return commands[0]
    for c in commands:
        if c.get("command") == command:
            return c
    raise DescribeError(f"{binary} --describe has no command '{command}'; it has: "
                        + ", ".join(str(c.get("command")) for c in commands))
