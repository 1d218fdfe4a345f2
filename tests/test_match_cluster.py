"""``zengine match --cluster``: the games of a match on Dask workers.

A real ``dask scheduler`` and ``dask worker`` processes run on 127.0.0.1 (free ports: the
scheduler picks its own and writes it to a scheduler file). Every process a test starts carries
a marker in its environment (inherited by the workers' engines), so the fixtures' finalizers
can kill what is left and check that nothing is. Engines play untimed (``depth=1``, or the fake
engine's instant random moves), so a loaded machine changes no result and no deadline.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fake_match import fake, match_cli, pair, start_match, wait_for_games

from zengine.engine.variants import make_rules, variant_names
from zengine.tools.referee import cluster as cluster_module
from zengine.tools.referee.cluster import ClusterSpec, parse_cluster
from zengine.tools.referee.config import ConfigError
from zengine.tools.referee.match import run_match
from zengine.tools.referee.records import read_games
from zengine.tools.referee.runner import ExitReason

pytest.importorskip("distributed")

MARK = "ZENGINE_CLUSTER_TEST"
#: Generous: starting Python processes that import Dask takes seconds on a loaded machine.
START_S = 180


def marked(tmp: Path) -> dict[str, str]:
    """The environment of this test's processes: marked with ``tmp``."""
    return {**os.environ, MARK: str(tmp)}


def processes_marked(tmp: Path) -> list[str]:
    """Processes (of any parent) whose environment carries this test's marker."""
    needle = f"{MARK}={tmp}\0".encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            if needle not in Path(f"/proc/{entry}/environ").read_bytes():
                continue
            stat = Path(f"/proc/{entry}/stat").read_text()
            cmd = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if stat.rsplit(")", 1)[1].split()[0] != "Z":  # a zombie is its parent's to reap
            found.append(f"{entry} {cmd}")
    return found


def wait_until_none_marked(tmp: Path, seconds: float = 30) -> list[str]:
    """Orphaned engines see end of input and exit by themselves: give them time."""
    deadline = time.monotonic() + seconds
    while processes_marked(tmp) and time.monotonic() < deadline:
        time.sleep(0.1)
    return processes_marked(tmp)


class DaskCluster:
    """A ``dask scheduler`` and single-thread ``dask worker`` processes on 127.0.0.1."""

    def __init__(self, root: Path, workers: int) -> None:
        root.mkdir(parents=True, exist_ok=True)
        self.root = root
        self.file = root / "scheduler.json"
        self.log = open(root / "dask.log", "ab")
        self.scheduler = self._spawn(
            "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard"
        )
        deadline = time.monotonic() + START_S
        while not self.file.exists() or not self.file.read_text().strip():
            assert self.scheduler.poll() is None, "the scheduler did not start"
            assert time.monotonic() < deadline, "the scheduler did not start in time"
            time.sleep(0.05)
        self.address = json.loads(self.file.read_text())["address"]
        self.workers = [self.add_worker() for _ in range(workers)]
        self.wait_for_workers(workers)

    def _spawn(self, kind: str, *args: str) -> subprocess.Popen:
        return subprocess.Popen(
            [sys.executable, "-m", "dask", kind, "--scheduler-file", str(self.file), *args],
            stdout=self.log,
            stderr=self.log,
            env=marked(self.root),
            cwd=self.root,
            start_new_session=True,
        )

    def add_worker(self) -> subprocess.Popen:
        return self._spawn(
            "worker", "--nthreads", "1", "--no-nanny", "--no-dashboard", "--host", "127.0.0.1"
        )

    def wait_for_workers(self, count: int) -> None:
        from distributed import Client

        with Client(self.address, timeout=START_S, set_as_default=False) as client:
            client.wait_for_workers(count, timeout=START_S)

    def worker_addresses(self) -> dict[str, int]:
        """Worker address -> its process id."""
        from distributed import Client

        with Client(self.address, timeout=START_S, set_as_default=False) as client:
            return client.run(os.getpid)

    def stop(self) -> None:
        for proc in [*self.workers, self.scheduler]:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)
        self.log.close()


@pytest.fixture(scope="module")
def dask_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DaskCluster]:
    """One scheduler with two workers for the tests that do not break it."""
    root = tmp_path_factory.mktemp("dask")
    cluster = DaskCluster(root, 2)
    try:
        yield cluster
    finally:
        cluster.stop()
        assert wait_until_none_marked(root) == []


