"""Benchmarks of Workspace Agent against naive baselines: `python -m bench [--quick]`."""
