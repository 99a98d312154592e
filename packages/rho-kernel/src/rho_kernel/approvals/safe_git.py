"""git's options known not to run anything, per subcommand.

Left out on purpose (a rule never covers a call that gives them): `-c`, `--config-env`,
`--exec-path=`, `-C`, `--git-dir`, `--work-tree` (each can make git read settings or
programs from elsewhere), `grep -O`/`--open-files-in-pager`, `--ext-diff`, `--textconv`,
`--output`, `--show-signature` and signing (`-S`, `--gpg-sign`, `--verify`: gpg runs),
`rebase -i`/`--exec`/`-x`, `bisect run`, `merge`/`rebase` strategies (`-s`: a program
named `git-merge-*`), `--upload-pack`/`--receive-pack`/`--exec`, `--template`, interactive
modes (`-p`, `-i`, `-e`: an editor or a diff filter runs), `filter-branch`, `difftool`,
`mergetool`, `submodule foreach`, `help` (a browser or `man`), and every subcommand not
listed here (an alias among them).
"""

from __future__ import annotations

from rho_kernel.approvals.grammar import Reading, no_operands, options

_DIFF = (
    "-p -u --patch -s --no-patch --raw --patch-with-raw --patch-with-stat --stat[=] "
    "--compact-summary --numstat --shortstat --dirstat[=] --cumulative --summary -z "
    "--name-only --name-status --submodule[=] --color[=] --no-color --color-moved[=] "
    "--no-color-moved --color-moved-ws= --no-color-moved-ws --word-diff[=] "
    "--word-diff-regex= --color-words[=] --no-renames --rename-empty --no-rename-empty "
    "--check --ws-error-highlight= --full-index --binary --abbrev[=] -B[=] "
    "--break-rewrites[=] -M[=] --find-renames[=] -C[=] --find-copies[=] "
    "--find-copies-harder -D --irreversible-delete -l= --diff-filter= -S= -G= "
    "--find-object= --pickaxe-all --pickaxe-regex -R --relative[=] --no-relative -a "
    "--text --ignore-cr-at-eol --ignore-space-at-eol -b --ignore-space-change -w "
    "--ignore-all-space --ignore-blank-lines -I= --ignore-matching-lines= "
    "--inter-hunk-context= -W --function-context --exit-code --quiet --no-ext-diff "
    "--no-textconv --ignore-submodules[=] --src-prefix= --dst-prefix= --no-prefix "
    "--default-prefix --line-prefix= --ita-invisible-in-index --ita-visible-in-index "
    "-U[=] --unified[=] --minimal --patience --histogram --anchored= --diff-algorithm= "
    "--indent-heuristic --no-indent-heuristic --output-indicator-new= "
    "--output-indicator-old= --output-indicator-context= --no-stat --rotate-to= --skip-to= "
    "--merge-base --cc -c -m --dd --remerge-diff --diff-merges= --no-diff-merges "
    "--combined-all-paths"
)
_REVISIONS = (
    "-n= --max-count= --skip= --since= --after= --since-as-filter= --until= --before= "
    "--author= --committer= --grep= --grep-reflog= --all-match --invert-grep "
    "-i --regexp-ignore-case --basic-regexp -E --extended-regexp -F --fixed-strings "
    "-P --perl-regexp --remove-empty --merges --no-merges --min-parents= --max-parents= "
    "--no-min-parents --no-max-parents --first-parent --exclude-first-parent-only --not "
    "--all --branches[=] --tags[=] --remotes[=] --glob= --exclude= --exclude-hidden= "
    "--reflog --alternate-refs --single-worktree --ignore-missing --bisect --stdin "
    "--cherry-mark --cherry-pick --left-only --right-only --cherry -g --walk-reflogs "
    "--merge --boundary --simplify-by-decoration --show-pulls --full-history --dense "
    "--sparse --simplify-merges --ancestry-path[=] --date-order --author-date-order "
    "--topo-order --reverse --no-walk[=] --do-walk --pretty[=] --format= --abbrev-commit "
    "--no-abbrev-commit --oneline --encoding= --expand-tabs[=] --no-expand-tabs --notes[=] "
    "--no-notes --show-notes[=] --show-notes-by-default --relative-date --date= "
    "--parents --children --left-right --graph --show-linear-break[=] --count "
    "--decorate[=] --no-decorate --decorate-refs= --decorate-refs-exclude= "
    "--clear-decorations --source --use-mailmap --mailmap --no-use-mailmap --no-mailmap "
    "--full-diff --log-size -L= --follow --in-commit-order --objects --objects-edge "
    "--no-object-names --timestamp"
)
_LOG = options(_DIFF + " " + _REVISIONS, numeric=True)
_DIFF_CMD = options(_DIFF + " --cached --staged --no-index")
_GREP = options(
    "--cached --untracked --no-index --exclude-standard --no-exclude-standard "
    "--recurse-submodules -a --text -i --ignore-case -I --max-depth= -r --recursive "
    "--no-recursive -w --word-regexp -v --invert-match -h -H --full-name -E "
    "--extended-regexp -G --basic-regexp -P --perl-regexp -F --fixed-strings -n "
    "--line-number --column -l --files-with-matches --name-only -L "
    "--files-without-match -z --null -o --only-matching -c --count --color[=] "
    "--no-color --break --heading -p --show-function -A= --after-context= -B= "
    "--before-context= -C= --context= --threads= -f= -e= --and --or --not --all-match "
    "-q --quiet -m= --max-count= --no-textconv"
)
_STATUS = options(
    "-s --short -b --branch --show-stash --porcelain[=] --long -v --verbose "
    "-u[=] --untracked-files[=] --ignore-submodules[=] --ignored[=] -z --column[=] "
    "--no-column --ahead-behind --no-ahead-behind --renames --no-renames "
    "--find-renames[=]"
)
_BRANCH = options(
    "-a --all -r --remotes -v -vv --verbose -q --quiet -l --list --show-current "
    "--contains= --no-contains= --merged= --no-merged= --points-at= --sort= --format= "
    "--color[=] --no-color --column[=] --no-column -i --ignore-case --abbrev[=] "
    "--no-abbrev -d -D --delete -m -M --move -c --copy -f --force -u= "
    "--set-upstream-to= --unset-upstream -t --track[=] --no-track"
)
_TAG = options(
    "-l --list -n[=] --sort= --contains= --no-contains= --merged= --no-merged= "
    "--points-at= --format= --color[=] --column[=] --no-column -i --ignore-case "
    "-d --delete -f --force -a --annotate -m= --message= -F= --file= --cleanup="
)
_REV_PARSE = options(
    "--show-toplevel --abbrev-ref[=] --short[=] --verify -q --quiet --git-dir "
    "--absolute-git-dir --git-common-dir --is-inside-work-tree --is-inside-git-dir "
    "--is-bare-repository --is-shallow-repository --show-prefix --show-cdup "
    "--symbolic --symbolic-full-name --all --branches[=] --tags[=] --remotes[=] "
    "--glob= --exclude= --default= --prefix= --sq --sq-quote --not --revs-only --no-revs "
    "--flags --no-flags --path-format= --git-path= --show-object-format[=] "
    "--show-ref-format --show-superproject-working-tree --local-env-vars --since= "
    "--after= --until= --before= --disambiguate= --resolve-git-dir= --shared-index-path "
    "--end-of-options"
)
_LS_FILES = options(
    "-c --cached -d --deleted -m --modified -o --others -i --ignored -s --stage "
    "-u --unmerged -k --killed -z -t -v -f --directory --no-empty-directory --eol "
    "--exclude-standard --full-name --error-unmatch --recurse-submodules --abbrev[=] "
    "--deduplicate --sparse --format= -x= --exclude= -X= --exclude-from= "
    "--exclude-per-directory= --with-tree="
)
_LS_TREE = options(
    "-d -r -t -l --long -z --name-only --name-status --object-only --full-name "
    "--full-tree --abbrev[=] --format="
)
_BLAME = options(
    "-b --root --show-stats -L= -l -t -S= --reverse= --first-parent -p --porcelain "
    "--line-porcelain --incremental --encoding= --contents= --date= --progress "
    "--no-progress -M[=] -C[=] --ignore-rev= --ignore-revs-file= --color-lines "
    "--color-by-age --minimal -s -e --show-email -w --abbrev[=] -c -f --show-name "
    "-n --show-number --since="
)
_SHORTLOG = options(
    _REVISIONS + " -n --numbered -s --summary -e --email -c --committer --group= -w[=] --format="
)
_DESCRIBE = options(
    "--tags --all --long --abbrev[=] --always --dirty[=] --broken[=] --exact-match "
    "--candidates= --match= --exclude= --first-parent --contains --debug"
)
_SHOW_REF = options(
    "--head --heads --branches --tags -d --dereference -s --hash[=] --verify "
    "--exists --abbrev[=] -q --quiet --exclude-existing[=]"
)
_FOR_EACH_REF = options(
    "--count= --sort= --format= --color[=] --shell --perl --python --tcl --points-at= "
    "--merged[=] --no-merged[=] --contains[=] --no-contains[=] --ignore-case "
    "--omit-empty --exclude= --include-root-refs --start-after= --stdin"
)
_CAT_FILE = options(
    "-t -s -p -e --allow-unknown-type --batch[=] --batch-check[=] --batch-command[=] "
    "--batch-all-objects --buffer --unordered --follow-symlinks -z -Z"
)
_SIMPLE = {
    "merge-base": options("-a --all --octopus --is-ancestor --independent --fork-point"),
    "name-rev": options(
        "--tags --refs= --exclude= --all --annotate-stdin --name-only --no-undefined --always"
    ),
    "count-objects": options("-v --verbose -H --human-readable"),
    "check-ignore": options("-q --quiet -v --verbose --stdin -z -n --non-matching --no-index"),
    "check-attr": options("-a --all --cached --stdin -z --source="),
    "version": options("--build-options"),
    "var": options("-l"),
    "cherry": options("-v --abbrev[=]"),
    "range-diff": options(_DIFF + " --creation-factor= --no-dual-color --left-only --right-only"),
    "reflog": options(
        _REVISIONS + " " + _DIFF,
        subcommands={
            "show": _LOG,
            "exists": options(""),
            "list": options(""),
        },
    ),
}
_MUTATE = {
    "add": options(
        "-n --dry-run -v --verbose -f --force -u --update -A --all --no-all "
        "--ignore-removal --no-ignore-removal -N --intent-to-add --refresh --ignore-errors "
        "--ignore-missing --renormalize --sparse --chmod= --pathspec-from-file= "
        "--pathspec-file-nul"
    ),
    "rm": options(
        "-f --force -n --dry-run -r --cached --ignore-unmatch -q --quiet "
        "--sparse --pathspec-from-file= --pathspec-file-nul"
    ),
    "mv": options("-f --force -k -n --dry-run -v --verbose --sparse"),
    "restore": options(
        "-s= --source= -S --staged -W --worktree --ours --theirs -m --merge "
        "--conflict= --ignore-unmerged --ignore-skip-worktree-bits --overlay --no-overlay "
        "-q --quiet --progress --no-progress --recurse-submodules --no-recurse-submodules "
        "--pathspec-from-file= --pathspec-file-nul"
    ),
    "switch": options(
        "-c= --create= -C= --force-create= -d --detach --guess --no-guess -f --force "
        "--discard-changes -m --merge --conflict= -q --quiet --progress --no-progress "
        "-t --track[=] --no-track --orphan= --ignore-other-worktrees --recurse-submodules "
        "--no-recurse-submodules"
    ),
    "checkout": options(
        "-q --quiet --progress --no-progress -f --force --ours --theirs -b= -B= "
        "-t --track[=] --no-track --guess --no-guess -l -d --detach --orphan= -m --merge "
        "--conflict= --ignore-skip-worktree-bits --ignore-other-worktrees --overlay "
        "--no-overlay --pathspec-from-file= --pathspec-file-nul --recurse-submodules "
        "--no-recurse-submodules"
    ),
    "commit": options(
        "-a --all -m= --message= -F= --file= -C= --reuse-message= --fixup= --squash= "
        "--reset-author --short --branch --porcelain --long -z --null --author= --date= "
        "-s --signoff --no-signoff --trailer= -n --no-verify --verify --allow-empty "
        "--allow-empty-message --cleanup= --no-edit --amend --no-post-rewrite -i "
        "--include -o --only --pathspec-from-file= --pathspec-file-nul -u[=] "
        "--untracked-files[=] -q --quiet --dry-run --status --no-status"
    ),
    "reset": options(
        "--soft --mixed --hard --merge --keep -q --quiet --no-refresh "
        "--recurse-submodules --no-recurse-submodules -N "
        "--pathspec-from-file= --pathspec-file-nul"
    ),
    "clean": options("-n --dry-run -f --force -d -x -X -q --quiet -e= --exclude="),
    "stash": options(
        "",
        subcommands={
            "list": _LOG,
            "show": options(_DIFF + " --include-untracked --only-untracked -u"),
            "push": options(
                "-m= --message= -u --include-untracked -a --all -k --keep-index "
                "--no-keep-index -S --staged -q --quiet --pathspec-from-file= "
                "--pathspec-file-nul"
            ),
            "pop": options("--index -q --quiet"),
            "apply": options("--index -q --quiet"),
            "drop": options("-q --quiet"),
        },
    ),
    "merge": options(
        "--commit --no-commit --ff --no-ff --ff-only --squash --no-squash --stat -n "
        "--no-stat --log[=] --no-log --signoff --no-signoff -m= -F= --file= --into-name= "
        "--no-edit --cleanup= --rerere-autoupdate --no-rerere-autoupdate -X= "
        "--strategy-option= --abort --quit --continue --allow-unrelated-histories -q "
        "--quiet -v --verbose --progress --no-progress --autostash --no-autostash "
        "--no-verify --verify"
    ),
    "rebase": options(
        "--onto= --keep-base --continue --skip --abort --quit --apply -m --merge "
        "--empty= --keep-empty --no-keep-empty --reapply-cherry-picks "
        "--no-reapply-cherry-picks --allow-empty-message -X= --strategy-option= "
        "--rerere-autoupdate --no-rerere-autoupdate -q --quiet -v --verbose --stat -n "
        "--no-stat --no-verify --verify -f --force-rebase --no-ff --fork-point "
        "--no-fork-point --ignore-whitespace --whitespace= --committer-date-is-author-date "
        "--ignore-date --reset-author-date --signoff --root --autostash --no-autostash "
        "--update-refs --no-update-refs --rebase-merges[=] --no-rebase-merges"
    ),
    "cherry-pick": options(
        "-n --no-commit -x -m= --mainline= -s --signoff --ff "
        "--allow-empty --allow-empty-message --keep-redundant-commits "
        "--empty= --continue --skip --abort --quit -X= "
        "--strategy-option= --rerere-autoupdate --no-rerere-autoupdate"
    ),
    "revert": options(
        "--no-edit -n --no-commit -m= --mainline= -s --signoff "
        "--continue --skip --abort --quit -X= --strategy-option= "
        "--reference --rerere-autoupdate --no-rerere-autoupdate"
    ),
    "apply": options(
        "--stat --numstat --summary --check --index --cached --intent-to-add "
        "-3 --3way --ours --theirs --union -R --reverse --reject -z -p= -C= "
        "--unidiff-zero --apply --no-add --allow-binary-replacement --binary "
        "--exclude= --include= --ignore-space-change --ignore-whitespace "
        "--whitespace= --inaccurate-eof -v --verbose -q --quiet --recount "
        "--directory= --allow-empty"
    ),
}


