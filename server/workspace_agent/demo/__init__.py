"""The offline demo: a small sample project, the script the scripted model replays, and the
LSP client side (client_io.py) that the demo and the benchmarks drive the server with."""
