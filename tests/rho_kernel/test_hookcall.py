"""Hooks keep pluggy's meaning through the real PluginHost: first result, wrappers, tracing,
while each implementation stays isolated and its contributions attributed."""

from __future__ import annotations

from collections.abc import Generator
from pathlib import Path
from typing import Any

import pluggy
import pytest

from rho_kernel import Block, Rewrite, ToolResult, hookimpl, tool
from rho_kernel.config.model import RhoConfig
from rho_kernel.plugins import PluginHost

CONFIG = RhoConfig()


def _host(**kwargs: Any) -> tuple[PluginHost, list[str]]:
    reports: list[str] = []
    host = PluginHost(autoload=False, report=reports.append, **kwargs)
    return host, reports


@tool(risk="read")
def alpha() -> str:
    """A."""
    return "a"


@tool(risk="read")
def beta() -> str:
    """B."""
    return "b"


class Policy:
    """Answers `rho_approval_policy` with a fixed mode and counts its calls."""

    def __init__(self, mode: str | None) -> None:
        self.mode = mode
        self.calls = 0

    @hookimpl
    def rho_approval_policy(self, tool_name: str) -> str | None:
        self.calls += 1
        return self.mode


# ── first result ─────────────────────────────────────────────────────────────


def test_a_firstresult_hook_stops_at_the_first_answer() -> None:
    host, _ = _host()
    later, answering, silent = Policy("deny"), Policy("auto"), Policy(None)
    host.register(later, "later")  # registered first: called last
    host.register(answering, "answering")
    host.register(silent, "silent")  # registered last: called first, no opinion
    mode = host.first("rho_approval_policy", tool_name="x", risk="read", config=CONFIG)
    assert mode == "auto"
    assert (silent.calls, answering.calls, later.calls) == (1, 1, 0)


def test_a_raising_firstresult_implementation_is_skipped_for_the_next_answer() -> None:
    class Broken:
        @hookimpl
        def rho_approval_policy(self) -> str:
            raise RuntimeError("policy bug")

    host, reports = _host()
    host.register(Policy("ask"), "fallback")
    host.register(Broken(), "broken")
    assert host.first("rho_approval_policy", tool_name="x", risk="read", config=CONFIG) == "ask"
    assert reports == ["plugin 'broken' failed in rho_approval_policy: policy bug"]


def test_the_built_in_policy_is_not_asked_once_a_plugin_answered() -> None:
    host, _ = _host()
    host.load_defaults()
    plugin = Policy("deny")
    host.register(plugin, "strict")
    assert host.first("rho_approval_policy", tool_name="x", risk="read", config=CONFIG) == "deny"
    assert plugin.calls == 1


# ── wrappers ─────────────────────────────────────────────────────────────────


class Registers:
    def __init__(self, *tools: object) -> None:
        self.tools = list(tools)

    @hookimpl
    def rho_register_tools(self) -> list[object]:
        return self.tools


def test_a_wrapper_sees_every_result_and_its_return_value_is_the_hooks_result() -> None:
    seen: list[object] = []

    class OnlyAlpha:
        @hookimpl(wrapper=True)
        def rho_register_tools(self, config: RhoConfig) -> Generator[None, Any, Any]:
            assert config is CONFIG
            results = yield
            seen.append(results)
            return [[t for t in tools if t.name == "alpha"] for tools in results]

    host, reports = _host()
    host.register(Registers(alpha), "first")
    host.register(Registers(beta), "second")
    host.register(OnlyAlpha(), "filter")
    items = host.collect("rho_register_tools", config=CONFIG, root=Path("."))
    assert seen == [[[beta], [alpha]]]
    # The wrapper built new lists of the same tools: each keeps its plugin.
    assert items == [("first", alpha)]
    assert reports == []


def test_results_a_wrapper_passes_through_keep_their_plugin() -> None:
    class Adds:
        @hookimpl(wrapper=True)
        def rho_register_tools(self) -> Generator[None, Any, Any]:
            results = yield
            return [*results, [beta]]

    host, _ = _host()
    host.register(Registers(alpha), "giver")
    host.register(Adds(), "adder")
    items = host.collect("rho_register_tools", config=CONFIG, root=Path("."))
    assert items == [("giver", alpha), ("adder", beta)]


