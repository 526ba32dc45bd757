"""Worktrees on other machines: `review status --json` run over the user's own `ssh` on each host,
in parallel, and read back as rows. OpenSSH is the transport and git the store; there is no server
of review's own.

A host is named as scp names one, `HOST:REPO` (`HOST` as the user's SSH config knows it, `REPO` a
path in the repository there, `.` when left out), or listed in the config file's `[[hosts]]`,
which can also set the command that runs review there: a non-interactive SSH shell often lacks
the user's PATH.

What a host sends back is untrusted, like text from a repository: it is checked against the
fields of the schema it names, and its text is shown inert wherever it is shown.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, get_args

from review import __version__
from review.errors import ReviewError
from review.overview.rows import AGENT_STATES, WAITS_ON, Overlap, Row
from review.overview.status import SCHEMA, row_json
from review.repo.text import visible
from review.state import news
from review.state.model import REVIEW_STATES, seconds, stamp

CONNECT_TIMEOUT = 5
"""Seconds ssh waits for a host to answer before it counts as unreachable."""
READ_TIMEOUT = 60.0
"""Seconds a host's review may take to read its worktrees."""


@dataclass(frozen=True)
class Host:
    """A repository on another machine, and how to reach it."""

    name: str
    """The destination as ssh takes it: a name from the user's SSH config, or user@host."""
    repo: str = "."
    """A path in the repository there (relative to the remote home)."""
    command: str = "review"
    """The command that runs review there, as a shell command line (it may set PATH)."""
    ssh: tuple[str, ...] = ("ssh",)
    """The ssh command here, with any options of the user's own."""


@dataclass
class Gathered:
    """What one host said, or why it said nothing."""

    host: Host
    rows: list[Row] = field(default_factory=list)
    problem: str = ""
    """One line, when the host could not be reached or its answer read."""
    repo: str | None = None
    """The repository's folder there, as its review named it."""
    default_branch: str | None = None
    version: str | None = None
    """The version of review there, when it says (from 0.1.0 on)."""
    seen_at: float | None = None
    """When the host last answered (seconds since the epoch)."""

    @property
    def folder(self) -> str:
        """The repository there: as its review named it, else as it was asked for."""
        return self.repo or self.host.repo


def parse_host(text: str, configured: Sequence[Host] = ()) -> Host:
    """`HOST:REPO` (or `HOST`) as a host; a host of the config file with that name lends it its
    command and ssh, and its repository when none is given.

    Raises:
        ReviewError: the host is empty or looks like an option.
    """
    name, _, repo = text.partition(":")
    if not is_host_name(name):
        raise ReviewError(f"'{text}' is not a host: write HOST:REPO, HOST as your SSH config names it")
    known = next((host for host in configured if host.name == name), None)
    if known is None:
        return Host(name, repo or ".")
    return Host(name, repo or known.repo, known.command, known.ssh)


def is_host_name(name: str) -> bool:
    """Whether ssh takes `name` as a destination: one that starts with "-" would be taken as an
    option (-oProxyCommand=...)."""
    return bool(name) and not name.startswith("-") and not any(char.isspace() for char in name)


def remote_command(host: Host, *args: str) -> list[str]:
    """The ssh command line that runs `review ARGS` on the host, in batch mode (never a prompt:
    a host that wants a password counts as unreachable), with a connect timeout."""
    return [
        *host.ssh,
        "-o",
        "BatchMode=yes",
        "-o",
        f"ConnectTimeout={CONNECT_TIMEOUT}",
        "--",
        host.name,
        f"{host.command} {shlex.join(args)}",
    ]


def gather(hosts: Sequence[Host], timeout: float = READ_TIMEOUT) -> list[Gathered]:
    """Every host's status, asked of all at once; a host that fails has a problem, the rest are
    unaffected. In the order given."""
    if not hosts:
        return []
    with ThreadPoolExecutor(max_workers=len(hosts)) as pool:
        return list(pool.map(lambda host: ask(host, timeout), hosts))


