"""An sshd of the tests' own, on a loopback port with a throwaway host key and user key: the other
machine that `review status --host` and the overview's hosts reach with ssh."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from review.overview.hosts import Host
from tmux import review_command

SSHD = shutil.which("sshd") or next((p for p in ("/usr/sbin/sshd",) if os.path.exists(p)), None)


@dataclass
class Sshd:
    """An sshd of the test's own, and an ssh config that names it `alpha`, `beta` and (a port
    where nothing listens) `down`."""

    ssh: tuple[str, ...]

    def host(self, name: str, repo: Path | str) -> Host:
        return Host(name, str(repo), review_command(), self.ssh)

    def config(self, hosts: list[tuple[str, Path | str]]) -> str:
        return "".join(
            f'[[hosts]]\nname = "{name}"\nrepo = "{repo}"\ncommand = "{review_command()}"\n'
            f'ssh = "{" ".join(self.ssh)}"\n'
            for name, repo in hosts
        )


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def sshd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sshd]:
    if SSHD is None:
        pytest.skip("sshd is not installed here (apt-get install openssh-server; .ci/run installs it)")
    folder = tmp_path_factory.mktemp("sshd")
    for key in ("host_key", "user_key"):
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(folder / key)], check=True)
    shutil.copy(folder / "user_key.pub", folder / "authorized_keys")
    port = _free_port()
    (folder / "sshd_config").write_text(
        f"Port {port}\nListenAddress 127.0.0.1\nHostKey {folder / 'host_key'}\n"
        f"AuthorizedKeysFile {folder / 'authorized_keys'}\nPidFile {folder / 'sshd.pid'}\n"
        "UsePAM no\nStrictModes no\nPasswordAuthentication no\nKbdInteractiveAuthentication no\n"
        "PermitRootLogin prohibit-password\nLogLevel ERROR\n"
    )
    (folder / "ssh_config").write_text(
        f"Host alpha beta\n  HostName 127.0.0.1\n  Port {port}\n"
        f"Host down\n  HostName 127.0.0.1\n  Port {_free_port()}\n"
        f"Host *\n  User {os.environ.get('USER') or subprocess.run(['id', '-un'], capture_output=True, text=True).stdout.strip()}\n"
        f"  IdentityFile {folder / 'user_key'}\n  IdentitiesOnly yes\n  StrictHostKeyChecking no\n"
        f"  UserKnownHostsFile {folder / 'known_hosts'}\n  LogLevel ERROR\n"
    )
    if os.geteuid() == 0:
        os.makedirs("/run/sshd", exist_ok=True)  # its privilege separation folder
    server = subprocess.Popen([SSHD, "-D", "-f", str(folder / "sshd_config"), "-E", str(folder / "log")])
    try:
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
                break
            except OSError:
                time.sleep(0.05)
        else:
            pytest.fail(f"sshd did not start: {(folder / 'log').read_text()}")
        yield Sshd(("ssh", "-F", str(folder / "ssh_config")))
    finally:
        server.terminate()
        server.wait(timeout=10)
