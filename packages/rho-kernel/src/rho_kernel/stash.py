"""State a plugin keeps for the life of the rho process, under typed keys (as pytest's stash).

A `Stash` is a dict. Under a `StashKey[T]` a type checker knows what a value is
(`stash[PEER]` is an `RpcPeer` when `PEER = StashKey[RpcPeer]("rpc peer")`), and two keys
never clash, whatever their names, because each key is its own object. Any other hashable key
works as in any dict, untyped (the stash was a plain dict before 0.3).

`PluginHost.stash()` is the process-wide stash (`Runtime.stash`); `PluginHost.stash(name)` is
a plugin's own, which its tools receive as `ToolContext.stash`.
"""

from __future__ import annotations

from typing import Any, Generic, TypeVar, overload

_Value = TypeVar("_Value")


class StashKey(Generic[_Value]):
    """A key of a `Stash` for values of type `_Value`; `name` is only for messages."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"StashKey({self.name!r})"


class Stash(dict[Any, Any]):
    """A dict whose `StashKey[T]` entries are typed (see the module's docstring)."""

    @overload
    def __getitem__(self, key: StashKey[_Value], /) -> _Value: ...
    @overload
    def __getitem__(self, key: Any, /) -> Any: ...
    def __getitem__(self, key: Any, /) -> Any:
        return super().__getitem__(key)

    @overload
    def __setitem__(self, key: StashKey[_Value], value: _Value, /) -> None: ...
    @overload
    def __setitem__(self, key: Any, value: Any, /) -> None: ...
    def __setitem__(self, key: Any, value: Any, /) -> None:
        super().__setitem__(key, value)

    @overload
    def get(self, key: StashKey[_Value], default: None = None, /) -> _Value | None: ...
    @overload
    def get(self, key: StashKey[_Value], default: _Value, /) -> _Value: ...
    @overload
    def get(self, key: Any, default: Any = None, /) -> Any: ...
    def get(self, key: Any, default: Any = None, /) -> Any:
        """The value under `key`, or `default`."""
        return super().get(key, default)

    @overload  # type: ignore[override]
    def setdefault(self, key: StashKey[_Value], default: _Value, /) -> _Value: ...
    @overload
    def setdefault(self, key: Any, default: Any = None, /) -> Any: ...
    def setdefault(self, key: Any, default: Any = None, /) -> Any:
        """The value under `key`, stored as `default` first when there is none."""
        return super().setdefault(key, default)


__all__ = ["Stash", "StashKey"]
