"""The head words of a role's span, and a lemma-like key to compare words by.

Two readings of one argument (spaCy's and the tree's) often differ only in where a prepositional phrase attaches
("the judge by the car"); the noun they are about, the head, is the same. The grounding of shuffle-sr compares
the heads of a swap's arguments with the other sentence's words. Both need only tokens and Penn tags, so every
labeler gets them alike; no word list has to be downloaded (WordNet is not at hand offline).
"""

from __future__ import annotations

from .base import RoleParse, Span

NOUN_TAGS = frozenset({"NN", "NNS", "NNP", "NNPS", "PRP", "CD"})
# Tags that end the noun phrase around a head: what follows modifies it (a PP, a relative clause, a participle).
HEAD_ENDS = frozenset(
    {"IN", "TO", "WDT", "WP", "WRB", ",", ":", "-LRB-", "VBG", "VBN", "VBD", "VBZ", "VBP", "VB", "MD", "RB"}
)
CONJUNCTIONS = frozenset({"and", "or", "&", "nor"})
# "a group of people" is about the people: the head of such a phrase is the noun of its of-phrase.
QUANTITY_NOUNS = frozenset(
    {
        "group",
        "couple",
        "pair",
        "team",
        "crowd",
        "bunch",
        "number",
        "lot",
        "lots",
        "few",
        "set",
        "line",
        "herd",
        "flock",
        "pack",
        "band",
        "trio",
        "duo",
        "handful",
        "pile",
        "row",
        "dozen",
        "dozens",
        "kind",
        "type",
        "sort",
        "piece",
        "member",
        "members",
        "one",
        "some",
        "all",
        "both",
        "each",
        "several",
        "many",
        "most",
        "two",
        "three",
        "four",
        "five",
    }
)
IRREGULAR = {
    "men": "man",
    "women": "woman",
    "people": "person",
    "children": "child",
    "feet": "foot",
    "teeth": "tooth",
    "mice": "mouse",
    "geese": "goose",
    "oxen": "ox",
    "knives": "knife",
    "wives": "wife",
    "lives": "life",
    "leaves": "leaf",
    "wolves": "wolf",
    "shelves": "shelf",
    "calves": "calf",
    "halves": "half",
    "loaves": "loaf",
    "him": "he",
    "her": "she",
    "them": "they",
    "us": "we",
    "me": "i",
    "whom": "who",
    "is": "be",
    "are": "be",
    "was": "be",
    "were": "be",
    "am": "be",
    "been": "be",
    "being": "be",
    "has": "have",
    "had": "have",
    "having": "have",
    "does": "do",
    "did": "do",
    "done": "do",
    "doing": "do",
    "ran": "run",
    "rode": "ride",
    "ridden": "ride",
    "wore": "wear",
    "worn": "wear",
    "held": "hold",
    "sat": "sit",
    "threw": "throw",
    "thrown": "throw",
    "ate": "eat",
    "eaten": "eat",
    "drove": "drive",
    "driven": "drive",
    "took": "take",
    "taken": "take",
    "gave": "give",
    "given": "give",
    "made": "make",
    "caught": "catch",
    "fell": "fall",
    "fallen": "fall",
    "flew": "fly",
    "flown": "fly",
    "swam": "swim",
    "sang": "sing",
    "sung": "sing",
    "drank": "drink",
    "drunk": "drink",
    "wrote": "write",
    "written": "write",
    "bought": "buy",
    "brought": "bring",
    "built": "build",
    "led": "lead",
    "spoke": "speak",
    "spoken": "speak",
    "stood": "stand",
    "won": "win",
    "saw": "see",
    "seen": "see",
    "went": "go",
    "gone": "go",
    "came": "come",
    "got": "get",
    "gotten": "get",
    "kept": "keep",
    "left": "leave",
    "met": "meet",
    "paid": "pay",
    "put": "put",
    "said": "say",
    "sold": "sell",
    "sent": "send",
    "shot": "shoot",
    "showed": "show",
    "shown": "show",
    "slept": "sleep",
    "spent": "spend",
    "struck": "strike",
    "swept": "sweep",
    "taught": "teach",
    "told": "tell",
    "thought": "think",
    "woke": "wake",
    "found": "find",
    "fed": "feed",
    "fought": "fight",
    "dug": "dig",
    "drew": "draw",
    "drawn": "draw",
    "blew": "blow",
    "blown": "blow",
    "broke": "break",
    "broken": "break",
    "chose": "choose",
    "hung": "hang",
    "hid": "hide",
    "hidden": "hide",
    "lit": "light",
    "lay": "lie",
    "laid": "lay",
    "began": "begin",
    "begun": "begin",
    "bit": "bite",
    "bitten": "bite",
    "climbed": "climb",
    "knew": "know",
    "known": "know",
    "heard": "hear",
    "lost": "lose",
    "shook": "shake",
    "shaken": "shake",
    "stole": "steal",
    "stolen": "steal",
    "tore": "tear",
    "torn": "tear",
    "wound": "wind",
    "grew": "grow",
    "grown": "grow",
    "hit": "hit",
    "cut": "cut",
    "set": "set",
    "read": "read",
    "let": "let",
    "spun": "spin",
    "swung": "swing",
    "stuck": "stick",
    "sped": "speed",
    "bent": "bend",
    "dealt": "deal",
    "felt": "feel",
    "meant": "mean",
    "rang": "ring",
    "rung": "ring",
    "sank": "sink",
    "slid": "slide",
    "sprang": "spring",
    "stung": "sting",
}
NO_STRIP = frozenset(
    {
        "bus",
        "gas",
        "glass",
        "grass",
        "dress",
        "class",
        "news",
        "series",
        "species",
        "pants",
        "jeans",
        "shorts",
        "glasses",
        "clothes",
        "this",
        "his",
        "its",
        "yes",
        "as",
        "is",
        "was",
        "us",
        "plus",
        "lens",
        "tennis",
        "chess",
        "lotus",
        "cactus",
        "canvas",
        "bias",
        "atlas",
        "overalls",
        "goggles",
        "sunglasses",
        "scissors",
        "stairs",
        "bleachers",
        "binoculars",
    }
)


