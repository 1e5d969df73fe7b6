"""Confining the `bash` tool at the operating-system level.

The file tools cannot leave the workspace (`safe_path`); commands are confined the same
way by the kernel: on Linux a bubblewrap (bwrap) jail that can write only the workspace
and a per-session temp dir, cannot read the credential locations, reaches the network
only through a proxy that asks the user about each host, has no
capabilities, no host Unix sockets and sees only its own processes (see policy.py).

The modules, one concern each: `backend` (the one place that chooses the mechanism,
bubblewrap on Linux and Seatbelt on macOS as peers, and whether a command is confined),
`policy` (what is writable, read-only, masked: the bwrap argument list), `probe` (can
bwrap start here, and if not why, with the fix), `seccomp` (the filter refusing
`socket(AF_UNIX)`), `launch` (a bwrap command's argv, environment and fds, and the
per-session state behind them), `widen` (what a command asks beyond the walls, and the
question naming it), `network`, `netns` and `proxy` (a command's network: the proxy's
socket made inside the jail's namespace, served outside, asking about each host),
`blocked` (which wall a failed command ran into), `status` (the state front ends show),
`seatbelt` (the same policy as a macOS profile).

Nothing here is imported until the first command runs (tools/bash.py imports `backend`
lazily): a session that never runs a command pays nothing for it.
"""
