"""The image's numba cache fits any CPU of the level the Dockerfile names, not
only the build machine's model: numba keys each cached kernel by
(target triple, CPU name, CPU features), and with ``NUMBA_CPU_NAME`` and
``NUMBA_CPU_FEATURES`` set (as the Dockerfile's ENV does for the build and
every container) neither part comes from the host. Checked on a real cache
index written by numba with the Dockerfile's own values."""

from __future__ import annotations

import os
import pickle
import re
import subprocess
import sys
import textwrap
from pathlib import Path

from llvmlite import binding

REPO = Path(__file__).resolve().parents[2]


def dockerfile_env() -> dict[str, str]:
    text = (REPO / "Dockerfile").read_text().replace("\\\n", " ")
    found = {name: re.search(rf"\b{name}=(\S+)", text) for name in ("NUMBA_CPU_NAME", "NUMBA_CPU_FEATURES")}
    missing = [name for name, m in found.items() if not m]
    assert not missing, f"the Dockerfile sets no {missing}: the image's cache would fit the build machine's CPU only"
    return {name: m.group(1) for name, m in found.items() if m}


def test_cache_key_names_the_dockerfiles_cpu_level_not_the_host(tmp_path):
    level = dockerfile_env()
    module = tmp_path / "kernel.py"
    module.write_text(textwrap.dedent("""
        from numba import njit

        @njit(cache=True)
        def bits(x):
            n = 0
            while x:
                x &= x - 1
                n += 1
            return n
        """))
    cache = tmp_path / "numba"
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    env.update(level, NUMBA_CACHE_DIR=str(cache), PYTHONPATH=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", "import kernel; assert kernel.bits(255) == 8"],
                         env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]

    indexes = list(cache.rglob("*.nbi"))
    assert len(indexes) == 1, indexes
    with open(indexes[0], "rb") as f:
        pickle.load(f)  # numba's version
        _stamp, overloads = pickle.loads(f.read())
    keys = list(overloads)
    assert keys, "numba cached nothing"
    host = binding.get_host_cpu_name()
    for _sig, (_triple, cpu, features), _code in keys:
        assert (cpu, features) == (level["NUMBA_CPU_NAME"], level["NUMBA_CPU_FEATURES"]), (cpu, features)
        assert cpu != host