def ask(host: Host, timeout: float = READ_TIMEOUT) -> Gathered:
    """One host's status."""
    argv = remote_command(host, "status", "--json", host.repo)
    try:
        done = subprocess.run(argv, capture_output=True, stdin=subprocess.DEVNULL, timeout=timeout, check=False)
    except FileNotFoundError:
        return Gathered(host, problem=f"{host.ssh[0]} is not installed here")
    except subprocess.TimeoutExpired:
        return Gathered(host, problem=f"no answer from {host.name} in {timeout:g} s")
    said = _last_line(done.stderr)
    if done.returncode == 255:  # ssh's own failure: the host was not reached
        return Gathered(host, problem=f"cannot reach {host.name}: {said or 'ssh failed'}")
    if done.returncode == 127:
        return Gathered(
            host,
            problem=f"'{host.command}' is not found on {host.name} (a non-interactive shell's PATH):"
            " set its command in the config file's [[hosts]]",
        )
    if done.returncode != 0:
        return Gathered(
            host, problem=f"{host.name}: {said.removeprefix('review: ') or f'exit status {done.returncode}'}"
        )
    try:
        return read_status(host, json.loads(done.stdout.decode("utf-8", "replace")))
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        return Gathered(host, problem=f"{host.name} answered with a status this review cannot read ({error})")


def read_status(host: Host, document: Any) -> Gathered:
    """The rows of `review status --json` as another machine printed it.

    Raises:
        ValueError, KeyError, TypeError: the document does not have the fields of its schema.
    """
    if not isinstance(document, dict):
        raise TypeError("not a JSON object")
    version = document.get("version")
    version = version if isinstance(version, str) else None
    schema = document.get("schema")
    if schema != SCHEMA:
        theirs = f"review {version}" if version else "a review of another version"
        newer = _schema_number(schema) > _schema_number(SCHEMA)
        return Gathered(
            host,
            version=version,
            seen_at=time.time(),
            problem=f"{host.name} runs {theirs} ({schema}), {'newer' if newer else 'older'} than this review"
            f" {__version__} ({SCHEMA}): upgrade review {'here' if newer else f'on {host.name}'}",
        )
    rows = [row_from_json(item) for item in document["worktrees"]]
    return Gathered(
        host,
        rows=rows,
        repo=str(document["repo"]),
        default_branch=_text(document.get("default_branch")),
        version=version,
        seen_at=time.time(),
    )


def row_from_json(item: dict[str, Any]) -> Row:
    """One row of `review status --json`, read back.

    Raises:
        ValueError, KeyError, TypeError: a field is missing or of the wrong kind.
    """
    delivery = item.get("delivery") or {}
    requested = item.get("requested")
    return Row(
        path=Path(str(item["path"])),
        name=str(item["name"]),
        branch=_text(item.get("branch")),
        head=_text(item.get("head")),
        agent=_text(item.get("agent")),
        agent_state=_choice(item.get("agent_state"), AGENT_STATES, "unknown"),
        last_change=_when(item.get("last_change")),
        files=_count(item.get("files")),
        added=_count(item.get("added")),
        removed=_count(item.get("removed")),
        ahead=_count(item.get("ahead")) if item.get("ahead") is not None else None,
        behind=_count(item.get("behind")) if item.get("behind") is not None else None,
        review_state=_choice(item.get("review_state"), REVIEW_STATES, "none"),
        waits_on=_choice(item.get("waits_on"), WAITS_ON, "nothing"),
        reason=str(item.get("reason") or ""),
        waiting_since=_when(item.get("waiting_since")),
        request=_text(requested.get("message")) if isinstance(requested, dict) else None,
        requested_at=_when(requested.get("at")) if isinstance(requested, dict) else None,
        delivery=news.Delivery(
            heard=_choice(delivery.get("heard"), get_args(news.Heard), "none"),
            notices=_count(delivery.get("notices")),
            channels=tuple(str(channel) for channel in delivery.get("channels") or ()),
            last_notice=_text(delivery.get("last_notice")),
        ),
        open_comments=_count(item.get("open_comments")),
        answered_comments=_count(item.get("answered_comments")),
        addressed_comments=_count(item.get("addressed_comments")),
        notes=_count(item.get("notes")),
        merges_cleanly=item.get("merges_cleanly") if isinstance(item.get("merges_cleanly"), bool) else None,
        default_conflict_files=[str(name) for name in item.get("default_conflict_files") or ()],
        overlaps=[
            Overlap(
                worktree=Path(str(overlap["worktree"])),
                files=[str(name) for name in overlap.get("files") or ()],
                conflict=overlap.get("conflict") if isinstance(overlap.get("conflict"), bool) else None,
                conflict_files=[str(name) for name in overlap.get("conflict_files") or ()],
            )
            for overlap in item.get("overlaps") or ()
        ],
        note=str(item.get("note") or ""),
        problem=str(item.get("problem") or ""),
    )


