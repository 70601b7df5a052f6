"""`./filterlab cluster-certs DIR` (`python -m experiments cluster-certs DIR`): a
certificate authority of the cluster's own and certificates for its three roles,
so a Dask cluster over TLS admits only the machines that hold one.

Dask's TLS is mutual (distributed/security.py): the scheduler, every worker and
every client present a certificate, and each side accepts only certificates
signed by the CA file it is given. It checks no host names, expecting "a
dedicated CA for the cluster", which this is. Files written:

  ca.pem                          the CA's certificate: every machine needs it
  scheduler.pem, scheduler-key.pem   the scheduler's certificate and key
  worker.pem, worker-key.pem         one for all workers (copy to each worker machine)
  client.pem, client-key.pem         for `./filterlab run --cluster tls://...`
  dask-tls.yaml                   Dask config naming them (DASK_CONFIG=DIR)

The CA's private key is never written: no one, this command included, can sign
another certificate for this cluster, so a stolen copy of DIR is the only way in;
to admit another kind of member, make a new DIR and hand it out again. Keys are
written mode 0600. Keys are ECDSA P-256, certificates valid for --days (365)."""

from __future__ import annotations

import argparse
import datetime
import ipaddress
import os
import sys
from pathlib import Path

ROLES = ("scheduler", "worker", "client")


def _files(folder: Path) -> list[Path]:
    names = ["ca.pem", "dask-tls.yaml"] + [f"{r}{suffix}" for r in ROLES for suffix in (".pem", "-key.pem")]
    return [folder / n for n in names]


def _write(path: Path, data: bytes, private: bool) -> None:
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
    fd = os.open(path, flags, 0o600 if private else 0o644)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    os.chmod(path, 0o600 if private else 0o644)


def make_cluster_certs(folder: str | Path, *, days: int = 365, overwrite: bool = False) -> dict[str, Path]:
    """Writes the CA certificate, each role's certificate and key, and dask-tls.yaml
    into folder; returns {name: path}. Refuses to replace existing files unless
    overwrite (they may be what a running cluster uses)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    if days < 1:
        raise ValueError(f"--days: got {days}; allowed: a whole number >= 1")
    folder = Path(folder)
    existing = [p for p in _files(folder) if p.exists()]
    if existing and not overwrite:
        raise FileExistsError(f"{folder} already holds {', '.join(p.name for p in existing)}: a cluster may be using "
                              f"them; choose another folder or pass --overwrite")
    folder.mkdir(parents=True, exist_ok=True)

    now = datetime.datetime.now(datetime.timezone.utc)
    start, end = now - datetime.timedelta(minutes=5), now + datetime.timedelta(days=days)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"filterlab cluster CA {now:%Y-%m-%d %H:%M:%S}")])
    ca_cert = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name)
               .public_key(ca_key.public_key()).serial_number(x509.random_serial_number())
               .not_valid_before(start).not_valid_after(end)
               .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
               .add_extension(x509.KeyUsage(digital_signature=False, content_commitment=False,
                                            key_encipherment=False, data_encipherment=False, key_agreement=False,
                                            key_cert_sign=True, crl_sign=True, encipher_only=False,
                                            decipher_only=False), critical=True)
               .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
               .sign(ca_key, hashes.SHA256()))
    pem = serialization.Encoding.PEM
    paths = {"ca": folder / "ca.pem"}
    _write(paths["ca"], ca_cert.public_bytes(pem), private=False)
    for role in ROLES:
        key = ec.generate_private_key(ec.SECP256R1())
        cert = (x509.CertificateBuilder()
                .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"filterlab cluster {role}")]))
                .issuer_name(ca_name).public_key(key.public_key()).serial_number(x509.random_serial_number())
                .not_valid_before(start).not_valid_after(end)
                .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
                .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH,
                                                      ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False)
                # Dask checks no host names; these make the certificates usable where a tool does.
                .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost"),
                                                            x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
                                                            x509.IPAddress(ipaddress.ip_address("::1"))]),
                               critical=False)
                .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()),
                               critical=False)
                .sign(ca_key, hashes.SHA256()))
        paths[role] = folder / f"{role}.pem"
        paths[f"{role}-key"] = folder / f"{role}-key.pem"
        _write(paths[role], cert.public_bytes(pem), private=False)
        _write(paths[f"{role}-key"], key.private_bytes(pem, serialization.PrivateFormat.PKCS8,
                                                       serialization.NoEncryption()), private=True)
    del ca_key  # never written: see the module docstring
    absolute = {k: p.resolve() for k, p in paths.items()}
    config = ["distributed:", "  comm:", "    require-encryption: true", "    tls:",
              f"      ca-file: {absolute['ca']}"]
    for role in ROLES:
        config += [f"      {role}:", f"        cert: {absolute[role]}", f"        key: {absolute[role + '-key']}"]
    paths["config"] = folder / "dask-tls.yaml"
    _write(paths["config"], ("\n".join(config) + "\n").encode(), private=False)
    return paths


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="./filterlab cluster-certs", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("dir", help="folder to write the CA certificate, certificates and keys into")
    p.add_argument("--days", type=int, default=365, help="validity of the certificates in days (default 365)")
    p.add_argument("--overwrite", action="store_true", help="replace the files of an earlier run in DIR")
    args = p.parse_args(argv)
    try:
        paths = make_cluster_certs(args.dir, days=args.days, overwrite=args.overwrite)
    except (FileExistsError, ValueError) as e:
        print(f"cluster-certs: {e}", file=sys.stderr)
        return 2
    d = paths["ca"].parent
    print(f"wrote {', '.join(p.name for p in paths.values())} to {d}\n"
          f"scheduler: .venv/bin/dask scheduler --host 127.0.0.1 --protocol tls --tls-ca-file {d}/ca.pem "
          f"--tls-cert {d}/scheduler.pem --tls-key {d}/scheduler-key.pem\n"
          f"worker:    .venv/bin/dask worker tls://127.0.0.1:8786 --nthreads 1 --tls-ca-file {d}/ca.pem "
          f"--tls-cert {d}/worker.pem --tls-key {d}/worker-key.pem\n"
          f"run:       ./filterlab run CONFIG --cluster tls://127.0.0.1:8786 --tls-ca-file {d}/ca.pem "
          f"--tls-cert {d}/client.pem --tls-key {d}/client-key.pem\n"
          f"(or DASK_CONFIG={d} with dask-tls.yaml instead of the --tls-* options; the scheduler's --host "
          f"127.0.0.1 accepts this machine only: give its network address to admit other machines)")
    return 0
