"""Build fayshell's optional C extensions: the compiled CTF decoder (``fayshell.ctf._decode``)
and the store's compiled algorithms (``fayshell.store._algos``: syscall pairing, span grouping).

pyproject.toml holds the project metadata; this file only declares the extensions. When no C
compiler is available the build is skipped with a warning and fayshell falls back to its
pure-Python decoder and numpy algorithms.
"""

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext


class OptionalBuildExt(build_ext):
    """build_ext that warns instead of failing the install when the extension cannot build."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as exc:  # no compiler, no headers: the Python decoder still works
            self.warn(f"fayshell: C extensions not built ({exc}); using the Python fallbacks")

    def build_extension(self, ext: Extension) -> None:
        try:
            super().build_extension(ext)
        except Exception as exc:
            self.warn(f"fayshell: {ext.name} not built ({exc}); using its Python fallback")


FLAGS = ["-O3", "-std=c11", "-Wall"]

setup(
    ext_modules=[
        Extension(
            "fayshell.ctf._decode",
            ["fayshell/ctf/_decode.c"],
            depends=["fayshell/ctf/_opcodes.h"],
            extra_compile_args=FLAGS,
            optional=True,
        ),
        Extension(
            "fayshell.store._algos",
            ["fayshell/store/_algos.c"],
            extra_compile_args=FLAGS,
            optional=True,
        ),
    ],
    cmdclass={"build_ext": OptionalBuildExt},
)
