"""An sshd of the tests' own, on a loopback port with a throwaway host key and user key: the other
machine that `review status --host` and the overview's hosts reach with ssh."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

import loopback_sshd
from review.overview.hosts import Host
from tmux import review_command


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


@pytest.fixture(scope="module")
def sshd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sshd]:
    if loopback_sshd.SSHD is None:
        pytest.skip("sshd is not installed here (apt-get install openssh-server; .ci/run installs it)")
    with loopback_sshd.running(tmp_path_factory.mktemp("sshd"), ["alpha", "beta"], ["down"]) as ssh:
        yield Sshd(ssh)