def test_wrappers_nest_tryfirst_outermost_and_wrap_a_firstresult_answer() -> None:
    order: list[str] = []

    class Outer:
        @hookimpl(wrapper=True, tryfirst=True)
        def rho_approval_policy(self) -> Generator[None, Any, Any]:
            order.append("outer in")
            mode = yield
            order.append(f"outer out {mode}")
            return mode

    class Inner:
        @hookimpl(wrapper=True)
        def rho_approval_policy(self, tool_name: str) -> Generator[None, Any, Any]:
            order.append("inner in")
            mode = yield
            order.append(f"inner out {mode}")
            return "deny" if tool_name == "rm" else mode

    host, _ = _host()
    host.register(Policy("auto"), "policy")
    host.register(Inner(), "inner")
    host.register(Outer(), "outer")
    assert host.first("rho_approval_policy", tool_name="rm", risk="read", config=CONFIG) == "deny"
    assert order == ["outer in", "inner in", "inner out auto", "outer out deny"]
    pairs = host.call_each("rho_approval_policy", tool_name="ls", risk="read", config=CONFIG)
    assert pairs == [("policy", "auto")]


def test_an_old_style_hookwrapper_can_force_the_result() -> None:
    class Old:
        @hookimpl(hookwrapper=True)
        def rho_approval_policy(self) -> Generator[None, Any, None]:
            outcome = yield
            if outcome.get_result() == "auto":
                outcome.force_result("ask")

    host, reports = _host()
    host.register(Policy("auto"), "policy")
    host.register(Old(), "old")
    assert host.first("rho_approval_policy", tool_name="x", risk="read", config=CONFIG) == "ask"
    assert reports == []


def test_a_wrapper_does_not_see_an_implementations_exception_it_is_reported() -> None:
    seen: list[object] = []

    class Broken:
        @hookimpl
        def rho_register_tools(self) -> list[object]:
            raise RuntimeError("boom")

    class Watch:
        @hookimpl(wrapper=True)
        def rho_register_tools(self) -> Generator[None, Any, Any]:
            results = yield
            seen.append(results)
            return results

    host, reports = _host()
    host.register(Registers(alpha), "good")
    host.register(Broken(), "broken")
    host.register(Watch(), "watch")
    assert host.collect("rho_register_tools", config=CONFIG, root=Path(".")) == [("good", alpha)]
    assert seen == [[[alpha]]]
    assert reports == ["plugin 'broken' failed in rho_register_tools: boom"]


class _Misbehaving:
    """Wrappers that break pluggy's contract in each way one can."""

    @staticmethod
    def raises_before() -> object:
        class W:
            @hookimpl(wrapper=True)
            def rho_register_tools(self) -> Generator[None, Any, Any]:
                raise RuntimeError("setup failed")
                yield  # pragma: no cover

        return W()

    @staticmethod
    def raises_after() -> object:
        class W:
            @hookimpl(wrapper=True)
            def rho_register_tools(self) -> Generator[None, Any, Any]:
                yield
                raise RuntimeError("teardown failed")

        return W()

    @staticmethod
    def never_yields() -> object:
        class W:
            @hookimpl(wrapper=True)
            def rho_register_tools(self) -> Generator[None, Any, Any]:
                return []
                yield  # pragma: no cover

        return W()

    @staticmethod
    def yields_twice() -> object:
        class W:
            @hookimpl(wrapper=True)
            def rho_register_tools(self) -> Generator[None, Any, Any]:
                yield
                yield
                return []

        return W()

    @staticmethod
    def returns_no_list() -> object:
        class W:
            @hookimpl(wrapper=True)
            def rho_register_tools(self) -> Generator[None, Any, Any]:
                yield
                return "nothing"

        return W()


@pytest.mark.parametrize(
    ("make", "problem"),
    [
        (_Misbehaving.raises_before, "failed in rho_register_tools (wrapper): setup failed"),
        (_Misbehaving.raises_after, "failed in rho_register_tools (wrapper): teardown failed"),
        (_Misbehaving.never_yields, "(wrapper): the wrapper did not yield"),
        (_Misbehaving.yields_twice, "(wrapper): the wrapper yielded more than once"),
        (_Misbehaving.returns_no_list, "returned str from its wrapper of rho_register_tools"),
    ],
)
def test_a_broken_wrapper_is_reported_and_the_call_goes_on_without_it(
    make: Any, problem: str
) -> None:
    host, reports = _host()
    host.register(Registers(alpha), "good")
    host.register(make(), "wrapping")
    assert host.collect("rho_register_tools", config=CONFIG, root=Path(".")) == [("good", alpha)]
    assert len(reports) == 1
    assert reports[0].startswith("plugin 'wrapping' ")
    assert problem in reports[0]


