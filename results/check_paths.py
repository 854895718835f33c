#!/usr/bin/env python3
"""Checks that every path the pages under results/, README.md and .ci/run cite exists.

usage: python3 results/check_paths.py   (from the repository's root; exit 1 on a missing path)

- `results/...` anywhere in README.md, .ci/run and results/**/*.md: the path exists (globs,
  `{a,b}` and `{2..7}` expanded; `$VAR`, `$(...)`, `<...>` and `…` match anything; a path
  without extension may name files PATH.*, one with an extension names that file alone, so
  `report.csv` is missing where only `report.csv.gz` is);
- `COMMIT:results/...`: the file is in that commit (`git cat-file -e`);
- in results/**/*.md, outside code blocks: markdown links and images, and backticked names of
  files (`.csv`, `.gz`, `.png`, `.txt`, `.py`, `.diff`, `.md`) and folders (`NAME/`), relative to the
  page. In results/LOG.md a bare name that is not in the tree must be in the commit the log
  names (`3521b28`) under results/dred/, results/dd/ or results/fuzz/.
A bare name found only in another folder under results/ (the page names the folder in the
sentence) is listed as such; names found nowhere are listed as unresolved (outputs and
placeholders of commands, such as `failure.txt`), without failing. Suffixes (`-rep3.csv`)
are skipped.
"""
import fnmatch
import glob
import os
import re
import subprocess
import sys

LOG_COMMIT = "3521b28"
FILE_RE = r"[\w.*{}\[\]?,$()<>…-]+(?:/[\w.*{}\[\]?,$()<>…-]*)*"


def expand(p):
    """Brace expansion ({a,b}, {2..7})."""
    m = re.search(r"\{([^{}]*)\}", p)
    if not m:
        return [p]
    body = m.group(1)
    r = re.fullmatch(r"(\d+)\.\.(\d+)", body)
    items = [str(i) for i in range(int(r.group(1)), int(r.group(2)) + 1)] if r else body.split(",")
    return [q for i in items for q in expand(p[: m.start()] + i + p[m.end():])]


def wild(p):
    p = re.sub(r"\$\([^)]*\)|\$\{[^}]*\}|\$\w+|<[^>]*>|…|\bNAME\b", "*", p)
    return p


def normalise(text):
    """`$(cmd ...)` as `*`; `{a, b}` as `{a,b}`; `x.svg|png` as `x.{svg,png}`; `{N}` as `*`."""
    text = re.sub(r"\$\([^)]*\)", "*", text)
    text = re.sub(r"\{[^{}\n]*\}", lambda m: m.group(0).replace(" ", ""), text)
    text = re.sub(r"\.(\w+)\|(\w+)(?=[},])", r".{\1,\2}", text)
    return re.sub(r"\{[A-Z]\}", "*", text)


def exists(p):
    for q in expand(p):
        q = wild(q).rstrip("/")
        if not (glob.glob(q) or ("." not in os.path.basename(q) and glob.glob(q + ".*"))):
            return False
    return True


def in_commit(commit, p):
    if p.endswith("/NAME"):
        p = p[: -len("/NAME")]

    def one(q):
        if "*" not in q:
            return subprocess.run(["git", "cat-file", "-e", f"{commit}:{q}"],
                                  capture_output=True).returncode == 0
        names = subprocess.run(["git", "ls-tree", "-r", "--name-only", commit, "--",
                                os.path.dirname(q)], capture_output=True, text=True).stdout
        return any(fnmatch.fnmatch(n, q) for n in names.split())
    return all(one(wild(q)) for q in expand(p))


def strip(p):
    return p.rstrip(".,:;)'\"`")


def main():
    pages = ["README.md", ".ci/run"] + sorted(glob.glob("results/**/*.md", recursive=True))
    missing, unresolved, elsewhere, checked = [], [], [], 0
    for page in pages:
        text = normalise(open(page).read())
        here = os.path.dirname(page)
        # COMMIT:results/...
        for m in re.finditer(r"\b([0-9a-f]{7,40}):(results/" + FILE_RE + ")", text):
            checked += 1
            if not in_commit(m.group(1), strip(m.group(2))):
                missing.append((page, m.group(0)))
        # results/... (not preceded by COMMIT:)
        for m in re.finditer(r"(?<![\w:/.-])(results/" + FILE_RE + ")", text):
            p = strip(m.group(1))
            if p.endswith("/<name>") or p == "results/<name>":
                continue
            checked += 1
            if not exists(p):
                missing.append((page, p))
        if not page.startswith("results/"):
            continue
        prose, fence = [], False
        for line in text.split("\n"):
            if line.startswith("```"):
                fence = not fence
            elif not fence:
                prose.append(line)
        prose = "\n".join(prose)
        for m in re.finditer(r"\]\(([^)\s]+)\)", prose):
            target = m.group(1)
            if re.match(r"\w+://", target) or target.startswith("#"):
                continue
            checked += 1
            if not exists(os.path.join(here, target)):
                missing.append((page, target))
        for m in re.finditer(r"`([^`\s]+)`", prose):
            name = m.group(1)
            if name.startswith("results/") or re.match(r"[0-9a-f]{7,40}:", name):
                continue
            if not re.search(r"\.(csv|gz|png|txt|py|diff|md)$|^[\w.-]+(/[\w.-]+)*/$", name):
                continue
            if name.startswith("-") or name.startswith("…") or name.startswith("/"):
                continue  # a suffix of the name before it (`-rep3.csv`)
            checked += 1
            if exists(os.path.join(here, name)) or exists(name):
                continue
            if page == "results/LOG.md" and (
                in_commit(LOG_COMMIT, f"results/{name}".rstrip("/"))
                or any(in_commit(LOG_COMMIT, f"results/{a}/{name}") for a in ("dred", "dd", "fuzz"))
            ):
                continue
            if all(glob.glob(f"results/**/{wild(q).rstrip('/')}", recursive=True) for q in expand(name)):
                elsewhere.append((page, name))
                continue
            unresolved.append((page, name))
    for page, p in missing:
        print(f"MISSING  {page}: {p}")
    for page, p in elsewhere:
        print(f"in another folder  {page}: {p}")
    for page, p in unresolved:
        print(f"unresolved  {page}: {p}")
    print(f"{checked} paths checked, {len(missing)} missing; {len(elsewhere)} bare names found in "
          f"another folder under results/ (the page names the folder), {len(unresolved)} unresolved")
    sys.exit(1 if missing else 0)


if __name__ == "__main__":
    main()
