"""The web for the model: `web_fetch` reads a page under the sandbox's network rules
(fetch.py, convert.py), `web_search` asks the Messages API's web search server tool in a
request of its own (search.py). The tools themselves are in tools/web.py; nothing here is
imported before a run offers them.
"""
