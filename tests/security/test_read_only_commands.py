"""Plan mode's read-only command check: what it lets through, and every way it refuses."""

from __future__ import annotations

import pytest

from pi_lsp.security.read_only_commands import check_read_only


@pytest.mark.parametrize(
    "command",
    [
        "ls -la",
        "cat README.md | head -n 20",
        "grep -rn 'def foo$' pi_lsp && wc -l pi_lsp/*.py",
        "rg -n TODO src | sort | head",
        "find . -name '*.py' -type f",
        "git status; git log --oneline -5; git diff HEAD~1 -- src",
        "git --no-pager show HEAD:README.md",
        "git -P log --literal-pathspecs -- '*.py'",
        "git status --ignored",
        "git diff --output-indicator-new=+ --text",
        "sort -- -o",
        "git blame -L 1,20 src/main.py",
        "git branch -a",
        "git remote -v",
        "cd src && ls 2>/dev/null",
        "grep foo < input.txt 2>&1",
        "tail -n 50 log.txt",
        "tree -L 2",
        "sort -k2 -t, data.csv",
        "date +%Y",
    ],
)
def test_read_only_commands_pass(command: str) -> None:
    assert check_read_only(command).allowed, check_read_only(command).reason


@pytest.mark.parametrize(
    ("command", "why"),
    [
        ("rm -rf build", "rm is not on the read-only list"),
        ("ls && rm x", "rm is not on the read-only list"),
        ("cat a | tee b", "tee is not on the read-only list"),
        ("echo hi > notes.txt", "a redirection to a file (> notes.txt)"),
        ("ls >> out", "a redirection to a file (>> out)"),
        ("cat x &> out", "a redirection"),
        ("find . -name '*.pyc' -delete", "find -delete can write"),
        ("find . -exec rm {} +", "find -exec"),
        ("find . -execdir sh -c x \\;", "find -execdir"),
        ("find . -fprint out", "find -fprint can write"),
        ("git commit -m x", "git commit"),
        ("git -c core.pager=sh log", "git -c"),
        ("git -C sub --no-pager show HEAD:README.md", "git -C"),
        ("git --git-dir=vendor.git --work-tree=. status", "git --git-dir=vendor.git"),
        ("git --work-tree=. status", "git --work-tree=."),
        ("git --config-env=core.pager=X log", "git --config-env"),
        ("git -p log", "git -p"),
        ("git --exec-path=. status", "git --exec-path"),
        ("git status --ignore-submodules=none", "git status --ignore-submodules"),
        ("git grep --recurse-submodules x", "git grep --recurse-submodules"),
        ("git diff --submodule=diff", "git diff --submodule"),
        ("git diff --output=patch.diff", "git diff --output"),
        ("git branch new-feature", "only listing"),
        ("git grep -O foo", "git grep -O"),
        ("git", "without a subcommand"),
        ("sort -ro out data", "sort -ro"),
        ("sort --output=x data", "sort --output=x"),
        ("rg --pre ./script pattern", "rg --pre"),
        ("fd -x rm", "fd -x"),
        ("date -s 2020-01-01", "date -s"),
        ("file -C -m magic", "file -C"),
        ("tree -o out.txt", "tree -o"),
        ("./ls", "not a plain program name"),
        ("$CMD x", "not a plain program name"),
        ("/bin/rm x", "not a plain program name"),
        ("PAGER=sh git log", "variable assignments"),
        ("echo $(rm -rf ~)", "cannot be checked"),
        ("ls `rm x`", "cannot be checked"),
        ("(cd x && rm y)", "cannot be checked"),
        ("cat <<EOF\nx\nEOF", "cannot be checked"),
        ("", "cannot be checked"),
        ("sed -i s/a/b/ f", "sed is not on the read-only list"),
        ("python -c 'open(1)'", "python"),
        ("xargs rm < list", "xargs"),
    ],
)
def test_writing_or_unprovable_commands_are_refused(command: str, why: str) -> None:
    verdict = check_read_only(command)
    assert not verdict.allowed
    assert why in verdict.reason


DANGEROUS_OPTIONS = {
    "file": ["-C", "--compile"],
    "tree": ["-o", "--output", "-R"],
    "sort": ["-o", "--output", "--compress-program"],
    "rg": ["--pre", "--hostname-bin"],
    "fd": ["-x", "-X", "--exec", "--exec-batch"],
    "date": ["-s", "--set"],
    "git grep": ["-O", "--open-files-in-pager", "--output", "--recurse-submodules"],
    "git log": ["--output", "--submodule"],
    "git diff": ["--output", "--ignore-submodules", "--submodule"],
    "git ls-files": ["--recurse-submodules"],
}
"""Every allowed program's options that write or run a program, short and long."""


def _spellings(option: str) -> list[str]:
    """Every way a command line can give ``option``: alone, with its value attached or
    after it, bundled (short), and abbreviated to an unambiguous prefix (long)."""
    if not option.startswith("--"):
        letter = option[1]
        return [f"{option} x", f"-a{letter} x", f"-{letter}x"]
    return [
        f"{option} x",
        f"{option}=x",
        f"{option[:-1]} x",
        f"{option[: max(4, len(option) // 2 + 1)]}=x",
    ]


@pytest.mark.parametrize(
    "command",
    [
        f"{program} {spelling}"
        for program, options in DANGEROUS_OPTIONS.items()
        for option in options
        for spelling in _spellings(option)
    ],
)
def test_every_spelling_of_a_dangerous_option_is_refused(command: str) -> None:
    """``tree -o f`` was refused but ``tree --output f`` allowed (issue 46): each option of
    each allowed program, in every spelling its parser accepts."""
    verdict = check_read_only(command)
    assert not verdict.allowed, command
