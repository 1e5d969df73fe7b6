"""The offline demo: a small sample project and the script the scripted model replays."""
