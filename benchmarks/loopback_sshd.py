"""An sshd of our own on a loopback port, with a throwaway host key and user key, and an ssh
config that names it: the other machines of the tests and the benchmark of `review status --host`.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

SSHD = shutil.which("sshd") or ("/usr/sbin/sshd" if os.path.exists("/usr/sbin/sshd") else None)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def running(folder: Path, names: Sequence[str], unreachable: Sequence[str] = ()) -> Iterator[tuple[str, ...]]:
    """Start sshd, its files in `folder`; yield the ssh command that reaches it by each of
    `names` (and by each of `unreachable`, a port where nothing listens). Stopped at the end.

    Raises:
        RuntimeError: sshd is not installed, or did not start.
    """
    if SSHD is None:
        raise RuntimeError("sshd is not installed here (apt-get install openssh-server)")
    for key in ("host_key", "user_key"):
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(folder / key)], check=True)
    shutil.copy(folder / "user_key.pub", folder / "authorized_keys")
    port = free_port()
    (folder / "sshd_config").write_text(
        f"Port {port}\nListenAddress 127.0.0.1\nHostKey {folder / 'host_key'}\n"
        f"AuthorizedKeysFile {folder / 'authorized_keys'}\nPidFile {folder / 'sshd.pid'}\n"
        "UsePAM no\nStrictModes no\nPasswordAuthentication no\nKbdInteractiveAuthentication no\n"
        "PermitRootLogin prohibit-password\nMaxStartups 100\nLogLevel ERROR\n"
    )
    user = subprocess.run(["id", "-un"], capture_output=True, text=True, check=True).stdout.strip()
    lines = [f"Host {' '.join(names)}\n  HostName 127.0.0.1\n  Port {port}\n"]
    if unreachable:
        lines.append(f"Host {' '.join(unreachable)}\n  HostName 127.0.0.1\n  Port {free_port()}\n")
    lines.append(
        f"Host *\n  User {user}\n  IdentityFile {folder / 'user_key'}\n  IdentitiesOnly yes\n"
        f"  StrictHostKeyChecking no\n  UserKnownHostsFile {folder / 'known_hosts'}\n  LogLevel ERROR\n"
    )
    (folder / "ssh_config").write_text("".join(lines))
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
            raise RuntimeError(f"sshd did not start: {(folder / 'log').read_text()}")
        yield ("ssh", "-F", str(folder / "ssh_config"))
    finally:
        server.terminate()
        server.wait(timeout=10)
