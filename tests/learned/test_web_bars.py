"""The web page's probability bars parse what the learned players send (node runs the ES module)."""

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from connect4 import Position
from engine_svc.players import make_player

MODULE = Path(__file__).resolve().parents[2] / "web" / "js" / "learned-bars.js"
NODE = shutil.which("node")


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_the_bars_read_each_learned_players_message():
    pos = Position.parse("4453")
    messages = {spec: make_player(spec).choose(pos).message for spec in ("net", "dqn", "az:20")}
    script = f"""
import({json.dumps(MODULE.as_uri())}).then((m) => {{
  const msgs = {json.dumps(messages)};
  const out = {{}};
  for (const [spec, msg] of Object.entries(msgs)) {{
    out[spec] = [m.parseLearned(msg), m.stripLearned(msg), m.isLearned(spec)];
  }}
  out.other = [m.parseLearned("book move: a win with best play"), m.isLearned("engine:1000")];
  console.log(JSON.stringify(out));
}});
"""
    got = json.loads(subprocess.run([NODE, "-e", script], capture_output=True, text=True, timeout=60,
                                    check=True).stdout)
    for spec in ("net", "dqn", "az:20"):
        parsed, stripped, learned = got[spec]
        assert learned and stripped == "" and len(parsed["probs"]) == 7
        assert abs(sum(parsed["probs"]) - 1) < 0.01 and -1 <= parsed["value"] <= 1
    assert got["other"] == [None, False]