def _no_repository(reading: Reading) -> bool:
    """No operand: the configured upstream. (An operand may be a path to a repository in
    the project, whose hooks and settings git would run, or a URL a helper program opens:
    `ext::sh -c …`.)"""
    return no_operands(reading)


_NETWORK = {
    "fetch": options(
        "--all -a --append --atomic --depth= --deepen= --shallow-since= --shallow-exclude= "
        "--unshallow --update-shallow --dry-run -f --force -k --keep --multiple --prune -p "
        "--prune-tags -P --no-tags -n -t --tags --recurse-submodules[=] "
        "--no-recurse-submodules -j= --jobs= -q --quiet -v --verbose --progress "
        "--no-progress --set-upstream --filter= --refetch --no-write-fetch-head",
        check=_no_repository,
    ),
    "pull": options(
        "-q --quiet -v --verbose --recurse-submodules[=] --no-recurse-submodules --commit "
        "--no-commit --no-edit --ff --no-ff --ff-only --log[=] --no-log --signoff "
        "--no-signoff --stat -n --no-stat --squash --no-squash --autostash --no-autostash "
        "-r --rebase[=] --no-rebase --all --append --depth= --unshallow -f --force "
        "-k --keep --prune -p --no-tags -t --tags --progress --no-progress "
        "--allow-unrelated-histories -X= --strategy-option= --no-verify --verify",
        check=_no_repository,
    ),
    "push": options(
        "--all --branches --prune --mirror -n --dry-run --porcelain -d --delete --tags "
        "--follow-tags --no-follow-tags --atomic --no-atomic -o= --push-option= -f --force "
        "--force-with-lease[=] --no-force-with-lease --force-if-includes "
        "--no-force-if-includes -u --set-upstream --thin --no-thin -q --quiet "
        "-v --verbose --progress --no-progress --recurse-submodules= "
        "--no-recurse-submodules --verify --no-verify -4 -6",
        check=_no_repository,
    ),
}


