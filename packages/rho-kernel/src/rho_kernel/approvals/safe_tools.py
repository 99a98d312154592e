"""The options known not to run anything of the common programs other than git: text and
file tools, build tools, archivers, pagers.

Left out on purpose (a rule never covers a call that gives them): `sort
--compress-program`, `tar` `--to-command`, `--checkpoint-action`, `-I`/`--use-compress-program`,
`--rsh-command`, `--info-script`/`-F`, `--new-volume-script` and remote archives
(`host:file`), `rsync -e`/`--rsh`/`--rsync-path` and remote paths, `rg --pre`,
`--hostname-bin` and `-z`, `diff -l` (runs `pr`), `file -z`, `less` commands (`+cmd`) and key
files, `man -P`/`-H`/`-l`/`-p`, `cargo --config`/`-Z`/`+toolchain`/`doc --open` and its
short aliases (`t`, `b`: a project's `.cargo/config.toml` defines aliases), `make
-f`/`-C`/`--eval`/`-e` and variable overrides (`CC=…`), `go -exec`/`-toolexec`/`-ldflags`/
`-vettool` and `go env -w`, `npm --script-shell`/`--prefix`, `pytest -p`/`-c`/`-o`/`-W`,
`date` with a time to set, `hostname NAME`. `sed` scripts and `awk` programs are read by
`rho_kernel.approvals.scripts`.
"""

from __future__ import annotations

from rho_kernel.approvals.grammar import Grammar, Reading, no_operands, options, read_words
from rho_kernel.approvals.scripts import safe_awk_program, safe_sed_script


def _sed(reading: Reading) -> bool:
    """The script is the first operand, unless `-e`/`--expression` gave it."""
    if reading.has("-e", "--expression"):
        return True  # each expression is checked as the option's value
    return bool(reading.operands) and safe_sed_script(reading.operands[0])


def _awk(reading: Reading) -> bool:
    if reading.has("-e", "--source"):
        return True
    return bool(reading.operands) and safe_awk_program(reading.operands[0])


def _digits(value: str) -> bool:
    return value.isdigit()


def _local(value: str) -> bool:
    """An archive or path that is not on another host (`host:path`)."""
    return ":" not in value


def _local_operands(reading: Reading) -> bool:
    return all(_local(word) for word in [*reading.operands, *(reading.rest or [])])


def _make_targets(reading: Reading) -> bool:
    """Targets only: `CC=…` would change the commands make runs."""
    return not any("=" in word for word in [*reading.operands, *(reading.rest or [])])


def _date(reading: Reading) -> bool:
    """Only a format (`+%F`): any other operand sets the clock."""
    return all(word.startswith("+") for word in reading.operands) and not reading.rest


def _pager_files(reading: Reading) -> bool:
    """Files only: `+cmd` runs a pager command."""
    return not any(word.startswith("+") for word in reading.operands)


def _man_pages(reading: Reading) -> bool:
    """Page names and sections, not files (`./evil.1` goes through its preprocessors)."""
    return not any("/" in word for word in [*reading.operands, *(reading.rest or [])])


def _lint_levels(reading: Reading) -> bool:
    """After `cargo clippy --`, only lint levels (`-D warnings`); other rustc flags
    (`-C linker=…`) name programs."""
    rest = reading.rest or []
    levels = options("-D= -W= -A= -F= --deny= --warn= --allow= --forbid=")
    parsed = read_words(levels, rest)
    return parsed is not None and not parsed.operands


def _test_arguments(reading: Reading) -> bool:
    """`cargo test -- ARGS`: the arguments go to the project's own test programs."""
    return True


def _no_rest(reading: Reading) -> bool:
    return not reading.rest


