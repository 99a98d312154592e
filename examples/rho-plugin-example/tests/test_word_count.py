"""word_count through rho's real agent loop, against a scripted model server."""

from __future__ import annotations

from pathlib import Path

from rho_kernel.testing import ScriptedServer, run_prompt, text_reply, tool_call_reply

from rho_plugin_example import plugin
from rho_plugin_example.tools import CHUNK_BYTES


async def _count(server: ScriptedServer, root: Path, path: str) -> tuple[str, str]:
    server.add(tool_call_reply("word_count", {"path": path}), text_reply("counted"))
    result = await run_prompt("count it", endpoint=server.chat_url, root=root, plugins=[plugin])
    (call,) = result.tool_calls
    return call.outcome, call.output or ""


async def test_counts_lines_words_and_bytes(scripted_server: ScriptedServer, rho_root: Path):
    (rho_root / "notes.txt").write_text("one two\nthree\n\nfour  five six\n")
    outcome, output = await _count(scripted_server, rho_root, "notes.txt")
    assert outcome == "success"
    assert output == "notes.txt: 4 lines, 6 words, 30 bytes"


async def test_a_word_split_across_chunks_counts_once(
    scripted_server: ScriptedServer, rho_root: Path
):
    text = "a" * (CHUNK_BYTES - 2) + " word" + "s" * 10 + " end"
    (rho_root / "big.txt").write_text(text)
    _, output = await _count(scripted_server, rho_root, "big.txt")
    assert output == f"big.txt: 0 lines, 3 words, {len(text)} bytes"


async def test_a_file_outside_the_project_is_refused(
    scripted_server: ScriptedServer, rho_root: Path, tmp_path: Path
):
    (tmp_path / "secret.txt").write_text("top secret\n")
    (rho_root / "link.txt").symlink_to(tmp_path / "secret.txt")
    for path in ("../secret.txt", str(tmp_path / "secret.txt"), "link.txt"):
        outcome, output = await _count(scripted_server, rho_root, path)
        assert outcome == "error"
        assert output.startswith("word_count: ")
        assert "top secret" not in output


async def test_a_missing_file_is_an_error_for_the_model(
    scripted_server: ScriptedServer, rho_root: Path
):
    outcome, output = await _count(scripted_server, rho_root, "nope.txt")
    assert outcome == "error"
    assert "nope.txt" in output
