"""Every citation of the behaviour ("behaviour 3.4", "behaviour.md 9.1, 9.4", "behaviour 1.2-1.7")
in the repository's code, tests and READMEs names a section that `docs/behaviour.md` has.

A section exists when the document has a heading with its number (`## 4`, `### 4.2`) or, inside a
section written as a numbered list (11, the known limits), a top-level list item with it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BEHAVIOUR = ROOT / "docs" / "behaviour.md"
SCANNED = ("packages", "tests", "benchmarks")
SUFFIXES = {".py", ".md", ".toml"}
SKIPPED_PARTS = {".venv", "node_modules", "__pycache__", ".git"}

NUMBER = r"\d+(?:\.\d+)*"
ONE = rf"§?\s?{NUMBER}(?:\s?[-–]\s?{NUMBER})?"
CITATION = re.compile(
    rf"\bbehaviou?r(?:\.md)?,?\s+(?P<list>{ONE}(?:(?:,\s?|\s(?:and|or)\s){ONE})*)", re.IGNORECASE
)
HEADING = re.compile(rf"^#{{2,4}}\s+(?P<number>{NUMBER})\s", re.MULTILINE)
LIST_ITEM = re.compile(r"^(?P<item>\d+)\.\s", re.MULTILINE)


def sections(text: str) -> set[str]:
    """The section numbers `text` defines: its numbered headings, and the top-level items of a
    numbered list under a heading that has no numbered sub-headings."""
    found = {match["number"] for match in HEADING.finditer(text)}
    headings = list(HEADING.finditer(text))
    for here, after in zip(headings, [*headings[1:], None], strict=True):
        number = here["number"]
        if any(other.startswith(number + ".") for other in found):
            continue
        body = text[here.end() : after.start() if after else len(text)]
        found.update(f"{number}.{item['item']}" for item in LIST_ITEM.finditer(body))
    return found


def cited(text: str) -> list[str]:
    """The section numbers cited in `text`; a range cites both of its ends."""
    numbers: list[str] = []
    for match in CITATION.finditer(text):
        numbers.extend(re.findall(NUMBER, match["list"]))
    return numbers


def scanned_files() -> list[Path]:
    files = [ROOT / "README.md"]
    for folder in SCANNED:
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix in SUFFIXES and not SKIPPED_PARTS & set(path.parts) and path.is_file():
                files.append(path)
    return files


def missing_citations(known: set[str]) -> list[str]:
    missing = []
    for path in scanned_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        for number in cited(text):
            if number not in known:
                missing.append(f"{path.relative_to(ROOT)}: behaviour {number}")
    return missing


def test_the_behaviour_document_is_in_the_repository_with_its_sections() -> None:
    known = sections(BEHAVIOUR.read_text(encoding="utf-8"))
    assert {"1.1", "3.4", "4.2", "9.1", "11.3", "15"} <= known


def test_every_citation_of_the_behaviour_names_a_section_that_exists() -> None:
    known = sections(BEHAVIOUR.read_text(encoding="utf-8"))
    assert missing_citations(known) == []


def test_the_repository_cites_the_behaviour_often_enough_for_the_scan_to_mean_something() -> None:
    count = sum(len(cited(path.read_text(errors="replace"))) for path in scanned_files())
    assert count > 100


@pytest.mark.parametrize(
    ("text", "numbers"),
    [
        ("(behaviour 3.4)", ["3.4"]),
        ("behaviour.md 9.1, 9.4", ["9.1", "9.4"]),
        ("behaviour 1.2-1.7, 3.3", ["1.2", "1.7", "3.3"]),
        ("behaviour.md 8.6 and 8.7", ["8.6", "8.7"]),
        ("behaviour.md §10", ["10"]),
        ("the behaviour of the helper", []),
    ],
)
def test_a_citation_is_read_with_every_section_it_names(text: str, numbers: list[str]) -> None:
    assert cited(text) == numbers


def test_a_section_missing_from_the_document_is_reported() -> None:
    known = sections("## 3 Tools\n\n### 3.4 `watch_meeting`\n\n## 11 Limits\n\n1. one\n2. two\n")
    assert known == {"3", "3.4", "11", "11.1", "11.2"}
    assert [n for n in cited("see behaviour 3.4 and behaviour 3.9") if n not in known] == ["3.9"]
