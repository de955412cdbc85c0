"""The web page's files as the gateway serves them (gateway/static.py):
compressed, cached by content hash, revalidated where they may change."""

from __future__ import annotations

import gzip
import hashlib
import os
import re
import time

import httpx

from gateway.static import IMMUTABLE, WebAssets
from tests.conftest import REPO

WEB = REPO / "web"


def tree_version(root) -> str:
    """The version as documented: a hash over every file's path and content hash."""
    tree = hashlib.sha256()
    for rel in sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()):
        tree.update(f"{rel}\0{hashlib.sha256((root / rel).read_bytes()).hexdigest()}\0".encode())
    return tree.hexdigest()[:12]


def test_page_and_files_compressed_and_cached_by_hash(stack):
    with httpx.Client(base_url=stack.url, timeout=30) as http:
        page = http.get("/", headers={"Accept-Encoding": "gzip"})
        assert page.status_code == 200
        assert page.headers["content-encoding"] == "gzip" and page.headers["cache-control"] == "no-cache"
        assert "accept-encoding" in page.headers["vary"].lower()
        found = re.findall(r'"/static/v/([0-9a-f]{12})/([^"]+)"', page.text)
        assert {p for _, p in found} == {"style.css", "js/main.js"}
        version = found[0][0]
        assert version == tree_version(WEB)
        # a file under the version: immutable, gzip, the bytes of web/
        js = http.get(f"/static/v/{version}/js/main.js", headers={"Accept-Encoding": "gzip"})
        assert js.status_code == 200 and js.headers["cache-control"] == IMMUTABLE
        assert js.headers["content-encoding"] == "gzip" and js.headers["content-type"].startswith("text/javascript")
        assert js.content == (WEB / "js" / "main.js").read_bytes()  # httpx has undone the gzip
        assert int(js.headers["content-length"]) < len(js.content) / 2
        # its relative imports resolve under the same prefix
        api = http.get(f"/static/v/{version}/js/api.js")
        assert api.status_code == 200 and api.headers["cache-control"] == IMMUTABLE
        # revalidation: the same ETag answers 304 without a body
        again = http.get(f"/static/v/{version}/js/main.js", headers={"If-None-Match": js.headers["etag"]})
        assert again.status_code == 304 and not again.content
        # a client that takes no gzip gets the plain bytes
        plain = http.get("/static/style.css", headers={"Accept-Encoding": "identity"})
        assert "content-encoding" not in plain.headers and plain.content == (WEB / "style.css").read_bytes()
        assert plain.headers["cache-control"] == "no-cache"
        # a page of an older version gets today's file, revalidated
        old = http.get("/static/v/000000000000/js/main.js")
        assert old.status_code == 200 and old.headers["cache-control"] == "no-cache"


def test_only_files_of_the_folder_are_served(stack):
    with httpx.Client(base_url=stack.url, timeout=30) as http:
        for path in ("/static/nothing.js", "/static/../gateway/app.py", "/static/v/x/%2e%2e/%2e%2e/pyproject.toml",
                     "/static/v/x/..%2f..%2fpyproject.toml"):
            r = http.get(path)
            assert r.status_code == 404, (path, r.status_code)
            assert b"[project]" not in r.content
        # and the gateway goes on serving the page
        assert http.get("/").status_code == 200


def test_an_edited_file_changes_the_version(tmp_path):
    (tmp_path / "index.html").write_text('<link href="/static/style.css"><script src="/static/js/main.js"></script>')
    (tmp_path / "style.css").write_text("body { color: red }\n" * 40)
    (tmp_path / "js").mkdir()
    (tmp_path / "js" / "main.js").write_text("export const a = 1;\n")
    assets = WebAssets(tmp_path)
    first = assets.version
    assert first == tree_version(tmp_path)
    assert f'/static/v/{first}/style.css' in assets.files["index.html"].body.decode()
    assert gzip.decompress(assets.files["style.css"].gz) == (tmp_path / "style.css").read_bytes()
    assert assets.files["js/main.js"].gz is None  # too small to gain from gzip
    (tmp_path / "js" / "main.js").write_text("export const a = 2;\n")
    later = time.time() + 5  # a new mtime even on a coarse clock
    os.utime(tmp_path / "js" / "main.js", (later, later))
    assets.refresh(force=True)
    assert assets.version != first and assets.version == tree_version(tmp_path)
    assert assets.files["js/main.js"].body == b"export const a = 2;\n"
