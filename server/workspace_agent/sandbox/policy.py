"""What a sandboxed command may touch, and that policy as a bubblewrap argument list.

Writes are an allow-list (the workspace and the session's temp dir, which is the jail's
/tmp; in plan mode, `read_only`, the temp dir alone), reads a deny-list (everything but
the masked credential locations). Inside the workspace some paths stay read-only
because something outside the sandbox would later execute what a command put there:
git (hooks, `core.hooksPath`: the whole `.git`, so `mv .git .g && mkdir -p .git/hooks`
fails too, and the target of a `gitdir:` file), the agent's own folder, editor and MCP
configs, shell rc files.

bwrap needs a mount point for each of those, so only existing ones are bound read-only.
A protected path that does not exist yet (no `.vscode/` in the workspace) cannot get one
without bwrap creating it on the host for every command (an empty folder the editor would
see, and a changed workspace folder that defeats the checkpoints' quick look), so it is
watched instead: if the command created it, `Missing.take_back` moves it out of the
workspace into the session's temp dir once the command is over, before anything outside
the sandbox can use it, and the command's result says so.

Symlinks are resolved before masking or protecting: a mask on a link would hide the link,
not what it points to. Masks apply only to paths that exist (nothing else to hide).

Hardening flags, each for a reason (see ../../../docs/ and the design note): no
capabilities also when the agent runs as root (else `mount -o remount,rw /` writes the
host), a user namespace without nested user namespaces (`unshare -r` fails), a fresh pid
namespace and /proc (else `/proc/$PPID/environ` shows the agent's API key) in which the
command itself is pid 1 (`--as-pid-1`: bwrap's own init would be a process without the
seccomp filter that the command could ptrace, or write through /proc/1/mem, into opening
host sockets), a new session
(no TIOCSTI into the terminal), a network of its own (a private loopback, where the
agent's proxy listens: network.py), its own IPC and UTS,
and a /sys that shows only the CPU topology (the host's network devices stay unseen).
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from ..config import SECRET_LOCATIONS, expand_folder, writable_path_problem

PROTECTED_DIRS = (
    ".git",
    ".workspace-agent",
    ".claude",
    ".agents",
    ".vscode",
    ".cursor",
    ".zed",
    ".idea",
)
"""Folders in the workspace that stay read-only inside the sandbox: what git, editors and
the agent read on their own later (hooks, saved commands, skills, agent definitions)."""
PROTECTED_FILES = (".mcp.json",)
"""Files in the workspace that stay read-only inside the sandbox."""
RC_FILES = (
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".bash_logout",
    ".profile",
    ".zshrc",
    ".zshenv",
    ".zprofile",
    ".zlogin",
)
"""Shell rc files, read-only where they exist in the workspace (a missing one gets a
stand-in only when the workspace is the home folder: elsewhere no shell reads them)."""
VENV_FILES = (
    "pyvenv.cfg",
    "bin/activate",
    "bin/activate.csh",
    "bin/activate.fish",
    "bin/activate.nu",
    "bin/Activate.ps1",
    "bin/activate_this.py",
)
"""In a virtual environment of the workspace (a folder with `pyvenv.cfg` at the root or one
level down): what the editor runs by itself, read-only inside. A new terminal sources
`bin/activate`; `pyvenv.cfg` names the interpreter the Python extension starts. `pip
install` writes neither, so it keeps working there (docs/host-execution.md)."""
VENV_INTERPRETERS = ("python", "python3")
"""bin/python, bin/python3 and bin/python3.N: kept as they are (bwrap cannot bind a
symlink, so a link is put back after the command, and a copied interpreter is bound)."""
DEFAULT_MASKS = (
    *SECRET_LOCATIONS,
    "$XDG_RUNTIME_DIR",
    "/run/user",
    "/var/run/docker.sock",
    "/run/docker.sock",
)
"""Credential locations a sandboxed command cannot read (setting sandbox.maskedPaths adds
to them)."""
TMP = "/tmp"
CACHE_VARIABLES = {
    "XDG_CACHE_HOME": ".cache",
    "npm_config_cache": ".cache/npm",
    "YARN_CACHE_FOLDER": ".cache/yarn",
    "PIP_CACHE_DIR": ".cache/pip",
    "UV_CACHE_DIR": ".cache/uv",
    "GOCACHE": ".cache/go-build",
    "GOMODCACHE": ".cache/go-mod",
    "CARGO_HOME": ".cargo",
}
"""Package manager caches, redirected into the session temp dir (their usual places are
outside the workspace, so a sandboxed install would fail on them)."""


@dataclass(frozen=True)
class SandboxPolicy:
    workspace: Path
    """Absolute and resolved: writable, but for the protected paths in it."""
    temp_dir: Path
    """The session's temp dir on the host, which is /tmp and TMPDIR inside."""
    home: str
    masks: tuple[str, ...] = DEFAULT_MASKS
    """As written in settings: `~`, `$VAR` expanded when the argv is built."""
    extra_masks: tuple[str, ...] = field(default=())
    extra_writable: tuple[Path, ...] = field(default=())
    """Folders outside the workspace the user let this command write (resolved)."""
    read_only: bool = False
    """Plan mode: the whole workspace is read-only inside (bound `--ro-bind`, which holds
    for root too: the jail has no capabilities to remount it), /tmp stays writable."""

    def masked_paths(self) -> list[Path]:
        """The existing paths to hide, resolved, outside the writable roots' reach of
        being the workspace itself."""
        found: list[Path] = []
        for raw in (*self.masks, *self.extra_masks):
            path = _expand(raw, self.home)
            if path is None or not os.path.lexists(path):
                continue
            real = Path(os.path.realpath(path))
            if _within(self.workspace, real) or real == Path("/"):
                continue  # masking the workspace (or everything) is not a policy
            if os.path.exists(real) and real not in found:
                found.append(real)
        return found

    def protected_paths(self) -> list[tuple[Path, bool]]:
        """(path, is_dir) of the read-only paths inside the writable workspace (and any
        extra writable folder), resolved; the `gitdir:` target of a `.git` file too."""
        paths: list[tuple[Path, bool]] = []
        for root in (self.workspace, *self.extra_writable):
            paths += self._protected_in(root)
        return paths

    def _protected_in(self, root: Path) -> list[tuple[Path, bool]]:
        paths: list[tuple[Path, bool]] = []
        is_home = root == Path(os.path.realpath(self.home))
        for name, is_dir in (
            *((n, True) for n in PROTECTED_DIRS),
            *((n, False) for n in (*PROTECTED_FILES, *RC_FILES)),
        ):
            path = root / name
            real = Path(os.path.realpath(path))
            if name in RC_FILES and not is_home and not os.path.lexists(path):
                continue
            if name == ".git" and real.is_file():
                paths.append((real, False))
                target = _gitdir(real)
                if target is not None:
                    paths.append((target, True))
                continue
            if os.path.exists(real):
                paths.append((real, real.is_dir()))
            elif self.writable(real):
                paths.append((real, is_dir))
        return paths

    def venv_guards(self) -> tuple[list[Path], dict[Path, str]]:
        """The workspace's virtual environments' activation files and interpreters:
        (existing files to bind read-only, symlinks with their targets to keep)."""
        files: list[Path] = []
        links: dict[Path, str] = {}
        for venv in workspace_venvs(self.workspace):
            files += [venv / name for name in VENV_FILES if (venv / name).is_file()]
            for interpreter in _interpreters(venv / "bin"):
                if interpreter.is_symlink():
                    links[interpreter] = os.readlink(interpreter)
                elif interpreter.is_file():
                    files.append(interpreter)
        return [path for path in files if not path.is_symlink()], links

    def writable(self, path: Path) -> bool:
        roots = (
            *(() if self.read_only else (self.workspace,)),
            self.temp_dir,
            *self.extra_writable,
        )
        return any(_within(root, path) for root in roots)

    def own_environment(self) -> tuple[Path, ...]:
        """The folders of the agent's own Python that a command could otherwise write
        (its venv in the workspace, a checkout it imports from): read-only inside, since
        the agent runs what they hold on the host at its next start (a `.pth` line, a
        changed module). A folder holding the whole workspace cannot be one: the server
        drops such a sys.path entry at start (cli/main.py)."""
        return _own_environment(
            agent_environment(), self.workspace, (self.temp_dir, *self.extra_writable)
        )


