"""constraints.txt (what `make` and the Dockerfile install) pins every
dependency pyproject.toml names, at a version that requirement allows; the
build backend is pinned. When this fails: `make constraints` and commit."""

from __future__ import annotations

import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

REPO = Path(__file__).resolve().parents[2]
NOT_PINNED_EXTRAS = {"train"}  # torch: its CPU build comes from the machine's own wheel, on request only


def pins() -> dict[str, str]:
    out = {}
    for line in (REPO / "constraints.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, version = line.partition("==")
            out[canonicalize_name(name.split(";")[0].strip())] = version.split(";")[0].strip()
    return out


def test_every_dependency_is_pinned_within_its_range():
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    wanted = list(project["dependencies"])
    for extra, deps in project["optional-dependencies"].items():
        if extra not in NOT_PINNED_EXTRAS:
            wanted += deps
    pinned = pins()
    for text in wanted:
        req = Requirement(text)
        name = canonicalize_name(req.name)
        assert name in pinned, f"{req.name} is not in constraints.txt: run `make constraints`"
        assert req.specifier.contains(pinned[name], prereleases=True), \
            f"constraints.txt pins {req.name}=={pinned[name]}, outside {req}: run `make constraints`"


def test_build_backend_pinned_and_license_spdx():
    data = tomllib.loads((REPO / "pyproject.toml").read_text())
    requires = data["build-system"]["requires"]
    assert all("==" in r for r in requires), requires
    assert data["project"]["license"] == "MIT"
    backend = Requirement(requires[0])
    assert pins().get(canonicalize_name(backend.name)) in (None, str(backend.specifier).lstrip("=")), \
        "the runtime's setuptools and the build backend's differ"
