"""Approvals with a reason to ask: asked even under "allow" or after "Allow for this
session", never under "deny", and the reason reaches the question and the refusal."""

from __future__ import annotations

from typing import Any

import pytest

from workspace_agent.guard.approvals import Approvals
from workspace_agent.shared.errors import ToolError

WHY = "the command word is a variable (`$x`), so what runs cannot be checked"


class Recorder:
    def __init__(self, *answers: str | None) -> None:
        self.answers = list(answers)
        self.asked: list[tuple[str, str, str | None]] = []

    async def ask(self, kind: str, action: str, reason: str | None = None) -> Any:
        self.asked.append((kind, action, reason))
        return self.answers.pop(0)


async def test_allow_still_asks_when_there_is_a_reason():
    asker = Recorder("allow")
    approvals = Approvals({"bash": "allow"}, asker)
    await approvals.require("bash", "run `ls`")
    await approvals.require("bash", "run `$x ls`", must_ask_reason=WHY)
    assert asker.asked == [("bash", "run `$x ls`", WHY)]


async def test_declining_says_why_it_was_asked():
    approvals = Approvals({"bash": "allow"}, Recorder("deny"))
    with pytest.raises(ToolError) as caught:
        await approvals.require("bash", "run `$x ls`", must_ask_reason=WHY)
    assert (
        str(caught.value) == f"the user declined to let the agent run `$x ls` (asked because {WHY})"
    )


async def test_allow_for_the_session_neither_covers_nor_is_granted_by_a_guard_question():
    asker = Recorder("allow_session", "allow_session", "deny")
    approvals = Approvals({"bash": "ask"}, asker)
    await approvals.require("bash", "run `$x ls`", must_ask_reason=WHY)  # counts as "allow"
    assert approvals.allowed_for_session == set()
    await approvals.require("bash", "run `make`")
    assert approvals.allowed_for_session == {"bash"}
    await approvals.require("bash", "run `make test`")  # not asked
    with pytest.raises(ToolError):
        await approvals.require("bash", "run `$y`", must_ask_reason=WHY)
    assert [action for _, action, _ in asker.asked] == ["run `$x ls`", "run `make`", "run `$y`"]


async def test_deny_denies_without_asking():
    asker = Recorder()
    approvals = Approvals({"bash": "deny"}, asker)
    with pytest.raises(ToolError, match=r"denies running commands \(bash: deny\)"):
        await approvals.require("bash", "run `$x ls`", must_ask_reason=WHY)
    assert asker.asked == []


async def test_no_one_to_ask_refuses_with_the_reason():
    approvals = Approvals({"bash": "allow"}, None)
    with pytest.raises(ToolError) as caught:
        await approvals.require("bash", "run `$x ls`", must_ask_reason=WHY)
    assert str(caught.value) == (
        f"running commands needs the user's approval (asked because {WHY}), "
        "and there is no one to ask"
    )


async def test_the_editor_question_names_the_reason_and_offers_no_session_answer():
    from lsprotocol import types

    from workspace_agent.lsp.documents import EditorAsker

    class Server:
        def __init__(self) -> None:
            self.sent: list[types.ShowMessageRequestParams] = []

        async def window_show_message_request_async(self, params: Any) -> Any:
            self.sent.append(params)
            return types.MessageActionItem(title="Allow")

    server = Server()
    asker = EditorAsker(server)  # type: ignore[arg-type]
    assert await asker.ask("bash", "run `$x ls`", WHY) == "allow"
    assert await asker.ask("bash", "run `ls`") == "allow"
    first, second = server.sent
    assert first.message == f"Workspace Agent wants to run `$x ls`. Asked because {WHY}."
    assert [a.title for a in first.actions or []] == ["Allow", "Deny"]
    assert second.message == "Workspace Agent wants to run `ls`."
    assert [a.title for a in second.actions or []] == ["Allow", "Allow for this session", "Deny"]


async def test_an_error_reply_to_an_approval_request_is_a_denial():
    """workspaceAgent/approval answered with an error (the view is gone) denies."""
    from types import SimpleNamespace

    from pygls.exceptions import JsonRpcInternalError

    from workspace_agent.guard.approvals import Question, Reply
    from workspace_agent.lsp.documents import EditorAsker

    sent: list[tuple[str, Any]] = []

    async def failing(method: str, params: Any, msg_id: Any = None) -> Any:
        sent.append((method, params))
        raise JsonRpcInternalError("the view is gone")

    server = SimpleNamespace(
        client_capabilities=SimpleNamespace(experimental={"workspaceAgent": {"approvals": True}}),
        protocol=SimpleNamespace(send_request_async=failing),
    )
    asker = EditorAsker(server)  # type: ignore[arg-type]
    question = Question(
        "bash", "run `ls`", "Workspace Agent wants to run `ls`.", tool_use_id="toolu_1"
    )
    assert await asker.ask_in_detail(question) == Reply("deny")
    assert [method for method, _ in sent] == ["workspaceAgent/approval"]
