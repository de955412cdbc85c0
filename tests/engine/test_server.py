"""The engine's gRPC service on a real server and a free port."""

import logging
import time

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from c4proto.connect4.v1 import common_pb2, engine_pb2, engine_pb2_grpc
from engine_svc.server import SERVICE_NAME, EngineServicer, add_servicer, warm_up
from engine_svc.settings import EngineSettings
from servicekit.grpc_server import build_server, mark_serving

from ..conftest import free_port
from .conftest_helpers import assert_deepening
import contextlib


@pytest.fixture(scope="module")
def stub(tmp_path_factory):
    book = tmp_path_factory.mktemp("books") / "book.txt"
    book.write_text("")  # empty at start; a test appends to it while serving
    settings = EngineSettings(port=free_port(), tt_mb=8, books=str(book), max_concurrent=2, metrics_port=0)
    servicer = EngineServicer(settings)
    server, health, port = build_server(f"127.0.0.1:{settings.port}", add_servicer(servicer), max_workers=8)
    server.start()
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    hs = health_pb2_grpc.HealthStub(channel)
    assert hs.Check(health_pb2.HealthCheckRequest(service=SERVICE_NAME)).status == health_pb2.HealthCheckResponse.NOT_SERVING
    warm_up(servicer)
    mark_serving(health)
    assert hs.Check(health_pb2.HealthCheckRequest(service=SERVICE_NAME)).status == health_pb2.HealthCheckResponse.SERVING
    s = engine_pb2_grpc.EngineServiceStub(channel)
    s.book_path = book
    yield s
    channel.close()
    server.stop(0)


def pos(moves="", **size):
    return common_pb2.Position(moves=[int(c) for c in moves], **size)


def test_list_players(stub):
    specs = [p.spec for p in stub.ListPlayers(engine_pb2.ListPlayersRequest()).players]
    assert specs[0] == "random" and "engine" in specs and "minimax:5" in specs


def test_move_every_family(stub):
    for spec in ("random", "greedy", "gated", "easy", "medium", "hard", "minimax:3", "mcts:200", "engine:200"):
        r = stub.Move(engine_pb2.MoveRequest(position=pos("4453"), player=spec, seed=3))
        assert 1 <= r.column <= 7 and r.player == spec and r.pv[0] == r.column


def test_engine_finds_the_win_and_says_so(stub):
    r = stub.Move(engine_pb2.MoveRequest(position=pos("445566"), player="engine:300"))
    assert r.column in (3, 7) and r.proven and r.outcome == engine_pb2.OUTCOME_WIN
    assert r.message.startswith("forced win")


def test_engine_resigns_a_proven_loss(stub):
    # F d1 e1 f1 with c1 and g1 open: S to move cannot stop both.
    r = stub.Move(engine_pb2.MoveRequest(position=pos("41516"), player="engine:300"))
    assert r.resign and r.outcome == engine_pb2.OUTCOME_LOSS and r.proven


def test_think_streams_depths_then_the_result(stub):
    updates = list(stub.Think(engine_pb2.MoveRequest(position=pos("44"), player="engine:300", no_book=True)))
    progress = [u.progress for u in updates if u.WhichOneof("update") == "progress"]
    assert updates[-1].WhichOneof("update") == "result"
    assert_deepening([p.depth for p in progress])  # one message per finished depth
    result = updates[-1].result
    assert result.depth == progress[-1].depth and result.column == progress[-1].best_column


def test_evaluate(stub):
    r = stub.Evaluate(engine_pb2.EvaluateRequest(position=pos("11223")))  # F a1 b1 c1 under S a2 b2
    assert [(c.column, c.row) for c in r.first_threats] == [(4, 1)]
    assert r.threat_score == 24 and r.score == -(r.line_score + r.threat_score)  # S to move


