"""Plain words for the HTTP statuses the Messages API documents, so an error says what
happened and what to do, not only a number: a 529 is Anthropic's load, not the user's
setup; a 413 is too much attached; a 429 is the account's limit. The API's own words
follow, without a colon, so the editor's card keeps the sentence as its headline. Used
by model.describe_api_error for every front end (the editor's card, the CLI, ACP)."""

from __future__ import annotations

STATUS_WORDS: dict[int, str] = {
    400: "the model API ({where}) refused the request as invalid (400). If it "
    "names a setting (model, maxTokens, thinking), change that setting; else Retry",
    401: "the model API ({where}) rejected the API key (401). Set the API key "
    "again (ANTHROPIC_API_KEY, or Set API Key in the editor), then Retry",
    402: "the model API ({where}) refused the request for billing (402). Check "
    "the account's plan and credit in the Anthropic Console, then Retry",
    403: "the model API ({where}) says this API key may not do that (403). Use a "
    "key with access to the model, or another model, then Retry",
    404: "the model API ({where}) does not know what was asked for (404). Check "
    "the model setting (and baseUrl), then Retry",
    413: "the request is too large for the model API ({where}) (413): it takes "
    "at most 32 MB. Attach fewer or smaller images or files, or start a new session "
    "(/clear)",
    429: "the model API ({where}) is rate limiting requests (429): the account "
    "hit its rate or spend limit. Wait a minute and Retry",
    500: "the model API ({where}) had an internal error (500); this is not your "
    "setup. Retry, or try again in a minute",
    504: "the model API ({where}) timed out while answering (504); this is not "
    "your setup. Retry, or try again in a minute",
    529: "{who} is overloaded (529); this is not your setup. Retry, or try again in a minute",
}


def status_words(status: int, where: str, message: str, provider: str = "anthropic") -> str | None:
    """The sentence for a documented `status`, or None for one the API does not document."""
    words = STATUS_WORDS.get(status)
    if words is None:
        return None
    anthropic = provider == "anthropic" and where == "the Anthropic API"
    who = "Anthropic's API" if anthropic else f"the model API ({where})"
    said = words.format(where=where, who=who)
    told = message.strip().rstrip(".")
    return said[0].upper() + said[1:] + "." + (f' The API said "{told}".' if told else "")
