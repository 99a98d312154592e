"""The `rho --plugins` text: one block per plugin, hostile metadata shown harmlessly."""

from __future__ import annotations

from rho_rpc.plugin_listing import format_listing
from rho_rpc.wire import FailedPlugin, ListPluginsResult, PluginEntry


def test_control_characters_and_line_breaks_in_metadata_are_escaped() -> None:
    listing = ListPluginsResult(
        plugins=[
            PluginEntry(
                name="evil\x1b[2J",
                version="1.0\r\nfake: line",
                hooks=["rho_register_tools"],
                distribution="evil-dist\x07",
                tools=["ok\ud800"],
                rpcMethods=[],
            )
        ],
        failed=[FailedPlugin(name="b", error="first line\nsecond\x1b[31m line", version=None)],
    )
    text = format_listing(listing)
    assert "\x1b" not in text and "\x07" not in text and "\r" not in text
    assert "evil-dist\\x07 1.0 fake: line: plugin 'evil\\x1b[2J'" in text
    assert "  error: first line second\\x1b[31m line" in text
    assert text.encode("utf-8")  # no lone surrogate left to fail on the terminal
    assert "(no distribution): plugin 'b'" in text


def test_a_plugin_without_contributions_shows_dashes() -> None:
    listing = ListPluginsResult(
        plugins=[PluginEntry(name="quiet", version=None, hooks=[], distribution=None)]
    )
    assert format_listing(listing) == (
        "1 plugin loaded, 0 failed\n\n"
        "(no distribution): plugin 'quiet'\n"
        "  hooks:       -\n"
        "  tools:       -\n"
        "  rpc methods: -\n"
    )
