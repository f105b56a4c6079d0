"""Claude Code hooks: a little of the archive added to a session's context, through the
service (`context`)."""
