"""``gamehost tournament``: create (or resume) a tournament on a server, show its
progress on stderr, then print the standings and, as the last line, the report as
one JSON object. The server runs the tournament; this command only watches it, so
it may be killed and run again (``--redis URL --name NAME``: it resumes)."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import grpc

from gamehost.client import Client, GameError
from gamehost.v1 import gamehost_pb2 as pb

FORMATS = ("round-robin", "gauntlet", "swiss")
# The fields of a custom search level (``mcts:trees=4,iterations=100``): a comma
# followed by one of these continues the custom level rather than starting an entrant.
CUSTOM_LEVEL_FIELDS = frozenset(
    {"trees", "iterations", "seconds", "depth", "policy_depth", "c", "playout"}
)

ENTRANTS_HELP = (
    "comma-separated entrants, each LEVEL or NAME=LEVEL (a bare level is named after "
    "itself, so a level entering twice needs names: a=greedy,b=greedy,random). A custom "
    "level keeps its own commas: after a 'mcts:...' level, a piece FIELD=VALUE whose "
    "FIELD is one of " + ", ".join(sorted(CUSTOM_LEVEL_FIELDS)) + " belongs to that "
    "level, e.g. strong=mcts:trees=4,iterations=100,greedy (a bare custom level is "
    "named with ' ' for ',' and ':' for '=': mcts:trees:4 iterations:100)"
)


def parse_entrants(text: str) -> list[tuple[str, str]]:
    """``SPEC[,SPEC...]`` as (name, level) pairs; ValueError with a usable message."""
    specs: list[str] = []
    for piece in text.split(","):
        field, sep, _ = piece.partition("=")
        continues = specs and sep and field.strip() in CUSTOM_LEVEL_FIELDS and "mcts:" in specs[-1]
        if continues:
            specs[-1] += "," + piece
        else:
            specs.append(piece)
    entrants = []
    for spec in specs:
        spec = spec.strip()
        if not spec:
            raise ValueError(f"--entrants {text!r}: an entrant is empty (two commas in a row?)")
        name, sep, level = spec.partition("=")
        if not sep or name.startswith("mcts:"):
            # A bare level is named after itself; names hold no ',' or '=', so a bare
            # custom level's name spells them ' ' and ':' (mcts:trees:4 iterations:100).
            name, level = spec.replace(",", " ").replace("=", ":"), spec
        if not name or not level:
            raise ValueError(f"--entrants: {spec!r} is neither LEVEL nor NAME=LEVEL")
        entrants.append((name.strip(), level.strip()))
    names = [n for n, _ in entrants]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise ValueError(
            f"--entrants: {', '.join(repeated)} entered twice; name them: a={repeated[0]},"
            f"b={repeated[0]}"
        )
    return entrants


def default_name(args: argparse.Namespace) -> str:
    """A name from the definition, the same every time: a rerun resumes it."""
    return f"{args.game}-{args.format}-{args.players}p-{args.games}g-s{args.seed}"[:64]


def add_parser(commands: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = commands.add_parser(
        "tournament",
        help="run a tournament of bots on the service; the last line is its report (JSON)",
        description=__doc__,
    )
    parser.add_argument("game")
    parser.add_argument("--players", type=int, required=True, help="seats per table")
    parser.add_argument("--entrants", required=True, metavar="SPEC[,SPEC...]", help=ENTRANTS_HELP)
    parser.add_argument("--games", type=int, required=True, help="games (tables) in all")
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--format", choices=FORMATS, default="round-robin")
    parser.add_argument(
        "--duplicate", action="store_true", help="replay each deal under every seat rotation"
    )
    parser.add_argument("--parallel", type=int, default=1, metavar="K", help="tables at once")
    parser.add_argument(
        "--name", help="the tournament's name (default: from game, format, players, games, seed)"
    )
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        "--redis", metavar="URL", help="embedded server on this Redis (rerun: resumes)"
    )
    where.add_argument("--target", metavar="HOST:PORT", help="a running server")
    parser.add_argument("--redis-prefix", default="gamehost", help="Redis key prefix")
    parser.add_argument(
        "--out", metavar="DIR", help="write standings.csv, crosstable.csv and games.jsonl here"
    )
    return parser


def definition(args: argparse.Namespace, name: str) -> pb.TournamentDefinition:
    return pb.TournamentDefinition(
        name=name,
        game_type=args.game,
        players=args.players,
        entrants=[
            pb.TournamentEntrant(name=n, level=level) for n, level in parse_entrants(args.entrants)
        ],
        format=args.format,
        games=args.games,
        seed=args.seed,
        duplicate=args.duplicate,
        parallel=args.parallel,
    )


def duration(seconds: float) -> str:
    """``42 s``, ``7 min 5 s``, ``2 h 03 min``: a time left, as people read it."""
    whole = round(seconds)
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min {whole % 60} s"
    return f"{whole // 3600} h {whole % 3600 // 60:02d} min"


class Progress:
    """A bar on a terminal, short lines otherwise (stderr either way): games finished
    of the total, failed tables if any, and the time left at the observed pace."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.tty = sys.stderr.isatty()
        self.shown = -1

    def show(self, progress: pb.TournamentProgress) -> None:
        done, failed, total = progress.finished_games, progress.failed_games, progress.total_games
        ended = done + failed
        if ended == self.shown or not total:
            return
        self.shown = ended
        errors = f", {failed} failed" if failed else ""
        left = ""
        if 0 < ended < total:
            left = f", about {duration(progress.estimated_seconds_left)} left"
        if self.tty:
            width = 30
            filled = width * ended // total
            bar = "#" * filled + "." * (width - filled)
            end = "\n" if ended >= total else ""
            sys.stderr.write(f"\r{self.name} [{bar}] {done}/{total} games{errors}{left}   {end}")
        else:
            sys.stderr.write(f"{self.name}: {done}/{total} games finished{errors}{left}\n")
        sys.stderr.flush()


def follow(client: Client, name: str, progress: Progress) -> pb.Tournament:
    """Watch until the tournament ends (resuming the stream if it breaks)."""
    after = 0
    while True:
        current = client.tournament(name)
        progress.show(current.progress)
        if current.status != pb.TOURNAMENT_RUNNING:
            return current
        try:
            for event in client.watch_tournament(name, after):
                after = event.event_id
                if event.HasField("progress"):
                    progress.show(event.progress)
        except GameError as exc:
            if exc.code != grpc.StatusCode.UNAVAILABLE:
                raise
            time.sleep(0.5)  # the server restarts: watch again from the last event


def run(client: Client, args: argparse.Namespace) -> int:
    name = args.name or default_name(args)
    client.create_tournament(definition(args, name))
    final = follow(client, name, Progress(name))
    report = client.tournament(name, include_exports=bool(args.out))
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        for file_name, text in report.exports.items():
            (out / Path(file_name).name).write_text(text)
    print(report.standings_text)
    print(report.report_json)
    if final.status == pb.TOURNAMENT_CANCELLED:
        print(f"gamehost: tournament {name} was cancelled", file=sys.stderr)
        return 1
    return 0
