"""The files that common readers and writers name in a command, so that Read and Edit rules cover
`cat .env` and `sed -i ... config.yml` as they cover the Read and Edit tools (as Claude Code does)."""

from __future__ import annotations

from agent.permissions.bash_words import Word
from agent.permissions.commands import Form, command_name

_READERS = frozenset("cat head tail less more bat tac nl od hexdump xxd strings base64 base32 "
                     "grep egrep fgrep rg ag sed awk jq cut sort uniq wc diff cmp file source .".split())
_PATTERN_FIRST = frozenset("grep egrep fgrep rg ag sed awk jq".split())  # their first operand is no file
_PATTERN_OPTIONS = frozenset({"-e", "--regexp", "-f", "--file", "--expression"})
_WRITERS = frozenset("cp mv tee dd touch truncate".split())
# options whose value is the next word (so it is neither a file nor the pattern)
_VALUED = frozenset("-n -c -m -A -B -C -t -S -T -g --glob --max-count --lines --bytes --target-directory "
                    "--context --after-context --before-context --type -s --suffix".split())


def files_of(form: Form) -> tuple[list, list]:
    """(words read, words written) that `form` names as files, when it is a reader or a writer."""
    name = command_name(form[0]) if form else None
    if name not in _READERS and name not in _WRITERS:
        return [], []
    if name == "dd":
        read = [_value_word(w) for w in form[1:] if w.shown.startswith("if=")]
        return read, [_value_word(w) for w in form[1:] if w.shown.startswith("of=")]
    operands, options = _operands(form)
    if name in _PATTERN_FIRST and not options & _PATTERN_OPTIONS and operands:
        operands = operands[1:]
    if name == "sed":
        in_place = any(o == "--in-place" or o.startswith(("-i", "--in-place=")) or
                       o.startswith("-") and not o.startswith("--") and "i" in o for o in options)
        return operands, operands if in_place else []
    if name == "cp":
        return operands[:-1], operands[-1:] + _targets(form)
    if name == "mv":
        return [], operands + _targets(form)
    if name in ("tee", "touch", "truncate"):
        return [], operands
    return operands, []


def _operands(form: Form) -> tuple[list, set[str]]:
    """The words of `form` that are not options (nor option values), and the options given."""
    operands, options, i, ended = [], set(), 1, False
    while i < len(form):
        text = form[i].shown
        if not ended and text == "--":
            ended = True
        elif not ended and text.startswith("-") and text != "-":
            options.add(text.split("=")[0] if text.startswith("--") else text)
            i += 1 if "=" in text or text not in _VALUED else 2
            continue
        else:
            operands.append(form[i])
        i += 1
    return operands, options


def _targets(form: Form) -> list:
    """The folder of `cp -t DIR` / `mv --target-directory=DIR`."""
    found = []
    for i, word in enumerate(form):
        if word.shown in ("-t", "--target-directory") and i + 1 < len(form):
            found.append(form[i + 1])
        elif word.shown.startswith("--target-directory="):
            found.append(_value_word(word))
    return found


def _value_word(word):
    """The value of an `if=FILE` or `--option=FILE` word, as a word of its own."""
    value = word.shown.partition("=")[2]
    return Word(value, value if word.text is not None else None, value)
