#!/usr/bin/python3
"""Runs every shell and Python block of the README and of every page under docs/, in order, as a
user would, and checks the outputs the pages show, so that no page can go stale.

    tests/readme/readme_test.py [--aws PATH_TO_AWS_CLI] [--page FILE ...]

Without --page: README.md, then every docs/**/*.md in path order, then the test helpers' READMEs
(clients/python, clients/js), which the documentation site also shows. Each page runs on its own, as a
reader who lands on it would: its blocks run in one bash session (variables and background
servers carry over from block to block, as in a user's terminal) in a scratch folder that mirrors
the repository through symbolic links, so files the page makes (out.txt, .venv) land there; the
session's background jobs are stopped before the next page. At the end it lists, per page, the
blocks it ran and those it skipped with their reasons. Conventions in the pages:

- A line `#> text` after a command is output the command must print (stdout or stderr), line by
  line and in order; `...` in it stands for any text. A command that shows output may exit
  non-zero (the README shows an error); any other command must succeed.
- `<!-- readme-test: skip REASON -->` (or `docs-test: skip`) right before a block leaves it out,
  with its reason printed.
- A ```python block runs with the session's environment (`python3 -` in the scratch folder).
- A block of a file format (json, yaml, ini, Dockerfile) is a file the page shows, not a command:
  it is counted as shown, and a json or yaml one must parse. A block of any other language (js)
  must say with a skip marker which test runs it, or the page fails.

Every `aws` command runs in a process of its own, forked from one preloaded copy of the CLI
given with --aws (tests/preload/server.py; about 0.3 s a command instead of 0.85 s). With
CLI_PRELOAD=0 in the environment, each command starts the CLI afresh instead; so does a CLI that is
not a Python script.

Background jobs still running at the end are stopped. Exit status 0 when every block ran as
shown, 1 otherwise (the failing command, its output and what was expected are printed).
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import List, Optional, Tuple

import yaml

REPOSITORY = Path(__file__).resolve().parents[2]
FENCE = re.compile(r"^\s*```(\w*)\s*$")  # indented too: a block inside a list item
SKIP = re.compile(r"^<!--\s*(?:readme|docs)-test:\s*skip\s+(.+?)\s*-->\s*$")
RUNNABLE = ("sh", "bash", "shell", "python")
FILE_FORMATS = ("json", "yaml", "ini", "Dockerfile")
EXPECTATION = "#> "


@dataclass
class Command:
    text: str
    line: int  # in the README, 1-based
    expected: List[str] = field(default_factory=list)


@dataclass
class Block:
    page: str  # its path in the repository
    language: str
    line: int
    body: List[str]
    skip_reason: Optional[str]


def read_blocks(page: Path) -> List[Block]:
    blocks: List[Block] = []
    name = str(page.resolve().relative_to(REPOSITORY))
    lines = page.read_text().splitlines()
    i = 0
    while i < len(lines):
        fence = FENCE.match(lines[i])
        if not fence or not fence.group(1):
            i += 1
            continue
        previous = lines[i - 1] if i > 0 else ""
        skip = SKIP.match(previous)
        end = i + 1
        while end < len(lines) and lines[end].strip() != "```":
            end += 1
        blocks.append(Block(name, fence.group(1), i + 1, lines[i + 1:end],
                            skip.group(1) if skip else None))
        i = end + 1
    return blocks


def split_commands(block: Block) -> List[Command]:
    """Shell lines into commands: a command ends at a line without a trailing backslash that is
    not inside an open quote; `#>` lines attach to the command before them."""
    commands: List[Command] = []
    pending: List[str] = []
    start = 0
    for offset, line in enumerate(block.body):
        number = block.line + 1 + offset
        if not pending and line.startswith(EXPECTATION.rstrip()):
            if not commands:
                raise SystemExit(f"{block.page}:{number}: expected output before any command")
            commands[-1].expected.append(line[len(EXPECTATION):] if line != "#>" else "")
            continue
        if not pending and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if not pending:
            start = number
        pending.append(line)
        text = "\n".join(pending)
        if not text.endswith("\\") and quotes_closed(text):
            commands.append(Command(text, start))
            pending = []
    if pending:
        raise SystemExit(f"{block.page}:{start}: command never ends (open quote or backslash)")
    return commands


def quotes_closed(text: str) -> bool:
    """Whether single and double quotes are balanced, as bash reads them (no nesting); an unquoted
    `#` at the start of a word begins a comment, whose apostrophes do not count."""
    quote = None
    escaped = False
    in_comment = False
    previous = "\n"
    for char in text:
        if in_comment:
            in_comment = char != "\n"
        elif escaped:
            escaped = False
        elif char == "\\" and quote != "'":
            escaped = True
        elif quote is None and char == "#" and previous in " \t\n":
            in_comment = True
        elif quote is None and char in "'\"":
            quote = char
        elif char == quote:
            quote = None
        previous = char
    return quote is None


def matches(expected: str, line: str) -> bool:
    pieces = expected.split("...")
    position = 0
    for index, piece in enumerate(pieces):
        if not piece:
            continue
        found = line.find(piece, position)
        if found < 0 or (index == 0 and found != 0 and not expected.startswith("...")):
            return False
        position = found + len(piece)
    return expected.endswith("...") or position == len(line) or not pieces[-1]


def check_output(expected: List[str], output: str) -> Optional[str]:
    lines = [line.rstrip() for line in output.splitlines()]
    at = 0
    for want in expected:
        while at < len(lines) and not matches(want.rstrip(), lines[at]):
            at += 1
        if at == len(lines):
            return f"no line (after the ones matched before it) matches: {want}"
        at += 1
    return None


def check_file_block(block: Block) -> Optional[str]:
    """A file a page shows must be one its reader can use: json and yaml must parse."""
    text = "\n".join(block.body)
    try:
        if block.language == "json":
            json.loads(text)
        elif block.language == "yaml":
            yaml.safe_load(text)
    except (ValueError, yaml.YAMLError) as error:
        return f"{block.page}:{block.line}: the {block.language} block does not parse: {error}"
    return None


def make_scratch_folder() -> Path:
    scratch = Path(tempfile.mkdtemp(prefix="smemu-readme-"))
    for entry in REPOSITORY.iterdir():
        if entry.name not in (".git", ".venv"):
            (scratch / entry.name).symlink_to(entry)
    return scratch


def script_for(blocks: List[Block], results: Path) -> str:
    """One bash script: each command runs in the session's own shell (eval), its output goes to
    results/N.out and its status to results/N.rc, then the checker judges it before the next."""
    out = ["set -u", "trap 'kill $(jobs -p) 2>/dev/null; wait' EXIT"]
    number = 0
    for block in blocks:
        if block.skip_reason:
            continue
        if block.language == "python":
            commands = [Command("python3 - <<'__README_PYTHON__'\n" + "\n".join(block.body) +
                                "\n__README_PYTHON__", block.line + 1)]
        elif block.language in ("sh", "bash", "shell"):
            commands = split_commands(block)
        else:
            continue
        for command in commands:
            number += 1
            (results / f"{number}.cmd").write_text(command.text)
            (results / f"{number}.expected").write_text("\n".join(command.expected))
            (results / f"{number}.line").write_text(f"{block.page}:{command.line}")
            out.append(f"__command=$(cat {results}/{number}.cmd)")
            out.append(f'{{ eval "$__command"; }} > {results}/{number}.out 2>&1 < /dev/null; '
                       f"echo $? > {results}/{number}.rc")
            out.append(f"{sys.executable} {Path(__file__).resolve()} --judge {results} {number} "
                       "|| exit 1")
    return "\n".join(out) + "\n"


def judge(results: Path, number: int) -> int:
    text = (results / f"{number}.cmd").read_text()
    expected = [line for line in (results / f"{number}.expected").read_text().split("\n") if line]
    output = (results / f"{number}.out").read_text(errors="replace")
    status = int((results / f"{number}.rc").read_text())
    line = (results / f"{number}.line").read_text()
    print(f"--- {line}: {text}", flush=True)
    if output:
        print(output.rstrip("\n"))
    problem = check_output(expected, output) if expected else None
    if problem is None and status != 0 and not expected:
        problem = f"exited with status {status}"
    if problem:
        print(f"FAILED {line}: {problem}", flush=True)
        return 1
    return 0


def default_pages() -> List[Path]:
    """The pages of the documentation site: the README, docs/, and the helpers' READMEs."""
    return ([REPOSITORY / "README.md"] + sorted((REPOSITORY / "docs").rglob("*.md")) +
            [REPOSITORY / "clients/python/README.md", REPOSITORY / "clients/js/README.md"])


