"""How records read: slash commands, harness events and prompts shown as typed."""

from __future__ import annotations

from ccarchive.archive.file_summary import FileSummary
from ccarchive.archive.lines import LineStats
from ccarchive.archive.record_text import event_display, prompt_display
from ccarchive.archive.records import Extractor


def test_slash_commands_read_as_typed_with_their_arguments() -> None:
    typed = (
        "<command-message>model</command-message>\n<command-name>/model</command-name>\n"
        "<command-args>sonnet</command-args>"
    )
    assert prompt_display(typed) == "/model sonnet"
    assert prompt_display("<command-name>/clear</command-name>") == "/clear"
    assert prompt_display("<bash-input>ls -la</bash-input>") == "!ls -la"
    ide = "<ide_opened_file>The user opened x.py</ide_opened_file>fix the test"
    assert prompt_display(ide) == "fix the test"
    assert prompt_display("plain words") == "plain words"


def test_harness_events_lose_their_wrapper_tags() -> None:
    assert (
        event_display("<command-name>/rename</command-name><command-args>Fix tmux</command-args>")
        == "/rename Fix tmux"
    )
    assert (
        event_display("<local-command-stdout>Set model to opus</local-command-stdout>")
        == "Set model to opus"
    )
    note = "<task-notification><task-id>a1</task-id></task-notification>"
    assert event_display(note) == note


def test_a_local_command_event_indexes_its_readable_form() -> None:
    ex = Extractor(FileSummary())
    units = ex.extract(
        {
            "type": "system",
            "subtype": "local_command",
            "uuid": "u1",
            "content": "<command-name>/rename</command-name><command-args>New title</command-args>",
        },
        LineStats(),
    )
    assert [(u.kind, u.text) for u in units] == [("event", "/rename New title")]
