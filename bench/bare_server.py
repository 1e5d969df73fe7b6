"""Row 1's baseline: the barest pygls language server, which only answers `initialize`
(pygls answers it by itself). Run: `python -m bench.bare_server` (LSP on stdio)."""

from pygls.lsp.server import LanguageServer


def main() -> None:
    LanguageServer("bare-server", "0").start_io()


if __name__ == "__main__":
    main()