async def test_chained_hooks_inside_a_wrapper_still_rewrite_and_block() -> None:
    calls: list[dict[str, Any]] = []

    class Double:
        @hookimpl
        def rho_before_tool_call(self, arguments: dict[str, Any]) -> Rewrite:
            calls.append(arguments)
            return Rewrite({"n": arguments["n"] * 2})

    class BlockBig:
        @hookimpl
        def rho_before_tool_call(self, arguments: dict[str, Any]) -> Block | None:
            calls.append(arguments)
            return Block("too big") if arguments["n"] > 10 else None

    class Unblock:
        @hookimpl(wrapper=True)
        def rho_before_tool_call(self, tool: object) -> Generator[None, Any, Any]:
            outcomes = yield
            if tool == "trusted":
                return [o for o in outcomes if not isinstance(o, Block)]
            return outcomes

    host, _ = _host()
    host.register(BlockBig(), "block")
    host.register(Double(), "double")
    host.register(Unblock(), "unblock")
    assert await host.intercept_async(None, {"n": 3}, None) == {"n": 6}
    assert await host.intercept_async(None, {"n": 6}, None) == Block("too big")
    assert await host.intercept_async(None, {"n": 6}, "trusted") == {"n": 12}
    assert calls == [{"n": 3}, {"n": 6}, {"n": 6}, {"n": 12}, {"n": 6}, {"n": 12}]


def test_a_wrapper_around_after_tool_call_sees_the_final_result() -> None:
    class Suffix:
        @hookimpl
        def rho_after_tool_call(self, result: ToolResult) -> ToolResult:
            return ToolResult(result.output + "!")

    class Upper:
        @hookimpl(wrapper=True)
        def rho_after_tool_call(self) -> Generator[None, Any, Any]:
            results = yield
            return [ToolResult(r.output.upper()) for r in results]

    host, _ = _host()
    host.register(Suffix(), "suffix-1")
    host.register(Suffix(), "suffix-2")
    host.register(Upper(), "upper")
    assert host.after_tool_call(None, ToolResult("ok")).output == "OK!!"


def test_a_hook_called_from_inside_an_implementation_is_attributed_on_its_own() -> None:
    class Nested:
        def __init__(self, host: PluginHost) -> None:
            self.host = host

        @hookimpl
        def rho_register_tools(self) -> list[object]:
            self.host.collect("rho_system_prompt_fragments", config=CONFIG, root=Path("."))
            return [beta]

    class Fragment:
        @hookimpl
        def rho_system_prompt_fragments(self) -> list[str]:
            return ["text"]

    host, _ = _host()
    host.register(Fragment(), "fragment")
    host.register(Registers(alpha), "giver")
    host.register(Nested(host), "nested")
    items = host.collect("rho_register_tools", config=CONFIG, root=Path("."))
    assert items == [("nested", beta), ("giver", alpha)]


# ── tracing and monitoring ───────────────────────────────────────────────────


