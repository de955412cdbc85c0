"""deploy/check_env.py, the entrypoint of every app container: a .env with an
unknown or malformed setting of docker-compose.yml's own (C4_HTTP_PORT,
C4_BIND, ...) stops the container at start with one line naming it, exit 2;
otherwise the service's command runs in the same process. Run as a real
process, as Docker runs it."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "deploy" / "check_env.py"
COMPOSE_FILE = REPO / "docker-compose.yml"

_spec = importlib.util.spec_from_file_location("check_env", SCRIPT)
assert _spec and _spec.loader
check_env = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(check_env)


def run(env: dict[str, str], *command: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("C4_")}
    return subprocess.run([sys.executable, str(SCRIPT), *command], env={**base, **env},
                          capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize(("env", "named"), [
    ({"C4_HTTP_PROT": "8100"}, "unknown setting C4_HTTP_PROT"),
    ({"C4_HTTP_PORT": "abc"}, "C4_HTTP_PORT='abc'"),
    ({"C4_BRIDGE_PORT": "70000"}, "C4_BRIDGE_PORT='70000'"),
    ({"C4_BIND": "everywhere"}, "C4_BIND='everywhere'"),
    ({"C4_BACKEND_INTERNAL": "maybe"}, "C4_BACKEND_INTERNAL='maybe'"),
    ({"C4_REDIS_MAXMEMORY": "lots"}, "C4_REDIS_MAXMEMORY='lots'"),
    ({"C4_REDIS_URL": "redis:6379"}, "C4_REDIS_URL='redis:6379'"),
    ({"C4_PUBLIC_URL": "example.org"}, "C4_PUBLIC_URL='example.org'"),
])
def test_bad_setting_stops_with_one_line_naming_it(env, named, tmp_path):
    ran = tmp_path / "ran"
    out = run(env, sys.executable, "-c", f"open({str(ran)!r}, 'w')")
    assert out.returncode == 2, (out.returncode, out.stderr)
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and named in lines[0], out.stderr
    assert not ran.exists(), "the service's command ran despite the bad setting"


def test_good_settings_exec_the_command_in_the_same_process():
    env = {"C4_HTTP_PORT": "8100", "C4_BIND": "0.0.0.0", "C4_BACKEND_INTERNAL": "false", "C4_REDIS_MAXMEMORY": "512mb",
           "C4_REDIS_URL": "redis://10.0.0.5:6379/0", "C4_PUBLIC_URL": "https://c4.example.org",
           "C4_BRIDGE_PORT": "",  # empty is unset to compose
           "C4_ENGINE_TT_MBB": "64",  # a service's own prefix: the engine refuses it itself
           "C4_LOG_FORMAT": "text"}
    base = {k: v for k, v in os.environ.items() if not k.startswith("C4_")}
    proc = subprocess.Popen([sys.executable, str(SCRIPT), sys.executable, "-c", "import os; print(os.getpid()); exit(3)"],
                            env={**base, **env}, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 3, stderr  # the command's own exit status
    assert int(stdout) == proc.pid, "the command did not replace the checker (exec)"


def test_knows_every_setting_the_compose_file_interpolates():
    names = set(re.findall(r"\$\{(C4_\w+?)(?::?-[^}]*)?\}", COMPOSE_FILE.read_text()))
    own = {n for n in names if not n.startswith(check_env.SERVICE_PREFIXES)}
    assert own == set(check_env.COMPOSE_VARS), own ^ set(check_env.COMPOSE_VARS)


def test_never_refuses_a_variable_the_code_reads():
    read = set()
    for package in ("connect4", "servicekit", "engine_svc", "solver_svc", "books", "gateway", "arena", "c4"):
        for path in (REPO / package).rglob("*.py"):
            read |= set(re.findall(r"[\"'](C4_[A-Z0-9_]*[A-Z0-9])[\"']", path.read_text()))
    refused = sorted(n for n in read if check_env.problem({n: "1"}) and "unknown" in check_env.problem({n: "1"}))
    assert not refused, f"read by the code but refused at a container's start: {refused}"


def test_every_app_service_starts_through_it():
    services = yaml.safe_load(COMPOSE_FILE.read_text())["services"]
    for name, service in services.items():
        if name != "redis":
            assert service["entrypoint"] == ["python", "/app/deploy/check_env.py"], name
    text = (REPO / ".dockerignore").read_text().split()
    assert "deploy" not in text and "deploy/" not in text  # the image carries it
