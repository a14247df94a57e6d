"""The ten probing tasks of Conneau et al. (2018, §2), one pure generator each: parsed sentences -> candidates.

Each generator returns `Candidates` (labelled items and the counts of what it rejected and why); `split.py`
balances the classes and cuts the fixed train/dev/test split. All sentences have 5-28 words (the paper's range;
a word is a token that is not punctuation, `Sentence.is_word`). Deviations from the paper, which used the Stanford PCFG
parser on the Toronto Book Corpus, are stated per task:

- SentLen: 6 equal-width bins over 5-28 words (5-8, 9-12, ..., 25-28), as in the paper.
- WC: the 1,000 words of frequency ranks 2,000-2,999 (lowercased alphabetic tokens of the whole corpus; the
  middle third of the ranks when the vocabulary is smaller than 3,000 words); a sentence qualifies when it
  contains exactly one distinct word of that band, which is its label. Words with too few sentences are dropped
  (see `split.wc_classes`), so on a news corpus of 38k sentences there are fewer than 1,000 classes.
- TreeDepth: depth = number of words on the longest root-to-leaf path of the dependency tree (root = 1;
  punctuation ignored). The paper counts constituency nodes, so its depths (5-12) are larger than ours; the
  classes are the widest contiguous depth range (8 at most, as the paper's) that can still fill a 1,000-item test
  split (BBC News: depths 5-10). De-correlation from length: items come in tuples with one sentence of each depth
  class and the same length in words, so length carries no information about depth (a length-only classifier
  is right on exactly one item per tuple: accuracy 1/classes).
- TopConst: a dependency parse has no S node, so the top constituent sequence is derived from the root:
  see `top_constituents`. 19 most frequent sequences + OTHER, as in the paper.
- BShift: two adjacent words (both words, separated by a space) swapped; capitalisation follows the position
  when the first word is involved (proper nouns, "I", and open-class words the corpus never writes in lowercase
  keep their capital). Each source sentence is used once, either intact or shifted.
- Tense: the finite verb of the main clause (the root if tagged VBD/VBP/VBZ, else its first finite auxiliary:
  "has said" -> has, present); modal-headed clauses (MD) have no tense class. VBD past, VBP/VBZ present.
  Target forms never shared across splits (see `split.py`).
- SubjNum / ObjNum: the nsubj/nsubjpass (resp. dobj) of the root, a common noun tagged NN (singular) or NNS
  (plural), not coordinated. Proper nouns and pronouns are left out (their Penn tags do not mark number the same
  way), and so are nouns the corpus never writes in lowercase or that are capitalised inside the sentence (names
  tagged NNS: "Connors"). Target nouns never shared across splits, compared by lemma (company/companies count as
  one; LemmInflect).
- SOMO: a random noun or verb (NN/NNS/VB*; lowercase alphabetic; not be/have/do) is replaced by another word
  whose most frequent tag in the corpus is the same, such that both bigrams with its neighbours have corpus
  frequencies within a factor of 2 of the originals' (|log2 f' - log2 f| <= 1). Frequencies come from the
  corpus itself (the paper used its source corpus). No replacement word occurs in two splits.
- CoordInv: sentences of exactly two coordinate clauses (the root verb has one conjunct that is a verb with its
  own subject and no clausal conjunct of its own, joined by a coordinating conjunction with an optional comma,
  dash or semicolon before it, the two clauses contiguous); the inverted version puts the second clause first,
  keeps an opening quotation mark first and the final punctuation last, and moves capitalisation as BShift
  does. "Balanced in terms of clause length": items come in pairs of one intact and one inverted sentence whose
  first-minus-second clause lengths (in words, as shown) are equal, so the clause-length profile is the same in
  both classes.

Modules: this one holds the task names, the labelled `Item` / `Candidates` and what the generators share;
`tasks_syntax` has the surface and syntax generators (SentLen, WC, TreeDepth, TopConst, BShift),
`tasks_semantics` the semantic ones (Tense, SubjNum, ObjNum, SOMO, CoordInv), and `generators` maps each task
to its generator.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache

from n2o_core.evaluation.probe.parse import MAX_WORDS, MIN_WORDS, ParsedCorpus, Sentence

TASKS = ("sentlen", "wc", "treedepth", "topconst", "bshift", "tense", "subjnum", "objnum", "somo", "coordinv")
#: Display names as in the paper.
TASK_NAMES = {
    "sentlen": "SentLen",
    "wc": "WC",
    "treedepth": "TreeDepth",
    "topconst": "TopConst",
    "bshift": "BShift",
    "tense": "Tense",
    "subjnum": "SubjNum",
    "objnum": "ObjNum",
    "somo": "SOMO",
    "coordinv": "CoordInv",
}
#: Tasks whose items include sentences that are not in the corpus (generated by a change).
GENERATED_TASKS = frozenset({"bshift", "somo", "coordinv"})

VERB_TAGS = frozenset({"VB", "VBD", "VBG", "VBN", "VBP", "VBZ", "MD"})
FINITE_TAGS = {"VBD": "past", "VBP": "present", "VBZ": "present"}
NUMBER_TAGS = {"NN": "singular", "NNS": "plural"}
SUBJ_DEPS = frozenset({"nsubj", "nsubjpass", "expl", "csubj", "csubjpass"})
AUX_FORMS = frozenset(
    [
        "be",
        "is",
        "am",
        "are",
        "was",
        "were",
        "been",
        "being",
        "'s",
        "'re",
        "'m",
        "have",
        "has",
        "had",
        "having",
        "'ve",
        "'d",
        "do",
        "does",
        "did",
        "done",
        "doing",
    ]
)


@dataclass(frozen=True)
class Item:
    """One labelled sentence. `group`: lexical unit kept within one split (None: free). `unit`: items of one
    matched tuple (same length / same clause-length profile), kept together."""

    text: str
    label: str
    n_words: int
    source: int
    generated: bool = False
    group: str | None = None
    unit: int | None = None
    note: str = ""


@dataclass
class Candidates:
    """A generator's output before balancing: items, the class order, and rejections by reason."""

    items: list[Item]
    classes: list[str]
    rejected: Counter = field(default_factory=Counter)
    info: dict = field(default_factory=dict)
    matched: bool = False  # items come in tuples (`unit`), one per class


