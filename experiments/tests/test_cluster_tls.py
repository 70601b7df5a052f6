"""A Dask cluster over TLS with a CA of its own (`./filterlab cluster-certs`):
it runs the quickstart's every-variant sweep; a client without the cluster's
certificate is refused; plain tcp to an address that is not this machine is
refused without --insecure. Every cluster here listens on 127.0.0.1, and the
refusal tests use --dry-run, which never connects, so no test sends a packet
beyond this machine even if the check under test were broken."""

import json
import socket
import ssl
import stat
import subprocess

import pandas as pd
import pytest

from experiments.cluster import ClusterError, cluster_target, is_loopback
from experiments.cluster_certs import make_cluster_certs

from .conftest import ROOT, SMALL_FP, run_cli

distributed = pytest.importorskip("distributed")

QUICKSTART = ROOT / "experiments" / "quickstart.toml"


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    return make_cluster_certs(tmp_path_factory.mktemp("certs"))


@pytest.fixture(scope="module")
def tls_cluster(certs):
    """A local cluster of two worker processes, scheduler and workers on TLS at 127.0.0.1."""
    from distributed.security import Security

    security = Security(tls_ca_file=str(certs["ca"]), tls_scheduler_cert=str(certs["scheduler"]),
                        tls_scheduler_key=str(certs["scheduler-key"]), tls_worker_cert=str(certs["worker"]),
                        tls_worker_key=str(certs["worker-key"]), tls_client_cert=str(certs["client"]),
                        tls_client_key=str(certs["client-key"]), require_encryption=True)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, protocol="tls://",
                                  host="127.0.0.1", security=security, dashboard_address=None) as cl:
        assert cl.scheduler_address.startswith("tls://127.0.0.1:")
        yield cl


def test_cluster_certs_writes_a_ca_three_roles_and_a_dask_config(certs, tmp_path):
    from cryptography import x509

    ca = x509.load_pem_x509_certificate(certs["ca"].read_bytes())
    for role in ("scheduler", "worker", "client"):
        cert = x509.load_pem_x509_certificate(certs[role].read_bytes())
        cert.verify_directly_issued_by(ca)
        assert stat.S_IMODE(certs[f"{role}-key"].stat().st_mode) == 0o600
    assert not list(certs["ca"].parent.glob("ca-key*")), "the CA's key is never written"
    text = certs["config"].read_text()
    assert "require-encryption: true" in text and str(certs["ca"]) in text
    with pytest.raises(FileExistsError, match="already holds"):
        make_cluster_certs(certs["ca"].parent)
    out = run_cli("cluster-certs", tmp_path / "c")
    assert out.returncode == 0, out.stderr
    assert "--protocol tls" in out.stdout and (tmp_path / "c" / "client-key.pem").exists()


def test_a_tls_cluster_runs_the_quickstart(tls_cluster, certs, tmp_path, checked_build):
    """The quickstart's every-variant FP sweep on the TLS cluster: one row per
    registered example spec, each FP rate inside the range its record allows."""
    tls = ["--tls-ca-file", certs["ca"], "--tls-cert", certs["client"], "--tls-key", certs["client-key"]]
    out = run_cli("run", QUICKSTART, "--sweep", "every_variant", "--no-plot", "--cluster",
                  tls_cluster.scheduler_address, *tls, "--results", tmp_path)
    assert out.returncode == 0, out.stderr
    table = pd.read_parquet(tmp_path / "quickstart" / "results.parquet")
    examples = subprocess.run([str(checked_build / "filterlab-tool"), "check-spec", "--json", "--examples"],
                              capture_output=True, text=True, check=True).stdout.splitlines()
    assert len(table) == len(examples) > 10
    assert table["fp"].between(table["model_allowed_low"], table["model_allowed_high"]).all()
    assert json.loads((tmp_path / "quickstart" / "meta.json").read_text())["cluster"] == tls_cluster.scheduler_address


def test_the_certificates_can_come_from_dasks_config(tls_cluster, certs, write_config, tmp_path, checked_build):
    """No --tls-* options: DASK_CONFIG=DIR makes Dask read DIR/dask-tls.yaml (cluster-certs writes it)."""
    out = run_cli("run", write_config(SMALL_FP), "--no-plot", "--cluster", tls_cluster.scheduler_address,
                  "--results", tmp_path, env={"DASK_CONFIG": str(certs["config"].parent)})
    assert out.returncode == 0, out.stderr
    assert len(pd.read_parquet(tmp_path / "exp" / "results.parquet")) == 6