def workspace_venvs(root: Path) -> list[Path]:
    """The virtual environments at the workspace's root or one level down."""
    found = [root] if (root / "pyvenv.cfg").is_file() else []
    try:
        with os.scandir(root) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False) and os.path.isfile(
                    os.path.join(entry.path, "pyvenv.cfg")
                ):
                    found.append(Path(entry.path))
    except OSError:
        pass
    return found


def _interpreters(bin_dir: Path) -> list[Path]:
    try:
        names = os.listdir(bin_dir)
    except OSError:
        return []
    return [
        bin_dir / name
        for name in sorted(names)
        if name in VENV_INTERPRETERS or (name.startswith("python3.") and name[8:].isdigit())
    ]


@dataclass
class Missing:
    """Protected paths that did not exist when the command started, and protected symlinks
    (bwrap binds no symlink) with their targets then."""

    paths: list[Path] = field(default_factory=list)
    links: dict[Path, str] = field(default_factory=dict)

    def take_back(self, temp_dir: Path) -> list[str]:
        """Move what the command created there into `temp_dir`/blocked, and put back a
        link it changed; one clause each."""
        taken = []
        for path in self.paths:
            if not os.path.lexists(path):
                continue
            moved = _move_aside(path, temp_dir)
            if moved:
                taken.append(f"{path.name} was created and moved to {moved}")
        for path, target in self.links.items():
            if os.path.islink(path) and os.readlink(path) == target:
                continue
            moved = _move_aside(path, temp_dir) if os.path.lexists(path) else "nowhere"
            try:
                os.symlink(target, path)
            except OSError:
                continue
            taken.append(f"{path.name} was changed (moved to {moved}) and put back")
        return taken


