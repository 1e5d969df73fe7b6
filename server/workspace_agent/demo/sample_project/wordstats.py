"""Small text statistics."""

from collections import Counter


def word_count(text: str) -> int:
    """Number of words in `text`."""
    return len(text.split(" "))


def top_words(text: str, n: int = 3) -> list[tuple[str, int]]:
    """The `n` most frequent words, lower-cased, with their counts."""
    return Counter(word.lower() for word in text.split()).most_common(n)