@pytest.mark.parametrize("request_kwargs,needle", [
    (dict(position=pos("48")), "off the board"),
    (dict(position=pos("1111111")), "full"),
    (dict(position=pos("1212121")), "game is over"),
    (dict(position=pos("", width=30, height=30)), "width and height 1..16"),
    (dict(position=pos("4"), player="minimax:99"), "1..12"),
    (dict(position=pos("4"), player="wizard"), "unknown player"),
    (dict(position=pos("4"), player="perfect"), "solver"),
])
def test_invalid_argument(stub, request_kwargs, needle):
    for call in (stub.Move, lambda r: list(stub.Think(r))):
        with pytest.raises(grpc.RpcError) as err:
            call(engine_pb2.MoveRequest(**request_kwargs))
        assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert needle in err.value.details()


def test_deadline_caps_the_budget(stub):
    # engine:60000 would think for a minute; a 1.5 s deadline still gets an answer.
    r = stub.Move(engine_pb2.MoveRequest(position=pos("4"), player="engine:60000", no_book=True), timeout=1.5)
    assert 1 <= r.column <= 7 and r.depth >= 1
    assert r.player.startswith("engine:") and 1 <= int(r.player.split(":")[1]) <= 750  # the budget it had


def test_the_answer_names_the_budget_that_played(stub):
    for spec, budget_ms, named in (("engine:2000", 300, "engine:300"), ("engine", 250, "engine:250"),
                                   ("engine:200", 0, "engine:200")):
        r = stub.Move(engine_pb2.MoveRequest(position=pos("445566"), player=spec, budget_ms=budget_ms))
        assert r.player == named


class MoveLog(logging.Handler):
    """The engine server's move log lines, with the request id of each."""

    def __init__(self):
        super().__init__()
        self.lines: list[tuple[str, str | None, logging.LogRecord]] = []

    def emit(self, record):
        from servicekit.logs import REQUEST_ID

        self.lines.append((record.getMessage(), REQUEST_ID.get(), record))

    def __enter__(self):
        server_log = logging.getLogger("engine_svc.server")
        self._level = server_log.level
        server_log.addHandler(self)
        server_log.setLevel(logging.INFO)
        return self

    def __exit__(self, *exc):
        server_log = logging.getLogger("engine_svc.server")
        server_log.removeHandler(self)
        server_log.setLevel(self._level)

    def wait_for(self, msg: str, rid: str, seconds: float = 10.0):
        """The record ``msg`` of request ``rid``, waiting for it a bounded time (None: never came)."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            for m, r, record in list(self.lines):
                if m == msg and r == rid:
                    return record
            time.sleep(0.02)
        return None


@pytest.mark.parametrize("spec, moves", [("minimax:12", "4"), ("mcts:1000000", "")])
def test_minimax_and_mcts_stop_at_the_deadline(stub, spec, moves):
    """Both search for about 0.4 s (minimax, 3.3 M nodes) and 1 s (mcts) here
    on an idle machine; a 0.1 s deadline stops them instead of letting them
    search on for nobody."""
    rid = f"deadline-{spec}"
    with MoveLog() as lines:
        with pytest.raises(grpc.RpcError) as err:
            stub.Move(engine_pb2.MoveRequest(position=pos(moves), player=spec), timeout=0.1,
                      metadata=[("x-request-id", rid)])
        assert err.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
        stopped = lines.wait_for("move stopped", rid)
    assert stopped is not None, [m for m, r, _ in lines.lines if r == rid]  # without a stop: "move", full search
    assert stopped.player == spec


def _slot_held(servicer: EngineServicer) -> bool:
    """Whether a search holds the servicer's only slot (``max_concurrent=1``)."""
    if servicer.slots.acquire(blocking=False):
        servicer.slots.release()
        return False
    return True