# ----------------------------------------------------------------------------------------- shared by the generators


def eligible(s: Sentence) -> bool:
    """Whether the sentence has 5-28 words (the paper's range)."""
    return MIN_WORDS <= s.n_words <= MAX_WORDS


def single_tree(s: Sentence) -> bool:
    """Eligible, and parsed as one tree (one root)."""
    return eligible(s) and len(s.roots) == 1


def sentence_pool(pc: ParsedCorpus, test: Callable[[Sentence], bool], rejected: Counter, reason: str) -> list[Sentence]:
    """The corpus sentences that pass `test`; each one that fails is counted in `rejected[reason]`."""
    out = []
    for s in pc.sentences:
        if test(s):
            out.append(s)
        else:
            rejected[reason] += 1
    return out


def first_word(s: Sentence) -> int:
    """Index of the sentence's first word (token that is not punctuation); 0 when there is none."""
    return next((i for i in range(len(s.words)) if s.is_word(i)), 0)


@lru_cache(maxsize=100_000)  # bounded: one entry per noun of the corpora probed
def noun_lemma(word: str) -> str:
    """Lemma of a lowercased noun (LemmInflect; the word itself when unknown)."""
    try:
        from lemminflect import getLemma

        got = getLemma(word, upos="NOUN")
        return got[0].lower() if got else word
    except ImportError:  # pragma: no cover - lemminflect is a requirement
        return word


def lowercase_words(pc: ParsedCorpus) -> frozenset[str]:
    """Words seen in lowercase somewhere in the parsed corpus (common words, not only names)."""
    return frozenset(w for s in pc.sentences for w in s.words if w.islower())


#: Penn tags of closed-class words: always lowercased when they leave the sentence start.
CLOSED_TAGS = frozenset(
    ["PRP", "PRP$", "DT", "PDT", "IN", "CC", "WDT", "WP", "WP$", "WRB", "EX", "MD", "TO", "RB", "RP", "UH"]
)


def decapitalize(word: str, tag: str, common: frozenset[str]) -> str:
    """A sentence-initial word moved inside the sentence: lowercased when it is a closed-class word or the
    corpus also writes it in lowercase; kept as it is otherwise (names, "I", acronyms)."""
    low = word[:1].lower() + word[1:]
    if word == "I" or tag in ("NNP", "NNPS"):
        return word
    return low if tag in CLOSED_TAGS or low in common else word


def capitalize(word: str) -> str:
    """The word with its first letter upper-cased."""
    return word[:1].upper() + word[1:]


#: Punctuation that glues the words on either side into one written word ("long-term", "and/or", "Pires'").
GLUE = frozenset("-‐–—/&'’")


def movable(s: Sentence, i: int, j: int) -> bool:
    """Whether tokens i..j (a span of whole words) can move without changing how the text around them reads:
    nothing glued to them but opening punctuation before (a quotation mark, a bracket) and closing punctuation
    after (a comma, a full stop). A clitic ("'s", "n't") or a hyphenated part is glued: moving "Slough" out of
    "Slough's" would write "Sloughconstituency 's", and a bag-of-words embedder would see the new tokens."""
    left = i == 0 or s.spaces[i - 1] or not (s.is_word(i - 1) or s.words[i - 1] in GLUE)
    right = j == len(s.words) - 1 or s.spaces[j] or not (s.is_word(j + 1) or s.words[j + 1] in GLUE)
    return left and right


def trailing_punct(s: Sentence) -> set[int]:
    """The sentence-final punctuation tokens (after the last word), wherever the parser attached them: PTB puts
    them directly below the top S."""
    out: set[int] = set()
    for i in range(len(s.words) - 1, -1, -1):
        if s.is_word(i):
            break
        out.add(i)
    return out
