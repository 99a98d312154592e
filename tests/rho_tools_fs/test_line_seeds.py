"""The line-seed cache: complete answers, bounded memory, numbers for low-information lines."""

from __future__ import annotations

import threading

from rho_tools_fs.fold import fold16
from rho_tools_fs.line_seeds import SeedCache, line_seeds


def test_seeds_are_folds_or_line_numbers() -> None:
    blobs = [b"def f():", b"", b"    return 1", b"}", "é".encode(), "—".encode(), b"x"]
    seeds = line_seeds(blobs, 7, SeedCache())
    assert seeds == [
        fold16(b"def f():"),
        8,
        fold16(b"    return 1"),
        10,
        fold16("é".encode()),
        12,
        fold16(b"x"),
    ]


def test_line_numbers_wrap_at_sixteen_bits() -> None:
    assert line_seeds([b"}", b"}"], 0xFFFF, SeedCache()) == [0xFFFF, 0]


def test_a_reread_uses_the_cache_and_gives_the_same_seeds() -> None:
    cache = SeedCache()
    blobs = [f"line {n}".encode() for n in range(50)] + [b"}"] * 5
    first = line_seeds(blobs, 1, cache)
    assert len(cache) == 51
    assert line_seeds(blobs, 1, cache) == first
    changed = [*blobs[:10], b"new line", *blobs[11:]]
    assert line_seeds(changed, 1, cache)[10] == fold16(b"new line")
    assert len(cache) == 52


def test_the_cache_starts_over_when_full_and_still_answers_completely() -> None:
    cache = SeedCache(lines=60)
    first = [f"a{n}".encode() for n in range(50)]
    second = [f"b{n}".encode() for n in range(50)]
    assert line_seeds(first, 1, cache) == [fold16(b) for b in first]
    # 50 + 50 > 60: the table is replaced; this call still sees all of its lines.
    assert line_seeds(first[:20] + second, 1, cache) == [fold16(b) for b in first[:20] + second]
    assert len(cache) <= 60


def test_a_call_larger_than_the_cache_is_answered_but_not_remembered() -> None:
    cache = SeedCache(lines=10)
    blobs = [f"c{n}".encode() for n in range(30)]
    assert line_seeds(blobs, 1, cache) == [fold16(b) for b in blobs]
    assert len(cache) == 0


def test_the_cache_is_bounded_by_bytes_too() -> None:
    cache = SeedCache(size_bytes=1000)
    line_seeds([b"x" * 600], 1, cache)
    assert len(cache) == 1
    line_seeds([b"y" * 600], 1, cache)
    assert len(cache) == 1  # started over


def test_concurrent_readers_see_complete_tables() -> None:
    cache = SeedCache(lines=300)
    errors: list[BaseException] = []

    def work(tag: int) -> None:
        try:
            for round_ in range(30):
                blobs = [f"{tag}:{round_}:{n}".encode() for n in range(100)]
                assert line_seeds(blobs, 1, cache) == [fold16(b) for b in blobs]
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(tag,)) for tag in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
