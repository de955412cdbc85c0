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


def build_proxy(url: str):
    """A low-level MCP server whose tools are the gateway's."""
    from mcp import Client
    from mcp.server.lowlevel import Server
    from mcp_types import CallToolResult, ListToolsResult, TextContent

    async def list_tools(ctx, params) -> ListToolsResult:
        async with Client(url) as client:
            return await client.list_tools()

    async def call_tool(ctx, params) -> CallToolResult:
        try:
            async with Client(url) as client:
                return await client.call_tool(params.name, params.arguments or {})
        except Exception as exc:  # the gateway is down: say so as a tool error
            return CallToolResult(content=[TextContent(type="text", text=f"gateway unavailable at {url}: {exc}")],
                                  is_error=True)

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