def python_script_of(aws: str) -> Optional[Tuple[str, str]]:
    """(interpreter, script) of an AWS CLI that is a Python script (through a pyenv shim too), or
    None when it is something else and cannot be preloaded."""
    program = shutil.which(aws) or aws
    with open(program, "rb") as file:
        first = file.readline().decode(errors="replace").strip()
    if first.startswith("#!") and "python" in first and " " not in first[2:].strip():
        return first[2:].strip(), program
    if "/.pyenv/shims/" in program and shutil.which("pyenv"):
        found = subprocess.run(["pyenv", "which", Path(program).name], capture_output=True,
                               text=True)
        if found.returncode == 0 and found.stdout.strip() != program:
            return python_script_of(found.stdout.strip())
    return None


def start_preloaded_cli(aws: str, folder: Path,
                        environment: dict) -> Optional[subprocess.Popen]:
    """Serves the CLI from one preloaded interpreter (tests/preload/server.py) and points `aws` in
    folder at it; None (and a plain symbolic link) when it cannot be preloaded."""
    found = python_script_of(aws) if os.environ.get("CLI_PRELOAD", "1") != "0" else None
    if found is None:
        (folder / "aws").symlink_to(shutil.which(aws) or aws)
        return None
    interpreter, script = found
    socket_path = folder / "aws.sock"
    server = subprocess.Popen([interpreter, str(REPOSITORY / "tests/preload/server.py"),
                               str(socket_path), script], env=environment)
    for _ in range(200):
        if socket_path.exists() or server.poll() is not None:
            break
        time.sleep(0.025)
    environment["SMEMU_AWS_PRELOAD"] = str(socket_path)
    (folder / "aws").symlink_to(REPOSITORY / "tests/preload/aws")
    return server


