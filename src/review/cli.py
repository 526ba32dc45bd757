"""The `review` command: the reviewer's TUIs and the verbs agents and scripts run.

Every error a user can cause is one line on stderr and exit status 1; usage errors exit 2.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from review import __version__
from review.errors import ReviewError
from review.scope import Scope

_VERBS_HELP = """\
verbs:
  review [PATH] [SCOPE]         review the diff of the worktree containing PATH
  review demo [DIR] [--no-open] create a demo repository with three agent worktrees

Run 'review VERB --help' for a verb's options."""


class _Parser(argparse.ArgumentParser):
    """argparse that says `review: ...` on one line and exits 2, as every verb does."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: {message}\n")


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
    return parser


def _scope(args: argparse.Namespace) -> Scope:
    return Scope(staged=args.staged, base=args.base, range=args.range)


def _open_review(argv: Sequence[str]) -> int:
    args = _review_parser().parse_args(argv)
    from concurrent.futures import ThreadPoolExecutor

    from review import git, scope
    from review.config import load_config

    worktree = git.find_worktree(args.path)
    chosen = _scope(args)
    config = load_config()
    with ThreadPoolExecutor(max_workers=1) as pool:
        # git resolves the scope and reads the diff while Textual is imported and starts: the
        # first screen waits only for the slower of the two.
        resolving = pool.submit(scope.resolve, worktree, chosen)
        reading = pool.submit(lambda: scope.read(worktree, resolving.result()))
        from review.tui.app import make_app

        # A bad revision is one line here, before the screen is taken over.
        sides = resolving.result()
        make_app(worktree, chosen, config, first=(sides, reading)).run()
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
    first = next(iter(made.agents.values()))
    print(f"Open a review with:  review {first}")
    if args.no_open:
        return 0
    return _open_review([str(first)])


VERBS: dict[str, Callable[[Sequence[str]], int]] = {
    "demo": _demo,
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
        print(f"review: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (`review ... | head`): nothing more to say, and nothing to print.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except OSError as error:
        print(f"review: {error.strerror or error}: {error.filename or ''}".rstrip(": "), file=sys.stderr)
        return 1
    except Exception as error:
        # A bug: still one line for the user, the traceback only when asked for.
        if os.environ.get("REVIEW_DEBUG"):
            raise
        print(f"review: internal error: {type(error).__name__}: {error} (REVIEW_DEBUG=1 shows where)", file=sys.stderr)
        return 1
