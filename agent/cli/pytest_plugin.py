"""A pytest plugin: each cassette one test item, checked as `cassette check` checks it.

    pytest -p agent.cli.pytest_plugin --cassettes cassettes/agent -n auto --junitxml report.xml

(installed, the package registers it as the `agent-cassettes` entry point, so `-p` is not needed).
Each cassette found in the folders (YAML files with `interactions`, as `cassette check` finds them)
is an item named by its path, replayed with --replay-tools in the pytest process, in the folder
pytest was started in (the workspace). So pytest-xdist spreads the cassettes, --junitxml reports
them, -k chooses them, and a drift, an unmet expectation or an error fails the item with the line
`cassette check` prints, and nothing else. `--cassette-update`, `--cassette-require-success`,
`--cassette-ignore`, `--cassette-scrub` and `--cassette-match` are check's --update,
--require-success, --ignore, --scrub and --match.

Without --cassettes the plugin only adds its options: no hook of it runs and no replay machinery
is imported, so a suite that has it installed collects and runs as before. Given only --cassettes (no
paths), pytest collects the cassette folders alone, not the current folder's tests.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("agent-cassettes", "agent cassettes (each one a test, replayed as `cassette check` does)")
    group.addoption("--cassettes", action="append", default=[], metavar="DIR",
                    help="a folder of cassettes (or one cassette) to check, one test per cassette (repeatable)")
    group.addoption("--cassette-update", action="store_true",
                    help="as cassette check --update: rewrite a cassette whose requests changed but whose replies "
                         "still answer them (review with git diff)")
    group.addoption("--cassette-require-success", action="store_true",
                    help="as cassette check --require-success: a recording of a failed run fails")
    group.addoption("--cassette-ignore", action="append", default=[], metavar="JSONPATH",
                    help="as cassette check --ignore: a request path not compared (repeatable)")
    group.addoption("--cassette-scrub", action="append", default=[], metavar="REGEX[=REPLACEMENT]",
                    help="as cassette check --scrub: text replaced on both sides before comparing (repeatable)")
    group.addoption("--cassette-match", choices=["content"], default=None,
                    help="as cassette check --match: 'content' compares only what you own")


def pytest_configure(config: pytest.Config) -> None:
    given = config.getoption("cassettes")
    if given:
        config.pluginmanager.register(_Cassettes(config, given), "agent-cassettes-collector")


class _Cassettes:
    """The plugin at work (registered only when --cassettes is given): it adds the cassette folders
    to what pytest collects, makes each cassette in them an item, and ends the run's summary with
    the cassettes that were updated or passed with a note."""

    def __init__(self, config: pytest.Config, given: list[str]) -> None:
        from agent.cli.checking import CheckOptions

        here = config.invocation_params.dir
        self.roots: list[tuple[str, Path]] = []
        for folder in given:
            where = Path(os.path.normpath(here / folder))
            if not where.exists():
                raise pytest.UsageError(f"--cassettes: {folder} is neither a folder nor a file")
            self.roots.append((folder, where))
        self.options = CheckOptions.given(
            config.getoption("cassette_require_success"), config.getoption("cassette_update"),
            config.getoption("cassette_ignore"), config.getoption("cassette_scrub"), config.getoption("cassette_match"))
        self.noted: list[str] = []
        if config.args_source != pytest.Config.ArgsSource.ARGS:
            config.args = [folder for folder, _ in self.roots]  # only the cassettes, not the folder's tests
        else:
            asked = [Path(os.path.normpath(here / arg.split("::")[0])) for arg in config.args]
            config.args += [folder for folder, where in self.roots
                            if not any(where == path or path in where.parents for path in asked)]

    def pytest_collect_file(self, file_path: Path, parent: pytest.Collector):
        if file_path.suffix not in (".yaml", ".yml"):
            return None
        shown = self.shown(file_path)
        if shown is None:
            return None
        from agent.record.check import is_cassette

        return CassetteFile.from_parent(parent, path=file_path, shown=shown) if is_cassette(file_path) else None

    def shown(self, file_path: Path) -> str | None:
        """The cassette's path as `cassette check` would print it (under the folder as given), or
        None when it lies in none of the --cassettes folders."""
        for folder, where in self.roots:
            if file_path == where:
                return folder
            if where in file_path.parents:
                return str(Path(folder) / file_path.relative_to(where))
        return None

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when == "call" and report.passed:
            self.noted += [value for name, value in report.user_properties if name == "cassette"]

    def pytest_terminal_summary(self, terminalreporter) -> None:
        if self.noted:
            terminalreporter.write_sep("-", "agent cassettes")
            for line in self.noted:
                terminalreporter.write_line(line)


class CassetteFile(pytest.File):
    """A cassette file: it holds one item, the cassette's check."""

    def __init__(self, *, shown: str, **kwargs) -> None:
        super().__init__(**kwargs)
        self.shown = shown

    def collect(self):
        yield CassetteItem.from_parent(self, name=self.path.name)


class CassetteFailed(Exception):
    """A cassette that did not check green; its message is the line `cassette check` prints."""


class CassetteItem(pytest.Item):
    """One cassette, replayed in this process with --replay-tools, in the folder pytest started in."""

    def runtest(self) -> None:
        from agent.cli.checking import check_cassette
        from agent.record.check import OK, PASSED

        collector = self.config.pluginmanager.get_plugin("agent-cassettes-collector")
        started_in = os.getcwd()
        os.chdir(self.config.invocation_params.dir)  # the workspace, whatever a fixture left as the folder
        try:
            result = check_cassette(self.parent.shown, collector.options)
        finally:
            os.chdir(started_in)
        if result.status not in PASSED:
            raise CassetteFailed(result.line())
        if result.status != OK or result.note:  # updated, or ok with something to say: in the summary
            self.user_properties.append(("cassette", result.line()))

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, CassetteFailed):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style)

    def reportinfo(self):
        return self.path, None, self.parent.shown
