"""What several test folders build on, so that no test module imports another: archives
written as Claude Code writes them (`shapes_archive`; `secret_archive` with the credential
shapes of `secret_shapes`) the readers of every surface (`secret_surfaces`), and an MCP client for synchronous
callers (`mcp_client`)."""
