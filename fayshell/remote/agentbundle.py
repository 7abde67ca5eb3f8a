"""The agent bundle: fayshell's headless core plus the runtime packages it needs on a node.

Built once on the operator's machine (``python -m fayshell.remote.agentbundle build DIR``, a
step of ``scripts/bootstrap.sh``) from the packages installed in the shell's own environment:
duckdb, pyarrow and numpy are binary packages for one Python ABI and machine, so the bundle is
for the shell's Python (``cpython-311``) and architecture, which the node's Python must match
(checked before anything is uploaded). Parts of pyarrow the agent never loads (Flight, cloud
file systems, ORC, headers, tests) are left out.

Layout of ``DIR/<digest>/``: ``agent.py`` (the entry script), ``lib/`` (the packages),
``BUNDLE.json`` (digest, ABI, machine, fayshell version) and ``MANIFEST`` (one line per file:
sha256, size, path). The digest is the sha256 of MANIFEST (24 hex digits), so any change to any
file changes it; ``DIR/<digest>.tar`` (gzip-compressed: 225 MB of files travel as 73 MB) is
what the shell uploads.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import platform
import shutil
import sys
import tarfile
from dataclasses import dataclass
from pathlib import Path

from fayshell import __version__
from fayshell.errors import FayError

#: fayshell's headless core as far as the agent needs it (tests/test_layering.py checks that
#: the agent imports nothing outside it).
CORE = (
    "__init__.py",
    "concurrency.py",
    "errors.py",
    "host.py",
    "vocabulary.py",
    "agent",
    "ctf",
    "store",
    "lttng",
    "remote/__init__.py",
    "remote/quoting.py",
)

#: Runtime packages copied from the shell's environment (top-level names in site-packages).
RUNTIME = (
    "duckdb",
    "_duckdb*.so",
    "pyarrow",
    "pyarrow.libs",
    "numpy",
    "numpy.libs",
    "duckdb-*.dist-info",
    "pyarrow-*.dist-info",
    "numpy-*.dist-info",
)

#: Files of those packages the agent never loads.
EXCLUDE = (
    "*/__pycache__/*",
    "*.pyc",
    "pyarrow/include/*",
    "*/tests/*",
    "pyarrow/src/*",
    "numpy/*/tests/*",
    "numpy/_core/include/*",
    "*.pyx",
    "*.pxd",
    "*.pxi",
    "*.h",
    "pyarrow/*flight*",
    "pyarrow/_s3fs*",
    "pyarrow/libarrow_s3*",
    "pyarrow/_gcsfs*",
    "pyarrow/_azurefs*",
    "pyarrow/_hdfs*",
    "pyarrow/*orc*",
    "pyarrow/_pyarrow_cpp_tests*",
    "pyarrow/*parquet_encryption*",
    "pyarrow/libarrow_python.so",
    "pyarrow/libarrow_python.so.*.*",
)

ENTRY = '''"""fayshell node agent (generated): run from this bundle only, never the system's packages."""
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(here, "lib")]
from fayshell.agent.server import main  # noqa: E402

