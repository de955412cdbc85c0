"""Bad arguments of c4 arena, match's siblings audit, versus and play: one
clear error naming the option, exit status 2, before any game is played."""

from __future__ import annotations

import io
import socket
import sys

import pytest

from c4.main import main
from tests.c4cli import run_c4


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def a_file(tmp_path):
    path = tmp_path / "plain-file"
    path.write_text("not a folder\n")
    return path


BAD = [
    (["arena", "random", "greedy", "--games", "-4"], "--games"),
    (["arena", "random", "greedy", "--games", "3"], "--games: must be even"),
    (["arena", "random", "greedy", "--games", "two"], "--games"),
    (["arena", "random", "greedy", "--opening-plies", "60"], "--opening-plies must be in 0..41"),
    (["arena", "random", "greedy", "--opening-plies", "-1"], "--opening-plies"),
    (["arena", "random", "greedy", "--size", "5x4", "--opening-plies", "20"], "--opening-plies must be in 0..19"),
    (["arena", "random", "greedy", "--size", "17x6"],
     "c4 arena: board 17x6 is out of range: width and height 1..16, line length 2..max(width, height)"),
    (["arena", "random", "greedy", "--size", "8x8", "--connect", "9"],
     "c4 arena: line length 9 does not fit on a 8x8 board: width and height 1..16"),
    (["arena", "random", "greedy", "--elo-prior", "-1"], "--elo-prior"),
    (["arena", "random", "greedy", "--elo-prior", "nan"], "--elo-prior"),
    (["arena", "random", "greedy", "--workers", "0"], "--workers"),
    (["arena", "random", "perfect", "--books", "/no/such/book.txt"], "--books"),
    (["arena", "random", "engine:10", "--engine-books", "/no/such/book.txt"], "--engine-books"),
    (["audit", "random", "--worst", "-1"], "--worst"),
    (["audit", "random", "--games", "0"], "--games"),
    (["audit", "random", "--opening-plies", "60"], "--opening-plies"),
    (["audit", "random", "--solver-nodes", "-1"], "--solver-nodes"),
    (["audit", "random", "--deadline-ms", "-1"], "--deadline-ms"),
    (["audit", "random", "--books", "/no/such/folder"], "--books"),
    (["versus", "random", "--solver-seat", "first", "--solver-nodes", "-5"], "--solver-nodes"),
    (["versus", "random", "--solver-seat", "first", "--deadline-ms", "-5"], "--deadline-ms"),
    (["versus", "random", "--solver-seat", "first", "--books", "/no/such/book.txt"], "--books"),
    (["play", "you", "perfect", "--books", "/no/such/book.txt"], "--books"),
    (["play", "you", "engine:10", "--engine-books", "/no/such/book.txt"], "--engine-books"),
]


@pytest.mark.parametrize("argv,message", BAD, ids=[" ".join(a) for a, _ in BAD])
def test_a_bad_argument_is_one_clear_error(argv, message, capsys, tmp_path):
    if argv[0] == "arena":
        argv = [*argv, "--out", str(tmp_path / "out")]
    code, err = run_c4(argv, capsys)
    assert code == 2, err
    assert message in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("command,option", [
    (["arena", "random", "greedy", "--games", "2", "--out", "{file}/out"], "--out"),
    (["arena", "random", "greedy", "--games", "2", "--out", "{file}"], "--out"),
    (["audit", "random", "--games", "1", "--opening-plies", "30", "--json", "{file}/audit.json"], "--json"),
    (["versus", "random", "--solver-seat", "first", "--from", "4444", "--json", "{file}/versus.json"], "--json"),
])
def test_an_output_that_cannot_be_written_fails_before_any_game(command, option, a_file, capsys):
    code, err = run_c4([a.replace("{file}", str(a_file)) for a in command], capsys)
    assert code == 2 and err.startswith(f"c4 {command[0]}: {option}: ") and str(a_file) in err, err
    assert len(err.strip().splitlines()) == 1  # no game played, no progress: the error alone


def test_an_output_folder_is_created_up_front(tmp_path, capsys):
    out = tmp_path / "deep" / "er"
    code, err = run_c4(["arena", "random", "greedy", "--games", "2", "--opening-plies", "2", "--out", str(out)], capsys)
    assert code == 0 and (out / "games.json").exists(), err


@pytest.mark.parametrize("command,via", [
    (["arena", "random", "greedy", "--games", "2"], "{addr},"),
    (["arena", "random", "perfect", "--games", "2"], ",{addr}"),
    (["audit", "random", "--games", "1"], ",{addr}"),
    (["versus", "random", "--solver-seat", "first"], ",{addr}"),
])
def test_unreachable_services_fail_at_once_naming_the_address(command, via, tmp_path, capsys):
    addr = f"127.0.0.1:{free_port()}"
    code, err = run_c4([*command, "--via-grpc", via.format(addr=addr)] +
                   (["--out", str(tmp_path / "out")] if command[0] == "arena" else []), capsys)
    assert code == 1
    assert f"cannot reach the {'engine' if via.startswith('{') else 'solver'} service at {addr}" in err


def test_play_perfect_moves_from_the_shipped_books(monkeypatch, capsys):
    """perfect:1000 cannot prove anything near the empty board by search: its first move is the book's."""
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    code = main(["play", "perfect:1000", "you", "--colour", "never"])
    out = capsys.readouterr().out
    assert "perfect:1000 plays d  (book" in out, out
    assert code == 1 and "game abandoned (quit)" in out


def test_play_perfect_without_books_searches(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    code = main(["play", "perfect:1000", "you", "--colour", "never", "--books", "none"])
    out = capsys.readouterr().out
    assert code == 1 and "no proof within 1,000 nodes" in out


def test_a_starting_service_is_waited_for_and_one_that_never_starts_is_named(capsys):
    """NOT_SERVING is a service compiling its kernels: the command waits for it
    (saying so), and gives up with a clear error past its warm-up limit."""
    import threading
    from concurrent import futures

    import grpc
    from grpc_health.v1 import health, health_pb2, health_pb2_grpc

    from c4.reach import Unreachable, require_serving

    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    servicer = health.HealthServicer()
    servicer.set("", health_pb2.HealthCheckResponse.NOT_SERVING)
    health_pb2_grpc.add_HealthServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    address = f"127.0.0.1:{port}"
    try:
        with pytest.raises(Unreachable, match="answered NOT_SERVING for 1 s"):
            require_serving("solver service", address, warm_timeout_s=1)
        warm = threading.Timer(1.0, servicer.set, ("", health_pb2.HealthCheckResponse.SERVING))
        warm.start()
        require_serving("solver service", address, warm_timeout_s=60)  # returns once SERVING
        warm.join()
    finally:
        server.stop(None)
    assert f"waiting for the solver service at {address} to finish starting" in capsys.readouterr().err
