"""camelCase parts and word forms: what replaces the regex tokenizer and the stemmer."""

from __future__ import annotations

from ccarchive.index.analysis import camel_parts, split_camel, word_forms


def test_camel_parts_split_identifiers_with_a_case_change() -> None:
    assert (
        camel_parts("call parseHTTPResponse and XMLParser2 now")
        == "parse HTTP Response XML Parser 2"
    )
    assert camel_parts("plain words, snake_case and a/b/c.py") == ""
    assert camel_parts("fooBar fooBar") == "foo Bar"
    assert camel_parts("Hello HTTP 184 v2 iPhone HTTPServer") == "i Phone HTTP Server"


def test_split_camel_keeps_plain_words_whole() -> None:
    assert split_camel("getUserName") == ["get", "User", "Name"]
    assert split_camel("response") == ["response"]


def test_word_forms_widen_plain_words_only() -> None:
    assert {"test", "tests", "testing", "tested"} <= set(word_forms("test"))
    assert {"migrate", "migration", "migrations", "migrating"} <= set(word_forms("migrating"))
    assert word_forms("e0432") == ["e0432"]
    assert word_forms("ab") == ["ab"]
