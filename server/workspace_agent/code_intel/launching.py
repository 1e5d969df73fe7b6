"""How a configured language server is started: in the sandbox, as bash's commands are
(it writes only the workspace and the session's temp folder; each host it reaches for is
asked about, in the run that started it). With `sandbox.mode` off it runs on the host,
found outside the folders sandboxed commands may write; where the sandbox cannot start
it is refused, saying why: a program the agent starts by itself never leaves the sandbox
unasked.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..shared.errors import ToolError
from .config import ServerSpec

if TYPE_CHECKING:
    from ..config import AgentSettings
    from ..guard.approvals import Approvals
    from ..sandbox.launch import Launch
    from .servers import Launcher


def launcher(
    root: Path, session_id: str, settings: AgentSettings, approvals: Approvals
) -> Launcher:
    async def launch(spec: ServerSpec) -> Launch:
        return await _launch(root, session_id, settings, approvals, spec)

    return launch


async def _launch(
    root: Path, session_id: str, settings: AgentSettings, approvals: Approvals, spec: ServerSpec
) -> Launch:
    from ..sandbox.backend import LaunchRequest, backend, confinement
    from ..sandbox.launch import Launch
    from ..shared import host_programs
    from ..tools.bash import command_env

    program = host_programs.find(spec.command[0])
    if program is None:
        raise ToolError(
            f"language server `{spec.name}` was not started: {spec.command[0]} was not found "
            "on PATH (outside the folders sandboxed commands may write); give its full path "
            "in lspServers"
        )
    command = [program, *spec.command[1:]]
    secrets = tuple(s for s in (settings.api_key, settings.auth_token) if s)
    env = command_env(secrets, settings.secret_env_names)
    if settings.sandbox_mode == "off":
        return Launch(command, host_programs.host_env(env))
    confined = await confinement(settings.sandbox_mode, root)
    if not confined.sandboxed:
        why = confined.reason or confined.refusal or "it is not available"
        raise ToolError(
            f"language server `{spec.name}` was not started: it runs only in the sandbox, "
            f"which cannot start here ({why}); set sandbox.mode to off to run it on your machine"
        )

    async def decide(host: str) -> Any:
        return await approvals.ask_host(host, f"language server {spec.name}")

    from ..sandbox.policy import setting_folders

    home = str(Path.home())
    request = LaunchRequest(
        root,
        session_id,
        command,
        env,
        settings.sandbox_masked_paths,
        settings.sandbox_allowed_domains,
        decide,
        setting_folders(settings.sandbox_writable_paths, home),
        settings.sandbox_real_caches,
    )
    return await backend().launch(request)
