"""What several test folders build on, so that no test module imports another.

Archives written as Claude Code writes them: `shapes_archive` (shaped like a real one),
`secret_archive` (fake credentials of the shapes in `secret_shapes` planted everywhere),
`numbered_sessions` (small sessions to count back), `appends` (a prompt appended to a
live archive, and what the index then holds), `live_turns` (the demo's live session
carried on). Readers: `expected_kinds` (what a file should yield, read independently of
the indexer), `secret_surfaces` (every surface, looking for a planted secret),
`mcp_client` (MCP clients over the real server). Text in bulk: `corpus`.
"""
