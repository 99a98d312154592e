"""`Stash` and `StashKey`: typed entries that never clash, plain keys as in a dict, and one stash
per plugin beside the one every plugin shares."""

from __future__ import annotations

from rho_kernel import PluginHost, Stash, StashKey


def test_keys_of_the_same_name_are_different_entries() -> None:
    stash = Stash()
    first: StashKey[int] = StashKey("count")
    second: StashKey[int] = StashKey("count")
    stash[first] = 1
    assert stash.get(second) is None and stash.get(second, 7) == 7
    assert stash.setdefault(second, 2) == 2 and stash[first] == 1
    assert repr(first) == "StashKey('count')"


def test_plain_keys_work_as_in_a_dict() -> None:
    stash = Stash()
    stash["n"] = stash.get("n", 0) + 1
    assert stash == {"n": 1} and isinstance(stash, dict)


def test_each_plugin_has_its_own_stash_beside_the_shared_one() -> None:
    host = PluginHost(autoload=False, report=lambda message: None)
    key: StashKey[str] = StashKey("note")
    host.stash("a")[key] = "a's"
    assert key not in host.stash("b") and key not in host.stash()
    assert host.stash("a") is host.stash("a") and host.stash() is host.stash()
    host.stash()[key] = "shared"
    assert host.stash("a")[key] == "a's"