sys.exit(main(["--cache", os.path.join(here, "store")]))
'''

DIGEST_LEN = 24


class BundleError(FayError):
    """The bundle cannot be built or read."""


@dataclass(frozen=True)
class Bundle:
    """A built bundle: its directory, digest, tarball and what Python it is for."""

    root: Path
    digest: str
    abi: str
    arch: str
    fayshell: str

    @property
    def path(self) -> Path:
        return self.root / self.digest

    @property
    def tar(self) -> Path:
        return self.root / f"{self.digest}.tar"

    @classmethod
    def load(cls, root: Path) -> Bundle:
        """The newest bundle built under ``root`` for this fayshell version."""
        found = []
        for info in sorted(root.glob("*/BUNDLE.json")):
            meta = json.loads(info.read_text())
            if meta.get("fayshell") == __version__ and (root / f"{meta['digest']}.tar").is_file():
                found.append((info.stat().st_mtime, meta))
        if not found:
            raise BundleError(
                f"no agent bundle under {root} (run scripts/bootstrap.sh, or "
                f"python -m fayshell.remote.agentbundle build {root})"
            )
        meta = max(found, key=lambda m: m[0])[1]
        return cls(root, meta["digest"], meta["abi"], meta["arch"], meta["fayshell"])


def default_root() -> Path:
    """Where bootstrap puts the bundle: beside the shell's environment (``<venv>/share``)."""
    return Path(sys.prefix) / "share" / "fayshell-agent"


def _excluded(rel: str) -> bool:
    return any(fnmatch.fnmatch(rel, pat) for pat in EXCLUDE)


def _copy_tree(src: Path, dest: Path, base: Path) -> None:
    if src.is_file():
        rel = src.relative_to(base).as_posix()
        if not _excluded(rel):
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest)
        return
    for child in sorted(src.iterdir()):
        _copy_tree(child, dest / child.name, base)


def site_packages() -> Path:
    import duckdb

    return Path(duckdb.__file__).resolve().parent.parent


def stage(work: Path) -> None:
    """Copy the core and the runtime packages into ``work`` (``agent.py`` and ``lib/``)."""
    import fayshell

    lib = work / "lib"
    pkg = Path(fayshell.__file__).resolve().parent
    for name in CORE:
        _copy_tree(pkg / name, lib / "fayshell" / name, pkg.parent)
    site = site_packages()
    for pattern in RUNTIME:
        for src in sorted(site.glob(pattern)):
            _copy_tree(src, lib / src.name, site)
    (work / "agent.py").write_text(ENTRY)


def manifest(work: Path) -> str:
    """One line per file (sha256, size, path), sorted by path."""
    lines = []
    for f in sorted(p for p in work.rglob("*") if p.is_file()):
        rel = f.relative_to(work).as_posix()
        if rel in ("MANIFEST", "BUNDLE.json"):
            continue
        lines.append(f"{_sha256(f)} {f.stat().st_size} {rel}")
    return "\n".join(lines) + "\n"


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(1 << 20):
            h.update(block)
    return h.hexdigest()


def digest_of(manifest_text: str) -> str:
    return hashlib.sha256(manifest_text.encode()).hexdigest()[:DIGEST_LEN]


def build(root: Path) -> Bundle:
    """Build the bundle under ``root`` (a no-op when the same content is already there)."""
    root.mkdir(parents=True, exist_ok=True)
    work = root / ".work"
    shutil.rmtree(work, ignore_errors=True)
    stage(work)
    text = manifest(work)
    digest = digest_of(text)
    (work / "MANIFEST").write_text(text)
    bundle = Bundle(root, digest, sys.implementation.cache_tag, platform.machine(), __version__)
    (work / "BUNDLE.json").write_text(
        json.dumps(
            {"digest": digest, "abi": bundle.abi, "arch": bundle.arch, "fayshell": __version__}
        )
    )
    for old in root.iterdir():  # bundles of earlier builds
        if old.name.split(".")[0] not in (digest, "") and old.name != ".work":
            shutil.rmtree(old) if old.is_dir() else old.unlink()
    if bundle.path.exists() and bundle.tar.exists():
        shutil.rmtree(work)
        return bundle
    shutil.rmtree(bundle.path, ignore_errors=True)
    work.rename(bundle.path)
    with tarfile.open(str(bundle.tar) + ".part", "w:gz", compresslevel=6) as tar:
        for f in sorted(bundle.path.rglob("*")):
            if f.is_file():
                tar.add(f, arcname=f.relative_to(bundle.path).as_posix(), recursive=False)
    Path(str(bundle.tar) + ".part").rename(bundle.tar)
    return bundle


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] != "build" or len(args) > 2:
        print("usage: python -m fayshell.remote.agentbundle build [DIR]", file=sys.stderr)
        return 2
    bundle = build(Path(args[1]) if len(args) == 2 else default_root())
    size = bundle.tar.stat().st_size
    print(
        f"agent bundle {bundle.digest} for {bundle.abi}/{bundle.arch}: {bundle.tar} "
        f"({size / 1e6:.1f} MB)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
