"""What several test folders build on, so that no test module imports another.

Archives written as Claude Code writes them: `shapes_archive` (shaped like a real one),
`secret_archive` (fake credentials of the shapes in `secret_shapes` planted everywhere),
`live_turns` (the demo's live session carried on). Readers: `secret_surfaces` (every
surface, looking for a planted secret), `mcp_client` (an MCP client for synchronous
callers). Text in bulk: `corpus`."""
