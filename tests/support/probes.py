"""Scripts a sandboxed command runs to probe its jail from the inside."""

from __future__ import annotations

PTRACE_PROBE = """
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
for pid in (p for p in os.listdir('/proc') if p.isdigit() and int(p) != os.getpid()):
    status = open(f'/proc/{pid}/status').read()
    mode = next(l.split()[1] for l in status.splitlines() if l.startswith('Seccomp:'))
    if mode == '0':  # a process without the filter: can the command take it over?
        result = libc.ptrace(16, int(pid), 0, 0)  # PTRACE_ATTACH
        print('unfiltered', pid, result, ctypes.get_errno())
        if result == 0:
            libc.ptrace(17, int(pid), 0, 0)  # PTRACE_DETACH
print('checked')
"""
