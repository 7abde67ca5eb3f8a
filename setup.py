"""Build fayshell's optional C extension (the compiled CTF decoder).

pyproject.toml holds the project metadata; this file only declares ``fayshell.ctf._decode``.
When no C compiler is available the build is skipped with a warning and fayshell falls back
to its pure-Python decoder.
"""

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext


class OptionalBuildExt(build_ext):
    """build_ext that warns instead of failing the install when the extension cannot build."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as exc:  # no compiler, no headers: the Python decoder still works
            self.warn(f"fayshell: C decoder not built ({exc}); using the Python decoder")

    def build_extension(self, ext: Extension) -> None:
        try:
            super().build_extension(ext)
        except Exception as exc:
            self.warn(f"fayshell: C decoder not built ({exc}); using the Python decoder")


setup(
    ext_modules=[Extension("fayshell.ctf._decode", ["fayshell/ctf/_decode.c"],
                           extra_compile_args=["-O3", "-std=c11", "-Wall"],
                           optional=True)],
    cmdclass={"build_ext": OptionalBuildExt},
)
