"""The documentation stays true to the repository it ships in.

A clone has no `../shared`: every section of the archive format the code cites must be a
heading of `docs/format.md`, every relative link of the README and of `docs/` must reach a
file (and its anchor a heading), every repository path the docs name in backticks must
exist, and the README's test command must be the one CI runs, so that a newcomer who
copies it runs what CI runs. The README stays a front door (at most 220 lines).
"""

from __future__ import annotations

import re
import tomllib
import unicodedata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"
FORMAT = DOCS / "format.md"
ARCHITECTURE = ROOT / "ARCHITECTURE.md"
CI_RUN = ROOT / ".ci" / "run"

README_MAX_LINES = 220
# A section reference: `docs/format.md §9.2`, `format.md §4–§9`, `FORMAT.md §3`.
SECTION_REF = re.compile(r"format\.md\)?\s*((?:§\s*\d+(?:\.\d+)?(?:\s*[–-]\s*)?)+)", re.IGNORECASE)
SECTION_NUMBER = re.compile(r"§\s*(\d+(?:\.\d+)?)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
NUMBERED_HEADING = re.compile(r"^#{2,3}\s+(\d+(?:\.\d+)?)[.\s]")
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^\s*(```|~~~)")
INLINE_CODE = re.compile(r"`[^`\n]+`")
# Paths into the repository named in backticks in the docs: they must exist.
REPO_PATH = re.compile(r"`((?:app|tests|styles|screenshots|docs|\.claude-plugin|\.ci)/[^`\s]*)`")
# The only files that may name the format and stack notes kept outside the repository.
OUTSIDE_NOTES = re.compile(r"\b(?:FORMAT|STACK)\.md\b")


def _doc_files() -> list[Path]:
    return [README, ARCHITECTURE, *sorted(DOCS.glob("*.md"))]


def _source_files() -> list[Path]:
    files = [
        p
        for d in ("app", "tests")
        for p in (ROOT / d).rglob("*")
        if p.suffix in {".py", ".md", ".toml", ".tcss", ".json"} and p.is_file()
    ]
    return [p for p in files if p.resolve() != Path(__file__).resolve()]


def _without_code_blocks(text: str) -> str:
    """The text with fenced code blocks blanked out (line numbers kept)."""
    out, fenced = [], False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
            out.append("")
            continue
        out.append("" if fenced else line)
    return "\n".join(out)


def _slug(heading: str) -> str:
    """GitHub's anchor for a Markdown heading."""
    text = heading.strip().lower()
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)  # a link keeps its text
    kept = [ch for ch in text if ch in " -_" or unicodedata.category(ch)[0] in "LN"]
    return "".join(kept).replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    anchors = set()
    for line in _without_code_blocks(path.read_text(encoding="utf-8")).splitlines():
        m = HEADING.match(line)
        if not m:
            continue
        slug = _slug(m.group(2))
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        anchors.add(slug if n == 0 else f"{slug}-{n}")
    return anchors


def _format_sections() -> set[str]:
    sections = set()
    for line in FORMAT.read_text(encoding="utf-8").splitlines():
        m = NUMBERED_HEADING.match(line)
        if m:
            sections.add(m.group(1))
    return sections


def _section_refs(text: str) -> list[str]:
    refs = []
    for m in SECTION_REF.finditer(text):
        refs.extend(SECTION_NUMBER.findall(m.group(1)))
    return refs


def test_readme_is_a_front_door() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES, (
        f"README.md has {len(lines)} lines (at most {README_MAX_LINES}): move detail to docs/"
    )


def test_format_sections_are_numbered_headings() -> None:
    sections = _format_sections()
    # the sections the code has cited since the format notes were written
    assert {"1", "2", "3", "4", "6.2", "6.4", "8.2", "9", "9.2", "15"} <= sections


def test_every_section_reference_resolves() -> None:
    sections = _format_sections()
    unresolved = []
    for path in _source_files() + _doc_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        unresolved.extend(
            f"{path.relative_to(ROOT)}: §{ref}"
            for ref in _section_refs(text)
            if ref not in sections
        )
    assert not unresolved, "references to sections docs/format.md lacks:\n" + "\n".join(unresolved)


def test_format_cross_references_resolve() -> None:
    """Inside docs/format.md a bare `§6.3` means a section of the same page."""
    sections = _format_sections()
    text = _without_code_blocks(FORMAT.read_text(encoding="utf-8"))
    missing = sorted({n for n in SECTION_NUMBER.findall(text) if n not in sections})
    assert not missing, f"docs/format.md refers to sections it lacks: {missing}"


def test_no_reference_leaves_the_repository() -> None:
    offenders = []
    for path in _source_files() + _doc_files():
        for n, line in enumerate(
            path.read_text(encoding="utf-8", errors="replace").splitlines(), 1
        ):
            if OUTSIDE_NOTES.search(line):
                offenders.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert not offenders, (
        "FORMAT.md / STACK.md are not in the repository; cite "
        "docs/format.md §N instead:\n" + "\n".join(offenders)
    )


def _links(path: Path) -> list[str]:
    text = INLINE_CODE.sub("", _without_code_blocks(path.read_text(encoding="utf-8")))
    return LINK.findall(text)


@pytest.mark.parametrize("doc", _doc_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(doc: Path) -> None:
    broken = []
    for target in _links(doc):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.IGNORECASE):
            continue  # http:, https:, mailto:
        file_part, _, anchor = target.partition("#")
        dest = (doc.parent / file_part).resolve() if file_part else doc
        if not dest.exists():
            broken.append(f"{target}: no such file")
            continue
        if anchor and dest.suffix == ".md" and anchor not in _anchors(dest):
            broken.append(f"{target}: no heading #{anchor} in {dest.relative_to(ROOT)}")
    assert not broken, f"{doc.relative_to(ROOT)}:\n" + "\n".join(broken)


# docs/format.md names paths of the archive and of other repositories, not of this one
@pytest.mark.parametrize(
    "doc",
    [README, *sorted(set(DOCS.glob("*.md")) - {FORMAT})],
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_named_repository_paths_exist(doc: Path) -> None:
    missing = []
    for raw in REPO_PATH.findall(doc.read_text(encoding="utf-8")):
        if "<" in raw or "{" in raw:
            continue  # a pattern (`projects/<p>/…`), not a path
        path = raw.split("::")[0].rstrip(".,;:")
        if _made_by_a_run(path):
            continue  # ignored by git: a run makes it (`tests/.cache`), a clone has none
        if any(ch in path for ch in "*?["):
            if not list(ROOT.glob(path)):
                missing.append(raw)
        elif not (ROOT / path).exists():
            missing.append(raw)
    assert not missing, f"{doc.relative_to(ROOT)} names paths that do not exist: {missing}"


def _made_by_a_run(path: str) -> bool:
    """Whether .gitignore names the folder `path` is in (or is): what the suite writes."""
    ignored = [
        line.rstrip("/")
        for line in (ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()
        if "/" in line.rstrip("/") and not line.startswith("#")
    ]
    return any(path.rstrip("/") == d or path.startswith(d + "/") for d in ignored)


def _readme_commands() -> list[str]:
    """The one-line bash blocks of the README's "Two commands" section."""
    text = README.read_text(encoding="utf-8")
    section = text.split("\n## Two commands", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```bash\n(.*?)```", section, re.DOTALL)
    return [b.strip() for b in blocks]


def test_readme_test_command_is_what_ci_runs() -> None:
    lines = CI_RUN.read_text(encoding="utf-8").splitlines()
    marker = next(i for i, line in enumerate(lines) if "test command, verbatim" in line)
    ci_command = lines[marker + 1].strip()
    commands = _readme_commands()
    assert len(commands) == 2, f"the README gives two commands, found {commands}"
    assert all("\n" not in c for c in commands), "each of the two commands is one line"
    app_command, test_command = commands
    assert test_command == ci_command, (
        f"README's test command:\n  {test_command}\n.ci/run runs:\n  {ci_command}"
    )
    assert "pytest" in test_command and "pytest" not in app_command
    assert app_command.endswith("ccarchive")


def test_ci_runs_every_test_but_the_benchmarks_and_screenshots() -> None:
    """The README's command runs the suite, which leaves out the slow tier for its size
    (pyproject.toml's `addopts`); CI runs that tier after it, so nothing that checks a
    promise is left to a run nobody makes."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    addopts = config["tool"]["pytest"]["ini_options"]["addopts"]
    left_out = addopts[addopts.index("-m") + 1]
    assert set(re.findall(r"not (\w+)", left_out)) == {"benchmark", "screenshots", "slow"}
    lines = [line.strip() for line in CI_RUN.read_text(encoding="utf-8").splitlines()]
    suite = next(i for i, line in enumerate(lines) if "test command, verbatim" in line) + 1
    assert ".venv/bin/python -m pytest -q -m slow" in lines[suite + 1 :], (
        ".ci/run runs the slow tier after the README's command"
    )


def test_slug_follows_github() -> None:
    assert _slug("9. Subagents (the Task / Agent tool)") == "9-subagents-the-task--agent-tool"
    assert _slug("`ccarchive index --watch`") == "ccarchive-index---watch"
    assert _slug("How fast indexing is, and why") == "how-fast-indexing-is-and-why"


def test_section_refs_parse_ranges_and_forms() -> None:
    text = "see docs/format.md §4–§9 and (FORMAT.md §6.2) or format.md §15 reports; not §7 alone"
    assert _section_refs(text) == ["4", "9", "6.2", "15"]


# In ARCHITECTURE.md a paragraph that opens with **`app/<folder>/`** names its modules
# relative to that folder (`store.py`, `screens/pane.py`, `redact/engine.py`).
FOLDER_PARAGRAPH = re.compile(r"^\*\*`((?:app|tests|styles)(?:/[\w.-]+)*/?)`\*\*")
MODULE_PATH = re.compile(r"`([\w./-]+(?:\.(?:py|tcss|toml|md|json|typed)|/))`")


def _architecture_paths() -> list[tuple[str, Path]]:
    """Each path ARCHITECTURE.md names, with the folder it is named relative to."""
    text = _without_code_blocks(ARCHITECTURE.read_text(encoding="utf-8"))
    named, base = [], ROOT / "app"
    for paragraph in re.split(r"\n\s*\n", text):
        m = FOLDER_PARAGRAPH.match(paragraph.strip())
        base = ROOT / m.group(1) if m else ROOT / "app"
        named.extend((token, base) for token in MODULE_PATH.findall(paragraph))
    return named


def _architecture_path_exists(token: str, base: Path) -> bool:
    rel = token.rstrip("/")
    if (ROOT / rel).exists() or (base / rel).exists():
        return True
    # a module of a subpackage named by its own name (`engine.py` under `redact/`)
    return any(p.as_posix().endswith("/" + rel) for p in base.rglob(Path(rel).name))


def test_architecture_names_only_what_exists() -> None:
    named = _architecture_paths()
    assert len(named) > 40, "ARCHITECTURE.md should name the modules it describes"
    missing = [
        f"{token} (under {base.relative_to(ROOT)})"
        for token, base in named
        if not _architecture_path_exists(token, base)
    ]
    assert not missing, "ARCHITECTURE.md names paths that do not exist:\n" + "\n".join(missing)


def test_architecture_where_a_new_thing_goes_is_true() -> None:
    text = ARCHITECTURE.read_text(encoding="utf-8")
    section = text.split("## Where a new thing goes", 1)[1].split("\n## ", 1)[0]
    tokens = [t for t in MODULE_PATH.findall(section) if "<" not in t]
    assert len(tokens) >= 8, "the section should name the files a new thing touches"
    missing = [t for t in tokens if not _architecture_path_exists(t, ROOT / "app")]
    assert not missing, f"'Where a new thing goes' names paths that do not exist: {missing}"
