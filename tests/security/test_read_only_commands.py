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
        "git -C sub --no-pager show HEAD:README.md",
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
