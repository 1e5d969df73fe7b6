import unittest

from wordstats import top_words, word_count


class WordCountTest(unittest.TestCase):
    def test_simple_sentence(self):
        self.assertEqual(word_count("the quick brown fox"), 4)

    def test_extra_whitespace(self):
        self.assertEqual(word_count("  the quick\n brown   fox "), 4)

    def test_empty(self):
        self.assertEqual(word_count(""), 0)


class TopWordsTest(unittest.TestCase):
    def test_most_common_first(self):
        self.assertEqual(top_words("b a b c b a", 2), [("b", 3), ("a", 2)])


if __name__ == "__main__":
    unittest.main()