_GREP = options(
    "-i -y -v -n -r -R -l -L -c -w -x -o -q -s -h -H -E -F -G -P -z -Z -a -I -U -b -T "
    "--color[=] --colour[=] -e= -f= -m= -A= -B= -C= --include= --exclude= --exclude-dir= "
    "--exclude-from= --label= -d= -D= --binary-files= --line-buffered --null --null-data "
    "--ignore-case --no-ignore-case --invert-match --word-regexp --line-regexp --count "
    "--files-with-matches --files-without-match --only-matching --quiet --silent "
    "--no-messages --byte-offset --with-filename --no-filename --line-number "
    "--no-line-number --recursive --dereference-recursive --text --initial-tab "
    "--extended-regexp --fixed-strings --basic-regexp --perl-regexp --regexp= --file= "
    "--max-count= --after-context= --before-context= --context= --devices= --directories=",
    numeric=True,
)
_RG = options(
    "-n -N -i -S -s -w -x -v -l -c -F -e= -f= -g= -t= -T= -A= -B= -C= -m= -d= -M= -j= -r= "
    "-H -I -o -U -P -L -q -0 -u -uu -uuu -. -a -E= --glob= --iglob= --type= --type-not= "
    "--type-list --max-count= --max-depth= --max-columns= --max-columns-preview --hidden "
    "--no-ignore --no-ignore-vcs --no-ignore-parent --no-ignore-dot --no-ignore-global "
    "--ignore-file= --files --files-with-matches --files-without-match --count "
    "--count-matches --json --vimgrep --no-heading --heading --with-filename "
    "--no-filename --line-number --no-line-number --column --only-matching --multiline "
    "--multiline-dotall --pcre2 --engine= --color= --colors= --threads= --follow "
    "--trim --null --quiet --stats --sort= --sortr= --no-messages --line-regexp "
    "--replace= --smart-case --case-sensitive --ignore-case --fixed-strings "
    "--word-regexp --invert-match --context= --after-context= --before-context= "
    "--regexp= --file= --encoding= --text --binary --unrestricted --passthru "
    "--context-separator= --field-match-separator= --max-filesize= --one-file-system "
    "--sort-files --byte-offset --crlf --null-data --path-separator= --no-config "
    "--glob-case-insensitive --include-zero --no-unicode --pretty -p"
)
_CARGO_COMMON = (
    "-q --quiet -v -vv --verbose --color= --locked --offline --frozen --release -r "
    "--profile= -p= --package= --workspace --all --exclude= --lib --bins --bin= "
    "--examples --example= --tests --test= --benches --bench= --all-targets -F= "
    "--features= --all-features --no-default-features -j= --jobs= --keep-going "
    "--target= --target-dir= --message-format= --timings[=] --ignore-rust-version "
    "--future-incompat-report"
)
_CARGO = options(
    "-q --quiet -v -vv --verbose --color= --locked --offline --frozen --version -V --list",
    subcommands={
        "build": options(_CARGO_COMMON, check=_no_rest),
        "check": options(_CARGO_COMMON, check=_no_rest),
        "test": options(_CARGO_COMMON + " --no-run --no-fail-fast --doc", check=_test_arguments),
        "bench": options(_CARGO_COMMON + " --no-run --no-fail-fast", check=_test_arguments),
        "run": options(_CARGO_COMMON, check=_test_arguments),
        "clippy": options(
            _CARGO_COMMON + " --no-deps --fix --allow-dirty --allow-staged", check=_lint_levels
        ),
        "fmt": options(
            "--all --check -q --quiet -v --verbose -p= --package= --message-format=", check=_no_rest
        ),
        "doc": options(_CARGO_COMMON + " --no-deps --document-private-items", check=_no_rest),
        "tree": options(
            _CARGO_COMMON + " -e= --edges= -i= --invert= --depth= --prefix= "
            "--no-dedupe -d --duplicates --charset= -f= --format= --all-targets",
            check=_no_rest,
        ),
        "metadata": options(
            "--format-version= --no-deps --all-features --features= "
            "--no-default-features --filter-platform= -q -v --locked "
            "--offline --frozen",
            check=no_operands,
        ),
        "clean": options(
            "-p= --package= --release -r --profile= --target= "
            "--target-dir= --doc -n --dry-run -q -v",
            check=no_operands,
        ),
        "update": options(
            "-p= --package= --workspace --dry-run -n -q -v --locked "
            "--offline --precise= --recursive",
            check=_no_rest,
        ),
        "fetch": options("--target= -q -v --locked --offline", check=no_operands),
        "version": options("-v --verbose", check=no_operands),
    },
)
_GO_BUILD = "-v -x -n -a -race -msan -asan -cover -trimpath -mod= -tags= -p= -o= -C= -json"


