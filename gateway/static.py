"""The web page's files (``web/``): compressed, and cached by content hash.

``/`` serves ``index.html`` (``Cache-Control: no-cache``) with its ``/static/``
links rewritten to ``/static/v/<version>/``, where the version is a hash over
every file of the folder. A file under the current version never changes, so
it is sent ``immutable`` for a year; the page's ES modules import each other
by relative paths, which stay under the same versioned prefix. Plain
``/static/<path>`` still works (``no-cache`` with an ETag, 304 when it matches).
Text files go gzip-compressed to a client that accepts it (compressed once per
file version). The folder is read again when a file in it changes, so editing
``web/`` and reloading shows the change at once: there is no build step.
"""

from __future__ import annotations

import gzip
import hashlib
import mimetypes
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response

IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"
COMPRESSIBLE = ("text/", "application/javascript", "application/json", "image/svg+xml")
MIN_GZIP_BYTES = 256  # smaller bodies gain nothing from gzip
RESCAN_S = 1.0  # look for edited files at most once a second

mimetypes.add_type("text/javascript", ".js")  # ES modules need a JavaScript type
mimetypes.add_type("text/javascript", ".mjs")


@dataclass(frozen=True)
class Asset:
    body: bytes
    gz: bytes | None
    etag: str
    media_type: str


class WebAssets:
    """Every file of the web folder in memory, keyed by its path in the folder."""

    def __init__(self, root: Path):
        self.root = root
        self._lock = threading.Lock()
        self._signature: tuple[tuple[str, int, int], ...] = ()
        self._checked = 0.0
        self.files: dict[str, Asset] = {}
        self.version = ""
        self.refresh(force=True)

    def _scan_signature(self) -> tuple[tuple[str, int, int], ...]:
        return tuple(sorted((str(p.relative_to(self.root)), p.stat().st_mtime_ns, p.stat().st_size)
                            for p in self.root.rglob("*") if p.is_file()))

    def refresh(self, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self._checked < RESCAN_S:
            return
        with self._lock:
            self._checked = now
            signature = self._scan_signature()
            if signature == self._signature:
                return
            files: dict[str, Asset] = {}
            tree = hashlib.sha256()
            for rel, _, _ in signature:
                body = (self.root / rel).read_bytes()
                digest = hashlib.sha256(body).hexdigest()
                tree.update(f"{rel}\0{digest}\0".encode())
                media = mimetypes.guess_type(rel)[0] or "application/octet-stream"
                squeeze = media.startswith(COMPRESSIBLE) and len(body) >= MIN_GZIP_BYTES
                # mtime=0: the same bytes give the same gzip stream
                gz = gzip.compress(body, 9, mtime=0) if squeeze else None
                files[rel] = Asset(body, gz, f'"{digest[:20]}"', media)
            self.version = tree.hexdigest()[:12]
            index = files.get("index.html")
            if index is not None:
                # the page names its files under the versioned prefix
                page = index.body.replace(b'"/static/', f'"/static/v/{self.version}/'.encode())
                gz = gzip.compress(page, 9, mtime=0)
                files["index.html"] = Asset(page, gz, f'"{hashlib.sha256(page).hexdigest()[:20]}"', index.media_type)
            self.files, self._signature = files, signature

    def response(self, request: Request, rel: str, cache: str) -> Response:
        self.refresh()
        asset = self.files.get(rel)
        if asset is None:
            return JSONResponse({"error": {"code": "not_found", "message": f"no file {rel[:80]!r} in the web page"}},
                                status_code=404)
        headers = {"Cache-Control": cache, "ETag": asset.etag, "Vary": "Accept-Encoding"}
        if asset.etag in request.headers.get("if-none-match", ""):
            return Response(status_code=304, headers=headers)
        body = asset.body
        if asset.gz is not None and "gzip" in request.headers.get("accept-encoding", ""):
            body = asset.gz
            headers["Content-Encoding"] = "gzip"
        return Response(body, media_type=asset.media_type, headers=headers)


def install(app: FastAPI, web_dir: Path) -> None:
    """The routes of the web page: ``/``, ``/static/v/<version>/<path>`` and ``/static/<path>``."""
    if not (web_dir / "index.html").exists():
        @app.get("/", include_in_schema=False)
        async def no_page() -> JSONResponse:
            return JSONResponse({"message": "Connect Four gateway: the web page is not installed; see /docs"})
        return
    assets = WebAssets(web_dir)
    app.state.web_assets = assets

    @app.get("/", include_in_schema=False)
    async def index(request: Request) -> Response:
        return assets.response(request, "index.html", REVALIDATE)

    @app.get("/static/v/{version}/{path:path}", include_in_schema=False)
    async def versioned(request: Request, version: str, path: str) -> Response:
        assets.refresh()
        # an older page asking for its version after an update gets today's file, revalidated
        return assets.response(request, path, IMMUTABLE if version == assets.version else REVALIDATE)

    @app.get("/static/{path:path}", include_in_schema=False)
    async def plain(request: Request, path: str) -> Response:
        return assets.response(request, path, REVALIDATE)
