"""Claude Code hooks: a little of the archive added to a session's context, through the
service. `main` is the process Claude Code starts (`ccarchive-hook EVENT`), `context`
what it adds."""
