"""The `c4` command: one CLI that composes the whole stack (layer 3)."""