def key(word: str) -> str:
    """A lemma-like key: inflections of one noun or verb share it ("rides", "riding", "rode" -> "rid").

    Not a lemma (the final e goes, doubled consonants are undone) but equal for the forms of one word, which is
    all a comparison needs; irregular forms are looked up first.
    """
    w = word.lower()
    w = IRREGULAR.get(w, w)
    if w in NO_STRIP or len(w) <= 3:
        return w.rstrip("e") if len(w) > 3 else w
    if w.endswith("ies") and len(w) > 4:
        w = w[:-3] + "y"
    elif w.endswith("ied") and len(w) > 4:
        w = w[:-3] + "y"
    elif w.endswith("ing") and len(w) > 5:
        w = w[:-3]
    elif w.endswith(("sses", "shes", "ches", "xes", "zes")):
        w = w[:-2]
    elif w.endswith("ed") and len(w) > 4:
        w = w[:-2]
    elif w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "aeiousl":  # running -> runn -> run
        w = w[:-1]
    return w.rstrip("e") if len(w) > 3 else w


def conjuncts(parse: RoleParse, span: Span) -> list[Span]:
    """The span cut at its coordinating conjunctions ("a man and a woman" -> "a man", "a woman")."""
    pieces, start = [], span.start
    for i in range(span.start, span.end):
        word = parse.tokens[i].lower()
        if word in CONJUNCTIONS or (word == "," and i + 1 < span.end):
            if i > start:
                pieces.append(Span(start, i))
            start = i + 1
    if span.end > start:
        pieces.append(Span(start, span.end))
    return pieces or [span]


def head(parse: RoleParse, span: Span) -> int:
    """The token index of the span's head noun: the last noun before what modifies it."""
    tags, tokens = parse.tags, parse.tokens
    found = None
    i = span.start
    while i < span.end:
        tag, word = tags[i], tokens[i].lower()
        if tag in NOUN_TAGS:
            found = i
        elif tag == "POS":  # "the man 's dog": the head is the possessed noun
            found = None
        elif word == "of" and found is not None and tokens[found].lower() in QUANTITY_NOUNS:
            found = None  # "a group of people": go on into the of-phrase
        elif tag == "VBN" and i + 1 < span.end and tags[i + 1] in NOUN_TAGS:
            pass  # a participle before its noun modifies it: "a dragon costumed person"
        elif tag in HEAD_ENDS and found is not None:
            break
        i += 1
    if found is None:  # no noun tag (a tagger's slip): the last word before a modifier, else the last
        for i in range(span.start, span.end):
            if tags[i] in HEAD_ENDS and i > span.start:
                return i - 1
        return span.end - 1
    return found


def heads(parse: RoleParse, span: Span) -> list[int]:
    """The head of each conjunct of the span."""
    return [head(parse, piece) for piece in conjuncts(parse, span)]


# Person nouns and the features they assert; one matches another when its features hold the other's
# ("person" {person} is a hypernym of "man" {person, male, adult}). Plural forms reduce to these by key().
PERSON: dict[str, frozenset[str]] = {}


def _persons(features: str, *words: str) -> None:
    for word in words:
        PERSON[key(word)] = frozenset(features.split())


