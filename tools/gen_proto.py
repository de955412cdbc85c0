"""Generate the gRPC code in c4proto/ from proto/ (the one command: ``make proto``).

protoc writes imports as ``from connect4.v1 import common_pb2``, which would
collide with the ``connect4`` game library; they are rewritten to point into
the ``c4proto`` package. ``--check`` regenerates into a temporary folder and
fails when the committed code is stale.
"""

from __future__ import annotations

import filecmp
import re
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROTO = ROOT / "proto"
OUT = ROOT / "c4proto"
HEADER = '"""Generated from proto/ by tools/gen_proto.py; do not edit."""\n'


def generate(out: Path) -> None:
    try:
        import grpc_tools
        from grpc_tools import protoc
    except ImportError as exc:  # an optional extra: the runtime image leaves it out
        raise SystemExit("tools/gen_proto.py needs grpcio-tools: pip install 'connect4-stack[proto]' "
                         "(make installs it)") from exc

    files = sorted(str(p.relative_to(PROTO)) for p in PROTO.rglob("*.proto"))
    include = str(Path(grpc_tools.__file__).parent / "_proto")
    out.mkdir(parents=True, exist_ok=True)
    args = ["protoc", f"-I{PROTO}", f"-I{include}", f"--python_out={out}", f"--pyi_out={out}",
            f"--grpc_python_out={out}", *files]
    if protoc.main(args) != 0:
        raise SystemExit("protoc failed")
    for path in out.rglob("*.py*"):
        text = path.read_text()
        text = re.sub(r"^from connect4\.v1 import", "from c4proto.connect4.v1 import", text, flags=re.M)
        path.write_text(text)
    for d in [out, *[p for p in out.rglob("*") if p.is_dir()]]:
        (d / "__init__.py").write_text(HEADER)


def main() -> int:
    if "--check" in sys.argv:
        with tempfile.TemporaryDirectory() as tmp:
            generate(Path(tmp))
            stale = []
            for new in Path(tmp).rglob("*"):
                if new.is_file():
                    old = OUT / new.relative_to(tmp)
                    if not old.exists() or not filecmp.cmp(new, old, shallow=False):
                        stale.append(str(old.relative_to(ROOT)))
            if stale:
                print("stale generated code (run `make proto`):", *stale, sep="\n  ")
                return 1
        print("generated code is up to date")
        return 0
    shutil.rmtree(OUT, ignore_errors=True)
    generate(OUT)
    print(f"generated {OUT.relative_to(ROOT)}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
