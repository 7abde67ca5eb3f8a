"""Test plugins shared by the whole suite (append yours to the list).

``tests.fixtures.isolation`` comes first: its autouse fixtures point HOME and XDG_* at temporary
directories before any other fixture reads them.
"""

pytest_plugins = [
    "tests.fixtures.isolation",
    "tests.fixtures.shell",
    "tests.fixtures.cluster",
    "tests.fixtures.workloads.plugin",
    "tests.fixtures.traceshell",
    "tests.fixtures.store_data",
    "tests.fixtures.threads",
    "tests.fixtures.bundle",
    "tests.fixtures.workers",
]