_persons(
    "person",
    "person",
    "people",
    "someone",
    "somebody",
    "human",
    "individual",
    "one",
    "they",
    "them",
    "crowd",
    "group",
    "family",
    "team",
    "couple",
    "pair",
    "audience",
    "spectator",
    "worker",
    "player",
    "musician",
    "dancer",
    "performer",
    "biker",
    "cyclist",
    "bicyclist",
    "rider",
    "skier",
    "snowboarder",
    "surfer",
    "skateboarder",
    "climber",
    "runner",
    "athlete",
    "student",
    "teacher",
    "doctor",
    "nurse",
    "officer",
    "cop",
    "policeman",
    "soldier",
    "artist",
    "singer",
    "guitarist",
    "drummer",
    "chef",
    "cook",
    "vendor",
    "tourist",
    "customer",
    "shopper",
    "pedestrian",
    "driver",
    "swimmer",
    "hiker",
    "fisherman",
    "farmer",
    "employee",
    "member",
    "friend",
    "adult",
    "teenager",
    "teen",
    "kid",
    "child",
    "baby",
    "toddler",
    "infant",
    "youngster",
    "youth",
    "boy",
    "girl",
    "man",
    "woman",
    "guy",
    "gentleman",
    "lady",
    "male",
    "female",
    "he",
    "him",
    "she",
    "her",
    "mother",
    "mom",
    "father",
    "dad",
    "son",
    "daughter",
    "brother",
    "sister",
    "husband",
    "wife",
    "grandmother",
    "grandfather",
    "bride",
    "groom",
    "bystander",
    "onlooker",
    "passerby",
    "passenger",
    "fan",
    "viewer",
    "photographer",
    "painter",
    "sculptor",
    "skater",
    "rollerblader",
    "gymnast",
    "jumper",
    "butcher",
    "motorist",
    "pitcher",
    "batter",
    "catcher",
    "umpire",
    "goalie",
    "referee",
    "coach",
    "surgeon",
    "mechanic",
    "waiter",
    "waitress",
    "bartender",
    "clown",
    "magician",
    "juggler",
    "actor",
    "actress",
    "protester",
    "seller",
    "buyer",
    "owner",
    "priest",
    "monk",
    "guard",
    "firefighter",
    "fireman",
    "lifeguard",
    "scientist",
    "carpenter",
    "welder",
    "blacksmith",
    "cowboy",
    "jockey",
    "hunter",
    "golfer",
    "boxer",
    "wrestler",
    "diver",
    "sailor",
    "pilot",
    "police",
    "crew",
    "staff",
    "pupil",
    "guitarist",
    "violinist",
    "pianist",
    "singer",
    "band",
    "tech",
    "nanny",
)
_persons(
    "person male adult",
    "man",
    "guy",
    "gentleman",
    "husband",
    "father",
    "dad",
    "groom",
    "grandfather",
    "policeman",
    "fisherman",
)
_persons("person female adult", "woman", "lady", "wife", "mother", "mom", "bride", "grandmother")
_persons("person male young", "boy", "son")
_persons("person female young", "girl", "daughter")
_persons("person young", "child", "kid", "baby", "toddler", "infant", "youngster", "youth", "teenager", "teen")
_persons("person male", "male", "he", "him", "brother")
_persons("person female", "female", "she", "her", "sister")
_persons("person adult", "adult")
# A few everyday hypernyms beside the person nouns: the hypernym's key, then its hyponyms.
HYPERNYMS: dict[str, frozenset[str]] = {
    key(general): frozenset(key(w) for w in specific.split())
    for general, specific in {
        "animal": "dog puppy cat kitten horse pony cow bull sheep goat pig bird duck chicken camel elephant "
        "bear deer monkey",
        "dog": "puppy",
        "pet": "dog puppy cat kitten",
        "instrument": "guitar drum violin piano saxophone trumpet flute cello bass harmonica accordion",
        "vehicle": "car truck bus bike bicycle motorcycle van tractor boat",
        "bike": "bicycle motorcycle",
        "ball": "football basketball baseball soccer volleyball",
        "food": "sandwich pizza bread fruit apple banana cake meal",
        "drink": "beer wine coffee water soda",
    }.items()
}


def words_match(a: str, b: str) -> bool:
    """Whether two head words can name the same thing: the same lemma, or one is the other's hypernym."""
    ka, kb = key(a), key(b)
    if ka == kb:
        return True
    fa, fb = PERSON.get(ka), PERSON.get(kb)
    if fa is not None and fb is not None:
        return fa <= fb or fb <= fa
    return kb in HYPERNYMS.get(ka, ()) or ka in HYPERNYMS.get(kb, ())


def is_person(word: str) -> bool:
    return key(word) in PERSON


def is_animate(word: str) -> bool:
    """A person or an animal: a being that can perceive."""
    return is_person(word) or key(word) == key("animal") or key(word) in HYPERNYMS[key("animal")]
