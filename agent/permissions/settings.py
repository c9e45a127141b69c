"""Settings: the permission rules and mode of a session, read from Claude Code's settings files and
merged with the command-line flags. Settings files are untrusted input: whatever is wrong with one
is a one-line warning naming the file, never a crash."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any, Collection, Iterable

from agent.errors import UsageError
from agent.permissions.paths import normal_path
from agent.permissions.policy import MODES, Policy
from agent.permissions.rules import merge_rules, rule_warning, split_rules
from agent.permissions.trust import ignored
from agent.workspace import SETTINGS_FILE_BYTES, json_option, load_json, read_bounded

log = logging.getLogger("agent")

_LISTS = ("allow", "deny", "ask")


def load_policy(cwd: Path, home: Path, mode: str | None = None, allowed: Iterable[str] = (),
                disallowed: Iterable[str] = (), skip_permissions: bool = False,
                extra_settings: str | None = None, extra_directories: Iterable[str | Path] = (),
                trusted: bool = False, sources: Collection[str] = ("user", "project", "local")) -> Policy:
    """The policy of a session in `cwd`: the three settings files merged (then `extra_settings`,
    from --settings: a JSON file or JSON text), then the flags added. Lists are joined; defaultMode
    comes from the most specific file; --permission-mode beats it and --dangerously-skip-permissions
    beats both, unless a file sets disableBypassPermissionsMode, when bypass is passed over for the
    next choice. `extra_directories` (--add-dir) count like permissions.additionalDirectories.
    Unless the workspace is `trusted` (see `trust`), the project's own files (settings.json and
    settings.local.json) grant nothing: their allow rules, additionalDirectories and a
    bypassPermissions defaultMode are dropped, one warning per kind; their deny and ask rules and
    narrower modes apply. Only the files of the setting `sources` (--setting-sources: `user`,
    `project`, `local`) are read; --settings always is. An unknown flag mode, or a --settings or
    --add-dir value that cannot be used, raises UsageError."""
    if mode is not None and mode not in MODES:
        raise UsageError(f"unknown permission mode {mode!r}; valid modes: {', '.join(MODES)}")
    lists: dict[str, tuple[str, ...]] = {key: () for key in _LISTS}
    default_mode, bypass_disabled, directories = None, None, []
    files = {}  # least specific first; setdefault: home == cwd must not load a file twice (it is the user's)
    for path, project in _settings_files(cwd, home, sources):
        files.setdefault(normal_path(path), project)
    read = [(path, _read_permissions(path)) for path in files]
    if extra_settings is not None:
        read.append(_flag_settings(extra_settings, cwd))
    directories += [added_directory(folder, cwd) for folder in extra_directories]
    withheld = Withheld(cwd, home)
    for path, permissions in read:
        if files.get(path) and not trusted:
            permissions = withheld.take(path, permissions)
        for key in lists:
            rules = _rule_list(permissions, key, path)
            lists[key] = merge_rules(lists[key], _checked(rules, key, f"permissions.{key} of {path}"))
        value = permissions.get("defaultMode")
        if value in MODES:
            default_mode = value
        elif value is not None:
            log.warning("ignoring defaultMode %r in %s; valid modes: %s", value, path, ", ".join(MODES))
        if _disables_bypass(permissions.get("disableBypassPermissionsMode", False), path):
            bypass_disabled = bypass_disabled or path
        directories += _directories(permissions.get("additionalDirectories", []), path, cwd, home)
    withheld.report()
    choices = ["bypassPermissions"] * skip_permissions + [m for m in (mode, default_mode) if m]
    if bypass_disabled and "bypassPermissions" in choices:
        log.warning("bypassPermissions mode is disabled by permissions.disableBypassPermissionsMode in %s",
                    bypass_disabled)
        choices = [choice for choice in choices if choice != "bypassPermissions"]
    chosen = (choices or ["default"])[0]
    if chosen == "auto":
        log.warning("auto mode needs Claude Code's safety classifier, which this agent lacks; "
                    "tool calls are decided as in default mode")
    allowed_rules = _checked([rule for value in allowed for rule in split_rules(value)], "allow", "--allowedTools")
    denied_rules = _checked([rule for value in disallowed for rule in split_rules(value)], "deny", "--disallowedTools")
    return Policy(mode=chosen, allow=merge_rules(lists["allow"], allowed_rules),
                  deny=merge_rules(lists["deny"], denied_rules), ask=lists["ask"],
                  cwd=normal_path(cwd), home=normal_path(home), directories=tuple(dict.fromkeys(directories)))


def project_grants(cwd: Path, sources: Collection[str] = ("user", "project", "local")) -> bool:
    """Whether the workspace's own settings files (those of the setting `sources` loaded) hold
    grants that only trust lets take effect. Read quietly: load_policy warns about whatever is
    wrong with them."""
    for path, _ in _settings_files(cwd, None, sources):
        try:
            permissions = _settings_file(path).get("permissions")
        except (OSError, ValueError, AttributeError):
            continue
        if isinstance(permissions, dict) and Withheld(cwd, cwd).take(path, permissions) != permissions:
            return True
    return False


def _settings_files(cwd: Path, home: Path | None, sources: Collection[str]) -> list[tuple[Path, bool]]:
    """The settings files of `sources`, least specific first, each with whether it is the
    project's own (the user's file is left out without a `home`)."""
    files = [("user", home / ".claude" / "settings.json" if home is not None else None, False),
             ("project", Path(cwd) / ".claude" / "settings.json", True),
             ("local", Path(cwd) / ".claude" / "settings.local.json", True)]
    return [(path, project) for source, path, project in files if source in sources and path is not None]


def settings_documents(cwd: Path, home: Path, sources: Collection[str] = ("user", "project", "local"),
                       extra_settings: str | None = None) -> list[tuple[str, dict[str, Any], bool]]:
    """Each settings file of `sources` that holds a JSON object (least specific first, then
    --settings), as (where, its data, whether it is the project's own). Read quietly: load_policy
    has warned about whatever is wrong with them, and a --settings that cannot be used has ended
    the run there."""
    documents, seen = [], set()
    for path, project in _settings_files(cwd, home, sources):
        if normal_path(path) in seen:
            continue
        seen.add(normal_path(path))
        try:
            data = _settings_file(path)
        except (OSError, ValueError):
            continue
        if isinstance(data, dict):
            documents.append((Withheld(cwd, home)._shown(path) if project else str(path), data, project))
    if extra_settings is not None:
        text, where = json_option("--settings", extra_settings, cwd)
        try:
            data = load_json(text, "the settings file")
        except ValueError:
            data = None
        if isinstance(data, dict):
            documents.append((where, data, False))
    return documents


def settings_switch(key: str, cwd: Path, home: Path, sources: Collection[str] = ("user", "project", "local"),
                    extra_settings: str | None = None) -> bool | None:
    """The true/false setting `key` as the most specific settings file that sets it says
    (--settings last), or None when none does; a value that is not true or false is one warning."""
    found = None
    for where, data, _ in settings_documents(cwd, home, sources, extra_settings):
        value = data.get(key)
        if isinstance(value, bool):
            found = value
        elif value is not None:
            log.warning(f"ignoring {key} in {where}: it must be true or false")
    return found


def _flag_settings(value: str, cwd: Path) -> tuple[str, dict[str, Any]]:
    """The source name and permissions of a --settings value: JSON text, or a JSON file's path."""
    text, where = json_option("--settings", value, cwd)
    try:
        data = load_json(text, "the settings file")
    except ValueError as error:
        raise UsageError(f"--settings: invalid JSON in {where} ({str(error).splitlines()[0]})") from None
    return where, _permissions_of(data, where)


def added_directory(value: str | Path, cwd: Path) -> Path:
    """The folder an --add-dir `value` names (relative to `cwd`, `~` expanded); UsageError if it is none."""
    folder = normal_path(cwd / Path(value).expanduser())
    if not folder.is_dir():
        raise UsageError(f"--add-dir: {value} is not a folder")
    return folder


def _read_permissions(path: Path) -> dict[str, Any]:
    """The `permissions` object of a settings file; {} when it is missing or unusable (warned):
    unreadable, not a regular file (a device or FIFO is never read), over SETTINGS_FILE_BYTES,
    not UTF-8, not JSON, or nested deeper than the JSON limit."""
    try:
        data = _settings_file(path)
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as error:
        log.warning("ignoring %s: cannot read it (%s)", path, getattr(error, "strerror", None) or error)
        return {}
    except ValueError as error:
        log.warning("ignoring %s: invalid JSON (%s)", path, str(error).splitlines()[0] if str(error) else "")
        return {}
    return _permissions_of(data, path)


def _settings_file(path: Path) -> Any:
    """The parsed JSON of a settings file, read within the bounds every settings file has."""
    return load_json(read_bounded(path, SETTINGS_FILE_BYTES).decode("utf-8"), "the settings file")


def _permissions_of(data: Any, path) -> dict[str, Any]:
    """The `permissions` object of parsed settings; {} when unusable (warned)."""
    if not isinstance(data, dict):
        log.warning("ignoring %s: the settings are not a JSON object", path)
        return {}
    if not isinstance(data.get("permissions", {}), dict):
        log.warning("ignoring the permissions in %s: \"permissions\" is not an object", path)
        return {}
    return data.get("permissions", {})


def _rule_list(permissions: dict[str, Any], key: str, path: Path) -> list[str]:
    value = permissions.get(key, [])
    if not isinstance(value, list) or not all(isinstance(rule, str) for rule in value):
        log.warning("ignoring non-text rules in permissions.%s of %s", key, path)
        value = value if isinstance(value, list) else []
    return [rule.strip() for rule in value if isinstance(rule, str) and rule.strip()]


def _checked(rules: list[str], kind: str, where: str) -> list[str]:
    """`rules` (of `kind`, found `where`) unchanged, after one warning for each rule Claude Code
    would skip or read otherwise."""
    for rule in rules:
        if problem := rule_warning(rule, kind):
            log.warning("rule %r in %s %s", rule, where, problem)
    return rules


def _disables_bypass(value: Any, path: Path) -> bool:
    """Whether a disableBypassPermissionsMode value turns bypass off. Claude Code takes only
    "disable"; `true` plainly means the same, so it disables too (warned), and anything else is warned."""
    if value == "disable" or value is False:
        return value == "disable"
    log.warning("disableBypassPermissionsMode %s in %s: the value Claude Code reads is \"disable\"%s",
                json.dumps(value), path, "; bypass is disabled" if value is True else "; ignored")
    return value is True


def _directories(value: Any, path: Path, cwd: Path, home: Path) -> list[Path]:
    """The folders of permissions.additionalDirectories: `~/x` in the home folder, a relative path
    from the workspace."""
    if not isinstance(value, list) or not all(isinstance(item, str) and item.strip() for item in value):
        log.warning("ignoring entries of permissions.additionalDirectories in %s that are not paths", path)
        value = value if isinstance(value, list) else []
    items = [item.strip() for item in value if isinstance(item, str) and item.strip()]
    return [normal_path(home / item[2:] if item == "~" or item.startswith("~/") else cwd / item) for item in items]


class Withheld:
    """The grants an untrusted workspace's own settings files would give, taken out of them and
    counted, so that each kind is one warning naming the files, as Claude Code words it."""

    KINDS = (("allow", "permissions.allow"), ("additionalDirectories", "permissions.additionalDirectories"))

    def __init__(self, cwd: Path, home: Path) -> None:
        self.cwd, self.home = cwd, home
        self.counts: dict[str, dict[str, int]] = {name: {} for _, name in self.KINDS}
        self.bypass: list[str] = []

    def take(self, path: Path, permissions: dict[str, Any]) -> dict[str, Any]:
        """`permissions` of the project file `path` without the grants it may not give."""
        shown = self._shown(path)
        kept = dict(permissions)
        for key, name in self.KINDS:
            if isinstance(kept.get(key), list) and kept[key]:  # anything else is warned as unusable
                self.counts[name][shown] = len(kept.pop(key))
        if kept.get("defaultMode") == "bypassPermissions":
            kept.pop("defaultMode")
            self.bypass.append(shown)
        return kept

    def report(self) -> None:
        """One warning for each kind of grant taken out."""
        for _, name in self.KINDS:
            if files := self.counts[name]:
                log.warning("%s", ignored(sum(files.values()), name, files, self.home, self.cwd))
        if self.bypass:
            log.warning("%s", ignored(len(self.bypass), "permissions.defaultMode bypassPermissions", self.bypass,
                                      self.home, self.cwd))

    def _shown(self, path: Path) -> str:
        try:
            return Path(path).relative_to(normal_path(self.cwd)).as_posix()
        except ValueError:
            return str(path)