def match_args(
    out: Path,
    *extra: str,
    games: int = 4,
    variant: str | None = None,
    limits: bool = True,
    plies: int = 24,
) -> list[str]:
    """A match of the built-in engine against itself (unless ``--engine``s come in ``extra``)."""
    return [
        *(["--each", "depth=1"] if limits else []),
        "--variant",
        variant or variant_names()[0],
        "--games",
        str(games),
        "--maxplies",
        str(plies),
        "--seed",
        "21",
        "--out",
        str(out),
        *extra,
    ]


def records(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]


def check_replays(game: dict, variant: str) -> None:
    """The opening and the game's moves are legal from its start position and lead to its
    final position."""
    rules = make_rules(variant)
    state = rules.parse_position(game["start_fen"])
    for text in game["opening_moves"] + game["moves"]:
        state.play(state.parse_move(text))
    assert state.position_text() == game["final_fen"]


def assert_same_games(local: list[dict], distributed: list[dict], variant: str) -> None:
    """The same games, game by game: openings, pairs, moves and results (the engines are
    deterministic at a fixed depth), each played by a worker of the cluster."""
    by_id = {g["id"]: g for g in local}
    assert sorted(by_id) == sorted(g["id"] for g in distributed)
    for game in distributed:
        twin = by_id[game["id"]]
        assert game["worker"].startswith("tcp://127.0.0.1:") and "worker" not in twin
        for key in ("opening", "pair", "p1", "p2", "start_fen", "moves", "result", "reason"):
            assert game[key] == twin[key], key
        check_replays(game, variant)


# --- units --------------------------------------------------------------------------------------


def test_cluster_addresses() -> None:
    assert parse_cluster("tcp://127.0.0.1:8786") == ClusterSpec("tcp://127.0.0.1:8786")
    assert parse_cluster("tcp://sched.example:1") == ClusterSpec("tcp://sched.example:1")
    assert parse_cluster("local:3") == ClusterSpec("local:3", 3)
    for bad in ("local:0", "local:65", "local:x", "127.0.0.1:8786", "tcp://:8786", "tcp://h:0"):
        with pytest.raises(ConfigError, match="--cluster"):
            parse_cluster(bad)


def test_bad_cluster_is_one_line_and_exit_2(tmp_path: Path) -> None:
    done = match_cli(*match_args(tmp_path / "m"), "--cluster", "http://127.0.0.1:8786")
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "--cluster" in done.stderr
    assert not (tmp_path / "m").exists()


def test_unreachable_scheduler_is_a_usage_error(tmp_path: Path, monkeypatch) -> None:
    import socket

    with socket.socket() as sock:  # a free port: nothing listens there
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.setattr(cluster_module, "CONNECT_TIMEOUT_S", 1)
    with pytest.raises(ConfigError, match="cannot reach the scheduler"):
        run_match(match_args(tmp_path / "m", "--cluster", f"tcp://127.0.0.1:{port}"))
    assert not (tmp_path / "m").exists()  # nothing made before the cluster answered


def test_without_dask_one_line_says_how_to_install(tmp_path: Path) -> None:
    # The interpreter cannot import distributed: the line names the extra to install.
    program = "import sys; sys.modules['distributed'] = None; from zengine.cli import main; main()"
    done = subprocess.run(
        [sys.executable, "-c", program, "match", *match_args(tmp_path / "m")]
        + ["--cluster", "local:2"],
        capture_output=True,
        text=True,
        timeout=120,
        # In this interpreter only: a referee re-run in a session of its own would import Dask.
        env={**os.environ, "ZENGINE_MATCH_SAME_SESSION": "1"},
    )
    assert done.returncode == 2
    assert (
        done.stderr == "zengine match: error: --cluster needs Dask (distributed):"
        " pip install '.[cluster]' in zengine's source folder\n"
    )


