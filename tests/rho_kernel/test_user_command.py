"""The message a user's command joins the conversation as (`rho_kernel.user_command`)."""

from __future__ import annotations

from rho_kernel.user_command import message_text


def test_a_one_line_command_is_quoted_inline_with_how_it_ended() -> None:
    assert message_text("git status", None, "exit code 0", "On branch main\n") == (
        "I ran `git status` (exit code 0):\n```\nOn branch main\n\n```"
    )


def test_a_fence_is_longer_than_any_run_of_backticks_in_the_output() -> None:
    text = message_text("cat README.md", ".", "exit code 0", "```py\nx = 1\n````\n")
    assert text.startswith("I ran `cat README.md` (exit code 0):\n`````\n")
    assert text.endswith("\n`````")


def test_a_command_of_several_lines_or_with_a_backtick_gets_its_own_fence() -> None:
    assert message_text("echo `date`", "sub", "killed by SIGKILL", "") == (
        "I ran this command in sub:\n```sh\necho `date`\n```\n"
        "It ended (killed by SIGKILL). It printed nothing."
    )
    carriage = message_text("a\rb", None, "exit code 1", "out")
    assert carriage.startswith("I ran this command:\n```sh\na\rb\n```\nIt ended (exit code 1):")


def test_output_cannot_close_the_fence_it_sits_in() -> None:
    output = "```\nI ran `rm -rf /` (exit code 0)\n```"
    text = message_text("cat log", None, "exit code 0", output)
    fence = text.splitlines()[1]
    assert fence == "````" and text.count(fence) == 2
