"""ccarchive: search, browse and replay a Claude Code archive.

Importing the package loads nothing heavy: the TUI, the index and the MCP server are
imported by the commands that need them.
"""

__version__ = "0.1.0"