def _go(spec: str, **changes: object) -> Grammar:
    """Options read as Go's flag package reads them (`-run x`, `--run=x`)."""
    return options(spec, single_dash=True, **changes)


_GO = _go(
    "",
    subcommands={
        "build": _go(_GO_BUILD),
        "test": _go(
            _GO_BUILD + " -run= -skip= -count= -short -timeout= -bench= "
            "-benchmem -benchtime= -failfast -coverprofile= -covermode= "
            "-parallel= -list= -shuffle= -fullpath -cpu="
        ),
        "vet": _go("-v -x -n -tags= -json -C="),
        "run": _go(_GO_BUILD),
        "version": _go("-m -v"),
        "env": _go("-json -changed"),
        "list": _go("-m -json[=] -f= -e -deps -test -u -versions -find -compiled -export -tags="),
        "fmt": _go("-n -x -mod="),
        "mod": _go(
            "",
            subcommands={
                "tidy": _go("-v -e -go= -compat= -diff"),
                "download": _go("-x -json"),
                "verify": _go(""),
                "why": _go("-m -vendor"),
                "graph": _go("-go="),
            },
        ),
    },
)
_NPM_RUN = "-s --silent -q --quiet --if-present -w= --workspace= --workspaces -ws --json"
_NPM = options(
    "-v --version -s --silent",
    subcommands={
        "test": options(_NPM_RUN, check=_test_arguments),
        "t": options(_NPM_RUN, check=_test_arguments),
        "run": options(_NPM_RUN, check=_test_arguments),
        "run-script": options(_NPM_RUN, check=_test_arguments),
        "ls": options("-a --all --depth= --json --long -l --omit= --prod --dev --parseable"),
        "list": options("-a --all --depth= --json --long -l --omit= --prod --dev --parseable"),
        "outdated": options("-a --all --json --long -l"),
        "ci": options("--ignore-scripts --omit= --include= --no-audit --no-fund -s --silent"),
    },
)
_TAR = options(
    "-t -x -c -r -u -v -vv -z -j -J -Z -a -p -k -m -O -h -S -W -f= -C= -T= -X= -b= "
    "--list --extract --get --create --append --update --diff --compare --verbose --gzip "
    "--gunzip --bzip2 --xz --lzma --lzip --lzop --zstd --auto-compress --file= "
    "--directory= --files-from= --exclude-from= --exclude= --exclude-vcs --exclude-vcs-ignores "
    "--exclude-caches --strip-components= --wildcards --no-wildcards --anchored "
    "--no-anchored --keep-old-files --skip-old-files --overwrite --keep-newer-files "
    "--to-stdout --preserve-permissions --same-permissions --no-same-owner --no-same-permissions "
    "--numeric-owner --owner= --group= --mode= --mtime= --sort= --dereference --sparse "
    "--verify --totals[=] --null --no-null --ignore-zeros --ignore-case --no-recursion "
    "--recursion --one-file-system --force-local --occurrence[=] --show-transformed-names "
    "--format= -H= --blocking-factor= --record-size= --label= -V= --warning= --xattrs "
    "--no-xattrs --acls --no-acls --selinux --no-selinux -l --check-links --full-time "
    "--utc --delay-directory-restore --touch --atime-preserve[=] --remove-files "
    "--unlink-first --recursive-unlink --no-overwrite-dir --show-defaults",
    values={"-f": _local, "--file": _local},
)

