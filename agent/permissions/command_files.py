"""The files that common readers and writers name in a command, so that Read and Edit rules cover
`cat .env` and `sed -i ... config.yml` as they cover the Read and Edit tools (as Claude Code does).
Every word that is not an option counts as a file the command may read (an option's value too:
`cat -n .env` must not hide `.env` behind `-n`); only a reader's pattern (`grep KEY .env`) is not."""

from __future__ import annotations

import re

from agent.permissions.bash_words import Word
from agent.permissions.wrappers import Form, command_name

_READERS = frozenset(
    "cat head tail less more most bat batcat tac nl od hexdump xxd strings base64 base32 basenc "
    "grep egrep fgrep rg ag ack sed awk gawk mawk nawk jq yq cut sort uniq wc diff cmp comm join paste "
    "rev fold fmt pr column expand unexpand iconv tr file source . zcat zless zmore gzip gunzip bzcat "
    "bzip2 xzcat xz lz4cat zstdcat zstd unzip tar zip shasum sha1sum sha256sum sha512sum md5sum cksum "
    "openssl gpg look split csplit shuf vi vim view nano emacs ed ex scp rsync".split())
_PATTERN_FIRST = frozenset("grep egrep fgrep rg ag ack sed awk gawk mawk nawk jq yq".split())
_PATTERN_OPTIONS = frozenset({"-e", "--regexp", "-f", "--file", "--expression"})
_WRITERS = frozenset("cp mv tee dd touch truncate ln install".split())
_UPLOADERS = frozenset({"curl", "wget", "http", "https"})  # `-d @file`, `-T file`, `--post-file=file`


def files_of(form: Form) -> tuple[list[Word], list[Word]]:
    """(words read, words written) that `form` names as files, when it is a reader or a writer."""
    name = command_name(form[0]) if form else None
    if name in _UPLOADERS:
        return _uploads(form), []
    if name == "xargs":  # `xargs -a FILE` reads its arguments from FILE
        return [form[i + 1] for i, w in enumerate(form[:-1]) if w.shown in ("-a", "--arg-file")], []
    if name == "git" and "--no-index" in [w.shown for w in form]:  # `git diff --no-index A B` reads A and B
        return [w for w in form[2:] if not w.shown.startswith("-")], []
    if name not in _READERS and name not in _WRITERS:
        return [], []
    if name == "dd":
        return _values(form, "if="), _values(form, "of=")
    operands, options = _operands(form)
    if name in _PATTERN_FIRST and not options & _PATTERN_OPTIONS and operands:
        operands = operands[1:]
    written = _values(form, "--output=") + [form[i + 1] for i, w in enumerate(form[:-1]) if w.shown == "-o"] \
        if name == "sort" else []
    if name == "sed":
        in_place = any(o == "--in-place" or o.startswith(("-i", "--in-place=")) or
                       o.startswith("-") and not o.startswith("--") and "i" in o for o in options)
        return operands, operands if in_place else []
    if name in ("cp", "install", "ln"):
        return operands[:-1], operands[-1:] + _targets(form)
    if name == "mv":
        return operands, operands + _targets(form)
    if name in ("tee", "touch", "truncate"):
        return [], operands
    return operands, written


def _operands(form: Form) -> tuple[list[Word], set[str]]:
    """The words of `form` that are not options, an option's value included, and the options given."""
    operands, options, ended = [], set(), False
    for word in form[1:]:
        text = word.shown
        if not ended and text == "--":
            ended = True
        elif not ended and text.startswith("-") and text != "-":
            options.add(text.split("=")[0] if text.startswith("--") else text)
            if "=" in text and text.startswith("--"):
                operands.append(_value(word))
        else:
            operands.append(word)
    return operands, options


def _uploads(form: Form) -> list[Word]:
    """The files an upload names: `@file` values, `-T`/`--upload-file`, `--post-file`, `--body-file`."""
    found = []
    for i, word in enumerate(form):
        text = word.shown
        if match := re.search(r"(?:^|=)[@<]([^;]+)$", text):
            found.append(Word(match.group(1), match.group(1) if word.text is not None else None))
        elif text in ("-T", "--upload-file", "--post-file", "--body-file") and i + 1 < len(form):
            found.append(form[i + 1])
        elif text.startswith(("--upload-file=", "--post-file=", "--body-file=")):
            found.append(_value(word))
    return found


def _values(form: Form, prefix: str) -> list[Word]:
    """The values of `prefix=VALUE` words (`if=`, `of=`, `--output=`)."""
    return [_value(word) for word in form[1:] if word.shown.startswith(prefix)]


def _targets(form: Form) -> list[Word]:
    """The folder of `cp -t DIR` / `mv --target-directory=DIR`."""
    found = []
    for i, word in enumerate(form):
        if word.shown in ("-t", "--target-directory") and i + 1 < len(form):
            found.append(form[i + 1])
        elif word.shown.startswith("--target-directory="):
            found.append(_value(word))
    return found


def _value(word: Word) -> Word:
    """The value of an `if=FILE` or `--option=FILE` word, as a word of its own."""
    value = word.shown.partition("=")[2]
    return Word(value, value if word.text is not None else None, value)
