"""``c4 mcp-stdio``: serve the gateway's MCP tools over stdio.

For MCP clients that only start a command and talk over its stdin/stdout: the
messages go to the gateway's ``/mcp`` endpoint over one MCP session for the
process's life (:mod:`c4.mcp_proxy`), so the tools, their arguments and
results, the server's name, version and instructions are exactly the
gateway's, and the client keeps one namespace of games.
"""

from __future__ import annotations

import os
import contextlib


def register(sub) -> None:
    parser = sub.add_parser("mcp-stdio", help="bridge a stdio MCP client to a gateway's /mcp endpoint")
    parser.add_argument("--url", default=os.environ.get("C4_GATEWAY_MCP_URL", "http://127.0.0.1:8000/mcp"),
                        help="the gateway's MCP endpoint (default %(default)s, env C4_GATEWAY_MCP_URL); add "
                             "?output=connect4-rs for Connect4-rs's text")
    parser.add_argument("--token-env", default="C4_GATEWAY_TOKEN", metavar="VAR",
                        help="environment variable holding a bearer token for a gateway that requires one "
                             "(default %(default)s)")
    parser.set_defaults(run=run)


def run(args) -> int:
    import logging
    import sys

    from c4.mcp_proxy import Proxy

    logging.basicConfig(stream=sys.stderr, level=logging.WARNING,
                        format="c4 mcp-stdio: %(levelname)s %(message)s")  # stdout is the protocol
    proxy = Proxy(args.url)
    proxy.up.bearer = os.environ.get(args.token_env) or None
    with contextlib.suppress(KeyboardInterrupt):
        proxy.serve()
    return 0
