"""Notice when the client's process (`initialize.processId`) is gone.

The LSP rule for a server left behind by a crashed editor: when the process that started
it ends, the server exits. On Linux a pidfd becomes readable when the process exits: an
event, with no polling and no chance of mistaking a newer process that got the same pid.
Where there is no pidfd the pid is checked every 3 s with kill(pid, 0), which is all
vscode-languageserver-node does.

A pid that is not visible here at all is not watched. That is the server running in a
container while the editor runs outside (another pid namespace): servers that treat it as
"gone" exit seconds after every start (vscode-languageserver-node#857, fixed that way in
Deno's server). Such a server still ends when its stdin closes.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Callable

log = logging.getLogger(__name__)

POLL_SECONDS = 3.0
"""How often the pid is checked where there is no pidfd (vscode-languageserver-node: 3 s)."""


def is_visible(pid: int) -> bool:
    """Whether a process with this pid exists here (EPERM: it does, it is not ours)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class ProcessWatch:
    """Calls `on_gone` once, on the event loop, when process `pid` has ended."""

    def __init__(
        self, pid: int, on_gone: Callable[[], object], poll_seconds: float = POLL_SECONDS
    ) -> None:
        self.pid = pid
        self._on_gone = on_gone
        self._poll_seconds = poll_seconds
        self._loop = asyncio.get_running_loop()
        self._pidfd: int | None = None
        self._timer: asyncio.TimerHandle | None = None

    @classmethod
    def start(
        cls, pid: int, on_gone: Callable[[], object], poll_seconds: float = POLL_SECONDS
    ) -> ProcessWatch | None:
        """Watch `pid`; None when it is not visible from here (see the module's note)."""
        watch = cls(pid, on_gone, poll_seconds)
        pidfd_open = getattr(os, "pidfd_open", None)
        try:
            if pidfd_open is None:
                raise OSError("no pidfd on this system")
            watch._pidfd = pidfd_open(pid)
        except ProcessLookupError:
            return None
        except OSError as exc:  # not Linux, a kernel before 5.3, or a sandbox that says no
            if not is_visible(pid):
                return None
            log.debug("checking client process %d every %gs (%s)", pid, poll_seconds, exc)
            watch._timer = watch._loop.call_later(poll_seconds, watch._check)
            return watch
        watch._loop.add_reader(watch._pidfd, watch._exited)
        return watch

    def close(self) -> None:
        if self._pidfd is not None:
            self._loop.remove_reader(self._pidfd)
            with contextlib.suppress(OSError):
                os.close(self._pidfd)
            self._pidfd = None
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _exited(self) -> None:
        self.close()
        self._on_gone()

    def _check(self) -> None:
        if is_visible(self.pid):
            self._timer = self._loop.call_later(self._poll_seconds, self._check)
        else:
            self._exited()
