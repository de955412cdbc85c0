"""``c4 mcp-stdio``: serve the gateway's MCP tools over stdio.

For MCP clients that only start a command and talk over its stdin/stdout: every
``tools/list`` and ``tools/call`` is forwarded to the gateway's ``/mcp``
endpoint (streamable HTTP, stateless) with the SDK's own client, so the tools,
their arguments and results are exactly the gateway's.
"""

from __future__ import annotations

import os


def register(sub) -> None:
    parser = sub.add_parser("mcp-stdio", help="bridge a stdio MCP client to a gateway's /mcp endpoint")
    parser.add_argument("--url", default=os.environ.get("C4_GATEWAY_MCP_URL", "http://127.0.0.1:8000/mcp"),
                        help="the gateway's MCP endpoint (default %(default)s, env C4_GATEWAY_MCP_URL)")
    parser.set_defaults(run=run)


def root_cause(exc: BaseException) -> BaseException:
    """The first leaf of an exception group (the SDK's client wraps a refused
    connection in "unhandled errors in a TaskGroup"), else ``exc`` itself."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def unreachable(url: str, exc: BaseException) -> str:
    """One line for a person: which gateway could not be used, and why."""
    cause = root_cause(exc)
    why = str(cause) or type(cause).__name__
    return f"cannot reach the gateway's MCP endpoint at {url}: {why} (is the gateway running? see --url)"


def build_proxy(url: str):
    """A low-level MCP server whose tools are the gateway's."""
    from mcp import Client, MCPError
    from mcp.server.lowlevel import Server
    from mcp_types import INTERNAL_ERROR, CallToolResult, ListToolsResult, TextContent

    async def list_tools(ctx, params) -> ListToolsResult:
        try:
            async with Client(url) as client:
                return await client.list_tools()
        except MCPError:
            raise  # the gateway answered with an error: pass it on as it is
        except Exception as exc:  # the gateway is down: a JSON-RPC error that says so, no traceback
            raise MCPError(code=INTERNAL_ERROR, message=unreachable(url, exc)) from None

    async def call_tool(ctx, params) -> CallToolResult:
        try:
            async with Client(url) as client:
                return await client.call_tool(params.name, params.arguments or {})
        except MCPError:
            raise  # the gateway answered with an error (an unknown tool, ...): pass it on
        except Exception as exc:  # the gateway is down: say so as a tool error
            return CallToolResult(content=[TextContent(type="text", text=unreachable(url, exc))], is_error=True)

    return Server("connect4-stdio", on_list_tools=list_tools, on_call_tool=call_tool)


def run(args) -> int:
    import anyio
    from mcp.server.stdio import stdio_server

    from servicekit.logs import configure_logging

    configure_logging("mcp-stdio", "WARNING")  # stderr only: stdout is the protocol
    server = build_proxy(args.url)

    async def main():
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    anyio.run(main)
    return 0