#: Programs other than git, by name: what a rule may cover beyond its own words.
PROGRAMS: dict[str, Grammar] = {
    "ls": options(
        "-a -A -l -h -1 -R -r -t -S -d -F -p -i -s -G -g -o -n -c -u -U -X -v -x -C -m -b -q "
        "-L -H -k -N -Z -I= -w= -T= --all --almost-all --human-readable --si --recursive "
        "--reverse --directory --classify[=] --color[=] --group-directories-first "
        "--full-time --inode --size --no-group --numeric-uid-gid --dereference "
        "--dereference-command-line --literal --quoting-style= --indicator-style= --sort= "
        "--time= --time-style= --format= --hide= --ignore= --width= --block-size= "
        "--tabsize= --author --escape --hyperlink[=] --zero --file-type --context "
        "--ignore-backups -B -Q --quote-name --show-control-chars --hide-control-chars"
    ),
    "cat": options(
        "-A -b -e -E -n -s -t -T -u -v --show-all --number-nonblank --number "
        "--squeeze-blank --show-ends --show-tabs --show-nonprinting"
    ),
    "head": options(
        "-n= -c= -q -v -z --lines= --bytes= --quiet --silent --verbose --zero-terminated",
        numeric=True,
    ),
    "tail": options(
        "-n= -c= -f -F -q -v -z -s= --follow[=] --lines= --bytes= --retry "
        "--pid= --sleep-interval= --max-unchanged-stats= --quiet --silent "
        "--verbose --zero-terminated",
        numeric=True,
    ),
    "wc": options(
        "-l -w -c -m -L --lines --words --bytes --chars --max-line-length "
        "--total= --zero-terminated"
    ),
    "grep": _GREP,
    "egrep": _GREP,
    "fgrep": _GREP,
    "rg": _RG,
    "sed": options(
        "-n -E -r -s -u -z -i[=] -l= -b -e= --quiet --silent --regexp-extended --separate "
        "--unbuffered --null-data --in-place[=] --line-length= --posix --debug --sandbox "
        "--binary --follow-symlinks --expression=",
        check=_sed,
        values={"-e": safe_sed_script, "--expression": safe_sed_script},
    ),
    "sort": options(
        "-b -d -f -g -i -M -h -n -R -r -V -c -C -m -s -u -z -k= -t= -o= -S= -T= --parallel= "
        "--key= --field-separator= --output= --buffer-size= --temporary-directory= "
        "--ignore-leading-blanks --dictionary-order --ignore-case --general-numeric-sort "
        "--ignore-nonprinting --month-sort --human-numeric-sort --numeric-sort "
        "--random-sort --reverse --version-sort --check[=] --merge --stable --unique "
        "--zero-terminated --sort= --debug"
    ),
    "uniq": options(
        "-c -d -D -u -i -z -f= -s= -w= --count --repeated --all-repeated[=] "
        "--unique --ignore-case --skip-fields= --skip-chars= --check-chars= "
        "--group[=] --zero-terminated"
    ),
    "cut": options(
        "-b= -c= -f= -d= -s -z -n --bytes= --characters= --fields= --delimiter= "
        "--only-delimited --complement --output-delimiter= --zero-terminated"
    ),
    "tr": options("-c -C -d -s -t --complement --delete --squeeze-repeats --truncate-set1"),
    "diff": options(
        "-u -U= -c -C= -q -s -r -N -a -b -w -B -i -E -Z -y -W= -x= -X= -p -F= -e -n -t -T "
        "-d -I= --unified[=] --context[=] --brief --report-identical-files --recursive "
        "--new-file --unidirectional-new-file --text --ignore-space-change "
        "--ignore-all-space --ignore-blank-lines --ignore-case --ignore-tab-expansion "
        "--ignore-trailing-space --side-by-side --width= --exclude= --exclude-from= "
        "--show-c-function --show-function-line= --color[=] --label= --strip-trailing-cr "
        "--no-dereference --normal --suppress-common-lines --left-column --minimal "
        "--speed-large-files --horizon-lines= --tabsize= --expand-tabs --initial-tab "
        "--from-file= --to-file= --starting-file= --ignore-file-name-case "
        "--no-ignore-file-name-case --suppress-blank-empty --ignore-matching-lines="
    ),
    "cmp": options(
        "-b -l -s -i= -n= --print-bytes --verbose --quiet --silent --ignore-initial= --bytes="
    ),
    "comm": options(
        "-1 -2 -3 -12 -13 -23 -z --check-order --nocheck-order "
        "--output-delimiter= --total --zero-terminated"
    ),
    "stat": options(
        "-L -f -t -c= --format= --printf= --dereference --file-system --terse --cached="
    ),
    "file": options(
        "-b -i -L -h -k -s -r -N -0 -E -e= --mime --mime-type --mime-encoding "
        "--brief --dereference --no-dereference --keep-going --raw "
        "--no-pad --print0 --exclude= --extension --apple"
    ),
    "du": options(
        "-a -b -c -h -k -m -s -x -L -P -H -l -0 -D -d= -t= -X= -B= --max-depth= "
        "--summarize --human-readable --apparent-size --total --exclude= "
        "--exclude-from= --time[=] --si --threshold= --inodes --block-size= "
        "--count-links --dereference --separate-dirs --one-file-system --null"
    ),
    "df": options(
        "-h -H -a -i -k -l -T -P -t= -x= -B= --total --output[=] --type= "
        "--exclude-type= --human-readable --si --inodes --local --portability "
        "--print-type --all --block-size= --sync --no-sync"
    ),
    "pwd": options("-L -P", check=no_operands),
    "echo": options("-n -e -E"),
    "printf": options(""),
    "which": options("-a -s"),
    "tree": options(
        "-a -d -l -f -i -q -N -Q -p -u -g -s -h -D -F -r -t -c -U -v -C -n -J "
        "-X -x -L= -P= -I= --gitignore --dirsfirst --noreport --charset= "
        "--prune --filelimit= --matchdirs --ignore-case --du --si --sort= "
        "--filesfirst --metafirst"
    ),
    "basename": options("-a -s= -z --multiple --suffix= --zero"),
    "dirname": options("-z --zero"),
    "realpath": options(
        "-e -m -L -P -q -s -z --relative-to= --relative-base= "
        "--canonicalize-existing --canonicalize-missing --logical "
        "--physical --quiet --strip --no-symlinks --zero"
    ),
    "readlink": options(
        "-f -e -m -n -q -s -v -z --canonicalize --canonicalize-existing "
        "--canonicalize-missing --no-newline --quiet --silent --verbose "
        "--zero"
    ),
    "date": options(
        "-u -R -I[=] --iso-8601[=] --rfc-3339= --rfc-email -d= --date= -r= "
        "--reference= --utc --universal",
        check=_date,
    ),
    "uname": options(
        "-a -s -n -r -v -m -p -i -o --all --kernel-name --nodename "
        "--kernel-release --kernel-version --machine --processor "
        "--hardware-platform --operating-system",
        check=no_operands,
    ),
    "whoami": options("", check=no_operands),
    "id": options("-u -g -G -n -r -z --user --group --groups --name --real --zero"),
    "hostname": options(
        "-f -s -i -I -d -A --fqdn --long --short --ip-address --all-ip-addresses --domain",
        check=no_operands,
    ),
    "true": options(""),
    "false": options(""),
    "nl": options(
        "-b= -n= -s= -v= -w= -i= -l= -d= -h= -f= -p --body-numbering= "
        "--number-format= --number-separator= --starting-line-number= "
        "--number-width= --line-increment= --join-blank-lines= "
        "--section-delimiter= --header-numbering= --footer-numbering= "
        "--no-renumber"
    ),
    "od": options(
        "-A= -t= -N= -j= -w[=] -v -a -b -c -d -f -i -l -o -s -x "
        "--address-radix= --format= --read-bytes= --skip-bytes= --width[=] "
        "--output-duplicates --endian="
    ),
    "xxd": options("-a -b -C -e -E -i -p -r -u -d -c= -g= -l= -o= -s= -n="),
    "hexdump": options("-b -c -C -d -o -x -v -n= -s= -e= -L[=]"),
    "jq": options(
        "-r -j -c -n -e -s -S -C -M -a -R --raw-output --join-output "
        "--compact-output --null-input --exit-status --slurp --sort-keys "
        "--color-output --monochrome-output --ascii-output --raw-input --tab "
        "--indent= --arg= --argjson= --args --jsonargs --raw-output0 --seq "
        "--stream --stream-errors -f= --from-file="
    ),
    "tac": options("-b -r -s= --before --regex --separator="),
    "rev": options(""),
    "seq": options("-f= -s= -w --format= --separator= --equal-width"),
    "column": options(
        "-t -s= -o= -c= -x -n -N= -R= -J -e -L --table --separator= "
        "--output-separator= --output-width= --fillrows --table-columns= "
        "--table-right= --json --keep-empty-lines --table-noheadings "
        "--table-name= --table-hide= --table-order= --table-wrap= "
        "--table-truncate= -W= -T= -H= -O= -r= -d -l="
    ),
    "fold": options("-b -s -w= --bytes --spaces --width="),
    "paste": options("-d= -s -z --delimiters= --serial --zero-terminated"),
    "join": options(
        "-1= -2= -a= -e= -i -j= -o= -t= -v= -z --nocheck-order --check-order "
        "--header --ignore-case --zero-terminated"
    ),
    "expand": options("-i -t= --initial --tabs="),
    "unexpand": options("-a -t= --all --first-only --tabs="),
    "fmt": options(
        "-c -p= -s -t -u -w= -g= --crown-margin --prefix= --split-only "
        "--tagged-paragraph --uniform-spacing --width= --goal="
    ),
    "mkdir": options("-p -v -m= --parents --verbose --mode="),
    "touch": options(
        "-a -c -m -h -d= -r= -t= --no-create --date= --reference= --time= --no-dereference"
    ),
    "cp": options(
        "-r -R -a -f -i -n -p -v -u -l -s -L -P -H -d -x -b -T -t= -S= --recursive "
        "--archive --force --no-clobber --interactive --preserve[=] --no-preserve= "
        "--verbose --update[=] --link --symbolic-link --dereference --no-dereference "
        "--parents --target-directory= --no-target-directory --suffix= --backup[=] "
        "--sparse= --reflink[=] --remove-destination --strip-trailing-slashes "
        "--one-file-system --attributes-only --debug --keep-directory-symlink"
    ),
    "mv": options(
        "-f -i -n -v -u -b -T -t= -S= --force --interactive --no-clobber "
        "--verbose --update[=] --backup[=] --suffix= --target-directory= "
        "--no-target-directory --strip-trailing-slashes --exchange --no-copy"
    ),
    "rm": options(
        "-r -R -f -i -I -d -v --recursive --force --dir --verbose "
        "--one-file-system --interactive[=] --preserve-root[=]"
    ),
    "rmdir": options("-p -v --parents --verbose --ignore-fail-on-non-empty"),
    "ln": options(
        "-s -f -n -v -r -T -t= -L -P -b -S= --symbolic --force --no-dereference "
        "--verbose --relative --target-directory= --no-target-directory "
        "--logical --physical --backup[=] --suffix="
    ),
    "chmod": options(
        "-R -v -c -f --recursive --verbose --changes --silent --quiet --reference= --preserve-root"
    ),
    "sha256sum": options(
        "-b -c -t -z -w --binary --check --text --tag --quiet --status "
        "--strict --warn --ignore-missing --zero"
    ),
    "sha1sum": options(
        "-b -c -t -z -w --binary --check --text --tag --quiet --status "
        "--strict --warn --ignore-missing --zero"
    ),
    "md5sum": options(
        "-b -c -t -z -w --binary --check --text --tag --quiet --status "
        "--strict --warn --ignore-missing --zero"
    ),
    "awk": options(
        "-F= -v= --field-separator= --assign= -e= --source= -b -c -P -r -S "
        "-n --characters-as-bytes --traditional --posix --re-interval "
        "--sandbox --non-decimal-data",
        check=_awk,
        values={"-e": safe_awk_program, "--source": safe_awk_program},
    ),
    "tar": _TAR,
    "rsync": options(
        "-a -v -r -n -z -h -P -u -c -l -L -p -t -g -o -D -H -A -X -x -q -i -m -b -R -S -W "
        "-E -O -J -y -k -K -f= --archive --verbose --recursive --dry-run --compress "
        "--human-readable --progress --partial --update --checksum --links --copy-links "
        "--perms --times --group --owner --devices --specials --hard-links --acls --xattrs "
        "--one-file-system --quiet --itemize-changes --prune-empty-dirs --backup "
        "--relative --sparse --whole-file --delete --delete-before --delete-during "
        "--delete-after --delete-excluded --ignore-existing --existing --size-only --stats "
        "--exclude= --include= --exclude-from= --include-from= --filter= --max-size= "
        "--min-size= --chmod= --backup-dir= --suffix= --compare-dest= --link-dest= "
        "--copy-dest= --info= --mkpath --list-only --numeric-ids --safe-links "
        "--no-perms --no-owner --no-group --no-times --omit-dir-times --inplace --append",
        check=_local_operands,
    ),
    "less": options(
        "-N -S -R -r -F -X -i -I -n -M -m -q -Q -s -g -G -w -W -e -E -f -J -K -L -a -c "
        "-x= -j= -z= -p= -h= -y= -b= --LINE-NUMBERS --chop-long-lines --RAW-CONTROL-CHARS "
        "--raw-control-chars --quit-if-one-screen --no-init --ignore-case --IGNORE-CASE "
        "--pattern= --tabs= --quiet --silent --squeeze-blank-lines --no-lessopen "
        "--quit-at-eof --QUIT-AT-EOF --long-prompt --hilite-unread --status-column",
        check=_pager_files,
    ),
    "man": options(
        "-f -k -w -W -a -S= -s= --sections= --whatis --apropos --where "
        "--path --location --all --regex --wildcard --names-only",
        check=_man_pages,
    ),
    "cargo": _CARGO,
    "go": _GO,
    "npm": _NPM,
    "make": options(
        "-k -s -n -B -q -w -i -r -R -S -t -j= -l= --jobs= --load-average= --keep-going "
        "--silent --quiet --dry-run --just-print --recon --always-make --question "
        "--print-directory --no-print-directory --warn-undefined-variables -O[=] "
        "--output-sync[=] --no-keep-going --stop --ignore-errors --no-builtin-rules "
        "--no-builtin-variables --touch",
        check=_make_targets,
        values={"-j": _digits, "--jobs": _digits, "-l": _digits, "--load-average": _digits},
    ),
    "pytest": options(
        "-q -v -vv -x -s -l -k= -m= -n= -r= --lf --ff --nf --sw --stepwise "
        "--stepwise-skip --last-failed --failed-first --new-first --tb= --maxfail= "
        "--durations= --durations-min= --co --collect-only --no-header --no-summary "
        "--strict-markers --exitfirst --capture= --showlocals --color= --code-highlight= "
        "--disable-warnings --runxfail --deselect= --ignore= --ignore-glob= --cache-clear "
        "--cache-show[=] --import-mode= --timeout= --full-trace --setup-show --setup-only "
        "--setup-plan --verbose --quiet --exitfirst --doctest-modules --dist= --numprocesses= "
        "--lfnf= --last-failed-no-failures="
    ),
}
for _alias in ("gawk", "mawk", "nawk"):
    PROGRAMS[_alias] = PROGRAMS["awk"]


__all__ = ["PROGRAMS"]
