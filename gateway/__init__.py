"""The gateway: games in Redis, REST + WebSocket, the JSON socket bridge and MCP.

Layer 2: uses the game library (``connect4``) and the gRPC stubs
(``c4proto``) only; engine and solver are reached through gRPC.
"""