def test_trace_env_traces_the_hosts_calls_on_stderr(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("RHO_TRACE_PLUGINS", "1")
    host, _ = _host()
    host.register(Policy("auto"), "policy")
    host.register(Registers(alpha), "giver")
    host.first("rho_approval_policy", tool_name="ls", risk="read", config=CONFIG)
    host.collect("rho_register_tools", config=CONFIG, root=Path("."))
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert "rho: trace:   rho_approval_policy [hook]" in lines
    assert "rho: trace:       tool_name: ls" in lines
    assert "rho: trace:   finish rho_approval_policy --> auto [hook]" in lines
    assert "rho: trace:   rho_register_tools [hook]" in lines
    assert any(line.startswith("rho: trace:   finish rho_register_tools --> [[") for line in lines)


def test_traced_arguments_are_redacted_and_cut(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("RHO_TRACE_PLUGINS", "1")
    host, _ = _host()
    secret = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    host.after_tool_call(None, ToolResult(f"token {secret} " + "x" * 1000))
    err = capsys.readouterr().err
    assert secret not in err
    assert "[REDACTED]" in err
    assert all(len(line) <= len("rho: trace: ") + 300 for line in err.splitlines())


def test_call_monitoring_sees_every_call_the_host_makes() -> None:
    host, _ = _host()
    host.register(Registers(alpha), "giver")
    seen: list[tuple[str, object]] = []
    host.pm.add_hookcall_monitoring(
        lambda name, impls, kwargs: seen.append(("before", name)),
        lambda outcome, name, impls, kwargs: seen.append(("after", outcome.get_result())),
    )
    host.collect("rho_register_tools", config=CONFIG, root=Path("."))
    host.after_tool_call(None, ToolResult("ok"))
    assert seen == [
        ("before", "rho_register_tools"),
        ("after", [[alpha]]),
        ("before", "rho_after_tool_call"),
        ("after", []),
    ]


def test_calling_the_hook_through_pluggy_keeps_isolation() -> None:
    class Broken:
        @hookimpl
        def rho_register_tools(self) -> list[object]:
            raise RuntimeError("boom")

    host, reports = _host()
    host.register(Registers(alpha), "good")
    host.register(Broken(), "broken")
    assert host.pm.hook.rho_register_tools(config=CONFIG, root=Path(".")) == [[alpha]]
    assert reports == ["plugin 'broken' failed in rho_register_tools: boom"]


# ── the caller's errors ──────────────────────────────────────────────────────


@pytest.mark.filterwarnings("ignore:Argument.*cannot be found in this hook call")
@pytest.mark.parametrize("how", ["call", "first", "collect"])
def test_a_call_that_omits_an_argument_is_the_callers_error_not_the_plugins(how: str) -> None:
    host, reports = _host()
    policy = Policy("auto")
    host.register(policy, "policy")
    with pytest.raises(pluggy.HookCallError, match="must provide argument 'tool_name'"):
        getattr(host, how)("rho_approval_policy")
    assert policy.calls == 0
    assert not any("policy" in line for line in reports), reports
    assert host.first("rho_approval_policy", tool_name="x", risk="read", config=CONFIG) == "auto"


def test_a_hook_is_called_by_its_spec_as_by_its_name_and_only_with_keywords() -> None:
    from rho_kernel import hookspecs

    host, _ = _host()

    class Tools:
        @hookimpl
        def rho_register_tools(self) -> list[object]:
            return [alpha, beta]

    host.register(Tools(), "tools")
    by_spec = host.collect(hookspecs.rho_register_tools, config=CONFIG, root=Path("."))
    by_name = host.collect("rho_register_tools", config=CONFIG, root=Path("."))
    assert by_spec == by_name == [("tools", alpha), ("tools", beta)]
    assert (
        host.first(hookspecs.rho_approval_policy, tool_name="x", risk="read", config=CONFIG) is None
    )
    with pytest.raises(TypeError, match="by keyword"):
        host.call_each(hookspecs.rho_register_tools, CONFIG, Path("."))


# ── pluggy's public ground ───────────────────────────────────────────────────


def _pluggy_private_names() -> set[str]:
    """Every private name pluggy's own modules define or assign (`_multicall`, `_hookexec`,
    `_inner_hookexec`, `_name2plugin`, …)."""
    import ast

    names: set[str] = set()
    for source in Path(pluggy.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute):
                name = node.attr
            elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                name = node.name
            else:
                continue
            if name.startswith("_") and not name.endswith("__"):
                names.add(name)
    return names


def _is_self(node: object) -> bool:
    import ast

    return isinstance(node, ast.Name) and node.id == "self"


def test_the_host_uses_only_pluggys_public_names() -> None:
    import ast

    import rho_kernel.hookcall
    import rho_kernel.plugins

    private = _pluggy_private_names()
    assert {"_inner_hookexec", "_multicall", "_hookimpls"} <= private
    used: list[str] = []
    for module in (rho_kernel.plugins, rho_kernel.hookcall):
        tree = ast.parse(Path(str(module.__file__)).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            on_self = isinstance(node, ast.Attribute) and _is_self(node.value)
            if isinstance(node, ast.Attribute) and node.attr in private and not on_self:
                used.append(f"{module.__name__}: .{node.attr}")
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("pluggy._"):
                used.append(f"{module.__name__}: from {node.module}")
    assert used == []


def test_pluggy_runs_its_own_call_loop_and_holds_guarded_plugins() -> None:
    host, _ = _host()
    plugin = Registers(alpha)
    host.register(plugin, "giver")
    (impl,) = host.pm.hook.rho_register_tools.get_hookimpls()
    assert impl.plugin_name == "giver"
    assert impl.function is not plugin.rho_register_tools  # a guard around it
    assert impl.argnames == ()  # pluggy read the original's arguments
    assert repr(host.pm.get_plugin("giver")) == repr(plugin)


def test_one_plugin_object_registered_under_a_second_name_is_rejected() -> None:
    host, reports = _host()
    plugin = Registers(alpha)
    assert host.register(plugin, "first")
    assert not host.register(plugin, "second")
    assert reports == [
        "plugin 'second' skipped: rejected: the same plugin is already registered as 'first'"
    ]
    assert host.collect("rho_register_tools", config=CONFIG, root=Path(".")) == [("first", alpha)]


def test_a_wrapper_that_is_not_a_generator_is_rejected_by_pluggy() -> None:
    class NotAGenerator:
        @hookimpl(wrapper=True)
        def rho_register_tools(self) -> list[object]:
            return []

    host, reports = _host()
    assert not host.register(NotAGenerator(), "flat")
    assert len(reports) == 1
    assert "not a generator function" in reports[0]
    assert host.pm.get_plugin("flat") is None


def test_an_implementation_with_a_misspelled_argument_is_rejected_by_pluggy() -> None:
    class Misspelled:
        @hookimpl
        def rho_register_tools(self, konfig: object) -> list[object]:
            return []

    host, reports = _host()
    assert not host.register(Misspelled(), "typo")
    assert "konfig" in reports[0]
    assert "hookimpl definition: rho_register_tools(konfig" in reports[0]


@pytest.mark.filterwarnings("ignore:Argument.*cannot be found in this hook call")
@pytest.mark.filterwarnings("ignore::pluggy.PluggyTeardownRaisedWarning")
@pytest.mark.parametrize("style", ["wrapper", "hookwrapper"])
def test_a_wrapper_sees_the_callers_error_and_is_not_blamed_for_it(style: str) -> None:
    seen: list[str] = []

    class Watch:
        if style == "wrapper":

            @hookimpl(wrapper=True)
            def rho_approval_policy(self) -> Generator[None, Any, Any]:
                try:
                    return (yield)
                except pluggy.HookCallError:
                    seen.append("error")
                    raise

        else:

            @hookimpl(hookwrapper=True)
            def rho_approval_policy(self) -> Generator[None, Any, None]:
                outcome = yield
                seen.append("error" if outcome.exception else "result")
                outcome.get_result()

    host, reports = _host()
    host.register(Policy("auto"), "policy")
    host.register(Watch(), "watch")
    with pytest.raises(pluggy.HookCallError):
        host.first("rho_approval_policy")
    assert seen == ["error"]
    assert reports == []


def test_a_plain_generator_implementation_is_not_mistaken_for_a_wrapper() -> None:
    class Lazy:
        @hookimpl
        def rho_system_prompt_fragments(self) -> Generator[str, None, None]:
            yield "one"

    host, reports = _host()
    host.register(Lazy(), "lazy")
    ((name, value),) = host.call_each("rho_system_prompt_fragments", config=CONFIG, root=Path("."))
    assert name == "lazy"
    assert list(value) == ["one"]
    assert reports == []


def test_a_module_plugin_and_a_class_plugin_are_guarded_alike(tmp_path: Path) -> None:
    import importlib.util

    source = tmp_path / "modplug.py"
    source.write_text(
        "from rho_kernel import hookimpl\n\n"
        "@hookimpl\n"
        "def rho_approval_policy(tool_name):\n"
        "    raise ValueError(tool_name)\n\n"
        "class Static:\n"
        "    @hookimpl\n"
        "    @staticmethod\n"
        "    def rho_approval_policy(risk):\n"
        "        return 'ask' if risk == 'write' else None\n",
        encoding="utf-8",
    )
    spec = importlib.util.spec_from_file_location("modplug", source)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    host, reports = _host()
    host.register(module.Static, "static")
    host.register(module, "module")
    assert host.first("rho_approval_policy", tool_name="rm", risk="write", config=CONFIG) == "ask"
    assert reports == ["plugin 'module' failed in rho_approval_policy: rm"]
