"""How the runner reaches a Dask cluster (--cluster ADDRESS): over TLS with the
cluster's certificates (--tls-ca-file, --tls-cert, --tls-key, or Dask's config
distributed.comm.tls.*, as `./filterlab cluster-certs` writes it), or over
plain tcp to this machine. A Dask scheduler runs whatever a connected client
sends it (pickled Python functions, so shell commands) on every worker, so
plain tcp to any other address is refused unless --insecure says the network
is trusted; then a warning says what that exposes. Checked before anything
connects."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

INSECURE_WARNING = (
    "warning: --insecure: {address} is plain tcp to a machine other than this one: anyone who can reach that "
    "scheduler can connect as a client and run any code (pickled Python, shell commands) on every worker with "
    "the workers' rights, and can read or change every run's parameters and results on the way; use "
    "tls:// with `./filterlab cluster-certs DIR` unless every machine on that network is yours")


class ClusterError(ValueError):
    """A --cluster / --tls-* combination the runner refuses, with the reason."""


@dataclass(frozen=True)
class ClusterTarget:
    address: str  # as Dask takes it: tls://host:port or tcp://host:port
    tls_files: tuple[str, str, str] | None  # (ca, cert, key) from the options, or None
    warning: str | None  # printed before connecting (--insecure)

    def security(self):
        """The distributed.Security for the client, or None for plain tcp."""
        if not self.address.startswith("tls://"):
            return None
        from distributed.security import Security

        if self.tls_files:
            ca, cert, key = self.tls_files
            return Security(tls_ca_file=ca, tls_client_cert=cert, tls_client_key=key, require_encryption=True)
        return Security(require_encryption=True)  # Dask's config: distributed.comm.tls.*


def is_loopback(host: str) -> bool:
    """True for localhost and addresses in 127.0.0.0/8 or ::1. Other names count as
    remote: they are not resolved (what a name resolves to can change)."""
    host = host.strip("[]")
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def cluster_target(address: str, tls_ca_file: str | None = None, tls_cert: str | None = None,
                   tls_key: str | None = None, insecure: bool = False) -> ClusterTarget:
    """Checks the options; ClusterError says what is wrong and what is allowed."""
    scheme, sep, rest = address.partition("://")
    if not sep:
        scheme, rest = "tcp", address  # Dask's default protocol
    if scheme not in ("tcp", "tls"):
        raise ClusterError(f"--cluster {address}: protocol {scheme!r} is not supported; "
                           f"allowed: tls://HOST:PORT, or tcp://HOST:PORT on this machine")
    parts = urlsplit(f"//{rest}")
    try:
        port = parts.port
    except ValueError:
        port = None
    if not parts.hostname or port is None:
        raise ClusterError(f"--cluster {address}: expected {scheme}://HOST:PORT (e.g. {scheme}://127.0.0.1:8786)")
    given = [x for x in (tls_ca_file, tls_cert, tls_key) if x]
    if given and len(given) != 3:
        raise ClusterError("--tls-ca-file, --tls-cert and --tls-key go together: give all three "
                           "(`./filterlab cluster-certs DIR` makes them) or none (Dask's config)")
    tls_files = (tls_ca_file, tls_cert, tls_key) if given else None
    normalized = f"{scheme}://{rest}"
    if scheme == "tcp":
        if tls_files:
            raise ClusterError(f"--cluster {address}: the --tls-* options need a tls:// address "
                               f"(tls://{rest})")
        if not is_loopback(parts.hostname):
            if not insecure:
                raise ClusterError(
                    f"--cluster {address}: refusing plain tcp to a machine other than this one: anyone who can "
                    f"reach the scheduler could run code on every worker. Use tls://{rest} with the cluster's "
                    f"certificates (`./filterlab cluster-certs DIR`, then --tls-ca-file, --tls-cert, --tls-key; "
                    f"README, 'Running on a Dask cluster'), or pass --insecure if every machine on that network "
                    f"is yours")
            return ClusterTarget(normalized, None, INSECURE_WARNING.format(address=normalized))
        return ClusterTarget(normalized, None, None)
    for option, path in zip(("--tls-ca-file", "--tls-cert", "--tls-key"), tls_files or ()):
        if not Path(path).is_file():
            raise ClusterError(f"{option} {path}: no such file")
    if tls_files:
        target = ClusterTarget(normalized, tls_files, None)
        try:  # the client's TLS context, as Dask will make it: a key that is not the certificate's fails here
            target.security().get_connection_args("client")
        except (OSError, ValueError) as e:
            raise ClusterError(f"--tls-ca-file {tls_ca_file}, --tls-cert {tls_cert}, --tls-key {tls_key}: "
                               f"not a usable CA, certificate and matching key ({e})") from None
        return target
    import dask

    if not dask.config.get("distributed.comm.tls.ca-file", None):
        raise ClusterError(f"--cluster {address}: tls needs the cluster's certificates: --tls-ca-file, "
                           f"--tls-cert and --tls-key (`./filterlab cluster-certs DIR` makes them), or Dask's "
                           f"config distributed.comm.tls.* (DASK_CONFIG=DIR reads DIR/dask-tls.yaml)")
    return ClusterTarget(normalized, None, None)
