"""A prefix rule covers more than its own words only when every option of the command is
known to run nothing: each program for which a rule may be suggested, attacked with the
options that run programs, and the common read-only calls its rule must still cover."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
from approval_tools import RUN

from rho_kernel.approvals.coverage import grammar_of, known_safe
from rho_kernel.approvals.grammar import Grammar
from rho_kernel.approvals.safe_git import GIT
from rho_kernel.approvals.safe_tools import PROGRAMS
from rho_kernel.approvals.subjects import specifier_matches
from rho_kernel.approvals.suggest import suggested_rules
from rho_kernel.security.commands import CommandPolicy

ROOT = Path("/work/project")


def _covers(rule: str, line: str) -> bool:
    return specifier_matches("command", rule, {"command": line}, root=ROOT, policy=CommandPolicy())


#: (rule, line): lines a rule must still cover.
COVERED = [
    ("git status:*", "git status"),
    ("git status:*", "git status -s -b"),
    ("git status:*", "git status -uno --porcelain=v2"),
    ("git log:*", "git log -n 5 --oneline"),
    ("git log:*", "git log -5 --graph --decorate --all -- src"),
    ("git log:*", "git log --since '2 weeks ago' --author=me -p --stat"),
    ("git diff:*", "git diff --stat"),
    ("git diff:*", "git diff --cached -U5 HEAD~1 -- a.py"),
    ("git grep:*", "git grep -n foo"),
    ("git grep:*", "git grep -nI -e foo -e bar -- '*.py'"),
    ("git show:*", "git show HEAD:README.md"),
    ("git branch:*", "git branch -vv --sort=-committerdate"),
    ("git commit:*", "git commit -m 'a message'"),
    ("git add:*", "git add -A"),
    ("git rev-parse:*", "git rev-parse --abbrev-ref HEAD"),
    ("git config:*", "git config --get user.name"),
    ("git push:*", "git push --force-with-lease"),
    ("git:*", "git --no-pager log -1"),
    ("sed:*", "sed -n 1,5p file"),
    ("sed:*", "sed -n '/^def /p' a.py"),
    ("sed:*", "sed -i 's/foo/bar/g' a.py"),
    ("sed:*", "sed -E -e 's|a|b|' -e '$d' f"),
    ("ls:*", "ls -la"),
    ("ls:*", "ls -lh --color=never src"),
    ("cargo test:*", "cargo test --release"),
    ("cargo test:*", "cargo test -p core --all-features -- --nocapture"),
    ("cargo clippy:*", "cargo clippy --all-targets -- -D warnings"),
    ("cargo build:*", "cargo build --release --target-dir target"),
    ("grep:*", "grep -rn TODO src"),
    ("rg:*", "rg -n --hidden -g '*.rs' foo"),
    ("find:*", "find . -name '*.py' -mtime -1 -print"),
    ("find . -type:*", "find . -type f -not -path './.git/*'"),
    ("tar:*", "tar xzf a.tgz"),
    ("tar:*", "tar -czf out.tgz src"),
    ("sort:*", "sort -n -k 2 -t , f"),
    ("awk:*", "awk -F: '{print $1}' /etc/passwd"),
    ("awk:*", "awk '$1 > 3 || $2 < 1 {n++} END {print n}' f"),
    ("rsync:*", "rsync -av --delete a/ b/"),
    ("head:*", "head -20 file"),
    ("tail:*", "tail -n +5 file"),
    ("wc:*", "wc -l a b"),
    ("echo:*", "echo hello world"),
    ("make:*", "make -j 4 test"),
    ("npm test:*", "npm test -- --watch=false"),
    ("npm run:*", "npm run build"),
    ("pytest:*", "pytest -q -x tests/test_a.py -k 'foo and not bar'"),
    ("go test:*", "go test -run TestX -v ./..."),
    ("less:*", "less -R file"),
    ("man:*", "man 5 crontab"),
    ("date:*", "date +%F"),
]

#: (rule, line): lines whose options, operands or scripts run another program.
NOT_COVERED = [
    ("git grep:*", "git grep -O'sh -c \"echo PWNED > planted.txt\"' -e foo"),
    ("git grep:*", "git grep --open-files-in-pager='curl x' foo"),
    ("git grep:*", "git grep --open-files-in-pager foo"),
    ("git grep:*", "git grep --open foo"),  # an abbreviation of it
    ("git grep:*", "git grep -nOvim foo"),
    ("git grep:*", "git grep --textconv foo"),
    ("git:*", "git -c core.pager=less log"),
    ("git:*", "git -c color.ui=never log"),  # any -c: settings are not vouched for
    ("git:*", "git --config-env=core.pager=P log"),
    ("git:*", "git --exec-path=. log"),
    ("git:*", "git -C elsewhere status"),
    ("git:*", "git --git-dir=elsewhere status"),
    ("git:*", "git --work-tree=elsewhere status"),
    ("git:*", "git st"),  # an alias, or anything not listed
    ("git fetch:*", "git fetch --upload-pack='sh -c x' origin"),
    ("git fetch:*", "git fetch 'ext::sh -c x'"),
    ("git push:*", "git push --receive-pack=x origin"),
    ("git push:*", "git push ./evil main"),  # a repository whose hooks would run
    ("git clone:*", "git clone -u 'sh -c x' a b"),
    ("git log:*", "git log --ext-diff -p"),
    ("git log:*", "git log --output=out.txt"),
    ("git log:*", "git log --show-signature"),
    ("git diff:*", "git diff --textconv"),
    ("git filter-branch:*", "git filter-branch --tree-filter 'touch x' HEAD"),
    ("git rebase:*", "git rebase --exec 'make test' main"),
    ("git rebase:*", "git rebase -x 'make test' main"),
    ("git rebase:*", "git rebase -i main"),
    ("git rebase:*", "git rebase -s ours main"),
    ("git merge:*", "git merge -s ours x"),
    ("git commit:*", "git commit -S -m x"),
    ("git bisect:*", "git bisect run make test"),
    ("git difftool:*", "git difftool -x vim"),
    ("git mergetool:*", "git mergetool --tool-cmd=x"),
    ("git submodule:*", "git submodule foreach 'touch x'"),
    ("git config:*", "git config core.pager 'sh -c x'"),
    ("git config:*", "git config set alias.x '!sh'"),
    ("git help:*", "git help -w log"),
    ("git add:*", "git add -p"),
    ("sed:*", "sed 1e\\ id file"),
    ("sed:*", "sed '1e id' file"),
    ("sed:*", "sed -n '1e id' file"),
    ("sed:*", "sed 's/x/id/e' file"),
    ("sed:*", "sed 's/x/y/w out' file"),
    ("sed:*", "sed '1w out' file"),
    ("sed:*", "sed '1r /etc/passwd' file"),
    ("sed:*", "sed -e p -e '1e id' file"),
    ("sed:*", "sed --expression='1 e id' file"),
    ("sed:*", "sed -f script.sed file"),
    ("sed:*", "sed ':a;e id' file"),
    ("sed:*", "sed '1a x; e id' file"),  # some seds read a command there
    ("sed:*", "sed 's/[/]/x/e' file"),  # seds disagree on where the regex ends
    ("sed:*", "sed -i '' 'w out' file"),  # BSD sed: '' is the suffix, 'w out' the script
    ("tar:*", "tar --checkpoint=1 --checkpoint-action=exec='sh -c x' -cf a.tar ."),
    ("tar:*", "tar -cf a.tar --to-command=sh ."),
    ("tar:*", "tar -I 'sh -c x' -xf a"),
    ("tar:*", "tar --use-compress-program=x -xf a"),
    ("tar:*", "tar xIf x a"),
    ("tar:*", "tar --rsh-command=x -xf host:a"),
    ("tar:*", "tar -xf host:a"),
    ("tar:*", "tar -F x -cf a ."),
    ("tar:*", "tar --info-script=x -cf a ."),
    ("tar:*", "tar --new-volume-script=x -cf a ."),
    ("sort:*", "sort --compress-program=sh f"),
    ("sort:*", "sort --compress-program sh f"),
    ("find:*", "find . -exec sh -c x \\;"),
    ("find:*", "find . -execdir rm {} +"),
    ("find:*", "find . -ok rm {} \\;"),
    ("find:*", "find . -okdir rm {} \\;"),
    ("find:*", "find . -delete"),
    ("find:*", "find . -fprint out"),
    ("find:*", "find . -fprintf out %p"),
    ("find:*", "find . -fls out"),
    ("xargs:*", "xargs sh -c x"),
    ("xargs:*", "xargs -I{} rm {}"),
    ("rsync:*", "rsync -e 'sh -c x' a b"),
    ("rsync:*", "rsync --rsh=x a b"),
    ("rsync:*", "rsync --rsync-path=x a b"),
    ("rsync:*", "rsync -av a host:b"),
    ("less:*", "less '+!id' file"),
    ("less:*", "less -k keys file"),
    ("less:*", "less --lesskey-file=keys file"),
    ("less:*", "less -o log file"),
    ("man:*", "man -P 'sh -c x' ls"),
    ("man:*", "man --pager=x ls"),
    ("man:*", "man -H ls"),
    ("man:*", "man -l ./evil.1"),
    ("man:*", "man ./evil.1"),
    ("env:*", "env sh -c x"),
    ("env:*", "env -S 'sh -c x'"),
    ("env:*", "env -u X"),  # not listed: only `env` itself
    ("nice:*", "nice sh -c x"),
    ("timeout:*", "timeout 5 sh -c x"),
    ("awk:*", "awk 'BEGIN { system(\"id\") }'"),
    ("awk:*", "awk '{ print | \"sh\" }' f"),
    ("awk:*", "awk '{ \"id\" | getline x }' f"),
    ("awk:*", "awk '{ print |& \"sh\" }' f"),
    ("awk:*", "awk '@load \"x\"' f"),
    ("awk:*", "awk -f prog.awk f"),
    ("awk:*", "awk -e 'BEGIN{system(\"id\")}' f"),
    ("awk:*", "awk -E prog.awk f"),
    ("cargo test:*", "cargo test --config 'target.x.runner=\"sh\"'"),
    ("cargo:*", "cargo +nightly test"),
    ("cargo:*", "cargo -Z unstable-options test"),
    ("cargo clippy:*", "cargo clippy -- -C linker=sh"),
    ("cargo doc:*", "cargo doc --open"),
    ("make:*", "make CC='sh -c x' test"),
    ("make:*", "make -f evil.mk"),
    ("make:*", "make --eval='x:=$(shell id)'"),
    ("make:*", "make -j CC=x"),
    ("npm run:*", "npm run build --script-shell=sh"),
    ("go test:*", "go test -exec 'sh -c x' ./..."),
    ("go test:*", "go test -toolexec x ./..."),
    ("go build:*", "go build -ldflags=-extld=sh ."),
    ("go vet:*", "go vet -vettool=x ./..."),
    ("go env:*", "go env -w GOFLAGS=-toolexec=x"),
    ("pytest:*", "pytest -p evil_plugin"),
    ("pytest:*", "pytest -o addopts=-pevil"),
    ("rg:*", "rg --pre sh foo"),
    ("rg:*", "rg --pre=sh foo"),
    ("rg:*", "rg -z foo"),
    ("rg:*", "rg --hostname-bin=x foo"),
    ("diff:*", "diff -l a b"),
    ("date:*", "date 010101002030"),
    ("hostname:*", "hostname evil"),
    ("python:*", "python -c 'import os'"),  # not listed: only `python` itself
    ("ls:*", "ls --definitely-not-an-option"),
    ("ls:*", "/bin/ls -la"),
]


@pytest.mark.parametrize(("rule", "line"), COVERED, ids=[line for _, line in COVERED])
def test_a_rule_covers_the_common_safe_uses_of_its_program(rule: str, line: str) -> None:
    assert _covers(rule, line)


@pytest.mark.parametrize(("rule", "line"), NOT_COVERED, ids=[line for _, line in NOT_COVERED])
def test_a_rule_never_covers_options_that_run_programs(rule: str, line: str) -> None:
    assert not _covers(rule, line)


@pytest.mark.parametrize(("rule", "line"), NOT_COVERED, ids=[line for _, line in NOT_COVERED])
def test_no_prefix_rule_is_offered_for_a_call_no_rule_could_safely_cover(
    rule: str, line: str
) -> None:
    offered = [s.rule for s in suggested_rules(RUN, {"command": line}, ROOT)]
    assert not any(text.endswith(":*)") for text in offered), offered
    for text in offered:  # the exact command, at most: it covers only this call
        assert text == f"run_command({shlex.join(shlex.split(line))})"


@pytest.mark.parametrize(("rule", "line"), COVERED, ids=[line for _, line in COVERED])
def test_a_safe_call_is_offered_its_program_and_first_word(rule: str, line: str) -> None:
    words = shlex.split(line)
    offered = {s.rule for s in suggested_rules(RUN, {"command": line}, ROOT)}
    if not words[1].startswith("-"):
        assert f"run_command({shlex.join(words[:2])}:*)" in offered


def test_a_rule_of_a_program_not_listed_covers_only_its_own_words() -> None:
    assert grammar_of("npx") is None
    assert _covers("npx prettier:*", "npx prettier")
    assert not _covers("npx prettier:*", "npx prettier --write .")
    assert _covers("python -m pytest:*", "python -m pytest")
    assert not _covers("python -m pytest:*", "python -m pytest -q")


def _grammars(grammar: Grammar, path: str) -> list[tuple[str, Grammar]]:
    found = [(path, grammar)]
    for name, sub in (grammar.subcommands or {}).items():
        found += _grammars(sub, f"{path} {name}")
    return found


_ALL = [item for name, g in {"git": GIT, **PROGRAMS}.items() for item in _grammars(g, name)]


@pytest.mark.parametrize(("path", "grammar"), _ALL, ids=[path for path, _ in _ALL])
def test_every_listed_program_refuses_an_option_it_does_not_list(
    path: str, grammar: Grammar
) -> None:
    words = path.split()
    for unknown in ("--frobnicate", "--frobnicate=x", "-\u00e9"):
        assert not known_safe([*words, unknown, "x"]), (path, unknown)
    for option in grammar.valued:  # a separate value that looks like an option is refused
        assert not known_safe([*words, option, "-Osh"]), (path, option)


def test_a_program_named_with_a_directory_is_not_read_against_the_tables() -> None:
    assert known_safe(["ls", "-la"])
    assert not known_safe(["./ls", "-la"])
    assert not known_safe(["/usr/bin/git", "status"])