def run_page(blocks: List[Block], aws: Optional[str]) -> bool:
    """Runs one page's runnable blocks in a session of their own; True when every block ran as
    shown."""
    if not any(block.skip_reason is None for block in blocks):
        return True
    scratch = make_scratch_folder()
    results = scratch / ".readme-test"
    results.mkdir()
    environment = dict(os.environ)
    # Debian's own programs first, as on the fresh Debian machine the pages are written for (this
    # machine may have other pythons or CLIs earlier on PATH).
    environment["PATH"] = "/usr/bin:/bin:" + environment.get("PATH", "")
    # A user's shell: no AWS settings until the page gives them.
    for name in list(environment):
        if name.startswith(("AWS_", "SAGEMAKER_EMULATOR_")):
            del environment[name]
    environment["HOME"] = str(scratch)  # no ~/.aws of the machine's
    preloaded = None
    if aws:
        shim = scratch / ".readme-bin"
        shim.mkdir()
        environment["PATH"] = f"{shim}:{environment['PATH']}"
        preloaded = start_preloaded_cli(aws, shim, environment)
    version = subprocess.run(["bash", "-c", "aws --version"], env=environment, cwd=scratch,
                             capture_output=True, text=True)
    print(f"running {blocks[0].page} with {(version.stdout or version.stderr).strip()}"
          f"{' (preloaded)' if preloaded else ''} in {scratch}", flush=True)
    try:
        completed = subprocess.run(["bash", "-c", script_for(blocks, results)], cwd=scratch,
                                   env=environment, timeout=1200)
    finally:
        if preloaded is not None:
            preloaded.terminate()
            preloaded.wait()
        shutil.rmtree(scratch, ignore_errors=True)
    return completed.returncode == 0


def write_js_blocks(pages: List[Path], folder: Path) -> int:
    """Writes the js blocks of `pages` as FOLDER/<page>-<line>.test.mjs; fails when there are none,
    so that a test that runs them cannot pass by running nothing."""
    folder.mkdir(parents=True, exist_ok=True)
    written = 0
    for page in pages:
        for block in read_blocks(page):
            if block.language == "js":
                name = str(page.resolve().relative_to(REPOSITORY)).replace("/", "-")
                (folder / f"{name}-{block.line}.test.mjs").write_text("\n".join(block.body) + "\n")
                written += 1
    print(f"wrote {written} js blocks to {folder}", file=sys.stderr)
    return 0 if written else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--page", type=Path, action="append",
                        help="a page to run (repeatable); default: README.md and docs/**/*.md")
    parser.add_argument("--aws", help="the AWS CLI to put first on PATH as `aws`")
    parser.add_argument("--judge", nargs=2, help=argparse.SUPPRESS)
    parser.add_argument("--write-js", type=Path, metavar="FOLDER",
                        help="write each js block of the pages to FOLDER as a node:test file "
                             "(for the test that runs them), and run nothing")
    args = parser.parse_args()
    if args.judge:
        return judge(Path(args.judge[0]), int(args.judge[1]))
    if args.write_js:
        return write_js_blocks(args.page or default_pages(), args.write_js)

    failed: List[str] = []
    summary: List[str] = []
    for page in args.page or default_pages():
        every_block = read_blocks(page)
        files = [block for block in every_block if block.language in FILE_FORMATS]
        blocks = [block for block in every_block if block not in files]
        skipped = [block for block in blocks if block.skip_reason]
        for block in skipped:
            print(f"skipped {block.page}:{block.line} ({block.language}): {block.skip_reason}")
        problems = [problem for problem in map(check_file_block, files) if problem]
        problems += [f"{block.page}:{block.line}: a {block.language} block neither runs here nor "
                     "says which test runs it (a docs-test: skip marker)"
                     for block in blocks if block.language not in RUNNABLE and not block.skip_reason]
        for problem in problems:
            print(f"FAILED {problem}", flush=True)
        runnable = [block for block in blocks if block.language in RUNNABLE]
        if problems or not run_page(runnable, args.aws):
            failed.append(str(page))
        ran = [block for block in runnable if not block.skip_reason]
        summary.append(f"  {page.resolve().relative_to(REPOSITORY)}: "
                       f"{len(ran)} blocks run, {len(skipped)} skipped, "
                       f"{len(files)} files shown")
    print("pages:\n" + "\n".join(summary))
    if failed:
        print("FAILED pages: " + ", ".join(failed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