def test_a_cancelled_search_frees_its_slot():
    """With one search at a time, a cancelled engine:600000 (minutes) must not
    hold the slot: the next move is answered."""
    settings = EngineSettings(tt_mb=8, books="none", max_concurrent=1, metrics_port=0)
    servicer = EngineServicer(settings)
    server, _, port = build_server("127.0.0.1:0", add_servicer(servicer), max_workers=4)
    server.start()
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            s = engine_pb2_grpc.EngineServiceStub(channel)
            for spec in ("engine:600000", "mcts:1000000"):
                call = s.Move.future(engine_pb2.MoveRequest(position=pos("4"), player=spec, no_book=True))
                # Cancelled only once its search holds the one slot (a state, not a fixed time).
                deadline = time.monotonic() + 30
                while not _slot_held(servicer) and time.monotonic() < deadline:
                    assert not call.done(), call.exception()  # minutes of search: still running
                    time.sleep(0.02)
                assert _slot_held(servicer), f"{spec} never started searching"
                call.cancel()
                r = s.Move(engine_pb2.MoveRequest(position=pos("4"), player="greedy"), timeout=15)
                assert 1 <= r.column <= 7
                assert not _slot_held(servicer)
    finally:
        server.stop(0)


def test_book_is_read_and_reloaded_when_it_changes(stub):
    from connect4 import Position
    from connect4.book import format_move_entry

    p = Position.parse("44")
    r = stub.Move(engine_pb2.MoveRequest(position=pos("44"), player="engine:100"))
    assert not r.book
    with open(stub.book_path, "a") as f:  # a learning feature appends while serving
        f.write(format_move_entry(p.key(), 0, -2) + "\n")
    r = stub.Move(engine_pb2.MoveRequest(position=pos("44"), player="engine:100"))
    assert r.book and r.column == 1 and r.pv == [1]
    mirrored = stub.Move(engine_pb2.MoveRequest(position=pos("44"), player="engine:100", no_book=True))
    assert not mirrored.book


def test_concurrent_searches(stub):
    import concurrent.futures as cf

    req = engine_pb2.MoveRequest(position=pos("4453"), player="engine:300", no_book=True)
    with cf.ThreadPoolExecutor(4) as ex:
        results = list(ex.map(lambda _: stub.Move(req), range(4)))
    assert all(1 <= r.column <= 7 and r.depth >= 1 for r in results)


def test_python_m_engine_svc_serves_when_warm(tmp_path):
    import os
    import subprocess
    import sys
    import time

    port = free_port()
    env = dict(os.environ, C4_ENGINE_PORT=str(port), C4_ENGINE_METRICS_PORT="0", C4_ENGINE_TT_MB="4",
               C4_ENGINE_MAX_CONCURRENT="1", C4_ENGINE_BOOKS="none")
    proc = subprocess.Popen([sys.executable, "-m", "engine_svc"], env=env, cwd=str(tmp_path),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 180
        status = None
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            hs = health_pb2_grpc.HealthStub(channel)
            while time.monotonic() < deadline and status != health_pb2.HealthCheckResponse.SERVING:
                assert proc.poll() is None, proc.stderr.read()
                with contextlib.suppress(grpc.RpcError):
                    status = hs.Check(health_pb2.HealthCheckRequest(service=""), timeout=1).status
                time.sleep(0.2)
            assert status == health_pb2.HealthCheckResponse.SERVING
            r = engine_pb2_grpc.EngineServiceStub(channel).Move(
                engine_pb2.MoveRequest(position=pos("4"), player="engine:100"))
            assert 1 <= r.column <= 7
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=30)
    lines = [line for line in err.splitlines() if line.strip()]
    import json

    records = [json.loads(line) for line in lines]  # every log line is JSON
    assert any(r["msg"] == "serving" for r in records)


def test_request_id_reaches_the_move_log_of_think_and_move(stub, caplog):
    import logging

    from servicekit.logs import REQUEST_ID

    seen = []

    class Grab(logging.Handler):
        def emit(self, record):
            if record.getMessage() == "move":
                seen.append(REQUEST_ID.get())

    handler = Grab()
    logging.getLogger("engine_svc.server").addHandler(handler)
    logging.getLogger("engine_svc.server").setLevel(logging.INFO)
    try:
        req = engine_pb2.MoveRequest(position=pos("4"), player="greedy")
        list(stub.Think(req, metadata=[("x-request-id", "think-rid-1")]))
        stub.Move(req, metadata=[("x-request-id", "move-rid-2")])
    finally:
        logging.getLogger("engine_svc.server").removeHandler(handler)
    assert "think-rid-1" in seen and "move-rid-2" in seen