def _remote(reading: Reading) -> bool:
    """`git remote`, `-v`, `get-url NAME`: nothing that sets a URL or reaches a remote."""
    return reading.operands[:1] in ([], ["get-url"]) and len(reading.operands) <= 2


def _config(reading: Reading) -> bool:
    """`git config` that only reads (a setting it writes could name a program)."""
    reads = (
        "--get",
        "--get-all",
        "--get-regexp",
        "--list",
        "-l",
        "--get-color",
        "--get-colorbool",
        "--get-urlmatch",
    )
    if reading.operands[:1] in (["get"], ["list"]):
        return True
    if reading.has(*reads):
        return True
    return len(reading.operands) == 1 and not reading.rest


_READ_ONLY = {
    "status": _STATUS,
    "log": _LOG,
    "show": _LOG,
    "whatchanged": _LOG,
    "rev-list": _LOG.extended("--count --objects --all --header --bisect-all"),
    "diff": _DIFF_CMD,
    "diff-tree": _LOG.extended("-r -t --root --stdin"),
    "diff-index": _DIFF_CMD,
    "diff-files": _DIFF_CMD,
    "grep": _GREP,
    "branch": _BRANCH,
    "tag": _TAG,
    "rev-parse": _REV_PARSE,
    "ls-files": _LS_FILES,
    "ls-tree": _LS_TREE,
    "blame": _BLAME,
    "annotate": _BLAME,
    "shortlog": _SHORTLOG,
    "describe": _DESCRIBE,
    "show-ref": _SHOW_REF,
    "for-each-ref": _FOR_EACH_REF,
    "cat-file": _CAT_FILE,
    "remote": options("-v --verbose -n", check=_remote),
    "config": options(
        "--get --get-all --get-regexp --get-urlmatch --list -l --get-color "
        "--get-colorbool --name-only --show-origin --show-scope --local --global --system "
        "--worktree -z --null --type= --bool --int --bool-or-int --path --expiry-date "
        "--default= --includes --no-includes",
        check=_config,
    ),
    "worktree": options("", subcommands={"list": options("-v --verbose --porcelain -z --expire=")}),
    "bisect": options(
        "",
        subcommands={
            name: options(
                "--no-checkout --first-parent --term-old= --term-new= --term-good= --term-bad="
            )
            for name in ("start", "good", "bad", "new", "old", "skip", "reset", "log", "terms")
        },
    ),
}

#: `git` and its subcommands: what a rule may cover beyond its own words.
GIT = options(
    "--no-pager -P --no-replace-objects --no-lazy-fetch --no-optional-locks "
    "--literal-pathspecs --glob-pathspecs --noglob-pathspecs --icase-pathspecs --version "
    "--no-advice",
    subcommands={**_READ_ONLY, **_SIMPLE, **_MUTATE, **_NETWORK},
)


__all__ = ["GIT"]