def _move_aside(path: Path, temp_dir: Path) -> str | None:
    """`path` moved into the session's `blocked` folder: where it is now, as seen inside."""
    target = temp_dir / "blocked" / f"{path.name}-{time.time_ns()}"
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        shutil.move(str(path), str(target))
    except OSError:
        return None
    return f"{TMP}/blocked/{target.name}"


def bwrap_argv(
    bwrap: str,
    policy: SandboxPolicy,
    command: Iterable[str],
    cwd: Path,
    empty_dir: Path,
    empty_file: Path,
    seccomp_fd: int | None,
    missing: Missing | None = None,
    extra: Sequence[str] = (),
) -> list[str]:
    """The bwrap command line that runs `command` under `policy`. `empty_dir` and
    `empty_file` (empty, read-only) stand in for hidden folders and files."""
    argv = [bwrap, *hardening(), "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    argv += _sys_view()
    argv += ["--bind", str(policy.temp_dir), TMP]
    for path in programs_under_tmp():
        argv += ["--ro-bind", str(path), str(path)]
    workspace_bind = "--ro-bind" if policy.read_only else "--bind"
    argv += [workspace_bind, str(policy.workspace), str(policy.workspace)]
    for path in policy.extra_writable:
        argv += ["--bind", str(path), str(path)]
    for path, _ in policy.protected_paths():
        if os.path.exists(path):
            argv += ["--ro-bind", str(path), str(path)]
        elif missing is not None:
            missing.paths.append(path)
    for path in policy.own_environment():
        argv += ["--ro-bind", str(path), str(path)]
    files, links = policy.venv_guards()
    for path in files:
        argv += ["--ro-bind", str(path), str(path)]
    if missing is not None:
        missing.links.update(links)
    for path in policy.masked_paths():
        argv += ["--ro-bind", str(empty_dir if path.is_dir() else empty_file), str(path)]
    if seccomp_fd is not None:
        argv += ["--seccomp", str(seccomp_fd)]
    argv += [*extra, "--chdir", str(cwd), "--", *command]
    return argv


def agent_environment() -> tuple[Path, ...]:
    """Where the running agent's Python comes from, resolved: its prefixes, the
    interpreter's folder (and the one it links to), the `workspace-agent` script's folder
    and every sys.path entry. Resolved once per value of those (0.8 ms of stat calls)."""
    script = sys.argv[0] if sys.argv else ""
    return _resolved_environment(
        (sys.prefix, sys.exec_prefix, sys.base_prefix, sys.executable, *sys.path), script
    )


@lru_cache(maxsize=8)
def _resolved_environment(folders: tuple[str, ...], script: str) -> tuple[Path, ...]:
    prefix, exec_prefix, base_prefix, executable, *path = folders
    script = os.path.realpath(script) if script else ""
    candidates = (
        prefix,
        exec_prefix,
        base_prefix,
        os.path.dirname(executable),
        os.path.dirname(os.path.realpath(executable)),
        os.path.dirname(script) if os.path.isfile(script) else "",
        *path,
    )
    return tuple(Path(os.path.realpath(raw)) for raw in candidates if raw)


@lru_cache(maxsize=32)
def _own_environment(
    environment: tuple[Path, ...], workspace: Path, writable: tuple[Path, ...]
) -> tuple[Path, ...]:
    return tuple(
        _outermost(
            path
            for path in environment
            if any(_within(root, path) for root in (workspace, *writable))
            and not _within(path, workspace)
        )
    )


def _outermost(paths: Iterable[Path]) -> list[Path]:
    """The existing folders among `paths`, without those inside another one."""
    found: list[Path] = []
    for real in paths:
        if not real.is_dir() or any(_within(kept, real) for kept in found):
            continue
        found = [kept for kept in found if not _within(real, kept)] + [real]
    return found


def programs_under_tmp() -> list[Path]:
    """The host folders under /tmp that hold the programs commands run: the agent's own
    Python (its prefix, its venv and the folders it imports from, as for a checkout or an
    install under /tmp) and the folders on PATH. Inside,
    /tmp is the session's temp dir, which would hide them (reads are allowed everywhere
    else); they come back read-only, at the same paths."""
    tmp = Path(os.path.realpath(TMP))
    on_path = os.environ.get("PATH", "").split(os.pathsep)
    candidates = [*agent_environment(), *(Path(os.path.realpath(p)) for p in on_path if p)]
    return _outermost(path for path in candidates if path != tmp and _within(tmp, path))


def hardening() -> list[str]:
    """The namespace and privilege flags (shared with the availability probe, so the probe
    tries exactly what commands will need)."""
    return [
        "--die-with-parent",
        "--new-session",
        "--cap-drop",
        "ALL",
        "--unshare-user",
        "--disable-userns",
        "--unshare-pid",
        "--as-pid-1",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-net",
    ]


def _sys_view() -> list[str]:
    cpu = "/sys/devices/system/cpu"
    argv = ["--tmpfs", "/sys"]
    if os.path.isdir(cpu):  # os.cpu_count(), nproc and thread pools read it
        argv += ["--ro-bind", cpu, cpu]
    return [*argv, "--remount-ro", "/sys"]


REAL_CACHES = ("~/.cache", "~/.npm", "~/.cargo", "~/go")
"""The usual package manager caches, writable when the user allows the real ones."""


def sandbox_env(env: dict[str, str], real_caches: bool = False, tmp: str = TMP) -> dict[str, str]:
    """The command environment inside: temp files in the session temp dir (which is /tmp
    in a bwrap jail; `tmp` is its own path where there is no mount namespace), and so are
    the package caches unless the user allows the real ones."""
    inside = dict(env)
    inside["TMPDIR"] = tmp
    if not real_caches:
        for name, sub in CACHE_VARIABLES.items():
            inside[name] = f"{tmp}/{sub}"
    return inside


def real_cache_dirs(home: str) -> tuple[Path, ...]:
    """The existing usual caches of `home`, resolved."""
    found = []
    for raw in REAL_CACHES:
        path = _expand(raw, home)
        if path is not None and path.is_dir():
            found.append(Path(os.path.realpath(path)))
    return tuple(found)


def setting_folders(raw: Iterable[str], home: str) -> tuple[Path, ...]:
    """The folders of the sandbox.writablePaths setting that exist, resolved; one whose
    real path the setting would refuse (a link into ~/.ssh) is left out, like a missing one
    (bwrap can only bind what exists)."""
    found: list[Path] = []
    for text in raw:
        path = expand_folder(text, home)
        if path is None or not path.is_dir():
            continue
        real = Path(os.path.realpath(path))
        if writable_path_problem(real, home) is None and real not in found:
            found.append(real)
    return tuple(found)


def offered_folder(target: Path, home: str) -> Path | None:
    """The folder "Allow this folder…" offers for a blocked write to `target`: `target`
    itself when it is a folder, else the nearest existing folder above it, when the
    setting accepts it (never the home folder, `/`, nor near credentials)."""
    folder = target
    while not folder.is_dir():
        if folder.parent == folder:
            return None
        folder = folder.parent
    real = Path(os.path.realpath(folder))
    if writable_path_problem(folder, home) or writable_path_problem(real, home):
        return None
    return folder


def _expand(raw: str, home: str) -> Path | None:
    text = raw.strip()
    if text == "~" or text.startswith("~/"):
        text = home + text[1:]
    text = os.path.expandvars(text)
    if "$" in text or not text.startswith("/"):
        return None  # an unset variable ($XDG_RUNTIME_DIR outside a desktop session)
    return Path(os.path.normpath(text))


def _gitdir(dot_git_file: Path) -> Path | None:
    try:
        first = dot_git_file.read_text(encoding="utf-8", errors="replace").splitlines()[0]
    except (OSError, IndexError):
        return None
    if not first.startswith("gitdir:"):
        return None
    target = Path(first.removeprefix("gitdir:").strip())
    if not target.is_absolute():
        target = dot_git_file.parent / target
    real = Path(os.path.realpath(target))
    return real if real.is_dir() else None


def _within(root: Path, path: Path) -> bool:
    return path == root or root in path.parents
