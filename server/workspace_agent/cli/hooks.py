"""`workspace-agent hooks`: the hooks in force for a workspace, where each comes from,
where it runs and whether it is trusted; `workspace-agent hooks trust [N...]` trusts the
workspace's hooks (all waiting, or those numbered) as they are now, which a headless run
never does by itself."""

from __future__ import annotations

from pathlib import Path

from ..config import user_config_dir


def list_hooks(root: Path) -> int:
    from ..hooks.listing import in_force

    listed, problems = in_force(root, user_config_dir())
    if not listed:
        print("No hooks: none in ~/.claude/settings.json, the user's settings.json, or the")
        print("workspace's .claude/settings.json, .claude/settings.local.json and")
        print(".workspace-agent/settings.json.")
    for item in listed:
        hook = item.hook
        matcher = f" [{hook.matcher}]" if hook.matcher else ""
        trust = "" if item.trust == "needs none" else f", {item.trust}"
        print(f"{item.number:>3}  {hook.event}{matcher}: {hook.command}")
        print(f"     from {hook.origin}; runs {item.runs}{trust}")
    for problem in problems:
        print(f"  ! {problem}")
    if any(item.trust == "not trusted yet" for item in listed):
        print(f"Trust them with: workspace-agent hooks trust --workspace {root} [NUMBER...]")
    return 1 if problems else 0


def trust_hooks(root: Path, numbers: list[int]) -> int:
    from ..hooks.listing import trust

    try:
        trusted = trust(root, user_config_dir(), numbers)
    except ValueError as exc:
        print(f"workspace-agent: {exc}")
        return 2
    if not trusted:
        print("Nothing to trust: every hook listed is trusted or needs no trust.")
    for item in trusted:
        print(f"trusted {item.number}: {item.found.describe()}")
    return 0
