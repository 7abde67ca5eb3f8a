"""fayshell.lang.versions on its own: [version] and [semver] parsing, order, texts and casts, as
.NET's System.Version and semver.org 2.0 define them."""

from __future__ import annotations

import pytest

from fayshell.lang.versions import (
    SemanticVersion,
    Version,
    VersionError,
    to_semver,
    to_version,
)


@pytest.mark.parametrize(
    ("text", "parts", "shown"),
    [
        ("1.2", (1, 2, -1, -1), "1.2"),
        ("2.13.1", (2, 13, 1, -1), "2.13.1"),
        (" 10.0.19045.1 ", (10, 0, 19045, 1), "10.0.19045.1"),
        ("1.02", (1, 2, -1, -1), "1.2"),
    ],
)
def test_version_parts_and_text(text: str, parts: tuple[int, ...], shown: str) -> None:
    v = Version.parse(text)
    assert (v.Major, v.Minor, v.Build, v.Revision) == parts
    assert str(v) == shown == v.ToString()


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("7", "too short or too long"),
        ("1.2.3.4.5", "too short or too long"),
        ("1.x", "not in a correct format"),
        ("1.-2", "not in a correct format"),
        ("1.", "not in a correct format"),
        ("1.99999999999", "too large or too small for an Int32"),
    ],
)
def test_version_texts_that_are_not_versions(text: str, why: str) -> None:
    with pytest.raises(VersionError) as info:
        Version.parse(text)
    assert str(info.value).startswith(f'Cannot convert value "{text}" to type "System.Version"')
    assert why in str(info.value)


def test_versions_order_part_by_part_and_a_missing_part_first() -> None:
    texts = ["1.10", "1.9", "1.2.0", "1.2", "1.2.0.0", "2.0", "1.9.1"]
    ordered = sorted(Version.parse(t) for t in texts)
    assert [str(v) for v in ordered] == ["1.2", "1.2.0", "1.2.0.0", "1.9", "1.9.1", "1.10", "2.0"]
    assert Version.parse("1.2") != Version.parse("1.2.0")
    assert Version.parse("1.2.3") == Version(1, 2, 3)
    assert hash(Version.parse("1.2.3")) == hash(Version(1, 2, 3))
    assert Version(1, 2).__lt__("1.3") is NotImplemented


def test_version_new_tostring_and_revision_halves() -> None:
    assert Version.new(1, 2, 3) == Version(1, 2, 3)
    assert Version.new("4.5") == Version(4, 5)
    with pytest.raises(VersionError):
        Version.new(1)
    with pytest.raises(VersionError):
        Version.new(1, -2)
    v = Version.new(1, 2, 3, 0x0005_0007)
    assert (v.MajorRevision, v.MinorRevision) == (5, 7)
    assert (Version(1, 2).MajorRevision, Version(1, 2).MinorRevision) == (-1, -1)
    assert (v.ToString(0), v.ToString(2), v.ToString(4)) == ("", "1.2", "1.2.3.327687")
    with pytest.raises(VersionError):
        Version(1, 2).ToString(3)
    assert (v.GetType().Name, v.GetType().FullName) == ("Version", "System.Version")


@pytest.mark.parametrize(
    ("text", "fields", "shown"),
    [
        ("7.4.1", (7, 4, 1, None, None), "7.4.1"),
        ("7", (7, 0, 0, None, None), "7.0.0"),
        ("7.4", (7, 4, 0, None, None), "7.4.0"),
        ("1.0.0-rc.1+build.5", (1, 0, 0, "rc.1", "build.5"), "1.0.0-rc.1+build.5"),
        ("2.1.0+sha.abc", (2, 1, 0, None, "sha.abc"), "2.1.0+sha.abc"),
    ],
)
def test_semver_parts_and_text(text: str, fields: tuple[object, ...], shown: str) -> None:
    s = SemanticVersion.parse(text)
    assert (s.Major, s.Minor, s.Patch, s.PreReleaseLabel, s.BuildLabel) == fields
    assert str(s) == shown == s.ToString()


@pytest.mark.parametrize("text", ["", "v1.2", "1.2.3.4", "1.2.3-", "1.2.3-a..b", "1.2.3+"])
def test_semver_texts_that_are_not_versions(text: str) -> None:
    with pytest.raises(VersionError) as info:
        SemanticVersion.parse(text)
    assert "System.Management.Automation.SemanticVersion" in str(info.value)


def test_semver_precedence_is_semver_orgs() -> None:
    # semver.org 2.0, item 11: the example chain, in order
    chain = [
        "1.0.0-alpha",
        "1.0.0-alpha.1",
        "1.0.0-alpha.beta",
        "1.0.0-beta",
        "1.0.0-beta.2",
        "1.0.0-beta.11",
        "1.0.0-rc.1",
        "1.0.0",
        "2.0.0",
        "2.1.0",
        "2.1.1",
    ]
    parsed = [SemanticVersion.parse(t) for t in chain]
    assert sorted(reversed(parsed)) == parsed
    assert all(a < b for a, b in zip(parsed, parsed[1:], strict=False))
    # build labels do not take part in the order
    assert SemanticVersion.parse("1.0.0+a") == SemanticVersion.parse("1.0.0+b")
    assert hash(SemanticVersion.parse("1.0.0+a")) == hash(SemanticVersion.parse("1.0.0"))


def test_semver_new_and_type() -> None:
    assert SemanticVersion.new(7, 4) == SemanticVersion(7, 4, 0)
    assert str(SemanticVersion.new(1, 2, 3, "rc.1", "x")) == "1.2.3-rc.1+x"
    assert SemanticVersion.new(Version(1, 2, 3, 4)) == SemanticVersion(1, 2, 3)
    assert SemanticVersion.new("1.2.3") == SemanticVersion(1, 2, 3)
    with pytest.raises(VersionError):
        SemanticVersion.new()
    with pytest.raises(VersionError):
        SemanticVersion.new(-1)
    assert SemanticVersion(7, 4).GetType().FullName == SemanticVersion.TYPE_NAME


def test_casts_between_texts_numbers_and_the_two_kinds() -> None:
    assert to_version("2.13") == Version(2, 13)
    assert to_version(1.5) == Version(1, 5)
    assert to_version(SemanticVersion(7, 4, 1, "rc.1")) == Version(7, 4, 1)
    assert to_semver(Version(7, 4)) == SemanticVersion(7, 4, 0)
    assert to_semver("7.4.1") == SemanticVersion(7, 4, 1)
    for bad in (None, True, [1, 2], 7):
        with pytest.raises(VersionError):
            to_version(bad)
    with pytest.raises(VersionError):
        to_semver(None)