def test_a_client_without_the_clusters_certificate_is_refused(tls_cluster, certs, tmp_path):
    from distributed.security import Security

    address = tls_cluster.scheduler_address
    host, port = address.removeprefix("tls://").rsplit(":", 1)
    # TLS with the cluster's CA but no certificate: the scheduler ends the handshake.
    context = ssl.create_default_context(cafile=str(certs["ca"]))
    context.check_hostname = False
    with pytest.raises((ssl.SSLError, ConnectionError)):
        with socket.create_connection((host, int(port)), timeout=10) as raw:
            with context.wrap_socket(raw) as tls:
                tls.sendall(b"\0" * 8)
                tls.recv(1)  # TLS 1.3 reports the missing certificate here
    # A certificate from another CA (another cluster-certs run): refused.
    other = make_cluster_certs(tmp_path / "other")
    stranger = Security(tls_ca_file=str(other["ca"]), tls_client_cert=str(other["client"]),
                        tls_client_key=str(other["client-key"]), require_encryption=True)
    with pytest.raises(OSError):
        distributed.Client(address, security=stranger, timeout="5s")
    # Plain tcp to the TLS port: refused.
    with pytest.raises(OSError):
        distributed.Client(address.replace("tls://", "tcp://"), timeout="5s")
    # The runner with the stranger's certificate: fails, stores nothing.
    out = run_cli("run", QUICKSTART, "--sweep", "every_variant", "--no-plot", "--cluster", address,
                  "--tls-ca-file", other["ca"], "--tls-cert", other["client"], "--tls-key", other["client-key"],
                  "--results", tmp_path / "r", env={"DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT": "5s"})
    assert out.returncode == 1, out.stderr
    assert "error: the Dask scheduler at tls://127.0.0.1:" in out.stderr
    assert not (tmp_path / "r" / "quickstart" / "results.parquet").exists()


@pytest.mark.parametrize("address", ["tcp://192.0.2.10:8786", "192.0.2.10:8786", "tcp://scheduler.example:8786",
                                     "tcp://[2001:db8::1]:8786"])
def test_plain_tcp_to_another_machine_is_refused_without_insecure(write_config, tmp_path, address):
    cfg = write_config(SMALL_FP)
    refused = run_cli("run", cfg, "--dry-run", "--cluster", address, "--results", tmp_path)
    assert refused.returncode == 2
    assert "refusing plain tcp to a machine other than this one" in refused.stderr
    assert "--insecure" in refused.stderr and "cluster-certs" in refused.stderr
    allowed = run_cli("run", cfg, "--dry-run", "--cluster", address, "--insecure", "--results", tmp_path)
    assert allowed.returncode == 0, allowed.stderr
    assert "warning: --insecure" in allowed.stderr and "run any code" in allowed.stderr


def test_plain_tcp_to_this_machine_needs_no_option(write_config, tmp_path):
    for address in ["tcp://127.0.0.1:8786", "localhost:8786", "tcp://[::1]:8786", "tcp://127.3.4.5:1"]:
        out = run_cli("run", write_config(SMALL_FP), "--dry-run", "--cluster", address, "--results", tmp_path)
        assert out.returncode == 0, out.stderr
        assert "warning" not in out.stderr


def test_cluster_options_are_checked(certs):
    assert is_loopback("127.0.0.1") and is_loopback("[::1]") and is_loopback("LOCALHOST")
    assert not is_loopback("10.0.0.1") and not is_loopback("myhost") and not is_loopback("0.0.0.0")
    with pytest.raises(ClusterError, match="go together"):
        cluster_target("tls://127.0.0.1:1", tls_ca_file="ca.pem")
    with pytest.raises(ClusterError, match="need a tls:// address"):
        cluster_target("tcp://127.0.0.1:1", "a", "b", "c")
    with pytest.raises(ClusterError, match="protocol 'ucx' is not supported"):
        cluster_target("ucx://127.0.0.1:1")
    with pytest.raises(ClusterError, match="expected tls://HOST:PORT"):
        cluster_target("tls://127.0.0.1")
    with pytest.raises(ClusterError, match="--tls-ca-file nope.pem: no such file"):
        cluster_target("tls://127.0.0.1:1", "nope.pem", "b", "c")
    assert cluster_target("tcp://127.0.0.1:1").security() is None
    with pytest.raises(ClusterError, match="not a usable CA, certificate and matching key"):
        cluster_target("tls://127.0.0.1:1", str(certs["ca"]), str(certs["client"]), str(certs["worker-key"]))
    ok = cluster_target("tls://127.0.0.1:1", str(certs["ca"]), str(certs["client"]), str(certs["client-key"]))
    assert ok.security().tls_client_cert == str(certs["client"])
    if not __import__("dask").config.get("distributed.comm.tls.ca-file", None):
        with pytest.raises(ClusterError, match="tls needs the cluster's certificates"):
            cluster_target("tls://127.0.0.1:1")
