"""No tool result exceeds its budget (issue 14, "Tool output bounded by the window").

Property tests over any text, any budget and both ways of counting (the character heuristic and
a real tokenizer), for the runner's last-resort cut and for the tools' own shaping (``read``'s
window of lines, ``grep``/``glob``'s first lines, ``bash``'s head and tail); then the runner
end to end: a huge read on a small window reaches the model within its budget, says where to
go on, and the tool event carries what was cut.
"""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from steiner_tui.agent.tool_calls import ResultBudget, bound_result
from steiner_tui.engine.budget import ModelTokenBudget, soft_threshold_tokens
from steiner_tui.engine.events import ToolCallFinished
from steiner_tui.engine.messages import Message, ToolCall
from steiner_tui.engine.provider import ModelInfo
from steiner_tui.engine.state.read_results import parse_read_result
from steiner_tui.engine.tokens import default_encoding_loader, heuristic_tokens
from steiner_tui.engine.tool_budget import (
    TOOL_RESULT_CEILING_TOKENS,
    TOOL_RESULT_FLOOR_TOKENS,
    TOOL_RESULTS_UNDER_TRIGGER,
    tool_result_budget,
)
from steiner_tui.tools.base import ToolResult
from steiner_tui.tools.read import read_file
from steiner_tui.tools.results import DirectoryResultStore
from steiner_tui.tools.shaping import keep_first_lines
from tests.agent.conftest import RunnerFactory
from tests.agent.fakes import Reply

CL100K = default_encoding_loader(None).get("cl100k_base")


def _heuristic(text: str) -> int:
    return heuristic_tokens(len(text))


def _tiktoken(text: str) -> int:
    return len(CL100K.encode_ordinary(text)) + 4


COUNTERS = {"heuristic": _heuristic, "tiktoken": _tiktoken}
CALL = ToolCall("c1", "bash", {"command": "make"})
TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=20_000)
BUDGETS = st.integers(min_value=TOOL_RESULT_FLOOR_TOKENS, max_value=6_000)


@pytest.mark.parametrize("counter", ["heuristic", "tiktoken"])
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=TEXT, budget_tokens=BUDGETS, lines=st.integers(0, 400))
def test_the_runners_cut_never_exceeds_the_budget(
    counter: str, text: str, budget_tokens: int, lines: int
) -> None:
    count = COUNTERS[counter]
    content = text + "\n".join(f"line {n} " + "ab" * n for n in range(lines))
    budget = ResultBudget(lambda used, pending: budget_tokens, count, 4)
    bounded, tokens = bound_result(CALL, ToolResult(content), budget_tokens, budget)
    assert count(bounded.content) == tokens <= budget_tokens
    if count(content) <= budget_tokens:
        assert bounded.content == content and bounded.cut is None
    else:
        assert bounded.cut is not None and bounded.cut.total_bytes == len(content.encode())


@pytest.mark.parametrize("counter", ["heuristic", "tiktoken"])
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    line_length=st.integers(1, 3_000),
    line_count=st.integers(1, 2_500),
    budget_tokens=BUDGETS,
    ratio=st.sampled_from([2, 3, 4]),
)
def test_a_read_never_exceeds_its_budget(
    tmp_path_factory: pytest.TempPathFactory,
    counter: str,
    line_length: int,
    line_count: int,
    budget_tokens: int,
    ratio: int,
) -> None:
    count = COUNTERS[counter]
    root = tmp_path_factory.mktemp("read")
    (root / "f.txt").write_text(("é" + "x" * line_length + "\n") * line_count, encoding="utf-8")
    shaped = read_file(root, "f.txt", max_chars=budget_tokens * ratio)
    budget = ResultBudget(lambda used, pending: budget_tokens, count, ratio)
    bounded, tokens = bound_result(
        ToolCall("r", "read", {"path": "f.txt"}), shaped, budget_tokens, budget
    )
    assert count(bounded.content) == tokens <= budget_tokens
    fields = json.loads(bounded.content)  # still a read result: the window moved, not the JSON
    assert fields["startLine"] == 1 and fields["endLine"] >= 1


@pytest.mark.parametrize("counter", ["heuristic", "tiktoken"])
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(matches=st.integers(0, 600), width=st.integers(1, 500), budget_tokens=BUDGETS)
def test_match_lists_never_exceed_their_budget(
    tmp_path_factory: pytest.TempPathFactory,
    counter: str,
    matches: int,
    width: int,
    budget_tokens: int,
) -> None:
    count = COUNTERS[counter]
    store = DirectoryResultStore(tmp_path_factory.mktemp("results"))
    whole = "\n".join(f"src/m{n}.py:{n}:" + "z" * width for n in range(matches))
    shaped = keep_first_lines(ToolResult(whole), budget_tokens * 4, store, "g1", "match list")
    budget = ResultBudget(lambda used, pending: budget_tokens, count, 4, store)
    bounded, tokens = bound_result(
        ToolCall("g1", "grep", {"pattern": "z"}), shaped, budget_tokens, budget
    )
    assert count(bounded.content) == tokens <= budget_tokens
    if bounded.cut is not None:
        assert Path(bounded.cut.saved_at).read_text() == whole


