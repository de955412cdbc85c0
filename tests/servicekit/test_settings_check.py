"""An unknown or malformed setting is one line naming the variable, for the
settings class of every service, and a real service process refuses to start
with it (exit 2) before it listens."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from books.bookgen.config import BookgenSettings
from c4.stack.queue_metrics import QueueMetricsSettings
from engine_svc.settings import EngineSettings
from gateway.settings import GatewaySettings
from servicekit.settings_check import SettingsError, load_settings
from solver_svc.settings import SolverSettings

REPO = Path(__file__).resolve().parents[2]
CLASSES = [(EngineSettings, "C4_ENGINE_"), (SolverSettings, "C4_SOLVER_"), (GatewaySettings, "C4_GATEWAY_"),
           (BookgenSettings, "C4_BOOKGEN_"), (QueueMetricsSettings, "C4_QUEUE_METRICS_")]


@pytest.fixture
def clean_env(monkeypatch):
    import os

    for name in list(os.environ):
        if name.startswith("C4_") or name == "REDIS_URL":
            monkeypatch.delenv(name)
    return monkeypatch


@pytest.mark.parametrize("cls,prefix", CLASSES)
def test_unknown_setting_is_named(cls, prefix, clean_env):
    clean_env.setenv(prefix + "NO_SUCH_THING", "1")
    with pytest.raises(SettingsError, match=f"unknown setting {prefix}NO_SUCH_THING: the {prefix}\\* settings are "):
        load_settings(cls)


@pytest.mark.parametrize("cls,prefix", CLASSES)
def test_defaults_load(cls, prefix, clean_env):
    assert isinstance(load_settings(cls), cls)


def test_malformed_value_is_named(clean_env):
    clean_env.setenv("C4_ENGINE_TT_MB", "lots")
    with pytest.raises(SettingsError, match=r"^C4_ENGINE_TT_MB='lots': Input should be a valid (integer|number)"):
        load_settings(EngineSettings)


def test_alias_names_count_as_known(clean_env):
    clean_env.setenv("C4_SOLVER_REDIS_URL", "redis://127.0.0.1:1/0")
    assert load_settings(SolverSettings).redis_url == "redis://127.0.0.1:1/0"
    clean_env.setenv("C4_GATEWAY_MCP_URL", "http://127.0.0.1:1/mcp")  # c4 mcp-stdio's
    load_settings(GatewaySettings, also=["C4_GATEWAY_MCP_URL"])


@pytest.mark.parametrize("module,env,message", [
    ("engine_svc", {"C4_ENGINE_TT_MBB": "64"}, "engine: unknown setting C4_ENGINE_TT_MBB"),
    ("solver_svc", {"C4_SOLVER_WORKERS": "two"}, "solver: C4_SOLVER_WORKERS='two': Input should be a valid integer"),
    ("gateway", {"C4_GATEWAY_PORTT": "1"}, "gateway: unknown setting C4_GATEWAY_PORTT"),
])
def test_a_service_refuses_to_start(module, env, message, clean_env):
    import os

    run = subprocess.run([sys.executable, "-m", module], env={**os.environ, "PYTHONPATH": str(REPO), **env},
                         cwd=REPO, capture_output=True, text=True, timeout=120)
    assert run.returncode == 2, run
    assert run.stderr.strip().splitlines()[-1].startswith(message), run.stderr
