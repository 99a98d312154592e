"""Background parsing of read files: trees land in the cache, the work is bounded, an edit
waits for a parse in flight instead of parsing again, and reads queue it without waiting."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import pytest

from rho_kernel.cancel import CancelToken
from rho_kernel.config.model import RhoConfig
from rho_kernel.security import SandboxRoot
from rho_kernel.tools import ToolContext
from rho_tools_fs import preparse, syntax
from rho_tools_fs.batch_read import batch_read
from rho_tools_fs.edit_run import edit_file_at
from rho_tools_fs.preparse import Preparser
from rho_tools_fs.read_file import read_file

SOURCE = b"def area(width, height):\n    return width * height\n"


def _key(data: bytes, language: str = "python") -> tuple[str, bytes]:
    return syntax.TreeCache.key(language, data)


def test_a_submitted_file_is_parsed_into_the_cache() -> None:
    cache = syntax.TreeCache()
    worker = Preparser(cache, start_delay=0)
    assert worker.submit("src/m.py", SOURCE)
    assert worker.idle(10)
    tree = cache.get(_key(SOURCE))
    assert tree is not None
    assert tree.root_node.type == "module" and not tree.root_node.has_error


@pytest.mark.parametrize(
    ("path", "data", "max_bytes"),
    [
        ("notes.txt", b"no grammar for this\n", 1000),  # no language
        ("empty.py", b"", 1000),
        ("big.py", b"x = 1\n" * 100, 500),  # over the size limit
    ],
)
def test_unwanted_files_are_not_queued(path: str, data: bytes, max_bytes: int) -> None:
    cache = syntax.TreeCache()
    worker = Preparser(cache, max_bytes=max_bytes, start_delay=0)
    assert not worker.submit(path, data)
    assert worker.idle(10)
    assert len(cache) == 0


def test_only_the_latest_files_wait_and_the_newest_goes_first() -> None:
    cache = syntax.TreeCache()
    worker = Preparser(cache, max_pending=2, start_delay=30)  # the worker sleeps meanwhile
    texts = [f"value_{n} = {n}\n".encode() for n in range(5)]
    for n, text in enumerate(texts):
        worker.submit(f"f{n}.py", text)
    assert list(worker._pending) == ["f3.py", "f4.py"]  # the oldest were dropped
    worker._wake.set()
    assert worker.idle(10)
    assert [cache.get(_key(text)) is not None for text in texts] == [False] * 3 + [True] * 2


def test_a_reread_replaces_the_queued_content() -> None:
    worker = Preparser(syntax.TreeCache(), start_delay=30)
    worker.submit("m.py", b"a = 1\n")
    worker.submit("m.py", b"a = 2\n")
    assert list(worker._pending.values()) == [("python", b"a = 2\n")]
    worker.stop()


def test_stop_drops_queued_work_and_refuses_more() -> None:
    cache = syntax.TreeCache()
    worker = Preparser(cache, start_delay=30)
    worker.submit("m.py", SOURCE)
    worker.stop()
    assert worker.idle(10)
    assert len(cache) == 0
    assert not worker.submit("m.py", SOURCE)


def test_a_stopped_parse_is_abandoned() -> None:
    assert syntax.parse_politely("python", SOURCE * 200, lambda: True) is None
    tree = syntax.parse_politely("python", SOURCE, lambda: False)
    assert tree is not None and not tree.root_node.has_error


def test_a_parse_in_flight_is_awaited_not_repeated(monkeypatch: pytest.MonkeyPatch) -> None:
    cache = syntax.TreeCache()
    key = _key(SOURCE)
    assert cache.reserve(key)  # "another thread" is parsing SOURCE
    assert not cache.reserve(key)
    parsed: list[bytes] = []
    real_parser = syntax._parser

    def counting_parser(language: str) -> object:
        parser = real_parser(language)

        class Counting:
            def parse(self, data: bytes, *rest: object) -> object:
                parsed.append(data)
                return parser.parse(data, *rest)

        return Counting()

    monkeypatch.setattr(syntax, "_parser", counting_parser)
    got: list[object] = []
    waiter = threading.Thread(target=lambda: got.append(syntax._parse("python", SOURCE, cache)))
    waiter.start()
    tree = real_parser("python").parse(SOURCE)
    cache.release(key, tree)
    waiter.join(10)
    assert got == [tree]
    assert parsed == []  # the edit's check used the tree parsed by the other thread


def test_a_failed_parse_in_flight_leaves_the_edit_to_parse() -> None:
    cache = syntax.TreeCache()
    key = _key(SOURCE)
    assert cache.reserve(key)
    cache.release(key, None)
    tree = syntax._parse("python", SOURCE, cache)
    assert tree.root_node.type == "module"
    assert cache.get(key) is tree


def _ctx(root: Path) -> ToolContext:
    return ToolContext(root=SandboxRoot(root), config=RhoConfig(), cancel=CancelToken())


async def test_read_file_and_batch_read_queue_a_parse(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_bytes(SOURCE)
    (tmp_path / "b.py").write_bytes(SOURCE + b"# b\n")
    (tmp_path / "bad.py").write_bytes(b"x = '\xff'\n")  # not UTF-8: edit_file refuses it
    syntax.CACHE._trees.clear()
    assert not (await read_file.execute({"path": "a.py", "limit": 1}, _ctx(tmp_path))).is_error
    assert not (await batch_read.execute({"paths": ["b.py", "bad.py"]}, _ctx(tmp_path))).is_error
    assert preparse.PREPARSER.idle(10)
    assert syntax.CACHE.get(_key(SOURCE)) is not None
    assert syntax.CACHE.get(_key(SOURCE + b"# b\n")) is not None
    assert syntax.CACHE.get(_key(b"x = '\xff'\n")) is None


async def test_an_edit_after_a_read_reuses_the_background_tree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "m.py").write_bytes(SOURCE)
    syntax.CACHE._trees.clear()
    await read_file.execute({"path": "m.py"}, _ctx(tmp_path))
    assert preparse.PREPARSER.idle(10)
    full_parses: list[int] = []
    real_parser = syntax._parser

    def watching_parser(language: str) -> object:
        parser = real_parser(language)

        class Watching:
            def parse(self, data: bytes, old_tree: object = None) -> object:
                if old_tree is None:
                    full_parses.append(len(data))
                return parser.parse(data, old_tree) if old_tree else parser.parse(data)

        return Watching()

    monkeypatch.setattr(syntax, "_parser", watching_parser)
    edits = [{"old_text": "width * height", "new_text": "height * width"}]
    result = await edit_file_at(SandboxRoot(tmp_path), "m.py", edits)
    assert not result.is_error and "[warning]" not in result.output
    assert full_parses == []  # only the incremental re-parse of the edited text


def test_errors_already_in_a_background_tree_are_not_blamed_on_the_edit(tmp_path: Path) -> None:
    broken = b"def f(:\n    return 1\n\nx = 1\n"
    cache = syntax.TreeCache()
    worker = Preparser(cache, start_delay=0)
    worker.submit("m.py", broken)
    assert worker.idle(10)
    after = broken.replace(b"x = 1", b"x = 2")
    start = broken.index(b"1\n", broken.index(b"x = "))
    edit = syntax.ByteEdit(start, start + 1, start + 1, (3, 4), (3, 5), (3, 5))
    report = syntax.check("python", broken, after, [edit], cache=cache)
    assert report.new_error_count == 0


def test_background_parsing_leaves_tree_sitter_unimported_until_a_read() -> None:
    probe = (
        "import sys\n"
        "import rho_tools_fs.read_file, rho_tools_fs.batch_read, rho_tools_fs.preparse\n"
        "print(any(m.startswith('tree_sitter') for m in sys.modules))\n"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False"
