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
    "openssl gpg look split csplit shuf vi vim view nano emacs ed ex scp rsync ptx sdiff diff3 link "
    "sh bash zsh dash ksh mksh fish tsort sum b2sum cksum".split())  # a shell reads its script (`bash -v .env` prints it)
_PATTERN_FIRST = frozenset("grep egrep fgrep rg ag ack sed awk gawk mawk nawk jq yq".split())
_PATTERN_OPTIONS = frozenset({"-e", "--regexp", "-f", "--file", "--expression"})
_WRITERS = frozenset("cp mv tee dd touch truncate ln link install mkdir mktemp mkfifo mknod shred rm rmdir "
                     "unlink chmod chown chgrp gzip gunzip bzip2 xz zstd patch".split())
# options whose value is a file written: `curl -o`, `wget -O`, `tar -f` (with c/r/u), `split` prefixes
_WRITTEN_VALUES = {"git": ("--output",), "pytest": ("--junitxml", "--junit-xml", "--basetemp", "--debug"),
                   "curl": ("-o", "--output"), "wget": ("-O", "--output-document", "-o", "--output-file"),
                   "sort": ("-o", "--output"), "patch": ("-o", "--output"), "mktemp": ("-p", "--tmpdir"),
                   "tar": ("-f", "--file", "-C", "--directory")}
_UPLOADERS = frozenset({"curl", "wget", "http", "https"})  # `-d @file`, `-T file`, `--post-file=file`


def files_of(form: Form) -> tuple[list[Word], list[Word]]:
    """(words read, words written) that `form` names as files, when it is a reader or a writer."""
    name = command_name(form[0]) if form else None
    written = _option_values(form, _WRITTEN_VALUES.get(name or "", ()))
    if name in _UPLOADERS:
        return _uploads(form), written
    if name == "xargs":  # `xargs -a FILE` reads its arguments from FILE
        return _option_values(form, ("-a", "--arg-file")), []
    if name == "find":  # `-fprint FILE` and friends write; `-delete` changes every start path
        return (_option_values(form, ("-files0-from",)),
                _option_values(form, ("-fprint", "-fprint0", "-fprintf", "-fls")) + _find_deletes(form))
    if name == "tar":  # `tar cf ARCHIVE` / `-cf ARCHIVE`: a cluster with f names the archive
        first = form[1].shown if len(form) > 1 else ""
        archive = [form[2]] if re.fullmatch(r"[A-Za-z]*f[A-Za-z]*", first) and len(form) > 2 else []
        operands = [w for w in _operands(form)[0] if w not in archive]
        return operands + archive, written + archive
    if name in ("split", "csplit"):  # the last operand (or `-f PREFIX`) names the files written
        operands = _operands(form)[0]
        return operands[:1], operands[-1:] + _option_values(form, ("-f", "--prefix"))
    if name == "uniq":
        operands = _operands(form)[0]
        return operands[:1], operands[1:2]
    if name == "git":  # `git diff /dev/null .env`, `git show HEAD:.env`, `git grep x -- .env` print files
        return _git_reads(form), written
    if name in ("du", "wc") and (listed := _option_values(form, ("--files0-from",))):
        return listed, written
    if name not in _READERS and name not in _WRITERS:
        return [], written
    if name == "dd":
        return _values(form, "if="), _values(form, "of=")
    operands, options = _operands(form)
    if name in _PATTERN_FIRST and not options & _PATTERN_OPTIONS and operands:
        operands = operands[1:]
    if name == "sed":
        in_place = any(o == "--in-place" or o.startswith(("-i", "--in-place=")) or
                       o.startswith("-") and not o.startswith("--") and "i" in o for o in options)
        return operands, operands if in_place else []
    if name in ("cp", "install", "ln", "link"):
        return operands[:-1], operands[-1:] + _targets(form)
    if name == "mv":
        return operands, operands + _targets(form)
    if name in _WRITERS:
        return (operands if name in ("gzip", "gunzip", "bzip2", "xz", "zstd", "patch") else []), operands + written
    return operands, written


def _git_reads(form: Form) -> list[Word]:
    """The paths `git diff`, `show`, `log`, `blame` and `grep` print: their operands (`REV:path`
    names `path`)."""
    words = [word.shown for word in form]
    command = next((i for i, word in enumerate(words[1:], start=1) if not word.startswith("-")), None)
    if command is None or words[command] not in ("diff", "show", "log", "blame", "grep", "annotate", "cat-file"):
        return []
    found = []
    for word in form[command + 1:]:
        if word.shown.startswith("-") and word.shown != "-":
            continue
        _, colon, path = word.shown.partition(":")
        found.append(Word(path, path if word.text is not None else None, path) if colon and path else word)
    return found


def moves_folder(form: Form) -> bool:
    """Whether `form` runs in another folder than the line's, so its relative paths lead elsewhere:
    `cd`, `pushd`, `popd`, `env -C DIR`, `sudo -D DIR`, `find -execdir`, `git -C DIR`."""
    name, words = command_name(form[0]), [word.shown for word in form]
    if name in ("cd", "pushd", "popd"):
        return True
    if name == "find":
        return any(word in ("-execdir", "-okdir") for word in words)
    options = {"env": ("-C", "--chdir"), "sudo": ("-D", "--chdir"), "git": ("-C",)}.get(name or "", ())
    return bool(options) and bool(_option_values(form, options))


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


def _option_values(form: Form, options: tuple[str, ...]) -> list[Word]:
    """The values of `options` in `form`: the next word, joined (`-aFILE`), or after `=`, a long
    option also by any unambiguous start (`--arg=FILE` for `--arg-file`)."""
    found = []
    for i, word in enumerate(form[1:], start=1):
        text = word.shown
        option, joined, value = text.partition("=")
        if (text in options or text.startswith("--") and len(text) > 3 and not joined
                and any(o.startswith(text) for o in options if o.startswith("--"))) and i + 1 < len(form):
            found.append(form[i + 1])  # `--output FILE`, `--out FILE`
        elif option.startswith("--") and joined and any(o.startswith(option) for o in options if o.startswith("--")):
            found.append(_value(word))
        elif re.fullmatch(r"-[A-Za-z0-9]+.*", text) and not text.startswith("--"):
            for letter in (o[1] for o in options if len(o) == 2):
                cluster = re.fullmatch(rf"-[A-Za-z0-9]*?{letter}(.*)", text)  # `-so FILE`, `-oFILE`
                if cluster and cluster.group(1):
                    value = cluster.group(1)
                    found.append(Word(value, value if word.text is not None else None, value))
                elif cluster and i + 1 < len(form):
                    found.append(form[i + 1])
    return found


def _find_deletes(form: Form) -> list[Word]:
    """The start paths `find ... -delete` deletes under (`.` when none is given)."""
    if "-delete" not in [word.shown for word in form]:
        return []
    starts = []
    for word in form[1:]:
        if word.shown.startswith(("-", "(", "!")):
            break
        starts.append(word)
    return starts or [Word(".", ".", ".")]


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
