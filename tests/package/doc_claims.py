#!/usr/bin/env python3
"""doc_claims.py — what README.md and docs/*.md cite exists in the code: every environment
variable CLSTENCIL_* is read by a source file; every option on a documented `clstencil COMMAND`
line is one that `clstencil COMMAND --help` lists; every `--op` operator there is one the command
accepts (it refuses an unknown operator before it opens any file, exit 1; a missing input is 4);
and the other way, every option that `--help` lists is in docs/cli.md, the command's reference.
Usage: doc_claims.py REPOSITORY CLSTENCIL
Exit status 0 when every claim holds, 1 listing those that do not.
"""
import glob
import os
import re
import shlex
import subprocess
import sys

COMMANDS = ("filter", "devices", "gen", "bench", "tune", "cache")
SOURCES = ("core", "generator", "device-db", "plan", "host", "tools", "python/clstencil", "scripts")


def documents(repository):
    return [os.path.join(repository, "README.md")] + sorted(glob.glob(os.path.join(repository, "docs", "*.md")))


def code_text(repository):
    text = []
    for folder in SOURCES:
        for root, _, files in os.walk(os.path.join(repository, folder)):
            for name in files:
                if name.endswith((".c", ".h", ".py", ".sh")) or "." not in name:
                    try:
                        with open(os.path.join(root, name), encoding="utf-8") as source:
                            text.append(source.read())
                    except (UnicodeDecodeError, IsADirectoryError):
                        pass
    return "\n".join(text)


def command_lines(text):
    """Documented invocations: `clstencil COMMAND ...` at the start of an indented code line or a
    code span."""
    found = []
    for match in re.finditer(r"(?m)^ {4}(clstencil [^\n#]*)|`(clstencil [^`]*)`", text):
        line = (match.group(1) or match.group(2)).strip()
        words = line.split()
        if len(words) > 1 and words[1] in COMMANDS:
            found.append(line)
    return found


def main():
    repository, clstencil = sys.argv[1], sys.argv[2]
    failures = []
    code = code_text(repository)
    helps = {c: subprocess.run([clstencil, c, "--help"], capture_output=True, text=True).stdout for c in COMMANDS}
    checked_ops = {}
    for path in documents(repository):
        with open(path, encoding="utf-8") as document:
            text = document.read()
        where = os.path.relpath(path, repository)
        for variable in sorted(set(re.findall(r"\bCLSTENCIL_[A-Z_]+[A-Z]\b", text))):
            if variable not in code:
                failures.append(f"{where}: {variable} is read nowhere in the code")
        for line in command_lines(text):
            words = line.split()
            command = words[1]
            for option in re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", line):
                if option not in helps[command]:
                    failures.append(f"{where}: `{line}`: {option} is not an option of clstencil {command}")
            if command != "filter" and command != "bench":
                continue
            try:
                arguments = shlex.split(line)
            except ValueError:
                continue
            for k, word in enumerate(arguments[:-1]):
                operator = arguments[k + 1]
                if word != "--op" or re.search(r"[A-Z<>|\[]|\.\.\.", operator) or operator in checked_ops:
                    continue  # a placeholder (OPERATOR, SIZE, ...), or already checked
                run = subprocess.run([clstencil, "filter", "/nonexistent/in.pgm", "/nonexistent/out.pgm", "--op",
                                      operator], capture_output=True, text=True)
                checked_ops[operator] = run.returncode
                if run.returncode != 4:
                    failures.append(f"{where}: `{line}`: --op {operator} is refused: {run.stderr.strip()}")
    with open(os.path.join(repository, "docs", "cli.md"), encoding="utf-8") as reference:
        cli = reference.read()
    for command, text in helps.items():
        for option in sorted(set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", text))):
            if option not in cli:
                failures.append(f"docs/cli.md: clstencil {command} {option} (in --help) is not described")
    for failure in failures:
        print(failure)
    print(f"doc_claims: {len(failures)} claims that do not hold ({len(checked_ops)} operators checked)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
