#!/usr/bin/env python3
"""Every relative link in the given Markdown files resolves inside the repository.

Arguments: the Markdown files (README.md first: its directory is the repository's root). Bazel
hands them over as runfiles; their real paths lead back to the source tree, where the link
targets are looked up. A link is `[text](target)`, `![alt](target)` or `[label]: target`,
outside code spans and fenced blocks; URLs (scheme:) and anchors of the same page (#...) are
not files. A bracketed Markdown file name that is not a link (`[docs/X.md]` alone) is reported
too: it reads as a link and leads nowhere.
"""
import os
import re
import sys
import urllib.parse

INLINE = re.compile(r"!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
DEFINITION = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+\".*\")?\s*$")
BARE_MD = re.compile(r"\[([^\]\s]+\.md)\](?![(:\[])")
CODE_SPAN = re.compile(r"(`+)(?:.|\n)*?\1")
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def targets(text):
    """(line number, target or None, what) for every link and bare bracketed .md name."""
    fenced = False
    for number, line in enumerate(text.splitlines(), 1):
        if re.match(r"^\s{0,3}(```|~~~)", line):
            fenced = not fenced
            continue
        if fenced:
            continue
        line = CODE_SPAN.sub(lambda m: " " * len(m.group(0)), line)
        definition = DEFINITION.match(line)
        if definition:
            yield number, definition.group(1), "link"
            continue
        for match in INLINE.finditer(line):
            yield number, match.group(1), "link"
        for match in BARE_MD.finditer(line):
            yield number, match.group(1), "bracketed name"


def problems(path, root):
    directory = os.path.dirname(path)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    for number, target, what in targets(text):
        where = f"{os.path.relpath(path, root)}:{number}"
        if what == "bracketed name":
            yield f"{where}: [{target}] is not a link (write [text]({target}))"
            continue
        if not target or target.startswith("#") or SCHEME.match(target):
            continue
        file_part = urllib.parse.unquote(target.split("#", 1)[0].split("?", 1)[0])
        if os.path.isabs(file_part):
            yield f"{where}: {target} is an absolute path, not a link inside the repository"
            continue
        resolved = os.path.realpath(os.path.join(directory, file_part))
        if os.path.commonpath([resolved, root]) != root:
            yield f"{where}: {target} leads outside the repository ({resolved})"
        elif not os.path.exists(resolved):
            yield f"{where}: {target} does not exist ({os.path.relpath(resolved, root)})"


def main(paths):
    if not paths or os.path.basename(paths[0]) != "README.md":
        sys.exit("usage: links_test.py README.md [docs/X.md ...]")
    real = [os.path.realpath(p) for p in paths]
    root = os.path.dirname(real[0])
    found = [problem for path in real for problem in problems(path, root)]
    for problem in found:
        print(problem, file=sys.stderr)
    if found:
        sys.exit(f"{len(found)} broken link(s)")
    print(f"ok: every relative link in {len(real)} files resolves inside {root}")


if __name__ == "__main__":
    main(sys.argv[1:])
