#!/usr/bin/python3
"""Stages the documentation site's sources for mkdocs, from the files that GitHub shows as they
are, into build/docs-src/. mkdocs.yml names this file as a hook, so `mkdocs serve`, `mkdocs build`
and scripts/docs at the repository's root stage the site before each build; run alone, it only
stages and checks:

    scripts/stage-docs.py

- README.md becomes the home page, index.md, and every page of docs/ keeps its path;
- a link from a page to a file of the repository outside docs/ (an example, a client's README)
  points at a copy of that file under repository/, so the site holds everything it links to and
  works offline; a Markdown file copied so is a page and must be in the navigation;
- every Markdown page staged must be in mkdocs.yml's `nav`, and every `nav` entry must exist;
- a link to a heading (`page.md#heading`, `#heading`) must name one the page has, by the anchor
  the site gives it (mkdocs 1.4 does not check anchors).
Each problem is a warning of the build, so `mkdocs build --strict` (scripts/docs) fails on it;
run alone, the script names them and exits with status 1.

As a hook: mkdocs.yml's `docs_dir` is docs/, which every checkout has; `on_config` stages it and
points the build at the staged copy; `on_serve` has `mkdocs serve` watch the sources (docs/, the
README and every file the pages link to) instead of the staged copy, which each build rewrites:
watching it would rebuild for ever.
"""
import logging
import re
import shutil
import sys
from pathlib import Path

import yaml
from markdown.extensions.toc import slugify, unique

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "docs"
STAGING = ROOT / "build" / "docs-src"
LINK = re.compile(r"(\]\()([^)\s#]+)((?:#[^)\s]*)?\))")
LOG = logging.getLogger("mkdocs.hooks.stage-docs")  # under mkdocs' logger: --strict counts it

# The files outside docs/ that the last staging copied (the sources `mkdocs serve` watches).
copied_sources: set = set()


def nav_pages(nav) -> list:
    pages = []
    for entry in nav or []:
        value = next(iter(entry.values())) if isinstance(entry, dict) else entry
        if isinstance(value, list):
            pages += nav_pages(value)
        else:
            pages.append(value)
    return pages


def is_external(target: str) -> bool:
    return re.match(r"^[a-z][a-z0-9+.-]*:", target) is not None or target.startswith("/")


def stage_page(source: Path, staged: Path, copied: set, problems: list) -> None:
    """Writes `source` as `staged`, rewriting its links to repository files outside docs/."""

    def rewrite(match: re.Match) -> str:
        target = match.group(2)
        if is_external(target):
            return match.group(0)
        resolved = (source.parent / target).resolve()
        if resolved == ROOT / "README.md":  # the home page
            new_target = STAGING / "index.md"
        else:
            new_target = staged_path(resolved)
            if new_target is None:
                return match.group(0)
        relative = Path(*[".."] * (len(staged.relative_to(STAGING).parts) - 1),
                        new_target.relative_to(STAGING))
        return match.group(1) + relative.as_posix() + match.group(3)

    def staged_path(resolved: Path):
        """Where a linked file is staged, copied there the first time it is linked."""
        try:
            return STAGING / resolved.relative_to(SOURCE)
        except ValueError:
            pass
        try:
            in_repository = resolved.relative_to(ROOT)
        except ValueError:
            problems.append(f"{source.relative_to(ROOT)}: a link leaves the repository: {resolved}")
            return None
        if not resolved.is_file():
            problems.append(f"{source.relative_to(ROOT)}: a link to a missing file: "
                            f"{in_repository}")
            return None
        new_target = STAGING / "repository" / in_repository
        if resolved not in copied:
            copied.add(resolved)
            new_target.parent.mkdir(parents=True, exist_ok=True)
            if resolved.suffix == ".md":
                stage_page(resolved, new_target, copied, problems)
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


def broken_anchors() -> list:
    problems = []
    anchors: dict = {}
    for page in sorted(STAGING.rglob("*.md")):
        for target, anchor in ANCHORED.findall(page.read_text()):
            linked = (page.parent / target).resolve() if target else page
            if linked.suffix != ".md" or not linked.is_file():
                continue
            if linked not in anchors:
                anchors[linked] = anchors_of(linked)
            if anchor not in anchors[linked]:
                problems.append(f"{page.relative_to(STAGING)}: a link to #{anchor}, which "
                                f"{linked.relative_to(STAGING)} has no heading for")
    return problems


def stage(nav) -> list:
    """Stages README.md and docs/ into STAGING, afresh; returns the problems found."""
    shutil.rmtree(STAGING, ignore_errors=True)
    STAGING.mkdir(parents=True)
    copied: set = set()
    problems: list = []
    for path in sorted(SOURCE.rglob("*")):
        if path.is_file() and path.suffix != ".md":
            target = STAGING / path.relative_to(SOURCE)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
    stage_page(ROOT / "README.md", STAGING / "index.md", copied, problems)
    for page in sorted(SOURCE.rglob("*.md")):
        stage_page(page, STAGING / page.relative_to(SOURCE), copied, problems)
    copied_sources.clear()
    copied_sources.update(copied)

    staged = {path.relative_to(STAGING).as_posix() for path in STAGING.rglob("*.md")}
    in_nav = set(nav_pages(nav))
    problems += [f"{page}: a page that is not in mkdocs.yml's nav"
                 for page in sorted(staged - in_nav)]
    problems += [f"{page}: in mkdocs.yml's nav, but no such page"
                 for page in sorted(in_nav - staged)]
    problems += broken_anchors()
    return problems


# mkdocs hook events (mkdocs.yml: hooks).

def on_config(config):
    for problem in stage(config["nav"]):
        LOG.warning(f"scripts/stage-docs.py: {problem}")
    config["docs_dir"] = str(STAGING)
    return config


def on_serve(server, config, builder):
    try:
        server.unwatch(str(STAGING))
    except KeyError:  # not watched: nothing to undo
        pass
    for path in [SOURCE, ROOT / "README.md", *sorted(copied_sources)]:
        server.watch(str(path))
    return server


def main() -> int:
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    problems = stage(config.get("nav"))
    for problem in problems:
        print(f"scripts/stage-docs.py: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
