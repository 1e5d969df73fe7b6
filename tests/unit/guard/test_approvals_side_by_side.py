"""Questions of calls that run side by side (read-only MCP calls of one answer): one at a
time, each naming its own call; an answer "for this session" spares the waiting ones."""

from __future__ import annotations

import asyncio

from workspace_agent.guard.approvals import Approvals, Question, Reply


class OneAtATime:
    """Answers in detail, after the test lets it; notes how many questions were open."""

    def __init__(self, answer: str) -> None:
        self.answer = answer
        self.asked: list[Question] = []
        self.open = 0
        self.most_open = 0
        self.go = asyncio.Event()
        self.first = asyncio.Event()

    async def ask_in_detail(self, question: Question) -> Reply:
        self.asked.append(question)
        self.first.set()
        self.open += 1
        self.most_open = max(self.most_open, self.open)
        await self.go.wait()
        self.open -= 1
        return Reply(self.answer)  # type: ignore[arg-type]


async def call(approvals: Approvals, tool_use_id: str, tool: str) -> None:
    approvals.call = (tool_use_id, "1")  # as the loop sets it, in this call's own task
    await approvals.require("mcp:meet", f"call the tool {tool}", tool=tool)


async def test_questions_come_one_at_a_time_each_about_its_own_call():
    asker = OneAtATime("allow")
    approvals = Approvals({"mcp:meet": "ask"}, asker)
    calls = [asyncio.ensure_future(call(approvals, f"toolu_{n}", f"t{n}")) for n in range(3)]
    await asker.first.wait()
    await asyncio.sleep(0)  # the other calls reach their question (or the wait for it)
    asker.go.set()
    await asyncio.gather(*calls)

    assert asker.most_open == 1
    assert [(q.tool_use_id, q.action) for q in asker.asked] == [
        ("toolu_0", "call the tool t0"),
        ("toolu_1", "call the tool t1"),
        ("toolu_2", "call the tool t2"),
    ]


async def test_an_answer_for_the_session_spares_the_questions_waiting_behind_it():
    asker = OneAtATime("allow_session")
    approvals = Approvals({"mcp:meet": "ask"}, asker)
    calls = [asyncio.ensure_future(call(approvals, f"toolu_{n}", "look")) for n in range(3)]
    await asker.first.wait()
    await asyncio.sleep(0)  # the other calls reach their question (or the wait for it)
    asker.go.set()
    await asyncio.gather(*calls)

    assert [q.tool_use_id for q in asker.asked] == ["toolu_0"]
    assert approvals.allowed_for_session == {"mcp:meet"}