def test_metrics_count_nodes_and_search_time(stub):
    """/metrics (servicekit's server, the one the service runs) shows the nodes
    searched and the search seconds; both grow with a move."""
    import urllib.request

    from servicekit.metrics import start_metrics_server

    port = free_port()
    start_metrics_server(port)

    def scrape() -> dict[str, float]:
        text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10).read().decode()
        wanted = ('engine_nodes_total{family="engine"}', 'engine_search_seconds_count{family="engine"}',
                  'engine_search_seconds_sum{family="engine"}', 'engine_moves_total{family="engine",how="search"}',
                  'engine_nodes_per_second{family="engine"}')
        found = {}
        for line in text.splitlines():
            name, _, value = line.rpartition(" ")
            if name in wanted:
                found[name] = float(value)
        return found

    before = scrape()
    r = stub.Move(engine_pb2.MoveRequest(position=pos("4453"), player="engine:100", no_book=True))
    after = scrape()
    assert len(after) == 5, after
    nodes = 'engine_nodes_total{family="engine"}'
    assert after[nodes] - before.get(nodes, 0.0) == r.nodes > 0
    assert after['engine_nodes_per_second{family="engine"}'] == pytest.approx(r.nodes / (r.elapsed_ms / 1000))
    assert after['engine_search_seconds_count{family="engine"}'] == before.get('engine_search_seconds_count{family="engine"}', 0.0) + 1
    assert after['engine_search_seconds_sum{family="engine"}'] > before.get('engine_search_seconds_sum{family="engine"}', 0.0)


def test_sigterm_during_a_long_think_stops_the_process():
    """engine:600000 would think for minutes; SIGTERM lets the grace (1 s
    here) pass, cancels the stream, whose search stops, and the process exits."""
    import os
    import signal
    import subprocess
    import sys

    port = free_port()
    env = dict(os.environ, C4_ENGINE_PORT=str(port), C4_ENGINE_METRICS_PORT="0", C4_ENGINE_TT_MB="4",
               C4_ENGINE_MAX_CONCURRENT="1", C4_ENGINE_BOOKS="none", C4_ENGINE_SHUTDOWN_GRACE_S="1")
    proc = subprocess.Popen([sys.executable, "-m", "engine_svc"], env=env, stderr=subprocess.PIPE, text=True)
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            hs = health_pb2_grpc.HealthStub(channel)
            deadline = time.monotonic() + 180
            while time.monotonic() < deadline:
                assert proc.poll() is None
                try:
                    if hs.Check(health_pb2.HealthCheckRequest(), timeout=1).status == \
                            health_pb2.HealthCheckResponse.SERVING:
                        break
                except grpc.RpcError:
                    pass
                time.sleep(0.2)
            stream = engine_pb2_grpc.EngineServiceStub(channel).Think(
                engine_pb2.MoveRequest(position=pos("4"), player="engine:600000", no_book=True))
            assert next(stream).WhichOneof("update") == "progress"  # searching
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(60) == 0  # a bounded wait: the search alone would take minutes
        assert '"msg": "stopped"' in proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_a_missing_configured_book_is_one_warning_and_the_service_plays_on(tmp_path, caplog):
    missing = tmp_path / "no-such-book.txt"
    settings = EngineSettings(tt_mb=8, books=str(missing), max_concurrent=1, metrics_port=0)
    servicer = EngineServicer(settings)
    server, health, port = build_server("127.0.0.1:0", add_servicer(servicer), max_workers=4)
    server.start()
    try:
        with caplog.at_level("WARNING", logger="connect4.bookset"):
            warm_up(servicer)
            mark_serving(health)
            with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
                s = engine_pb2_grpc.EngineServiceStub(channel)
                for _ in range(3):
                    r = s.Move(engine_pb2.MoveRequest(position=pos("4"), player="engine:50"))
                    assert 1 <= r.column <= 7 and not r.book
        warned = [r.getMessage() for r in caplog.records if r.name == "connect4.bookset"]
        assert len(warned) == 1 and str(missing) in warned[0] and "not found" in warned[0]
    finally:
        server.stop(0)
