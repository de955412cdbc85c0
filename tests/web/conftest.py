"""The web page against the real stack: redis-server (tests/conftest.py), the
engine and solver services and the gateway as subprocesses on free ports (the
process helpers of tests/gateway/conftest.py), and Debian's Chromium driven by
Playwright. Screenshots go to artifacts/web/ (git-ignored)."""

from __future__ import annotations

import contextlib
import os
import threading
import time

import httpx
import pytest

from tests.conftest import REPO
from tests.gateway.conftest import Gateway, Service
from tests.web.helpers import ARTIFACTS

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-quic"]
DESKTOP = {"width": 1280, "height": 860}


class Stack:
    def __init__(self, redis, engine: Service, solver: Service, gateway: Gateway):
        self.redis, self.engine, self.solver, self.gateway = redis, engine, solver, gateway

    @property
    def url(self) -> str:
        return self.gateway.url

    @property
    def bridge_port(self) -> int:
        return self.gateway.bridge_port

    def http(self) -> httpx.Client:
        return httpx.Client(base_url=self.url, timeout=60)

    def wait_ready(self, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if httpx.get(self.url + "/readyz", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        raise TimeoutError("the stack did not become ready")


class RunningStack(Stack):
    """A stack that is already running (C4_WEB_URL, C4_WEB_BRIDGE_PORT)."""

    def __init__(self, url: str, bridge_port: int):
        self._url, self._bridge = url.rstrip("/"), bridge_port

    url = property(lambda self: self._url)
    bridge_port = property(lambda self: self._bridge)


@pytest.fixture(scope="session")
def stack(request):
    if os.environ.get("C4_WEB_URL"):
        yield RunningStack(os.environ["C4_WEB_URL"], int(os.environ.get("C4_WEB_BRIDGE_PORT", "4444")))
        return
    redis_server = request.getfixturevalue("redis_server")
    for module in ("engine_svc", "solver_svc", "gateway"):
        if not (REPO / module / "__main__.py").exists():
            pytest.skip(f"{module} cannot be started yet (no __main__.py)")
    engine = Service("web-engine", "engine_svc", "C4_ENGINE_", redis_server.url)
    # no opening books: the engine always searches, so its thinking is there to see
    engine.env["C4_ENGINE_BOOKS"] = "none"
    solver = Service("web-solver", "solver_svc", "C4_SOLVER_", redis_server.url)
    # both services compile and warm up at start: let them do it side by side
    errors: list[BaseException] = []

    def start(svc):
        try:
            svc.start()
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=start, args=(s,)) for s in (engine, solver)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        engine.stop()
        solver.stop()
        raise errors[0]
    # its own database: no other test gateway plays its turns while its engine is down
    gateway = Gateway(redis_server.db(5), engine.addr, solver.addr, name="web-gateway").start()
    s = Stack(redis_server, engine, solver, gateway)
    try:
        s.wait_ready()
        yield s
    finally:
        gateway.stop()
        engine.stop()
        solver.stop()


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def context(browser, stack):
    ctx = browser.new_context(viewport=DESKTOP, base_url=stack.url)
    ctx.set_default_timeout(20000)
    yield ctx
    ctx.close()


class PageErrors(list):
    pass


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.when == "call":
        item.web_failed = report.failed


@pytest.fixture
def page(context, request):
    """A fresh page that fails the test on any uncaught script error; a failed
    test leaves a screenshot and the page's console in artifacts/web/."""
    page = context.new_page()
    errors = PageErrors()
    console: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: console.append(f"{m.type}: {m.text}"))
    page.errors = errors
    yield page
    if getattr(request.node, "web_failed", False):
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(Exception):
            page.screenshot(path=str(ARTIFACTS / f"FAILED-{request.node.name}.png"), full_page=True)
        (ARTIFACTS / f"FAILED-{request.node.name}.log").write_text(
            "\n".join(console + [f"status: {page.inner_text('#status')}", f"alert: {page.inner_text('#alert')}"]))
    assert not errors, f"script errors on the page: {errors}"
