"""Code intelligence as tools: `code_intel` (definition, references, hover, symbols, calls)
and `rename_symbol`, answered by the editor or by language servers the user configured
(shared/code_intel.py). Offered only where one of them can answer: without, the requests
carry no byte of them and nothing here is imported.
"""
