"""What it means for a card's term to occur in a text: the normalisation that key points
(:mod:`deck.answers.keypoints`) and the loader's check of them share.

A term occurs in a text when, after the same normalisation of both:

- **Case** does not matter (Unicode case folding after NFKC, so full-width letters too).
- **Latin-script words** (letters and digits of any non-CJK script) match **whole words
  only**: a term never matches inside another word (``all`` is not in ``allreduce``,
  ``scatter`` is not in ``reduce-scatter``, ``rank`` is not in ``frank``). A hyphen or an
  underscore joins the parts of one compound word; any other punctuation or space separates
  words.
- **Spacing and hyphens inside a term** do not matter: ``reduce-scatter``, ``reduce scatter``
  and ``reducescatter`` are one term (the words of a stretch of text, concatenated, are
  compared with the term's words, concatenated), and a term may span several words.
- **Inflections** do not matter: each word is reduced by a small suffix stemmer (``-s``,
  ``-es``, ``-ies``, ``-ed``, ``-ied``, ``-ing``, ``-ly``, then a final ``-e``), so ``rank``,
  ``ranks`` and ``ranking`` are one word, as are ``reduce``, ``reduces``, ``reduced`` and
  ``reducing``. This is morphology, not meaning: ``ranking`` matches ``rank``; a word that
  merely contains another (``frank``, ``allreduce``) never does.
- **CJK text** (Han, kana, Hangul) has no spaces between words, so a term that contains a
  CJK character is matched as a substring of the text with spaces and punctuation removed
  (``所有`` occurs in ``结果发给所有的 GPU``).

Cost: a text of n characters is indexed once in O(n·W) (W = :data:`MAX_RUN_WORDS`), after
which each term is a set lookup; callers cap the text (``deck.base.typed.answer_text``).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

MAX_RUN_WORDS = 8  # a term spans at most this many words of the text
MAX_TERM_CHARS = 80  # a term longer than this is not a term but a sentence

_CJK = (
    "\u2e80-\u2fdf\u3040-\u30ff\u3100-\u312f\u3190-\u31ff\u3400-\u4dbf"
    "\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
)
_CJK_CHAR = re.compile(f"[{_CJK}]")
# A compound word: letters/digits (not CJK) joined by single hyphens or underscores.
_PART = f"[^\\W_{_CJK}]+"
_COMPOUND = re.compile(f"{_PART}(?:[-_\u2010\u2011]{_PART})*")
_SPLIT_PARTS = re.compile("[-_\u2010\u2011]")
_NOT_WORD = re.compile(r"[\W_]+")

# Suffixes the stemmer strips, longest first, and what replaces them.
_SUFFIXES = (("ies", "y"), ("ied", "y"), ("ing", ""), ("es", ""), ("ed", ""), ("ly", ""), ("s", ""))
_MIN_STEM = 3
_DOUBLED = re.compile(r"([b-df-hjkmnp-rtv-xz])\1$")  # not l, s: "fall", "pass"


def normalise(text: str) -> str:
    """NFKC and case folding: the form every comparison starts from."""
    return unicodedata.normalize("NFKC", text).casefold()


@functools.lru_cache(maxsize=65536)  # a collection's vocabulary is small; its backs are long
def stem(word: str) -> str:
    """``word`` (already normalised) without its inflectional suffixes and a final ``e``.

    Suffixes are stripped until none is left (``strings`` → ``string`` → ``str``, as
    ``string`` → ``str``: one stem for every form), a doubled final consonant left by
    ``-ing``/``-ed`` is undoubled (``running`` → ``run``); never shorter than three
    letters, and ``-ss`` words keep their ``s`` (``loss``).
    """
    if not word.isalpha():
        return word  # "fp16", "h100": words with digits are never inflected
    while (shorter := _strip_once(word)) is not None:  # each strip shortens: this ends
        word = shorter
    if word.endswith("e") and len(word) > _MIN_STEM:
        word = word[:-1]
    return word


def _strip_once(word: str) -> str | None:
    """``word`` without its last inflectional suffix, or None when it has none to lose."""
    for suffix, replacement in _SUFFIXES:
        if not word.endswith(suffix) or len(word) - len(suffix) + len(replacement) < _MIN_STEM:
            continue
        if suffix == "s" and word.endswith("ss"):
            return None
        word = word[: len(word) - len(suffix)] + replacement
        if suffix in ("ing", "ed") and len(word) > _MIN_STEM and _DOUBLED.search(word):
            word = word[:-1]
        return word
    return None


def is_cjk(term: str) -> bool:
    return _CJK_CHAR.search(term) is not None


def _forms(parts: list[str]) -> tuple[str, str]:
    """Two spellings of a run of word parts: every part stemmed, and only the last one
    (so that ``reduce scatter`` meets ``reducescatter``, whose inner ``reduce`` is not
    a word of its own and is not stemmed)."""
    return "".join(stem(p) for p in parts), "".join(parts[:-1]) + stem(parts[-1])


@functools.lru_cache(maxsize=8192)  # a card's terms are looked up at every answer
def term_keys(term: str) -> tuple[str, ...]:
    """The keys a Latin-script term is looked up by (empty for a term with no words)."""
    words = [_SPLIT_PARTS.split(m.group()) for m in _COMPOUND.finditer(normalise(term))]
    parts = [p for w in words for p in w]
    if not parts:
        return ()
    return tuple(dict.fromkeys(_forms(parts)))


@dataclass(frozen=True)
class IndexedText:
    """A text prepared for term lookups: the keys of its runs of whole words, and the
    compact form (no spaces or punctuation) that CJK terms are searched in. Built for a
    set of terms (``for_terms``), only those may be looked up."""

    keys: frozenset[str]
    compact: str
    for_terms: frozenset[str] | None = None

    def contains(self, term: str) -> bool:
        """Whether ``term`` occurs in the text (see the module docstring for the rules)."""
        if is_cjk(term):
            needle = _NOT_WORD.sub("", normalise(term))
            return bool(needle) and needle in self.compact
        if self.for_terms is not None and term not in self.for_terms:
            raise ValueError(f"the text was indexed for other terms than {term!r}")
        return any(k in self.keys for k in term_keys(term))

    def found(self, terms: Iterable[str]) -> list[str]:
        """The terms of ``terms`` that occur, in their order."""
        return [t for t in terms if self.contains(t)]


def _prefixes(terms: Iterable[str]) -> frozenset[str]:
    return frozenset(k[:i] for t in terms for k in term_keys(t) for i in range(1, len(k) + 1))


def index_text(text: str, terms: Iterable[str] | None = None) -> IndexedText:
    """Index ``text`` for :meth:`IndexedText.contains` (for ``terms`` only, when given).

    Every part is stemmed once, and the two spellings of each run of words (see
    :func:`_forms`) are grown word by word from each start, for at most
    :data:`MAX_RUN_WORDS` words; with ``terms``, a run stops growing as soon as neither
    spelling begins any of their keys, so a text costs about one step per word. Linear in
    the length of the text either way."""
    norm = normalise(text)
    # Per word: its parts but the last (raw), its last part, all parts stemmed, the last stemmed.
    words = []
    for m in _COMPOUND.finditer(norm):
        parts = _SPLIT_PARTS.split(m.group())
        stems = [stem(p) for p in parts]
        words.append(("".join(parts[:-1]), parts[-1], "".join(stems), stems[-1]))
    wanted = None if terms is None else frozenset(terms)
    prefixes = None if wanted is None else _prefixes(wanted)
    keys: set[str] = set()
    n = len(words)
    for start in range(n):
        raw = every_stem = ""
        for j in range(start, min(n, start + MAX_RUN_WORDS)):
            inner, last, all_stems, last_stem = words[j]
            before_last = raw + inner
            raw = before_last + last
            every_stem += all_stems
            last_stemmed = before_last + last_stem
            if len(every_stem) > MAX_TERM_CHARS and len(last_stemmed) > MAX_TERM_CHARS:
                break
            keys.add(every_stem)
            keys.add(last_stemmed)
            # Longer runs spell every_stem + … or raw + …: stop when no key starts so.
            if prefixes is not None and every_stem not in prefixes and raw not in prefixes:
                break
    if wanted is not None:
        keys &= {k for t in wanted for k in term_keys(t)}
    return IndexedText(frozenset(keys), _NOT_WORD.sub("", norm), wanted)


def term_problem(term: str) -> str | None:
    """Why ``term`` cannot be a term (no letters or digits, too long), or None."""
    if not term.strip():
        return "is empty"
    if len(term) > MAX_TERM_CHARS:
        return f"is {len(term)} characters long; a term is at most {MAX_TERM_CHARS}"
    if not is_cjk(term) and not term_keys(term):
        return f"{term!r} has no letters or digits to match"
    return None
