"""The `review` command: the reviewer's TUI and the verbs agents and scripts run.

Every error a user can cause is one line on stderr and exit status 1; usage errors exit 2.
Verbs that act on a worktree take `-C PATH` (default: the current directory).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from review import __version__
from review.errors import ReviewError
from review.repo.text import visible

if TYPE_CHECKING:
    from review.agents.viewer import Placement
    from review.config import Config  # read from the file only by the verbs that need it
    from review.overview.hosts import Host
    from review.overview.rows import Row
    from review.overview.status import Overview
    from review.state.here import Here
    from review.state.model import Comment, Verdict

_VERBS_HELP = """\
verbs:
  review [PATH] [SCOPE]                 review the diff of the worktree containing PATH
  review all [REPO]                     the overview of every worktree of the repository
  review status [REPO] [--json]         the overview as a table, or as JSON for scripts
  review demo [DIR] [--no-open]         create a demo repository with three agent worktrees
  review comment FILE:LINE[-END] -m TEXT  add a draft comment (--old, --severity)
  review note [FILE[:LINE[-END]]] -m TEXT  the agent's note for the reviewer (no FILE: the whole change)
  review send [-m SUMMARY] [--approve | --request-changes]
                                        send the drafts to the agent as one round
  review pending [--json]               open comments and new replies, as instructions
  review reply ID -m TEXT               answer in a comment's thread (--as reviewer)
  review resolve ID [-m NOTE]           the agent marks a comment addressed
  review wait [--timeout S] [--json]    wait for news from the reviewer, then print it
  review request [-m TEXT] [--open] [--wait]
                                        the agent asks for a review (--open: the viewer beside it in tmux)
  review export [--round R] --format markdown|json|github [--post]
                                        a sent round for a chat, as JSON, or as a GitHub review
  review hook claude|codex|pi           entry point for the agent's hooks (JSON on stdin)
  review mcp                            serve the review loop as MCP tools over stdio, for an agent
  review watch [REPO] [--headless]      paste a pointer into each agent's tmux pane when there is news for it
  review install claude|codex|pi|all [--project] [--uninstall]
                                        install the skill (and hooks) for an agent
  review install claude|codex|all --mcp [--uninstall]
                                        register `review mcp` with the agent instead
  review doctor [--json]                whether the review loop will work here, and what fixes it

Run 'review VERB --help' for a verb's options."""


