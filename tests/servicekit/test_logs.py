"""Log lines keep the fields a call passes with ``extra=``, in both formats."""

import json
import logging

import pytest

from servicekit.logs import REQUEST_ID, JsonFormatter, TextFormatter


def record(msg="book not loaded", **extra) -> logging.LogRecord:
    r = logging.LogRecord("engine_svc.books", logging.WARNING, __file__, 1, msg, (), None)
    r.__dict__.update(extra)
    return r


def test_text_lines_carry_the_extra_fields():
    token = REQUEST_ID.set("r1")
    try:
        line = TextFormatter().format(record(path="/books/my book.txt", entries=3, error=None))
    finally:
        REQUEST_ID.reset(token)
    assert line.startswith("warning engine_svc.books: book not loaded [")
    assert 'path="/books/my book.txt"' in line and "entries=3" in line and "error=None" in line
    assert "request_id=r1" in line


def test_json_lines_carry_the_extra_fields():
    out = json.loads(JsonFormatter("engine").format(record(path="/b.txt", entries=3)))
    assert (out["msg"], out["path"], out["entries"], out["service"]) == ("book not loaded", "/b.txt", 3, "engine")


def test_the_format_is_chosen_by_argument_or_environment(monkeypatch):
    from servicekit.logs import configure_logging

    root = logging.getLogger()
    saved = root.handlers[:], root.level
    try:
        monkeypatch.setenv("C4_LOG_FORMAT", "text")
        configure_logging("engine")
        assert isinstance(root.handlers[0].formatter, TextFormatter)
        configure_logging("engine", fmt="json")
        assert isinstance(root.handlers[0].formatter, JsonFormatter)
        with pytest.raises(ValueError, match="'json' or 'text'"):
            configure_logging("engine", fmt="xml")
    finally:
        root.handlers[:], level = saved
        root.setLevel(level)
