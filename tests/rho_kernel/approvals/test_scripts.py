"""The little languages inside a command's words: a sed script, an awk program or a find
expression is accepted only when it is known to run nothing — checked against the real
GNU sed, whose `--sandbox` refuses exactly the commands that run, write or read."""

from __future__ import annotations

import random
import shutil
import subprocess

import pytest

from rho_kernel.approvals.scripts import safe_awk_program, safe_find_arguments, safe_sed_script

SAFE_SED = [
    "p",
    "1,5p",
    "$d",
    "/^#/d",
    "s/foo/bar/g",
    "s|a/b|c|2",
    "s/\\t/ /gI",
    "y/abc/xyz/",
    "/start/,/end/p",
    "10q",
    "=",
    "1~2p",
    "0,/re/s//x/",
    "/^[0-9]/p",
    "/[[:space:]]$/d",
    ":a;N;$!ba;s/\\n/ /g",
    "1i #!/bin/sh",
    "$a\\\nlast line",
    "/x/{p;d}",
    "1!G;h;$!d",
    "s/x/y/;s/a/b/",
    "# a comment\np",
]
UNSAFE_SED = [
    "e id",
    "1e id",
    "1 e id",
    "1!e id",
    "/x/e id",
    "s/x/id/e",
    "s/x/id/ge",
    "s/x/y/w out",
    "s/x/y/gw out",
    "w out",
    "1W out",
    "r /etc/passwd",
    "1R /etc/passwd",
    "/x/{e id\n}",
    ":a;e id",
    "b end; e id",
    "1a x; e id",
    "s/[/]/x/e",
    "s/[\\/]/x/",
    "s/x/y/\ne id",
    "v",
    "s/x/y/k",
]


@pytest.mark.parametrize("script", SAFE_SED)
def test_plain_sed_scripts_are_accepted(script: str) -> None:
    assert safe_sed_script(script)


@pytest.mark.parametrize("script", UNSAFE_SED)
def test_sed_scripts_that_run_write_or_read_are_refused(script: str) -> None:
    assert not safe_sed_script(script)


def _gnu_sed() -> str | None:
    sed = shutil.which("sed")
    if sed is None:
        return None
    version = subprocess.run([sed, "--version"], capture_output=True, text=True, check=False)
    return sed if "GNU sed" in version.stdout else None


@pytest.mark.skipif(_gnu_sed() is None, reason="GNU sed is not installed")
def test_no_script_accepted_is_one_gnu_sed_would_run_or_write() -> None:
    """Random scripts of sed's syntax: each one accepted is run through the real GNU sed
    with `--sandbox`, which refuses `e`, `w` and `r` wherever it reads them."""
    sed = _gnu_sed()
    assert sed is not None
    pieces = [*list("s/|,;{}!$12 aeiwWrRpdqy[]\\^:.bt\n#gxIN"), "s/a/b/", "e ", "w f", "[:a:]"]
    chooser = random.Random(20261207)
    accepted = 0
    for _ in range(6000):
        script = "".join(chooser.choice(pieces) for _ in range(chooser.randint(1, 12)))
        if not safe_sed_script(script):
            continue
        accepted += 1
        run = subprocess.run(
            [sed, "--sandbox", "-n", "-e", script, "/dev/null"],
            capture_output=True,
            text=True,
            check=False,
        )
        assert "sandbox" not in run.stderr, (script, run.stderr)
    assert accepted > 200  # the check saw enough scripts to mean something


@pytest.mark.parametrize(
    ("program", "safe"),
    [
        ("{print $1}", True),
        ("$1 > 3 || $2 < 1 {n++} END {print n}", True),
        ('BEGIN { print "a" > "out.txt" }', True),
        ('BEGIN { system("id") }', False),
        ('{ print | "sh" }', False),
        ('{ "id" | getline x }', False),
        ('{ print |& "sh" }', False),
        ('{ print "a" ||| "sh" }', False),
        ("/a|b/", False),  # refused, though only a regular expression: `|` is not read
        ('@load "x"', False),
        ('BEGIN { f = "system"; @f("id") }', False),
        ('BEGIN { getline < "/inet/tcp/0/h/80" }', False),
    ],
)
def test_awk_programs(program: str, safe: bool) -> None:
    assert safe_awk_program(program) is safe


@pytest.mark.parametrize(
    ("args", "safe"),
    [
        (". -name *.py", True),
        (". src -type f -mtime -1 -print", True),
        ("-L . ( -name a -o -name b ) -prune", True),
        (". -newermt 2024-01-01 -printf %p\\n", True),
        (". -name -exec", True),  # the value of -name, as find reads it
        (". -exec sh ;", False),
        (". -execdir sh +", False),
        (". -ok rm ;", False),
        (". -okdir rm ;", False),
        (". -delete", False),
        (". -fprint out", False),
        (". -fprint0 out", False),
        (". -fprintf out %p", False),
        (". -fls out", False),
        (". -name", False),
        (". -D exec", False),
    ],
)
def test_find_expressions(args: str, safe: bool) -> None:
    assert safe_find_arguments(args.split()) is safe