def test_local_match_does_not_import_dask(tmp_path: Path) -> None:
    engine = fake()
    program = (
        "import sys\n"
        "from zengine.tools.referee.match import run_match\n"
        f"run_match(['--engine', {engine!r}, 'name=A', '--engine', {engine!r}, 'name=B', "
        f"'--each', 'depth=1', '--games', '2', '--out', {str(tmp_path / 'm')!r}], "
        "emit=lambda line: None, progress=False)\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'dask', 'distributed'}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
    assert len(read_games(str(tmp_path / "m" / "games.jsonl"))) == 2


# --- a real scheduler -------------------------------------------------------------------------------


@pytest.mark.parametrize("variant", variant_names())
def test_cluster_plays_the_games_of_a_local_match(
    tmp_path: Path, dask_cluster: DaskCluster, variant: str
) -> None:
    lines: list[str] = []
    local = run_match(
        match_args(tmp_path / "local", games=2, variant=variant, plies=16),
        emit=lines.append,
        progress=False,
    )
    assert local.reason is ExitReason.COMPLETED, "\n".join(lines)
    result = run_match(
        match_args(
            tmp_path / "dask", "--cluster", dask_cluster.address, games=2, variant=variant, plies=16
        ),
        emit=lines.append,
        progress=False,
    )
    assert result.reason is ExitReason.COMPLETED, "\n".join(lines)
    assert_same_games(records(tmp_path / "local"), records(tmp_path / "dask"), variant)
    summary = json.loads((tmp_path / "dask" / "summary.json").read_text())
    assert summary["cluster"] == dask_cluster.address and summary["games_played"] == 2
    assert set(summary["cluster_workers"]) <= set(dask_cluster.worker_addresses())


def test_local_cluster_of_two_workers(tmp_path: Path) -> None:
    # The command, in a process of its own: its local cluster's worker processes (and
    # multiprocessing's helper) are its children, not this test runner's.
    done = match_cli(
        *match_args(tmp_path / "dask", "--cluster", "local:2", games=2),
        timeout=600,
        env=marked(tmp_path),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Cluster local:2: 2 worker(s), 2 thread(s)" in done.stdout.splitlines()
    assert done.stderr == ""
    local = run_match(
        match_args(tmp_path / "local", "--concurrency", "2", games=2),
        emit=lambda line: None,
        progress=False,
    )
    assert local.reason is ExitReason.COMPLETED
    assert_same_games(records(tmp_path / "local"), records(tmp_path / "dask"), variant_names()[0])
    assert json.loads((tmp_path / "dask" / "summary.json").read_text())["concurrency"] == 2
    # The workers and their engines are gone with the command.
    assert wait_until_none_marked(tmp_path) == []


def test_an_engine_that_cannot_start_on_the_worker(
    tmp_path: Path, dask_cluster: DaskCluster
) -> None:
    # An executable file that is no program: it passes the check before the match (which a
    # missing command would not, locally) and fails when a worker starts it.
    missing = tmp_path / "no-program"
    missing.write_bytes(b"\x00\x01 not a program")
    missing.chmod(0o755)
    args = ["--engine", f"cmd={missing}", "name=ghost", "--engine", "cmd=zengine", "name=z"]
    stops = []
    for out, extra in (
        ("local", ("--concurrency", "2")),
        ("dask", ("--cluster", dask_cluster.address)),
    ):
        result = run_match(
            [*args, *match_args(tmp_path / out, *extra)], emit=lambda line: None, progress=False
        )
        # The engine never became ready: the match stops and no game is scored, as locally.
        assert result.reason is ExitReason.ENGINE_FAILURE
        assert records(tmp_path / out) == []
        stops.append(result.summary["stopped"].rsplit("; game ", 1)[0])
    assert stops[0] == stops[1]
    assert stops[1].startswith(f"engine failure: ghost cannot start: {missing}: ")
    assert stops[1].endswith("(at start)")


def test_sprt_decision_stops_the_cluster(tmp_path: Path, dask_cluster: DaskCluster) -> None:
    result = run_match(
        [
            *pair(  # the built-in engine against the fake engine's random moves
                "cmd=zengine",
                fake(),
                x_keys=("depth=2",),
                n_keys=("depth=1",),
                names=("z", "random"),
            ),
            "--sprt",
            "elo0=0",
            "elo1=300",
            *match_args(
                tmp_path / "m",
                "--cluster",
                dask_cluster.address,
                games=200,
                limits=False,
                plies=200,
            ),
        ],
        emit=lambda line: None,
        progress=False,
    )
    assert result.reason is ExitReason.SPRT_DECIDED
    played = records(tmp_path / "m")
    # Stopped long before the schedule's end; the games running at the decision were counted.
    assert len(played) < 40 and result.summary["games_played"] == len(played)
    assert len({g["id"] for g in played}) == len(played)


def start_coordinator(out: Path, address: str, games: int, tmp: Path) -> subprocess.Popen:
    """A match on the cluster, stopped by its test mid-way: its engines take 40 ms a move, so
    that a game lasts about a second however fast the machine (with the built-in engine at
    depth 1, the compiled build finished every game before a test could stop the match)."""
    slow = fake("--delay", "40")
    return start_match(
        *pair(slow, slow), *match_args(out, "--cluster", address, games=games), env=marked(tmp)
    )


def resume(out: Path, *extra: str) -> subprocess.CompletedProcess:
    return match_cli("--resume", str(out), *extra, timeout=600)


def assert_each_game_once(out: Path, games: int) -> list[dict]:
    played = records(out)
    assert sorted(g["id"] for g in played) == list(range(games))  # every game, none twice
    assert (out / "games.pgn").read_text().count("[Event ") == games
    return played


def test_a_worker_killed_mid_match_loses_no_game(tmp_path: Path, dask_cluster: DaskCluster) -> None:
    games = 12
    # A third worker for this test, the one that dies.
    worker = dask_cluster.add_worker()
    dask_cluster.workers.append(worker)
    dask_cluster.wait_for_workers(3)
    victim = next(a for a, pid in dask_cluster.worker_addresses().items() if pid == worker.pid)
    out = tmp_path / "m"
    proc = start_coordinator(out, dask_cluster.address, games, tmp_path)
    deadline = time.monotonic() + START_S
    while not any(g.worker == victim for g in read_games(str(out / "games.jsonl"))):
        assert time.monotonic() < deadline and proc.poll() is None, "the victim played no game"
        time.sleep(0.02)
    # Every worker plays a game at every moment of the match: this one dies in the middle of
    # its next game, which is played again on another worker.
    worker.send_signal(signal.SIGKILL)
    worker.wait(timeout=30)
    killed_after = len(read_games(str(out / "games.jsonl")))
    text, _ = proc.communicate(timeout=600)
    assert proc.returncode == 0, text
    assert killed_after < games  # it died mid-match
    played = assert_each_game_once(out, games)
    assert {g["worker"] for g in played} <= set(dask_cluster.worker_addresses()) | {victim}


def test_coordinator_killed_then_resumed_on_the_cluster(
    tmp_path: Path, dask_cluster: DaskCluster
) -> None:
    games = 8
    out = tmp_path / "m"
    proc = start_coordinator(out, dask_cluster.address, games, tmp_path)
    wait_for_games(out, 2, proc, seconds=START_S)
    proc.kill()
    proc.communicate(timeout=30)
    kept = len(read_games(str(out / "games.jsonl")))
    done = resume(out, "--cluster", dask_cluster.address)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"Resuming: {kept} games already played, {games - kept} to play" in done.stdout
    assert_each_game_once(out, games)


def test_interrupted_coordinator_says_how_to_resume(
    tmp_path: Path, dask_cluster: DaskCluster
) -> None:
    games = 10
    out = tmp_path / "m"
    proc = start_coordinator(out, dask_cluster.address, games, tmp_path)
    wait_for_games(out, 1, proc, seconds=START_S)
    proc.send_signal(signal.SIGINT)
    text, _ = proc.communicate(timeout=120)
    assert proc.returncode == 130, text
    assert f"Resume with: zengine match --resume {out} --cluster {dask_cluster.address}" in text
    done = resume(out, "--cluster", dask_cluster.address)
    assert done.returncode == 0, done.stdout + done.stderr
    assert_each_game_once(out, games)


@pytest.mark.slow  # a scheduler of its own, killed, then the rest played here: 8-11 s
def test_scheduler_gone_stops_cleanly_and_resumes_elsewhere(tmp_path: Path) -> None:
    games = 6
    dask = DaskCluster(tmp_path / "dask", 1)
    out = tmp_path / "m"
    try:
        proc = start_coordinator(out, dask.address, games, tmp_path)
        wait_for_games(out, 1, proc, seconds=START_S)
        dask.scheduler.send_signal(signal.SIGKILL)
        text, _ = proc.communicate(timeout=300)
    finally:
        dask.stop()
    assert proc.returncode == ExitReason.CLUSTER_FAILURE.code == 4, text
    assert f"Stopped: the scheduler at {dask.address} went away" in text
    assert f"Resume with: zengine match --resume {out} --cluster {dask.address}" in text
    assert "Traceback" not in text
    kept = len(read_games(str(out / "games.jsonl")))
    summary = json.loads((out / "summary.json").read_text())
    assert summary["exit_reason"] == "cluster_failure" and summary["games_played"] == kept
    # The same match goes on here, without the cluster.
    done = resume(out)
    assert done.returncode == 0, done.stdout + done.stderr
    assert_each_game_once(out, games)
    assert wait_until_none_marked(tmp_path) == []
