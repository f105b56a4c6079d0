"""Replay: a session read back as a conversation, stepped through or played (`screen`)."""
