"""Session modes over ACP: `ask` (today's default: the agent works on the task, asking as
the approvals settings say) and `plan` (plan mode: it looks, does not touch, and ends with
a plan the user runs or sends back).

Offered both ways ACP has: as the config option `mode` (category `mode`, a select), which
clients are to prefer, and as the stable `modes` field (SessionModeState) for clients that
know only that. Either setter switches it (`session/set_config_option`,
`session/set_mode`); every change, whoever made it (a setter, or the agent when the user
runs a plan), is reported both ways (`current_mode_update` and `config_option_update`), so
a client showing either one stays right. The mode lives in this process: a session loaded
by a new agent process starts in `ask`.
"""

from __future__ import annotations

from collections.abc import Callable

from acp import RequestError
from acp.schema import (
    ConfigOptionUpdate,
    CurrentModeUpdate,
    SessionConfigOptionSelect,
    SessionConfigSelectOption,
    SessionMode,
    SessionModeState,
)

from ..protocol import RunMode
from .updates import AcpUpdates

CONFIG_ID = "mode"
ASK = "ask"
PLAN = "plan"
MODES = (
    SessionMode(
        id=ASK,
        name="Ask",
        description="Work on the task: change files and run commands, asking as the "
        "approvals settings say",
    ),
    SessionMode(
        id=PLAN,
        name="Plan",
        description="Look without touching anything, then propose a plan to run or revise",
    ),
)
RUN_MODES: dict[str, RunMode] = {ASK: "act", PLAN: "plan"}
INVALID_PARAMS = -32602


class SessionModes:
    """The current mode of each session of the connection (absent: ask)."""

    def __init__(
        self,
        updates: AcpUpdates,
        other_options: Callable[[str], list[SessionConfigOptionSelect]] = lambda _id: [],
    ) -> None:
        self._updates = updates
        self._current: dict[str, str] = {}
        self._other_options = other_options
        """The session's other config options (model_options.py): an update carries all."""

    def current(self, session_id: str) -> str:
        return self._current.get(session_id, ASK)

    def run_mode(self, session_id: str) -> RunMode:
        """The mode a prompt of the session runs in (a `/plan ` prompt plans in either)."""
        return RUN_MODES[self.current(session_id)]

    def state(self, session_id: str) -> SessionModeState:
        return SessionModeState(current_mode_id=self.current(session_id), available_modes=[*MODES])

    def options(self, session_id: str) -> list[SessionConfigOptionSelect]:
        return [
            SessionConfigOptionSelect(
                id=CONFIG_ID,
                name="Mode",
                description="Plan first, or work on the task right away",
                category="mode",
                type="select",
                current_value=self.current(session_id),
                options=[
                    SessionConfigSelectOption(value=m.id, name=m.name, description=m.description)
                    for m in MODES
                ],
            )
        ]

    def all_options(self, session_id: str) -> list[SessionConfigOptionSelect]:
        """Every config option of the session: `mode`, then the others."""
        return [*self.options(session_id), *self._other_options(session_id)]

    def set_option(self, session_id: str, config_id: str, value: str | bool) -> None:
        """`session/set_config_option` for `mode`: takes a mode's id."""
        if not isinstance(value, str):
            raise RequestError(INVALID_PARAMS, f"the mode is a select: one of {_ids()}")
        self.set(session_id, value)

    def set(self, session_id: str, mode_id: str) -> None:
        """Switch the session's mode (RequestError for one that does not exist) and report
        the change; setting the current mode again reports nothing."""
        if mode_id not in RUN_MODES:
            raise RequestError(
                INVALID_PARAMS, f"there is no mode {mode_id!r}: the modes are {_ids()}"
            )
        if mode_id == self.current(session_id):
            return
        self._current[session_id] = mode_id
        self._updates.send(
            session_id,
            CurrentModeUpdate(session_update="current_mode_update", current_mode_id=mode_id),
        )
        self.report_options(session_id)

    def report_options(self, session_id: str) -> None:
        """`config_option_update` with every option of the session, as they are now."""
        self._updates.send(
            session_id,
            ConfigOptionUpdate(
                session_update="config_option_update",
                config_options=[*self.all_options(session_id)],
            ),
        )


def _ids() -> str:
    return ", ".join(m.id for m in MODES)
