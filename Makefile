# Two commands for a newcomer: `make demo` and `make test`. Everything else is for maintainers.
PYTHON ?= python3
VENV := .venv
STAMP := $(VENV)/.installed-test
DEMO_PROMPT := Fix the failing test
DEMO_CASSETTE := $(CURDIR)/cassettes/demo/test_fix_the_failing_test-openrouter.yaml
DEMO_SKILL_PROMPT := Who is on the on-call rotation right now?
DEMO_SKILL_CASSETTE := $(CURDIR)/cassettes/demo/test_on_call_skill_runs_in_a_subagent-openrouter.yaml

.PHONY: setup test record demo bench

setup: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install --quiet --disable-pip-version-check -e '.[test]'
	touch $(VENV)/.installed $@

# Replays every cassette; the network is blocked (loopback test servers aside) and no key is needed.
test: setup
	$(VENV)/bin/pytest --block-network --allowed-hosts=127.0.0.1

# Re-records every cassette: against the real provider when its key is set, else the scripted model.
record: setup
	$(VENV)/bin/pytest --record-mode=rewrite

# Runs the agent on the bundled sample project, offline, by replaying the bundled cassettes:
# first it fixes a failing check, then a forked skill answers who is on call.
demo: setup
	@work=$$(mktemp -d) && cp -R cassettes/demo/workspace/. "$$work" && cd "$$work" && \
	  echo "\$$ ./your_program.sh -p \"$(DEMO_PROMPT)\"    (in a copy of cassettes/demo/workspace)" >&2 && \
	  $(CURDIR)/your_program.sh -p "$(DEMO_PROMPT)" --verbose --provider openrouter --replay $(DEMO_CASSETTE) && \
	  echo >&2 && echo "\$$ ./your_program.sh -p \"$(DEMO_SKILL_PROMPT)\"" >&2 && \
	  cp -R $(CURDIR)/cassettes/demo/workspace/. "$$work" && \
	  $(CURDIR)/your_program.sh -p "$(DEMO_SKILL_PROMPT)" --verbose --provider openrouter --replay $(DEMO_SKILL_CASSETTE); \
	  status=$$?; rm -rf "$$work"; exit $$status
