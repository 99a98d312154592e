"""Options that name a command line the program runs: the policy checks that line too, so
a denylisted program cannot hide behind `git grep -O`, a filter-branch filter, `tar
--checkpoint-action=exec=`, `sort --compress-program`, `rsync -e` or `man -P`."""

from __future__ import annotations

import pytest

from rho_kernel.security.commands import CommandPolicy


@pytest.mark.parametrize(
    "line",
    [
        "git grep -O'curl x' -e foo",
        "git grep -nOcurl foo",
        "git grep --open-files-in-pager='curl x' foo",
        "git grep --open-files='curl x' foo",  # an abbreviation git accepts
        "git filter-branch --tree-filter 'curl x' HEAD",
        "git filter-branch --msg-filter='curl x' HEAD",
        "git filter-branch --index-filter 'curl x' HEAD",
        "git send-email --sendmail-cmd='curl x' a.patch",
        "tar --checkpoint=1 --checkpoint-action=exec='curl x' -cf a.tar .",
        "tar -cf a.tar --to-command curl .",
        "tar -I curl -xf a",
        "tar -xIcurl -f a",
        "tar --use-compress-program=curl -xf a",
        "tar --rsh-command=curl -xf a",
        "tar -F curl -cf a .",
        "tar --info-script=curl -cf a .",
        "tar --new-volume-script=curl -cf a .",
        "sort --compress-program=curl f",
        "sort --compress-program curl f",
        "rsync -e curl a b",
        "rsync --rsh='curl x' a b",
        "man -P curl ls",
        "man --pager=curl ls",
    ],
)
def test_a_denylisted_program_named_by_an_option_is_refused(line: str) -> None:
    denial = CommandPolicy().check(line)
    assert denial is not None and denial.rule == "denied_command", line


@pytest.mark.parametrize(
    ("line", "rule"),
    [
        ("git --exec-path=. log", "dynamic_command"),
        ('git grep -O"$PAGER" foo', "dynamic_command"),
        ("tar xIf curl a", "dynamic_command"),  # old-style letters: not followed
        ('tar --to-command="$X" -xf a', "dynamic_command"),
    ],
)
def test_code_an_option_names_out_of_sight_is_refused(line: str, rule: str) -> None:
    denial = CommandPolicy().check(line)
    assert denial is not None and denial.rule == rule, (line, denial)


@pytest.mark.parametrize(
    "line",
    [
        "git grep -O foo",  # the user's own pager; `foo` is the pattern
        "git grep -n foo",
        "git --exec-path",
        "tar -xzf a.tgz",
        "tar --checkpoint=10 --checkpoint-action=dot -cf a.tar .",
        "sort -n -k 2 f",
        "rsync -av a/ b/",
        "man ls",
    ],
)
def test_the_same_programs_without_such_options_pass(line: str) -> None:
    assert CommandPolicy().check(line) is None