def rows_of(gathered: Gathered) -> list[Row]:
    """The host's rows as the overview holds them beside this machine's: marked with the host,
    and keyed `HOST:PATH`, so that the same path on two machines is two worktrees. A host that
    said nothing is one row that says why."""
    if gathered.problem:
        name = gathered.host.name
        return [Row(path=Path(f"{name}:"), name=name, branch=None, head=None, problem=gathered.problem, host=name)]
    return [
        replace(
            row,
            path=_keyed(gathered.host, row.path),
            overlaps=[replace(overlap, worktree=_keyed(gathered.host, overlap.worktree)) for overlap in row.overlaps],
            host=gathered.host.name,
        )
        for row in gathered.rows
    ]


def _keyed(host: Host, path: Path) -> Path:
    return Path(f"{host.name}:{path}")


def remote_path(row: Row) -> str:
    """Where a row of another machine's worktree is, on that machine."""
    return str(row.path).partition(":")[2]


def open_command(host: Host, path: str) -> list[str]:
    """The ssh command line that opens the review of the worktree at `path` on the host, in this
    terminal (`-t`: the viewer needs one)."""
    return [*host.ssh, "-t", "--", host.name, f"{host.command} {shlex.quote(path)}"]


def gathered_json(gathered: Gathered) -> dict[str, Any]:
    """One host in `review status --json --host`: its own status, as its review printed it
    (rows read back and written again, so only the fields this version knows)."""
    return {
        "host": gathered.host.name,
        "repo": gathered.folder,
        "version": gathered.version,
        "seen_at": stamp(gathered.seen_at),
        "problem": gathered.problem or None,
        "default_branch": gathered.default_branch,
        "worktrees": [row_json(row) for row in gathered.rows],
    }


def heading(gathered: Gathered, *, problem: bool = True) -> str:
    """The line above a host's rows: where they come from and when, or (with `problem`) why
    there are none."""
    where = visible(f"{gathered.host.name}:{gathered.folder}")
    if gathered.problem:
        return f"{where}: {visible(gathered.problem)}" if problem else f"{where}: not reached"
    seen = time.strftime("%H:%M:%S", time.localtime(gathered.seen_at)) if gathered.seen_at else "never"
    return f"{where} (seen {seen})"


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def _when(value: Any) -> float | None:
    return seconds(value) if isinstance(value, str) else None


def _count(value: Any) -> int:
    if value is None:  # a field an older review did not write
        return 0
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{value!r} is not a count")
    return value


def _choice(value: Any, allowed: tuple[Any, ...], default: Any) -> Any:
    # A value a newer review added to a list of states shows as the default, not an error.
    return value if value in allowed else default


def _schema_number(schema: Any) -> int:
    match = re.fullmatch(r"review-status/(\d+)", schema) if isinstance(schema, str) else None
    return int(match.group(1)) if match else 0


def _last_line(data: bytes) -> str:
    lines = [line.strip() for line in data.decode("utf-8", "replace").splitlines() if line.strip()]
    return lines[-1] if lines else ""
