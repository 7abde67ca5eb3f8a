"""Test plugins shared by the whole suite (append yours to the list)."""

pytest_plugins = ["tests.fixtures.shell", "tests.fixtures.cluster", "tests.fixtures.workloads.plugin",
                  "tests.fixtures.traceshell", "tests.fixtures.store_data",
                  "tests.fixtures.threads"]
