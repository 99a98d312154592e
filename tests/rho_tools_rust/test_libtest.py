"""Reading libtest's output: panic messages old and new, outputs that imitate libtest."""

from __future__ import annotations

from rho_tools_rust.libtest import panic_message, parse_json, parse_text


def test_the_panic_message_of_current_toolchains() -> None:
    output = (
        "printed\n\nthread 'tests::adds' (123) panicked at src/lib.rs:6:25:\n"
        "assertion failed\n  left: 1\nnote: run with `RUST_BACKTRACE=1`\n"
    )
    assert panic_message(output) == ("assertion failed\n  left: 1", "src/lib.rs:6:25")


def test_the_panic_message_of_older_toolchains() -> None:
    output = "thread 'main' panicked at 'boom\\nagain', src/main.rs:2:5\nnote: run with\n"
    assert panic_message(output) == ("boom\nagain", "src/main.rs:2:5")


def test_without_a_panic_the_end_of_the_output_is_the_message() -> None:
    assert panic_message('Error: "bad input"\n') == ('Error: "bad input"', None)


def test_long_messages_are_capped() -> None:
    output = "thread 'x' panicked at a.rs:1:1:\n" + "\n".join(f"line {n}" for n in range(50))
    message, _ = panic_message(output)
    assert message.endswith("line 11\n…")


def test_captured_output_imitating_libtest_does_not_change_the_counts() -> None:
    stdout = (
        "running 2 tests\ntest a ... ok\ntest b ... FAILED\n\nfailures:\n\n---- b stdout ----\n"
        "test fake ... ok\ntest result: ok. 99 passed\n"
        "thread 'b' panicked at src/lib.rs:1:1:\nreal\n\nfailures:\n    b\n\n"
        "test result: FAILED. 1 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out\n"
    )
    report = parse_text(stdout)
    assert report is not None
    assert (report.passed, report.failed) == (1, 1)


def test_json_lines_that_are_not_events_are_skipped() -> None:
    stdout = (
        "not json\n{broken\n[1]\n"
        '{ "type": "test", "event": "ok", "name": "a" }\n'
        '{ "type": "test", "event": "failed", "name": "b", "stdout": "", '
        '"message": "panic did not contain expected string" }\n'
        '{ "type": "suite", "event": "failed", "passed": 1, "failed": 1, "filtered_out": 2 }\n'
    )
    report = parse_json(stdout)
    assert report is not None
    assert (report.passed, report.failed, report.filtered_out) == (1, 1, 2)
    assert report.failures[0].message == "panic did not contain expected string"
    assert parse_json("plain text only\n") is None
