"""Filler: text pasted for bulk or layout, which must never fill a summary section.

People paste placeholder text (lorem ipsum), repeated text and separator lines into a session. A
rule-based summarizer that mined them would file lorem lines with a digit under "Key Findings",
and Cicero's "natus error sit voluptatem" under "Problems Encountered" (issue 17). A line is
filler when it has no words at all, when it is mostly the Latin of lorem-ipsum generators, or when
it repeats a few words over and over. Plain checks on one line; deterministic.
"""

from __future__ import annotations

import re

__all__ = ["LOREM_WORDS", "is_filler", "is_lorem", "is_repetitive"]

_LOREM_TEXT = """
lorem ipsum dolor sit amet consectetur consectetuer adipiscing adipisicing elit sed eiusmod tempor
incididunt labore dolore magna aliqua aliquam enim minim veniam quis nostrud exercitation ullamco
laboris nisi aliquip commodo consequat duis aute irure reprehenderit voluptate velit esse cillum
fugiat nulla pariatur excepteur sint occaecat cupidatat proident sunt culpa officia deserunt
mollit anim laborum perspiciatis unde omnis iste natus error voluptatem accusantium doloremque
laudantium totam aperiam eaque ipsa quae illo inventore veritatis quasi architecto beatae vitae
dicta explicabo nemo ipsam quia voluptas aspernatur odit fugit consequuntur magni dolores eos
ratione sequi nesciunt neque porro quisquam dolorem adipisci numquam eius modi tempora incidunt
magnam quaerat etiam vero accusamus iusto odio dignissimos ducimus blanditiis praesentium
voluptatum deleniti atque corrupti quos quas molestias excepturi occaecati cupiditate similique
mollitia animi dolorum fuga harum quidem rerum facilis expedita distinctio libero tempore cum
soluta nobis eligendi optio cumque nihil impedit quo minus maxime placeat facere possimus
assumenda repellendus temporibus autem quibusdam officiis debitis necessitatibus saepe eveniet
voluptates repudiandae recusandae itaque earum hic tenetur sapiente delectus reiciendis
voluptatibus maiores alias perferendis doloribus asperiores repellat mauris vestibulum
pellentesque nunc curabitur vivamus donec integer proin phasellus morbi fusce suspendisse aenean
praesent maecenas quisque nullam cras vel nec eget nibh sapien sem lacus risus tellus felis augue
turpis metus arcu purus quam justo leo ligula massa urna lectus ante orci diam erat eros tortor
dui porta viverra ultrices ultricies egestas faucibus tincidunt sollicitudin condimentum
fermentum rhoncus sagittis scelerisque vulputate volutpat venenatis posuere pharetra gravida
lobortis luctus malesuada mattis molestie pretium pulvinar semper suscipit ullamcorper varius
vehicula elementum euismod feugiat hendrerit iaculis imperdiet interdum lacinia laoreet auctor
bibendum blandit congue convallis cursus dapibus dictum dignissim efficitur eleifend facilisis
finibus fringilla accumsan aliquet porttitor primis sodales tristique ornare rutrum nisl nam
"""
LOREM_WORDS = frozenset(_LOREM_TEXT.split())
"""The vocabulary of the common lorem-ipsum generators (words of three letters or more)."""


_WORD = re.compile(r"[^\W\d_]{2,}")


_LONG_WORD = re.compile(r"[^\W\d_]{3,}")


_NAMES = re.compile(r"`[^`]*`|\S*[/.]\S*\w")


LOREM_SHARE = 0.6
"""A line is lorem when at least this share of its words (3+ letters) are lorem words..."""
LOREM_MIN_WORDS = 3
"""...and it has at least this many of them."""
REPEAT_MIN_WORDS = 8
REPEAT_MAX_DISTINCT = 0.3
"""A line of ``REPEAT_MIN_WORDS`` or more words with at most this share distinct repeats."""


def is_lorem(text: str) -> bool:
    """Whether ``text`` is mostly placeholder Latin ("Lorem ipsum dolor sit amet, ...")."""
    words = [w.lower() for w in _LONG_WORD.findall(text)]
    latin = sum(w in LOREM_WORDS for w in words)
    return latin >= LOREM_MIN_WORDS and latin >= LOREM_SHARE * len(words)


def is_repetitive(text: str) -> bool:
    """Whether ``text`` repeats a few words over and over ("test test test test ...").

    Code spans, paths and dotted names are not counted: a list of files is not repetition.
    """
    words = [w.lower() for w in _WORD.findall(_NAMES.sub(" ", text))]
    return len(words) >= REPEAT_MIN_WORDS and len(set(words)) <= REPEAT_MAX_DISTINCT * len(words)


def is_filler(text: str) -> bool:
    """Whether ``text`` (one sentence or line) is filler: no words, lorem, or repetition."""
    return _WORD.search(text) is None or is_lorem(text) or is_repetitive(text)