@given(
    window=st.integers(0, 2_000_000),
    prompt=st.integers(0, 2_000_000),
    pending=st.integers(1, 20),
    fixed=st.integers(0, 50_000),
)
def test_the_budget_is_a_share_of_what_is_left_within_floor_and_ceiling(
    window: int, prompt: int, pending: int, fixed: int
) -> None:
    budget = ModelTokenBudget(context_size=window, max_output=4096)
    tokens = tool_result_budget(budget, prompt, pending, fixed_tokens=fixed)
    assert TOOL_RESULT_FLOOR_TOKENS <= tokens <= TOOL_RESULT_CEILING_TOKENS
    if window > 0:
        assert tokens <= max(TOOL_RESULT_FLOOR_TOKENS, window // 4)
        # Four results fit between the fixed part of a request and the soft trigger.
        share = (soft_threshold_tokens(window) - fixed) // TOOL_RESULTS_UNDER_TRIGGER
        assert tokens <= max(TOOL_RESULT_FLOOR_TOKENS, share)
        fit = budget.fit_request(prompt)
        room = window - fit.safety_margin - fit.reserve - prompt
        if tokens > TOOL_RESULT_FLOOR_TOKENS:
            assert tokens * pending <= room


async def test_a_huge_read_on_a_small_window_stays_within_its_budget(
    make_runner: RunnerFactory, project: Path
) -> None:
    (project / "docs_big.md").write_text(
        "".join(
            f"## Section {n}\nRounding: values round half away from zero ({n}).\n" * 5
            for n in range(4_000)
        ),
        encoding="utf-8",
    )
    call = ToolCall("c1", "read", {"path": "docs_big.md"})
    runner, provider, sink = make_runner(
        [Reply(["Reading."], [call]), Reply(["It explains rounding."])],
        info=ModelInfo(32_768, 4_096),
    )
    result = await runner.run(Message("user", "read docs_big.md"))
    assert result.status == "done", result.error
    second = provider.requests[1]
    assert runner.model.budget.fit_request(runner.prepare().estimate.tokens).fits
    tool_message = runner.conversation[2]
    fields = json.loads(tool_message.content)
    assert fields["capped"] is True
    assert f"(next: offset={fields['endLine'] + 1}, limit=" in fields["output"]
    tokens = runner.context.estimate(runner.model.model, (tool_message,), ()).tokens
    assert tokens <= 32_768 // 4
    (finished,) = sink.of(ToolCallFinished)
    assert finished.cut is not None  # type: ignore[attr-defined]
    assert finished.cut.saved_at == "docs_big.md"  # type: ignore[attr-defined]
    assert finished.cut.total_lines == 40_000  # type: ignore[attr-defined]
    assert second.messages[-1].tool_call_id == "c1"


@pytest.mark.parametrize("model_id", ["fake-model", "gpt-4o"])
async def test_the_fixed_part_is_a_request_with_no_conversation(
    make_runner: RunnerFactory, model_id: str
) -> None:
    """``fixed_tokens`` counts the memoized prefix; it is what a request without messages
    estimates, before and after a turn (calibration included)."""
    runner, _, _ = make_runner([Reply(["Hello."])])
    runner.model = msgspec.structs.replace(runner.model, model=model_id)
    assert runner.fixed_tokens() == runner.prepare(()).estimate.tokens
    await runner.run(Message("user", "hi"))
    assert runner.fixed_tokens() == runner.prepare(()).estimate.tokens


def test_a_read_cut_by_the_runner_never_stands_in_for_a_later_read(tmp_path: Path) -> None:
    # A read whose own window could not fit is cut to its head and tail here: its fields still
    # describe the whole file, so they must say the model did not see it whole.
    (tmp_path / "f.txt").write_text("line\n" * 50, encoding="utf-8")
    whole = read_file(tmp_path, "f.txt", max_chars=100_000)
    assert parse_read_result(whole.data).is_full_copy  # type: ignore[union-attr]
    unshaped = whole.with_reshape(None)
    budget = ResultBudget(lambda used, pending: 40, _heuristic, 4)
    bounded, _ = bound_result(ToolCall("r", "read", {"path": "f.txt"}), unshaped, 40, budget)
    assert bounded.cut is not None
    tracked = parse_read_result(bounded.data)
    assert tracked is not None and tracked.path == "f.txt"  # still a read of that file
    assert not tracked.is_full_copy
