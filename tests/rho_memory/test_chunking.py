"""Chunking: Markdown sections by heading (outside fences, without front matter), text parts."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from rho_memory.chunking import (
    MAX_CHUNK_CHARS,
    Chunk,
    chunk_file,
    chunk_markdown,
    chunk_text,
)


def test_markdown_is_cut_at_atx_headings_with_the_heading_path_as_title() -> None:
    text = "intro\n\n# Install\nfirst\n## On Linux\napt install\n# Usage #\nrun it\n"
    assert chunk_markdown("docs/guide.md", text) == [
        Chunk("docs/guide.md", "intro"),
        Chunk("docs/guide.md › Install", "# Install\nfirst"),
        Chunk("docs/guide.md › Install › On Linux", "## On Linux\napt install"),
        Chunk("docs/guide.md › Usage", "# Usage #\nrun it"),
    ]


def test_setext_headings_cut_sections_and_their_text_line_opens_the_new_one() -> None:
    text = "Guide\n=====\nabout\n\nSetup\n-----\nsteps\n\npara\n\n---\nafter a rule\n"
    assert chunk_markdown("g.md", text) == [
        Chunk("g.md › Guide", "Guide\n=====\nabout"),
        Chunk("g.md › Guide › Setup", "Setup\n-----\nsteps\n\npara\n\n---\nafter a rule"),
    ]


def test_headings_inside_fenced_code_blocks_do_not_cut() -> None:
    text = (
        "# Build\n"
        "````sh\n# comment\n```\nstill code\n````\n"
        "~~~\n## not a heading\nTitle\n===\n~~~\n"
        "# Next\nx\n"
    )
    chunks = chunk_markdown("b.md", text)
    assert [c.title for c in chunks] == ["b.md › Build", "b.md › Next"]
    assert "# comment" in chunks[0].body and "## not a heading" in chunks[0].body


def test_an_unclosed_fence_runs_to_the_end() -> None:
    chunks = chunk_markdown("u.md", "# A\ntext\n```\n# B\n")
    assert [c.title for c in chunks] == ["u.md › A"]


def test_front_matter_is_left_out() -> None:
    text = "---\ntitle: secret front\ntags: [a]\n---\n# Doc\nbody\n"
    assert chunk_markdown("f.md", text) == [Chunk("f.md › Doc", "# Doc\nbody")]


def test_sections_with_only_a_heading_are_skipped() -> None:
    text = "# Top\n## Empty\n\n## Full\ncontent\n"
    assert chunk_markdown("e.md", text) == [Chunk("e.md › Top › Full", "## Full\ncontent")]


def test_indented_hashes_and_hashes_without_space_are_not_headings() -> None:
    text = "# Real\n    # indented code\n#hashtag\n"
    assert len(chunk_markdown("h.md", text)) == 1


def test_a_deeper_heading_after_a_shallower_one_replaces_the_right_levels() -> None:
    text = "# A\na\n### C\nc\n## B\nb\n"
    titles = [c.title for c in chunk_markdown("d.md", text)]
    assert titles == ["d.md › A", "d.md › A › C", "d.md › A › B"]


def test_windows_line_endings_are_understood() -> None:
    chunks = chunk_markdown("w.md", "# One\r\nfirst\r\n# Two\r\nsecond\r\n")
    assert chunks == [Chunk("w.md › One", "# One\nfirst"), Chunk("w.md › Two", "# Two\nsecond")]


def test_a_huge_heading_is_cut_in_the_title() -> None:
    (chunk,) = chunk_markdown("x.md", "# " + "h" * 1000 + "\nbody\n")
    assert len(chunk.title) < 300


def test_plain_text_is_one_chunk_titled_by_its_path() -> None:
    assert chunk_text("notes.txt", "\n a note \n") == [Chunk("notes.txt", "a note")]
    assert chunk_text("blank.txt", " \n\n") == []


def test_long_text_is_split_at_blank_lines_into_numbered_parts() -> None:
    paragraphs = [f"paragraph {n} " + "w" * 1500 for n in range(5)]
    chunks = chunk_text("notes.txt", "\n\n".join(paragraphs))
    assert [c.title for c in chunks] == [f"notes.txt (part {n})" for n in (1, 2, 3)]
    assert all(len(c.body) <= MAX_CHUNK_CHARS for c in chunks)
    assert chunks[0].body == paragraphs[0] + "\n\n" + paragraphs[1]


def test_a_long_paragraph_is_cut_at_line_ends_and_a_long_line_hard() -> None:
    chunks = chunk_text("t.txt", "aaaa\nbbbb\ncccccccccccc", max_chars=10)
    assert [c.body for c in chunks] == ["aaaa\nbbbb", "cccccccccc", "cc"]


def test_a_long_markdown_section_is_split_into_parts() -> None:
    text = "# Big\n" + "\n\n".join("x" * 30 for _ in range(4))
    chunks = chunk_markdown("m.md", text, max_chars=70)
    assert [c.title for c in chunks] == ["m.md › Big (part 1)", "m.md › Big (part 2)"]


def test_chunk_file_chooses_by_suffix() -> None:
    text = "# Head\nbody\n"
    assert chunk_file("A.MARKDOWN", text)[0].title == "A.MARKDOWN › Head"
    assert chunk_file("a.txt", text) == [Chunk("a.txt", "# Head\nbody")]


_WORD = st.text(alphabet="abcdefxyz ", min_size=1, max_size=30).filter(str.strip)
_BLOCK = st.one_of(
    _WORD.map(lambda w: "w" + w),
    st.integers(1, 6).flatmap(lambda n: _WORD.map(lambda w: "#" * n + " " + w)),
    _WORD.map(lambda w: f"s{w}\n==="),
    st.just(""),
    st.lists(st.one_of(_WORD.map(lambda w: "c" + w), st.just("# code"), st.just("t\n---"))).map(
        lambda lines: "\n".join(["```", *lines, "```"])
    ),
)


@settings(max_examples=100, deadline=None)
@given(st.lists(_BLOCK, max_size=30))
def test_no_content_line_of_generated_markdown_is_lost(blocks: list[str]) -> None:
    text = "\n".join(blocks)
    bodies = [c.body for c in chunk_markdown("p.md", text)]
    for line in text.split("\n"):
        # Content lines start with w (prose) or c (code); the rest are headings and fences.
        if line[:1] in ("w", "c") or line in ("# code", "t"):
            assert any(line.strip() in body for body in bodies), line


_HEADINGISH = re.compile(r"^\s*(#|=+\s*$|-+\s*$)")


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet="ab #=-`~\n\r\t>*1.", max_size=400), st.integers(5, 80))
def test_chunking_never_raises_nor_loses_a_non_heading_line(text: str, max_chars: int) -> None:
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if lines and lines[0].rstrip() == "---":
        return  # a front matter block may legitimately swallow lines
    for chunks in (chunk_markdown("p.md", text, max_chars), chunk_text("p.txt", text, max_chars)):
        assert all(len(c.body) <= max_chars and c.body.strip() for c in chunks)
        joined = "".join("".join(c.body.split()) for c in chunks)
        for index, line in enumerate(lines):
            following = lines[index + 1] if index + 1 < len(lines) else ""
            if not line.strip() or _HEADINGISH.match(line) or _HEADINGISH.match(following):
                continue
            assert "".join(line.split()) in joined, line
