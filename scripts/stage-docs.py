#!/usr/bin/python3
"""Stages the documentation site's sources for mkdocs (mkdocs.yml, docs_dir), from the files that
GitHub shows as they are:

    scripts/stage-docs.py

- README.md becomes the home page, index.md, and every page of docs/ keeps its path;
- a link from a page to a file of the repository outside docs/ (an example, a client's README)
  points at a copy of that file under repository/, so the site holds everything it links to and
  works offline; a Markdown file copied so is a page and must be in the navigation;
- every Markdown page staged must be in mkdocs.yml's `nav`, and every `nav` entry must exist;
- a link to a heading (`page.md#heading`, `#heading`) must name one the page has, by the anchor
  the site gives it (mkdocs 1.4 does not check anchors): the script fails naming those that are not.
"""
import re
import shutil
import sys
from pathlib import Path

import yaml
from markdown.extensions.toc import slugify, unique

ROOT = Path(__file__).resolve().parents[1]
LINK = re.compile(r"(\]\()([^)\s#]+)((?:#[^)\s]*)?\))")


def nav_pages(nav) -> list:
    pages = []
    for entry in nav:
        value = next(iter(entry.values())) if isinstance(entry, dict) else entry
        if isinstance(value, list):
            pages += nav_pages(value)
        else:
            pages.append(value)
    return pages


def is_external(target: str) -> bool:
    return re.match(r"^[a-z][a-z0-9+.-]*:", target) is not None or target.startswith("/")


def stage_page(source: Path, staged: Path, staging: Path, copied: set) -> None:
    """Writes `source` as `staged`, rewriting its links to repository files outside docs/."""

    def rewrite(match: re.Match) -> str:
        target = match.group(2)
        if is_external(target):
            return match.group(0)
        resolved = (source.parent / target).resolve()
        if resolved == ROOT / "README.md":  # the home page
            new_target = staging / "index.md"
        else:
            new_target = staged_path(resolved)
        relative = Path(*[".."] * (len(staged.relative_to(staging).parts) - 1),
                        new_target.relative_to(staging))
        return match.group(1) + relative.as_posix() + match.group(3)

    def staged_path(resolved: Path) -> Path:
        """Where a linked file is staged, copied there the first time it is linked."""
        try:
            in_docs = resolved.relative_to(ROOT / "docs")
            new_target = staging / in_docs
        except ValueError:
            try:
                in_repository = resolved.relative_to(ROOT)
            except ValueError:
                sys.exit(f"{source.relative_to(ROOT)}: a link leaves the repository: {resolved}")
            if not resolved.is_file():
                sys.exit(f"{source.relative_to(ROOT)}: a link to a missing file: {resolved}")
            new_target = staging / "repository" / in_repository
            if resolved not in copied:
                copied.add(resolved)
                new_target.parent.mkdir(parents=True, exist_ok=True)
                if resolved.suffix == ".md":
                    stage_page(resolved, new_target, staging, copied)
                else:
                    shutil.copyfile(resolved, new_target)
        return new_target

    staged.parent.mkdir(parents=True, exist_ok=True)
    staged.write_text(LINK.sub(rewrite, source.read_text()))


FENCE = re.compile(r"^(```|~~~)")
HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
ANCHORED = re.compile(r"\]\(([^)\s#]*)#([^)\s]+)\)")


def anchors_of(page: Path) -> set:
    """The anchors the site gives the headings of a page, as Python-Markdown's toc does: from the
    heading's text without its inline markup, made unique with _1, _2, ..."""
    found: set = set()
    in_code = False
    for line in page.read_text().splitlines():
        if FENCE.match(line):
            in_code = not in_code
            continue
        match = None if in_code else HEADING.match(line)
        if match:
            text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", match.group(2)).replace("`", "")
            found.add(unique(slugify(text, "-"), found))
    return found


def broken_anchors(staging: Path) -> list:
    problems = []
    anchors: dict = {}
    for page in sorted(staging.rglob("*.md")):
        for target, anchor in ANCHORED.findall(page.read_text()):
            linked = (page.parent / target).resolve() if target else page
            if linked.suffix != ".md" or not linked.is_file():
                continue
            if linked not in anchors:
                anchors[linked] = anchors_of(linked)
            if anchor not in anchors[linked]:
                problems.append(f"{page.relative_to(staging)}: a link to #{anchor}, which "
                                f"{linked.relative_to(staging)} has no heading for")
    return problems


def main() -> int:
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    staging = ROOT / config["docs_dir"]
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    copied: set = set()
    for path in sorted((ROOT / "docs").rglob("*")):
        if path.is_file() and path.suffix != ".md":
            target = staging / path.relative_to(ROOT / "docs")
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
    stage_page(ROOT / "README.md", staging / "index.md", staging, copied)
    for page in sorted((ROOT / "docs").rglob("*.md")):
        stage_page(page, staging / page.relative_to(ROOT / "docs"), staging, copied)

    staged = {path.relative_to(staging).as_posix() for path in staging.rglob("*.md")}
    in_nav = set(nav_pages(config["nav"]))
    problems = [f"{page}: a page that is not in mkdocs.yml's nav" for page in sorted(staged - in_nav)]
    problems += [f"{page}: in mkdocs.yml's nav, but no such page" for page in sorted(in_nav - staged)]
    problems += broken_anchors(staging)
    for problem in problems:
        print(f"scripts/stage-docs.py: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
