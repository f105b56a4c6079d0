"""The `ccarchive` command: `main` holds the commands, `serve` the MCP server's."""