class _Parser(argparse.ArgumentParser):
    """argparse that says `review: ...` on one line and exits 2, as every verb does."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message}\n")


def _verb_parser(verb: str, description: str) -> argparse.ArgumentParser:
    parser = _Parser(prog=f"review {verb}", description=description)
    parser.add_argument("-C", dest="where", metavar="PATH", default=".", help="act on the worktree containing PATH")
    return parser


def _review_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="review",
        description="Review a coding agent's diff in its git worktree.",
        epilog=_VERBS_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"review {__version__}")
    parser.add_argument("path", nargs="?", default=".", help="a path inside the worktree (default: here)")
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--staged", action="store_true", help="HEAD against the index")
    which.add_argument("--base", metavar="REF", help="where the branch left REF, against the working tree")
    which.add_argument("--range", metavar="A..B", help="commit A against commit B (A...B: from their merge-base)")
    which.add_argument("--since-review", action="store_true", help="what changed since the last review was sent")
    return parser


def _open_review(argv: Sequence[str]) -> int:
    from review.tui import collecting

    collecting.hold_off()  # until the first frame is drawn (`ReviewScreen.first_shown`)
    args = _review_parser().parse_args(argv)

    from review.config import load_config
    from review.repo.scope import Scope
    from review.state.opening import open_apart

    chosen = Scope(staged=args.staged, base=args.base, range=args.range, since_review=args.since_review)
    config = load_config()
    # The worktree is found, its scope resolved and its diff read, with the comments found in it,
    # while Textual is imported and starts (the screen waits for them as it is mounted). A
    # missing repository or a bad revision is one line, before the screen is taken over.
    opening = open_apart(args.path, chosen, from_counts=not config.split)
    from review.agents.viewer import shown_in_pane
    from review.tui.app import make_app

    worktree, first = opening.result()
    # In tmux, the pane is marked as this worktree's viewer: `review request --open` finds it.
    with shown_in_pane(worktree.root):
        make_app(worktree, chosen, config, first=first).run()
    return 0


def _seconds(text: str) -> float:
    """A time to wait, as argparse takes it: a number of seconds, 0 or more."""
    try:
        seconds = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: '{text}'") from None
    if not 0 <= seconds < float("inf"):
        raise argparse.ArgumentTypeError(f"seconds are 0 or more, and finite: not '{text}'")
    return seconds


def _repository_parser(verb: str, description: str) -> argparse.ArgumentParser:
    parser = _Parser(prog=f"review {verb}", description=description)
    parser.add_argument("repository", nargs="?", default=".", help="a path in the repository (default: here)")
    return parser


def _status(argv: Sequence[str]) -> int:
    parser = _repository_parser("status", "Every worktree of the repository: its agent, its review, what it waits on.")
    form = parser.add_mutually_exclusive_group()
    form.add_argument("--json", action="store_true", help="print JSON (the fields are listed in the README)")
    form.add_argument("--short", action="store_true", help="one line: how many wait on you, and the oldest's age")
    _host_option(parser)
    args = parser.parse_args(argv)
    from concurrent.futures import ThreadPoolExecutor

    from review.config import load_config
    from review.overview import hosts as remote
    from review.overview.status import status_json

    config = load_config()
    # --json is what one machine runs on another: it reads the config's hosts only when told
    # to, so that two machines listing each other never ask each other round in a circle.
    chosen = _chosen_hosts(args.host, config, configured=not args.json)
    with ThreadPoolExecutor(max_workers=1) as pool:
        # The other machines are asked while this one's worktrees are read.
        gathering = pool.submit(remote.gather, chosen)
        local = _local_overview(args.repository, config, hosts=bool(chosen))
        rows: list[Row] = []
        document = status_json(None, None, rows)
        if local is not None:
            with local:
                # a prompt's one line needs whom each waits on, not the radar's trial merges
                local.read_rows() if args.short else local.read_all()
                rows, document = local.rows, local.as_json()
        gathered = gathering.result()
    if args.json:
        if chosen:
            document["hosts"] = [remote.gathered_json(each) for each in gathered]
        print(json.dumps(document, indent=2))
        return 0
    from review.overview.table import short, table

    if args.short:
        every = [*rows, *(row for each in gathered for row in each.rows)]
        sys.stdout.write(short(every, [each.host.name for each in gathered if each.problem]))
        return 0
    parts = [table(rows)] if local is not None else []
    for each in gathered:
        parts.append(remote.heading(each) + "\n" + ("" if each.problem else table(each.rows)))
    sys.stdout.write("\n".join(parts))
    return 0


def _host_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--host",
        action="append",
        default=[],
        metavar="HOST:REPO",
        help="a repository on another machine, reached with ssh (repeatable; default: the config's [[hosts]])",
    )


def _chosen_hosts(given: list[str], config: Config, *, configured: bool = True) -> tuple[Host, ...]:
    """The hosts named on the command line (the config's entries lend them their settings), else
    the config file's, if `configured`."""
    from review.overview.hosts import parse_host

    if given:
        return tuple(parse_host(text, config.hosts) for text in given)
    return config.hosts if configured else ()


def _local_overview(repository: str, config: Config, *, hosts: bool) -> Overview | None:
    """The overview of the repository here; None when there is none here but other machines
    were asked for (a laptop that only looks at a workstation's agents)."""
    from review.errors import NotARepository
    from review.overview.status import Overview

    try:
        return Overview(repository, agents=_agent_names(config))
    except NotARepository:
        if hosts and repository == ".":
            return None
        raise


def _agent_names(config: Config) -> tuple[str, ...]:
    """The program names that count as agents in a tmux pane: the known ones and the config's."""
    from review.agents.tmux import KNOWN_AGENTS

    return (*KNOWN_AGENTS, *config.agents)


def _all(argv: Sequence[str]) -> int:
    parser = _repository_parser("all", "The overview of every worktree of the repository.")
    _host_option(parser)
    args = parser.parse_args(argv)
    return _open_overview(Path(args.repository), args.host)


def _open_overview(repository: Path, given_hosts: Sequence[str] = ()) -> int:
    from review.config import load_config

    config = load_config()
    chosen = _chosen_hosts(list(given_hosts), config)
    local = _local_overview(str(repository), config, hosts=bool(chosen))
    # git reads the worktrees while Textual is imported and starts.
    reading = local.read_apart() if local is not None else None
    from review.tui.app import make_overview_app

    try:
        make_overview_app(local, config, first=reading, hosts=chosen).run()
    finally:
        if local is not None:
            local.close()
    return 0


def _demo(argv: Sequence[str]) -> int:
    parser = _Parser(prog="review demo", description="Create a demo repository with three agent worktrees.")
    parser.add_argument("folder", nargs="?", type=Path, help="where to create it (default: a new temporary folder)")
    parser.add_argument("--no-open", action="store_true", help="create it and print where, without opening it")
    args = parser.parse_args(argv)
    from review import demo

    made = demo.create(args.folder)
    print(f"Demo repository: {made.repository}")
    for name, path in made.agents.items():
        print(f"  agent {name:<11} {path}")
    print(f"Open the overview with:  review all {made.repository}")
    if args.no_open:
        return 0
    sys.stdout.flush()
    return _open_overview(made.repository)


def _here(where: str) -> Here:
    """The worktree containing `where` and its review (imported only by the verbs that act on one)."""
    from review.state.here import Here

    return Here(where)


def _comment(argv: Sequence[str]) -> int:
    from review.state import comments
    from review.state.model import SEVERITIES

    parser = _verb_parser("comment", "Add a draft comment on lines of a file (or on the whole file).")
    parser.add_argument("target", metavar="FILE[:LINE[-END]]", help="the file, relative to here, and the lines")
    parser.add_argument("-m", "--message", required=True, help="the comment (Markdown)")
    parser.add_argument("--old", action="store_true", help="the lines are on the old side (removed code)")
    parser.add_argument("--severity", choices=SEVERITIES, default="should")
    parser.add_argument("--json", action="store_true", help="print the comment as JSON")
    args = parser.parse_args(argv)
    here = _here(args.where)
    place = here.place(args.target, Path(args.where), old=args.old)
    made = comments.add(here.store, place.where, args.message, args.severity, place.lines, place.source)
    _print_made(made, args.json)
    return 0


def _print_made(made: Comment, as_json: bool) -> None:
    """A comment or note just written: its id, or where it is as JSON."""
    if as_json:
        place = {"id": made.id, "path": made.path, "side": made.side, "line": made.line, "end_line": made.end_line}
        print(json.dumps(place))
    else:
        print(made.id)


def _note(argv: Sequence[str]) -> int:
    parser = _verb_parser(
        "note",
        "The agent explains its change to the reviewer before the review: a note beside lines of a file,"
        " on a whole file, or (without FILE) on the whole change. The reviewer may answer it.",
    )
    parser.add_argument(
        "target", nargs="?", metavar="FILE[:LINE[-END]]", help="the file, relative to here, and the lines"
    )
    parser.add_argument("-m", "--message", required=True, help="the note (Markdown)")
    parser.add_argument("--old", action="store_true", help="the lines are on the old side (removed code)")
    parser.add_argument("--json", action="store_true", help="print the note as JSON")
    args = parser.parse_args(argv)
    from review.state import notes
    from review.state.comments import Where

    here = _here(args.where)
    if args.target is None:
        if args.old:
            raise ReviewError("--old names a side of a file: give FILE:LINE with it")
        where, lines, source = Where(path=notes.WHOLE_CHANGE), None, None
    else:
        place = here.place(args.target, Path(args.where), old=args.old)
        where, lines, source = place.where, place.lines, place.source
    _print_made(notes.add(here.store, where, args.message, lines, source), args.json)
    return 0


def _send(argv: Sequence[str]) -> int:
    parser = _verb_parser("send", "Send the draft comments to the agent as one round of review.")
    parser.add_argument("-m", "--message", default="", help="a summary for the agent")
    verdict = parser.add_mutually_exclusive_group()
    verdict.add_argument("--approve", action="store_true", help="approve the work")
    verdict.add_argument("--request-changes", action="store_true", help="ask for changes")
    args = parser.parse_args(argv)
    from review.state import rounds

    here = _here(args.where)
    chosen: Verdict = "approve" if args.approve else "request_changes" if args.request_changes else "comment"
    sent = rounds.send(here.store, here.worktree, chosen, args.message, here.read)
    count = len(sent.comment_ids)
    print(f"Sent review {sent.id}: {count} comment{'s' * (count != 1)}, {chosen.replace('_', ' ')}.")
    return 0


def _pending(argv: Sequence[str]) -> int:
    parser = _verb_parser("pending", "The open comments and the reviewer's new replies, as instructions for the agent.")
    parser.add_argument("--json", action="store_true", help="print JSON instead of Markdown")
    args = parser.parse_args(argv)
    here = _here(args.where)
    _print_instructions(here, args.json, waited=False)
    return 0


def _print_instructions(here: Here, as_json: bool, *, waited: bool) -> None:
    """Print the open comments and the news as `pending` does, and mark what was printed read.
    After a wait, the round is shown even with nothing to change, and the JSON says what the news
    was."""
    from review import command
    from review.agents import reading

    taken = reading.read(here, waited=waited)
    if not taken.shown:
        return
    if as_json:
        from review.repo.text import inert_json

        # the bodies are people's words, printed to an agent's terminal: shown inert, read back the same
        print(inert_json(taken.as_json(with_news=waited)))
    else:
        sys.stdout.write(taken.markdown(command.runnable()))
    sys.stdout.flush()
    taken.mark_read("wait" if waited else "pending")


def _export(argv: Sequence[str]) -> int:
    from review.state import export

    parser = _verb_parser("export", "A sent round of review: for a chat, as JSON, or as a GitHub pull request review.")
    parser.add_argument("--round", metavar="R", help="the round, e.g. r2 (default: the latest sent)")
    parser.add_argument("--format", required=True, choices=export.FORMATS, help="what to print")
    parser.add_argument(
        "--post", action="store_true", help="post the review to the branch's pull request with gh (--format github)"
    )
    args = parser.parse_args(argv)
    if args.post and args.format != "github":
        parser.error("--post posts a GitHub review: it goes with --format github")
    from review.repo.text import inert_json

    here = _here(args.where)
    review = here.reanchored()
    sent = export.chosen_round(review, args.round)
    items = export.gather(review, sent, here.read)
    worktree = here.worktree
    if args.format == "markdown":
        sys.stdout.write(export.markdown(worktree, sent, items))
    elif args.format == "json":
        print(inert_json(export.as_json(worktree, sent, items)))
    elif not args.post:
        print(inert_json(export.github(sent, items, worktree.head)))
    else:
        pull = export.pull_request(worktree.root)
        if worktree.head is not None and worktree.head != pull.head:
            print(
                f"review: the pull request's head is {pull.head[:12]}, not this worktree's {worktree.head[:12]}:"
                " comments may land on other lines (push first)",
                file=sys.stderr,
            )
        posted = export.post(worktree.root, pull, export.github(sent, items, pull.head))
        print(f"Posted round {sent.id} as a review of pull request #{pull.number}: {posted}")
    return 0


def _wait(argv: Sequence[str]) -> int:
    parser = _verb_parser(
        "wait",
        "Wait for news from the reviewer (a review sent, an answer in a comment's thread), then print it as"
        " `pending` does. Returns at once when there is news the agent was not told of yet.",
    )
    parser.add_argument("--timeout", type=_seconds, metavar="SECONDS", help="give up after this long (exit status 1)")
    parser.add_argument("--json", action="store_true", help='print JSON instead of Markdown, with "news": what came')
    args = parser.parse_args(argv)
    from review import command
    from review.state import news

    here = _here(args.where)
    review = here.store.read()
    still_open = len(review.open_comments())
    if still_open and not news.find(review):
        # Comments the agent was told of do not end a wait: say where they are, in case it forgot.
        print(
            f"review wait: {still_open} comment{'s' * (still_open != 1)} still open (`{command.runnable()} pending`"
            f" shows {'them' if still_open > 1 else 'it'}); waiting for news from the reviewer",
            file=sys.stderr,
            flush=True,
        )
    _wait_and_print(
        here,
        args.timeout,
        args.json,
        lambda waited: f"nothing new from the reviewer within {waited}; run it again to keep waiting",
    )
    return 0


def _wait_and_print(here: Here, timeout: float | None, as_json: bool, gave_up: Callable[[str], str]) -> None:
    """Wait for news, then print it as `wait` does; `gave_up(waited)` is the line when none came.

    Raises:
        ReviewError: nothing came within `timeout` seconds.
    """
    from review.agents.wait import wait_for_news

    if wait_for_news(here.store, timeout) is None:
        raise ReviewError(gave_up(f"{timeout:g} seconds"))
    _print_instructions(here, as_json, waited=True)


def _request(argv: Sequence[str]) -> int:
    parser = _verb_parser(
        "request",
        "Ask the reviewer for a review of this worktree: the overview shows that it waits on them, with"
        " your message, until they send a review. Asking again replaces the request.",
    )
    parser.add_argument("-m", "--message", default="", help="for the reviewer: what was done, where to look")
    parser.add_argument("--open", action="store_true", help="inside tmux, open the viewer beside this pane")
    parser.add_argument("--wait", action="store_true", help="then wait for the review and print it, as `wait` does")
    parser.add_argument("--timeout", type=_seconds, metavar="SECONDS", help="with --wait: give up after this long")
    parser.add_argument("--json", action="store_true", help="with --wait: print JSON, as `wait --json` does")
    args = parser.parse_args(argv)
    if not args.wait and (args.timeout is not None or args.json):
        parser.error("--timeout and --json go with --wait")
    from review import command
    from review.state import requests

    here = _here(args.where)
    placement = _placement() if args.open else None  # a broken config stops it before anything is asked
    requests.ask(here.store, args.message)
    # While waiting, standard output is the review's (JSON with --json): what was done goes to stderr.
    out = sys.stderr if args.wait else sys.stdout
    print("Asked the reviewer for a review: the overview shows that this worktree waits on them.", file=out)
    if placement is not None:
        print(_open_viewer(here.worktree.root, placement), file=out)
    if not args.wait:
        print(f"`{command.runnable()} wait --timeout 100` waits for their review.")
        return 0
    out.flush()
    _wait_and_print(
        here,
        args.timeout,
        args.json,
        lambda waited: (
            f"no review within {waited}; the request stands, and"
            f" `{command.runnable()} wait --timeout 100` goes on waiting"
        ),
    )
    return 0


def _placement() -> Placement:
    from review.config import load_config

    return load_config().request_open


def _open_viewer(root: Path, placement: Placement) -> str:
    """Show the worktree's review in tmux beside this pane; what became of it, in one line."""
    import shlex

    from review import command
    from review.agents import viewer
    from review.errors import DeliveryFailed

    by_hand = f"`{command.runnable()} {shlex.quote(str(root))}`"
    pane = viewer.inside(os.environ)
    if pane is None:
        return f"Not inside tmux, so no viewer was opened: the reviewer opens the review with {by_hand}."
    from review.agents.tmux import Tmux

    try:
        opened = viewer.open_beside(Tmux(), pane, root, command.runnable(), placement)
    except DeliveryFailed as error:
        return f"The viewer could not be opened ({error}): the reviewer opens the review with {by_hand}."
    if not opened.new:
        return f"The review is already open in tmux pane {opened.pane}: brought it to the front."
    where = "in a new window" if placement == "window" else "beside this pane"
    return f"Opened the review {where} (tmux pane {opened.pane})."


def _hook(argv: Sequence[str]) -> int:
    from review.state.model import HARNESSES

    parser = _Parser(prog="review hook", description="Entry point for an agent harness's hooks (JSON on stdin).")
    parser.add_argument("harness", choices=HARNESSES)
    args = parser.parse_args(argv)
    from review.agents import hooks

    answer = hooks.run(args.harness, sys.stdin.read(), Path.cwd())
    if answer.stdout:
        print(answer.stdout)
    if answer.stderr:
        print(answer.stderr, file=sys.stderr)
    return 0


def _mcp(argv: Sequence[str]) -> int:
    parser = _verb_parser(
        "mcp",
        "Serve the review loop as MCP tools over stdin and stdout, for an agent's harness to start"
        " (`review install claude|codex --mcp` registers it): pending, wait, reply, resolve, note, request.",
    )
    args = parser.parse_args(argv)
    from review.agents.mcp_server import serve

    serve(Path(args.where).absolute())
    return 0


def _reply(argv: Sequence[str]) -> int:
    parser = _verb_parser("reply", "Answer in a comment's thread.")
    parser.add_argument("id", help="the comment's id, e.g. c3")
    parser.add_argument("-m", "--message", required=True, help="the answer (Markdown)")
    parser.add_argument(
        "--as", dest="author", choices=("agent", "reviewer"), default="agent", help="who answers (default: agent)"
    )
    args = parser.parse_args(argv)
    from review.state import comments

    here = _here(args.where)
    comments.reply(here.store, args.id, args.author, args.message)
    if args.author == "agent":
        from review import command

        print(f"Replied to {args.id}. `{command.runnable()} wait` waits for the reviewer's answer.")
    else:
        print(f"Replied to {args.id}.")
    return 0


def _resolve(argv: Sequence[str]) -> int:
    parser = _verb_parser("resolve", "Mark a comment addressed, with a note of what was done.")
    parser.add_argument("id", help="the comment's id, e.g. c3")
    parser.add_argument("-m", "--message", help="what was done")
    args = parser.parse_args(argv)
    from review.state import comments

    here = _here(args.where)
    comments.resolve(here.store, args.id, args.message)
    print(f"Marked {args.id} addressed.")
    return 0


def _install(argv: Sequence[str]) -> int:
    from review.state.model import AGENTS

    parser = _verb_parser("install", "Install the review skill (and the hooks of Claude Code and Codex) for an agent.")
    parser.add_argument("agent", choices=(*AGENTS, "all"))
    parser.add_argument(
        "--project", action="store_true", help="into this repository, as files to commit, rather than user-wide"
    )
    parser.add_argument("--uninstall", action="store_true", help="remove what install added, as it was before")
    parser.add_argument(
        "--mcp",
        action="store_true",
        help="register the MCP server (review mcp) with Claude Code and Codex instead of the skill and hooks",
    )
    args = parser.parse_args(argv)
    if args.mcp:
        return _install_mcp(args.agent, uninstall=args.uninstall, project=args.project)
    from review.agents import doctor, install
    from review.repo import git

    root = git.find_worktree(args.where).root if args.project else None
    if args.uninstall:
        changes = install.uninstall([args.agent], root=root)
    else:
        changes = install.install(
            [args.agent], root=root, skill=install.skill_folder(), command=install.review_command()
        )
    for change in changes:
        print(change.what)
    if not args.uninstall:
        # What agents are told to run must run: say so when review is not on their PATH.
        for problem in doctor.after_install(root):
            print(f"{problem.says}; to fix it: {problem.fix}")
    return 1 if any(change.skipped for change in changes) else 0


def _install_mcp(agent: str, *, uninstall: bool, project: bool) -> int:
    """`review install AGENT --mcp`: the MCP server registered user-wide, or taken back."""
    if project:
        raise ReviewError("--mcp registers the server for your user, not in a project: leave out --project")
    from review.agents import install, mcp_install

    if uninstall:
        changes = mcp_install.unregister([agent])
    else:
        changes = mcp_install.register([agent], command=install.review_command())
    for change in changes:
        print(change.what)
    return 1 if any(change.skipped for change in changes) else 0


def _doctor(argv: Sequence[str]) -> int:
    parser = _verb_parser(
        "doctor", "Whether the review loop will work here; each problem with the command that fixes it."
    )
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args(argv)
    from dataclasses import asdict

    from review.agents import doctor

    checks = doctor.check(Path(args.where).absolute())
    problems = [found for found in checks if not found.ok]
    if args.json:
        print(json.dumps({"ok": not problems, "checks": [asdict(found) for found in checks]}, indent=2))
    else:
        for found in checks:
            print(f"ok       {found.says}" if found.ok else f"problem  {found.says}; to fix it: {found.fix}")
        print("all is well" if not problems else f"{len(problems)} problem{'s' * (len(problems) != 1)}")
    return 1 if problems else 0


def _watch(argv: Sequence[str]) -> int:
    parser = _Parser(
        prog="review watch", description="Tell each worktree's agent, in tmux, when a review is sent to it."
    )
    parser.add_argument("repository", nargs="?", default=".", help="a path in the repository (default: here)")
    parser.add_argument(
        "--headless",
        action="store_true",
        help="when no agent runs in tmux, resume its idle Claude Code or Codex session from the command line",
    )
    args = parser.parse_args(argv)
    from review.agents.headless import Headless
    from review.agents.tmux import Tmux
    from review.agents.watch import Watcher
    from review.config import load_config

    watcher = Watcher(
        Path(args.repository),
        Tmux(),
        _agent_names(load_config()),
        lambda line: print(line, flush=True),
        headless=Headless() if args.headless else None,
    )
    try:
        watcher.run()
    except KeyboardInterrupt:
        print("stopped watching", flush=True)
    return 0


VERBS: dict[str, Callable[[Sequence[str]], int]] = {
    "all": _all,
    "status": _status,
    "demo": _demo,
    "comment": _comment,
    "note": _note,
    "send": _send,
    "pending": _pending,
    "reply": _reply,
    "resolve": _resolve,
    "wait": _wait,
    "request": _request,
    "export": _export,
    "hook": _hook,
    "mcp": _mcp,
    "watch": _watch,
    "install": _install,
    "doctor": _doctor,
}


def main(argv: Sequence[str] | None = None) -> int:
    """Run `review` with `argv` (default: the process's arguments) and return the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    verb = VERBS.get(argv[0]) if argv else None
    try:
        if verb is not None:
            return verb(argv[1:])
        return _open_review(argv)
    except ReviewError as error:
        _say(str(error))
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (`review ... | head`): nothing more to say, and nothing to print.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except OSError as error:
        _say(f"{error.strerror or error}: {error.filename or ''}".rstrip(": "))
        return 1
    except Exception as error:
        # A bug: still one line for the user, the traceback only when asked for.
        if os.environ.get("REVIEW_DEBUG"):
            raise
        _say(f"internal error: {type(error).__name__}: {error} (REVIEW_DEBUG=1 shows where)")
        return 1


def _say(problem: str) -> None:
    # An error quotes paths, revisions and text from the repository, which may hold escapes.
    print(f"review: {visible(problem)}", file=sys.stderr)
