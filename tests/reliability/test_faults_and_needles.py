"""An archive full of faults indexes completely, and planted facts are found by the CLI.

Built with ../shared/corpus/make_archive.py --faults --needles: every good line must be
searchable (checked per file against an independent reading), every fault counted under
its reason, and every planted phrase found by `ccarchive search`.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter

import pytest
from click.testing import CliRunner

from tests.conftest import MAKE_ARCHIVE, build_index
from tests.support.expected_kinds import expected_kinds, indexed_kinds
from tests.support.generated import generate

pytestmark = [
    pytest.mark.skipif(not MAKE_ARCHIVE.exists(), reason="../shared is not present"),
    pytest.mark.long,
]


@pytest.fixture(scope="module")
def faulty(tmp_path_factory: pytest.TempPathFactory):
    out = tmp_path_factory.mktemp("faulty")
    root = out / "claude"
    generate(
        out,
        [
            "--out",
            str(root),
            "--size-mb",
            "12",
            "--faults",
            "--needles",
            "30",
            "--huge-line-mb",
            "2",
            "--answers",
            str(out / "answers.json"),
            "--faults-report",
            str(out / "faults.json"),
        ],
    )
    data = out / "data"
    svc = build_index(root, data)
    answers = json.loads((out / "answers.json").read_text())["needles"]
    faults = json.loads((out / "faults.json").read_text())["faults"]
    return svc, root, data, answers, faults


def test_every_good_line_of_every_file_is_indexed(faulty) -> None:
    svc, root, _, _, _ = faulty
    got = indexed_kinds(svc)
    files = sorted(root.joinpath("projects").rglob("*.jsonl"))
    assert len(files) > 30
    for path in files:
        rel = path.relative_to(root).as_posix()
        want = expected_kinds(path.read_bytes(), agent_file=path.name.startswith("agent-"))
        assert +want == +got.get(rel, Counter()), rel


def test_every_fault_is_counted_under_its_reason(faulty) -> None:
    svc, _, _, _, faults = faulty
    kinds = Counter(f["kind"] for f in faults)
    st = svc.status()
    skipped, repaired = st.skipped_by_reason, st.repaired_by_reason
    pretty_lines = sum(
        int(f["detail"].split(", ")[-1].split()[0])
        for f in faults
        if f["kind"] == "pretty_printed_json"
    )
    assert (
        skipped.get("invalid_json", 0)
        >= kinds["invalid_json_middle"] + pretty_lines - kinds["pretty_printed_json"]
    )  # a pretty file's closing line may lack its newline
    assert skipped.get("incomplete_last_line", 0) >= kinds["truncated_last_line"]
    assert skipped.get("unknown_type", 0) >= kinds["unknown_type"]
    assert skipped.get("blank", 0) >= kinds["empty_line"]
    assert repaired.get("glued", 0) >= kinds["two_objects_one_line"]
    assert repaired.get("invalid_utf8", 0) >= kinds["invalid_utf8"]


def test_planted_facts_are_found_by_ccarchive_search(faulty) -> None:
    """Every phrase through the CLI's own entry point; the first also as a process, the
    way a person runs it (the rest in this process: the boundary is not what they test,
    and a Python start per phrase cost a third of a second of CPU each)."""
    from ccarchive.cli.main import main

    svc, root, data, answers, _ = faulty
    assert len(answers) == 30
    where = ["--archive", str(root), "--data-dir", str(data)]
    runner = CliRunner()
    for n, needle in enumerate(answers):
        args = ["search", *where, "--json", "--all-kinds", "--limit", "5", f'"{needle["phrase"]}"']
        if n == 0:
            out = subprocess.run(
                [sys.executable, "-m", "ccarchive", *args],
                check=True,
                capture_output=True,
                text=True,
            ).stdout
        else:
            r = runner.invoke(main, args)
            assert r.exit_code == 0, (needle, r.output)
            out = r.stdout
        hits = json.loads(out)["hits"]
        assert hits, needle["phrase"]
        top = hits[0]
        assert top["path"] == needle["file"], (needle, top)
        for key in (
            "kind",
            "session_id",
            "uuid",
            "project",
            "timestamp",
            "title",
            "snippet",
            "score",
            "path",
        ):
            assert key in top
        if needle["kind"] == "transcript":
            assert top["uuid"] in needle["uuids"]
            assert top["session_id"] == needle["sessionId"]
