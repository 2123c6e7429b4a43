"""What a metric set's members are, and the one check of every member against the set's record.

A set file names its members by spec. Three kinds:

* a **computed** member (``chrf``, ``SR-Or(*)``): mtstrata computes it; its record is its full
  signature (``provenance.signatures``), compared with what this run would compute
  (:func:`mtstrata.metrics.provenance.check_members`);
* an **external** member (``ext:DIR/NAME``, scores read from mt-metrics-eval files): its record
  is ``provenance.signatures[spec]`` (``EXT|name:NAME``) and ``provenance.external[spec]``: per
  language pair it was fitted on, the score files read and their sha256. Each of those files
  must still be there with those bytes (:func:`check_external`), or the member's numbers are
  not the ones the set was fitted on. ``DIR`` is relative to **the set file's directory**
  (never the working directory): :func:`resolve_members` makes it absolute when the file is
  read, :func:`portable_members` relative to the file when it is written, so a set and its
  score files move together. Spellings are normalised first (``EXT:``, ``ext: ``, ``./DIR``,
  ``DIR/``): two spellings of one external member are refused (it would count twice);
* a **nested set** (``ULC-lex``, ``ulc:OTHER.json``): never a member (its members would be
  computed recursively, a set naming itself without end), refused everywhere.

A member without a record is refused, whatever its kind (:func:`check_records`).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from mtstrata import signature as _sig
from mtstrata.errors import ConfigError, InputError
from mtstrata.metrics.provenance import external_target, is_external

#: the provenance key of the external members' files, per member and language pair
EXTERNAL_RECORD = "external"
#: the signature name of an external member's record
EXT = "EXT"


def split_external(spec: str) -> tuple[str, str]:
    """``(DIR, NAME)`` of ``ext:DIR/NAME`` (DIR ``""`` when the spec names no directory)."""
    directory, _, name = external_target(spec).strip().rstrip("/").rpartition("/")
    return directory, name


def canonical_external(spec: str, base: str | os.PathLike[str] | None = None) -> str:
    """The one spelling of an external spec: ``ext:`` then its directory made absolute (a
    relative one against ``base``, the set file's directory; else the working directory) and
    normalised, then ``/NAME``."""
    directory, name = split_external(spec)
    d = Path(directory or ".")
    if not d.is_absolute():
        d = Path(base if base is not None else os.getcwd()) / d
    return f"ext:{os.path.normpath(d)}/{name}"


def _member_names(data: Any) -> list[str]:
    """Every member spec of a set file's JSON: the ``metric`` of each normalisation object
    (every kind of set mtstrata reads holds its members so)."""
    out: list[str] = []
    todo = [data]  # iterative: a set file may be nested as deeply as its JSON reader allows
    while todo:
        x = todo.pop()
        if isinstance(x, Mapping):
            if isinstance(x.get("metric"), str):
                out.append(x["metric"])
            todo.extend(reversed(list(x.values())))
        elif isinstance(x, list):
            todo.extend(reversed(x))
    return list(dict.fromkeys(out))


def renamed(data: Any, mapping: Mapping[str, str], path: str | os.PathLike[str] = "") -> Any:
    """``data`` (JSON) with every string, value or key, that is a key of ``mapping`` replaced
    (members are named by their exact spec wherever a set file mentions them); InputError
    naming ``path`` for JSON nested too deeply to rebuild."""
    def walk(x: Any) -> Any:
        if isinstance(x, str):
            return mapping.get(x, x)
        if isinstance(x, list):
            return [walk(v) for v in x]
        if isinstance(x, Mapping):
            return {mapping.get(k, k) if isinstance(k, str) else k: walk(v)
                    for k, v in x.items()}
        return x
    try:
        return walk(data)
    except RecursionError:
        raise InputError("not a usable metric set (its JSON is nested too deeply to be a "
                         "set); pass a JSON file written by 'mtstrata search --out'.",
                         str(path)) from None


def resolve_members(data: dict[str, Any], path: str | os.PathLike[str]) -> dict[str, Any]:
    """A set file's JSON with its external members named absolutely (relative directories
    against the set file's), refusing two spellings of one external member."""
    base = Path(path).resolve().parent
    mapping: dict[str, str] = {}
    seen: dict[str, str] = {}
    for spec in (s for s in _member_names(data) if is_external(s)):
        if not split_external(spec)[1]:
            raise InputError(f"member {spec!r} names no score files; an external member is "
                             "ext:DIR/NAME (DIR relative to the set file).", str(path))
        canon = canonical_external(spec, base)
        real = os.path.realpath(external_target(canon).rpartition("/")[0]) + "/" + \
            split_external(canon)[1]
        if real in seen and seen[real] != spec:
            raise InputError(f"members {seen[real]!r} and {spec!r} are one external metric "
                             f"({canon}) under two spellings; it would count twice. Keep one "
                             "of them.", str(path))
        seen[real] = spec
        mapping[spec] = canon
    return renamed(data, mapping, path) if mapping else data


def portable_members(data: dict[str, Any], path: str | os.PathLike[str]) -> dict[str, Any]:
    """A set's JSON about to be written at ``path`` with its external members' directories
    relative to ``path``'s directory (as given, they are relative to the working directory or
    absolute)."""
    parent = os.path.abspath(Path(path).parent)
    mapping = {}
    for spec in (s for s in _member_names(data) if is_external(s)):
        directory, name = split_external(spec)
        rel = os.path.relpath(os.path.abspath(directory or "."), parent)
        mapping[spec] = f"ext:{rel}/{name}"
    return renamed(data, mapping, path) if mapping else data


#: the levels of mt-metrics-eval score files (``NAME-REF.LEVEL.score``)
LEVELS = ("sys", "domain", "doc", "seg")


def parse_file_name(filename: str | os.PathLike[str]) -> tuple[str, tuple[str, ...], str]:
    """(basename, references, level) of ``NAME-REF.LEVEL.score`` by mt-metrics-eval's rules.

    Raises:
        InputError: the name is not of that form.
    """
    base = os.path.basename(filename)
    parts = base.rsplit(".", 2)
    if len(parts) != 3 or parts[2] != "score" or parts[1] not in LEVELS:
        raise InputError(f"{base}: not an mt-metrics-eval score file name; expected "
                         "NAME-REF.LEVEL.score with LEVEL one of " + "/".join(LEVELS) + ".")
    name, sep, refs = parts[0].rpartition("-")
    if not sep or not name or not refs:
        raise InputError(f"{base}: the metric name needs a reference suffix (NAME-REF, e.g. "
                         "BLEU-refA or COMET-src).")
    return name, tuple(refs.split(".")), parts[1]


@lru_cache(maxsize=256)
def _digest(path: str, mtime_ns: int, size: int) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def file_sha256(path: str | os.PathLike[str]) -> str:
    """The sha256 of a file's bytes (hashed once per version of the file)."""
    st = os.stat(path)
    return _digest(os.path.realpath(path), st.st_mtime_ns, st.st_size)


def locate(spec: str, lp: str) -> tuple[Path, Path | None]:
    """The segment score file of external metric ``ext:DIR/NAME`` (or ``ext:DIR/NAME-REF``) for
    language pair ``lp`` (``DIR/<lp>/NAME-REF.seg.score``), and its ``.sys.score`` (None when
    absent). InputError: no such file, or several references to choose from."""
    directory, name = split_external(spec)
    d = Path(directory or ".") / lp
    if not name:
        raise InputError(f"{spec!r}: write external metrics as ext:DIR/NAME (files "
                         "DIR/<lp>/NAME-REF.seg.score, mt-metrics-eval's layout).")
    found = {}
    for p in sorted(d.glob("*.seg.score")):
        base, refs, _level = parse_file_name(p)
        full = f"{base}-{'.'.join(refs)}"
        if name in (base, full):
            found[full] = p
    if not found:
        raise InputError(f"{spec!r}: no {name}-REF.seg.score in {d}; the directory must hold "
                         "mt-metrics-eval score files <lp>/<NAME>-<REF>.seg.score.")
    if len(found) > 1:
        raise InputError(f"{spec!r}: several files in {d} ({', '.join(sorted(found))}); name "
                         "one with its reference suffix, e.g. ext:DIR/" + sorted(found)[0] + ".")
    (full, seg), = found.items()
    sys_path = seg.with_name(f"{full}.sys.score")
    return seg, (sys_path if sys_path.is_file() else None)


def external_signature(spec: str) -> str:
    """What a set records as an external member's signature: ``EXT|name:NAME`` (the files it
    was fitted on are its :func:`file_record`)."""
    return _sig.build(EXT, [("name", split_external(spec)[1])])


def file_record(spec: str, lps: Iterable[str]) -> dict[str, dict[str, str]]:
    """Per language pair, the score files external member ``spec`` reads (names within
    ``DIR/<lp>/``) and their sha256: what a set fitted on those pairs records."""
    out: dict[str, dict[str, str]] = {}
    for lp in dict.fromkeys(lps):
        seg, sys_ = locate(spec, lp)
        out[lp] = {"seg": seg.name, "seg_sha256": file_sha256(seg)}
        out[lp].update({"sys": sys_.name, "sys_sha256": file_sha256(sys_)} if sys_ is not None
                       else {"sys": "mean-of-seg"})
    return out


def set_record(specs: Sequence[str], signatures: Mapping[str, str], lps: Sequence[str]
               ) -> dict[str, Any]:
    """What a set fitted on the pairs ``lps`` records of its members ``specs``:
    ``{"signatures": {spec: full signature}, "external": {spec: file record}}`` (the latter
    only with external members); ``signatures`` gives the computed members' signatures."""
    ext = [s for s in specs if is_external(s)]
    sigs = {s: external_signature(s) if is_external(s) else signatures.get(s, "") for s in specs}
    return {"signatures": sigs, **({EXTERNAL_RECORD: {s: file_record(s, lps) for s in ext}}
                                   if ext else {})}


def check_external(spec: str, want: str, record: object, where: str) -> None:
    """Refuse an external member whose record is missing or whose files are not the ones it
    was fitted on (missing, or other bytes), naming the member, the file and both digests."""
    if not _sig.Signature.parse(want).name == EXT or \
            _sig.Signature.parse(want).params.get("name") != split_external(spec)[1]:
        raise ConfigError(
            f"the metric set {where} records {want!r} as its external member {spec!r}, which "
            f"is not an external member's record ({external_signature(spec)}); rebuild the set "
            "with `mtstrata search --out`, which records it.")
    if not isinstance(record, Mapping) or not record or not all(
            isinstance(v, Mapping) for v in record.values()):
        raise ConfigError(
            f"the metric set {where} records no score files of its external member {spec!r} "
            f"(provenance.{EXTERNAL_RECORD}: per language pair, the files it was fitted on and "
            "their sha256), so what its numbers were is unknown; rebuild the set with "
            "`mtstrata search --out`, which records them.")
    for lp, files in record.items():
        try:
            have = file_record(spec, [lp])[lp]
        except InputError as e:
            raise ConfigError(f"the metric set {where} was fitted on {spec!r}'s scores of {lp} "
                              f"({files.get('seg')}), which cannot be read now: {e} External "
                              "members are read relative to the set file: keep its score "
                              "files beside it.") from None
        for key in ("seg", "sys"):
            if have.get(key) != files.get(key) or \
                    have.get(f"{key}_sha256") != files.get(f"{key}_sha256"):
                d = Path(split_external(spec)[0]) / str(lp)
                raise ConfigError(
                    f"the metric set {where} was fitted on {d / str(files.get(key))} "
                    f"(sha256 {files.get(f'{key}_sha256', '-')}) for its member {spec!r}; "
                    f"it is now {d / str(have.get(key))} (sha256 "
                    f"{have.get(f'{key}_sha256', '-')}): the member's numbers changed since "
                    "the set was fitted. Restore the files, or refit the set on them "
                    "(mtstrata search --out).")


def check_records(specs: Sequence[str], provenance: object, where: str, *,
                  external: bool) -> None:
    """The one check of a set's members against its record, before any is built: every member
    has a recorded signature; a nested set is refused; an external member (refused unless
    ``external``: only ``meta`` reads score files) has its files checked
    (:func:`check_external`). Computed members' signatures are compared by
    :func:`mtstrata.metrics.provenance.check_members`."""
    from mtstrata.metrics.ulc import is_set_spec

    prov = provenance if isinstance(provenance, Mapping) else {}
    sigs = prov.get("signatures")
    if not isinstance(sigs, Mapping):
        raise ConfigError(
            f"the metric set {where} records no member signatures (provenance.signatures), so "
            "its numbers cannot be traced; rebuild it with `mtstrata search --out`, which "
            "records them.")
    files = prov.get(EXTERNAL_RECORD, {})
    for spec in (s for s in specs if is_set_spec(s)):  # first: whatever else the set holds
        raise ConfigError(
            f"the metric set {where} names {spec!r}, a metric set, as a member: a set is "
            "never a member (nested sets would be computed recursively, a set naming "
            "itself without end). Build the set from mtstrata metrics (`mtstrata list "
            "metrics`) and external scores.")
    for spec in specs:
        want = sigs.get(spec)
        if not isinstance(want, str) or not want.strip():
            raise ConfigError(
                f"the metric set {where} records no signature of its member {spec!r}; rebuild "
                "it with `mtstrata search --out`, which records every member's.")
        if is_external(spec):
            if not external:
                raise ConfigError(
                    f"the metric set {where} names {spec!r}, external scores, which only "
                    "`mtstrata meta --ulc` reads (from score files, per language pair); "
                    "score and compare compute every member. Evaluate the set with meta, or "
                    "build it from mtstrata metrics (`mtstrata list metrics`).")
            try:
                check_external(spec, want, files.get(spec) if isinstance(files, Mapping)
                               else None, where)
            except ValueError:  # an unparsable signature
                raise ConfigError(
                    f"the metric set {where} records {want!r} as its external member "
                    f"{spec!r}, which is not a signature; rebuild the set with `mtstrata "
                    "search --out`.") from None
